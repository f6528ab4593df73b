//! One story per parcel: every command reads a parcel's facts and duties from the same functions, so
//! `schedule`, `obligations`, `notices`, `workload`, `map`, `buffer` and the terminal summary must agree on
//! every parcel. Each command is run on the same county and as-of date, and their outputs are compared
//! parcel by parcel:
//!
//! - the same parcels, each once: scheduled, or unscheduled; a parcel the law does not reach (public sewer,
//!   outside the county) owes nothing in any of them;
//! - the same owed inspection: `schedule.csv`'s `inspection_due` and `overdue` are the periodic
//!   obligation's due date and flag, the date a notice of the year mails (or the cannot-mail list holds), the
//!   workload's backlog or year, and the HTML map's overdue flag;
//! - the same counts in the map, the workload and the terminal summary;
//! - the same distances in the buffer report as in the schedule;
//! - the same systems: every system of the table of systems (`lakeshore systems`) under a parcel of the
//!   schedule, the one that binds a parcel's row owing the row's inspection (so the obligation, the notice,
//!   the workload and the map's), and none in service owing one earlier.
//!
//! The sample county runs in every `cargo test`; `.ci/run` also points `LAKESHORE_STORY_CONFIG` at a
//! generated county of 10,000 parcels with an inspection history (and `LAKESHORE_BIN` at the release binary).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn binary() -> PathBuf {
    std::env::var_os("LAKESHORE_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lakeshore")), PathBuf::from)
}

/// Runs `lakeshore COMMAND ARGS --config CONFIG --as-of AS_OF --out OUT`.
fn launch(command: &str, args: &[&str], config: &Path, as_of: &str, out: &Path) -> std::process::Output {
    Command::new(binary())
        .arg(command)
        .args(args)
        .arg("--config")
        .arg(config)
        .args(["--as-of", as_of, "--out"])
        .arg(out)
        .output()
        .expect("cannot run the lakeshore binary")
}

/// [`launch`]es a command, which must exit 0 or 2 (a county with problems carries on), and returns its standard
/// output.
fn run(command: &str, args: &[&str], config: &Path, as_of: &str, out: &Path) -> String {
    let output = launch(command, args, config, as_of, out);
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 2)),
        "{command} exited {code:?}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `lakeshore notices ARGS` (an `--issue`) as [`run`] does; `false` when it was refused, as it must be,
/// because the county's letters would give no way to reach its office (no `[office]`), with nothing issued.
fn issues(args: &[&str], config: &Path, as_of: &str, out: &Path) -> bool {
    let output = launch("notices", args, config, as_of, out);
    let said = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0 | 2) => true,
        Some(1) if said.contains("no way to reach the office") && said.contains("nothing was issued") => {
            false
        }
        code => panic!("notices --issue exited {code:?}:\n{said}"),
    }
}

/// Every item of the store at `path` as (letter, parcel, obligation, due), read with SQL.
fn stored_items(path: &Path) -> BTreeSet<(String, String, String, String)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn.prepare("SELECT letter, parcel_id, obligation, due FROM item").unwrap();
    let found = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap();
    found.collect::<Result<_, _>>().unwrap()
}

fn rows(path: &Path) -> Vec<common::Row> {
    common::read_rows(path).unwrap_or_else(|e| panic!("{e}")).1
}

/// What `schedule.csv` says of one parcel's periodic duty.
#[derive(Debug, Clone)]
struct Duty {
    tier: String,
    status: String,
    /// `inspection_due` and `overdue`, when a rule schedules the parcel.
    owed: Option<(String, bool)>,
    /// On public sewer or outside the county: the law does not apply.
    out_of_scope: bool,
    mhw_distance_ft: Option<f64>,
    /// The system that binds the row (`system_id`), when the register gives the parcel systems.
    system: String,
    /// The other lot the binding system lies on, whose distance `mhw_distance_ft` is.
    lies_on: Option<String>,
}

fn flag(text: &str) -> bool {
    match text {
        "true" => true,
        "false" => false,
        other => panic!("not a flag: {other:?}"),
    }
}

/// Runs every command on `config` for `as_of` and checks that they tell one story; `year` is the notice
/// year and the first workload year.
fn one_story(label: &str, config: &Path, as_of: &str, year: i32) {
    let out = common::fresh_dir(&format!("one-story-{label}"));
    let dir = |name: &str| out.join(name);

    // The schedule and its terminal summary.
    let summary = run("schedule", &["--format", "csv"], config, as_of, &dir("schedule"));
    // One row per record; a repeated id (a bad record, unscheduled) is a second row with the same id.
    let mut duties: Vec<(String, Duty)> = Vec::new();
    for r in rows(&dir("schedule").join("schedule.csv")) {
        let owed = (!r["rule"].is_empty()).then(|| (r["inspection_due"].clone(), flag(&r["overdue"])));
        assert_eq!(
            owed.is_some(),
            !r["inspection_due"].is_empty(),
            "{}: inspection_due without a rule",
            r["parcel_id"]
        );
        let duty = Duty {
            tier: r["tier"].clone(),
            status: r["status"].clone(),
            owed,
            out_of_scope: r["tier"] == "unscheduled" && (r["sewered"] == "true" || r["in_county"] == "false"),
            mhw_distance_ft: r["mhw_distance_ft"].parse().ok(),
            system: r["system_id"].clone(),
            lies_on: Some(r["system_lies_on"].clone()).filter(|l| !l.is_empty()),
        };
        duties.push((r["parcel_id"].clone(), duty));
    }
    assert!(!duties.is_empty());
    // The periodic inspection each scheduled parcel owes, by id: a scheduled id stands once.
    let mut owed_by_id: BTreeMap<String, (String, bool)> = BTreeMap::new();
    for (id, owed) in duties.iter().filter_map(|(id, d)| Some((id, d.owed.clone()?))) {
        assert!(owed_by_id.insert(id.clone(), owed).is_none(), "{id} scheduled twice");
    }
    let ids: BTreeSet<&String> = duties.iter().map(|(id, _)| id).collect();
    let out_of_scope: BTreeSet<&String> =
        duties.iter().filter(|(_, d)| d.out_of_scope).map(|(id, _)| id).collect();
    let overdue = |d: &Duty| d.owed.as_ref().is_some_and(|(_, o)| *o);
    let count_where = |f: &dyn Fn(&Duty) -> bool| duties.iter().filter(|(_, d)| f(d)).count();

    // The status the schedule writes and the inspection it says is owed are one reading: overdue is the flag,
    // due this year a date in the as-of year, current a date after it.
    let as_of_year = &as_of[..4];
    for (id, d) in &duties {
        let Some((due, late)) = &d.owed else { continue };
        let in_year = due.starts_with(as_of_year);
        let agrees = match d.status.as_str() {
            "overdue" => *late,
            "due-this-year" => !late && in_year,
            "current" => !late && !in_year && due.as_str() > as_of,
            "never-inspected" => *late || due.as_str() >= as_of,
            "" => !late,
            other => panic!("{id}: unknown status {other}"),
        };
        assert!(agrees, "{id}: status {} with inspection_due {due}, overdue {late}, as of {as_of}", d.status);
    }

    // The terminal summary counts what the file holds.
    let first_line = summary.lines().next().unwrap_or_default();
    let total: Option<usize> =
        first_line.strip_suffix(" parcels").and_then(|n| n.replace(',', "").parse().ok());
    assert_eq!(total, Some(duties.len()), "summary:\n{summary}");
    for (status, n) in section(&summary, "by status:") {
        assert_eq!(count_where(&|d| d.status == status), n, "summary's {status} count:\n{summary}");
    }
    for (tier, n) in section(&summary, "by tier:") {
        assert_eq!(count_where(&|d| d.tier == tier), n, "summary's {tier} count:\n{summary}");
    }

    // Every scheduled parcel owes one periodic inspection, the schedule's; a parcel out of the law's scope
    // owes nothing at all.
    run("obligations", &["--format", "csv"], config, as_of, &dir("obligations"));
    let mut periodic: BTreeMap<String, (String, bool)> = BTreeMap::new();
    // The drainage-pipe inspections owed by the end of the notice year (the workload's first year), by tier.
    let mut pipes_in_year: BTreeMap<String, usize> = BTreeMap::new();
    let tier_of: BTreeMap<&String, &String> = duties.iter().map(|(id, d)| (id, &d.tier)).collect();
    for r in rows(&dir("obligations").join("obligations.csv")) {
        let id = &r["parcel_id"];
        assert!(ids.contains(id), "obligation for {id}, which the schedule does not list");
        assert!(!out_of_scope.contains(id), "{id} is out of the law's scope but owes {}", r["obligation"]);
        if r["obligation"] == "periodic-inspection" {
            let owed = (r["due"].clone(), flag(&r["overdue"]));
            assert!(periodic.insert(id.clone(), owed).is_none(), "{id}: two periodic inspections");
        }
        if r["obligation"] == "pipe-inspection"
            && (flag(&r["overdue"]) || r["due"].starts_with(&year.to_string()))
        {
            *pipes_in_year.entry(tier_of[id].clone()).or_default() += 1;
        }
    }
    assert_eq!(periodic, owed_by_id, "periodic inspections: obligations.csv against schedule.csv");

    // The year's notices mail exactly the periodic inspections owed by the end of the year, with their dates;
    // those that cannot be mailed are in the cannot-mail list.
    let year_arg = year.to_string();
    let store = dir("store").join("program.sqlite");
    std::fs::create_dir_all(dir("store")).unwrap();
    let store_arg = store.to_string_lossy().into_owned();
    let issue = ["--format", "csv", "--year", &year_arg, "--issue", "--store", &store_arg];
    if issues(&issue, config, as_of, &dir("notices")) {
        // The program store holds what the table printed: each duty under its letter, and nothing else.
        let printed: BTreeSet<(String, String, String, String)> = rows(&dir("notices").join("notices.csv"))
            .iter()
            .filter(|r| r["already_noticed"] == "false")
            .map(|r| (r["letter"].clone(), r["parcel_id"].clone(), r["obligation"].clone(), r["due"].clone()))
            .collect();
        assert_eq!(stored_items(&store), printed, "the program store against notices.csv");
        // Issued again the same day: every duty already noticed, under the letter the store gave it.
        run("notices", &issue, config, as_of, &dir("again"));
        let again: BTreeSet<(String, String, String, String)> = rows(&dir("again").join("notices.csv"))
            .iter()
            .inspect(|r| assert_eq!(r["already_noticed"], "true", "{} noticed twice", r["parcel_id"]))
            .map(|r| (r["letter"].clone(), r["parcel_id"].clone(), r["obligation"].clone(), r["due"].clone()))
            .collect();
        assert_eq!(again, printed, "a second issue against the first");
    } else {
        // A county whose letters could not reach its office issues nothing: the draft tells the same story.
        assert!(!store.exists(), "a refused issue made the program store");
        run("notices", &["--format", "csv", "--year", &year_arg], config, as_of, &dir("notices"));
    }
    let end_of_year = format!("{year}-12-31");
    let mut noticed: BTreeMap<String, (String, bool)> = BTreeMap::new();
    for file in ["notices.csv", "cannot_mail.csv"] {
        for r in rows(&dir("notices").join(file)) {
            assert!(!out_of_scope.contains(&r["parcel_id"]), "{}: noticed out of scope", r["parcel_id"]);
            if r["obligation"] == "periodic-inspection" {
                let owed = (r["due"].clone(), flag(&r["overdue"]));
                assert!(
                    noticed.insert(r["parcel_id"].clone(), owed).is_none(),
                    "{} noticed twice",
                    r["parcel_id"]
                );
            }
        }
    }
    let owed_by_year: BTreeMap<String, (String, bool)> = owed_by_id
        .iter()
        .filter(|(_, (due, _))| *due <= end_of_year)
        .map(|(id, o)| (id.clone(), o.clone()))
        .collect();
    assert_eq!(noticed, owed_by_year, "notices of {year} against schedule.csv");

    // The workload's backlog is the overdue parcels, and its first year's count the parcels owed in it, tier by
    // tier; its first year's pipe inspections are the `pipe-inspection` obligations overdue or due in it.
    let years = format!("{year}..{}", year + 9);
    run("workload", &["--format", "csv", "--years", &years], config, as_of, &dir("workload"));
    let mut backlog: BTreeMap<String, usize> = BTreeMap::new();
    let mut first_year: BTreeMap<String, usize> = BTreeMap::new();
    let mut first_year_pipes: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows(&dir("workload").join("workload.csv")) {
        let n = |c: &str| r[c].parse::<usize>().unwrap_or_else(|_| panic!("workload {c}: {:?}", r[c]));
        *backlog.entry(r["tier"].clone()).or_default() += n("backlog");
        assert_eq!(n("total"), n("due") + n("backlog"), "a pipe inspection is no visit of its own: {r:?}");
        if r["year"] == year_arg {
            *first_year.entry(r["tier"].clone()).or_default() += n("due");
            if n("pipe_inspections") > 0 {
                *first_year_pipes.entry(r["tier"].clone()).or_default() += n("pipe_inspections");
            }
        }
    }
    assert_eq!(
        first_year_pipes, pipes_in_year,
        "pipe inspections of {year}: workload.csv against obligations.csv"
    );
    let tiers: BTreeSet<&String> =
        duties.iter().filter(|(_, d)| d.owed.is_some()).map(|(_, d)| &d.tier).collect();
    for tier in tiers {
        let of_tier = |d: &Duty| &d.tier == tier;
        let late = count_where(&|d| of_tier(d) && overdue(d));
        let due_in_year = count_where(&|d| {
            of_tier(d) && d.owed.as_ref().is_some_and(|(due, o)| !o && due.starts_with(&year_arg))
        });
        assert_eq!(
            backlog.get(tier).copied().unwrap_or(0),
            late,
            "{tier}: workload backlog against overdue parcels"
        );
        assert_eq!(first_year.get(tier).copied().unwrap_or(0), due_in_year, "{tier}: workload of {year}");
    }

    // The map shows every parcel (those without a shape counted apart) and flags the overdue ones.
    run("map", &["--format", "html"], config, as_of, &dir("map"));
    let html = std::fs::read_to_string(dir("map").join("map.html")).expect("map.html");
    let start = html.find("id=\"map-data\">").expect("the map's data") + "id=\"map-data\">".len();
    let end = html[start..].find("</script>").expect("the end of the map's data") + start;
    let data: Value = serde_json::from_str(&html[start..end]).expect("the map's data is JSON");
    let strings: Vec<&str> =
        data["strings"].as_array().expect("strings").iter().map(|s| s.as_str().unwrap_or("")).collect();
    let fields: Vec<&str> =
        data["fields"].as_array().expect("fields").iter().map(|s| s.as_str().unwrap_or("")).collect();
    let id_field = fields.iter().position(|f| *f == "parcel_id").expect("a parcel_id field");
    let parcels = data["parcels"].as_array().expect("parcels");
    let unmapped = data["unmapped"].as_u64().expect("unmapped") as usize;
    assert_eq!(parcels.len() + unmapped, duties.len(), "map parcels, drawn and not");
    let mut flagged = BTreeSet::new();
    for p in parcels {
        let id = strings[p[0][id_field].as_u64().expect("a string id") as usize];
        assert!(ids.contains(&id.to_string()), "map parcel {id} is not in the schedule");
        let late = owed_by_id.get(id).is_some_and(|(_, o)| *o);
        if p[3].as_u64() == Some(1) {
            assert!(late, "{id}: flagged overdue on the map, not in schedule.csv");
            flagged.insert(id.to_string());
        }
    }
    assert_eq!(flagged.len(), count_where(&|d| overdue(d)), "overdue parcels on the map");

    // The table of systems: each system once, under a parcel of the schedule; the one the schedule row names
    // binds it, owing the row's inspection (which the obligations, notices, workload and map were checked
    // against above); no other system of the parcel in service owes one earlier; a retired one owes none.
    run("systems", &["--format", "csv"], config, as_of, &dir("systems"));
    let duty_of: BTreeMap<&String, &Duty> = duties.iter().map(|(id, d)| (id, d)).collect();
    let mut listed = BTreeSet::new();
    for r in rows(&dir("systems").join("systems.csv")) {
        let (id, system) = (&r["parcel_id"], &r["system_id"]);
        assert!(listed.insert(system.clone()), "system {system} listed twice");
        let duty =
            duty_of.get(id).unwrap_or_else(|| panic!("system {system} under {id}, not in the schedule"));
        for other in [&r["also_serves"], &r["lies_on"]].into_iter().filter(|o| !o.is_empty()) {
            assert!(ids.contains(other), "system {system}: {other} is not in the schedule");
        }
        let owed =
            (!r["inspection_due"].is_empty()).then(|| (r["inspection_due"].clone(), flag(&r["overdue"])));
        if r["life"] != "in service" {
            assert!(owed.is_none() && !flag(&r["binds"]), "retired system {system} owes an inspection");
            continue;
        }
        if flag(&r["binds"]) {
            assert_eq!(&duty.system, system, "{id}: the schedule's system against the one that binds");
            assert_eq!((&r["tier"], &owed), (&duty.tier, &duty.owed), "{id}: binding system {system}");
        } else if let (Some((due, _)), Some((row_due, _))) = (&owed, &duty.owed) {
            assert!(row_due <= due, "{id}: system {system} owes {due}, before the row's {row_due}");
        }
        if duty.out_of_scope {
            assert!(owed.is_none(), "{id} is out of the law's scope but its system {system} owes {owed:?}");
        }
    }
    for (id, d) in duties.iter().filter(|(_, d)| !d.system.is_empty()) {
        assert!(listed.contains(&d.system), "{id}: system {} is not in the table of systems", d.system);
    }

    // The buffer report finds the parcels within 500 ft of the mean-high-water line at the schedule's distances.
    // The schedule measures a parcel on the lot its binding system lies on: its own, or the owner's lot across
    // the road (`system_lies_on`), which the buffer report lists at the same distance; the parcel itself is in
    // the buffer report at its own distance, which the schedule does not give.
    run("buffer", &["--format", "csv", "--distance", "500"], config, as_of, &dir("buffer"));
    let within: BTreeMap<String, f64> = rows(&dir("buffer").join("buffer.csv"))
        .into_iter()
        .filter(|r| r["kind"] == "parcel")
        .map(|r| {
            let ft =
                r["distance_ft"].parse().unwrap_or_else(|_| panic!("buffer distance {:?}", r["distance_ft"]));
            (r["id"].clone(), ft)
        })
        .collect();
    let mut own = BTreeSet::new();
    for (id, d) in &duties {
        let Some(schedule_ft) = d.mhw_distance_ft.filter(|ft| *ft <= 500.0) else { continue };
        let lot = d.lies_on.as_ref().unwrap_or(id);
        let ft = within
            .get(lot)
            .unwrap_or_else(|| panic!("{id}: lot {lot} at {schedule_ft} ft not in the buffer"));
        assert!((ft - schedule_ft).abs() <= 0.051, "{id}: buffer {ft} ft, schedule {schedule_ft} ft ({lot})");
        if d.lies_on.is_none() {
            own.insert(id.clone());
        }
    }
    let elsewhere: BTreeSet<&String> =
        duties.iter().filter(|(_, d)| d.lies_on.is_some()).map(|(id, _)| id).collect();
    for id in within.keys() {
        assert!(
            own.contains(id) || elsewhere.contains(id),
            "{id}: in the buffer, not within 500 ft in the schedule"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The `name count` lines of the summary section that starts with `heading`.
fn section(summary: &str, heading: &str) -> Vec<(String, usize)> {
    let lines = summary.lines().skip_while(|l| *l != heading).skip(1).take_while(|l| l.starts_with(' '));
    let found: Vec<(String, usize)> = lines
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let (name, n) = (words.next()?, words.next()?);
            Some((name.to_string(), n.replace(',', "").parse().ok()?))
        })
        .collect();
    assert!(!found.is_empty(), "no '{heading}' section in the summary:\n{summary}");
    found
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml")
}

/// The sample county on its golden date, and on 2027-03-01, when the Ira cohort's 2027 due date is in the
/// notice year and a parcel inspected after the 2020 due date (which answered 2027-11-01) must get no letter.
#[test]
fn every_command_tells_one_story_on_the_sample() {
    one_story("sample-2027-01-15", &sample(), "2027-01-15", 2027);
    one_story("sample-2027-03-01", &sample(), "2027-03-01", 2027);
}

/// The problem sample: unusable records (no shape, repeated ids) stay in every command's count.
#[test]
fn every_command_tells_one_story_on_the_problem_sample() {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample-problems/county.toml");
    one_story("sample-problems", &config, "2027-01-15", 2027);
}

/// A generated county of at least 10,000 parcels with an inspection history, named by
/// `LAKESHORE_STORY_CONFIG`: `.ci/run` generates one and runs this test on it with the release binary, a
/// step of its own. Without the variable there is no county to check, and the test says so.
#[test]
fn every_command_tells_one_story_on_a_generated_county() {
    let Some(config) = std::env::var_os("LAKESHORE_STORY_CONFIG") else {
        eprintln!(
            "every_command_tells_one_story_on_a_generated_county: LAKESHORE_STORY_CONFIG not set; skipped"
        );
        return;
    };
    let config = PathBuf::from(config);
    one_story("generated-2026-11-29", &config, "2026-11-29", 2027);
    one_story("generated-2027-03-01", &config, "2027-03-01", 2027);
}

/// A row's reason is the sentence the law gives of its facts ([`lakeshore::law::coverage::explain`]), which
/// walks the rules again: the row's own sentence is written from the decision its entry keeps, and must say
/// the same, rules passed over on a system's distance included.
#[test]
fn a_rows_reason_is_the_sentence_of_its_facts() {
    use lakeshore::law::coverage::{explain, Exclusion};
    use lakeshore::pipeline::config::{Config, ConfigFile};

    let problems = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample-problems/county.toml");
    let mut compared = 0;
    for path in [sample(), problems] {
        let file = ConfigFile::load(&path).expect("the sample config loads");
        let config = Config::new(file, "2027-01-15".parse().unwrap()).expect("the sample config is valid");
        let run = lakeshore::pipeline::run_schedule(&config).expect("the sample runs");
        for row in &run.rows {
            let Some(facts) = row.facts.as_ref() else { continue };
            if row.entry.exclusion == Some(Exclusion::NoSystem) {
                continue;
            }
            let mut expected = String::new();
            if let Some(lot) = row.systems.iter().find(|l| l.binds).and_then(|l| l.lies_on.as_deref()) {
                expected = format!("system on the lot {lot}, whose edge is measured: ");
            }
            expected.push_str(&explain(&run.rules, facts));
            assert_eq!(run.reason(row), expected, "{}: {}", path.display(), row.parcel.id);
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared} rows compared");
}
