//! A layer read front to back in blocks of records, so that a large layer (a state's parcels) need not be
//! held whole.
//!
//! Shapefiles are read block by block from their files: a block's shapes and attribute rows are read on two
//! threads, and [`LayerBlocks::scan`] reads chosen attribute columns alone, at their fixed offsets in the
//! `.dbf`, without touching the shapes. GeoJSON is read block by block too: opening checks the whole
//! document as a whole read does (so it fails where and as a whole read fails) and learns its fields, its
//! number of features and its CRS, wherever the `crs` member stands; [`LayerBlocks::scan`] reads the chosen
//! properties and passes over the geometries; each block is parsed on every core. GeoPackages and GeoParquet
//! are read whole on opening and handed out in blocks from memory.

use std::path::{Path, PathBuf};

use super::{geojson, read_layer, shapefile, split_member, LayerFormat, ReadOptions};
use crate::crs::Crs;
use crate::error::{Problem, Result};
use crate::layer::{Feature, Value};

/// A layer being read in blocks of records.
pub struct LayerBlocks {
    path: PathBuf,
    crs: Crs,
    fields: Vec<String>,
    len: usize,
    source: Source,
}

enum Source {
    Shapefile(Box<shapefile::Blocks>),
    Geojson(Box<geojson::Blocks>),
    /// The features not yet handed out, and the reader's problems, given with the first block.
    Memory {
        features: std::vec::IntoIter<Feature>,
        problems: Vec<Problem>,
    },
}

impl LayerBlocks {
    /// Opens the layer at `path` (any format [`read_layer`] reads) with the fields `options` keeps.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<Self> {
        let (file, member) = split_member(path);
        let format = LayerFormat::of(&file)?;
        // Shapefiles and GeoJSON files are read from the file a block at a time; other formats whole.
        let streamed = match format {
            _ if member.is_some() => None,
            LayerFormat::Shapefile => {
                super::require_file(&file)?;
                let blocks = shapefile::Blocks::open(&file, options)?;
                Some((
                    blocks.crs.clone(),
                    blocks.fields.clone(),
                    blocks.len(),
                    Source::Shapefile(Box::new(blocks)),
                ))
            }
            LayerFormat::GeoJson => {
                super::require_file(&file)?;
                let blocks = geojson::Blocks::open(&file, options)?;
                Some((
                    blocks.crs.clone(),
                    blocks.fields.clone(),
                    blocks.len(),
                    Source::Geojson(Box::new(blocks)),
                ))
            }
            _ => None,
        };
        if let Some((crs, fields, len, source)) = streamed {
            return Ok(LayerBlocks { path: file, crs, fields, len, source });
        }
        let (layer, problems) = read_layer(path, options)?;
        let len = layer.features.len();
        let source = Source::Memory { features: layer.features.into_iter(), problems };
        Ok(LayerBlocks { path: layer.path, crs: layer.crs, fields: layer.fields, len, source })
    }

    /// The file the layer is read from (the `.shp` for a shapefile).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The CRS of the coordinates.
    pub fn crs(&self) -> &Crs {
        &self.crs
    }

    /// The kept attribute fields, in the order of each feature's values.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The number of records in the layer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the layer has no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Calls `each` with the record number and the values of the kept fields at indices `columns`, for every
    /// record in order, before any block is read. A shapefile reads those `.dbf` columns alone; a value that
    /// cannot be decoded is null here, and is reported when its block is read. A GeoJSON file reads those
    /// properties alone (opening found any value that cannot be read).
    pub fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        match &self.source {
            Source::Shapefile(blocks) => blocks.scan(columns, each),
            Source::Geojson(blocks) => blocks.scan(columns, each),
            Source::Memory { features, .. } => {
                for feature in features.as_slice() {
                    let values =
                        columns.iter().map(|&c| feature.values.get(c).cloned().unwrap_or(Value::Null));
                    each(feature.record, values.collect());
                }
                Ok(())
            }
        }
    }

    /// The next `count` records (fewer at the end, none once all are read) and the problems found in them,
    /// in record order; problems with the whole file come with the first block.
    pub fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        match &mut self.source {
            Source::Shapefile(blocks) => blocks.next_block(count),
            Source::Geojson(blocks) => blocks.next_block(count),
            Source::Memory { features, problems } => {
                Ok((features.by_ref().take(count).collect(), std::mem::take(problems)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every GeoJSON layer of the samples (the problem sample's broken features among them), read in blocks
    /// of many sizes after a scan of every field, is the layer a whole read gives, problems and all.
    #[test]
    fn geojson_in_blocks_is_geojson_read_whole() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut layers = 0;
        for county in ["data/sample", "data/sample-problems"] {
            for entry in std::fs::read_dir(root.join(county)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "geojson") {
                    continue;
                }
                layers += 1;
                let options = ReadOptions::default();
                let (layer, problems) = read_layer(&path, &options).unwrap();
                for count in [1, 7, 1000] {
                    let mut blocks = LayerBlocks::open(&path, &options).unwrap();
                    assert!(matches!(blocks.source, Source::Geojson(_)), "{}", path.display());
                    assert_eq!(
                        (blocks.crs(), blocks.fields(), blocks.len()),
                        (&layer.crs, &layer.fields[..], layer.features.len())
                    );
                    let every: Vec<usize> = (0..layer.fields.len()).collect();
                    let mut scanned = Vec::new();
                    blocks.scan(&every, &mut |record, values| scanned.push((record, values))).unwrap();
                    let whole: Vec<(usize, Vec<Value>)> =
                        layer.features.iter().map(|f| (f.record, f.values.clone())).collect();
                    assert_eq!(scanned, whole, "{}: the scan", path.display());
                    let (mut features, mut found) = (Vec::new(), Vec::new());
                    loop {
                        let (block, more) = blocks.next_block(count).unwrap();
                        if block.is_empty() {
                            break;
                        }
                        features.extend(block);
                        found.extend(more);
                    }
                    assert_eq!(
                        format!("{features:?}"),
                        format!("{:?}", layer.features),
                        "{}",
                        path.display()
                    );
                    assert_eq!(found, problems, "{}, blocks of {count}", path.display());
                }
            }
        }
        assert!(layers >= 10, "only {layers} GeoJSON layers in the samples");
    }
}
