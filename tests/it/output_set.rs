//! The outputs of a run as one set (README "Outputs"): temporary files open no planted link, one run at a time
//! holds the output folder, a failed run leaves the previous set as it was, a publish cut short after its
//! commit point is finished by the next command into the folder, `run.json` names every file with
//! its SHA-256, and control characters of the input come out as U+FFFD with one problem.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use polars::prelude::SerReader;
use sha2::{Digest, Sha256};

use crate::common;
use crate::safe_outputs::{files, names, sample_copy, schedule};

/// The SHA-256 of `bytes` in lowercase hex.
fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(unix)]
#[test]
fn a_link_planted_at_a_temporary_name_is_not_written_through() {
    let dir = common::fresh_dir("planted-link");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // The names a temporary of schedule.csv could take in this process: the pid alone, or with a number.
    let pid = std::process::id();
    let mut planted = vec![format!(".schedule.csv.tmp-{pid}")];
    planted.extend((0..16).map(|n| format!(".schedule.csv.tmp-{pid}-{n}")));
    for name in &planted {
        std::os::unix::fs::symlink(&victim, out.join(name)).unwrap();
    }
    let target = out.join("schedule.csv");
    lakeshore::write::write_atomic(&target, |w| w.write_all(b"parcel_id\n")).unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(&target).unwrap().file_type().is_file(), "a file, not a link");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "parcel_id\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_into_a_folder_another_run_holds_says_who_and_stops() {
    let dir = sample_copy("held-lock");
    let out = dir.join("out");
    let holder = ["lakeshore", "obligations", "--out", "out"].map(String::from);
    let held = lakeshore::write::OutputSet::open(&out, &holder).unwrap();
    let second = schedule(&dir, "2027-01-15", "out", None);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    let who = format!("pid {}, started ", std::process::id());
    assert!(stderr.contains(&who) && stderr.contains("command: lakeshore obligations --out out"), "{stderr}");
    assert!(stderr.contains("wait for it to finish, or give another --out"), "{stderr}");
    let seen = names(&out);
    assert!(seen.iter().all(|n| n.starts_with(".lakeshore")), "the stopped run wrote nothing: {seen:?}");
    drop(held);
    // Let go, the folder takes the next run.
    let third = schedule(&dir, "2027-01-15", "out", None);
    assert!(matches!(third.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&third.stderr));
    assert!(out.join("schedule.csv").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The files `run.json` in `out` names, each checked against its SHA-256 and size; returns the as-of date
/// it gives.
fn verified_set(out: &Path) -> String {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    for file in manifest["files"].as_array().unwrap() {
        let name = file["name"].as_str().unwrap();
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert_eq!(file["sha256"], sha256(&bytes), "{name} is the file run.json names");
        assert_eq!(file["bytes"], bytes.len(), "{name}");
    }
    manifest["as_of"].as_str().unwrap().to_string()
}

#[test]
fn two_runs_started_together_into_one_folder_leave_one_complete_set() {
    let dir = sample_copy("concurrent");
    let start = |as_of: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lakeshore"));
        command.current_dir(&dir).args(["schedule", "--config", "county.toml", "--as-of", as_of]);
        command.args(["--out", "out", "--format", "csv,geojson,parquet", "--quiet"]);
        command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
        command.spawn().expect("cannot run the lakeshore binary")
    };
    // However the two interleave, each either runs whole or stops at the lock, naming the other.
    let (first, second) = (start("2027-01-15"), start("2028-01-15"));
    let outcomes = [
        ("2027-01-15", first.wait_with_output().unwrap()),
        ("2028-01-15", second.wait_with_output().unwrap()),
    ];
    let mut finished = Vec::new();
    for (as_of, output) in &outcomes {
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0 | 2) => finished.push(*as_of),
            Some(1) => assert!(
                stderr.contains("another lakeshore run is writing into this folder (pid "),
                "{stderr}"
            ),
            other => panic!("exit {other:?}: {stderr}"),
        }
    }
    assert!(!finished.is_empty(), "one of them ran");
    let out = dir.join("out");
    let as_of = verified_set(&out);
    assert!(finished.contains(&as_of.as_str()), "the set is of a run that finished: {as_of}");
    let schedule = std::fs::read_to_string(out.join("schedule.geojson")).unwrap();
    assert!(schedule.len() > 1000, "a whole schedule");
    assert!(names(&out).iter().all(|n| !n.starts_with(".lakeshore")), "{:?}", names(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `lakeshore notices` of the sample copy in `dir` into `out`, printing PDFs with `chromium` when given.
fn notices(dir: &Path, as_of: &str, chromium: Option<&str>) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lakeshore"));
    command.current_dir(dir).args([
        "notices",
        "--config",
        "county.toml",
        "--as-of",
        as_of,
        "--out",
        "out",
        "-q",
    ]);
    command.args(["--format", "csv,geojson"]);
    if let Some(chromium) = chromium {
        command.arg("--pdf").env("CHROMIUM", chromium);
    }
    command.output().expect("cannot run the lakeshore binary")
}

#[cfg(unix)]
#[test]
fn a_failed_run_leaves_the_previous_set_as_it_was() {
    let dir = sample_copy("failed-run");
    let out = dir.join("out");
    let first = notices(&dir, "2027-01-15", None);
    assert!(matches!(first.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&first.stderr));
    let before = files(&out);
    let listed = names(&out);
    for name in
        ["notices.csv", "notices.geojson", "cannot_mail.csv", "letters.html", "labels.html", "run.json"]
    {
        assert!(before.contains_key(name), "{name} in {listed:?}");
    }
    // Another year's notices fail at the last step: the printer (here `false`) prints no PDF. Every table and
    // letter of that run was written by then.
    let failed = notices(&dir, "2028-03-01", Some("/bin/false"));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("could not print"), "{stderr}");
    assert_eq!(names(&out), listed, "no new file, staging folder or lock beside the old set");
    assert_eq!(files(&out), before, "every file of the old set unchanged");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_json_names_every_file_with_its_sha256_the_command_and_the_as_of_date() {
    let dir = sample_copy("manifest");
    let out = dir.join("out");
    // A file of the user's in the folder is left alone and not named.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let run = schedule(&dir, "2027-01-15", "out", None);
    assert!(matches!(run.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&run.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let written = files(&out);
    let listed: BTreeMap<String, (u64, String)> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = f["name"].as_str().unwrap().to_string();
            (name, (f["bytes"].as_u64().unwrap(), f["sha256"].as_str().unwrap().to_string()))
        })
        .collect();
    let expected: BTreeMap<String, (u64, String)> = written
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "run.json" | "notes.txt"))
        .map(|(name, bytes)| (name.clone(), (bytes.len() as u64, sha256(bytes))))
        .collect();
    assert_eq!(listed, expected);
    let names: Vec<&String> = listed.keys().collect();
    assert_eq!(
        names,
        ["problems.csv", "schedule.csv", "schedule.geojson", "schedule.parquet", "schedule.qml"]
    );
    let command: Vec<&str> =
        manifest["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(command[0], env!("CARGO_BIN_EXE_lakeshore"));
    assert_eq!(
        command[1..],
        [
            "schedule",
            "--config",
            "county.toml",
            "--as-of",
            "2027-01-15",
            "--out",
            "out",
            "--format",
            "csv,geojson,parquet",
            "--quiet"
        ]
    );
    assert_eq!(manifest["as_of"], "2027-01-15");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The problems of `problems.csv` in `out` that are about control characters.
fn control_problems(out: &Path) -> Vec<common::Row> {
    let (_, rows) = common::read_rows(&out.join("problems.csv")).unwrap();
    rows.into_iter().filter(|r| r.values().any(|v| v.contains("control characters"))).collect()
}

/// Writes the sample's parcels as `parcels.geojson` in `dir` (EPSG:2261, the `crs` member of GeoJSON 2008),
/// with `owner` as the owner of record `record`: GeoJSON strings can hold any character, NUL included (a `.dbf`
/// field ends at its first NUL).
fn geojson_parcels(dir: &Path, record: usize, owner: &str) {
    let shp = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.shp");
    let (layer, _) = lakeshore::formats::read_layer(&shp, &Default::default()).unwrap();
    let features: Vec<serde_json::Value> = layer
        .features
        .iter()
        .map(|feature| {
            let mut properties = serde_json::Map::new();
            for (name, value) in layer.fields.iter().zip(&feature.values) {
                let value = match value {
                    _ if name == "PRIMARY_OW" && feature.record == record => owner.into(),
                    lakeshore::crs::layer::Value::Null => serde_json::Value::Null,
                    lakeshore::crs::layer::Value::Text(text) => text.as_ref().into(),
                    lakeshore::crs::layer::Value::Number(n) => (*n).into(),
                    lakeshore::crs::layer::Value::Bool(b) => (*b).into(),
                };
                properties.insert(name.clone(), value);
            }
            let geometry = geojson::Geometry::from(feature.geometry.as_ref().unwrap());
            serde_json::json!({ "type": "Feature", "properties": properties, "geometry": geometry })
        })
        .collect();
    let collection = serde_json::json!({
        "type": "FeatureCollection",
        "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:EPSG::2261" } },
        "features": features,
    });
    std::fs::write(dir.join("parcels.geojson"), collection.to_string()).unwrap();
}

/// `lakeshore COMMAND` of the sample copy in `dir` with the parcels of `parcels.geojson`, into `out`, with
/// the arguments `more`.
fn with_geojson_parcels(dir: &Path, command: &str, out: &str, more: &[&str]) -> std::process::Output {
    let mut run = Command::new(env!("CARGO_BIN_EXE_lakeshore"));
    run.current_dir(dir).args([command, "--config", "county.toml", "--parcels", "parcels.geojson"]);
    run.args(["--as-of", "2027-01-15", "--out", out, "--quiet"]).args(more);
    run.output().expect("cannot run the lakeshore binary")
}

/// `lakeshore schedule` of the sample copy in `dir` with the parcels of `parcels.geojson`, into `out`.
fn schedule_geojson_parcels(dir: &Path, out: &str) -> std::process::Output {
    with_geojson_parcels(dir, "schedule", out, &["--format", "csv,geojson,parquet"])
}

#[test]
fn a_nul_and_a_right_to_left_override_in_an_owner_come_out_as_replacement_characters_with_one_problem() {
    let dir = sample_copy("controls");
    geojson_parcels(&dir, 3, "Smith");
    let clean = schedule_geojson_parcels(&dir, "clean");
    assert!(matches!(clean.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&clean.stderr));
    let (_, clean_problems) = common::read_rows(&dir.join("clean/problems.csv")).unwrap();
    geojson_parcels(&dir, 3, "Ev\0il \u{202e}gnp.exe");
    let run = schedule_geojson_parcels(&dir, "out");
    assert_eq!(run.status.code(), Some(2), "{}", String::from_utf8_lossy(&run.stderr));
    let out = dir.join("out");
    let expected = "Ev\u{fffd}il \u{fffd}gnp.exe";

    let (_, rows) = common::read_rows(&out.join("schedule.csv")).unwrap();
    let owners: Vec<&str> = rows.iter().filter(|r| r["record"] == "3").map(|r| r["owner"].as_str()).collect();
    assert_eq!(owners, [expected]);
    let geojson: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("schedule.geojson")).unwrap()).unwrap();
    let features = geojson["features"].as_array().unwrap();
    let owner = &features.iter().find(|f| f["properties"]["record"] == 3).unwrap()["properties"]["owner"];
    assert_eq!(owner, expected);
    let file = std::fs::File::open(out.join("schedule.parquet")).unwrap();
    let frame = polars::prelude::ParquetReader::new(file).finish().unwrap();
    let owners: Vec<Option<&str>> = frame.column("owner").unwrap().str().unwrap().iter().collect();
    assert!(owners.contains(&Some(expected)), "the owner in the Parquet file: {owners:?}");
    assert!(!owners.iter().flatten().any(|o| o.contains(['\0', '\u{202e}'])));
    for (name, bytes) in files(&out) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains('\u{202e}') && !text.contains("Ev\0il"), "{name} holds the raw characters");
    }

    let found = control_problems(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0]["file"].as_str(), found[0]["record"].as_str()), ("schedule.csv", "field owner"));
    let message = &found[0]["problem"];
    let id = &rows.iter().find(|r| r["record"] == "3").unwrap()["parcel_id"];
    assert!(message.starts_with("1 value held control characters (U+0000, U+202E)"), "{message}");
    assert!(message.contains(&format!("the first in the row of {id}")), "{message}");
    let (_, problems) = common::read_rows(&out.join("problems.csv")).unwrap();
    assert_eq!(problems.len(), clean_problems.len() + 1, "one problem more than the clean run");

    // The parcel owes a periodic inspection in 2027 (it is in the clean notices): its letter, label and row
    // of the notices carry the cleaned name, reported once, for notices.csv; the interactive map carries it
    // too, reported for map.html.
    let noticed = with_geojson_parcels(&dir, "notices", "notices", &["--format", "csv"]);
    assert_eq!(noticed.status.code(), Some(2), "{}", String::from_utf8_lossy(&noticed.stderr));
    let mapped = with_geojson_parcels(&dir, "map", "map", &["--format", "html"]);
    assert_eq!(mapped.status.code(), Some(2), "{}", String::from_utf8_lossy(&mapped.stderr));
    for file in ["notices/notices.csv", "notices/letters.html", "notices/labels.html", "map/map.html"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains(expected), "{file} names the owner");
        assert!(!text.contains(['\0', '\u{202e}']), "{file} holds the raw characters");
    }
    let found = control_problems(&dir.join("notices"));
    let files: Vec<(&str, &str)> = found.iter().map(|r| (r["file"].as_str(), r["record"].as_str())).collect();
    assert_eq!(files, [("notices.csv", "field owner")]);
    let found = control_problems(&dir.join("map"));
    let files: Vec<(&str, &str)> = found.iter().map(|r| (r["file"].as_str(), r["record"].as_str())).collect();
    assert_eq!(files, [("map.html", "field owner")]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A schedule killed just after its first file was renamed into place, past its commit point, is finished by
/// the next lakeshore run into the folder even when that is another command (`workload`): before doing its
/// own work it puts the rest of the schedule in place, and the schedule's files are then the new ones.
#[test]
fn a_publish_cut_short_after_its_commit_point_is_finished_by_the_next_command_into_the_folder() {
    let dir = sample_copy("finished-by-another");
    let reference = schedule(&dir, "2028-01-15", "new", None);
    assert!(matches!(reference.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&reference.stderr));
    let out = dir.join("out");
    let first = schedule(&dir, "2027-01-15", "out", None);
    assert!(matches!(first.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&first.stderr));
    let killed = schedule(&dir, "2028-01-15", "out", Some("kill-after:rename:1"));
    assert_eq!(killed.status.code(), None, "{}", String::from_utf8_lossy(&killed.stderr));
    assert!(!out.join("run.json").exists(), "the old run.json went before the first rename");
    assert!(names(&out).iter().any(|n| n.starts_with(".lakeshore-staging-")), "{:?}", names(&out));

    let workload = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(&dir)
        .args(["workload", "--config", "county.toml", "--as-of", "2028-01-15", "--out", "out", "--quiet"])
        .env_remove("LAKESHORE_FAULT")
        .output()
        .unwrap();
    assert!(matches!(workload.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&workload.stderr));
    let new = files(&dir.join("new"));
    let now = files(&out);
    for name in ["schedule.csv", "schedule.geojson", "schedule.parquet", "schedule.qml"] {
        assert!(now.get(name) == new.get(name), "{name} is the new schedule's");
    }
    // run.json is the workload's now, and verifies; the schedule's files stay beside it, unnamed.
    assert_eq!(verified_set(&out), "2028-01-15");
    let manifest = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(manifest.contains("workload.csv") && !manifest.contains("schedule.csv"), "{manifest}");
    assert!(names(&out).iter().all(|n| !n.starts_with(".lakeshore")), "{:?}", names(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An output folder that holds the county's data: a file of the set that would replace a layer the run reads
/// (`systems` writes `systems.geojson`, the sample's systems layer) stops the run before anything is written,
/// naming the file; outputs that replace no input (`schedule`'s) are written beside the data as before.
#[test]
fn an_output_that_would_replace_an_input_stops_the_run_and_the_data_folder_is_as_it_was() {
    let dir = sample_copy("output-over-input");
    let before = files(&dir);
    let listed = names(&dir);
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(&dir)
        .args(["systems", "--config", "county.toml", "--as-of", "2027-01-15", "--out", ".", "--quiet"])
        .output()
        .expect("cannot run the lakeshore binary");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("systems.geojson") && stderr.contains("which the run reads"), "{stderr}");
    assert_eq!(files(&dir), before, "the data folder's files are as they were");
    assert_eq!(names(&dir), listed, "nothing is left in the data folder");

    let output = schedule(&dir, "2027-01-15", ".", None);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let after = files(&dir);
    assert!(after.contains_key("schedule.csv"), "schedule.csv beside the data");
    assert!(before.iter().all(|(name, bytes)| after.get(name) == Some(bytes)), "an input was changed");
}
