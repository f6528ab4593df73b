//! Geometry blobs: the shape types of the shapefile specification, coordinates as integers on the feature
//! class's grid (`n / scale + origin`), each point's x and y stored as the difference from the one before.
//!
//! A point is its x and y plus 1 (0 for an empty point). A multipoint, polyline or polygon is its point
//! count, part count and (with the curve flag) curve count, its bounding box, the point count of each part
//! but the last, the points, then Z and M values when it has them, then the curves: each the index of the
//! point that starts it, its kind and its parameters. Z and M are skipped (read only to reach the curves).
//! Polygon rings are assembled as a shapefile's are: clockwise rings outer, counter-clockwise ones holes,
//! each hole in the smallest outer ring holding it. Every count is checked against the bytes of the blob
//! before anything is allocated for it, and a geometry whose curves would densify to more than
//! [`MAX_VERTICES`] vertices is refused.

use geo::{Coord, Geometry, LineString, MultiLineString, MultiPoint, Point};

use super::cursor::{Cursor, Cut};
use super::curves::{self, Curve};
use super::table::Grid;

/// The most vertices one geometry's curves may densify to (a parcel never comes near).
pub(super) const MAX_VERTICES: usize = 1 << 20;

const Z_FLAG: u64 = 0x8000_0000;
const M_FLAG: u64 = 0x4000_0000;
const CURVE_FLAG: u64 = 0x2000_0000;

/// A decoded blob: a geometry, none for a null or empty shape, and the 1-based numbers of the holes found in
/// no outer ring (made polygons of their own).
pub(super) struct Shape {
    pub geometry: Option<Geometry<f64>>,
    pub orphans: Vec<usize>,
}

/// The shape kinds, by their base type.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Point,
    MultiPoint,
    Line,
    Polygon,
}

/// Decodes a blob on the feature class's `grid`, curves densified to `tolerance` (see [`curves`]).
pub(super) fn decode(blob: &[u8], grid: &Grid, tolerance: f64) -> Cut<Shape> {
    let mut c = Cursor::new(blob);
    let code = c.varuint()?;
    let base = code & 0xff;
    let (kind, z, m) = match base {
        0 => return Ok(Shape { geometry: None, orphans: Vec::new() }),
        1 | 21 | 52 => (Kind::Point, false, base == 21),
        9 | 11 => (Kind::Point, true, base == 11),
        8 | 28 | 53 => (Kind::MultiPoint, false, base == 28),
        18 | 20 => (Kind::MultiPoint, true, base == 18),
        3 | 23 | 50 => (Kind::Line, false, base == 23),
        10 | 13 => (Kind::Line, true, base == 13),
        5 | 25 | 51 => (Kind::Polygon, false, base == 25),
        15 | 19 => (Kind::Polygon, true, base == 15),
        31 | 32 | 54 => return Err("a multipatch (a 3-D surface), not a map shape".into()),
        _ => return Err(format!("an unknown shape type ({base})")),
    };
    let z = z || code & Z_FLAG != 0;
    let m = m || code & M_FLAG != 0;
    let at = |n: i64, origin: f64| n as f64 / grid.xy_scale + origin;
    if kind == Kind::Point {
        let (x, y) = (c.varuint()?, c.varuint()?);
        if x == 0 || y == 0 {
            return Ok(Shape { geometry: None, orphans: Vec::new() });
        }
        let point = Point::new(at(x as i64 - 1, grid.x_origin), at(y as i64 - 1, grid.y_origin));
        return Ok(Shape { geometry: Some(point.into()), orphans: Vec::new() });
    }
    let points = c.varuint()?;
    if points == 0 {
        return Ok(Shape { geometry: None, orphans: Vec::new() });
    }
    // Each point takes at least 2 bytes (its x and y differences).
    let points = usize::try_from(points)
        .ok()
        .filter(|&n| n <= c.left() / 2)
        .ok_or_else(|| format!("{points} points declared in a blob of {} bytes", blob.len()))?;
    let (parts, curve_count) = if kind == Kind::MultiPoint {
        (vec![points], 0)
    } else {
        let parts = c.varuint()?;
        let curve_count = if code & CURVE_FLAG != 0 { c.varuint()? } else { 0 };
        let parts = usize::try_from(parts)
            .ok()
            .filter(|&n| (1..=points).contains(&n))
            .ok_or_else(|| format!("{parts} parts declared for {points} points"))?;
        (part_sizes(&mut c, parts, points)?, curve_count)
    };
    if kind == Kind::MultiPoint {
        for _ in 0..4 {
            c.varuint()?;
        }
    }
    let mut xy = Vec::with_capacity(points);
    let (mut x, mut y) = (0i64, 0i64);
    for _ in 0..points {
        x = x.wrapping_add(c.varint()?);
        y = y.wrapping_add(c.varint()?);
        xy.push(Coord { x: at(x, grid.x_origin), y: at(y, grid.y_origin) });
    }
    if kind == Kind::MultiPoint {
        let geometry = MultiPoint(xy.into_iter().map(Point::from).collect()).into();
        return Ok(Shape { geometry: Some(geometry), orphans: Vec::new() });
    }
    let curves = if curve_count == 0 { Vec::new() } else { read_curves(&mut c, curve_count, points, z, m)? };
    let parts = densify(&xy, &parts, &curves, tolerance)?;
    let geometry = match kind {
        Kind::Polygon => {
            let (geometry, orphans) = crate::formats::shapefile::rings::assemble_rings(parts);
            return Ok(Shape { geometry: Some(geometry), orphans });
        }
        _ if parts.len() == 1 => LineString(parts.into_iter().next().unwrap_or_default()).into(),
        _ => MultiLineString(parts.into_iter().map(LineString).collect()).into(),
    };
    Ok(Shape { geometry: Some(geometry), orphans: Vec::new() })
}

/// The point count of each of `parts` parts: all but the last stored (after the 4 numbers of the bounding
/// box), the last what is left of `points`.
fn part_sizes(c: &mut Cursor<'_>, parts: usize, points: usize) -> Cut<Vec<usize>> {
    for _ in 0..4 {
        c.varuint()?;
    }
    let mut sizes = Vec::with_capacity(parts);
    let mut sum = 0usize;
    for _ in 0..parts - 1 {
        let n = c.varuint()?;
        sum = usize::try_from(n)
            .ok()
            .and_then(|n| sum.checked_add(n))
            .filter(|&s| s <= points)
            .ok_or_else(|| format!("parts of more than the {points} points declared"))?;
        sizes.push(n as usize);
    }
    sizes.push(points - sum);
    Ok(sizes)
}

/// The curves after the points (and their Z and M values, skipped), each checked to start at a point that
/// has one after it.
fn read_curves(c: &mut Cursor<'_>, count: u64, points: usize, z: bool, m: bool) -> Cut<Vec<(usize, Curve)>> {
    if z {
        for _ in 0..points {
            c.varint()?;
        }
    }
    if m {
        // A single byte 0x42 stands for "no M values".
        if c.peek() == Some(0x42) {
            c.u8()?;
        } else {
            for _ in 0..points {
                c.varint()?;
            }
        }
    }
    // A curve takes at least 22 bytes: its start, its kind and an arc's two doubles and flags.
    let count = usize::try_from(count)
        .ok()
        .filter(|&n| n <= c.left() / 22)
        .ok_or_else(|| format!("{count} curves declared in the {} bytes left", c.left()))?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let start = c.varuint()?;
        let start = usize::try_from(start)
            .ok()
            .filter(|&s| s + 1 < points)
            .ok_or_else(|| format!("a curve starting at point {start} of {points}"))?;
        out.push((start, curves::read(c)?));
    }
    out.sort_by_key(|&(start, _)| start);
    Ok(out)
}

/// The parts' points, each segment that starts a curve replaced by the curve densified to `tolerance`.
fn densify(
    xy: &[Coord<f64>],
    parts: &[usize],
    curves: &[(usize, Curve)],
    tolerance: f64,
) -> Cut<Vec<Vec<Coord<f64>>>> {
    let mut out = Vec::with_capacity(parts.len());
    let mut start = 0;
    let mut total = 0;
    for &size in parts {
        let end = start + size;
        if curves.is_empty() {
            out.push(xy[start..end].to_vec());
            start = end;
            continue;
        }
        let mut part = Vec::with_capacity(size);
        for i in start..end {
            part.push(xy[i]);
            if i + 1 < end {
                if let Ok(k) = curves.binary_search_by_key(&i, |&(s, _)| s) {
                    curves[k].1.densify(xy[i], xy[i + 1], tolerance, &mut part);
                }
            }
            if total + part.len() > MAX_VERTICES {
                return Err(format!("curves that densify to more than {MAX_VERTICES} vertices"));
            }
        }
        total += part.len();
        out.push(part);
        start = end;
    }
    Ok(out)
}
