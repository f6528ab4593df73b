//! Which field of which layer or record file holds what: the `[fields]` table of a county's config, which
//! overrides what the readers detect from the field names.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::model::error::{Error, Result};

/// Attribute names that override auto-detection. Any left out are detected from the layer's fields.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FieldNames {
    /// Field(s) whose values, joined with `-`, form the parcel id (e.g. `["SWIS", "PRINT_KEY"]`; one field
    /// may be written as a plain string, `"SBL"`).
    #[serde(default, deserialize_with = "one_or_many")]
    pub parcel_id: Option<Vec<String>>,
    /// The parcel's town field (e.g. `MUNI_NAME`).
    pub parcel_town: Option<String>,
    /// The assessor's sewer-type field (e.g. `SEWER_TYPE`).
    pub parcel_sewer: Option<String>,
    /// The parcel's owner field (e.g. `PRIMARY_OWNER`).
    pub parcel_owner: Option<String>,
    /// Field(s) joined with spaces into the parcel's street address (e.g. `["LOC_ST_NBR", "LOC_STREET"]`).
    #[serde(default, deserialize_with = "one_or_many")]
    pub parcel_location: Option<Vec<String>>,
    /// The parcel's SWIS code field (e.g. `SWIS`).
    pub parcel_swis: Option<String>,
    /// The property class field of the parcels layer (e.g. `PROP_CLASS`).
    pub parcel_class: Option<String>,
    /// The owner's mailing street line (e.g. `MAIL_ADDR`).
    pub parcel_mail_street: Option<String>,
    /// The owner's post-office box (e.g. `PO_BOX`), for a mailing address without a street line.
    pub parcel_mail_po_box: Option<String>,
    /// The owner's mailing city (e.g. `MAIL_CITY`).
    pub parcel_mail_city: Option<String>,
    /// The owner's mailing state (e.g. `MAIL_STATE`).
    pub parcel_mail_state: Option<String>,
    /// The owner's mailing ZIP code (e.g. `MAIL_ZIP`).
    pub parcel_mail_zip: Option<String>,
    /// The water-body name field of the shoreline layer.
    pub shoreline_name: Option<String>,
    /// The water-body name field of the watershed layer.
    pub watershed_name: Option<String>,
    /// The name field of the towns layer.
    pub town_name: Option<String>,
    /// The base flood elevation field of the floodplain layer (feet; NFHL `STATIC_BFE`).
    pub floodplain_bfe: Option<String>,
    /// The parcel-id field of the systems layer.
    pub system_parcel: Option<String>,
    /// The absorption-field bottom elevation field of the systems layer (feet).
    pub system_bottom: Option<String>,
    /// The field of the systems layer holding each system's own id.
    pub system_id: Option<String>,
    /// The field of the systems layer naming a second parcel a system serves.
    pub system_parcel_2: Option<String>,
    /// Columns of the inspections file by role, `[fields.history]`: `parcel_id`, `inspection_date` (or
    /// `date`), `result`, `inspector`, ... (see [`crate::records::inspections::SPEC`]). Roles left out are detected.
    #[serde(default, alias = "inspections")]
    pub history: BTreeMap<String, String>,
    /// Columns of the events file by role, `[fields.events]`: `parcel_id`, `date`, `event`, ...
    #[serde(default)]
    pub events: BTreeMap<String, String>,
    /// Columns of the pump-outs file by role, `[fields.pump_outs]`: `parcel_id`, `date`, `hauler_licence`.
    #[serde(default)]
    pub pump_outs: BTreeMap<String, String>,
    /// Columns of the samples file by role, `[fields.samples]`: `parcel_id`, `pipe_id`, `date`,
    /// `fecal_coliform_per_100ml`, `other_source`.
    #[serde(default)]
    pub samples: BTreeMap<String, String>,
    /// Columns of the drainage-pipe register by role, `[fields.pipes]`: `parcel_id`, `pipe_id`, `removed`,
    /// `treated`.
    #[serde(default)]
    pub pipes: BTreeMap<String, String>,
}

/// The `[fields.KIND]` tables of record files, as `(table, kind, what the file is)`.
const RECORD_TABLES: [(&str, &str, &str); 5] = [
    ("[fields.history]", "history", "inspections"),
    ("[fields.events]", "events", "events"),
    ("[fields.pump_outs]", "pump_outs", "pump-outs"),
    ("[fields.samples]", "samples", "samples"),
    ("[fields.pipes]", "pipes", "drainage-pipe register"),
];

/// The `[fields]` keys naming one field of a layer, as `--field KEY=FIELD` sets them too.
pub const LAYER_FIELD_KEYS: [&str; 18] = [
    "parcel_town",
    "parcel_class",
    "parcel_sewer",
    "parcel_owner",
    "parcel_swis",
    "parcel_mail_street",
    "parcel_mail_po_box",
    "parcel_mail_city",
    "parcel_mail_state",
    "parcel_mail_zip",
    "shoreline_name",
    "watershed_name",
    "town_name",
    "floodplain_bfe",
    "system_parcel",
    "system_bottom",
    "system_id",
    "system_parcel_2",
];

impl FieldNames {
    /// The role keys of the record files' tables (`[fields.history]`, ...) that are no column role of their
    /// file: the first `room` told at their line of `text` (the config file `path`) with the role most likely
    /// meant, and how many more there are. Each told key is looked for in the text once, so this takes time
    /// in the length of the text times `room`, whatever the number of keys.
    pub fn role_mistakes(&self, path: &Path, text: &str, room: usize) -> (Vec<String>, usize) {
        let maps = [&self.history, &self.events, &self.pump_outs, &self.samples, &self.pipes];
        let (mut mistakes, mut untold) = (Vec::new(), 0);
        for ((table, kind, what), map) in RECORD_TABLES.into_iter().zip(maps) {
            let known: Vec<String> = crate::records::record_roles(kind)
                .unwrap_or_default()
                .into_iter()
                .map(String::from)
                .collect();
            // The inspections table may also be written `[fields.inspections]`.
            let written = match kind {
                "history" if !text.contains(table) => "[fields.inspections]",
                _ => table,
            };
            for key in map.keys().filter(|k| !known.contains(k)) {
                if mistakes.len() == room {
                    untold += 1;
                    continue;
                }
                let message = format!("the {what} file has no column role `{key}`");
                mistakes
                    .push(crate::model::diagnose::key_mistake(path, text, written, key, &message, &known));
            }
        }
        (mistakes, untold)
    }

    /// The `[fields]` key `key` of [`LAYER_FIELD_KEYS`], to set.
    pub(crate) fn layer_field(&mut self, key: &str) -> Option<&mut Option<String>> {
        Some(match key {
            "parcel_town" => &mut self.parcel_town,
            "parcel_class" => &mut self.parcel_class,
            "parcel_sewer" => &mut self.parcel_sewer,
            "parcel_owner" => &mut self.parcel_owner,
            "parcel_swis" => &mut self.parcel_swis,
            "parcel_mail_street" => &mut self.parcel_mail_street,
            "parcel_mail_po_box" => &mut self.parcel_mail_po_box,
            "parcel_mail_city" => &mut self.parcel_mail_city,
            "parcel_mail_state" => &mut self.parcel_mail_state,
            "parcel_mail_zip" => &mut self.parcel_mail_zip,
            "shoreline_name" => &mut self.shoreline_name,
            "watershed_name" => &mut self.watershed_name,
            "town_name" => &mut self.town_name,
            "floodplain_bfe" => &mut self.floodplain_bfe,
            "system_parcel" => &mut self.system_parcel,
            "system_bottom" => &mut self.system_bottom,
            "system_id" => &mut self.system_id,
            "system_parcel_2" => &mut self.system_parcel_2,
            _ => return None,
        })
    }

    /// Sets a field from `--field`: `KEY=FIELD` for a `[fields]` key of a layer (`parcel_mail_city=M_CITY`;
    /// `parcel_id` and `parcel_location` take fields joined with `+`, `SWIS+PRINT_KEY`), or
    /// `KIND.ROLE=COLUMN` for a record file's role (`history.date=INSPECTED`), the role itself checked when
    /// the file is read.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let bad = |why: &str| {
            Error::Config(format!(
                "--field '{assignment}': {why}; write it as KEY=FIELD with KEY a [fields] key ({}, parcel_id, \
                 parcel_location), or as KIND.ROLE=COLUMN with KIND one of history, events, pump_outs, samples, \
                 pipes (e.g. --field parcel_mail_city=M_CITY, --field history.date=INSPECTED)",
                LAYER_FIELD_KEYS.join(", ")
            ))
        };
        let (key, column) = assignment.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (key, column) = (key.trim(), column.trim());
        if !key.contains('.') {
            if column.is_empty() {
                return Err(bad("a field name is needed"));
            }
            let many = || Some(column.split('+').map(|f| f.trim().to_string()).collect());
            let joined = matches!(key.to_ascii_lowercase().as_str(), "parcel_id" | "parcel_location");
            if joined && column.split('+').any(|f| f.trim().is_empty()) {
                return Err(bad(
                    "a field name is missing beside a '+' (fields are joined as SWIS+PRINT_KEY)",
                ));
            }
            match key.to_ascii_lowercase().as_str() {
                "parcel_id" => self.parcel_id = many(),
                "parcel_location" => self.parcel_location = many(),
                other => match self.layer_field(other) {
                    Some(slot) => *slot = Some(column.to_string()),
                    None => return Err(bad(&format!("unknown key '{key}'"))),
                },
            }
            return Ok(());
        }
        let (kind, role) = key.split_once('.').ok_or_else(|| bad("no '.' between file and role"))?;
        let map = match kind.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "history" | "inspections" => &mut self.history,
            "events" => &mut self.events,
            "pump_outs" => &mut self.pump_outs,
            "samples" => &mut self.samples,
            "pipes" => &mut self.pipes,
            _ => return Err(bad(&format!("unknown file '{kind}'"))),
        };
        if role.trim().is_empty() || column.trim().is_empty() {
            return Err(bad("a role and a column are both needed"));
        }
        map.insert(role.trim().to_string(), column.trim().to_string());
        Ok(())
    }
}

/// Reads a list of strings, or one string as a list of one.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "expected a field name in quotes or a list of them in brackets")]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(Some(match OneOrMany::deserialize(d)? {
        OneOrMany::One(name) => vec![name],
        OneOrMany::Many(names) => names,
    }))
}
