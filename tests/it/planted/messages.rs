//! Messages that say no more than they know, on the sample county handed over with ids gone wrong: a print
//! key two towns share, named by a log keyed by print key alone, is "matches two or more parcels; add the
//! SWIS", not "not in the parcels layer"; an id carrying an invisible character shows it escaped.

use serde_json::{json, Map};

use super::{rewrite_csv, unchanged, write_geojson, Coordinates, County};

fn sample(label: &str) -> County {
    County::copy_of(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml"), label)
}

/// The sample's parcel ids, from its own schedule.
fn ids(county: &County) -> std::collections::BTreeSet<String> {
    let run = county.run("schedule", "2027-01-15", &[]);
    run.verdicts().into_iter().map(|r| r["parcel_id"].clone()).collect()
}

#[test]
fn a_print_key_two_towns_share_is_told_as_such() {
    let mut county = sample("shared-key");
    let ids = ids(&county);
    // The first logged parcel's print key given to a parcel of another town as well.
    let history = std::fs::read_to_string(county.layer("history").expect("a history")).expect("history");
    let logged = history.lines().nth(1).and_then(|l| l.split(',').next()).expect("a row").to_string();
    let (swis, key) = logged.split_once('-').expect("SWIS-PRINT_KEY");
    let parcels = county.read("parcels").expect("parcels");
    let s = parcels.field_index("SWIS").expect("SWIS");
    let other = parcels
        .features
        .iter()
        .position(|f| f.values[s].as_text().is_some_and(|t| t != swis))
        .expect("a parcel of another town");
    let shared = key.to_string();
    let share = move |i: usize, p: &mut Map<String, serde_json::Value>| {
        if i == other {
            p.insert("PRINT_KEY".into(), json!(shared));
        }
    };
    write_geojson(
        &county,
        "parcels_shared.geojson",
        &parcels,
        Coordinates::In(&parcels.crs),
        unchanged,
        share,
    )
    .expect("written");
    county.set_layer("parcels", "parcels_shared.geojson");
    // The log keyed by print key alone.
    let strip = |rows: &mut Vec<Vec<String>>, col: usize| {
        for id in rows.iter_mut().skip(1).filter_map(|row| row.get_mut(col)) {
            if let Some((_, rest)) = id.split_once('-') {
                *id = rest.to_string();
            }
        }
    };
    rewrite_csv(&county, "history", &ids, strip, ',').expect("rewritten");
    let run = county.run("schedule", "2027-01-15", &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let problems = std::fs::read_to_string(run.out.join("problems.csv")).expect("problems.csv");
    let line = problems
        .lines()
        .find(|l| l.contains(&format!("parcel {key} ")))
        .unwrap_or_else(|| panic!("{problems}"));
    assert!(line.contains("matches two or more parcels") && line.contains("add the SWIS"), "{line}");
    assert!(!line.contains("not in the parcels layer"), "{line}");
}

#[test]
fn an_invisible_character_in_an_id_is_shown_escaped() {
    let county = sample("invisible");
    let ids = ids(&county);
    let mark = |rows: &mut Vec<Vec<String>>, col: usize| rows[1][col].push('\u{200B}');
    rewrite_csv(&county, "history", &ids, mark, ',').expect("rewritten");
    let run = county.run("schedule", "2027-01-15", &[]);
    let problems = std::fs::read_to_string(run.out.join("problems.csv")).expect("problems.csv");
    assert!(problems.contains("<U+200B> is not in the parcels layer"), "{problems}\n{}", run.stderr);
}
