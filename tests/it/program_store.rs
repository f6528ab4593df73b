//! The program store from the command line, as README's "A year in the program" runs it on the sample: a draft
//! records nothing, `--issue` records a batch once and only once, `--reprint` prints it again to the byte, the
//! post's word is recorded, a run killed at any point of issuing leaves the store as before (or, past the
//! publish's commit point, with the batch issued), two runs at once leave one batch, and a damaged store is
//! refused naming it, with nothing issued.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CONFIG: &str = "data/sample/county.toml";

fn lakeshore(args: &[&str], env: Option<(&str, &str)>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lakeshore"));
    command.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    command.output().expect("cannot run the lakeshore binary")
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// `notices` of the sample into `out` with the store `store`, dated `as_of`, with `more` flags.
fn notices(store: &Path, out: &Path, as_of: &str, more: &[&str], fault: Option<&str>) -> Output {
    let (store, out) = (store.to_string_lossy(), out.to_string_lossy());
    let mut args = vec![
        "notices", "--config", CONFIG, "--store", &store, "--as-of", as_of, "--out", &out, "--format", "csv",
    ];
    args.extend_from_slice(more);
    lakeshore(&args, fault.map(|f| ("LAKESHORE_FAULT", f)))
}

/// `map` of the sample with the store `store`, dated `as_of`, into `out`, with `more` flags.
fn map(store: &Path, as_of: &str, more: &[&str], out: &Path) -> Output {
    let (store, out) = (store.to_string_lossy(), out.to_string_lossy());
    let mut args = vec!["map", "--config", CONFIG, "--store", &store, "--as-of", as_of, "--out", &out];
    args.extend_from_slice(more);
    lakeshore(&args, None)
}

/// The batches of the store at `path` as (id, state, letters), read with SQL.
fn batches(path: &Path) -> Vec<(i64, String, i64)> {
    if !path.exists() {
        return Vec::new();
    }
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare("SELECT b.id, b.state, (SELECT count(*) FROM letter l WHERE l.batch = b.id) FROM batch b ORDER BY b.id")
        .unwrap();
    let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// A fresh folder named for `label` with a program store in which `notices --issue` has issued the batch of
/// 2027-01-15 into `out`: the folder, the store and `out`.
fn issued_in_january(label: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = common::fresh_dir(label);
    let (store, out) = (dir.join("program.sqlite"), dir.join("out"));
    assert_eq!(code(&notices(&store, &out, "2027-01-15", &["--issue"], None)), Some(0));
    (dir, store, out)
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

#[test]
fn a_draft_records_nothing_and_an_issue_records_once() {
    let dir = common::fresh_dir("program-issue");
    let (store, out) = (dir.join("program.sqlite"), dir.join("out"));
    let draft = notices(&store, &out, "2027-01-15", &[], None);
    assert_eq!(code(&draft), Some(0), "{}", text(&draft));
    assert!(!store.exists(), "a draft made the store");
    let (_, drafted) = common::read_rows(&out.join("notices.csv")).unwrap();

    let issued = notices(&store, &out, "2027-01-15", &["--issue"], None);
    assert_eq!(code(&issued), Some(0), "{}", text(&issued));
    assert!(text(&issued).contains("issued batch 1 on 2027-01-15"), "{}", text(&issued));
    let (_, rows) = common::read_rows(&out.join("notices.csv")).unwrap();
    // The draft showed the numbers the batch got.
    let numbers = |rows: &[common::Row]| rows.iter().map(|r| r["letter"].clone()).collect::<Vec<_>>();
    assert_eq!(numbers(&drafted), numbers(&rows));
    let letters = std::collections::BTreeSet::from_iter(numbers(&rows)).len() as i64;
    assert_eq!(batches(&store), [(1, "issued".to_string(), letters)]);
    let batch: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("batch.json")).unwrap()).unwrap();
    assert_eq!(batch["batch"], 1);

    // Again on the same day: nothing new, every duty already noticed.
    let again = notices(&store, &out, "2027-01-15", &["--issue"], None);
    assert_eq!(code(&again), Some(0), "{}", text(&again));
    assert_eq!(batches(&store).len(), 1);
    let (_, rows) = common::read_rows(&out.join("notices.csv")).unwrap();
    assert!(rows.iter().all(|r| r["already_noticed"] == "true"), "a duty noticed twice");

    // Earlier than the last batch: refused, nothing recorded.
    let early = notices(&store, &out, "2027-01-10", &["--issue"], None);
    assert_eq!(code(&early), Some(1));
    assert!(
        text(&early).contains("a batch was issued on 2027-01-15, after --as-of 2027-01-10"),
        "{}",
        text(&early)
    );
    assert_eq!(batches(&store).len(), 1);
}

#[test]
fn a_reprint_prints_the_batch_as_issued() {
    let (dir, store, out) = issued_in_january("program-reprint");
    let again = dir.join("again");
    // A later draft changes nothing of batch 1.
    assert_eq!(code(&notices(&store, &dir.join("later"), "2027-06-01", &[], None)), Some(0));
    let store_s = store.to_string_lossy();
    let again_s = again.to_string_lossy();
    let reprint = lakeshore(
        &["notices", "--config", CONFIG, "--store", &store_s, "--reprint", "1", "--out", &again_s],
        None,
    );
    assert_eq!(code(&reprint), Some(0), "{}", text(&reprint));
    for file in ["letters.html", "labels.html", "letters.csv"] {
        let (a, b) = (std::fs::read(out.join(file)).unwrap(), std::fs::read(again.join(file)).unwrap());
        assert!(a == b, "{file} printed again differs from the one issued");
    }
    let missing = lakeshore(
        &["notices", "--config", CONFIG, "--store", &store_s, "--reprint", "7", "--out", &again_s],
        None,
    );
    assert_eq!(code(&missing), Some(1));
    assert!(
        text(&missing).contains("there is no batch 7 in the program store (batches are 1 to 1)"),
        "{}",
        text(&missing)
    );
}

#[test]
fn the_post_s_word_is_recorded_and_a_returned_address_is_not_mailed() {
    let (dir, store, out) = issued_in_january("program-mail");
    let (_, rows) = common::read_rows(&out.join("notices.csv")).unwrap();
    let first = rows[0].clone();
    let store_s = store.to_string_lossy();
    let returned =
        lakeshore(&["returned", "--store", &store_s, "--as-of", "2027-02-03", &first["letter"]], None);
    assert_eq!(code(&returned), Some(0), "{}", text(&returned));
    let unknown = lakeshore(&["received", "--store", &store_s, "--as-of", "2027-02-03", "2027-999999"], None);
    assert_eq!(code(&unknown), Some(1));
    assert!(text(&unknown).contains("2027-999999: no issued letter has this number"), "{}", text(&unknown));
    // Later in the year: that owner's duties at that address go to staff, not to the post.
    let later = notices(&store, &dir.join("later"), "2027-12-15", &[], None);
    assert_eq!(code(&later), Some(0), "{}", text(&later));
    let (_, mailed) = common::read_rows(&dir.join("later/notices.csv")).unwrap();
    assert!(
        mailed.iter().all(|r| r["parcel_id"] != first["parcel_id"]),
        "mailed again to a returned address"
    );
    let (_, staff) = common::read_rows(&dir.join("later/cannot_mail.csv")).unwrap();
    let held: Vec<&common::Row> = staff.iter().filter(|r| r["parcel_id"] == first["parcel_id"]).collect();
    assert!(
        !held.is_empty()
            && held
                .iter()
                .all(|r| r["cannot_mail_because"].contains("came back undeliverable on 2027-02-03"))
    );
}

/// Where a kill leaves the batch: not recorded at all, or issued once the next run settles it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum After {
    Nothing,
    Issued,
}

#[test]
fn a_run_killed_while_issuing_leaves_the_store_as_before() {
    let cases: &[(&str, After)] = &[
        ("kill-before:store-pending", After::Nothing),
        ("kill-after:store-pending", After::Nothing),
        ("kill-before:open", After::Nothing),
        ("abort-after-bytes=1", After::Nothing),
        ("abort-after-bytes=20000", After::Nothing),
        ("abort-after-bytes=60000", After::Nothing),
        ("kill-before:manifest", After::Nothing),
        ("kill-before:commit", After::Nothing),
        ("kill-after:commit", After::Issued),
        ("kill-before:rename:3", After::Issued),
        ("kill-before:store-issued", After::Issued),
    ];
    for (fault, after) in cases {
        // A batch issued before, so "as before" is a store with something in it.
        let (dir, store, out) = issued_in_january("program-kill");
        let before = batches(&store);
        let killed = notices(&store, &out, "2027-12-15", &["--issue"], Some(fault));
        assert_ne!(code(&killed), Some(0), "{fault}: the run was not stopped: {}", text(&killed));
        // A draft reads only issued batches: whatever the kill left pending, nothing new counts yet.
        let draft = notices(&store, &dir.join("draft"), "2027-12-15", &[], None);
        assert_eq!(code(&draft), Some(0), "{fault}: {}", text(&draft));
        // The next issuing run settles what the kill left, then issues what is still due.
        let next = notices(&store, &out, "2027-12-15", &["--issue"], None);
        assert_eq!(code(&next), Some(0), "{fault}: {}", text(&next));
        let now = batches(&store);
        assert!(now.iter().all(|(_, state, _)| state == "issued"), "{fault}: {now:?}");
        match after {
            After::Nothing => {
                assert_eq!(now.len(), before.len() + 1, "{fault}: {now:?}");
                assert!(!text(&next).contains("is issued"), "{fault}: {}", text(&next));
            }
            After::Issued => {
                assert_eq!(now.len(), before.len() + 1, "{fault}: {now:?}");
                assert!(
                    text(&next).contains("cut short after its letters were published"),
                    "{fault}: {}",
                    text(&next)
                );
                assert!(text(&next).contains("0 notices for 2027 in 0 letters"), "{fault}: {}", text(&next));
            }
        }
    }
}

#[test]
fn two_runs_at_once_leave_one_batch() {
    let dir = common::fresh_dir("program-race");
    let store = dir.join("program.sqlite");
    let spawn = |out: PathBuf| {
        let (store, out) = (store.to_string_lossy().into_owned(), out.to_string_lossy().into_owned());
        Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "notices",
                "--config",
                CONFIG,
                "--store",
                &store,
                "--as-of",
                "2027-01-15",
                "--out",
                &out,
                "--format",
                "csv",
                "--issue",
                "-q",
            ])
            .output()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| spawn(dir.join("a")).unwrap());
        let b = s.spawn(|| spawn(dir.join("b")).unwrap());
        (a.join().unwrap(), b.join().unwrap())
    });
    let found = batches(&store);
    assert_eq!(found.len(), 1, "{found:?}\n{}\n{}", text(&a), text(&b));
    for run in [&a, &b] {
        let ok = code(run) == Some(0);
        assert!(
            ok || text(run).contains("another lakeshore run is recording in this program store"),
            "{}",
            text(run)
        );
    }
}

#[test]
fn a_damaged_store_is_refused_and_nothing_is_issued() {
    let (_, store, out) = issued_in_january("program-damaged");
    let manifest = std::fs::read(out.join("run.json")).unwrap();
    // Cut the file to its first page: a SQLite header, then nothing it points at.
    let bytes = std::fs::read(&store).unwrap();
    std::fs::write(&store, &bytes[..bytes.len().min(4096) / 2]).unwrap();
    for flags in [&["--issue"][..], &[][..]] {
        let refused = notices(&store, &out, "2027-12-15", flags, None);
        assert_eq!(code(&refused), Some(1), "{flags:?}: {}", text(&refused));
        assert!(text(&refused).contains("program.sqlite"), "{}", text(&refused));
        assert!(text(&refused).contains("Nothing was issued"), "{}", text(&refused));
    }
    assert_eq!(std::fs::read(out.join("run.json")).unwrap(), manifest, "the output folder was touched");
}

/// The interactive map shows each parcel's notice stage as the store recorded it, and offers it as a filter.
#[test]
fn the_map_shows_each_parcel_s_notice_stage() {
    let (dir, store, out) = issued_in_january("program-map");
    let (_, rows) = common::read_rows(&out.join("notices.csv")).unwrap();
    let page = dir.join("map.html");
    let drawn = map(&store, "2027-01-15", &["--format", "html"], &page);
    assert_eq!(code(&drawn), Some(0), "{}", text(&drawn));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"filter-notice\""));
    // The tiled map's parcels, in the tiles beside its page, tell the same stage.
    let tiled = dir.join("tiled");
    let drawn =
        map(&store, "2027-01-15", &["--format", "html", "--tiles", "always"], &tiled.join("map.html"));
    assert_eq!(code(&drawn), Some(0), "{}", text(&drawn));
    let mut tiles = String::new();
    for entry in std::fs::read_dir(&tiled).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with("map_tile_") {
            tiles.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
    for r in &rows {
        let shown = format!("first {}, 2027-01-15", r["letter"]);
        assert!(html.contains(&shown), "{}: {shown} not on the map", r["parcel_id"]);
        assert!(tiles.contains(&shown), "{}: {shown} not in the tiled map", r["parcel_id"]);
    }
}

/// The static map coloured by notice stage: its legend counts the parcels the store noticed at each stage,
/// and the rest of the map as not noticed.
#[test]
fn the_static_map_colours_parcels_by_notice_stage() {
    let (dir, store, _) = issued_in_january("program-map-stage");
    assert_eq!(code(&notices(&store, &dir.join("december"), "2027-12-15", &["--issue"], None)), Some(0));
    // The parcels by the latest stage the store holds for them, read from its tables.
    let conn = rusqlite::Connection::open(&store).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT i.parcel_id, max(CASE l.stage WHEN 'first' THEN 1 WHEN 'reminder' THEN 2 WHEN 'final' THEN 3
             ELSE 4 END) FROM item i JOIN letter l ON l.number = i.letter GROUP BY i.parcel_id",
        )
        .unwrap();
    let latest: Vec<(String, i64)> =
        statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
    let at = |stage: i64| latest.iter().filter(|(_, s)| *s == stage).count();
    let svg = dir.join("map.svg");
    let drawn = map(&store, "2027-12-15", &["--by", "notice"], &svg);
    assert_eq!(code(&drawn), Some(0), "{}", text(&drawn));
    let image = std::fs::read_to_string(&svg).unwrap();
    assert!(image.contains("Notice stage"), "no legend heading");
    for (label, stage) in [("First notice", 1), ("Reminder", 2), ("Referred", 4)] {
        assert!(at(stage) > 0, "the sample has parcels at {label}");
        assert!(
            image.contains(&format!("{label} ({})", at(stage))),
            "{label} ({}) not in the legend",
            at(stage)
        );
    }
}

/// `received --from` reads a letters file as the record files are read: a spreadsheet's save (byte-order
/// mark, `;` between fields, a quoted field holding the separator, CRLF lines) gives each letter its day.
#[test]
fn letters_received_are_read_from_a_spreadsheet_s_csv() {
    let (dir, store, out) = issued_in_january("program-received-from");
    let (_, rows) = common::read_rows(&out.join("notices.csv")).unwrap();
    // Two letters (a letter may list several duties, a row each).
    let first = rows[0]["letter"].clone();
    let second = rows.iter().map(|r| r["letter"].clone()).find(|l| *l != first).expect("two letters");
    let from = dir.join("received.csv");
    let saved = format!(
        "\u{feff}owner;letter;date\r\n\"Marsh-Tilley; Grace\";{first};2027-02-03\r\n\"Doe, \"\"J\"\"\";{second};\r\n\r\n"
    );
    std::fs::write(&from, saved).unwrap();
    let (store_s, from_s) = (store.to_string_lossy(), from.to_string_lossy());
    let received =
        lakeshore(&["received", "--store", &store_s, "--as-of", "2027-02-10", "--from", &from_s], None);
    assert_eq!(code(&received), Some(0), "{}", text(&received));
    // The day of the line, and the as-of date where the line gives none.
    let conn = rusqlite::Connection::open(&store).unwrap();
    let mut days =
        conn.prepare("SELECT letter, day FROM mail WHERE kind = 'received' ORDER BY letter").unwrap();
    let days: Vec<(String, String)> =
        days.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
    let mut expected = vec![(first, "2027-02-03".to_string()), (second, "2027-02-10".to_string())];
    expected.sort();
    assert_eq!(days, expected);
}

/// A store in a folder that is not there: the run says to give another `--store`, not another `--out`.
#[test]
fn a_store_that_cannot_be_made_names_the_store_flag() {
    let dir = common::fresh_dir("program-store-missing");
    let store = dir.join("no-such-folder").join("program.sqlite");
    let issued = notices(&store, &dir.join("out"), "2027-01-15", &["--issue"], None);
    assert_eq!(code(&issued), Some(1), "{}", text(&issued));
    assert!(
        text(&issued).contains("give --store (or [program] store) a file in a folder"),
        "{}",
        text(&issued)
    );
    assert!(!text(&issued).contains("--out"), "{}", text(&issued));
}
