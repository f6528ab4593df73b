//! Helpers shared by the integration tests.

/// Splits CSV text into records (RFC 4180: quoted fields may hold commas, doubled quotes and
/// line breaks). A trailing `\r` ends a record like `\n` does.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut in_quotes, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (in_quotes, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => in_quotes = false,
            (true, c) => field.push(c),
            (false, '"') => in_quotes = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}

/// One CSV row as `column -> value`.
#[allow(dead_code)]
pub type Row = std::collections::BTreeMap<String, String>;

/// A CSV file as a header and rows of `column -> value`; `Err` names the file and the malformed row.
#[allow(dead_code)] // not every test file reads whole tables
pub fn read_rows(path: &std::path::Path) -> Result<(Vec<String>, Vec<Row>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut records = parse_csv(text.trim_start_matches('\u{feff}')).into_iter();
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

/// A new empty folder under the system's temp folder, named after `label`.
#[allow(dead_code)]
pub fn fresh_dir(label: &str) -> std::path::PathBuf {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("lakeshore-{label}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The Chromium binary for a browser test, or `None` after saying the test is skipped. With the `CI`
/// environment variable set a missing Chromium fails the test instead: CI installs it.
#[allow(dead_code)]
pub fn chromium_or_skip(test: &str) -> Option<std::path::PathBuf> {
    let found = lakeshore::report::print::find_chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
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
            std::env::var_os("CI").is_none(),
            "{test}: no {name}, and CI is set: install Debian package {package} (.ci/run does)"
        );
        eprintln!("{test}: skipped: no {name} (install Debian package {package})");
    }
    found
}
