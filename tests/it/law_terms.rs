//! The law's definitions decide what a layer's feature is: a county built at test time, scheduled through the
//! command line with three watercourses layers.
//!
//! Art. V §II.35: "Watercourse means any surface water path, river, stream, creek, spring, pond, lake,
//! wetland, or natural or man-made depression that is sustained primarily through base flow, or any water
//! body of any kind designated on the official Cayuga County watershed map ... as Map 94-99. Watercourse shall
//! not include drainage areas which contain water only during and immediately after a rainstorm."
//! §V.B.5(c)(3): existing standards need "the absorption field ... separated from any watercourse or wetland
//! by at least 100 feet".
//!
//! Coordinates are EPSG:2261 feet. Lot 1 (200 ft square, x 836 400..836 600, y 1 035 000..1 035 200) has its
//! system at (836 500, 1 035 100); a channel runs north-south at x = 836 560 (60 ft from the system) and a
//! perennial stream (NHD FCode 46006) along x = 836 800
//! and y = 1 035 400 (300 ft). Owasco Lake's shore is y = 1 037 500, 2 400 ft
//! north; lot 2 borders it (so every layer meets the parcels). Lot 1's 2026-06-01 inspection found no failure,
//! no overflow point, components working, the tank adequate and 3 ft of separation: §V.B.5(c)(1) and (2)
//! hold, so the 100 ft of (c)(3) alone decides between existing standards (a permit to discharge, §V.B) and
//! substandard (an interim permit, §V.C).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

const LOT: &str = "054689-131.00-1-1";

fn geojson(features: &[String]) -> String {
    format!(
        r#"{{"type": "FeatureCollection", "crs": {{"type": "name", "properties": {{"name": "urn:ogc:def:crs:EPSG::2261"}}}}, "features": [{}]}}"#,
        features.join(",\n")
    )
}

fn feature(properties: &str, geometry: &str) -> String {
    format!(r#"{{"type": "Feature", "properties": {properties}, "geometry": {geometry}}}"#)
}

fn square(x: f64, y: f64, side: f64) -> String {
    let (x1, y1) = (x + side, y + side);
    format!(
        r#"{{"type": "Polygon", "coordinates": [[[{x}, {y}], [{x}, {y1}], [{x1}, {y1}], [{x1}, {y}], [{x}, {y}]]]}}"#
    )
}

/// A north-south line at `x` across lot 1.
fn channel(x: f64) -> String {
    format!(r#"{{"type": "LineString", "coordinates": [[{x}, 1034900.0], [{x}, 1035300.0]]}}"#)
}

/// The county folder, its watercourses layer holding the channel with `channel_properties` (none: no channel)
/// and the perennial stream.
fn county(label: &str, channel_properties: Option<&str>) -> PathBuf {
    let dir = common::fresh_dir(&format!("law-terms-{label}"));
    let parcels = [
        feature(
            &format!(r#"{{"PARCEL_ID": "{LOT}", "MUNI_NAME": "Owasco"}}"#),
            &square(836_400.0, 1_035_000.0, 200.0),
        ),
        feature(
            r#"{"PARCEL_ID": "054689-122.05-1-1", "MUNI_NAME": "Owasco"}"#,
            &square(836_100.0, 1_037_300.0, 200.0),
        ),
    ];
    // The stream bends west 300 ft north of the system, so that the layer meets the parcels with or
    // without the channel: every point of it is 300 ft or more from the system.
    let creek = r#"{"type": "LineString", "coordinates": [[836800.0, 1034900.0], [836800.0, 1035400.0], [836300.0, 1035400.0]]}"#;
    let mut streams = vec![feature(r#"{"NAME": "Perennial Creek", "FCODE": 46006}"#, creek)];
    streams.extend(channel_properties.map(|p| feature(p, &channel(836_560.0))));
    let files = [
        ("parcels.geojson", geojson(&parcels)),
        ("shoreline.geojson", geojson(&[feature(r#"{"NAME": "Owasco Lake"}"#, &square(835_800.0, 1_037_500.0, 2_400.0))])),
        (
            "systems.geojson",
            geojson(&[feature(
                &format!(r#"{{"PARCEL_ID": "{LOT}"}}"#),
                r#"{"type": "Point", "coordinates": [836500.0, 1035100.0]}"#,
            )]),
        ),
        ("watercourses.geojson", geojson(&streams)),
        (
            "history.csv",
            format!(
                "parcel_id,inspection_date,result,report_received,failure,overflow_points,components_working,tank_adequate,separation_ft,valid_permit,meets_75a\n\
                 {LOT},2026-06-01,pass,2026-06-10,no,no,yes,yes,3.0,no,no\n"
            ),
        ),
        (
            "county.toml",
            "crs = \"EPSG:2261\"\n[layers]\nparcels = \"parcels.geojson\"\nshoreline = \"shoreline.geojson\"\n\
             systems = \"systems.geojson\"\nwatercourses = \"watercourses.geojson\"\nhistory = \"history.csv\"\n\
             watershed = \"watershed.geojson\"\n"
                .to_string(),
        ),
    ];
    for (name, text) in files {
        if name == "shoreline.geojson" {
            fs::write(dir.join("watershed.geojson"), common::watershed_around(&text, 1.0))
                .expect("watershed");
        }
        fs::write(dir.join(name), text).expect("write the county");
    }
    dir
}

/// Lot 1's schedule row and the run's standard output.
fn schedule(dir: &Path) -> (BTreeMap<String, String>, String) {
    let out = dir.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config"])
        .arg(dir.join("county.toml"))
        .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
        .arg(&out)
        .output()
        .expect("cannot run the lakeshore binary");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let rows = common::read_rows(&out.join("schedule.csv")).unwrap_or_else(|e| panic!("{e}")).1;
    let row = rows.into_iter().find(|r| r["parcel_id"] == LOT).expect("lot 1's row");
    (row, stdout)
}

fn verdict(row: &BTreeMap<String, String>) -> (&str, &str, &str) {
    (&row["watercourse_ft"], &row["class"], &row["permit"])
}

/// An ephemeral channel 60 ft from the system, not on Map 94-99, is "a drainage area which contain[s] water only
/// during and immediately after a rainstorm": no watercourse. The nearest watercourse is the perennial stream,
/// 300 ft off, so (c)(3) holds: existing standards, a permit to discharge — the very row of the county without
/// the channel. The channel is left out once, in the run's notes, with the clause.
#[test]
fn an_ephemeral_channel_off_the_map_is_no_watercourse() {
    let ephemeral = county("ephemeral", Some(r#"{"NAME": "Gully", "FCODE": 46007}"#));
    let (row, stdout) = schedule(&ephemeral);
    assert_eq!(verdict(&row), ("300.0", "existing standards", "permit to discharge"), "{row:?}");
    let notes: Vec<&str> = stdout.lines().filter(|l| l.contains("left out, not a watercourse")).collect();
    assert_eq!(notes.len(), 1, "{stdout}");
    assert!(notes[0].contains("1 feature left out, not a watercourse under Art. V §II.35"), "{}", notes[0]);
    assert!(notes[0].contains("ephemeral (NHD FCode 46007)"), "{}", notes[0]);

    let (without, stdout) = schedule(&county("no-channel", None));
    assert_eq!(row, without, "the ephemeral channel changes nothing");
    assert!(!stdout.contains("left out"), "{stdout}");
}

/// "or any water body of any kind designated on the official Cayuga County watershed map": the same channel
/// marked as on Map 94-99 is a watercourse, 60 ft from the system, under the 100 ft of (c)(3): substandard,
/// an interim permit (§V.C). A perennial stream (FCode 46006, "sustained primarily through base flow") in its
/// place is one too.
#[test]
fn a_channel_on_the_map_and_a_perennial_stream_are_watercourses() {
    for (label, properties) in [
        ("on-map", r#"{"NAME": "Gully", "FCODE": 46007, "MAP_94_99": "Y"}"#),
        ("perennial", r#"{"NAME": "Mill Brook", "FCODE": 46006}"#),
    ] {
        let (row, stdout) = schedule(&county(label, Some(properties)));
        assert_eq!(verdict(&row), ("60.0", "substandard", "interim permit"), "{label}: {row:?}");
        assert!(!stdout.contains("left out, not a watercourse"), "{label}: {stdout}");
        if label == "on-map" {
            assert!(stdout.contains("1 feature counted as a watercourse whatever else it says"), "{stdout}");
        }
    }
}
