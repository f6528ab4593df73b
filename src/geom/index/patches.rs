//! Where a polygon layer gives the same answer over a whole stretch of the map.
//!
//! A grid is laid over the layer, and every cell that an edge of any polygon comes near is set aside. Within
//! the other cells no boundary is crossed, nor between two of them that share a side, so each group of such
//! cells joined side to side (a *patch*) lies wholly inside or wholly outside each polygon. Which polygons
//! hold a patch is found once, at one point of it, by the exact test; a parcel or point that falls in one
//! patch then has its answer without a search of the edges. Near a boundary (and outside the grid) the exact
//! test answers as before.

use rstar::AABB;

use super::cells::CellGrid;
use super::Segment;

/// The most cells along each axis a box may span and still be answered from the grid.
const MAX_SPAN: usize = 3;

/// The mark of a cell that an edge comes near.
const NEAR_EDGE: u32 = u32::MAX;

/// The patches of a polygon layer (see the module's notes).
#[derive(Debug)]
pub(super) struct Patches {
    grid: CellGrid,
    /// Each cell's patch, row by row, or [`NEAR_EDGE`].
    cells: Vec<u32>,
    /// The polygons (their owners, sorted, without repeats) that hold each patch; `None` for a patch whose
    /// test point could not be placed in it.
    owners: Vec<Option<Vec<u32>>>,
}

impl Patches {
    /// The patches of the layer within `extent` whose boundaries are `edges`, the owners of each found by
    /// `containing` (the exact point test). `None` when the extent is not finite.
    pub(super) fn new<'a>(
        extent: &AABB<[f64; 2]>,
        edges: impl IntoIterator<Item = &'a Segment>,
        containing: impl Fn([f64; 2]) -> Vec<u32>,
    ) -> Option<Self> {
        let grid = CellGrid::over(extent.lower(), extent.upper())?;
        let mut patches = Patches { grid, cells: vec![0; grid.len()], owners: Vec::new() };
        for edge in edges {
            patches.mark_near(edge);
        }
        patches.join_cells(containing);
        Some(patches)
    }

    /// The owners of the polygons that hold every point of the box from `lo` to `hi`, when the box lies in
    /// one patch.
    pub(super) fn owners_of(&self, lo: [f64; 2], hi: [f64; 2]) -> Option<&[u32]> {
        let ((x0, y0), (x1, y1)) = (self.grid.cell_of(lo)?, self.grid.cell_of(hi)?);
        if x1 < x0 || y1 < y0 || x1 - x0 >= MAX_SPAN || y1 - y0 >= MAX_SPAN {
            return None;
        }
        let patch = self.cells[self.grid.at(x0, y0)];
        if patch == NEAR_EDGE {
            return None;
        }
        let one_patch = (y0..=y1).all(|y| (x0..=x1).all(|x| self.cells[self.grid.at(x, y)] == patch));
        one_patch.then(|| self.owners[patch as usize].as_deref()).flatten()
    }

    /// Marks the cells that `edge` comes near (see [`CellGrid::around`]).
    fn mark_near(&mut self, edge: &Segment) {
        let lo = [edge.a[0].min(edge.b[0]), edge.a[1].min(edge.b[1])];
        let hi = [edge.a[0].max(edge.b[0]), edge.a[1].max(edge.b[1])];
        let ((x0, x1), (y0, y1)) = self.grid.around(lo, hi);
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.cells[self.grid.at(x, y)] = NEAR_EDGE;
            }
        }
    }

    /// Numbers the patches (unmarked cells joined side to side) and finds the owners of each at the middle of
    /// its first cell.
    fn join_cells(&mut self, containing: impl Fn([f64; 2]) -> Vec<u32>) {
        const UNSEEN: u32 = 0;
        // Unmarked cells hold 0 (unseen) until their patch is numbered; patch k is stored as k + 1 meanwhile.
        let mut stack = Vec::new();
        let mut count = 0u32;
        for start in 0..self.cells.len() {
            if self.cells[start] != UNSEEN {
                continue;
            }
            count += 1;
            self.cells[start] = count;
            stack.push(start);
            while let Some(cell) = stack.pop() {
                let (columns, rows) = (self.grid.columns, self.grid.rows);
                let (x, y) = (cell % columns, cell / columns);
                let neighbours = [
                    (x > 0).then(|| cell - 1),
                    (x + 1 < columns).then(|| cell + 1),
                    (y > 0).then(|| cell - columns),
                    (y + 1 < rows).then(|| cell + columns),
                ];
                for next in neighbours.into_iter().flatten() {
                    if self.cells[next] == UNSEEN {
                        self.cells[next] = count;
                        stack.push(next);
                    }
                }
            }
            let (x, y) = (start % self.grid.columns, start / self.grid.columns);
            let middle = self.grid.middle(x, y);
            // The middle is found in its own cell unless the arithmetic strays; a patch whose test point
            // strays is left to the exact test.
            self.owners.push((self.grid.cell_of(middle) == Some((x, y))).then(|| containing(middle)));
        }
        for cell in &mut self.cells {
            if *cell != NEAR_EDGE {
                *cell -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::index::push_pieces;
    use geo::Coord;

    /// The edges of an axis-aligned square ring from `lo` to `hi`, owned by `owner`.
    fn square(lo: f64, hi: f64, owner: u32, out: &mut Vec<Segment>) {
        let corners = [(lo, lo), (hi, lo), (hi, hi), (lo, hi), (lo, lo)];
        push_pieces(corners.into_iter().map(|(x, y)| Coord { x, y }), owner, out);
    }

    /// A 20,000 ft square (owner 0) holding a 4,000 ft square (owner 1) in its middle: every answer below is
    /// worked by hand from the squares, with the exact test a plain comparison with their sides.
    #[test]
    fn a_box_away_from_every_edge_is_answered_from_its_patch() {
        let mut edges = Vec::new();
        square(0.0, 20_000.0, 0, &mut edges);
        square(8_000.0, 12_000.0, 1, &mut edges);
        let inside = |p: [f64; 2], lo: f64, hi: f64| (lo..=hi).contains(&p[0]) && (lo..=hi).contains(&p[1]);
        let exact = |p: [f64; 2]| -> Vec<u32> {
            [(0.0, 20_000.0, 0), (8_000.0, 12_000.0, 1)]
                .into_iter()
                .filter(|&(lo, hi, _)| inside(p, lo, hi))
                .map(|(_, _, owner)| owner)
                .collect()
        };
        let extent = AABB::from_corners([0.0, 0.0], [20_000.0, 20_000.0]);
        let patches = Patches::new(&extent, &edges, exact).expect("a finite extent");
        // 20,000 ft over at most 1,024 cells is under the 500 ft floor: cells of 500 ft, 40 + 2 a side.
        assert_eq!((patches.grid.side, patches.grid.columns, patches.grid.rows), (500.0, 42, 42));
        let one = |p: [f64; 2]| patches.owners_of(p, p).map(<[u32]>::to_vec);
        // Between the squares, inside the small one, and a parcel-sized box in each.
        assert_eq!(one([4_000.0, 4_000.0]), Some(vec![0]));
        assert_eq!(one([10_000.0, 10_000.0]), Some(vec![0, 1]));
        assert_eq!(patches.owners_of([3_000.0, 3_000.0], [3_100.0, 3_200.0]), Some(&[0][..]));
        assert_eq!(patches.owners_of([9_900.0, 9_900.0], [10_100.0, 10_200.0]), Some(&[0, 1][..]));
        // Within a cell of an edge (the small square's side at x = 8,000 ft, the outer one at 0) the exact
        // test must answer.
        assert_eq!(one([8_300.0, 10_000.0]), None);
        assert_eq!(one([7_700.0, 10_000.0]), None);
        assert_eq!(one([300.0, 10_000.0]), None);
        // A box across the small square's side, one spanning more than three cells, and one off the grid.
        assert_eq!(patches.owners_of([7_000.0, 10_000.0], [9_000.0, 10_100.0]), None);
        assert_eq!(patches.owners_of([3_000.0, 3_000.0], [5_000.0, 3_100.0]), None);
        assert_eq!(one([-5_000.0, 4_000.0]), None);
        assert_eq!(one([f64::NAN, 4_000.0]), None);
    }

    /// An edge with a NaN end marks its whole row band and column band: nothing is known of where it runs.
    #[test]
    fn an_edge_of_unknown_place_marks_what_it_might_cross() {
        let mut edges = Vec::new();
        square(0.0, 20_000.0, 0, &mut edges);
        edges.push(Segment { a: [f64::NAN, 10_000.0], b: [f64::NAN, 10_000.0], owner: 1 });
        let extent = AABB::from_corners([0.0, 0.0], [20_000.0, 20_000.0]);
        let patches = Patches::new(&extent, &edges, |_| vec![0]).expect("a finite extent");
        assert_eq!(patches.owners_of([4_000.0, 10_000.0], [4_000.0, 10_000.0]), None);
        assert_eq!(patches.owners_of([4_000.0, 4_000.0], [4_000.0, 4_000.0]), Some(&[0][..]));
    }
}
