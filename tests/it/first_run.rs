//! Any county's first run: a county the built-in rule set does not know (its towns and lake are Tompkins
//! County's) gets from `lakeshore init` a starter rule set with its own towns and water bodies and every
//! value of the law marked to fill; a run on it stops naming each value left; filled, it schedules the
//! county. `lakeshore rules` prints the built-in rule sets to start from.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::fresh_dir;
use crate::ny_county::{lakeshore, text};

/// Tompkins County's towns, for the sample's fifteen town polygons.
const TOWNS: [&str; 9] =
    ["Caroline", "Danby", "Dryden", "Enfield", "Groton", "Ithaca", "Lansing", "Newfield", "Ulysses"];

/// The sample county with Tompkins County's towns and Cayuga Lake in its layers, no watershed layer and no
/// config.
fn other_county() -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let dir = fresh_dir("first-run");
    for entry in fs::read_dir(&from).expect("data/sample") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        if path.is_file() && !name.ends_with(".toml") && !name.starts_with("watershed") && name != "dem.tif" {
            fs::copy(&path, dir.join(&name)).expect("copy");
        }
    }
    let rename = |file: &str, names: &dyn Fn(usize) -> String| {
        let mut doc: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join(file)).expect("layer")).expect("json");
        for (k, f) in doc["features"].as_array_mut().expect("features").iter_mut().enumerate() {
            f["properties"]["NAME"] = names(k).into();
        }
        fs::write(dir.join(file), doc.to_string()).expect("write");
    };
    rename("towns.geojson", &|k| TOWNS[k % TOWNS.len()].to_string());
    rename("shoreline.geojson", &|k| ["Cayuga Lake", "Fall Creek Pond"][k % 2].to_string());
    dir
}

#[test]
fn init_writes_a_starter_rule_set_for_a_county_the_built_in_one_does_not_know() {
    let dir = other_county();
    let output = lakeshore(&["init", dir.to_str().expect("path")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let said = text(&output);
    assert!(said.contains("does not know") && said.contains("rules.toml"), "{said}");
    let config = fs::read_to_string(dir.join("county.toml")).expect("county.toml");
    assert!(config.lines().any(|l| l.starts_with("rules = \"rules.toml\"")), "{config}");
    let rules = fs::read_to_string(dir.join("rules.toml")).expect("rules.toml");
    for town in TOWNS {
        assert!(rules.contains(&format!("\"{town}\"")), "{town} not in\n{rules}");
    }
    assert!(
        rules.contains("name = \"Cayuga Lake\"") && rules.contains("name = \"Fall Creek Pond\""),
        "{rules}"
    );

    // A run on the starter stops, naming each value left with its line.
    let out = dir.join("out");
    let run = |out: &Path| {
        lakeshore(&[
            "schedule",
            "--config",
            dir.join("county.toml").to_str().expect("path"),
            "--as-of",
            "2027-01-15",
            "--format",
            "csv",
            "--out",
            out.to_str().expect("path"),
        ])
    };
    let stopped = run(&out);
    assert_eq!(stopped.status.code(), Some(1), "{}", text(&stopped));
    let message = text(&stopped);
    let line = rules.lines().position(|l| l.starts_with("mhw_ft")).expect("mhw_ft") + 1;
    assert!(
        message.contains("TO FILL") && message.contains(&format!("line {line}: [[water_body]] mhw_ft")),
        "{message}"
    );

    // Filled with the law's values, it schedules the county: the parcels on the lake are lakefront.
    let filled: Vec<String> = rules
        .lines()
        .map(|l| match l.split_once(" = \"TO FILL") {
            Some((key, _)) if key.ends_with("_ft") => format!("{key} = 382.0"),
            Some((key, _)) if key == "cycle_years" => format!("{key} = 3"),
            Some((key, _)) if key == "first_due" => format!("{key} = \"2025-11-01\""),
            Some((key, _)) => format!("{key} = \"Local Law 1\""),
            None => l.to_string(),
        })
        .collect();
    fs::write(dir.join("rules.toml"), filled.join("\n")).expect("write");
    let done = run(&dir.join("out2"));
    assert!(matches!(done.status.code(), Some(0 | 2)), "{}", text(&done));
    let schedule = fs::read_to_string(dir.join("out2/schedule.csv")).expect("schedule.csv");
    assert!(schedule.lines().any(|l| l.contains(",lakefront,") && l.contains("Cayuga Lake")), "{schedule}");
}

#[test]
fn the_built_in_rule_sets_are_printed_to_start_from() {
    for (jurisdiction, name) in [("cayuga", "Cayuga County Health District"), ("gorham", "Town of Gorham")] {
        let output = lakeshore(&["rules", "--jurisdiction", jurisdiction]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        let printed = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(printed.contains(&format!("name = \"{name}\"")), "{printed}");
        let set =
            lakeshore::rules::RuleSet::from_toml(&printed, Path::new("printed.toml")).expect("it loads");
        assert_eq!(set.jurisdiction.name, name);
    }
}
