//! Golden tests: the obligations of the SYNTHETIC sample county (`data/sample/`) for `--as-of 2027-01-15`
//! under Cayuga County Article V (`county.toml`) and the Town of Gorham's Chapter 56 (`gorham.toml`), and the
//! class and permit columns of the schedule.
//!
//! The expected files in `tests/golden/sample/` (`obligations-cayuga.csv`, `obligations-gorham.csv`,
//! `permits.csv`) were worked out by hand from the law texts, the README's obligation tables and the sample's
//! designed records, each row with its derivation in `note`; they were not produced by running the program.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const AS_OF: &str = "2027-01-15";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `lakeshore COMMAND --config data/sample/CONFIG` and returns the output folder.
fn run(command: &str, config: &str) -> PathBuf {
    let out = common::fresh_dir(&format!("golden-{command}-{config}"));
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg(command)
        .arg("--config")
        .arg(root().join("data/sample").join(config))
        .args(["--as-of", AS_OF, "--format", "csv", "--out"])
        .arg(&out)
        .output()
        .expect("cannot run the lakeshore binary");
    // The sample holds bad rows on purpose, so the exit code is 2 (checked in `sample_bad_rows_are_reported`).
    assert_eq!(output.status.code(), Some(2), "stderr:\n{}", String::from_utf8_lossy(&output.stderr));
    out
}

type Rows = Vec<BTreeMap<String, String>>;

fn rows(path: &Path) -> Rows {
    common::read_rows(path).unwrap_or_else(|e| panic!("{e}")).1
}

/// Compares obligations keyed by (parcel, kind, since) on `due` and `overdue`; lists every difference.
fn compare_obligations(expected: &Path, got: &Path) {
    let key =
        |r: &BTreeMap<String, String>| (r["parcel_id"].clone(), r["obligation"].clone(), r["since"].clone());
    let want: BTreeMap<_, _> = rows(expected).into_iter().map(|r| (key(&r), r)).collect();
    let got_rows = rows(got);
    let mut seen = BTreeMap::new();
    let mut diffs = Vec::new();
    for r in &got_rows {
        if seen.insert(key(r), r).is_some() {
            diffs.push(format!("{:?}: listed twice", key(r)));
        }
    }
    for (k, w) in &want {
        match seen.get(k) {
            None => diffs.push(format!("{k:?}: missing (expected due {:?}; {})", w["due"], w["note"])),
            Some(g) => {
                for column in ["due", "overdue"] {
                    if w[column] != g[column] {
                        diffs.push(format!(
                            "{k:?}: {column} expected {:?}, got {:?} ({})",
                            w[column], g[column], w["note"]
                        ));
                    }
                }
            }
        }
    }
    for k in seen.keys().filter(|k| !want.contains_key(*k)) {
        diffs.push(format!("{k:?}: not expected (due {:?})", seen[k]["due"]));
    }
    assert!(
        diffs.is_empty(),
        "{} differs from {}:\n  {}",
        got.display(),
        expected.display(),
        diffs.join("\n  ")
    );
    let mut sorted: Vec<_> = got_rows.iter().map(|r| r["parcel_id"].clone()).collect();
    sorted.sort();
    assert_eq!(
        got_rows.iter().map(|r| r["parcel_id"].clone()).collect::<Vec<_>>(),
        sorted,
        "sorted by parcel id"
    );
}

/// Runs `obligations` with `config` and compares it with the hand-derived `expected` file.
fn check_obligations(config: &str, expected: &str) {
    let out = run("obligations", config);
    compare_obligations(&root().join("tests/golden/sample").join(expected), &out.join("obligations.csv"));
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn cayuga_obligations_match_hand_expectations() {
    check_obligations("county.toml", "obligations-cayuga.csv");
}

#[test]
fn gorham_obligations_match_hand_expectations() {
    check_obligations("gorham.toml", "obligations-gorham.csv");
}

#[test]
fn schedule_class_and_permit_columns_match_hand_expectations() {
    let out = run("schedule", "county.toml");
    let want: BTreeMap<String, BTreeMap<String, String>> =
        rows(&root().join("tests/golden/sample/permits.csv"))
            .into_iter()
            .map(|r| (r["parcel_id"].clone(), r))
            .collect();
    let mut diffs = Vec::new();
    for got in rows(&out.join("schedule.csv")) {
        let id = &got["parcel_id"];
        for column in ["class", "permit", "permit_expires"] {
            let expected = want.get(id).map_or("", |w| w[column].as_str());
            if got[column] != expected {
                diffs.push(format!("{id}: {column} expected {expected:?}, got {:?}", got[column]));
            }
        }
        if let Some(w) = want.get(id) {
            // Distances are exact up to the 1,000-ft search radius and left empty beyond it (README).
            let (e, g) = (w["watercourse_ft"].parse::<f64>(), got["watercourse_ft"].parse::<f64>());
            let agree = match (e, g) {
                (Ok(e), Ok(g)) => (e - g).abs() < 0.05,
                (Ok(e), Err(_)) => e > 1000.0 && got["watercourse_ft"].is_empty(),
                _ => false,
            };
            if !agree {
                diffs.push(format!(
                    "{id}: watercourse_ft expected {:?}, got {:?}",
                    w["watercourse_ft"], got["watercourse_ft"]
                ));
            }
        }
    }
    assert!(diffs.is_empty(), "schedule.csv differs from permits.csv:\n  {}", diffs.join("\n  "));
    let _ = std::fs::remove_dir_all(out);
}

/// Chapter 56 §304.2: individual systems installed before 1990-12-01 and intermediate-sized ones before
/// 1988-01-01 are grandfathered; the sample's installation dates sit on both sides of each cut-off.
#[test]
fn gorham_grandfathered_designs() {
    let out = run("schedule", "gorham.toml");
    let got: BTreeMap<String, String> = rows(&out.join("schedule.csv"))
        .into_iter()
        .map(|r| (r["parcel_id"].clone(), r["grandfathered"].clone()))
        .collect();
    let expected = [
        ("054689-128.05-1-1", "true"),  // individual, 1985-06-01
        ("054689-128.05-1-2", "false"), // individual, 1992-05-01
        ("054489-156.00-1-1", "true"),  // intermediate, 1987-07-01
        ("055689-10.07-1-3", "false"),  // intermediate, 1988-03-01
        ("054889-160.12-1-2", "true"),  // individual, 1990-11-30: the day before
        ("054689-129.00-2-1", "false"), // individual, 1990-12-01: not "prior to"
        ("052089-123.45-1-2", ""),      // no installation on record
    ];
    for (id, want) in expected {
        assert_eq!(got[id], want, "{id}");
    }
    assert!(got.values().filter(|v| !v.is_empty()).count() == 6);
    let _ = std::fs::remove_dir_all(out);
}

/// The sample's deliberately bad rows are each reported with file and line, under both rule sets.
#[test]
fn sample_bad_rows_are_reported() {
    let common_lines = [
        ("events.csv", "line 27", "unknown event 'alien-landing'"),
        ("events.csv", "line 28", "not in the parcels layer"),
        ("events.csv", "line 29", "after the as-of date"),
        ("history.csv", "line 23", "contradict"),
        ("history.csv", "line 42", "before the inspection_date"),
        ("pump_outs.csv", "line 5", "hauler_licence"),
        ("samples.csv", "line 15", "'TNTC' is not a number"),
    ];
    // Art. V §I.B ("properties using public sewer systems") and Ch. 56 §102: the assessor's sewer code
    // decides; lots whose code 2 (private) contradicts the sewer-district polygon around them stay scheduled
    // and are reported (parcels.shp records 10 and 40: 054689-122.18-1-10 and 050100-106.41-1-3).
    let sewer_lines = [
        (
            "parcels.shp",
            "record 10",
            "054689-122.18-1-10: assessor sewer code 2 (not public sewer) but inside",
        ),
        (
            "parcels.shp",
            "record 40",
            "050100-106.41-1-3: assessor sewer code 2 (not public sewer) but inside",
        ),
    ];
    for (config, extra) in
        [("county.toml", None), ("gorham.toml", Some(("events.csv", "line 13", "without expansion_pct")))]
    {
        let out = run("obligations", config);
        let problems = rows(&out.join("problems.csv"));
        let mut wanted: Vec<_> = common_lines.to_vec();
        wanted.extend(sewer_lines);
        wanted.extend(extra);
        for (file, line, text) in &wanted {
            assert!(
                problems.iter().any(|p| p["file"].ends_with(file)
                    && p["record"] == *line
                    && p["problem"].contains(text)),
                "{config}: no problem {file} {line} '{text}' in {problems:?}"
            );
        }
        assert_eq!(problems.len(), wanted.len(), "{config}: {problems:?}");
        let _ = std::fs::remove_dir_all(out);
    }
}
