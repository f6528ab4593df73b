//! Twenty program years: a county run through `notices --issue` at the shortest escalation interval of its
//! rule set, its owners answering on time, late or never by a seeded rule (the answers appended to its
//! inspection history as the days come), some letters returned by the post, and the program store checked
//! at the end against what the rule set gives:
//!
//! - every periodic inspection due in a year has its first notice issued that year before its due date (or
//!   is listed as not mailable), and their number is `workload`'s count of inspections due that year, the
//!   backlog excluded;
//! - no duty is noticed twice at one stage;
//! - every stage of a duty left unanswered comes at the first step on or after the day the rule set gives
//!   (the reminder 30 days after the due date, each later stage 30 days after the one before reached the
//!   owner: its mailing plus 5 days; a repair order's referral the day after its due date), and a duty still
//!   waiting at the end waits for that day;
//! - no letter goes to an owner at an address mail came back from.
//!
//! The expected dates are worked here from the rule set's `[notices]` numbers, not by the escalation code. The
//! sample county runs in `cargo test`; `.ci/run` also points `LAKESHORE_PROGRAM_COUNTY` at a generated county
//! of 10,000 parcels (its parcels as GeoJSON, given mailing addresses here), with `LAKESHORE_BIN` the release
//! binary.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{Datelike, Days, NaiveDate};

fn binary() -> PathBuf {
    std::env::var_os("LAKESHORE_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lakeshore")), PathBuf::from)
}

/// The rule set's intervals as the test reads them (Cayuga's `[notices]`): days after the due date for the
/// reminder, after the notice before reached the owner for the final notice and the referral, mailing days,
/// and a repair order's days after its due date.
const REMINDER: u64 = 30;
const FINAL: u64 = 30;
const REFERRAL: u64 = 30;
const MAILING: u64 = 5;
const DIRECT: u64 = 1;

/// Runs lakeshore with `args`; it must exit 0 or 2 (a county with problems carries on). Returns stdout.
fn lakeshore(args: &[&str]) -> String {
    let output = Command::new(binary()).args(args).output().expect("cannot run the lakeshore binary");
    assert!(
        matches!(output.status.code(), Some(0 | 2)),
        "lakeshore {args:?} exited {:?}:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A deterministic number in 0..100 for `key` (FNV-1a), the seeded rule owners and the post follow.
fn dice(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h % 100
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap_or_else(|_| panic!("not a date: {text:?}"))
}

fn plus(d: NaiveDate, days: u64) -> NaiveDate {
    d.checked_add_days(Days::new(days)).unwrap()
}

/// Copies the county folder `from` into `to`; a GeoJSON parcels layer without mailing addresses gets one a
/// parcel (its owner's number on Mail Rd, in one of seven ZIP codes).
fn copy_county(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    let parcels = to.join("parcels.geojson");
    let Ok(text) = std::fs::read_to_string(&parcels) else { return };
    if text.contains("MAIL_ADDR") {
        return;
    }
    let mut out = String::with_capacity(text.len() * 11 / 10);
    for line in text.lines() {
        match line.split_once("\"PRIMARY_OW\":\"BENCH OWNER ") {
            Some((before, after)) => {
                let (number, rest) = after.split_once('"').unwrap();
                let n: u64 = number.parse().unwrap();
                out.push_str(&format!(
                    "{before}\"MAIL_ADDR\":\"{n} Mail Rd\",\"MAIL_CITY\":\"Auburn\",\"MAIL_STATE\":\"NY\",\"MAIL_ZIP\":\"1302{}\",\"PRIMARY_OW\":\"BENCH OWNER {number}\"{rest}\n",
                    n % 7
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    std::fs::write(&parcels, out).unwrap();
}

/// A notice the store holds, one item of it.
#[derive(Debug, Clone)]
struct Noticed {
    letter: String,
    issued: NaiveDate,
    stage: String,
    owner_key: String,
    address_key: String,
    parcel: String,
    obligation: String,
    due: NaiveDate,
    received: Option<NaiveDate>,
    returned: Option<NaiveDate>,
}

/// Every item of every issued letter of the store at `path`, read with SQL (not through lakeshore).
fn store_items(path: &Path) -> Vec<Noticed> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT l.number, b.issued, l.stage, l.owner_key, l.address_key, i.parcel_id, i.obligation, i.due,
                    (SELECT day FROM mail WHERE letter = l.number AND kind = 'received'),
                    (SELECT day FROM mail WHERE letter = l.number AND kind = 'returned')
             FROM item i JOIN letter l ON l.number = i.letter JOIN batch b ON b.id = l.batch
             WHERE b.state = 'issued' ORDER BY b.issued, l.number, i.ordinal",
        )
        .unwrap();
    let rows = statement
        .query_map([], |r| {
            Ok(Noticed {
                letter: r.get(0)?,
                issued: day(&r.get::<_, String>(1)?),
                stage: r.get(2)?,
                owner_key: r.get(3)?,
                address_key: r.get(4)?,
                parcel: r.get(5)?,
                obligation: r.get(6)?,
                due: day(&r.get::<_, String>(7)?),
                received: r.get::<_, Option<String>>(8)?.map(|d| day(&d)),
                returned: r.get::<_, Option<String>>(9)?.map(|d| day(&d)),
            })
        })
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// The periodic inspections `workload` counts due in `year` (the backlog apart), as of `as_of`.
fn workload_due(config: &Path, as_of: NaiveDate, year: i32, out: &Path) -> u64 {
    let year_text = year.to_string();
    lakeshore(&[
        "workload",
        "--config",
        &config.to_string_lossy(),
        "--as-of",
        &as_of.to_string(),
        "--years",
        &year_text,
        "--format",
        "csv",
        "-q",
        "--out",
        &out.to_string_lossy(),
    ]);
    let (_, rows) = common::read_rows(&out.join("workload.csv")).unwrap();
    rows.iter().filter(|r| r["year"] == year_text).map(|r| r["due"].parse::<u64>().unwrap()).sum()
}

/// The county at `county` (a folder with `county.toml`) through `years` program years from `start`.
fn program_years(county: &Path, label: &str, start: NaiveDate, years: i32) {
    let dir = common::fresh_dir(label);
    let folder = dir.join("county");
    copy_county(county, &folder);
    let config = folder.join("county.toml");
    let store = dir.join("program.sqlite");
    let out = dir.join("out");
    let (config_s, store_s, out_s) =
        (config.to_string_lossy(), store.to_string_lossy(), out.to_string_lossy());
    let history = folder.join("history.csv");
    let columns = std::fs::read_to_string(&history).unwrap().lines().next().unwrap().split(',').count();
    let end = NaiveDate::from_ymd_opt(start.year() + years, 1, 1).unwrap();

    let mut steps = Vec::new();
    let mut answers: BTreeMap<NaiveDate, Vec<String>> = BTreeMap::new();
    let mut returns: BTreeMap<NaiveDate, Vec<String>> = BTreeMap::new();
    let mut decided: BTreeSet<String> = BTreeSet::new();
    // Per year: workload's count due, and the periodic duties of the year not mailable at its first step.
    let mut due_by_year: BTreeMap<i32, u64> = BTreeMap::new();
    let mut unmailed_by_year: BTreeMap<i32, BTreeSet<String>> = BTreeMap::new();
    let mut as_of = start;
    while as_of < end {
        // The answers and returned letters of the days since the last step.
        let mut lines = String::new();
        for (_, parcels) in answers.range(..=as_of) {
            for parcel in parcels {
                lines.push_str(parcel);
                lines.push('\n');
            }
        }
        let done: Vec<NaiveDate> = answers.range(..=as_of).map(|(d, _)| *d).collect();
        for d in done {
            answers.remove(&d);
        }
        if !lines.is_empty() {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new().append(true).open(&history).unwrap();
            file.write_all(lines.as_bytes()).unwrap();
        }
        let due_returns: Vec<(NaiveDate, Vec<String>)> =
            returns.range(..=as_of).map(|(d, l)| (*d, l.clone())).collect();
        for (on, letters) in due_returns {
            let mut args = vec!["returned", "--store", &store_s, "--as-of"];
            let on_text = on.to_string();
            args.push(&on_text);
            args.extend(letters.iter().map(String::as_str));
            lakeshore(&args);
            returns.remove(&on);
        }
        let first_of_year = steps.last().is_none_or(|last: &NaiveDate| last.year() != as_of.year());
        if first_of_year {
            due_by_year
                .insert(as_of.year(), workload_due(&config, as_of, as_of.year(), &dir.join("workload")));
        }
        let as_of_s = as_of.to_string();
        lakeshore(&[
            "notices", "--config", &config_s, "--store", &store_s, "--as-of", &as_of_s, "--issue",
            "--format", "csv", "-q", "--out", &out_s,
        ]);
        if first_of_year {
            let (_, unmailed) = common::read_rows(&out.join("cannot_mail.csv")).unwrap();
            let year = unmailed_by_year.entry(as_of.year()).or_default();
            for r in unmailed.iter().filter(|r| r["obligation"] == "periodic-inspection") {
                if day(&r["due"]).year() == as_of.year() && r["overdue"] == "false" {
                    year.insert(r["parcel_id"].clone());
                }
            }
        }
        steps.push(as_of);
        // The owners of this batch's first notices of periodic inspections answer by the seeded rule: on time
        // (half), late (a quarter) or never; the post returns about one letter in thirty.
        for n in store_items(&store).into_iter().filter(|n| n.issued == as_of) {
            let key = format!("{}|{}", n.parcel, n.due);
            if n.stage == "first" && n.obligation == "periodic-inspection" && decided.insert(key.clone()) {
                let roll = dice(&key);
                // On time where the due date is still ahead; an overdue duty can only be answered late.
                let on = match roll {
                    0..50 if n.due > as_of => Some(plus(as_of, 1 + dice(&format!("{key}+")) % 60).min(n.due)),
                    0..75 => Some(plus(n.due.max(as_of), 1 + dice(&format!("{key}-")) % 120)),
                    _ => None,
                };
                if let Some(on) = on {
                    let mut line = format!("{},{on},pass", n.parcel);
                    line.push_str(&",".repeat(columns - 3));
                    answers.entry(on).or_default().push(line);
                }
            }
            if dice(&format!("post|{}", n.letter)) < 3 && n.returned.is_none() {
                let letters = returns.entry(plus(as_of, 7)).or_default();
                if !letters.contains(&n.letter) {
                    letters.push(n.letter.clone());
                }
            }
        }
        as_of = plus(as_of, REMINDER.min(FINAL).min(REFERRAL));
    }

    let items = store_items(&store);
    assert!(items.iter().any(|n| n.stage == "referral"), "{label}: twenty years and no referral");
    assert!(items.iter().any(|n| n.returned.is_some()), "{label}: no letter came back");
    let step_on_or_after = |d: NaiveDate| steps.iter().copied().find(|s| *s >= d);

    // Every periodic inspection due in a year is noticed that year, before its due date, or listed as not
    // mailable: as many as workload counts due.
    for (year, due) in &due_by_year {
        let noticed: BTreeSet<String> = items
            .iter()
            .filter(|n| n.obligation == "periodic-inspection" && n.stage == "first")
            .filter(|n| n.due.year() == *year && n.issued.year() == *year)
            .inspect(|n| assert!(n.issued < n.due, "{label}: {n:?} issued after its due date"))
            .map(|n| n.parcel.clone())
            .collect();
        let unmailed = &unmailed_by_year[year];
        assert_eq!(
            (noticed.len() + unmailed.difference(&noticed).count()) as u64,
            *due,
            "{label}, {year}: first notices of periodic inspections due that year and the not mailable against workload's count"
        );
    }

    // No duty noticed twice at one stage (a returned notice was no notice).
    let mut seen = BTreeSet::new();
    for n in items.iter().filter(|n| n.returned.is_none()) {
        let key = (n.parcel.clone(), n.obligation.clone(), n.due, n.stage.clone());
        assert!(seen.insert(key), "{label}: noticed twice at one stage: {n:?}");
    }

    // Each chain of a duty climbs on the rule set's schedule, a step at a time.
    let reached = |n: &Noticed| n.received.unwrap_or(plus(n.issued, MAILING));
    let mut chains: BTreeMap<(String, String, NaiveDate), Vec<&Noticed>> = BTreeMap::new();
    // A periodic inspection left unanswered stays one chain as its grid's next date passes: a chain is keyed
    // by the due date of its first notice (the items are in the order they were issued).
    let mut started: BTreeMap<(String, String), NaiveDate> = BTreeMap::new();
    for n in items.iter().filter(|n| n.returned.is_none()) {
        let key = (n.parcel.clone(), n.obligation.clone());
        let due = match (n.obligation.as_str(), n.stage.as_str()) {
            ("periodic-inspection", "first") => {
                started.insert(key, n.due);
                n.due
            }
            ("periodic-inspection", _) => started.get(&key).copied().unwrap_or(n.due),
            _ => n.due,
        };
        chains.entry((n.parcel.clone(), n.obligation.clone(), due)).or_default().push(n);
    }
    let mut climbed = 0;
    for ((parcel, obligation, _), chain) in &chains {
        for pair in chain.windows(2) {
            let (before, after) = (pair[0], pair[1]);
            let expected = match (before.stage.as_str(), after.stage.as_str(), obligation.as_str()) {
                ("first", "referral", "repair-order") => plus(reached(before).max(after.due), DIRECT),
                ("first", "reminder", _) => plus(reached(before).max(after.due), REMINDER),
                ("reminder", "final", _) => plus(reached(before), FINAL),
                ("final", "referral", _) => plus(reached(before), REFERRAL),
                // The owner changed (a sale): the chain starts again.
                (_, "first", _) => continue,
                (a, b, _) => panic!("{label}: {parcel} {obligation}: {a} followed by {b}"),
            };
            assert_eq!(
                Some(after.issued),
                step_on_or_after(expected),
                "{label}: {parcel} {obligation} {}: {} of {} then {} of {} (expected the first step from {expected})",
                after.due,
                before.stage,
                before.issued,
                after.stage,
                after.issued
            );
            climbed += 1;
        }
    }
    assert!(climbed > 0, "{label}: no duty was escalated");

    // A duty still waiting at the end waits for the day the rule set gives.
    let (_, last) = common::read_rows(&out.join("notices.csv")).unwrap();
    let last_step = *steps.last().unwrap();
    for r in last.iter().filter(|r| r["already_noticed"] == "true" && r["stage"] != "referral") {
        let next = day(&r["next_stage_on"]);
        assert!(
            next > last_step,
            "{label}: {} {} should have moved on by {last_step}",
            r["parcel_id"],
            r["obligation"]
        );
    }

    // No letter to an owner at an address mail came back from, after it came back.
    for gone in items.iter().filter(|n| n.returned.is_some()) {
        let back = gone.returned.unwrap();
        let again = items
            .iter()
            .find(|n| n.issued > back && n.owner_key == gone.owner_key && n.address_key == gone.address_key);
        assert!(again.is_none(), "{label}: mailed again to a returned address: {again:?} after {gone:?}");
    }
}

#[test]
fn twenty_program_years_of_the_sample() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let years = std::env::var("PROGRAM_YEARS").ok().and_then(|y| y.parse().ok()).unwrap_or(20);
    program_years(&sample, "program-years-sample", day("2027-01-04"), years);
}

#[test]
fn twenty_program_years_of_a_generated_county() {
    // `.ci/run` runs this test on its own with the county set; a plain `cargo test` has none to run on.
    let Some(county) = std::env::var_os("LAKESHORE_PROGRAM_COUNTY") else {
        eprintln!("twenty_program_years_of_a_generated_county: LAKESHORE_PROGRAM_COUNTY not set; skipped");
        return;
    };
    program_years(Path::new(&county), "program-years-generated", day("2027-01-04"), 20);
}
