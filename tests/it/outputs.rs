//! The three output formats of `schedule` on the sample county agree with each other: the same parcels in
//! the same order, WGS 84 polygons in the GeoJSON, typed columns in the Parquet file.

use std::path::{Path, PathBuf};
use std::process::Command;

use polars::prelude::*;

fn run_sample(out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["schedule", "--config", "data/sample/county.toml", "--as-of", "2027-01-15", "--out"])
        .arg(out)
        .args(["--format", "csv,geojson,parquet"])
        .output()
        .expect("the binary runs");
    assert!(!String::from_utf8_lossy(&status.stderr).contains("panicked"));
    assert!(out.join("schedule.csv").is_file(), "{}", String::from_utf8_lossy(&status.stderr));
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::scratch::root().join(format!("outputs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Parcel ids of the CSV, in file order (the id is the first column and never quoted in the sample).
fn csv_ids(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().skip(1).map(|l| l.split(',').next().unwrap().to_string()).collect()
}

#[test]
fn geojson_and_parquet_carry_the_same_rows_as_the_csv() {
    let out = out_dir("formats");
    run_sample(&out);
    let ids = csv_ids(&out.join("schedule.csv"));
    // 73 parcels in data/sample/parcels.shp (data/sample/README.md), sorted by id.
    assert_eq!(ids.len(), 73);
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "rows are sorted by parcel id");

    let geojson: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("schedule.geojson")).unwrap()).unwrap();
    assert_eq!(geojson["type"], "FeatureCollection");
    let features = geojson["features"].as_array().unwrap();
    let geo_ids: Vec<&str> =
        features.iter().map(|f| f["properties"]["parcel_id"].as_str().unwrap()).collect();
    assert_eq!(geo_ids, ids.iter().map(String::as_str).collect::<Vec<_>>());
    for f in features {
        assert_eq!(f["geometry"]["type"], "MultiPolygon");
        // The sample lies around 76.5° W, 42.8° N; RFC 7946 is longitude first.
        for polygon in f["geometry"]["coordinates"].as_array().unwrap() {
            for ring in polygon.as_array().unwrap() {
                for c in ring.as_array().unwrap() {
                    let (lon, lat) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
                    assert!((-77.5..-75.5).contains(&lon) && (42.0..43.8).contains(&lat), "{lon}, {lat}");
                }
            }
        }
    }

    let frame =
        ParquetReader::new(std::fs::File::open(out.join("schedule.parquet")).unwrap()).finish().unwrap();
    assert_eq!(frame.height(), 73);
    let pq_ids: Vec<&str> =
        frame.column("parcel_id").unwrap().str().unwrap().iter().map(|s| s.unwrap()).collect();
    assert_eq!(pq_ids, ids.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(frame.column("next_due").unwrap().dtype(), &DataType::Date);
    assert_eq!(frame.column("cycle_years").unwrap().dtype(), &DataType::Int64);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn lakefront_reason_reads_as_the_law() {
    let out = out_dir("reason");
    run_sample(&out);
    let text = std::fs::read_to_string(out.join("schedule.csv")).unwrap();
    // 054689-128.05-1-1: east shore of Owasco Lake, system 150 ft from the line (data/sample/README.md).
    let row = text.lines().find(|l| l.starts_with("054689-128.05-1-1,")).unwrap();
    assert!(
        row.contains("parcel edge 0 ft from the Owasco Lake mean-high-water line, system 150 ft from it; Art. V §IV.A.1 ¶1, every 2 years from 1994-11-01"),
        "{row}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
