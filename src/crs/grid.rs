//! Fast reprojection of large layers: the exact transformation is computed on a regular grid over the layer,
//! and vertices are interpolated between those values, cell by cell, only where the measured interpolation
//! error is below a tolerance (a fraction of a millimetre). Elsewhere the exact transformation is used.
//!
//! The same idea as GDAL's approximate transformer. It exists because an exact transverse Mercator costs
//! ~400 ns per vertex in `proj4rs`: 9 million parcel vertices would take seconds, the grid a fraction.
//!
//! **Interpolation.** Each cell is a 9-point biquadratic patch: the exact values at its corners, edge
//! midpoints and centre define the polynomial in `u^i v^j` (`i, j ≤ 2`) through them. Map projections are
//! smooth, and over a cell a few kilometres wide their cubic terms are tiny, so cells can be large: a county
//! needs a few hundred, not the hundred thousand that bilinear interpolation would (the northing of a
//! transverse Mercator grows with the square of the longitude offset, which bilinear cells only follow when
//! ~100 m wide).
//!
//! **Error check.** Every cell is compared with the exact transformation at its four quarter points
//! `(¼, ¼) … (¾, ¾)`, which lie next to where the third-order error of such a patch peaks; a cell whose error
//! there exceeds half the tolerance, or that touches a point the backend cannot transform, is not used.

use rayon::prelude::*;

/// Layers with fewer vertices are transformed exactly: the grid would not pay for itself.
pub(crate) const MIN_VERTICES: usize = 20_000;

/// Cells per side of the pilot grid that measures how fast the error grows.
const PILOT: usize = 4;

/// Exact evaluations per cell: 4 on the half-spaced lattice (shared) and 4 quarter-point checks.
const COST_PER_CELL: f64 = 8.0;

/// An interpolation grid over a rectangle of the source CRS.
#[derive(Debug)]
pub(crate) struct InterpolationGrid {
    x0: f64,
    y0: f64,
    nx: usize,
    ny: usize,
    /// `1 / dx` and `1 / dy`: multiplications are cheaper than divisions on the hot path.
    inv: (f64, f64),
    /// The patch of each of the `nx × ny` cells, row by row; `None` for a cell that may not be interpolated.
    cells: Vec<Option<Patch>>,
}

/// `value(u, v) = Σ c[i][j]·u^i·v^j` (`i, j ≤ 2`) for x and for y, with `(u, v)` in the cell's unit square.
#[derive(Debug, Clone, Copy)]
struct Patch {
    x: [[f64; 3]; 3],
    y: [[f64; 3]; 3],
}

/// The quadratic Lagrange basis on the nodes 0, ½, 1, as coefficients of 1, t, t².
const LAGRANGE: [[f64; 3]; 3] = [[1.0, -3.0, 2.0], [0.0, 4.0, -4.0], [0.0, -1.0, 2.0]];

impl Patch {
    /// The patch through `p[r][s]`, the values at `u = s/2, v = r/2`.
    fn through(p: &[[(f64, f64); 3]; 3]) -> Patch {
        let mut cell = Patch { x: [[0.0; 3]; 3], y: [[0.0; 3]; 3] };
        for (r, row) in p.iter().enumerate() {
            for (s, value) in row.iter().enumerate() {
                for (i, wu) in LAGRANGE[s].iter().enumerate() {
                    for (j, wv) in LAGRANGE[r].iter().enumerate() {
                        cell.x[i][j] += value.0 * wu * wv;
                        cell.y[i][j] += value.1 * wu * wv;
                    }
                }
            }
        }
        cell
    }

    #[inline]
    fn eval(&self, u: f64, v: f64) -> (f64, f64) {
        let poly = |c: &[[f64; 3]; 3]| {
            let g = |j: usize| c[0][j] + u * (c[1][j] + u * c[2][j]);
            g(0) + v * (g(1) + v * g(2))
        };
        (poly(&self.x), poly(&self.y))
    }
}

/// A transformation of one point, as the backends provide.
pub(crate) trait PointFn: Fn(f64, f64) -> Result<(f64, f64), String> + Sync {}
impl<F: Fn(f64, f64) -> Result<(f64, f64), String> + Sync> PointFn for F {}

impl InterpolationGrid {
    /// A grid over `min..max` whose usable cells interpolate within `tolerance` (target units), or `None`
    /// when building it would cost more than a quarter of transforming the `vertices` exactly.
    pub fn build(
        f: &impl PointFn,
        min: (f64, f64),
        max: (f64, f64),
        vertices: usize,
        tolerance: f64,
    ) -> Option<InterpolationGrid> {
        let finite = [min.0, min.1, max.0, max.1].iter().all(|v| v.is_finite());
        if vertices < MIN_VERTICES || !finite || max.0 <= min.0 || max.1 <= min.1 || tolerance <= 0.0 {
            return None;
        }
        // Pad a little so that vertices on the bounding box fall inside.
        let pad = ((max.0 - min.0) * 1e-9, (max.1 - min.1) * 1e-9);
        let (min, max) = ((min.0 - pad.0, min.1 - pad.1), (max.0 + pad.0, max.1 + pad.1));

        let (pilot, error) = InterpolationGrid::compute(f, min, max, PILOT, PILOT, tolerance);
        let error = error?;
        // The error of a quadratic patch shrinks with the cube of the cell size: aim for a quarter of the
        // tolerance, half of what the check accepts.
        let scale = (error / (tolerance / 4.0)).cbrt();
        let n = (scale * PILOT as f64).ceil().max(PILOT as f64);
        if COST_PER_CELL * n * n > vertices as f64 / 4.0 {
            return None;
        }
        let n = n as usize;
        if n == PILOT {
            Some(pilot)
        } else {
            Some(InterpolationGrid::compute(f, min, max, n, n, tolerance).0)
        }
    }

    /// Evaluates `f` for an `nx × ny` grid and checks every cell against `tolerance`; also returns the largest
    /// error measured in a cell where every point could be transformed, if any.
    fn compute(
        f: &impl PointFn,
        min: (f64, f64),
        max: (f64, f64),
        nx: usize,
        ny: usize,
        tolerance: f64,
    ) -> (InterpolationGrid, Option<f64>) {
        let (dx, dy) = ((max.0 - min.0) / nx as f64, (max.1 - min.1) / ny as f64);
        let eval = |x: f64, y: f64| f(x, y).unwrap_or((f64::NAN, f64::NAN));
        // The lattice at half the cell size: corners, edge midpoints and centres of all cells.
        let (lx, ly) = (2 * nx + 1, 2 * ny + 1);
        let lattice: Vec<(f64, f64)> = (0..lx * ly)
            .into_par_iter()
            .map(|k| eval(min.0 + (k % lx) as f64 * dx / 2.0, min.1 + (k / lx) as f64 * dy / 2.0))
            .collect();
        let checked: Vec<(Option<Patch>, f64)> = (0..nx * ny)
            .into_par_iter()
            .map(|k| {
                let (i, j) = (k % nx, k / nx);
                let mut p = [[(0.0, 0.0); 3]; 3];
                for (r, row) in p.iter_mut().enumerate() {
                    for (s, value) in row.iter_mut().enumerate() {
                        *value = lattice[(2 * j + r) * lx + 2 * i + s];
                    }
                }
                let cell = Patch::through(&p);
                let mut error: f64 = 0.0;
                for (u, v) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                    let exact = eval(min.0 + (i as f64 + u) * dx, min.1 + (j as f64 + v) * dy);
                    let (x, y) = cell.eval(u, v);
                    // NaN (a point the backend could not transform) makes the error infinite.
                    let e = (x - exact.0).abs().max((y - exact.1).abs());
                    error = if e.is_nan() { f64::INFINITY } else { error.max(e) };
                }
                ((error <= tolerance / 2.0).then_some(cell), error)
            })
            .collect();
        let worst = checked.iter().map(|(_, e)| *e).filter(|e| e.is_finite()).reduce(f64::max);
        let cells = checked.into_iter().map(|(cell, _)| cell).collect();
        (InterpolationGrid { x0: min.0, y0: min.1, nx, ny, inv: (1.0 / dx, 1.0 / dy), cells }, worst)
    }

    /// The interpolated value at `(x, y)`, or `None` outside the grid or in a cell that failed its check.
    #[inline]
    pub fn interpolate(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let fx = (x - self.x0) * self.inv.0;
        let fy = (y - self.y0) * self.inv.1;
        // `contains` is false for NaN.
        if !((0.0..=self.nx as f64).contains(&fx) && (0.0..=self.ny as f64).contains(&fy)) {
            return None;
        }
        let i = (fx as usize).min(self.nx - 1);
        let j = (fy as usize).min(self.ny - 1);
        let cell = self.cells[j * self.nx + i].as_ref()?;
        Some(cell.eval(fx - i as f64, fy - j as f64))
    }

    /// How many cells the grid has and how many may be interpolated.
    #[cfg(test)]
    pub fn cells(&self) -> (usize, usize) {
        (self.nx * self.ny, self.cells.iter().filter(|c| c.is_some()).count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_maps_interpolate_exactly_and_small_layers_get_no_grid() {
        let f = |x: f64, y: f64| Ok((2.0 * x + 3.0, y - 1.0));
        assert!(InterpolationGrid::build(&f, (0.0, 0.0), (10.0, 10.0), 100, 1e-6).is_none());
        let g = InterpolationGrid::build(&f, (0.0, 0.0), (10.0, 10.0), 1_000_000, 1e-6).unwrap();
        assert_eq!(g.cells(), (16, 16));
        let (x, y) = g.interpolate(10.0, 0.0).unwrap();
        assert!((x - 23.0).abs() < 1e-9 && (y + 1.0).abs() < 1e-9);
        assert!(g.interpolate(10.5, 0.0).is_none());
        assert!(g.interpolate(f64::NAN, 0.0).is_none());
    }

    #[test]
    fn curved_maps_get_fine_cells_within_tolerance() {
        // Biquadratic terms are reproduced exactly; the cubic and exponential ones need finer cells.
        let f = |x: f64, y: f64| Ok((x * x * y * y * 1e-9 + (x * 1e-3).exp(), y * y * y * 1e-6 + x));
        let g = InterpolationGrid::build(&f, (0.0, 0.0), (1000.0, 1000.0), 10_000_000, 1e-3).unwrap();
        let (cells, usable) = g.cells();
        assert_eq!(cells, usable);
        assert!(cells > 16, "{cells} cells");
        for k in 0..10_000 {
            let (x, y) = ((k % 100) as f64 * 9.999, (k / 100) as f64 * 9.999);
            let (ix, iy) = g.interpolate(x, y).unwrap();
            let (ex, ey) = f(x, y).unwrap();
            assert!((ix - ex).abs() <= 1e-3 && (iy - ey).abs() <= 1e-3, "{x} {y}");
        }
    }

    #[test]
    fn cells_touching_failures_are_not_used() {
        let f = |x: f64, y: f64| if x > 500.0 && y > 500.0 { Err("outside".to_string()) } else { Ok((x, y)) };
        let g = InterpolationGrid::build(&f, (0.0, 0.0), (1000.0, 1000.0), 1_000_000, 1e-3).unwrap();
        assert!(g.interpolate(100.0, 100.0).is_some());
        assert!(g.interpolate(900.0, 900.0).is_none());
    }
}
