//! Design geometry in EPSG:2261 feet, and its conversion to WGS84 longitude/latitude.
//!
//! Every layer is designed in feet, where distances can be checked by hand; the layers published
//! in WGS84 are converted vertex by vertex. Edges stay straight lines between the same vertices, so
//! a reader that projects the vertices back to feet recovers the designed geometry to within the
//! rounding of the published coordinates (1e-9 degree, about 0.0003 ft).

use anyhow::{ensure, Context, Result};
use proj4rs::proj::Proj;
use proj4rs::transform::transform;

/// A point in EPSG:2261 US survey feet (x = easting, y = northing).
pub type Pt = (f64, f64);

/// proj string of EPSG:2261, NAD83 / New York Central (ftUS).
pub const EPSG_2261: &str = "+proj=tmerc +lat_0=40 +lon_0=-76.58333333333333 +k=0.9999375 \
                             +x_0=250000 +y_0=0 +ellps=GRS80 +units=us-ft +no_defs";
/// proj string of WGS84 longitude/latitude (proj4rs works in radians for it).
pub const WGS84: &str = "+proj=longlat +datum=WGS84 +no_defs";

/// Published WGS84 coordinates are rounded to this many decimals of a degree.
const DEGREE_DECIMALS: i32 = 9;

/// A polygon ring, tagged as the shapefile writer wants it; the points are not closed.
#[derive(Clone, Debug)]
pub enum Ring {
    Outer(Vec<Pt>),
    Inner(Vec<Pt>),
}

impl Ring {
    pub fn points(&self) -> &[Pt] {
        match self {
            Ring::Outer(p) | Ring::Inner(p) => p,
        }
    }
}

/// The four corners of an axis-aligned rectangle, counter-clockwise from the south-west corner.
pub fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Pt> {
    vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
}

/// Twice the signed area of an open ring: positive when counter-clockwise.
pub fn signed_area_2(ring: &[Pt]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum()
}

/// The ring as a closed, counter-clockwise list (GeoJSON exterior rings, RFC 7946 §3.1.6).
pub fn closed_ccw(ring: &[Pt]) -> Vec<Pt> {
    let mut out = ring.to_vec();
    if signed_area_2(&out) < 0.0 {
        out.reverse();
    }
    out.push(out[0]);
    out
}

/// Converts EPSG:2261 feet to WGS84 degrees with proj4rs.
pub struct ToWgs84 {
    feet: Proj,
    wgs: Proj,
}

impl ToWgs84 {
    /// Builds the conversion and checks it: a round trip through the rounded published degrees
    /// must come back within 0.001 ft, and the lake must land on Owasco Lake.
    pub fn new() -> Result<Self> {
        let this = Self {
            feet: Proj::from_proj_string(EPSG_2261).context("parse the EPSG:2261 proj string")?,
            wgs: Proj::from_proj_string(WGS84).context("parse the WGS84 proj string")?,
        };
        for p in [(780_000.0, 985_000.0), (837_000.0, 1_037_000.0), (880_000.0, 1_170_000.0)] {
            let back = this.feet_of(this.lonlat(p)?)?;
            let err = ((back.0 - p.0).powi(2) + (back.1 - p.1).powi(2)).sqrt();
            ensure!(err < 1e-3, "feet -> WGS84 -> feet round trip is off by {err} ft at {p:?}");
        }
        let (lon, lat) = this.lonlat((837_000.0, 1_037_000.0))?;
        ensure!(
            (-76.6..-76.4).contains(&lon) && (42.7..42.95).contains(&lat),
            "EPSG:2261 (837000, 1037000) ft should be on Owasco Lake, got lon {lon} lat {lat}"
        );
        Ok(this)
    }

    /// Longitude and latitude in degrees, rounded to the published precision.
    pub fn lonlat(&self, p: Pt) -> Result<Pt> {
        let (lon, lat) = self.lonlat_unrounded(p)?;
        Ok((round_degrees(lon), round_degrees(lat)))
    }

    /// Longitude and latitude in degrees as the projection gives them, to the last bit.
    pub fn lonlat_unrounded(&self, p: Pt) -> Result<Pt> {
        let mut q = (p.0, p.1, 0.0);
        transform(&self.feet, &self.wgs, &mut q).with_context(|| format!("project {p:?} to WGS84"))?;
        Ok((q.0.to_degrees(), q.1.to_degrees()))
    }

    /// EPSG:2261 feet of a longitude/latitude in degrees (used for the round-trip check).
    pub fn feet_of(&self, lonlat: Pt) -> Result<Pt> {
        let mut q = (lonlat.0.to_radians(), lonlat.1.to_radians(), 0.0);
        transform(&self.wgs, &self.feet, &mut q)
            .with_context(|| format!("project {lonlat:?} to EPSG:2261"))?;
        Ok((q.0, q.1))
    }
}

fn round_degrees(d: f64) -> f64 {
    let scale = 10f64.powi(DEGREE_DECIMALS);
    (d * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_ccw_reverses_clockwise_rings() {
        let cw = vec![(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)];
        let ring = closed_ccw(&cw);
        assert!(signed_area_2(&ring[..4]) > 0.0);
        assert_eq!(ring.first(), ring.last());
    }
}
