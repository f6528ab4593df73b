//! The zipped-shapefile reader: the input as a whole `.zip` whose shapefiles are listed
//! (`formats::zipped::shapefiles`), and read whole and by name (`formats::read_layer`, `formats::field_names`
//! of `layer.zip` and of `layer.zip:NAME` for its first four shapefiles). Whatever the bytes, the reader
//! returns within the zip's bounds (`zipped::limits`). `seed.py` zips the sample's shapefiles to start from.
#![no_main]

use lakeshore::formats::{field_names, read_layer, zipped, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("layer.zip", data);
    let options = ReadOptions {
        assume_crs: Some(lakeshore::crs::Crs::parse("EPSG:2261").expect("EPSG:2261")),
        keep: None,
    };
    let _ = read_layer(&path, &options);
    let _ = field_names(&path);
    let Ok(names) = zipped::shapefiles(&path) else { return };
    for name in names.iter().take(4) {
        let layer = path.with_file_name(format!("layer.zip:{name}"));
        let _ = field_names(&layer);
        let _ = read_layer(&layer, &options);
    }
});
