//! Every output except `problems.csv` and `run.json` stays what the code wrote before the streaming pipeline: the text
//! outputs (CSV, GeoJSON, SVG, HTML, QML) byte for byte, the binary ones (GeoPackage, GeoParquet, PNG) as read
//! back ([`crate::read_back`]: tables, rows, geometry, CRS, pixels), so that a dependency writing the same
//! content in other bytes is no failure.
//!
//! `tests/golden/outputs/commands.txt` lists the runs; `tests/golden/outputs/NAME.sha256` holds the SHA-256 of
//! each file they wrote (of its read-back for a binary one), taken once by `capture.sh` from the code of that
//! time. The 100k-parcel bench county is held to `bench-100k.sha256` by `.ci/run` through the same script, in
//! release. When a digest differs, `cargo run --example read_back -- FILE` shows what a binary output holds.
//!
//! The digests are of the default, pure-Rust CRS backend. Built with PROJ (`--features proj`) the coordinates
//! reprojected to WGS 84 and the CRS definitions written in GeoPackages come from another library and differ
//! in their last bits, so these tests are for the default build only; `crs_backends` checks that the two
//! backends agree within their tolerance.
#![cfg(not(feature = "proj"))]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::common::fresh_dir;
use crate::read_back::read_back;

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/outputs")
}

/// The runs of `commands.txt`: a name and the arguments after `lakeshore`, `{out}` still in them.
fn runs() -> Vec<(String, Vec<String>)> {
    let text = fs::read_to_string(golden().join("commands.txt")).expect("tests/golden/outputs/commands.txt");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut words = line.split_whitespace().map(str::to_string);
            let name = words.next().expect("a run name");
            (name, words.collect())
        })
        .collect()
}

/// `run/file -> digest` for every file under `dir` but `problems.csv` and `run.json` (which holds the command
/// line, with this machine's paths; `safe_outputs` checks it).
fn digests(dir: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for run in fs::read_dir(dir).expect("output folder").map(|e| e.expect("entry").path()) {
        for file in fs::read_dir(&run).expect("run folder").map(|e| e.expect("entry").path()) {
            let name = file.file_name().expect("file name").to_string_lossy().into_owned();
            if name == "problems.csv" || name == "run.json" {
                continue;
            }
            let bytes = match read_back(&file) {
                Some(text) => text.unwrap_or_else(|e| panic!("{e}")).into_bytes(),
                None => fs::read(&file).expect("output file"),
            };
            let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
            let run = run.file_name().expect("run name").to_string_lossy().into_owned();
            found.insert(format!("{run}/{name}"), digest);
        }
    }
    found
}

/// Runs every command on `county` and compares each output with `NAME.sha256`.
fn outputs_match(county: &str, name: &str) {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join(county);
    let out = fresh_dir(&format!("identical-{name}"));
    for (run, args) in runs() {
        let dir = out.join(&run);
        fs::create_dir_all(&dir).expect("run folder");
        let args: Vec<String> = args.iter().map(|a| a.replace("{out}", &dir.to_string_lossy())).collect();
        let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .args(&args)
            .arg("--config")
            .arg(&config)
            .args(["--as-of", "2027-01-15", "-q"])
            .env("SOURCE_DATE_EPOCH", "1800000000")
            .output()
            .expect("lakeshore runs");
        assert!(
            matches!(output.status.code(), Some(0 | 2)),
            "{run} on {county}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let expected: BTreeMap<String, String> = fs::read_to_string(golden().join(format!("{name}.sha256")))
        .expect("digest file")
        .lines()
        .filter_map(|line| line.split_once("  "))
        .map(|(digest, file)| (file.to_string(), digest.to_string()))
        .collect();
    let found = digests(&out);
    let missing: Vec<_> = expected.keys().filter(|f| !found.contains_key(*f)).collect();
    let extra: Vec<_> = found.keys().filter(|f| !expected.contains_key(*f)).collect();
    let changed: Vec<_> =
        expected.iter().filter(|(f, d)| found.get(*f).is_some_and(|x| x != *d)).map(|(f, _)| f).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && changed.is_empty(),
        "{county}: outputs differ from {name}.sha256 (kept in {}): changed {changed:?}, missing {missing:?}, new {extra:?}",
        out.display()
    );
    fs::remove_dir_all(&out).ok();
}

#[test]
fn the_sample_outputs_are_unchanged() {
    outputs_match("data/sample/county.toml", "sample");
}

#[test]
fn the_problem_sample_outputs_are_unchanged() {
    outputs_match("data/sample-problems/county.toml", "sample-problems");
}
