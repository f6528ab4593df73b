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

/// `head` and a line `line(i)` for each of `KEYS` keys.
fn with_keys(head: &str, line: impl Fn(usize) -> String) -> String {
    let mut text = String::from(head);
    (0..KEYS).for_each(|i| text.push_str(&line(i)));
    text
}

/// Checks that `told` tells 20 mistakes, the first starting `first`, and counts exactly `rest` more.
fn assert_twenty_then_count(told: &str, first: &str, rest: usize) {
    let starts = told.lines().filter(|l| l.contains("county.toml:") && !l.contains("more mistakes")).count();
    assert_eq!(starts, 20, "{}", &told[..told.len().min(2000)]);
    assert!(told.contains(first), "{}", &told[..told.len().min(2000)]);
    let count =
        told.lines().find(|l| l.contains("more mistakes not shown")).expect("a line counting the rest");
    assert!(count.contains(&format!("and {rest} more mistakes not shown")), "{count}");
    assert!(!count.contains("at least"), "{count}");
}

#[test]
fn a_hundred_thousand_unknown_roles_are_twenty_told_and_the_rest_counted() {
    let head = "crs = \"EPSG:2261\"\n[fields.history]\nparcel_id = \"SBL\"\n";
    let err = told("roles", &with_keys(head, |i| format!("no_such_role_{i:06} = \"C{i}\"\n")));
    // The first told is the first in key order, at its line: line 4 of the file.
    assert_twenty_then_count(&err, "county.toml:4:1: [fields.history] no_such_role_000000", KEYS - 20);
}

#[test]
fn a_hundred_thousand_unknown_keys_of_a_typed_table_are_counted_too() {
    // `[layers]` takes only known keys: every other is a mistake of the TOML's reading.
    let head = "crs = \"EPSG:2261\"\n[layers]\nparcels = \"parcels.shp\"\n";
    let mut text = with_keys(head, |i| format!("layer_{i:06} = \"x.shp\"\n"));
    // And a second table with two more, and an unknown table with a key of its own.
    text.push_str("[dem]\nvertical_unitt = \"m\"\nzz = 1\n[no_such_table]\nkey = 1\n");
    let err = told("typed", &text);
    // 100,000 - 20 in [layers], 2 in [dem] and the unknown table.
    assert_twenty_then_count(&err, "county.toml:4:1: [layers] layer_000000: unknown key", KEYS - 20 + 3);
}

#[test]
fn a_rule_set_with_many_unknown_keys_is_told_the_same_way() {
    let text = with_keys("[jurisdiction]\nname = \"X\"\n", |i| format!("key_{i:06} = 1\n"));
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

#[test]
fn an_unknown_office_key_is_told_with_the_key_meant() {
    let told = told(
        "office",
        "[layers]\nparcels = \"p.shp\"\n[office]\nname = \"Town of Gorham\"\ntelephon = \"(585) 526-6317\"\n",
    );
    assert!(told.contains(":5:1: [office] telephon: unknown key `telephon`"), "{told}");
    assert!(told.contains("did you mean `telephone`?"), "{told}");
}
