//! Property test: the R-tree classification equals a brute-force scan with `geo` over every vertex, on seeded
//! random layouts (a star-shaped lake of a few thousand vertices with an island, a watershed with a hole, and
//! parcels scattered around the shore).

use geo::{Contains, Distance, Euclidean, Intersects, LineString, MultiPolygon, Point, Polygon};
use lakeshore::index::{push_pieces, AreaIndex, LineIndex};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A closed star-shaped ring around (cx, cy) with `n` vertices and radii in [r_min, r_max].
fn star(rng: &mut ChaCha8Rng, cx: f64, cy: f64, n: usize, r_min: f64, r_max: f64) -> LineString<f64> {
    let mut pts: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let a = k as f64 / n as f64 * std::f64::consts::TAU;
            let r = rng.random_range(r_min..r_max);
            (cx + r * a.cos(), cy + r * a.sin())
        })
        .collect();
    pts.push(pts[0]);
    LineString::from(pts)
}

/// A random quadrilateral parcel (convex or not) near (x, y).
fn parcel(rng: &mut ChaCha8Rng, x: f64, y: f64) -> MultiPolygon<f64> {
    let w = rng.random_range(20.0..300.0);
    let h = rng.random_range(20.0..300.0);
    let j = |rng: &mut ChaCha8Rng| rng.random_range(-15.0..15.0);
    let ring = vec![
        (x + j(rng), y + j(rng)),
        (x + w + j(rng), y + j(rng)),
        (x + w + j(rng), y + h + j(rng)),
        (x + j(rng), y + h + j(rng)),
        (x, y),
    ];
    let mut ring = ring;
    ring[4] = ring[0];
    MultiPolygon(vec![Polygon::new(LineString::from(ring), vec![])])
}

#[test]
fn rtree_queries_equal_brute_force() {
    for seed in 0..3u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (cx, cy) = (837_000.0, 1_037_000.0);
        let shore = star(&mut rng, cx, cy, 1500, 8_000.0, 9_000.0);
        let island = star(&mut rng, cx, cy, 200, 1_000.0, 1_500.0);
        let mut pieces = Vec::new();
        push_pieces(shore.0.iter().copied(), 0, &mut pieces);
        push_pieces(island.0.iter().copied(), 1, &mut pieces);
        let lines = LineIndex::new(pieces);
        let shore_lines: Vec<(geo::Line<f64>, u32)> =
            shore.lines().map(|l| (l, 0)).chain(island.lines().map(|l| (l, 1))).collect();

        let outer = star(&mut rng, cx, cy, 2000, 12_000.0, 16_000.0);
        let hole = star(&mut rng, cx + 3000.0, cy, 300, 600.0, 900.0);
        let watershed = Polygon::new(outer, vec![hole]);
        let small = Polygon::new(star(&mut rng, cx - 14_000.0, cy, 12, 300.0, 500.0), vec![]);
        let areas = AreaIndex::new([
            (MultiPolygon(vec![watershed.clone()]), 0),
            (MultiPolygon(vec![small.clone()]), 1),
        ]);

        let radius = 1000.0;
        let mut near = 0;
        for _ in 0..300 {
            let a = rng.random_range(0.0..std::f64::consts::TAU);
            let r = rng.random_range(0.0..17_000.0);
            let shape = parcel(&mut rng, cx + r * a.cos(), cy + r * a.sin());

            // Distance to the shore: brute force over every shoreline segment with geo.
            let brute = shore_lines
                .iter()
                .map(|(l, owner)| {
                    (shape.0.iter().map(|p| Euclidean.distance(l, p)).fold(f64::INFINITY, f64::min), *owner)
                })
                .fold((f64::INFINITY, u32::MAX), |best, x| if x.0 < best.0 { x } else { best });
            match lines.nearest_to_area(&shape, radius) {
                Some(hit) => {
                    near += 1;
                    assert!(
                        (hit.distance_ft - brute.0).abs() < 1e-6,
                        "seed {seed}: {} vs {}",
                        hit.distance_ft,
                        brute.0
                    );
                }
                None => assert!(brute.0 > radius, "seed {seed}: missed a shore at {}", brute.0),
            }

            // Watershed membership: geo's Intersects over the full polygons.
            let expected: Vec<u32> = [(&watershed, 0u32), (&small, 1)]
                .into_iter()
                .filter(|(p, _)| shape.intersects(*p))
                .map(|(_, i)| i)
                .collect();
            assert_eq!(areas.intersecting(&shape), expected, "seed {seed}");

            // Point containment at the parcel's first vertex (random, so never exactly on an edge).
            let c = shape.0[0].exterior().0[0];
            let expected: Vec<u32> = [(&watershed, 0u32), (&small, 1)]
                .into_iter()
                .filter(|(p, _)| p.contains(&Point::from(c)))
                .map(|(_, i)| i)
                .collect();
            assert_eq!(areas.containing([c.x, c.y]), expected, "seed {seed}");
        }
        assert!(near > 10, "seed {seed}: the layout must put parcels near the shore ({near})");
    }
}
