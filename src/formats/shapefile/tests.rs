use std::collections::HashMap;

use ::shapefile::dbase::{FieldValue, Record, TableWriterBuilder};
use ::shapefile::{PointZ, PolygonRing, Polyline, PolylineM};

use super::test_support::{assumed, name, patch, polygon, square, write_attributes, write_with_ids, TempDir};
use super::*;
use crate::crs::layer::Value;
use crate::crs::CrsDef;

#[test]
fn points_lines_and_z_m_variants_drop_z_and_m() {
    let dir = TempDir::new("points");
    let points = dir.path("systems.shp");
    write_with_ids(&points, &[PointZ::new(1., 2., 3., 4.), PointZ::new(-5., 6.5, 0., 0.)]);
    let (layer, problems) = read(&points, &assumed()).unwrap();
    assert!(problems.is_empty());
    assert_eq!(layer.features[0].geometry, Ok(Point::new(1., 2.).into()));
    assert_eq!(layer.features[1].geometry, Ok(Point::new(-5., 6.5).into()));

    let lines = dir.path("shore.shp");
    let p = ::shapefile::Point::new;
    let single = Polyline::new(vec![p(0., 0.), p(1., 1.)]);
    let double =
        Polyline::with_parts(vec![vec![p(0., 0.), p(1., 0.)], vec![p(2., 2.), p(3., 3.), p(4., 2.)]]);
    write_with_ids(&lines, &[single, double]);
    let (layer, _) = read(&lines, &assumed()).unwrap();
    assert_eq!(layer.features[0].geometry, Ok(LineString::from(vec![(0., 0.), (1., 1.)]).into()));
    let expected = MultiLineString(vec![
        LineString::from(vec![(0., 0.), (1., 0.)]),
        LineString::from(vec![(2., 2.), (3., 3.), (4., 2.)]),
    ]);
    assert_eq!(layer.features[1].geometry, Ok(expected.into()));

    let measured = dir.path("measured.shp");
    let pm = ::shapefile::PointM::new;
    write_with_ids(&measured, &[PolylineM::new(vec![pm(7., 8., 100.), pm(9., 10., 200.)])]);
    let (layer, _) = read(&measured, &assumed()).unwrap();
    assert_eq!(layer.features[0].geometry, Ok(LineString::from(vec![(7., 8.), (9., 10.)]).into()));
}

#[test]
fn null_shape_keeps_its_record_with_a_geometry_error() {
    let dir = TempDir::new("null");
    let shp = dir.path("systems.shp");
    write_with_ids(&shp, &[::shapefile::Point::new(1., 2.), ::shapefile::Point::new(3., 4.)]);
    // Record 2's shape type: 100-byte header, record 1 (8 + 20 bytes), record 2's 8-byte header.
    patch(&shp, 136, &0i32.to_le_bytes());
    let (layer, problems) = read(&shp, &assumed()).unwrap();
    assert_eq!(layer.features.len(), 2);
    assert_eq!(layer.features[0].geometry, Ok(Point::new(1., 2.).into()));
    assert_eq!(layer.features[1].geometry, Err(GeometryError::NullShape));
    assert_eq!(layer.features[1].values, vec![Value::Number(2.0)]);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].location, Location::Record(2));
}

#[test]
fn degenerate_ring_is_a_problem_not_a_panic() {
    let dir = TempDir::new("degenerate");
    let shp = dir.path("parcels.shp");
    let p = ::shapefile::Point::new;
    let sliver = polygon(vec![PolygonRing::Outer(vec![p(0., 0.), p(1., 1.), p(0., 0.)])]);
    write_with_ids(&shp, &[sliver, polygon(vec![PolygonRing::Outer(square(0., 0., 1.))])]);
    let (layer, problems) = read(&shp, &assumed()).unwrap();
    assert_eq!(layer.features[0].geometry, Err(GeometryError::ShortRing { points: 3 }));
    assert!(layer.features[1].geometry.is_ok());
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].location, Location::Record(1));
    assert!(problems[0].message.contains("redraw the polygon"), "{}", problems[0].message);
}

#[test]
fn keep_selects_fields_without_regard_to_case() {
    let dir = TempDir::new("keep");
    let shp = dir.path("systems.shp");
    write_attributes(&shp);
    let options = ReadOptions { keep: Some(vec!["built".into(), "Name".into()]), ..assumed() };
    let (layer, _) = read(&shp, &options).unwrap();
    assert_eq!(layer.fields, vec!["NAME", "BUILT"]);
    assert_eq!(
        layer.features[0].values,
        vec![Value::Text("Lake House".into()), Value::Text("1987-06-05".into())]
    );
    assert_eq!(layer.features[1].values, vec![Value::Null, Value::Null]);

    let options = ReadOptions { keep: Some(vec!["PIN".into()]), ..assumed() };
    let err = read(&shp, &options).unwrap_err();
    assert!(matches!(err, Error::Format { .. }));
    assert!(err.to_string().contains("fields found: NAME, ACRES, SEPTIC, BUILT, DEPTH, NOTE"), "{err}");
}

#[test]
fn missing_prj_is_a_crs_error_unless_a_crs_is_assumed() {
    let dir = TempDir::new("prj");
    let shp = dir.path("parcels.shp");
    write_with_ids(&shp, &[::shapefile::Point::new(1., 2.)]);
    let err = read(&shp, &ReadOptions::default()).unwrap_err();
    assert!(matches!(&err, Error::Crs { path, .. } if path == &shp), "{err:?}");
    assert!(err.to_string().contains("add a .prj next to it or pass --assume-crs EPSG:nnnn"), "{err}");
    let (layer, _) = read(&shp, &assumed()).unwrap();
    assert_eq!(layer.crs, Crs { def: CrsDef::Epsg(2261) });
}

#[test]
fn prj_text_is_read_without_bom_or_trailing_newline() {
    let dir = TempDir::new("prjtext");
    let shp = dir.path("parcels.shp");
    assert!(read_prj(&files::Files::Disk(shp.clone())).unwrap().is_none());
    std::fs::write(dir.path("parcels.prj"), "\u{feff}PROJCS[\"NAD83 / New York Central (ftUS)\"]\r\n")
        .unwrap();
    let (path, text) = read_prj(&files::Files::Disk(shp.clone())).unwrap().unwrap();
    assert_eq!(path, dir.path("parcels.prj"));
    assert_eq!(text, "PROJCS[\"NAD83 / New York Central (ftUS)\"]");
}

#[test]
fn record_counts_out_of_step_is_a_format_error_naming_both_files() {
    let dir = TempDir::new("count");
    let shp = dir.path("parcels.shp");
    write_with_ids(&shp, &[::shapefile::Point::new(1., 2.), ::shapefile::Point::new(3., 4.)]);
    let dbf = dir.path("parcels.dbf");
    let mut table =
        TableWriterBuilder::new().add_numeric_field(name("ID"), 10, 0).build_with_file_dest(&dbf).unwrap();
    table
        .write_record(&Record::from(HashMap::from([("ID".to_string(), FieldValue::Numeric(Some(1.0)))])))
        .unwrap();
    drop(table);
    let err = read(&shp, &assumed()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Format { .. }));
    assert!(text.contains("parcels.dbf has 1 records but"), "{text}");
    assert!(text.contains("parcels.shx has 2"), "{text}");
}

#[test]
fn an_unreadable_dbf_header_keeps_the_dbase_error() {
    let dir = TempDir::new("bad-field");
    let shp = dir.path("parcels.shp");
    write_with_ids(&shp, &[::shapefile::Point::new(1., 2.)]);
    // The first field descriptor starts at byte 32; its type letter is byte 11 of it.
    let dbf = dir.path("parcels.dbf");
    let mut bytes = std::fs::read(&dbf).unwrap();
    bytes[32 + 11] = b'!';
    std::fs::write(&dbf, bytes).unwrap();
    let err = read(&shp, &assumed()).unwrap_err();
    assert!(matches!(&err, Error::Dbase { path, .. } if *path == dbf), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&format!("{}: not a readable dBase table (", dbf.display())), "{text}");
    let source = std::error::Error::source(&err)
        .and_then(|s| s.downcast_ref::<::shapefile::dbase::Error>())
        .expect("the dbase error");
    assert!(matches!(source.kind(), ::shapefile::dbase::ErrorKind::InvalidFieldType('!')), "{source:?}");
}

#[test]
fn missing_sibling_files_are_named() {
    let dir = TempDir::new("missing");
    let shp = dir.path("parcels.shp");
    write_with_ids(&shp, &[::shapefile::Point::new(1., 2.)]);
    std::fs::rename(dir.path("parcels.dbf"), dir.path("parcels.DBF")).unwrap();
    assert_eq!(read(&shp, &assumed()).unwrap().0.features.len(), 1, "upper-case extension found");
    std::fs::remove_file(dir.path("parcels.DBF")).unwrap();
    let err = read(&shp, &assumed()).unwrap_err();
    assert!(matches!(&err, Error::Format { path, .. } if path == &dir.path("parcels.dbf")), "{err:?}");
    assert!(err.to_string().contains("attribute table (.dbf)"), "{err}");
    std::fs::remove_file(dir.path("parcels.shx")).unwrap();
    let err = read(&shp, &assumed()).unwrap_err();
    assert!(matches!(&err, Error::Format { path, .. } if path == &dir.path("parcels.shx")), "{err:?}");
    let err = read(&dir.path("nothing.shp"), &assumed()).unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path == &dir.path("nothing.shp")), "{err:?}");
}

#[test]
fn a_shx_out_of_step_with_its_shp_is_told_record_by_record_and_for_the_whole_file() {
    let dir = TempDir::new("shx-step");
    let shp = dir.path("parcels.shp");
    let points = [(1., 2.), (3., 4.), (5., 6.)].map(|(x, y)| ::shapefile::Point::new(x, y));
    write_with_ids(&shp, &points);
    // A point record is 8 + 20 bytes, so the .shp is 100 + 3 × 28 = 184 bytes; the .shx entries (8 bytes
    // each from byte 100) of records 1 and 2 swapped point each at the other's record, of the same length.
    let shx = std::fs::read(dir.path("parcels.shx")).unwrap();
    patch(&dir.path("parcels.shx"), 100, &shx[108..116]);
    patch(&dir.path("parcels.shx"), 108, &shx[100..108]);
    let (layer, problems) = read(&shp, &assumed()).unwrap();
    for (i, other) in [(0, 2), (1, 1)] {
        let err = layer.features[i].geometry.as_ref().unwrap_err().to_string();
        assert!(err.contains(&format!("points to the .shp's record {other} for it")), "{err}");
    }
    assert!(layer.features[2].geometry.is_ok());
    assert_eq!(problems.len(), 2, "{problems:?}");

    // The .shx as written, and a record the .shx does not list after the last it does.
    std::fs::write(dir.path("parcels.shx"), &shx).unwrap();
    let mut data = std::fs::read(&shp).unwrap();
    assert_eq!(data.len(), 184);
    data.extend_from_within(156..184);
    std::fs::write(&shp, &data).unwrap();
    let (layer, problems) = read(&shp, &assumed()).unwrap();
    assert!(layer.features.iter().all(|f| f.geometry.is_ok()));
    let told: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("has 28 bytes after the last of the 3 records its .shx lists"), "{told:?}");

    // The length in the header (16-bit words at byte 24) that is not the file's: 184 bytes are 92 words.
    data.truncate(184);
    std::fs::write(&shp, &data).unwrap();
    patch(&shp, 24, &93i32.to_be_bytes());
    let (_, problems) = read(&shp, &assumed()).unwrap();
    let told: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert!(told.len() == 1 && told[0].contains("gives its length as 186 bytes but it has 184"), "{told:?}");

    // A writer that numbers every record 0 (as USGS StreamStats does) says nothing by its numbers: read as
    // written, the .shx's order trusted.
    patch(&shp, 24, &92i32.to_be_bytes());
    for offset in [100, 128, 156] {
        patch(&shp, offset, &0i32.to_be_bytes());
    }
    let (layer, problems) = read(&shp, &assumed()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(layer.features[1].geometry.as_ref().unwrap(), &Geometry::Point(geo::Point::new(3., 4.)));
}
