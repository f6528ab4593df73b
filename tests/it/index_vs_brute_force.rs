//! Property tests: the R-tree queries equal a brute-force scan with `geo` over every segment, on seeded
//! random layouts (a star-shaped lake of a few thousand vertices with an island, a watershed with a hole, and
//! parcels, points and segments scattered around the shore).

use geo::{Contains, Distance, Euclidean, Intersects, Line, LineString, MultiPolygon, Point, Polygon};
use lakeshore::geom::index::{push_pieces, AreaIndex, LineIndex, Segment};
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
        // Without the grid of far cells, and with one made for the radius: asked within a shorter radius, the
        // radius, and a longer one than the grid knows.
        let plain = LineIndex::new(pieces.clone());
        let gridded = LineIndex::within(pieces, 1000.0);
        let shore_lines: Vec<(geo::Line<f64>, u32)> =
            shore.lines().map(|l| (l, 0)).chain(island.lines().map(|l| (l, 1))).collect();

        let outer = star(&mut rng, cx, cy, 2000, 12_000.0, 16_000.0);
        let hole = star(&mut rng, cx + 3000.0, cy, 300, 600.0, 900.0);
        let watershed = Polygon::new(outer, vec![hole]);
        let small = Polygon::new(star(&mut rng, cx - 14_000.0, cy, 12, 300.0, 500.0), vec![]);
        let areas =
            AreaIndex::new([(std::slice::from_ref(&watershed), 0), (std::slice::from_ref(&small), 1)]);

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
            near += usize::from(brute.0 <= radius);
            for (lines, radius) in
                [(&plain, radius), (&gridded, 300.0), (&gridded, radius), (&gridded, 1500.0)]
            {
                match lines.nearest_to_area(&shape, radius) {
                    Some(hit) => {
                        assert!(
                            (hit.distance_ft - brute.0).abs() < 1e-6,
                            "seed {seed} within {radius}: {} vs {}",
                            hit.distance_ft,
                            brute.0
                        );
                        assert_eq!(hit.owner, brute.1, "seed {seed}: nearest line's owner at {}", brute.0);
                    }
                    None => assert!(
                        brute.0 > radius,
                        "seed {seed}: missed a shore at {} within {radius}",
                        brute.0
                    ),
                }
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

/// The lake and island of `seed`, as index pieces and as `geo` lines with their owners.
fn shore_layout(rng: &mut ChaCha8Rng) -> (Vec<Segment>, Vec<(Line<f64>, u32)>) {
    let (cx, cy) = (837_000.0, 1_037_000.0);
    let shore = star(rng, cx, cy, 1500, 8_000.0, 9_000.0);
    let island = star(rng, cx, cy, 200, 1_000.0, 1_500.0);
    let mut pieces = Vec::new();
    push_pieces(shore.0.iter().copied(), 0, &mut pieces);
    push_pieces(island.0.iter().copied(), 1, &mut pieces);
    let lines = shore.lines().map(|l| (l, 0)).chain(island.lines().map(|l| (l, 1))).collect();
    (pieces, lines)
}

/// The indexes of `pieces` to hold to brute force, each with the radius to ask within: without the grid of
/// far cells; with one made for `radius`, asked within a third of it, within it, and within half as much again
/// (beyond what the grid knows).
fn indexes(pieces: &[Segment], radius: f64) -> Vec<(LineIndex, f64)> {
    let gridded = || LineIndex::within(pieces.to_vec(), radius);
    vec![
        (LineIndex::new(pieces.to_vec()), radius),
        (gridded(), radius / 3.0),
        (gridded(), radius),
        (gridded(), radius * 1.5),
    ]
}

/// The nearest of `lines` by `distance`, ties to the lower owner: (distance, owner).
fn brute_nearest(lines: &[(Line<f64>, u32)], distance: impl Fn(&Line<f64>) -> f64) -> (f64, u32) {
    lines.iter().map(|(l, owner)| (distance(l), *owner)).fold((f64::INFINITY, u32::MAX), |best, x| {
        if x.0 < best.0 || (x.0 == best.0 && x.1 < best.1) {
            x
        } else {
            best
        }
    })
}

/// Compares one query with brute force: the same distance (to 1e-6 ft) and owner within the radius, nothing
/// beyond it.
fn assert_same(what: &str, hit: Option<lakeshore::geom::index::Nearest>, brute: (f64, u32), radius: f64) {
    match hit {
        Some(hit) => {
            assert!((hit.distance_ft - brute.0).abs() < 1e-6, "{what}: {} vs {}", hit.distance_ft, brute.0);
            assert_eq!(hit.owner, brute.1, "{what}: owner at {}", brute.0);
        }
        None => assert!(brute.0 > radius, "{what}: missed a shore at {}", brute.0),
    }
}

#[test]
fn nearest_to_point_and_segment_equal_brute_force() {
    for seed in 10..13u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (pieces, lines) = shore_layout(&mut rng);
        let (cx, cy) = (837_000.0, 1_037_000.0);
        let radius = 1000.0;
        let indexes = indexes(&pieces, radius);
        let (mut near_points, mut near_segments) = (0, 0);
        for i in 0..300 {
            let a = rng.random_range(0.0..std::f64::consts::TAU);
            let r = rng.random_range(0.0..10_500.0);
            let p = [cx + r * a.cos(), cy + r * a.sin()];
            let brute = brute_nearest(&lines, |l| Euclidean.distance(l, &Point::new(p[0], p[1])));
            near_points += usize::from(brute.0 <= radius);
            for &(ref index, radius) in &indexes {
                let hit = index.nearest_to_point(p, radius);
                assert_same(&format!("seed {seed} point {i} {p:?} within {radius}"), hit, brute, radius);
            }

            let (len, turn) = (rng.random_range(1.0..600.0), rng.random_range(0.0..std::f64::consts::TAU));
            let q = [p[0] + len * turn.cos(), p[1] + len * turn.sin()];
            let segment = Line::from([(p[0], p[1]), (q[0], q[1])]);
            let brute = brute_nearest(&lines, |l| Euclidean.distance(l, &segment));
            near_segments += usize::from(brute.0 <= radius);
            for &(ref index, radius) in &indexes {
                let hit = index.nearest_to_segment(p, q, radius);
                assert_same(
                    &format!("seed {seed} segment {i} {p:?}-{q:?} within {radius}"),
                    hit,
                    brute,
                    radius,
                );
            }
        }
        assert!(
            near_points > 20 && near_segments > 20,
            "seed {seed}: {near_points} {near_segments} near the shore"
        );
    }
}
