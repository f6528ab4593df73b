//! Outputs that are safe to open and never half-written: CSV cells that Excel would run as formulas are
//! defused, a run killed while writing leaves every output either the previous complete version or the new
//! one, the staging folder of a killed run is removed by the next, and a panic asks to be reported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

/// The environment variable of the binary's fault-injection hook.
const FAULT: &str = "LAKESHORE_FAULT";

/// A copy of the sample county in a fresh folder.
pub(crate) fn sample_copy(label: &str) -> PathBuf {
    let dir = common::fresh_dir(label);
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    for entry in std::fs::read_dir(&sample).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

/// `lakeshore schedule` of the sample copy in `dir` into `out` (CSV, GeoJSON and Parquet), with the fault
/// `fault` injected if given.
pub(crate) fn schedule(dir: &Path, as_of: &str, out: &str, fault: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lakeshore"));
    command.current_dir(dir).args(["schedule", "--config", "county.toml", "--as-of", as_of, "--out", out]);
    command.args(["--format", "csv,geojson,parquet", "--quiet"]);
    if let Some(fault) = fault {
        command.env(FAULT, fault);
    } else {
        command.env_remove(FAULT);
    }
    command.output().expect("cannot run the lakeshore binary")
}

/// The files of `dir` by name (folders left out).
pub(crate) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap())
                .filter(|e| e.file_type().unwrap().is_file())
                .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

/// The names of everything in `dir`, hidden files and folders included, sorted.
pub(crate) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

/// `files` without `run.json`, which names the command line (and so the output folder) of its run.
fn without_manifest(mut files: BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    files.remove("run.json");
    files
}

/// Overwrites field `name` of record `record` (1-based) of the `.dbf` at `path` with `text`, padded with
/// spaces; the field's place is read from the header here, independently of lakeshore.
fn patch_dbf(path: &Path, record: usize, name: &str, text: &str) {
    let mut dbf = std::fs::read(path).unwrap();
    let header = u16::from_le_bytes([dbf[8], dbf[9]]) as usize;
    let record_len = u16::from_le_bytes([dbf[10], dbf[11]]) as usize;
    let mut offset = 1;
    let mut at = 32;
    while dbf[at] != 0x0d {
        let field = String::from_utf8_lossy(&dbf[at..at + 11]).trim_end_matches('\0').to_string();
        let len = dbf[at + 16] as usize;
        if field == name {
            let start = header + (record - 1) * record_len + offset;
            let mut value = text.as_bytes().to_vec();
            value.resize(len, b' ');
            dbf[start..start + len].copy_from_slice(&value);
            std::fs::write(path, dbf).unwrap();
            return;
        }
        offset += len;
        at += 32;
    }
    panic!("no field {name} in {}", path.display());
}

#[test]
fn text_cells_are_quoted_and_those_excel_would_run_are_written_as_text() {
    let dir = sample_copy("csv-injection");
    let formulas = ["=HYPERLINK(\"http://x\")", "+SUM(1)", "-2+3", "@A1"];
    for (i, formula) in formulas.iter().enumerate() {
        patch_dbf(&dir.join("parcels.dbf"), i + 1, "PRIMARY_OW", formula);
    }
    patch_dbf(&dir.join("parcels.dbf"), 5, "PRIMARY_OW", "Smith, \"Jack\"");
    let output = schedule(&dir, "2027-01-15", "out", None);
    assert!(matches!(output.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&output.stderr));
    let (_, rows) = common::read_rows(&dir.join("out/schedule.csv")).unwrap();
    let owners: BTreeMap<&str, &str> =
        rows.iter().map(|r| (r["record"].as_str(), r["owner"].as_str())).collect();
    for (i, formula) in formulas.iter().enumerate() {
        let record = (i + 1).to_string();
        assert_eq!(owners[record.as_str()], format!("'{formula}"), "record {record}");
    }
    // RFC 4180 quoting of a comma and quotes, read back by an independent parser.
    assert_eq!(owners["5"], "Smith, \"Jack\"");
    let raw = std::fs::read_to_string(dir.join("out/schedule.csv")).unwrap();
    assert!(raw.contains(",\"Smith, \"\"Jack\"\"\","), "{raw}");
    // Numbers stay numbers: a negative number is data, not a formula, and keeps no quote.
    assert!(rows.iter().all(|r| !r["mhw_distance_ft"].starts_with('\'')));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run killed after `n` bytes of output, for many `n` from a seed: it dies before its commit point, so the
/// folder holds the previous set, every file and `run.json` as they were, and the next run removes the staging
/// folder.
#[test]
fn a_run_killed_while_writing_leaves_the_old_set_untouched() {
    let dir = sample_copy("kill-during-write");
    // The new outputs, from a clean run elsewhere; the old ones are a different as-of date.
    let reference = schedule(&dir, "2028-01-15", "new", None);
    assert!(matches!(reference.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&reference.stderr));
    let new = without_manifest(files(&dir.join("new")));
    let total: usize = new.values().map(Vec::len).sum();
    assert!(new.len() >= 4, "outputs: {:?}", new.keys());

    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut limits: Vec<usize> = (0..12).map(|_| rng.random_range(0..total)).collect();
    limits.extend([0, 1, total - 1]);
    for limit in limits {
        let out = dir.join("out");
        let _ = std::fs::remove_dir_all(&out);
        let first = schedule(&dir, "2027-01-15", "out", None);
        assert!(matches!(first.status.code(), Some(0 | 2)));
        let old = files(&out);
        assert_ne!(
            without_manifest(old.clone()),
            new,
            "the two runs must differ for the test to mean anything"
        );

        let killed = schedule(&dir, "2028-01-15", "out", Some(&format!("abort-after-bytes={limit}")));
        assert_eq!(killed.status.code(), None, "killed after {limit} bytes: {killed:?}");
        let mut left = files(&out);
        // The lock file a killed run leaves says who held it.
        left.remove(".lakeshore.lock");
        assert!(left == old, "killed after {limit} of {total} bytes: the folder is not the old set");

        let again = schedule(&dir, "2028-01-15", "out", None);
        assert!(matches!(again.status.code(), Some(0 | 2)));
        assert_eq!(without_manifest(files(&out)), new, "after a clean run, the outputs are the new ones");
        let mut expected: Vec<String> = new.keys().cloned().collect();
        expected.push("run.json".into());
        expected.sort();
        assert_eq!(names(&out), expected, "no staging folder, lock or temporary is left");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_panic_prints_the_command_and_asks_for_a_report() {
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config", "my county.toml"])
        .env(FAULT, "panic")
        .output()
        .expect("cannot run the lakeshore binary");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(101), "{stderr}");
    assert!(stderr.contains("lakeshore: internal error: panicked at"), "{stderr}");
    assert!(
        stderr.contains("command: ") && stderr.contains(" schedule --config 'my county.toml'"),
        "{stderr}"
    );
    let report: Vec<&str> = stderr.lines().filter(|l| l.contains("please report")).collect();
    assert_eq!(report.len(), 1, "{stderr}");
}
