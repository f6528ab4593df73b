//! The GeoJSON FeatureCollection reader.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("layer.geojson", data);
    let _ = lakeshore::io::read_layer(&path, &lakeshore::io::ReadOptions::default());
});
