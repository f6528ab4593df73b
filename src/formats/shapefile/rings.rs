//! Polygon ring assembly for shapefile polygon records, and Esri JSON rings, drawn the same way: ring
//! orientation (clockwise rings are outer rings, counter-clockwise ones holes, as the shapefile specification
//! has it) and the assignment of each hole to an outer ring by containment.
//!
//! This is done here rather than by the `shapefile` crate on purpose: its conversion to geo-types gives each
//! hole to the outer ring before it (its issue #55); here each hole goes to the smallest outer ring that
//! contains it, and a hole inside no outer ring becomes a polygon of its own.

use std::path::Path;

use geo::kernels::{Kernel, Orientation, RobustKernel};
use geo::{Coord, Geometry, LineString, MultiPolygon, Polygon};

use crate::model::error::{Location, Problem};

/// The problem of ring `ring` (1-based) of record `record` of the file at `path`, a hole in no outer ring
/// that [`assemble_rings`] made a polygon of its own.
pub(crate) fn orphan_problem(path: &Path, record: usize, ring: usize) -> Problem {
    let message = format!(
        "ring {ring} is counter-clockwise (a hole) but lies in no outer ring, so it was read as a polygon of its \
         own: fix the ring orientation (outer rings clockwise) in a GIS"
    );
    Problem::new(path, Location::Record(record), message)
}

/// Builds polygons from a record's rings: each hole (counter-clockwise ring) goes to the smallest outer
/// (clockwise) ring containing it; a hole inside no outer ring is reversed into a polygon of its own and its
/// 1-based ring number returned. One polygon gives a `Polygon`, any other number a `MultiPolygon`.
pub(crate) fn assemble_rings(rings: Vec<Vec<Coord<f64>>>) -> (Geometry<f64>, Vec<usize>) {
    let mut outers = Vec::with_capacity(rings.len());
    let mut holes = Vec::new();
    for (i, ring) in rings.into_iter().enumerate() {
        if is_hole(&ring) {
            holes.push((i + 1, LineString(ring)));
        } else {
            outers.push(LineString(ring));
        }
    }
    // Most records have no hole: then no interiors are allocated at all.
    let mut interiors: Vec<Vec<LineString<f64>>> = Vec::new();
    let mut orphans = Vec::new();
    let mut orphan_rings = Vec::new();
    if !holes.is_empty() {
        interiors.resize(outers.len(), Vec::new());
        let boxes: Vec<Bounds> = outers.iter().map(Bounds::of).collect();
        let areas: Vec<f64> = outers.iter().map(|o| signed_area(&o.0).abs()).collect();
        for (number, mut hole) in holes {
            let hole_box = Bounds::of(&hole);
            let home = (0..outers.len())
                .filter(|&i| boxes[i].covers(&hole_box) && ring_contains(&outers[i].0, &hole.0))
                .min_by(|&a, &b| areas[a].total_cmp(&areas[b]));
            match home {
                Some(i) => interiors[i].push(hole),
                None => {
                    hole.0.reverse();
                    orphans.push(number);
                    orphan_rings.push(hole);
                }
            }
        }
    }
    let mut polygons: Vec<Polygon<f64>> = outers
        .into_iter()
        .zip(interiors.into_iter().chain(std::iter::repeat_with(Vec::new)))
        .map(|(outer, holes)| Polygon::new(outer, holes))
        .collect();
    polygons.extend(orphan_rings.into_iter().map(|ring| Polygon::new(ring, Vec::new())));
    let geometry = match polygons.len() {
        1 => polygons.swap_remove(0).into(),
        _ => MultiPolygon(polygons).into(),
    };
    (geometry, orphans)
}

/// Whether a ring runs counter-clockwise (a hole). A ring of no area counts as an outer ring.
fn is_hole(ring: &[Coord<f64>]) -> bool {
    ring.windows(2).map(|w| (w[1].x - w[0].x) * (w[1].y + w[0].y)).sum::<f64>() < 0.0
}

/// An axis-aligned bounding box, to skip containment tests that cannot succeed.
struct Bounds {
    min: Coord<f64>,
    max: Coord<f64>,
}

impl Bounds {
    fn of(ring: &LineString<f64>) -> Self {
        let inf = f64::INFINITY;
        let start = Bounds { min: Coord { x: inf, y: inf }, max: Coord { x: -inf, y: -inf } };
        ring.0.iter().fold(start, |b, c| Bounds {
            min: Coord { x: b.min.x.min(c.x), y: b.min.y.min(c.y) },
            max: Coord { x: b.max.x.max(c.x), y: b.max.y.max(c.y) },
        })
    }

    fn covers(&self, other: &Bounds) -> bool {
        self.min.x <= other.min.x
            && self.min.y <= other.min.y
            && self.max.x >= other.max.x
            && self.max.y >= other.max.y
    }
}

/// The shoelace area of a ring, positive when counter-clockwise.
fn signed_area(ring: &[Coord<f64>]) -> f64 {
    let Some(first) = ring.first() else { return 0.0 };
    let next = ring.iter().skip(1).chain(std::iter::once(first));
    ring.iter().zip(next).map(|(a, b)| a.x * b.y - b.x * a.y).sum::<f64>() / 2.0
}

/// Whether `ring` contains `inner`, judged by the first vertex of `inner` that is not on `ring`'s boundary
/// (holes may touch their outer ring at a vertex). A ring lying wholly on the boundary counts as contained.
fn ring_contains(ring: &[Coord<f64>], inner: &[Coord<f64>]) -> bool {
    inner.iter().find_map(|&c| point_in_ring(c, ring)).unwrap_or(true)
}

/// Ray casting: `Some(true)` inside, `Some(false)` outside, `None` on the boundary. The ring need not repeat
/// its first point.
fn point_in_ring(p: Coord<f64>, ring: &[Coord<f64>]) -> Option<bool> {
    let mut inside = false;
    let next = ring.iter().skip(1).chain(ring.first());
    for (&a, &b) in ring.iter().zip(next) {
        let within = p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y);
        if within && RobustKernel::orient2d(a, b, p) == Orientation::Collinear {
            return None;
        }
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) {
            inside = !inside;
        }
    }
    Some(inside)
}

#[cfg(test)]
mod tests {
    use ::shapefile::PolygonRing;
    use geo::Area;

    use super::*;
    use crate::crs::layer::Value;
    use crate::formats::shapefile::read;
    use crate::formats::shapefile::test_support::{assumed, polygon, square, write_with_ids, TempDir};
    use crate::model::error::Location;

    fn areas(geometry: &Geometry<f64>) -> Vec<(f64, usize)> {
        let polygons = match geometry {
            Geometry::Polygon(p) => vec![p.clone()],
            Geometry::MultiPolygon(mp) => mp.0.clone(),
            other => panic!("not a polygon: {other:?}"),
        };
        polygons.iter().map(|p| (p.unsigned_area(), p.interiors().len())).collect()
    }

    #[test]
    fn holes_go_to_the_smallest_outer_ring_that_contains_them() {
        let dir = TempDir::new("rings");
        let shp = dir.path("parcels.shp");
        let (outer, inner) = (PolygonRing::Outer, PolygonRing::Inner);
        let touching = vec![
            ::shapefile::Point::new(0., 0.),
            ::shapefile::Point::new(2., 5.),
            ::shapefile::Point::new(5., 2.),
            ::shapefile::Point::new(0., 0.),
        ];
        write_with_ids(
            &shp,
            &[
                // Outer A, outer B, then the hole in A: ring order would give the hole to B.
                polygon(vec![
                    outer(square(0., 0., 10.)),
                    outer(square(20., 0., 3.)),
                    inner(square(2., 2., 2.)),
                ]),
                // A donut.
                polygon(vec![outer(square(0., 0., 10.)), inner(square(3., 3., 4.))]),
                // Two squares.
                polygon(vec![outer(square(0., 0., 1.)), outer(square(5., 5., 2.))]),
                // A hole before the outers; both outers contain it, the smaller one gets it.
                polygon(vec![
                    inner(square(1., 1., 1.)),
                    outer(square(0., 0., 10.)),
                    outer(square(0.5, 0.5, 3.)),
                ]),
                // A hole touching its outer ring at a corner.
                polygon(vec![outer(square(0., 0., 10.)), inner(touching)]),
            ],
        );
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        let geometry: Vec<&Geometry<f64>> =
            layer.features.iter().map(|f| f.geometry.as_ref().unwrap()).collect();
        // A: 100 - 4 with its hole; B: 9 without.
        assert!(matches!(geometry[0], Geometry::MultiPolygon(_)));
        assert_eq!(areas(geometry[0]), vec![(96.0, 1), (9.0, 0)]);
        assert!(matches!(geometry[1], Geometry::Polygon(_)));
        assert_eq!(areas(geometry[1]), vec![(84.0, 1)]);
        assert!(matches!(geometry[2], Geometry::MultiPolygon(_)));
        assert_eq!(areas(geometry[2]), vec![(1.0, 0), (4.0, 0)]);
        assert_eq!(areas(geometry[3]), vec![(100.0, 0), (8.0, 1)]);
        // Triangle (0,0) (2,5) (5,2): |5*5 - 2*2| / 2 = 10.5.
        assert_eq!(areas(geometry[4]), vec![(89.5, 1)]);
        assert_eq!(layer.fields, vec!["ID"]);
        let ids: Vec<&Value> = layer.features.iter().map(|f| &f.values[0]).collect();
        assert_eq!(ids, [1., 2., 3., 4., 5.].map(Value::Number).iter().collect::<Vec<_>>());
        assert_eq!(layer.features.iter().map(|f| f.record).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn orphan_hole_becomes_its_own_polygon_with_a_problem() {
        let dir = TempDir::new("orphan");
        let shp = dir.path("parcels.shp");
        let rings = vec![PolygonRing::Outer(square(0., 0., 1.)), PolygonRing::Inner(square(5., 5., 2.))];
        write_with_ids(&shp, &[polygon(rings)]);
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert_eq!(areas(layer.features[0].geometry.as_ref().unwrap()), vec![(1.0, 0), (4.0, 0)]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].location, Location::Record(1));
        assert!(problems[0].message.starts_with("ring 2 is counter-clockwise"), "{}", problems[0].message);
    }

    #[test]
    fn point_in_ring_tells_boundary_from_inside() {
        let ring = LineString::from(vec![(0., 0.), (0., 4.), (4., 4.), (4., 0.), (0., 0.)]).0;
        assert_eq!(point_in_ring(Coord { x: 1., y: 1. }, &ring), Some(true));
        assert_eq!(point_in_ring(Coord { x: 5., y: 1. }, &ring), Some(false));
        assert_eq!(point_in_ring(Coord { x: 0., y: 2. }, &ring), None);
        assert_eq!(point_in_ring(Coord { x: 4., y: 4. }, &ring), None);
    }
}
