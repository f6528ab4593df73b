//! Contour lines of a grid of elevations at one level, by marching squares: the line that separates the
//! ground at or below the level from the ground above it.
//!
//! The grid's values stand at pixel centres; a line crosses an edge between two centres where one is at or
//! below the level and the other above it, at the point found by linear interpolation between them. Nothing
//! is smoothed and nothing is simplified: every vertex lies on a grid edge, where the interpolated surface
//! meets the level. Ground exactly at the level counts as at or below it, so a plateau at the level lies
//! inside the line (the line runs along its outer pixel centres).
//!
//! Each line keeps the ground at or below the level on its left, so a closed line that runs counterclockwise
//! (in the grid's own orientation) encloses low ground — a lake, a pond, a quarry — and one that runs
//! clockwise encloses high ground inside low ground — an island. A cell with a corner without data (NaN) is
//! not crossed: a line reaching it ends there, open, as at the edge of the grid. Where the two diagonals of a
//! cell disagree (a saddle), the mean of its four corners decides whether the low corners join.

use geo::{Coord, LineString};
use rustc_hash::{FxHashMap, FxHashSet};

/// Elevations on a regular grid, row by row from the first row, with the affine transform from a pixel
/// centre (column, row) to map coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width × height` values, row after row; NaN where there is no data.
    pub values: &'a [f32],
    /// `[x0, dx_col, dx_row, y0, dy_col, dy_row]`: the centre of the pixel at column `c`, row `r` is at
    /// `x = x0 + c·dx_col + r·dx_row`, `y = y0 + c·dy_col + r·dy_row`.
    pub transform: [f64; 6],
}

impl Grid<'_> {
    fn value(&self, col: usize, row: usize) -> f64 {
        f64::from(self.values[row * self.width + col])
    }

    /// The map coordinates of a point of the grid given as fractional column and row.
    pub fn to_map(&self, col: f64, row: f64) -> Coord<f64> {
        let t = &self.transform;
        Coord { x: t[0] + col * t[1] + row * t[2], y: t[3] + col * t[4] + row * t[5] }
    }
}

/// One contour line, in map coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Contour {
    /// Its vertices; a closed line repeats its first vertex at the end.
    pub line: LineString<f64>,
    /// Whether it closes on itself; an open line ends at the edge of the grid or at a pixel without data.
    pub closed: bool,
    /// For a closed line, whether the ground inside it is at or below the level (a lake's line); false for a
    /// line around high ground (an island) and for open lines.
    pub encloses_low: bool,
}

/// A point where a line crosses a grid edge, keyed by the edge: horizontal edges (between two pixel centres
/// of one row) have even keys, vertical ones odd keys.
fn edge_key(width: usize, col: usize, row: usize, vertical: bool) -> u64 {
    ((row * width + col) as u64) * 2 + u64::from(vertical)
}

/// The contour lines of `grid` at `level`, each with the ground at or below the level on its left. Lines are
/// in no particular order but the same for the same grid.
pub fn contours(grid: &Grid, level: f64) -> Vec<Contour> {
    let (w, h) = (grid.width, grid.height);
    if w < 2 || h < 2 || grid.values.len() < w * h {
        return Vec::new();
    }
    // For each crossing edge, the point (in fractional grid coordinates) and the edge the segment leaving
    // it goes to.
    let mut next: FxHashMap<u64, u64> = FxHashMap::default();
    let mut point: FxHashMap<u64, [f64; 2]> = FxHashMap::default();
    let mut has_prev: FxHashSet<u64> = FxHashSet::default();
    let mut order: Vec<u64> = Vec::new();
    for row in 0..h - 1 {
        for col in 0..w - 1 {
            // Corners counterclockwise in (column, −row): bottom-left, bottom-right, top-right, top-left.
            let corners = [(col, row + 1), (col + 1, row + 1), (col + 1, row), (col, row)];
            let v = corners.map(|(c, r)| grid.value(c, r));
            if v.iter().any(|x| x.is_nan()) {
                continue;
            }
            let low = v.map(|x| x <= level);
            if low.iter().all(|&l| l) || low.iter().all(|&l| !l) {
                continue;
            }
            // The crossings met going round the cell counterclockwise: (edge, point, leaving the low ground).
            let mut crossings: [(u64, [f64; 2], bool); 4] = [(0, [0.0; 2], false); 4];
            let mut n = 0;
            for k in 0..4 {
                let (a, b) = (k, (k + 1) % 4);
                if low[a] == low[b] {
                    continue;
                }
                let (ca, cb) = (corners[a], corners[b]);
                // The edge's own corners in a fixed order, so both cells sharing it find the same point.
                let ((c0, r0), (c1, r1), v0, v1) =
                    if ca <= cb { (ca, cb, v[a], v[b]) } else { (cb, ca, v[b], v[a]) };
                let t = (level - v0) / (v1 - v0);
                let p = [c0 as f64 + t * (c1 - c0) as f64, r0 as f64 + t * (r1 - r0) as f64];
                let key = edge_key(w, c0, r0, c0 == c1);
                crossings[n] = (key, p, low[a]);
                n += 1;
            }
            let mut link = |from: (u64, [f64; 2], bool), to: (u64, [f64; 2], bool)| {
                point.insert(from.0, from.1);
                point.insert(to.0, to.1);
                if next.insert(from.0, to.0).is_none() {
                    order.push(from.0);
                }
                has_prev.insert(to.0);
            };
            if n == 2 {
                let (out, into) = if crossings[0].2 { (0, 1) } else { (1, 0) };
                link(crossings[out], crossings[into]);
            } else {
                // A saddle: four crossings alternating out of and into the low ground. Joined low corners
                // pair each crossing out with the next one in; parted, with the one before.
                let joined = v.iter().sum::<f64>() / 4.0 <= level;
                for i in (0..4).filter(|&i| crossings[i].2) {
                    let into = if joined { (i + 1) % 4 } else { (i + 3) % 4 };
                    link(crossings[i], crossings[into]);
                }
            }
        }
    }
    let mut used: FxHashSet<u64> = FxHashSet::default();
    let mut lines = Vec::new();
    let trace = |start: u64, used: &mut FxHashSet<u64>| -> (Vec<u64>, bool) {
        let mut keys = vec![start];
        used.insert(start);
        let mut at = start;
        while let Some(&to) = next.get(&at) {
            if to == start {
                keys.push(start);
                return (keys, true);
            }
            if !used.insert(to) {
                break;
            }
            keys.push(to);
            at = to;
        }
        (keys, false)
    };
    // Open lines first, from their starts (a crossing nothing leads to), then the closed ones.
    let starts: Vec<u64> = order.iter().copied().filter(|k| !has_prev.contains(k)).collect();
    for start in starts.into_iter().chain(order.iter().copied()) {
        if used.contains(&start) {
            continue;
        }
        let (keys, closed) = trace(start, &mut used);
        let grid_points: Vec<[f64; 2]> = keys.iter().map(|k| point[k]).collect();
        lines.push(finish(grid, &grid_points, closed));
    }
    lines
}

fn finish(grid: &Grid, points: &[[f64; 2]], closed: bool) -> Contour {
    let mut coords: Vec<Coord<f64>> = Vec::with_capacity(points.len());
    for p in points {
        let c = grid.to_map(p[0], p[1]);
        if coords.last() != Some(&c) {
            coords.push(c);
        }
    }
    // Twice the signed area in (column, −row): positive when the low ground (on the left) is inside.
    let area_2: f64 = points.windows(2).map(|w| w[0][0] * -w[1][1] - w[1][0] * -w[0][1]).sum();
    // Which side is inside does not depend on the transform to map coordinates.
    let encloses_low = closed && area_2 > 0.0;
    Contour { line: LineString(coords), closed, encloses_low }
}

/// Twice the signed area of a closed ring (positive counterclockwise).
pub fn signed_area_2(ring: &LineString<f64>) -> f64 {
    ring.0.windows(2).map(|w| w[0].x * w[1].y - w[1].x * w[0].y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(width: usize, values: &[f32]) -> Grid<'_> {
        // Pixel centres at x = column, y = −row (north up, one unit a pixel).
        Grid { width, height: values.len() / width, values, transform: [0.0, 1.0, 0.0, 0.0, 0.0, -1.0] }
    }

    fn area(c: &Contour) -> f64 {
        signed_area_2(&c.line) / 2.0
    }

    #[test]
    fn a_single_low_pixel_gives_a_diamond_around_it() {
        // Centre 0, neighbours 10, level 5: the line crosses each edge halfway, a diamond of half-diagonal
        // 0.5 around (1, −1), area 2 × 0.5² = 0.5.
        let v = [10.0, 10.0, 10.0, 10.0, 0.0, 10.0, 10.0, 10.0, 10.0];
        let lines = contours(&grid(3, &v), 5.0);
        assert_eq!(lines.len(), 1);
        let c = &lines[0];
        assert!(c.closed && c.encloses_low);
        assert!((area(c) - 0.5).abs() < 1e-12, "{}", area(c));
        let mut xs: Vec<(f64, f64)> = c.line.0.iter().map(|p| (p.x, p.y)).collect();
        xs.pop();
        xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(xs, vec![(0.5, -1.0), (1.0, -1.5), (1.0, -0.5), (1.5, -1.0)]);
    }

    #[test]
    fn a_single_high_pixel_is_an_island() {
        let v = [0.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 0.0];
        let lines = contours(&grid(3, &v), 5.0);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].closed && !lines[0].encloses_low);
        assert!((area(&lines[0]) + 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_plateau_at_the_level_is_inside_the_line() {
        // A 2×2 plateau exactly at the level in ground 1 higher: the line passes through the plateau's own
        // centres (t = 0 on every crossed edge), enclosing the 1×1 square between them.
        let v = [6.0, 6.0, 6.0, 6.0, 6.0, 5.0, 5.0, 6.0, 6.0, 5.0, 5.0, 6.0, 6.0, 6.0, 6.0, 6.0];
        let lines = contours(&grid(4, &v), 5.0);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].closed && lines[0].encloses_low);
        assert!((area(&lines[0]) - 1.0).abs() < 1e-12, "{}", area(&lines[0]));
    }

    #[test]
    fn a_line_ends_at_a_pixel_without_data_and_at_the_edge() {
        // Low on the left column, high on the right: one open line from the bottom edge to the top, broken
        // by the NaN into two open lines.
        let n = f32::NAN;
        let v = [0.0, 10.0, 0.0, 10.0, 0.0, n, 0.0, 10.0, 0.0, 10.0];
        let lines = contours(&grid(2, &v), 5.0);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|c| !c.closed && !c.encloses_low));
        for c in &lines {
            assert!(c.line.0.iter().all(|p| p.x == 0.5));
        }
    }

    #[test]
    fn saddles_join_the_low_corners_when_the_centre_is_low() {
        // Corners 0 and 0 on one diagonal, 6 and 6 on the other; level 4: mean 3 ≤ 4 joins the low corners
        // (one band, two open lines cutting off the high corners); level 2: mean 3 > 2 parts them.
        let v = [0.0, 6.0, 6.0, 0.0];
        let g = grid(2, &v);
        let joined = contours(&g, 4.0);
        let parted = contours(&g, 2.0);
        assert_eq!((joined.len(), parted.len()), (2, 2));
        // Joined: each line cuts off a high corner, (1, 0) or (0, −1), passing at 2/3 along its edges.
        let ends = |c: &Contour| {
            let mut e = [c.line.0[0], *c.line.0.last().unwrap()].map(|p| (p.x, p.y));
            e.sort_by(|a, b| a.partial_cmp(b).unwrap());
            e
        };
        let sorted = |lines: &[Contour]| {
            let mut e: Vec<_> = lines.iter().map(ends).collect();
            e.sort_by(|a, b| a.partial_cmp(b).unwrap());
            e
        };
        let close = |a: [(f64, f64); 2], b: [(f64, f64); 2]| {
            a.iter().zip(&b).all(|(p, q)| (p.0 - q.0).abs() < 1e-12 && (p.1 - q.1).abs() < 1e-12)
        };
        let (a, b) = (1.0 / 3.0, 2.0 / 3.0);
        let j = sorted(&joined);
        assert!(close(j[0], [(0.0, -b), (a, -1.0)]) && close(j[1], [(b, 0.0), (1.0, -a)]), "{j:?}");
        // Parted at level 2 (1/3 of the way from the low corner): the lines cut off the low corners (0, 0)
        // and (1, −1).
        let p = sorted(&parted);
        assert!(close(p[0], [(0.0, -a), (a, 0.0)]) && close(p[1], [(b, -1.0), (1.0, -b)]), "{p:?}");
    }

    #[test]
    fn a_bowl_gives_a_circle_of_the_right_area() {
        // z = r² on a 201×201 grid, level 80² → a ring of radius 80 around the centre; the polygon's area
        // is within a pixel's width of perimeter of π·80².
        let n = 201;
        let v: Vec<f32> = (0..n * n)
            .map(|i| {
                let (c, r) = ((i % n) as f32 - 100.0, (i / n) as f32 - 100.0);
                c * c + r * r
            })
            .collect();
        let lines = contours(&grid(n, &v), 6400.0);
        assert_eq!(lines.len(), 1);
        let expected = std::f64::consts::PI * 6400.0;
        assert!((area(&lines[0]) - expected).abs() < 2.0 * std::f64::consts::PI * 80.0 * 0.01);
        for p in &lines[0].line.0 {
            let r = ((p.x - 100.0).powi(2) + (p.y + 100.0).powi(2)).sqrt();
            assert!((r - 80.0).abs() < 0.01, "{r}");
        }
    }
}
