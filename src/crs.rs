//! Coordinate reference systems: recognising them (EPSG codes, `.prj` WKT, PROJ strings) and reprojecting
//! layers into the one feet-based working CRS.
//!
//! STUB: to be implemented (pure-Rust proj4rs backend by default, PROJ behind the `proj` feature).

use geo::Geometry;

use crate::error::{Problem, Result};
use crate::layer::{Layer, Projected};

/// A coordinate reference system.
#[derive(Debug, Clone, PartialEq)]
pub struct Crs {
    /// How the CRS is defined.
    pub def: CrsDef,
}

/// The definitions a [`Crs`] can come from.
#[derive(Debug, Clone, PartialEq)]
pub enum CrsDef {
    /// An EPSG code.
    Epsg(u32),
    /// A PROJ string such as `+proj=tmerc ...`.
    Proj4(String),
    /// OGC WKT (ESRI `.prj` dialect or WKT1/WKT2).
    Wkt(String),
}

impl Crs {
    /// WGS 84 longitude/latitude (EPSG:4326), the CRS of RFC 7946 GeoJSON.
    pub fn wgs84() -> Self {
        Crs { def: CrsDef::Epsg(4326) }
    }

    /// NAD83 / New York Central (ftUS), EPSG:2261: the default working CRS.
    pub fn ny_central_ftus() -> Self {
        Crs { def: CrsDef::Epsg(2261) }
    }

    /// Parses a user-supplied CRS: `EPSG:2261`, a PROJ string or WKT.
    pub fn parse(text: &str) -> Result<Self> {
        let _ = text;
        todo!()
    }
}

impl std::fmt::Display for Crs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.def {
            CrsDef::Epsg(c) => write!(f, "EPSG:{c}"),
            CrsDef::Proj4(s) => f.write_str(s),
            CrsDef::Wkt(s) => f.write_str(s),
        }
    }
}

/// Transforms coordinates from one CRS to another.
pub struct Reprojector {}

impl Reprojector {
    /// A transformation from `from` to `to`.
    pub fn new(from: &Crs, to: &Crs) -> Result<Self> {
        let _ = (from, to);
        todo!()
    }

    /// Reprojects every feature of `layer`; a feature whose coordinates cannot be transformed keeps its record
    /// with a geometry error, and a [`Problem`] names it.
    pub fn project_layer(&self, layer: Layer) -> (Projected<Layer>, Vec<Problem>) {
        let _ = layer;
        todo!()
    }

    /// Transforms one geometry.
    pub fn transform(&self, geometry: &Geometry<f64>) -> Result<Geometry<f64>, String> {
        let _ = geometry;
        todo!()
    }
}
