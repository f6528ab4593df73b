//! The GeoJSON text sequence reader: the input as a `.geojsonl` file (newline-delimited, or RFC 8142 when it
//! opens with a record separator) through `formats::read_layer` and `formats::field_names`. Whatever the
//! bytes, the reader returns; and whatever it accepts, serde_json accepts text by text: the feature reader
//! it shares with the FeatureCollection reader never takes for JSON what is not.
#![no_main]

use lakeshore::formats::{field_names, read_layer, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("layer.geojsonl", data);
    let read = read_layer(&path, &ReadOptions::default());
    let _ = field_names(&path);
    if read.is_ok() {
        let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
        let separated = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&0x1e);
        let separator = if separated { 0x1e } else { b'\n' };
        for text in body.split(|&b| b == separator) {
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed = serde_json::from_slice::<serde::de::IgnoredAny>(text);
            assert!(parsed.is_ok(), "the reader took a text that is not JSON: {parsed:?}");
        }
    }
});
