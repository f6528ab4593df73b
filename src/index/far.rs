//! Where no line comes within a reach: a grid over a line layer that answers "nothing near" at once.
//!
//! Most parcels of a county lie far from every shore, and a search of the tree for them finds nothing after
//! descending through the nodes whose boxes happen to cover them. Here every cell that any piece's box, grown
//! by the reach, overlaps is marked near; a box that overlaps only unmarked cells (or none of the grid, which
//! covers every grown box) has no piece within the reach of any of its points. A piece within the reach of a
//! box has a grown box that shares a point with it, and the cell of that point is marked, so the answer is
//! exact: a marked cell only sends the query on to the tree.

use rstar::RTreeObject;

use super::Segment;

/// Cells are at least this wide, in feet.
const MIN_SIDE_FT: f64 = 500.0;

/// The most cells along each side of the grid.
const MAX_CELLS: usize = 1024;

/// The most cells a box may overlap and still be answered from the grid; a larger box goes to the tree.
const MAX_LOOKED_AT: usize = 64;

/// The cells of a line layer near some piece (see the module's notes).
#[derive(Debug)]
pub(super) struct FarCells {
    /// How far from a piece a cell counts as near, feet.
    reach_ft: f64,
    /// The lower left corner of the grid and the width of its (square) cells.
    origin: [f64; 2],
    side: f64,
    columns: usize,
    rows: usize,
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
        let (width, height) = (hi[0] - lo[0], hi[1] - lo[1]);
        if !(lo[0].is_finite() && lo[1].is_finite() && width.is_finite() && height.is_finite()) {
            return None;
        }
        let side = (width.max(height) / MAX_CELLS as f64).max(MIN_SIDE_FT);
        let count = |length: f64| ((length / side) as usize + 1).min(MAX_CELLS + 1);
        let (columns, rows) = (count(width), count(height));
        let mut cells =
            FarCells { reach_ft, origin: lo, side, columns, rows, near: vec![false; columns * rows] };
        for (a, b) in pieces.iter().map(grown) {
            if let Some(((x0, y0), (x1, y1))) = cells.span(a, b) {
                for y in y0..=y1 {
                    cells.near[y * columns + x0..=y * columns + x1].fill(true);
                }
            }
        }
        Some(cells)
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
        let Some(((x0, y0), (x1, y1))) = self.span(lo, hi) else {
            // Wholly off the grid, which covers every piece's grown box.
            return true;
        };
        if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_LOOKED_AT {
            return false;
        }
        (y0..=y1).all(|y| !self.near[y * self.columns + x0..=y * self.columns + x1].contains(&true))
    }

    /// The cells (column, row) from the lower left to the upper right that the box from `lo` to `hi`
    /// overlaps, clipped to the grid; `None` when it overlaps none.
    fn span(&self, lo: [f64; 2], hi: [f64; 2]) -> Option<((usize, usize), (usize, usize))> {
        let cell = |v: f64, axis: usize| ((v - self.origin[axis]) / self.side).floor();
        let (x0, y0, x1, y1) = (cell(lo[0], 0), cell(lo[1], 1), cell(hi[0], 0), cell(hi[1], 1));
        let (columns, rows) = (self.columns as f64, self.rows as f64);
        if x1 < 0.0 || y1 < 0.0 || x0 >= columns || y0 >= rows {
            return None;
        }
        let clip = |v: f64, count: f64| v.clamp(0.0, count - 1.0) as usize;
        Some(((clip(x0, columns), clip(y0, rows)), (clip(x1, columns), clip(y1, rows))))
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
        assert_eq!(cells.side, MIN_SIDE_FT);
        // The grown box runs from (-300, -300) to (400, 300): one cell and a half across, two rows.
        assert_eq!((cells.columns, cells.rows), (2, 2));
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
            ([50.0, 900.0], [60.0, 950.0]),
            ([1_000.0, 0.0], [1_100.0, 10.0]),
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
        assert!(!cells.all_far([f64::NAN, 900.0], [60.0, 950.0], 300.0));
    }

    #[test]
    fn cells_between_two_distant_pieces_are_far() {
        // Two pieces 20,000 ft apart, reach 1,000 ft: the middle of the grid is far from both.
        let pieces = [piece([0.0, 0.0], [200.0, 0.0]), piece([20_000.0, 0.0], [20_200.0, 0.0])];
        let cells = FarCells::new(&pieces, 1_000.0).unwrap();
        assert!(cells.all_far([9_000.0, -100.0], [11_000.0, 100.0], 1_000.0));
        assert!(cells.all_far([1_600.0, -50.0], [1_700.0, 50.0], 1_000.0));
        // Within the reach of either piece (a box 999 ft away), not far.
        assert!(!cells.all_far([1_199.0, -50.0], [1_250.0, 50.0], 1_000.0));
        assert!(!cells.all_far([18_900.0, 0.0], [19_001.0, 10.0], 1_000.0));
        assert!(FarCells::new(&[], 1_000.0).is_none());
        assert!(FarCells::new(&pieces, f64::NAN).is_none());
    }
}
