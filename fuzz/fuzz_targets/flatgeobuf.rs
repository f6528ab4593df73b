//! The FlatGeobuf reader: the input as a whole `.fgb` through `formats::read_layer` and
//! `formats::field_names`. Whatever the bytes, the reader returns, allocating no more than the file holds:
//! every size it declares (header, index, features, vectors inside a feature) is checked against the bytes
//! there. `seed.py` writes the sample's parcels with GDAL to start from, when pyogrio is installed.
#![no_main]

use lakeshore::formats::{field_names, read_layer, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("layer.fgb", data);
    let options = ReadOptions {
        assume_crs: Some(lakeshore::crs::Crs::parse("EPSG:2261").expect("EPSG:2261")),
        keep: None,
    };
    let _ = read_layer(&path, &options);
    let _ = field_names(&path);
});
