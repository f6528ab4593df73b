//! Polygon validity in the spirit of PostGIS `ST_IsValidReason`: the first reason a polygon is not a valid
//! OGC polygon, with the place, e.g. `Self-intersection at (836050.5 1002100)`.
//!
//! Checked: rings with fewer than three distinct points, rings that cross themselves or another ring of the
//! polygon (`Self-intersection`), a ring that touches itself at a point (`Ring Self-intersection`), a hole
//! outside its shell and holes nested in holes. Not checked: whether the parts of a multipolygon overlap each
//! other, and whether rings touching at several points disconnect the interior.
//!
//! Each polygon's own edges are compared pairwise when it has few of them and by a sweep line (`sweep`,
//! Shamos–Hoey) when it has many, so a 200,000-vertex outline costs n log n whatever its shape: an R-tree of
//! edge boxes, used before, compares every pair of a star's long spokes, whose boxes all overlap. `geo`'s
//! `Validation` trait was not used: it compares every edge with every other (n²) and does not say where the
//! fault is. A coordinate that is not a finite number is a fault of its own (`Invalid Coordinate`).

mod sweep;

use std::cell::RefCell;

use geo::line_intersection::{line_intersection, LineIntersection};
use geo::{Coord, Line, LineString, MultiPolygon, Polygon};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};

/// Up to this many holes each hole is compared with every other; above, with those whose boxes meet its own.
const PAIRWISE_HOLES: usize = 16;

/// Up to this many edges a polygon's edges are compared pairwise; above, by the sweep.
const PAIRWISE_EDGES: usize = 32;

/// The first reason `shape` is not valid, or `None` when every polygon of it is valid.
pub fn invalid_reason(shape: &MultiPolygon<f64>) -> Option<String> {
    shape.0.iter().find_map(polygon_invalid_reason)
}

/// The first reason `polygon` is not valid, or `None`.
pub fn polygon_invalid_reason(polygon: &Polygon<f64>) -> Option<String> {
    // A reentrant call cannot happen (nothing here calls back), but would get a scratch of its own.
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => scratch.check(polygon),
        Err(_) => Scratch::default().check(polygon),
    })
}

thread_local! {
    /// Each thread's vectors for the polygon it checks, kept between calls: the parcels of a county are
    /// millions of small polygons checked on every core, each of which would otherwise allocate its rings and
    /// its edges anew.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The rings (without repeated points, closed) and the edges of the polygon being checked.
#[derive(Default)]
struct Scratch {
    /// The rings of the polygon in their first `count` entries (the rest kept for their capacity).
    rings: Vec<Vec<Coord<f64>>>,
    edges: Vec<Edge>,
}

impl Scratch {
    fn check(&mut self, polygon: &Polygon<f64>) -> Option<String> {
        let count = 1 + polygon.interiors().len();
        if self.rings.len() < count {
            self.rings.resize_with(count, Vec::new);
        }
        for (ring, out) in std::iter::once(polygon.exterior()).chain(polygon.interiors()).zip(&mut self.rings)
        {
            distinct_closed(ring, out);
        }
        let rings = &self.rings[..count];
        for ring in rings {
            if ring.len() < 4 {
                let at = ring.first().copied().unwrap_or(Coord { x: f64::NAN, y: f64::NAN });
                return Some(format!("Too few points in geometry component at {}", point(at)));
            }
        }
        if let Some(reason) = crossing(rings, &mut self.edges) {
            return Some(reason);
        }
        holes_inside(rings)
    }
}

/// The ring's points without consecutive repeats, closed, into `out` (emptied first).
fn distinct_closed(ring: &LineString<f64>, out: &mut Vec<Coord<f64>>) {
    out.clear();
    out.reserve(ring.0.len() + 1);
    for &c in &ring.0 {
        if out.last() != Some(&c) {
            out.push(c);
        }
    }
    if out.len() > 1 && out.first() == out.last() {
        out.pop();
    }
    if let Some(&first) = out.first() {
        out.push(first);
    }
}

/// One edge of a ring: the ring's number, the edge's number within it, and the segment.
#[derive(Clone, Copy)]
struct Edge {
    ring: usize,
    index: usize,
    /// Number of edges of its ring.
    ring_len: usize,
    line: Line<f64>,
}

impl Edge {
    /// Whether two edges of the same ring follow each other (they share a vertex by construction).
    fn adjacent(&self, other: &Edge) -> bool {
        let (i, j) = (self.index.min(other.index), self.index.max(other.index));
        self.ring == other.ring && (j == i + 1 || (i == 0 && j == self.ring_len - 1))
    }
}

/// A crossing or self-touch between the polygon's edges (the first in edge order when they are few);
/// `edges` is room for them.
fn crossing(rings: &[Vec<Coord<f64>>], edges: &mut Vec<Edge>) -> Option<String> {
    edges.clear();
    edges.extend(rings.iter().enumerate().flat_map(|(r, ring)| {
        let n = ring.len() - 1;
        ring.windows(2).enumerate().map(move |(i, w)| Edge {
            ring: r,
            index: i,
            ring_len: n,
            line: Line::new(w[0], w[1]),
        })
    }));
    let edges = &*edges;
    if let Some(bad) = rings.iter().flatten().find(|c| !(c.x.is_finite() && c.y.is_finite())) {
        return Some(format!("Invalid Coordinate at {}", point(*bad)));
    }
    if edges.len() <= PAIRWISE_EDGES {
        return every_pair(edges);
    }
    sweep::first_fault(edges)
}

/// The first fault between two edges in edge order, comparing every pair: for a few edges, and the
/// reference the sweep is tested against.
fn every_pair(edges: &[Edge]) -> Option<String> {
    (0..edges.len()).find_map(|i| (i + 1..edges.len()).find_map(|j| fault(&edges[i], &edges[j])))
}

/// What is wrong where two edges meet, if anything.
fn fault(a: &Edge, b: &Edge) -> Option<String> {
    // Most pairs are far apart, and consecutive edges that turn share only their vertex: both are settled
    // without the exact intersection.
    let (la, lb) = (a.line, b.line);
    let apart = la.start.x.max(la.end.x) < lb.start.x.min(lb.end.x)
        || lb.start.x.max(lb.end.x) < la.start.x.min(la.end.x)
        || la.start.y.max(la.end.y) < lb.start.y.min(lb.end.y)
        || lb.start.y.max(lb.end.y) < la.start.y.min(la.end.y);
    if apart {
        return None;
    }
    if a.adjacent(b) {
        let (u, v) = (la.delta(), lb.delta());
        if u.x * v.y - u.y * v.x != 0.0 {
            return None;
        }
    }
    match line_intersection(la, lb)? {
        LineIntersection::SinglePoint { intersection, is_proper } => {
            if is_proper {
                Some(format!("Self-intersection at {}", point(intersection)))
            } else if a.adjacent(b) || a.ring != b.ring {
                // Consecutive edges share their vertex; two rings may touch at a point.
                None
            } else {
                Some(format!("Ring Self-intersection at {}", point(intersection)))
            }
        }
        LineIntersection::Collinear { intersection } if intersection.start == intersection.end => {
            (a.ring == b.ring && !a.adjacent(b))
                .then(|| format!("Ring Self-intersection at {}", point(intersection.start)))
        }
        // Overlapping edges: a spike or a ring running back along itself or another ring.
        LineIntersection::Collinear { intersection } => {
            Some(format!("Self-intersection at {}", point(intersection.start)))
        }
    }
}

/// Every hole inside the shell and no hole inside another. The rings do not cross (checked before), so one
/// vertex of a hole off the other ring's boundary tells on which side the whole hole lies. A hole can lie in
/// another only within its box: beyond [`PAIRWISE_HOLES`] holes, an R-tree of their boxes names the holes
/// each is compared with, so that thousands of holes are not each compared with every other.
fn holes_inside(rings: &[Vec<Coord<f64>>]) -> Option<String> {
    let shell = &rings[0];
    let boxes: Vec<AABB<[f64; 2]>> = rings.iter().map(|r| ring_box(r)).collect();
    let tree = (rings.len() > PAIRWISE_HOLES + 1).then(|| {
        RTree::bulk_load(
            boxes
                .iter()
                .enumerate()
                .skip(1)
                .map(|(i, b)| GeomWithData::new(Rectangle::from_aabb(*b), i))
                .collect(),
        )
    });
    for (h, hole) in rings.iter().enumerate().skip(1) {
        if let Some(p) = hole.iter().copied().find(|&p| !on_boundary(shell, p)) {
            if !inside(shell, p) {
                return Some(format!("Hole lies outside shell at {}", point(p)));
            }
        }
        let later: Vec<usize> = match &tree {
            None => (h + 1..rings.len()).collect(),
            Some(tree) => {
                let mut near: Vec<usize> = tree
                    .locate_in_envelope_intersecting(&boxes[h])
                    .map(|b| b.data)
                    .filter(|&o| o > h)
                    .collect();
                near.sort_unstable();
                near
            }
        };
        for other in later.into_iter().map(|o| &rings[o]) {
            let nested = |a: &[Coord<f64>], b: &[Coord<f64>]| {
                b.iter().copied().find(|&p| !on_boundary(a, p)).filter(|&p| inside(a, p))
            };
            if let Some(p) = nested(hole, other).or_else(|| nested(other, hole)) {
                return Some(format!("Holes are nested at {}", point(p)));
            }
        }
    }
    None
}

/// The box of a ring's points.
fn ring_box(ring: &[Coord<f64>]) -> AABB<[f64; 2]> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for c in ring {
        lo = [lo[0].min(c.x), lo[1].min(c.y)];
        hi = [hi[0].max(c.x), hi[1].max(c.y)];
    }
    AABB::from_corners(lo, hi)
}

/// Even-odd point in a closed ring.
fn inside(ring: &[Coord<f64>], p: Coord<f64>) -> bool {
    let mut inside = false;
    for w in ring.windows(2) {
        let (a, b) = (w[0], w[1]);
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
    }
    inside
}

/// Whether `p` lies on an edge of the closed ring.
fn on_boundary(ring: &[Coord<f64>], p: Coord<f64>) -> bool {
    use geo::Intersects;
    ring.windows(2).any(|w| Line::new(w[0], w[1]).intersects(&p))
}

/// `(x y)` rounded to a hundredth, as PostGIS writes a location.
fn point(c: Coord<f64>) -> String {
    let r = |v: f64| (v * 100.0).round() / 100.0;
    format!("({} {})", r(c.x), r(c.y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::polygon;

    fn reason(p: Polygon<f64>) -> Option<String> {
        polygon_invalid_reason(&p)
    }

    #[test]
    fn valid_polygons_pass() {
        assert_eq!(
            reason(polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)]),
            None
        );
        // A repeated vertex is not a fault.
        assert_eq!(
            reason(
                polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)]
            ),
            None
        );
        // A hole touching the shell at one point is allowed.
        let touching = polygon!(
            exterior: [(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)],
            interiors: [[(x: 0., y: 5.), (x: 5., y: 3.), (x: 5., y: 7.)]],
        );
        assert_eq!(reason(touching), None);
    }

    #[test]
    fn a_bow_tie_crosses_itself_where_its_edges_meet() {
        // Edges (0,0)-(10,10) and (10,0)-(0,10) cross at (5,5).
        let bow_tie = polygon![(x: 0., y: 0.), (x: 10., y: 10.), (x: 10., y: 0.), (x: 0., y: 10.)];
        assert_eq!(reason(bow_tie).as_deref(), Some("Self-intersection at (5 5)"));
    }

    #[test]
    fn a_ring_touching_itself_is_a_ring_self_intersection() {
        // The vertex (5,0) is visited twice: the ring pinches there.
        let pinched = polygon![
            (x: 0., y: 0.), (x: 5., y: 0.), (x: 7., y: -5.), (x: 9., y: 0.), (x: 10., y: 0.),
            (x: 10., y: 10.), (x: 5., y: 0.), (x: 0., y: 10.)
        ];
        assert_eq!(reason(pinched).as_deref(), Some("Ring Self-intersection at (5 0)"));
    }

    #[test]
    fn holes_outside_crossing_or_nested_are_named() {
        let shell = [(0., 0.), (10., 0.), (10., 10.), (0., 10.)];
        let with_holes = |holes: Vec<Vec<(f64, f64)>>| {
            let ring = |pts: &[(f64, f64)]| LineString::from(pts.to_vec());
            Polygon::new(ring(&shell), holes.iter().map(|h| ring(h)).collect())
        };
        let outside = with_holes(vec![vec![(20., 20.), (22., 20.), (22., 22.)]]);
        assert_eq!(reason(outside).as_deref(), Some("Hole lies outside shell at (20 20)"));
        let crossing = with_holes(vec![vec![(5., 5.), (15., 5.), (15., 6.)]]);
        assert_eq!(reason(crossing).as_deref(), Some("Self-intersection at (10 5)"));
        let nested = with_holes(vec![
            vec![(1., 1.), (9., 1.), (9., 9.), (1., 9.)],
            vec![(4., 4.), (5., 4.), (5., 5.)],
        ]);
        assert_eq!(reason(nested).as_deref(), Some("Holes are nested at (4 4)"));
    }

    #[test]
    fn a_spike_and_too_few_points() {
        let spike =
            polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 15., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.)];
        // The spike out to (15, 0) and back passes (10, 0) twice: the ring touches itself there.
        assert_eq!(reason(spike).as_deref(), Some("Ring Self-intersection at (10 0)"));
        let flat = polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 0., y: 0.)];
        assert_eq!(reason(flat).as_deref(), Some("Too few points in geometry component at (0 0)"));
    }

    /// A many-sided ring goes through the sweep: a valid circle passes, and one crossing planted
    /// among thousands of edges is found at the crossing computed by hand.
    #[test]
    fn large_rings_use_the_sweep() {
        let n = 5000;
        let circle: Vec<(f64, f64)> = (0..n)
            .map(|k| {
                let t = k as f64 / n as f64 * std::f64::consts::TAU;
                (1000.0 * t.cos(), 1000.0 * t.sin())
            })
            .collect();
        assert_eq!(reason(Polygon::new(LineString::from(circle.clone()), vec![])), None);
        // After its first vertex (1000, 0) the ring runs along y = 0 to (-2000, 0) and back: the first of those
        // edges crosses the far side of the circle at (-1000, 0).
        let mut crossed = circle;
        crossed.insert(1, (-2000.0, 0.0));
        let r = reason(Polygon::new(LineString::from(crossed), vec![])).unwrap();
        assert!(r.starts_with("Self-intersection at ("), "{r}");
        assert!(r.contains("(-1000 0)"), "{r}");
    }

    /// The edges of `polygon` as the check makes them.
    fn edges_of(polygon: &Polygon<f64>) -> Vec<Edge> {
        let mut scratch = Scratch::default();
        let count = 1 + polygon.interiors().len();
        scratch.rings.resize_with(count, Vec::new);
        for (ring, out) in
            std::iter::once(polygon.exterior()).chain(polygon.interiors()).zip(&mut scratch.rings)
        {
            distinct_closed(ring, out);
        }
        let mut edges = Vec::new();
        crossing(&scratch.rings[..count], &mut edges);
        edges
    }

    /// Every fault between two edges, by comparing every pair: the oracle the sweep is held to.
    fn all_faults(edges: &[Edge]) -> Vec<String> {
        (0..edges.len())
            .flat_map(|i| (i + 1..edges.len()).filter_map(move |j| fault(&edges[i], &edges[j])))
            .collect()
    }

    /// Seeded random polygons on a small integer grid, where shared vertices, collinear edges, touching holes
    /// and spikes are common: the sweep finds a fault exactly when some pair of edges has one, and the fault
    /// it names is one of them.
    #[test]
    fn the_sweep_agrees_with_every_pair() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x005a_4ee9);
        let (mut faulty, mut clean) = (0, 0);
        for case in 0..20_000 {
            let grid = [4.0, 6.0, 12.0, 1e6][case % 4];
            let ring = |n: usize, rng: &mut rand_chacha::ChaCha8Rng| -> LineString<f64> {
                if rng.random_bool(0.5) {
                    // Star-shaped about the middle: valid unless two vertices fall on one ray.
                    let mut pts: Vec<(f64, f64)> = (0..n)
                        .map(|_| {
                            (rng.random_range(0.0..std::f64::consts::TAU), rng.random_range(1..=6) as f64)
                        })
                        .map(|(t, r)| {
                            (
                                (grid / 2.0 + r * t.cos() * grid / 14.0).round(),
                                (grid / 2.0 + r * t.sin() * grid / 14.0).round(),
                            )
                        })
                        .collect();
                    pts.sort_by(|a, b| {
                        (a.1 - grid / 2.0)
                            .atan2(a.0 - grid / 2.0)
                            .total_cmp(&(b.1 - grid / 2.0).atan2(b.0 - grid / 2.0))
                    });
                    LineString::from(pts)
                } else {
                    LineString::from(
                        (0..n)
                            .map(|_| {
                                (
                                    rng.random_range(0..=grid as i64) as f64,
                                    rng.random_range(0..=grid as i64) as f64,
                                )
                            })
                            .collect::<Vec<_>>(),
                    )
                }
            };
            let n = rng.random_range(3..=24);
            let shell = ring(n, &mut rng);
            let holes =
                (0..rng.random_range(0..=2)).map(|_| ring(rng.random_range(3..=6), &mut rng)).collect();
            let polygon = Polygon::new(shell, holes);
            let edges = edges_of(&polygon);
            if edges.iter().any(|e| e.ring_len < 3) {
                continue;
            }
            let faults = all_faults(&edges);
            match sweep::first_fault(&edges) {
                Some(found) => {
                    faulty += 1;
                    assert!(
                        faults.contains(&found),
                        "case {case}: {found} not among {faults:?} of {polygon:?}"
                    );
                }
                None => {
                    clean += 1;
                    assert!(faults.is_empty(), "case {case}: the sweep missed {faults:?} of {polygon:?}");
                }
            }
        }
        assert!(faulty > 1000 && clean > 1000, "{faulty} faulty, {clean} clean");
    }

    /// A star of `n` vertices, alternately 100,000 and 10 from the middle: long spokes whose boxes overlap.
    fn star(n: usize) -> Vec<(f64, f64)> {
        (0..n)
            .map(|k| {
                let t = k as f64 / n as f64 * std::f64::consts::TAU;
                let r = if k % 2 == 0 { 100_000.0 } else { 10.0 };
                (r * t.cos(), r * t.sin())
            })
            .collect()
    }

    /// A star of long spokes, whose edge boxes all overlap: valid, and one spoke bent across the others is
    /// found where it crosses one.
    #[test]
    fn a_star_of_many_spokes_is_checked() {
        assert_eq!(reason(Polygon::new(LineString::from(star(20_000)), vec![])), None);
        // A tip pulled across the spoke before it: the spokes 0 to 1 and 2 to 3 now cross.
        let mut bent = star(2000);
        bent[2] = (-50_000.0, 1.0);
        let r = reason(Polygon::new(LineString::from(bent.clone()), vec![])).unwrap();
        let every = all_faults(&edges_of(&Polygon::new(LineString::from(bent), vec![])));
        assert!(every.contains(&r), "{r} {every:?}");
    }

    /// A shell with 10,000 square holes: valid, and a hole put inside the last of them is found nested at its
    /// first vertex; holes are compared only with those whose boxes meet theirs.
    #[test]
    fn thousands_of_holes_are_checked_by_their_boxes() {
        let square = |x: f64, y: f64, side: f64| {
            LineString::from(vec![(x, y), (x + side, y), (x + side, y + side), (x, y + side)])
        };
        let mut holes: Vec<LineString<f64>> = (0..10_000)
            .map(|k| square(1.0 + 3.0 * (k % 100) as f64, 1.0 + 3.0 * (k / 100) as f64, 2.0))
            .collect();
        let shell = square(0.0, 0.0, 400.0);
        assert_eq!(reason(Polygon::new(shell.clone(), holes.clone())), None);
        holes.push(square(298.5, 298.5, 0.5));
        assert_eq!(reason(Polygon::new(shell, holes)).as_deref(), Some("Holes are nested at (298.5 298.5)"));
    }

    /// The time of the check on stars of 50,000 and 200,000 vertices (`cargo test --lib star_timing --
    /// --ignored --nocapture`; bench/README.md has the numbers).
    #[test]
    #[ignore]
    fn star_timing() {
        for n in [50_000, 200_000] {
            let polygon = Polygon::new(LineString::from(star(n)), vec![]);
            let start = std::time::Instant::now();
            let result = reason(polygon);
            println!("star of {n} vertices: {:?} in {:.2?}", result, start.elapsed());
        }
    }
}
