//! Readers and writers: the only code that touches the filesystem.
//!
//! STUB: readers to be implemented (shapefile with .prj/.cpg, streaming GeoJSON).

use std::path::Path;

use crate::crs::Crs;
use crate::error::{Problem, Result};
use crate::layer::Layer;

/// How to read a layer.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The CRS to assume for a shapefile without a `.prj` (otherwise that is an error).
    pub assume_crs: Option<Crs>,
    /// Attribute fields to keep (matched without regard to ASCII case); `None` keeps all.
    pub keep: Option<Vec<String>>,
}

/// The attribute field names of the layer at `path`, without reading its records.
pub fn field_names(path: &Path) -> Result<Vec<String>> {
    let _ = path;
    todo!()
}

/// Reads the layer at `path` (`.shp` or `.geojson`/`.json`), choosing the format by extension.
///
/// Bad records are kept (with a geometry error where the geometry is unusable) and reported as problems.
pub fn read_layer(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let _ = (path, options);
    todo!()
}
