//! Parcels and systems as the pipeline sees them: attribute schemas detected from the layer's fields
//! (the New York statewide tax-parcel schema by default), ids built, geometry checked.
//!
//! Nothing here drops a record. A parcel with no id, a repeated id or unusable geometry becomes a
//! [`ParcelRecord`] whose `defect` says why, and the schedule lists it as unscheduled with that reason.

use rayon::slice::ParallelSliceMut;
use std::path::Path;

use geo::{Geometry, MultiPolygon, Point};

use crate::classify::System;
use crate::config::FieldNames;
use crate::error::{Error, Problem, Result};
use crate::layer::{Layer, Value};

/// Which attribute fields of the parcels layer mean what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParcelSchema {
    /// Fields joined with `-` into the parcel id.
    pub id: Vec<String>,
    /// The town (municipality) name field.
    pub town: Option<String>,
    /// The assessor's sewer-type field.
    pub sewer: Option<String>,
    /// The New York SWIS code field (its first four digits identify the city or town).
    pub swis: Option<String>,
    /// The primary owner field.
    pub owner: Option<String>,
    /// Fields joined with spaces into the location (street address).
    pub location: Vec<String>,
    /// The owner's mailing-address fields, for notices.
    pub mailing: MailingFields,
}

/// Which fields hold the owner's mailing address (the statewide schema's `MAIL_ADDR`, `MAIL_CITY`,
/// `MAIL_STATE`, `MAIL_ZIP`); each may be absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MailingFields {
    /// Street or post-office box line.
    pub street: Option<String>,
    /// City or post office.
    pub city: Option<String>,
    /// State.
    pub state: Option<String>,
    /// ZIP code.
    pub zip: Option<String>,
}

/// The first of `candidates` present in `fields` (case-insensitive), with the file's spelling.
fn find(fields: &[String], candidates: &[&str]) -> Option<String> {
    candidates.iter().find_map(|c| fields.iter().find(|f| f.eq_ignore_ascii_case(c)).cloned())
}

impl ParcelSchema {
    /// Detects the schema from a layer's field names, honouring explicit overrides. An id that cannot be found
    /// is an error listing the fields there are.
    pub fn detect(fields: &[String], overrides: &FieldNames, path: &Path) -> Result<Self> {
        let missing = |what: &str| {
            Error::format(
                path,
                format!(
                    "cannot tell which field holds the {what}; fields found: {}; name it in the config's [fields] section",
                    fields.join(", ")
                ),
            )
        };
        let id = match &overrides.parcel_id {
            Some(names) => names.clone(),
            None => {
                if let Some(f) = find(fields, &["PARCEL_ID", "PARCELID", "PIN", "PARCEL"]) {
                    vec![f]
                } else {
                    match (find(fields, &["SWIS"]), find(fields, &["PRINT_KEY", "SBL"])) {
                        (Some(swis), Some(key)) => vec![swis, key],
                        _ => return Err(missing("parcel id (PARCEL_ID, or SWIS and PRINT_KEY)")),
                    }
                }
            }
        };
        let town = overrides
            .parcel_town
            .clone()
            .or_else(|| find(fields, &["MUNI_NAME", "CITYTOWN_NAME", "TOWN", "MUNICIPALITY", "MUNI"]));
        let sewer = overrides.parcel_sewer.clone().or_else(|| find(fields, &["SEWER_TYPE", "SEWER"]));
        let swis = find(fields, &["SWIS", "SWIS_CODE", "SWISCODE"]);
        // Shapefile field names stop at 10 characters: the state's PRIMARY_OWNER arrives as PRIMARY_OW.
        let owner = find(fields, &["PRIMARY_OWNER", "PRIMARY_OW", "OWNER", "OWNER_NAME"]);
        let location = match find(fields, &["PARCEL_ADDR", "LOCATION", "ADDRESS"]) {
            Some(f) => vec![f],
            None => ["LOC_ST_NBR", "LOC_STREET"].iter().filter_map(|c| find(fields, &[c])).collect(),
        };
        let mailing = MailingFields {
            street: find(fields, &["MAIL_ADDR", "MAILING_ADDR", "MAIL_ADDRESS", "MAIL_STREET"]),
            city: find(fields, &["MAIL_CITY", "MAILING_CITY"]),
            state: find(fields, &["MAIL_STATE", "MAILING_STATE", "MAIL_ST"]),
            zip: find(fields, &["MAIL_ZIP", "MAILING_ZIP", "MAIL_ZIP5"]),
        };
        Ok(ParcelSchema { id, town, sewer, swis, owner, location, mailing })
    }

    /// Every field the pipeline reads, for [`crate::io::ReadOptions::keep`].
    pub fn keep(&self) -> Vec<String> {
        let mut keep = self.id.clone();
        keep.extend(self.town.iter().chain(&self.sewer).chain(&self.owner).cloned());
        keep.extend(self.swis.iter().filter(|f| !self.id.contains(f)).cloned());
        keep.extend(self.location.iter().cloned());
        let m = &self.mailing;
        keep.extend(m.street.iter().chain(&m.city).chain(&m.state).chain(&m.zip).cloned());
        keep
    }
}

/// One parcel record, with what is wrong with it if anything.
#[derive(Debug, Clone)]
pub struct ParcelRecord {
    /// The parcel id (for a record without one, `<no id: record N>`).
    pub id: String,
    /// 1-based record number in the parcels file.
    pub record: usize,
    /// Town attribute as written.
    pub town: Option<String>,
    /// Sewer code as written.
    pub sewer: Option<String>,
    /// SWIS code as written.
    pub swis: Option<String>,
    /// Owner as written.
    pub owner: Option<String>,
    /// Location (street address).
    pub location: Option<String>,
    /// The owner's mailing address, when the layer has one (boxed to keep a record small: only the
    /// notices read it).
    pub mailing: Option<Box<MailingAddress>>,
    /// The parcel polygon(s) in the working CRS, when usable.
    pub shape: Option<MultiPolygon<f64>>,
    /// Why the parcel cannot be classified (no id, duplicate id, unusable geometry).
    pub defect: Option<String>,
}

/// An owner's mailing address as the assessor keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MailingAddress {
    /// Street or post-office box line.
    pub street: Option<String>,
    /// City or post office.
    pub city: Option<String>,
    /// State.
    pub state: Option<String>,
    /// ZIP code.
    pub zip: Option<String>,
}

/// Takes the text of value `i` out of a record, without copying text values.
fn take_text(values: &mut [Value], i: Option<usize>) -> Option<String> {
    match std::mem::replace(values.get_mut(i?)?, Value::Null) {
        Value::Text(s) => Some(s.into_string()),
        other => other.as_text(),
    }
}

/// Turns a projected parcels layer into records: ids joined, bad geometry marked, problems reported. Every
/// feature yields exactly one record. Records come back sorted by id, then record number, with every
/// repeat of an id after its first record marked as a duplicate.
pub fn parcel_records(layer: Layer, schema: &ParcelSchema) -> (Vec<ParcelRecord>, Vec<Problem>) {
    let index = |f: &String| layer.field_index(f);
    let id_fields: Vec<Option<usize>> = schema.id.iter().map(index).collect();
    let town = schema.town.as_ref().and_then(index);
    let sewer = schema.sewer.as_ref().and_then(index);
    let swis = schema.swis.as_ref().and_then(index);
    let owner = schema.owner.as_ref().and_then(index);
    let location: Vec<Option<usize>> = schema.location.iter().map(index).collect();
    let m = &schema.mailing;
    let mailing = [&m.street, &m.city, &m.state, &m.zip].map(|f| f.as_ref().and_then(index));
    let path = layer.path;
    let mut problems = Vec::new();
    let mut records = Vec::with_capacity(layer.features.len());
    for feature in layer.features {
        let (record, mut values) = (feature.record, feature.values);
        let at = || format!("record {record}");
        // Read before the id takes its parts: the SWIS code is usually one of them.
        let swis = swis.and_then(|i| values.get(i)).and_then(Value::as_text);
        let parts: Vec<String> = id_fields.iter().filter_map(|&i| take_text(&mut values, i)).collect();
        let mut defect = None;
        let id = if parts.len() == schema.id.len() {
            parts.join("-")
        } else {
            let why = format!("no parcel id ({} empty)", schema.id.join(" or "));
            problems.push(Problem::new(&path, at(), format!("{why}; fill it in the parcels layer")));
            defect = Some(why);
            format!("<no id: record {record}>")
        };
        let shape = match feature.geometry {
            Ok(Geometry::Polygon(p)) => Some(MultiPolygon(vec![p])),
            Ok(Geometry::MultiPolygon(mp)) => Some(mp),
            Ok(other) => {
                let why = format!("parcel geometry is a {}, not a polygon", geometry_kind(&other));
                problems.push(Problem::new(&path, at(), format!("{why}; fix the parcel's shape")));
                defect.get_or_insert(why);
                None
            }
            // The reader has already reported the broken geometry.
            Err(why) => {
                defect.get_or_insert(format!("unusable geometry: {why}"));
                None
            }
        };
        let address: Vec<String> = location.iter().filter_map(|&i| take_text(&mut values, i)).collect();
        let [street, city, state, zip] = mailing.map(|i| take_text(&mut values, i));
        let mailing = MailingAddress { street, city, state, zip };
        records.push(ParcelRecord {
            id,
            record,
            town: take_text(&mut values, town),
            sewer: take_text(&mut values, sewer),
            swis,
            owner: take_text(&mut values, owner),
            location: (!address.is_empty()).then(|| address.join(" ")),
            mailing: (mailing != MailingAddress::default()).then(|| Box::new(mailing)),
            shape,
            defect,
        });
    }
    records.par_sort_unstable_by(|a, b| a.id.cmp(&b.id).then(a.record.cmp(&b.record)));
    // Sorted, repeats of an id stand together, the first record first.
    let mut first = 0;
    for i in 1..records.len() {
        if records[i].id != records[first].id {
            first = i;
            continue;
        }
        let why = format!("duplicate parcel id {} (also record {})", records[i].id, records[first].record);
        problems.push(Problem::new(
            &path,
            format!("record {}", records[i].record),
            format!("{why}; give each parcel its own id or merge the records"),
        ));
        records[i].defect.get_or_insert(why);
    }
    (records, problems)
}

/// Finds parcels by id in records sorted by [`parcel_records`], by binary search: a repeated id resolves to
/// its first record, the one that is scheduled.
#[derive(Debug, Clone, Copy)]
pub struct ParcelIndex<'a>(pub &'a [ParcelRecord]);

impl ParcelIndex<'_> {
    /// The position of the parcel with this id.
    pub fn position(&self, id: &str) -> Option<usize> {
        let i = self.0.partition_point(|r| r.id.as_str() < id);
        (self.0.get(i)?.id == id).then_some(i)
    }

    /// Number of parcels.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no parcels.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A short name for a geometry's type, for messages.
pub fn geometry_kind(g: &Geometry<f64>) -> &'static str {
    match g {
        Geometry::Point(_) => "point",
        Geometry::Line(_) | Geometry::LineString(_) => "line",
        Geometry::Polygon(_) => "polygon",
        Geometry::MultiPoint(_) => "multipoint",
        Geometry::MultiLineString(_) => "multiline",
        Geometry::MultiPolygon(_) => "multipolygon",
        Geometry::GeometryCollection(_) => "geometry collection",
        Geometry::Rect(_) => "rectangle",
        Geometry::Triangle(_) => "triangle",
    }
}

/// Field names of the systems layer.
pub fn system_fields(
    fields: &[String],
    overrides: &FieldNames,
    path: &Path,
) -> Result<(String, Option<String>)> {
    let parcel = overrides
        .system_parcel
        .clone()
        .or_else(|| find(fields, &["PARCEL_ID", "PARCELID", "PIN", "PARCEL"]))
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
        .or_else(|| find(fields, &["BOTTOM_FT", "BOTTOM_ELEV", "ABS_BOTTOM", "FIELD_BOTTOM"]));
    Ok((parcel, bottom))
}

/// Systems by parcel: entry `i` is the system of the parcel at position `i` of `parcels`. A system
/// for an unknown parcel, a second system for a parcel, or a system that is not a point is reported and left
/// out of classification (the parcel is still scheduled, from its polygon).
pub fn systems_by_parcel(
    layer: Layer,
    parcel_field: &str,
    bottom_field: Option<&str>,
    parcels: ParcelIndex<'_>,
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
