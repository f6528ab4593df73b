use geo::{Area, MultiPolygon, Polygon};

use super::*;
use crate::model::error::Location;

/// A folder of the test's own, removed after it.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("lakeshore-esrijson-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, text: &str) -> std::path::PathBuf {
        let path = self.0.join("layer.json");
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Two parcels as the GeoServices specification draws polygons: the first a 10 × 10 square (clockwise,
/// outer) with a 2 × 2 hole (counter-clockwise), and a second outer square of 1 × 1 beside it in the same
/// feature; the second feature a plain square. Fields in the `fields` array's order, a date among them.
const PARCELS: &str = r#"{
  "displayFieldName": "PRINT_KEY",
  "geometryType": "esriGeometryPolygon",
  "spatialReference": {"wkid": 102716, "latestWkid": 2261},
  "fields": [
    {"name": "OBJECTID", "type": "esriFieldTypeOID", "alias": "OBJECTID"},
    {"name": "PRINT_KEY", "type": "esriFieldTypeString", "alias": "Print key", "length": 20},
    {"name": "SOLD", "type": "esriFieldTypeDate", "alias": "Sold", "length": 8}
  ],
  "features": [
    {"attributes": {"SOLD": 1700006400000, "PRINT_KEY": " 12.34-1-5 ", "OBJECTID": 1},
     "geometry": {"rings": [
        [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]],
        [[20, 0], [20, 1], [21, 1], [21, 0], [20, 0]],
        [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]]}},
    {"attributes": {"OBJECTID": 2, "PRINT_KEY": "12.34-1-6", "SOLD": null},
     "geometry": {"rings": [[[0, 20, 5.0], [0, 30, 5.0], [10, 30, 5.0], [10, 20, 5.0], [0, 20, 5.0]]]}}
  ]
}"#;

#[test]
fn rings_are_told_by_orientation_and_holes_go_to_the_outer_ring_containing_them() {
    let dir = Scratch::new("rings");
    let (layer, problems) = read(&dir.file(PARCELS), &ReadOptions::default()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(layer.crs, Crs::parse("EPSG:2261").unwrap(), "latestWkid first");
    assert_eq!(layer.fields, ["OBJECTID", "PRINT_KEY", "SOLD"]);
    assert_eq!(layer.features.len(), 2);
    let first = &layer.features[0];
    assert_eq!(first.record, 1);
    // 2023-11-15 00:00 UTC is 1,700,006,400 s after 1970.
    assert_eq!(
        first.values,
        [Value::Number(1.0), Value::Text("12.34-1-5".into()), Value::Text("2023-11-15".into())]
    );
    let Ok(Geometry::MultiPolygon(MultiPolygon(polygons))) = &first.geometry else {
        panic!("{:?}", first.geometry)
    };
    assert_eq!(polygons.len(), 2);
    // The square of 100 with its hole of 4, and the square of 1.
    assert_eq!(polygons[0].interiors().len(), 1);
    assert_eq!(polygons[0].unsigned_area(), 96.0);
    assert_eq!(polygons[1].unsigned_area(), 1.0);
    let Ok(Geometry::Polygon(second)) = &layer.features[1].geometry else { panic!() };
    assert_eq!(second.unsigned_area(), 100.0, "z ignored");
    assert_eq!(layer.features[1].values[2], Value::Null);
    assert_eq!(field_list(&parse(&dir.file(PARCELS)).unwrap()), layer.fields);
}

#[test]
fn a_partial_layer_stops_the_read_saying_how_to_page() {
    let dir = Scratch::new("partial");
    let text =
        PARCELS.replacen("\"displayFieldName\"", "\"exceededTransferLimit\": true, \"displayFieldName\"", 1);
    let err = read(&dir.file(&text), &ReadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("a partial layer"), "{err}");
    assert!(err.contains("after 2 features"), "{err}");
    assert!(err.contains("resultOffset") && err.contains("resultRecordCount"), "{err}");
    // false is a whole layer.
    let text =
        PARCELS.replacen("\"displayFieldName\"", "\"exceededTransferLimit\": false, \"displayFieldName\"", 1);
    assert!(read(&dir.file(&text), &ReadOptions::default()).is_ok());
}

#[test]
fn paths_points_and_bad_geometries() {
    let dir = Scratch::new("kinds");
    let text = r#"{"spatialReference": {"wkt": "GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]"},
      "features": [
        {"attributes": {"NAME": "a"}, "geometry": {"paths": [[[1, 2], [3, 4]]]}},
        {"attributes": {"NAME": "b"}, "geometry": {"paths": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}},
        {"attributes": {"NAME": "c"}, "geometry": {"x": 1.5, "y": 2.5}},
        {"attributes": {"NAME": "d"}, "geometry": {"points": [[1, 2], [3, 4]]}},
        {"attributes": {"NAME": "e"}},
        {"attributes": {"NAME": "f"}, "geometry": {"x": "NaN", "y": "NaN"}},
        {"attributes": {"NAME": "g"}, "geometry": {"curveRings": [[[0, 0], {"c": [[2, 0], [1, 1]]}]]}},
        {"attributes": {"NAME": "h"}, "geometry": {"paths": [[[0, 0], {"a": [[2, 0], [1, 0], 0, 1]}]]}},
        {"attributes": {"NAME": "i"}, "geometry": {"rings": "none"}}
      ]}"#;
    let (layer, problems) = read(&dir.file(text), &ReadOptions::default()).unwrap();
    assert_eq!(layer.crs, Crs::wgs84());
    assert_eq!(layer.fields, ["NAME"], "from the first feature without a fields array");
    let kinds: Vec<String> = layer
        .features
        .iter()
        .map(|f| match &f.geometry {
            Ok(Geometry::LineString(_)) => "LineString".to_string(),
            Ok(Geometry::MultiLineString(_)) => "MultiLineString".to_string(),
            Ok(Geometry::Point(_)) => "Point".to_string(),
            Ok(Geometry::MultiPoint(_)) => "MultiPoint".to_string(),
            Ok(other) => panic!("{other:?}"),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "LineString",
            "MultiLineString",
            "Point",
            "MultiPoint",
            "no geometry",
            "non-finite coordinate (NaN or infinity)",
            "unreadable geometry (a true curve (an arc or Bézier segment))",
            "unreadable geometry (a true curve (an arc or Bézier segment))",
            "unreadable geometry (rings is not an array)",
        ]
    );
    assert_eq!(problems.len(), 5, "{problems:?}");
    assert!(problems[2].message.contains("returnTrueCurves=false"), "{}", problems[2].message);
    assert_eq!(problems[2].location, Location::Record(7));
}

#[test]
fn a_spatial_reference_lakeshore_cannot_use_takes_the_assumed_crs_or_says_what_to_do() {
    let dir = Scratch::new("crs");
    let text = r#"{"spatialReference": {"wkid": 999999}, "features": []}"#;
    let err = read(&dir.file(text), &ReadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("wkid 999999") && err.contains("--assume-crs"), "{err}");
    let assumed = ReadOptions { assume_crs: Some(Crs::parse("EPSG:2261").unwrap()), keep: None };
    assert_eq!(read(&dir.file(text), &assumed).unwrap().0.crs, Crs::parse("EPSG:2261").unwrap());
    // Web Mercator under its Esri code.
    let text = r#"{"spatialReference": {"wkid": 102100}, "features": []}"#;
    assert_eq!(
        read(&dir.file(text), &ReadOptions::default()).unwrap().0.crs,
        Crs::parse("EPSG:3857").unwrap()
    );
    let err =
        read(&dir.file(r#"{"spatialReference": {"wkid": 2261}}"#), &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("without a features array"), "{err}");
}

#[test]
fn dates_are_iso_with_the_time_of_day_when_they_have_one() {
    assert_eq!(iso_date(0.0).as_deref(), Some("1970-01-01"));
    assert_eq!(iso_date(86_400_000.0 + 3_600_000.0).as_deref(), Some("1970-01-02T01:00:00"));
    assert_eq!(iso_date(-86_400_000.0).as_deref(), Some("1969-12-31"));
    assert_eq!(iso_date(f64::NAN), None);
    assert_eq!(iso_date(1e300), None);
}

#[test]
fn a_hole_in_no_outer_ring_is_a_polygon_of_its_own_and_a_problem() {
    let dir = Scratch::new("orphan");
    let text = r#"{"spatialReference": {"wkid": 2261}, "features": [{"attributes": {},
        "geometry": {"rings": [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]], [[40, 40], [42, 40], [42, 42], [40, 42], [40, 40]]]}}]}"#;
    let (layer, problems) = read(&dir.file(text), &ReadOptions::default()).unwrap();
    let Ok(Geometry::MultiPolygon(mp)) = &layer.features[0].geometry else { panic!() };
    let areas: Vec<f64> = mp.0.iter().map(Polygon::unsigned_area).collect();
    assert_eq!(areas, [100.0, 4.0]);
    assert_eq!(problems.len(), 1);
    assert!(problems[0].message.starts_with("ring 2 is counter-clockwise"), "{}", problems[0].message);
}
