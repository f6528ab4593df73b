//! A parcel's id: the key every output is sorted by and every record file names a parcel with; and
//! [`spelling`], the id with the differences of how offices write it set aside.

pub mod spelling;

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

/// Where a parcels layer, a systems layer or a record file holds the parcel id, in order of preference: the
/// New York statewide tax-parcel schema (NYS GIS Clearinghouse / ORPTS) first, then names counties and town
/// logs commonly use. Each entry is the fields joined with `-` into the id (`SWIS` and `PRINT_KEY` give
/// `054889-1.00-1-1`). Names are compared without regard to case, and a name longer than 10 characters
/// also matches its first 10 characters, as a shapefile's dBase table cuts it (`SWIS_PRINT_KEY_ID` arrives as
/// `SWIS_PRINT`).
pub const ID_FIELDS: &[&[&str]] = &[
    &["PARCEL_ID"],
    &["PARCELID"],
    &["PID"],
    &["SWIS", "PRINT_KEY"],
    &["SWIS", "PRINT_KEY_ID"],
    &["SWIS_PRINT_KEY_ID"],
    &["SWISPRINTKEY"],
    &["SWIS_SBL_ID"],
    &["SWISSBL"],
    &["SWIS", "SBL"],
    &["PRINT_KEY"],
    &["PRINTKEY"],
    &["PRINT_KEY_ID"],
    &["SBL"],
    &["PARCELKEY"],
    &["TAX_ID"],
    &["PIN"],
    &["PARCEL"],
    &["SBL_ID"],
    &["TAX_MAP_ID"],
];

/// An id as a message shows it: a character a reader cannot see (a no-break or zero-width space, a soft
/// hyphen, a byte-order mark, a direction mark, a control character) written as `<U+200B>`, so that an id
/// that looks right but is not can be told.
///
/// ```
/// use lakeshore::model::id::shown;
/// assert_eq!(shown("054689-128.05-1-1\u{200B}"), "054689-128.05-1-1<U+200B>");
/// assert_eq!(shown("054689\u{A0}128.05-1-1"), "054689<U+00A0>128.05-1-1");
/// assert_eq!(shown("054689-128.05-1-1"), "054689-128.05-1-1");
/// ```
pub fn shown(id: &str) -> std::borrow::Cow<'_, str> {
    let invisible = |c: char| {
        c.is_control()
            || matches!(c, '\u{A0}' | '\u{AD}' | '\u{180E}' | '\u{2000}'..='\u{200F}' | '\u{2028}'..='\u{202F}')
            || matches!(c, '\u{205F}'..='\u{206F}' | '\u{3000}' | '\u{FEFF}')
    };
    if !id.chars().any(invisible) {
        return std::borrow::Cow::Borrowed(id);
    }
    let mut out = String::with_capacity(id.len() + 8);
    for c in id.chars() {
        if invisible(c) {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The names of [`ID_FIELDS`] that hold a whole id in one field, in order of preference.
pub fn whole_id_fields() -> impl Iterator<Item = &'static str> {
    ID_FIELDS.iter().filter_map(|group| match group {
        [one] => Some(*one),
        _ => None,
    })
}

/// A parcel's id as the county writes it: the parts of the layer's id fields joined with `-` (SWIS and
/// PRINT_KEY give `054889-1.00-1-1`), or, for a record whose id fields are empty, a stand-in that names the
/// record (`<no id: record 7>`), so that the record is still listed, unscheduled, in its place.
///
/// Ids compare as text, byte by byte: that order is the order of every output. The stand-ins (`<` is
/// 0x3C) sort after ids that begin with a digit and before those that begin with a letter.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParcelId(Box<str>);

impl ParcelId {
    /// The stand-in id of record `record` of the parcels file, whose id fields are (partly) empty.
    pub fn missing(record: usize) -> Self {
        ParcelId(format!("<no id: record {record}>").into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for ParcelId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ParcelId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for ParcelId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ParcelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for ParcelId {
    fn from(text: String) -> Self {
        ParcelId(text.into_boxed_str())
    }
}

impl From<&str> for ParcelId {
    fn from(text: &str) -> Self {
        ParcelId(text.into())
    }
}

impl PartialEq<str> for ParcelId {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for ParcelId {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::ParcelId;

    #[test]
    fn a_missing_id_names_its_record() {
        assert_eq!(ParcelId::missing(12).as_str(), "<no id: record 12>");
        assert_eq!(ParcelId::from("054889-1.00-1-1"), "054889-1.00-1-1");
    }

    #[test]
    fn ids_order_as_bytes_and_stand_ins_fall_between_digits_and_letters() {
        let mut ids = [
            ParcelId::missing(3),
            ParcelId::from("054889-2.00-1-1"),
            ParcelId::from("ABC-1"),
            ParcelId::from("052889-9.00-1-1"),
        ];
        ids.sort();
        let order: Vec<&str> = ids.iter().map(ParcelId::as_str).collect();
        assert_eq!(order, ["052889-9.00-1-1", "054889-2.00-1-1", "<no id: record 3>", "ABC-1"]);
    }
}
