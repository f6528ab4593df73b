//! Tests of the parcels layer's schema, columns and records.

use super::*;
use crate::crs::layer::GeometryError;

/// A schema whose id is SWIS + PRINT_KEY, and the columns of a layer holding those two fields.
fn columns() -> (ParcelSchema, ParcelColumns) {
    let schema = ParcelSchema {
        id: vec!["SWIS".into(), "PRINT_KEY".into()],
        town: None,
        sewer: None,
        swis: Some("SWIS".into()),
        owner: None,
        class: None,
        location: Vec::new(),
        mailing: MailingFields::default(),
    };
    let fields = ["SWIS".to_string(), "PRINT_KEY".to_string()];
    let columns = ParcelColumns::new(&fields, &schema);
    (schema, columns)
}

fn text(s: &str) -> Value {
    if s.is_empty() {
        Value::Null
    } else {
        Value::Text(s.into())
    }
}

#[test]
fn ids_are_sorted_and_a_repeat_names_its_first_record() {
    let (_, columns) = columns();
    // Record: SWIS, PRINT_KEY. Records 2 and 5 repeat record 4's id; record 3 has no PRINT_KEY.
    let layer = [
        ("054889", "2.00-1-1"),
        ("054889", "1.00-1-1"),
        ("054889", ""),
        ("052889", "9.00-1-1"),
        ("054889", "1.00-1-1"),
    ];
    let ids = ParcelPositions::collect(
        Path::new("parcels.shp"),
        |scanned, each| {
            assert_eq!(scanned, [0, 1], "both id columns are scanned");
            for (i, (swis, key)) in layer.iter().enumerate() {
                each(i + 1, vec![text(swis), text(key)]);
            }
            Ok(())
        },
        &columns,
        layer.len(),
    )
    .unwrap();
    // Sorted by id, then record: "052889-9.00-1-1" (4), "054889-1.00-1-1" (2, 5), "054889-2.00-1-1" (1),
    // "<no id: record 3>" ('<' sorts after digits).
    assert_eq!(ids.len(), 5);
    assert_eq!(ids.position("052889-9.00-1-1"), Some(0));
    assert_eq!(ids.position("054889-1.00-1-1"), Some(1));
    assert_eq!(ids.slot("054889-1.00-1-1", 5), Some(2));
    assert_eq!(ids.position("054889-2.00-1-1"), Some(3));
    assert_eq!(ids.slot("<no id: record 3>", 3), Some(4));
    assert_eq!(ids.position("054889-3.00-1-1"), None);
    assert_eq!(ids.slot("054889-2.00-1-1", 4), None, "record 4 has another id");
    assert_eq!(ids.slot("054889-2.00-1-1", 6), None, "no record 6");
    assert_eq!(ids.duplicate(1), None, "the first record of an id is scheduled");
    assert_eq!(ids.duplicate(2).as_deref(), Some("duplicate parcel id 054889-1.00-1-1 (also record 2)"));
    assert_eq!(ids.duplicate(3), None);
}

#[test]
fn an_id_joins_its_parts_as_text_and_a_part_missing_or_taken_twice_leaves_it_without_one() {
    let (_, mut columns) = columns();
    let id = |columns: &ParcelColumns, values: &[Value]| {
        let (id, has_id) = columns.id_of(values, 9);
        (id.to_string(), has_id)
    };
    assert_eq!(id(&columns, &[text("054889"), text("1.00-1-1")]), ("054889-1.00-1-1".into(), true));
    // A numeric SWIS reads as the integer it is.
    assert_eq!(id(&columns, &[Value::Number(54889.0), text("7")]), ("54889-7".into(), true));
    assert_eq!(id(&columns, &[text("054889"), Value::Null]), ("<no id: record 9>".into(), false));
    assert_eq!(id(&columns, &[text("054889")]), ("<no id: record 9>".into(), false), "a short record");
    // An id whose two parts name one field has its second part empty, as if the field were read once.
    columns.id = vec![Some(0), Some(0)];
    assert_eq!(id(&columns, &[text("054889"), text("7")]), ("<no id: record 9>".into(), false));
}

#[test]
fn sparse_record_numbers_find_their_slots() {
    // Record numbers far apart are looked up without a table.
    let (_, columns) = columns();
    let layer = [(900_000, "054889", "3.00-1-1"), (12, "054889", "1.00-1-1"), (40_000, "054889", "1.00-1-1")];
    let ids = ParcelPositions::collect(
        Path::new("parcels.shp"),
        |_, each| {
            for (record, swis, key) in layer {
                each(record, vec![text(swis), text(key)]);
            }
            Ok(())
        },
        &columns,
        layer.len(),
    )
    .unwrap();
    assert_eq!(ids.slot("054889-1.00-1-1", 12), Some(0));
    assert_eq!(ids.slot("054889-1.00-1-1", 40_000), Some(1));
    assert_eq!(ids.slot("054889-3.00-1-1", 900_000), Some(2));
    assert_eq!(ids.slot("054889-3.00-1-1", 12), None, "record 12 has another id");
    assert_eq!(ids.slot("054889-1.00-1-1", 13), None, "no record 13");
    assert_eq!(ids.position("054889-1.00-1-1"), Some(0));
    assert_eq!(ids.duplicate(1).as_deref(), Some("duplicate parcel id 054889-1.00-1-1 (also record 12)"));
}

#[test]
fn the_id_pass_and_the_records_agree() {
    // The same record read by the id pass and by the block conversion gets the same id, blank part or not.
    let (schema, columns) = columns();
    for (swis, key) in [("054889", "1.00-1-1"), ("054889", ""), ("", "")] {
        let ids = ParcelPositions::collect(
            Path::new("parcels.shp"),
            |_, each| {
                each(7, vec![text(swis), text(key)]);
                Ok(())
            },
            &columns,
            1,
        )
        .unwrap();
        let feature = Feature {
            record: 7,
            fid: None,
            geometry: Err(GeometryError::NullShape),
            values: vec![text(swis), text(key)],
        };
        let (record, _) = parcel_record(feature, &columns, &schema, Path::new("p.shp"), "EPSG:2261");
        assert_eq!(ids.slot(&record.id, 7), Some(0), "{swis:?} {key:?}: {}", record.id);
    }
}

/// Counties name the parcel id `PID` and the owner's first mailing line `MAIL_1ADDR` or `MAILADDR1`: each is
/// found by its name.
#[test]
fn other_counties_id_and_mailing_fields_are_found() {
    let path = Path::new("parcels.shp");
    for (id, street, city) in [("PID", "MAIL_1ADDR", "MAIL_1CITY"), ("PARCELID", "MAILADDR1", "MAIL_CITY")] {
        let fields: Vec<String> = [id, "OWNER", street, city, "MAIL_ZIP"].map(String::from).to_vec();
        let schema = ParcelSchema::detect(&fields, &FieldNames::default(), path).expect("a schema");
        assert_eq!(schema.id, [id]);
        assert_eq!(schema.mailing.street.as_deref(), Some(street));
        assert_eq!(schema.mailing.city.as_deref(), Some(city));
    }
}

#[test]
fn a_layer_of_no_field_is_told_as_empty_not_as_a_field_to_name() {
    let path = Path::new("parcels.geojson");
    let err = ParcelSchema::detect(&[], &FieldNames::default(), path).err().unwrap().to_string();
    assert!(
        err.contains("the parcels layer has no fields") && !err.contains("name it in the config"),
        "{err}"
    );
    let fields = vec!["OWNER".to_string()];
    let err = ParcelSchema::detect(&fields, &FieldNames::default(), path).err().unwrap().to_string();
    assert!(
        err.contains("cannot tell which field holds the parcel id") && err.contains("fields found: OWNER")
    );
}
