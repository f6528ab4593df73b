//! Golden test: the schedule of the SYNTHETIC sample county (`data/sample/`) for
//! `--as-of 2027-01-15` against `tests/golden/sample/expected.csv`.
//!
//! The expectations were worked out by hand from Article V and the sample's designed geometry
//! (see `data/sample/README.md`), never by running the program, so there is deliberately no
//! switch to rewrite them from the program's output: when this test fails, either the program
//! or the hand derivation is wrong, and the `note` column says which case to re-derive.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;

const AS_OF: &str = "2027-01-15";
/// The columns compared, besides `parcel_id`.
const COLUMNS: &[&str] = &["tier", "cycle_years", "previous_due", "next_due", "status", "floodplain_verdict"];
const TIERS: &[&str] = &["lakefront", "near-shore", "watershed", "county", "unscheduled"];
const STATUSES: &[&str] = &["current", "due-this-year", "overdue", "never-inspected", ""];
const VERDICTS: &[&str] = &["ok", "below", "unknown", "n/a"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

use crate::common::parse_csv;

/// A CSV table: rows keyed by `parcel_id`, each a map column -> value, plus ids seen twice.
struct Table {
    rows: BTreeMap<String, BTreeMap<String, String>>,
    order: Vec<String>,
    duplicates: Vec<String>,
}

fn read_table(path: &Path) -> Result<Table, String> {
    let (header, rows) = common::read_rows(path)?;
    if !header.iter().any(|h| h == "parcel_id") {
        return Err(format!("{} has no parcel_id column; header: {header:?}", path.display()));
    }
    let mut table = Table { rows: BTreeMap::new(), order: Vec::new(), duplicates: Vec::new() };
    for row in rows {
        let id = row["parcel_id"].clone();
        table.order.push(id.clone());
        if table.rows.insert(id.clone(), row).is_some() {
            table.duplicates.push(id);
        }
    }
    Ok(table)
}

fn expected() -> Table {
    let path = root().join("tests/golden/sample/expected.csv");
    read_table(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The golden file itself is well formed: sorted by parcel id, one row per parcel, known values.
#[test]
fn expected_file_is_well_formed() {
    let table = expected();
    assert!(table.duplicates.is_empty(), "duplicate ids in expected.csv: {:?}", table.duplicates);
    let mut sorted = table.order.clone();
    sorted.sort();
    assert_eq!(table.order, sorted, "expected.csv must be sorted by parcel_id");
    for (id, row) in &table.rows {
        let tier = row["tier"].as_str();
        assert!(TIERS.contains(&tier), "{id}: tier {tier:?}");
        assert!(STATUSES.contains(&row["status"].as_str()), "{id}: status {:?}", row["status"]);
        assert!(VERDICTS.contains(&row["floodplain_verdict"].as_str()), "{id}: verdict");
        let scheduled = tier != "unscheduled";
        for column in ["cycle_years", "next_due", "status"] {
            assert_eq!(!row[column].is_empty(), scheduled, "{id}: {column} vs tier {tier}");
        }
        assert!(!row["note"].is_empty(), "{id}: every case needs a note");
    }
}

#[test]
fn sample_schedule_matches_hand_expectations() {
    let expected = expected();
    let out = common::fresh_dir("golden-sample");
    let config = root().join("data/sample/county.toml");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg("schedule")
        .arg("--config")
        .arg(&config)
        .args(["--as-of", AS_OF, "--out"])
        .arg(&out)
        .args(["--format", "csv"])
        .output()
        .expect("cannot run the lakeshore binary");
    // Every record of the sample is good: a clean run (the bad ones are in data/sample-problems).
    assert_eq!(output.status.code(), Some(0), "stderr:\n{}", String::from_utf8_lossy(&output.stderr));
    let schedule = out.join("schedule.csv");
    let got = read_table(&schedule).unwrap_or_else(|e| {
        panic!(
            "{e}\nlakeshore exited with {}\nstderr:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    });

    let mut problems = Vec::new();
    let missing_columns: Vec<&str> = COLUMNS
        .iter()
        .copied()
        .filter(|c| got.rows.values().next().is_some_and(|row| !row.contains_key(*c)))
        .collect();
    if !missing_columns.is_empty() {
        problems.push(format!("schedule.csv lacks the columns {missing_columns:?}"));
    }
    for id in &got.duplicates {
        problems.push(format!("{id}: appears more than once in schedule.csv"));
    }
    let want_ids: BTreeSet<&String> = expected.rows.keys().collect();
    let got_ids: BTreeSet<&String> = got.rows.keys().collect();
    for id in want_ids.difference(&got_ids) {
        problems.push(format!("{id}: missing from schedule.csv ({})", expected.rows[*id]["note"]));
    }
    for id in got_ids.difference(&want_ids) {
        problems.push(format!("{id}: in schedule.csv but not an input parcel"));
    }
    let mut diffs = Vec::new();
    for (id, want) in &expected.rows {
        let Some(row) = got.rows.get(id) else { continue };
        for column in COLUMNS {
            let (w, g) = (want[*column].trim(), row.get(*column).map(|v| v.trim()).unwrap_or("<no column>"));
            if w != g {
                diffs.push([id.as_str(), column, w, g, want["note"].as_str()]);
            }
        }
    }
    if diffs.is_empty() && problems.is_empty() {
        let _ = fs::remove_dir_all(&out);
        return;
    }
    let mut report = format!(
        "the sample schedule differs from tests/golden/sample/expected.csv \
         ({} cell(s), {} other problem(s)); output kept in {}\n",
        diffs.len(),
        problems.len(),
        out.display()
    );
    for p in &problems {
        report.push_str(&format!("  {p}\n"));
    }
    if !diffs.is_empty() {
        let headers = ["parcel", "column", "expected", "got", "note"];
        let widths: Vec<usize> = (0..4)
            .map(|i| diffs.iter().map(|d| d[i].len()).chain([headers[i].len()]).max().unwrap_or(0))
            .collect();
        let line = |cells: [&str; 5]| {
            let mut l = String::from(" ");
            for (i, cell) in cells.iter().enumerate() {
                if i < 4 {
                    l.push_str(&format!(" {cell:<w$} |", w = widths[i]));
                } else {
                    l.push_str(&format!(" {cell}\n"));
                }
            }
            l
        };
        report.push_str(&line(headers));
        for d in &diffs {
            report.push_str(&line(*d));
        }
    }
    panic!("{report}");
}

#[test]
fn csv_splitter_handles_quotes() {
    let rows = parse_csv("a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
    assert_eq!(rows, vec![vec!["a", "b", "c"], vec!["x, y", "say \"hi\"", "two\nlines"]]);
}
