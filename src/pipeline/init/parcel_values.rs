//! The parcels layer's fields found by what they hold, where their names are the county's own: the parcel
//! id (a field filled on nearly every parcel, different on each, written as a tax-map number), and the
//! owner's mailing street, city, state and ZIP code. Each is looked for only when the names did not tell
//! it, among a sample of the layer's first features; a field is taken only when its values leave no doubt,
//! and two fields that fit one role equally are left for the user, said. What is found is written to the
//! config under `[fields]` with what its values showed, so the run reads the same fields.

use std::collections::HashSet;

use super::Found;
use crate::classify::fields::FieldNames;
use crate::classify::parcels::ParcelSchema;

/// The least share of a sample's features a field must fill to be the parcel id.
const ID_FILLED: f64 = 0.9;

/// The least share of filled values that must fit a role's shape.
const FITS: f64 = 0.8;

/// Names of fields that count features, never the parcel id however unique their values.
const COUNTERS: [&str; 7] = ["OBJECTID", "FID", "OID", "ID", "GLOBALID", "SHAPE_LENG", "SHAPE_AREA"];

/// The two-letter codes of the US states, the District of Columbia and the territories the Postal Service
/// serves, and the armed forces' (AA, AE, AP).
const STATES: [&str; 59] = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
    "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
    "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
    "PR", "VI", "GU", "AS", "MP", "AA", "AE", "AP",
];

/// What a field's sample of values shows of a role, when they fit it.
type Fits = fn(&[String]) -> Option<String>;

/// Whether the schema the names gave has a role's field already.
type Has = fn(&ParcelSchema) -> bool;

/// A field found by its values: the config key, the field, and what its values showed.
pub type ByValues = (&'static str, String, String);

/// The parcels layer `found`'s schema, its fields found by name and, where the names do not tell them, by
/// their values; with the fields so found (for `[fields]`) and what could not be decided. `None` when no
/// field can be the parcel id either way.
pub fn schema(found: &Found) -> (Option<ParcelSchema>, Vec<ByValues>, Vec<String>) {
    let by_name = ParcelSchema::detect(&found.fields, &FieldNames::default(), &found.path).ok();
    let (taken, undecided) = find(found, by_name.as_ref());
    let mut names = FieldNames::default();
    for (key, field, _) in &taken {
        let slot = match *key {
            "parcel_id" => {
                names.parcel_id = Some(vec![field.clone()]);
                continue;
            }
            "parcel_mail_street" => &mut names.parcel_mail_street,
            "parcel_mail_city" => &mut names.parcel_mail_city,
            "parcel_mail_state" => &mut names.parcel_mail_state,
            _ => &mut names.parcel_mail_zip,
        };
        *slot = Some(field.clone());
    }
    let schema = ParcelSchema::detect(&found.fields, &names, &found.path).ok();
    (schema, taken, undecided)
}

/// The fields of `found` that play the roles `by_name` (the schema its names give, if any) leaves open.
fn find(found: &Found, by_name: Option<&ParcelSchema>) -> (Vec<ByValues>, Vec<String>) {
    let mut used: HashSet<&str> = HashSet::new();
    if let Some(s) = by_name {
        let m = &s.mailing;
        let named =
            s.id.iter().chain(&s.town).chain(&s.owner).chain(&s.class).chain(&s.swis).chain(&s.location);
        used.extend(
            named
                .chain(&m.street)
                .chain(&m.po_box)
                .chain(&m.city)
                .chain(&m.state)
                .chain(&m.zip)
                .map(String::as_str),
        );
    }
    let (mut taken, mut undecided) = (Vec::new(), Vec::new());
    let mut pick = |key: &'static str,
                    fits: &dyn Fn(&[String]) -> Option<String>,
                    used: &mut HashSet<&str>| {
        let candidates: Vec<(&str, String)> = found
            .values
            .iter()
            .filter(|(field, _)| !used.contains(field.as_str()))
            .filter_map(|(field, values)| Some((field.as_str(), fits(values)?)))
            .collect();
        match candidates.as_slice() {
            [] => None,
            [(field, why)] => {
                taken.push((key, field.to_string(), format!("found by its values: {why}")));
                Some(field.to_string())
            }
            [(a, _), (b, _), ..] => {
                undecided.push(format!(
                    "fields {a} and {b} of {} both hold values that fit {key}; set [fields] {key} to the one meant",
                    found.name()
                ));
                None
            }
        }
    };
    let missing = |f: fn(&ParcelSchema) -> bool| by_name.is_none_or(|s| !f(s));
    if by_name.is_none() {
        // A count of features is unique too: never the parcel id.
        let counters =
            found.values.iter().filter(|(f, _)| COUNTERS.iter().any(|c| f.eq_ignore_ascii_case(c)));
        let mut id_used = used.clone();
        id_used.extend(counters.map(|(f, _)| f.as_str()));
        if let Some(id) = pick("parcel_id", &id_values, &mut id_used) {
            used.insert(found.values.iter().find(|(f, _)| *f == id).map_or("", |(f, _)| f.as_str()));
        }
    }
    let roles: [(&'static str, Fits, Has); 3] = [
        ("parcel_mail_zip", zip_values, |s| s.mailing.zip.is_some()),
        ("parcel_mail_state", state_values, |s| s.mailing.state.is_some()),
        ("parcel_mail_street", street_values, |s| s.mailing.street.is_some() || s.location.is_empty()),
    ];
    for (key, fits, has) in roles {
        if missing(has) {
            if let Some(field) = pick(key, &fits, &mut used) {
                let at = found.values.iter().position(|(f, _)| *f == field);
                used.insert(at.map_or("", |i| found.values[i].0.as_str()));
            }
        }
    }
    // The city: the field before the state, when it holds words alone (CITY, ST, ZIP in that order).
    let state = taken.iter().find(|(k, _, _)| *k == "parcel_mail_state").map(|(_, f, _)| f.clone());
    let state = state.or_else(|| by_name.and_then(|s| s.mailing.state.clone()));
    if missing(|s| s.mailing.city.is_some()) {
        let before = state
            .and_then(|st| found.values.iter().position(|(f, _)| *f == st))
            .and_then(|i| i.checked_sub(1));
        if let Some((field, values)) =
            before.map(|i| &found.values[i]).filter(|(f, _)| !used.contains(f.as_str()))
        {
            if let Some(why) = city_values(values) {
                taken.push((
                    "parcel_mail_city",
                    field.clone(),
                    format!("found by its values: {why}, before the state"),
                ));
            }
        }
    }
    (taken, undecided)
}

/// The filled values of a sample, trimmed.
fn filled(values: &[String]) -> Vec<&str> {
    values.iter().map(|v| v.trim()).filter(|v| !v.is_empty()).collect()
}

/// `Some(what they showed)` when at least [`FITS`] of the filled `values` (at least 5) satisfy `fits`.
fn share(values: &[String], what: &str, fits: impl Fn(&str) -> bool) -> Option<String> {
    let filled = filled(values);
    let fit = filled.iter().filter(|v| fits(v)).count();
    (filled.len() >= 5 && fit as f64 >= FITS * filled.len() as f64)
        .then(|| format!("{} of {} values {what}", fit, filled.len()))
}

/// A tax-map number: digits with the separators of a section-block-lot (`128.05-1-1`), or a run of 9 or
/// more digits (the unformatted SBL, a SWIS code and SBL), never a count; a letter or three at most (a
/// street line, `7155 LAKE RD`, is no id).
fn looks_like_id(v: &str) -> bool {
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    if v.bytes().filter(u8::is_ascii_alphabetic).count() > 3 {
        return false;
    }
    let separated = v.contains(['-', '.', ' ']) && digits >= 3;
    let long = v.bytes().all(|b| b.is_ascii_digit()) && v.len() >= 9;
    (separated || long)
        && v.len() <= 40
        && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"-. /".contains(&b))
}

fn id_values(values: &[String]) -> Option<String> {
    let filled = filled(values);
    if filled.len() < 5 || (filled.len() as f64) < ID_FILLED * values.len() as f64 {
        return None;
    }
    let distinct: HashSet<&str> = filled.iter().copied().collect();
    if distinct.len() * 100 < filled.len() * 98 {
        return None;
    }
    share(values, "are tax-map numbers, each on one parcel", looks_like_id)
}

fn zip_values(values: &[String]) -> Option<String> {
    share(values, "are ZIP codes", |v| {
        let (five, four) = v.split_once('-').unwrap_or((v, "0000"));
        five.len() == 5 && four.len() == 4 && (five.to_string() + four).bytes().all(|b| b.is_ascii_digit())
    })
}

fn state_values(values: &[String]) -> Option<String> {
    share(values, "are states' postal codes", |v| STATES.contains(&v))
}

fn street_values(values: &[String]) -> Option<String> {
    share(values, "are street lines or PO boxes", |v| {
        let upper = v.to_ascii_uppercase();
        let box_line = ["PO BOX", "P O BOX", "P.O. BOX", "POB "].iter().any(|p| upper.starts_with(p));
        let mut words = v.split_whitespace();
        let number = words.next().is_some_and(|w| w.bytes().next().is_some_and(|b| b.is_ascii_digit()));
        box_line || (number && words.next().is_some_and(|w| w.chars().any(char::is_alphabetic)))
    })
}

fn city_values(values: &[String]) -> Option<String> {
    share(values, "are place names", |v| {
        v.chars().all(|c| c.is_alphabetic() || " .'-".contains(c)) && v.len() > 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn found(columns: &[(&str, &[&str])]) -> Found {
        let fields: Vec<String> = columns.iter().map(|(f, _)| f.to_string()).collect();
        let values =
            columns.iter().map(|(f, v)| (f.to_string(), v.iter().map(|s| s.to_string()).collect())).collect();
        Found { path: PathBuf::from("parcels.shp"), fields, values, ..Found::default() }
    }

    /// A county's own names: `TAXKEY` (ids), `OWN_ADR`, `OWN_TWN`, `OWN_ST`, `OWN_Z`: each found by its values,
    /// and `OBJECTID`, unique as it is, is no id.
    #[test]
    fn ids_and_mailing_fields_are_found_by_their_values() {
        let f = found(&[
            ("OBJECTID", &["1", "2", "3", "4", "5", "6"]),
            ("TAXKEY", &["128.05-1-1", "128.05-1-2", "128.05-1-3", "128.05-1-4", "128.05-1-5", "128.05-1-6"]),
            ("OWN_ADR", &["12 MAIN ST", "PO BOX 4", "7 LAKE RD", "88 ELM AVE", "3 WEST ST", "PO BOX 90"]),
            ("OWN_TWN", &["AUBURN", "MORAVIA", "AUBURN", "SKANEATELES", "AUBURN", "SCIPIO CENTER"]),
            ("OWN_ST", &["NY", "NY", "NY", "PA", "NY", "FL"]),
            ("OWN_Z", &["13021", "13118", "13021-1234", "13152", "13021", "33101"]),
        ]);
        let (schema, taken, undecided) = schema(&f);
        assert!(undecided.is_empty(), "{undecided:?}");
        let got: Vec<(&str, &str)> = taken.iter().map(|(k, f, _)| (*k, f.as_str())).collect();
        assert_eq!(
            got,
            [
                ("parcel_id", "TAXKEY"),
                ("parcel_mail_zip", "OWN_Z"),
                ("parcel_mail_state", "OWN_ST"),
                ("parcel_mail_street", "OWN_ADR"),
                ("parcel_mail_city", "OWN_TWN")
            ]
        );
        assert_eq!(schema.expect("a schema").id, ["TAXKEY"]);
    }

    /// Two fields that both fit the id are left for the user, said; a field filled on too few parcels is no id.
    #[test]
    fn two_fields_that_fit_are_not_chosen_between() {
        let ids = ["100-1-1", "100-1-2", "100-1-3", "100-1-4", "100-1-5", "100-1-6"];
        let other = [
            "5468910000100010000",
            "5468910000100020000",
            "5468910000100030000",
            "5468910000100040000",
            "5468910000100050000",
            "5468910000100060000",
        ];
        let (schema, taken, undecided) = schema(&found(&[("KEY_A", &ids), ("KEY_B", &other)]));
        assert!(schema.is_none() && taken.is_empty());
        assert!(undecided[0].contains("KEY_A and KEY_B"), "{undecided:?}");
        let sparse = ["100-1-1", "", "", "", "100-1-5", "100-1-6", "100-1-7", "100-1-8"];
        assert!(id_values(&sparse.map(String::from)).is_none());
    }
}
