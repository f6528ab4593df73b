//! The sample county's DEM (`dem.tif`) and its configuration (`county-dem.toml`): ground around Owasco Lake
//! rising 1 ft in 20 away from the shoreline layer's polygon, so that the 717.13 ft contour lies exactly
//! [`OFFSET_FT`] outside it, plus a kettle pond west of the lake that dips below 717.13 ft and is not the
//! lake. 100-ft pixels, Deflate-compressed 32-bit floats, EPSG:2261, elevations in feet (NAVD88 is not
//! stated: no datum, no shift).

use std::path::Path;

use anyhow::{Context, Result};
use lakeshore::formats::dem::write::{write_geotiff, GeoTiffSpec, Layout, Samples};
use lakeshore::formats::dem::VerticalUnit;

use crate::feet::Pt;

/// How far outside the shoreline layer's polygon the 717.13 ft contour lies, feet.
pub const OFFSET_FT: f64 = 40.0;
/// The ground's rise, feet per foot away from the lake.
const SLOPE: f64 = 0.05;
/// The kettle pond: its centre and the elevation of its bottom (below 717.13 within 342.6 ft of it).
const POND: (Pt, f64) = ((832_400.0, 1_036_500.0), 700.0);
/// The raster: north-west corner, pixel, columns, rows (x 831,000–843,000, y 999,000–1,071,000: down the
/// inlet flood zone, where lot 191.00-1-6 has a system without a surveyed bottom).
const ORIGIN: Pt = (831_000.0, 1_071_000.0);
const PIXEL: f64 = 100.0;
const COLS: u32 = 120;
const ROWS: u32 = 720;

/// Signed distance from `p` to the polygon `ring` (closed or not): negative inside.
fn signed_distance(p: Pt, ring: &[Pt]) -> f64 {
    let mut best = f64::INFINITY;
    let mut inside = false;
    for i in 0..ring.len() {
        let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
        best = best.min((p.0 - a.0 - t * dx).hypot(p.1 - a.1 - t * dy));
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < a.0 + (p.1 - a.1) / (b.1 - a.1) * dx {
            inside = !inside;
        }
    }
    if inside {
        -best
    } else {
        best
    }
}

/// The ground elevation at `p`, feet.
pub fn elevation(p: Pt, lake: &[Pt]) -> f64 {
    let shore = 717.13 + SLOPE * (signed_distance(p, lake) - OFFSET_FT);
    let pond = POND.1 + SLOPE * (p.0 - POND.0 .0).hypot(p.1 - POND.0 .1);
    shore.min(pond)
}

/// Writes `dem.tif` and `county-dem.toml` into `dir`.
pub fn write_dem(dir: &Path, lake: &[Pt], county_toml: &str) -> Result<()> {
    let mut values = Vec::with_capacity((COLS * ROWS) as usize);
    for r in 0..ROWS {
        for c in 0..COLS {
            let p = (ORIGIN.0 + (c as f64 + 0.5) * PIXEL, ORIGIN.1 - (r as f64 + 0.5) * PIXEL);
            values.push(elevation(p, lake) as f32);
        }
    }
    let spec = GeoTiffSpec {
        width: COLS,
        height: ROWS,
        samples: Samples::F32(&values),
        origin: [ORIGIN.0, ORIGIN.1],
        pixel: [PIXEL, PIXEL],
        epsg: 2261,
        nodata: None,
        vertical_unit: Some(VerticalUnit::UsSurveyFoot),
        vertical_cs: None,
        layout: Layout::Deflate,
    };
    let path = dir.join("dem.tif");
    let file = std::fs::File::create(&path).with_context(|| path.display().to_string())?;
    write_geotiff(std::io::BufWriter::new(file), &spec).with_context(|| path.display().to_string())?;
    let toml = format!("{county_toml}dem = \"dem.tif\"\n");
    std::fs::write(dir.join("county-dem.toml"), toml).context("county-dem.toml")?;
    Ok(())
}

/// Writes a bench county's DEM, `dem.tif`: `pixels` × `pixels` square pixels covering `bounds` (`[x0, y0, x1,
/// y1]`, EPSG:2261 feet) with `ground` at each pixel's centre, in uncompressed 256 × 256 tiles as a county's
/// GIS office keeps a large DEM; and `county-dem.toml`, `county_toml` reading it.
pub fn write_bench_dem(
    dir: &Path,
    pixels: u32,
    bounds: [f64; 4],
    ground: impl Fn(Pt) -> f64,
    county_toml: &str,
) -> Result<()> {
    let pixel = (bounds[2] - bounds[0]).max(bounds[3] - bounds[1]) / f64::from(pixels);
    let origin = (bounds[0], bounds[3]);
    let mut values = Vec::with_capacity(pixels as usize * pixels as usize);
    for r in 0..pixels {
        for c in 0..pixels {
            let p = (origin.0 + (f64::from(c) + 0.5) * pixel, origin.1 - (f64::from(r) + 0.5) * pixel);
            values.push(ground(p) as f32);
        }
    }
    let spec = GeoTiffSpec {
        width: pixels,
        height: pixels,
        samples: Samples::F32(&values),
        origin: [origin.0, origin.1],
        pixel: [pixel, pixel],
        epsg: 2261,
        nodata: None,
        vertical_unit: Some(VerticalUnit::UsSurveyFoot),
        vertical_cs: None,
        layout: Layout::Tiles(256, 256),
    };
    let path = dir.join("dem.tif");
    let file = std::fs::File::create(&path).with_context(|| path.display().to_string())?;
    write_geotiff(std::io::BufWriter::new(file), &spec).with_context(|| path.display().to_string())?;
    let toml = county_toml.replacen("[layers]\n", "[layers]\ndem = \"dem.tif\"\n", 1);
    std::fs::write(dir.join("county-dem.toml"), toml).context("county-dem.toml")?;
    Ok(())
}
