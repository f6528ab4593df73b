//! A layer read front to back in blocks of records, so that a large layer (a state's parcels) need not be
//! held whole.
//!
//! Shapefiles are read block by block from their files (a zipped one from its members in memory): a block's
//! shapes and attribute rows are read on two threads, and [`LayerBlocks::scan`] reads chosen attribute
//! columns alone, at their fixed offsets in the `.dbf`, without touching the shapes. GeoJSON is read block by block too: opening checks the whole
//! document as a whole read does (so it fails where and as a whole read fails) and learns its fields, its
//! number of features and its CRS, wherever the `crs` member stands; [`LayerBlocks::scan`] reads the chosen
//! properties and passes over the geometries; each block is parsed on every core. A File Geodatabase's rows
//! are read a block at a time, or by record number, at the offsets its index gives. GeoPackages, GeoParquet,
//! GeoJSON sequences, Esri JSON and FlatGeobuf are read whole on opening and handed out in blocks from memory.

use std::path::{Path, PathBuf};

use super::{reader_for, require_file, split_member, LayerAt, ReadOptions};
use crate::crs::layer::{Feature, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Problem, Result};

/// A layer being read in blocks of records.
pub struct LayerBlocks {
    path: PathBuf,
    crs: Crs,
    fields: Vec<String>,
    len: usize,
    source: Box<dyn BlockReader>,
}

/// The records of an open layer, handed out block by block: what each format that reads a layer a block at a
/// time implements, and the features of a layer read whole.
pub(super) trait BlockReader: Send {
    /// Calls `each` with the record number and the values of the kept fields at indices `columns`, for
    /// every record in order (see [`LayerBlocks::scan`]).
    fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()>;

    /// The next `count` records and their problems (see [`LayerBlocks::next_block`]).
    fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)>;

    /// The records numbered `records` and their problems (see [`LayerBlocks::read_records`]); `None` when
    /// the records are read front to back only.
    fn read_records(&mut self, records: &[usize]) -> Option<Result<(Vec<Feature>, Vec<Problem>)>> {
        let _ = records;
        None
    }

    /// Whether [`BlockReader::read_records`] reads records.
    fn reads_any_records(&self) -> bool {
        false
    }

    /// Whether the layer was read whole on opening (a test checks that a format read a block at a time is).
    #[cfg(test)]
    fn read_whole(&self) -> bool {
        false
    }
}

/// The features of a layer read whole not yet handed out, and the reader's problems, given with the first
/// block.
struct Memory {
    features: std::vec::IntoIter<Feature>,
    problems: Vec<Problem>,
}

impl BlockReader for Memory {
    fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        for feature in self.features.as_slice() {
            let values = columns.iter().map(|&c| feature.values.get(c).cloned().unwrap_or(Value::Null));
            each(feature.record, values.collect());
        }
        Ok(())
    }

    fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        Ok((self.features.by_ref().take(count).collect(), std::mem::take(&mut self.problems)))
    }

    #[cfg(test)]
    fn read_whole(&self) -> bool {
        true
    }
}

impl LayerBlocks {
    /// Opens the layer at `path` (any format [`super::read_layer`] reads) with the fields `options` keeps.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<Self> {
        let (file, member) = split_member(path);
        let reader = reader_for(&file)?;
        require_file(&file)?;
        reader.open_blocks(&LayerAt { file: &file, member: member.as_deref(), path }, options)
    }

    /// A layer read from `path` a block at a time by `source`.
    pub(super) fn streamed(
        path: &Path,
        crs: Crs,
        fields: Vec<String>,
        len: usize,
        source: Box<dyn BlockReader>,
    ) -> Self {
        LayerBlocks { path: path.to_path_buf(), crs, fields, len, source }
    }

    /// A layer read whole, handed out from memory.
    pub(super) fn in_memory(layer: Layer, problems: Vec<Problem>) -> Self {
        let len = layer.features.len();
        let source = Box::new(Memory { features: layer.features.into_iter(), problems });
        LayerBlocks { path: layer.path, crs: layer.crs, fields: layer.fields, len, source }
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
        self.source.scan(columns, each)
    }

    /// Whether [`LayerBlocks::read_records`] can take records in any order: a shapefile's records are at
    /// offsets its `.shx` gives and at fixed widths in its `.dbf`.
    pub fn reads_any_records(&self) -> bool {
        self.source.reads_any_records()
    }

    /// The records numbered `records` (rising; each record of the layer read once over the calls) and the
    /// problems found in them, as [`LayerBlocks::next_block`] gives them; an error for a layer that is read
    /// only front to back (see [`LayerBlocks::reads_any_records`]). A reader uses this or `next_block`, not
    /// both.
    pub fn read_records(&mut self, records: &[usize]) -> Result<(Vec<Feature>, Vec<Problem>)> {
        self.source.read_records(records).unwrap_or_else(|| {
            Err(Error::format(
                &self.path,
                "this layer's records are read front to back only, not by record number",
            ))
        })
    }

    /// The next `count` records (fewer at the end, none once all are read) and the problems found in them,
    /// in record order; problems with the whole file come with the first block.
    pub fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        self.source.next_block(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read_layer;

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
                assert!(!blocks.source.read_whole(), "{}", path.display());
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

    /// A layer whose file is cut short between its blocks (after the layer was opened, its header read and
    /// its first block handed out) is an error naming the file, not a panic: each of a shapefile's files, and
    /// a GeoJSON file.
    #[test]
    fn a_layer_cut_short_between_blocks_is_an_error_naming_the_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
        let dir = std::env::temp_dir().join(format!("lakeshore-cut-blocks-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let options = ReadOptions::default();
        let large = large_shapefile(&dir);
        let geojson = dir.join("systems.geojson");
        std::fs::copy(root.join("systems.geojson"), &geojson).unwrap();
        for (layer, cut) in [(&large, "shp"), (&large, "dbf"), (&geojson, "geojson")] {
            let file = layer.with_extension(cut);
            let mut blocks = LayerBlocks::open(layer, &options).unwrap();
            assert!(blocks.len() > 10, "{}", layer.display());
            let (first, _) = blocks.next_block(1).unwrap();
            assert_eq!(first.len(), 1);
            let len = std::fs::metadata(&file).unwrap().len();
            std::fs::File::options().write(true).open(&file).unwrap().set_len(len / 2).unwrap();
            let mut read = || -> Result<usize> {
                let mut n = 1;
                loop {
                    let (block, _) = blocks.next_block(3)?;
                    if block.is_empty() {
                        return Ok(n);
                    }
                    n += block.len();
                }
            };
            let err = read().map_err(|e| e.to_string());
            let err = err.expect_err(&format!("{} read whole although cut", file.display()));
            assert!(err.starts_with(&file.display().to_string()), "{}: {err}", file.display());
            if cut != "geojson" {
                assert!(err.contains("was cut short while it was read"), "{err}");
                // Whole again for the next case.
                large_shapefile(&dir);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A shapefile of squares in `dir` whose `.shp` and `.dbf` are each several times the reader's buffer,
    /// so that a block read after the cut reads the file again.
    fn large_shapefile(dir: &Path) -> PathBuf {
        use shapefile::dbase::{FieldName, FieldValue, Record, TableWriterBuilder};
        let path = dir.join("large.shp");
        let table = TableWriterBuilder::new().add_character_field(FieldName::try_from("NAME").unwrap(), 200);
        let mut writer = shapefile::Writer::from_path(&path, table).unwrap();
        for i in 0..2000 {
            let (x, y) = (f64::from(i % 50) * 100.0, f64::from(i / 50) * 100.0);
            let ring = [(x, y), (x, y + 90.0), (x + 90.0, y + 90.0), (x + 90.0, y), (x, y)];
            let points = ring.iter().map(|&(x, y)| shapefile::Point::new(x, y)).collect();
            let polygon = shapefile::Polygon::new(shapefile::PolygonRing::Outer(points));
            let mut record = Record::default();
            record.insert("NAME".into(), FieldValue::Character(Some(format!("square {i}"))));
            writer.write_shape_and_record(&polygon, &record).unwrap();
        }
        drop(writer);
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.prj"),
            path.with_extension("prj"),
        )
        .unwrap();
        path
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
