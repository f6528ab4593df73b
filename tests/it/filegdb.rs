//! Esri File Geodatabases as GDAL writes them (its OpenFileGDB driver, through pyogrio in the writers' venv
//! `tests/writers/venv.sh` makes), written at test time: the sample's parcels as `county.gdb`, scheduled as
//! the shapefile is; a feature class with a deleted row, a multipart polygon with a hole, a true curve, a
//! date and a non-ASCII text, read with expectations computed by hand; and `init` finding a whole county in
//! a `.gdb`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use geo::{Area, CoordsIter, Geometry};
use lakeshore::crs::layer::Value;
use lakeshore::formats::blocks::LayerBlocks;
use lakeshore::formats::{read_layer, ReadOptions};

use crate::common;

/// Writes `county.gdb` (the sample's parcels, feature class `Parcels`; `county-4326.gdb` the same in WGS 84),
/// `whole.gdb` (every layer of the sample but the watercourses, each a feature class named like its file)
/// and `features.gdb` (feature class `Lots`: object ids 1 to 4, the second deleted through GDAL's C API,
/// which pyogrio carries) into argv[2].
pub(crate) const WRITE_GDB: &str = r#"
import ctypes, glob, os, struct, sys
import numpy as np
import geopandas, pyogrio, pyogrio.raw
from shapely import wkt

parcels, out = sys.argv[1], sys.argv[2]
frame = geopandas.read_file(parcels)
pyogrio.write_dataframe(frame, f"{out}/county.gdb", layer="Parcels", driver="OpenFileGDB", promote_to_multi=True)
pyogrio.write_dataframe(frame.to_crs(4326), f"{out}/county-4326.gdb", layer="Parcels", driver="OpenFileGDB",
                        promote_to_multi=True)
# Every layer of the sample but the watercourses (lines and polygons, which a feature class cannot mix).
for name in ["parcels.shp", "shoreline.geojson", "watershed.shp", "floodplain.shp", "towns.geojson",
             "systems.geojson", "sewered.geojson", "county.geojson"]:
    layer = geopandas.read_file(f"{parcels.rsplit('/', 1)[0]}/{name}")
    pyogrio.write_dataframe(layer, f"{out}/whole.gdb", layer=name.split(".")[0].title(), driver="OpenFileGDB",
                            promote_to_multi=True)

# CURVEPOLYGON(CIRCULARSTRING(0 0, 10 10, 20 0, 10 -10, 0 0)) as ISO WKB: the circle of radius 10 around (10, 0).
ring = [(0, 0), (10, 10), (20, 0), (10, -10), (0, 0)]
circle = struct.pack("<BII", 1, 10, 1) + struct.pack("<BII", 1, 8, len(ring)) + b"".join(struct.pack("<2d", *p) for p in ring)
square = "POLYGON((0 0,0 10,10 10,10 0,0 0))"
two = "MULTIPOLYGON(((0 0,0 10,10 10,10 0,0 0),(2 2,8 2,8 8,2 8,2 2)),((20 0,20 5,25 5,25 0,20 0)))"
geometries = [wkt.loads(square).wkb, wkt.loads(square).wkb, wkt.loads(two).wkb, circle]
names = np.array(["Plain lot", "Gone", "Skaneateles – Ñ", "Round lot"], dtype=object)
numbers = np.array([1, 2, 3, 4], dtype="int32")
sold = np.array(["2024-05-01T00:00:00", "2020-01-01T00:00:00", "2024-05-01T13:30:00", "NaT"], dtype="datetime64[ms]")
pyogrio.raw.write(f"{out}/features.gdb", np.array(geometries, dtype=object), [names, numbers, sold],
                  fields=["NAME", "N", "SOLD"], geometry_type="MultiPolygon", crs="EPSG:2261",
                  driver="OpenFileGDB", layer="Lots", encoding="UTF-8")

here = os.path.dirname(pyogrio.__file__)
lib = (glob.glob(os.path.join(here, "..", "pyogrio.libs", "libgdal*")) + glob.glob(os.path.join(here, ".dylibs", "libgdal*")))[0]
gdal = ctypes.CDLL(lib)
gdal.GDALAllRegister()
gdal.GDALOpenEx.restype = ctypes.c_void_p
gdal.GDALOpenEx.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
gdal.GDALDatasetGetLayer.restype = ctypes.c_void_p
gdal.GDALDatasetGetLayer.argtypes = [ctypes.c_void_p, ctypes.c_int]
gdal.OGR_L_DeleteFeature.argtypes = [ctypes.c_void_p, ctypes.c_int64]
gdal.GDALClose.argtypes = [ctypes.c_void_p]
GDAL_OF_UPDATE, GDAL_OF_VECTOR = 0x01, 0x04
dataset = gdal.GDALOpenEx(f"{out}/features.gdb".encode(), GDAL_OF_UPDATE | GDAL_OF_VECTOR, None, None, None)
assert dataset, "GDAL opens features.gdb for update"
assert gdal.OGR_L_DeleteFeature(gdal.GDALDatasetGetLayer(dataset, 0), 2) == 0, "GDAL deletes object id 2"
gdal.GDALClose(dataset)
"#;

/// A folder holding `county.gdb` and `features.gdb` as [`WRITE_GDB`] writes them, or `None` when the test is
/// skipped (no writers' Python, and CI unset).
pub(crate) fn written_by_gdal(test: &str) -> Option<PathBuf> {
    let python = crate::geoparquet::writers_python(test)?;
    let dir = common::fresh_dir(test);
    let parcels = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.shp");
    let written = Command::new(python).args(["-c", WRITE_GDB]).arg(parcels).arg(&dir).output().unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    Some(dir)
}

/// Zips the `.gdb` folders `gdbs` of `dir` into `zip`, each under `prefix` in the zip, as a county's
/// download holds them (`Parcels.gdb.zip`: the folder `Parcels.gdb/` and its files).
pub(crate) fn zip_gdbs(dir: &Path, zip: &Path, prefix: &str, gdbs: &[&str]) {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(zip).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for gdb in gdbs {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(dir.join(gdb)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            writer.start_file(format!("{prefix}{gdb}/{name}"), options).unwrap();
            writer.write_all(&std::fs::read(&file).unwrap()).unwrap();
        }
    }
    writer.finish().unwrap();
}

#[test]
fn a_file_geodatabase_gdal_writes_schedules_as_the_sample_shapefile() {
    let Some(dir) = written_by_gdal("filegdb-sample") else { return };
    let sample = common::sample_schedule(None, &dir.join("sample"));
    // As ArcGIS Online and state portals hand them out: zipped, one geodatabase in a zip, two in a folder of
    // another.
    zip_gdbs(&dir, &dir.join("county.gdb.zip"), "", &["county.gdb"]);
    zip_gdbs(&dir, &dir.join("both.zip"), "download/", &["county.gdb", "county-4326.gdb"]);
    // Named, in another case than the catalog's, alone (the folder holds one feature class), in longitude
    // and latitude, and zipped.
    let cases = [
        ("named", "county.gdb:Parcels"),
        ("case", "county.gdb:PARCELS"),
        ("alone", "county.gdb"),
        ("4326", "county-4326.gdb:Parcels"),
        ("zipped", "county.gdb.zip"),
        ("zipped-named", "county.gdb.zip:parcels"),
        ("zip-of-two", "both.zip:county-4326.gdb/Parcels"),
        ("zip-of-two-path", "both.zip:download/county.gdb/Parcels"),
    ];
    for (name, parcels) in cases {
        let written = common::sample_schedule(Some(&dir.join(parcels)), &dir.join(name));
        assert!(written == sample, "{parcels}: schedule.csv differs:\n{sample}\n---\n{written}");
    }
    // A zip of two geodatabases, nothing named: the message names both and how to name one.
    let err = read_layer(&dir.join("both.zip"), &ReadOptions::default()).unwrap_err().to_string();
    let want = "holds 2 File Geodatabases (download/county.gdb, download/county-4326.gdb): name the feature \
                class after a colon with its geodatabase";
    assert!(err.contains(want), "{err}");
    let err = read_layer(&dir.join("county.gdb.zip:Lots"), &ReadOptions::default()).unwrap_err().to_string();
    assert!(
        err.contains("county.gdb.zip:county.gdb: no feature class 'Lots' (feature classes: Parcels)"),
        "{err}"
    );
    assert_eq!(
        lakeshore::formats::zipped::feature_classes(&dir.join("both.zip")).unwrap(),
        ["county.gdb/Parcels", "county-4326.gdb/Parcels"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deleted_rows_holes_curves_dates_and_accents_read_as_written() {
    let Some(dir) = written_by_gdal("filegdb-features") else { return };
    // The one feature class GDB_Items registers; the system tables are not listed.
    assert_eq!(lakeshore::formats::filegdb::layer_names(&dir.join("features.gdb")).unwrap(), ["Lots"]);
    let (layer, problems) = read_layer(&dir.join("features.gdb:Lots"), &ReadOptions::default()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(layer.crs.epsg(), Some(2261));
    assert_eq!(layer.fields, ["NAME", "N", "SOLD"]);
    // Object id 2 was deleted: three records, numbered by their place, each with its object id.
    let ids: Vec<(usize, Option<i64>)> = layer.features.iter().map(|f| (f.record, f.fid)).collect();
    assert_eq!(ids, [(1, Some(1)), (2, Some(3)), (3, Some(4))]);
    let text = |s: &str| Value::Text(s.into());
    let values: Vec<&[Value]> = layer.features.iter().map(|f| &f.values[..]).collect();
    assert_eq!(values[0], [text("Plain lot"), Value::Number(1.0), text("2024-05-01")]);
    assert_eq!(values[1], [text("Skaneateles – Ñ"), Value::Number(3.0), text("2024-05-01T13:30:00")]);
    assert_eq!(values[2], [text("Round lot"), Value::Number(4.0), Value::Null]);

    // GDAL stores coordinates on a grid of its own: 1e-4 ft of each written value.
    let near = |a: f64, b: f64| (a - b).abs() < 1e-4;
    let Ok(Geometry::MultiPolygon(two)) = &layer.features[1].geometry else { panic!("a multipolygon") };
    assert_eq!(two.0.len(), 2);
    assert_eq!(two.0[0].interiors().len(), 1, "the hole is kept in its square");
    // 10 × 10 less the 6 × 6 hole, and the 5 × 5 square (each side within 2e-5 ft of the grid's).
    assert!((two.unsigned_area() - (100.0 - 36.0 + 25.0)).abs() < 1e-3, "{}", two.unsigned_area());

    // The circle of radius 10 around (10, 0), as two arcs of 180°: chords of 1°, 360 of them (one more where
    // GDAL's grid makes an arc a hair over 180°), every vertex on the circle; the area of the 360-gon is
    // 360 · ½ · 10² · sin 1° = 314.143.
    let Ok(round) = &layer.features[2].geometry else { panic!("the curve is read") };
    let vertices = round.coords_count();
    assert!((361..=363).contains(&vertices), "{vertices} vertices");
    for c in round.coords_iter() {
        assert!(near((c.x - 10.0).hypot(c.y), 10.0), "{c:?} is off the circle");
    }
    assert!((round.unsigned_area() - 314.143).abs() < 0.01, "{}", round.unsigned_area());

    // In blocks: the scan of a column, and records by number, as the whole read gives them.
    let mut blocks = LayerBlocks::open(&dir.join("features.gdb:Lots"), &ReadOptions::default()).unwrap();
    assert_eq!(blocks.len(), 3);
    let mut scanned = Vec::new();
    blocks.scan(&[1], &mut |record, values| scanned.push((record, values))).unwrap();
    let numbers = |n: f64| vec![Value::Number(n)];
    assert_eq!(scanned, [(1, numbers(1.0)), (2, numbers(3.0)), (3, numbers(4.0))]);
    assert!(blocks.reads_any_records());
    let (some, found) = blocks.read_records(&[1, 3]).unwrap();
    assert!(found.is_empty(), "{found:?}");
    let whole = [&layer.features[0], &layer.features[2]];
    assert_eq!(format!("{some:?}"), format!("{whole:?}"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `init` finds every layer of a county in one File Geodatabase, and the config it writes schedules the
/// county as the sample's own config does.
#[test]
fn init_finds_a_county_in_a_file_geodatabase_and_it_schedules_as_the_sample() {
    init_finds_the_county_in("filegdb-init", "county.gdb");
}

/// The same with the geodatabase zipped, as a county's download is (`county.gdb.zip`).
#[test]
fn init_finds_a_county_in_a_zipped_file_geodatabase_and_it_schedules_as_the_sample() {
    init_finds_the_county_in("filegdb-init-zipped", "county.gdb.zip");
}

/// `init` on a county folder holding the sample's layers as one geodatabase, `gdb` (`county.gdb`, or that
/// folder zipped as `county.gdb.zip`), and the sample's record files.
fn init_finds_the_county_in(test: &str, gdb: &str) {
    let Some(dir) = written_by_gdal(test) else { return };
    let county = dir.join("county");
    std::fs::create_dir(&county).unwrap();
    match gdb.strip_suffix(".zip") {
        Some(folder) => {
            std::fs::create_dir(dir.join("zipped")).unwrap();
            std::fs::rename(dir.join("whole.gdb"), dir.join("zipped").join(folder)).unwrap();
            zip_gdbs(&dir.join("zipped"), &county.join(gdb), "", &[folder]);
        }
        None => std::fs::rename(dir.join("whole.gdb"), county.join(gdb)).unwrap(),
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    for name in
        ["watercourses.geojson", "history.csv", "events.csv", "pump_outs.csv", "samples.csv", "pipes.csv"]
    {
        std::fs::copy(sample.join(name), county.join(name)).unwrap();
    }
    let run = Command::new(env!("CARGO_BIN_EXE_lakeshore")).arg("init").arg(&county).output().unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let config = std::fs::read_to_string(county.join("county.toml")).unwrap();
    for (role, layer) in [
        ("parcels", "Parcels"),
        ("shoreline", "Shoreline"),
        ("watershed", "Watershed"),
        ("floodplain", "Floodplain"),
        ("towns", "Towns"),
        ("systems", "Systems"),
        ("sewered", "Sewered"),
        ("county", "County"),
    ] {
        assert!(config.contains(&format!("{role} = \"{gdb}:{layer}\"")), "{role}: {config}");
    }
    assert!(config.contains("crs = \"EPSG:2261\""), "{config}");
    let schedule = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config"])
        .arg(county.join("county.toml"))
        .args(["--as-of", "2027-01-15", "--format", "csv", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_eq!(schedule.status.code(), Some(0), "{}", String::from_utf8_lossy(&schedule.stderr));
    let written = std::fs::read_to_string(dir.join("out/schedule.csv")).unwrap();
    let sample = common::sample_schedule(None, &dir.join("sample"));
    assert!(written == sample, "schedule.csv differs:\n{sample}\n---\n{written}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What cannot be read stops the read with a message naming the file and what to do: a table compressed by
/// ArcGIS, a table of 64-bit object ids, and counts and sizes beyond the file that declares them.
#[test]
fn compressed_tables_and_hostile_sizes_are_refused_by_name() {
    let Some(dir) = written_by_gdal("filegdb-refused") else { return };
    let original = dir.join("features.gdb");
    let table = |gdb: &Path| gdb.join("a00000009.gdbtable");
    let index = |gdb: &Path| gdb.join("a00000009.gdbtablx");
    let bytes = std::fs::read(table(&original)).unwrap();
    let tablx = std::fs::read(index(&original)).unwrap();
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // The first row's offset, on the index's 4 to 6 bytes after its 16-byte header.
    let size = u32_at(&tablx, 12) as usize;
    let mut first = [0u8; 8];
    first[..size].copy_from_slice(&tablx[16..16 + size]);
    let first = u64::from_le_bytes(first) as usize;
    let fields_at = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    let patched = |table_bytes: Vec<u8>, tablx_bytes: Vec<u8>, name: &str| -> String {
        let gdb = dir.join(format!("{name}.gdb"));
        std::fs::create_dir(&gdb).unwrap();
        for entry in std::fs::read_dir(&original).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, gdb.join(path.file_name().unwrap())).unwrap();
        }
        std::fs::write(table(&gdb), table_bytes).unwrap();
        std::fs::write(index(&gdb), tablx_bytes).unwrap();
        let lots = PathBuf::from(format!("{}:Lots", gdb.display()));
        read_layer(&lots, &ReadOptions::default()).map(|_| ()).unwrap_err().to_string()
    };
    let with = |at: usize, new: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + new.len()].copy_from_slice(new);
        b
    };
    let refused = |name: &str, table_bytes: Vec<u8>, tablx_bytes: Vec<u8>, wanted: &[&str]| {
        let err = patched(table_bytes, tablx_bytes, name);
        for w in wanted {
            assert!(err.contains(w), "{name}: {w:?} not in {err}");
        }
    };
    let version4 = with(0, &4u32.to_le_bytes());
    refused("version4", version4, tablx.clone(), &["a00000009.gdbtable", "64-bit object ids", "Export"]);
    let rows = with(4, &1_000_000u32.to_le_bytes());
    refused("rows", rows, tablx.clone(), &["a00000009.gdbtable", "1000000 rows declared in a file of"]);
    let count = with(4, &2u32.to_le_bytes());
    refused("count", count, tablx.clone(), &["declares 2 rows but its index", "lists 3"]);
    let fields = with(fields_at + 12, &u16::MAX.to_le_bytes());
    refused("fields", fields, tablx.clone(), &["65535 fields declared in"]);
    let row = with(first, &0x7fff_ffffu32.to_le_bytes());
    refused(
        "row",
        row,
        tablx.clone(),
        &["the row of object id 1", "has 2147483647 bytes, beyond the file's"],
    );
    let mut blocks = tablx.clone();
    blocks[4..8].copy_from_slice(&3_000_000u32.to_le_bytes());
    refused(
        "blocks",
        bytes.clone(),
        blocks,
        &["a00000009.gdbtablx", "3000000 blocks of offsets declared in"],
    );
    // A table ArcGIS compressed keeps its rows in a .cdf file.
    std::fs::write(original.join("a00000009.cdf"), b"compressed").unwrap();
    let err = read_layer(&original, &ReadOptions::default()).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("feature class 'Lots' is compressed") && err.contains("Export Features"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
