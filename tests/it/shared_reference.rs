//! The reference layers are read once a run. `lakeshore map` (PNG, SVG, HTML) and `lakeshore buffer` draw and
//! measure from the layers the schedule pipeline read (`Run::reference`) instead of reading the files again,
//! and `problems.csv` lists the problems of a run as found, without folding repeats: a reference layer read a
//! second time would list its bad features twice.
//!
//! The county is the SYNTHETIC sample with one bad feature added to three reference layers: a shoreline line
//! with a coordinate that is not a number (the reader reports it), a town that is a point (the reference
//! reader reports it: towns must be polygons) and a watercourse line of one point (the reader reports it).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::NaiveDate;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use lakeshore::report::buffer::{buffer_report, BufferSource};

/// The bad features, by layer file: the record each is, and a word of its problem.
const BAD: [(&str, &str, &str); 3] = [
    ("shoreline.geojson", "record 3", "unreadable geometry"),
    ("towns.geojson", "record 16", "not a polygon"),
    ("watercourses.geojson", "record 3", "fewer than 2 points"),
];

/// A copy of the sample county in a new folder, with a bad feature appended to three reference layers.
fn county(label: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let dir = common::fresh_dir(label);
    for entry in std::fs::read_dir(&root).expect("the sample county") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("a file name"))).expect("copied");
    }
    let append = |file: &str, feature: &str| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).expect("a GeoJSON layer");
        let body = text.trim_end().strip_suffix("]}").expect("a FeatureCollection ending in ]}");
        std::fs::write(&path, format!("{},\n{feature}\n]}}\n", body.trim_end())).expect("written");
    };
    append(
        "shoreline.geojson",
        r#"{"type":"Feature","properties":{"NAME":"Owasco Lake"},"geometry":{"type":"LineString","coordinates":[[-76.5,42.8],[-76.5,"x"]]}}"#,
    );
    append(
        "towns.geojson",
        r#"{"type":"Feature","properties":{"NAME":"Nowhere"},"geometry":{"type":"Point","coordinates":[-76.5,42.8]}}"#,
    );
    append(
        "watercourses.geojson",
        r#"{"type":"Feature","properties":{"NAME":"Broken Brook","KIND":"stream"},"geometry":{"type":"LineString","coordinates":[[-76.5,42.8]]}}"#,
    );
    dir
}

/// Runs `lakeshore ARGS --config COUNTY --out OUT` in the county folder and returns `problems.csv` beside
/// the outputs.
fn problems(county: &Path, args: &[&str], out: &Path) -> Vec<common::Row> {
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(args)
        .arg("--config")
        .arg(county.join("county.toml"))
        .args(["--as-of", "2027-01-15", "-q", "--out"])
        .arg(out)
        .current_dir(county)
        .output()
        .expect("cannot run the lakeshore binary");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: bad records are reported, not fatal: {stderr}");
    let folder = if out.extension().is_some() { out.parent().expect("a folder") } else { out };
    common::read_rows(&folder.join("problems.csv")).unwrap_or_else(|e| panic!("{args:?}: {e}")).1
}

/// How many times `problems.csv` lists each bad feature.
fn listed(rows: &[common::Row]) -> BTreeMap<&'static str, usize> {
    BAD.iter()
        .map(|&(file, record, what)| {
            let n = rows
                .iter()
                .filter(|r| r["file"].ends_with(file) && r["record"] == record && r["problem"].contains(what))
                .count();
            (file, n)
        })
        .collect()
}

#[test]
fn maps_and_buffer_reports_list_a_bad_reference_feature_once() {
    let county = county("shared-reference");
    let out = county.join("out");
    let once: BTreeMap<&str, usize> = BAD.iter().map(|&(file, _, _)| (file, 1)).collect();
    let schedule = problems(&county, &["schedule", "--format", "csv"], &out.join("schedule"));
    assert_eq!(listed(&schedule), once, "schedule: {schedule:?}");
    let runs: [(&str, &[&str], PathBuf); 6] = [
        ("png map", &["map"], out.join("png/map.png")),
        ("svg map", &["map", "--by", "status"], out.join("svg/map.svg")),
        ("html map", &["map", "--format", "html"], out.join("html/map.html")),
        // From the shoreline, with a reference layer (named relative to the county folder) as features.
        (
            "buffer from the shoreline",
            &[
                "buffer",
                "--distance",
                "500",
                "--features",
                "watercourses.geojson",
                "--features",
                "towns.geojson",
            ],
            out.join("shore"),
        ),
        // From a reference layer spelled otherwise than in the config.
        (
            "buffer from a reference layer",
            &["buffer", "--distance", "150", "--from", "./watercourses.geojson"],
            out.join("wc"),
        ),
        (
            "buffer from the systems",
            &["buffer", "--distance", "300", "--from", "systems"],
            out.join("systems"),
        ),
    ];
    for (what, args, out) in runs {
        let rows = problems(&county, args, &out);
        assert_eq!(listed(&rows), once, "{what}: {rows:?}");
        // Nothing is reported that the schedule run did not report: no layer was read again.
        assert_eq!(rows, schedule, "{what}");
    }
    let _ = std::fs::remove_dir_all(county);
}

#[test]
fn the_run_carries_the_reference_layers_it_read() {
    let county = county("shared-reference-run");
    let file = ConfigFile::load(&county.join("county.toml")).expect("the county config");
    let config = Config::new(file, NaiveDate::from_ymd_opt(2027, 1, 15).expect("a date")).expect("a config");
    let run = run_schedule(&config).expect("the schedule runs");
    for layer in ["shoreline", "watershed", "towns", "sewered", "county", "floodplain", "watercourses"] {
        let name = if ["watershed", "floodplain"].contains(&layer) {
            format!("{layer}.shp")
        } else {
            format!("{layer}.geojson")
        };
        let kept = run.reference.layer_at(&county.join(&name)).unwrap_or_else(|| panic!("{name} not kept"));
        assert!(!kept.features.is_empty(), "{name}");
    }
    assert!(run.reference.layer_at(&county.join("systems.geojson")).is_none(), "not a reference layer");
    // The shoreline the run measured from: the sample's two water bodies, without the unreadable feature.
    let shore: Vec<&str> = run.reference.mean_high_water().map(|(_, name)| name).collect();
    assert_eq!(shore, ["Owasco Lake", "Little Sodus Bay"]);
    // A buffer report takes its source and features from the run: it reads nothing, so reports nothing.
    let features = [county.join("towns.geojson"), county.join("watercourses.geojson")];
    let (report, found) =
        buffer_report(&run, &config, &BufferSource::Shoreline, 500.0, &features).expect("a buffer report");
    assert!(found.is_empty(), "read again: {found:?}");
    assert!(report.hits.iter().any(|h| h.kind == "feature" && h.layer == "towns"), "{:?}", report.hits);
    let from = BufferSource::Layer(county.join("watercourses.geojson"));
    let (report, found) = buffer_report(&run, &config, &from, 150.0, &[]).expect("a buffer report");
    assert!(found.is_empty(), "read again: {found:?}");
    assert_eq!(report.hits.iter().filter(|h| h.kind == "parcel").count(), 2, "{:?}", report.hits);
    let _ = std::fs::remove_dir_all(county);
}
