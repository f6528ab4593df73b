//! OGC Well-Known Text: reading the CRS definitions found in `.prj` files (the ESRI dialect that ArcGIS and
//! QGIS write, GDAL's WKT1 and WKT2) and turning them into something the backends understand.
//!
//! Two routes lead from a WKT to a usable CRS, tried in this order by [`super::Crs::parse`]:
//!
//! 1. **an EPSG code**, from the root's `AUTHORITY["EPSG","2261"]` / `ID["EPSG",2261]`, or from the CRS name
//!    (`NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet`, `GCS_WGS_1984`, …) matched against the names of
//!    the built-in EPSG table ([`super::names::esri_name_to_epsg`]);
//! 2. **a PROJ string** translated from the WKT's own parameters ([`Wkt::to_proj`]): projection method,
//!    parameters, linear and angular units, datum and ellipsoid.
//!
//! A code found by route 1 is only kept when the CRS it names puts test points where the WKT's own parameters
//! do (checked by the caller), so a misleading name can never move data.
//!
//! Axis order in the WKT is ignored on purpose: shapefiles and GeoJSON always store easting (longitude)
//! first.

use std::collections::HashMap;
use std::f64::consts::PI;

/// Nesting deeper than this is not a CRS; refusing it keeps hostile input from exhausting the stack.
const MAX_DEPTH: usize = 32;

/// One `KEYWORD[...]` node of a WKT tree.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Wkt {
    /// The keyword, upper-cased (`PROJCS`, `PARAMETER`, …).
    pub keyword: String,
    /// The bracketed arguments, in order.
    pub args: Vec<Arg>,
}

/// One argument of a WKT node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Arg {
    /// A quoted string.
    Text(String),
    /// A number.
    Number(f64),
    /// An unquoted word such as `EAST` or `Cartesian`.
    Word(String),
    /// A nested node.
    Node(Wkt),
}

/// Whether `text` looks like WKT (rather than a PROJ string or an authority code).
pub(crate) fn looks_like_wkt(text: &str) -> bool {
    let head: String =
        text.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let rest = text.trim_start()[head.len()..].trim_start();
    !head.is_empty() && (rest.starts_with('[') || rest.starts_with('('))
}

impl Wkt {
    /// Parses one WKT node; text after the closing bracket is an error.
    pub fn parse(text: &str) -> Result<Wkt, String> {
        let mut parser = Parser { chars: text.trim().trim_start_matches('\u{feff}').as_bytes(), pos: 0 };
        let node = parser.node(0)?;
        parser.skip_ws();
        if parser.pos != parser.chars.len() {
            return Err(format!("unexpected text after the WKT at byte {}", parser.pos));
        }
        Ok(node)
    }

    /// The first argument when it is text: the object's name.
    pub fn name(&self) -> Option<&str> {
        match self.args.first() {
            Some(Arg::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// Direct child nodes.
    fn children(&self) -> impl Iterator<Item = &Wkt> {
        self.args.iter().filter_map(|a| match a {
            Arg::Node(n) => Some(n),
            _ => None,
        })
    }

    /// The first direct child whose keyword is one of `keywords`.
    fn child(&self, keywords: &[&str]) -> Option<&Wkt> {
        self.children().find(|c| keywords.contains(&c.keyword.as_str()))
    }

    /// The `i`th argument as a number (WKT2 `ID` codes may be numbers or text).
    fn number(&self, i: usize) -> Option<f64> {
        match self.args.get(i) {
            Some(Arg::Number(n)) => Some(*n),
            Some(Arg::Text(s)) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The horizontal CRS this node describes: the node itself, the first component of a compound CRS or the
    /// source of a bound CRS.
    pub fn horizontal(&self) -> Result<&Wkt, String> {
        match self.keyword.as_str() {
            "PROJCS" | "GEOGCS" | "PROJCRS" | "PROJECTEDCRS" | "GEOGCRS" | "GEOGRAPHICCRS" | "GEODCRS"
            | "GEODETICCRS" => Ok(self),
            "COMPD_CS" | "COMPOUNDCRS" => self
                .children()
                .find_map(|c| c.horizontal().ok())
                .ok_or_else(|| "the compound CRS has no horizontal component".to_string()),
            "BOUNDCRS" => self
                .child(&["SOURCECRS"])
                .and_then(|s| s.children().next())
                .ok_or_else(|| "the bound CRS has no source CRS".to_string())?
                .horizontal(),
            other => Err(format!("a {other} is not a horizontal CRS")),
        }
    }

    /// The EPSG code in the root's own `AUTHORITY`/`ID` (not a nested datum's or unit's).
    pub fn epsg_code(&self) -> Option<u32> {
        let id = self.child(&["AUTHORITY", "ID"])?;
        let authority = id.name()?;
        let code = id.number(1)?;
        let code = (code >= 0.0 && code.fract() == 0.0 && code < u32::MAX as f64).then_some(code as u32)?;
        match authority.to_ascii_uppercase().as_str() {
            "EPSG" => Some(code),
            // ArcGIS's own code for web Mercator.
            "ESRI" if code == 102100 || code == 102113 => Some(3857),
            _ => None,
        }
    }

    /// Translates the horizontal CRS into a PROJ string that both backends accept.
    pub fn to_proj(&self) -> Result<String, String> {
        let crs = self.horizontal()?;
        match crs.keyword.as_str() {
            "GEOGCS" | "GEOGCRS" | "GEOGRAPHICCRS" | "GEODCRS" | "GEODETICCRS" => {
                if let Some(cs) = crs.child(&["CS"]) {
                    if !matches!(cs.args.first(), Some(Arg::Word(w)) if w.eq_ignore_ascii_case("ellipsoidal"))
                    {
                        return Err("only geographic (ellipsoidal) geodetic CRSs are supported".into());
                    }
                }
                let angle = angular_unit(crs);
                if (angle - PI / 180.0).abs() > 1e-12 {
                    return Err("geographic coordinates must be in degrees".into());
                }
                Ok(format!("+proj=longlat {} +no_defs", datum_part(crs, angle)?))
            }
            _ => projected_to_proj(crs),
        }
    }
}

/// A tiny recursive-descent WKT reader accepting `[]` and `()` brackets.
struct Parser<'a> {
    chars: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn node(&mut self, depth: usize) -> Result<Wkt, String> {
        if depth > MAX_DEPTH {
            return Err("the WKT is nested too deeply".into());
        }
        self.skip_ws();
        let keyword = self.word();
        if keyword.is_empty() {
            return Err(format!("expected a WKT keyword at byte {}", self.pos));
        }
        self.skip_ws();
        let close = match self.chars.get(self.pos) {
            Some(b'[') => b']',
            Some(b'(') => b')',
            _ => return Err(format!("expected '[' after {keyword}")),
        };
        self.pos += 1;
        let mut args = Vec::new();
        loop {
            self.skip_ws();
            match self.chars.get(self.pos) {
                None => return Err(format!("{keyword}[ is never closed")),
                Some(c) if *c == close && args.is_empty() => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            args.push(self.arg(depth)?);
            self.skip_ws();
            match self.chars.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(c) if *c == close => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    return Err(format!(
                        "expected ',' or a closing bracket in {keyword} at byte {}",
                        self.pos
                    ))
                }
            }
        }
        Ok(Wkt { keyword: keyword.to_ascii_uppercase(), args })
    }

    fn word(&mut self) -> String {
        let start = self.pos;
        while self.chars.get(self.pos).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            self.pos += 1;
        }
        String::from_utf8_lossy(&self.chars[start..self.pos]).into_owned()
    }

    fn arg(&mut self, depth: usize) -> Result<Arg, String> {
        match self.chars.get(self.pos) {
            Some(b'"') => {
                self.pos += 1;
                let mut bytes = Vec::new();
                loop {
                    match self.chars.get(self.pos) {
                        None => return Err("a quoted string is never closed".into()),
                        // WKT2 escapes a quote by doubling it.
                        Some(b'"') if self.chars.get(self.pos + 1) == Some(&b'"') => {
                            bytes.push(b'"');
                            self.pos += 2;
                        }
                        Some(b'"') => {
                            self.pos += 1;
                            break;
                        }
                        Some(c) => {
                            bytes.push(*c);
                            self.pos += 1;
                        }
                    }
                }
                Ok(Arg::Text(String::from_utf8_lossy(&bytes).into_owned()))
            }
            Some(c) if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.') => {
                let start = self.pos;
                while self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    self.pos += 1;
                }
                let text = String::from_utf8_lossy(&self.chars[start..self.pos]);
                text.parse().map(Arg::Number).map_err(|_| format!("'{text}' is not a number"))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let save = self.pos;
                let word = self.word();
                self.skip_ws();
                if matches!(self.chars.get(self.pos), Some(b'[' | b'(')) {
                    self.pos = save;
                    self.node(depth + 1).map(Arg::Node)
                } else {
                    Ok(Arg::Word(word))
                }
            }
            _ => Err(format!("unexpected character at byte {}", self.pos)),
        }
    }
}

/// Lower-case ASCII letters and digits only: how names are compared (`"False_Easting"` = `"false easting"`).
pub(super) fn norm(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

/// The conversion factor of a `UNIT`/`LENGTHUNIT`/`ANGLEUNIT` node.
fn unit_factor(node: &Wkt) -> Option<f64> {
    node.number(1).filter(|f| f.is_finite() && *f > 0.0)
}

/// Radians per angular unit of a geographic CRS (degrees when it does not say).
fn angular_unit(geog: &Wkt) -> f64 {
    let direct = geog.child(&["UNIT", "ANGLEUNIT"]);
    let in_cs =
        || geog.children().filter(|c| c.keyword == "AXIS").find_map(|a| a.child(&["ANGLEUNIT", "UNIT"]));
    let in_pm = || geog.child(&["PRIMEM", "PRIMEMERIDIAN"]).and_then(|p| p.child(&["ANGLEUNIT", "UNIT"]));
    direct.or_else(in_cs).or_else(in_pm).and_then(unit_factor).unwrap_or(PI / 180.0)
}

/// Metres per linear unit of a projected CRS (metres when it does not say).
fn linear_unit(proj: &Wkt) -> f64 {
    let direct = proj.child(&["UNIT", "LENGTHUNIT"]);
    let in_cs =
        || proj.children().filter(|c| c.keyword == "AXIS").find_map(|a| a.child(&["LENGTHUNIT", "UNIT"]));
    direct.or_else(in_cs).and_then(unit_factor).unwrap_or(1.0)
}

/// `+units=` for the well-known factors (so that backends and [`super::LinearUnit`] recognise the foot
/// exactly), `+to_meter=` otherwise.
pub(crate) fn units_param(to_metre: f64) -> String {
    if (to_metre - 1200.0 / 3937.0).abs() < 1e-12 {
        "+units=us-ft".into()
    } else if (to_metre - 0.3048).abs() < 1e-12 {
        "+units=ft".into()
    } else if (to_metre - 1.0).abs() < 1e-12 {
        "+units=m".into()
    } else {
        format!("+to_meter={to_metre}")
    }
}

/// Converts an angle to degrees, snapping the tiny noise of a 15-digit `0.0174532925199433` to exact degrees.
fn to_degrees(value: f64, radians_per_unit: f64) -> f64 {
    if (radians_per_unit - PI / 180.0).abs() < 1e-12 {
        value
    } else {
        (value * radians_per_unit).to_degrees()
    }
}

/// The datum and ellipsoid part of a PROJ string for a geographic CRS node.
fn datum_part(geog: &Wkt, angle: f64) -> Result<String, String> {
    let datum = geog
        .child(&["DATUM", "GEODETICDATUM", "TRF", "ENSEMBLE"])
        .ok_or_else(|| "the geographic CRS has no DATUM".to_string())?;
    let name = norm(datum.name().unwrap_or(""));
    let towgs84: Option<Vec<f64>> = datum
        .child(&["TOWGS84"])
        .map(|t| (0..t.args.len()).filter_map(|i| t.number(i)).collect::<Vec<_>>())
        .filter(|v| v.len() == 3 || v.len() == 7);
    let shift_is_null = towgs84.as_ref().is_none_or(|v| v.iter().all(|x| *x == 0.0));
    let mut part = if name.contains("1983")
        && (name.contains("northamerican") || name.contains("nad"))
        && shift_is_null
    {
        // NAD83 and its realisations (HARN, NSRS2007, 2011): a null shift to WGS 84, as PROJ does without
        // grids.
        "+datum=NAD83".to_string()
    } else if (name.contains("wgs1984") || name.contains("wgs84") || name.contains("worldgeodeticsystem1984"))
        && shift_is_null
    {
        "+datum=WGS84".to_string()
    } else if name.contains("1927")
        && (name.contains("northamerican") || name.contains("nad"))
        && towgs84.is_none()
    {
        "+datum=NAD27".to_string()
    } else {
        let ellipsoid =
            datum.child(&["SPHEROID", "ELLIPSOID"]).ok_or_else(|| "the datum has no SPHEROID".to_string())?;
        let metres = ellipsoid.child(&["LENGTHUNIT", "UNIT"]).and_then(unit_factor).unwrap_or(1.0);
        let a =
            ellipsoid.number(1).filter(|a| a.is_finite() && *a > 0.0).ok_or("the SPHEROID has no axis")?;
        let rf = ellipsoid
            .number(2)
            .filter(|f| f.is_finite() && *f >= 0.0)
            .ok_or("the SPHEROID has no flattening")?;
        let a = a * metres;
        let mut p = if rf == 0.0 { format!("+a={a} +b={a}") } else { format!("+a={a} +rf={rf}") };
        if let Some(t) = towgs84 {
            let values: Vec<String> = t.iter().map(|v| v.to_string()).collect();
            p.push_str(&format!(" +towgs84={}", values.join(",")));
        }
        p
    };
    if let Some(pm) = geog.child(&["PRIMEM", "PRIMEMERIDIAN"]).and_then(|p| p.number(1)) {
        if pm != 0.0 {
            let pm_angle = geog
                .child(&["PRIMEM", "PRIMEMERIDIAN"])
                .and_then(|p| p.child(&["ANGLEUNIT", "UNIT"]))
                .and_then(unit_factor)
                .unwrap_or(angle);
            part.push_str(&format!(" +pm={}", to_degrees(pm, pm_angle)));
        }
    }
    Ok(part)
}

/// The PROJ parameter a WKT parameter name stands for (WKT1, ESRI and WKT2/EPSG spellings).
fn proj_param(name: &str) -> Option<&'static str> {
    Some(match name {
        "latitudeoforigin"
        | "latitudeofnaturalorigin"
        | "latitudeoffalseorigin"
        | "latitudeofcenter"
        | "latitudeofcentre"
        | "latitudeofprojectioncentre"
        | "centralparallel" => "lat_0",
        "centralmeridian"
        | "longitudeofnaturalorigin"
        | "longitudeoffalseorigin"
        | "longitudeofcenter"
        | "longitudeofcentre"
        | "longitudeoforigin"
        | "longitudeofprojectioncentre" => "lon_0",
        "scalefactor" | "scalefactoratnaturalorigin" => "k_0",
        "falseeasting" | "eastingatfalseorigin" => "x_0",
        "falsenorthing" | "northingatfalseorigin" => "y_0",
        "standardparallel1" | "latitudeof1ststandardparallel" | "standardparallel" => "lat_1",
        "standardparallel2" | "latitudeof2ndstandardparallel" => "lat_2",
        "latitudeofstandardparallel" => "lat_ts",
        "auxiliaryspheretype" => "aux",
        _ => return None,
    })
}

/// What a projected CRS's method is in PROJ.
fn proj_method(name: &str) -> Option<&'static str> {
    Some(match name {
        "transversemercator" | "gausskruger" => "tmerc",
        "lambertconformalconic"
        | "lambertconformalconic2sp"
        | "lambertconformalconic1sp"
        | "lambertconicconformal2sp"
        | "lambertconicconformal1sp" => "lcc",
        "mercator" | "mercator1sp" | "mercator2sp" | "mercatorvarianta" | "mercatorvariantb" => "merc",
        "mercatorauxiliarysphere" | "popularvisualisationpseudomercator" => "webmerc",
        "albers" | "albersconicequalarea" | "albersequalarea" => "aea",
        "lambertazimuthalequalarea" => "laea",
        "obliquestereographic" | "doublestereographic" => "sterea",
        "cassinisoldner" | "cassini" => "cass",
        "equirectangular" | "equidistantcylindrical" | "platecarree" => "eqc",
        _ => return None,
    })
}

/// Translates a projected CRS node (WKT1 `PROJCS` or WKT2 `PROJCRS`).
fn projected_to_proj(crs: &Wkt) -> Result<String, String> {
    let base = crs
        .child(&["GEOGCS", "BASEGEOGCRS", "BASEGEODCRS", "GEOGCRS", "GEODCRS"])
        .ok_or_else(|| "the projected CRS has no geographic base CRS".to_string())?;
    let angle = angular_unit(base);
    let length = linear_unit(crs);
    // WKT1 keeps PROJECTION and PARAMETERs in the CRS itself; WKT2 inside CONVERSION[METHOD, PARAMETER...].
    let (holder, method) = match crs.child(&["CONVERSION", "DERIVINGCONVERSION"]) {
        Some(conv) => (conv, conv.child(&["METHOD", "PROJECTION"]).and_then(|m| m.name())),
        None => (crs, crs.child(&["PROJECTION"]).and_then(|m| m.name())),
    };
    let method_name = method.ok_or_else(|| "the projected CRS names no projection method".to_string())?;
    let proj = proj_method(&norm(method_name)).ok_or_else(|| {
        format!("the projection method '{method_name}' is not one lakeshore can translate from WKT")
    })?;

    let mut values: HashMap<&'static str, f64> = HashMap::new();
    for p in holder.children().filter(|c| c.keyword == "PARAMETER") {
        let pname = p.name().unwrap_or("");
        let value = p
            .number(1)
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("parameter '{pname}' has no value"))?;
        let key = proj_param(&norm(pname))
            .ok_or_else(|| format!("the parameter '{pname}' is not one lakeshore can translate from WKT"))?;
        let own_unit = p.child(&["LENGTHUNIT", "ANGLEUNIT", "SCALEUNIT", "UNIT"]).and_then(unit_factor);
        let value = match key {
            // To the nanometre: 820208.3333333333 US ft is 250 000 m, not 249999.99999999997.
            "x_0" | "y_0" => (value * own_unit.unwrap_or(length) * 1e9).round() / 1e9,
            "lat_0" | "lon_0" | "lat_1" | "lat_2" | "lat_ts" => to_degrees(value, own_unit.unwrap_or(angle)),
            _ => value,
        };
        values.insert(key, value);
    }

    let mut out = format!("+proj={}", if proj == "webmerc" { "merc" } else { proj });
    let push = |out: &mut String, key: &str, value: f64| out.push_str(&format!(" +{key}={value}"));
    let get = |key: &str| values.get(key).copied();
    match proj {
        "lcc" => {
            let lat_0 = get("lat_0").or(get("lat_1")).unwrap_or(0.0);
            let lat_1 = get("lat_1").unwrap_or(lat_0);
            push(&mut out, "lat_0", lat_0);
            push(&mut out, "lat_1", lat_1);
            push(&mut out, "lat_2", get("lat_2").unwrap_or(lat_1));
        }
        "aea" => {
            let lat_1 = get("lat_1").unwrap_or(0.0);
            push(&mut out, "lat_0", get("lat_0").unwrap_or(0.0));
            push(&mut out, "lat_1", lat_1);
            push(&mut out, "lat_2", get("lat_2").unwrap_or(lat_1));
        }
        "merc" | "webmerc" | "eqc" => {
            if let Some(ts) = get("lat_ts").or(get("lat_1")) {
                push(&mut out, "lat_ts", ts);
            }
        }
        _ => push(&mut out, "lat_0", get("lat_0").unwrap_or(0.0)),
    }
    push(&mut out, "lon_0", get("lon_0").unwrap_or(0.0));
    if let Some(k) = get("k_0") {
        push(&mut out, "k_0", k);
    }
    push(&mut out, "x_0", get("x_0").unwrap_or(0.0));
    push(&mut out, "y_0", get("y_0").unwrap_or(0.0));
    if proj == "webmerc" {
        // ArcGIS's Mercator_Auxiliary_Sphere type 0 is web Mercator: WGS 84 angles on a sphere of radius a.
        if get("aux").unwrap_or(0.0) != 0.0 {
            return Err("only Auxiliary_Sphere_Type 0 (web Mercator) is supported".into());
        }
        out.push_str(" +a=6378137 +b=6378137 +nadgrids=@null");
    } else {
        out.push(' ');
        out.push_str(&datum_part(base, angle)?);
    }
    out.push(' ');
    out.push_str(&units_param(length));
    out.push_str(" +no_defs");
    Ok(out)
}

#[cfg(test)]
#[path = "wkt_tests.rs"]
mod tests;
