//! The owner's mailing address: which fields of the parcels layer hold it, the address line a post-office
//! box gives, and the warning when no letter can be addressed from the layer's fields.

use super::ParcelSchema;

/// Which fields hold the owner's mailing address (the statewide schema's `MAIL_ADDR`, `PO_BOX`,
/// `MAIL_CITY`, `MAIL_STATE`, `MAIL_ZIP`); each may be absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MailingFields {
    /// Street or post-office box line.
    pub street: Option<String>,
    /// Post-office box, for an address without a street line.
    pub po_box: Option<String>,
    /// City or post office.
    pub city: Option<String>,
    /// State.
    pub state: Option<String>,
    /// ZIP code.
    pub zip: Option<String>,
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

/// The line of a mailing address above the city: the street line, or the post-office box written as one
/// (`PO Box 12` from a box field holding `12`) when there is no street line; both when the owner gives both,
/// the box last, where mail is delivered.
pub(super) fn address_line(street: Option<String>, po_box: Option<String>) -> Option<String> {
    let filled = |t: Option<String>| t.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
    let po_box = filled(po_box).map(|b| {
        let says_box = b.to_ascii_uppercase().contains("BOX");
        if says_box {
            b
        } else {
            format!("PO Box {b}")
        }
    });
    match (filled(street), po_box) {
        (Some(street), Some(b)) if !street.eq_ignore_ascii_case(&b) => Some(format!("{street}, {b}")),
        (street, b) => street.or(b),
    }
}

impl ParcelSchema {
    /// Why no letter can be addressed from this schema, when it cannot: no street or post-office box
    /// field, or neither a ZIP field nor city and state fields. The warning names the `[fields]` keys to
    /// set, for the commands that mail (`notices`).
    pub fn mailing_gap(&self) -> Option<String> {
        let m = &self.mailing;
        let mut missing = Vec::new();
        if m.street.is_none() && m.po_box.is_none() {
            missing.push(("street or post-office box", "parcel_mail_street", "MAIL_ADDR", "PO_BOX"));
        }
        if m.zip.is_none() && (m.city.is_none() || m.state.is_none()) {
            missing.push(("ZIP code (or city and state)", "parcel_mail_zip", "MAIL_ZIP", "MAIL_CITY"));
        }
        if missing.is_empty() {
            return None;
        }
        let what: Vec<String> = missing
            .iter()
            .map(|(role, key, a, b)| format!("no mailing {role} field (looked for {a}, {b}, ...): set [fields] {key} = \"FIELD\" or --field {key}=FIELD"))
            .collect();
        Some(format!(
            "{}; without it no letter can be addressed and every notice goes to cannot_mail.csv",
            what.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::classify::fields::FieldNames;

    #[test]
    fn a_po_box_is_the_address_line_without_a_street() {
        let line = |street: Option<&str>, po_box: Option<&str>| {
            address_line(street.map(String::from), po_box.map(String::from))
        };
        assert_eq!(line(None, Some("12")).as_deref(), Some("PO Box 12"));
        assert_eq!(line(Some(" "), Some("P.O. Box 12")).as_deref(), Some("P.O. Box 12"));
        assert_eq!(line(Some("6101 E Lake Rd"), None).as_deref(), Some("6101 E Lake Rd"));
        assert_eq!(line(Some("6101 E Lake Rd"), Some("12")).as_deref(), Some("6101 E Lake Rd, PO Box 12"));
        assert_eq!(line(None, None), None);
    }

    #[test]
    fn mailing_fields_are_detected_and_a_schema_without_them_says_which_keys_to_set() {
        let fields: Vec<String> =
            ["SWIS", "PRINT_KEY", "PO_BOX", "MAIL_CITY", "MAIL_STATE"].map(String::from).to_vec();
        let schema = ParcelSchema::detect(&fields, &FieldNames::default(), Path::new("p.shp")).unwrap();
        assert_eq!(schema.mailing.po_box.as_deref(), Some("PO_BOX"));
        assert_eq!(schema.mailing.street, None);
        assert_eq!(schema.mailing_gap(), None, "a box and a city and state address a letter");
        let bare = ParcelSchema::detect(&fields[..2], &FieldNames::default(), Path::new("p.shp")).unwrap();
        let gap = bare.mailing_gap().unwrap();
        assert!(gap.contains("[fields] parcel_mail_street") && gap.contains("parcel_mail_zip"), "{gap}");
        let named = FieldNames { parcel_mail_street: Some("LINE1".into()), ..FieldNames::default() };
        let schema = ParcelSchema::detect(&fields, &named, Path::new("p.shp")).unwrap();
        assert_eq!(schema.mailing.street.as_deref(), Some("LINE1"));
    }
}
