//! R-trees over the layers a parcel is tested against: shoreline pieces and polygon areas; and a grid of
//! points ([`PointGrid`]), the systems' points a lot is asked about.
//!
//! Everything here works in the projected, feet-based working CRS. Long boundaries (a lake shore, a watershed
//! outline of 10,000 vertices) are indexed edge by edge, and edges longer than [`MAX_PIECE_FT`] are split, so
//! a query touches the few edges near the parcel instead of the whole outline. Trees are built once with
//! [`RTree::bulk_load`] and then only read, from both cores.

use std::borrow::Cow;
use std::collections::BinaryHeap;

use geo::{MultiPolygon, Polygon};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{Envelope, PointDistance, RTree, RTreeObject, AABB};

use crate::geom::planar::{in_polygon, point_segment_distance_2, segment_area_distance};

mod cells;
mod far;
mod patches;
mod points;

use patches::Patches;
pub use points::PointGrid;

/// Edges longer than this are split before indexing, so that no tree entry has a huge bounding box.
pub const MAX_PIECE_FT: f64 = 200.0;

/// How far [`LineIndex::nearest_to_area`] looks first: two pieces' length.
pub const FIRST_REACH_FT: f64 = 2.0 * MAX_PIECE_FT;

/// One straight piece of a boundary or line, remembering which feature it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Start point (x, y).
    pub a: [f64; 2],
    /// End point (x, y).
    pub b: [f64; 2],
    /// Index of the feature (lake, polygon) the piece belongs to.
    pub owner: u32,
}

impl RTreeObject for Segment {
    type Envelope = AABB<[f64; 2]>;

    fn envelope(&self) -> Self::Envelope {
        AABB::from_corners(self.a, self.b)
    }
}

impl PointDistance for Segment {
    fn distance_2(&self, p: &[f64; 2]) -> f64 {
        point_segment_distance_2(*p, self.a, self.b)
    }
}

/// The most pieces one edge is split into. Splitting only keeps tree entries small; distances are exact on
/// pieces of any length, so an absurdly long edge (a damaged coordinate) is split no further than this rather
/// than into billions of pieces.
const MAX_PIECES_PER_EDGE: f64 = 1024.0;

/// Appends the pieces of the polyline `coords` to `out`, splitting edges longer than [`MAX_PIECE_FT`] (into at
/// most `MAX_PIECES_PER_EDGE` pieces).
pub fn push_pieces(coords: impl IntoIterator<Item = geo::Coord<f64>>, owner: u32, out: &mut Vec<Segment>) {
    let mut prev: Option<geo::Coord<f64>> = None;
    for c in coords {
        if let Some(p) = prev {
            let length = ((c.x - p.x).powi(2) + (c.y - p.y).powi(2)).sqrt();
            // NaN (from non-finite input) becomes 1 piece through `max`.
            let n = (length / MAX_PIECE_FT).ceil().clamp(1.0, MAX_PIECES_PER_EDGE) as usize;
            for k in 0..n {
                let (t0, t1) = (k as f64 / n as f64, (k + 1) as f64 / n as f64);
                let at = |t: f64| [p.x + (c.x - p.x) * t, p.y + (c.y - p.y) * t];
                // The last piece ends exactly on the vertex, so consecutive edges stay connected.
                let end = if k + 1 == n { [c.x, c.y] } else { at(t1) };
                out.push(Segment { a: at(t0), b: end, owner });
            }
        }
        prev = Some(c);
    }
}

/// The envelope of a multipolygon grown by `margin` on every side, or `None` when it has no coordinates.
pub fn grown_envelope(shape: &MultiPolygon<f64>, margin: f64) -> Option<AABB<[f64; 2]>> {
    use geo::BoundingRect;
    let r = shape.bounding_rect()?;
    Some(AABB::from_corners(
        [r.min().x - margin, r.min().y - margin],
        [r.max().x + margin, r.max().y + margin],
    ))
}

/// An index of lines (shorelines) answering "how far is the nearest one, if within a radius".
#[derive(Debug)]
pub struct LineIndex {
    tree: RTree<Segment>,
    /// The cells no piece comes near, for queries within the reach they were made for.
    far: Option<far::FarCells>,
}

/// The nearest line found by a [`LineIndex`] query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nearest {
    /// Exact distance in feet.
    pub distance_ft: f64,
    /// Owner index of the nearest piece.
    pub owner: u32,
}

impl LineIndex {
    /// Builds the index from pieces (see [`push_pieces`]).
    pub fn new(pieces: Vec<Segment>) -> Self {
        LineIndex { tree: RTree::bulk_load(pieces), far: None }
    }

    /// Builds the index from pieces, for queries within `reach_ft` mostly: a grid of the cells no piece comes
    /// within that reach of answers "none" for them without a search (see `index::far`).
    pub fn within(pieces: Vec<Segment>, reach_ft: f64) -> Self {
        let far = far::FarCells::new(&pieces, reach_ft);
        LineIndex { tree: RTree::bulk_load(pieces), far }
    }

    /// Whether the grid knows that no piece lies within `radius_ft` of the box from `lo` to `hi`.
    fn all_far(&self, lo: [f64; 2], hi: [f64; 2], radius_ft: f64) -> bool {
        self.far.as_ref().is_some_and(|far| far.all_far(lo, hi, radius_ft))
    }

    /// Number of indexed pieces.
    pub fn len(&self) -> usize {
        self.tree.size()
    }

    /// Whether the index has no pieces.
    pub fn is_empty(&self) -> bool {
        self.tree.size() == 0
    }

    /// The nearest line to the polygon `shape` when it is within `radius_ft`, with the exact distance
    /// (0 when a line touches or crosses the polygon).
    ///
    /// The search reaches out from the parcel [`FIRST_REACH_FT`] first, then four times as far each time
    /// up to the radius: a line found within a reach is the nearest of all, since any nearer one lies within
    /// that reach too. A parcel on the shore so looks at the few pieces beside it, not at every piece within
    /// the whole radius.
    pub fn nearest_to_area(&self, shape: &MultiPolygon<f64>, radius_ft: f64) -> Option<Nearest> {
        if radius_ft.is_nan() || self.tree.size() == 0 {
            return None;
        }
        let bounds = grown_envelope(shape, 0.0)?;
        if self.all_far(bounds.lower(), bounds.upper(), radius_ft) {
            return None;
        }
        let mut reach = radius_ft.min(FIRST_REACH_FT);
        loop {
            let best = self.nearest_within(shape, &bounds, reach);
            if best.is_some() || reach >= radius_ft {
                return best;
            }
            reach = (reach * 4.0).min(radius_ft);
        }
    }

    /// The nearest line within `reach_ft` of the polygon `shape` whose bounding box is `bounds`.
    fn nearest_within(
        &self,
        shape: &MultiPolygon<f64>,
        bounds: &AABB<[f64; 2]>,
        reach_ft: f64,
    ) -> Option<Nearest> {
        let (lo, hi) = (bounds.lower(), bounds.upper());
        let envelope =
            AABB::from_corners([lo[0] - reach_ft, lo[1] - reach_ft], [hi[0] + reach_ft, hi[1] + reach_ft]);
        // Candidates nearest first by the gap between their box and the parcel's, a lower bound of the true
        // distance: once that bound passes the best exact distance found, no later piece can beat it. A heap,
        // not a sort, as the first few candidates decide; the answer does not depend on the order among
        // candidates of one gap, since `better` is a total order.
        let mut candidates: BinaryHeap<Candidate<'_>> = self
            .tree
            .locate_in_envelope_intersecting(&envelope)
            .map(|piece| Candidate { gap_2: box_gap_2(bounds, &piece.envelope()), piece })
            .collect();
        let mut best: Option<Nearest> = None;
        while let Some(Candidate { gap_2, piece }) = candidates.pop() {
            if best.is_some_and(|b| gap_2 > b.distance_ft * b.distance_ft) {
                break;
            }
            let distance_ft = segment_area_distance(piece.a, piece.b, shape);
            if distance_ft <= reach_ft && best.is_none_or(|b| better(distance_ft, piece.owner, b)) {
                best = Some(Nearest { distance_ft, owner: piece.owner });
            }
        }
        best
    }

    /// The nearest line to the segment from `a` to `b` when it is within `radius_ft`, with the exact distance
    /// (0 when they cross).
    pub fn nearest_to_segment(&self, a: [f64; 2], b: [f64; 2], radius_ft: f64) -> Option<Nearest> {
        let lo = [a[0].min(b[0]), a[1].min(b[1])];
        let hi = [a[0].max(b[0]), a[1].max(b[1])];
        if self.all_far(lo, hi, radius_ft) {
            return None;
        }
        let lo = [lo[0] - radius_ft, lo[1] - radius_ft];
        let hi = [hi[0] + radius_ft, hi[1] + radius_ft];
        let mut best: Option<Nearest> = None;
        for piece in self.tree.locate_in_envelope_intersecting(&AABB::from_corners(lo, hi)) {
            let distance_ft = crate::geom::planar::segment_distance_2(a, b, piece.a, piece.b).sqrt();
            if distance_ft <= radius_ft && best.is_none_or(|x| better(distance_ft, piece.owner, x)) {
                best = Some(Nearest { distance_ft, owner: piece.owner });
            }
        }
        best
    }

    /// The nearest line to the point `p` when it is within `radius_ft`, with the exact distance.
    ///
    /// Most points (systems far from the water) have no line within the radius, and a box query finds that
    /// without the heap of a nearest-neighbour walk; a box crowded with lines (a large radius) is left to the
    /// walk. Both find the same line at the same distance.
    pub fn nearest_to_point(&self, p: [f64; 2], radius_ft: f64) -> Option<Nearest> {
        const CROWDED: usize = 256;
        if self.all_far(p, p, radius_ft) {
            return None;
        }
        let radius_2 = radius_ft * radius_ft;
        let area =
            AABB::from_corners([p[0] - radius_ft, p[1] - radius_ft], [p[0] + radius_ft, p[1] + radius_ft]);
        let mut best: Option<Nearest> = None;
        for (seen, piece) in self.tree.locate_in_envelope_intersecting(&area).enumerate() {
            if seen == CROWDED {
                return self.nearest_to_point_walking(p, radius_ft);
            }
            let distance_2 = piece.distance_2(&p);
            if distance_2 <= radius_2 {
                let distance_ft = distance_2.sqrt();
                if best.is_none_or(|b| better(distance_ft, piece.owner, b)) {
                    best = Some(Nearest { distance_ft, owner: piece.owner });
                }
            }
        }
        best
    }

    /// [`LineIndex::nearest_to_point`] by walking the tree nearest first.
    fn nearest_to_point_walking(&self, p: [f64; 2], radius_ft: f64) -> Option<Nearest> {
        let radius_2 = radius_ft * radius_ft;
        let mut best: Option<Nearest> = None;
        for (piece, distance_2) in self.tree.nearest_neighbor_iter_with_distance_2(&p) {
            if distance_2 > radius_2 {
                break;
            }
            let distance_ft = distance_2.sqrt();
            if let Some(b) = best {
                if distance_ft > b.distance_ft {
                    break;
                }
            }
            if best.is_none_or(|b| better(distance_ft, piece.owner, b)) {
                best = Some(Nearest { distance_ft, owner: piece.owner });
            }
        }
        best
    }
}

/// Squared distance between two boxes (0 when they overlap).
fn box_gap_2(a: &AABB<[f64; 2]>, b: &AABB<[f64; 2]>) -> f64 {
    let gap =
        |axis: usize| (b.lower()[axis] - a.upper()[axis]).max(a.lower()[axis] - b.upper()[axis]).max(0.0);
    gap(0).powi(2) + gap(1).powi(2)
}

/// A piece of line that may be nearest to a parcel, with the squared gap between its box and the parcel's.
/// The heap of them pops the smallest gap first (ties by owner).
struct Candidate<'a> {
    gap_2: f64,
    piece: &'a Segment,
}

impl Ord for Candidate<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.gap_2.total_cmp(&self.gap_2)).then(other.piece.owner.cmp(&self.piece.owner))
    }
}

impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate<'_> {}

/// Ties between equally near lines go to the lower owner index, so results do not depend on tree order.
fn better(distance_ft: f64, owner: u32, than: Nearest) -> bool {
    distance_ft < than.distance_ft || (distance_ft == than.distance_ft && owner < than.owner)
}

/// An index of polygons (watersheds, flood zones, towns, sewer districts, the county) answering "which
/// contain this point" and "which intersect this parcel" exactly.
///
/// It is built from borrowed polygons and keeps copies only of the small ones, which it tests directly; a
/// large outline is answered from its edges alone, so the layer it was built from (kept by the run for maps
/// and buffer reports) is not held twice.
#[derive(Debug)]
pub struct AreaIndex {
    /// Each polygon with at most [`SMALL_RING`] exterior points and no holes, tested directly; `None` for
    /// larger ones, tested through `edges`.
    small: Vec<Option<Polygon<f64>>>,
    /// Envelope of each polygon, computed once.
    bounds: Vec<AABB<[f64; 2]>>,
    /// Owner (feature index) of each polygon: a multipolygon feature contributes several polygons.
    owners: Vec<u32>,
    envelopes: RTree<GeomWithData<Rectangle<[f64; 2]>, u32>>,
    /// Every ring edge, with the index of its polygon (in `bounds`) as its owner.
    edges: RTree<Segment>,
    /// The stretches of the map away from every edge, each answered once (none for a layer without
    /// polygons).
    patches: Option<Patches>,
}

/// The most exterior points of a polygon (without holes) tested point by point rather than through the edge
/// tree.
const SMALL_RING: usize = 64;

impl AreaIndex {
    /// Builds the index from `(polygons, owner)` pairs, a feature's polygons each (see
    /// [`crate::geom::planar::polygons`]); polygons of fewer than four points are skipped.
    pub fn new<'a>(shapes: impl IntoIterator<Item = (&'a [Polygon<f64>], u32)>) -> Self {
        let mut small = Vec::new();
        let mut bounds = Vec::new();
        let mut owners = Vec::new();
        let mut envelopes = Vec::new();
        let mut edges = Vec::new();
        for (polygon, owner) in
            shapes.into_iter().flat_map(|(parts, owner)| parts.iter().map(move |p| (p, owner)))
        {
            if polygon.exterior().0.len() < 4 {
                continue;
            }
            let i = bounds.len() as u32;
            // Every polygon here has at least four exterior coordinates, so it has an envelope.
            let env =
                AABB::from_points(polygon.exterior().0.iter().map(|c| [c.x, c.y]).collect::<Vec<_>>().iter());
            envelopes.push(GeomWithData::new(Rectangle::from_aabb(env), i));
            bounds.push(env);
            owners.push(owner);
            for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
                push_pieces(ring.0.iter().copied(), i, &mut edges);
            }
            let direct = polygon.exterior().0.len() <= SMALL_RING && polygon.interiors().is_empty();
            small.push(direct.then(|| polygon.clone()));
        }
        let mut index = AreaIndex {
            small,
            bounds,
            owners,
            envelopes: RTree::bulk_load(envelopes),
            edges: RTree::bulk_load(edges),
            patches: None,
        };
        let extent = index.bounds.iter().copied().reduce(|a, b| a.merged(&b));
        index.patches = extent.and_then(|extent| {
            Patches::new(&extent, index.edges.iter(), |p| index.containing(p).into_owned())
        });
        index
    }

    /// Whether the index holds no polygon.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// Owners of the polygons containing `p` (boundary points may go either way), sorted and deduplicated;
    /// borrowed from the patches when `p` lies in one, so most answers allocate nothing.
    pub fn containing(&self, p: [f64; 2]) -> Cow<'_, [u32]> {
        if let Some(owners) = self.patches.as_ref().and_then(|patches| patches.owners_of(p, p)) {
            return Cow::Borrowed(owners);
        }
        let mut found: Vec<u32> = self
            .envelopes
            .locate_all_at_point(&p)
            .filter(|e| self.polygon_contains(e.data as usize, p))
            .map(|e| self.owners[e.data as usize])
            .collect();
        found.sort_unstable();
        found.dedup();
        Cow::Owned(found)
    }

    /// Owners of the polygons that share any point with `shape`, sorted and deduplicated; borrowed from the
    /// patches when the parcel's box lies in one.
    pub fn intersecting(&self, shape: &MultiPolygon<f64>) -> Cow<'_, [u32]> {
        let Some(envelope) = grown_envelope(shape, 0.0) else { return Cow::Borrowed(&[]) };
        let patch =
            self.patches.as_ref().and_then(|patches| patches.owners_of(envelope.lower(), envelope.upper()));
        if let Some(owners) = patch {
            return Cow::Borrowed(owners);
        }
        let mut found: Vec<u32> = self
            .envelopes
            .locate_in_envelope_intersecting(&envelope)
            .filter(|e| self.polygon_intersects(e.data as usize, shape, &envelope))
            .map(|e| self.owners[e.data as usize])
            .collect();
        found.sort_unstable();
        found.dedup();
        Cow::Owned(found)
    }

    fn polygon_intersects(&self, i: usize, shape: &MultiPolygon<f64>, envelope: &AABB<[f64; 2]>) -> bool {
        // Either a vertex of some part of the parcel lies inside polygon i, or an edge of polygon i enters
        // the parcel (crossing its boundary or lying inside it); there is no third way to share a point.
        let vertex_inside = shape
            .0
            .iter()
            .filter_map(|part| part.exterior().0.first())
            .any(|c| self.polygon_contains(i, [c.x, c.y]));
        vertex_inside
            || self
                .edges
                .locate_in_envelope_intersecting(envelope)
                .filter(|edge| edge.owner as usize == i)
                .any(|edge| segment_area_distance(edge.a, edge.b, shape) == 0.0)
    }

    /// Point-in-polygon by counting the polygon's edges crossed by a ray from `p` to the nearest side of its
    /// envelope; the ray's thin box is what the edge tree is asked for, so only edges near the ray are read.
    fn polygon_contains(&self, i: usize, p: [f64; 2]) -> bool {
        if let Some(polygon) = &self.small[i] {
            return in_polygon(p, polygon);
        }
        // One foot beyond the envelope, so the ray always ends outside the polygon.
        let (lo, hi) = (self.bounds[i].lower(), self.bounds[i].upper());
        let (lo, hi) = ([lo[0] - 1.0, lo[1] - 1.0], [hi[0] + 1.0, hi[1] + 1.0]);
        // Distances to the four sides; the ray runs along the axis of the nearest one.
        let sides = [hi[0] - p[0], p[0] - lo[0], hi[1] - p[1], p[1] - lo[1]];
        let side = (0..4).min_by(|&a, &b| sides[a].total_cmp(&sides[b])).unwrap_or(0);
        let (axis, positive) = (side / 2, side % 2 == 0);
        let (along, across) = (axis, 1 - axis);
        let mut end = p;
        end[along] = if positive { hi[along] } else { lo[along] };
        let ray = AABB::from_corners(p, end);
        let mut crossings = 0usize;
        for edge in self.edges.locate_in_envelope_intersecting(&ray) {
            if edge.owner as usize != i {
                continue;
            }
            let (a, b) = (edge.a, edge.b);
            if (a[across] > p[across]) != (b[across] > p[across]) {
                let t = (p[across] - a[across]) / (b[across] - a[across]);
                let at = a[along] + t * (b[along] - a[along]);
                if (positive && at > p[along]) || (!positive && at < p[along]) {
                    crossings += 1;
                }
            }
        }
        crossings % 2 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::{polygon, LineString};

    fn square(x0: f64, y0: f64, size: f64) -> MultiPolygon<f64> {
        MultiPolygon(vec![polygon![
            (x: x0, y: y0), (x: x0 + size, y: y0), (x: x0 + size, y: y0 + size), (x: x0, y: y0 + size),
        ]])
    }

    #[test]
    fn long_edges_are_split_and_stay_connected() {
        let mut out = Vec::new();
        push_pieces(LineString::from(vec![(0.0, 0.0), (1000.0, 0.0)]).0, 7, &mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(out[0].a, [0.0, 0.0]);
        assert_eq!(out[4].b, [1000.0, 0.0]);
        assert!(out.windows(2).all(|w| w[0].b == w[1].a));
        assert!(out.iter().all(|s| s.owner == 7));
    }

    #[test]
    fn a_damaged_far_vertex_splits_its_edge_into_a_bounded_number_of_pieces() {
        // 1e200 ft (a damaged coordinate) would otherwise be 5e197 pieces; infinity and NaN give one.
        for far in [1e200, f64::MAX, f64::INFINITY, f64::NAN] {
            let mut out = Vec::new();
            push_pieces(LineString::from(vec![(0.0, 0.0), (far, 0.0), (0.0, 10.0)]).0, 0, &mut out);
            assert!(out.len() <= 2 * MAX_PIECES_PER_EDGE as usize, "{far}: {}", out.len());
        }
        // The distance to a long edge is still exact.
        let mut pieces = Vec::new();
        push_pieces(LineString::from(vec![(0.0, 0.0), (1e12, 0.0)]).0, 0, &mut pieces);
        let hit = LineIndex::new(pieces).nearest_to_point([5e11, 30.0], 100.0).unwrap();
        assert_eq!(hit.distance_ft, 30.0);
    }

    /// The box query, the nearest-first walk and a scan of every piece find the same line at the same
    /// distance, ties going to the lower owner: lines crowded or sparse, points near and far.
    #[test]
    fn the_nearest_line_to_a_point_is_the_same_found_any_way() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move |scale: f64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 * scale
        };
        for lines in [3, 40, 2_000] {
            let mut pieces = Vec::new();
            for owner in 0..lines {
                let (x0, y0) = (next(20_000.0), next(20_000.0));
                // Some lines repeat others, so that ties between owners occur.
                let (x1, y1) =
                    if owner % 7 == 6 { (x0, y0 + 300.0) } else { (x0 + next(600.0), y0 + next(600.0)) };
                push_pieces(LineString::from(vec![(x0, y0), (x1, y1)]).0, owner, &mut pieces);
            }
            let every = pieces.clone();
            let index = LineIndex::new(pieces);
            for _ in 0..400 {
                let p = [next(22_000.0) - 1_000.0, next(22_000.0) - 1_000.0];
                for radius in [0.0, 50.0, 1_000.0, 30_000.0] {
                    let scanned = every
                        .iter()
                        .map(|s| (point_segment_distance_2(p, s.a, s.b).sqrt(), s.owner))
                        .filter(|&(d, _)| d <= radius)
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    let found = index.nearest_to_point(p, radius).map(|n| (n.distance_ft, n.owner));
                    let walked = index.nearest_to_point_walking(p, radius).map(|n| (n.distance_ft, n.owner));
                    assert_eq!(found, scanned, "{p:?} within {radius} of {lines} lines");
                    assert_eq!(walked, scanned, "{p:?} within {radius} of {lines} lines, walking");
                }
            }
        }
    }

    #[test]
    fn distance_from_parcel_to_shore_is_exact_not_envelope() {
        // A diagonal shore x + y = 1000 and a 10 ft square whose nearest corner is (490, 490):
        // the true distance is (1000 - 980) / sqrt(2) = 14.142 ft, although the envelopes overlap.
        let mut pieces = Vec::new();
        push_pieces(LineString::from(vec![(0.0, 1000.0), (1000.0, 0.0)]).0, 0, &mut pieces);
        let index = LineIndex::new(pieces);
        let parcel = square(480.0, 480.0, 10.0);
        let hit = index.nearest_to_area(&parcel, 500.0).unwrap();
        assert!((hit.distance_ft - 20.0 / 2f64.sqrt()).abs() < 1e-9, "{}", hit.distance_ft);
        assert!(index.nearest_to_area(&parcel, 14.0).is_none());
        let p = index.nearest_to_point([0.0, 0.0], 1000.0).unwrap();
        assert!((p.distance_ft - 1000.0 / 2f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn containing_respects_holes_and_large_rings() {
        // A 1000 ft square ring with many vertices (forcing the indexed ray test) and a hole in the middle.
        let mut outer: Vec<(f64, f64)> = (0..100).map(|k| (k as f64 * 10.0, 0.0)).collect();
        outer.extend((0..100).map(|k| (1000.0, k as f64 * 10.0)));
        outer.extend((0..100).map(|k| (1000.0 - k as f64 * 10.0, 1000.0)));
        outer.extend((0..100).map(|k| (0.0, 1000.0 - k as f64 * 10.0)));
        let hole = vec![(400.0, 400.0), (600.0, 400.0), (600.0, 600.0), (400.0, 600.0), (400.0, 400.0)];
        let donut = Polygon::new(LineString::from(outer), vec![LineString::from(hole)]);
        let index =
            AreaIndex::new([(std::slice::from_ref(&donut), 3), (&square(5000.0, 0.0, 10.0).0[..], 4)]);
        assert_eq!(index.containing([100.0, 500.0]), vec![3]);
        assert_eq!(index.containing([500.0, 500.0]), Vec::<u32>::new());
        assert_eq!(index.containing([990.0, 5.0]), vec![3]);
        assert_eq!(index.containing([1500.0, 500.0]), Vec::<u32>::new());
        assert_eq!(index.containing([5005.0, 5.0]), vec![4]);
        // Parcels: inside the hole (no), straddling the hole's edge (yes), around the whole donut (yes).
        assert!(index.intersecting(&square(450.0, 450.0, 50.0)).is_empty());
        assert_eq!(index.intersecting(&square(350.0, 450.0, 100.0)), vec![3]);
        assert_eq!(index.intersecting(&square(-100.0, -100.0, 6000.0)), vec![3, 4]);
    }
}
