//! The libraries that do the coordinate arithmetic, behind one trait so the rest of the crate does not care
//! which one was compiled in.
//!
//! - [`Proj4rs`]: pure Rust (`proj4rs`), the default;
//! - `ProjBackend`: PROJ 9 itself (crate `proj`, built from source), with cargo feature `proj`.
//!
//! [`Active`] is the one [`crate::crs::Reprojector`] uses. Both are public only so that
//! `tests/crs_backends.rs` can check that they agree; other code should use the reprojector.
//!
//! Both take and return **x = easting or longitude, y = northing or latitude, angles in degrees**, whatever
//! axis order the CRS's own definition declares, because that is how shapefiles and GeoJSON store them.

#[cfg(feature = "proj")]
mod proj;
mod proj4rs;

#[cfg(feature = "proj")]
pub use self::proj::ProjBackend;
pub(crate) use self::proj4rs::build as proj4rs_build;
pub use self::proj4rs::Proj4rs;

use super::Crs;
use crate::model::error::Result;

/// The backend compiled in: PROJ with feature `proj`, proj4rs otherwise.
#[cfg(feature = "proj")]
pub type Active = ProjBackend;
/// The backend compiled in: PROJ with feature `proj`, proj4rs otherwise.
#[cfg(not(feature = "proj"))]
pub type Active = Proj4rs;

/// A coordinate transformation from one CRS to another, usable from many threads at once.
pub trait Backend: Sized + Send + Sync {
    /// Prepares the transformation from `from` to `to`; an [`crate::model::error::Error::Crs`] when the library
    /// cannot.
    fn new(from: &Crs, to: &Crs) -> Result<Self>;

    /// Transforms one point. Errors (and non-finite results) come back as a sentence for the user.
    fn transform_point(&self, x: f64, y: f64) -> Result<(f64, f64), String>;
}
