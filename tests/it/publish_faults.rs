//! The publish of an output set under faults (README "The output folder"): the run killed at each point of
//! the publish, on both sides of the commit point, an ENOSPC or an EIO at each step that touches the folder,
//! and SIGINT or SIGTERM on both sides of the commit point, through the binary's fault hook
//! (`LAKESHORE_FAULT`, ARCHITECTURE.md). After each, and after the next run into the folder when the first was
//! cut short, the folder holds exactly the old set or the new one, each verifying against its `run.json`
//! (sizes and SHA-256s, computed here); only while a committed publish is unfinished may it hold no
//! `run.json`. A file of the user's in the folder is never touched.
//!
//! A short suite runs on the sample county in every `cargo test`; `.ci/run` runs the whole one on a generated
//! county (`LAKESHORE_FAULTS_CONFIG`, with `LAKESHORE_BIN` the release binary).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

use crate::common;
use crate::safe_outputs::{files, names, sample_copy};

/// The as-of dates of the old set and the new one.
const OLD: &str = "2027-01-15";
const NEW: &str = "2028-01-15";

/// The user's own file in the output folder, and its text.
const MINE: (&str, &str) = ("notes.txt", "my notes\n");

/// What a fault does to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ends {
    /// The process dies (it aborts, as a kill ends it).
    Killed,
    /// The run fails with exit 1.
    Fails,
    /// The run stops on a signal with this exit code.
    Signal(i32),
}

/// A fault of the hook, what it does to the run, and whether it comes at or after the commit point.
struct Fault {
    text: String,
    ends: Ends,
    committed: bool,
}

fn fault(text: &str, ends: Ends, committed: bool) -> Fault {
    Fault { text: text.to_string(), ends, committed }
}

/// Every fault of the publish of a set of `files` files (`run.json` not counted): a kill before and after
/// each point, ENOSPC and EIO at each, SIGINT or SIGTERM before some.
fn every_fault(files: usize) -> Vec<Fault> {
    let mut points: Vec<(String, bool)> =
        ["sync", "manifest", "commit"].iter().map(|p| (p.to_string(), false)).collect();
    points.push(("unlink".into(), true));
    points.extend((1..=files + 1).map(|k| (format!("rename:{k}"), true)));
    points.push(("cleanup".into(), true));
    let mut faults = Vec::new();
    for (point, after) in &points {
        // Killed just before the marker's rename is the last moment the old set is kept; just after it, the
        // first moment the new one is decided.
        let committed_before = *after;
        let committed_after = *after || point == "commit";
        faults.push(fault(&format!("kill-before:{point}"), Ends::Killed, committed_before));
        faults.push(fault(&format!("kill-after:{point}"), Ends::Killed, committed_after));
        // The staging folder's removal fails quietly: the set is published by then.
        if point != "cleanup" {
            faults.push(fault(&format!("{point}:ENOSPC"), Ends::Fails, *after));
            faults.push(fault(&format!("{point}:EIO"), Ends::Fails, *after));
        }
    }
    faults.extend(signals());
    faults
}

/// SIGINT and SIGTERM on both sides of the commit point: before it the run stops and keeps the old set;
/// after it (a signal just before the marker's rename is after the last safe point) it finishes the publish.
fn signals() -> Vec<Fault> {
    vec![
        fault("raise-before:sync:SIGINT", Ends::Signal(130), false),
        fault("raise-before:manifest:SIGTERM", Ends::Signal(143), false),
        fault("raise-before:commit:SIGINT", Ends::Signal(130), true),
        fault("raise-before:unlink:SIGTERM", Ends::Signal(143), true),
        fault("raise-before:rename:2:SIGINT", Ends::Signal(130), true),
    ]
}

/// The binary the suite runs: `LAKESHORE_BIN`, else the one cargo built.
fn binary() -> PathBuf {
    std::env::var_os("LAKESHORE_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lakeshore")), PathBuf::from)
}

/// `lakeshore schedule` of the county `config` as of `as_of` into `out`, in every table format, with `fault`.
fn schedule(config: &Path, as_of: &str, out: &Path, fault: Option<&str>) -> Output {
    let mut command = Command::new(binary());
    command.arg("schedule").arg("--config").arg(config).args(["--as-of", as_of, "--out"]).arg(out);
    // The GeoPackage's `last_change` is this time, not the clock's, so that two runs give the same bytes.
    command.args(["--format", "csv,geojson,parquet,gpkg", "--quiet"]).env("SOURCE_DATE_EPOCH", "1800000000");
    match fault {
        Some(fault) => command.env("LAKESHORE_FAULT", fault),
        None => command.env_remove("LAKESHORE_FAULT"),
    };
    command.output().expect("cannot run the lakeshore binary")
}

/// The SHA-256 of `bytes` in lowercase hex.
fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The files of `dir` by name, each as its SHA-256 (the folder's own `run.json` left out).
fn digests(dir: &Path) -> BTreeMap<String, String> {
    files(dir)
        .into_iter()
        .filter(|(name, _)| name != "run.json")
        .map(|(name, bytes)| (name, sha256(&bytes)))
        .collect()
}

/// Which of the sets `sets` (by as-of date, each file's SHA-256) the folder `out` holds: the as-of date of its
/// `run.json` once every file it names verifies against it and they are that set's files, byte for byte;
/// `None` when it has no `run.json`, each output then being one set's file or the other's. The user's file
/// is as it was, and no other file stands beside them.
fn held(out: &Path, sets: &BTreeMap<&str, BTreeMap<String, String>>, label: &str) -> Option<String> {
    let found = files(out);
    assert_eq!(found.get(MINE.0).map(Vec::as_slice), Some(MINE.1.as_bytes()), "{label}: the user's file");
    let outputs: Vec<&String> = sets[OLD].keys().collect();
    for name in found.keys().filter(|n| !n.starts_with('.')) {
        let known = outputs.contains(&name) || name == "run.json" || name == MINE.0;
        assert!(known, "{label}: {name} is no file of either set");
    }
    let Some(text) = found.get("run.json") else {
        for (name, bytes) in &found {
            let whole = sets.values().any(|set| set.get(name) == Some(&sha256(bytes)));
            assert!(whole || !outputs.contains(&name), "{label}: {name} is neither set's");
        }
        return None;
    };
    let manifest: serde_json::Value = serde_json::from_slice(text).unwrap();
    let as_of = manifest["as_of"].as_str().unwrap().to_string();
    let set = sets.get(as_of.as_str()).unwrap_or_else(|| panic!("{label}: run.json of {as_of}"));
    let mut named = BTreeMap::new();
    for file in manifest["files"].as_array().unwrap() {
        let name = file["name"].as_str().unwrap();
        let bytes =
            found.get(name).unwrap_or_else(|| panic!("{label}: {name}, named by run.json, is missing"));
        assert_eq!(file["sha256"], sha256(bytes), "{label}: {name} against run.json");
        assert_eq!(file["bytes"], bytes.len(), "{label}: {name} against run.json");
        named.insert(name.to_string(), sha256(bytes));
    }
    assert_eq!(&named, set, "{label}: run.json names exactly the set of {as_of}");
    Some(as_of)
}

/// Runs every fault of `faults` on the county `config`, each on a folder holding the old set and the user's
/// file; returns how many runs were made.
fn fault_suite(config: &Path, faults: &[Fault]) -> usize {
    let dir = common::fresh_dir("publish-faults");
    let mut sets = BTreeMap::new();
    for as_of in [OLD, NEW] {
        let made = dir.join(as_of);
        let output = schedule(config, as_of, &made, None);
        assert!(matches!(output.status.code(), Some(0 | 2)), "{}", String::from_utf8_lossy(&output.stderr));
        sets.insert(as_of, digests(&made));
    }
    assert_ne!(sets[OLD], sets[NEW], "the two sets must differ for the suite to mean anything");
    assert_eq!(sets[OLD].keys().collect::<Vec<_>>(), sets[NEW].keys().collect::<Vec<_>>());
    let clean: Vec<String> = {
        let mut clean: Vec<String> = sets[OLD].keys().cloned().collect();
        clean.extend(["run.json".to_string(), MINE.0.to_string()]);
        clean.sort();
        clean
    };
    let mut runs = 2;
    for fault in faults {
        let label = fault.text.as_str();
        let out = dir.join("out");
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        for (name, bytes) in files(&dir.join(OLD)) {
            std::fs::write(out.join(name), bytes).unwrap();
        }
        std::fs::write(out.join(MINE.0), MINE.1).unwrap();
        assert_eq!(held(&out, &sets, label).as_deref(), Some(OLD));

        let faulted = schedule(config, NEW, &out, Some(label));
        runs += 1;
        let stderr = String::from_utf8_lossy(&faulted.stderr);
        let held_now = held(&out, &sets, label);
        match fault.ends {
            Ends::Killed => assert_eq!(faulted.status.code(), None, "{label}: {stderr}"),
            Ends::Fails => {
                assert_eq!(faulted.status.code(), Some(1), "{label}: {stderr}");
                assert!(stderr.contains("injected through LAKESHORE_FAULT"), "{label}: {stderr}");
                let told = "the next lakeshore run into";
                assert_eq!(stderr.contains(told), fault.committed, "{label}: {stderr}");
            }
            Ends::Signal(code) => {
                assert_eq!(faulted.status.code(), Some(code), "{label}: {stderr}");
                let name = if code == 130 { "SIGINT" } else { "SIGTERM" };
                let told = match fault.committed {
                    true => format!("lakeshore: stopped by {name}: its outputs were put in place first\n"),
                    false => format!("lakeshore: stopped by {name}: nothing was published, and the output folder keeps its previous set\n"),
                };
                assert_eq!(stderr, told, "{label}: one line");
            }
        }
        match (fault.committed, fault.ends) {
            (false, _) => assert_eq!(held_now.as_deref(), Some(OLD), "{label}: before the commit point"),
            // Stopped past the commit point, the run finished the publish.
            (true, Ends::Signal(_)) => assert_eq!(held_now.as_deref(), Some(NEW), "{label}"),
            // Cut short past it: the old set (the old run.json not yet removed), none, or the new set; `held`
            // has checked that it is no mix.
            (true, _) => {}
        }
        if (fault.ends != Ends::Killed && !fault.committed) || matches!(fault.ends, Ends::Signal(_)) {
            assert_eq!(names(&out), clean, "{label}: no staging folder, lock or temporary left");
            continue;
        }
        // The next run into the folder, killed as soon as it has the folder: it finished what was committed
        // and removed what was not, before anything else.
        let next = schedule(config, "2029-01-15", &out, Some("kill-after:open"));
        runs += 1;
        assert_eq!(
            next.status.code(),
            None,
            "{label}, the next run: {}",
            String::from_utf8_lossy(&next.stderr)
        );
        let expected = if fault.committed { NEW } else { OLD };
        assert_eq!(held(&out, &sets, label).as_deref(), Some(expected), "{label}, after the next run");
        let mut left = clean.clone();
        left.push(".lakeshore.lock".to_string());
        left.sort();
        assert_eq!(names(&out), left, "{label}: the next run left no staging folder");
    }
    let _ = std::fs::remove_dir_all(&dir);
    runs
}

/// A few faults on the sample county, on both sides of the commit point.
#[test]
fn a_publish_killed_failed_or_signalled_leaves_the_old_set_or_the_new_one() {
    let dir = sample_copy("publish-faults-sample");
    let faults = vec![
        fault("kill-before:commit", Ends::Killed, false),
        fault("kill-after:commit", Ends::Killed, true),
        fault("kill-after:rename:2", Ends::Killed, true),
        fault("sync:EIO", Ends::Fails, false),
        fault("commit:ENOSPC", Ends::Fails, false),
        fault("unlink:EIO", Ends::Fails, true),
        fault("rename:3:ENOSPC", Ends::Fails, true),
        fault("raise-before:manifest:SIGTERM", Ends::Signal(143), false),
        fault("raise-before:unlink:SIGINT", Ends::Signal(130), true),
    ];
    fault_suite(&dir.join("county.toml"), &faults);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every fault on a county named by `LAKESHORE_FAULTS_CONFIG` (`.ci/run` generates one of 10,000 parcels);
/// without it the test has nothing to do.
#[test]
fn every_publish_fault_on_a_generated_county() {
    let Some(config) = std::env::var_os("LAKESHORE_FAULTS_CONFIG") else {
        return;
    };
    // schedule.csv, .geojson, .parquet, .gpkg, .qml and problems.csv.
    let faults = every_fault(6);
    let runs = fault_suite(Path::new(&config), &faults);
    println!("{} faults, {runs} runs", faults.len());
}
