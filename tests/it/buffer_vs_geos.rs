//! The buffer polygon (`lakeshore::geom::buffer`) against GEOS's, through shapely 2 (`bench/geos_buffer.py`):
//! on a 20,000-vertex lake like the bench county's (as a polygon and as a line), on the real outlines of
//! Little Sodus Bay, Owasco Lake and the Owasco Lake watershed (`../shared/data/real`), the symmetric
//! difference of the two polygons is under 0.1 % of the band (the buffer less the source's own area). And
//! the parcels of the sample county's buffer report are those GEOS finds within 500 ft of its shoreline.
//!
//! The Python is the one in `LAKESHORE_PYTHON`, else `~/.cache/lakeshore-ci-venv/bin/python` (where
//! `.ci/run` installs shapely), else `python3`. Without shapely the tests print that they are skipped,
//! except in CI (the environment variable `CI` set), where they fail.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::NaiveDate;
use geo::{Coord, Geometry, LineString, Polygon};
use lakeshore::crs::Crs;
use lakeshore::geom::buffer::buffer;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use lakeshore::report::buffer::{buffer_report, BufferSource};

use crate::common;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/geos_buffer.py");

/// A Python with shapely 2, or `None` after saying the test is skipped (a failure in CI).
fn python(test: &str) -> Option<PathBuf> {
    let venv = std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/lakeshore-ci-venv/bin/python"));
    let candidates = std::env::var_os("LAKESHORE_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain(venv.filter(|p| p.is_file()))
        .chain([PathBuf::from("python3")]);
    for python in candidates {
        let ok = Command::new(&python)
            .args(["-c", "import shapely; assert int(shapely.__version__.split('.')[0]) >= 2"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(python);
        }
    }
    common::skip_unless_ci(test, "no Python with shapely 2 (set LAKESHORE_PYTHON, or run .ci/run once)");
    None
}

/// Well-known text of a geometry (the kinds a shoreline or a buffer has), every coordinate to the bit.
fn wkt(geometry: &Geometry<f64>) -> String {
    fn ring(out: &mut String, line: &LineString<f64>) {
        out.push('(');
        for (i, c) in line.0.iter().enumerate() {
            let _ = write!(out, "{}{:?} {:?}", if i == 0 { "" } else { "," }, c.x, c.y);
        }
        out.push(')');
    }
    fn polygon(out: &mut String, p: &Polygon<f64>) {
        out.push('(');
        for (i, r) in std::iter::once(p.exterior()).chain(p.interiors()).enumerate() {
            if i > 0 {
                out.push(',');
            }
            ring(out, r);
        }
        out.push(')');
    }
    let mut out = String::new();
    match geometry {
        Geometry::LineString(l) => {
            out.push_str("LINESTRING");
            ring(&mut out, l);
        }
        Geometry::Polygon(p) => {
            out.push_str("POLYGON");
            polygon(&mut out, p);
        }
        Geometry::MultiPolygon(mp) if mp.0.is_empty() => out.push_str("MULTIPOLYGON EMPTY"),
        Geometry::MultiPolygon(mp) => {
            out.push_str("MULTIPOLYGON(");
            for (i, p) in mp.0.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                polygon(&mut out, p);
            }
            out.push(')');
        }
        other => panic!("no WKT here for {other:?}"),
    }
    out
}

/// Runs the script in `python` and returns what it printed.
fn script(python: &Path, args: &[&str]) -> String {
    let output = Command::new(python).arg(SCRIPT).args(args).output().expect("the GEOS script runs");
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// Our buffer of `source` at `distance` against GEOS's: the symmetric difference's share of the band.
fn compare(python: &Path, what: &str, source: &[Geometry<f64>], distance: f64) -> f64 {
    let dir = common::fresh_dir("buffer-vs-geos");
    let ours = buffer(source, distance);
    assert!(!ours.0.is_empty(), "{what}: no buffer");
    let source_path = dir.join("source.wkt");
    let lines: Vec<String> = source.iter().map(wkt).collect();
    std::fs::write(&source_path, lines.join("\n")).expect("written");
    let ours_path = dir.join("ours.wkt");
    std::fs::write(&ours_path, wkt(&Geometry::MultiPolygon(ours))).expect("written");
    let printed = script(
        python,
        &["compare", &source_path.to_string_lossy(), &distance.to_string(), &ours_path.to_string_lossy()],
    );
    let found: serde_json::Value = serde_json::from_str(printed.trim()).expect("the script's JSON");
    let share = found["share"].as_f64().expect("a share");
    println!(
        "{what}: symmetric difference {:.0} of a band of {:.0}: {:.4} %",
        found["xor"],
        found["band"],
        share * 100.0
    );
    let _ = std::fs::remove_dir_all(dir);
    share
}

/// A lake of `n` vertices like the bench county's: an ellipse with ripples of four wavelengths, the shortest
/// ~100 ft, tighter than the 500-ft buffer (State Plane feet).
fn rippled_lake(n: usize) -> LineString<f64> {
    let (cx, cy, rx, ry) = (837_000.0, 1_037_000.0, 3_200.0, 5_400.0);
    let mut ring: Vec<Coord<f64>> = (0..n)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / n as f64;
            let m = 1.0
                + 0.05 * (5.0 * t).sin()
                + 0.03 * (17.0 * t + 1.0).sin()
                + 0.01 * (61.0 * t + 2.0).sin()
                + 0.004 * (233.0 * t).sin();
            Coord { x: cx + rx * m * t.cos(), y: cy + ry * m * t.sin() }
        })
        .collect();
    ring.push(ring[0]);
    LineString(ring)
}

#[test]
fn a_rippled_lake_buffers_as_geos_does() {
    let Some(python) = python("a_rippled_lake_buffers_as_geos_does") else { return };
    let shore = rippled_lake(20_000);
    let lake = Geometry::Polygon(Polygon::new(shore.clone(), vec![]));
    assert!(compare(&python, "20,000-vertex lake", &[lake], 500.0) < 0.001);
    // The same shore as a line: the band on both sides of it.
    assert!(compare(&python, "20,000-vertex shore line", &[Geometry::LineString(shore)], 500.0) < 0.001);
}

/// The polygon features of a real layer, in EPSG:2261 feet.
fn real_polygons(relative: &str, name: Option<&str>) -> Option<Vec<Geometry<f64>>> {
    let path = crate::real_data::data(relative)?;
    let layer = crate::real_data::projected(&path, &Crs::parse("EPSG:2261").expect("EPSG:2261"));
    let field = name.map(|_| layer.field_index("name").expect("a name field"));
    let found: Vec<Geometry<f64>> = layer
        .features
        .iter()
        .filter(|f| field.is_none_or(|i| f.values[i].as_text().as_deref() == name))
        .filter_map(|f| f.geometry.as_ref().ok().cloned())
        .collect();
    assert!(!found.is_empty(), "{relative}: no feature {name:?}");
    Some(found)
}

#[test]
fn real_lakes_buffer_as_geos_does() {
    let Some(python) = python("real_lakes_buffer_as_geos_does") else { return };
    let cases = [
        ("Little Sodus Bay", "lake-ontario-ny-bays-spsurvey/little_sodus_bay_wgs84.geojson", None),
        (
            "Owasco Lake",
            "gshhs-finger-lakes/gshhs_f_finger_lakes_and_lake_ontario.geojson",
            Some("Owasco Lake"),
        ),
        (
            "Owasco Lake watershed (10,900 vertices)",
            "owasco-watershed-streamstats/Owasco_Lake_DA_SS/globalwatershed.shp",
            None,
        ),
    ];
    for (what, relative, name) in cases {
        let Some(source) = real_polygons(relative, name) else { return };
        for distance in [100.0, 500.0] {
            let share = compare(&python, &format!("{what} at {distance} ft"), &source, distance);
            assert!(share < 0.001, "{what} at {distance} ft: {share}");
        }
    }
}

/// The sample county's buffer report lists exactly the parcels GEOS finds within 500 ft of the shoreline
/// (a parcel inside a lake polygon being at distance 0); a parcel within 0.01 ft of the line may go either way.
#[test]
fn the_buffer_inventory_is_the_parcels_geos_finds_within_the_distance() {
    let Some(python) = python("the_buffer_inventory_is_the_parcels_geos_finds_within_the_distance") else {
        return;
    };
    let county = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let file = ConfigFile::load(&county).expect("the sample config");
    let config = Config::new(file, NaiveDate::from_ymd_opt(2027, 1, 15).expect("a date")).expect("a config");
    let run = run_schedule(&config).expect("the schedule runs");
    let (report, _) = buffer_report(&run, &config, &BufferSource::Shoreline, 500.0, &[]).expect("a report");
    let mut ours: Vec<String> =
        report.hits.iter().filter(|h| h.kind == "parcel").map(|h| h.id.clone()).collect();
    ours.sort();

    let dir = common::fresh_dir("buffer-inventory-vs-geos");
    let shore: Vec<String> = run.reference.mean_high_water().map(|(g, _)| wkt(g)).collect();
    std::fs::write(dir.join("shore.wkt"), shore.join("\n")).expect("written");
    let mut parcels = String::new();
    for row in &run.rows {
        if let Some(shape) = &row.parcel.shape {
            let _ = writeln!(parcels, "{}\t{}", row.parcel.id, wkt(&Geometry::MultiPolygon(shape.clone())));
        }
    }
    std::fs::write(dir.join("parcels.tsv"), parcels).expect("written");
    let printed = script(
        &python,
        &[
            "within",
            &dir.join("shore.wkt").to_string_lossy(),
            "500",
            &dir.join("parcels.tsv").to_string_lossy(),
        ],
    );
    let (borderline, theirs): (Vec<&str>, Vec<&str>) = printed.lines().partition(|l| l.starts_with('~'));
    let borderline: Vec<&str> = borderline.iter().map(|l| &l[1..]).collect();
    let ours_clear: Vec<&str> =
        ours.iter().map(String::as_str).filter(|id| !borderline.contains(id)).collect();
    assert!(theirs.len() > 5, "the sample has lakefront and near-shore parcels: {theirs:?}");
    assert_eq!(ours_clear, theirs);
    let _ = std::fs::remove_dir_all(dir);
}
