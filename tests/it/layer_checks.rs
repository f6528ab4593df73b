//! The layers cross-checked after reprojection, on the sample county (`data/sample`) copied into a fresh
//! folder and handed over the ways counties get it wrong: the parcels as a GeoJSON written lat,lon, a metre
//! CRS assumed for a shapefile in feet, a reference layer with the `.prj` of the neighbouring State Plane
//! zone, a parcel with a vertex at x = 1e300, a system point 2,000 ft outside the parcel it names.
//!
//! Each run either stops (exit 1) with a message naming the layer and the likely cause, or is scheduled as
//! the corrected county is: the oracle is the sample's own schedule (or the sample with the bad record
//! removed), never the code under test.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::NaiveDate;
use geo::{Coord, Distance, Euclidean, Geometry, MultiPolygon, Point};
use lakeshore::crs::layer::Value;
use lakeshore::crs::{Crs, Reprojector};
use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::{stream_schedule_in_blocks, Progress};
use serde_json::{json, Map};

use crate::common::{fresh_dir, read_rows, skip_unless_ci, Row};

const AS_OF: &str = "2027-01-15";

/// A copy of the sample county in a fresh folder, removed when dropped.
struct County(PathBuf);

impl std::ops::Deref for County {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for County {
    fn drop(&mut self) {
        fs::remove_dir_all(&self.0).ok();
    }
}

/// The sample county, copied into a fresh folder.
fn sample_copy(label: &str) -> County {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let to = fresh_dir(&format!("layer-checks-{label}"));
    for entry in fs::read_dir(&from).expect("data/sample") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            fs::copy(&path, to.join(path.file_name().expect("name"))).expect("copy");
        }
    }
    County(to)
}

/// `lakeshore schedule` on the county in `dir`, writing to `dir/out`, with `extra` flags.
fn schedule(dir: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg("schedule")
        .arg("--config")
        .arg(dir.join("county.toml"))
        .args(["--as-of", AS_OF, "--out"])
        .arg(dir.join("out"))
        .args(extra)
        .output()
        .expect("lakeshore runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The schedule rows of a run that succeeded (exit 0 or 2).
fn rows(dir: &Path, output: &Output) -> Vec<Row> {
    assert!(matches!(output.status.code(), Some(0 | 2)), "{}", stderr(output));
    read_rows(&dir.join("out/schedule.csv")).expect("schedule.csv").1
}

/// The sample's own schedule: the oracle of every run that must come out as the corrected county's.
fn sample_rows() -> Vec<Row> {
    let dir = sample_copy("oracle");
    let output = schedule(&dir, &[]);
    rows(&dir, &output)
}

/// Asserts that a run stopped with exit 1, no schedule written, and a message holding every one of `words`.
fn assert_stops(dir: &Path, output: &Output, words: &[&str]) -> String {
    let message = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(!dir.join("out/schedule.csv").exists(), "a stopped run wrote its schedule");
    for w in words {
        assert!(message.contains(w), "missing {w:?} in:\n{message}");
    }
    message
}

/// Sets the config's `layer` to `file`.
fn set_layer(dir: &Path, layer: &str, file: &str) {
    let config = fs::read_to_string(dir.join("county.toml")).expect("config");
    let lines: Vec<String> = config
        .lines()
        .map(|l| {
            if l.starts_with(&format!("{layer} = ")) {
                format!("{layer} = {file:?}")
            } else {
                l.to_string()
            }
        })
        .collect();
    fs::write(dir.join("county.toml"), lines.join("\n") + "\n").expect("config");
}

/// Sets the config's parcels layer to `file`.
fn use_parcels(dir: &Path, file: &str) {
    set_layer(dir, "parcels", file);
}

/// The sample's parcels written as an RFC 7946 GeoJSON in longitude/latitude, as a county exports them,
/// each position written (lat, lon) when `swap`.
fn parcels_geojson(dir: &Path, swap: bool) {
    let (layer, _) = read_layer(&dir.join("parcels.shp"), &ReadOptions::default()).expect("parcels");
    let to = Reprojector::new(&layer.crs, &Crs::wgs84()).expect("reprojector");
    let position = |c: &Coord<f64>| if swap { json!([c.y, c.x]) } else { json!([c.x, c.y]) };
    let features: Vec<serde_json::Value> = layer
        .features
        .iter()
        .map(|f| {
            let Ok(Geometry::MultiPolygon(MultiPolygon(polygons))) =
                to.transform(&f.geometry.clone().expect("shape")).map(|g| match g {
                    Geometry::Polygon(p) => Geometry::MultiPolygon(MultiPolygon(vec![p])),
                    other => other,
                })
            else {
                panic!("record {} is not a polygon", f.record)
            };
            let rings = |p: &geo::Polygon<f64>| {
                std::iter::once(p.exterior())
                    .chain(p.interiors())
                    .map(|r| r.0.iter().map(position).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            };
            let coordinates: Vec<_> = polygons.iter().map(rings).collect();
            let mut properties = Map::new();
            for (name, value) in layer.fields.iter().zip(&f.values) {
                let value = match value {
                    Value::Null => serde_json::Value::Null,
                    Value::Text(t) => json!(t.as_ref()),
                    Value::Number(n) => json!(n),
                    Value::Bool(b) => json!(b),
                };
                properties.insert(name.clone(), value);
            }
            json!({"type": "Feature", "properties": properties,
                   "geometry": {"type": "MultiPolygon", "coordinates": coordinates}})
        })
        .collect();
    let collection = json!({"type": "FeatureCollection", "features": features});
    fs::write(dir.join("parcels.geojson"), serde_json::to_string(&collection).expect("json")).expect("write");
    use_parcels(dir, "parcels.geojson");
}

/// The columns a schedule row is compared by: everything the law and the location make of the parcel.
const COMPARED: [&str; 12] = [
    "parcel_id",
    "tier",
    "rule",
    "next_due",
    "status",
    "town",
    "water_body",
    "borders_mhw",
    "in_watershed",
    "flood_zone",
    "floodplain_verdict",
    "basis",
];

fn assert_same_schedule(found: &[Row], expected: &[Row]) {
    assert_eq!(found.len(), expected.len());
    for (f, e) in found.iter().zip(expected) {
        for column in COMPARED {
            assert_eq!(f[column], e[column], "{column} of parcel {}", e["parcel_id"]);
        }
        let distance = |r: &Row| r["mhw_distance_ft"].parse::<f64>().ok();
        match (distance(f), distance(e)) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 0.05, "parcel {}: {a} vs {b} ft", e["parcel_id"]),
            (a, b) => assert_eq!(a, b, "parcel {}", e["parcel_id"]),
        }
    }
}

#[test]
fn parcels_geojson_written_lat_lon_stops_naming_the_parcels_and_the_swap() {
    // Written lon,lat, the same file schedules as the sample.
    let dir = sample_copy("lonlat");
    parcels_geojson(&dir, false);
    let output = schedule(&dir, &[]);
    assert_same_schedule(&rows(&dir, &output), &sample_rows());
    let dir = sample_copy("latlon");
    parcels_geojson(&dir, true);
    let output = schedule(&dir, &[]);
    assert_stops(
        &dir,
        &output,
        &["parcels.geojson", "parcels layer is the likely culprit", "swapped", "longitude", "latitude"],
    );
}

#[test]
fn a_metre_crs_assumed_for_parcels_in_feet_stops_naming_both_units() {
    let dir = sample_copy("assume-metres");
    fs::remove_file(dir.join("parcels.prj")).expect("remove .prj");
    let output = schedule(&dir, &["--assume-crs", "EPSG:26918"]);
    assert_stops(&dir, &output, &["parcels", "likely culprit", "EPSG:26918", "metres", "feet", "EPSG:2261"]);
}

#[test]
fn a_reference_layer_with_the_neighbouring_zone_prj_stops_naming_the_zone() {
    for (layer, prj) in [("floodplain", "floodplain.prj"), ("watershed", "watershed.prj")] {
        let dir = sample_copy(&format!("zone-{layer}"));
        // The watershed is written in degrees: re-project it into New York Central feet first, as a county
        // keeping its layers in State Plane would, then label it New York West (EPSG:2262).
        if layer == "watershed" {
            reproject_shapefile(&dir.join("watershed.shp"), &Crs::ny_central_ftus());
        }
        let west = Crs::parse("EPSG:2262").expect("EPSG:2262").wkt().expect("WKT");
        fs::write(dir.join(prj), west).expect("write .prj");
        let output = schedule(&dir, &[]);
        let message =
            assert_stops(&dir, &output, &[&format!("{layer} layer"), "EPSG:2262", "zone", "EPSG:2261"]);
        assert!(message.contains("neighbouring zone EPSG:2261"), "{message}");
        assert!(!message.contains("parcels layer is the likely culprit"), "{message}");
    }
}

/// The parcels read in blocks of 7 records, as a large county's are, with a floodplain labelled New York
/// West: no block meets the floodplain, so the run stops once the last block is in, naming the layer.
#[test]
fn a_layer_no_block_of_parcels_meets_stops_the_run_in_blocks() {
    let dir = sample_copy("zone-blocks");
    let west = Crs::parse("EPSG:2262").expect("EPSG:2262").wkt().expect("WKT");
    fs::write(dir.join("floodplain.prj"), west).expect("write .prj");
    let file = ConfigFile::load(&dir.join("county.toml")).expect("config");
    let config = Config::new(file, AS_OF.parse::<NaiveDate>().expect("date")).expect("config");
    let run = stream_schedule_in_blocks(&config, &Progress::default(), 7, &mut |_, _| Ok(()));
    let message = run.expect_err("the run stops").to_string();
    assert!(message.contains("floodplain layer") && message.contains("EPSG:2262"), "{message}");
}

/// Rewrites the shapefile at `path` with its coordinates reprojected into `to` and a `.prj` to say so.
fn reproject_shapefile(path: &Path, to: &Crs) {
    let (layer, _) = read_layer(path, &ReadOptions::default()).expect("layer");
    let r = Reprojector::new(&layer.crs, to).expect("reprojector");
    let mut shp = fs::read(path).expect(".shp");
    let shx = fs::read(path.with_extension("shx")).expect(".shx");
    for (i, feature) in layer.features.iter().enumerate() {
        let projected = r.transform(feature.geometry.as_ref().expect("shape")).expect("reprojects");
        let offset =
            u32::from_be_bytes(shx[100 + 8 * i..104 + 8 * i].try_into().expect("4 bytes")) as usize * 2;
        let content = offset + 8;
        let parts = u32::from_le_bytes(shp[content + 36..content + 40].try_into().expect("4")) as usize;
        let points = u32::from_le_bytes(shp[content + 40..content + 44].try_into().expect("4")) as usize;
        let mut at = content + 44 + 4 * parts;
        // The reader's rings hold the file's points in the file's order.
        let coords: Vec<Coord<f64>> = geo::CoordsIter::coords_iter(&projected).collect();
        assert_eq!(coords.len(), points, "record {}", feature.record);
        for c in coords {
            shp[at..at + 8].copy_from_slice(&c.x.to_le_bytes());
            shp[at + 8..at + 16].copy_from_slice(&c.y.to_le_bytes());
            at += 16;
        }
    }
    fs::write(path, shp).expect("write .shp");
    fs::write(path.with_extension("prj"), to.wkt().expect("WKT")).expect("write .prj");
}

/// Sets one coordinate of the `point`th point of record `record` of the polygon shapefile at `path`.
fn set_vertex(path: &Path, record: usize, point: usize, x: f64) {
    let mut shp = fs::read(path).expect(".shp");
    let shx = fs::read(path.with_extension("shx")).expect(".shx");
    let i = record - 1;
    let offset = u32::from_be_bytes(shx[100 + 8 * i..104 + 8 * i].try_into().expect("4 bytes")) as usize * 2;
    let content = offset + 8;
    let parts = u32::from_le_bytes(shp[content + 36..content + 40].try_into().expect("4")) as usize;
    let at = content + 44 + 4 * parts + 16 * point;
    shp[at..at + 8].copy_from_slice(&x.to_le_bytes());
    fs::write(path, shp).expect("write .shp");
}

#[test]
fn a_vertex_at_1e300_leaves_its_parcel_unscheduled_and_the_rest_as_the_sample() {
    let dir = sample_copy("far-vertex");
    let expected = sample_rows();
    // Record 9, 054689-130.00-1-1, is a county (7-year) parcel.
    let id = "054689-130.00-1-1";
    assert_eq!(expected.iter().find(|r| r["parcel_id"] == id).expect("in the sample")["cycle_years"], "7");
    set_vertex(&dir.join("parcels.shp"), 9, 1, 1e300);
    let output = schedule(&dir, &[]);
    let found = rows(&dir, &output);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(found.len(), expected.len());
    let row = found.iter().find(|r| r["parcel_id"] == id).expect("still listed");
    assert_eq!(row["tier"], "unscheduled", "{row:?}");
    assert!(row["reason"].contains("area of use"), "{row:?}");
    let problems = fs::read_to_string(dir.join("out/problems.csv")).expect("problems.csv");
    let line = problems.lines().find(|l| l.contains("area of use")).unwrap_or_else(|| panic!("{problems}"));
    assert!(line.contains("parcels.shp,record 9,"), "{line}");
    assert!(!problems.contains("self-intersection"), "{problems}");
    let (rest, expected_rest): (Vec<Row>, Vec<Row>) = (
        found.into_iter().filter(|r| r["parcel_id"] != id).collect(),
        expected.into_iter().filter(|r| r["parcel_id"] != id).collect(),
    );
    assert_same_schedule(&rest, &expected_rest);
}

/// The systems GeoJSON of `dir` with system `index` (0-based) moved `dx` ft east in EPSG:2261, or removed.
fn edit_system(dir: &Path, index: usize, dx: Option<f64>) -> (String, Point<f64>) {
    let path = dir.join("systems.geojson");
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("systems")).expect("json");
    let features = doc["features"].as_array_mut().expect("features");
    let parcel = features[index]["properties"]["PARCEL_ID"].as_str().expect("id").to_string();
    let lonlat = &features[index]["geometry"]["coordinates"];
    let (lon, lat) = (lonlat[0].as_f64().expect("lon"), lonlat[1].as_f64().expect("lat"));
    let to = Reprojector::new(&Crs::wgs84(), &Crs::ny_central_ftus()).expect("reprojector");
    let back = Reprojector::new(&Crs::ny_central_ftus(), &Crs::wgs84()).expect("reprojector");
    let Ok(Geometry::Point(at)) = to.transform(&Geometry::Point(Point::new(lon, lat))) else {
        panic!("point")
    };
    let moved = Point::new(at.x() + dx.unwrap_or(0.0), at.y());
    match dx {
        Some(_) => {
            let Ok(Geometry::Point(p)) = back.transform(&Geometry::Point(moved)) else { panic!("point") };
            features[index]["geometry"]["coordinates"] = json!([p.x(), p.y()]);
        }
        None => {
            features.remove(index);
        }
    }
    fs::write(&path, serde_json::to_string(&doc).expect("json")).expect("write");
    (parcel, moved)
}

#[test]
fn a_system_point_2000_ft_outside_its_parcel_is_reported_and_the_parcel_located_by_itself() {
    // System 2 names 054689-128.05-1-5: a parcel that touches the lake, its system 800 ft from it.
    let dir = sample_copy("stray-system");
    let (parcel, moved) = edit_system(&dir, 1, Some(2000.0));
    let output = schedule(&dir, &[]);
    let found = rows(&dir, &output);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    // The distance, from the parcel's own polygon in the shapefile.
    let (layer, _) = read_layer(&dir.join("parcels.shp"), &ReadOptions::default()).expect("parcels");
    let shape = layer
        .features
        .iter()
        .find(|f| {
            let text =
                |name: &str| layer.field_index(name).and_then(|i| f.values[i].as_text()).unwrap_or_default();
            format!("{}-{}", text("SWIS"), text("PRINT_KEY")) == parcel
        })
        .and_then(|f| f.geometry.clone().ok())
        .expect("the parcel");
    let outside = Euclidean.distance(&moved, &shape);
    assert!(outside > 1000.0, "{outside}");
    let problems = fs::read_to_string(dir.join("out/problems.csv")).expect("problems.csv");
    let line =
        problems.lines().find(|l| l.contains("systems.geojson")).unwrap_or_else(|| panic!("{problems}"));
    for words in ["record 2", parcel.as_str(), &format!("{outside:.0} ft")] {
        assert!(line.contains(words), "{words:?} in {line}");
    }
    // The oracle: the same county with that system removed.
    let oracle = sample_copy("stray-system-oracle");
    edit_system(&oracle, 1, None);
    let output = schedule(&oracle, &[]);
    assert_same_schedule(&found, &rows(&oracle, &output));
    let row = found.iter().find(|r| r["parcel_id"] == parcel).expect("listed");
    assert_eq!(row["basis"], "parcel", "{row:?}");
}

/// A file of the real data in `../shared/data/real`, or `None` (the test skipped) when it is absent outside
/// CI.
fn real(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/real").join(relative);
    if path.exists() {
        return Some(path);
    }
    skip_unless_ci(relative, &format!("{} not found", path.display()));
    None
}

/// Real layers that are not the parcels' extent: the Owasco Lake watershed from USGS StreamStats (202 mi²,
/// reaching far beyond the sample's parcels, its one polygon named by its delineation's id and mapped to the
/// lake in `[water_bodies]`) and the Census outlines of eight counties around Cayuga, as the watershed and
/// county layers, overlap the parcels; the run goes on to check the watershed for its role, and stops because
/// the layer holds no watershed of Little Sodus Bay, whose shoreline the sample has. A real FEMA flood-zone
/// layer of Vernonia, Oregon, as the floodplain, overlaps nothing and stops the run, naming it.
#[test]
fn real_layers_larger_than_the_parcels_pass_and_one_of_another_state_stops() {
    let (Some(watershed), Some(counties), Some(oregon)) = (
        real("owasco-watershed-streamstats/Owasco_Lake_DA_SS/globalwatershed.shp"),
        real("us-atlas-2023-ny-counties/ny_counties_near_cayuga_cb2023_10m.geojson"),
        real("vernonia-or-floodplain/flood-hazard_flood-zones.geojson"),
    ) else {
        return;
    };
    let dir = sample_copy("real-layers");
    set_layer(&dir, "watershed", &watershed.to_string_lossy());
    set_layer(&dir, "county", &counties.to_string_lossy());
    let mut config = fs::read_to_string(dir.join("county.toml")).expect("config");
    config.push_str("[water_bodies]\n\"Owasco Lake\" = [\"NY20230301214720579000\"]\n");
    fs::write(dir.join("county.toml"), config).expect("config");
    let output = schedule(&dir, &[]);
    assert_stops(&dir, &output, &["globalwatershed.shp", "no watershed of Little Sodus Bay"]);
    assert!(!stderr(&output).contains("does not overlap"), "{}", stderr(&output));
    assert!(!stderr(&output).contains("Owasco Lake lies partly outside"), "{}", stderr(&output));
    set_layer(&dir, "floodplain", &oregon.to_string_lossy());
    fs::remove_dir_all(dir.join("out")).ok();
    let output = schedule(&dir, &[]);
    assert_stops(
        &dir,
        &output,
        &["floodplain layer", "flood-hazard_flood-zones.geojson", "x -123.", "EPSG:4326"],
    );
}

/// A reference feature with a vertex at 1e300 is reported and left out; the run goes on.
#[test]
fn a_reference_feature_with_a_vertex_at_1e300_is_reported_and_not_used() {
    let dir = sample_copy("far-reference");
    set_vertex(&dir.join("floodplain.shp"), 1, 1, 1e300);
    let output = schedule(&dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let problems = fs::read_to_string(dir.join("out/problems.csv")).expect("problems.csv");
    let line = problems
        .lines()
        .find(|l| l.contains("floodplain.shp,record 1,") && l.contains("area of use"))
        .unwrap_or_else(|| panic!("{problems}"));
    assert!(line.contains("not used"), "{line}");
    assert_eq!(rows(&dir, &output).len(), sample_rows().len());
}

/// A watershed the rules place parcels by whose only feature cannot be used (a vertex written as NaN, as a
/// damaged export leaves it) stops the run naming its record and why, not as if the layer lacked its name.
#[test]
fn a_watershed_whose_feature_cannot_be_used_stops_naming_its_record() {
    let dir = sample_copy("unusable-watershed");
    // Record 2 of the sample's watershed.dbf is LITTLE SODUS BAY.
    set_vertex(&dir.join("watershed.shp"), 2, 1, f64::NAN);
    let output = schedule(&dir, &[]);
    let error =
        assert_stops(&dir, &output, &["watershed.shp", "the watershed of Little Sodus Bay", "record 2"]);
    assert!(error.contains("non-finite coordinate"), "{error}");
    assert!(!error.contains("set [fields] watershed_name"), "{error}");
}

/// A shoreline layer that holds only one of the rule set's two lakes (a county bordering one, or an export
/// that left the other out): the run says which lake it has no line of, since a parcel on that lake's shore
/// is scheduled as inland. The sample, which holds both, says nothing of the kind.
#[test]
fn a_shoreline_without_a_lake_of_the_rule_set_is_noted() {
    let note = "shoreline.geojson: no usable line of Little Sodus Bay, which the rule set measures from";
    let dir = sample_copy("shoreline-one-lake");
    let path = dir.join("shoreline.geojson");
    let mut layer: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let features = layer["features"].as_array_mut().unwrap();
    features.retain(|f| f["properties"]["NAME"] != "Little Sodus Bay");
    assert_eq!(features.len(), 1);
    fs::write(&path, layer.to_string()).unwrap();
    // Notes are printed with the run's summary, on standard output.
    let said = |output: &Output| String::from_utf8_lossy(&output.stdout).into_owned();
    let output = schedule(&dir, &[]);
    assert!(said(&output).contains(note), "{}", said(&output));
    assert_eq!(rows(&dir, &output).len(), sample_rows().len());

    let dir = sample_copy("shoreline-both-lakes");
    let output = schedule(&dir, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!said(&output).contains("no usable line of"), "{}", said(&output));
}

/// The sample's systems layer with the bottom elevations of the systems `ids` (all when empty) given in
/// metres, rounded to the centimetre as a survey in metres gives them.
fn bottoms_in_metres(dir: &Path, ids: &[&str]) {
    let path = dir.join("systems.geojson");
    let mut layer: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    for feature in layer["features"].as_array_mut().unwrap() {
        let properties = feature["properties"].as_object_mut().unwrap();
        let chosen = ids.is_empty() || ids.contains(&properties["SYSTEM_ID"].as_str().unwrap());
        if let (true, Some(feet)) = (chosen, properties["BOTTOM_FT"].as_f64()) {
            properties.insert("BOTTOM_FT".into(), json!((feet * 0.3048 * 100.0).round() / 100.0));
        }
    }
    fs::write(&path, layer.to_string()).unwrap();
}

/// Bottom elevations surveyed in metres under a field the county calls feet put every floodplain system some
/// 500 ft below its flood elevation, and every verdict "below": the run says the unit is likely wrong, on the
/// field, with the first parcel's figures. By hand: S-0007 (lot 191.00-1-2) has its bottom at 718.5 ft,
/// 219.00 m, against Owasco Lake's 717.13 ft: 498 ft below it, and 718.5 ft read as metres. The sample in
/// feet has no such warning (it runs clean).
#[test]
fn bottom_elevations_in_metres_are_told_on_the_field() {
    let line = metres_warning("one", &["S-0007"]);
    assert!(line.contains("systems.geojson,field BOTTOM_FT,"), "{line}");
    assert!(line.contains("1 system in a flood zone has"), "{line}");
    assert!(line.contains("parcel 054289-191.00-1-2: 219 against 717.13 ft, 718.5 ft as metres"), "{line}");

    // Every bottom in metres: the example is the first parcel by id of those in a flood zone, 191.00-1-1
    // (S-0006, 720 ft: 219.46 m), of six with lots 191.00-1-2, 157.00-1-1, 122.18-1-12, 10.07-1-1 and
    // 10.07-1-2.
    let line = metres_warning("all", &[]);
    assert!(line.contains("parcel 054289-191.00-1-1: 219.46 against 717.13 ft"), "{line}");
    let count = line.split(" system").next().and_then(|n| n.rsplit(',').next()).unwrap();
    let count: usize = count.trim_start_matches('"').parse().unwrap();
    assert_eq!(count, 6, "{line}");
}

/// The line of `problems.csv` about bottoms in metres, after a run of the sample with the bottoms of the
/// systems `ids` (all when empty) in metres, which exits 2 with every parcel listed.
fn metres_warning(label: &str, ids: &[&str]) -> String {
    let dir = sample_copy(&format!("bottoms-in-metres-{label}"));
    bottoms_in_metres(&dir, ids);
    let output = schedule(&dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(rows(&dir, &output).len(), sample_rows().len());
    let problems = fs::read_to_string(dir.join("out/problems.csv")).expect("problems.csv");
    let line = problems.lines().find(|l| l.contains("likely in metres"));
    line.unwrap_or_else(|| panic!("{problems}")).to_string()
}

/// A reference layer the config names but that holds no feature (an export of an empty selection): the run
/// warns, naming the layer, instead of scheduling as if the county had no sewer districts; every parcel is
/// still listed.
#[test]
fn a_reference_layer_without_features_is_reported() {
    let dir = sample_copy("empty-sewered");
    fs::write(dir.join("sewered.geojson"), r#"{"type": "FeatureCollection", "features": []}"#).unwrap();
    let output = schedule(&dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let problems = fs::read_to_string(dir.join("out/problems.csv")).expect("problems.csv");
    assert!(
        problems
            .lines()
            .any(|l| l.contains("sewered.geojson") && l.contains("the sewer districts layer has no features")),
        "{problems}"
    );
    assert_eq!(rows(&dir, &output).len(), sample_rows().len());

    // A systems layer of fields but no feature (a shapefile exported from an empty selection) places no
    // system: reported, every parcel still listed. One of no field at all (an empty GeoJSON) cannot be joined
    // by any field, and says it is empty rather than which field to name.
    let dir = sample_copy("empty-systems");
    let table = shapefile::dbase::TableWriterBuilder::new()
        .add_character_field("PARCEL_ID".try_into().unwrap(), 30)
        .add_numeric_field("BOTTOM_FT".try_into().unwrap(), 10, 2);
    let shp = dir.join("systems.shp");
    drop(shapefile::Writer::from_path(&shp, table).unwrap());
    fs::copy(dir.join("parcels.prj"), dir.join("systems.prj")).unwrap();
    set_layer(&dir, "systems", "systems.shp");
    let output = schedule(&dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let problems = fs::read_to_string(dir.join("out/problems.csv")).expect("problems.csv");
    assert!(
        problems.lines().any(|l| l.contains("systems.shp,whole file,") && l.contains("has no features")),
        "{problems}"
    );
    assert_eq!(rows(&dir, &output).len(), sample_rows().len());
    let dir = sample_copy("empty-systems-geojson");
    fs::write(dir.join("systems.geojson"), r#"{"type": "FeatureCollection", "features": []}"#).unwrap();
    let output = schedule(&dir, &[]);
    assert_stops(&dir, &output, &["systems.geojson", "the systems layer has no fields"]);

    // The county's boundary without a feature would put every parcel outside the county: the run stops.
    let dir = sample_copy("empty-county");
    fs::write(dir.join("county.geojson"), r#"{"type": "FeatureCollection", "features": []}"#).unwrap();
    let output = schedule(&dir, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let told = stderr(&output);
    assert!(told.contains("county.geojson") && told.contains("the county layer has no features"), "{told}");
}
