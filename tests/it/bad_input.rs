//! The `lakeshore` binary on broken inputs: every case is a small county built at test time in a fresh
//! temporary folder (a parcels shapefile written with the `shapefile` crate, an Owasco Lake shoreline as
//! GeoJSON, a config file), then damaged in one way.
//!
//! The contract checked (ARCHITECTURE.md, "Invariants"):
//!
//! - a file that cannot be used as a whole stops the run with exit code 1 and a message on stderr that names
//!   the file and says what to do;
//! - a bad record is reported (stderr and `problems.csv`, naming the file and the record or line, saying what
//!   to do), the run carries on and exits with 2, and **every input parcel appears in `schedule.csv` exactly
//!   once**, the bad one `unscheduled` with the reason;
//! - nothing panics.
//!
//! Coordinates are EPSG:2261 (NAD83 / New York Central, US survey feet) near the north end of Owasco Lake,
//! x ≈ 837 000, y ≈ 1 037 000. The expected tiers of the clean fixture are worked out by hand below, from the
//! geometry and the Cayuga County rules (`data/rules/cayuga-county-art-v.toml`).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use shapefile::dbase::{FieldName, FieldValue, Record, TableWriterBuilder};
use shapefile::{Point, Polygon, PolygonRing, Writer};

const AS_OF: &str = "2027-01-15";

/// The ESRI WKT of EPSG:2261, as ArcGIS writes it into a `.prj`.
const PRJ_2261: &str = concat!(
    r#"PROJCS["NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet","#,
    r#"GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983","#,
    r#"SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#,
    r#"UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#,
    r#"PARAMETER["False_Easting",820208.3333333333],PARAMETER["False_Northing",0.0],"#,
    r#"PARAMETER["Central_Meridian",-76.58333333333333],PARAMETER["Scale_Factor",0.9999375],"#,
    r#"PARAMETER["Latitude_Of_Origin",40.0],UNIT["Foot_US",0.3048006096012192]]"#
);

/// The lake: a 2 400 ft × 3 000 ft rectangle whose south shore is the line y = 1 037 500.
const LAKE: [(f64, f64); 5] = [
    (835_800.0, 1_037_500.0),
    (838_200.0, 1_037_500.0),
    (838_200.0, 1_040_500.0),
    (835_800.0, 1_040_500.0),
    (835_800.0, 1_037_500.0),
];
const SHORE_Y: f64 = 1_037_500.0;
/// The (made-up) SWIS code of every fixture parcel.
const SWIS: &str = "055689";

// ---------------------------------------------------------------------------------------------------------
// Fixtures

/// A fresh folder under the system temp dir, removed on drop unless `KEEP_FIXTURES` is set.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = crate::scratch::root().join(format!("bad-input-{name}-{n}"));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("KEEP_FIXTURES").is_none() {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

/// What a parcel record's shape is.
#[derive(Debug, Clone)]
enum Shape {
    /// An axis-aligned square with its south-west corner at (x, y).
    Square { x: f64, y: f64, size: f64 },
    /// One outer ring written exactly as given (the writer only closes it if it is open).
    Ring(Vec<(f64, f64)>),
    /// A null shape record (shape type 0, no geometry).
    Null,
}

/// One record of the parcels fixture.
#[derive(Debug, Clone)]
struct Spec {
    print_key: String,
    muni: String,
    shape: Shape,
}

impl Spec {
    fn new(print_key: &str, muni: &str, shape: Shape) -> Self {
        Spec { print_key: print_key.to_string(), muni: muni.to_string(), shape }
    }

    /// The id the schedule must show: SWIS-PRINT_KEY, or none when PRINT_KEY is empty.
    fn id(&self) -> Option<String> {
        (!self.print_key.is_empty()).then(|| format!("{SWIS}-{}", self.print_key))
    }
}

fn square(x: f64, y: f64, size: f64) -> Shape {
    Shape::Square { x, y, size }
}

/// The clean fixture, with the tier each parcel must get (derived by hand):
///
/// 1-3. 200 ft squares whose north edge lies on the shore line: they border the mean-high-water line and no
///      system location is known, so Art. V §IV.A.1 ¶1 applies: `lakefront`.
/// 4.   200 ft square 300 ft south of the shore: not bordering (> 10 ft), within 500 ft: `near-shore`.
/// 5.   200 ft square 2 300 ft south: no watershed layer is given, so the watershed rule cannot match;
///      Town of Owasco is in the 2009 cohort of §IV.A.2: `county`.
fn clean_parcels() -> Vec<Spec> {
    vec![
        Spec::new("122.05-1-3", "Owasco", square(836_100.0, SHORE_Y - 200.0, 200.0)),
        Spec::new("122.05-1-1", "Owasco", square(836_400.0, SHORE_Y - 200.0, 200.0)),
        Spec::new("122.05-1-2", "Town of Owasco", square(836_700.0, SHORE_Y - 200.0, 200.0)),
        Spec::new("122.09-2-7", "Owasco", square(836_400.0, SHORE_Y - 500.0, 200.0)),
        Spec::new("131.00-1-15", "Owasco", square(836_400.0, SHORE_Y - 2_500.0, 200.0)),
    ]
}

const CLEAN_TIERS: [&str; 5] = ["lakefront", "lakefront", "lakefront", "near-shore", "county"];

/// How to write the parcels shapefile.
#[derive(Debug, Clone, Copy)]
struct ShpOptions<'a> {
    /// The `.prj` text; `None` writes no `.prj`.
    prj: Option<&'a str>,
    /// Write the `.dbf` with the last record left out.
    dbf_one_short: bool,
}

impl Default for ShpOptions<'_> {
    fn default() -> Self {
        ShpOptions { prj: Some(PRJ_2261), dbf_one_short: false }
    }
}

fn field(name: &str) -> FieldName {
    FieldName::try_from(name).unwrap_or_else(|e| panic!("field name {name}: {e:?}"))
}

fn parcel_table() -> TableWriterBuilder {
    TableWriterBuilder::new()
        .add_character_field(field("SWIS"), 6)
        .add_character_field(field("PRINT_KEY"), 20)
        .add_character_field(field("MUNI_NAME"), 30)
}

fn parcel_record(spec: &Spec) -> Record {
    let text = |s: &str| FieldValue::Character(Some(s.to_string()));
    Record::from(HashMap::from([
        ("SWIS".to_string(), text(SWIS)),
        ("PRINT_KEY".to_string(), text(&spec.print_key)),
        ("MUNI_NAME".to_string(), text(&spec.muni)),
    ]))
}

fn polygon_of(shape: &Shape) -> Polygon {
    let ring: Vec<Point> = match shape {
        // Clockwise, as shapefile outer rings are.
        Shape::Square { x, y, size } => [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
            .iter()
            .map(|(dx, dy)| Point::new(x + dx * size, y + dy * size))
            .collect(),
        Shape::Ring(points) => points.iter().map(|&(x, y)| Point::new(x, y)).collect(),
        // A placeholder, replaced by a null record after writing.
        Shape::Null => return polygon_of(&square(0.0, 0.0, 1.0)),
    };
    Polygon::with_rings(vec![PolygonRing::Outer(ring)])
}

/// Writes `specs` as `<dir>/<stem>.shp` (+ `.shx`, `.dbf`, `.prj`); returns the `.shp`.
fn write_parcels(dir: &TempDir, stem: &str, specs: &[Spec], options: ShpOptions) -> PathBuf {
    let shp = dir.path(&format!("{stem}.shp"));
    {
        let mut writer = Writer::from_path(&shp, parcel_table()).expect("create the parcels shapefile");
        for spec in specs {
            writer
                .write_shape_and_record(&polygon_of(&spec.shape), &parcel_record(spec))
                .expect("write a parcel");
        }
    }
    let nulls: Vec<usize> =
        specs.iter().enumerate().filter(|(_, s)| matches!(s.shape, Shape::Null)).map(|(i, _)| i).collect();
    if !nulls.is_empty() {
        make_null_records(&shp, &nulls);
    }
    if options.dbf_one_short {
        let dbf = shp.with_extension("dbf");
        let mut table = parcel_table().build_with_file_dest(&dbf).expect("create the short .dbf");
        for spec in &specs[..specs.len() - 1] {
            table.write_record(&parcel_record(spec)).expect("write a .dbf record");
        }
        table.finalize().expect("finish the short .dbf");
    }
    if let Some(prj) = options.prj {
        fs::write(shp.with_extension("prj"), prj).expect("write the .prj");
    }
    shp
}

/// Rewrites the `.shp` and `.shx` so that the records at the 0-based `indices` are null shapes (the writer
/// cannot write one into a polygon file). Layout: 100-byte header with the file length in 16-bit words at
/// byte 24 (big-endian); each record is an 8-byte header (number, content length in words, big-endian)
/// followed by its content, which for a null shape is the shape type 0 (little-endian i32).
fn make_null_records(shp: &Path, indices: &[usize]) {
    let data = fs::read(shp).expect("read back the .shp");
    let be = |b: &[u8]| i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let mut contents = Vec::new();
    let mut at = 100;
    while at < data.len() {
        let words = be(&data[at + 4..at + 8]) as usize;
        contents.push(data[at + 8..at + 8 + 2 * words].to_vec());
        at += 8 + 2 * words;
    }
    for &i in indices {
        contents[i] = 0i32.to_le_bytes().to_vec();
    }
    let mut shp_out = data[..100].to_vec();
    let shx = shp.with_extension("shx");
    let mut shx_out = fs::read(&shx).expect("read back the .shx")[..100].to_vec();
    for (n, content) in contents.iter().enumerate() {
        let offset_words = (shp_out.len() / 2) as i32;
        let words = (content.len() / 2) as i32;
        shp_out.extend_from_slice(&(n as i32 + 1).to_be_bytes());
        shp_out.extend_from_slice(&words.to_be_bytes());
        shp_out.extend_from_slice(content);
        shx_out.extend_from_slice(&offset_words.to_be_bytes());
        shx_out.extend_from_slice(&words.to_be_bytes());
    }
    let shp_len = (shp_out.len() / 2) as i32;
    shp_out[24..28].copy_from_slice(&shp_len.to_be_bytes());
    let shx_len = (shx_out.len() / 2) as i32;
    shx_out[24..28].copy_from_slice(&shx_len.to_be_bytes());
    fs::write(shp, shp_out).expect("rewrite the .shp");
    fs::write(shx, shx_out).expect("rewrite the .shx");
}

/// A county folder: the shoreline (GeoJSON in EPSG:2261 with a legacy `crs` member) and `county.toml`.
fn county(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    let ring: Vec<String> = LAKE.iter().map(|(x, y)| format!("[{x:.1}, {y:.1}]")).collect();
    let shoreline = format!(
        r#"{{"type": "FeatureCollection",
  "crs": {{"type": "name", "properties": {{"name": "urn:ogc:def:crs:EPSG::2261"}}}},
  "features": [
    {{"type": "Feature", "properties": {{"NAME": "Owasco Lake"}},
      "geometry": {{"type": "Polygon", "coordinates": [[{}]]}}}}
  ]
}}
"#,
        ring.join(", ")
    );
    fs::write(dir.path("watershed.geojson"), common::watershed_around(&shoreline, 1.0)).expect("watershed");
    fs::write(dir.path("shoreline.geojson"), shoreline).expect("write the shoreline");
    let config =
        "crs = \"EPSG:2261\"\n\n[layers]\nshoreline = \"shoreline.geojson\"\nwatershed = \"watershed.geojson\"\n";
    fs::write(dir.path("county.toml"), config).expect("write county.toml");
    dir
}

// ---------------------------------------------------------------------------------------------------------
// Running the binary

/// What a run of `lakeshore schedule` left behind.
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    out: PathBuf,
}

impl Outcome {
    fn describe(&self) -> String {
        format!("exit code {:?}\n--- stdout\n{}\n--- stderr\n{}", self.code, self.stdout, self.stderr)
    }

    /// Exit code `code`, and no panic.
    fn assert_exit(&self, code: i32) {
        assert!(!self.stderr.contains("panicked"), "lakeshore panicked:\n{}", self.describe());
        assert_eq!(self.code, Some(code), "wrong exit code:\n{}", self.describe());
    }

    fn schedule(&self) -> Vec<BTreeMap<String, String>> {
        read_csv(&self.out.join("schedule.csv")).unwrap_or_else(|e| panic!("{e}\n{}", self.describe()))
    }

    fn problems(&self) -> Vec<BTreeMap<String, String>> {
        read_csv(&self.out.join("problems.csv")).unwrap_or_else(|e| panic!("{e}\n{}", self.describe()))
    }

    /// The error line(s) of a run that stopped.
    fn error(&self) -> String {
        self.stderr.lines().filter(|l| l.contains("error")).collect::<Vec<_>>().join("\n")
    }
}

/// Runs `lakeshore schedule --config <dir>/county.toml --as-of AS_OF --out <dir>/<out>` plus `args` (which
/// replace `--as-of AS_OF` when they hold an `--as-of` of their own).
fn run_in(dir: &TempDir, out: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let out = dir.path(out);
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg("schedule")
        .arg("--config")
        .arg(dir.path("county.toml"))
        .args(if args.contains(&"--as-of") { &[][..] } else { &["--as-of", AS_OF][..] })
        .arg("--out")
        .arg(&out)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("cannot run the lakeshore binary");
    Outcome {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        out,
    }
}

fn run(dir: &TempDir, args: &[&str]) -> Outcome {
    run_in(dir, "out", args, &[])
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}

// ---------------------------------------------------------------------------------------------------------
// Reading the outputs

use crate::common::{self, csv_records};

/// The rows of a CSV file as maps column -> value.
fn read_csv(path: &Path) -> Result<Vec<BTreeMap<String, String>>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut records = csv_records(&text).into_iter();
    let header = records.next().ok_or_else(|| format!("{} is empty", path.display()))?;
    let mut rows = Vec::new();
    for (n, record) in records.enumerate() {
        if record.len() != header.len() {
            return Err(format!(
                "{} line {} has {} fields, the header {}",
                path.display(),
                n + 2,
                record.len(),
                header.len()
            ));
        }
        rows.push(header.iter().cloned().zip(record).collect());
    }
    Ok(rows)
}

/// Checks the invariant: one row per input record (by the `record` column), no other rows, and as many rows
/// per parcel id as the fixture has records with that id. Returns the rows by record number.
fn rows_by_record(outcome: &Outcome, specs: &[Spec]) -> BTreeMap<usize, BTreeMap<String, String>> {
    let rows = outcome.schedule();
    assert_eq!(rows.len(), specs.len(), "schedule.csv must have one row per input parcel:\n{rows:#?}");
    let mut by_record = BTreeMap::new();
    for row in rows {
        let record: usize = row["record"].parse().unwrap_or_else(|_| panic!("record column: {row:?}"));
        assert!((1..=specs.len()).contains(&record), "row for a record the input does not have: {row:?}");
        let id = row["parcel_id"].clone();
        assert!(!id.is_empty(), "every row needs a parcel_id (or a placeholder): {row:?}");
        assert!(by_record.insert(record, row).is_none(), "record {record} appears twice in schedule.csv");
    }
    let mut want: BTreeMap<String, usize> = BTreeMap::new();
    for id in specs.iter().filter_map(Spec::id) {
        *want.entry(id).or_default() += 1;
    }
    for (id, count) in &want {
        let got = by_record.values().filter(|r| &r["parcel_id"] == id).count();
        assert_eq!(got, *count, "parcel {id}: {got} row(s) in schedule.csv, {count} in the input");
    }
    for (record, spec) in specs.iter().enumerate() {
        if let Some(id) = spec.id() {
            assert_eq!(by_record[&(record + 1)]["parcel_id"], id, "record {} has the wrong id", record + 1);
        }
    }
    by_record
}

/// Whether `message` ends by saying `fix`: the remedy this case calls for, after the message has said what is
/// wrong (a `:` or `;` before the remedy).
fn says_the_fix(message: &str, fix: &str) -> bool {
    message.find(fix).is_some_and(|at| message[..at].contains([':', ';']))
}

/// A bad record is reported on stderr and in `problems.csv`: naming `file`, `record` ("record 3", "line 2"),
/// containing every one of `about` (case-insensitive), and saying the remedy `fix`.
fn assert_reported(outcome: &Outcome, file: &str, record: &str, about: &[&str], fix: &str) {
    let mentions = |text: &str| about.iter().all(|a| text.to_lowercase().contains(&a.to_lowercase()));
    let line =
        outcome.stderr.lines().find(|l| l.contains(file) && l.contains(&format!("{record}:")) && mentions(l));
    let line = line.unwrap_or_else(|| {
        panic!("stderr has no problem naming {file}, {record} and {about:?}:\n{}", outcome.describe())
    });
    assert!(says_the_fix(line, fix), "the problem does not say {fix:?}: {line}");

    let problems = outcome.problems();
    let row = problems
        .iter()
        .find(|p| p["file"].ends_with(file) && p["record"] == record && mentions(&p["problem"]));
    let row = row
        .unwrap_or_else(|| panic!("problems.csv has no row for {file}, {record}, {about:?}: {problems:#?}"));
    assert!(says_the_fix(&row["problem"], fix), "problems.csv does not say {fix:?}: {row:?}");
}

/// A run that stopped: exit code 1, an error on stderr naming `file` and containing each of `about`
/// (case-insensitive), saying the remedy `fix`, and no schedule written.
fn assert_stopped(outcome: &Outcome, file: &str, about: &[&str], fix: &str) {
    outcome.assert_exit(1);
    let error = outcome.error();
    assert!(error.contains(file), "the error does not name {file}:\n{}", outcome.describe());
    for a in about {
        assert!(
            error.to_lowercase().contains(&a.to_lowercase()),
            "the error does not mention {a:?}:\n{error}"
        );
    }
    assert!(says_the_fix(&error, fix), "the error does not say {fix:?}:\n{error}");
    assert!(!outcome.out.join("schedule.csv").exists(), "a stopped run must not write a schedule");
}

/// The row is unscheduled, with a reason containing each of `about` (case-insensitive).
fn assert_unscheduled(row: &BTreeMap<String, String>, about: &[&str]) {
    assert_eq!(row["tier"], "unscheduled", "{row:#?}");
    let reason = row["reason"].to_lowercase();
    assert!(!reason.is_empty(), "an unscheduled row needs a reason: {row:#?}");
    for a in about {
        assert!(reason.contains(&a.to_lowercase()), "reason {:?} does not mention {a:?}", row["reason"]);
    }
    for column in ["cycle_years", "next_due"] {
        assert_eq!(row[column], "", "an unscheduled row has no {column}: {row:#?}");
    }
}

/// Every row except those of `bad` records has the tier the clean fixture gives it.
fn assert_others_scheduled(rows: &BTreeMap<usize, BTreeMap<String, String>>, bad: &[usize]) {
    for (record, row) in rows {
        if !bad.contains(record) && *record <= CLEAN_TIERS.len() {
            assert_eq!(row["tier"], CLEAN_TIERS[record - 1], "record {record}: {row:#?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// The fixture itself

/// The ESRI `.prj` text used by every fixture is understood as EPSG:2261, so the other cases test what they
/// claim to and not a CRS mismatch.
#[test]
fn esri_prj_of_epsg_2261_is_understood() {
    let crs = lakeshore::crs::Crs::parse(PRJ_2261).expect("the ESRI WKT of EPSG:2261 must parse");
    assert_eq!(crs.epsg(), Some(2261), "{crs:?}");
}

/// The clean fixture runs clean: exit 0, no problems, every parcel once with the tier derived by hand.
#[test]
fn clean_fixture_runs_clean() {
    let dir = county("clean");
    let specs = clean_parcels();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(0);
    assert!(outcome.problems().is_empty(), "{:#?}", outcome.problems());
    let rows = rows_by_record(&outcome, &specs);
    assert_others_scheduled(&rows, &[]);
}

// ---------------------------------------------------------------------------------------------------------
// Bad files: exit 1

/// A parcels file that does not exist stops the run; the error names that file (not a sibling of it).
#[test]
fn missing_parcels_file() {
    let dir = county("missing");
    let missing = dir.path("no_such_parcels.shp");
    let outcome = run(&dir, &["--parcels", arg(&missing)]);
    assert_stopped(&outcome, "no_such_parcels.shp", &[], "check the path given on the command line");
    let error = outcome.error();
    assert!(
        error.contains("not found") || error.contains("No such file"),
        "the error should say the file is not there:\n{error}"
    );
    // The whole layer is missing, not just its attribute table: blaming the .dbf sends the user looking for
    // the wrong file.
    assert!(!error.contains(".dbf"), "the error blames the .dbf for a missing .shp:\n{error}");
}

/// A shapefile without `.prj` stops the run, and the message points to `.prj` and `--assume-crs`.
#[test]
fn shapefile_without_prj() {
    let dir = county("no-prj");
    let shp =
        write_parcels(&dir, "parcels", &clean_parcels(), ShpOptions { prj: None, ..Default::default() });
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    assert_stopped(
        &outcome,
        "parcels.shp",
        &[".prj"],
        "add a .prj next to it or pass --assume-crs EPSG:nnnn",
    );
}

/// The same shapefile without `.prj` runs clean with `--assume-crs EPSG:2261`, with the hand-derived tiers
/// (so the assumed CRS really was used).
#[test]
fn shapefile_without_prj_with_assume_crs() {
    let dir = county("assume-crs");
    let specs = clean_parcels();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions { prj: None, ..Default::default() });
    let outcome = run(&dir, &["--parcels", arg(&shp), "--assume-crs", "EPSG:2261"]);
    outcome.assert_exit(0);
    let rows = rows_by_record(&outcome, &specs);
    assert_others_scheduled(&rows, &[]);
}

/// A `.prj` that is not a CRS at all stops the run; the error names the `.prj` and suggests `--assume-crs`.
#[test]
fn garbage_wkt_in_prj() {
    let dir = county("garbage-prj");
    let garbage = r#"PROJCS["Mystery Grid",GEOGCS[this is not WKT"#;
    let shp = write_parcels(
        &dir,
        "parcels",
        &clean_parcels(),
        ShpOptions { prj: Some(garbage), ..Default::default() },
    );
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    assert_stopped(&outcome, "parcels.prj", &[], "fix the .prj or pass --assume-crs EPSG:nnnn");
}

/// A `.dbf` with one record fewer than the `.shp` stops the run: the attributes cannot be matched to shapes.
#[test]
fn dbf_record_count_differs_from_shp() {
    let dir = county("dbf-short");
    let specs = clean_parcels();
    let shp =
        write_parcels(&dir, "parcels", &specs, ShpOptions { dbf_one_short: true, ..Default::default() });
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    let (short, full) = (specs.len() - 1, specs.len());
    assert_stopped(&outcome, "parcels.dbf", &[&short.to_string(), &full.to_string()], "re-export the layer");
}

/// A `.dbf` holding two columns of the id's name (a column renamed in the GIS to its neighbour's name, in
/// another case) stops the run naming the `.dbf` and both columns: the ids could be read from either.
#[test]
fn two_columns_of_the_id_fields_name_stop_the_run() {
    let dir = county("dbf-two-print-keys");
    let shp = write_parcels(&dir, "parcels", &clean_parcels(), ShpOptions::default());
    // The third field descriptor (MUNI_NAME) starts at byte 32 + 2 × 32; its name is 11 bytes, NUL-padded.
    let dbf = shp.with_extension("dbf");
    let mut bytes = fs::read(&dbf).unwrap();
    assert_eq!(&bytes[96..105], b"MUNI_NAME");
    bytes[96..107].copy_from_slice(b"print_key\0\0");
    fs::write(&dbf, bytes).unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    assert_stopped(
        &outcome,
        "parcels.dbf",
        &["fields 2 and 3 are both named 'PRINT_KEY'"],
        "rename or remove the other in the GIS",
    );
}

/// A parcels layer with no id field (neither PARCEL_ID nor SWIS + PRINT_KEY) stops the run; the error lists
/// the fields the file has.
#[test]
fn unknown_parcel_schema() {
    let dir = county("schema");
    let shp = dir.path("parcels.shp");
    {
        let table = TableWriterBuilder::new()
            .add_character_field(field("OWNER"), 30)
            .add_numeric_field(field("ACRES"), 10, 2)
            .add_character_field(field("ROAD"), 30);
        let mut writer = Writer::from_path(&shp, table).expect("create the shapefile");
        let record = Record::from(HashMap::from([
            ("OWNER".to_string(), FieldValue::Character(Some("Smith".into()))),
            ("ACRES".to_string(), FieldValue::Numeric(Some(0.92))),
            ("ROAD".to_string(), FieldValue::Character(Some("East Lake Rd".into()))),
        ]));
        writer
            .write_shape_and_record(&polygon_of(&square(836_100.0, SHORE_Y - 200.0, 200.0)), &record)
            .unwrap();
    }
    fs::write(shp.with_extension("prj"), PRJ_2261).unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    assert_stopped(
        &outcome,
        "parcels.shp",
        &["OWNER", "ACRES", "ROAD", "PARCEL_ID"],
        "name it in the config's [fields] section",
    );
}

/// A GeoJSON parcels file that is not JSON stops the run; the error names the file and the line. One that is
/// a CSV table under the name says what it looks like.
#[test]
fn geojson_parcels_not_json() {
    let dir = county("not-json");
    let path = dir.path("parcels.geojson");
    fs::write(&path, "{\"type\": \"FeatureCollection\",\n \"features\": [oops]}\n").unwrap();
    let outcome = run(&dir, &["--parcels", arg(&path)]);
    assert_stopped(&outcome, "parcels.geojson", &["line 2"], "correct the file or re-export it");
    fs::write(&path, "SWIS,PRINT_KEY,MUNI_NAME\n055689,122.05-1-1,Owasco\n").unwrap();
    let outcome = run(&dir, &["--parcels", arg(&path)]);
    assert_stopped(
        &outcome,
        "parcels.geojson",
        &["looks like a table of text (CSV)"],
        "export it from the GIS",
    );
}

/// An unknown `--format` stops the run before anything is read or written and lists the formats there are.
#[test]
fn unknown_format() {
    let dir = county("format");
    let shp = write_parcels(&dir, "parcels", &clean_parcels(), ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp), "--format", "csv,kml"]);
    outcome.assert_exit(1);
    // The error names the bad value, and the line after it lists the values the flag takes.
    let error = &outcome.stderr;
    assert!(error.contains("invalid value 'kml' for '--format"), "{}", outcome.describe());
    assert!(error.contains("[possible values: csv, geojson, parquet, gpkg"), "{}", outcome.describe());
    assert!(!outcome.out.join("schedule.csv").exists(), "nothing may be written with a bad --format");
}

/// A bad `--as-of` (not YYYY-MM-DD, or not a calendar day) stops the run and shows the expected form.
#[test]
fn bad_as_of() {
    let dir = county("as-of");
    let shp = write_parcels(&dir, "parcels", &clean_parcels(), ShpOptions::default());
    for bad in ["15/01/2027", "2027-02-30"] {
        let out = format!("out-{}", bad.replace('/', "_"));
        let outcome = run_in(&dir, &out, &["--parcels", arg(&shp), "--as-of", bad], &[]);
        outcome.assert_exit(1);
        let error = outcome.error();
        for word in ["--as-of", bad, "YYYY-MM-DD"] {
            assert!(error.contains(word), "the error should mention {word}:\n{}", outcome.describe());
        }
        assert!(says_the_fix(&error, "write it as YYYY-MM-DD"), "{error}");
        assert!(!outcome.out.join("schedule.csv").exists(), "nothing may be written with a bad --as-of");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Bad records: exit 2, every parcel still in the schedule once

/// A null shape record is reported by record number; the parcel is listed unscheduled.
#[test]
fn null_shape_record() {
    let dir = county("null-shape");
    let mut specs = clean_parcels();
    specs[2].shape = Shape::Null;
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(2);
    assert_reported(
        &outcome,
        "parcels.shp",
        "record 3",
        &["null shape"],
        "draw its shape or delete the record",
    );
    let rows = rows_by_record(&outcome, &specs);
    assert_unscheduled(&rows[&3], &["null shape"]);
    assert_others_scheduled(&rows, &[3]);
}

/// A `.shp` cut after its header (its `.shx` still listing every record): no parcel has a shape, and the run
/// stops saying the layer is damaged, with the first record's defect, not that the parcels lie in towns the
/// rule set does not know.
#[test]
fn a_shp_cut_after_its_header_stops_naming_the_damage() {
    let dir = county("cut-shp");
    let shp = write_parcels(&dir, "parcels", &clean_parcels(), ShpOptions::default());
    let bytes = std::fs::read(&shp).unwrap();
    std::fs::write(&shp, &bytes[..100]).unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    assert_stopped(
        &outcome,
        "parcels.shp",
        &["could not be classified", "(the first, record ", "the .shp has 100 bytes"],
        "re-export it from the GIS",
    );
    assert!(!outcome.error().contains("towns"), "{}", outcome.error());
}

/// A polygon ring of three points (two distinct, closed) is reported; the parcel is listed unscheduled.
#[test]
fn polygon_ring_with_fewer_than_four_points() {
    let dir = county("short-ring");
    let mut specs = clean_parcels();
    specs[1].shape =
        Shape::Ring(vec![(836_400.0, 1_037_300.0), (836_600.0, 1_037_500.0), (836_400.0, 1_037_300.0)]);
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(2);
    assert_reported(
        &outcome,
        "parcels.shp",
        "record 2",
        &["ring"],
        "redraw the polygon or remove its degenerate ring",
    );
    let rows = rows_by_record(&outcome, &specs);
    assert_unscheduled(&rows[&2], &["ring"]);
    assert_others_scheduled(&rows, &[2]);
}

/// A vertex with NaN coordinates is reported; the parcel is listed unscheduled.
#[test]
fn nan_coordinates() {
    let dir = county("nan");
    let mut specs = clean_parcels();
    let (x, y) = (836_400.0, SHORE_Y - 500.0);
    specs[3].shape = Shape::Ring(vec![(x, y), (x, y + 200.0), (f64::NAN, f64::NAN), (x + 200.0, y), (x, y)]);
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(2);
    assert_reported(&outcome, "parcels.shp", "record 4", &["NaN"], "repair or redraw the geometry");
    let rows = rows_by_record(&outcome, &specs);
    assert_unscheduled(&rows[&4], &["NaN"]);
    assert_others_scheduled(&rows, &[4]);
}

/// Two records with the same SWIS + PRINT_KEY: the second is reported (naming the first) and listed
/// unscheduled; both records stay in the schedule.
#[test]
fn duplicate_parcel_id() {
    let dir = county("duplicate");
    let mut specs = clean_parcels();
    specs[3].print_key = specs[0].print_key.clone();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(2);
    assert_reported(
        &outcome,
        "parcels.shp",
        "record 4",
        &["duplicate", "record 1"],
        "give each parcel its own id or merge the records",
    );
    let rows = rows_by_record(&outcome, &specs);
    assert_unscheduled(&rows[&4], &["duplicate"]);
    assert_others_scheduled(&rows, &[1, 4]);
}

/// An empty PRINT_KEY leaves the parcel without an id: reported, listed unscheduled (under a placeholder id).
#[test]
fn parcel_id_missing() {
    let dir = county("no-id");
    let mut specs = clean_parcels();
    specs[4].print_key = String::new();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(2);
    assert_reported(&outcome, "parcels.shp", "record 5", &["PRINT_KEY"], "fill it in the parcels layer");
    let rows = rows_by_record(&outcome, &specs);
    assert_unscheduled(&rows[&5], &["no parcel id"]);
    assert_others_scheduled(&rows, &[5]);
}

/// A parcel whose MUNI_NAME is not a municipality of Cayuga County (Skaneateles is in Onondaga County) is a
/// bad record: reported, naming the town, and listed unscheduled with the reason. Checked for a parcel on the
/// lake shore (where no rule names a town, so only the town tells that the record is wrong) and for an
/// inland one (where the town picks the cohort).
#[test]
fn unknown_town() {
    let dir = county("town");
    let mut specs = clean_parcels();
    // One on the lake shore (where no rule names a town) and one inland (where only town cohorts apply).
    // Art. V §IV.A.1 ¶1 "All parcels bordering Owasco Lake" names no town: the shore lot stays lakefront; the
    // inland lot could only be placed by its town's cohort (§IV.A.2), so it is held back. Both are reported.
    specs[0].muni = "Skaneateles".to_string();
    specs[4].muni = "Skaneateles".to_string();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let outcome = run(&dir, &["--parcels", arg(&shp)]);
    outcome.assert_exit(2);
    let rows = rows_by_record(&outcome, &specs);
    for record in [1, 5] {
        let fix = "use one of the rule set's municipalities";
        assert_reported(&outcome, "parcels.shp", &format!("record {record}"), &["Skaneateles"], fix);
    }
    assert_eq!(rows[&1]["tier"], "lakefront", "{:#?}", rows[&1]);
    assert!(rows[&1]["reason"].contains("town unknown ('Skaneateles')"), "{:#?}", rows[&1]);
    assert_unscheduled(&rows[&5], &["Skaneateles"]);
    assert_others_scheduled(&rows, &[5]);
}

/// History rows with an impossible date (2026-13-45) or a date after `--as-of` are reported by line and not
/// counted, and so is a row naming a parcel that is not in the layer; the parcels are all still scheduled, and a
/// valid row is counted.
#[test]
fn bad_dates_in_history() {
    let dir = county("history");
    let specs = clean_parcels();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let ids: Vec<String> = specs.iter().filter_map(Spec::id).collect();
    let history = dir.path("history.csv");
    let text = format!(
        "parcel_id,inspection_date,result\n{},2026-13-45,pass\n{},2027-03-01,pass\n{},2025-06-10,pass\n\
         054689-999.99-9-9,2019-08-01,pass\n",
        ids[0], ids[1], ids[2]
    );
    fs::write(&history, text).unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp), "--history", arg(&history)]);
    outcome.assert_exit(2);
    // The header is line 1.
    assert_reported(&outcome, "history.csv", "line 2", &["2026-13-45"], "write it as YYYY-MM-DD");
    assert_reported(&outcome, "history.csv", "line 3", &["2027-03-01", AS_OF], "check the date or --as-of");
    // A row for a parcel that is not in the layer (a retired print key) is reported, never a schedule row.
    assert_reported(
        &outcome,
        "history.csv",
        "line 5",
        &["054689-999.99-9-9", "not in the parcels layer"],
        "fix the id",
    );
    let rows = rows_by_record(&outcome, &specs);
    assert_others_scheduled(&rows, &[]);
    assert_eq!(rows[&1]["last_inspection"], "", "an unparsable date must not count: {:#?}", rows[&1]);
    assert_eq!(rows[&2]["last_inspection"], "", "a date after --as-of must not count: {:#?}", rows[&2]);
    assert_eq!(rows[&3]["last_inspection"], "2025-06-10", "{:#?}", rows[&3]);
}

/// The report columns that go with the findings and the grandfathering finding are checked cell by cell: an
/// acceptance before the inspection, an expiry that is not a date, a measured distance that is not a number
/// and a yes/no that is neither are each reported by line; the rest of the file counts.
#[test]
fn bad_report_columns_in_history() {
    let dir = county("report-columns");
    let specs = clean_parcels();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let ids: Vec<String> = specs.iter().filter_map(Spec::id).collect();
    let findings = "no,no,yes,yes,2.5,no,no";
    let history = dir.path("history.csv");
    let text = format!(
        "parcel_id,inspection_date,failure,overflow_points,components_working,tank_adequate,separation_ft,\
         valid_permit,meets_75a,report_accepted,permit_issued,permit_expires,watercourse_ft,adequately_functioning\n\
         {a},2026-05-01,{findings},2026-04-20,,,,\n\
         {b},2026-05-01,{findings},,,soon,,\n\
         {c},2026-05-01,{findings},,,,far,perhaps\n",
        a = ids[0],
        b = ids[1],
        c = ids[2],
    );
    fs::write(&history, text).unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp), "--history", arg(&history)]);
    outcome.assert_exit(2);
    assert_reported(
        &outcome,
        "history.csv",
        "line 2",
        &["report_accepted", "before the inspection_date"],
        "fix one of them",
    );
    assert_reported(&outcome, "history.csv", "line 3", &["soon"], "write it as YYYY-MM-DD");
    assert_reported(&outcome, "history.csv", "line 4", &["far"], "write digits");
    assert_reported(&outcome, "history.csv", "line 4", &["perhaps"], "write yes or no");
    let rows = rows_by_record(&outcome, &specs);
    assert_others_scheduled(&rows, &[]);
    assert_eq!(rows[&1]["last_inspection"], "2026-05-01", "{:#?}", rows[&1]);
}

/// The pipes register reports a row without a pipe name, a row naming an unknown parcel and removal or
/// treatment dates that are not dates or lie after the as-of date, by line.
#[test]
fn bad_rows_in_the_pipes_register() {
    let dir = county("pipes-register");
    let specs = clean_parcels();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let ids: Vec<String> = specs.iter().filter_map(Spec::id).collect();
    let pipes = dir.path("pipes.csv");
    fs::write(
        &pipes,
        format!(
            "parcel_id,pipe_id,removed,treated\n{a},D1,,\n{a},,,\n054689-999.99-9-9,D2,,\n{a},D3,last spring,\n{a},D4,,2099-01-01\n",
            a = ids[0]
        ),
    )
    .unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp), "--pipes", arg(&pipes)]);
    outcome.assert_exit(2);
    assert_reported(
        &outcome,
        "pipes.csv",
        "line 3",
        &["no pipe_id"],
        "fill in the pipe's name as its samples name it",
    );
    assert_reported(
        &outcome,
        "pipes.csv",
        "line 4",
        &["054689-999.99-9-9", "not in the parcels layer"],
        "fix the id",
    );
    assert_reported(&outcome, "pipes.csv", "line 5", &["removed 'last spring' is not a date"], "YYYY-MM-DD");
    assert_reported(
        &outcome,
        "pipes.csv",
        "line 6",
        &["treated 2099-01-01 is after the as-of date"],
        "check the date",
    );
    assert_others_scheduled(&rows_by_record(&outcome, &specs), &[]);
}

/// Record files missing a required column stop the run naming the columns found; an inspections file with
/// some findings columns but not all stops it naming the missing ones.
#[test]
fn record_files_without_their_columns_stop_the_run() {
    let dir = county("record-columns");
    let shp = write_parcels(&dir, "parcels", &clean_parcels(), ShpOptions::default());
    let events = dir.path("events.csv");
    fs::write(
        &events,
        "parcel_id,date,kind
",
    )
    .unwrap();
    let outcome = run(&dir, &["--parcels", arg(&shp), "--events", arg(&events)]);
    assert_stopped(
        &outcome,
        "events.csv",
        &["'event'", "found: parcel_id, date, kind"],
        "name it in the config file under [fields.events] as event = \"COLUMN\"",
    );

    let inspections = dir.path("inspections.csv");
    fs::write(
        &inspections,
        "parcel_id,inspection_date,failure,overflow_points
",
    )
    .unwrap();
    let outcome = run_in(&dir, "out-2", &["--parcels", arg(&shp), "--inspections", arg(&inspections)], &[]);
    assert_stopped(
        &outcome,
        "inspections.csv",
        &["components_working", "tank_adequate", "meets_75a"],
        "add them",
    );
}

/// Bad cells of the event, pump-out and sample files are reported by line with what to do; every parcel is
/// still scheduled.
#[test]
fn bad_cells_in_record_files() {
    let dir = county("record-cells");
    let specs = clean_parcels();
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let ids: Vec<String> = specs.iter().filter_map(Spec::id).collect();
    let (a, b) = (&ids[0], &ids[1]);
    let events = dir.path("events.csv");
    fs::write(
        &events,
        format!(
            "parcel_id,date,event,arms_length,expansion_pct
{a},2026-05-05,tornado,,
{a},2026-02-30,complaint,,
             {b},2026-05-05,transfer,maybe,
{b},2026-05-06,expansion,,-20
,2026-05-07,complaint,,
"
        ),
    )
    .unwrap();
    let samples = dir.path("samples.csv");
    fs::write(
        &samples,
        format!(
            "parcel_id,pipe_id,date,fecal_coliform_per_100ml,other_source
{a},P1,2026-06-01,TNTC,
{a},,2026-06-02,10,
{a},P1,2026-06-03,,
{a},P1,2026-06-04,10,maybe
"
        ),
    )
    .unwrap();
    let pump_outs = dir.path("pump_outs.csv");
    fs::write(
        &pump_outs,
        format!(
            "parcel_id,date,hauler_licence
{b},2026-04-01,
"
        ),
    )
    .unwrap();
    let outcome = run(
        &dir,
        &[
            "--parcels",
            arg(&shp),
            "--events",
            arg(&events),
            "--samples",
            arg(&samples),
            "--pump-outs",
            arg(&pump_outs),
        ],
    );
    outcome.assert_exit(2);
    assert_reported(&outcome, "events.csv", "line 2", &["unknown event 'tornado'"], "write one of: transfer");
    assert_reported(&outcome, "events.csv", "line 3", &["2026-02-30"], "write it as YYYY-MM-DD");
    assert_reported(&outcome, "events.csv", "line 4", &["arms_length 'maybe'"], "write yes or no");
    assert_reported(&outcome, "events.csv", "line 5", &["expansion_pct '-20'"], "write digits");
    assert_reported(&outcome, "events.csv", "line 6", &["no parcel_id"], "fill it in or delete the row");
    assert_reported(&outcome, "samples.csv", "line 2", &["'TNTC' is not a number"], "write digits");
    assert_reported(&outcome, "samples.csv", "line 3", &["no pipe_id"], "fill in the pipe's name");
    assert_reported(
        &outcome,
        "samples.csv",
        "line 4",
        &["no fecal_coliform_per_100ml"],
        "fill in the laboratory count",
    );
    assert_reported(&outcome, "samples.csv", "line 5", &["other_source 'maybe'"], "write yes or no");
    assert_reported(
        &outcome,
        "pump_outs.csv",
        "line 2",
        &["hauler_licence", "licensed"],
        "fill in the licence number",
    );
    assert_others_scheduled(&rows_by_record(&outcome, &specs), &[]);
}

// ---------------------------------------------------------------------------------------------------------
// Determinism

/// Two runs of the same input (one on a single thread, one on four) give byte-identical schedule.csv and
/// schedule.geojson, with rows sorted by parcel id although the input is not.
#[test]
fn outputs_are_deterministic_and_sorted() {
    let dir = county("deterministic");
    // More parcels than threads, in an order that is not sorted, with ids that sort differently as numbers.
    let mut specs = Vec::new();
    for k in (0..40).rev() {
        let x = 835_900.0 + (k % 10) as f64 * 230.0;
        let y = SHORE_Y - 200.0 - (k / 10) as f64 * 400.0;
        specs.push(Spec::new(&format!("122.05-1-{}", k + 1), "Owasco", square(x, y, 200.0)));
    }
    let shp = write_parcels(&dir, "parcels", &specs, ShpOptions::default());
    let args = ["--parcels", arg(&shp), "--format", "csv,geojson"];
    let a = run_in(&dir, "out-a", &args, &[("RAYON_NUM_THREADS", "1")]);
    let b = run_in(&dir, "out-b", &args, &[("RAYON_NUM_THREADS", "4")]);
    a.assert_exit(0);
    b.assert_exit(0);
    for file in ["schedule.csv", "schedule.geojson"] {
        let read = |o: &Outcome| fs::read(o.out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(read(&a) == read(&b), "{file} differs between two runs of the same input");
    }
    let ids: Vec<String> = a.schedule().into_iter().map(|r| r["parcel_id"].clone()).collect();
    assert_eq!(ids.len(), specs.len());
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "schedule.csv must be sorted by parcel_id");
}
