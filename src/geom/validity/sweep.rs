//! "Do any two edges of a polygon meet where they may not?" in O(n log n): the Shamos–Hoey sweep.
//!
//! A vertical line sweeps the edges from left to right (points in (x, y) order, so that a vertical edge runs
//! upwards), keeping the edges it crosses in their order from bottom to top in a treap. Two edges that cross
//! at a point that is no vertex are neighbours in that order just before the crossing, so each edge is
//! compared only with the edges that become its neighbours. Every other fault lies at a vertex `p`: there
//! the edges through `p` are a run of the order, and they are compared with each other by ring (two edges
//! of one ring meeting at `p` that do not follow each other) and by direction (two edges leaving `p` the
//! same way overlap). Whether a pair is a fault is [`super::fault`]'s call, as it is for the every-pair check.
//!
//! Orientations are exact (`geo`'s robust kernel), so the order of the swept edges is never contradicted by
//! rounding.

use std::cmp::Ordering;

use geo::kernels::{Kernel, Orientation, RobustKernel};
use geo::Coord;

use super::{fault, Edge};

/// No node.
const NIL: u32 = u32::MAX;

/// The first fault the sweep meets among `edges`, or `None` when no two edges meet where they may not.
/// Every coordinate must be finite.
pub(super) fn first_fault(edges: &[Edge]) -> Option<String> {
    let segments: Vec<Segment> = edges.iter().map(Segment::new).collect();
    let mut events: Vec<(Coord<f64>, u32)> = Vec::with_capacity(2 * edges.len());
    for (i, s) in segments.iter().enumerate() {
        events.push((s.left, i as u32));
        events.push((s.right, i as u32));
    }
    events.sort_unstable_by(|a, b| order(a.0, b.0).then(a.1.cmp(&b.1)));
    let mut sweep = Sweep { edges, segments: &segments, status: Treap::new(edges.len()), group: Vec::new() };
    let mut at = 0;
    while at < events.len() {
        let p = events[at].0;
        let end = at + events[at..].iter().take_while(|e| e.0 == p).count();
        if let Some(reason) = sweep.point(p, &events[at..end]) {
            return Some(reason);
        }
        at = end;
    }
    None
}

/// Points in sweep order: by x, then y.
fn order(a: Coord<f64>, b: Coord<f64>) -> Ordering {
    a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y))
}

/// An edge from its first point in sweep order to its last.
#[derive(Clone, Copy)]
struct Segment {
    left: Coord<f64>,
    right: Coord<f64>,
}

impl Segment {
    fn new(edge: &Edge) -> Self {
        // -0.0 and 0.0 are one point.
        let (a, b) = (plus_zero(edge.line.start), plus_zero(edge.line.end));
        match order(a, b) {
            Ordering::Greater => Segment { left: b, right: a },
            _ => Segment { left: a, right: b },
        }
    }

    /// Which side of the segment's line `p` is on: `Greater` above (to the left going rightwards).
    fn side(&self, p: Coord<f64>) -> Ordering {
        match RobustKernel::orient2d(self.left, self.right, p) {
            Orientation::CounterClockwise => Ordering::Greater,
            Orientation::Clockwise => Ordering::Less,
            Orientation::Collinear => Ordering::Equal,
        }
    }
}

fn plus_zero(c: Coord<f64>) -> Coord<f64> {
    Coord { x: c.x + 0.0, y: c.y + 0.0 }
}

struct Sweep<'a> {
    edges: &'a [Edge],
    segments: &'a [Segment],
    status: Treap,
    /// The edges through the current point, reused between points.
    group: Vec<u32>,
}

impl Sweep<'_> {
    fn fault(&self, a: u32, b: u32) -> Option<String> {
        let (a, b) = (a.min(b), a.max(b));
        fault(&self.edges[a as usize], &self.edges[b as usize])
    }

    /// The edges of the status through `p`, from the bottom: the run where `p` is on the edge, and the
    /// edges just below and just above that run.
    fn through(&self, p: Coord<f64>, run: &mut Vec<u32>) -> (u32, u32) {
        run.clear();
        let first = self.status.first(|t| self.segments[t as usize].side(p) != Ordering::Greater);
        let below = if first == NIL { self.status.last() } else { self.status.prev(first) };
        let mut t = first;
        while t != NIL && self.segments[t as usize].side(p) == Ordering::Equal {
            run.push(t);
            t = self.status.next(t);
        }
        (below, t)
    }

    /// Takes the vertex `p` with the edges that start or end there; the first fault found at or next to it.
    fn point(&mut self, p: Coord<f64>, events: &[(Coord<f64>, u32)]) -> Option<String> {
        let mut group = std::mem::take(&mut self.group);
        self.through(p, &mut group);
        let ends = |e: u32| self.segments[e as usize].right == p;
        // Two edges passing through p cross there, or overlap.
        let mut passing = group.iter().copied().filter(|&e| !ends(e));
        if let (Some(a), Some(b)) = (passing.next(), passing.next()) {
            if let Some(reason) = self.fault(a, b) {
                return Some(reason);
            }
        }
        let starting: Vec<u32> =
            events.iter().map(|e| e.1).filter(|&e| self.segments[e as usize].left == p).collect();
        // Two edges of one ring at p that do not follow each other touch there. Of three edges of a ring
        // at one point, two do not follow each other unless the ring has three edges, all compared here.
        let mut here: Vec<u32> = group.iter().copied().chain(starting.iter().copied()).collect();
        here.sort_unstable_by_key(|&e| (self.edges[e as usize].ring, e));
        for ring in here.chunk_by(|&a, &b| self.edges[a as usize].ring == self.edges[b as usize].ring) {
            let ring = &ring[..ring.len().min(3)];
            for (i, &a) in ring.iter().enumerate() {
                if let Some(reason) = ring[i + 1..].iter().find_map(|&b| self.fault(a, b)) {
                    return Some(reason);
                }
            }
        }
        // Two edges leaving p the same way overlap (an overlap is found at its first point).
        let mut leaving: Vec<u32> =
            group.iter().copied().filter(|&e| !ends(e)).chain(starting.iter().copied()).collect();
        leaving.sort_unstable_by(|&a, &b| self.direction(p, a, b));
        for w in leaving.windows(2) {
            if self.direction(p, w[0], w[1]) == Ordering::Equal {
                if let Some(reason) = self.fault(w[0], w[1]) {
                    return Some(reason);
                }
            }
        }
        for &e in group.iter().filter(|&&e| ends(e)) {
            self.status.remove(e);
        }
        for &s in &starting {
            let segment = self.segments[s as usize];
            self.status.insert(s, |t| {
                let t = &self.segments[t as usize];
                t.side(segment.left).then_with(|| t.side(segment.right)) == Ordering::Greater
            });
        }
        // The edges through p now (those passing it and those starting there) are new neighbours of the
        // edges just below and above them, or, when there are none, those two are of each other.
        let (below, above) = self.through(p, &mut group);
        let pairs = match (group.first(), group.last()) {
            (Some(&low), Some(&high)) => [(below, low), (high, above)],
            _ => [(below, above), (NIL, NIL)],
        };
        let found = pairs.iter().filter(|&&(a, b)| a != NIL && b != NIL).find_map(|&(a, b)| self.fault(a, b));
        self.group = group;
        found
    }

    /// The order of two edges leaving `p` (rightwards) by their direction, from downwards to upwards; `Equal`
    /// when they leave the same way.
    fn direction(&self, p: Coord<f64>, a: u32, b: u32) -> Ordering {
        let (a, b) = (self.segments[a as usize].right, self.segments[b as usize].right);
        match RobustKernel::orient2d(p, a, b) {
            Orientation::CounterClockwise => Ordering::Less,
            Orientation::Clockwise => Ordering::Greater,
            Orientation::Collinear => Ordering::Equal,
        }
    }
}

/// A treap of edges in their order along the sweep line: node `i` is edge `i`, with parent links so that an
/// edge's neighbours and its removal need no comparison.
struct Treap {
    nodes: Vec<Node>,
    root: u32,
}

#[derive(Clone, Copy)]
struct Node {
    left: u32,
    right: u32,
    parent: u32,
    priority: u32,
}

impl Treap {
    fn new(n: usize) -> Self {
        let node = |i: usize| {
            // A fixed hash of the index (splitmix64) as the heap priority: the tree is balanced in expectation
            // whatever order the edges come in, and the same polygon gives the same tree.
            let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            Node { left: NIL, right: NIL, parent: NIL, priority: (z >> 32) as u32 }
        };
        Treap { nodes: (0..n).map(node).collect(), root: NIL }
    }

    fn n(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    /// The first node (in order) for which `past` holds, `past` being false then true along the order.
    fn first(&self, past: impl Fn(u32) -> bool) -> u32 {
        let (mut t, mut found) = (self.root, NIL);
        while t != NIL {
            let node = self.nodes[t as usize];
            if past(t) {
                found = t;
                t = node.left;
            } else {
                t = node.right;
            }
        }
        found
    }

    fn last(&self) -> u32 {
        let mut t = self.root;
        while t != NIL && self.nodes[t as usize].right != NIL {
            t = self.nodes[t as usize].right;
        }
        t
    }

    fn next(&self, t: u32) -> u32 {
        self.step(t, true)
    }

    fn prev(&self, t: u32) -> u32 {
        self.step(t, false)
    }

    /// The child of `t` on the right (`right`) or on the left.
    fn child(&self, t: u32, right: bool) -> u32 {
        let node = &self.nodes[t as usize];
        if right {
            node.right
        } else {
            node.left
        }
    }

    /// The node after `t` in the order (`forward`) or before it.
    fn step(&self, mut t: u32, forward: bool) -> u32 {
        if self.child(t, forward) != NIL {
            t = self.child(t, forward);
            while self.child(t, !forward) != NIL {
                t = self.child(t, !forward);
            }
            return t;
        }
        while self.nodes[t as usize].parent != NIL {
            let p = self.nodes[t as usize].parent;
            if self.child(p, !forward) == t {
                return p;
            }
            t = p;
        }
        NIL
    }

    /// Puts `x` in the order after every node for which `below` holds and before the others.
    fn insert(&mut self, x: u32, below: impl Fn(u32) -> bool) {
        let (mut parent, mut t, mut right) = (NIL, self.root, false);
        while t != NIL {
            parent = t;
            right = below(t);
            t = if right { self.nodes[t as usize].right } else { self.nodes[t as usize].left };
        }
        *self.n(x) = Node { left: NIL, right: NIL, parent, priority: self.nodes[x as usize].priority };
        match parent {
            NIL => self.root = x,
            p if right => self.n(p).right = x,
            p => self.n(p).left = x,
        }
        while self.nodes[x as usize].parent != NIL
            && self.nodes[x as usize].priority < self.nodes[self.nodes[x as usize].parent as usize].priority
        {
            self.rotate_up(x);
        }
    }

    fn remove(&mut self, x: u32) {
        loop {
            let Node { left, right, .. } = self.nodes[x as usize];
            let child = match (left, right) {
                (NIL, NIL) => break,
                (c, NIL) | (NIL, c) => c,
                (l, r) if self.nodes[l as usize].priority < self.nodes[r as usize].priority => l,
                (_, r) => r,
            };
            self.rotate_up(child);
        }
        let parent = self.nodes[x as usize].parent;
        match parent {
            NIL => self.root = NIL,
            p if self.nodes[p as usize].left == x => self.n(p).left = NIL,
            p => self.n(p).right = NIL,
        }
        self.n(x).parent = NIL;
    }

    /// Rotates `x` above its parent, keeping the order.
    fn rotate_up(&mut self, x: u32) {
        let p = self.nodes[x as usize].parent;
        let g = self.nodes[p as usize].parent;
        if self.nodes[p as usize].left == x {
            let inner = self.nodes[x as usize].right;
            self.n(p).left = inner;
            if inner != NIL {
                self.n(inner).parent = p;
            }
            self.n(x).right = p;
        } else {
            let inner = self.nodes[x as usize].left;
            self.n(p).right = inner;
            if inner != NIL {
                self.n(inner).parent = p;
            }
            self.n(x).left = p;
        }
        self.n(p).parent = x;
        self.n(x).parent = g;
        match g {
            NIL => self.root = x,
            g if self.nodes[g as usize].left == p => self.n(g).left = x,
            g => self.n(g).right = x,
        }
    }
}
