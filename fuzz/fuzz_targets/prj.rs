//! The CRS parser a `.prj` (WKT 1 or 2, ESRI flavour) goes through.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = lakeshore::crs::Crs::parse(&text);
});
