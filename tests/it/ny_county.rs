//! A county folder the way New York offices write one, built at test time: a tax-parcel shapefile with the
//! statewide schema's names cut to dBase's 10 characters (`SWIS_SBL_I`, `CITYTOWN_N`, `PRIMARY_OW`,
//! `MAILING_AD`, `PARCEL_ADD`), a bow-tie parcel among them, an NFHL `S_FLD_HAZ_AR` layer, a lake, municipal
//! boundaries and an inspection log under their own file names. Checked: the fields are detected and `-v`
//! says which; the bow-tie is reported with where it crosses and still scheduled; `lakeshore init` tells the
//! files apart and writes a config that schedules; config mistakes are refused like a compiler would.
//!
//! Coordinates are EPSG:2261 feet. The lake's south shore is the line y = 1 037 500 (as in bad_input.rs);
//! the tiers below are worked out by hand from the Cayuga County rules.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use shapefile::dbase::{FieldName, FieldValue, Record, TableWriterBuilder};
use shapefile::{Point, Polygon, PolygonRing, Writer};

use crate::common;

const AS_OF: &str = "2027-01-15";
const SHORE_Y: f64 = 1_037_500.0;

/// The parcels' dBase fields: the statewide schema's names as a shapefile export cuts them.
const FIELDS: [&str; 10] = [
    "SWIS_SBL_I", // SWIS_SBL_ID
    "SBL",
    "CITYTOWN_N", // CITYTOWN_NAME
    "PRIMARY_OW", // PRIMARY_OWNER
    "MAILING_AD", // MAILING_ADDRESS
    "MAIL_CITY",
    "MAIL_STATE",
    "MAIL_ZIP",
    "PARCEL_ADD", // PARCEL_ADDR
    "SEWER_TYPE",
];

/// A parcel of the fixture: SWIS_SBL_ID, its ring (clockwise), the tier worked out by hand.
type Lot = (&'static str, Vec<(f64, f64)>, &'static str);

/// The fixture's parcels.
///
/// 1. A 200 ft square whose north edge is the shore: borders the mean-high-water line, no system known:
///    `lakefront` (§IV.A.1 ¶1).
/// 2. A 200 ft square 300 ft south of the shore: within 500 ft, not bordering: `near-shore`.
/// 3. A bow-tie 2 200 ft south of the shore, in the Town of Owasco; no watershed layer, so §IV.A.2's 2009
///    cohort: `county`. Its edges (836400, 1035000)-(836800, 1035300) and (836800, 1035000)-(836400, 1035200)
///    meet where 1035000 + 0.75 t = 1035000 + 0.5 (400 - t), t = 160: at (836560 1035120).
fn parcels() -> Vec<Lot> {
    let square =
        |x: f64, y: f64| vec![(x, y), (x, y + 200.0), (x + 200.0, y + 200.0), (x + 200.0, y), (x, y)];
    vec![
        ("054689122005000100010000", square(836_100.0, SHORE_Y - 200.0), "lakefront"),
        ("054689122009000200070000", square(836_400.0, SHORE_Y - 500.0), "near-shore"),
        (
            "054689131000000100150000",
            vec![
                (836_400.0, 1_035_000.0),
                (836_400.0, 1_035_200.0),
                (836_800.0, 1_035_000.0),
                (836_800.0, 1_035_300.0),
                (836_400.0, 1_035_000.0),
            ],
            "county",
        ),
    ]
}

const BOW_TIE_REASON: &str = "Self-intersection at (836560 1035120)";

fn write_parcels(dir: &Path) {
    let mut table = TableWriterBuilder::new();
    for f in FIELDS {
        table = table.add_character_field(FieldName::try_from(f).unwrap(), 40);
    }
    let shp = dir.join("Tax_Parcels_2024.shp");
    {
        let mut writer = Writer::from_path(&shp, table).expect("create the parcels shapefile");
        for (n, (id, ring, _)) in parcels().into_iter().enumerate() {
            let values = [
                id.to_string(),
                id[6..].to_string(),
                "Owasco".to_string(),
                format!("OWNER NUMBER {n}"),
                format!("{} MAIN ST", 10 + n),
                "AUBURN".to_string(),
                "NY".to_string(),
                "13021".to_string(),
                format!("{} E LAKE RD", 6100 + n),
                "2".to_string(),
            ];
            let record = Record::from(
                FIELDS
                    .iter()
                    .zip(values)
                    .map(|(f, v)| (f.to_string(), FieldValue::Character(Some(v))))
                    .collect::<HashMap<_, _>>(),
            );
            let points = ring.iter().map(|&(x, y)| Point::new(x, y)).collect();
            writer
                .write_shape_and_record(&Polygon::with_rings(vec![PolygonRing::Outer(points)]), &record)
                .unwrap();
        }
    }
    // The ESRI WKT of EPSG:2261 as ArcGIS writes it, as the sample's parcels carry it.
    let prj = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.prj");
    fs::copy(prj, shp.with_extension("prj")).unwrap();
}

/// A GeoJSON layer in EPSG:2261 (legacy `crs` member) of polygons with properties.
fn polygons_geojson(features: &[(&str, [f64; 4])]) -> String {
    let features: Vec<String> = features
        .iter()
        .map(|(props, [x0, y0, x1, y1])| {
            format!(
                r#"{{"type": "Feature", "properties": {props}, "geometry": {{"type": "Polygon", "coordinates": [[[{x0}, {y0}], [{x1}, {y0}], [{x1}, {y1}], [{x0}, {y1}], [{x0}, {y0}]]]}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"type": "FeatureCollection", "crs": {{"type": "name", "properties": {{"name": "urn:ogc:def:crs:EPSG::2261"}}}}, "features": [{}]}}"#,
        features.join(",\n")
    )
}

/// Builds the folder; returns it.
fn county(label: &str) -> PathBuf {
    let dir = common::fresh_dir(&format!("ny-county-{label}"));
    write_parcels(&dir);
    let files = [
        (
            "Owasco_Lake_MHW.geojson",
            polygons_geojson(&[(r#"{"NAME": "Owasco Lake"}"#, [835_800.0, SHORE_Y, 838_200.0, 1_040_500.0])]),
        ),
        (
            "S_FLD_HAZ_AR.geojson",
            polygons_geojson(&[(
                r#"{"FLD_ZONE": "AE", "ZONE_SUBTY": "", "SFHA_TF": "T", "STATIC_BFE": -9999}"#,
                // Within the parcels' extent (every layer must overlap it), on none of them.
                [835_300.0, 1_035_400.0, 836_300.0, 1_036_400.0],
            )]),
        ),
        (
            "Municipal_Boundaries.geojson",
            polygons_geojson(&[
                (r#"{"NAME": "Owasco", "SWIS": "054689"}"#, [830_000.0, 1_030_000.0, 845_000.0, 1_045_000.0]),
                (r#"{"NAME": "Niles", "SWIS": "054489"}"#, [830_000.0, 1_015_000.0, 845_000.0, 1_030_000.0]),
                (
                    r#"{"NAME": "Fleming", "SWIS": "052889"}"#,
                    [815_000.0, 1_030_000.0, 830_000.0, 1_045_000.0],
                ),
            ]),
        ),
        (
            "inspections_2024.csv",
            "parcel_id,inspection_date,result\n054689122005000100010000,2026-05-01,pass\n".to_string(),
        ),
        ("notes.txt", "the GIS office's notes\n".to_string()),
    ];
    for (name, text) in files {
        if name == "Owasco_Lake_MHW.geojson" {
            fs::write(dir.join("Owasco_Watershed.geojson"), common::watershed_around(&text, 1.0)).unwrap();
        }
        fs::write(dir.join(name), text).unwrap();
    }
    dir
}

pub(crate) fn lakeshore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(args)
        .output()
        .expect("cannot run the lakeshore binary")
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn schedule(config: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "schedule",
        "--config",
        config.to_str().unwrap(),
        "--as-of",
        AS_OF,
        "--format",
        "csv",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    lakeshore(&args)
}

fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    common::read_rows(path).unwrap_or_else(|e| panic!("{e}")).1
}

/// The shapefile's cut names are taken for what they mean, `-v` says so, the bow-tie is reported with the
/// place its ring crosses itself and scheduled all the same, its row saying the geometry is invalid.
#[test]
fn ny_names_detected_and_bow_tie_reported_but_scheduled() {
    let dir = county("schedule");
    let config = dir.join("county.toml");
    fs::write(
        &config,
        "[layers]\nparcels = \"Tax_Parcels_2024.shp\"\nshoreline = \"Owasco_Lake_MHW.geojson\"\n\
         watershed = \"Owasco_Watershed.geojson\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = schedule(&config, &out, &["-v"]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    let stderr = String::from_utf8_lossy(&run.stderr);
    for line in [
        "parcels: parcel id       SWIS_SBL_I (detected)",
        "parcels: town            CITYTOWN_N (detected)",
        "parcels: sewer type      SEWER_TYPE (detected)",
        "parcels: owner           PRIMARY_OW (detected)",
        "parcels: location        PARCEL_ADD (detected)",
        "parcels: mailing street  MAILING_AD (detected)",
        "parcels: mailing ZIP     MAIL_ZIP (detected)",
    ] {
        assert!(stderr.contains(line), "no '{line}' in\n{}", text(&run));
    }
    let got = rows(&out.join("schedule.csv"));
    assert_eq!(got.len(), 3, "{got:?}");
    for (id, _, tier) in parcels() {
        let row = got.iter().find(|r| r["parcel_id"] == id).unwrap_or_else(|| panic!("no row {id}: {got:?}"));
        assert_eq!(row["tier"], tier, "{id}");
        assert_eq!(row["town"], "Owasco", "{id}");
        let invalid = if tier == "county" { BOW_TIE_REASON } else { "" };
        assert_eq!(row["geometry_invalid"], invalid, "{id}");
    }
    let problems = rows(&out.join("problems.csv"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0]["file"].ends_with("Tax_Parcels_2024.shp"));
    assert_eq!(problems[0]["record"], "record 3");
    assert!(problems[0]["problem"].contains(BOW_TIE_REASON), "{problems:?}");
    assert!(problems[0]["problem"].contains("still scheduled"), "{problems:?}");
    let _ = fs::remove_dir_all(dir);
}

/// `lakeshore init` tells the files apart by geometry, fields and names, says what it could not decide,
/// writes a config that schedules, and keeps an existing config unless `--force`.
#[test]
fn init_tells_the_files_apart_and_its_config_schedules() {
    let dir = county("init");
    let run = lakeshore(&["init", dir.to_str().unwrap()]);
    // Systems and others are missing: optional, so named and the exit code is 0.
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let config = fs::read_to_string(dir.join("county.toml")).unwrap();
    for line in [
        "parcels = \"Tax_Parcels_2024.shp\"",
        "shoreline = \"Owasco_Lake_MHW.geojson\"",
        "floodplain = \"S_FLD_HAZ_AR.geojson\"",
        "towns = \"Municipal_Boundaries.geojson\"",
        "history = \"inspections_2024.csv\"",
        "# parcel_id = [\"SWIS_SBL_I\"]",
        "# parcel_town = \"CITYTOWN_N\"",
        "crs = \"EPSG:2261\"",
    ] {
        assert!(config.contains(line), "no '{line}' in\n{config}");
    }
    assert!(config.contains("watershed = \"Owasco_Watershed.geojson\""), "{config}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("left out (optional, no file fits): systems"), "{}", text(&run));
    assert!(!config.contains("notes.txt"), "{config}");

    let out = dir.join("out");
    let run = schedule(&dir.join("county.toml"), &out, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run)); // the bow-tie
    let got = rows(&out.join("schedule.csv"));
    for (id, _, tier) in parcels() {
        let row = got.iter().find(|r| r["parcel_id"] == id).unwrap_or_else(|| panic!("no row {id}"));
        assert_eq!(row["tier"], tier, "{id}");
    }
    // The lakefront parcel's inspection of 2026-05-01 was read from the log init found.
    let lakefront = got.iter().find(|r| r["tier"] == "lakefront").unwrap();
    assert_eq!(lakefront["last_inspection"], "2026-05-01");

    let again = lakeshore(&["init", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("county.toml exists; pass --force"),
        "{}",
        text(&again)
    );
    let forced = lakeshore(&["init", "--force", dir.to_str().unwrap()]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced));
    let _ = fs::remove_dir_all(dir);
}

/// `lakeshore init` on a copy of the sample county (its config removed) writes a config that schedules
/// every parcel exactly as the sample's own config does.
#[test]
fn init_on_the_sample_schedules_identically() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let copy = common::fresh_dir("init-sample");
    for entry in fs::read_dir(root.join("data/sample")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".toml") {
            fs::copy(&path, copy.join(&name)).unwrap();
        }
    }
    let run = lakeshore(&["init", copy.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let ours = schedule(&copy.join("county.toml"), &copy.join("out"), &[]);
    assert_eq!(ours.status.code(), Some(0), "{}", text(&ours));
    // The folder holds the sample's DEM, which init names: the config it writes is the sample's with it.
    let theirs = schedule(&root.join("data/sample/county-dem.toml"), &copy.join("out-sample"), &[]);
    assert_eq!(theirs.status.code(), Some(0), "{}", text(&theirs));
    let a = fs::read_to_string(copy.join("out/schedule.csv")).unwrap();
    let b = fs::read_to_string(copy.join("out-sample/schedule.csv")).unwrap();
    assert_eq!(a.lines().count(), 74); // the header and the sample's 73 parcels
    assert!(a == b, "the schedules differ");
    let _ = fs::remove_dir_all(copy);
}

/// Config mistakes name the file, line, column and key, say what was expected with an example, and
/// suggest the key meant; a single field name for `parcel_id` is taken as a list of one.
#[test]
fn config_errors_read_like_a_compilers() {
    let dir = county("config");
    let config = dir.join("county.toml");
    let layers = "[layers]\nparcels = \"Tax_Parcels_2024.shp\"\nshoreline = \"Owasco_Lake_MHW.geojson\"\n";
    let refused = |toml: &str| {
        fs::write(&config, toml).unwrap();
        let run = schedule(&config, &dir.join("out"), &[]);
        assert_eq!(run.status.code(), Some(1), "{}", text(&run));
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    let path = config.display().to_string();

    // A wrong type: line 1, column 23 is where the value starts.
    let err = refused(&format!("border_tolerance_ft = \"ten\"\n{layers}"));
    assert!(
        err.contains(&format!("{path}:1:23: border_tolerance_ft: found string \"ten\", expected a number")),
        "{err}"
    );
    assert!(err.contains("1 | border_tolerance_ft = \"ten\""), "{err}");
    assert!(err.contains("for example: border_tolerance_ft = 10.0"), "{err}");

    // An unknown key, one letter pair swapped.
    let err = refused(&format!("{layers}\n[fields]\nparcel_twon = \"CITYTOWN_N\"\n"));
    assert!(
        err.contains(&format!("{path}:6:1: [fields] parcel_twon: unknown key `parcel_twon` in [fields]")),
        "{err}"
    );
    assert!(err.contains("did you mean `parcel_town`?"), "{err}");

    // A layer key misspelt, in [layers].
    let err = refused("[layers]\nparcel = \"Tax_Parcels_2024.shp\"\n");
    assert!(
        err.contains(&format!("{path}:2:1: [layers] parcel: unknown key"))
            && err.contains("did you mean `parcels`?"),
        "{err}"
    );

    // A number where field names belong.
    let err = refused(&format!("{layers}\n[fields]\nparcel_id = 7\n"));
    assert!(err.contains(&format!("{path}:6:13: [fields] parcel_id:")), "{err}");
    assert!(err.contains("expected a field name in quotes or a list of them in brackets"), "{err}");
    assert!(err.contains("for example: parcel_id = [\"SWIS\", \"PRINT_KEY\"]"), "{err}");

    // One field name for the id is a list of one: scheduled, the id from SWIS_SBL_I.
    fs::write(&config, format!("{layers}\n[fields]\nparcel_id = \"SWIS_SBL_I\"\n")).unwrap();
    let watershed = dir.join("Owasco_Watershed.geojson");
    let run = schedule(&config, &dir.join("out"), &["-v", "--watershed", watershed.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run)); // the bow-tie
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("parcel id       SWIS_SBL_I (set in [fields])"),
        "{}",
        text(&run)
    );
    let _ = fs::remove_dir_all(dir);
}

/// Each New York naming of the parcel id, town, owner, address and mailing fields, as the statewide schema
/// writes it and as a shapefile cuts it, is taken for the part it names.
#[test]
fn parcel_schema_detection_table() {
    use lakeshore::classify::fields::FieldNames;
    use lakeshore::classify::parcels::ParcelSchema;
    let detect = |fields: &[&str]| {
        let fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        ParcelSchema::detect(&fields, &FieldNames::default(), Path::new("p.shp")).unwrap()
    };
    let s = detect(&["SWIS", "PRINT_KEY", "SBL", "MUNI_NAME", "PRIMARY_OWNER", "LOC_ST_NBR", "LOC_STREET"]);
    assert_eq!(s.id, ["SWIS", "PRINT_KEY"]);
    assert_eq!(s.location, ["LOC_ST_NBR", "LOC_STREET"]);
    assert_eq!(s.owner.as_deref(), Some("PRIMARY_OWNER"));
    let s =
        detect(&["SWIS_SBL_ID", "CITYTOWN_NAME", "OWNER_NAME", "PARCEL_ADDR", "MAILING_ADDRESS", "MAIL_ZIP"]);
    assert_eq!(s.id, ["SWIS_SBL_ID"]);
    assert_eq!(s.town.as_deref(), Some("CITYTOWN_NAME"));
    assert_eq!(s.owner.as_deref(), Some("OWNER_NAME"));
    assert_eq!(s.location, ["PARCEL_ADDR"]);
    assert_eq!(s.mailing.street.as_deref(), Some("MAILING_ADDRESS"));
    let s = detect(&["swis_print", "citytown_n", "primary_ow", "mailing_ci", "mailing_st"]);
    assert_eq!(s.id, ["swis_print"]);
    assert_eq!(s.town.as_deref(), Some("citytown_n"));
    assert_eq!(s.owner.as_deref(), Some("primary_ow"));
    assert_eq!(s.mailing.city.as_deref(), Some("mailing_ci"));
    assert_eq!(s.mailing.state.as_deref(), Some("mailing_st"));
    assert_eq!(detect(&["SBL", "MUNI_NAME", "OWNER"]).id, ["SBL"]);
    assert_eq!(detect(&["SWIS", "SBL", "OWNER"]).id, ["SWIS", "SBL"]);
    assert_eq!(detect(&["PARCEL_ID", "SWIS", "PRINT_KEY"]).id, ["PARCEL_ID"]);
    let err =
        ParcelSchema::detect(&["ACRES".to_string()], &FieldNames::default(), Path::new("p.shp")).unwrap_err();
    let err = err.to_string();
    assert!(
        err.contains("fields found: ACRES") && err.contains("parcel_id = [\"SWIS\", \"PRINT_KEY\"]"),
        "{err}"
    );
}
