use super::*;

fn names(scene: &Scene<'_>) -> Vec<String> {
    scene.legend.iter().map(|e| e.label.clone()).collect()
}

#[test]
fn legend_lists_only_classes_present_with_counts_then_layers_drawn() {
    let (a, b, c) =
        (rectangle([0.0, 0.0, 100.0, 100.0]), rectangle([200.0, 0.0, 300.0, 100.0]), rectangle([0.0; 4]));
    let input = MapInput {
        parcels: vec![
            (Cow::Borrowed(&a), ParcelClass::Watershed),
            (Cow::Borrowed(&b), ParcelClass::Failed),
            (Cow::Borrowed(&c), ParcelClass::Watershed),
        ],
        watershed: vec![Cow::Owned(rectangle([-50.0, -50.0, 400.0, 400.0]))],
        title: "T".into(),
        as_of: "2027-01-15".into(),
        ..MapInput::default()
    };
    let scene = schedule_scene(&input);
    assert_eq!(
        names(&scene),
        ["Inspection tier", "Watershed (2)", "Failed inspection (1)", "Reference", "Watershed boundary"]
    );
    assert_eq!(scene.subtitle, "As of 2027-01-15 · 3 parcels");
    // Failed parcels are drawn after (over) the tiers; reference outlines over the parcels.
    let order: Vec<&str> = scene.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(order, ["parcels-Watershed", "parcels-Failed", "watershed"]);
}

#[test]
fn a_legend_entry_counts_what_is_drawn_apart() {
    assert_eq!(legend_label(ParcelClass::Current, 38, [0, 2]), "Current (38 + 2 failed)");
    assert_eq!(legend_label(ParcelClass::Lakefront, 10, [4, 1]), "Lakefront (10 + 4 overdue + 1 failed)");
    assert_eq!(legend_label(ParcelClass::Overdue, 1200, [0, 0]), "Overdue (1,200)");
}

#[test]
fn parcels_drawn_apart_are_counted_in_their_tiers_entries() {
    let square = |x: f64| rectangle([x, 0.0, x + 5.0, 5.0]);
    let (a, b, c) = (square(0.0), square(10.0), square(20.0));
    let input = MapInput {
        parcels: vec![
            (Cow::Borrowed(&a), ParcelClass::Lakefront),
            (Cow::Borrowed(&b), ParcelClass::Overdue),
            (Cow::Borrowed(&c), ParcelClass::Failed),
        ],
        unmapped: vec![ParcelClass::Overdue],
        set_apart_from: vec![
            ParcelClass::Lakefront,
            ParcelClass::Lakefront,
            ParcelClass::Lakefront,
            ParcelClass::County,
        ],
        ..MapInput::default()
    };
    let labels = names(&schedule_scene(&input));
    assert_eq!(
        labels[..4],
        [
            "Inspection tier",
            "Lakefront (1 + 1 overdue + 1 failed)",
            "Rest of county (0 + 1 overdue)",
            "Failed inspection (1)"
        ]
    );
    assert_eq!(labels[4], "Overdue (2)");
}

#[test]
fn status_legend_heads_with_status_and_orders_worst_first() {
    let (a, b) = (rectangle([0.0, 0.0, 1.0, 1.0]), rectangle([2.0, 0.0, 3.0, 1.0]));
    let input = MapInput {
        parcels: vec![(Cow::Borrowed(&a), ParcelClass::Current), (Cow::Borrowed(&b), ParcelClass::Overdue)],
        colour_by: ColourBy::Status,
        ..MapInput::default()
    };
    assert_eq!(names(&schedule_scene(&input)), ["Status", "Overdue (1)", "Current (1)"]);
}

#[test]
fn default_extent_is_parcel_bounds_plus_five_percent() {
    let a = rectangle([0.0, 0.0, 10_000.0, 4_000.0]);
    let input = MapInput { parcels: vec![(Cow::Borrowed(&a), ParcelClass::County)], ..MapInput::default() };
    assert_eq!(schedule_scene(&input).extent, [-500.0, -200.0, 10_500.0, 4_200.0]);
    let given = MapInput { extent: Some([1.0, 2.0, 3.0, 4.0]), ..input.clone() };
    assert_eq!(schedule_scene(&given).extent, [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn a_map_of_one_area_counts_and_lists_only_what_is_in_view() {
    let (near, far) = (rectangle([0.0, 0.0, 100.0, 100.0]), rectangle([9_000.0, 0.0, 9_100.0, 100.0]));
    let input = MapInput {
        parcels: vec![
            (Cow::Borrowed(&near), ParcelClass::Current),
            (Cow::Borrowed(&far), ParcelClass::Overdue),
        ],
        colour_by: ColourBy::Status,
        watershed: vec![Cow::Owned(rectangle([8_000.0, -100.0, 9_500.0, 500.0]))],
        as_of: "2027-01-15".into(),
        extent: Some([-50.0, -50.0, 500.0, 500.0]),
        ..MapInput::default()
    };
    let scene = schedule_scene(&input);
    assert_eq!(names(&scene), ["Status", "Current (1)"]);
    assert_eq!(scene.subtitle, "As of 2027-01-15 · 1 parcel");
    assert_eq!(scene.layers.len(), 1);
}

#[test]
fn towns_are_labelled_inside_and_only_in_view() {
    let a = rectangle([0.0, 0.0, 1_000.0, 1_000.0]);
    let input = MapInput {
        parcels: vec![(Cow::Borrowed(&a), ParcelClass::County)],
        towns: vec![
            (Cow::Owned(rectangle([0.0, 0.0, 1_000.0, 1_000.0])), "Fleming".into()),
            (Cow::Owned(rectangle([50_000.0, 0.0, 60_000.0, 1_000.0])), "Far".into()),
            // Its interior point is out of view; the part in view is labelled.
            (Cow::Owned(rectangle([-9_000.0, 0.0, 1_000.0, 1_000.0])), "West".into()),
        ],
        ..MapInput::default()
    };
    let scene = schedule_scene(&input);
    let labels: Vec<(&str, [f64; 2])> = scene.labels.iter().map(|l| (l.text.as_str(), l.at)).collect();
    assert_eq!(labels, [("Fleming", [500.0, 500.0]), ("West", [450.0, 500.0])]);
}

#[test]
fn lake_polygons_fill_as_water_and_outline_as_shoreline() {
    let a = rectangle([0.0, 0.0, 1.0, 1.0]);
    let lake = Geometry::MultiPolygon(rectangle([10.0, 10.0, 20.0, 20.0]));
    let line = Geometry::LineString(LineString::from(vec![(0.0, 0.0), (5.0, 5.0)]));
    let input = MapInput {
        parcels: vec![(Cow::Borrowed(&a), ParcelClass::Lakefront)],
        shoreline: vec![&lake, &line],
        ..MapInput::default()
    };
    let scene = schedule_scene(&input);
    assert_eq!(scene.layers[0].name, "lake");
    assert_eq!(scene.layers[0].polygons.len(), 1);
    let shore = scene.layers.iter().find(|l| l.name == "shoreline").unwrap();
    assert_eq!(shore.lines.len(), 2);
    assert!(names(&scene).contains(&"Lake".to_string()));
}

#[test]
fn class_names_parse() {
    assert_eq!(ParcelClass::from_tier("near-shore"), Some(ParcelClass::NearShore));
    assert_eq!(ParcelClass::from_tier("gorham"), None);
    assert_eq!(ParcelClass::from_status("never-inspected"), Some(ParcelClass::NeverInspected));
    assert_eq!(ParcelClass::from_status("failed"), None);
}

#[test]
fn a_png_size_is_checked_against_the_pixels_it_would_hold() {
    assert!(check_png_size(1, 1).is_ok());
    // 200 million pixels exactly, and one row more.
    assert!(check_png_size(20_000, 10_000).is_ok());
    assert!(check_png_size(20_000, 10_001).unwrap_err().contains("up to 200 million pixels"));
    assert!(check_png_size(0, 600).is_err());
    // The product of the largest sides does not overflow.
    assert!(check_png_size(u32::MAX, u32::MAX).is_err());
}
