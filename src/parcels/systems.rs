//! The systems layer: which field names each system's parcel, and each parcel's system by position.

use std::path::Path;

use geo::{Geometry, Point};

use super::{find_field, geometry_kind, ParcelIds};
use crate::classify::System;
use crate::config::FieldNames;
use crate::error::{Error, Problem, Result};
use crate::layer::{Layer, Value};

/// Field names of the systems layer.
pub fn system_fields(
    fields: &[String],
    overrides: &FieldNames,
    path: &Path,
) -> Result<(String, Option<String>)> {
    let parcel = overrides
        .system_parcel
        .clone()
        .or_else(|| find_field(fields, &["PARCEL_ID", "PARCELID", "SWIS_SBL_ID", "SWIS_PRINT_KEY_ID", "SBL", "PIN"]))
        .ok_or_else(|| {
            Error::format(
                path,
                format!(
                    "cannot tell which field holds the parcel id of each system; fields found: {}; set [fields] system_parcel",
                    fields.join(", ")
                ),
            )
        })?;
    let bottom = overrides
        .system_bottom
        .clone()
        .or_else(|| find_field(fields, &["BOTTOM_FT", "BOTTOM_ELEV", "ABS_BOTTOM", "FIELD_BOTTOM"]));
    Ok((parcel, bottom))
}

/// Systems by parcel: entry `i` is the system of the parcel at position `i` of `parcels`. A system
/// for an unknown parcel, a second system for a parcel, or a system that is not a point is reported and left
/// out of classification (the parcel is still scheduled, from its polygon).
pub fn systems_by_parcel(
    layer: Layer,
    parcel_field: &str,
    bottom_field: Option<&str>,
    parcels: &ParcelIds,
) -> (Vec<Option<System>>, Vec<Problem>) {
    let mut out: Vec<Option<System>> = vec![None; parcels.len()];
    let mut problems = Vec::new();
    // Field positions are looked up once, not per system.
    let id_at = layer.field_index(parcel_field);
    let bottom_at = bottom_field.and_then(|f| layer.field_index(f));
    for feature in &layer.features {
        let at = || format!("record {}", feature.record);
        let Some(id) = id_at.and_then(|i| feature.values.get(i)).and_then(Value::as_text) else {
            problems.push(Problem::new(
                &layer.path,
                at(),
                format!("system has no {parcel_field}; fill it in"),
            ));
            continue;
        };
        let Some(at_parcel) = parcels.position(&id) else {
            problems.push(Problem::new(
                &layer.path,
                at(),
                format!("system names parcel {id}, which is not in the parcels layer; fix the id"),
            ));
            continue;
        };
        let location: Point<f64> = match &feature.geometry {
            Ok(Geometry::Point(p)) => *p,
            Ok(Geometry::MultiPoint(mp)) if mp.0.len() == 1 => mp.0[0],
            Ok(other) => {
                let kind = geometry_kind(other);
                problems.push(Problem::new(
                    &layer.path,
                    at(),
                    format!("system is a {kind}, not a point; fix it"),
                ));
                continue;
            }
            Err(_) => continue, // reported by the reader
        };
        let bottom_ft = match bottom_at.and_then(|i| feature.values.get(i)) {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_f64().filter(|x| x.is_finite()) {
                Some(x) => Some(x),
                None => {
                    problems.push(Problem::new(
                        &layer.path,
                        at(),
                        format!(
                            "bottom elevation {:?} is not a number of feet; fix it",
                            v.as_text().unwrap_or_default()
                        ),
                    ));
                    None
                }
            },
        };
        if out[at_parcel].is_some() {
            problems.push(Problem::new(
                &layer.path,
                at(),
                format!(
                    "a second system for parcel {id}; only the first is used, remove or merge the others"
                ),
            ));
            continue;
        }
        out[at_parcel] = Some(System { location, bottom_ft });
    }
    (out, problems)
}
