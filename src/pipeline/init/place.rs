//! The parcels' fields as the run will read them, the systems layer's, and the working CRS: the parcels' own
//! when it is projected in feet, else the State Plane zone in feet their extent lies in
//! ([`crate::crs::zones`]), said as a note; where no zone lakeshore knows covers them, no CRS is proposed
//! and the config's `crs` is left for the user to set.

use std::path::Path;

use super::{name, Found, Survey};
use crate::classify::fields::FieldNames;
use crate::classify::parcels::{system_fields, SystemFields};
use crate::crs::zones::zones_for;

/// The `[fields]` key of each part of the parcel record, by [`ParcelSchema::choices`] role.
const PARCEL_KEYS: [(&str, &str); 5] = [
    ("parcel id", "parcel_id"),
    ("town", "parcel_town"),
    ("sewer type", "parcel_sewer"),
    ("owner", "parcel_owner"),
    ("location", "parcel_location"),
];

/// A list of field names as TOML: `"SBL"`, or `["SWIS", "PRINT_KEY"]` for the keys that take several.
pub fn toml_fields(key: &str, fields: &[String]) -> String {
    let quoted: Vec<String> = fields.iter().map(|f| super::text::toml_string(f)).collect();
    match key {
        "parcel_id" | "parcel_location" => format!("[{}]", quoted.join(", ")),
        _ => quoted.first().cloned().unwrap_or_default(),
    }
}

const LATE: &str = "not in the first feature, so the run finds it only when named";

/// Fills in the parcels' and systems' fields and the working CRS.
pub fn parcel_fields_and_crs(survey: &mut Survey) {
    let Some(parcels) = survey.file("parcels").map(Path::to_path_buf) else {
        survey.crs = crate::crs::Crs::ny_central_ftus().to_string();
        return;
    };
    let Some(found) = survey.found_at(&parcels).cloned() else { return };
    let (schema, by_values, undecided) = super::parcel_values::schema(&found);
    survey.undecided.extend(undecided);
    for (key, field, why) in by_values {
        survey.fields.push((key, toml_fields(key, &[field]), why));
    }
    match schema {
        Some(schema) => {
            for choice in schema.choices(&FieldNames::default()) {
                let key = PARCEL_KEYS.iter().find(|(role, _)| *role == choice.role).map(|(_, k)| *k);
                if let Some(key) = key.filter(|_| choice.fields.iter().any(|f| found.late_fields.contains(f))) {
                    survey.fields.push((key, toml_fields(key, &choice.fields), LATE.to_string()));
                }
                survey.parcel_fields.push((choice.role, choice.fields));
            }
        }
        None => survey.undecided.push(format!(
            "cannot tell which field of {} holds the parcel id (fields: {}); set [fields] parcel_id = [\"FIELD\"]",
            name(&parcels),
            found.fields.join(", ")
        )),
    }
    systems_fields(survey);
    survey.crs = working_crs(survey, &found);
}

fn systems_fields(survey: &mut Survey) {
    let Some(systems) = survey.file("systems").map(Path::to_path_buf) else { return };
    let Some(found) = survey.found_at(&systems).cloned() else { return };
    match system_fields(&found.fields, &FieldNames::default(), &systems) {
        Ok(SystemFields { parcel, bottom, .. }) => {
            let late = |f: &String| found.late_fields.contains(f);
            if late(&parcel) {
                survey.fields.push((
                    "system_parcel",
                    toml_fields("system_parcel", &[parcel]),
                    LATE.to_string(),
                ));
            }
            if let Some(bottom) = bottom.filter(late) {
                survey.fields.push((
                    "system_bottom",
                    toml_fields("system_bottom", &[bottom]),
                    LATE.to_string(),
                ));
            }
        }
        Err(_) => survey.undecided.push(format!(
            "cannot tell which field of {} holds the parcel id (fields: {}); set [fields] system_parcel",
            name(&systems),
            found.fields.join(", ")
        )),
    }
}

/// The parcels' own CRS when in feet, else the State Plane zone in feet of their extent (said), else none.
fn working_crs(survey: &mut Survey, parcels: &Found) -> String {
    if let Some(crs) = &parcels.feet_crs {
        return crs.clone();
    }
    let own = parcels.crs.as_deref().unwrap_or("an unknown CRS");
    let Some([west, south, east, north]) = parcels.extent else {
        survey.undecided.push(format!(
            "{} is in {own}, not a projected CRS in feet, and has no extent to place it by; set crs to the \
             county's State Plane zone in feet (EPSG:nnnn)",
            parcels.name()
        ));
        return String::new();
    };
    let around = format!("longitude {west:.3} to {east:.3}, latitude {south:.3} to {north:.3}");
    let zones = zones_for(west, south, east, north);
    let Some(best) = zones.first() else {
        survey.undecided.push(format!(
            "{} is in {own}, not a projected CRS in feet, and lies at {around}, where no US State Plane zone \
             in feet that lakeshore supports (EPSG codes in feet) applies; set crs to a projected CRS in feet \
             for the county (EPSG:nnnn, or a PROJ string with +units=us-ft)",
            parcels.name()
        ));
        return String::new();
    };
    let others: Vec<String> = zones[1..].iter().map(|z| format!("EPSG:{} ({})", z.epsg, z.name)).collect();
    let also =
        if others.is_empty() { String::new() } else { format!("; it also touches {}", others.join(", ")) };
    survey.notes.push(format!(
        "{} is in {own}, not a projected CRS in feet: the working CRS is EPSG:{} (NAD83 / {}, feet), the \
         State Plane zone of its extent ({around}){also}; set crs to change it",
        parcels.name(),
        best.epsg,
        best.name
    ));
    format!("EPSG:{}", best.epsg)
}
