//! The Esri JSON reader and the format told by content: the input as a whole `.json` (which the first bytes
//! send to the Esri JSON, GeoJSON or sequence reader, or refuse saying what they look like), as a file with
//! no known extension (the content alone decides), and as the features of a FeatureSet (so that the fuzzer
//! reaches the geometry and ring readers without having to find the envelope first).
#![no_main]

use lakeshore::formats::{field_names, read_layer, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions::default();
    for name in ["layer.json", "layer.dat"] {
        let path = scratch::file(name, data);
        let _ = read_layer(&path, &options);
        let _ = field_names(&path);
    }
    let mut set = br#"{"geometryType": "esriGeometryPolygon", "spatialReference": {"wkid": 2261}, "features": ["#.to_vec();
    set.extend_from_slice(data);
    set.extend_from_slice(b"]}");
    let path = scratch::file("set.json", &set);
    let _ = read_layer(&path, &ReadOptions { keep: Some(vec!["NAME".into()]), ..ReadOptions::default() });
});
