//! Points indexed by the cell of a square grid they fall in: which of many points lie in a box, asked once
//! for every parcel of a county, in a few bytes a point.

use super::cells::CellGrid;

/// Points, each named by its number, sorted by the cell of a grid they fall in; their coordinates stay with
/// the caller, which hands the same `point` function to [`PointGrid::new`] and [`PointGrid::in_box`].
///
/// The grid has about one cell for every two points, so a parcel-sized box looks at a few points. A point
/// is kept as its number (4 bytes) and a cell as where its points start (4 bytes): six bytes a point, where an
/// R-tree of the points takes ten times that.
#[derive(Debug, Default)]
pub struct PointGrid {
    /// The grid over the points' extent; `None` when no point has finite coordinates.
    grid: Option<CellGrid>,
    /// For each cell, where its points start in `order`; after the last, the length of `order`.
    starts: Vec<u32>,
    /// The numbers of the points, cell by cell.
    order: Vec<u32>,
}

impl PointGrid {
    /// Indexes the points numbered `0..len`, each at `point(number)`; a point without finite coordinates is
    /// left out (it lies in no box).
    pub fn new(len: u32, point: impl Fn(u32) -> [f64; 2]) -> Self {
        let finite = |p: [f64; 2]| p[0].is_finite() && p[1].is_finite();
        let (mut lo, mut hi, mut count) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2], 0_usize);
        for p in (0..len).map(&point).filter(|&p| finite(p)) {
            lo = [lo[0].min(p[0]), lo[1].min(p[1])];
            hi = [hi[0].max(p[0]), hi[1].max(p[1])];
            count += 1;
        }
        let Some(grid) = (count > 0).then(|| CellGrid::for_points(lo, hi, count)).flatten() else {
            return PointGrid::default();
        };
        let cell = |p: [f64; 2]| grid.cell_of(p).map(|(x, y)| grid.at(x, y));
        let mut starts = vec![0_u32; grid.len() + 1];
        for c in (0..len).map(&point).filter_map(cell) {
            starts[c + 1] += 1;
        }
        for c in 0..grid.len() {
            starts[c + 1] += starts[c];
        }
        let mut next = starts.clone();
        let mut order = vec![0_u32; count];
        for number in 0..len {
            if let Some(c) = cell(point(number)) {
                order[next[c] as usize] = number;
                next[c] += 1;
            }
        }
        PointGrid { grid: Some(grid), starts, order }
    }

    /// The numbers of the points that lie in the box from `lo` to `hi`, edges included, each once; `point`
    /// is the function the grid was made with. A box without finite corners holds none.
    pub fn in_box<'a>(
        &'a self,
        lo: [f64; 2],
        hi: [f64; 2],
        point: impl Fn(u32) -> [f64; 2] + 'a,
    ) -> impl Iterator<Item = u32> + 'a {
        let finite = lo.iter().chain(&hi).all(|c| c.is_finite()) && lo[0] <= hi[0] && lo[1] <= hi[1];
        let cells = self.grid.filter(|_| finite).and_then(|grid| Some((grid, grid.overlapped(lo, hi)?)));
        // A row's cells from the first column to the last are one stretch of `order`.
        let rows = cells.into_iter().flat_map(|(grid, ((x0, x1), (y0, y1)))| {
            (y0..=y1).map(move |y| (grid.at(x0, y), grid.at(x1, y)))
        });
        rows.flat_map(move |(first, last)| {
            self.order[self.starts[first] as usize..self.starts[last + 1] as usize].iter().copied()
        })
        .filter(move |&number| {
            let p = point(number);
            lo[0] <= p[0] && p[0] <= hi[0] && lo[1] <= p[1] && p[1] <= hi[1]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::PointGrid;

    /// A small deterministic generator of coordinates (no dependency for a test).
    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 11) as f64 / (1_u64 << 53) as f64
    }

    /// The points in the box by trying every one.
    fn by_hand(points: &[[f64; 2]], lo: [f64; 2], hi: [f64; 2]) -> Vec<u32> {
        (0..)
            .zip(points)
            .filter(|(_, p)| lo[0] <= p[0] && p[0] <= hi[0] && lo[1] <= p[1] && p[1] <= hi[1])
            .map(|(i, _)| i)
            .collect()
    }

    fn found(grid: &PointGrid, points: &[[f64; 2]], lo: [f64; 2], hi: [f64; 2]) -> Vec<u32> {
        let mut found: Vec<u32> = grid.in_box(lo, hi, |i| points[i as usize]).collect();
        found.sort_unstable();
        found
    }

    #[test]
    fn a_box_holds_the_points_every_point_tried_finds() {
        let mut seed = 7;
        // A county of 5,000 points, some on a lattice (so boxes meet them on their edges), some repeated, one
        // far away, and two without coordinates.
        let mut points: Vec<[f64; 2]> = (0..4000)
            .map(|_| [800_000.0 + 40_000.0 * lcg(&mut seed), 1_000_000.0 + 25_000.0 * lcg(&mut seed)])
            .collect();
        points.extend(
            (0..900)
                .map(|k| [800_000.0 + 100.0 * f64::from(k % 30), 1_000_000.0 + 200.0 * f64::from(k / 30)]),
        );
        points.extend([[800_500.0, 1_000_400.0]; 5]);
        points.extend([[2_000_000.0, 0.0], [f64::NAN, 1_000_000.0], [800_000.0, f64::INFINITY]]);
        let len = u32::try_from(points.len()).unwrap();
        let grid = PointGrid::new(len, |i| points[i as usize]);
        let mut boxes: Vec<([f64; 2], [f64; 2])> = (0..300)
            .map(|_| {
                let (x, y) = (800_000.0 + 42_000.0 * lcg(&mut seed), 1_000_000.0 + 27_000.0 * lcg(&mut seed));
                let (w, h) = (2000.0 * lcg(&mut seed), 2000.0 * lcg(&mut seed));
                ([x, y], [x + w, y + h])
            })
            .collect();
        boxes.extend([
            ([800_100.0, 1_000_200.0], [800_300.0, 1_000_600.0]), // corners on lattice points
            ([800_500.0, 1_000_400.0], [800_500.0, 1_000_400.0]), // a box that is one repeated point
            ([0.0, -1.0], [3_000_000.0, 3_000_000.0]),            // everything
            ([-10.0, -10.0], [-5.0, -5.0]),                       // off the grid
            ([f64::NAN, 0.0], [1.0, 1.0]),                        // no corners
        ]);
        for (lo, hi) in boxes {
            let expected = if lo[0].is_nan() { Vec::new() } else { by_hand(&points, lo, hi) };
            assert_eq!(found(&grid, &points, lo, hi), expected, "box {lo:?} to {hi:?}");
        }
        let all = found(&grid, &points, [0.0, -1.0], [3_000_000.0, 3_000_000.0]);
        assert_eq!(all.len(), points.len() - 2, "every finite point, once");
    }

    #[test]
    fn no_points_or_one_place_for_all() {
        let none = PointGrid::new(0, |_| [0.0, 0.0]);
        assert_eq!(none.in_box([-1.0, -1.0], [1.0, 1.0], |_| [0.0, 0.0]).count(), 0);
        let same = [[5.0, 5.0]; 3];
        let grid = PointGrid::new(3, |i| same[i as usize]);
        assert_eq!(found(&grid, &same, [5.0, 5.0], [5.0, 5.0]), [0, 1, 2]);
        assert!(found(&grid, &same, [5.5, 5.0], [6.0, 6.0]).is_empty());
    }
}
