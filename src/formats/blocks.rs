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
use crate::crs::layer::{Feature, Value};
use crate::crs::Crs;
use crate::model::error::{Problem, Result};

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

    /// Whether [`LayerBlocks::read_records`] can take records in any order: a shapefile's records are at
    /// offsets its `.shx` gives and at fixed widths in its `.dbf`.
    pub fn reads_any_records(&self) -> bool {
        matches!(self.source, Source::Shapefile(_))
    }

    /// The records numbered `records` (rising; each record of the layer read once over the calls) and the
    /// problems found in them, as [`LayerBlocks::next_block`] gives them; an error for a layer that is read
    /// only front to back (see [`LayerBlocks::reads_any_records`]). A reader uses this or `next_block`, not
    /// both.
    pub fn read_records(&mut self, records: &[usize]) -> Result<(Vec<Feature>, Vec<Problem>)> {
        match &mut self.source {
            Source::Shapefile(blocks) => blocks.read_records(records),
            Source::Geojson(_) | Source::Memory { .. } => Err(crate::model::error::Error::format(
                &self.path,
                "this layer's records are read front to back only, not by record number",
            )),
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
        let layers = sample_layers("geojson");
        assert!(layers.len() >= 10, "only {} GeoJSON layers in the samples", layers.len());
        for path in layers {
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
                assert_eq!(format!("{features:?}"), format!("{:?}", layer.features), "{}", path.display());
                assert_eq!(found, problems, "{}, blocks of {count}", path.display());
            }
        }
    }

    /// Every shapefile of the samples (the problem sample's broken records among them), read by record
    /// number in blocks of records taken in a scrambled order, each block rising, gives every record once
    /// as a whole read gives it, and the same problems.
    #[test]
    fn shapefiles_read_by_record_number_are_shapefiles_read_whole() {
        let layers = sample_layers("shp");
        assert!(layers.len() >= 6, "only {} shapefiles in the samples", layers.len());
        for path in layers {
            let options = ReadOptions { assume_crs: Some(Crs::parse("EPSG:2261").unwrap()), keep: None };
            let (layer, mut problems) = read_layer(&path, &options).unwrap();
            Problem::sort_unique(&mut problems);
            let n = layer.features.len();
            for count in [1, 3, 10, 1000] {
                // The records in an order of their own (a stride coprime with n), cut into blocks.
                let stride = (n / 2 + 1..n).find(|&s| gcd(s, n) == 1).unwrap_or(1);
                let scrambled: Vec<usize> = (0..n).map(|i| (i * stride) % n.max(1) + 1).collect();
                let mut blocks = LayerBlocks::open(&path, &options).unwrap();
                assert!(blocks.reads_any_records());
                let (mut features, mut found) = (Vec::new(), Vec::new());
                for chunk in scrambled.chunks(count) {
                    let mut records = chunk.to_vec();
                    records.sort_unstable();
                    let (block, more) = blocks.read_records(&records).unwrap();
                    let read: Vec<usize> = block.iter().map(|f| f.record).collect();
                    assert_eq!(read, records, "{}", path.display());
                    features.extend(block);
                    found.extend(more);
                }
                features.sort_by_key(|f| f.record);
                Problem::sort_unique(&mut found);
                let label = format!("{}, blocks of {count}", path.display());
                assert_eq!(format!("{features:?}"), format!("{:?}", layer.features), "{label}");
                assert_eq!(found, problems, "{label}");
            }
        }
    }

    /// The layers of both samples whose files end in `.extension`.
    fn sample_layers(extension: &str) -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut layers = Vec::new();
        for county in ["data/sample", "data/sample-problems"] {
            for entry in std::fs::read_dir(root.join(county)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == extension) {
                    layers.push(path);
                }
            }
        }
        layers
    }

    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
}
