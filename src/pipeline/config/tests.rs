use super::*;
use crate::classify::fields::LAYER_FIELD_KEYS;

#[test]
fn a_border_tolerance_as_wide_as_a_distance_the_rules_measure_is_refused() {
    let as_of = NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
    let with = |ft: f64| {
        let file = ConfigFile {
            layers: LayerPaths { parcels: Some("parcels.shp".into()), ..LayerPaths::default() },
            border_tolerance_ft: Some(ft),
            ..ConfigFile::default()
        };
        Config::new(file, as_of).err().map(|e| e.to_string())
    };
    assert_eq!(with(10.0), None);
    assert_eq!(with(499.0), None);
    // The Cayuga rules measure 500 ft from the line (Art. V's near-shore tier).
    for ft in [500.0, 1e308] {
        let err = with(ft).expect("refused");
        assert!(err.contains("the rule set measures 500 ft from the line"), "{err}");
        assert!(err.contains("border_tolerance_ft") && err.contains("--border-tolerance-ft"), "{err}");
    }
    assert!(with(-1.0).expect("refused").contains("give a distance of 0 ft or more"));
}

#[test]
fn an_assumed_crs_that_cannot_be_read_names_its_own_key_and_flag() {
    let file = ConfigFile {
        layers: LayerPaths { parcels: Some("parcels.shp".into()), ..LayerPaths::default() },
        assume_crs: Some("foo".into()),
        ..ConfigFile::default()
    };
    let err = Config::new(file, NaiveDate::from_ymd_opt(2027, 1, 15).unwrap()).err().unwrap().to_string();
    assert!(err.contains("assume_crs = \"foo\" (or --assume-crs)"), "{err}");
    assert!(!err.contains("pass --crs"), "{err}");
}

#[test]
fn a_water_body_named_for_another_is_refused() {
    let rules = RuleSet::cayuga_art_v();
    let table = |key: &str, names: &[&str]| ConfigFile {
        water_bodies: [(key.to_string(), names.iter().map(|n| n.to_string()).collect())].into(),
        ..ConfigFile::default()
    };
    let ok = water_body_names(&table("Owasco Lake", &["OWASCO LK", "Owasco Lake"]), &rules).unwrap();
    assert_eq!(
        ok,
        [("OWASCO LK", "Owasco Lake"), ("Owasco Lake", "Owasco Lake")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let err = water_body_names(&table("Owasco Lake", &["Little Sodus Bay"]), &rules).unwrap_err().to_string();
    assert!(
        err.contains("\"Little Sodus Bay\" is the rule set's Little Sodus Bay, another water body"),
        "{err}"
    );
}

#[test]
fn field_flags_set_layer_fields_and_record_columns() {
    let mut fields = FieldNames::default();
    fields.set("parcel_mail_city = M_CITY").unwrap();
    fields.set("parcel_mail_po_box=BOX").unwrap();
    fields.set("parcel_id=SWIS+PRINT_KEY").unwrap();
    fields.set("system_bottom=ELEV_FT").unwrap();
    fields.set("history.date=INSPECTED").unwrap();
    assert_eq!(fields.parcel_mail_city.as_deref(), Some("M_CITY"));
    assert_eq!(fields.parcel_mail_po_box.as_deref(), Some("BOX"));
    assert_eq!(fields.parcel_id, Some(vec!["SWIS".to_string(), "PRINT_KEY".to_string()]));
    assert_eq!(fields.system_bottom.as_deref(), Some("ELEV_FT"));
    assert_eq!(fields.history.get("date").map(String::as_str), Some("INSPECTED"));
    let err = fields.set("parcel_mail_cty=X").unwrap_err().to_string();
    assert!(err.contains("unknown key 'parcel_mail_cty'") && err.contains("parcel_mail_city"), "{err}");
    for joined in ["parcel_id=SWIS+", "parcel_id=+PRINT_KEY", "parcel_location=A++B"] {
        let err = fields.set(joined).unwrap_err().to_string();
        assert!(err.contains("a field name is missing beside a '+'"), "{joined}: {err}");
    }
    // The joined fields set before stand.
    assert_eq!(fields.parcel_id, Some(vec!["SWIS".to_string(), "PRINT_KEY".to_string()]));
}

#[test]
fn the_example_config_sets_every_layer_field_key() {
    let file: ConfigFile = toml::from_str(EXAMPLE_CONFIG).unwrap();
    let mut fields = file.fields.clone();
    for key in LAYER_FIELD_KEYS {
        assert!(fields.layer_field(key).is_some_and(|f| f.is_some()), "{key} is not in the example");
    }
}
