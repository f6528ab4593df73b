//! The parcels go through the pipeline in blocks: the block size changes nothing. The whole-run schedule of
//! each sample (tested against hand-worked expectations elsewhere) is the reference; the same county run in
//! blocks of 1, 7 and 64 records, with the CSV written from the blocks as they come, must give the same file
//! byte for byte. The problem sample has the cases blocks could break: repeated ids (the first record must be
//! the one scheduled, whichever block it is in), records without ids, broken shapes. Both samples are run
//! again with their parcels as GeoJSON (the shapefile's records, the `crs` member after the features), which
//! is read in blocks too; the clean sample's schedule from GeoJSON is the one from the shapefile.
//!
//! The obligations likewise: `obligations.csv` written from each block's obligations must be the file of the
//! whole run's, with the same summary, notes and problems, under both rule sets (Cayuga's permits, pipes and
//! inspectors' reports; Gorham's event clocks); and the notices made of what each block's noticed obligations
//! and rows keep must be the whole run's (`notices.csv`, `cannot_mail.csv`, the letters).

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use geo::{Geometry, LineString, Polygon};
use lakeshore::crs::layer::Value;
use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::model::error::Problem;
use lakeshore::model::table::Table;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::{run_schedule, stream_schedule_in_blocks, Progress};
use lakeshore::report::letters::{write_letters, Template};
use lakeshore::report::notices::{notices, stream_notices, CannotMail};
use lakeshore::report::obligations::{
    stream_obligations_files_in_blocks, ObligationSummary, ObligationTable,
};
use lakeshore::report::schedule::ScheduleTable;
use lakeshore::report::{write_table, OutputFormat};
use lakeshore::write::{write_csv, write_geojson, TextByPlace};
use serde_json::{json, Map};

use crate::common::fresh_dir;

fn config(county: &str) -> Config {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(county);
    let file = ConfigFile::load(&path).expect("the sample config loads");
    Config::new(file, "2027-01-15".parse::<NaiveDate>().unwrap()).expect("the sample config is valid")
}

/// Runs the county of the config at `county` whole and in blocks of 1, 7 and 64 records, which must all give
/// the same schedule and problems, as CSV and as GeoJSON written from the blocks as they come; returns the
/// schedule, as CSV.
fn blocks_change_nothing(county: &str) -> Vec<u8> {
    let config = config(county);
    let dir = fresh_dir("streaming");
    let whole = run_schedule(&config).expect("the sample runs");
    write_csv(&dir.join("whole.csv"), &ScheduleTable::new(&whole)).unwrap();
    let to_wgs84 = || lakeshore::crs::Reprojector::new(&config.crs, &lakeshore::crs::Crs::wgs84()).unwrap();
    write_geojson(&dir.join("whole.geojson"), &ScheduleTable::new(&whole), to_wgs84()).unwrap();
    let expected = std::fs::read(dir.join("whole.csv")).unwrap();
    let expected_geojson = std::fs::read(dir.join("whole.geojson")).unwrap();
    for block in [1, 7, 64] {
        let path = dir.join(format!("blocks-{block}.csv"));
        let geojson = dir.join(format!("blocks-{block}.geojson"));
        let mut files: Option<(TextByPlace, TextByPlace)> = None;
        let mut sizes = Vec::new();
        let run = stream_schedule_in_blocks(&config, &Progress::default(), block, &mut |run, rows| {
            let table = ScheduleTable::of_rows(run, &rows);
            if files.is_none() {
                let csv = TextByPlace::csv(&path, table.columns(), run.parcels)?;
                let json = TextByPlace::geojson(&geojson, table.columns(), run.parcels, to_wgs84())?;
                files = Some((csv, json));
            }
            sizes.push(rows.len());
            let (csv, json) = files.as_mut().unwrap();
            csv.add(&table, &|i| rows[i].at)?;
            json.add(&table, &|i| rows[i].at)
        })
        .expect("the sample runs in blocks");
        let (csv, json) = files.expect("at least one block");
        csv.write().unwrap();
        json.write().unwrap();
        assert_eq!(sizes.iter().sum::<usize>(), whole.rows.len(), "{county}, blocks of {block}: rows lost");
        assert!(sizes.iter().all(|&n| n <= block), "{county}: a block of more than {block} rows: {sizes:?}");
        let found = std::fs::read(&path).unwrap();
        assert!(
            found == expected,
            "{county}, blocks of {block}: schedule.csv differs (both in {})",
            dir.display()
        );
        assert!(
            std::fs::read(&geojson).unwrap() == expected_geojson,
            "{county}, blocks of {block}: schedule.geojson differs (both in {})",
            dir.display()
        );
        let (ours, theirs) = (run.problems.to_vec().unwrap(), whole.problems.to_vec().unwrap());
        assert_eq!(ours, theirs, "{county}, blocks of {block}: the problems differ");
        let scratch: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
            .collect();
        assert!(scratch.is_empty(), "scratch files left behind: {scratch:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
    expected
}

/// Parcels whose system points lie off them (on another lot, in the lake) wait for the lots those points lie
/// on; once those are found their records are read again, by record number from a shapefile and read through
/// from GeoJSON. In blocks of any size the rows and problems are the whole run's, from either layer; and the
/// waiting parcels are scheduled where their systems lie (128.05-1-4 by S-B on 128.05-1-3, `systems_placement`).
#[test]
fn parcels_waiting_for_their_systems_lots_are_the_same_in_blocks_and_from_geojson() {
    let county = crate::systems_placement::county("streaming-waiting");
    let from_shapefile = blocks_change_nothing(county.join("county.toml").to_str().unwrap());
    let config = with_geojson_parcels(county.to_str().unwrap());
    let from_geojson = blocks_change_nothing(config.to_str().unwrap());
    assert!(from_geojson == from_shapefile, "the schedule from GeoJSON parcels differs from the shapefile's");
    let text = String::from_utf8(from_shapefile).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let four = lines.find(|l| l.starts_with("054689-128.05-1-4,")).expect("a row for 128.05-1-4");
    let cells: Vec<&str> = four.split(',').collect();
    assert_eq!(
        [cells[column("tier")], cells[column("system_id")], cells[column("system_lies_on")]],
        ["near-shore", "S-B", "054689-128.05-1-3"],
        "{four}"
    );
    std::fs::remove_dir_all(config.parent().unwrap()).ok();
    std::fs::remove_dir_all(&county).ok();
}

/// A copy of the sample county at `county` (a folder of the repository) whose parcels are `parcels.geojson`:
/// the shapefile's records to the bit (a shape the shapefile reader cannot use has a null geometry), the
/// `crs` member after the features. Returns the copy's config.
fn with_geojson_parcels(county: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(county);
    let dir = fresh_dir("streaming-geojson");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let (layer, _) = read_layer(&source.join("parcels.shp"), &ReadOptions::default()).unwrap();
    let ring = |ring: &LineString| -> Vec<[f64; 2]> { ring.coords().map(|c| [c.x, c.y]).collect() };
    let rings = |p: &Polygon| -> Vec<Vec<[f64; 2]>> {
        std::iter::once(p.exterior()).chain(p.interiors()).map(ring).collect()
    };
    let features: Vec<serde_json::Value> = layer
        .features
        .iter()
        .map(|feature| {
            let properties: Map<String, serde_json::Value> = layer
                .fields
                .iter()
                .zip(&feature.values)
                .map(|(name, value)| {
                    let value = match value {
                        Value::Null => serde_json::Value::Null,
                        Value::Text(text) => json!(text),
                        Value::Number(x) => json!(x),
                        Value::Bool(b) => json!(b),
                    };
                    (name.clone(), value)
                })
                .collect();
            let geometry = match &feature.geometry {
                Ok(Geometry::Polygon(p)) => json!({"type": "Polygon", "coordinates": rings(p)}),
                Ok(Geometry::MultiPolygon(mp)) => {
                    json!({"type": "MultiPolygon", "coordinates": mp.0.iter().map(rings).collect::<Vec<_>>()})
                }
                Ok(other) => panic!("record {}: a parcel that is not a polygon: {other:?}", feature.record),
                Err(_) => serde_json::Value::Null,
            };
            json!({"type": "Feature", "properties": properties, "geometry": geometry})
        })
        .collect();
    // The samples are in EPSG:2261, as their configs say.
    let text = format!(
        "{{\"type\": \"FeatureCollection\", \"features\": {}, \"crs\": {}}}",
        serde_json::to_string(&features).unwrap(),
        json!({"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2261"}})
    );
    std::fs::write(dir.join("parcels.geojson"), text).unwrap();
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
    assert!(config.contains("parcels = \"parcels.shp\""));
    let config = config.replace("parcels = \"parcels.shp\"", "parcels = \"parcels.geojson\"");
    std::fs::write(dir.join("county.toml"), config).unwrap();
    dir.join("county.toml")
}

#[test]
fn the_sample_in_blocks_is_the_sample_whole() {
    blocks_change_nothing("data/sample/county.toml");
}

#[test]
fn the_problem_sample_in_blocks_is_the_problem_sample_whole() {
    blocks_change_nothing("data/sample-problems/county.toml");
}

fn obligations_in_blocks_are_the_whole_run_s(county: &str) {
    let config = config(county);
    let dir = fresh_dir("streaming-obligations");
    let mut whole = run_schedule(&config).expect("the sample runs");
    let (found, more, notes) = whole.obligations(config.as_of);
    assert!(!found.is_empty(), "{county}: the sample owes obligations");
    let formats = [OutputFormat::Csv, OutputFormat::GeoJson];
    let whole_dir = dir.join("whole");
    write_table(&ObligationTable::new(&whole, &found), &whole_dir, "obligations", &formats, &config.crs)
        .unwrap();
    let expected: Vec<Vec<u8>> = ["obligations.csv", "obligations.geojson"]
        .iter()
        .map(|name| std::fs::read(whole_dir.join(name)).unwrap())
        .collect();
    let summary = ObligationSummary::of(&found, config.as_of);
    whole.notes.extend(notes);
    let mut problems = whole.problems.to_vec().unwrap();
    problems.extend(more);
    Problem::sort_unique(&mut problems);
    for block in [1, 7, 64] {
        let out = dir.join(format!("blocks-{block}"));
        let (run, counted, written) =
            stream_obligations_files_in_blocks(&config, &Progress::default(), &out, &formats, block)
                .expect("the sample runs in blocks");
        assert_eq!(written, vec![out.join("obligations.csv"), out.join("obligations.geojson")]);
        for (path, expected) in written.iter().zip(&expected) {
            assert!(
                std::fs::read(path).unwrap() == *expected,
                "{county}, blocks of {block}: {} differs (both in {})",
                path.display(),
                dir.display()
            );
        }
        assert_eq!(counted, summary, "{county}, blocks of {block}: the summary differs");
        assert_eq!(run.notes, whole.notes, "{county}, blocks of {block}: the notes differ");
        let ours = run.problems.to_vec().unwrap();
        assert_eq!(ours, problems, "{county}, blocks of {block}: the problems differ");
        let mut left: Vec<_> =
            std::fs::read_dir(&out).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
        left.sort();
        assert_eq!(left, ["obligations.csv", "obligations.geojson"], "scratch files left behind");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `notices.csv`, `cannot_mail.csv` (written from `list` unless it is in `dir` already) and `letters.html` of
/// `list` in `dir`, read back.
fn notice_files(list: &lakeshore::report::notices::Notices, dir: &Path, as_of: NaiveDate) -> Vec<Vec<u8>> {
    std::fs::create_dir_all(dir).unwrap();
    write_csv(&dir.join("notices.csv"), list).unwrap();
    if !dir.join("cannot_mail.csv").exists() {
        write_csv(&dir.join("cannot_mail.csv"), &CannotMail(list.cannot_mail())).unwrap();
    }
    let letters = write_letters(list, &Template::builtin().unwrap(), dir, as_of).unwrap();
    [dir.join("notices.csv"), dir.join("cannot_mail.csv"), letters]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

fn notices_in_blocks_are_the_whole_run_s(county: &str) {
    let config = config(county);
    let dir = fresh_dir("streaming-notices");
    let whole = run_schedule(&config).expect("the sample runs");
    let (found, _, _) = whole.obligations(config.as_of);
    let year = 2027;
    let whole_list = notices(&whole, &found, year, config.as_of);
    let expected = notice_files(&whole_list, &dir.join("whole"), config.as_of);
    assert!(expected[0].len() > 200, "{county}: the sample has notices");
    assert!(!whole_list.cannot_mail().is_empty(), "{county}: the sample has duties that cannot be mailed");
    for block in [1, 7, 64] {
        let out = dir.join(format!("blocks-{block}"));
        std::fs::create_dir_all(&out).unwrap();
        let (_, list, cannot_mail) =
            stream_notices(&config, &Progress::default(), (year, block), None, (&out, true))
                .expect("the sample runs in blocks");
        assert_eq!(cannot_mail, out.join("cannot_mail.csv"));
        assert!(list.cannot_mail().is_empty(), "{county}: the duties that cannot be mailed are not kept");
        assert_eq!(list.cannot_mail_count(), whole_list.cannot_mail().len());
        let found = notice_files(&list, &out, config.as_of);
        for (file, (found, expected)) in
            ["notices.csv", "cannot_mail.csv", "letters.html"].iter().zip(found.iter().zip(&expected))
        {
            assert!(
                found == expected,
                "{county}, blocks of {block}: {file} differs (both in {})",
                dir.display()
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_sample_s_obligations_in_blocks_are_the_whole_run_s() {
    obligations_in_blocks_are_the_whole_run_s("data/sample/county.toml");
    obligations_in_blocks_are_the_whole_run_s("data/sample/gorham.toml");
    notices_in_blocks_are_the_whole_run_s("data/sample/county.toml");
}

#[test]
fn the_problem_sample_s_obligations_in_blocks_are_the_whole_run_s() {
    obligations_in_blocks_are_the_whole_run_s("data/sample-problems/county.toml");
    obligations_in_blocks_are_the_whole_run_s("data/sample-problems/gorham.toml");
    notices_in_blocks_are_the_whole_run_s("data/sample-problems/county.toml");
}

#[test]
fn the_sample_with_geojson_parcels_in_blocks_is_the_sample_whole() {
    let from_shapefile = blocks_change_nothing("data/sample/county.toml");
    let config = with_geojson_parcels("data/sample");
    let from_geojson = blocks_change_nothing(config.to_str().unwrap());
    assert!(from_geojson == from_shapefile, "the schedule from GeoJSON parcels differs from the shapefile's");
    std::fs::remove_dir_all(config.parent().unwrap()).ok();
}

#[test]
fn the_problem_sample_with_geojson_parcels_in_blocks_is_the_problem_sample_whole() {
    let config = with_geojson_parcels("data/sample-problems");
    blocks_change_nothing(config.to_str().unwrap());
    std::fs::remove_dir_all(config.parent().unwrap()).ok();
}

/// Notices made as the blocks come are those of the whole run when the blocks come out of order of position:
/// the sample's parcels as GeoJSON (read in the file's order, not by record number) written in reverse, so
/// that an owner's parcels and the duties of each letter reach the notices last first.
#[test]
fn the_sample_s_notices_from_parcels_in_reverse_are_the_whole_run_s() {
    let config = with_geojson_parcels("data/sample");
    let file = config.with_file_name("parcels.geojson");
    let mut collection: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let features = collection["features"].as_array_mut().unwrap();
    assert!(features.len() > 20, "the sample has parcels");
    features.reverse();
    std::fs::write(&file, serde_json::to_string(&collection).unwrap()).unwrap();
    notices_in_blocks_are_the_whole_run_s(config.to_str().unwrap());
    std::fs::remove_dir_all(config.parent().unwrap()).ok();
}

/// The files of a table are put in place together or not at all: a folder standing where one of them goes
/// stops the write before any is renamed, and no temporary file is left.
#[test]
fn a_format_that_cannot_be_put_in_place_leaves_no_output_renamed() {
    let config = config("data/sample/county.toml");
    let whole = run_schedule(&config).expect("the sample runs");
    let out = fresh_dir("streaming-all-or-none");
    std::fs::create_dir_all(out.join("schedule.parquet")).unwrap();
    let formats = [OutputFormat::Csv, OutputFormat::GeoJson, OutputFormat::Parquet, OutputFormat::GeoPackage];
    let error = write_table(&ScheduleTable::new(&whole), &out, "schedule", &formats, &config.crs)
        .expect_err("a folder stands where schedule.parquet goes");
    assert!(error.to_string().contains("schedule.parquet"), "{error}");
    let left: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("schedule.parquet")], "only the folder is left");
    std::fs::remove_dir_all(&out).ok();
}
