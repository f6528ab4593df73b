//! One scope per parcel per law, and one timeline per parcel: the obligations and notices of the SYNTHETIC
//! sample county (`data/sample/`, `--as-of 2027-01-15`) under both rule sets, and a history log written
//! newest-first.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `lakeshore COMMAND --config data/sample/CONFIG --as-of 2027-01-15 --format csv ARGS` (exit 0) and
/// returns the output folder and the standard output.
fn run(command: &str, config: &str, args: &[&str]) -> (PathBuf, String) {
    let out = common::fresh_dir(&format!("scope-timeline-{command}-{config}"));
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg(command)
        .arg("--config")
        .arg(root().join("data/sample").join(config))
        .args(["--as-of", "2027-01-15", "--format", "csv"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("cannot run the lakeshore binary");
    assert_eq!(output.status.code(), Some(0), "stderr:\n{}", String::from_utf8_lossy(&output.stderr));
    (out, String::from_utf8_lossy(&output.stdout).into_owned())
}

fn rows(path: &Path) -> Vec<common::Row> {
    common::read_rows(path).unwrap_or_else(|e| panic!("{e}")).1
}

/// The sewered lakefront lot sold 2026-11-16 and the lot outside the county sold 2026-12-15.
const SEWERED: &str = "054689-122.18-1-11";
const OUTSIDE: &str = "502889-1.00-1-1";

/// Art. V §I.B: "This article does not apply to those properties using public sewer systems"; §I.C.2:
/// "Systems located outside Cayuga County shall not be subject to the requirements of this article". Both
/// lots were sold (events.csv), and a sale under §IV.B owes a pump-out and an inspection before it — but not
/// where the article does not apply: no transfer duty, no periodic inspection, no letter. The sales are noted,
/// each naming its parcel, the reason and the clause.
#[test]
fn a_parcel_the_article_does_not_reach_owes_nothing_and_gets_no_letter() {
    let (out, stdout) = run("obligations", "county.toml", &[]);
    let owed: Vec<String> = rows(&out.join("obligations.csv"))
        .into_iter()
        .filter(|r| r["parcel_id"] == SEWERED || r["parcel_id"] == OUTSIDE)
        .map(|r| format!("{} {}", r["parcel_id"], r["obligation"]))
        .collect();
    assert!(owed.is_empty(), "duties on parcels Art. V does not reach: {owed:?}");
    for (id, why, cite) in
        [(SEWERED, "on public sewer", "Art. V §I.B"), (OUTSIDE, "outside the county", "Art. V §I.C.2")]
    {
        let note =
            stdout.lines().find(|l| l.contains(id)).unwrap_or_else(|| panic!("no note on {id}:\n{stdout}"));
        assert!(note.contains(why) && note.contains(cite) && note.contains("transfer"), "{note}");
    }
    let (out, _) = run("notices", "county.toml", &["--year", "2027"]);
    for file in ["notices.csv", "cannot_mail.csv"] {
        let mailed: Vec<_> = rows(&out.join(file))
            .into_iter()
            .filter(|r| r["parcel_id"] == SEWERED || r["parcel_id"] == OUTSIDE)
            .collect();
        assert!(mailed.is_empty(), "{file} holds parcels Art. V does not reach: {mailed:?}");
    }
}

/// Ch. 56 §102 (the law governs on-site systems): a conveyance of a sewered lot owes no §501.1(b) inspection.
/// Without the scope decision the 2026-11-16 sale would list `conveyance-inspection`, due that day.
#[test]
fn a_sewered_sale_owes_no_conveyance_inspection_under_chapter_56() {
    let (out, stdout) = run("obligations", "gorham.toml", &[]);
    let owed: Vec<String> = rows(&out.join("obligations.csv"))
        .into_iter()
        .filter(|r| r["parcel_id"] == SEWERED)
        .map(|r| r["obligation"].clone())
        .collect();
    assert!(owed.is_empty(), "duties on a sewered lot under Ch. 56: {owed:?}");
    assert!(stdout.lines().any(|l| l.contains(SEWERED) && l.contains("Ch. 56 §102")), "{stdout}");
}

/// Ch. 56 §304.2 exempts "those systems determined by the authority having jurisdiction to be adequately
/// functioning". The finding that counts is the one of the latest inspection by date, whatever order the log
/// is written in. Lot 160.12-1-2 (an individual system installed 1990-11-30, before the 1990-12-01 window of
/// the rule set's reading, so only a finding can grandfather it): found adequately functioning on
/// 2026-06-01, not on 2026-12-01. A log written newest-first lists 2026-12-01 first; read by its last row it
/// would say "adequately functioning" and grandfathered. Read by date: not grandfathered, last inspection
/// 2026-12-01. Two rows on one date count in the file's order: the second one is the later.
#[test]
fn the_latest_finding_is_the_latest_date_not_the_last_row() {
    let dir = common::fresh_dir("scope-timeline-newest-first");
    let history = dir.join("history.csv");
    let header = "parcel_id,inspection_date,result,installed,system_size,adequately_functioning\n";
    let newest_first = "054889-160.12-1-2,2026-12-01,fail,,,no\n054889-160.12-1-2,2026-06-01,pass,1990-11-30,individual,yes\n";
    let same_day = "054889-160.12-1-2,2026-12-01,pass,1990-11-30,individual,yes\n054889-160.12-1-2,2026-12-01,fail,,,no\n";
    for (label, log) in [("newest first", newest_first), ("two rows on one date", same_day)] {
        std::fs::write(&history, format!("{header}{log}")).expect("write the history");
        let (out, _) =
            run("schedule", "gorham.toml", &["--history", history.to_str().expect("a UTF-8 path")]);
        let row = rows(&out.join("schedule.csv"))
            .into_iter()
            .find(|r| r["parcel_id"] == "054889-160.12-1-2")
            .expect("the lot's row");
        assert_eq!(
            row["grandfathered"], "false",
            "{label}: the latest finding is 'not adequately functioning'"
        );
        assert_eq!(row["last_inspection"], "2026-12-01", "{label}");
        assert_eq!(row["last_result"], "fail", "{label}: the later row of the day");
    }
    // Oldest-first, the same records give the same reading.
    std::fs::write(&history, format!("{header}054889-160.12-1-2,2026-06-01,pass,1990-11-30,individual,yes\n054889-160.12-1-2,2026-12-01,fail,,,no\n"))
        .expect("write the history");
    let (out, _) = run("schedule", "gorham.toml", &["--history", history.to_str().expect("a UTF-8 path")]);
    let row = rows(&out.join("schedule.csv"))
        .into_iter()
        .find(|r| r["parcel_id"] == "054889-160.12-1-2")
        .expect("row");
    assert_eq!((row["grandfathered"].as_str(), row["last_result"].as_str()), ("false", "fail"));
    let _ = std::fs::remove_dir_all(&dir);
}
