//! Tests of the streaming GeoJSON reader.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use geo::{Point, Polygon};

use super::*;

/// A GeoJSON file under the system temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(text: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("lakeshore-geojson-{}-{n}.geojson", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn read_text(text: &str, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let file = TempFile::new(text);
    read(&file.0, options)
}

const COLLECTION: &str = r#"{
  "type": "FeatureCollection",
  "bbox": [-74.0, 42.0, -73.0, 43.0],
  "features": [
    {"type": "Feature", "properties": {"PIN": " 12.-1-3 ", "ACRES": 1.5, "SEPTIC": true},
     "geometry": {"type": "Point", "coordinates": [-73.5, 42.5]}},
    {"type": "Feature", "geometry": null, "properties": {"ACRES": 2, "PIN": "7", "OWNER": ["A", "B"]}},
    {"type": "Feature", "properties": null,
     "geometry": {"type": "Polygon", "coordinates": [[[-73.9, 42.1], [-73.9, 42.2], [-73.8, 42.2], [-73.9, 42.1]]]}},
    {"type": "Feature", "properties": {"OWNER": "", "ZIP": null},
     "geometry": {"type": "Circle", "coordinates": [0, 0]}}
  ]
}"#;

#[test]
fn reads_every_feature_with_the_union_of_properties_in_first_seen_order() {
    let (layer, problems) = read_text(COLLECTION, &ReadOptions::default()).unwrap();
    assert_eq!(layer.crs, Crs::wgs84());
    assert_eq!(layer.fields, vec!["PIN", "ACRES", "SEPTIC", "OWNER", "ZIP"]);
    assert_eq!(layer.features.iter().map(|f| f.record).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    let text = |s: &str| Value::Text(s.into());
    assert_eq!(
        layer.features[0].values,
        vec![text("12.-1-3"), Value::Number(1.5), Value::Bool(true), Value::Null, Value::Null]
    );
    assert_eq!(
        layer.features[1].values,
        vec![text("7"), Value::Number(2.0), Value::Null, text(r#"["A","B"]"#), Value::Null]
    );
    assert_eq!(layer.features[2].values, vec![Value::Null; 5]);
    assert_eq!(layer.features[3].values, vec![Value::Null; 5]);

    assert_eq!(layer.features[0].geometry, Ok(Point::new(-73.5, 42.5).into()));
    assert_eq!(layer.features[1].geometry, Err("no geometry".to_string()));
    let triangle =
        Polygon::new(vec![(-73.9, 42.1), (-73.9, 42.2), (-73.8, 42.2), (-73.9, 42.1)].into(), vec![]);
    assert_eq!(layer.features[2].geometry, Ok(triangle.into()));
    assert!(layer.features[3].geometry.as_ref().unwrap_err().starts_with("unreadable geometry"));

    let records: Vec<&str> = problems.iter().map(|p| p.record.as_str()).collect();
    assert_eq!(records, vec!["record 2", "record 4"]);
    assert_eq!(problems[0].message, "no geometry: add one or delete the feature");
}

#[test]
fn keep_limits_fields_and_names_missing_ones() {
    let options = ReadOptions { keep: Some(vec!["owner".into(), "pin".into()]), ..Default::default() };
    let (layer, _) = read_text(COLLECTION, &options).unwrap();
    assert_eq!(layer.fields, vec!["PIN", "OWNER"]);
    assert_eq!(layer.features[0].values, vec![Value::Text("12.-1-3".into()), Value::Null]);
    assert_eq!(layer.features[1].values, vec![Value::Text("7".into()), Value::Text(r#"["A","B"]"#.into())]);

    let options = ReadOptions { keep: Some(vec!["SWIS".into()]), ..Default::default() };
    let err = read_text(COLLECTION, &options).unwrap_err();
    assert!(matches!(err, Error::Format { .. }));
    assert!(err.to_string().contains("fields found: PIN, ACRES, SEPTIC, OWNER, ZIP"), "{err}");
}

#[test]
fn field_names_stop_at_the_first_feature() {
    // Everything after the first feature is broken: field_names must not read it.
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"Z": 1, "A": 2}, "geometry": null}, {"broken"#;
    let file = TempFile::new(text);
    assert_eq!(field_names(&file.0).unwrap(), vec!["Z", "A"]);
    let err = read(&file.0, &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Format { .. }), "{err:?}");
}

#[test]
fn crs_member_names_the_crs() {
    let with_crs = |crs: &str| {
        format!(
            r#"{{"type": "FeatureCollection", "crs": {crs}, "features": [
               {{"type": "Feature", "properties": {{}},
                 "geometry": {{"type": "Point", "coordinates": [1000000.0, 1100000.0]}}}}]}}"#
        )
    };
    let epsg = Crs { def: CrsDef::Epsg(2261) };
    for member in [
        r#"{"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2261"}}"#,
        r#"{"type": "name", "properties": {"name": "EPSG:2261"}}"#,
        r#"{"type": "EPSG", "properties": {"code": 2261}}"#,
    ] {
        let (layer, problems) = read_text(&with_crs(member), &ReadOptions::default()).unwrap();
        assert_eq!(layer.crs, epsg, "{member}");
        assert!(problems.is_empty());
        assert!(layer.features[0].geometry.is_ok());
    }
    let link = r#"{"type": "link", "properties": {"href": "x.prj"}}"#;
    assert!(matches!(read_text(&with_crs(link), &ReadOptions::default()), Err(Error::Crs { .. })));
}

#[test]
fn crs_names() {
    let epsg = |code| Some(Crs { def: CrsDef::Epsg(code) });
    assert_eq!(named_crs("urn:ogc:def:crs:EPSG::2261"), epsg(2261));
    assert_eq!(named_crs("urn:ogc:def:crs:EPSG:6.6:26918"), epsg(26918));
    assert_eq!(named_crs("epsg:4326"), epsg(4326));
    assert_eq!(named_crs("http://www.opengis.net/def/crs/EPSG/0/2261"), epsg(2261));
    assert_eq!(named_crs("urn:ogc:def:crs:OGC:1.3:CRS84"), Some(Crs::wgs84()));
    assert_eq!(named_crs("urn:ogc:def:crs:EPSG::"), None);
    assert_eq!(named_crs("+proj=longlat"), None);
}

#[test]
fn projected_coordinates_without_a_crs_member_are_an_error() {
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [612000.5, 1120000]}}]}"#;
    let err = read_text(text, &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Crs { .. }));
    assert!(err.to_string().contains("not longitude/latitude (record 1 spans x 612000.5..612000.5"), "{err}");
}

#[test]
fn one_stray_feature_in_a_wgs84_layer_is_a_problem() {
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [-73.5, 42.5]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [-73.5, 420.5]}}]}"#;
    let (layer, problems) = read_text(text, &ReadOptions::default()).unwrap();
    assert!(layer.features[0].geometry.is_ok());
    assert!(layer.features[1].geometry.as_ref().unwrap_err().starts_with("coordinates outside"));
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].record, "record 2");
}

#[test]
fn degenerate_ring_is_a_problem() {
    let text = r#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {},
        "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [0, 0]]]}}]}"#;
    let (layer, problems) = read_text(text, &ReadOptions::default()).unwrap();
    assert!(layer.features[0].geometry.as_ref().unwrap_err().starts_with("polygon ring with 3 points"));
    assert_eq!(problems.len(), 1);
}

#[test]
fn not_a_feature_collection_or_not_json_is_a_format_error() {
    let feature = r#"{"type": "Feature", "properties": {}, "geometry": null}"#;
    let err = read_text(feature, &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("not a GeoJSON FeatureCollection"), "{err}");
    let err = read_text("{\"type\": \"FeatureCollection\", \"features\": [\n{]}", &ReadOptions::default());
    let err = err.unwrap_err().to_string();
    assert!(err.contains("line 2"), "{err}");
    assert!(matches!(read_text("[1, 2]", &ReadOptions::default()), Err(Error::Format { .. })));
}

#[test]
fn a_position_without_y_is_a_problem_not_a_panic() {
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "MultiLineString",
            "coordinates": [[[-73.5, 42.5], [-73.4]]]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon",
            "coordinates": [[[-73.5, 42.5], [-73.4, 42.5], [-73.4], [-73.5, 42.5]]]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [-73.5, 42.5]}}]}"#;
    let (layer, problems) = read_text(text, &ReadOptions::default()).unwrap();
    for feature in &layer.features[..2] {
        assert_eq!(feature.geometry.as_ref().unwrap_err(), "a position with fewer than 2 coordinates");
    }
    assert!(layer.features[2].geometry.is_ok());
    assert_eq!(problems.len(), 2);
}
