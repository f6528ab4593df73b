//! Polygon validity in the spirit of PostGIS `ST_IsValidReason`: the first reason a polygon is not a valid
//! OGC polygon, with the place, e.g. `Self-intersection at (836050.5 1002100)`.
//!
//! Checked: rings with fewer than three distinct points, rings that cross themselves or another ring of the
//! polygon (`Self-intersection`), a ring that touches itself at a point (`Ring Self-intersection`), a hole
//! outside its shell and holes nested in holes. Not checked: whether the parts of a multipolygon overlap each
//! other, and whether rings touching at several points disconnect the interior.
//!
//! Each polygon's own edges are compared pairwise when it has few of them and through an R-tree of edge
//! boxes (bulk-loaded) when it has many, so a 100,000-vertex outline costs about n log n, not n².
//! `geo`'s `Validation` trait was not used: it compares every edge with every other (n²) and does not say
//! where the fault is.

use std::cell::RefCell;

use geo::line_intersection::{line_intersection, LineIntersection};
use geo::{Coord, Line, LineString, MultiPolygon, Polygon};
use rstar::{RTree, RTreeObject, AABB};

/// Up to this many edges a polygon's edges are compared pairwise; above, through an R-tree.
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

struct Boxed(usize, AABB<[f64; 2]>);

impl RTreeObject for Boxed {
    type Envelope = AABB<[f64; 2]>;
    fn envelope(&self) -> Self::Envelope {
        self.1
    }
}

fn envelope(l: &Line<f64>) -> AABB<[f64; 2]> {
    AABB::from_corners([l.start.x, l.start.y], [l.end.x, l.end.y])
}

/// The first crossing or self-touch between the polygon's edges, in edge order; `edges` is room for them.
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
    let judge = |i: usize, j: usize| fault(&edges[i], &edges[j]);
    if edges.len() <= PAIRWISE_EDGES {
        return (0..edges.len()).find_map(|i| (i + 1..edges.len()).find_map(|j| judge(i, j)));
    }
    let tree = RTree::bulk_load(edges.iter().enumerate().map(|(i, e)| Boxed(i, envelope(&e.line))).collect());
    (0..edges.len()).find_map(|i| {
        let mut later: Vec<usize> = tree
            .locate_in_envelope_intersecting(&envelope(&edges[i].line))
            .map(|b| b.0)
            .filter(|&j| j > i)
            .collect();
        later.sort_unstable();
        later.into_iter().find_map(|j| judge(i, j))
    })
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
/// vertex of a hole off the other ring's boundary tells on which side the whole hole lies.
fn holes_inside(rings: &[Vec<Coord<f64>>]) -> Option<String> {
    let shell = &rings[0];
    for (h, hole) in rings.iter().enumerate().skip(1) {
        if let Some(p) = hole.iter().copied().find(|&p| !on_boundary(shell, p)) {
            if !inside(shell, p) {
                return Some(format!("Hole lies outside shell at {}", point(p)));
            }
        }
        for other in rings.iter().skip(h + 1) {
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

    /// A many-sided ring goes through the R-tree path: a valid circle passes, and one crossing planted
    /// among thousands of edges is found at the crossing computed by hand.
    #[test]
    fn large_rings_use_the_edge_tree() {
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
}
