//! The GeoPackage reader: the input as a whole `.gpkg` file (SQLite) whose layers are listed, named and read
//! (`formats::gpkg::layer_names`, `formats::field_names`, `formats::read_layer`), and as one geometry blob
//! (`formats::gpkg::blob::read_blob`). `seed.py` builds small GeoPackages and blobs to start from.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let _ = lakeshore::formats::gpkg::blob::read_blob(data);
    let path = scratch::file("layer.gpkg", data);
    let options = lakeshore::formats::ReadOptions {
        assume_crs: Some(lakeshore::crs::Crs::parse("EPSG:2261").expect("EPSG:2261")),
        keep: None,
    };
    let _ = lakeshore::formats::read_layer(&path, &options);
    let Ok(names) = lakeshore::formats::gpkg::layer_names(&path) else { return };
    for name in names.iter().take(4) {
        let layer = path.with_file_name(format!("layer.gpkg:{name}"));
        let _ = lakeshore::formats::field_names(&layer);
        let _ = lakeshore::formats::read_layer(&layer, &options);
    }
});
