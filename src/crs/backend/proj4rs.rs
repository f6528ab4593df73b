//! The default backend: `proj4rs`, a pure-Rust port of PROJ's classic (PROJ.4) pipeline.
//!
//! It works in radians for geographic CRSs, so degrees are converted on the way in and out. Like PROJ without
//! grid files it treats NAD83 and WGS 84 as the same datum (a null shift), which is what the county data
//! needs: the two differ by about a metre, far below the accuracy of parcel maps.

use proj4rs::proj::Proj;
use proj4rs::transform::transform;

use super::Backend;
use crate::crs::Crs;
use crate::model::error::{Error, Result};

/// Transformations computed by the pure-Rust `proj4rs` crate.
#[derive(Clone)]
pub struct Proj4rs {
    from: Proj,
    to: Proj,
    from_degrees: bool,
    to_degrees: bool,
}

impl std::fmt::Debug for Proj4rs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proj4rs")
            .field("from", &self.from.projname())
            .field("to", &self.to.projname())
            .finish()
    }
}

/// Builds a `proj4rs` CRS, turning its errors (and any panic inside the library) into an [`Error::Crs`].
pub(crate) fn build(crs: &Crs) -> Result<Proj> {
    let text = crs.to_proj_string()?;
    let built = std::panic::catch_unwind(|| Proj::from_proj_string(&text));
    match built {
        Ok(Ok(proj)) => Ok(proj),
        Ok(Err(proj4rs::errors::Error::NadGridNotAvailable)) => Err(Error::crs(
            crs.short_name(),
            "needs datum grid files (NAD27 and similar) that lakeshore does not ship; reproject the layer to \
             NAD83 first (for example to EPSG:2261) or pass a PROJ string with +towgs84",
        )),
        Ok(Err(e)) => Err(Error::crs(
            crs.short_name(),
            format!("cannot use '{text}': {e}; pass --crs EPSG:nnnn or a valid PROJ string"),
        )),
        Err(_) => Err(Error::crs(crs.short_name(), format!("cannot use '{text}'; pass --crs EPSG:nnnn instead"))),
    }
}

impl Backend for Proj4rs {
    fn new(from: &Crs, to: &Crs) -> Result<Self> {
        let from = build(from)?;
        let to = build(to)?;
        Ok(Proj4rs { from_degrees: from.is_latlong(), to_degrees: to.is_latlong(), from, to })
    }

    #[inline]
    fn transform_point(&self, x: f64, y: f64) -> Result<(f64, f64), String> {
        let mut p = if self.from_degrees { (x.to_radians(), y.to_radians(), 0.0) } else { (x, y, 0.0) };
        transform(&self.from, &self.to, &mut p).map_err(|e| e.to_string())?;
        let (x, y) = if self.to_degrees { (p.0.to_degrees(), p.1.to_degrees()) } else { (p.0, p.1) };
        if x.is_finite() && y.is_finite() {
            Ok((x, y))
        } else {
            Err("the result is not a finite number".into())
        }
    }
}
