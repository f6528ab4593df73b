//! Coordinate reference systems: recognising them (EPSG codes, `.prj` WKT, PROJ strings), knowing their
//! units, and reprojecting layers into the one feet-based working CRS.
//!
//! This module owns every coordinate transformation in the crate. The pipeline reads layers in their own CRS,
//! then [`Reprojector::project_layer`] turns each into a [`crate::crs::layer::Projected`] layer in the working
//! CRS (EPSG:2261, NAD83 / New York Central in US survey feet, unless configured otherwise), the only form
//! classification accepts.
//!
//! - [`Crs::parse`] accepts `EPSG:2261` (and its URN/URL forms), PROJ strings, WKT in the ESRI, WKT1 and
//!   WKT2 dialects and PROJJSON (read as the WKT2 it stands for); a WKT that names or identifies an EPSG CRS becomes that code (the private `wkt` module explains how);
//! - [`Crs::require_feet`] is the check that the working CRS is projected in feet;
//! - [`Screen`] makes a feature with a vertex outside the working CRS's area of use, or far outside the rest of
//!   its layer, unusable, and [`check_overlap`] stops a run whose layers do not overlap the parcels, naming the
//!   likely cause (axes swapped, metres for feet, another State Plane zone, a `.prj` that disagrees);
//! - the arithmetic is done by a [`backend`]: pure-Rust `proj4rs` by default, PROJ 9 with cargo feature
//!   `proj`. Both treat NAD83 and WGS 84 as the same datum, as PROJ does without grid files.
//!
//! **Coordinates are always x = easting/longitude, y = northing/latitude, angles in degrees**, the order
//! shapefiles and GeoJSON use, whatever axis order a CRS definition declares.
//!
//! ```
//! use lakeshore::crs::{Crs, Reprojector};
//! use geo::{Geometry, Point};
//!
//! let working = Crs::parse("EPSG:2261")?;
//! assert!(working.require_feet().is_ok());
//! let r = Reprojector::new(&Crs::wgs84(), &working)?;
//! let p = r.transform(&Geometry::Point(Point::new(-76.58333333333333, 40.0))).unwrap();
//! // The projection's natural origin is its false easting, 820 208.333 US survey feet.
//! assert!(matches!(p, Geometry::Point(p) if (p.x() - 820_208.333).abs() < 1e-6 && p.y().abs() < 1e-6));
//! # Ok::<(), lakeshore::model::error::Error>(())
//! ```

pub mod backend;
mod epsg;
pub mod extent;
mod grid;
pub mod layer;
mod mistakes;
mod names;
pub mod overlap;
mod proj_string;
mod projjson;
mod reproject;
mod wkt;
pub mod zones;

use std::path::Path;

pub use self::extent::Screen;
pub use self::overlap::{check_overlap, LayerExtent};
pub use self::reproject::Reprojector;
use self::wkt::Wkt;
use crate::model::error::{Error, Result};

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

/// The unit of a projected CRS's coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LinearUnit {
    /// The metre.
    Metre,
    /// The US survey foot, 1200/3937 m (EPSG:9003), used by the NAD83 state plane zones in feet such as
    /// EPSG:2261.
    UsSurveyFoot,
    /// The international foot, 0.3048 m (EPSG:9002); 2 ppm shorter than the US survey foot.
    InternationalFoot,
    /// Any other unit, by its length in metres.
    Other {
        /// Metres per unit.
        to_metre: f64,
    },
}

impl LinearUnit {
    /// Metres per unit.
    pub fn to_metre(self) -> f64 {
        match self {
            LinearUnit::Metre => 1.0,
            LinearUnit::UsSurveyFoot => 1200.0 / 3937.0,
            LinearUnit::InternationalFoot => 0.3048,
            LinearUnit::Other { to_metre } => to_metre,
        }
    }

    /// Whether this is one of the two feet.
    pub fn is_feet(self) -> bool {
        matches!(self, LinearUnit::UsSurveyFoot | LinearUnit::InternationalFoot)
    }

    /// The unit that is `to_metre` metres long, recognising the metre and both feet to 12 digits (WKT files
    /// often write the US survey foot as `0.304800609601219`).
    pub fn from_factor(to_metre: f64) -> LinearUnit {
        if (to_metre - 1.0).abs() < 1e-12 {
            LinearUnit::Metre
        } else if (to_metre - 1200.0 / 3937.0).abs() < 1e-12 {
            LinearUnit::UsSurveyFoot
        } else if (to_metre - 0.3048).abs() < 1e-12 {
            LinearUnit::InternationalFoot
        } else {
            LinearUnit::Other { to_metre }
        }
    }
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
    ///
    /// Accepted forms: `EPSG:2261` (any case), `urn:ogc:def:crs:EPSG::2261`,
    /// `http://www.opengis.net/def/crs/EPSG/0/2261`, `OGC:CRS84` and its URN (WGS 84), `+proj=...` strings,
    /// WKT (ESRI `.prj`, WKT1, WKT2) and PROJJSON. A WKT with an EPSG `AUTHORITY`/`ID`, or whose name is a known EPSG or
    /// ESRI name, becomes [`CrsDef::Epsg`] when its parameters agree with that code; otherwise its parameters
    /// are translated. EPSG codes must be in the built-in table (the `crs-definitions` crate's ~6 000 codes, `epsg`),
    /// so that both backends accept the same inputs.
    ///
    /// Errors name the text as the "path"; use [`Crs::parse_from`] to name the file it came from.
    pub fn parse(text: &str) -> Result<Self> {
        let label: String = text.trim().chars().take(60).collect();
        Self::parse_from(if label.is_empty() { "crs".into() } else { label }, text)
    }

    /// Like [`Crs::parse`], with errors naming `source` (the `.prj` file, or `--crs`).
    pub fn parse_from(source: impl AsRef<Path>, text: &str) -> Result<Self> {
        let err = |message: String| Error::crs(source.as_ref(), message);
        let t = text.trim().trim_start_matches('\u{feff}').trim();
        if t.is_empty() {
            return Err(err(
                "the CRS is empty; set crs = \"EPSG:nnnn\" in the config file or pass --crs EPSG:nnnn \
                 (a projected CRS in feet, such as the State Plane zone of the county: EPSG:2261 is New York \
                 Central)"
                    .into(),
            ));
        }
        if let Some(code) = authority_code(t).map_err(&err)? {
            return Crs::checked_epsg(code).map_err(err);
        }
        if t.starts_with('+') || t.starts_with("proj=") {
            let normalised: Vec<String> = t
                .split_whitespace()
                .map(|p| if p.starts_with('+') { p.to_string() } else { format!("+{p}") })
                .collect();
            let normalised = normalised.join(" ");
            if let Some(init) = proj_string::get(&normalised, "init") {
                if let Some(code) = authority_code(init).map_err(&err)? {
                    return Crs::checked_epsg(code).map_err(err);
                }
            }
            let crs = Crs { def: CrsDef::Proj4(normalised) };
            crs.validate().map_err(err)?;
            return Ok(crs);
        }
        if wkt::looks_like_wkt(t) {
            return Crs::from_wkt(t).map_err(err);
        }
        if t.starts_with('{') {
            // The CRS as the WKT2 it stands for, its EPSG id checked against its parameters as in WKT. An id
            // of another authority that names an EPSG CRS (`OGC:CRS84`) is taken as that code, and so is the
            // id of PROJJSON that is no CRS lakeshore reads.
            let (wkt, id) = projjson::read(t);
            let code = id
                .as_ref()
                .and_then(|(authority, code)| authority_code(&format!("{authority}:{code}")).ok().flatten());
            let other_authority =
                id.as_ref().is_some_and(|(authority, _)| !authority.eq_ignore_ascii_case("EPSG"));
            return match (wkt, code) {
                (Ok(_), Some(code)) if other_authority => Crs::checked_epsg(code).map_err(err),
                (Ok(wkt), _) => Crs::from_wkt(&wkt).map_err(err),
                (Err(_), Some(code)) => Crs::checked_epsg(code).map_err(err),
                (Err(e), None) => Err(err(format!(
                    "the PROJJSON CRS cannot be used: {e}; pass --crs EPSG:nnnn (or --assume-crs EPSG:nnnn \
                     for a layer) instead"
                ))),
            };
        }
        Err(err("not a CRS lakeshore understands: expected EPSG:nnnn, a PROJ string (+proj=...) or WKT; \
                 pass --crs EPSG:nnnn, for example --crs EPSG:2261"
            .into()))
    }

    /// The EPSG code, when the CRS is defined by one.
    pub fn epsg(&self) -> Option<u32> {
        match self.def {
            CrsDef::Epsg(code) => Some(code),
            _ => None,
        }
    }

    /// The CRS as OGC WKT (WKT1), for files that store their CRS so: the built-in EPSG table's definition, the
    /// WKT as given, or `None` for a CRS given as a PROJ string.
    pub fn wkt(&self) -> Option<String> {
        match &self.def {
            CrsDef::Epsg(code) => epsg::from_code(*code).map(|d| d.wkt.to_string()),
            CrsDef::Wkt(s) => Some(s.clone()),
            CrsDef::Proj4(_) => None,
        }
    }

    /// The CRS as a PROJ string: from the built-in EPSG table, as given, or translated from the WKT.
    pub fn to_proj_string(&self) -> Result<String> {
        match &self.def {
            CrsDef::Epsg(code) => epsg_proj4(*code).map(str::to_string).ok_or_else(|| {
                Error::crs(self.short_name(), "not in the built-in EPSG table; pass the CRS as a PROJ string")
            }),
            CrsDef::Proj4(s) => Ok(s.clone()),
            CrsDef::Wkt(s) => Wkt::parse(s)
                .and_then(|w| w.to_proj())
                .map_err(|e| Error::crs(self.short_name(), format!("{e}; pass --crs EPSG:nnnn instead"))),
        }
    }

    /// Whether coordinates are longitude/latitude in degrees rather than projected.
    pub fn is_geographic(&self) -> Result<bool> {
        Ok(self.linear_unit()?.is_none())
    }

    /// The unit of a projected CRS's coordinates; `None` for a geographic CRS (degrees).
    pub fn linear_unit(&self) -> Result<Option<LinearUnit>> {
        let text = self.to_proj_string()?;
        proj_string::linear_unit(&text).map_err(|e| Error::crs(self.short_name(), e))
    }

    /// Checks that this CRS can be the working CRS: projected, in feet. Returns which foot.
    ///
    /// Distances in the rule sets are in feet and are compared with coordinate differences as they are, so
    /// a geographic or metre-based working CRS would silently give wrong answers.
    pub fn require_feet(&self) -> Result<LinearUnit> {
        let advice = "choose a projected CRS in feet for the working CRS, such as --crs EPSG:2261 \
                      (NAD83 / New York Central, US survey feet)";
        match self.linear_unit()? {
            Some(unit) if unit.is_feet() => Ok(unit),
            None => Err(Error::Config(format!(
                "the working CRS {} is geographic (degrees); {advice}",
                self.short_name()
            ))),
            Some(unit) => Err(Error::Config(format!(
                "the working CRS {} is in {} m units, not feet; {advice}",
                self.short_name(),
                unit.to_metre()
            ))),
        }
    }

    /// A one-line name for messages: `EPSG:2261`, the PROJ string, or the WKT's name.
    pub fn short_name(&self) -> String {
        match &self.def {
            CrsDef::Epsg(code) => format!("EPSG:{code}"),
            CrsDef::Proj4(s) => s.clone(),
            CrsDef::Wkt(s) => match Wkt::parse(s).ok().and_then(|w| w.name().map(str::to_string)) {
                Some(name) => format!("WKT CRS \"{name}\""),
                None => "WKT CRS".to_string(),
            },
        }
    }

    /// An EPSG CRS, if the built-in table has the code and proj4rs can build it.
    fn checked_epsg(code: u32) -> std::result::Result<Crs, String> {
        // Web Mercator under its unofficial and ESRI codes.
        let code = if matches!(code, 900913 | 102100 | 102113) { 3857 } else { code };
        let Some(def) = epsg_proj4(code) else {
            return Err(format!(
                "EPSG:{code} is not in lakeshore's built-in EPSG table; pass the CRS as a PROJ string \
                 (--crs '+proj=...') or reproject the layer to EPSG:2261 first"
            ));
        };
        if proj_string::get(def, "proj") == Some("geocent") {
            return Err(format!(
                "EPSG:{code} is geocentric (X/Y/Z); pass a geographic or projected CRS such as --crs EPSG:2261"
            ));
        }
        let crs = Crs { def: CrsDef::Epsg(code) };
        crs.validate()?;
        Ok(crs)
    }

    /// Checks that the default backend can build this CRS and that its units are known.
    fn validate(&self) -> std::result::Result<(), String> {
        let message = |e: Error| match e {
            Error::Crs { message, .. } => message,
            other => other.to_string(),
        };
        backend::proj4rs_build(self).map_err(message)?;
        self.linear_unit().map_err(message)?;
        Ok(())
    }

    /// The WKT route described in [`wkt`].
    fn from_wkt(text: &str) -> std::result::Result<Crs, String> {
        let advice = "pass --crs EPSG:nnnn (or --assume-crs EPSG:nnnn for a layer) instead";
        let root = Wkt::parse(text).map_err(|e| format!("the WKT cannot be read: {e}; {advice}"))?;
        let crs = root.horizontal().map_err(|e| format!("{e}; {advice}"))?;
        let translated = crs.to_proj();
        let authority = crs.epsg_code();
        let by_name = crs.name().map(names::esri_name_to_epsg).unwrap_or_default();
        for code in authority.into_iter().chain(by_name) {
            let Some(candidate) = epsg_proj4(code) else { continue };
            let same = match &translated {
                Ok(own) => same_crs(candidate, own),
                // Parameters we cannot translate: trust an explicit authority code, never a name.
                Err(_) => Some(code) == authority,
            };
            if same {
                if let Ok(crs) = Crs::checked_epsg(code) {
                    return Ok(crs);
                }
            }
        }
        let name = crs.name().unwrap_or("unnamed");
        translated.map_err(|e| format!("cannot use the WKT CRS \"{name}\": {e}; {advice}"))?;
        let crs = Crs { def: CrsDef::Wkt(text.to_string()) };
        crs.validate().map_err(|e| format!("{e}; {advice}"))?;
        Ok(crs)
    }
}

impl std::fmt::Display for Crs {
    /// `EPSG:2261`, the PROJ string, or the full WKT.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.def {
            CrsDef::Epsg(c) => write!(f, "EPSG:{c}"),
            CrsDef::Proj4(s) => f.write_str(s),
            CrsDef::Wkt(s) => f.write_str(s),
        }
    }
}

/// The PROJ string of an EPSG code in the built-in table.
fn epsg_proj4(code: u32) -> Option<&'static str> {
    epsg::from_code(code).map(|d| d.proj4)
}

/// The EPSG code in `EPSG:nnnn`, its URN and URL forms, `OGC:CRS84` (WGS 84) or a bare number; `Ok(None)`
/// when the text is not an authority code at all.
fn authority_code(text: &str) -> std::result::Result<Option<u32>, String> {
    let lower = text.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "wgs84" | "crs84" | "ogc:crs84" | "urn:ogc:def:crs:ogc:1.3:crs84" | "urn:ogc:def:crs:ogc::crs84"
    ) || lower.ends_with("/def/crs/ogc/1.3/crs84")
    {
        return Ok(Some(4326));
    }
    let code = if let Some(rest) = lower.strip_prefix("epsg:").or_else(|| lower.strip_prefix("esri:")) {
        rest
    } else if lower.starts_with("urn:ogc:def:crs:epsg:") {
        // urn:ogc:def:crs:EPSG::2261 or urn:ogc:def:crs:EPSG:9.8:2261
        lower.rsplit(':').next().unwrap_or("")
    } else if lower.contains("/def/crs/epsg/") {
        lower.trim_end_matches('/').rsplit('/').next().unwrap_or("")
    } else if !lower.is_empty() && lower.chars().all(|c| c.is_ascii_digit()) {
        &lower
    } else {
        return Ok(None);
    };
    code.trim().parse::<u32>().map(Some).map_err(|_| {
        format!("'{text}' is not an EPSG code; pass --crs EPSG:nnnn, for example --crs EPSG:2261")
    })
}

/// Whether two PROJ strings put test points around the second one's origin at the same place, within 2 mm.
pub(crate) fn same_crs(a: &str, b: &str) -> bool {
    use proj4rs::proj::Proj;
    let build = |s: &str| std::panic::catch_unwind(|| Proj::from_proj_string(s)).ok().and_then(|r| r.ok());
    let (Some(pa), Some(pb), Some(geo)) = (build(a), build(b), build("+proj=longlat +datum=WGS84")) else {
        return false;
    };
    if pa.is_latlong() != pb.is_latlong() {
        return false;
    }
    let lon_0 = proj_string::number(b, "lon_0").unwrap_or(0.0);
    let lat_0 = proj_string::number(b, "lat_0").unwrap_or(0.0);
    // Output units: metres per unit, or metres per radian on a geographic CRS.
    let scale = if pa.is_latlong() { 6.4e6 } else { pa.to_meter() };
    for dx in [-1.0, 0.0, 1.0] {
        for dy in [-1.0, 0.0, 1.0] {
            let lon = (lon_0 + dx).to_radians();
            let lat = (lat_0 + dy).clamp(-80.0, 80.0).to_radians();
            let mut p = (lon, lat, 0.0);
            let mut q = (lon, lat, 0.0);
            let ra = proj4rs::transform::transform(&geo, &pa, &mut p);
            let rb = proj4rs::transform::transform(&geo, &pb, &mut q);
            match (ra, rb) {
                (Ok(()), Ok(())) => {
                    let d = (p.0 - q.0).abs().max((p.1 - q.1).abs()) * scale;
                    // NaN counts as different.
                    if d.is_nan() || d > 0.002 {
                        return false;
                    }
                }
                (Err(_), Err(_)) => {}
                _ => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests;
