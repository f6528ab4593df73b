//! GeoPackage and GeoParquet layers, and `--format gpkg`.
//!
//! The sample county is converted here, layer by layer, into one GeoPackage (and its parcels into a
//! GeoParquet file) by code of this test: SQLite through rusqlite and WKB built by hand, some of it big-endian
//! and some blobs without an envelope, so lakeshore's reader is checked against a writer that is not its
//! own. Scheduling the converted county must give the very same `schedule.csv`. The `schedule.gpkg` lakeshore
//! writes is opened with the `sqlite3` tool (or Python's sqlite3 module), which know nothing of lakeshore.

use std::path::{Path, PathBuf};
use std::process::Command;

use geo::{Geometry, LineString, Polygon};
use lakeshore::crs::layer::{Layer, Value};
use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::model::error::Location;
use lakeshore::pipeline::config::ConfigFile;
use rusqlite::Connection;

use crate::common;

const AS_OF: &str = "2027-01-15";
const LAYERS: [&str; 9] = [
    "parcels",
    "shoreline",
    "watershed",
    "floodplain",
    "towns",
    "systems",
    "sewered",
    "county",
    "watercourses",
];

fn sample_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml")
}

/// WKB in either byte order, written from the OGC simple-features layout.
struct Wkb {
    out: Vec<u8>,
    big: bool,
}

impl Wkb {
    fn u32(&mut self, n: usize) {
        let n = n as u32;
        self.out.extend_from_slice(&if self.big { n.to_be_bytes() } else { n.to_le_bytes() });
    }
    fn f64(&mut self, v: f64) {
        self.out.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    fn header(&mut self, kind: usize) {
        self.out.push(if self.big { 0 } else { 1 });
        self.u32(kind);
    }
    fn points(&mut self, line: &LineString<f64>) {
        self.u32(line.0.len());
        for c in &line.0 {
            self.f64(c.x);
            self.f64(c.y);
        }
    }
    fn polygon(&mut self, p: &Polygon<f64>) {
        self.header(3);
        self.u32(1 + p.interiors().len());
        self.points(p.exterior());
        p.interiors().iter().for_each(|r| self.points(r));
    }
    fn geometry(&mut self, g: &Geometry<f64>) {
        match g {
            Geometry::Point(p) => {
                self.header(1);
                self.f64(p.x());
                self.f64(p.y());
            }
            Geometry::LineString(l) => {
                self.header(2);
                self.points(l);
            }
            Geometry::Polygon(p) => self.polygon(p),
            Geometry::MultiPoint(mp) => {
                self.header(4);
                self.u32(mp.0.len());
                mp.0.iter().for_each(|p| self.geometry(&Geometry::Point(*p)));
            }
            Geometry::MultiLineString(ml) => {
                self.header(5);
                self.u32(ml.0.len());
                ml.0.iter().for_each(|l| self.geometry(&Geometry::LineString(l.clone())));
            }
            Geometry::MultiPolygon(mp) => {
                self.header(6);
                self.u32(mp.0.len());
                mp.0.iter().for_each(|p| self.polygon(p));
            }
            other => panic!("the sample has no {other:?}"),
        }
    }
}

fn wkb(g: &Geometry<f64>, big: bool) -> Vec<u8> {
    let mut w = Wkb { out: Vec::new(), big };
    w.geometry(g);
    w.out
}

/// A GeoPackage blob: `GP`, version 0, flags (byte order; envelope kind 1 with the envelope, or 0), srs_id.
fn blob(g: &Geometry<f64>, srs_id: i32, record: usize) -> Vec<u8> {
    use geo::BoundingRect;
    let big = record % 2 == 0;
    let with_envelope = record % 3 != 0;
    let mut out = b"GP\0".to_vec();
    out.push(u8::from(!big) | if with_envelope { 0b10 } else { 0 });
    out.extend_from_slice(&if big { srs_id.to_be_bytes() } else { srs_id.to_le_bytes() });
    if with_envelope {
        let r = g.bounding_rect().unwrap();
        for v in [r.min().x, r.max().x, r.min().y, r.max().y] {
            out.extend_from_slice(&if big { v.to_be_bytes() } else { v.to_le_bytes() });
        }
    }
    out.extend_from_slice(&wkb(g, big));
    out
}

/// The minimum GeoPackage tables.
pub(crate) fn new_geopackage(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA application_id = 1196444487;
         CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
           organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
           description TEXT);
         CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
           identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE,
           min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
         CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
           geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);",
    )
    .unwrap();
    conn
}

/// Adds `layer` as table `name`: the CRS by EPSG code when it has one, else its WKT under an own srs_id;
/// `fid` is the record number; columns typed from their values.
pub(crate) fn add_layer(conn: &Connection, name: &str, layer: &Layer, srs_id: i32) {
    if let Some(code) = layer.crs.epsg() {
        assert_eq!(code as i32, srs_id);
    }
    let (org, definition) = match layer.crs.epsg() {
        Some(_) => ("EPSG", "see EPSG".to_string()),
        None => ("NONE", layer.crs.to_string()),
    };
    conn.execute(
        "INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES (?1, ?2, ?3, ?2, ?4, NULL)",
        rusqlite::params![format!("srs of {name}"), srs_id, org, definition],
    )
    .unwrap();
    let kinds: Vec<&str> = (0..layer.fields.len())
        .map(|i| {
            let values = || layer.features.iter().map(|f| &f.values[i]).filter(|v| **v != Value::Null);
            if values().all(|v| matches!(v, Value::Number(_))) {
                "REAL"
            } else {
                "TEXT"
            }
        })
        .collect();
    let columns: Vec<String> = layer.fields.iter().zip(&kinds).map(|(f, k)| format!("\"{f}\" {k}")).collect();
    conn.execute_batch(&format!(
        "CREATE TABLE \"{name}\" (fid INTEGER PRIMARY KEY, shape GEOMETRY, {});",
        columns.join(", ")
    ))
    .unwrap();
    conn.execute(
        "INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES (?1, 'features', ?2)",
        rusqlite::params![name, srs_id],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO gpkg_geometry_columns VALUES (?1, 'shape', 'GEOMETRY', ?2, 0, 0)",
        rusqlite::params![name, srs_id],
    )
    .unwrap();
    let marks: Vec<String> = (0..layer.fields.len() + 2).map(|i| format!("?{}", i + 1)).collect();
    let mut insert = conn.prepare(&format!("INSERT INTO \"{name}\" VALUES ({})", marks.join(", "))).unwrap();
    for f in &layer.features {
        use rusqlite::types::Value as Sql;
        let mut row = vec![Sql::Integer(f.record as i64)];
        row.push(match &f.geometry {
            Ok(g) => Sql::Blob(blob(g, srs_id, f.record)),
            Err(_) => Sql::Null,
        });
        row.extend(f.values.iter().map(|v| match v {
            Value::Null => Sql::Null,
            Value::Text(t) => Sql::Text(t.to_string()),
            Value::Number(n) => Sql::Real(*n),
            Value::Bool(b) => Sql::Integer(i64::from(*b)),
        }));
        insert.execute(rusqlite::params_from_iter(row)).unwrap();
    }
}

/// The sample county's config with every layer in one GeoPackage, written in `dir` (`county.toml` and
/// `county.gpkg`; the record files stay the sample's).
pub(crate) fn sample_as_geopackage(dir: &Path) -> PathBuf {
    let sample = ConfigFile::load(&sample_config()).unwrap();
    let gpkg = dir.join("county.gpkg");
    let conn = new_geopackage(&gpkg);
    let mut toml = String::from("crs = \"EPSG:2261\"\nborder_tolerance_ft = 10.0\n[layers]\n");
    for (i, name) in LAYERS.iter().enumerate() {
        let path = match *name {
            "parcels" => &sample.layers.parcels,
            "shoreline" => &sample.layers.shoreline,
            "watershed" => &sample.layers.watershed,
            "floodplain" => &sample.layers.floodplain,
            "towns" => &sample.layers.towns,
            "systems" => &sample.layers.systems,
            "sewered" => &sample.layers.sewered,
            "county" => &sample.layers.county,
            _ => &sample.layers.watercourses,
        };
        let (layer, _) = read_layer(path.as_ref().unwrap(), &ReadOptions::default()).unwrap();
        let srs_id = layer.crs.epsg().map_or(100_001 + i as i32, |c| c as i32);
        add_layer(&conn, name, &layer, srs_id);
        toml.push_str(&format!("{name} = \"county.gpkg:{name}\"\n"));
    }
    for (name, path) in [
        ("history", &sample.layers.history),
        ("events", &sample.layers.events),
        ("pump_outs", &sample.layers.pump_outs),
        ("samples", &sample.layers.samples),
        ("pipes", &sample.layers.pipes),
    ] {
        if let Some(path) = path {
            toml.push_str(&format!("{name} = {:?}\n", path.canonicalize().unwrap()));
        }
    }
    let config = dir.join("county.toml");
    std::fs::write(&config, toml).unwrap();
    config
}

fn schedule(config: &Path, out: &Path, formats: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--as-of", AS_OF, "--format", formats, "--config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(matches!(output.status.code(), Some(0 | 2)), "{stderr}");
    stderr
}

#[test]
fn the_sample_as_one_geopackage_schedules_identically() {
    let dir = common::fresh_dir("gpkg-round-trip");
    let config = sample_as_geopackage(&dir);
    schedule(&sample_config(), &dir.join("from-sample"), "csv");
    schedule(&config, &dir.join("from-gpkg"), "csv");
    let a = std::fs::read(dir.join("from-sample/schedule.csv")).unwrap();
    let b = std::fs::read(dir.join("from-gpkg/schedule.csv")).unwrap();
    assert!(
        a == b,
        "schedule.csv differs:\n{}\n---\n{}",
        String::from_utf8_lossy(&a),
        String::from_utf8_lossy(&b)
    );
}

#[test]
fn a_geopackage_of_several_layers_needs_the_layer_named() {
    let dir = common::fresh_dir("gpkg-which");
    sample_as_geopackage(&dir);
    let err = read_layer(&dir.join("county.gpkg"), &ReadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("holds 9 layers"), "{err}");
    assert!(err.contains("FILE.gpkg:LAYER"), "{err}");
    let err = read_layer(&dir.join("county.gpkg:lots"), &ReadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("no feature layer 'lots'"), "{err}");
    let (layer, problems) = read_layer(&dir.join("county.gpkg:Towns"), &ReadOptions::default()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert!(!layer.features.is_empty());
}

#[test]
fn damaged_and_missing_geometries_are_reported_and_every_row_kept() {
    let dir = common::fresh_dir("gpkg-damaged");
    let good = square_blob();
    let mut huge = good.clone();
    // The ring count of the polygon (after 40 bytes of header and envelope and 5 of WKB header) made 2^32-1.
    huge[45..49].copy_from_slice(&u32::MAX.to_le_bytes());
    let rows: Vec<(i64, Option<Vec<u8>>)> = vec![
        (1, Some(good.clone())),
        (2, Some(good[..good.len() - 3].to_vec())),
        (3, None),
        (4, Some(vec![b'G', b'P', 0, 0b0001_0001, 0xD5, 8, 0, 0])),
        (5, Some(huge)),
        (6, Some(b"not a geometry".to_vec())),
    ];
    let (path, conn) = lots(&dir, &rows);
    drop(conn);
    let (layer, problems) = read_layer(&path, &ReadOptions::default()).unwrap();
    assert_eq!(layer.features.len(), 6, "every row is kept");
    assert!(layer.features[0].geometry.is_ok());
    assert_eq!(layer.features[5].values, vec![Value::Text("lot 6".into())]);
    let records: Vec<Location> = problems.iter().map(|p| p.location.clone()).collect();
    assert_eq!(records, [2, 3, 4, 5, 6].map(Location::Record));
    assert!(problems[0].message.starts_with("unreadable geometry blob"), "{}", problems[0].message);
    assert!(problems[1].message.contains("null geometry"), "{}", problems[1].message);
    assert!(problems[2].message.contains("empty geometry"), "{}", problems[2].message);
    assert!(problems[3].message.contains("more than"), "{}", problems[3].message);
    assert!(problems[4].message.contains("magic"), "{}", problems[4].message);
    assert!(problems.iter().all(|p| p.path.ends_with("lots.gpkg")));
}

/// Runs SQL on a SQLite file with the `sqlite3` tool, or else Python's sqlite3 module; `None` after saying
/// `test` is skipped when neither is installed (a failure when `CI` is set).
fn independent_sql(test: &str, db: &Path, sql: &str) -> Option<String> {
    let sqlite3 = Command::new("sqlite3").arg("-batch").arg(db).arg(sql).output();
    if let Ok(out) = sqlite3 {
        assert!(out.status.success(), "sqlite3: {}", String::from_utf8_lossy(&out.stderr));
        return Some(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nfor q in sys.argv[2].split(';'):\n    \
                  if q.strip():\n        for r in c.execute(q): print('|'.join('' if v is None else str(v) for v in r))";
    match Command::new("python3").args(["-c", script]).arg(db).arg(sql).output() {
        Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).trim().to_string()),
        _ => {
            common::skip_unless_ci(test, "neither the sqlite3 tool nor python3 is installed");
            None
        }
    }
}

#[test]
fn schedule_gpkg_opens_in_an_independent_reader() {
    let dir = common::fresh_dir("gpkg-out");
    let out = dir.join("out");
    schedule(&sample_config(), &out, "csv,gpkg");
    let db = out.join("schedule.gpkg");
    let (_, rows) = common::read_rows(&out.join("schedule.csv")).unwrap();
    let sql = "SELECT table_name, data_type, identifier, srs_id FROM gpkg_contents;
        SELECT table_name, column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns;
        SELECT organization, organization_coordsys_id, substr(definition, 1, 45) FROM gpkg_spatial_ref_sys WHERE srs_id = 2261;
        SELECT count(*) FROM schedule;
        SELECT count(*) FROM rtree_schedule_geom;
        SELECT extension_name FROM gpkg_extensions WHERE table_name = 'schedule' AND column_name = 'geom';
        PRAGMA application_id;
        SELECT hex(substr(geom, 1, 8)) FROM schedule WHERE fid = 1;
        SELECT parcel_id FROM schedule WHERE fid = 1;
        SELECT count(*) FROM schedule s JOIN rtree_schedule_geom r ON r.id = s.fid
          WHERE r.minx <= 820000 AND r.maxx >= 780000;";
    // lakeshore reads back what it wrote: every row, in the working CRS.
    let (layer, problems) = read_layer(&db, &ReadOptions::default()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(layer.features.len(), rows.len());
    assert_eq!(layer.crs.epsg(), Some(2261));
    let Some(answer) = independent_sql("schedule_gpkg_opens_in_an_independent_reader", &db, sql) else {
        return;
    };
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines[0], "schedule|features|schedule|2261");
    assert_eq!(lines[1], "schedule|geom|MULTIPOLYGON|2261|0|0");
    assert!(lines[2].starts_with("EPSG|2261|PROJCS[\"NAD83 / New York Central (ftUS)\","), "{}", lines[2]);
    assert_eq!(lines[3], rows.len().to_string(), "one row per parcel");
    assert_eq!(lines[4], rows.len().to_string(), "every sample parcel has a shape, so an R-tree entry");
    assert_eq!(lines[5], "gpkg_rtree_index");
    // 'GPKG' as a 32-bit integer.
    assert_eq!(lines[6], "1196444487");
    // 'G' 'P', version 0, flags 0b011 (little-endian, xy envelope), srs_id 2261 = 0x08D5 little-endian.
    assert_eq!(lines[7], "47500003D5080000");
    assert_eq!(lines[8], rows[0]["parcel_id"], "rows in schedule.csv order (sorted by parcel id)");
    assert!(lines[9].parse::<usize>().unwrap() <= rows.len());

    // GeoPandas through pyogrio, when present, reads every row.
    let pyogrio = Command::new("python3")
        .args(["-c", "import sys, pyogrio; print(len(pyogrio.read_dataframe(sys.argv[1])))"])
        .arg(&db)
        .output();
    match pyogrio {
        Ok(out) if out.status.success() => {
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), rows.len().to_string())
        }
        _ => eprintln!(
            "schedule_gpkg_opens_in_an_independent_reader: pyogrio not importable, its check skipped"
        ),
    }
}

#[test]
fn geoparquet_parcels_schedule_identically() {
    use polars::prelude::*;
    let dir = common::fresh_dir("geoparquet-in");
    let sample = ConfigFile::load(&sample_config()).unwrap();
    let (layer, _) = read_layer(sample.layers.parcels.as_ref().unwrap(), &ReadOptions::default()).unwrap();
    let mut columns: Vec<Column> = Vec::new();
    for (i, name) in layer.fields.iter().enumerate() {
        let numeric = layer.features.iter().all(|f| matches!(f.values[i], Value::Number(_) | Value::Null));
        let column = if numeric {
            let v: Vec<Option<f64>> = layer.features.iter().map(|f| f.values[i].as_f64()).collect();
            Column::new(name.as_str().into(), v)
        } else {
            let v: Vec<Option<String>> = layer.features.iter().map(|f| f.values[i].as_text()).collect();
            Column::new(name.as_str().into(), v)
        };
        columns.push(column);
    }
    let shapes: Vec<Option<Vec<u8>>> =
        layer.features.iter().map(|f| f.geometry.as_ref().ok().map(|g| wkb(g, false))).collect();
    let mut geometry = BinaryChunkedBuilder::new("geometry".into(), shapes.len());
    shapes.iter().for_each(|s| geometry.append_option(s.as_deref()));
    columns.push(geometry.finish().into_column());
    let mut frame = DataFrame::new(layer.features.len(), columns).unwrap();
    let crs = match layer.crs.epsg() {
        Some(code) => serde_json::json!({"id": {"authority": "EPSG", "code": code}}),
        None => serde_json::Value::String(layer.crs.to_string()),
    };
    let geo = serde_json::json!({"version": "1.1.0", "primary_column": "geometry",
        "columns": {"geometry": {"encoding": "WKB", "geometry_types": [], "crs": crs}}});
    let parquet = dir.join("parcels.parquet");
    let metadata = KeyValueMetadata::from_static(vec![("geo".into(), geo.to_string())]);
    ParquetWriter::new(std::fs::File::create(&parquet).unwrap())
        .with_key_value_metadata(Some(metadata))
        .finish(&mut frame)
        .unwrap();

    schedule(&sample_config(), &dir.join("from-sample"), "csv");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--as-of", AS_OF, "--format", "csv", "--config"])
        .arg(sample_config())
        .arg("--parcels")
        .arg(&parquet)
        .arg("--out")
        .arg(dir.join("from-parquet"))
        .output()
        .unwrap();
    assert!(matches!(output.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&output.stderr));
    let a = std::fs::read_to_string(dir.join("from-sample/schedule.csv")).unwrap();
    let b = std::fs::read_to_string(dir.join("from-parquet/schedule.csv")).unwrap();
    assert_eq!(a, b);
}

/// The sample's `schedule.csv`, and the one of the sample as a GeoPackage whose parcels' fids `sql`
/// renumbers; the run of the GeoPackage must be clean.
fn schedules_with_fids(label: &str, sql: &str) -> (String, String) {
    let dir = common::fresh_dir(label);
    let config = sample_as_geopackage(&dir);
    Connection::open(dir.join("county.gpkg")).unwrap().execute_batch(sql).unwrap();
    schedule(&sample_config(), &dir.join("from-sample"), "csv");
    schedule(&config, &dir.join("from-gpkg"), "csv");
    let read = |run: &str| std::fs::read_to_string(dir.join(run).join("schedule.csv")).unwrap();
    let schedules = (read("from-sample"), read("from-gpkg"));
    let _ = std::fs::remove_dir_all(&dir);
    schedules
}

/// GeoPackage 1.3 §2.1.6.1.1 asks only for an INTEGER PRIMARY KEY: `ogr2ogr -preserve_fid` from a shapefile
/// numbers rows from 0, and any 64-bit integer is a key. The records are the rows' places in the layer
/// (the schedule's `record`), so the fids keep the sample's order here.
#[test]
fn fids_from_zero_negative_or_past_2_to_the_53_schedule_as_the_sample() {
    for (label, sql) in [
        ("gpkg-fid-from-0", "UPDATE parcels SET fid = -fid; UPDATE parcels SET fid = -fid - 1;"),
        ("gpkg-fid-negative", "UPDATE parcels SET fid = fid - 1000;"),
        ("gpkg-fid-2-53", "UPDATE parcels SET fid = fid + 9007199254740992;"),
        ("gpkg-fid-max", "UPDATE parcels SET fid = 9223372036854775807 - 100 + fid;"),
        ("gpkg-fid-sparse", "UPDATE parcels SET fid = fid * 1000003;"),
    ] {
        let (sample, gpkg) = schedules_with_fids(label, sql);
        assert!(sample == gpkg, "{label}: schedule.csv differs:\n{sample}\n---\n{gpkg}");
    }
}

/// A GeoPackage of one `lots` table (fid, geom, name) in `dir`, its rows given by fid and blob.
fn lots(dir: &Path, rows: &[(i64, Option<Vec<u8>>)]) -> (PathBuf, Connection) {
    let path = dir.join("lots.gpkg");
    let conn = new_geopackage(&path);
    conn.execute_batch(
        "INSERT INTO gpkg_spatial_ref_sys VALUES ('NY Central', 2261, 'EPSG', 2261, 'see EPSG', NULL);
         INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('lots', 'features', 2261);
         INSERT INTO gpkg_geometry_columns VALUES ('lots', 'geom', 'POLYGON', 2261, 0, 0);
         CREATE TABLE lots (fid INTEGER PRIMARY KEY, geom BLOB, name TEXT);",
    )
    .unwrap();
    for (fid, geom) in rows {
        conn.execute(
            "INSERT INTO lots VALUES (?1, ?2, ?3)",
            rusqlite::params![fid, geom, format!("lot {fid}")],
        )
        .unwrap();
    }
    (path, conn)
}

fn square_blob() -> Vec<u8> {
    let ring = LineString::from(vec![(0., 0.), (9., 0.), (9., 9.), (0., 0.)]);
    blob(&Geometry::Polygon(Polygon::new(ring, vec![])), 2261, 1)
}

#[test]
fn a_problem_names_the_record_by_its_place_with_its_fid_beside() {
    let dir = common::fresh_dir("gpkg-fid-problems");
    let big = 1i64 << 53;
    let rows = [(big, None), (0, None), (-5, None), (1, Some(square_blob())), (3, Some(b"junk".to_vec()))];
    let (path, conn) = lots(&dir, &rows);
    drop(conn);
    let (layer, problems) = read_layer(&path, &ReadOptions::default()).unwrap();
    // In fid order: -5, 0, 1, 3, 2^53.
    let records: Vec<usize> = layer.features.iter().map(|f| f.record).collect();
    assert_eq!(records, [1, 2, 3, 4, 5]);
    let names: Vec<Value> = layer.features.iter().map(|f| f.values[0].clone()).collect();
    let expected = ["lot -5", "lot 0", "lot 1", "lot 3", "lot 9007199254740992"];
    assert_eq!(names, expected.map(|t| Value::Text(t.into())));
    let shown: Vec<String> = problems.iter().map(|p| p.location.to_string()).collect();
    assert_eq!(
        shown,
        ["record 1 (fid -5)", "record 2 (fid 0)", "record 4 (fid 3)", "record 5 (fid 9007199254740992)"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// SQLite keeps the type a writer gave a value, whatever the column declares: an owner's name stored as a
/// BLOB of UTF-8 is that name, and a BLOB that is not text is reported on its record, not read as an empty
/// name.
#[test]
fn a_text_column_holding_blobs_reads_the_text_and_reports_the_binary() {
    let dir = common::fresh_dir("gpkg-blob-text");
    let (path, conn) =
        lots(&dir, &[(1, Some(square_blob())), (2, Some(square_blob())), (3, Some(square_blob()))]);
    conn.execute("UPDATE lots SET name = CAST('Nu\u{f1}ez' AS BLOB) WHERE fid = 1", []).unwrap();
    conn.execute("UPDATE lots SET name = X'FF00FE' WHERE fid = 2", []).unwrap();
    drop(conn);
    let (layer, problems) = read_layer(&path, &ReadOptions::default()).unwrap();
    let names: Vec<Value> = layer.features.iter().map(|f| f.values[0].clone()).collect();
    assert_eq!(names, [Value::Text("Nu\u{f1}ez".into()), Value::Null, Value::Text("lot 3".into())]);
    let shown: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.location, p.message)).collect();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].starts_with("record 2: field name: holds 3 bytes of binary data"), "{shown:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Read a block at a time (each block resuming after the last key read), a table whose fids run from
/// i64::MIN to i64::MAX with damaged rows among them gives the rows, records, values and problems a whole read
/// gives, and its scan the same values, for blocks of every size.
#[test]
fn a_geopackage_read_in_blocks_is_the_geopackage_read_whole() {
    use lakeshore::formats::blocks::LayerBlocks;
    let dir = common::fresh_dir("gpkg-blocks");
    let fids = [i64::MIN, -5, 0, 1, 3, 1 << 53, i64::MAX - 1, i64::MAX];
    let rows: Vec<(i64, Option<Vec<u8>>)> = fids
        .iter()
        .enumerate()
        .map(|(i, &fid)| (fid, [Some(square_blob()), None, Some(b"junk".to_vec())][i % 3].clone()))
        .collect();
    let (path, conn) = lots(&dir, &rows);
    drop(conn);
    let options = ReadOptions::default();
    let (layer, problems) = read_layer(&path, &options).unwrap();
    assert_eq!(layer.features.len(), fids.len());
    let names: Vec<Value> = layer.features.iter().map(|f| f.values[0].clone()).collect();
    assert_eq!(names, fids.map(|fid| Value::Text(format!("lot {fid}").into())));
    for count in [1, 2, 3, 1000] {
        let mut blocks = LayerBlocks::open(&path, &options).unwrap();
        assert_eq!(blocks.len(), fids.len());
        let mut scanned = Vec::new();
        blocks.scan(&[0], &mut |record, values| scanned.push((record, values))).unwrap();
        let whole: Vec<(usize, Vec<Value>)> =
            layer.features.iter().map(|f| (f.record, f.values.clone())).collect();
        assert_eq!(scanned, whole, "the scan");
        let (mut features, mut found) = (Vec::new(), Vec::new());
        loop {
            let (block, more) = blocks.next_block(count).unwrap();
            if block.is_empty() {
                break;
            }
            assert!(block.len() <= count);
            features.extend(block);
            found.extend(more);
        }
        assert_eq!(format!("{features:?}"), format!("{:?}", layer.features), "blocks of {count}");
        assert_eq!(found, problems, "blocks of {count}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one file in `dir`, or what is there besides.
fn only_file(dir: &Path) -> Result<String, Vec<std::ffi::OsString>> {
    let names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    match &names[..] {
        [one] => Ok(one.to_string_lossy().into_owned()),
        _ => Err(names),
    }
}

/// QGIS leaves a GeoPackage in WAL mode. Read from a read-only folder, it reads, and nothing is written
/// beside it (run as root, the folder's mode does not stop writes, and the listing is what tells).
#[test]
fn a_geopackage_in_wal_mode_reads_from_a_read_only_folder_and_nothing_is_left_beside_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::fresh_dir("gpkg-wal");
    let (path, conn) = lots(&dir, &[(1, Some(square_blob()))]);
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    // Closing the last connection writes the log into the file and deletes the log and its index.
    drop(conn);
    assert_eq!(only_file(&dir).unwrap(), "lots.gpkg");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let read = read_layer(&path, &ReadOptions::default());
    let names = lakeshore::formats::field_names(&path);
    let listed = only_file(&dir);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (layer, problems) = read.unwrap();
    assert_eq!((layer.features.len(), problems.len()), (1, 0));
    assert_eq!(names.unwrap(), ["name"]);
    assert_eq!(listed, Ok("lots.gpkg".into()), "nothing beside the GeoPackage");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Changes a GIS has not yet written from the log into the file are part of the layer, and are read.
#[test]
fn rows_still_in_the_write_ahead_log_are_read() {
    let dir = common::fresh_dir("gpkg-wal-pending");
    let (path, conn) = lots(&dir, &[(1, Some(square_blob()))]);
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())).unwrap();
    conn.execute_batch("PRAGMA wal_autocheckpoint = 0;").unwrap();
    conn.execute("INSERT INTO lots VALUES (2, ?1, 'lot 2')", [square_blob()]).unwrap();
    // A copy of the file and its log as a GIS that still has it open leaves them.
    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(&path, copy.join("lots.gpkg")).unwrap();
    std::fs::copy(dir.join("lots.gpkg-wal"), copy.join("lots.gpkg-wal")).unwrap();
    drop(conn);
    let (layer, problems) = read_layer(&copy.join("lots.gpkg"), &ReadOptions::default()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(layer.features.len(), 2, "the row in the log is read");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gpkg_contents` may list a table the file no longer has (deleted by hand, or by a tool that forgot the
/// listing): the error names the file and the layer.
#[test]
fn a_listed_table_that_is_missing_is_named() {
    let dir = common::fresh_dir("gpkg-missing-table");
    let (path, conn) = lots(&dir, &[(1, Some(square_blob()))]);
    conn.execute_batch("DROP TABLE lots;").unwrap();
    drop(conn);
    let field_error = lakeshore::formats::field_names(&path).unwrap_err().to_string();
    let read_error = read_layer(&path, &ReadOptions::default()).unwrap_err().to_string();
    for err in [field_error, read_error] {
        assert!(err.contains("lots.gpkg"), "{err}");
        assert!(err.contains("layer 'lots' is listed in gpkg_contents but its table is missing"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rollback journal with its header (a write under way, or cut off) means the file may be half written:
/// the read stops and says so, and a journal a finished write left zeroed (`PRAGMA journal_mode = PERSIST`)
/// does not stop it.
#[test]
fn a_live_rollback_journal_stops_the_read() {
    let dir = common::fresh_dir("gpkg-journal");
    let (path, conn) = lots(&dir, &[(1, Some(square_blob()))]);
    drop(conn);
    let journal = dir.join("lots.gpkg-journal");
    // SQLite's journal header starts with these eight bytes (sqlite.org/fileformat2.html, "The Rollback
    // Journal").
    let mut live = vec![0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
    live.resize(512, 0);
    std::fs::write(&journal, &live).unwrap();
    let err = read_layer(&path, &ReadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("lots.gpkg: a write to the GeoPackage is under way or was cut off"), "{err}");
    std::fs::write(&journal, vec![0; 512]).unwrap();
    assert_eq!(read_layer(&path, &ReadOptions::default()).unwrap().0.features.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// GeoPackage 1.3 §2.1.6 lets `gpkg_contents` list a view as a feature layer; a view has no `rowid`, and
/// one without an integer primary key is read in the order SQLite gives, its rows numbered from 1.
#[test]
fn a_feature_view_without_an_integer_key_is_read() {
    let dir = common::fresh_dir("gpkg-view");
    let (_, conn) = lots(&dir, &[(7, Some(square_blob())), (9, None)]);
    conn.execute_batch(
        "CREATE VIEW named AS SELECT name AS label, geom FROM lots;
         INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('named', 'features', 2261);
         INSERT INTO gpkg_geometry_columns VALUES ('named', 'geom', 'POLYGON', 2261, 0, 0);",
    )
    .unwrap();
    drop(conn);
    let view = dir.join("lots.gpkg:named");
    assert_eq!(lakeshore::formats::field_names(&view).unwrap(), ["label"]);
    let (layer, problems) = read_layer(&view, &ReadOptions::default()).unwrap();
    let mut labels: Vec<String> = layer.features.iter().map(|f| f.values[0].as_text().unwrap()).collect();
    labels.sort();
    assert_eq!(labels, ["lot 7", "lot 9"]);
    assert_eq!(layer.features.iter().map(|f| f.record).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(problems.len(), 1, "the row without a shape: {problems:?}");
    assert!(matches!(problems[0].location, Location::Record(_)), "{problems:?}");
    // Opened in blocks, as the pipeline opens the parcels, the view is read whole: the same rows and problems.
    let mut blocks = lakeshore::formats::blocks::LayerBlocks::open(&view, &ReadOptions::default()).unwrap();
    let (block, found) = blocks.next_block(10).unwrap();
    assert_eq!(format!("{block:?}"), format!("{:?}", layer.features));
    assert_eq!(found, problems);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The file is opened through an SQLite URI: a folder and file name holding the URI's own characters
/// (`?`, `#`, `%`, a space) still name the file.
#[test]
fn a_geopackage_whose_path_holds_uri_characters_is_read() {
    let dir = common::fresh_dir("gpkg-uri").join("Cayuga Co?#%41");
    std::fs::create_dir_all(&dir).unwrap();
    let (path, conn) = lots(&dir, &[(1, Some(square_blob()))]);
    drop(conn);
    let (layer, problems) = read_layer(&path, &ReadOptions::default()).unwrap();
    assert_eq!((layer.features.len(), problems.len()), (1, 0));
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

/// A problem the parcels show after reading (here a missing id) names the record by its place with its fid
/// beside, as the reader's own problems do.
#[test]
fn a_parcel_problem_names_the_fid_beside_the_record() {
    let dir = common::fresh_dir("gpkg-fid-parcel-problem");
    let config = sample_as_geopackage(&dir);
    let renumber = "UPDATE parcels SET fid = -fid; UPDATE parcels SET fid = -fid - 1;
                    UPDATE parcels SET PRINT_KEY = NULL WHERE fid = 0;";
    Connection::open(dir.join("county.gpkg")).unwrap().execute_batch(renumber).unwrap();
    schedule(&config, &dir.join("out"), "csv");
    let problems = std::fs::read_to_string(dir.join("out/problems.csv")).unwrap();
    let line = problems.lines().find(|l| l.contains("no parcel id")).unwrap_or_else(|| panic!("{problems}"));
    assert!(line.contains("record 1 (fid 0)"), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}
