//! The File Geodatabase reader: the input is three little-endian 16-bit lengths, then the catalog's
//! `a00000001.gdbtable` and `.gdbtablx` and the feature class's `a00000009.gdbtablx` of those lengths, then its
//! `a00000009.gdbtable`, written into a `.gdb` folder whose feature classes are listed, named and read
//! (`formats::filegdb::layer_names`, `formats::field_names`, `formats::read_layer`, and the folder alone).
//! `seed.py` builds such inputs from File Geodatabases GDAL writes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

const FILES: [&str; 4] = ["a00000001.gdbtable", "a00000001.gdbtablx", "a00000009.gdbtablx", "a00000009.gdbtable"];

fuzz_target!(|data: &[u8]| {
    let mut parts = Vec::new();
    let mut rest = data;
    for _ in 0..3 {
        if rest.len() < 2 {
            return;
        }
        let len = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        rest = &rest[2..];
        let part = &rest[..len.min(rest.len())];
        parts.push(part);
        rest = &rest[part.len()..];
    }
    parts.push(rest);
    let gdb = scratch::file("gdb.keep", b"").with_file_name("layer.gdb");
    std::fs::create_dir_all(&gdb).expect("scratch .gdb folder");
    for (name, bytes) in FILES.iter().zip(parts) {
        std::fs::write(gdb.join(name), bytes).expect("scratch file");
    }
    let options = lakeshore::formats::ReadOptions {
        assume_crs: Some(lakeshore::crs::Crs::parse("EPSG:2261").expect("EPSG:2261")),
        keep: None,
    };
    let _ = lakeshore::formats::read_layer(&gdb, &options);
    let Ok(names) = lakeshore::formats::filegdb::layer_names(&gdb) else { return };
    for name in names.iter().take(4) {
        let layer = gdb.with_file_name(format!("layer.gdb:{name}"));
        let _ = lakeshore::formats::field_names(&layer);
        let _ = lakeshore::formats::read_layer(&layer, &options);
    }
});
