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

/// A new empty folder for one test's files, named after `label`, in [`scratch::root`](crate::scratch::root).
#[allow(dead_code)]
pub fn fresh_dir(label: &str) -> std::path::PathBuf {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let dir = crate::scratch::root().join(format!("{label}-{nanos}"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
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

/// The watershed of the lake of the shoreline GeoJSON `shoreline` (its first feature's `NAME`): the lake's
/// bounding box grown by `margin` (in the layer's units) on every side, in the shoreline's `crs` member, as
/// a watershed layer that holds its lake and reaches no parcel farther than `margin` from the box.
#[allow(dead_code)]
pub fn watershed_around(shoreline: &str, margin: f64) -> String {
    let layer: serde_json::Value = serde_json::from_str(shoreline).expect("the shoreline is JSON");
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    fn each(v: &serde_json::Value, f: &mut dyn FnMut(f64, f64)) {
        match v.as_array() {
            Some(a) if a.len() >= 2 && a[0].is_number() => f(a[0].as_f64().unwrap(), a[1].as_f64().unwrap()),
            Some(a) => a.iter().for_each(|x| each(x, f)),
            None => {}
        }
    }
    for feature in layer["features"].as_array().expect("features") {
        each(&feature["geometry"]["coordinates"], &mut |x, y| {
            lo = [lo[0].min(x), lo[1].min(y)];
            hi = [hi[0].max(x), hi[1].max(y)];
        });
    }
    let (x0, y0, x1, y1) = (lo[0] - margin, lo[1] - margin, hi[0] + margin, hi[1] + margin);
    let name = layer["features"][0]["properties"]["NAME"].clone();
    let mut out = serde_json::json!({
        "type": "FeatureCollection",
        "features": [{
            "type": "Feature",
            "properties": {"NAME": name},
            "geometry": {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}
        }]
    });
    if let Some(crs) = layer.get("crs") {
        out["crs"] = crs.clone();
    }
    out.to_string()
}

/// The schedule (`schedule.csv`) of the sample county as of 2027-01-15 into `out`, its parcels read from
/// `parcels` when given; the run must be clean (exit 0), as every record of the sample is good in whatever
/// format it is written.
pub fn sample_schedule(parcels: Option<&std::path::Path>, out: &std::path::Path) -> String {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lakeshore"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command.args(["schedule", "--config", "data/sample/county.toml", "--as-of", "2027-01-15"]);
    if let Some(parcels) = parcels {
        command.arg("--parcels").arg(parcels);
    }
    let output = command.args(["--format", "csv", "--out"]).arg(out).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{}: {stderr}", out.display());
    std::fs::read_to_string(out.join("schedule.csv")).unwrap()
}

/// Copies the files of the folder `from` whose names `keep` takes into `to` (made if need be); its
/// sub-folders are left.
#[allow(dead_code)]
pub fn copy_files(from: &std::path::Path, to: &std::path::Path, keep: impl Fn(&str) -> bool) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display())) {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if entry.file_type().unwrap().is_file() && keep(&name.to_string_lossy()) {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}
