use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::*;
use crate::pipeline::init::{Found, Shape, Table};

fn found(name: &str, shape: Shape, records: usize, fields: &[&str]) -> Found {
    let path = PathBuf::from(name);
    let words = match crate::formats::split_member(&path) {
        (_, Some(member)) => member.to_lowercase(),
        (file, None) => file.file_stem().unwrap().to_string_lossy().to_lowercase(),
    };
    Found {
        path,
        words,
        shape,
        records,
        crs: None,
        feet_crs: None,
        fields: fields.iter().map(|f| f.to_string()).collect(),
        late_fields: Vec::new(),
        extent: None,
        modified: None,
        table: (shape == Shape::Table).then(Table::default),
        values: Vec::new(),
    }
}

fn survey_of(found: Vec<Found>) -> Survey {
    let mut survey = Survey { found, ..Survey::default() };
    decide(&mut survey);
    survey
}

const PARCEL_FIELDS: &[&str] = &["SWIS", "PRINT_KEY", "MUNI_NAME", "PRIMARY_OWNER"];

#[test]
fn shapes_rule_out_and_names_and_fields_point_in() {
    let flood = found("S_FLD_HAZ_AR.shp", Shape::Polygons, 40, &["FLD_ZONE", "SFHA_TF", "STATIC_BFE"]);
    let floodplain = &SIGNALS[3];
    assert_eq!(floodplain.role, "floodplain");
    // A file-name word (3) and three fields (4 each).
    assert_eq!(score(&flood, floodplain), 15);
    let as_points = Found { shape: Shape::Points, ..flood.clone() };
    assert_eq!(score(&as_points, floodplain), 0);
    // "watershed" in a name keeps a file from being taken for the shoreline.
    let shoreline = &SIGNALS[1];
    assert_eq!(score(&found("lake_watershed.shp", Shape::Polygons, 1, &["NAME"]), shoreline), 0);
}

#[test]
fn a_tie_is_left_undecided_and_said() {
    let survey = survey_of(vec![
        found("parcels.shp", Shape::Polygons, 100, &["SWIS", "PRINT_KEY"]),
        found("basin_east.shp", Shape::Polygons, 1, &["NAME"]),
        found("basin_west.shp", Shape::Polygons, 1, &["NAME"]),
    ]);
    assert_eq!(survey.file("parcels"), Some(Path::new("parcels.shp")));
    assert_eq!(survey.file("watershed"), None);
    assert!(
        survey.undecided.iter().any(|u| u.contains("basin_east.shp")
            && u.contains("basin_west.shp")
            && u.contains("all look like the watershed layer")
            && u.contains("set [layers] watershed = \"FILE\"")),
        "{:?}",
        survey.undecided
    );
    assert_eq!(survey.missing, ["shoreline"]);
}

/// The greedy choice gives `lake_and_towns` to the towns (it scores more there) and leaves the shoreline
/// empty; one matching gives it to the shoreline, which has no other file, and the towns their own file.
#[test]
fn a_required_role_takes_a_runner_up_before_an_optional_one_takes_its_best() {
    let survey = survey_of(vec![
        found("parcels.shp", Shape::Polygons, 100, PARCEL_FIELDS),
        // Towns: MUNI_NAME and MUNI_TYPE (8) and a count of 12 (1); shoreline: the word "lake" (3).
        found("lake_and_towns.shp", Shape::Polygons, 12, &["MUNI_NAME", "MUNI_TYPE"]),
        // Towns: the word "town" (3) and a count of 12 (1).
        found("towns.shp", Shape::Polygons, 12, &["NAME"]),
    ]);
    assert_eq!(survey.file("shoreline"), Some(Path::new("lake_and_towns.shp")), "{survey:?}");
    assert_eq!(survey.file("towns"), Some(Path::new("towns.shp")));
    assert!(survey.missing.is_empty());
    assert!(survey.absent.contains(&"watershed"), "{:?}", survey.absent);
    assert!(survey.undecided.is_empty(), "{:?}", survey.undecided);
}

#[test]
fn of_two_parcels_layers_the_newer_by_the_year_in_its_name_is_taken_and_said() {
    let survey = survey_of(vec![
        found("county.gpkg:parcels_2025", Shape::Polygons, 100, PARCEL_FIELDS),
        found("parcels_2023.shp", Shape::Polygons, 90, PARCEL_FIELDS),
        found("shore.shp", Shape::Lines, 1, &["NAME"]),
    ]);
    assert_eq!(survey.file("parcels"), Some(Path::new("county.gpkg:parcels_2025")));
    // The older one plays no other role (it would fit the towns by MUNI_NAME).
    assert_eq!(survey.file("towns"), None);
    let said = survey.notes.join("\n");
    assert!(
        said.contains("took county.gpkg:parcels_2025, the newest by the year in its name (2025)"),
        "{said}"
    );
    assert!(said.contains("parcels_2023.shp"), "{said}");
    assert!(survey.undecided.is_empty(), "{:?}", survey.undecided);
}

#[test]
fn without_years_the_newer_file_by_date_is_taken_and_without_either_it_is_a_tie() {
    let day = |d: u64| Some(SystemTime::UNIX_EPOCH + Duration::from_secs(d * 86_400));
    let old = Found { modified: day(19_000), ..found("parcels_old.shp", Shape::Polygons, 90, PARCEL_FIELDS) };
    let new = Found { modified: day(20_000), ..found("parcels.shp", Shape::Polygons, 100, PARCEL_FIELDS) };
    let survey = survey_of(vec![new.clone(), old.clone()]);
    assert_eq!(survey.file("parcels"), Some(Path::new("parcels.shp")));
    // Day 20000 after 1970-01-01 is 2024-10-04.
    assert!(
        survey.notes.iter().any(|n| n.contains("by modification date (2024-10-04)")),
        "{:?}",
        survey.notes
    );
    let same = Found { modified: new.modified, ..old };
    let survey = survey_of(vec![new, same]);
    assert_eq!(survey.file("parcels"), None);
    assert!(
        survey.undecided.iter().any(|u| u.contains("all look like the parcels layer")),
        "{:?}",
        survey.undecided
    );
}

#[test]
fn years_are_four_digits_of_their_own() {
    assert_eq!(year_in("parcels_2025"), Some(2025));
    assert_eq!(year_in("tax_parcels_2019_to_2024"), Some(2024));
    assert_eq!(year_in("parcels_20250101"), None);
    assert_eq!(year_in("parcels_1850"), None);
    assert_eq!(year_in("parcels"), None);
}

#[test]
fn the_assignment_has_the_least_total_cost() {
    // Greedy gives row 0 its cheapest column (1) and row 1 the other (9): 10; the best is 2 + 1 = 3.
    assert_eq!(best_assignment(&[vec![1, 2], vec![1, 9]]), vec![1, 0]);
    // More columns than rows.
    assert_eq!(best_assignment(&[vec![5, 0, 5], vec![0, 5, 5]]), vec![1, 0]);
}
