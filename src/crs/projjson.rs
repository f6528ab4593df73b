//! PROJJSON (the JSON encoding of ISO 19162 CRSs that PROJ, GeoPandas and GeoParquet write), read by writing
//! the same CRS as WKT2 and reading that ([`super::wkt`]), so that a CRS means the same whichever of the two
//! texts carries it: a GeoParquet file's PROJJSON without an `id` (GeoPandas writes one from a `.prj`) is
//! understood as the `.prj` is.
//!
//! Geographic, geodetic and projected CRSs are read, and the horizontal part of a bound or compound CRS. Units
//! are objects with a `conversion_factor` or the names PROJ writes for the common ones (`metre`, `degree`,
//! `US survey foot`, …); a unit named otherwise is an error rather than a guess.

use std::f64::consts::PI;
use std::fmt::Write as _;

use serde_json::Value as Json;

/// Objects nested deeper than this are not a CRS; refusing them keeps hostile input from exhausting the stack.
const MAX_DEPTH: usize = 8;

/// A PROJJSON text read: its horizontal CRS as WKT2, or why it cannot be, and the authority and code of the
/// `id` (the first of the `ids`) of that CRS, or of the root when it is no CRS lakeshore reads (GeoParquet
/// files have been written with a bare `{"id": ...}`).
pub(crate) fn read(text: &str) -> (Result<String, String>, Option<(String, String)>) {
    let json: Json = match serde_json::from_str(text) {
        Ok(json) => json,
        Err(e) => return (Err(format!("the PROJJSON cannot be read ({e})")), None),
    };
    match horizontal(&json, 0) {
        Ok(crs) => {
            let mut out = String::new();
            (Writer { out: &mut out }.crs(crs).map(|()| out), id(crs))
        }
        Err(e) => (Err(e), id(&json)),
    }
}

/// The horizontal CRS of `json`: itself, the source of a bound CRS, or the first horizontal component of a
/// compound CRS.
fn horizontal(json: &Json, depth: usize) -> Result<&Json, String> {
    if depth > MAX_DEPTH {
        return Err("the PROJJSON is nested too deeply".into());
    }
    match kind(json) {
        "ProjectedCRS" | "GeographicCRS" | "GeodeticCRS" => Ok(json),
        "BoundCRS" => horizontal(&json["source_crs"], depth + 1),
        "CompoundCRS" => json["components"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|c| horizontal(c, depth + 1).ok())
            .ok_or_else(|| "the compound CRS has no horizontal component".to_string()),
        "" => Err("the PROJJSON has no \"type\"".into()),
        other => Err(format!("a PROJJSON {other} is not a horizontal CRS")),
    }
}

fn kind(json: &Json) -> &str {
    json["type"].as_str().unwrap_or("")
}

/// The authority and code of an object's `id`, or of the first of its `ids`.
fn id(json: &Json) -> Option<(String, String)> {
    let id = match &json["id"] {
        Json::Object(_) => &json["id"],
        _ => json["ids"].as_array()?.first()?,
    };
    let authority = id["authority"].as_str()?.to_string();
    let code = match &id["code"] {
        Json::Number(n) => n.to_string(),
        Json::String(s) => s.clone(),
        _ => return None,
    };
    Some((authority, code))
}

/// A unit as its WKT2 keyword's argument: its name and its factor to the metre, radian or unity.
fn unit(json: &Json, what: &str) -> Result<(String, f64), String> {
    match json {
        Json::String(name) => {
            let factor = match name.to_ascii_lowercase().as_str() {
                "metre" | "meter" | "unity" | "radian" => 1.0,
                "degree" => PI / 180.0,
                "us survey foot" => 1200.0 / 3937.0,
                "foot" => 0.3048,
                "kilometre" | "kilometer" => 1000.0,
                "grad" | "gon" => PI / 200.0,
                "arc-second" => PI / 648_000.0,
                "parts per million" => 1e-6,
                _ => {
                    return Err(format!(
                        "the {what} unit '{name}' is not one lakeshore knows; give its conversion_factor"
                    ))
                }
            };
            Ok((name.clone(), factor))
        }
        Json::Object(_) => {
            let name = json["name"].as_str().unwrap_or("unit").to_string();
            let factor = json["conversion_factor"]
                .as_f64()
                .filter(|f| f.is_finite() && *f > 0.0)
                .ok_or_else(|| format!("the {what} unit '{name}' has no positive conversion_factor"))?;
            Ok((name, factor))
        }
        _ => Err(format!("the {what} has no unit")),
    }
}

/// A value with an optional unit: a bare number, or `{"value": …, "unit": …}`.
fn measure(json: &Json, what: &str) -> Result<(f64, Option<(String, f64)>), String> {
    let finite =
        |v: Option<f64>| v.filter(|v| v.is_finite()).ok_or_else(|| format!("the {what} is not a number"));
    match json {
        Json::Object(_) => Ok((finite(json["value"].as_f64())?, Some(unit(&json["unit"], what)?))),
        _ => Ok((finite(json.as_f64())?, None)),
    }
}

/// Writes WKT2 into a string.
struct Writer<'a> {
    out: &'a mut String,
}

impl Writer<'_> {
    /// A quoted WKT2 string (a quote inside is doubled).
    fn text(&mut self, text: &str) {
        self.out.push('"');
        self.out.push_str(&text.replace('"', "\"\""));
        self.out.push('"');
    }

    /// `, KEYWORD["name",factor]`.
    fn unit(&mut self, keyword: &str, (name, factor): &(String, f64)) {
        self.out.push_str(&format!(",{keyword}["));
        self.text(name);
        let _ = write!(self.out, ",{factor}]");
    }

    fn name(&mut self, json: &Json) {
        self.text(json["name"].as_str().unwrap_or(""));
    }

    fn crs(&mut self, crs: &Json) -> Result<(), String> {
        if kind(crs) == "ProjectedCRS" {
            self.out.push_str("PROJCRS[");
            self.name(crs);
            self.out.push(',');
            self.geodetic(&crs["base_crs"], "BASEGEOGCRS")?;
            self.conversion(&crs["conversion"])?;
            self.axes(&crs["coordinate_system"], "LENGTHUNIT")?;
        } else {
            self.geodetic(crs, "GEOGCRS")?;
            // The geodetic CRS's own node is closed by `geodetic`; its id goes inside it.
            self.out.pop();
        }
        if let Some((authority, code)) = id(crs) {
            self.out.push_str(",ID[");
            self.text(&authority);
            self.out.push(',');
            self.text(&code);
            self.out.push(']');
        }
        self.out.push(']');
        Ok(())
    }

    /// A geographic or geodetic CRS: its datum (or datum ensemble) with the ellipsoid, prime meridian and
    /// coordinate system; the node is closed.
    fn geodetic(&mut self, crs: &Json, keyword: &str) -> Result<(), String> {
        let (datum, datum_keyword) = match (&crs["datum"], &crs["datum_ensemble"]) {
            (Json::Object(_), _) => (&crs["datum"], "DATUM"),
            (_, Json::Object(_)) => (&crs["datum_ensemble"], "ENSEMBLE"),
            _ => return Err("the geographic CRS has no datum".into()),
        };
        self.out.push_str(keyword);
        self.out.push('[');
        self.name(crs);
        let _ = write!(self.out, ",{datum_keyword}[");
        self.name(datum);
        self.ellipsoid(&datum["ellipsoid"])?;
        self.out.push(']');
        let meridian = match &datum["prime_meridian"] {
            Json::Null => &crs["prime_meridian"],
            pm => pm,
        };
        if let Json::Object(_) = meridian {
            let (longitude, own) = measure(&meridian["longitude"], "prime meridian")?;
            self.out.push_str(",PRIMEM[");
            self.name(meridian);
            let _ = write!(self.out, ",{longitude}");
            self.unit("ANGLEUNIT", &own.unwrap_or(("degree".into(), PI / 180.0)));
            self.out.push(']');
        }
        self.axes(&crs["coordinate_system"], "ANGLEUNIT")?;
        self.out.push(']');
        Ok(())
    }

    fn ellipsoid(&mut self, ellipsoid: &Json) -> Result<(), String> {
        if !ellipsoid.is_object() {
            return Err("the datum has no ellipsoid".into());
        }
        let axis = |key: &str| -> Result<Option<f64>, String> {
            match &ellipsoid[key] {
                Json::Null => Ok(None),
                value => {
                    let (v, own) = measure(value, "ellipsoid axis")?;
                    Ok(Some(v * own.map_or(1.0, |u| u.1)))
                }
            }
        };
        let (a, rf) = match (axis("semi_major_axis")?, axis("radius")?) {
            (Some(a), _) => {
                let rf = match (ellipsoid["inverse_flattening"].as_f64(), axis("semi_minor_axis")?) {
                    (Some(rf), _) => rf,
                    (None, Some(b)) if b == a => 0.0,
                    (None, Some(b)) => a / (a - b),
                    (None, None) => return Err("the ellipsoid has no flattening".into()),
                };
                (a, rf)
            }
            (None, Some(radius)) => (radius, 0.0),
            (None, None) => return Err("the ellipsoid has no axis".into()),
        };
        self.out.push_str(",ELLIPSOID[");
        self.name(ellipsoid);
        let _ = write!(self.out, ",{a},{rf},LENGTHUNIT[\"metre\",1]]");
        Ok(())
    }

    fn conversion(&mut self, conversion: &Json) -> Result<(), String> {
        if !conversion.is_object() {
            return Err("the projected CRS has no conversion".into());
        }
        self.out.push_str(",CONVERSION[");
        self.name(conversion);
        self.out.push_str(",METHOD[");
        self.name(&conversion["method"]);
        self.out.push(']');
        for parameter in conversion["parameters"].as_array().into_iter().flatten() {
            let name = parameter["name"].as_str().unwrap_or("");
            let (value, _) = measure(&parameter["value"], &format!("parameter '{name}'"))?;
            self.out.push_str(",PARAMETER[");
            self.text(name);
            let _ = write!(self.out, ",{value}");
            if !parameter["unit"].is_null() {
                let unit = unit(&parameter["unit"], &format!("parameter '{name}'"))?;
                // A degree, metre or foot is an angle or a length by its factor; a scale is unity.
                let keyword = match parameter["unit"]["type"].as_str() {
                    Some("AngularUnit") => "ANGLEUNIT",
                    Some("LinearUnit") => "LENGTHUNIT",
                    Some("ScaleUnit") => "SCALEUNIT",
                    _ if unit.0.eq_ignore_ascii_case("unity") => "SCALEUNIT",
                    _ if ["degree", "radian", "grad", "gon", "arc-second"]
                        .iter()
                        .any(|a| unit.0.eq_ignore_ascii_case(a)) =>
                    {
                        "ANGLEUNIT"
                    }
                    _ => "LENGTHUNIT",
                };
                self.unit(keyword, &unit);
            }
            self.out.push(']');
        }
        self.out.push(']');
        Ok(())
    }

    /// The coordinate system: `CS[subtype,n]`, each axis with its direction, and the unit of the first axis
    /// (`keyword` is the kind of unit it must be) as the unit of all.
    fn axes(&mut self, cs: &Json, keyword: &str) -> Result<(), String> {
        let axes = cs["axis"].as_array().map(Vec::as_slice).unwrap_or_default();
        let subtype = cs["subtype"].as_str().unwrap_or(if keyword == "ANGLEUNIT" {
            "ellipsoidal"
        } else {
            "Cartesian"
        });
        if !subtype.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("the coordinate system subtype '{subtype}' is not one lakeshore knows"));
        }
        let _ = write!(self.out, ",CS[{subtype},{}]", axes.len().max(2));
        for axis in axes {
            self.out.push_str(",AXIS[");
            self.name(axis);
            let direction: String = axis["direction"]
                .as_str()
                .unwrap_or("unspecified")
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect();
            let _ = write!(self.out, ",{}]", if direction.is_empty() { "unspecified" } else { &direction });
        }
        match axes.first().map(|a| &a["unit"]) {
            Some(u) if !u.is_null() => self.unit(keyword, &unit(u, "axis")?),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_geographic_crs_with_a_datum_ensemble_and_an_id() {
        let text = r#"{"type": "GeographicCRS", "name": "WGS 84",
            "datum_ensemble": {"name": "World Geodetic System 1984 ensemble",
              "ellipsoid": {"name": "WGS 84", "semi_major_axis": 6378137, "inverse_flattening": 298.257223563}},
            "coordinate_system": {"subtype": "ellipsoidal", "axis": [
              {"name": "Geodetic latitude", "abbreviation": "Lat", "direction": "north", "unit": "degree"},
              {"name": "Geodetic longitude", "abbreviation": "Lon", "direction": "east", "unit": "degree"}]},
            "id": {"authority": "EPSG", "code": 4326}}"#;
        let (wkt, id) = read(text);
        assert_eq!(id, Some(("EPSG".into(), "4326".into())));
        let wkt = wkt.unwrap();
        let degree = PI / 180.0;
        assert_eq!(
            wkt,
            format!(
                "GEOGCRS[\"WGS 84\",ENSEMBLE[\"World Geodetic System 1984 ensemble\",ELLIPSOID[\"WGS 84\",6378137,\
                 298.257223563,LENGTHUNIT[\"metre\",1]]],CS[ellipsoidal,2],AXIS[\"Geodetic latitude\",north],\
                 AXIS[\"Geodetic longitude\",east],ANGLEUNIT[\"degree\",{degree}],ID[\"EPSG\",\"4326\"]]"
            )
        );
    }

    #[test]
    fn a_sphere_by_radius_and_an_ellipsoid_by_its_minor_axis() {
        let crs = |ellipsoid: &str| {
            format!(
                r#"{{"type": "GeographicCRS", "name": "g", "datum": {{"name": "d", "ellipsoid": {ellipsoid}}},
                "coordinate_system": {{"subtype": "ellipsoidal", "axis": []}}}}"#
            )
        };
        let sphere = read(&crs(r#"{"name": "s", "radius": 6371000}"#)).0.unwrap();
        assert!(sphere.contains("ELLIPSOID[\"s\",6371000,0,"), "{sphere}");
        // Clarke 1866: a = 6378206.4, b = 6356583.8, 1/f = a / (a - b) = 294.978698...
        let clarke =
            read(&crs(r#"{"name": "c", "semi_major_axis": 6378206.4, "semi_minor_axis": 6356583.8}"#))
                .0
                .unwrap();
        let rf: f64 = clarke.split(',').nth(4).unwrap().parse().unwrap();
        assert!((rf - 294.978_698_2).abs() < 1e-6, "{clarke}");
    }

    #[test]
    fn damaged_projjson_is_an_error_not_a_guess() {
        for (text, says) in [
            ("{", "cannot be read"),
            ("{}", "no \"type\""),
            (r#"{"type": "VerticalCRS"}"#, "not a horizontal CRS"),
            (r#"{"type": "GeographicCRS", "name": "g"}"#, "no datum"),
            (r#"{"type": "ProjectedCRS", "name": "p"}"#, "no datum"),
            (
                r#"{"type": "GeographicCRS", "datum": {"name": "d", "ellipsoid": {"semi_major_axis": 1}},
                   "coordinate_system": {"axis": [{"unit": "league"}]}}"#,
                "no flattening",
            ),
            (
                r#"{"type": "GeographicCRS", "datum": {"name": "d", "ellipsoid": {"radius": 1}},
                   "coordinate_system": {"axis": [{"unit": "league"}]}}"#,
                "unit 'league'",
            ),
            (
                &format!("{}{{}}{}", r#"{"type": "BoundCRS", "source_crs": "#.repeat(20), "}".repeat(20)),
                "too deeply",
            ),
        ] {
            let err = read(text).0.unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
