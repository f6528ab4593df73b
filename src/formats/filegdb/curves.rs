//! True curves of a geometry blob (the segment from a point to the next drawn as a circular arc, a cubic
//! Bézier or an elliptic arc) and their densification into chords.
//!
//! **The tolerance.** A curve becomes chords no farther from it than the tolerance the reader passes: 0.1 of
//! the feature class's linear unit (0.1 ft in a State Plane feet layer, 0.1 m in UTM), or 1e-6 degree (about
//! 0.1 m) in a geographic one; and no chord of an arc spans more than 1° of it. A curve gets at most
//! [`MAX_CHORDS`] chords (only an arc of a radius of thousands of miles would need more).
//!
//! An arc is given by a point on it between its ends (as ArcGIS and GDAL write it) or, the older way, by its
//! centre and direction; an elliptic arc by its centre, rotation, semi-major axis and axis ratio, the shorter
//! or longer way round between its ends as its "minor" flag says, or the whole ellipse. A curve marked empty,
//! a line or a point, an arc whose three points are in a line, and an elliptic arc given by other parameters
//! (from or to its centre) are drawn as the straight segment.

use std::f64::consts::{PI, TAU};

use geo::Coord;

use super::cursor::{Cursor, Cut};

/// The most chords one curve becomes.
pub(super) const MAX_CHORDS: usize = 4096;

/// The largest angle a chord of an arc spans: 1°.
const MAX_STEP: f64 = PI / 180.0;

/// One curve segment, without its end points (the blob's points before and after it).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Curve {
    /// A circular arc through a point between its ends.
    Through(Coord<f64>),
    /// A circular arc around a centre, counter-clockwise or not.
    Around { centre: Coord<f64>, ccw: bool },
    /// A cubic Bézier with its two control points.
    Bezier(Coord<f64>, Coord<f64>),
    /// An elliptic arc around a centre, rotated by `rotation` radians counter-clockwise.
    Ellipse { centre: Coord<f64>, rotation: f64, semi_major: f64, ratio: f64, minor: bool, complete: bool },
    /// A segment drawn straight.
    Straight,
}

/// Reads one curve's kind and parameters.
pub(super) fn read(c: &mut Cursor<'_>) -> Cut<Curve> {
    let kind = c.varuint()?;
    let coord = |c: &mut Cursor<'_>| -> Cut<Coord<f64>> { Ok(Coord { x: c.f64()?, y: c.f64()? }) };
    match kind {
        1 => {
            let point = coord(c)?;
            let bits = c.u32()?;
            Ok(if bits & 0x80 != 0 {
                Curve::Through(point)
            } else if bits & (0x1 | 0x20 | 0x40) == 0 {
                Curve::Around { centre: point, ccw: bits & 0x8 != 0 }
            } else {
                Curve::Straight
            })
        }
        4 => Ok(Curve::Bezier(coord(c)?, coord(c)?)),
        5 => {
            let centre = coord(c)?;
            let (rotation, semi_major, ratio) = (c.f64()?, c.f64()?, c.f64()?);
            let bits = c.u32()?;
            // Centre-to and centre-from parameters (0x200, 0x400) are not a centre.
            Ok(if bits & 0x600 != 0 {
                Curve::Straight
            } else {
                Curve::Ellipse {
                    centre,
                    rotation,
                    semi_major,
                    ratio,
                    minor: bits & 0x1000 != 0,
                    complete: bits & 0x2000 != 0,
                }
            })
        }
        _ => Err(format!("a curve of unknown kind {kind}")),
    }
}

impl Curve {
    /// Pushes onto `out` the points strictly between `from` and `to` of this curve, densified to `tolerance`.
    pub(super) fn densify(
        &self,
        from: Coord<f64>,
        to: Coord<f64>,
        tolerance: f64,
        out: &mut Vec<Coord<f64>>,
    ) {
        match *self {
            Curve::Through(mid) => through(from, mid, to, tolerance, out),
            Curve::Around { centre, ccw } => {
                let (a0, a1) = (angle(from - centre), angle(to - centre));
                let sweep = if ccw { positive(a1 - a0) } else { -positive(a0 - a1) };
                let radius = length(to - centre);
                arc(centre, radius, radius, 0.0, a0, sweep, tolerance, out);
            }
            Curve::Bezier(c1, c2) => bezier([from, c1, c2, to], tolerance, out),
            Curve::Ellipse { centre, rotation, semi_major, ratio, minor, complete } => {
                let b = semi_major * ratio;
                if !(semi_major.is_finite()
                    && b.is_finite()
                    && semi_major > 0.0
                    && b > 0.0
                    && rotation.is_finite())
                {
                    return;
                }
                let on = |p: Coord<f64>| {
                    let q = rotate(p - centre, -rotation);
                    (q.y / b).atan2(q.x / semi_major)
                };
                let (t0, t1) = (on(from), on(to));
                let short = positive(t1 - t0 + PI) - PI;
                let sweep = if complete {
                    TAU
                } else if minor {
                    short
                } else {
                    short - short.signum() * TAU
                };
                arc(centre, semi_major, b, rotation, t0, sweep, tolerance, out);
            }
            Curve::Straight => {}
        }
    }
}

/// The arc from `from` through `mid` to `to`: its centre is where the perpendicular bisectors meet; three
/// points in a line are a straight segment; `from` equal to `to` is the whole circle through `mid`.
fn through(from: Coord<f64>, mid: Coord<f64>, to: Coord<f64>, tolerance: f64, out: &mut Vec<Coord<f64>>) {
    let (b, c) = (mid - from, to - from);
    if c.x == 0.0 && c.y == 0.0 {
        let centre = from + b * 0.5;
        arc(centre, length(b) / 2.0, length(b) / 2.0, 0.0, angle(from - centre), TAU, tolerance, out);
        return;
    }
    let d = 2.0 * (b.x * c.y - b.y * c.x);
    if d.abs() <= f64::EPSILON * (length(b) * length(c)) || !d.is_finite() {
        return;
    }
    let (bb, cc) = (b.x * b.x + b.y * b.y, c.x * c.x + c.y * c.y);
    let centre = from + Coord { x: (c.y * bb - b.y * cc) / d, y: (b.x * cc - c.x * bb) / d };
    let a0 = angle(from - centre);
    // d > 0: from, mid, to turn left, the arc runs counter-clockwise.
    let sweep = if d > 0.0 { positive(angle(to - centre) - a0) } else { -positive(a0 - angle(to - centre)) };
    let radius = length(from - centre);
    arc(centre, radius, radius, 0.0, a0, sweep, tolerance, out);
}

/// Pushes the points strictly inside the arc of the ellipse of semi-axes `a`, `b` (a circle when equal)
/// rotated by `rotation`, from parameter angle `start` through `sweep` radians.
#[allow(clippy::too_many_arguments)]
fn arc(
    centre: Coord<f64>,
    a: f64,
    b: f64,
    rotation: f64,
    start: f64,
    sweep: f64,
    tolerance: f64,
    out: &mut Vec<Coord<f64>>,
) {
    // A chord spanning θ of a circle of radius r departs from it by r (1 - cos θ/2); the ellipse's curvature
    // is at most that of the circle of its semi-major axis.
    let r = a.max(b);
    if !(r.is_finite() && sweep.is_finite() && start.is_finite()) || r == 0.0 {
        return;
    }
    let by_tolerance = 2.0 * (1.0 - tolerance / r).clamp(-1.0, 1.0).acos();
    let step = MAX_STEP.min(by_tolerance).max(f64::MIN_POSITIVE);
    let chords = ((sweep.abs() / step).ceil() as usize).clamp(1, MAX_CHORDS);
    for k in 1..chords {
        let t = start + sweep * k as f64 / chords as f64;
        out.push(centre + rotate(Coord { x: a * t.cos(), y: b * t.sin() }, rotation));
    }
}

/// Pushes the points strictly inside the cubic Bézier of `p`: `n` even steps of its parameter, enough that
/// no chord departs from it by more than `tolerance` (a chord of a step h departs at most h²/8 times the
/// largest second derivative, 6 max |p0 − 2p1 + p2|, |p1 − 2p2 + p3|).
fn bezier(p: [Coord<f64>; 4], tolerance: f64, out: &mut Vec<Coord<f64>>) {
    let bend = length(p[0] - p[1] * 2.0 + p[2]).max(length(p[1] - p[2] * 2.0 + p[3]));
    let n = (6.0 * bend / (8.0 * tolerance)).sqrt().ceil();
    let n = if n.is_finite() { (n as usize).clamp(1, MAX_CHORDS) } else { MAX_CHORDS };
    for k in 1..n {
        let t = k as f64 / n as f64;
        let u = 1.0 - t;
        out.push(
            p[0] * (u * u * u) + p[1] * (3.0 * u * u * t) + p[2] * (3.0 * u * t * t) + p[3] * (t * t * t),
        );
    }
}

fn angle(v: Coord<f64>) -> f64 {
    v.y.atan2(v.x)
}

fn length(v: Coord<f64>) -> f64 {
    v.x.hypot(v.y)
}

/// `a` in (0, 2π]: the counter-clockwise turn from one angle to another.
fn positive(a: f64) -> f64 {
    let r = a.rem_euclid(TAU);
    if r == 0.0 {
        TAU
    } else {
        r
    }
}

fn rotate(v: Coord<f64>, by: f64) -> Coord<f64> {
    let (sin, cos) = by.sin_cos();
    Coord { x: v.x * cos - v.y * sin, y: v.x * sin + v.y * cos }
}
