//! The annual notice list of the SYNTHETIC sample county (`data/sample/`), year 2027, as of 2027-01-15:
//! which parcels are noticed, with which due dates, and the letters and labels written for them.
//!
//! The expected rows are taken from the hand-made `tests/golden/sample/expected.csv` (worked out from the
//! law, not by running the program) and the sample's `parcels.dbf` mailing fields (as documented in
//! `data/sample/README.md`), not from this program's output.

use crate::common;

use std::path::Path;

use chrono::NaiveDate;
use lakeshore::model::table::Table;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use lakeshore::report::labels::write_labels;
use lakeshore::report::letters::{write_letters, Template};
use lakeshore::report::notices::{notices, CannotMail};
use lakeshore::report::{write_table, OutputFormat};

const AS_OF: &str = "2027-01-15";

fn sample_config() -> Config {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let file = ConfigFile::load(&path).expect("the sample config loads");
    Config::new(file, AS_OF.parse::<NaiveDate>().unwrap()).expect("the sample config is valid")
}

/// Writes `notices.csv`, `letters.html` and `labels.html` of `year` into a fresh folder; returns the folder,
/// the table's rows and the number of letters.
fn write_notices(year: i32) -> (std::path::PathBuf, Vec<common::Row>, usize) {
    let config = sample_config();
    let run = run_schedule(&config).expect("the sample runs");
    let (obligations, _, _) = run.obligations(config.as_of);
    let list = notices(&run, &obligations, year, config.as_of);
    let dir = common::fresh_dir(&format!("notices-{year}"));
    write_table(&list, &dir, "notices", &[OutputFormat::Csv], &config.crs).unwrap();
    write_letters(&list, &Template::builtin().unwrap(), &dir, config.as_of).unwrap();
    write_table(&CannotMail(list.cannot_mail()), &dir, "cannot_mail", &[OutputFormat::Csv], &config.crs)
        .unwrap();
    write_labels(&list, &dir).unwrap();
    assert_eq!(list.len(), list.item_count());
    let (_, rows) = common::read_rows(&dir.join("notices.csv")).unwrap();
    (dir, rows, list.letter_count())
}

/// The rows of `parcel` as (obligation, due, overdue).
fn of(rows: &[common::Row], parcel: &str) -> Vec<(String, String, String)> {
    rows.iter()
        .filter(|r| r["parcel_id"] == parcel)
        .map(|r| (r["obligation"].clone(), r["due"].clone(), r["overdue"].clone()))
        .collect()
}

fn periodic(due: &str, overdue: bool) -> (String, String, String) {
    ("periodic-inspection".into(), due.into(), overdue.to_string())
}

#[test]
fn parcels_due_in_2027_or_overdue_are_noticed_with_their_due_dates() {
    let (_, rows, _) = write_notices(2027);
    // expected.csv: Ira cohort 2006, due-this-year, next_due 2027-11-01.
    assert_eq!(of(&rows, "053289-40.00-1-1"), [periodic("2027-11-01", false)]);
    // expected.csv: Ira cohort 2006, overdue (last inspected 2012), previous_due 2020-11-01 missed.
    assert_eq!(of(&rows, "053289-40.00-1-3"), [periodic("2020-11-01", true)]);
    // expected.csv: Brutus cohort 2004, overdue, previous_due 2025-11-01 missed.
    assert_eq!(of(&rows, "052289-60.00-1-1"), [periodic("2025-11-01", true)]);
    // expected.csv: lakefront, never inspected, previous_due 2026-11-01 missed.
    assert_eq!(of(&rows, "054689-128.05-1-4"), [periodic("2026-11-01", true)]);
}

#[test]
fn parcels_current_until_after_2027_are_not_noticed() {
    let (_, rows, _) = write_notices(2027);
    // expected.csv: Aurelius cohort 2003, current, next_due 2031-11-01.
    assert_eq!(of(&rows, "052089-123.45-1-2"), []);
    // expected.csv: Owasco east shore, current, next_due 2028-11-01.
    assert_eq!(of(&rows, "054689-128.05-1-1"), []);
    // expected.csv: unscheduled (public sewer).
    assert_eq!(of(&rows, "050100-106.41-1-3"), []);
    // ... but the lakefront parcel is noticed for 2028, its next due year.
    let (_, rows, _) = write_notices(2028);
    assert!(of(&rows, "054689-128.05-1-1").contains(&periodic("2028-11-01", false)));
}

#[test]
fn rows_carry_the_owners_mailing_address_and_a_reason() {
    let (_, rows, letters) = write_notices(2027);
    let row = rows.iter().find(|r| r["parcel_id"] == "054689-128.05-1-4").unwrap();
    // parcels.dbf record 4: PRIMARY_OW, MAIL_ADDR, MAIL_CITY, MAIL_STATE, MAIL_ZIP, LOC_ST_NBR + LOC_STREET.
    assert_eq!(row["owner"], "DUNLOW MARTIN & ELSA");
    assert_eq!(row["address"], "PO Box 122");
    assert_eq!((row["city"].as_str(), row["state"].as_str(), row["zip"].as_str()), ("Auburn", "NY", "13021"));
    assert_eq!(row["location"], "6131 E Lake Rd");
    assert_eq!(row["town"], "Owasco");
    assert!(row["citation"].contains("§IV.A"), "{}", row["citation"]);
    assert!(!row["why"].is_empty());
    // Letters are numbered 2027-000001.. (the year of the as-of date; no store: the first number), each
    // one's rows together, in ZIP-code order as a bulk mailing needs.
    let numbers: Vec<usize> =
        rows.iter().map(|r| r["letter"].strip_prefix("2027-").unwrap().parse().unwrap()).collect();
    assert_eq!(numbers.first(), Some(&1));
    assert_eq!(numbers.last(), Some(&letters));
    assert!(numbers.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
    let zips: Vec<String> = rows.iter().map(|r| r["zip"].chars().take(5).collect()).collect();
    assert!(zips.windows(2).all(|w| w[0] <= w[1]), "letters not in ZIP order: {zips:?}");
    assert!(rows.iter().all(|r| r["stage"] == "first" && r["served"] == "first-class"));
}

#[test]
fn letters_and_labels_hold_one_letter_and_one_label_per_owner_address() {
    let (dir, rows, letters) = write_notices(2027);
    assert!(rows.len() > letters, "an owner of two noticed parcels gets one letter");
    let html = std::fs::read_to_string(dir.join("letters.html")).unwrap();
    assert_eq!(html.matches("<table class=\"letter\"").count(), letters);
    assert!(html.contains("DUNLOW MARTIN &amp; ELSA"), "owner names are escaped");
    assert!(html.contains("Cayuga County Health District"), "letterhead from the rule set");
    assert!(html.contains("Re: Tax parcel(s) 054689-128.05-1-4<"));
    assert!(
        html.contains("Re: Tax parcel(s) 053289-40.00-1-1, 053289-40.00-1-3<"),
        "one letter, two parcels"
    );
    assert!(html.contains("November 1, 2027"));
    assert!(!html.contains("{{"), "every placeholder is filled");
    let labels = std::fs::read_to_string(dir.join("labels.html")).unwrap();
    assert_eq!(labels.matches("<div class=\"label\"").count(), letters);
    assert_eq!(labels.matches("<div class=\"sheet\"").count(), letters.div_ceil(30));
    assert!(labels.contains("left: 0.1875in; top: 0.5in"));
}

/// The sample's `parcels.dbf`, read with the `dbase` crate (not lakeshore's reader): parcel id
/// (`SWIS-PRINT_KEY`) to the mailing fields `MAIL_ADDR`, `MAIL_CITY`, `MAIL_STATE`, `MAIL_ZIP`.
fn mailing_fields() -> std::collections::BTreeMap<String, [String; 4]> {
    use shapefile::dbase::FieldValue;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.dbf");
    let mut reader = shapefile::dbase::Reader::from_path(&path).unwrap();
    let text = |record: &shapefile::dbase::Record, name: &str| match record.get(name) {
        Some(FieldValue::Character(Some(t))) => t.trim().to_string(),
        _ => String::new(),
    };
    reader
        .iter_records()
        .map(|record| {
            let record = record.unwrap();
            let id = format!("{}-{}", text(&record, "SWIS"), text(&record, "PRINT_KEY"));
            let fields = ["MAIL_ADDR", "MAIL_CITY", "MAIL_STATE", "MAIL_ZIP"].map(|f| text(&record, f));
            (id, fields)
        })
        .collect()
}

/// A mailing address reduced the way a clerk would compare two envelopes: upper case, no punctuation, the
/// few words the sample spells two ways (North, Street, Apartment) in their USPS abbreviations, ZIP+4 cut
/// to five digits. Written for this test, apart from lakeshore's normaliser.
fn envelope(fields: &[String; 4]) -> String {
    let words = |t: &str| -> Vec<String> {
        t.to_uppercase()
            .replace(|c: char| !c.is_alphanumeric(), " ")
            .split_whitespace()
            .map(|w| match w {
                "NORTH" => "N".to_string(),
                "STREET" => "ST".to_string(),
                "APARTMENT" => "APT".to_string(),
                w => w.to_string(),
            })
            .collect()
    };
    let zip: String = fields[3].chars().filter(char::is_ascii_digit).take(5).collect();
    format!("{:?} {:?} {:?} {zip}", words(&fields[0]), words(&fields[1]), words(&fields[2]))
}

#[test]
fn one_letter_per_owner_mailing_address_and_the_unmailable_listed() {
    let (dir, rows, letters) = write_notices(2027);
    let mail = mailing_fields();
    // Every mailed row's address is the parcel's (as its letter spells it: the letter's first parcel's way),
    // and each letter is one address.
    let mut by_letter: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for row in &rows {
        let fields = &mail[&row["parcel_id"]];
        let written = [&row["address"], &row["city"], &row["state"], &row["zip"]].map(|c| c.to_string());
        assert_eq!(envelope(&written), envelope(fields), "{}", row["parcel_id"]);
        by_letter.entry(row["letter"].clone()).or_default().insert(envelope(fields));
    }
    assert!(by_letter.values().all(|a| a.len() == 1), "a letter with two addresses: {by_letter:?}");
    let distinct: std::collections::BTreeSet<&String> = by_letter.values().flatten().collect();
    assert_eq!(letters, distinct.len(), "letters = distinct normalised mailing addresses");
    assert_eq!(by_letter.len(), letters);
    // data/sample/README.md: 053289-40.00-1-1 and -3 have one owner, who writes the address two ways.
    let letter_of = |id: &str| -> Vec<String> {
        rows.iter().filter(|r| r["parcel_id"] == id).map(|r| r["letter"].clone()).collect()
    };
    let (a, b) = (letter_of("053289-40.00-1-1"), letter_of("053289-40.00-1-3"));
    assert!(!a.is_empty() && a == b, "{a:?} vs {b:?}");
    // 053289-40.00-1-4 has no mailing address: not mailed, but listed with its overdue inspection
    // (README: Ira cohort 2006, never inspected; its first deadline 2020-11-01 passed).
    assert!(letter_of("053289-40.00-1-4").is_empty());
    let (_, unmailed) = common::read_rows(&dir.join("cannot_mail.csv")).unwrap();
    let listed: Vec<(&str, &str)> =
        unmailed.iter().map(|r| (r["parcel_id"].as_str(), r["obligation"].as_str())).collect();
    assert_eq!(listed, [("053289-40.00-1-4", "periodic-inspection")]);
    assert!(unmailed[0]["cannot_mail_because"].contains("no mailing address"));
    assert!(!unmailed[0]["owner"].is_empty(), "the owner is named, for the office to look up");
}

/// Runs `lakeshore notices` on the sample with the config text `config` (its layer paths made absolute);
/// returns the exit code, `problems.csv` and `letters.html`.
fn notices_run(label: &str, config: &str) -> (Option<i32>, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let dir = common::fresh_dir(label);
    let text: String = config
        .lines()
        .map(|line| match line.split_once(" = \"") {
            Some((key, file)) if !key.contains(' ') && file.contains('.') && !line.starts_with("crs") => {
                format!("{key} = \"{}/{file}", root.display())
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let toml = dir.join("county.toml");
    std::fs::write(&toml, text).unwrap();
    let out = dir.join("out");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["notices", "--as-of", AS_OF, "-q", "--config"])
        .arg(&toml)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    (status.code(), read("problems.csv"), read("letters.html"))
}

/// The sample's office prints on its letters, and no fictional number does; a county with no `[office]` is
/// warned (exit 2), the problem naming the config key to set.
#[test]
fn the_office_prints_on_the_letters_and_a_missing_one_is_warned() {
    let sample =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml"))
            .unwrap();
    let (code, problems, letters) = notices_run("office-set", &sample);
    assert!(matches!(code, Some(0 | 2)), "{code:?}");
    assert!(!problems.contains("[office]"), "{problems}");
    for text in
        ["Cayuga County Health Department", "8 Dill Street", "Auburn, NY 13021", "call (315) 253-1405"]
    {
        assert!(letters.contains(text), "the letters lack {text:?}");
    }
    assert!(!letters.contains("555-01"), "a fictional number is printed");
    let without = &sample[..sample.find("[office]").expect("the sample has an office")];
    let (code, problems, letters) = notices_run("office-missing", without);
    assert_eq!(code, Some(2), "{problems}");
    assert!(problems.contains("[office] telephone (or email, or website)"), "{problems}");
    assert!(letters.contains("write to us at the address above"), "the letters are still written (a draft)");
}
