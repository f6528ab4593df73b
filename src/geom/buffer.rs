//! Buffer polygons: the area within a distance of points, lines and polygons, for buffer reports.
//!
//! Each part's raw offset curve is built in one pass over its vertices, as GEOS and Clipper build theirs:
//! every edge moved out by the distance, a round join where the curve turns away from the part, a round cap at
//! each end of a line, and, where it turns towards the part, the two offset ends joined through the vertex
//! (which keeps the curve's winding right where offsets of nearby edges cross). One union of all the curves
//! (and of the polygons themselves), counting the area a curve winds round positively as inside, resolves
//! their crossings (`i_overlay`, on an integer grid).
//!
//! `geo`'s `Buffer` unions a shape per edge instead: on a 20,000-vertex shoreline whose edges are a foot or
//! two long, each point of a 500-ft band lies under hundreds of them and the union takes seconds. Here each
//! point lies under one curve, two where a bay is tighter than the distance.
//!
//! Arcs are drawn with [`ARC_STEP_RAD`] between vertices: the buffer of a jagged outline (a watershed traced
//! from a raster) then differs from the exact one by as little as GEOS's (8 segments a quarter circle) does. The polygon is for maps and files; what is within the distance is decided by exact distances
//! ([`super::planar`]), never by this polygon.

use geo::orient::{Direction, Orient};
use geo::{Coord, Geometry, LineString, MultiPolygon, Polygon};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::float::simplify::SimplifyShape;

/// Angle between the vertices of a round join or cap, radians: at 500 ft a chord falls at most 0.63 ft
/// inside its arc.
pub const ARC_STEP_RAD: f64 = 0.1;

/// Concave turns flatter than this (cosine of the turn) join their offset ends directly: the path through
/// the vertex keeps the winding right where the offsets cross, which at a turn this flat they barely do.
const FLAT_TURN_COS: f64 = 0.99;

/// Turns straighter than this (cosine of the turn, about 1.1°) have one offset vertex, where the two offset
/// edges meet: at 500 ft it lies at most 0.03 ft beyond the distance from the vertex. On a finely drawn shore
/// most vertices are such, and the union has fewer points to sort.
const STRAIGHT_COS: f64 = 0.9998;

type Xy = [f64; 2];

/// The area within `distance` of the geometries (points, lines, polygons, and collections of them), as one
/// multipolygon; empty for a distance that is not greater than 0 or geometries with no coordinates.
///
/// ```
/// use geo::{Area, Geometry, Point};
/// let circle = lakeshore::geom::buffer::buffer([&Geometry::Point(Point::new(0.0, 0.0))], 10.0);
/// let area = circle.unsigned_area();
/// assert!((area - std::f64::consts::PI * 100.0).abs() < 1.5, "{area}");
/// ```
pub fn buffer<'a>(
    geometries: impl IntoIterator<Item = &'a Geometry<f64>>,
    distance: f64,
) -> MultiPolygon<f64> {
    if !(distance.is_finite() && distance > 0.0) {
        return MultiPolygon(Vec::new());
    }
    let mut curves: Vec<Vec<Xy>> = Vec::new();
    for geometry in geometries {
        add(geometry, distance, &mut curves);
    }
    if curves.is_empty() {
        return MultiPolygon(Vec::new());
    }
    let shapes = curves.simplify_shape(FillRule::Positive);
    MultiPolygon(
        shapes
            .into_iter()
            .filter_map(|contours| {
                let mut rings = contours.into_iter().map(ring);
                let exterior = rings.next()?;
                Some(Polygon::new(exterior, rings.collect()))
            })
            .collect(),
    )
}

/// A closed ring of `points`.
fn ring(points: Vec<Xy>) -> LineString<f64> {
    let mut coords: Vec<Coord<f64>> = points.into_iter().map(|[x, y]| Coord { x, y }).collect();
    if let Some(&first) = coords.first() {
        coords.push(first);
    }
    LineString(coords)
}

/// Adds the curves of one geometry (and of its polygons, the polygons themselves).
fn add(geometry: &Geometry<f64>, d: f64, curves: &mut Vec<Vec<Xy>>) {
    match geometry {
        Geometry::Point(p) => add_line(&[p.0], d, curves),
        Geometry::MultiPoint(mp) => mp.0.iter().for_each(|p| add_line(&[p.0], d, curves)),
        Geometry::Line(l) => add_line(&[l.start, l.end], d, curves),
        Geometry::LineString(l) => add_line(&l.0, d, curves),
        Geometry::MultiLineString(ml) => ml.0.iter().for_each(|l| add_line(&l.0, d, curves)),
        Geometry::Polygon(p) => add_polygon(p, d, curves),
        Geometry::MultiPolygon(mp) => mp.0.iter().for_each(|p| add_polygon(p, d, curves)),
        Geometry::Rect(r) => add_polygon(&r.to_polygon(), d, curves),
        Geometry::Triangle(t) => add_polygon(&t.to_polygon(), d, curves),
        Geometry::GeometryCollection(c) => c.0.iter().for_each(|g| add(g, d, curves)),
    }
}

/// The coordinates without repeats of the one before (and, for a ring, without the closing one).
fn distinct(coords: &[Coord<f64>], closed: bool) -> Vec<Xy> {
    let mut out: Vec<Xy> = Vec::with_capacity(coords.len());
    for c in coords {
        if c.x.is_finite() && c.y.is_finite() && out.last() != Some(&[c.x, c.y]) {
            out.push([c.x, c.y]);
        }
    }
    if closed && out.len() > 1 && out.first() == out.last() {
        out.pop();
    }
    out
}

/// A line's curve: along one side, round the end, back along the other side and round the start; a single
/// point's is its circle.
fn add_line(coords: &[Coord<f64>], d: f64, curves: &mut Vec<Vec<Xy>>) {
    let mut path = distinct(coords, false);
    if path.is_empty() {
        return;
    }
    if path.len() == 1 {
        let c = path[0];
        let steps = (std::f64::consts::TAU / ARC_STEP_RAD).ceil() as usize;
        curves.push(
            (0..steps)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / steps as f64;
                    [c[0] + d * a.cos(), c[1] + d * a.sin()]
                })
                .collect(),
        );
        return;
    }
    // There and back again: a closed path whose turns at the two ends are the caps.
    let back: Vec<Xy> = path[1..path.len() - 1].iter().rev().copied().collect();
    path.extend(back);
    curves.push(offset_ring(&path, d));
}

/// A polygon's curves (each ring's, outwards from the polygon) and its rings themselves.
fn add_polygon(polygon: &Polygon<f64>, d: f64, curves: &mut Vec<Vec<Xy>>) {
    // The exterior counter-clockwise and the holes clockwise: the polygon lies to the left of every ring.
    let polygon = polygon.orient(Direction::Default);
    for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
        let points = distinct(&ring.0, true);
        match points.len() {
            0 => {}
            1 | 2 => add_line(&ring.0, d, curves),
            _ => {
                curves.push(offset_ring(&points, d));
                curves.push(points);
            }
        }
    }
}

/// The raw offset curve of the closed ring `points` (no closing repeat, no repeated vertex), `d` to the
/// right of it, counter-clockwise round the area it bounds on that side when the ring goes round its left
/// side counter-clockwise.
fn offset_ring(points: &[Xy], d: f64) -> Vec<Xy> {
    let n = points.len();
    let unit = |a: Xy, b: Xy| {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = dx.hypot(dy);
        [dx / len, dy / len]
    };
    let mut out = Vec::with_capacity(2 * n + 16);
    for i in 0..n {
        let v = points[i];
        let u = unit(points[(i + n - 1) % n], v);
        let w = unit(v, points[(i + 1) % n]);
        // The offsets of the edge in and the edge out, to the right of each.
        let a = [v[0] + d * u[1], v[1] - d * u[0]];
        let b = [v[0] + d * w[1], v[1] - d * w[0]];
        let (cross, dot) = (u[0] * w[1] - u[1] * w[0], u[0] * w[0] + u[1] * w[1]);
        if dot > STRAIGHT_COS {
            // Nearly straight on: the offset edges meet at one point (the miter, `d / cos(turn / 2)` from the
            // vertex), which stands for them both.
            let k = d / (1.0 + dot);
            out.push([v[0] + k * (u[1] + w[1]), v[1] - k * (u[0] + w[0])]);
        } else if cross > 0.0 || (cross == 0.0 && dot < 0.0) {
            // A left turn moves the right side outwards: round join (a turn back is a cap, half a circle).
            let sweep = if cross == 0.0 { std::f64::consts::PI } else { cross.atan2(dot) };
            let start = (a[1] - v[1]).atan2(a[0] - v[0]);
            let steps = (sweep / ARC_STEP_RAD).ceil().max(1.0) as usize;
            out.push(a);
            for k in 1..steps {
                let t = start + sweep * k as f64 / steps as f64;
                out.push([v[0] + d * t.cos(), v[1] + d * t.sin()]);
            }
            out.push(b);
        } else if dot < FLAT_TURN_COS {
            out.extend([a, v, b]);
        } else {
            out.extend([a, b]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use geo::{Area, BooleanOps, Contains, Point};

    use super::*;

    fn square(x0: f64, y0: f64, side: f64) -> Polygon<f64> {
        Polygon::new(
            LineString::from(vec![
                (x0, y0),
                (x0 + side, y0),
                (x0 + side, y0 + side),
                (x0, y0 + side),
                (x0, y0),
            ]),
            vec![],
        )
    }

    /// An area within 0.5 % of the exact one: the arcs are drawn with chords, whose segments fall short of
    /// a disc's area by about `ARC_STEP_RAD²/6` (0.17 %).
    fn near(area: f64, exact: f64, what: &str) {
        assert!((area - exact).abs() / exact < 0.005, "{what}: area {area} vs {exact}");
    }

    /// A 200 ft × 100 ft lot at New York State Plane coordinates (x 840,000 ft, y 1,040,000 ft): its 500-ft
    /// buffer has area 200·100 + 2·(200 + 100)·500 + π·500² = 1,105,398.2 ft² (rectangle, four side strips,
    /// four quarter circles), and every vertex of the outline lies 500 ft from the lot, within the arc
    /// approximation's sagitta.
    #[test]
    fn buffer_of_a_lot_on_state_plane_coordinates() {
        let (x0, y0) = (840_000.0, 1_040_000.0);
        let lot = Polygon::new(
            LineString::from(vec![
                (x0, y0),
                (x0 + 200.0, y0),
                (x0 + 200.0, y0 + 100.0),
                (x0, y0 + 100.0),
                (x0, y0),
            ]),
            vec![],
        );
        let zone = buffer([&Geometry::Polygon(lot.clone())], 500.0);
        let expected = 200.0 * 100.0 + 2.0 * 300.0 * 500.0 + std::f64::consts::PI * 500.0 * 500.0;
        near(zone.unsigned_area(), expected, "lot");
        let lot_shape = MultiPolygon(vec![lot.clone()]);
        for c in zone.0.iter().flat_map(|p| p.exterior().0.iter()) {
            let d = crate::geom::planar::segment_area_distance([c.x, c.y], [c.x, c.y], &lot_shape);
            assert!((d - 500.0).abs() < 1e-6, "vertex {c:?} is {d} ft from the lot");
        }
        assert!(zone.contains(&Coord { x: x0 + 100.0, y: y0 + 50.0 }), "the lot itself");
        assert!(zone.contains(&Coord { x: x0 + 100.0, y: y0 + 599.0 }));
        assert!(!zone.contains(&Coord { x: x0 + 100.0, y: y0 + 601.0 }));
    }

    /// Clockwise input is the same polygon: the result does not depend on the ring's direction.
    #[test]
    fn a_clockwise_ring_buffers_the_same() {
        let mut p = square(0.0, 0.0, 100.0);
        p.exterior_mut(|r| r.0.reverse());
        let expected = 100.0 * 100.0 + 4.0 * 100.0 * 10.0 + std::f64::consts::PI * 100.0;
        near(buffer([&Geometry::Polygon(p)], 10.0).unsigned_area(), expected, "clockwise square");
    }

    /// A line of length L: a stadium, 2·d·L + π·d².
    #[test]
    fn a_line_buffers_to_a_stadium_on_both_sides() {
        let line = Geometry::LineString(LineString::from(vec![(0.0, 0.0), (300.0, 0.0)]));
        let zone = buffer([&line], 50.0);
        near(zone.unsigned_area(), 2.0 * 50.0 * 300.0 + std::f64::consts::PI * 2500.0, "stadium");
        assert!(zone.contains(&Coord { x: 150.0, y: -49.0 }) && zone.contains(&Coord { x: 150.0, y: 49.0 }));
        assert!(zone.contains(&Coord { x: -49.0, y: 0.0 }) && !zone.contains(&Coord { x: -51.0, y: 0.0 }));
    }

    /// A hole wider than twice the distance stays a (smaller) hole; a narrower one fills.
    #[test]
    fn holes_shrink_by_the_distance_and_close_when_narrow() {
        let outer = square(0.0, 0.0, 1000.0);
        let hole = square(300.0, 300.0, 400.0);
        let donut = Polygon::new(outer.exterior().clone(), vec![hole.exterior().clone()]);
        let zone = buffer([&Geometry::Polygon(donut.clone())], 100.0);
        assert!(!zone.contains(&Coord { x: 500.0, y: 500.0 }), "the hole's middle is 200 ft from it");
        assert!(zone.contains(&Coord { x: 500.0, y: 390.0 }), "90 ft into the hole");
        // The hole left is the 400-ft square less 100 ft all round: a 200-ft square with square corners
        // (a hole's corners are concave from the buffer's side).
        let holes: Vec<&LineString<f64>> = zone.0.iter().flat_map(|p| p.interiors()).collect();
        assert_eq!(holes.len(), 1, "one hole left");
        let hole_left = Polygon::new(holes[0].clone(), vec![]).unsigned_area();
        assert!((hole_left - 200.0 * 200.0).abs() < 1.0, "hole left {hole_left}");
        let filled = buffer([&Geometry::Polygon(donut)], 250.0);
        assert!(filled.0.iter().all(|p| p.interiors().is_empty()), "a 400-ft hole closes at 250 ft");
    }

    /// A comb: a polygon with teeth closer than twice the distance. The buffer is checked against the
    /// union of a disc round every vertex and the polygon grown by `geo` (an independent construction):
    /// their symmetric difference is a sliver of chords.
    #[test]
    fn a_jagged_shore_agrees_with_geo() {
        let mut coords = vec![(0.0, 0.0)];
        for k in 0..40 {
            let x = k as f64 * 20.0;
            coords.push((x + 5.0, 100.0 + (k % 7) as f64 * 13.0));
            coords.push((x + 15.0, 20.0));
        }
        coords.extend([(800.0, 0.0), (0.0, 0.0)]);
        let comb = Polygon::new(LineString::from(coords), vec![]);
        let ours = buffer([&Geometry::Polygon(comb.clone())], 60.0);
        let theirs = geo::Buffer::buffer(&comb, 60.0);
        let band = theirs.unsigned_area() - comb.unsigned_area();
        let differ = ours.xor(&theirs).unsigned_area();
        assert!(differ < 0.005 * band, "symmetric difference {differ} of a band of {band}");
        assert!(ours.contains(&Point::new(400.0, 50.0)));
    }

    #[test]
    fn nothing_to_buffer_is_empty() {
        assert!(buffer([&Geometry::Point(Point::new(1.0, 1.0))], 0.0).0.is_empty());
        assert!(buffer([&Geometry::LineString(LineString(vec![]))], 10.0).0.is_empty());
    }
}
