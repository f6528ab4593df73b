//! `schedule --format parquet` writes GeoParquet 1.1: a WKB `geometry` column in WGS 84 and the `geo` file
//! metadata, with the same shapes as the GeoJSON output. The WKB is decoded here, independently of the writer.

use std::path::{Path, PathBuf};
use std::process::Command;

use polars::prelude::*;

fn run_sample(out: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["schedule", "--config", "data/sample/county.toml", "--as-of", "2027-01-15"])
        .args(["--format", "parquet,geojson", "--out"])
        .arg(out)
        .output()
        .expect("the binary runs");
    // Every record of the sample is good: a clean run.
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::scratch::root().join(format!("geoparquet-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A bounding box as GeoParquet writes it: min x, min y, max x, max y.
type Bbox = [f64; 4];

fn extend(bbox: &mut Bbox, x: f64, y: f64) {
    *bbox = [bbox[0].min(x), bbox[1].min(y), bbox[2].max(x), bbox[3].max(y)];
}

const EMPTY: Bbox = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];

/// A little-endian reader over WKB bytes.
struct Wkb<'a>(&'a [u8]);

impl Wkb<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take(8).try_into().unwrap())
    }
}

/// The bounding box of an ISO WKB MultiPolygon, checking its header, that every ring is closed and that no
/// byte is left over.
fn wkb_bbox(bytes: &[u8]) -> Bbox {
    let mut wkb = Wkb(bytes);
    assert_eq!((wkb.u8(), wkb.u32()), (1, 6), "little-endian MultiPolygon");
    let mut bbox = EMPTY;
    for _ in 0..wkb.u32() {
        assert_eq!((wkb.u8(), wkb.u32()), (1, 3), "little-endian Polygon");
        for _ in 0..wkb.u32() {
            let points: Vec<(f64, f64)> = (0..wkb.u32()).map(|_| (wkb.f64(), wkb.f64())).collect();
            assert!(points.len() >= 4 && points.first() == points.last(), "closed ring: {points:?}");
            points.iter().for_each(|&(x, y)| extend(&mut bbox, x, y));
        }
    }
    assert!(wkb.0.is_empty(), "{} bytes after the geometry", wkb.0.len());
    bbox
}

/// The bounding box of a GeoJSON MultiPolygon's coordinates.
fn geojson_bbox(geometry: &serde_json::Value) -> Bbox {
    assert_eq!(geometry["type"], "MultiPolygon");
    let mut bbox = EMPTY;
    for polygon in geometry["coordinates"].as_array().unwrap() {
        for ring in polygon.as_array().unwrap() {
            for c in ring.as_array().unwrap() {
                extend(&mut bbox, c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
            }
        }
    }
    bbox
}

/// GeoJSON coordinates are rounded to 7 decimals; WKB keeps every bit.
fn assert_near(wkb: Bbox, geojson: Bbox, what: &str) {
    for (a, b) in wkb.iter().zip(geojson) {
        assert!((a - b).abs() <= 0.6e-7, "{what}: WKB {wkb:?}, GeoJSON {geojson:?}");
    }
}

#[test]
fn schedule_parquet_is_geoparquet_with_the_geojson_shapes() {
    let out = out_dir("sample");
    run_sample(&out);
    let path = out.join("schedule.parquet");
    let mut reader = ParquetReader::new(std::fs::File::open(&path).unwrap());
    let metadata = reader.get_metadata().unwrap().clone();
    let frame = reader.finish().unwrap();
    // 73 parcels in data/sample/parcels.shp (data/sample/README.md).
    assert_eq!(frame.height(), 73);
    assert_eq!(frame.get_column_names().last().map(|n| n.as_str()), Some("geometry"));
    let geometry = frame.column("geometry").unwrap();
    assert_eq!(geometry.dtype(), &DataType::Binary);
    assert_eq!(geometry.null_count(), 0, "every sample parcel has a shape");
    let geometry = geometry.binary().unwrap();

    let kv = metadata.key_value_metadata().as_ref().expect("file key-value metadata");
    let geo = kv.iter().find(|kv| kv.key == "geo").and_then(|kv| kv.value.as_deref()).expect("a geo key");
    let geo: serde_json::Value = serde_json::from_str(geo).unwrap();
    assert_eq!(geo["version"], "1.1.0");
    assert_eq!(geo["primary_column"], "geometry");
    let column = &geo["columns"]["geometry"];
    assert_eq!(column["encoding"], "WKB");
    assert_eq!(column["geometry_types"], serde_json::json!(["MultiPolygon"]));
    // No crs member: GeoParquet's default, OGC:CRS84 (longitude, latitude).
    assert!(column.get("crs").is_none(), "{column}");

    let geojson: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("schedule.geojson")).unwrap()).unwrap();
    let features = geojson["features"].as_array().unwrap();
    assert_eq!(features.len(), 73);
    let ids = frame.column("parcel_id").unwrap().str().unwrap();
    let mut all = EMPTY;
    for (row, feature) in features.iter().enumerate() {
        let id = ids.get(row).unwrap();
        assert_eq!(feature["properties"]["parcel_id"], id, "same parcel order in both files");
        let bbox = wkb_bbox(geometry.get(row).unwrap());
        // The sample lies around 76.5° W, 42.8° N: longitude first.
        assert!((-77.5..-75.5).contains(&bbox[0]) && (42.0..43.8).contains(&bbox[1]), "{id}: {bbox:?}");
        assert_near(bbox, geojson_bbox(&feature["geometry"]), id);
        extend(&mut all, bbox[0], bbox[1]);
        extend(&mut all, bbox[2], bbox[3]);
    }
    let file_bbox: Vec<f64> =
        column["bbox"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(file_bbox, all, "the geo bbox covers every row exactly");
    let _ = std::fs::remove_dir_all(&out);
}

/// Writes the sample's parcels (argument 1) into folder argument 2 as GeoParquet the way analysts write it:
/// GeoPandas 1.x in the layer's own CRS (from the `.prj`: PROJJSON without an id, and the `geoarrow.wkb`
/// extension type on the column) and in EPSG:4326 (PROJJSON with an id, axes latitude first), and DuckDB's
/// GEOMETRY from longitude/latitude WKB (no `crs`: OGC:CRS84).
const WRITE_GEOPARQUET: &str = r#"
import sys
import duckdb
import geopandas

parcels, out = sys.argv[1], sys.argv[2]
frame = geopandas.read_file(parcels)
frame.to_parquet(f"{out}/geopandas.parquet")
wgs84 = frame.to_crs(4326)
wgs84.to_parquet(f"{out}/geopandas-4326.parquet")
table = wgs84.drop(columns="geometry").assign(wkb=wgs84.geometry.to_wkb())
columns = ", ".join(f'"{c}"' for c in frame.columns if c != "geometry")
con = duckdb.connect()
con.register("parcels", table)
con.sql(f"COPY (SELECT {columns}, ST_GeomFromWKB(wkb) AS geometry FROM parcels) TO '{out}/duckdb.parquet' (FORMAT parquet)")
"#;

/// A Python with GeoPandas and DuckDB: `LAKESHORE_WRITERS_PYTHON`, else the venv `tests/writers/venv.sh`
/// makes, else `python3`; `None` after saying `test` is skipped when none has both (a failure when CI is set).
pub(crate) fn writers_python(test: &str) -> Option<PathBuf> {
    let venv = std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".cache/lakeshore-writers-venv/bin/python"))
        .filter(|p| p.is_file());
    let python =
        std::env::var_os("LAKESHORE_WRITERS_PYTHON").map(PathBuf::from).or(venv).unwrap_or("python3".into());
    let found = Command::new(&python).args(["-c", "import geopandas, duckdb"]).output();
    if found.is_ok_and(|out| out.status.success()) {
        return Some(python);
    }
    crate::common::skip_unless_ci(
        test,
        &format!(
            "{} cannot import geopandas and duckdb (tests/writers/venv.sh installs them)",
            python.display()
        ),
    );
    None
}

#[test]
fn geoparquet_as_geopandas_and_duckdb_write_it_schedules_as_the_sample() {
    let test = "geoparquet_as_geopandas_and_duckdb_write_it_schedules_as_the_sample";
    let Some(python) = writers_python(test) else { return };
    let dir = out_dir("writers");
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let written = Command::new(python)
        .args(["-c", WRITE_GEOPARQUET])
        .arg(root.join("data/sample/parcels.shp"))
        .arg(&dir)
        .output()
        .unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let schedule =
        |parcels: Option<&Path>, out: &str| crate::common::sample_schedule(parcels, &dir.join(out));
    let sample = schedule(None, "sample");
    for name in ["geopandas", "geopandas-4326", "duckdb"] {
        let parquet = dir.join(format!("{name}.parquet"));
        let written = schedule(Some(&parquet), name);
        assert!(written == sample, "{name}: schedule.csv differs:\n{sample}\n---\n{written}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A GeoParquet parcels layer whose data is not where its footer says (bytes taken out of the middle, as a
/// copy cut short and patched may be; polars panics on some such files): the run stops with a message naming
/// the file, exit 1, and neither a panic nor a signal.
#[test]
fn a_geoparquet_damaged_under_its_footer_stops_the_run_naming_it() {
    let out = out_dir("hollow");
    run_sample(&out);
    let bytes = std::fs::read(out.join("schedule.parquet")).unwrap();
    // The first two cuts are told by polars as errors; the third (100 bytes inside the first column chunk)
    // makes polars 0.55 fail an assertion, caught and told the same way.
    let cuts = [(4, bytes.len() / 2), (bytes.len() / 3, bytes.len() / 2), (1000, 1100)];
    for (i, (from, to)) in cuts.into_iter().enumerate() {
        let parcels = out.join(format!("hollow-{i}.parquet"));
        std::fs::write(&parcels, [&bytes[..from], &bytes[to..]].concat()).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["schedule", "--config", "data/sample/county.toml", "--as-of", "2027-01-15", "--parcels"])
            .arg(&parcels)
            .arg("--out")
            .arg(out.join(format!("out-{i}")))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&format!("{}: not a readable Parquet file", parcels.display())), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
