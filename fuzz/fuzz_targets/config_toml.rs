//! The TOML readers: the county config and the rule set, from the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("county.toml", data);
    let _ = lakeshore::pipeline::config::ConfigFile::load(&path);
    let path = scratch::file("rules.toml", data);
    let _ = lakeshore::rules::RuleSet::load(&path);
});
