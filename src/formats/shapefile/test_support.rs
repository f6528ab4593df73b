use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use ::shapefile::dbase::{self, FieldName, FieldValue, Record, TableWriterBuilder};
use ::shapefile::{PolygonRing, Writer};

use crate::crs::{Crs, CrsDef};
use crate::formats::ReadOptions;

/// A fresh directory under the system temp dir, removed on drop.
pub(super) struct TempDir(PathBuf);

impl TempDir {
    pub(super) fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = crate::scratch::root().join(format!("shp-{name}-{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub(super) fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn assumed() -> ReadOptions {
    ReadOptions { assume_crs: Some(Crs { def: CrsDef::Epsg(2261) }), keep: None }
}

pub(super) fn name(n: &str) -> FieldName {
    FieldName::try_from(n).unwrap()
}

/// Writes `shapes` to `shp` with one numeric field ID = 1, 2, ...
pub(super) fn write_with_ids<S: ::shapefile::record::EsriShape>(shp: &Path, shapes: &[S]) {
    let table = TableWriterBuilder::new().add_numeric_field(name("ID"), 10, 0);
    let mut writer = Writer::from_path(shp, table).unwrap();
    for (i, shape) in shapes.iter().enumerate() {
        let record =
            Record::from(HashMap::from([("ID".to_string(), FieldValue::Numeric(Some(i as f64 + 1.0)))]));
        writer.write_shape_and_record(shape, &record).unwrap();
    }
}

pub(super) fn square(x: f64, y: f64, size: f64) -> Vec<::shapefile::Point> {
    let p = ::shapefile::Point::new;
    vec![p(x, y), p(x, y + size), p(x + size, y + size), p(x + size, y), p(x, y)]
}

pub(super) fn polygon(rings: Vec<PolygonRing<::shapefile::Point>>) -> ::shapefile::Polygon {
    ::shapefile::Polygon::with_rings(rings)
}

pub(super) fn patch(path: &Path, offset: usize, bytes: &[u8]) {
    let mut data = std::fs::read(path).unwrap();
    data[offset..offset + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, data).unwrap();
}

pub(super) fn write_attributes(shp: &Path) {
    let table = TableWriterBuilder::new()
        .add_character_field(name("NAME"), 20)
        .add_numeric_field(name("ACRES"), 10, 2)
        .add_logical_field(name("SEPTIC"))
        .add_date_field(name("BUILT"))
        .add_float_field(name("DEPTH"), 10, 3)
        .add_character_field(name("NOTE"), 5);
    let mut writer = Writer::from_path(shp, table).unwrap();
    let full = Record::from(HashMap::from([
        ("NAME".to_string(), FieldValue::Character(Some("  Lake House ".to_string()))),
        ("ACRES".to_string(), FieldValue::Numeric(Some(1.25))),
        ("SEPTIC".to_string(), FieldValue::Logical(Some(true))),
        ("BUILT".to_string(), FieldValue::Date(Some(dbase::Date::new(5, 6, 1987).unwrap()))),
        ("DEPTH".to_string(), FieldValue::Float(Some(2.5))),
        ("NOTE".to_string(), FieldValue::Character(Some(String::new()))),
    ]));
    let empty = Record::from(HashMap::from([
        ("NAME".to_string(), FieldValue::Character(None)),
        ("ACRES".to_string(), FieldValue::Numeric(None)),
        ("SEPTIC".to_string(), FieldValue::Logical(None)),
        ("BUILT".to_string(), FieldValue::Date(None)),
        ("DEPTH".to_string(), FieldValue::Float(None)),
        ("NOTE".to_string(), FieldValue::Character(None)),
    ]));
    writer.write_shape_and_record(&::shapefile::Point::new(0., 0.), &full).unwrap();
    writer.write_shape_and_record(&::shapefile::Point::new(1., 1.), &empty).unwrap();
}
