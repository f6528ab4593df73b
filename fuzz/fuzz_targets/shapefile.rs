//! The shapefile reader (.shp, .shx, .dbf together, as it reads them). The input is two little-endian
//! 16-bit lengths, then the .shx and .dbf of those lengths, then the .shp; `seed.py` builds such inputs from
//! the sample county.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let shx_len = u16::from_le_bytes([data[0], data[1]]) as usize;
    let dbf_len = u16::from_le_bytes([data[2], data[3]]) as usize;
    let rest = &data[4..];
    let shx = &rest[..shx_len.min(rest.len())];
    let rest = &rest[shx.len()..];
    let dbf = &rest[..dbf_len.min(rest.len())];
    let shp = &rest[dbf.len()..];
    scratch::file("layer.shx", shx);
    scratch::file("layer.dbf", dbf);
    let path = scratch::file("layer.shp", shp);
    let options = lakeshore::formats::ReadOptions {
        assume_crs: Some(lakeshore::crs::Crs::parse("EPSG:2261").expect("EPSG:2261")),
        keep: None,
    };
    let _ = lakeshore::formats::read_layer(&path, &options);
});
