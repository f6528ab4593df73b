//! Where a system lies decides its tier: Art. V §IV.A.1 schedules "systems ... located on a parcel of
//! property bordering the mean high-water mark" every 2 years, those on one "within 500 feet thereof" every 3,
//! and "if the wastewater treatment system is greater than 500 feet from the mean high-water mark" a later
//! paragraph applies. "Bordering" and "within 500 feet" are tested on the lot the system lies on. A point off
//! the parcel it serves is used where it lies when that lot is one the register says it serves (or the
//! owner's); on another owner's lot, or in water, it is reported and the system located by the parcel.
//!
//! The SYNTHETIC sample county with a systems layer of its own (EPSG:2261 feet), lots as in
//! `data/sample/README.md`: 128.05-1-2 (x 840,008–840,308, y 1,041,000–1,041,150, 8 ft from the east shore
//! x = 840,000: borders), 128.05-1-3 (x 840,015–840,315, y 1,041,400–1,041,550, 15 ft: near-shore),
//! 128.05-1-4 (x 839,900–840,250, y 1,042,000–1,042,200, overlaps the lake: borders), 128.05-1-6
//! (x 840,510–840,810, y 1,045,000–1,045,200, 510 ft: watershed). The owners differ.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The systems layer: (parcel, second parcel, id, x, y).
const SYSTEMS: &[(&str, &str, &str, f64, f64)] = &[
    // On 128.05-1-3, another owner's lot it does not serve: reported, located by 128.05-1-2's polygon.
    ("054689-128.05-1-2", "", "S-A", 840_100.0, 1_041_475.0),
    // On 128.05-1-3, which it also serves: judged on 128.05-1-3, 15 ft from the line: near-shore.
    ("054689-128.05-1-4", "054689-128.05-1-3", "S-B", 840_200.0, 1_041_500.0),
    // 40 ft east of 128.05-1-6, on no lot: within 100 ft, taken as on it.
    ("054689-128.05-1-6", "", "S-C", 840_850.0, 1_045_100.0),
    // A second system of 128.05-1-6, in the lake (x < 840,000), 1,010 ft west of the lot (x 840,510):
    // reported, located by the parcel.
    ("054689-128.05-1-6", "", "S-D", 839_500.0, 1_045_100.0),
];

fn layer() -> String {
    let features: Vec<String> = SYSTEMS
        .iter()
        .map(|(parcel, second, id, x, y)| {
            format!(
                r#"{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{x},{y}]}},"properties":{{"PARCEL_ID":"{parcel}","PARCEL_ID_2":"{second}","SYSTEM_ID":"{id}"}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"type":"FeatureCollection","crs":{{"type":"name","properties":{{"name":"urn:ogc:def:crs:EPSG::2261"}}}},"features":[{}]}}"#,
        features.join(",\n")
    )
}

/// A copy of the sample county in a fresh folder named after `name`, with [`SYSTEMS`] as its systems layer
/// and two inspections that name systems; returns the folder.
pub(crate) fn county(name: &str) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let county = common::fresh_dir(name);
    for entry in std::fs::read_dir(&root).expect("the sample") {
        let path = entry.expect("an entry").path();
        if path.is_file() {
            std::fs::copy(&path, county.join(path.file_name().expect("a name"))).expect("copied");
        }
    }
    std::fs::write(county.join("systems.geojson"), layer()).expect("written");
    add_named_inspections(&county.join("history.csv"));
    county
}

/// Runs `lakeshore COMMAND` on the sample with [`SYSTEMS`] as its systems layer; the rows of `FILE` by key.
fn run(command: &str, file: &str, key: &str) -> (BTreeMap<String, common::Row>, Vec<common::Row>) {
    let county = county(&format!("systems-placement-{command}"));
    let out = county.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg(command)
        .arg("--config")
        .arg(county.join("county.toml"))
        .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
        .arg(&out)
        .output()
        .expect("cannot run the lakeshore binary");
    // The two stray points are problems: the run says so in its exit code.
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let read = |name: &str| common::read_rows(&out.join(name)).unwrap_or_else(|e| panic!("{e}")).1;
    let rows = read(file).into_iter().map(|r| (r[key].clone(), r)).collect();
    let problems = read("problems.csv");
    let _ = std::fs::remove_dir_all(&county);
    (rows, problems)
}

/// The inspections file with two rows more for 128.05-1-6, one naming S-C and one naming S-Z, which the
/// systems layer does not have (its `system_id` column added when the file has none).
fn add_named_inspections(path: &Path) {
    let text = std::fs::read_to_string(path).expect("history.csv");
    let mut records = common::csv_records(&text);
    let column = match records[0].iter().position(|c| c == "system_id") {
        Some(column) => column,
        None => {
            for (k, record) in records.iter_mut().enumerate() {
                record.push(if k == 0 { "system_id".into() } else { String::new() });
            }
            records[0].len() - 1
        }
    };
    let width = records[0].len();
    for (date, system) in [("2026-12-01", "S-C"), ("2026-12-02", "S-Z")] {
        let mut row = vec![String::new(); width];
        row[..3].clone_from_slice(&["054689-128.05-1-6".into(), date.into(), "pass".into()]);
        row[column] = system.into();
        records.push(row);
    }
    let mut out = csv::Writer::from_path(path).expect("history.csv");
    for record in records {
        out.write_record(record).expect("written");
    }
    out.flush().expect("written");
}

#[test]
fn a_system_is_judged_on_the_lot_it_lies_on() {
    let (systems, problems) = run("systems", "systems.csv", "system_id");
    let get = |id: &str| systems.get(id).unwrap_or_else(|| panic!("no row for {id}"));
    let cells = |id: &str, columns: &[&str]| -> Vec<String> {
        columns.iter().map(|c| get(id)[*c].clone()).collect::<Vec<_>>()
    };
    let columns = ["parcel_id", "lies_on", "located_by", "tier", "borders_mhw"];
    // S-A lies on another owner's lot: located by 128.05-1-2, which borders (8 ft): lakefront.
    assert_eq!(cells("S-A", &columns), ["054689-128.05-1-2", "", "parcel", "lakefront", "true"]);
    // S-B serves 128.05-1-4 and 128.05-1-3 and lies on 128.05-1-3: 15 ft from the line, not bordering.
    assert_eq!(
        cells("S-B", &columns),
        ["054689-128.05-1-4", "054689-128.05-1-3", "point", "near-shore", "false"]
    );
    assert_eq!(get("S-B")["also_serves"], "054689-128.05-1-3");
    assert_eq!(get("S-B")["mhw_distance_ft"], "15.0");
    // S-C, 40 ft off its lot on no other: on 128.05-1-6, 510 ft from the line: the watershed tier.
    assert_eq!(cells("S-C", &columns), ["054689-128.05-1-6", "", "point", "watershed", "false"]);
    // S-D, in the lake: located by 128.05-1-6's polygon.
    assert_eq!(cells("S-D", &["located_by", "tier"]), ["parcel", "watershed"]);
    assert_eq!(systems.len(), 4, "each system once, S-B under the first parcel it serves");

    let told: Vec<String> = problems
        .iter()
        .filter(|p| p["file"].ends_with("systems.geojson"))
        .map(|p| p["problem"].clone())
        .collect();
    assert_eq!(told.len(), 2, "{told:?}");
    let history: Vec<&String> =
        problems.iter().filter(|p| p["file"].ends_with("history.csv")).map(|p| &p["problem"]).collect();
    assert!(history.iter().any(|t| t.contains("system_id S-Z is not a system")), "{history:?}");
    assert!(
        told.iter().any(|t| t.contains("S-A") && t.contains("lies on parcel 054689-128.05-1-3")),
        "{told:?}"
    );
    assert!(
        told.iter().any(|t| t.contains("S-D") && t.contains("lies on no parcel, 1010 ft outside")),
        "{told:?}"
    );
}

#[test]
fn the_parcel_row_takes_the_system_that_binds() {
    let (rows, _) = run("schedule", "schedule.csv", "parcel_id");
    let row = |id: &str| rows.get(id).unwrap_or_else(|| panic!("no row for {id}"));
    // 128.05-1-4 borders the lake, but its one system lies on 128.05-1-3: the row is near-shore, every 3 years.
    let four = row("054689-128.05-1-4");
    assert_eq!(
        [&four["tier"], &four["cycle_years"], &four["system_id"], &four["system_lies_on"]],
        ["near-shore", "3", "S-B", "054689-128.05-1-3"]
    );
    // 128.05-1-3 is served by S-B too, lying on it.
    let three = row("054689-128.05-1-3");
    assert_eq!([&three["tier"], &three["system_id"], &three["system_lies_on"]], ["near-shore", "S-B", ""]);
    // 128.05-1-2's system could not be placed: the row stands on its own polygon, lakefront, basis parcel.
    let two = row("054689-128.05-1-2");
    assert_eq!([&two["tier"], &two["basis"], &two["system_id"]], ["lakefront", "parcel", "S-A"]);
    // 128.05-1-6, watershed every 5 years (..., 2021-11-01, 2026-11-01, 2031-11-01): its inspection of
    // 2022-04-15 names no system and answered 2026-11-01 for both systems; the one of 2026-12-01 names S-C
    // and answers 2031-11-01 for S-C alone, which then owes 2036-11-01. S-D still owes 2031-11-01, earlier:
    // it binds the row.
    let six = row("054689-128.05-1-6");
    assert_eq!(
        [&six["tier"], &six["status"], &six["inspection_due"], &six["system_id"]],
        ["watershed", "current", "2031-11-01", "S-D"]
    );
}

#[test]
fn an_inspection_that_names_a_system_answers_it_alone() {
    let (systems, _) = run("systems", "systems.csv", "system_id");
    let due = |id: &str| (systems[id]["inspection_due"].clone(), systems[id]["binds"].clone());
    assert_eq!(due("S-C"), ("2036-11-01".into(), "false".into()));
    assert_eq!(due("S-D"), ("2031-11-01".into(), "true".into()));
}
