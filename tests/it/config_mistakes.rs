//! A config or rule set with very many mistakes: the first few are told at their lines, the rest counted in
//! one line, whatever table they are in.

use lakeshore::pipeline::config::ConfigFile;
use lakeshore::rules::RuleSet;

use crate::common::fresh_dir;

/// How many keys the tests write: enough that a pass over the file per key would not finish.
const KEYS: usize = 100_000;

/// The mistakes a config's text makes, as `ConfigFile::load` tells them.
fn told(name: &str, text: &str) -> String {
    let dir = fresh_dir(name);
    let path = dir.join("county.toml");
    std::fs::write(&path, text).unwrap();
    let err = ConfigFile::load(&path).expect_err("a config with unknown keys").to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    err
}

/// The lines of `told` that start a told mistake (`path:line:column: ...`), and the count line.
fn summary(told: &str) -> (usize, Option<&str>) {
    let starts = told.lines().filter(|l| l.contains("county.toml:") && !l.contains("more mistakes")).count();
    (starts, told.lines().find(|l| l.contains("more mistakes not shown")))
}

#[test]
fn a_hundred_thousand_unknown_roles_are_twenty_told_and_the_rest_counted() {
    let mut text = String::from("crs = \"EPSG:2261\"\n[fields.history]\nparcel_id = \"SBL\"\n");
    for i in 0..KEYS {
        text.push_str(&format!("no_such_role_{i:06} = \"C{i}\"\n"));
    }
    let err = told("roles", &text);
    let (starts, count) = summary(&err);
    assert_eq!(starts, 20, "{}", &err[..err.len().min(2000)]);
    // The first told is the first in key order, at its line: line 4 of the file.
    assert!(err.contains("county.toml:4:1: [fields.history] no_such_role_000000"), "{}", &err[..2000]);
    let count = count.expect("a line counting the rest");
    assert!(count.contains("and 99980 more mistakes not shown"), "{count}");
    assert!(!count.contains("at least"), "{count}");
}

#[test]
fn a_hundred_thousand_unknown_keys_of_a_typed_table_are_counted_too() {
    // `[layers]` takes only known keys: every other is a mistake of the TOML's reading.
    let mut text = String::from("crs = \"EPSG:2261\"\n[layers]\nparcels = \"parcels.shp\"\n");
    for i in 0..KEYS {
        text.push_str(&format!("layer_{i:06} = \"x.shp\"\n"));
    }
    // And a second table with two more, and an unknown table with a key of its own.
    text.push_str("[dem]\nvertical_unitt = \"m\"\nzz = 1\n[no_such_table]\nkey = 1\n");
    let err = told("typed", &text);
    let (starts, count) = summary(&err);
    assert_eq!(starts, 20, "{}", &err[..err.len().min(2000)]);
    assert!(err.contains("county.toml:4:1: [layers] layer_000000: unknown key"), "{}", &err[..2000]);
    // 100,000 - 20 in [layers], 2 in [dem] and the unknown table.
    let count = count.expect("a line counting the rest");
    assert!(count.contains("and 99983 more mistakes not shown"), "{count}");
}

#[test]
fn a_rule_set_with_many_unknown_keys_is_told_the_same_way() {
    let mut text = String::from("[jurisdiction]\nname = \"X\"\n");
    for i in 0..KEYS {
        text.push_str(&format!("key_{i:06} = 1\n"));
    }
    let err = RuleSet::from_toml(&text, std::path::Path::new("rules.toml")).unwrap_err().to_string();
    assert_eq!(
        err.lines().filter(|l| l.starts_with("rules.toml:") && l.contains(": unknown key")).count(),
        20
    );
    let count = err.lines().find(|l| l.contains("more mistakes not shown")).expect("the count line");
    // 99,980 unknown keys, and whatever the rule set lacks besides (at least the count of the keys).
    let n: usize = count.split_whitespace().find_map(|w| w.parse().ok()).expect("a number");
    assert!(n >= KEYS - 20, "{count}");
}
