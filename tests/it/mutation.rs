//! Mutation test: damaged copies of the sample county (`data/sample/`), derived with a fixed seed, each run
//! through `lakeshore schedule` in a child process.
//!
//! Every input file of the county, and its history saved as a workbook, is damaged in turn: cut short at record boundaries and inside records,
//! bytes overwritten, a span duplicated, a span deleted. For each case the run must end with exit 0, 1 or 2
//! (no panic, no hang: a child still running after [`HANG`] is killed and the case fails); a run that
//! finishes (0 or 2) must list every parcel record of the `.dbf` in `schedule.csv` exactly once, counted here
//! from the `.dbf` header and checked against the `.shx` without lakeshore; a run that stops (1) must name
//! the damaged file. The timeout is a hang detector, not a speed assertion: a clean run takes well under a
//! second. Every run must also stay within [`PEAK`] of memory.
//!
//! Beside the random damage, named hostile DEMs ([`hostile_tiffs`]): strip offsets past the end of the file,
//! dimensions of 2³¹ − 1, a Deflate bomb, and offset arrays claiming billions of entries.
//!
//! A new input format is one line in [`TARGETS`]: the file and how to find its record boundaries; a layer in
//! a format the sample does not ship is one line in `shipped::SHIPPED`, read in place of the sample's own
//! layer, with hostile sizes of its own.
//!
//! The hundreds of runs of [`damaged_inputs_never_panic_hang_or_lose_a_parcel`] take minutes, so that test
//! is left out of a plain `cargo test` and run by `.ci/run` (`cargo test --test it mutation -- --ignored`).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

mod shipped;

/// The seed every case is derived from.
const SEED: u64 = 0x1a4e_5407e;
/// A run still going after this long is taken to hang and killed.
const HANG: Duration = Duration::from_secs(30);
/// The file that stands in for a rule set: a copy of the embedded Article V rules.
const RULES: &str = "rules.toml";
/// The most memory one run may take (peak resident set): the DEM reader's own bounds (a 256 MiB window, a
/// 64 MiB strip or tile and 64 MiB of its compressed bytes) and the rest of a run of the sample county, well
/// under 100 MiB. A reader that trusted a damaged file's sizes would take gigabytes, or abort.
const PEAK: u64 = 512 * 1024 * 1024;

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
    (DEM, tiff_chunks),
    (GDB_TABLE, gdbtable_rows),
    (GDB_INDEX, gdbtablx_entries),
];

/// The sample's DEM (`data/sample/dem.tif`, as `county-dem.toml` reads it); a case damaging it runs the county
/// with the DEM configured.
const DEM: &str = "dem.tif";

/// Makes the county in `dir` read [`DEM`], as `county-dem.toml` does.
fn dem_county(dir: &Path) {
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
    let config = config.replacen("[layers]", &format!("[layers]\ndem = \"{DEM}\""), 1);
    std::fs::write(dir.join("county.toml"), config).unwrap();
}

/// A TIFF entry: tag, field type, count, value (or the offset of the values).
type Entry = (u16, u16, u32, u32);

/// The offset and entries of the first IFD of a little-endian classic TIFF (the sample's DEM is one).
fn tiff_ifd(bytes: &[u8]) -> Option<(usize, Vec<Entry>)> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let ifd = u32_at(4)? as usize;
    let entries = (0..usize::from(u16_at(ifd)?))
        .map(|i| {
            let at = ifd + 2 + 12 * i;
            Some((u16_at(at)?, u16_at(at + 2)?, u32_at(at + 4)?, u32_at(at + 8)?))
        })
        .collect::<Option<Vec<Entry>>>()?;
    Some((ifd, entries))
}

/// Start of each strip or tile of a TIFF (the values of StripOffsets, 273, or TileOffsets, 324), and of its
/// first IFD.
fn tiff_chunks(bytes: &[u8]) -> Vec<usize> {
    let Some((ifd, entries)) = tiff_ifd(bytes) else { return vec![0] };
    let mut out = vec![ifd];
    for (i, &(tag, field_type, count, value)) in entries.iter().enumerate() {
        if tag != 273 && tag != 324 {
            continue;
        }
        let size = if field_type == 3 { 2 } else { 4 };
        // Values that fit in 4 bytes are in the entry itself.
        let first = if count as usize * size <= 4 { ifd + 2 + 12 * i + 8 } else { value as usize };
        let at = |k: usize| -> Option<usize> {
            let b = bytes.get(first + k * size..first + (k + 1) * size)?;
            Some(if size == 2 {
                usize::from(u16::from_le_bytes([b[0], b[1]]))
            } else {
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
            })
        };
        out.extend((0..count as usize).map_while(at));
    }
    out.sort_unstable();
    out
}

/// `bytes` with `data` appended at an even offset, which is returned.
fn append(bytes: &mut Vec<u8>, data: &[u8]) -> u32 {
    if bytes.len() % 2 == 1 {
        bytes.push(0);
    }
    let at = bytes.len() as u32;
    bytes.extend_from_slice(data);
    at
}

/// `bytes` with a new first IFD of `entries` (sorted by tag, as TIFF asks) appended and the header pointing
/// to it; the old IFD stays in the file, unread.
fn with_ifd(mut bytes: Vec<u8>, mut entries: Vec<Entry>) -> Vec<u8> {
    entries.sort_by_key(|e| e.0);
    let mut ifd = (entries.len() as u16).to_le_bytes().to_vec();
    for (tag, field_type, count, value) in entries {
        ifd.extend(tag.to_le_bytes());
        ifd.extend(field_type.to_le_bytes());
        ifd.extend(count.to_le_bytes());
        ifd.extend(value.to_le_bytes());
    }
    ifd.extend(0u32.to_le_bytes());
    let at = append(&mut bytes, &ifd);
    bytes[4..8].copy_from_slice(&at.to_le_bytes());
    bytes
}

/// `entries` with the entry of `entry`'s tag replaced by it, or it added.
fn set(entries: &[Entry], entry: Entry) -> Vec<Entry> {
    entries.iter().copied().filter(|e| e.0 != entry.0).chain([entry]).collect()
}

/// A zlib stream of `mib` MiB of zeros in about a thousandth of that: one Deflate segment of 1 MiB of zeros,
/// ended by a sync flush (byte-aligned, not final, its matches reaching back only into itself), repeated;
/// then an empty final block and the Adler-32 of the zeros (a = 1, b = their count, mod 65 521).
fn deflate_bomb(mib: usize) -> Vec<u8> {
    let mut compress = flate2::Compress::new(flate2::Compression::best(), false);
    let mut segment = Vec::with_capacity(1 << 20);
    compress.compress_vec(&vec![0u8; 1 << 20], &mut segment, flate2::FlushCompress::Sync).unwrap();
    assert_eq!(compress.total_in(), 1 << 20, "the whole MiB compressed in one call");
    let mut out = vec![0x78, 0xda];
    for _ in 0..mib {
        out.extend_from_slice(&segment);
    }
    out.extend([0x03, 0x00]);
    let b = ((mib as u64) << 20) % 65_521;
    out.extend((((b << 16) | 1) as u32).to_be_bytes());
    out
}

/// Hostile versions of the sample's DEM, each a named case: what a crafted file would try on the reader.
/// Each keeps the sample's georeferencing (the tags at the start of the file), so that the run reaches the
/// pixels; only the first IFD is replaced.
fn hostile_tiffs(original: &[u8]) -> Vec<Case> {
    let (_, entries) = tiff_ifd(original).expect("the sample's DEM is a little-endian classic TIFF");
    let strips = entries.iter().find(|e| e.0 == 273).unwrap().2;
    let mut cases = Vec::new();
    let mut push = |what: &str, bytes: Vec<u8>| cases.push(Case { file: DEM, what: what.into(), bytes });

    let mut bytes = original.to_vec();
    let past: Vec<u8> = (0..strips).flat_map(|i| (0xf000_0000u32 + 480 * i).to_le_bytes()).collect();
    let at = append(&mut bytes, &past);
    push("strip offsets past the end of the file", with_ifd(bytes, set(&entries, (273, 4, strips, at))));

    let huge = set(&set(&entries, (256, 4, 1, 0x7fff_ffff)), (257, 4, 1, 0x7fff_ffff));
    push("width and height of 2^31 - 1", with_ifd(original.to_vec(), huge));

    // One strip of the whole image (120 × 720 floats, 345,600 bytes) whose stream inflates to 256 MiB.
    let mut bytes = original.to_vec();
    let bomb = deflate_bomb(256);
    let at = append(&mut bytes, &bomb);
    let one = set(&set(&set(&entries, (273, 4, 1, at)), (279, 4, 1, bomb.len() as u32)), (278, 4, 1, 720));
    push("a Deflate bomb: one strip inflating to 256 MiB", with_ifd(bytes, one));

    let tiled: Vec<Entry> = entries
        .iter()
        .copied()
        .filter(|e| ![273, 278, 279].contains(&e.0))
        .chain([(322, 3, 1, 16), (323, 3, 1, 16), (324, 4, 3_000_000_000, 8), (325, 4, 3_000_000_000, 8)])
        .collect();
    push("tile offsets and byte counts claiming 3 billion tiles", with_ifd(original.to_vec(), tiled));

    let offsets = entries.iter().find(|e| e.0 == 273).unwrap().3;
    let billions = set(&entries, (273, 4, 3_000_000_000, offsets));
    push("strip offsets claiming 3 billion strips", with_ifd(original.to_vec(), billions));
    cases
}

/// The sample county as one GeoPackage, made at test time (`gpkg::sample_as_geopackage`) and read by a
/// config of its own; its parcels are the sample's, so the `.dbf` beside it counts them.
const GPKG: &str = "county.gpkg";

/// Where the GeoPackage county and its config are made, once.
const GPKG_COUNTY: &str = "pristine-gpkg";

/// Makes the county in `dir` the GeoPackage county made in `scratch`: its config, reading `county.gpkg`.
fn gpkg_county(dir: &Path, scratch: &Path) {
    std::fs::copy(scratch.join(GPKG_COUNTY).join("county.toml"), dir.join("county.toml")).unwrap();
}

/// The sample's parcels as a File Geodatabase GDAL writes (`filegdb::written_by_gdal`), read as
/// `county.gdb:Parcels` by a config of its own; its rows are the `.dbf`'s records, in their order. Its feature
/// class's table and index are damaged.
const GDB: &str = "county.gdb";
const GDB_LAYER: &str = "county.gdb:Parcels";
const GDB_TABLE: &str = "county.gdb/a00000009.gdbtable";
const GDB_INDEX: &str = "county.gdb/a00000009.gdbtablx";

/// Copies the File Geodatabase made in `scratch` into `dir`.
fn copy_gdb(dir: &Path, scratch: &Path) {
    let gdb = dir.join(GDB);
    std::fs::create_dir_all(&gdb).unwrap();
    for entry in std::fs::read_dir(scratch.join(GDB)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, gdb.join(path.file_name().unwrap())).unwrap();
    }
}

/// Makes the county in `dir` read its parcels from the File Geodatabase made in `scratch`, copied into it.
fn gdb_county(dir: &Path, scratch: &Path) {
    copy_gdb(dir, scratch);
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
    std::fs::write(dir.join("county.toml"), config.replace("\"parcels.shp\"", &format!("\"{GDB_LAYER}\"")))
        .unwrap();
}

/// Start of each row of a `.gdbtable`: after the field section (its offset at byte 32, its size the first
/// 4 bytes there), each row is its 4-byte size (negative when deleted) and that many bytes.
fn gdbtable_rows(bytes: &[u8]) -> Vec<usize> {
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    let fields = bytes.get(32..40).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()) as usize);
    let mut at = fields + 4 + u32_at(fields).unwrap_or(0) as usize;
    let mut out = vec![fields, at];
    while let Some(size) = u32_at(at) {
        at += 4 + (size as i32).unsigned_abs() as usize;
        out.push(at);
    }
    out
}

/// Start of each entry of a `.gdbtablx`: its offsets (of the size at byte 12) after the 16-byte header.
fn gdbtablx_entries(bytes: &[u8]) -> Vec<usize> {
    let size = bytes.get(12..16).map_or(4, |b| u32::from_le_bytes(b.try_into().unwrap()) as usize).max(1);
    (16..=bytes.len()).step_by(size).collect()
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
    Exited { code: Option<i32>, stderr: String, peak: u64 },
    Hung,
}

/// Waits for the child `pid`, returning its exit code (none after a signal) and its peak resident set in
/// bytes, which `Child::wait` does not give. Linux carries the peak across the spawn, so this is the larger of
/// the child's and this test process's at the time (some 60 MiB): an upper bound on the child's.
fn reap(pid: u32) -> (Option<i32>, u64) {
    let mut status = 0;
    // SAFETY: `rusage` is plain data, for which all zeros is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals; the child is ours and not waited for elsewhere.
    let waited = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    let code = (waited == pid as libc::pid_t && libc::WIFEXITED(status)).then(|| libc::WEXITSTATUS(status));
    // Linux gives ru_maxrss in KiB.
    (code, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024)
}

/// Runs the schedule of the county in `dir`, killing the child after [`HANG`].
// The child is waited for by `reap` (wait4, for its peak memory), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(dir: &Path) -> End {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
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
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        let (code, peak) = reap(pid);
        let _ = send.send((code, peak, text));
    });
    match receive.recv_timeout(HANG) {
        Ok((code, peak, text)) => End::Exited { code, stderr: String::from_utf8_lossy(&text).into(), peak },
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
/// it now points to (a misspelt path): the message then names that path, which the config holds. A File
/// Geodatabase's table may be named by its feature class.
fn names_the_file(case: &Case, stderr: &str) -> bool {
    // A File Geodatabase's table may be named as the feature class it holds (`county.gdb:Parcels`).
    if stderr.contains(case.file) || (case.file.starts_with(GDB) && stderr.contains(GDB_LAYER)) {
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
        End::Exited { peak, .. } if peak > PEAK => {
            return Err(format!("took {} MiB of memory, more than {} MiB", peak >> 20, PEAK >> 20))
        }
        End::Exited { code, stderr, .. } => (code, brief(&stderr)),
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
    // The File Geodatabase is written by GDAL: without it (and CI unset) its cases are left out.
    let gdal = crate::filegdb::written_by_gdal("mutation-gdb");
    if let Some(written) = &gdal {
        std::fs::rename(written.join(GDB), scratch.join(GDB)).unwrap();
        copy_gdb(&pristine, &scratch);
        let _ = std::fs::remove_dir_all(written);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut cases: Vec<Case> = TARGETS
        .iter()
        .filter(|(file, _)| gdal.is_some() || !file.starts_with(GDB))
        .flat_map(|&(file, boundaries)| {
            let original = std::fs::read(pristine.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            mutations(file, &original, boundaries, &mut rng)
        })
        .collect();
    cases.extend(hostile_tiffs(&std::fs::read(pristine.join(DEM)).unwrap()));
    let shipped_dir = scratch.join("shipped");
    std::fs::create_dir_all(&shipped_dir).unwrap();
    for file in shipped::shipped_layers(&shipped_dir) {
        let original = std::fs::read(shipped_dir.join(file)).unwrap();
        let &(_, _, boundaries) = shipped::SHIPPED.iter().find(|&&(f, _, _)| f == file).unwrap();
        cases.extend(mutations(file, &original, boundaries, &mut rng));
        cases.extend(shipped::hostile_shipped(file, &original).into_iter().map(|(case, _)| case));
    }
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
                        if case.file == DEM {
                            dem_county(&dir);
                        }
                        if case.file.starts_with(GDB) {
                            gdb_county(&dir, &scratch);
                        }
                        std::fs::write(dir.join(case.file), &case.bytes).unwrap();
                        if let Some(layer) = shipped::shipped(case.file) {
                            shipped::use_layer(&dir, layer, case.file);
                        }
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
    let End::Exited { code, stderr, .. } = run(&dir) else { panic!("still running after {HANG:?}") };
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("county.toml: names no parcels layer: add [layers] parcels"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The hostile DEMs of the mutation test alone, so that a plain `cargo test` runs them: each run ends 0, 1 or
/// 2 within [`HANG`] and [`PEAK`]; the ones the reader must refuse stop naming `dem.tif` and why, and the Deflate
/// bomb, whose strip needs only its first 345,600 bytes inflated, finishes with every parcel.
#[test]
fn hostile_dems_are_refused_or_read_within_bounds() {
    let scratch = common::fresh_dir("mutation-hostile");
    let original =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample").join(DEM)).unwrap();
    let cases = hostile_tiffs(&original);
    let refusals = [
        Some("dem.tif: strip or tile 0 of 720 lies past the end of the file ("),
        Some("dem.tif: not a usable GeoTIFF"),
        None,
        Some("dem.tif: TileOffsets (324) claims 3000000000 values"),
        Some("dem.tif: StripOffsets (273) claims 3000000000 values"),
    ];
    assert_eq!(cases.len(), refusals.len());
    for (n, (case, refusal)) in cases.iter().zip(refusals).enumerate() {
        let dir = scratch.join(format!("case-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        copy_county(&dir);
        dem_county(&dir);
        std::fs::write(dir.join(case.file), &case.bytes).unwrap();
        match (run(&dir), refusal) {
            (End::Hung, _) => panic!("{}: still running after {HANG:?}", case.what),
            (End::Exited { peak, .. }, _) if peak > PEAK => panic!("{}: {} MiB", case.what, peak >> 20),
            (End::Exited { code, stderr, .. }, Some(why)) => {
                assert_eq!(code, Some(1), "{}: {stderr}", case.what);
                assert!(stderr.contains(why), "{}: {stderr}", case.what);
            }
            (End::Exited { .. }, None) => {
                check(case, &dir).unwrap_or_else(|e| panic!("{}, kept in {}: {e}", case.what, dir.display()))
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
