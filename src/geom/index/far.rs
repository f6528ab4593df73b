//! Where no line comes within a reach: a grid over a line layer that answers "nothing near" at once.
//!
//! Most parcels of a county lie far from every shore, and a search of the tree for them finds nothing after
//! descending through the nodes whose boxes happen to cover them. Here every cell that any piece's box, grown
//! by the reach, overlaps is marked near; a box that overlaps only unmarked cells (or none of the grid, which
//! covers every grown box) has no piece within the reach of any of its points. A piece within the reach of a
//! box has a grown box that shares a point with it, and the cell of that point is marked (with one cell more
//! on every side, however the arithmetic rounds), so the answer is exact: a marked cell only sends the query
//! on to the tree.

use rstar::RTreeObject;

use super::cells::CellGrid;
use super::Segment;

/// The most cells a box may overlap and still be answered from the grid; a larger box goes to the tree.
const MAX_LOOKED_AT: usize = 64;

/// The cells of a line layer near some piece (see the module's notes).
#[derive(Debug)]
pub(super) struct FarCells {
    /// How far from a piece a cell counts as near, feet.
    reach_ft: f64,
    grid: CellGrid,
    /// Whether each cell, row by row, is within the reach of a piece.
    near: Vec<bool>,
}

impl FarCells {
    /// The grid of `pieces` for `reach_ft`; `None` without pieces, or when the reach or the extent is not
    /// finite.
    pub(super) fn new(pieces: &[Segment], reach_ft: f64) -> Option<Self> {
        if !(reach_ft.is_finite() && reach_ft >= 0.0) {
            return None;
        }
        let grown = |piece: &Segment| {
            let b = piece.envelope();
            let (lo, hi) = (b.lower(), b.upper());
            ([lo[0] - reach_ft, lo[1] - reach_ft], [hi[0] + reach_ft, hi[1] + reach_ft])
        };
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for (a, b) in pieces.iter().map(grown) {
            lo = [lo[0].min(a[0]), lo[1].min(a[1])];
            hi = [hi[0].max(b[0]), hi[1].max(b[1])];
        }
        let grid = CellGrid::over(lo, hi)?;
        let mut near = vec![false; grid.len()];
        for (a, b) in pieces.iter().map(grown) {
            let ((x0, x1), (y0, y1)) = grid.around(a, b);
            for y in y0..=y1 {
                near[grid.at(x0, y)..=grid.at(x1, y)].fill(true);
            }
        }
        Some(FarCells { reach_ft, grid, near })
    }

    /// Whether no piece lies within `reach_ft` of any point of the box from `lo` to `hi`: `false` whenever
    /// the grid cannot tell (a longer reach than it was made for, a box over many cells, a box not finite).
    pub(super) fn all_far(&self, lo: [f64; 2], hi: [f64; 2], reach_ft: f64) -> bool {
        if !(reach_ft <= self.reach_ft && lo[0] <= hi[0] && lo[1] <= hi[1]) {
            return false;
        }
        if !(lo.iter().chain(&hi).all(|v| v.is_finite())) {
            return false;
        }
        let Some(((x0, x1), (y0, y1))) = self.grid.overlapped(lo, hi) else {
            // Wholly off the grid, which covers every piece's grown box.
            return true;
        };
        if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_LOOKED_AT {
            return false;
        }
        (y0..=y1).all(|y| !self.near[self.grid.at(x0, y)..=self.grid.at(x1, y)].contains(&true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(a: [f64; 2], b: [f64; 2]) -> Segment {
        Segment { a, b, owner: 0 }
    }

    #[test]
    fn a_box_is_far_only_when_no_piece_is_within_the_reach_of_it() {
        // One piece from (0, 0) to (100, 0); reach 300 ft; cells 500 ft.
        let cells = FarCells::new(&[piece([0.0, 0.0], [100.0, 0.0])], 300.0).unwrap();
        // The grown box runs from (-300, -300) to (400, 300): a cell and a half across, one more beyond.
        assert_eq!((cells.grid.side, cells.grid.columns, cells.grid.rows), (500.0, 3, 3));
        // Boxes within the reach, in every direction, are not far.
        for (lo, hi) in [
            ([50.0, 250.0], [60.0, 260.0]),
            ([350.0, -10.0], [360.0, 10.0]),
            ([-290.0, -290.0], [-280.0, -280.0]),
            ([0.0, 0.0], [0.0, 0.0]),
        ] {
            assert!(!cells.all_far(lo, hi, 300.0), "{lo:?} {hi:?}");
        }
        // Boxes off the grid are far: nothing is near them.
        for (lo, hi) in [
            ([50.0, 2_000.0], [60.0, 2_100.0]),
            ([3_000.0, 0.0], [3_100.0, 10.0]),
            ([-2_000.0, -2_000.0], [-1_000.0, -1_000.0]),
        ] {
            assert!(cells.all_far(lo, hi, 300.0), "{lo:?} {hi:?}");
            // A longer reach than the grid was made for is not answered.
            assert!(!cells.all_far(lo, hi, 301.0), "{lo:?} {hi:?}");
        }
        // A box across the grid from far outside to near the piece is not far.
        assert!(!cells.all_far([-5_000.0, -10.0], [5_000.0, 10.0], 300.0));
        // Boxes that are not boxes, or not finite, are left to the tree.
        assert!(!cells.all_far([10.0, 0.0], [0.0, 0.0], 300.0));
        assert!(!cells.all_far([f64::NAN, 2_000.0], [60.0, 2_100.0], 300.0));
    }

    #[test]
    fn cells_between_two_distant_pieces_are_far() {
        // Two pieces 20,000 ft apart, reach 1,000 ft: the middle of the grid is far from both.
        let pieces = [piece([0.0, 0.0], [200.0, 0.0]), piece([20_000.0, 0.0], [20_200.0, 0.0])];
        let cells = FarCells::new(&pieces, 1_000.0).unwrap();
        assert!(cells.all_far([9_000.0, -100.0], [11_000.0, 100.0], 1_000.0));
        // Beyond the marked cells around the first piece (the grown box and one cell more, to 2,000 ft).
        assert!(cells.all_far([2_600.0, -50.0], [2_700.0, 50.0], 1_000.0));
        // Within the reach of either piece (a box 999 ft away), not far.
        assert!(!cells.all_far([1_199.0, -50.0], [1_250.0, 50.0], 1_000.0));
        assert!(!cells.all_far([18_900.0, 0.0], [19_001.0, 10.0], 1_000.0));
        assert!(FarCells::new(&[], 1_000.0).is_none());
        assert!(FarCells::new(&pieces, f64::NAN).is_none());
    }
}
