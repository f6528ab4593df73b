//! Mutation test: damaged copies of the sample county (`data/sample/`), derived with a fixed seed, each run
//! through `lakeshore schedule` in a child process.
//!
//! Every input file of the county, and its history saved as a workbook, is damaged in turn: cut short at record boundaries and inside records,
//! bytes overwritten, a span duplicated, a span deleted. For each case the run must end with exit 0, 1 or 2
//! (no panic, no hang: a child still running after [`HANG`] is killed and the case fails); a run that
//! finishes (0 or 2) must list every parcel record of the `.dbf` in `schedule.csv` exactly once, counted here
//! from the `.dbf` header and checked against the `.shx` without lakeshore; a run that stops (1) must name
//! the damaged file. The timeout is a hang detector, not a speed assertion: a clean run takes well under a
//! second.
//!
//! A new input format is one line in [`TARGETS`]: the file and how to find its record boundaries.
//!
//! The hundreds of runs of [`damaged_inputs_never_panic_hang_or_lose_a_parcel`] take minutes, so that test
//! is left out of a plain `cargo test` and run by `.ci/run` (`cargo test --test it mutation -- --ignored`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

/// The seed every case is derived from.
const SEED: u64 = 0x1a4e_5407e;
/// A run still going after this long is taken to hang and killed.
const HANG: Duration = Duration::from_secs(30);
/// The file that stands in for a rule set: a copy of the embedded Article V rules.
const RULES: &str = "rules.toml";

/// How a file divides into records, for cutting it at record boundaries.
type Boundaries = fn(&[u8]) -> Vec<usize>;

/// The damaged files: every input of the sample county, and the rule set.
const TARGETS: &[(&str, Boundaries)] = &[
    ("parcels.shp", shp_records),
    ("parcels.shx", shx_records),
    ("parcels.dbf", dbf_records),
    ("parcels.prj", lines),
    ("parcels.cpg", lines),
    ("watershed.shp", shp_records),
    ("watershed.shx", shx_records),
    ("watershed.dbf", dbf_records),
    ("watershed.prj", lines),
    ("floodplain.shp", shp_records),
    ("floodplain.shx", shx_records),
    ("floodplain.dbf", dbf_records),
    ("floodplain.prj", lines),
    ("floodplain.cpg", lines),
    ("shoreline.geojson", lines),
    ("towns.geojson", lines),
    ("systems.geojson", lines),
    ("sewered.geojson", lines),
    ("county.geojson", lines),
    ("watercourses.geojson", lines),
    ("history.csv", lines),
    ("events.csv", lines),
    ("pump_outs.csv", lines),
    ("samples.csv", lines),
    ("pipes.csv", lines),
    (HISTORY_XLSX, zip_members),
    ("county.toml", lines),
    (RULES, lines),
    (GPKG, sqlite_pages),
];

/// The sample county as one GeoPackage, made at test time (`gpkg::sample_as_geopackage`) and read by a
/// config of its own; its parcels are the sample's, so the `.dbf` beside it counts them.
const GPKG: &str = "county.gpkg";

/// Where the GeoPackage county and its config are made, once.
const GPKG_COUNTY: &str = "pristine-gpkg";

/// Makes the county in `dir` the GeoPackage county made in `scratch`: its config, reading `county.gpkg`.
fn gpkg_county(dir: &Path, scratch: &Path) {
    std::fs::copy(scratch.join(GPKG_COUNTY).join("county.toml"), dir.join("county.toml")).unwrap();
}

/// Start of each page of an SQLite file: the page size is the big-endian u16 at byte 16 (1 for 65 536).
fn sqlite_pages(bytes: &[u8]) -> Vec<usize> {
    let size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536,
        n => usize::from(n).max(512),
    };
    (0..=bytes.len()).step_by(size).collect()
}

/// Start of each `.shp` record: walked from the 100-byte header by the big-endian content lengths.
fn shp_records(bytes: &[u8]) -> Vec<usize> {
    let mut out = vec![100];
    let mut at = 100;
    while at + 8 <= bytes.len() {
        let words = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        at += 8 + 2 * words;
        out.push(at);
    }
    out
}

/// Start of each `.shx` entry (8 bytes each after the 100-byte header).
fn shx_records(bytes: &[u8]) -> Vec<usize> {
    (100..=bytes.len()).step_by(8).collect()
}

/// Start of each `.dbf` record: header length and record length from the header.
fn dbf_records(bytes: &[u8]) -> Vec<usize> {
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let record = u16::from_le_bytes([bytes[10], bytes[11]]) as usize;
    (header..=bytes.len()).step_by(record.max(1)).collect()
}

/// The sample history as a workbook, made in each county by [`copy_county`]; a case damaging it reads it as
/// the history.
const HISTORY_XLSX: &str = "history.xlsx";

/// Start of each member of a zip (its local header's signature `PK\x03\x04`).
fn zip_members(bytes: &[u8]) -> Vec<usize> {
    bytes.windows(4).enumerate().filter(|(_, w)| *w == b"PK\x03\x04").map(|(i, _)| i).collect()
}

/// Writes [`HISTORY_XLSX`] into `dir` from its `history.csv`, a text cell per field, with rust_xlsxwriter.
fn history_xlsx(dir: &Path) {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let records = common::csv_records(&std::fs::read_to_string(dir.join("history.csv")).unwrap());
    for (r, record) in records.iter().enumerate() {
        for (c, field) in record.iter().enumerate().filter(|(_, f)| !f.is_empty()) {
            sheet.write_string(r as u32, c as u16, field).unwrap();
        }
    }
    book.save(dir.join(HISTORY_XLSX)).unwrap();
}

/// Start of each line.
fn lines(bytes: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1))
        .collect()
}

/// One damaged county: which file, what was done to it, and its bytes.
struct Case {
    file: &'static str,
    what: String,
    bytes: Vec<u8>,
}

/// The damaged versions of one file, from `rng`.
fn mutations(file: &'static str, original: &[u8], boundaries: Boundaries, rng: &mut ChaCha8Rng) -> Vec<Case> {
    let len = original.len();
    let mut cases = Vec::new();
    let mut push = |what: String, bytes: Vec<u8>| cases.push(Case { file, what, bytes });
    let cuts: Vec<usize> = boundaries(original).into_iter().filter(|&b| b < len).collect();
    for _ in 0..3 {
        let at = cuts[rng.random_range(0..cuts.len())];
        push(format!("cut at record boundary {at}"), original[..at].to_vec());
    }
    for _ in 0..2 {
        let at = rng.random_range(1..len);
        push(format!("cut at byte {at}"), original[..at].to_vec());
    }
    for _ in 0..3 {
        let mut bytes = original.to_vec();
        let n = rng.random_range(1..=8);
        let mut at = Vec::new();
        for _ in 0..n {
            let i = rng.random_range(0..len);
            bytes[i] = [0x00, 0xff, 0x80, 0x7f, rng.random()][rng.random_range(0..5)];
            at.push(i);
        }
        push(format!("bytes overwritten at {at:?}"), bytes);
    }
    for _ in 0..2 {
        let start = rng.random_range(0..len);
        let end = (start + rng.random_range(1..=16)).min(len);
        let mut bytes = original[..end].to_vec();
        bytes.extend_from_slice(&original[start..]);
        push(format!("bytes {start}..{end} duplicated"), bytes);
    }
    for _ in 0..2 {
        let start = rng.random_range(0..len);
        let end = (start + rng.random_range(1..=16)).min(len);
        let bytes = [&original[..start], &original[end..]].concat();
        push(format!("bytes {start}..{end} deleted"), bytes);
    }
    cases
}

/// A copy of the sample county in `dir`, reading its rules from [`RULES`].
fn copy_county(dir: &Path) {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    for entry in std::fs::read_dir(&sample).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rules/cayuga-county-art-v.toml");
    std::fs::copy(rules, dir.join(RULES)).unwrap();
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
    let config = config.replacen("[layers]", &format!("rules = \"{RULES}\"\n[layers]"), 1);
    std::fs::write(dir.join("county.toml"), config).unwrap();
    history_xlsx(dir);
}

/// How a run ended.
enum End {
    Exited { code: Option<i32>, stderr: String },
    Hung,
}

/// Runs the schedule of the county in `dir`, killing the child after [`HANG`].
fn run(dir: &Path) -> End {
    let child = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(dir)
        .args([
            "schedule",
            "--config",
            "county.toml",
            "--as-of",
            "2027-01-15",
            "--out",
            "out",
            "--format",
            "csv",
        ])
        .arg("--quiet")
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run the lakeshore binary");
    let pid = child.id();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(child.wait_with_output());
    });
    match receive.recv_timeout(HANG) {
        Ok(output) => {
            let output = output.expect("cannot wait for lakeshore");
            End::Exited { code: output.status.code(), stderr: String::from_utf8_lossy(&output.stderr).into() }
        }
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            End::Hung
        }
    }
}

/// The parcel records a finished run must schedule, counted without lakeshore: the `.dbf` header's record
/// count, when the `.dbf` holds that many whole records and the `.shx` lists as many shapes.
fn readable_parcels(dir: &Path) -> Option<usize> {
    let dbf = std::fs::read(dir.join("parcels.dbf")).ok()?;
    let shx = std::fs::read(dir.join("parcels.shx")).ok()?;
    let head = dbf.get(..12)?;
    let count = u32::from_le_bytes(head[4..8].try_into().unwrap()) as usize;
    let header = u16::from_le_bytes([head[8], head[9]]) as usize;
    let record = u16::from_le_bytes([head[10], head[11]]) as usize;
    let whole = dbf.len().saturating_sub(header) / record.max(1);
    let shapes = shx.len().saturating_sub(100) / 8;
    (whole >= count && shapes == count).then_some(count)
}

/// The first lines of `stderr`, enough to tell a failure.
fn brief(stderr: &str) -> String {
    stderr.lines().take(6).collect::<Vec<_>>().join("\n")
}

/// Whether a stopped run's message names the damaged file. A damaged config may instead name a layer file
/// it now points to (a misspelt path): the message then names that path, which the config holds.
fn names_the_file(case: &Case, stderr: &str) -> bool {
    if stderr.contains(case.file) {
        return true;
    }
    let text = String::from_utf8_lossy(&case.bytes);
    case.file == "county.toml"
        && text
            .split('"')
            .skip(1)
            .step_by(2)
            .any(|path| !path.is_empty() && stderr.contains(&format!("{path}:")))
}

/// Checks one finished or stopped run; `Err` says what went wrong.
fn check(case: &Case, dir: &Path) -> Result<(), String> {
    let (code, stderr) = match run(dir) {
        End::Hung => return Err(format!("still running after {HANG:?}: killed")),
        End::Exited { code, stderr } => (code, brief(&stderr)),
    };
    match code {
        Some(0 | 2) => {
            let Some(count) = readable_parcels(dir) else {
                return Err(format!(
                    "finished (exit {code:?}) although the .dbf and .shx disagree on the records\n{stderr}"
                ));
            };
            let (_, rows) = common::read_rows(&dir.join("out/schedule.csv"))?;
            let mut seen: BTreeMap<usize, usize> = BTreeMap::new();
            for row in &rows {
                let record =
                    row["record"].parse::<usize>().map_err(|e| format!("record {:?}: {e}", row["record"]))?;
                *seen.entry(record).or_default() += 1;
            }
            let wrong: Vec<String> = (1..=count)
                .filter(|r| seen.get(r) != Some(&1))
                .map(|r| format!("record {r} listed {} times", seen.get(&r).unwrap_or(&0)))
                .chain(
                    seen.keys()
                        .filter(|&&r| r == 0 || r > count)
                        .map(|r| format!("record {r} is not in the .dbf")),
                )
                .collect();
            if wrong.is_empty() {
                Ok(())
            } else {
                Err(format!("schedule.csv does not list the {count} parcel records once each: {wrong:?}"))
            }
        }
        Some(1) if names_the_file(case, &stderr) => Ok(()),
        Some(1) => Err(format!("stopped without naming {}: {stderr}", case.file)),
        other => Err(format!("exit {other:?} (a panic gives 101, a signal none)\n{stderr}")),
    }
}

#[test]
#[ignore = "hundreds of runs: .ci/run runs it, or `cargo test --test it mutation -- --ignored`"]
fn damaged_inputs_never_panic_hang_or_lose_a_parcel() {
    let scratch = common::fresh_dir("mutation");
    let pristine = scratch.join("pristine");
    std::fs::create_dir_all(&pristine).unwrap();
    copy_county(&pristine);
    std::fs::create_dir_all(scratch.join(GPKG_COUNTY)).unwrap();
    crate::gpkg::sample_as_geopackage(&scratch.join(GPKG_COUNTY));
    std::fs::copy(scratch.join(GPKG_COUNTY).join(GPKG), pristine.join(GPKG)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let cases: Vec<Case> = TARGETS
        .iter()
        .flat_map(|&(file, boundaries)| {
            let original = std::fs::read(pristine.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            mutations(file, &original, boundaries, &mut rng)
        })
        .collect();
    assert!(cases.len() >= 300, "a few hundred cases: {}", cases.len());

    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut failures = Vec::new();
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        let Some(case) = cases.get(n) else { break };
                        let dir: PathBuf = scratch.join(format!("case-{n}"));
                        std::fs::create_dir_all(&dir).unwrap();
                        copy_county(&dir);
                        if case.file == GPKG {
                            gpkg_county(&dir, &scratch);
                        }
                        std::fs::write(dir.join(case.file), &case.bytes).unwrap();
                        if case.file == HISTORY_XLSX {
                            let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
                            let config = config.replace("\"history.csv\"", &format!("\"{HISTORY_XLSX}\""));
                            std::fs::write(dir.join("county.toml"), config).unwrap();
                        }
                        match check(case, &dir) {
                            Ok(()) => {
                                let _ = std::fs::remove_dir_all(&dir);
                            }
                            Err(e) => failures.push(format!(
                                "case {n} ({}: {}), kept in {}: {e}",
                                case.file,
                                case.what,
                                dir.display()
                            )),
                        }
                    }
                    failures
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} damaged counties failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The damage that used to hang: a vertex thrown far away (as a few bytes duplicated inside a record do,
/// shifting its doubles) made the index split one edge into billions of pieces. The first x of the first
/// record of the floodplain (a projected layer, so the far vertex survives reprojection; the sample's
/// watershed is in longitude/latitude, where it would be refused) becomes 1e200 ft; the run must end and
/// conserve the parcels.
#[test]
fn a_boundary_vertex_thrown_far_away_does_not_hang() {
    let dir = common::fresh_dir("far-vertex");
    copy_county(&dir);
    let path = dir.join("floodplain.shp");
    let mut shp = std::fs::read(&path).unwrap();
    // Record 1: 8-byte header, then type, 32-byte box, part and point counts, the part starts, the points.
    let parts = i32::from_le_bytes(shp[144..148].try_into().unwrap()) as usize;
    let first_x = 100 + 8 + 4 + 32 + 8 + 4 * parts;
    shp[first_x..first_x + 8].copy_from_slice(&1e200f64.to_le_bytes());
    std::fs::write(&path, shp).unwrap();
    let case = Case { file: "floodplain.shp", what: "first x = 1e200".into(), bytes: Vec::new() };
    check(&case, &dir).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Town names are user text (a `.dbf` or GeoJSON property): a multi-byte character where a rule set's prefix
/// ("Town of ", "T/") would end must not be sliced through.
#[test]
fn town_names_with_multibyte_characters_at_a_prefix_end_are_no_panic() {
    let rules = lakeshore::rules::RuleSet::cayuga_art_v();
    // "Town of" is 7 bytes and 'é' takes bytes 7 and 8: byte 8 of the name is inside it. 'ö' after "T"
    // covers byte 2, where "T/" ends.
    for name in ["Town ofé Owasco", "Tö", "Tö/Owasco", "CÅ", "City oféAuburn"] {
        assert_eq!(rules.municipality(name), None, "{name}");
    }
    assert_eq!(rules.municipality("T/Owasco").as_deref(), Some("Owasco"));
}

/// A config cut short before its `[layers]` names no parcels layer: the run stops naming the config file and
/// saying what to add (mutation case "county.toml: cut at record boundary").
#[test]
fn a_config_cut_before_its_layers_is_named() {
    let dir = common::fresh_dir("config-cut");
    copy_county(&dir);
    std::fs::write(dir.join("county.toml"), "crs = \"EPSG:2261\"\n").unwrap();
    let End::Exited { code, stderr } = run(&dir) else { panic!("still running after {HANG:?}") };
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("county.toml: names no parcels layer: add [layers] parcels"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
