//! Reading the few facts lakeshore needs straight from a PROJ string (`+proj=tmerc ... +units=us-ft`): the
//! projection name, the linear unit and the natural origin used to place test points.
//!
//! Building the actual transformation is left to the backends; this only looks at `key=value` pairs.

use super::LinearUnit;

/// The `+key=value` pairs of a PROJ string, keys without their `+`; flags get an empty value.
pub(crate) fn params(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split_whitespace().filter_map(|token| {
        let token = token.trim_start_matches('+');
        if token.is_empty() {
            return None;
        }
        Some(token.split_once('=').unwrap_or((token, "")))
    })
}

/// The value of `key`, if present.
pub(crate) fn get<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    params(text).find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// A numeric parameter (degrees for angles, as PROJ strings write them).
pub(crate) fn number(text: &str, key: &str) -> Option<f64> {
    get(text, key).and_then(|v| v.parse().ok()).filter(|v: &f64| v.is_finite())
}

/// Whether the string describes longitude/latitude rather than a projection.
pub(crate) fn is_geographic(text: &str) -> bool {
    matches!(get(text, "proj"), Some("longlat" | "latlong" | "lonlat" | "latlon"))
}

/// The linear unit of a projected PROJ string; `None` for a geographic one.
pub(crate) fn linear_unit(text: &str) -> Result<Option<LinearUnit>, String> {
    if is_geographic(text) {
        return Ok(None);
    }
    if get(text, "proj").is_none() {
        return Err("the PROJ string has no +proj=".into());
    }
    if let Some(units) = get(text, "units") {
        return match units {
            "m" => Ok(Some(LinearUnit::Metre)),
            "us-ft" => Ok(Some(LinearUnit::UsSurveyFoot)),
            "ft" => Ok(Some(LinearUnit::InternationalFoot)),
            "km" => Ok(Some(LinearUnit::Other { to_metre: 1000.0 })),
            "us-mi" => Ok(Some(LinearUnit::Other { to_metre: 5280.0 * 1200.0 / 3937.0 })),
            "mi" => Ok(Some(LinearUnit::Other { to_metre: 1609.344 })),
            "yd" => Ok(Some(LinearUnit::Other { to_metre: 0.9144 })),
            other => Err(format!("the PROJ unit '{other}' is not one lakeshore knows")),
        };
    }
    match get(text, "to_meter") {
        None => Ok(Some(LinearUnit::Metre)),
        Some(v) => {
            let to_metre = parse_ratio(v).ok_or_else(|| format!("+to_meter={v} is not a number"))?;
            Ok(Some(LinearUnit::from_factor(to_metre)))
        }
    }
}

/// A number, or a ratio such as `1200/3937` (PROJ allows both for `to_meter`).
fn parse_ratio(v: &str) -> Option<f64> {
    let value = match v.split_once('/') {
        Some((n, d)) => n.trim().parse::<f64>().ok()? / d.trim().parse::<f64>().ok()?,
        None => v.trim().parse().ok()?,
    };
    (value.is_finite() && value > 0.0).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_units_and_kind() {
        let ny =
            "+proj=tmerc +lat_0=40 +lon_0=-76.58333333333333 +k=0.9999375 +x_0=249999.9998983998 +y_0=0 \
                  +datum=NAD83 +units=us-ft +no_defs";
        assert_eq!(linear_unit(ny), Ok(Some(LinearUnit::UsSurveyFoot)));
        assert_eq!(number(ny, "lon_0"), Some(-76.58333333333333));
        assert_eq!(get(ny, "no_defs"), Some(""));
        assert_eq!(linear_unit("+proj=longlat +datum=WGS84"), Ok(None));
        assert_eq!(linear_unit("+proj=utm +zone=18"), Ok(Some(LinearUnit::Metre)));
        assert_eq!(linear_unit("+proj=tmerc +to_meter=0.3048"), Ok(Some(LinearUnit::InternationalFoot)));
        assert_eq!(linear_unit("+proj=tmerc +to_meter=1200/3937"), Ok(Some(LinearUnit::UsSurveyFoot)));
        assert!(linear_unit("+proj=tmerc +units=furlong").is_err());
        assert!(linear_unit("+ellps=GRS80").is_err());
    }
}
