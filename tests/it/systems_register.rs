//! The register of systems on the SYNTHETIC sample county (`data/sample/`, `--as-of 2027-01-15`): `lakeshore
//! systems` and `lakeshore schedule` on the lots the sample holds for it (data/sample/README.md), each value
//! worked by hand from Article V and the lots' designed coordinates, never taken from the program.
//!
//! Art. V §IV.A: "All wastewater treatment systems must have a completed inspection report and a permit to
//! discharge." §IV.A.1: "On or before November 1, 1994, for systems and all drainage pipes located on a parcel
//! of property bordering the mean high-water mark of Owasco Lake or Little Sodus Bay and every two years
//! thereafter. If the wastewater treatment system is greater than 500 feet from the mean high-water mark, then
//! [a later paragraph] shall apply. ... On or before November 1, 1995, for all systems located on a parcel of
//! property not bordering the mean high-water mark ... but within 500 feet thereof and every three years
//! thereafter. On or before November 1, 1996, for systems located in the Owasco Lake or Little Sodus Bay
//! Watershed, but not covered under paragraph [1] or [2] above, and are in the Towns of Owasco, Niles, Moravia,
//! Scipio, Fleming and Sterling and every five years thereafter."
//!
//! The grids around 2027-01-15: lakefront 1994 + 2k, 2024-11-01, 2026-11-01, 2028-11-01; near-shore 1995 + 3k,
//! 2022-11-01, 2025-11-01, 2028-11-01; watershed 1996 + 5k, 2021-11-01, 2026-11-01, 2031-11-01. An inspection
//! answers the due date of the window it falls in (after the one before, on or before it).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

type Row = BTreeMap<String, String>;

/// Runs `lakeshore COMMAND` on the sample under `config` and returns the rows of its `file`.
fn run(command: &str, config: &str, file: &str) -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out: PathBuf = common::fresh_dir(&format!("systems-register-{command}-{config}"));
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg(command)
        .arg("--config")
        .arg(root.join("data/sample").join(config))
        .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
        .arg(&out)
        .output()
        .expect("cannot run the lakeshore binary");
    assert_eq!(output.status.code(), Some(0), "stderr:\n{}", String::from_utf8_lossy(&output.stderr));
    let (_, rows) = common::read_rows(&out.join(file)).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&out);
    rows
}

/// The one row of `rows` whose `column` is `value` and whose parcel is `parcel`.
fn one<'a>(rows: &'a [Row], parcel: &str, column: &str, value: &str) -> &'a Row {
    let found: Vec<&Row> = rows.iter().filter(|r| r["parcel_id"] == parcel && r[column] == value).collect();
    assert_eq!(found.len(), 1, "{parcel} {column} = {value}: {found:?}");
    found[0]
}

/// The values of `columns` in `row`.
fn cells<'a>(row: &'a Row, columns: &[&str]) -> Vec<&'a str> {
    columns.iter().map(|c| row[*c].as_str()).collect()
}

const DUES: &[&str] =
    &["tier", "cycle_years", "previous_due", "next_due", "status", "inspection_due", "overdue"];

/// Two systems on one lot, each on its own tier; the row takes the one due first.
///
/// Lot 054489-150.09-1-3 (Niles) runs from the east shore, x 840,000, to x 841,000: it borders the MHW line.
/// - S-0101 at x 840,150 is 150 ft from the line, on a bordering lot: §IV.A.1 ¶1, lakefront. Its inspection of
///   2026-06-10 (the history names it) falls after 2024-11-01 and on or before 2026-11-01: it answers
///   2026-11-01; current, and the next, 2028-11-01, is owed.
/// - S-0102 at x 840,800 is 800 ft from the line: "greater than 500 feet", so ¶1 does not apply; the lot
///   borders, so not ¶2; it lies in the Owasco Lake watershed in Niles: ¶3, watershed, every five years.
///   Inspected 2020-05-01, on or before 2021-11-01, and not since: 2026-11-01 was missed, overdue, owed since
///   2026-11-01.
/// - Due first: S-0102's 2026-11-01, before S-0101's 2028-11-01. The row is S-0102's: watershed, overdue.
#[test]
fn a_lot_with_two_systems_puts_each_on_its_tier_and_binds_the_one_due_first() {
    let systems = run("systems", "county.toml", "systems.csv");
    let lot = "054489-150.09-1-3";
    let near = one(&systems, lot, "system_id", "S-0101");
    assert_eq!(
        cells(near, DUES),
        ["lakefront", "2", "2026-11-01", "2028-11-01", "current", "2028-11-01", "false"]
    );
    assert_eq!(cells(near, &["system_mhw_distance_ft", "binds", "life"]), ["150.0", "false", "in service"]);
    let far = one(&systems, lot, "system_id", "S-0102");
    assert_eq!(
        cells(far, DUES),
        ["watershed", "5", "2026-11-01", "2031-11-01", "overdue", "2026-11-01", "true"]
    );
    assert_eq!(cells(far, &["system_mhw_distance_ft", "binds", "life"]), ["800.0", "true", "in service"]);

    let schedule = run("schedule", "county.toml", "schedule.csv");
    let row = one(&schedule, lot, "parcel_id", lot);
    assert_eq!(
        cells(row, DUES),
        ["watershed", "5", "2026-11-01", "2031-11-01", "overdue", "2026-11-01", "true"]
    );
    assert_eq!(
        cells(row, &["system_id", "last_inspection", "borders_mhw"]),
        ["S-0102", "2020-05-01", "true"]
    );
}

/// A system on the owner's lot across the road is judged on the lot it lies on.
///
/// The cottage lot 054689-128.05-1-8 (x 840,000-840,200) borders the east shore; its system S-0103 lies at
/// (840,400, 1,038,075), on the same owner's lot 054689-128.05-1-9 (x 840,250-840,600) across a 50-ft road.
/// That lot is 250 ft from the MHW line and does not border it: "not bordering ... but within 500 feet
/// thereof", §IV.A.1 ¶2, near-shore, every three years. The inspection of 2024-08-15 falls after 2022-11-01 and
/// on or before 2025-11-01: current, next 2028-11-01. (On the cottage's lakefront grid it would have answered
/// 2024-11-01 and missed 2026-11-01.) The lot across the road is improved (210) and keeps its own row: 250 ft,
/// near-shore, never inspected, owing 2025-11-01.
#[test]
fn a_system_across_the_road_takes_the_tier_of_the_lot_it_lies_on() {
    let systems = run("systems", "county.toml", "systems.csv");
    let system = one(&systems, "054689-128.05-1-8", "system_id", "S-0103");
    assert_eq!(
        cells(system, &["lies_on", "located_by", "borders_mhw", "mhw_distance_ft", "binds"]),
        ["054689-128.05-1-9", "point", "false", "250.0", "true"]
    );
    assert_eq!(
        cells(system, DUES),
        ["near-shore", "3", "2025-11-01", "2028-11-01", "current", "2028-11-01", "false"]
    );
    assert!(
        systems.iter().all(|r| r["parcel_id"] != "054689-128.05-1-9"),
        "no system on record serves the lot across the road"
    );

    let schedule = run("schedule", "county.toml", "schedule.csv");
    let cottage = one(&schedule, "054689-128.05-1-8", "parcel_id", "054689-128.05-1-8");
    assert_eq!(
        cells(cottage, DUES),
        ["near-shore", "3", "2025-11-01", "2028-11-01", "current", "2028-11-01", "false"]
    );
    assert_eq!(cells(cottage, &["system_id", "system_lies_on"]), ["S-0103", "054689-128.05-1-9"]);
    let across = one(&schedule, "054689-128.05-1-9", "parcel_id", "054689-128.05-1-9");
    assert_eq!(
        cells(across, DUES),
        ["near-shore", "3", "2025-11-01", "2028-11-01", "never-inspected", "2025-11-01", "true"]
    );
}

/// A failed system replaced with its plans accepted and its permit issued before the work starts a new life.
///
/// Lot 054889-160.12-1-3 (Scipio) borders the west shore. Its system S-0104 failed the 2024-09-05 inspection
/// (report received 2024-09-17: class failed) and was ordered repaired on 2024-10-01 by 2025-06-30 (§V.G.4:
/// "When such repairs are not undertaken within the time specified, the Health Department shall summon the
/// property to a Board of Health administrative hearing"). It was replaced on 2025-05-15 by S-0105. §VII.A.1:
/// "Construction of a new system ... require[s] a review of plans and acceptance by the Cayuga County Health
/// Department, prior to construction"; §III.B asks "the requisite approval and permits". Plans accepted
/// 2025-01-20 and the construction permit of 2025-02-10 are on or before 2025-05-15 and within the rule set's
/// twelve-month look-back (from 2024-05-15; no earlier construction on record): permitted. So:
/// - S-0104 is listed as replaced on 2025-05-15, no longer judged;
/// - S-0105 is in service from 2025-05-15, permitted, and its construction counts as its inspection: after
///   2024-11-01 and on or before 2026-11-01, lakefront (180 ft from the line): current, next 2028-11-01;
/// - the 2024-09-05 findings were S-0104's: no class on the row, and no repair order, hearing or §VII.A.1 /
///   §III.B duty in the obligations (under Ch. 56 neither: its §301.1 permit, issued 2025-02-10, came before
///   the replacement, and §601.1's deficiency notice was owed on the failure of the system replaced).
#[test]
fn a_permitted_replacement_starts_a_new_life_and_leaves_the_old_findings_behind() {
    let lot = "054889-160.12-1-3";
    let systems = run("systems", "county.toml", "systems.csv");
    let old = one(&systems, lot, "system_id", "S-0104");
    assert_eq!(
        cells(old, &["life", "retired", "in_service", "binds", "tier"]),
        ["replaced", "2025-05-15", "", "false", ""]
    );
    assert!(old["reason"].contains("replaced on 2025-05-15 by S-0105 (permitted"), "{old:?}");
    let new = one(&systems, lot, "system_id", "S-0105");
    assert_eq!(
        cells(new, &["life", "in_service", "permitted", "binds"]),
        ["in service", "2025-05-15", "true", "true"]
    );
    assert_eq!(
        cells(new, DUES),
        ["lakefront", "2", "2026-11-01", "2028-11-01", "current", "2028-11-01", "false"]
    );

    let schedule = run("schedule", "county.toml", "schedule.csv");
    let row = one(&schedule, lot, "parcel_id", lot);
    assert_eq!(
        cells(row, &["tier", "status", "system_id", "class", "permit"]),
        ["lakefront", "current", "S-0105", "", ""]
    );

    let cayuga = run("obligations", "county.toml", "obligations.csv");
    let owed: Vec<&str> =
        cayuga.iter().filter(|r| r["parcel_id"] == lot).map(|r| r["obligation"].as_str()).collect();
    assert_eq!(owed, ["periodic-inspection"], "the old system's repair order and hearing are gone");
    let periodic = one(&cayuga, lot, "obligation", "periodic-inspection");
    assert_eq!(cells(periodic, &["since", "due", "overdue"]), ["2026-11-01", "2028-11-01", "false"]);

    let gorham = run("obligations", "gorham.toml", "obligations.csv");
    assert!(gorham.iter().all(|r| r["parcel_id"] != lot), "Ch. 56 owes nothing on the lot");
}

/// A vacant lot with no system on record owes no system duty.
///
/// Lot 054689-129.00-2-5 is PROP_CLASS 311 (vacant land) in the Owasco Lake watershed in the Town of Owasco,
/// where an improved lot would be on the watershed tier; no system on record serves it or lies on it (the
/// nearest point, lot 122.18-1-12's, is about 5,850 ft away). §IV.A's duties are a system's: unscheduled, no
/// system in service, nothing at its 2026-10-20 sale.
#[test]
fn a_vacant_lot_without_a_system_is_unscheduled_with_the_reason() {
    let lot = "054689-129.00-2-5";
    let schedule = run("schedule", "county.toml", "schedule.csv");
    let row = one(&schedule, lot, "parcel_id", lot);
    assert_eq!(
        cells(row, &["tier", "cycle_years", "next_due", "status", "in_watershed", "system_id", "citation"]),
        ["unscheduled", "", "", "", "true", "", "Art. V §IV.A"]
    );
    assert_eq!(
        row["reason"],
        "no system in service on the lot: vacant land with no system on record; the law's duties are a system's (Art. V §IV.A)"
    );
    let cayuga = run("obligations", "county.toml", "obligations.csv");
    assert!(cayuga.iter().all(|r| r["parcel_id"] != lot), "no pump-out or inspection at its sale");
}

/// A system serving two lots is listed once and answers on both lots' rows.
///
/// S-0106 serves the Cato lots 052489-52.00-1-1 (the systems layer's `PARCEL_ID`, on which it lies) and
/// 052489-52.00-1-2 (`PARCEL_ID_2`). Cato is far from both lakes and not a watershed town: §IV.A.2, "ALL OTHER
/// PROPERTIES IN CAYUGA COUNTY", Cato's cohort "2007 and every 7 years thereafter": 2021-11-01, 2028-11-01,
/// 2035-11-01. Its one inspection, 2023-06-01, is filed under 52.00-1-1 and names S-0106: after 2021-11-01 and
/// on or before 2028-11-01, it answers 2028-11-01; current, 2035-11-01 owed next, on both lots' rows.
#[test]
fn a_system_serving_two_lots_is_listed_once_and_answers_for_both() {
    let systems = run("systems", "county.toml", "systems.csv");
    let shared: Vec<&Row> = systems.iter().filter(|r| r["system_id"] == "S-0106").collect();
    assert_eq!(shared.len(), 1, "{shared:?}");
    assert_eq!(
        cells(shared[0], &["parcel_id", "also_serves", "lies_on", "tier", "status", "inspection_due"]),
        ["052489-52.00-1-1", "052489-52.00-1-2", "", "county", "current", "2035-11-01"]
    );
    let schedule = run("schedule", "county.toml", "schedule.csv");
    for (lot, lies_on) in [("052489-52.00-1-1", ""), ("052489-52.00-1-2", "052489-52.00-1-1")] {
        let row = one(&schedule, lot, "parcel_id", lot);
        assert_eq!(
            cells(row, DUES),
            ["county", "7", "2021-11-01", "2028-11-01", "current", "2035-11-01", "false"],
            "{lot}"
        );
        assert_eq!(
            cells(row, &["system_id", "system_lies_on", "last_inspection"]),
            ["S-0106", lies_on, "2023-06-01"]
        );
    }
}
