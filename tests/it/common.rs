//! Helpers shared by the integration tests.

/// The records of CSV text as the `csv` crate reads them (RFC 4180: quoted fields may hold separators,
/// doubled quotes and line breaks; a byte-order mark at the start is dropped and empty lines are skipped).
pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let records = reader.records().map(|record| record.map(|r| r.iter().map(String::from).collect()));
    records.collect::<Result<_, _>>().unwrap_or_else(|e| panic!("not CSV text: {e}"))
}

/// One CSV row as `column -> value`.
#[allow(dead_code)]
pub type Row = std::collections::BTreeMap<String, String>;

/// A CSV file as a header and rows of `column -> value`; `Err` names the file and the malformed row.
#[allow(dead_code)] // not every test file reads whole tables
pub fn read_rows(path: &std::path::Path) -> Result<(Vec<String>, Vec<Row>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut records = csv_records(&text).into_iter();
    let header: Vec<String> = records
        .next()
        .ok_or_else(|| format!("{} is empty", path.display()))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for (n, record) in records.enumerate() {
        if record.len() == 1 && record[0].trim().is_empty() {
            continue;
        }
        if record.len() != header.len() {
            return Err(format!(
                "{} row {} has {} fields, the header {}",
                path.display(),
                n + 2,
                record.len(),
                header.len()
            ));
        }
        rows.push(header.iter().cloned().zip(record).collect());
    }
    Ok((header, rows))
}

/// A new empty folder for one test's files, named after `label`, in [`scratch_root`].
#[allow(dead_code)]
pub fn fresh_dir(label: &str) -> std::path::PathBuf {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let dir = scratch_root().join(format!("{label}-{nanos}"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The folder this test process keeps its files in: `lakeshore-tests-PID` in Cargo's folder for the files of
/// integration tests (`CARGO_TARGET_TMPDIR`, inside the target folder). The first call removes the folders
/// of earlier test processes that have ended, so the tests never leave more behind than their last run's,
/// however they ended, and never fill the system's temp folder.
#[allow(dead_code)]
pub fn scratch_root() -> &'static std::path::Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        const PREFIX: &str = "lakeshore-tests-";
        let parent = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let pid = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !running(pid)) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let root = parent.join(format!("{PREFIX}{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
        root
    })
}

/// Whether process `pid` is running (signal 0 checks without sending anything; EPERM means it runs as
/// another user).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM) }
}

/// Without a way to ask, every process is taken to be running, and nothing is removed.
#[cfg(not(unix))]
fn running(_: u32) -> bool {
    true
}

/// Whether the tests run in CI: the environment variable `CI` is set (to anything but empty, `0` or `false`).
#[allow(dead_code)]
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// For a test that needs something outside the project (the `../shared` data, Chromium) and did not find it:
/// outside CI it prints that `test` is skipped and why, and returns; in CI, where those are installed, it
/// fails the test.
#[allow(dead_code)]
pub fn skip_unless_ci(test: &str, missing: &str) {
    assert!(!in_ci(), "{test}: {missing}, and CI is set: CI must provide it");
    eprintln!("{test}: skipped: {missing} (CI is not set; in CI this fails)");
}

/// The Chromium binary for a browser test, or `None` after saying the test is skipped. With the `CI`
/// environment variable set a missing Chromium fails the test instead: CI installs it.
#[allow(dead_code)]
pub fn chromium_or_skip(test: &str) -> Option<std::path::PathBuf> {
    let found = lakeshore::report::print::find_chromium();
    if found.is_none() {
        assert!(
            !in_ci(),
            "{test}: no Chromium, and CI is set: install Debian package chromium (.ci/run does), or set CHROMIUM"
        );
        eprintln!("{test}: skipped: no Chromium (install Debian package chromium, or set CHROMIUM)");
    }
    found
}

/// A tool a test needs besides Chromium (`pdftotext`, `chromedriver`), found on `PATH`; `None` after saying
/// the test is skipped, and a failure when `CI` is set.
#[allow(dead_code)]
pub fn tool_or_skip(test: &str, name: &str, package: &str) -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            !in_ci(),
            "{test}: no {name}, and CI is set: install Debian package {package} (.ci/run does)"
        );
        eprintln!("{test}: skipped: no {name} (install Debian package {package})");
    }
    found
}
