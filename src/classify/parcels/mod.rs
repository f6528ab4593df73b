//! Parcels and systems as the pipeline sees them: attribute schemas detected from the layer's fields
//! (the New York statewide tax-parcel schema by default), ids built, geometry checked.
//!
//! Nothing here drops a record. A parcel with no id, a repeated id or unusable geometry becomes a
//! [`ParcelRecord`] whose `defect` says why, and the schedule lists it as unscheduled with that reason.

mod keys;
mod mailing;
mod positions;
mod systems;

pub use keys::{Lookup, OtherKeys};
use mailing::address_line;
pub use mailing::{MailingAddress, MailingFields};
pub use systems::{system_fields, SystemFields, SystemJoin, Systems};

pub use positions::{IdCursor, ParcelPositions};

use std::borrow::Cow;
use std::path::Path;

use geo::{Geometry, MultiPolygon};

use crate::classify::fields::FieldNames;
use crate::crs::layer::{Feature, Value};
use crate::geom::validity::invalid_reason;
use crate::model::error::{Error, Location, Problem, Result};
use crate::model::id::ParcelId;

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
    /// The property class field (New York RPS `PROP_CLASS`: 300-399 vacant land).
    pub class: Option<String>,
    /// Fields joined with spaces into the location (street address).
    pub location: Vec<String>,
    /// The owner's mailing-address fields, for notices.
    pub mailing: MailingFields,
}

/// Where each part of a parcel record is looked for, in order of preference: the New York statewide
/// tax-parcel schema (NYS GIS Clearinghouse / ORPTS) first, then names counties commonly use. A name longer
/// than 10 characters also matches its first 10 characters, as a shapefile's dBase table cuts it
/// (`PRIMARY_OWNER` arrives as `PRIMARY_OW`, `SWIS_PRINT_KEY_ID` as `SWIS_PRINT`).
pub mod candidates {
    /// Parcel id: each entry is the fields joined with `-` into the id (the one table every reader of ids
    /// uses).
    pub use crate::model::id::ID_FIELDS as ID;
    /// The parcel's municipality (city, town or village name).
    pub const TOWN: &[&str] =
        &["MUNI_NAME", "CITYTOWN_NAME", "TOWN_NAME", "TOWN", "MUNICIPALITY", "MUNI", "CITY_TOWN", "LOC_MUNI"];
    /// The assessor's sewer-type code (RPS `SEWER_TYPE`: 3 is public sewer).
    pub const SEWER: &[&str] = &["SEWER_TYPE", "SEWER_CODE", "SEWER"];
    /// The parcel's SWIS code (municipality), which names its town where the rule set lists SWIS codes.
    pub const SWIS: &[&str] = &["SWIS", "SWIS_CODE", "SWISCODE"];
    /// The property class (RPS `PROP_CLASS`).
    pub const CLASS: &[&str] = &[
        "PROP_CLASS",
        "PROPCLASS",
        "PROP_CLS",
        "PRPCLS",
        "PROPERTY_CLASS",
        "PROPERTYCLASS",
        "CLASS_CODE",
        "PCLASS",
    ];
    /// The primary owner.
    pub const OWNER: &[&str] = &["PRIMARY_OWNER", "OWNER", "OWNER_NAME", "OWNERNAME", "OWNER1", "OWNER_1"];
    /// The street address as one field.
    pub const LOCATION: &[&str] = &["PARCEL_ADDR", "PARCEL_ADDRESS", "LOCATION", "SITE_ADDR", "ADDRESS"];
    /// The street address as number and street, joined with a space.
    pub const LOCATION_PARTS: &[&[&str]] = &[&["LOC_ST_NBR", "LOC_STREET"], &["ST_NBR", "ST_NAME"]];
    /// The owner's mailing street line (RPS `MAIL_ADDR`; other offices' names after it).
    pub const MAIL_STREET: &[&str] = &[
        "MAIL_ADDR",
        "MAILING_ADDRESS",
        "MAILING_ADDR",
        "MAIL_ADDRESS",
        "MAILADDR",
        "MAIL_STREET",
        "MAIL_ADD",
        "ADD_MAIL",
        "OWNER_ADDR",
        "OWNER_ADDRESS",
        "MAIL_1ADDR",
        "MAILADDR1",
        "MAIL_ADDR1",
        "MAIL_ADDR_1",
        "MAILING_ADDRESS1",
        "MAIL_LINE1",
    ];
    /// The owner's post-office box (RPS `PO_BOX`), the address line when there is no street line.
    pub const MAIL_PO_BOX: &[&str] = &["PO_BOX", "MAIL_PO_BOX", "POBOX", "MAIL_POBOX", "P_O_BOX"];
    /// The owner's mailing city.
    pub const MAIL_CITY: &[&str] =
        &["MAIL_CITY", "MAILING_CITY", "MAILCITY", "MAIL_TOWN", "OWNER_CITY", "MAIL_1CITY", "MAIL_CTY"];
    /// The owner's mailing state.
    pub const MAIL_STATE: &[&str] =
        &["MAIL_STATE", "MAILING_STATE", "MAIL_ST", "MAILSTATE", "OWNER_STATE", "MAIL_1STAT", "MAIL_STAT"];
    /// The systems layer's bottom elevation.
    pub use super::systems::BOTTOM as SYSTEM_BOTTOM;
    /// The owner's mailing ZIP code.
    pub const MAIL_ZIP: &[&str] = &[
        "MAIL_ZIP",
        "MAILING_ZIP",
        "MAIL_ZIP5",
        "MAIL_ZIPCODE",
        "MAILZIP",
        "MAIL_ZIP_CODE",
        "OWNER_ZIP",
        "MAIL_1ZIP",
    ];
}

/// Whether a layer's field name is this candidate: equal ignoring case, or the candidate cut to the 10
/// characters a dBase field name holds.
pub fn field_matches(field: &str, candidate: &str) -> bool {
    field.eq_ignore_ascii_case(candidate)
        || (candidate.len() > 10 && field.len() == 10 && candidate[..10].eq_ignore_ascii_case(field))
}

/// The first of `candidates` present in `fields`, with the file's spelling.
pub fn find_field(fields: &[String], candidates: &[&str]) -> Option<String> {
    candidates.iter().find_map(|c| fields.iter().find(|f| field_matches(f, c)).cloned())
}

/// The first group of `candidates` whose fields are all present, with the file's spelling.
fn find_group(fields: &[String], candidates: &[&[&str]]) -> Option<Vec<String>> {
    candidates.iter().find_map(|group| group.iter().map(|c| find_field(fields, &[c])).collect())
}

/// Which field was taken for a part of the parcel record, and whether the config named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChoice {
    /// The part: "parcel id", "town", "owner"...
    pub role: &'static str,
    /// The field(s) taken, empty when none was found.
    pub fields: Vec<String>,
    /// Named in the config's `[fields]` rather than detected.
    pub configured: bool,
}

impl ParcelSchema {
    /// Detects the schema from a layer's field names, honouring explicit overrides. An id that cannot be found
    /// is an error listing the fields there are.
    pub fn detect(fields: &[String], overrides: &FieldNames, path: &Path) -> Result<Self> {
        let id = match &overrides.parcel_id {
            Some(names) => names.clone(),
            None => find_group(fields, candidates::ID).ok_or_else(|| {
                // A layer of no field at all (a GeoJSON of no feature, or none with properties) has no parcels
                // to name: that, not a field to set, is what to tell.
                if fields.is_empty() {
                    return Error::format(
                        path,
                        "the parcels layer has no fields (no features, or features without properties): it is \
                         empty or not the parcels layer; give the county's tax parcels",
                    );
                }
                Error::format(
                    path,
                    format!(
                        "cannot tell which field holds the parcel id (looked for PARCEL_ID, SWIS + PRINT_KEY, \
                         SWIS_SBL_ID, SWIS_PRINT_KEY_ID, SBL...); fields found: {}; name it in the config's \
                         [fields] section, e.g. parcel_id = [\"SWIS\", \"PRINT_KEY\"]",
                        fields.join(", ")
                    ),
                )
            })?,
        };
        let pick = |set: &Option<String>, names: &[&str]| set.clone().or_else(|| find_field(fields, names));
        let location = match &overrides.parcel_location {
            Some(names) => names.clone(),
            None => find_field(fields, candidates::LOCATION)
                .map(|f| vec![f])
                .or_else(|| find_group(fields, candidates::LOCATION_PARTS))
                .unwrap_or_default(),
        };
        Ok(ParcelSchema {
            id,
            town: pick(&overrides.parcel_town, candidates::TOWN),
            sewer: pick(&overrides.parcel_sewer, candidates::SEWER),
            owner: pick(&overrides.parcel_owner, candidates::OWNER),
            class: pick(&overrides.parcel_class, candidates::CLASS),
            swis: pick(&overrides.parcel_swis, candidates::SWIS),
            location,
            mailing: MailingFields {
                street: pick(&overrides.parcel_mail_street, candidates::MAIL_STREET),
                po_box: pick(&overrides.parcel_mail_po_box, candidates::MAIL_PO_BOX),
                city: pick(&overrides.parcel_mail_city, candidates::MAIL_CITY),
                state: pick(&overrides.parcel_mail_state, candidates::MAIL_STATE),
                zip: pick(&overrides.parcel_mail_zip, candidates::MAIL_ZIP),
            },
        })
    }

    /// Which field was taken for what, for `-v` and `lakeshore init`: one entry per part, in record order.
    pub fn choices(&self, overrides: &FieldNames) -> Vec<FieldChoice> {
        let (m, o) = (&self.mailing, overrides);
        let many =
            |role, fields: &Vec<String>, configured| FieldChoice { role, fields: fields.clone(), configured };
        let mut choices = vec![many("parcel id", &self.id, o.parcel_id.is_some())];
        let one = |role, field: &Option<String>, set: &Option<String>| FieldChoice {
            role,
            fields: field.iter().cloned().collect(),
            configured: set.is_some(),
        };
        choices.extend([
            one("town", &self.town, &o.parcel_town),
            one("sewer type", &self.sewer, &o.parcel_sewer),
            one("owner", &self.owner, &o.parcel_owner),
            one("property class", &self.class, &o.parcel_class),
        ]);
        choices.push(many("location", &self.location, o.parcel_location.is_some()));
        choices.extend([
            one("SWIS code", &self.swis, &o.parcel_swis),
            one("mailing street", &m.street, &o.parcel_mail_street),
            one("mailing PO box", &m.po_box, &o.parcel_mail_po_box),
            one("mailing city", &m.city, &o.parcel_mail_city),
            one("mailing state", &m.state, &o.parcel_mail_state),
            one("mailing ZIP", &m.zip, &o.parcel_mail_zip),
        ]);
        choices
    }

    /// Every field the pipeline reads, for [`crate::formats::ReadOptions::keep`].
    pub fn keep(&self) -> Vec<String> {
        let mut keep = self.id.clone();
        keep.extend(self.town.iter().chain(&self.sewer).chain(&self.owner).chain(&self.class).cloned());
        keep.extend(self.swis.iter().filter(|f| !self.id.contains(f)).cloned());
        keep.extend(self.location.iter().cloned());
        let m = &self.mailing;
        keep.extend(m.street.iter().chain(&m.po_box).chain(&m.city).chain(&m.state).chain(&m.zip).cloned());
        keep.sort_by_key(|f| f.to_ascii_uppercase());
        keep.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        keep
    }
}

/// One parcel record, with what is wrong with it if anything.
#[derive(Debug, Clone)]
pub struct ParcelRecord {
    /// The parcel id (for a record without one, `<no id: record N>`).
    pub id: ParcelId,
    /// 1-based record number in the parcels file.
    pub record: usize,
    /// The row's own id, when the parcels layer has one (a GeoPackage's `fid`).
    pub fid: Option<i64>,
    /// Town attribute as written.
    pub town: Option<String>,
    /// Sewer code as written.
    pub sewer: Option<String>,
    /// SWIS code as written.
    pub swis: Option<String>,
    /// Owner as written.
    pub owner: Option<String>,
    /// Property class as written.
    pub class: Option<Box<str>>,
    /// Location (street address).
    pub location: Option<String>,
    /// The owner's mailing address, when the layer has one (boxed to keep a record small: only the
    /// notices read it).
    pub mailing: Option<Box<MailingAddress>>,
    /// The parcel polygon(s) in the working CRS, when usable.
    pub shape: Option<MultiPolygon<f64>>,
    /// Why the parcel cannot be classified (no id, duplicate id, unusable geometry).
    pub defect: Option<String>,
    /// Why the polygon is not a valid OGC polygon (`Self-intersection at (x y)`); the parcel is still
    /// classified from it.
    pub geometry_invalid: Option<String>,
}

/// Takes the text of value `i` out of a record, without copying text values.
fn take_text(values: &mut [Value], i: Option<usize>) -> Option<String> {
    match std::mem::replace(values.get_mut(i?)?, Value::Null) {
        Value::Text(s) => Some(s.into_string()),
        other => other.as_text(),
    }
}

/// Which of a parcels layer's kept fields holds each part of a record.
#[derive(Debug, Clone)]
pub struct ParcelColumns {
    id: Vec<Option<usize>>,
    town: Option<usize>,
    sewer: Option<usize>,
    swis: Option<usize>,
    owner: Option<usize>,
    class: Option<usize>,
    location: Vec<Option<usize>>,
    /// Street, post-office box, city, state, ZIP.
    mailing: [Option<usize>; 5],
}

impl ParcelColumns {
    /// The columns of a layer whose one field is the id, for tests.
    #[cfg(test)]
    pub(crate) fn for_one_text_field() -> Self {
        ParcelColumns {
            id: vec![Some(0)],
            town: None,
            sewer: None,
            swis: None,
            owner: None,
            class: None,
            location: Vec::new(),
            mailing: [None; 5],
        }
    }

    /// The columns of `schema`'s fields among a layer's kept `fields`.
    pub fn new(fields: &[String], schema: &ParcelSchema) -> Self {
        let index = |f: &String| fields.iter().position(|x| x.eq_ignore_ascii_case(f));
        let m = &schema.mailing;
        ParcelColumns {
            id: schema.id.iter().map(index).collect(),
            town: schema.town.as_ref().and_then(index),
            sewer: schema.sewer.as_ref().and_then(index),
            swis: schema.swis.as_ref().and_then(index),
            owner: schema.owner.as_ref().and_then(index),
            class: schema.class.as_ref().and_then(index),
            location: schema.location.iter().map(index).collect(),
            mailing: [&m.street, &m.po_box, &m.city, &m.state, &m.zip].map(|f| f.as_ref().and_then(index)),
        }
    }

    /// The columns of the id's parts, each once, for [`crate::formats::blocks::LayerBlocks::scan`].
    pub fn id_columns(&self) -> Vec<usize> {
        let mut columns: Vec<usize> = self.id.iter().flatten().copied().collect();
        columns.sort_unstable();
        columns.dedup();
        columns
    }

    /// Appends the id of a record with these `values` to `out`: its parts joined with `-`, or, when a part
    /// is empty (its field is missing or null, or an earlier part took the same field), the stand-in of
    /// [`ParcelId::missing`]. Whether the record has an id.
    fn push_id(&self, values: &[Value], record: usize, out: &mut String) -> bool {
        let start = out.len();
        for (k, &column) in self.id.iter().enumerate() {
            if k > 0 {
                out.push('-');
            }
            let value = column.filter(|c| !self.id[..k].contains(&Some(*c))).and_then(|c| values.get(c));
            let part = match value {
                Some(Value::Text(text)) => Some(Cow::Borrowed(&**text)),
                Some(other) => other.as_text().map(Cow::Owned),
                None => None,
            };
            match part {
                Some(part) => out.push_str(&part),
                None => {
                    out.truncate(start);
                    out.push_str(&ParcelId::missing(record));
                    return false;
                }
            }
        }
        true
    }

    /// The id of a record with these `values`, and whether it has one (see [`ParcelColumns::push_id`]).
    fn id_of(&self, values: &[Value], record: usize) -> (ParcelId, bool) {
        let mut text = String::new();
        let has_id = self.push_id(values, record, &mut text);
        (ParcelId::from(text), has_id)
    }

    /// Empties the fields the id's parts came from, so that no other part of the record reads them.
    fn clear_id_fields(&self, values: &mut [Value]) {
        for &column in self.id.iter().flatten() {
            if let Some(value) = values.get_mut(column) {
                *value = Value::Null;
            }
        }
    }
}

impl ParcelRecord {
    /// A record of nothing: no id, no record number, no attributes, no shape.
    pub fn empty() -> Self {
        ParcelRecord {
            id: ParcelId::from(""),
            record: 0,
            fid: None,
            town: None,
            sewer: None,
            swis: None,
            owner: None,
            class: None,
            location: None,
            mailing: None,
            shape: None,
            defect: None,
            geometry_invalid: None,
        }
    }

    /// Where the record is, as problems name it: `record 3`, or `record 3 (fid 0)`.
    pub fn location(&self) -> Location {
        Location::record(self.record, self.fid)
    }
}

/// The problem of a record whose id an earlier record has.
pub fn duplicate_problem(path: &Path, at: Location, why: &str) -> Problem {
    Problem::new(path, at, format!("{why}; give each parcel its own id or merge the records"))
}

/// Turns a projected parcel feature into its record: id joined, bad geometry marked, an invalid polygon
/// found, and the problems it shows reported (a missing id, a shape that is not a polygon, an invalid
/// polygon). `crs` names the working CRS for places in messages. Duplicate ids are not looked for here:
/// [`ParcelPositions::duplicate`] knows them.
pub fn parcel_record(
    feature: Feature,
    columns: &ParcelColumns,
    schema: &ParcelSchema,
    path: &Path,
    crs: &str,
) -> (ParcelRecord, Vec<Problem>) {
    let mut problems = Vec::new();
    let (record, fid, mut values) = (feature.record, feature.fid, feature.values);
    let at = || Location::record(record, fid);
    // Read before the id takes its parts: the SWIS code is usually one of them.
    let swis = columns.swis.and_then(|i| values.get(i)).and_then(Value::as_text);
    let (id, has_id) = columns.id_of(&values, record);
    columns.clear_id_fields(&mut values);
    let mut defect = None;
    if !has_id {
        let why = format!("no parcel id ({} empty)", schema.id.join(" or "));
        problems.push(Problem::new(path, at(), format!("{why}; fill it in the parcels layer")));
        defect = Some(why);
    }
    let shape = match feature.geometry {
        Ok(Geometry::Polygon(p)) => Some(MultiPolygon(vec![p])),
        Ok(Geometry::MultiPolygon(mp)) => Some(mp),
        Ok(other) => {
            let why = format!("parcel geometry is a {}, not a polygon", geometry_kind(&other));
            problems.push(Problem::new(path, at(), format!("{why}; fix the parcel's shape")));
            defect.get_or_insert(why);
            None
        }
        // The reader has already reported the broken geometry.
        Err(why) => {
            defect.get_or_insert(format!("unusable geometry: {why}"));
            None
        }
    };
    let geometry_invalid = shape.as_ref().and_then(invalid_reason);
    if let Some(why) = &geometry_invalid {
        problems.push(Problem::new(
            path,
            at(),
            format!(
                "parcel {id} has an invalid polygon: {why} ({crs}); it is still scheduled from that shape, fix \
                 the shape in the parcels layer (e.g. QGIS Fix geometries, or PostGIS ST_MakeValid)"
            ),
        ));
    }
    // The location's parts joined by spaces, in the first part's own string.
    let mut location: Option<String> = None;
    for part in columns.location.iter().filter_map(|&i| take_text(&mut values, i)) {
        match &mut location {
            None => location = Some(part),
            Some(joined) => {
                joined.push(' ');
                joined.push_str(&part);
            }
        }
    }
    let [street, po_box, city, state, zip] = columns.mailing.map(|i| take_text(&mut values, i));
    let mailing = MailingAddress { street: address_line(street, po_box), city, state, zip };
    let parcel = ParcelRecord {
        id,
        record,
        fid,
        town: take_text(&mut values, columns.town),
        sewer: take_text(&mut values, columns.sewer),
        swis,
        owner: take_text(&mut values, columns.owner),
        class: take_text(&mut values, columns.class).map(String::into_boxed_str),
        location,
        mailing: (mailing != MailingAddress::default()).then(|| Box::new(mailing)),
        shape,
        defect,
        geometry_invalid,
    };
    (parcel, problems)
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

#[cfg(test)]
mod tests;
