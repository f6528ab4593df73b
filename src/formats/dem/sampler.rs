//! Sampling a DEM at many points: the pixels are read in blocks of [`BLOCK`] pixels square, and the last
//! `KEPT` blocks are kept, so that the systems of a county, which come town by town, cost a decoded strip or
//! tile per block rather than per point.

use super::{Dem, Window};
use crate::model::error::Result;

/// The side of a block, in pixels.
pub const BLOCK: usize = 256;
/// How many blocks are kept: 16 blocks of 257 × 257 values, about 4 MiB.
const KEPT: usize = 16;

/// The blocks of one DEM read last, for [`Dem::sample_with`].
#[derive(Debug, Default)]
pub struct Blocks {
    /// Most recently used last.
    kept: Vec<(Window, Vec<f32>)>,
}

impl Blocks {
    /// The values of `window`, read by `read` unless kept.
    fn values(&mut self, window: Window, read: impl FnOnce() -> Result<Vec<f32>>) -> Result<&[f32]> {
        match self.kept.iter().position(|(w, _)| *w == window) {
            Some(at) => {
                let block = self.kept.remove(at);
                self.kept.push(block);
            }
            None => {
                if self.kept.len() == KEPT {
                    self.kept.remove(0);
                }
                self.kept.push((window, read()?));
            }
        }
        Ok(self.kept.last().map(|(_, values)| &values[..]).unwrap_or_default())
    }
}

impl Dem {
    /// The value at map point `p` (the DEM's CRS) by bilinear interpolation of the four pixel centres
    /// around it; `None` outside the raster or where one of them has no data. The block of pixels around
    /// `p` is read into `blocks`, or found there.
    pub fn sample_with(&self, p: [f64; 2], blocks: &mut Blocks) -> Result<Option<f64>> {
        let [c, r] = self.to_grid(p);
        let (last_col, last_row) = (self.width - 1, self.height - 1);
        // Also false for NaN.
        if !(c >= 0.0 && r >= 0.0 && c <= last_col as f64 && r <= last_row as f64) {
            return Ok(None);
        }
        // The four pixels: (c0, r0) and the next ones, which a block holds as its one extra column and row.
        let (c0, r0) = (
            (c.floor() as usize).min(last_col.saturating_sub(1)),
            (r.floor() as usize).min(last_row.saturating_sub(1)),
        );
        let (c1, r1) = ((c0 + 1).min(last_col), (r0 + 1).min(last_row));
        let (col, row) = (c0 / BLOCK * BLOCK, r0 / BLOCK * BLOCK);
        let window = Window {
            col,
            row,
            cols: (BLOCK + 1).min(self.width - col),
            rows: (BLOCK + 1).min(self.height - row),
        };
        let values = blocks.values(window, || self.read(window))?;
        let v = |c: usize, r: usize| f64::from(values[(r - row) * window.cols + (c - col)]);
        let (fc, fr) = (c - c0 as f64, r - r0 as f64);
        let z = (v(c0, r0) * (1.0 - fc) + v(c1, r0) * fc) * (1.0 - fr)
            + (v(c0, r1) * (1.0 - fc) + v(c1, r1) * fc) * fr;
        Ok(z.is_finite().then_some(z))
    }
}
