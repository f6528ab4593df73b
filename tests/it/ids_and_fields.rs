//! The sample county handed over the way offices hand files over: an inspection log keyed by print key alone
//! and padded its own way, a log of another county, a systems layer keyed by `SWIS_SBL_ID` with its bottom
//! elevation as `ELEV_FT` (or with none), a parcels layer without mailing fields or with them under names of
//! its own, and a sewer field written in words. Each copy of `data/sample` is scheduled and compared with the
//! run of the sample itself (the oracle: the same county, its files as lakeshore writes them), or must stop or
//! warn with the message that names the fix.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use shapefile::dbase::{FieldName, FieldValue, Reader, Record, TableWriterBuilder};

use crate::common;

const AS_OF: &str = "2027-01-15";

/// A copy of the sample county in a folder of its own.
fn sample_copy(label: &str) -> PathBuf {
    let dir = common::fresh_dir(label);
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    for entry in fs::read_dir(&sample).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// `lakeshore COMMAND --config DIR/county.toml --as-of AS_OF --out DIR/out` with `extra` flags.
fn run(command: &str, dir: &Path, extra: &[&str]) -> Output {
    let config = dir.join("county.toml");
    let out = dir.join("out");
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .arg(command)
        .arg("--config")
        .arg(&config)
        .args(["--as-of", AS_OF, "--out"])
        .arg(&out)
        .args(extra)
        .output()
        .expect("run lakeshore")
}

/// The sample's own run of `command`, into a copy of its own: the oracle.
fn oracle(command: &str, extra: &[&str]) -> PathBuf {
    let dir = sample_copy(&format!("oracle-{command}"));
    let output = run(command, &dir, extra);
    assert_eq!(output.status.code(), Some(0), "the sample runs clean:\n{}", stderr(&output));
    dir.join("out")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Rewrites the CSV file `name` of `dir`, its cells in column `column` through `change` (with the row's
/// 0-based number).
fn rewrite_column(dir: &Path, name: &str, column: &str, change: impl Fn(usize, &str) -> String) {
    let path = dir.join(name);
    let records = common::csv_records(&read(&path));
    let at = records[0].iter().position(|c| c == column).expect("the column");
    let mut text = String::new();
    for (i, record) in records.iter().enumerate() {
        let cells: Vec<String> = record
            .iter()
            .enumerate()
            .map(|(c, cell)| if c == at && i > 0 { change(i - 1, cell) } else { cell.clone() })
            .map(|cell| {
                if cell.contains([',', '"', '\n']) {
                    format!("\"{}\"", cell.replace('"', "\"\""))
                } else {
                    cell
                }
            })
            .collect();
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    fs::write(&path, text).unwrap();
}

/// The sample's parcels' attributes, read with the `dbase` crate: the field names and each record's values.
fn parcel_attributes() -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.dbf");
    let mut reader = Reader::from_path(&path).unwrap();
    let names: Vec<String> = reader.fields().iter().map(|f| f.name().to_string()).collect();
    let records = reader
        .iter_records()
        .map(|record| {
            let record = record.unwrap();
            let text = |name: &str| match record.get(name) {
                Some(FieldValue::Character(Some(t))) => t.trim().to_string(),
                _ => String::new(),
            };
            names.iter().map(|n| (n.clone(), text(n))).collect()
        })
        .collect();
    (names, records)
}

/// Writes the parcels' `.dbf` of `dir` again with the fields `names` (text, 50 characters), each record's
/// values from the sample's record through `change`; the shapes stay as they are.
fn rewrite_parcels(
    dir: &Path,
    names: &[&str],
    change: impl Fn(&BTreeMap<String, String>) -> BTreeMap<String, String>,
) {
    let (_, records) = parcel_attributes();
    let mut table = TableWriterBuilder::new();
    for name in names {
        table = table.add_character_field(FieldName::try_from(*name).unwrap(), 50);
    }
    let mut writer = table.build_with_file_dest(dir.join("parcels.dbf")).unwrap();
    for record in &records {
        let changed = change(record);
        let mut out = Record::default();
        for name in names {
            let value = changed.get(*name).cloned().filter(|v| !v.is_empty());
            out.insert(name.to_string(), FieldValue::Character(value));
        }
        writer.write_record(&out).unwrap();
    }
    writer.finalize().unwrap();
}

/// The sample's parcel fields with `rename` applied (old name → new) and `drop` left out.
fn fields_renamed(rename: &[(&str, &'static str)], drop: &[&str]) -> Vec<&'static str> {
    let (names, _) = parcel_attributes();
    names
        .iter()
        .filter(|n| !drop.contains(&n.as_str()))
        .map(|n| rename.iter().find(|(old, _)| old == n).map_or_else(|| &*n.clone().leak(), |(_, new)| *new))
        .collect()
}

/// A history keyed by print key alone, padded three ways (`165.-1-1`, `128.05-1-001`, ` 128.05-1-1.000 `),
/// is joined on the parcels' print keys: the schedule and obligations are the sample's own, the run is
/// clean, and `-v` says which key joined it.
#[test]
fn a_print_key_history_schedules_as_the_sample() {
    let expected = oracle("schedule", &["--format", "csv"]);
    let dir = sample_copy("print-key-history");
    rewrite_column(&dir, "history.csv", "parcel_id", |i, id| {
        let key = id.split_once('-').map_or(id, |(_, key)| key);
        match i % 3 {
            0 => key.to_string(),
            1 => {
                let (head, lot) = key.rsplit_once('-').unwrap();
                format!("{}-{lot:0>3}", head.replace(".00-", ".-"))
            }
            _ => format!(" {}.000 ", key.to_lowercase()),
        }
    });
    assert!(read(&dir.join("history.csv")).contains("\n128.05-1-1,"), "the log is keyed by print key");
    let output = run("schedule", &dir, &["--format", "csv", "-v"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&dir.join("out/schedule.csv")), read(&expected.join("schedule.csv")));
    assert!(stderr(&output).contains("joined on SWIS + PRINT_KEY, then PRINT_KEY"), "{}", stderr(&output));
}

/// A history whose ids are of another county (another SWIS, other sections) stops the run with one message:
/// ids of both sides, and the settings that fix it. It never becomes a schedule of never-inspected parcels.
#[test]
fn a_history_of_another_county_stops_the_run() {
    let dir = sample_copy("foreign-history");
    rewrite_column(&dir, "history.csv", "parcel_id", |i, _| format!("141600-{}.00-1-{}", 300 + i, i + 1));
    let output = run("schedule", &dir, &[]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert_eq!(said.matches("lakeshore: error").count(), 1, "{said}");
    for words in [
        "history.csv",
        // The sample's 61 inspections (data/sample/history.csv), every one renamed.
        "61 of 61 parcel ids match no parcel",
        "141600-300.00-1-1",
        "054689-128.05-1-1",
        "[fields.history] parcel_id = \"COLUMN\"",
        "--field history.parcel_id=COLUMN",
    ] {
        assert!(said.contains(words), "{words:?} not in:\n{said}");
    }
    assert!(!dir.join("out/schedule.csv").exists(), "no schedule is written");
}

/// A systems layer keyed by `SWIS_SBL_ID` (SWIS and the unformatted SBL) with the bottom elevation as
/// `ELEV_FT` is joined and read as the sample's `PARCEL_ID` and `BOTTOM_FT`; `-v` lists both fields.
#[test]
fn a_systems_layer_keyed_by_swis_sbl_id_with_elev_ft_schedules_as_the_sample() {
    let expected = oracle("schedule", &["--format", "csv"]);
    let dir = sample_copy("swis-sbl-systems");
    let (_, parcels) = parcel_attributes();
    let sbl: BTreeMap<String, String> = parcels
        .iter()
        .map(|p| (format!("{}-{}", p["SWIS"], p["PRINT_KEY"]), format!("{}{}", p["SWIS"], p["SBL"])))
        .collect();
    let text = read(&dir.join("systems.geojson"));
    let mut layer: serde_json::Value = serde_json::from_str(&text).unwrap();
    for feature in layer["features"].as_array_mut().unwrap() {
        let properties = feature["properties"].as_object_mut().unwrap();
        let id = properties.remove("PARCEL_ID").unwrap();
        properties.insert("SWIS_SBL_ID".into(), sbl[id.as_str().unwrap()].clone().into());
        let bottom = properties.remove("BOTTOM_FT").unwrap();
        properties.insert("ELEV_FT".into(), bottom);
    }
    fs::write(dir.join("systems.geojson"), layer.to_string()).unwrap();
    let output = run("schedule", &dir, &["--format", "csv", "-v"]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert_eq!(read(&dir.join("out/schedule.csv")), read(&expected.join("schedule.csv")));
    assert!(said.contains("systems: parcel id       SWIS_SBL_ID (detected)"), "{said}");
    assert!(said.contains("systems: bottom elevation ELEV_FT (detected)"), "{said}");
}

/// A systems layer with no bottom-elevation field leaves the systems in flood zones without a verdict: one
/// warning names the key to set, and the run exits 2.
#[test]
fn systems_without_a_bottom_field_warn() {
    let dir = sample_copy("no-bottom");
    let text = read(&dir.join("systems.geojson"));
    let mut layer: serde_json::Value = serde_json::from_str(&text).unwrap();
    for feature in layer["features"].as_array_mut().unwrap() {
        feature["properties"].as_object_mut().unwrap().remove("BOTTOM_FT");
    }
    fs::write(dir.join("systems.geojson"), layer.to_string()).unwrap();
    let output = run("schedule", &dir, &["--format", "csv"]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    let problems = read(&dir.join("out/problems.csv"));
    assert_eq!(problems.matches("system_bottom").count(), 2, "one warning, key and flag:\n{problems}");
    assert!(problems.contains("floodplain verdict is unknown"), "{problems}");
}

/// A parcels layer without mailing fields cannot address a letter: `notices` says which keys to set and
/// exits 2, not 0.
#[test]
fn notices_without_mailing_fields_warn_and_exit_2() {
    let dir = sample_copy("no-mailing");
    let names = fields_renamed(&[], &["MAIL_ADDR", "MAIL_CITY", "MAIL_STATE", "MAIL_ZIP"]);
    rewrite_parcels(&dir, &names, BTreeMap::clone);
    let output = run("notices", &dir, &["--format", "csv"]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("no mailing street or post-office box field"), "{said}");
    assert!(said.contains("--field parcel_mail_street=FIELD"), "{said}");
    assert!(said.contains("[fields] parcel_mail_zip"), "{said}");
}

/// Mailing fields under names of the county's own, set in `[fields]` or with `--field`, give the sample's
/// notices.
#[test]
fn mailing_fields_under_other_names_are_set_by_keys_and_flags() {
    let expected = oracle("notices", &["--format", "csv"]);
    let rename = [
        ("MAIL_ADDR", "ADDR_LINE1"),
        ("MAIL_CITY", "P_O_NAME"),
        ("MAIL_STATE", "ST_ABBR"),
        ("MAIL_ZIP", "POSTCODE"),
    ];
    let names = fields_renamed(&rename, &[]);
    let renamed = |record: &BTreeMap<String, String>| {
        record
            .iter()
            .map(|(k, v)| {
                (
                    rename.iter().find(|(old, _)| old == k).map_or(k.clone(), |(_, new)| new.to_string()),
                    v.clone(),
                )
            })
            .collect()
    };
    let keys = [
        ("parcel_mail_street", "ADDR_LINE1"),
        ("parcel_mail_city", "P_O_NAME"),
        ("parcel_mail_state", "ST_ABBR"),
        ("parcel_mail_zip", "POSTCODE"),
    ];
    let by_config = sample_copy("mail-by-config");
    rewrite_parcels(&by_config, &names, renamed);
    let mut config = read(&by_config.join("county.toml"));
    config.push_str("\n[fields]\n");
    for (key, field) in keys {
        config.push_str(&format!("{key} = \"{field}\"\n"));
    }
    fs::write(by_config.join("county.toml"), config).unwrap();
    let by_flags = sample_copy("mail-by-flags");
    rewrite_parcels(&by_flags, &names, renamed);
    let flags: Vec<String> =
        keys.iter().flat_map(|(k, f)| ["--field".to_string(), format!("{k}={f}")]).collect();
    for (dir, extra) in [(&by_config, vec![]), (&by_flags, flags)] {
        let mut args = vec!["--format", "csv"];
        args.extend(extra.iter().map(String::as_str));
        let output = run("notices", dir, &args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(
            read(&dir.join("out/notices.csv")),
            read(&expected.join("notices.csv")),
            "{}",
            dir.display()
        );
    }
}

/// A `SEWER` field holding words, as Tompkins County's does: `Public` is public sewer (the parcel is not
/// scheduled, as the sample's code 3), `Private` is not, and a word the rule set does not hold is reported
/// once with the number of parcels holding it.
#[test]
fn sewer_words_are_read_and_an_unknown_word_is_reported_once() {
    let expected = oracle("schedule", &["--format", "csv"]);
    let dir = sample_copy("sewer-words");
    let names = fields_renamed(&[("SEWER_TYPE", "SEWER")], &[]);
    let (_, parcels) = parcel_attributes();
    // Two parcels of private code 2, outside every sewer district (the sample reports no disagreement).
    let unknown: Vec<String> =
        parcels.iter().filter(|p| p["SEWER_TYPE"] == "2").take(2).map(|p| p["PRINT_KEY"].clone()).collect();
    let public: Vec<String> = parcels
        .iter()
        .filter(|p| p["SEWER_TYPE"] == "3")
        .map(|p| format!("{}-{}", p["SWIS"], p["PRINT_KEY"]))
        .collect();
    assert!(!public.is_empty(), "the sample has parcels on public sewer");
    rewrite_parcels(&dir, &names, |record| {
        let mut out = record.clone();
        let word = match record["SEWER_TYPE"].as_str() {
            "3" => "Public",
            "2" if unknown.contains(&record["PRINT_KEY"]) => "Connected",
            "2" => "Private",
            other => other,
        };
        out.insert("SEWER".into(), word.to_string());
        out
    });
    let output = run("schedule", &dir, &["--format", "csv"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let problems = read(&dir.join("out/problems.csv"));
    assert_eq!(problems.lines().count(), 2, "a header and one problem:\n{problems}");
    assert!(problems.contains("sewer value 'Connected' (2 parcels)"), "{problems}");
    // Every row is the sample's, but for the words the public-sewer reason quotes.
    let (_, rows) = common::read_rows(&dir.join("out/schedule.csv")).unwrap();
    let (_, want) = common::read_rows(&expected.join("schedule.csv")).unwrap();
    assert_eq!(rows.len(), want.len());
    for (row, want) in rows.iter().zip(&want) {
        let id = &row["parcel_id"];
        if public.contains(id) {
            assert_eq!((row["tier"].as_str(), row["sewered"].as_str()), ("unscheduled", "true"), "{id}");
            assert_eq!(row["reason"], want["reason"].replace("code 3", "code Public"), "{id}");
        } else {
            assert_eq!(row, want, "{id}");
        }
    }
}

/// A systems layer exported by a tool that drops null properties: its first feature carries no `PARCEL_ID`
/// at all. The field is found from the other features (the run schedules as the sample but for that system,
/// reported), and a layer none of whose features has an id field is told with every field of the layer,
/// not the first feature's alone.
#[test]
fn a_field_the_first_geojson_feature_leaves_out_is_found_and_listed() {
    let edit = |dir: &Path, change: &dyn Fn(usize, &mut serde_json::Map<String, serde_json::Value>)| {
        let path = dir.join("systems.geojson");
        let mut layer: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
        for (i, feature) in layer["features"].as_array_mut().unwrap().iter_mut().enumerate() {
            change(i, feature["properties"].as_object_mut().unwrap());
        }
        fs::write(&path, layer.to_string()).unwrap();
    };
    let dir = sample_copy("first-feature-fields");
    edit(&dir, &|i, p| {
        if i == 0 {
            p.remove("PARCEL_ID");
        }
    });
    let output = run("schedule", &dir, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let problems = read(&dir.join("out/problems.csv"));
    assert!(problems.lines().any(|l| l.contains("systems.geojson") && l.contains("record 1")), "{problems}");

    let dir = sample_copy("no-id-field-in-any-feature");
    edit(&dir, &|i, p| {
        let id = p.remove("PARCEL_ID").unwrap_or_default();
        p.remove("PARCEL_ID_2");
        if i == 5 {
            p.insert("TAXKEY".into(), id);
        }
    });
    let output = run("schedule", &dir, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("parcel id") && err.contains("TAXKEY") && err.contains("SYSTEM_ID"), "{err}");
}

/// Parcels whose 20-digit SBL carries a suffix past its 15th digit (`…000` + `0012` here), and a history
/// keyed by that SBL saved from a spreadsheet whose number cells kept 15 digits: 12800500010001000012
/// became 12800500010001000000, by hand. Zero-padded digits alone prove nothing (the ORPTS SBL is padded);
/// that a parcel's SBL differs from them only past the 15th digit does, and the run stops naming the fix.
#[test]
fn a_twenty_digit_sbl_excel_rounded_is_told_against_the_parcels_ids() {
    let dir = sample_copy("sbl-rounded");
    let (names, _) = parcel_attributes();
    let names: Vec<&str> = names.iter().map(|n| &*n.clone().leak()).collect();
    let suffixed = |sbl: &str| format!("{}0012", &sbl[..16]);
    rewrite_parcels(&dir, &names, |record| {
        let mut record = record.clone();
        let sbl = suffixed(&record["SBL"]);
        record.insert("SBL".into(), sbl);
        record
    });
    let (_, records) = parcel_attributes();
    let by_id: BTreeMap<String, String> =
        records.iter().map(|r| (format!("{}-{}", r["SWIS"], r["PRINT_KEY"]), r["SBL"].clone())).collect();
    rewrite_column(&dir, "history.csv", "parcel_id", |_, id| {
        let sbl = &by_id[id];
        assert_eq!(&sbl[15..], "00000", "the sample's SBL {sbl} is zero past its 15th digit");
        // 12800500010001000012 kept to 15 digits is the sample's own SBL: the suffix's 12 is gone.
        sbl.to_string()
    });
    let output = run("schedule", &dir, &["--format", "csv"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("rounded by Excel") && err.contains("as text"), "{err}");
}

/// A county whose parcels layer names its fields its own way: the id in `TAXKEY` (no SBL or print key
/// beside it) and the owner's address in `OWN_ADR`, `OWN_TWN`, `OWN_ST` and `OWN_Z`. `init` finds each by
/// its values and names it in the config, and that config schedules and addresses the notices as init's
/// config of the sample itself does.
#[test]
fn init_finds_the_id_and_mailing_fields_by_their_values() {
    let rename =
        [("MAIL_ADDR", "OWN_ADR"), ("MAIL_CITY", "OWN_TWN"), ("MAIL_STATE", "OWN_ST"), ("MAIL_ZIP", "OWN_Z")];
    let mut names = fields_renamed(&rename, &["SBL", "PRINT_KEY"]);
    names.insert(1, "TAXKEY");
    let renamed = |record: &BTreeMap<String, String>| {
        let mut out: BTreeMap<String, String> = record
            .iter()
            .map(|(k, v)| {
                (
                    rename.iter().find(|(old, _)| old == k).map_or(k.clone(), |(_, new)| new.to_string()),
                    v.clone(),
                )
            })
            .collect();
        out.insert("TAXKEY".into(), format!("{}-{}", record["SWIS"], record["PRINT_KEY"]));
        out
    };
    let own = sample_copy("init-own-names");
    rewrite_parcels(&own, &names, renamed);
    let plain = sample_copy("init-sample-names");
    for dir in [&own, &plain] {
        let init = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .args(["init", "--force"])
            .arg(dir)
            .output()
            .unwrap();
        assert!(matches!(init.status.code(), Some(0 | 2)), "{}", stderr(&init));
    }
    let config = read(&own.join("county.toml"));
    for line in [
        "parcel_id = [\"TAXKEY\"]",
        "parcel_mail_street = \"OWN_ADR\"",
        "parcel_mail_city = \"OWN_TWN\"",
        "parcel_mail_state = \"OWN_ST\"",
        "parcel_mail_zip = \"OWN_Z\"",
    ] {
        assert!(config.lines().any(|l| l.starts_with(line)), "no '{line}' in\n{config}");
    }
    for command in ["schedule", "notices"] {
        let (a, b) = (run(command, &own, &["--format", "csv"]), run(command, &plain, &["--format", "csv"]));
        assert_eq!(a.status.code(), b.status.code(), "{}\n{}", stderr(&a), stderr(&b));
        let file = format!("out/{command}.csv");
        assert_eq!(read(&own.join(&file)), read(&plain.join(&file)), "{command}");
    }
}
