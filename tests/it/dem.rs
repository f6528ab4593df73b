//! The mean-high-water line from a DEM (Art. V §II.22): the sample county with its DEM
//! (`data/sample/county-dem.toml`), whose 717.13 ft contour lies 40 ft outside the shoreline layer's polygon,
//! against `tests/golden/sample-dem/expected.csv` (worked by hand from that 40 ft and the lots' designed
//! coordinates); and real DEMs in `../shared/data/real/`: Lake Rotomā (water flattened at 313.3 m, with the
//! lake's own shoreline) and three Wisconsin lakes (gauged levels and the area below each elevation).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use geo::{Coord, Geometry};
use lakeshore::crs::Crs;
use lakeshore::formats::dem::Dem;
use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::geom::contour::{contours, signed_area_2, Grid};
use lakeshore::geom::index::{push_pieces, LineIndex};
use lakeshore::geom::planar::{interior_point, polygons};
use lakeshore::pipeline::reference::mhw::choose_ring;

use crate::common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn by_id(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let (_, rows) = common::read_rows(path).unwrap_or_else(|e| panic!("{e}"));
    rows.into_iter().map(|r| (r["parcel_id"].clone(), r)).collect()
}

#[test]
fn the_sample_with_its_dem_schedules_from_the_contour() {
    let out = common::fresh_dir("dem-sample");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config"])
        .arg(root().join("data/sample/county-dem.toml"))
        .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr =
        String::from_utf8_lossy(&output.stderr).to_string() + &String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let got = by_id(&out.join("schedule.csv"));
    let expected = by_id(&root().join("tests/golden/sample-dem/expected.csv"));
    for (id, row) in &expected {
        let have = got.get(id).unwrap_or_else(|| panic!("{id} missing"));
        for (column, value) in row.iter().filter(|(c, _)| *c != "note") {
            assert_eq!(&have[column], value, "{id} {column} ({})", row["note"]);
        }
    }
    // Every other parcel keeps the tier and dates worked by hand for the sample without a DEM.
    let sample = by_id(&root().join("tests/golden/sample/expected.csv"));
    for (id, row) in sample.iter().filter(|(id, _)| !expected.contains_key(*id)) {
        for column in ["tier", "cycle_years", "previous_due", "next_due", "status", "floodplain_verdict"] {
            assert_eq!(&got[id][column], &row[column], "{id} {column}");
        }
        let source = got[id]["mhw_source"].as_str();
        let water = got[id]["water_body"].as_str();
        let want = match water {
            "Owasco Lake" => "dem 717.13 ft",
            "Little Sodus Bay" => "shoreline layer",
            _ => "",
        };
        assert_eq!(source, want, "{id} near {water:?}");
        // No other system in a flood zone lacks a surveyed bottom: nothing else is screened.
        assert_eq!(got[id]["floodplain_screening"], "", "{id}");
    }
    // The check against the shoreline layer: 40 ft on the straight shores, and the two parcels it moves.
    assert!(stderr.contains("vertices lie 40.0 ft on average"), "{stderr}");
    assert!(
        stderr.contains("(2 of them): 054689-128.05-1-3 (lakefront; near-shore by the shoreline layer), 054689-128.05-1-6 (near-shore; watershed by the shoreline layer)"),
        "{stderr}"
    );
    assert!(stderr.contains("Little Sodus Bay: the DEM") && stderr.contains("does not reach it"), "{stderr}");
}

#[test]
fn without_a_dem_the_schedule_has_no_mhw_source_column() {
    let out = common::fresh_dir("dem-none");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config"])
        .arg(root().join("data/sample/county.toml"))
        .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let (header, _) = common::read_rows(&out.join("schedule.csv")).unwrap();
    assert!(!header.iter().any(|h| h == "mhw_source"));
}

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/real");

fn data(relative: &str) -> Option<PathBuf> {
    let path = Path::new(REAL).join(relative);
    if path.exists() {
        Some(path)
    } else {
        common::skip_unless_ci(relative, &format!("{} not found", path.display()));
        None
    }
}

#[test]
fn lake_rotoma_contour_follows_its_shoreline_within_a_pixel_or_two() {
    let Some(dir) = data("dem-rotoma-nz") else { return };
    let dem = Dem::open(&dir.join("dem_32m.tif")).unwrap();
    // The README: 450 × 675 pixels of 32 m, EPSG:2193, x from 1,904,800, y to 5,794,800, PixelIsArea.
    assert_eq!((dem.width, dem.height), (450, 675));
    assert_eq!(dem.crs.epsg(), Some(2193));
    assert_eq!(dem.transform, [1_904_816.0, 32.0, 0.0, 5_794_784.0, 0.0, -32.0]);
    let values = dem.read(dem.whole()).unwrap();
    // 33,750 NaN pixels, in the NE corner.
    assert_eq!(values.iter().filter(|v| v.is_nan()).count(), 33_750);
    let (shore, _) = read_layer(
        &dir.join("rotoma_shoreline_epsg2193.geojson"),
        &ReadOptions { assume_crs: Some(Crs::parse("EPSG:2193").unwrap()), keep: None },
    )
    .unwrap();
    let shore = shore.features[0].geometry.clone().unwrap();
    let point = interior_point(&match &shore {
        Geometry::Polygon(p) => geo::MultiPolygon(vec![p.clone()]),
        Geometry::MultiPolygon(m) => m.clone(),
        other => panic!("{other:?}"),
    })
    .unwrap();
    // The water is flattened at 313.3 (as a 32-bit float); the land around it is above.
    let grid = Grid { width: dem.width, height: dem.height, values: &values, transform: dem.transform };
    let level = f64::from(313.3f32);
    let lake = choose_ring(&contours(&grid, level), Some(Coord { x: point[0], y: point[1] }), false).unwrap();
    let mut pieces = Vec::new();
    for p in polygons(&shore).unwrap() {
        push_pieces(p.exterior().0.iter().copied(), 0, &mut pieces);
    }
    let index = LineIndex::within(pieces, 2000.0);
    let mut d: Vec<f64> = lake
        .exterior()
        .0
        .iter()
        .map(|c| index.nearest_to_point([c.x, c.y], 2000.0).map_or(2000.0, |h| h.distance_ft))
        .collect();
    d.sort_by(f64::total_cmp);
    let share = |limit: f64| d.iter().filter(|&&x| x <= limit).count() as f64 / d.len() as f64;
    // The README measured the flat region's edge 28 m from the shoreline at the median and 54 m at the 95th
    // percentile, with the unflattened bays (about 0.72 km²) beyond: the contour through the edge pixels'
    // centres lies within a pixel or two of the outline along most of the lake.
    let median = d[d.len() / 2];
    assert!(median <= 48.0, "median {median} m");
    assert!(share(64.0) >= 0.85, "within 2 pixels: {}", share(64.0));
    // The lake: 10,203 flat pixels of 1,024 m² (10.45 km²) — the contour through the outer flat centres
    // encloses less than that, by at most half a pixel along its length.
    let area = signed_area_2(lake.exterior()).abs() / 2.0;
    let perimeter: f64 = lake.exterior().0.windows(2).map(|w| (w[1].x - w[0].x).hypot(w[1].y - w[0].y)).sum();
    let flat = 10_203.0 * 1024.0;
    assert!(
        area <= flat && area >= flat - perimeter * 32.0,
        "area {area}, flat {flat}, perimeter {perimeter}"
    );
}

/// The area the table gives at `elev_m` for `lake`, interpolated between its rows.
fn table_area(table: &str, lake: &str, elev_m: f64) -> f64 {
    let rows: Vec<(f64, f64)> = table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0] == lake).then(|| (f[1].parse().unwrap(), f[2].parse().unwrap()))
        })
        .collect();
    let i = rows.iter().position(|r| r.0 > elev_m).unwrap();
    let (a, b) = (rows[i - 1], rows[i]);
    a.1 + (b.1 - a.1) * (elev_m - a.0) / (b.0 - a.0)
}

#[test]
fn central_sands_lakes_enclose_the_tables_area_at_their_highest_gauged_level() {
    let Some(dir) = data("dem-central-sands-wi") else { return };
    let table = std::fs::read_to_string(dir.join("elev_area_vol_2020_09_04.csv")).unwrap();
    // The gauges' highest levels (README) and each raster's pixel.
    for (lake, file, level, pixel) in [
        ("Pleasant", "psnt_raster.tif", 299.722, 5.4864),
        ("Long", "long_raster.tif", 336.685, 2.6335),
        ("Plainfield", "pfl_raster.tif", 336.459, 6.0960),
    ] {
        let dem = Dem::open(&dir.join(file)).unwrap();
        // A user-defined CRS whose WKT ArcGIS wrote into the GeoKeys' citation: Wisconsin Transverse
        // Mercator (EPSG:3071), in metres.
        assert!(dem.crs.wkt().is_some_and(|w| w.contains("520000")), "{lake}: {}", dem.crs);
        let values = dem.read(dem.whole()).unwrap();
        let grid = Grid { width: dem.width, height: dem.height, values: &values, transform: dem.transform };
        let lines = contours(&grid, level);
        let ring = choose_ring(&lines, None, true).unwrap();
        let area = |r: &geo::LineString<f64>| signed_area_2(r).abs() / 2.0;
        let inside = area(ring.exterior()) - ring.interiors().iter().map(area).sum::<f64>();
        let rings = std::iter::once(ring.exterior()).chain(ring.interiors());
        let length: f64 =
            rings.flat_map(|r| r.0.windows(2)).map(|w| (w[1].x - w[0].x).hypot(w[1].y - w[0].y)).sum();
        let expected = table_area(&table, lake, level);
        // The table counts whole pixels at or below the level; the contour runs between pixel centres, so
        // the two differ by less than a strip half a pixel wide along the line.
        assert!(
            (inside - expected).abs() <= length * pixel / 2.0,
            "{lake}: contour {inside:.0} m², table {expected:.0} m², line {length:.0} m"
        );
        assert!((inside - expected).abs() / expected < 0.05, "{lake}: {inside} vs {expected}");
    }
}

#[test]
fn init_names_the_dem_of_a_county_folder() {
    let dir = common::fresh_dir("dem-init");
    for entry in std::fs::read_dir(root().join("data/sample")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".toml") && !name.ends_with(".md") {
            std::fs::copy(&path, dir.join(&name)).unwrap();
        }
    }
    let run = Command::new(env!("CARGO_BIN_EXE_lakeshore")).arg("init").arg(&dir).output().unwrap();
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap_or_default();
    assert!(
        config.lines().any(|l| l.starts_with("dem = \"dem.tif\"")),
        "{config}\n{}",
        String::from_utf8_lossy(&run.stdout)
    );
}

/// Runs `lakeshore` on the sample with its DEM; the output's stdout and stderr on failure.
fn run_dem(args: &[&str], out: &Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(&args[..1])
        .arg("--config")
        .arg(root().join("data/sample/county-dem.toml"))
        .args(["--as-of", "2027-01-15", "--out"])
        .arg(out)
        .args(&args[1..])
        .output()
        .unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{text}");
    text
}

#[test]
fn buffer_measures_from_the_contour_or_from_the_shoreline_layer() {
    // Lot 128.05-1-6 lies 510 ft from the shoreline polygon and 470 ft from the contour 40 ft outside it.
    let dir = common::fresh_dir("dem-buffer");
    for (from, within) in [("shoreline", true), ("shoreline-layer", false)] {
        let out = dir.join(from);
        run_dem(&["buffer", "--distance", "500", "--format", "csv", "--from", from], &out);
        let (_, rows) = common::read_rows(&out.join("buffer.csv")).unwrap();
        let hit = rows.iter().find(|r| r["id"] == "054689-128.05-1-6");
        assert_eq!(hit.is_some(), within, "from {from}: {hit:?}");
        if let Some(hit) = hit {
            assert_eq!(hit["distance_ft"], "470.0");
        }
    }
}

#[test]
fn the_map_draws_the_contour_and_the_shoreline_layer_beside_it() {
    let out = common::fresh_dir("dem-map").join("map.svg");
    run_dem(&["map", "--town", "Owasco"], &out);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("Shoreline (mean high water)"), "{svg}");
    assert!(svg.contains("Shoreline layer (the check on the DEM"), "{svg}");
}

#[test]
fn a_damaged_dem_stops_the_run_naming_it_and_never_panics() {
    let dem = std::fs::read(root().join("data/sample/dem.tif")).unwrap();
    let dir = common::fresh_dir("dem-damaged");
    for entry in std::fs::read_dir(root().join("data/sample")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let mut flipped = dem.clone();
    // The first IFD's entries: a wrong type or count in the tags that place the pixels.
    for b in flipped.iter_mut().skip(8).take(200).step_by(7) {
        *b ^= 0x5a;
    }
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("cut in half", dem[..dem.len() / 2].to_vec()),
        ("cut after the header", dem[..16].to_vec()),
        ("tags flipped", flipped),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in cases {
        std::fs::write(dir.join("dem.tif"), &bytes).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .args(["schedule", "--config"])
            .arg(dir.join("county-dem.toml"))
            .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
            .arg(dir.join("out"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert_eq!(output.status.code(), Some(1), "{what}: {stderr}");
        assert!(stderr.contains("dem.tif"), "{what}: {stderr}");
    }
}
