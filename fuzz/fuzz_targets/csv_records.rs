//! The CSV record readers: the events file, read as the pipeline reads it (column roles detected, every
//! parcel id known).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("events.csv", data);
    let as_of = chrono::NaiveDate::from_ymd_opt(2027, 1, 15).expect("a date");
    let fields = lakeshore::records::columns::FieldMap::new();
    let _ = lakeshore::records::events::read_events(&path, &fields, &|_| Some(0), as_of);
});
