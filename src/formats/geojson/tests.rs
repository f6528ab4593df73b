//! Tests of the GeoJSON reader: whole documents, each read a block at a time with blocks of many sizes (down
//! to one byte, so that every boundary falls inside every kind of token) that must all agree.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use geo::{Geometry, Point, Polygon};

use super::*;
use crate::model::error::Location;

/// A GeoJSON file under the system temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(text: &str) -> Self {
        Self::bytes(text.as_bytes())
    }

    fn bytes(bytes: &[u8]) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = crate::scratch::root().join(format!("geojson-{n}.geojson"));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Block sizes small enough to split every token, and the real one.
const BLOCKS: [usize; 5] = [1, 2, 7, 64, stream::READ_BYTES];

/// Reads `text` with each of `blocks`; all must give the same layer and problems, or the same error. So must
/// the layer read in blocks of features ([`streamed`]), a few features at a time.
fn read_in(text: &[u8], options: &ReadOptions, blocks: &[usize]) -> Result<(Layer, Vec<Problem>)> {
    let file = TempFile::bytes(text);
    let show = |result: &Result<(Layer, Vec<Problem>)>| match result {
        Ok((layer, problems)) => {
            format!("{:?} {:?} {:?} {problems:?}", layer.crs, layer.fields, layer.features)
        }
        Err(e) => format!("error: {e}"),
    };
    let mut results = blocks.iter().map(|&block| (block, read_in_blocks(&file.0, options, block)));
    let (_, first) = results.next().unwrap();
    for (block, result) in results {
        assert_eq!(show(&result), show(&first), "read {block} bytes at a time");
    }
    for &block in blocks {
        for count in [1, 3, 1000] {
            let result = streamed(&file.0, options, block, count);
            assert_eq!(show(&result), show(&first), "read {block} bytes and {count} features at a time");
        }
    }
    first
}

/// The layer at `path` read as [`Blocks`] do, `block` bytes and `count` features at a time, after a scan of
/// every field and one of the last field alone, which must find the values the blocks hold.
fn streamed(path: &Path, options: &ReadOptions, block: usize, count: usize) -> Result<(Layer, Vec<Problem>)> {
    let mut blocks = Blocks::open_in_blocks(path, options, block)?;
    let (crs, fields) = (blocks.crs.clone(), blocks.fields.clone());
    let every: Vec<usize> = (0..fields.len()).collect();
    let mut scanned = Vec::new();
    blocks.scan(&every, &mut |record, values| scanned.push((record, values)))?;
    let last: Vec<usize> = every.last().copied().into_iter().collect();
    let mut scanned_last = Vec::new();
    blocks.scan(&last, &mut |record, values| scanned_last.push((record, values)))?;
    let (mut features, mut problems) = (Vec::new(), Vec::new());
    loop {
        let (block, more) = blocks.next_block(count)?;
        assert!(block.len() <= count, "a block of {} features, not {count}", block.len());
        if block.is_empty() {
            assert!(more.is_empty());
            break;
        }
        features.extend(block);
        problems.extend(more);
    }
    assert_eq!(blocks.len(), features.len());
    let held: Vec<(usize, Vec<Value>)> = features.iter().map(|f| (f.record, f.values.clone())).collect();
    assert_eq!(scanned, held, "the scan of every field");
    let held_last: Vec<(usize, Vec<Value>)> =
        features.iter().map(|f| (f.record, last.iter().map(|&c| f.values[c].clone()).collect())).collect();
    assert_eq!(scanned_last, held_last, "the scan of the last field");
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

fn read_text(text: &str, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    read_in(text.as_bytes(), options, &BLOCKS)
}

/// The error message of reading `text`, which must fail.
fn error_of(text: &str) -> String {
    read_text(text, &ReadOptions::default()).map(|_| ()).unwrap_err().to_string()
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
    assert_eq!(layer.features[1].geometry, Err(GeometryError::NoGeometry));
    let triangle =
        Polygon::new(vec![(-73.9, 42.1), (-73.9, 42.2), (-73.8, 42.2), (-73.9, 42.1)].into(), vec![]);
    assert_eq!(layer.features[2].geometry, Ok(triangle.into()));
    assert!(matches!(layer.features[3].geometry, Err(GeometryError::UnreadableGeoJson(_))));

    let records: Vec<&Location> = problems.iter().map(|p| &p.location).collect();
    assert_eq!(records, [&Location::Record(2), &Location::Record(4)]);
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

/// A feature may leave out a property the others have (an exporter that drops nulls): the field names are
/// those of every feature, in the order they first appear, not the first feature's alone.
#[test]
fn field_names_are_every_features_not_the_first_alone() {
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"Z": 1, "A": 2}, "geometry": null},
        {"type": "Feature", "properties": {"A": 3, "OWNER": "Ames"}, "geometry": null}]}"#;
    let file = TempFile::new(text);
    for block in BLOCKS {
        for whole in [false, true] {
            let names = field_names_in_blocks(&file.0, block, whole).unwrap();
            if whole || block >= text.len() {
                assert_eq!(names, ["Z", "A", "OWNER"], "block {block}");
            } else {
                assert_eq!(&names[..2], ["Z", "A"], "block {block}");
            }
        }
    }
    let broken = TempFile::new(&text.replace("\"OWNER\"", "\"OWNER"));
    let err = field_names_in_blocks(&broken.0, 1 << 20, true).unwrap_err();
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
    assert!(matches!(layer.features[1].geometry, Err(GeometryError::OutsideLonLat { .. })));
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].location, Location::Record(2));
}

#[test]
fn degenerate_ring_is_a_problem() {
    let text = r#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {},
        "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [0, 0]]]}}]}"#;
    let (layer, problems) = read_text(text, &ReadOptions::default()).unwrap();
    assert_eq!(layer.features[0].geometry, Err(GeometryError::ShortRing { points: 3 }));
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
        assert_eq!(feature.geometry, Err(GeometryError::ShortPosition));
    }
    assert!(layer.features[2].geometry.is_ok());
    assert_eq!(problems.len(), 2);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let (plain, _) = read_text(COLLECTION, &ReadOptions::default()).unwrap();
    let (marked, _) = read_text(&format!("\u{feff}{COLLECTION}"), &ReadOptions::default()).unwrap();
    assert_eq!(format!("{:?}", marked.features), format!("{:?}", plain.features));
    assert!(error_of("\u{feff}").contains("EOF while parsing a value at line 1"));
}

#[test]
fn a_cut_file_is_an_error_saying_where_it_ends() {
    let cut_after = |marker: &str| {
        let end = COLLECTION.find(marker).unwrap() + marker.len();
        error_of(&COLLECTION[..end])
    };
    let cases = [
        (r#""PIN": " 12"#, "EOF while parsing a string at line 5"),
        (r#""ACRES": 1."#, "EOF while parsing a value at line 5"),
        ("42.5]}},\n", "EOF while parsing a list at line 7 column 1"),
        ("\"features\": [", "EOF while parsing a list at line 4"),
        ("  ]\n", "EOF while parsing an object at line 13 column 1"),
    ];
    for (marker, says) in cases {
        let message = cut_after(marker);
        assert!(message.contains(says), "cut after {marker:?}: {message}");
        assert!(message.ends_with("correct the file or re-export it"), "{message}");
    }
    assert!(error_of("").contains("EOF while parsing a value at line 1 column 1"));
}

#[test]
fn an_unterminated_string_is_found_where_the_json_goes_wrong() {
    // The quote that should have closed "Owasco" is missing; the next quote closes it instead, so the fault is
    // the `geometry` after it, not the end of the file.
    let text = r#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"NAME": "Owasco}, "geometry": null}]}"#;
    assert!(error_of(text).contains("(expected `,` or `}` at line 1 column 98)"), "{}", error_of(text));
    let text =
        r#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"NAME": "Owasco"#;
    assert!(error_of(text).contains("EOF while parsing a string"), "{}", error_of(text));
}

#[test]
fn huge_numbers_are_an_error_where_they_are_read() {
    let collection =
        |feature: &str| format!("{{\"type\": \"FeatureCollection\", \"features\": [\n{feature}]}}");
    let point = r#"{"type": "Feature", "id": 1e400, "properties": {"A": 1}, "geometry": {"type": "Point", "coordinates": [1e400, 0]}}"#;
    let message = error_of(&collection(point));
    assert!(message.contains("(number out of range at line 2 column 104)"), "{message}");
    let property = r#"{"type": "Feature", "properties": {"A": -1e999}, "geometry": null}"#;
    assert!(error_of(&collection(property)).contains("number out of range"));
    // A number nothing reads (here a foreign member) is only checked for syntax, as it always was.
    let ignored = r#"{"type": "Feature", "id": 1e400, "properties": {"A": 1}, "geometry": null}"#;
    let (layer, _) = read_text(&collection(ignored), &ReadOptions::default()).unwrap();
    assert_eq!(layer.features[0].values, vec![Value::Number(1.0)]);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let nested = |n: usize| "[".repeat(n) + "1" + &"]".repeat(n);
    let feature = |value: &str| {
        format!(
            r#"{{"type": "FeatureCollection", "features": [{{"type": "Feature", "properties": {{"A": {value}}}, "geometry": null}}]}}"#
        )
    };
    // Four levels are open around a property's value: the document, the array, the feature, the properties.
    let (layer, _) = read_text(&feature(&nested(124)), &ReadOptions::default()).unwrap();
    assert_eq!(layer.features[0].values, vec![Value::Text(nested(124).into())]);
    let message = error_of(&feature(&nested(125)));
    assert!(message.contains("nesting deeper than 128 arrays and objects"), "{message}");
    // A million open brackets are given up at the 127th inside the feature.
    let text = format!(r#"{{"type": "FeatureCollection", "features": [{}"#, "[".repeat(1_000_000));
    let file = TempFile::new(&text);
    let message = read(&file.0, &ReadOptions::default()).unwrap_err().to_string();
    assert!(message.contains("nesting deeper than 128 arrays and objects at line 1 column 170"), "{message}");
}

#[test]
fn properties_keep_the_last_of_a_repeated_name() {
    let text = r#"{"type": "FeatureCollection", "features": [
      {"type": "Feature", "geometry": null,
       "properties": {"P\u0049N": "a", "PIN": "b", "JSON": {"b": 1.50, "a": [true, null, "x\"y"]}, "E": "  ",
                      "N": -0.0, "T": false}},
      {"type": "Feature", "geometry": null, "properties": {"PIN": "c"}, "properties": {"E": "d"}},
      {"type": "Feature", "geometry": null}]}"#;
    let (layer, _) = read_text(text, &ReadOptions::default()).unwrap();
    assert_eq!(layer.fields, vec!["PIN", "JSON", "E", "N", "T"]);
    let text_value = |s: &str| Value::Text(s.into());
    let values: Vec<&Vec<Value>> = layer.features.iter().map(|f| &f.values).collect();
    assert_eq!(
        values[0],
        &vec![
            text_value("b"),
            text_value(r#"{"a":[true,null,"x\"y"],"b":1.5}"#),
            Value::Null,
            Value::Number(-0.0),
            Value::Bool(false)
        ]
    );
    assert_eq!(values[1], &vec![text_value("c"), Value::Null, text_value("d"), Value::Null, Value::Null]);
    assert_eq!(values[2], &vec![Value::Null; 5]);
}

#[test]
fn what_is_not_a_feature_collection_is_an_error() {
    let cases = [
        (
            r#"{"type": "FeatureCollection", "features": {}}"#,
            "expected an array of GeoJSON Features at line 1 column 43",
        ),
        (
            r#"{"type": "FeatureCollection", "features": [1]}"#,
            "expected a GeoJSON Feature object at line 1 column 44",
        ),
        (
            r#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": 5}]}"#,
            "expected a properties object or null at line 1 column 78",
        ),
        (r#"{"type": "FeatureCollection", "features": []} x"#, "trailing characters at line 1 column 47"),
        (r#"{"type": "FeatureCollection", "features": [],}"#, "trailing comma at line 1 column 46"),
        (r#"{"type": "FeatureCollection", "features": [{}{}]}"#, "expected `,` or `]` at line 1 column 46"),
        (r#"{"type": "FeatureCollection", "features": [{},]}"#, "trailing comma at line 1 column 47"),
        (r#"{"type": "FeatureCollection" "features": []}"#, "expected `,` or `}` at line 1 column 30"),
        (
            r#"[{"type": "FeatureCollection"}]"#,
            "expected a GeoJSON FeatureCollection object at line 1 column 1",
        ),
    ];
    for (text, says) in cases {
        let message = error_of(text);
        assert!(message.contains(says), "{text}: {message}");
    }
}

#[test]
fn features_of_every_features_member_are_read_in_order() {
    let text = r#"{"features": [{"type": "Feature", "properties": {"A": 1}, "geometry": null}],
        "type": "FeatureCollection",
        "features": [{"properties": {"A": 2}, "geometry": null}, {"type": "Feature", "properties": {"A": 3},
                      "geometry": {"type": "Point", "coordinates": [1, 2]}}]}"#;
    let (layer, problems) = read_text(text, &ReadOptions::default()).unwrap();
    let records: Vec<(usize, &Vec<Value>)> = layer.features.iter().map(|f| (f.record, &f.values)).collect();
    let n = |x: f64| vec![Value::Number(x)];
    assert_eq!(records, vec![(1, &n(1.0)), (2, &n(2.0)), (3, &n(3.0))]);
    assert_eq!(layer.features[1].geometry, Err(GeometryError::NotAFeature));
    let messages: Vec<(String, &str)> =
        problems.iter().map(|p| (p.location.to_string(), p.message.as_str())).collect();
    assert_eq!(
        messages,
        vec![
            ("record 1".to_string(), "no geometry: add one or delete the feature"),
            ("record 2".to_string(), "not a GeoJSON Feature (its type is not \"Feature\"): correct the feature's geometry or delete the feature")
        ]
    );
}

#[test]
fn thousands_of_features_across_many_blocks_keep_their_order() {
    let mut text = String::from(
        r#"{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "EPSG:2261"}}, "features": ["#,
    );
    for i in 0..3000 {
        let geometry = if i % 7 == 3 {
            "null".to_string()
        } else {
            format!(r#"{{"type": "Point", "coordinates": [{i}, {}]}}"#, -(i as f64) / 2.0)
        };
        let sep = if i == 0 { "" } else { "," };
        text.push_str(&format!(
            "{sep}\n {{\"type\": \"Feature\", \"properties\": {{\"N\": {i}, \"NAME\": \"parcel {i}\"}}, \"geometry\": {geometry}}}"
        ));
    }
    text.push_str("]}");
    // One polygon larger than a block of 64 KiB.
    let ring: Vec<String> =
        (0..20_000).map(|k| format!("[{k}.5, 0.25]")).chain(["[0.5, 0.25]".into()]).collect();
    text.insert_str(
        text.len() - 2,
        &format!(r#", {{"type": "Feature", "properties": null, "geometry": {{"type": "LineString", "coordinates": [{}]}}}}"#, ring.join(",")),
    );
    let (layer, problems) =
        read_in(text.as_bytes(), &ReadOptions::default(), &[64, 4096, 1 << 16, stream::READ_BYTES]).unwrap();
    assert_eq!(layer.features.len(), 3001);
    for (i, feature) in layer.features[..3000].iter().enumerate() {
        assert_eq!(feature.record, i + 1);
        assert_eq!(feature.values, vec![Value::Number(i as f64), Value::Text(format!("parcel {i}").into())]);
        match i % 7 {
            3 => assert_eq!(feature.geometry, Err(GeometryError::NoGeometry)),
            _ => assert_eq!(feature.geometry, Ok(Point::new(i as f64, -(i as f64) / 2.0).into())),
        }
    }
    let Ok(Geometry::LineString(line)) = &layer.features[3000].geometry else { panic!("not a line") };
    assert_eq!((line.0.len(), line.0[19_999].x, line.0[20_000].x), (20_001, 19_999.5, 0.5));
    assert_eq!(problems.len(), (0..3000).filter(|i| i % 7 == 3).count());
}

#[test]
fn a_crs_member_after_the_features_is_known_before_the_first_block() {
    let text = r#"{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"PIN": "1"}, "geometry": {"type": "Point", "coordinates": [612000.5, 1120000]}},
        {"type": "Feature", "properties": {"PIN": "2"}, "geometry": null}],
      "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2261"}}}"#;
    let (layer, problems) = read_text(text, &ReadOptions::default()).unwrap();
    assert_eq!(layer.crs, Crs { def: CrsDef::Epsg(2261) });
    assert_eq!(problems.len(), 1);
    let file = TempFile::new(text);
    let mut blocks = Blocks::open(&file.0, &ReadOptions::default()).unwrap();
    assert_eq!((&blocks.crs, blocks.len()), (&Crs { def: CrsDef::Epsg(2261) }, 2));
    let (features, _) = blocks.next_block(1).unwrap();
    assert!(features[0].geometry.is_ok());
}

#[test]
fn a_wgs84_layer_is_checked_past_features_without_a_usable_geometry() {
    let collection = |last: &str| {
        format!(
            r#"{{"type": "FeatureCollection", "features": [
            {{"type": "Feature", "properties": {{}}, "geometry": null}},
            {{"type": "Feature", "properties": {{}}, "geometry": {{"type": "Point", "coordinates": [612000.5, 1120000]}}}},
            {{"type": "Feature", "properties": {{}}, "geometry": {{"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [0, 0]]]}}}},
            {{"type": "Feature", "properties": {{}}, "geometry": {{"type": "Point", "coordinates": {last}}}}}]}}"#
        )
    };
    // One feature within range, the last: the stray one is a problem.
    let (layer, problems) = read_text(&collection("[-73.5, 42.5]"), &ReadOptions::default()).unwrap();
    assert!(matches!(layer.features[1].geometry, Err(GeometryError::OutsideLonLat { .. })));
    assert!(layer.features[3].geometry.is_ok());
    assert_eq!(problems.len(), 3);
    // None within range: the layer is in a CRS it does not name.
    let message = error_of(&collection("[612000.5, 1120001]"));
    assert!(message.contains("not longitude/latitude (record 2 spans x 612000.5..612000.5"), "{message}");
}

#[test]
fn a_file_changed_between_passes_is_an_error_not_a_wrong_layer() {
    let feature = r#"{"type": "Feature", "properties": {"PIN": "1"}, "geometry": null}"#;
    let file = TempFile::new(&format!(r#"{{"type": "FeatureCollection", "features": [{feature}]}}"#));
    let blocks = Blocks::open(&file.0, &ReadOptions::default()).unwrap();
    std::fs::write(
        &file.0,
        format!(r#"{{"type": "FeatureCollection", "features": [{feature}, {feature}]}}"#),
    )
    .unwrap();
    let err = blocks.scan(&[0], &mut |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("the file changed while it was being read"), "{err}");
    let mut blocks = blocks;
    let err = blocks.next_block(10).unwrap_err();
    assert!(err.to_string().contains("the file changed while it was being read"), "{err}");
}

#[test]
fn a_million_open_brackets_stop_the_opening_of_blocks_where_they_stop_a_whole_read() {
    let text = format!(r#"{{"type": "FeatureCollection", "features": [{}"#, "[".repeat(1_000_000));
    let file = TempFile::new(&text);
    let whole = read(&file.0, &ReadOptions::default()).unwrap_err().to_string();
    let blocks = Blocks::open(&file.0, &ReadOptions::default()).err().unwrap().to_string();
    assert_eq!(blocks, whole);
}
