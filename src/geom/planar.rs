//! Exact planar primitives on projected coordinates: point in polygon, segment intersection, and distances
//! between points, segments and polygons.
//!
//! `geo` answers the same questions for any geometry pair, through its general relate machinery; a parcel
//! is tested against a handful of nearby shoreline pieces a million times over, so these direct versions
//! keep that inner loop free of allocation. The property test in `tests/index_vs_brute_force.rs` checks them
//! against `geo`.

use geo::kernels::{Kernel, Orientation, RobustKernel};
use geo::{Coord, Geometry, InteriorPoint, LineString, MultiPolygon, Polygon};

/// The polygons of a polygon or multipolygon geometry (one, or its parts), or `None` for any other kind: an
/// area layer's feature seen as polygons without copying it.
pub fn polygons(geometry: &Geometry<f64>) -> Option<&[Polygon<f64>]> {
    match geometry {
        Geometry::Polygon(p) => Some(std::slice::from_ref(p)),
        Geometry::MultiPolygon(mp) => Some(&mp.0),
        _ => None,
    }
}

/// A point as (x, y).
pub type Xy = [f64; 2];

fn ring_xy(ring: &LineString<f64>) -> impl Iterator<Item = (Xy, Xy)> + '_ {
    ring.0.windows(2).map(|w| ([w[0].x, w[0].y], [w[1].x, w[1].y]))
}

/// Whether `p` is inside the closed ring (even-odd rule; points on the ring may go either way).
pub fn in_ring(p: Xy, ring: &LineString<f64>) -> bool {
    let mut inside = false;
    for (a, b) in ring_xy(ring) {
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            if x > p[0] {
                inside = !inside;
            }
        }
    }
    inside
}

/// Whether `p` is inside the polygon: inside its exterior and outside its holes.
pub fn in_polygon(p: Xy, polygon: &Polygon<f64>) -> bool {
    in_ring(p, polygon.exterior()) && !polygon.interiors().iter().any(|h| in_ring(p, h))
}

/// The side of line ab that `c` lies on, decided exactly: `geo`'s robust kernel (Shewchuk's adaptive
/// predicates) gives the true sign even where the plain cross product of large projected coordinates rounds
/// to the wrong one or to a false zero.
fn orient(a: Xy, b: Xy, c: Xy) -> Orientation {
    let coord = |p: Xy| Coord { x: p[0], y: p[1] };
    RobustKernel::orient2d(coord(a), coord(b), coord(c))
}

fn within_box(a: Xy, b: Xy, p: Xy) -> bool {
    p[0] >= a[0].min(b[0]) && p[0] <= a[0].max(b[0]) && p[1] >= a[1].min(b[1]) && p[1] <= a[1].max(b[1])
}

/// Whether segments ab and cd share a point (touching and collinear overlap included).
pub fn segments_intersect(a: Xy, b: Xy, c: Xy, d: Xy) -> bool {
    use Orientation::{Clockwise, Collinear, CounterClockwise};
    let (d1, d2) = (orient(c, d, a), orient(c, d, b));
    let (d3, d4) = (orient(a, b, c), orient(a, b, d));
    let opposite = |x: Orientation, y: Orientation| {
        matches!((x, y), (Clockwise, CounterClockwise) | (CounterClockwise, Clockwise))
    };
    if opposite(d1, d2) && opposite(d3, d4) {
        return true;
    }
    (d1 == Collinear && within_box(c, d, a))
        || (d2 == Collinear && within_box(c, d, b))
        || (d3 == Collinear && within_box(a, b, c))
        || (d4 == Collinear && within_box(a, b, d))
}

/// Squared distance from `p` to segment ab.
pub fn point_segment_distance_2(p: Xy, a: Xy, b: Xy) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len_2 = dx * dx + dy * dy;
    let t =
        if len_2 == 0.0 { 0.0 } else { (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len_2).clamp(0.0, 1.0) };
    let (cx, cy) = (a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
    cx * cx + cy * cy
}

/// Squared distance between segments ab and cd (0 when they intersect).
pub fn segment_distance_2(a: Xy, b: Xy, c: Xy, d: Xy) -> f64 {
    if segments_intersect(a, b, c, d) {
        return 0.0;
    }
    point_segment_distance_2(a, c, d)
        .min(point_segment_distance_2(b, c, d))
        .min(point_segment_distance_2(c, a, b))
        .min(point_segment_distance_2(d, a, b))
}

/// Exact distance from segment ab to the (multi)polygon: 0 when the segment touches or enters it.
pub fn segment_area_distance(a: Xy, b: Xy, shape: &MultiPolygon<f64>) -> f64 {
    let mut best_2 = f64::INFINITY;
    for polygon in &shape.0 {
        if in_polygon(a, polygon) {
            return 0.0;
        }
        for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
            for (c, d) in ring_xy(ring) {
                best_2 = best_2.min(segment_distance_2(a, b, c, d));
                if best_2 == 0.0 {
                    return 0.0;
                }
            }
        }
    }
    best_2.sqrt()
}

/// A point inside the shape, for locating a parcel in a town or district. The centre of the largest part's
/// bounding box serves when it lies inside (most lots); otherwise `geo`'s interior point.
pub fn interior_point(shape: &MultiPolygon<f64>) -> Option<Xy> {
    let largest = shape.0.iter().max_by_key(|p| p.exterior().0.len())?;
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for c in &largest.exterior().0 {
        lo = [lo[0].min(c.x), lo[1].min(c.y)];
        hi = [hi[0].max(c.x), hi[1].max(c.y)];
    }
    let centre = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    if in_polygon(centre, largest) {
        return Some(centre);
    }
    shape.interior_point().map(|p| [p.x(), p.y()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::polygon;

    #[test]
    fn segments_touching_crossing_and_apart() {
        assert!(segments_intersect([0.0, 0.0], [10.0, 10.0], [0.0, 10.0], [10.0, 0.0]));
        assert!(segments_intersect([0.0, 0.0], [10.0, 0.0], [10.0, 0.0], [10.0, 5.0]));
        assert!(segments_intersect([0.0, 0.0], [10.0, 0.0], [5.0, 0.0], [15.0, 0.0]));
        assert!(!segments_intersect([0.0, 0.0], [10.0, 0.0], [11.0, 0.0], [15.0, 0.0]));
        assert!(!segments_intersect([0.0, 0.0], [10.0, 0.0], [0.0, 1.0], [10.0, 1.0]));
        // c and d lie strictly left of ab: in integers, the cross products are F*F - (F+1)(F-1) = 1 and
        // F*F - (F+1)(F-3) = 2F + 3. In doubles F*F and F*F - 1 round to the same value (F*F > 2^53), so a
        // plain cross product says c is on ab and the segments touch; they do not.
        let f = 134_217_728.0; // 2^27
        assert!(!segments_intersect([0.0, 0.0], [f, f + 1.0], [f - 1.0, f], [f - 3.0, f]));
        assert_eq!(f * f - (f + 1.0) * (f - 1.0), 0.0, "the plain cross product rounds to zero");
        // Parallel segments 3 ft apart, offset so the nearest points are end points: 3-4-5 triangle.
        assert_eq!(segment_distance_2([0.0, 0.0], [10.0, 0.0], [14.0, 3.0], [20.0, 3.0]), 25.0);
    }

    #[test]
    fn distance_to_a_donut() {
        let donut = MultiPolygon(vec![polygon![
            exterior: [(x: 0.0, y: 0.0), (x: 100.0, y: 0.0), (x: 100.0, y: 100.0), (x: 0.0, y: 100.0)],
            interiors: [[(x: 40.0, y: 40.0), (x: 60.0, y: 40.0), (x: 60.0, y: 60.0), (x: 40.0, y: 60.0)]],
        ]]);
        // Inside the hole, 5 ft from its east edge.
        assert_eq!(segment_area_distance([50.0, 45.0], [55.0, 55.0], &donut), 5.0);
        // Outside, 20 ft east.
        assert_eq!(segment_area_distance([120.0, 10.0], [120.0, 90.0], &donut), 20.0);
        // Wholly inside the solid part.
        assert_eq!(segment_area_distance([10.0, 10.0], [20.0, 20.0], &donut), 0.0);
        assert!(!in_polygon([50.0, 50.0], &donut.0[0]));
        assert!(in_polygon([10.0, 50.0], &donut.0[0]));
        // The donut's bounding-box centre is in the hole, so the interior point comes from geo instead.
        let p = interior_point(&donut).unwrap();
        assert!(in_polygon(p, &donut.0[0]), "{p:?}");
    }
}
