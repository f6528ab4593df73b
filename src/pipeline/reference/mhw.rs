//! The mean-high-water line from the law's elevation (Art. V §II.22): "Mean High Water for Owasco Lake shall
//! be defined as USGS elevation 717.13 ft". With a DEM configured, each water body that has a feature in the
//! shoreline layer gets as its mean-high-water line the DEM's contour at its elevation
//! ([`crate::geom::contour`]), and the shoreline layer becomes a check on it.
//!
//! - **The elevation** is the rule set's `mhw_ft`, in the DEM's unit; when both the rule set and the DEM
//!   (or `[dem] vertical_datum`) name a vertical datum and they differ, the rule set's `datum_shift_ft` for
//!   the DEM's datum is added. A DEM that states no datum is contoured at `mhw_ft` as it is.
//! - **The window** read is the water body's shoreline features grown by the rule set's search radius
//!   (twice its largest distance), and grown again, up to [`MAX_GROWTHS`] times, while no closed ring holds
//!   the water body (an inlet running far past the supplied shoreline).
//! - **The ring** is the innermost closed ring around low ground that holds the shoreline's representative
//!   point; without one, the largest closed ring around low ground in the window. Other low ground (a kettle
//!   pond, a quarry) is not the lake's line. The islands are the rings around high ground inside it.
//! - Nothing is smoothed or simplified. A water body whose ring cannot be found (the DEM has no data along
//!   it, or it runs off the DEM) keeps the shoreline layer's line, and a problem says so.

use std::path::Path;

use geo::{Coord, Geometry, LineString, MultiPolygon, Polygon};

use super::Reference;
use crate::crs::Reprojector;
use crate::formats::dem::{Dem, VerticalUnit};
use crate::geom::contour::{contours, signed_area_2, Contour, Grid};
use crate::geom::index::{push_pieces, LineIndex};
use crate::geom::planar::{in_ring, interior_point, polygons};
use crate::model::error::{Error, Location, Problem, Result};
use crate::pipeline::config::Config;
use crate::rules::WaterBody;

/// How many times the window is doubled past the search radius while no ring holds the water body.
pub const MAX_GROWTHS: usize = 4;

/// A water body's mean-high-water line derived from the DEM, in the working CRS.
#[derive(Debug, Clone)]
pub struct DerivedMhw {
    /// The water body's name in the rule set.
    pub water_body: String,
    /// Where the line comes from, as the schedule's `mhw_source` column says it: `dem 717.13 ft`.
    pub source: String,
    /// The lake as the contour encloses it: the ring, with its islands as holes.
    pub lake: Geometry<f64>,
    /// How far the derived line's vertices lie from the shoreline layer's line, feet: the largest and the
    /// mean (over vertices within the search radius of it), and how many lie farther than that.
    pub offset: Offsets,
}

/// How far the derived line lies from the shoreline layer's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Offsets {
    /// The largest distance of a derived vertex from the shoreline layer's line, feet.
    pub max_ft: f64,
    /// The mean distance, feet.
    pub mean_ft: f64,
    /// Derived vertices farther than the search radius from it (not in the max or the mean).
    pub beyond: usize,
}

/// How many of the parcels whose tier the shoreline layer would change a DEM run's note names; a county can have
/// thousands.
const MOVED_LISTED: usize = 25;

/// The note of a DEM run on the parcels whose tier the shoreline layer's line would change, given as (parcel
/// id, tier by the DEM's line, tier by the shoreline layer's): their number and the first [`MOVED_LISTED`] by id.
pub(crate) fn moved_note(mut moved: Vec<(String, &str, &str)>) -> String {
    moved.sort();
    let mut listed: Vec<String> = moved
        .iter()
        .take(MOVED_LISTED)
        .map(|(id, dem, layer)| format!("{id} ({dem}; {layer} by the shoreline layer)"))
        .collect();
    if moved.len() > MOVED_LISTED {
        listed.push(format!(
            "and {} more (the schedule without the DEM gives every parcel's tier by the shoreline layer)",
            moved.len() - MOVED_LISTED
        ));
    }
    format!(
        "parcels whose tier the shoreline layer's line would change ({} of them): {}",
        moved.len(),
        if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
    )
}

/// Derives the mean-high-water line of every water body with a shoreline feature from the DEM at `path`.
/// A water body whose line cannot be derived is left to the shoreline layer, with a problem; a DEM that
/// cannot be read, or whose unit is unknown, is an error.
pub(crate) fn derive(
    path: &Path,
    config: &Config,
    reference: &Reference,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> Result<Vec<DerivedMhw>> {
    let dem = Dem::open(path)?;
    let unit = super::ground::vertical_unit(&dem, config)?;
    let datum = dem.vertical_datum.clone().or_else(|| config.dem_datum.clone());
    let to_dem = Reprojector::new(&config.crs, &dem.crs)
        .map_err(|e| Error::crs(path, format!("cannot reproject the shoreline into the DEM's CRS: {e}")))?;
    let from_dem = config.reprojector(path, &dem.crs)?;
    let radius_ft = config.rules.search_radius_ft();
    let mut derived = Vec::new();
    for body in &config.rules.water_bodies {
        let supplied: Vec<&Geometry<f64>> =
            reference.supplied_shoreline().filter(|(_, name)| *name == body.name).map(|(g, _)| g).collect();
        if supplied.is_empty() {
            continue;
        }
        let say = |what: String| Problem::new(path, Location::WholeFile, what);
        let Some(level_ft) = level_ft(body, datum.as_deref()) else {
            problems.push(say(format!(
                "{}: the rule set gives its elevation in {} and the DEM is in {}, with no datum_shift_ft for \
                 {}; its mean-high-water line is the shoreline layer's: add datum_shift_ft.{} to the water \
                 body in the rule set",
                body.name,
                body.mhw_datum.as_deref().unwrap_or("?"),
                datum.as_deref().unwrap_or("?"),
                datum.as_deref().unwrap_or("?"),
                datum.as_deref().unwrap_or("?"),
            )));
            continue;
        };
        // Compared at the precision the DEM keeps its values in (32-bit), so ground stored as 717.13 is at
        // 717.13.
        let level = f64::from(in_unit(level_ft, unit) as f32);
        let found = find_lake(&dem, &supplied, level, radius_ft, &to_dem)?;
        let Some(lake) = found else {
            if window_bounds(&supplied, 0.0, &to_dem).and_then(|(lo, hi)| dem.window(lo, hi)).is_none() {
                notes.push(format!(
                    "{}: the DEM {} does not reach it; its mean-high-water line is the shoreline layer's",
                    body.name,
                    path.display()
                ));
                continue;
            }
            problems.push(say(format!(
                "{}: no closed contour at {} ft in the DEM holds the water body (the DEM has no data along it, \
                 or it runs off the DEM); its mean-high-water line is the shoreline layer's: give a DEM that \
                 covers the whole shore",
                body.name,
                feet(body.mhw_ft)
            )));
            continue;
        };
        let lake = from_dem.transform(&Geometry::Polygon(lake)).map_err(|e| {
            Error::crs(path, format!("the contour cannot be reprojected into the working CRS: {e}"))
        })?;
        let offset = offsets(&lake, &supplied, radius_ft);
        let source = format!("dem {} ft", feet(body.mhw_ft));
        notes.push(format!(
            "{}: mean-high-water line from the DEM {} at {} ft{} ({}; {}), not simplified; from the shoreline \
             layer's line its vertices lie {:.1} ft on average and {:.1} ft at most{}",
            body.name,
            path.display(),
            feet(body.mhw_ft),
            if level_ft == body.mhw_ft { String::new() } else { format!(" ({} ft in the DEM's datum)", feet(level_ft)) },
            datum.as_deref().map_or("no vertical datum stated, none applied".to_string(), |d| format!("datum {d}")),
            unit.name(),
            offset.mean_ft,
            offset.max_ft,
            if offset.beyond > 0 {
                format!(", and {} vertices are more than {radius_ft:.0} ft from it", offset.beyond)
            } else {
                String::new()
            },
        ));
        derived.push(DerivedMhw { water_body: body.name.clone(), source, lake, offset });
    }
    Ok(derived)
}

/// `feet` (the rule set's, USGS: US survey feet) in the DEM's `unit`. A DEM in either foot takes the number
/// as it is: the two feet differ by 2 parts in a million, 0.0014 ft at 717 ft, far below what a DEM or the
/// law's two decimals hold, and ground recorded at 717.13 ft is at the law's 717.13 ft in both.
fn in_unit(feet: f64, unit: VerticalUnit) -> f64 {
    match unit {
        VerticalUnit::Metre => feet * VerticalUnit::UsSurveyFoot.to_metre(),
        VerticalUnit::Foot | VerticalUnit::UsSurveyFoot => feet,
    }
}

/// `v` with two decimals, as the law writes elevations.
fn feet(v: f64) -> String {
    format!("{v:.2}")
}

/// The elevation to contour at, feet in the DEM's datum; `None` when the rule set's datum and the DEM's
/// differ and the rule set gives no shift between them.
fn level_ft(body: &WaterBody, dem_datum: Option<&str>) -> Option<f64> {
    match (body.mhw_datum.as_deref(), dem_datum) {
        (Some(law), Some(dem)) if !law.eq_ignore_ascii_case(dem) => body
            .datum_shift_ft
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(dem))
            .map(|(_, s)| body.mhw_ft + s),
        _ => Some(body.mhw_ft),
    }
}

/// The bounding box of `geometries` in the working CRS, grown by `margin`, as a polygon in the DEM's CRS's
/// bounds (corners and edge midpoints reprojected).
fn window_bounds(
    geometries: &[&Geometry<f64>],
    margin: f64,
    to_dem: &Reprojector,
) -> Option<([f64; 2], [f64; 2])> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for g in geometries {
        use geo::BoundingRect;
        let Some(r) = g.bounding_rect() else { continue };
        lo = [lo[0].min(r.min().x), lo[1].min(r.min().y)];
        hi = [hi[0].max(r.max().x), hi[1].max(r.max().y)];
    }
    if !lo[0].is_finite() {
        return None;
    }
    let (lo, hi) = ([lo[0] - margin, lo[1] - margin], [hi[0] + margin, hi[1] + margin]);
    let mid = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    let points: Vec<Coord<f64>> = [
        [lo[0], lo[1]],
        [mid[0], lo[1]],
        [hi[0], lo[1]],
        [hi[0], mid[1]],
        [hi[0], hi[1]],
        [mid[0], hi[1]],
        [lo[0], hi[1]],
        [lo[0], mid[1]],
    ]
    .iter()
    .map(|p| Coord { x: p[0], y: p[1] })
    .collect();
    let in_dem = to_dem.transform(&Geometry::LineString(LineString(points))).ok()?;
    let Geometry::LineString(l) = in_dem else { return None };
    let (mut a, mut b) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for c in &l.0 {
        a = [a[0].min(c.x), a[1].min(c.y)];
        b = [b[0].max(c.x), b[1].max(c.y)];
    }
    Some((a, b))
}

/// A point inside the supplied lake polygons (the largest's), in the DEM's CRS; `None` for line features.
fn representative_point(supplied: &[&Geometry<f64>], to_dem: &Reprojector) -> Option<Coord<f64>> {
    let largest = supplied
        .iter()
        .filter_map(|g| polygons(g))
        .flatten()
        .max_by(|a, b| signed_area_2(a.exterior()).abs().total_cmp(&signed_area_2(b.exterior()).abs()))?;
    let p = interior_point(&MultiPolygon(vec![largest.clone()]))?;
    match to_dem.transform(&Geometry::Point(geo::Point::new(p[0], p[1]))).ok()? {
        Geometry::Point(p) => Some(p.0),
        _ => None,
    }
}

/// The lake polygon at `level` around the supplied shoreline, in the DEM's CRS.
fn find_lake(
    dem: &Dem,
    supplied: &[&Geometry<f64>],
    level: f64,
    radius_ft: f64,
    to_dem: &Reprojector,
) -> Result<Option<Polygon<f64>>> {
    let point = representative_point(supplied, to_dem);
    let mut margin = radius_ft;
    let mut last = None;
    for _ in 0..=MAX_GROWTHS {
        let Some((lo, hi)) = window_bounds(supplied, margin, to_dem) else { return Ok(None) };
        let Some(window) = dem.window(lo, hi) else { return Ok(None) };
        if last == Some(window) {
            break;
        }
        last = Some(window);
        let values = dem.read(window)?;
        let grid = Grid {
            width: window.cols,
            height: window.rows,
            values: &values,
            transform: dem.window_transform(window),
        };
        let lines = contours(&grid, level);
        let whole = window == dem.whole();
        if let Some(lake) = choose_ring(&lines, point, whole || point.is_none()) {
            return Ok(Some(lake));
        }
        margin *= 2.0;
    }
    Ok(None)
}

/// The lake among the contour lines: the innermost closed ring around low ground that holds `point`, or,
/// with `largest` (no point, or no larger window to read), the largest closed ring around low ground; with
/// the rings around high ground directly inside it as holes.
pub fn choose_ring(lines: &[Contour], point: Option<Coord<f64>>, largest: bool) -> Option<Polygon<f64>> {
    let area = |c: &Contour| signed_area_2(&c.line).abs();
    let lows = lines.iter().filter(|c| c.encloses_low);
    let around = point.and_then(|p| {
        lows.clone().filter(|c| in_ring([p.x, p.y], &c.line)).min_by(|a, b| area(a).total_cmp(&area(b)))
    });
    let ring = match around {
        Some(ring) => ring,
        None if largest => lows.max_by(|a, b| area(a).total_cmp(&area(b)))?,
        None => return None,
    };
    let inside = |outer: &LineString<f64>, inner: &LineString<f64>| {
        inner.0.first().is_some_and(|c| in_ring([c.x, c.y], outer))
    };
    let islands: Vec<&Contour> = lines
        .iter()
        .filter(|c| c.closed && !c.encloses_low && area(c) < area(ring) && inside(&ring.line, &c.line))
        .collect();
    // An island inside a pond on an island is not one of the lake's.
    let holes = islands
        .iter()
        .filter(|c| {
            !islands.iter().any(|o| !std::ptr::eq(*o, **c) && area(o) > area(c) && inside(&o.line, &c.line))
        })
        .map(|c| c.line.clone())
        .collect();
    Some(Polygon::new(ring.line.clone(), holes))
}

/// How far the derived lake's rings lie from the supplied shoreline's lines, vertex by vertex.
fn offsets(lake: &Geometry<f64>, supplied: &[&Geometry<f64>], radius_ft: f64) -> Offsets {
    let mut pieces = Vec::new();
    for g in supplied {
        match g {
            Geometry::LineString(l) => push_pieces(l.0.iter().copied(), 0, &mut pieces),
            Geometry::MultiLineString(m) => {
                m.0.iter().for_each(|l| push_pieces(l.0.iter().copied(), 0, &mut pieces))
            }
            _ => {
                for p in polygons(g).unwrap_or_default() {
                    for r in std::iter::once(p.exterior()).chain(p.interiors()) {
                        push_pieces(r.0.iter().copied(), 0, &mut pieces);
                    }
                }
            }
        }
    }
    let index = LineIndex::within(pieces, radius_ft);
    let (mut max_ft, mut sum, mut n, mut beyond) = (0.0f64, 0.0, 0usize, 0usize);
    for p in polygons(lake).unwrap_or_default() {
        for r in std::iter::once(p.exterior()).chain(p.interiors()) {
            // The closing vertex repeats the first.
            for c in &r.0[..r.0.len().saturating_sub(1)] {
                match index.nearest_to_point([c.x, c.y], radius_ft) {
                    Some(hit) => {
                        max_ft = max_ft.max(hit.distance_ft);
                        sum += hit.distance_ft;
                        n += 1;
                    }
                    None => beyond += 1,
                }
            }
        }
    }
    Offsets { max_ft, mean_ft: if n == 0 { 0.0 } else { sum / n as f64 }, beyond }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid_lines(width: usize, values: &[f32], level: f64) -> Vec<Contour> {
        let grid =
            Grid { width, height: values.len() / width, values, transform: [0.0, 1.0, 0.0, 0.0, 0.0, -1.0] };
        contours(&grid, level)
    }

    #[test]
    fn the_ring_around_the_point_not_the_larger_pond() {
        // Two basins in ground at 10: a small one (the lake, 2×2 pixels at 0) and a larger one (a quarry,
        // 3×3 at 0). The point in the small one picks it; without a point the larger one is taken.
        #[rustfmt::skip]
        let v: Vec<f32> = vec![
            10., 10., 10., 10., 10., 10., 10., 10., 10.,
            10.,  0.,  0., 10., 10.,  0.,  0.,  0., 10.,
            10.,  0.,  0., 10., 10.,  0.,  0.,  0., 10.,
            10., 10., 10., 10., 10.,  0.,  0.,  0., 10.,
            10., 10., 10., 10., 10., 10., 10., 10., 10.,
        ];
        let lines = grid_lines(9, &v, 5.0);
        let lake = choose_ring(&lines, Some(Coord { x: 1.5, y: -1.5 }), false).unwrap();
        // The 2×2 block's ring passes halfway to its neighbours: a 2×2 square with its corners cut, area
        // 2·2 − 4·(½·½·½) = 3.5.
        assert!((signed_area_2(lake.exterior()).abs() / 2.0 - 3.5).abs() < 1e-9);
        let quarry = choose_ring(&lines, None, true).unwrap();
        assert!((signed_area_2(quarry.exterior()).abs() / 2.0 - (9.0 - 0.5)).abs() < 1e-9);
        // A point on dry ground finds nothing unless the largest ring is asked for.
        assert!(choose_ring(&lines, Some(Coord { x: 3.5, y: -3.5 }), false).is_none());
    }

    #[test]
    fn islands_are_holes_of_the_lake() {
        // A 5×5 lake at 0 with a 1-pixel island at 10 in its middle.
        let mut v = vec![10.0f32; 49];
        for r in 1..6 {
            for c in 1..6 {
                v[r * 7 + c] = if (r, c) == (3, 3) { 10.0 } else { 0.0 };
            }
        }
        let lake = choose_ring(&grid_lines(7, &v, 5.0), Some(Coord { x: 1.0, y: -1.0 }), false).unwrap();
        assert_eq!(lake.interiors().len(), 1);
        // The island's ring: a diamond of half-diagonal ½ around (3, −3).
        assert!((signed_area_2(&lake.interiors()[0]).abs() / 2.0 - 0.5).abs() < 1e-9);
    }

    use crate::crs::Crs;
    use crate::formats::dem::write::{write_geotiff, GeoTiffSpec, Layout, Samples};
    use geo::{polygon, Contains};

    /// A DEM of `size` × `size` pixels of 20 ft (EPSG:2261, origin (0, 20,000)) with `z(x, y)` at each centre,
    /// written to a temporary file and opened.
    fn dem(name: &str, size: u32, unit: VerticalUnit, z: impl Fn(f64, f64) -> f32) -> Dem {
        let mut values = Vec::new();
        for r in 0..size {
            for c in 0..size {
                values.push(z(10.0 + 20.0 * c as f64, 20_000.0 - 10.0 - 20.0 * r as f64));
            }
        }
        let spec = GeoTiffSpec {
            width: size,
            height: size,
            samples: Samples::F32(&values),
            origin: [0.0, 20_000.0],
            pixel: [20.0, 20.0],
            epsg: 2261,
            nodata: None,
            vertical_unit: Some(unit),
            vertical_cs: None,
            layout: Layout::Tiles(64, 64),
        };
        let dir = crate::scratch::root().join("mhw");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.tif"));
        let mut file = std::fs::File::create(&path).unwrap();
        write_geotiff(&mut file, &spec).unwrap();
        Dem::open(&path).unwrap()
    }

    /// The lake at 717.13 ft around `supplied`, reading within 1,000 ft of it first.
    fn lake(dem: &Dem, supplied: Polygon<f64>) -> Option<Polygon<f64>> {
        let crs = Crs::parse("EPSG:2261").unwrap();
        let same = Reprojector::new(&crs, &crs).unwrap();
        let level = f64::from(in_unit(717.13, dem.vertical_unit.unwrap()) as f32);
        find_lake(dem, &[&Geometry::Polygon(supplied)], level, 1000.0, &same).unwrap()
    }

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon<f64> {
        polygon![(x: x0, y: y0), (x: x1, y: y0), (x: x1, y: y1), (x: x0, y: y1), (x: x0, y: y0)]
    }

    /// Distance from (x, y) to the rectangle, negative inside.
    fn rect_distance(x: f64, y: f64, [x0, y0, x1, y1]: [f64; 4]) -> f64 {
        let (dx, dy) = ((x0 - x).max(x - x1), (y0 - y).max(y - y1));
        if dx <= 0.0 && dy <= 0.0 {
            dx.max(dy)
        } else {
            dx.max(0.0).hypot(dy.max(0.0))
        }
    }

    #[test]
    fn a_bowl_in_metres_is_contoured_at_the_elevation_in_feet() {
        // z = 200 m + r / 100 (r in feet from (10,000, 10,000)): 717.13 US survey ft = 218.5818 m, so the
        // line is the circle r = 1,858.18 ft.
        let dem = dem("bowl", 1000, VerticalUnit::Metre, |x, y| {
            (200.0 + (x - 10_000.0).hypot(y - 10_000.0) / 100.0) as f32
        });
        let found = lake(&dem, square(8_500.0, 8_500.0, 11_500.0, 11_500.0)).unwrap();
        let expected = 717.13 * 1200.0 / 3937.0 * 100.0 - 20_000.0;
        for c in &found.exterior().0 {
            let r = (c.x - 10_000.0).hypot(c.y - 10_000.0);
            // 32-bit values near 218 m hold 1.5e-5 m, 0.0015 ft of radius.
            assert!((r - expected).abs() < 0.05, "r {r}, expected {expected}");
        }
    }

    #[test]
    fn an_inlet_past_the_window_is_followed() {
        // A 4,000 ft square lake and an inlet 200 ft wide running 3,000 ft north of it; ground rises 1 ft
        // in 20 from their outline, which is the 717.13 ft line. The shoreline layer has the square only.
        let (body, inlet) = ([8_000.0, 6_000.0, 12_000.0, 10_000.0], [9_900.0, 10_000.0, 10_100.0, 13_000.0]);
        let dem = dem("inlet", 1000, VerticalUnit::Foot, |x, y| {
            (717.13 + 0.05 * rect_distance(x, y, body).min(rect_distance(x, y, inlet))) as f32
        });
        let found = lake(&dem, square(8_000.0, 6_000.0, 12_000.0, 10_000.0)).unwrap();
        // 2,900 ft up the inlet, far past the first window (1,000 ft beyond the square).
        assert!(found.contains(&geo::Point::new(10_000.0, 12_900.0)));
        assert!(!found.contains(&geo::Point::new(10_000.0, 13_100.0)));
    }

    #[test]
    fn a_plateau_at_the_elevation_is_under_mean_high_water() {
        // A lake at 700 ft (x, y 8,000–12,000) in a square shelf exactly at 717.13 ft 400 ft wide, then
        // ground a foot higher: the line runs along the shelf's outer pixel centres, 390 ft outside the lake
        // (x, y 7,610–12,390), and encloses the square of side 4,780 ft.
        let dem = dem("plateau", 1000, VerticalUnit::Foot, |x, y| {
            let d = (8_000.0 - x).max(x - 12_000.0).max(8_000.0 - y).max(y - 12_000.0);
            if d < 0.0 {
                700.0
            } else if d < 400.0 {
                717.13
            } else {
                718.13
            }
        });
        let found = lake(&dem, square(8_000.0, 8_000.0, 12_000.0, 12_000.0)).unwrap();
        let area = signed_area_2(found.exterior()).abs() / 2.0;
        assert!((area - 4_780.0f64.powi(2)).abs() < 1e-3, "{area}");
    }

    #[test]
    fn a_hole_in_the_data_on_the_line_leaves_the_shoreline_layer() {
        let lake_box = [8_000.0, 8_000.0, 12_000.0, 12_000.0];
        let z = |x: f64, y: f64| (717.13 + 0.05 * (rect_distance(x, y, lake_box) - 40.0)) as f32;
        // A hole of 100 ft across the line on the east shore; another far out in the hills.
        let broken = dem("hole-on-line", 1000, VerticalUnit::Foot, |x, y| {
            if (12_000.0..12_100.0).contains(&x) && (9_000.0..9_100.0).contains(&y) {
                f32::NAN
            } else {
                z(x, y)
            }
        });
        assert!(lake(&broken, square(8_000.0, 8_000.0, 12_000.0, 12_000.0)).is_none());
        let whole = dem("hole-away", 1000, VerticalUnit::Foot, |x, y| {
            if (13_000.0..13_100.0).contains(&x) && (9_000.0..9_100.0).contains(&y) {
                f32::NAN
            } else {
                z(x, y)
            }
        });
        let found = lake(&whole, square(8_000.0, 8_000.0, 12_000.0, 12_000.0)).unwrap();
        // The line 40 ft outside the lake on the straight shores.
        assert!(found.exterior().0.iter().any(|c| (c.x - 12_040.0).abs() < 1e-6));
        assert!(found.exterior().0.iter().all(|c| c.x <= 12_040.0 + 1e-6));
    }

    #[test]
    fn the_datum_shift_applies_only_between_two_stated_datums() {
        let mut body: WaterBody = toml::from_str(
            "name = \"Owasco Lake\"\nmhw_ft = 717.13\nmhw_datum = \"NGVD29\"\ncitation = \"x\"\n\
             datum_shift_ft = { NAVD88 = -0.55 }",
        )
        .unwrap();
        assert_eq!(level_ft(&body, None), Some(717.13));
        assert_eq!(level_ft(&body, Some("NGVD29")), Some(717.13));
        assert_eq!(level_ft(&body, Some("navd88")), Some(717.13 - 0.55));
        assert_eq!(level_ft(&body, Some("EPSG:5714")), None);
        body.mhw_datum = None;
        assert_eq!(level_ft(&body, Some("NAVD88")), Some(717.13));
    }
}
