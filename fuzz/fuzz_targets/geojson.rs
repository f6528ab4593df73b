//! The GeoJSON FeatureCollection reader, on the bytes as a whole file and on the bytes as the one feature of
//! a collection (so that the fuzzer reaches the feature and geometry readers without having to find the
//! envelope first). Whatever the bytes, the reader returns; and whatever it accepts, serde_json accepts too:
//! the reader's own JSON parser never takes for JSON what is not.
#![no_main]

use lakeshore::formats::{field_names, read_layer, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

/// Reads `bytes` as the file `name`; if the reader takes them, they must be JSON (after a byte order mark).
fn read(name: &str, bytes: &[u8], options: &ReadOptions) {
    let path = scratch::file(name, bytes);
    let read = read_layer(&path, options);
    let _ = field_names(&path);
    if read.is_ok() {
        let json = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let parsed = serde_json::from_slice::<serde::de::IgnoredAny>(json);
        assert!(parsed.is_ok(), "the reader took bytes that are not JSON: {parsed:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    read("layer.geojson", data, &ReadOptions::default());
    let mut collection = br#"{"type": "FeatureCollection", "features": ["#.to_vec();
    collection.extend_from_slice(data);
    collection.extend_from_slice(b"]}");
    let keep = ReadOptions { keep: Some(vec!["NAME".into()]), ..ReadOptions::default() };
    read("feature.geojson", &collection, &keep);
});
