//! The File Geodatabase reader on hand-built geometry blobs; the files GDAL writes are read in
//! `tests/it/filegdb.rs`.

use geo::{Coord, Geometry};

use super::shape;
use super::table::Grid;

/// A grid of origin 0 and 1000 units a CRS unit (millimetres of a metre layer).
fn grid() -> Grid {
    Grid { x_origin: 0.0, y_origin: 0.0, xy_scale: 1000.0, wkt: String::new() }
}

/// A varuint as the format writes it.
fn varuint(mut n: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A signed varint: sign in bit 6 of the first byte, 6 bits there, 7 in each next.
fn varint(n: i64, out: &mut Vec<u8>) {
    let (negative, mut m) = (n < 0, n.unsigned_abs());
    let mut first = (m & 0x3f) as u8 | if negative { 0x40 } else { 0 };
    m >>= 6;
    if m != 0 {
        first |= 0x80;
    }
    out.push(first);
    if m != 0 {
        varuint(m, out);
    }
}

/// A polygon or polyline blob of `parts` (grid units), with `curves` bytes after the points.
fn blob(shape_type: u64, parts: &[Vec<(i64, i64)>], curves: &[u8], curve_count: u64) -> Vec<u8> {
    let mut out = Vec::new();
    varuint(shape_type, &mut out);
    let points: usize = parts.iter().map(Vec::len).sum();
    varuint(points as u64, &mut out);
    varuint(parts.len() as u64, &mut out);
    if curve_count > 0 {
        varuint(curve_count, &mut out);
    }
    for v in [0, 0, 0, 0] {
        varuint(v, &mut out);
    }
    for part in &parts[..parts.len() - 1] {
        varuint(part.len() as u64, &mut out);
    }
    let (mut x, mut y) = (0, 0);
    for &(px, py) in parts.iter().flatten() {
        varint(px - x, &mut out);
        varint(py - y, &mut out);
        (x, y) = (px, py);
    }
    out.extend_from_slice(curves);
    out
}

fn coords(g: &Geometry<f64>) -> Vec<Coord<f64>> {
    use geo::CoordsIter;
    g.coords_iter().collect()
}

#[test]
fn a_point_is_its_grid_units_plus_one() {
    // x 1234.567 and y 0.001 on a grid of 1000 a unit: 1234567 + 1 and 1 + 1.
    let mut b = Vec::new();
    for v in [1, 1_234_568, 2] {
        varuint(v, &mut b);
    }
    let shape = shape::decode(&b, &grid(), 0.1).unwrap();
    assert_eq!(shape.geometry, Some(Geometry::Point(geo::Point::new(1234.567, 0.001))));
    // 0 is the empty point.
    assert!(shape::decode(&[1, 0, 0], &grid(), 0.1).unwrap().geometry.is_none());
}

/// A curve's bytes: its start point, kind, doubles and (for arcs and ellipses) flags.
fn curve(start: u64, kind: u64, doubles: &[f64], bits: Option<u32>) -> Vec<u8> {
    let mut out = Vec::new();
    varuint(start, &mut out);
    varuint(kind, &mut out);
    doubles.iter().for_each(|d| out.extend(d.to_le_bytes()));
    out.extend(bits.map(u32::to_le_bytes).unwrap_or_default());
    out
}

/// A general polyline with curves.
const CURVED_LINE: u64 = 50 | 0x2000_0000;

#[test]
fn polygons_keep_their_holes_and_parts() {
    let k = 1000;
    let outer = vec![(0, 0), (0, 10 * k), (10 * k, 10 * k), (10 * k, 0), (0, 0)];
    let hole = vec![(2 * k, 2 * k), (8 * k, 2 * k), (8 * k, 8 * k), (2 * k, 8 * k), (2 * k, 2 * k)];
    let other = vec![(20 * k, 0), (20 * k, 5 * k), (25 * k, 5 * k), (25 * k, 0), (20 * k, 0)];
    let shape = shape::decode(&blob(5, &[outer, hole, other], &[], 0), &grid(), 0.1).unwrap();
    let Some(Geometry::MultiPolygon(mp)) = shape.geometry else { panic!("a multipolygon") };
    assert_eq!(mp.0.len(), 2);
    assert_eq!(mp.0[0].interiors().len(), 1);
    assert_eq!(mp.0[0].interiors()[0].0[1], Coord { x: 8.0, y: 2.0 });
    assert_eq!(mp.0[1].exterior().0[2], Coord { x: 25.0, y: 5.0 });
    assert!(shape.orphans.is_empty());
}

#[test]
fn an_arc_through_a_point_becomes_chords_of_one_degree() {
    // From (0, 0) through (10, 10) to (20, 0): the upper half of the circle of radius 10 around (10, 0),
    // clockwise. A chord of 1° departs from it by 10 (1 - cos 0.5°) = 0.0004, within 0.1: 180 chords.
    let arc = curve(0, 1, &[10.0, 10.0], Some(0x80));
    let line = blob(CURVED_LINE, &[vec![(0, 0), (20_000, 0)]], &arc, 1);
    let g = shape::decode(&line, &grid(), 0.1).unwrap().geometry.unwrap();
    let points = coords(&g);
    assert_eq!(points.len(), 181);
    assert_eq!((points[0], points[180]), (Coord { x: 0.0, y: 0.0 }, Coord { x: 20.0, y: 0.0 }));
    for p in &points {
        assert!(((p.x - 10.0).hypot(p.y) - 10.0).abs() < 1e-9 && p.y >= -1e-9, "{p:?}");
    }
    // Clockwise from the left end: the 90th point is the top.
    assert!((points[90].x - 10.0).abs() < 1e-9 && (points[90].y - 10.0).abs() < 1e-9, "{:?}", points[90]);
}

#[test]
fn a_bezier_becomes_even_steps_within_the_tolerance() {
    // (0,0) to (3,0), controls (1,1) and (2,1): second differences (0,-1) both, so n = ⌈√(6·1 / (8·0.1))⌉
    // = ⌈2.74⌉ = 3 steps; at t = 1/3 the curve is (8·0 + 12·1 + 6·2 + 1·3, 12·1 + 6·1) / 27 = (1, 2/3).
    let bezier = curve(0, 4, &[1.0, 1.0, 2.0, 1.0], None);
    let line = blob(CURVED_LINE, &[vec![(0, 0), (3000, 0)]], &bezier, 1);
    let points = coords(&shape::decode(&line, &grid(), 0.1).unwrap().geometry.unwrap());
    assert_eq!(points.len(), 4);
    assert!((points[1].x - 1.0).abs() < 1e-12 && (points[1].y - 2.0 / 3.0).abs() < 1e-12, "{:?}", points[1]);
    assert!((points[2].x - 2.0).abs() < 1e-12 && (points[2].y - 2.0 / 3.0).abs() < 1e-12, "{:?}", points[2]);
}

#[test]
fn an_elliptic_arc_follows_its_ellipse_the_minor_way() {
    // The ellipse x²/4 + y² = 1 from (2, 0) to (0, 1), the shorter way: a quarter, 90 chords of 1°.
    let ellipse = curve(0, 5, &[0.0, 0.0, 0.0, 2.0, 0.5], Some(0x1000));
    let line = blob(CURVED_LINE, &[vec![(2000, 0), (0, 1000)]], &ellipse, 1);
    let points = coords(&shape::decode(&line, &grid(), 0.1).unwrap().geometry.unwrap());
    assert_eq!(points.len(), 91);
    for p in &points {
        assert!((p.x * p.x / 4.0 + p.y * p.y - 1.0).abs() < 1e-9 && p.x >= -1e-9 && p.y >= -1e-9, "{p:?}");
    }
}

#[test]
fn counts_beyond_the_blob_are_errors_not_allocations() {
    // A polygon declaring 2^40 points in a few bytes.
    let mut b = Vec::new();
    for v in [5, 1 << 40, 1] {
        varuint(v, &mut b);
    }
    let err = shape::decode(&b, &grid(), 0.1).err().unwrap();
    assert!(err.contains("1099511627776 points declared in a blob of"), "{err}");
    // A curve count beyond the bytes left.
    let line = blob(CURVED_LINE, &[vec![(0, 0), (3000, 0)]], &[], 1_000_000);
    let err = shape::decode(&line, &grid(), 0.1).err().unwrap();
    assert!(err.contains("1000000 curves declared"), "{err}");
    // A multipatch is not a map shape.
    assert!(shape::decode(&[32, 0], &grid(), 0.1).err().unwrap().contains("multipatch"));
}

#[test]
fn z_and_m_values_are_skipped_to_reach_the_curves() {
    // The arc of `an_arc_through_a_point_becomes_chords_of_one_degree`, with Z values (two varints) and the
    // one byte 0x42 that stands for no M values before its curve.
    let arc = curve(0, 1, &[10.0, 10.0], Some(0x80));
    let mut after = Vec::new();
    varint(5000, &mut after);
    varint(-1000, &mut after);
    after.push(0x42);
    after.extend(&arc);
    let line = blob(CURVED_LINE | 0x8000_0000 | 0x4000_0000, &[vec![(0, 0), (20_000, 0)]], &after, 1);
    let points = coords(&shape::decode(&line, &grid(), 0.1).unwrap().geometry.unwrap());
    assert_eq!(points.len(), 181);
    assert!((points[90].y - 10.0).abs() < 1e-9, "{:?}", points[90]);
}
