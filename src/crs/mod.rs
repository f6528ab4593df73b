//! Coordinate reference systems: recognising them (EPSG codes, `.prj` WKT, PROJ strings), knowing their
//! units, and reprojecting layers into the one feet-based working CRS.
//!
//! This module owns every coordinate transformation in the crate. The pipeline reads layers in their own CRS,
//! then [`Reprojector::project_layer`] turns each into a [`crate::layer::Projected`] layer in the working
//! CRS (EPSG:2261, NAD83 / New York Central in US survey feet, unless configured otherwise), the only form
//! classification accepts.
//!
//! - [`Crs::parse`] accepts `EPSG:2261` (and its URN/URL forms), PROJ strings and WKT in the ESRI, WKT1 and
//!   WKT2 dialects; a WKT that names or identifies an EPSG CRS becomes that code (the private `wkt` module explains how);
//! - [`Crs::require_feet`] is the check that the working CRS is projected in feet;
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
//! # Ok::<(), lakeshore::error::Error>(())
//! ```

pub mod backend;
mod grid;
mod proj_string;
mod reproject;
mod wkt;

use std::path::Path;

pub use self::reproject::Reprojector;
use self::wkt::Wkt;
use crate::error::{Error, Result};

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
    /// `http://www.opengis.net/def/crs/EPSG/0/2261`, `OGC:CRS84` and its URN (WGS 84), `+proj=...` strings
    /// and WKT (ESRI `.prj`, WKT1, WKT2). A WKT with an EPSG `AUTHORITY`/`ID`, or whose name is a known EPSG or
    /// ESRI name, becomes [`CrsDef::Epsg`] when its parameters agree with that code; otherwise its parameters
    /// are translated. EPSG codes must be in the built-in table (the `crs-definitions` crate, ~6 000 codes),
    /// so that both backends accept the same inputs.
    ///
    /// Errors name the text as the "path"; use [`Crs::parse_from`] to name the file it came from.
    pub fn parse(text: &str) -> Result<Self> {
        let label: String = text.trim().chars().take(60).collect();
        Self::parse_from(label, text)
    }

    /// Like [`Crs::parse`], with errors naming `source` (the `.prj` file, or `--crs`).
    pub fn parse_from(source: impl AsRef<Path>, text: &str) -> Result<Self> {
        let err = |message: String| Error::crs(source.as_ref(), message);
        let t = text.trim().trim_start_matches('\u{feff}').trim();
        if t.is_empty() {
            return Err(err("the CRS is empty; pass --crs EPSG:nnnn, for example --crs EPSG:2261".into()));
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
            return Err(err(
                "PROJJSON is not supported; pass --crs EPSG:nnnn or the CRS as WKT instead".into()
            ));
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
        let by_name = crs.name().map(wkt::esri_name_to_epsg).unwrap_or_default();
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
    u16::try_from(code).ok().and_then(crs_definitions::from_code).map(|d| d.proj4)
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
mod tests {
    use super::*;

    /// `.prj` text as ArcGIS writes it for EPSG:2261 (false easting 250 000 m exactly, `Foot_US`).
    pub(crate) const ARCGIS_2261: &str = concat!(
        r#"PROJCS["NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet",GEOGCS["GCS_North_American_1983","#,
        r#"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
        r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#,
        r#"PARAMETER["False_Easting",820208.3333333333],PARAMETER["False_Northing",0.0],"#,
        r#"PARAMETER["Central_Meridian",-76.58333333333333],PARAMETER["Scale_Factor",0.9999375],"#,
        r#"PARAMETER["Latitude_Of_Origin",40.0],UNIT["Foot_US",0.3048006096012192]]"#
    );

    /// WKT1 (GDAL) for EPSG:26918, as pyproj 3.7.2 `CRS.from_epsg(26918).to_wkt("WKT1_GDAL")` writes it.
    const GDAL_26918: &str = concat!(
        r#"PROJCS["NAD83 / UTM zone 18N",GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980","#,
        r#"6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6269"]],PRIMEM["Greenwich",0,"#,
        r#"AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],"#,
        r#"AUTHORITY["EPSG","4269"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],"#,
        r#"PARAMETER["central_meridian",-75],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],"#,
        r#"PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],"#,
        r#"AXIS["Northing",NORTH],AUTHORITY["EPSG","26918"]]"#
    );

    /// WKT2 for EPSG:5070 as pyproj 3.7.2 writes it (USAGE shortened).
    pub(crate) const WKT2_5070: &str = concat!(
        r#"PROJCRS["NAD83 / Conus Albers",BASEGEOGCRS["NAD83",DATUM["North American Datum 1983","#,
        r#"ELLIPSOID["GRS 1980",6378137,298.257222101,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,"#,
        r#"ANGLEUNIT["degree",0.0174532925199433]],ID["EPSG",4269]],CONVERSION["Conus Albers","#,
        r#"METHOD["Albers Equal Area",ID["EPSG",9822]],PARAMETER["Latitude of false origin",23,"#,
        r#"ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8821]],PARAMETER["Longitude of false origin",-96,"#,
        r#"ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8822]],PARAMETER["Latitude of 1st standard parallel","#,
        r#"29.5,ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8823]],PARAMETER["Latitude of 2nd standard "#,
        r#"parallel",45.5,ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",8824]],PARAMETER["Easting at false "#,
        r#"origin",0,LENGTHUNIT["metre",1],ID["EPSG",8826]],PARAMETER["Northing at false origin",0,"#,
        r#"LENGTHUNIT["metre",1],ID["EPSG",8827]]],CS[Cartesian,2],AXIS["easting (X)",east,ORDER[1],"#,
        r#"LENGTHUNIT["metre",1]],AXIS["northing (Y)",north,ORDER[2],LENGTHUNIT["metre",1]],"#,
        r#"USAGE[SCOPE["Data analysis."],AREA["United States (USA) - CONUS onshore."],"#,
        r#"BBOX[24.41,-124.79,49.38,-66.91]],ID["EPSG",5070]]"#
    );

    /// ESRI WKT as pyproj 3.7.2 `to_wkt("WKT1_ESRI")` writes it, by EPSG code.
    pub(crate) fn esri(code: u32) -> &'static str {
        match code {
            4269 => concat!(
                r#"GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,"#,
                r#"298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#
            ),
            26918 => concat!(
                r#"PROJCS["NAD_1983_UTM_Zone_18N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983","#,
                r#"SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
                r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#,
                r#"PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],"#,
                r#"PARAMETER["Central_Meridian",-75.0],PARAMETER["Scale_Factor",0.9996],"#,
                r#"PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#
            ),
            3857 => concat!(
                r#"PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984","#,
                r#"SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],"#,
                r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator_Auxiliary_Sphere"],"#,
                r#"PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",0.0],"#,
                r#"PARAMETER["Standard_Parallel_1",0.0],PARAMETER["Auxiliary_Sphere_Type",0.0],UNIT["Meter",1.0]]"#
            ),
            2263 => concat!(
                r#"PROJCS["NAD_1983_StatePlane_New_York_Long_Island_FIPS_3104_Feet",GEOGCS["GCS_North_American_1983","#,
                r#"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],"#,
                r#"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#,
                r#"PARAMETER["False_Easting",984250.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-74.0],"#,
                r#"PARAMETER["Standard_Parallel_1",41.0333333333333],PARAMETER["Standard_Parallel_2",40.6666666666667],"#,
                r#"PARAMETER["Latitude_Of_Origin",40.1666666666667],UNIT["US survey foot",0.304800609601219]]"#
            ),
            2265 => concat!(
                r#"PROJCS["NAD_1983_StatePlane_North_Dakota_North_FIPS_3301_Feet_Intl",GEOGCS["GCS_North_American_1983","#,
                r#"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],"#,
                r#"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#,
                r#"PARAMETER["False_Easting",1968503.937],PARAMETER["False_Northing",0.0],"#,
                r#"PARAMETER["Central_Meridian",-100.5],PARAMETER["Standard_Parallel_1",48.7333333333333],"#,
                r#"PARAMETER["Standard_Parallel_2",47.4333333333333],PARAMETER["Latitude_Of_Origin",47.0],"#,
                r#"UNIT["foot",0.3048]]"#
            ),
            6538 => concat!(
                r#"PROJCS["NAD_1983_2011_StatePlane_New_York_Long_Island_FIPS_3104",GEOGCS["GCS_NAD_1983_2011","#,
                r#"DATUM["D_NAD_1983_2011",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
                r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#,
                r#"PARAMETER["False_Easting",300000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-74.0],"#,
                r#"PARAMETER["Standard_Parallel_1",41.0333333333333],PARAMETER["Standard_Parallel_2",40.6666666666667],"#,
                r#"PARAMETER["Latitude_Of_Origin",40.1666666666667],UNIT["Meter",1.0]]"#
            ),
            _ => unreachable!("no ESRI fixture for {code}"),
        }
    }

    /// The same WKT under a name no table knows, so that only the parameter translation can understand it.
    pub(crate) fn renamed(wkt: &str) -> String {
        let name = wkt.split('"').nth(1).unwrap();
        wkt.replacen(name, "County_Custom_Grid", 1)
    }

    fn epsg(text: &str) -> Option<u32> {
        Crs::parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).epsg()
    }

    fn message(text: &str) -> String {
        match Crs::parse(text) {
            Err(Error::Crs { message, .. }) => message,
            other => panic!("{text}: expected a CRS error, got {other:?}"),
        }
    }

    #[test]
    fn authority_codes_in_all_their_spellings() {
        for text in [
            "EPSG:2261",
            "epsg:2261",
            " EPSG:2261 ",
            "urn:ogc:def:crs:EPSG::2261",
            "urn:ogc:def:crs:EPSG:9.8:2261",
            "http://www.opengis.net/def/crs/EPSG/0/2261",
            "2261",
            "+init=epsg:2261",
        ] {
            assert_eq!(epsg(text), Some(2261), "{text}");
        }
        for text in
            ["OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"]
        {
            assert_eq!(epsg(text), Some(4326), "{text}");
        }
        assert_eq!(epsg("EPSG:900913"), Some(3857));
        assert_eq!(epsg("ESRI:102100"), Some(3857));
    }

    #[test]
    fn unusable_input_says_what_to_do() {
        assert!(message("").contains("--crs EPSG:"));
        assert!(message("EPSG:99999").contains("PROJ string"));
        assert!(message("EPSG:abc").contains("--crs EPSG:"));
        assert!(message("hello").contains("--crs EPSG:"));
        assert!(message(r#"{"type":"ProjectedCRS"}"#).contains("PROJJSON"));
        assert!(message("EPSG:4978").contains("geocentric"));
        assert!(message("EPSG:4267").contains("NAD83"), "NAD27 needs grids: {}", message("EPSG:4267"));
        assert!(message("+proj=nonsense +ellps=GRS80").contains("--crs EPSG:"));
        assert!(message("+proj=tmerc +units=furlong").contains("furlong"));
        assert!(message(r#"PROJCS["x",GEOGCS["g""#).contains("--crs EPSG:"));
        assert!(message(r#"VERT_CS["NAVD88",VERT_DATUM["x",2005]]"#).contains("--crs EPSG:"));
    }

    #[test]
    fn parse_from_names_the_file() {
        let err = Crs::parse_from("parcels.prj", "LOCAL_CS[\"x\"]").unwrap_err().to_string();
        assert!(err.starts_with("parcels.prj: "), "{err}");
    }

    #[test]
    fn proj_strings_are_kept_and_normalised() {
        let crs = Crs::parse("proj=utm +zone=18 +datum=NAD83").unwrap();
        assert_eq!(crs.def, CrsDef::Proj4("+proj=utm +zone=18 +datum=NAD83".into()));
        assert_eq!(crs.linear_unit().unwrap(), Some(LinearUnit::Metre));
    }

    #[test]
    fn wkt_becomes_its_epsg_code_when_parameters_agree() {
        assert_eq!(epsg(ARCGIS_2261), Some(2261));
        assert_eq!(epsg(GDAL_26918), Some(26918));
        assert_eq!(epsg(WKT2_5070), Some(5070));
        for code in [4269, 26918, 3857, 2263, 2265, 6538] {
            assert_eq!(epsg(esri(code)), Some(code), "{}", esri(code));
        }
        let gcs_wgs84 = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]]"#;
        assert_eq!(epsg(gcs_wgs84), Some(4326));
        // A byte-order mark and a trailing newline, as some .prj writers leave them.
        assert_eq!(epsg(&format!("\u{feff}{ARCGIS_2261}\r\n")), Some(2261));
    }

    #[test]
    fn wkt_with_unknown_names_is_translated() {
        // An authority code still identifies a renamed CRS.
        assert_eq!(epsg(&renamed(GDAL_26918)), Some(26918));
        for wkt in [renamed(ARCGIS_2261), renamed(esri(26918)), renamed(esri(3857))] {
            let crs = Crs::parse(&wkt).unwrap();
            assert!(matches!(crs.def, CrsDef::Wkt(_)), "{wkt}");
            assert_eq!(crs.short_name(), "WKT CRS \"County_Custom_Grid\"");
        }
        // Without the ID and under another name, WKT2 is translated from its parameters alone.
        let bare = renamed(WKT2_5070).replace(r#",ID["EPSG",5070]"#, "");
        let p = Crs::parse(&bare).unwrap().to_proj_string().unwrap();
        assert_eq!(p, "+proj=aea +lat_0=23 +lat_1=29.5 +lat_2=45.5 +lon_0=-96 +x_0=0 +y_0=0 +datum=NAD83 +units=m +no_defs");
    }

    #[test]
    fn a_misleading_name_does_not_win_over_the_parameters() {
        // Named New York Central, but with Long Island's parameters.
        let liar = esri(2263).replace("New_York_Long_Island_FIPS_3104", "New_York_Central_FIPS_3102");
        let crs = Crs::parse(&liar).unwrap();
        assert_eq!(crs.epsg(), None);
        assert!(crs.to_proj_string().unwrap().starts_with("+proj=lcc"));
    }

    #[test]
    fn units_and_the_feet_requirement() {
        let unit = |t: &str| Crs::parse(t).unwrap().linear_unit().unwrap();
        assert_eq!(unit("EPSG:2261"), Some(LinearUnit::UsSurveyFoot));
        assert_eq!(unit(ARCGIS_2261), Some(LinearUnit::UsSurveyFoot));
        assert_eq!(unit(&renamed(ARCGIS_2261)), Some(LinearUnit::UsSurveyFoot));
        assert_eq!(unit(esri(2265)), Some(LinearUnit::InternationalFoot));
        assert_eq!(unit("EPSG:26918"), Some(LinearUnit::Metre));
        assert_eq!(unit("EPSG:4326"), None);
        assert!(Crs::wgs84().is_geographic().unwrap());

        assert_eq!(Crs::ny_central_ftus().require_feet().unwrap(), LinearUnit::UsSurveyFoot);
        assert!(
            (LinearUnit::UsSurveyFoot.to_metre() / LinearUnit::InternationalFoot.to_metre() - 1.000002).abs()
                < 1e-9
        );
        for bad in ["EPSG:4326", "EPSG:26918"] {
            match Crs::parse(bad).unwrap().require_feet() {
                Err(Error::Config(m)) => assert!(m.contains("EPSG:2261") && m.contains(bad), "{m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn real_streamstats_prj_files() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/data/real/owasco-watershed-streamstats");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            println!("SKIPPED real_streamstats_prj_files: {} is absent", dir.display());
            return;
        };
        let mut seen = 0;
        for entry in entries.flatten() {
            let prj = entry.path().join("globalwatershed.prj");
            if let Ok(text) = std::fs::read_to_string(&prj) {
                let crs = Crs::parse_from(&prj, &text).unwrap();
                assert_eq!(crs.epsg(), Some(4326), "{}", prj.display());
                seen += 1;
            }
        }
        assert!(seen > 0, "no globalwatershed.prj under {}", dir.display());
    }
}
