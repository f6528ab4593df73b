//! `lakeshore init` on folders built the way counties hand them over: the sample county's layers packed in
//! one GeoPackage beside an older parcels layer, the inspection log a workbook whose headers are the office's
//! own, a GeoJSON layer whose first feature lacks a property; and small counties in other states, whose
//! State Plane zone in feet init must propose. The oracle is the sample run with its own `county.toml`, and
//! the zones are those the states' counties lie in.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::pipeline::config::ConfigFile;

use crate::common;
use crate::ny_county::{lakeshore, text};

const AS_OF: &str = "2027-01-15";

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

/// The sample's schedule in `formats` written into `out`, the run checked to exit 0.
fn sample_outputs(formats: &str, out: &Path) {
    let (config, out) = (sample().join("county.toml"), out.to_str().unwrap());
    let config = config.to_str().unwrap();
    let ran =
        lakeshore(&["schedule", "--config", config, "--as-of", AS_OF, "--format", formats, "--out", out]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
}

fn schedule(config: &Path, out: &Path) -> Output {
    let (config, out) = (config.to_str().unwrap(), out.to_str().unwrap());
    lakeshore(&["schedule", "--config", config, "--as-of", AS_OF, "--format", "csv", "--out", out])
}

/// The sample county as a county hands it over, in `dir`.
fn county_folder(dir: &Path) {
    let config = ConfigFile::load(&sample().join("county.toml")).unwrap();
    let l = &config.layers;
    // The parcels and reference layers in one GeoPackage, with last year's parcels beside this year's: the
    // older layer lacks six parcels, so a schedule from it would differ.
    let conn = crate::gpkg::new_geopackage(&dir.join("county.gpkg"));
    let layers = [
        ("parcels_2025", &l.parcels),
        ("shoreline", &l.shoreline),
        ("watershed", &l.watershed),
        ("floodplain", &l.floodplain),
        ("towns", &l.towns),
        ("sewered", &l.sewered),
        ("county", &l.county),
        ("watercourses", &l.watercourses),
    ];
    for (i, (name, path)) in layers.into_iter().enumerate() {
        let (layer, _) = read_layer(path.as_ref().unwrap(), &ReadOptions::default()).unwrap();
        let srs_id = layer.crs.epsg().map_or(100_001 + i as i32, |c| c as i32);
        crate::gpkg::add_layer(&conn, name, &layer, srs_id);
        if name == "parcels_2025" {
            let mut older = layer;
            older.features.truncate(older.features.len() - 6);
            crate::gpkg::add_layer(&conn, "parcels_2023", &older, srs_id);
        }
    }
    drop(conn);

    // The systems as GeoJSON whose first feature has no BOTTOM_FT (the one system whose bottom is unknown).
    let text = fs::read_to_string(sample().join("systems.geojson")).unwrap();
    let mut systems: serde_json::Value = serde_json::from_str(&text).unwrap();
    let features = systems["features"].as_array_mut().unwrap();
    let unknown = features.iter().position(|f| f["properties"]["BOTTOM_FT"].is_null()).unwrap();
    let mut first = features.remove(unknown);
    first["properties"].as_object_mut().unwrap().remove("BOTTOM_FT");
    features.insert(0, first);
    fs::write(dir.join("systems.geojson"), serde_json::to_string(&systems).unwrap()).unwrap();

    // The inspection log as a workbook (a cover sheet, then the log, dates as date cells), its id and date
    // headers the office's own.
    let (header, rows) = common::read_rows(&sample().join("history.csv")).unwrap();
    let renamed: Vec<&str> = header
        .iter()
        .map(|h| match h.as_str() {
            "parcel_id" => "Tax Map #",
            "inspection_date" => "Insp Dt",
            other => other,
        })
        .collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            header
                .iter()
                .map(|h| {
                    let v = &row[h];
                    let iso = v.len() == 10 && chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d").is_ok();
                    if iso {
                        format!("date:{v}")
                    } else {
                        v.clone()
                    }
                })
                .collect()
        })
        .collect();
    let cells: Vec<Vec<&str>> = cells.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
    let cells: Vec<&[&str]> = cells.iter().map(Vec::as_slice).collect();
    crate::record_files::workbook(&dir.join("inspections.xlsx"), &renamed, &cells);

    // The events with the same headers; the other record files as they are.
    let events = fs::read_to_string(sample().join("events.csv")).unwrap();
    let (head, body) = events.split_once('\n').unwrap();
    let head = head.replacen("parcel_id", "Tax Map #", 1).replacen(",date,", ",Event Dt,", 1);
    fs::write(dir.join("events.csv"), format!("{head}\n{body}")).unwrap();
    for name in ["pump_outs.csv", "samples.csv", "pipes.csv"] {
        fs::copy(sample().join(name), dir.join(name)).unwrap();
    }
}

/// A county handed over as a GeoPackage, a workbook and GeoJSON: init takes the newer parcels layer, finds
/// the log's columns by what they hold and finds the systems' bottom field the first feature leaves out, and
/// the config it writes schedules exactly as the sample's own.
#[test]
fn init_on_a_county_folder_as_handed_over_schedules_as_the_sample() {
    let dir = common::fresh_dir("init-county");
    county_folder(&dir);
    let run = lakeshore(&["init", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let config = fs::read_to_string(dir.join("county.toml")).unwrap();
    for line in [
        "parcels = \"county.gpkg:parcels_2025\"",
        "shoreline = \"county.gpkg:shoreline\"",
        "floodplain = \"county.gpkg:floodplain\"",
        "systems = \"systems.geojson\"",
        "history = \"inspections.xlsx:Log\"",
        "events = \"events.csv\"",
        "[fields.history]",
        "parcel_id = \"Tax Map #\"",
        "inspection_date = \"Insp Dt\"",
        "[fields.events]",
        "date = \"Event Dt\"",
        "crs = \"EPSG:2261\"",
    ] {
        assert!(config.lines().any(|l| l.starts_with(line)), "no '{line}' in\n{config}");
    }
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("took county.gpkg:parcels_2025, the newest by the year in its name (2025)"),
        "{}",
        text(&run)
    );

    let ours = schedule(&dir.join("county.toml"), &dir.join("out"));
    assert_eq!(ours.status.code(), Some(0), "{}", text(&ours));
    let theirs = schedule(&sample().join("county.toml"), &dir.join("out-sample"));
    assert_eq!(theirs.status.code(), Some(0), "{}", text(&theirs));
    let a = fs::read_to_string(dir.join("out/schedule.csv")).unwrap();
    let b = fs::read_to_string(dir.join("out-sample/schedule.csv")).unwrap();
    assert_eq!(a.lines().count(), 74); // the header and the sample's 73 parcels
    assert!(a == b, "the schedules differ");
    let _ = fs::remove_dir_all(dir);
}

/// A lake of about 2,900 by 1,800 ft with three parcels of about 280 ft on its north shore, in longitude and
/// latitude (GeoJSON's WGS 84) around (`lon`, `lat`).
fn lake_county(dir: &Path, lon: f64, lat: f64) {
    let square = |x0: f64, y0: f64, x1: f64, y1: f64| {
        format!("[[[{x0},{y0}],[{x1},{y0}],[{x1},{y1}],[{x0},{y1}],[{x0},{y0}]]]")
    };
    let lake = square(lon - 0.005, lat - 0.005, lon + 0.005, lat);
    let shed = square(lon - 0.00501, lat - 0.00501, lon + 0.00501, lat + 0.00001);
    fs::write(
        dir.join("owasco_watershed.geojson"),
        format!(
            r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{"NAME":"Owasco Lake"}},"geometry":{{"type":"Polygon","coordinates":{shed}}}}}]}}"#
        ),
    )
    .unwrap();
    let parcels: Vec<String> = (0..3)
        .map(|i| {
            let x0 = lon - 0.003 + 0.001 * f64::from(i);
            let shape = square(x0, lat, x0 + 0.001, lat + 0.001);
            format!(
                r#"{{"type":"Feature","properties":{{"PARCEL_ID":"{}-1-1","OWNER":"OWNER {i}"}},"geometry":{{"type":"Polygon","coordinates":{shape}}}}}"#,
                100 + i
            )
        })
        .collect();
    fs::write(
        dir.join("tax_parcels.geojson"),
        format!(r#"{{"type":"FeatureCollection","features":[{}]}}"#, parcels.join(",")),
    )
    .unwrap();
    fs::write(
        dir.join("lake_shoreline.geojson"),
        format!(
            r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{"NAME":"Owasco Lake","MHW_FT":717.1}},"geometry":{{"type":"Polygon","coordinates":{lake}}}}}]}}"#
        ),
    )
    .unwrap();
}

/// Parcels in longitude/latitude get the State Plane zone in feet of their state (Ohio South around
/// Columbus, Colorado Central around Denver), the config schedules with it, and the parcel on the shore is
/// lakefront; where no zone in feet that lakeshore supports applies (Alabama), no CRS is proposed, which is
/// said, and the config does not run until one is set.
#[test]
fn init_proposes_the_state_plane_zone_in_feet_of_the_countys_place() {
    for (place, lon, lat, zone) in [("ohio", -83.0, 39.96, "3735"), ("colorado", -104.99, 39.74, "2232")] {
        let dir = common::fresh_dir(&format!("init-{place}"));
        lake_county(&dir, lon, lat);
        let run = lakeshore(&["init", dir.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0), "{place}: {}", text(&run));
        let config = fs::read_to_string(dir.join("county.toml")).unwrap();
        assert!(config.contains(&format!("crs = \"EPSG:{zone}\"")), "{place}:\n{config}");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(stdout.contains(&format!("the working CRS is EPSG:{zone}")), "{place}: {}", text(&run));
        let out = dir.join("out");
        let ran = schedule(&dir.join("county.toml"), &out);
        assert!(matches!(ran.status.code(), Some(0 | 2)), "{place}: {}", text(&ran));
        let rows = common::read_rows(&out.join("schedule.csv")).unwrap().1;
        assert_eq!(rows.len(), 3, "{place}");
        let first = rows.iter().find(|r| r["parcel_id"] == "100-1-1").unwrap();
        assert_eq!(first["tier"], "lakefront", "{place}: {first:?}");
        let _ = fs::remove_dir_all(dir);
    }

    let dir = common::fresh_dir("init-alabama");
    lake_county(&dir, -86.8, 33.52);
    let run = lakeshore(&["init", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("no US State Plane zone in feet that lakeshore supports"), "{}", text(&run));
    let ran = schedule(&dir.join("county.toml"), &dir.join("out"));
    assert_eq!(ran.status.code(), Some(1), "{}", text(&ran));
    let _ = fs::remove_dir_all(dir);
}

/// Without a shoreline, a required layer, init still writes what it found, but says so and exits 1.
#[test]
fn init_without_a_required_layer_exits_1_naming_it() {
    let dir = common::fresh_dir("init-no-shore");
    lake_county(&dir, -83.0, 39.96);
    fs::remove_file(dir.join("lake_shoreline.geojson")).unwrap();
    let run = lakeshore(&["init", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("looks like the shoreline layer") && stderr.contains("[layers] shoreline"),
        "{stderr}"
    );
    assert!(fs::read_to_string(dir.join("county.toml"))
        .unwrap()
        .contains("parcels = \"tax_parcels.geojson\""));
    let _ = fs::remove_dir_all(dir);
}

/// A GeoParquet parcels layer (the sample's own parcels as `schedule --format parquet` writes them, in
/// longitude/latitude) is surveyed, and the zone proposed for Cayuga County is New York Central.
#[test]
fn init_surveys_geoparquet_and_places_the_sample_in_new_york_central() {
    let dir = common::fresh_dir("init-parquet");
    sample_outputs("parquet", &dir.join("pq"));
    let county = dir.join("county");
    fs::create_dir(&county).unwrap();
    fs::copy(dir.join("pq/schedule.parquet"), county.join("tax_parcels_2024.parquet")).unwrap();
    fs::copy(sample().join("shoreline.geojson"), county.join("shoreline.geojson")).unwrap();
    for part in ["shp", "shx", "dbf", "prj"] {
        let name = format!("watershed.{part}");
        fs::copy(sample().join(&name), county.join(&name)).unwrap();
    }
    let run = lakeshore(&["init", county.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let config = fs::read_to_string(county.join("county.toml")).unwrap();
    assert!(config.contains("parcels = \"tax_parcels_2024.parquet\""), "{config}");
    assert!(config.contains("crs = \"EPSG:2261\""), "{config}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("is in EPSG:4326, not a projected CRS in feet: the working CRS is EPSG:2261"),
        "{stdout}"
    );
    let _ = fs::remove_dir_all(dir);
}

/// A county folder that a run also wrote its outputs into (`--out` the data folder): init passes over the
/// files its `run.json` names (`schedule.geojson` is a layer of parcels too), says so, and writes the config it
/// writes for the same folder without them.
#[test]
fn init_passes_over_the_outputs_of_an_earlier_run_in_the_folder() {
    let dir = common::fresh_dir("init-outputs");
    let (clean, used) = (dir.join("clean"), dir.join("used"));
    for folder in [&clean, &used] {
        fs::create_dir_all(folder).unwrap();
        common::copy_files(&sample(), folder, |name| name != "county.toml");
    }
    sample_outputs("csv,geojson,gpkg", &used);
    assert!(used.join("schedule.geojson").is_file() && used.join("schedule.gpkg").is_file());
    let init = |folder: &Path| {
        let run = lakeshore(&["init", folder.to_str().unwrap()]);
        assert!(matches!(run.status.code(), Some(0 | 2)), "{}", text(&run));
        let layers = ConfigFile::load(&folder.join("county.toml")).unwrap().layers.files();
        let names: Vec<String> =
            layers.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        (String::from_utf8_lossy(&run.stdout).into_owned(), names)
    };
    let (said, with_outputs) = init(&used);
    assert!(said.contains("passed over the outputs of an earlier lakeshore run"), "{said}");
    assert!(said.contains("schedule.geojson") && said.contains("schedule.gpkg"), "{said}");
    let (_, without) = init(&clean);
    assert!(with_outputs.contains(&"parcels.shp".to_string()), "{with_outputs:?}");
    assert_eq!(with_outputs, without, "the outputs changed what init took");
}
