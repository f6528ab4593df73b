//! The sample county's layers in the formats counties ship them, written at test time by the programs that
//! write them (`tests/writers/county_formats.py`: GDAL for zipped shapefiles, FlatGeobuf and GeoJSON text
//! sequences, Python's zipfile, GeoPandas and DuckDB for GeoParquet with a covering column and in GeoArrow,
//! and `tests/writers/esri_json.py`, after the GeoServices specification, for Esri JSON), each read in place
//! of the sample's own layer: the schedule is the sample's, row for row by parcel id. FlatGeobuf's index puts
//! the features in another order, so there only the record numbers may differ, each parcel still once.
//! Then `init` on a folder of such files finds each layer and writes a config that schedules as the sample.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

const AS_OF: &str = "2027-01-15";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A new folder for `test` (named `label`) and its `files` folder holding the county's layers in every
/// format; `None` after saying the test is skipped when the writers' Python is not there (outside CI).
fn formats(test: &str, label: &str) -> Option<(PathBuf, PathBuf)> {
    let python = crate::geoparquet::writers_python(test)?;
    let dir = common::fresh_dir(label);
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let written = Command::new(python)
        .arg(root().join("tests/writers/county_formats.py"))
        .arg(root().join("data/sample"))
        .arg(&files)
        .output()
        .unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    Some((dir, files))
}

/// The schedule of `config` with `layers` (flag, file) in place of its own, into `out`: its `schedule.csv`.
fn schedule(config: &Path, layers: &[(&str, PathBuf)], out: &Path) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lakeshore"));
    command.current_dir(root()).arg("schedule").arg("--config").arg(config).args(["--as-of", AS_OF]);
    for (flag, file) in layers {
        command.arg(flag).arg(file);
    }
    let output = command.args(["--format", "csv", "--out"]).arg(out).output().unwrap();
    // Every record of the sample is good, in whatever file: a clean run.
    assert_eq!(output.status.code(), Some(0), "{layers:?}: {}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(out.join("schedule.csv")).unwrap()
}

/// A schedule's rows by parcel id, each without its record number, and the record numbers.
fn by_parcel(csv: &Path) -> (BTreeMap<String, common::Row>, Vec<usize>) {
    let (_, rows) = common::read_rows(csv).unwrap();
    let mut records: Vec<usize> = rows.iter().map(|r| r["record"].parse().unwrap()).collect();
    records.sort_unstable();
    let rows = rows
        .into_iter()
        .map(|mut row| {
            row.remove("record");
            (row["parcel_id"].clone(), row)
        })
        .collect();
    (rows, records)
}

#[test]
fn layers_as_counties_ship_them_schedule_as_the_sample() {
    let test = "layers_as_counties_ship_them_schedule_as_the_sample";
    let Some((dir, files)) = formats(test, "formats-as-shipped") else { return };
    let config = root().join("data/sample/county.toml");
    let sample = schedule(&config, &[], &dir.join("sample"));
    // 73 parcels in data/sample/parcels.shp (data/sample/README.md), and a header.
    assert_eq!(sample.lines().count(), 74);
    let file = |name: &str| files.join(name);
    let same_order = [
        ("--parcels", file("parcels.shp.zip")),
        ("--parcels", file("parcels.zip")),
        ("--parcels", file("county.zip:parcels.shp")),
        ("--parcels", file("parcels-unindexed.fgb")),
        ("--parcels", file("parcels.geojsonl")),
        ("--parcels", file("parcels.geojsons")),
        ("--parcels", file("parcels-lines.geojson")),
        ("--parcels", file("parcels-covering.parquet")),
        ("--parcels", file("parcels-duckdb-covering.parquet")),
        ("--parcels", file("parcels-geoarrow.parquet")),
        ("--parcels", file("parcels-esri.json")),
        ("--shoreline", file("shoreline.json")),
        ("--towns", file("towns.geojsonl")),
        ("--towns", file("towns-geoarrow.parquet")),
        ("--systems", file("systems.fgb")),
        ("--systems", file("systems-geoarrow.parquet")),
        ("--systems", file("systems-interleaved.parquet")),
    ];
    for (n, (flag, path)) in same_order.into_iter().enumerate() {
        let label = format!("{flag} {}", path.display());
        let written = schedule(&config, &[(flag, path)], &dir.join(format!("out-{n}")));
        assert!(written == sample, "{label}: schedule.csv differs:\n{sample}\n---\n{written}");
    }
    // The index's order: the same rows by parcel id, each record number once.
    let out = dir.join("out-indexed");
    schedule(&config, &[("--parcels", file("parcels.fgb"))], &out);
    let (rows, records) = by_parcel(&out.join("schedule.csv"));
    let (sample_rows, _) = by_parcel(&dir.join("sample/schedule.csv"));
    assert_eq!(records, (1..=73).collect::<Vec<_>>(), "every feature once");
    assert_eq!(rows, sample_rows);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A county folder of such files: the shapefiles in one zip, the shoreline as Esri JSON, the towns as a
/// GeoJSON sequence, the systems as FlatGeobuf. `init` lists the zip's shapefiles and finds every layer; the
/// config it writes schedules as the sample.
#[test]
fn init_surveys_a_folder_of_zips_sequences_esri_json_and_flatgeobuf() {
    let test = "init_surveys_a_folder_of_zips_sequences_esri_json_and_flatgeobuf";
    let Some((dir, files)) = formats(test, "formats-init") else { return };
    let county = dir.join("county");
    std::fs::create_dir_all(&county).unwrap();
    for name in ["county.zip", "shoreline.json", "towns.geojsonl", "systems.fgb"] {
        std::fs::copy(files.join(name), county.join(name)).unwrap();
    }
    let sample = root().join("data/sample");
    let records = ["history.csv", "events.csv", "pump_outs.csv", "samples.csv", "pipes.csv"];
    for name in ["sewered.geojson", "county.geojson", "watercourses.geojson"].iter().chain(&records) {
        std::fs::copy(sample.join(name), county.join(name)).unwrap();
    }
    let run = Command::new(env!("CARGO_BIN_EXE_lakeshore")).arg("init").arg(&county).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    let config = std::fs::read_to_string(county.join("county.toml")).unwrap();
    for layer in [
        "parcels = \"county.zip:parcels.shp\"",
        "watershed = \"county.zip:watershed.shp\"",
        "floodplain = \"county.zip:floodplain.shp\"",
        "shoreline = \"shoreline.json\"",
        "towns = \"towns.geojsonl\"",
        "systems = \"systems.fgb\"",
    ] {
        assert!(config.contains(layer), "{layer} not in:\n{config}");
    }
    assert!(stdout.contains("found county.zip:parcels.shp: 73 records"), "{stdout}");
    let written = schedule(&county.join("county.toml"), &[], &dir.join("out"));
    let sample = schedule(&root().join("data/sample/county.toml"), &[], &dir.join("sample"));
    assert!(written == sample, "schedule.csv differs:\n{sample}\n---\n{written}");
    let _ = std::fs::remove_dir_all(&dir);
}
