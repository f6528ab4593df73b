//! Packs the EPSG table of `crs-definitions` (a PROJ string and a WKT for each code) into one
//! Deflate-compressed blob that `crs::epsg` includes and inflates the first time a code is looked up: the
//! table's 4.5 MB of text become well under 1 MB of the shipped binary.
//!
//! The blob is the records `code NUL PROJ-string NUL WKT NUL`, the code in decimal, in code order.

use std::io::Write;

fn main() {
    let mut table = Vec::new();
    for code in 0..=u16::MAX {
        if let Some(def) = crs_definitions::from_code(code) {
            for text in [&code.to_string(), def.proj4, def.wkt] {
                assert!(!text.contains('\0'), "EPSG:{code} has a NUL byte in its definition");
                table.extend_from_slice(text.as_bytes());
                table.push(0);
            }
        }
    }
    let mut packed = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    packed.write_all(&table).expect("compressing in memory");
    let packed = packed.finish().expect("compressing in memory");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("epsg.deflate"), packed).expect("writing the EPSG table to OUT_DIR");
    println!("cargo::rerun-if-changed=build.rs");
}
