//! The square grid of cells that [`super::patches`] and [`super::far`] lay over a layer.

/// Cells are at least this wide, in feet: a few parcels across, so that most parcels fall in one cell or two.
const MIN_SIDE_FT: f64 = 500.0;

/// The most cells along each side of the grid.
const MAX_CELLS: usize = 1024;

/// A grid of square cells over an extent, numbered row by row from the lower left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct CellGrid {
    /// The lower left corner of the grid.
    pub(super) origin: [f64; 2],
    /// The width of a cell, feet.
    pub(super) side: f64,
    pub(super) columns: usize,
    pub(super) rows: usize,
}

impl CellGrid {
    /// The grid over the extent from `lo` to `hi`: cells at least 500 ft wide, at most 1,024 along a side,
    /// with one cell more than the extent needs, so that its upper edge falls inside the grid. `None` when the
    /// extent is not finite.
    pub(super) fn over(lo: [f64; 2], hi: [f64; 2]) -> Option<Self> {
        let (width, height) = (hi[0] - lo[0], hi[1] - lo[1]);
        if !(lo[0].is_finite() && lo[1].is_finite() && width.is_finite() && height.is_finite()) {
            return None;
        }
        let side = (width.max(height) / MAX_CELLS as f64).max(MIN_SIDE_FT);
        let count = |length: f64| ((length / side) as usize + 2).min(MAX_CELLS + 2);
        Some(CellGrid { origin: lo, side, columns: count(width), rows: count(height) })
    }

    /// The grid over the extent from `lo` to `hi` of `count` points: about one square cell for every two
    /// points (fewer over a long narrow extent, never more than about three times that), with one cell more
    /// than the extent needs along each side. `None` when the extent is not finite.
    pub(super) fn for_points(lo: [f64; 2], hi: [f64; 2], count: usize) -> Option<Self> {
        let (width, height) = (hi[0] - lo[0], hi[1] - lo[1]);
        if !(lo[0].is_finite() && lo[1].is_finite() && width.is_finite() && height.is_finite()) {
            return None;
        }
        let cells = (count / 2).max(1) as f64;
        // The area a cell takes, but no narrower than the longer side over the number of cells (points on a
        // line), and never zero (points all in one place).
        let side = (width * height / cells).sqrt().max(width.max(height) / cells).max(1e-6);
        let count = |length: f64| (length / side) as usize + 2;
        Some(CellGrid { origin: lo, side, columns: count(width), rows: count(height) })
    }

    /// The number of cells.
    pub(super) fn len(&self) -> usize {
        self.columns * self.rows
    }

    /// The index of the cell at column `x`, row `y`.
    pub(super) fn at(&self, x: usize, y: usize) -> usize {
        y * self.columns + x
    }

    /// The index along one axis of the cell holding `coordinate`, as a float (any value for coordinates off
    /// the grid or not finite).
    pub(super) fn index(&self, coordinate: f64, axis: usize) -> f64 {
        ((coordinate - self.origin[axis]) / self.side).floor()
    }

    /// The column and row of the cell holding `p`, when it is on the grid.
    pub(super) fn cell_of(&self, p: [f64; 2]) -> Option<(usize, usize)> {
        let (x, y) = (self.index(p[0], 0), self.index(p[1], 1));
        let on_grid = x >= 0.0 && y >= 0.0 && x < self.columns as f64 && y < self.rows as f64;
        on_grid.then_some((x as usize, y as usize))
    }

    /// The middle of the cell at column `x`, row `y`.
    pub(super) fn middle(&self, x: usize, y: usize) -> [f64; 2] {
        [self.origin[0] + (x as f64 + 0.5) * self.side, self.origin[1] + (y as f64 + 0.5) * self.side]
    }

    /// The columns and rows, first to last, of the cells the box from `lo` to `hi` touches and one more on
    /// every side, clipped to the grid: what a mark must cover so that a point of an unmarked cell is never on
    /// the box, however the division that places it rounds. NaN coordinates cover the whole axis: nothing is
    /// known of where the box lies.
    pub(super) fn around(&self, lo: [f64; 2], hi: [f64; 2]) -> ((usize, usize), (usize, usize)) {
        let range = |axis: usize, limit: usize| {
            let (low, high) = (self.index(lo[axis], axis) - 1.0, self.index(hi[axis], axis) + 1.0);
            let low = if low.is_nan() { 0.0 } else { low.max(0.0) };
            let high = if high.is_nan() { f64::INFINITY } else { high };
            (low as usize, (high.min((limit - 1) as f64)) as usize)
        };
        (range(0, self.columns), range(1, self.rows))
    }

    /// The columns and rows, first to last, of the cells the box from `lo` to `hi` (finite, `lo` ≤ `hi`)
    /// overlaps, clipped to the grid; `None` when it overlaps none.
    pub(super) fn overlapped(&self, lo: [f64; 2], hi: [f64; 2]) -> Option<((usize, usize), (usize, usize))> {
        let (x0, y0, x1, y1) =
            (self.index(lo[0], 0), self.index(lo[1], 1), self.index(hi[0], 0), self.index(hi[1], 1));
        let (columns, rows) = (self.columns as f64, self.rows as f64);
        if x1 < 0.0 || y1 < 0.0 || x0 >= columns || y0 >= rows {
            return None;
        }
        let clip = |v: f64, count: f64| v.clamp(0.0, count - 1.0) as usize;
        Some(((clip(x0, columns), clip(x1, columns)), (clip(y0, rows), clip(y1, rows))))
    }
}
