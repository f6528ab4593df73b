//! The two CRS backends agree: every vertex of every sample layer, and of the real Owasco Lake watershed
//! outline, lands within 0.01 ft in EPSG:2261 whether proj4rs or PROJ 9 computes it.
//!
//! Runs only with `cargo test --features proj`. GeoJSON is read with serde_json directly so that this test
//! depends on nothing but the CRS module.
#![cfg(feature = "proj")]

use std::path::{Path, PathBuf};

use lakeshore::crs::backend::{Backend, Proj4rs, ProjBackend};
use lakeshore::crs::Crs;

/// The agreement required, in US survey feet.
const TOLERANCE_FT: f64 = 0.01;

/// Feet per degree of latitude (approximately), to compare geographic results in feet.
const FT_PER_DEGREE: f64 = 364_000.0;

/// Every position (`[x, y, ...]`) in a GeoJSON value.
fn positions(value: &serde_json::Value, out: &mut Vec<(f64, f64)>) {
    if let Some(array) = value.as_array() {
        match (array.first().and_then(|v| v.as_f64()), array.get(1).and_then(|v| v.as_f64())) {
            (Some(x), Some(y)) => out.push((x, y)),
            _ => array.iter().for_each(|v| positions(v, out)),
        }
    }
}

/// The CRS a GeoJSON file declares in its (pre-RFC 7946) `crs` member, WGS 84 otherwise, and its vertices.
fn read_geojson(path: &Path) -> (Crs, Vec<(f64, f64)>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let crs = match json.pointer("/crs/properties/name").and_then(|n| n.as_str()) {
        Some(name) => Crs::parse_from(path, name).unwrap_or_else(|e| panic!("{e}")),
        None => Crs::wgs84(),
    };
    let mut vertices = Vec::new();
    for feature in json["features"].as_array().into_iter().flatten() {
        positions(&feature["geometry"]["coordinates"], &mut vertices);
        for g in feature["geometry"]["geometries"].as_array().into_iter().flatten() {
            positions(&g["coordinates"], &mut vertices);
        }
    }
    (crs, vertices)
}

/// The largest difference in feet between the backends over `vertices`, failing on any disagreement.
fn compare(name: &str, from: &Crs, to: &Crs, vertices: &[(f64, f64)]) -> f64 {
    let rust = Proj4rs::new(from, to).unwrap_or_else(|e| panic!("{name}: proj4rs: {e}"));
    let proj = ProjBackend::new(from, to).unwrap_or_else(|e| panic!("{name}: PROJ: {e}"));
    let geographic = to.is_geographic().unwrap();
    let mut worst: f64 = 0.0;
    for &(x, y) in vertices {
        match (rust.transform_point(x, y), proj.transform_point(x, y)) {
            (Ok(a), Ok(b)) => {
                let (dx, dy) = (a.0 - b.0, a.1 - b.1);
                let d = if geographic {
                    (dx * a.1.to_radians().cos()).hypot(dy) * FT_PER_DEGREE
                } else {
                    dx.hypot(dy) * to.linear_unit().unwrap().map_or(1.0, |u| u.to_metre() / 0.3048)
                };
                assert!(d <= TOLERANCE_FT, "{name}: ({x}, {y}) → proj4rs {a:?}, PROJ {b:?}: {d} ft apart");
                worst = worst.max(d);
            }
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{name}: ({x}, {y}): proj4rs {a:?}, PROJ {b:?}"),
        }
    }
    println!("{name}: {} vertices {} → {}, largest difference {worst:.2e} ft", vertices.len(), from, to);
    worst
}

fn geojson_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            geojson_files(&path, out);
        } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("geojson")) {
            out.push(path);
        }
    }
}

#[test]
fn backends_agree_on_the_sample_county() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let mut files = Vec::new();
    geojson_files(&dir, &mut files);
    if files.is_empty() {
        println!("SKIPPED backends_agree_on_the_sample_county: no .geojson under {}", dir.display());
        return;
    }
    files.sort();
    let working = Crs::ny_central_ftus();
    for file in files {
        let (crs, vertices) = read_geojson(&file);
        let name = file.display().to_string();
        compare(&name, &crs, &working, &vertices);
        if crs == working {
            // Already in the working CRS: check the inverse direction instead of an identity.
            compare(&name, &working, &Crs::wgs84(), &vertices);
        }
    }
}

#[test]
fn backends_agree_on_the_owasco_watershed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/real/owasco-watershed-streamstats/Owasco_Lake_DA_SS/Owasco_Lake_DA_SS.geojson");
    if !path.exists() {
        println!("SKIPPED backends_agree_on_the_owasco_watershed: {} is absent", path.display());
        return;
    }
    let (crs, vertices) = read_geojson(&path);
    assert!(vertices.len() > 10_000, "{} vertices", vertices.len());
    let working = Crs::ny_central_ftus();
    compare("Owasco Lake watershed", &crs, &working, &vertices);
    // And through UTM (metres) and web Mercator, the other CRSs county data arrives in.
    for other in ["EPSG:26918", "EPSG:3857"] {
        let other = Crs::parse(other).unwrap();
        compare("Owasco Lake watershed", &crs, &other, &vertices);
        let there = Proj4rs::new(&crs, &other).unwrap();
        let moved: Vec<(f64, f64)> =
            vertices.iter().map(|&(x, y)| there.transform_point(x, y).unwrap()).collect();
        compare("Owasco Lake watershed", &other, &working, &moved);
    }
}

#[test]
fn proj_matches_the_oracle_with_longitude_first() {
    // pyproj 3.7.2 / PROJ 9.5.1: EPSG:4326 (-76.5663, 42.9317) → EPSG:2261 (824769.888773, 1068183.742266).
    let proj = ProjBackend::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
    let (x, y) = proj.transform_point(-76.5663, 42.9317).unwrap();
    assert!((x - 824769.888773).abs() < 1e-3 && (y - 1068183.742266).abs() < 1e-3, "({x}, {y})");
    // Axis order is longitude first in both, whatever EPSG:4326 declares.
    let rust = Proj4rs::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
    assert_eq!(rust.transform_point(-76.5663, 42.9317).map(|(x, _)| x.round()), Ok(x.round()));
}
