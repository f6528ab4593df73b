//! Record files and configs as a county hands them over: the sample county's inspection history saved by a
//! spreadsheet program with a semicolon or a tab between fields, or in Windows-1252 with accented names, an
//! Excel log with date cells no calendar has, a date column with a few bad cells, and the config mistakes a
//! new user makes (a config that is not there, `--as-of` written as on the history, a misspelt key, two
//! mistakes at once).
//!
//! The oracle for every file that only changes how the history is written is the sample county's own run,
//! made here from `data/sample` with the same flags: the schedule must be the same, byte for byte. Workbooks
//! are written here with rust_xlsxwriter, not by lakeshore; their row numbers are counted by hand (the header
//! is row 1).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use rust_xlsxwriter::{Format, Formula, Workbook};

use crate::common;

const AS_OF: &str = "2027-01-15";

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

/// A copy of the sample county in a fresh folder, as a county would have it on its own disk.
pub(crate) fn sample_copy(label: &str) -> PathBuf {
    let dir = common::fresh_dir(label).join("county");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(sample()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

/// `lakeshore schedule --format csv` with the config `config`, `--as-of` `as_of` and `more` flags, into `out`.
fn schedule(config: &Path, as_of: &str, more: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--format", "csv", "--as-of", as_of, "--config"])
        .arg(config)
        .args(more)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The sample county's own schedule and exit code, the oracle.
fn sample_schedule(label: &str) -> (Vec<u8>, Option<i32>) {
    let out = common::fresh_dir(label).join("out");
    let run = schedule(&sample().join("county.toml"), AS_OF, &[], &out);
    assert!(matches!(run.status.code(), Some(0 | 2)), "{}", stderr(&run));
    (std::fs::read(out.join("schedule.csv")).unwrap(), run.status.code())
}

/// The sample history's records, as the file holds them.
fn sample_history() -> Vec<Vec<String>> {
    common::csv_records(&std::fs::read_to_string(sample().join("history.csv")).unwrap())
}

/// `records` as CSV text with `separator` between fields, a field quoted when it holds the separator, a
/// quote or a line break.
fn csv_text(records: &[Vec<String>], separator: char) -> String {
    let mut text = String::new();
    for record in records {
        let fields: Vec<String> = record
            .iter()
            .map(|f| match f.contains([separator, '"', '\n', '\r']) {
                true => format!("\"{}\"", f.replace('"', "\"\"")),
                false => f.clone(),
            })
            .collect();
        text.push_str(&fields.join(&separator.to_string()));
        text.push_str("\r\n");
    }
    text
}

/// The sample county with its history rewritten as `bytes`: its schedule must be the sample's own.
fn schedules_as_the_sample(label: &str, bytes: &[u8]) -> Output {
    let county = sample_copy(label);
    std::fs::write(county.join("history.csv"), bytes).unwrap();
    let out = county.join("out");
    let run = schedule(&county.join("county.toml"), AS_OF, &[], &out);
    let (want, code) = sample_schedule(label);
    assert_eq!(run.status.code(), code, "{}", stderr(&run));
    let got = std::fs::read(out.join("schedule.csv")).unwrap();
    assert!(got == want, "{label}: the schedule differs from the sample's");
    run
}

#[test]
fn a_semicolon_history_schedules_as_the_sample_does() {
    let mut records = sample_history();
    // A note holding semicolons and a comma, quoted as Excel quotes it, in a column the schedule ignores.
    records[0].push("notes".into());
    records.iter_mut().skip(1).for_each(|r| r.push(String::new()));
    let last = records[0].len() - 1;
    records[1][last] = "lid cracked; owner told, re-check".into();
    let text = csv_text(&records, ';');
    assert!(text.contains("\"lid cracked; owner told, re-check\""));
    schedules_as_the_sample("semicolon-history", text.as_bytes());
}

#[test]
fn a_tab_separated_history_schedules_as_the_sample_does() {
    let text = csv_text(&sample_history(), '\t');
    schedules_as_the_sample("tab-history", format!("\u{feff}{text}").as_bytes());
}

/// Excel's plain "CSV" on a North American computer writes Windows-1252: every row with an accented name is
/// kept, the names read as written, and a note names the file.
#[test]
fn a_windows_1252_history_keeps_its_accented_rows_with_a_note() {
    let names =
        [("R. Okafor", "Renée Okafor"), ("T. Lindqvist", "Tomás Lindqvist"), ("county staff", "Zoë Côté")];
    let mut records = sample_history();
    let inspector = records[0].iter().position(|c| c == "inspector").unwrap();
    let mut accented = 0;
    for record in records.iter_mut().skip(1) {
        if let Some((_, to)) = names.iter().find(|(from, _)| record[inspector] == *from) {
            record[inspector] = to.to_string();
            accented += 1;
        }
    }
    assert!(accented > 50, "most rows carry an accented name");
    let text = csv_text(&records, ',');
    let (bytes, _, lossy) = encoding_rs::WINDOWS_1252.encode(&text);
    assert!(!lossy && std::str::from_utf8(&bytes).is_err(), "the file is Windows-1252, not UTF-8");
    let run = schedules_as_the_sample("cp1252-history", &bytes);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("history.csv: not UTF-8 text; read as Windows-1252"), "{stdout}");
    assert!(stdout.contains(&format!("({accented} rows, the first on line 2)")), "{stdout}");

    // The names are read as written: the report R. Okafor still owes is owed by "Renée Okafor".
    let county = common::fresh_dir("cp1252-names");
    std::fs::write(county.join("history.csv"), &bytes).unwrap();
    let mut file = ConfigFile::load(&sample().join("county.toml")).unwrap();
    file.layers.history = Some(county.join("history.csv"));
    let config = Config::new(file, AS_OF.parse().unwrap()).unwrap();
    let run = run_schedule(&config).unwrap();
    let owed: Vec<&str> = run.inspections.pending.iter().map(|p| &*p.inspector).collect();
    assert!(owed.contains(&"Renée Okafor"), "{owed:?}");
    let problems = run.problems.to_vec().unwrap();
    assert!(problems.iter().all(|p| !p.path.ends_with("history.csv")), "{problems:?}");
}

/// The problems reported for a record file, as (record, message), and the ids of the parcels inspected.
type Read = (Vec<(String, String)>, Vec<String>);

/// The sample county with `history` (CSV or a workbook sheet) as its inspections file.
fn run_with_history(history: &Path) -> lakeshore::model::error::Result<Read> {
    let mut file = ConfigFile::load(&sample().join("county.toml")).unwrap();
    file.layers.history = Some(history.to_path_buf());
    let config = Config::new(file, AS_OF.parse().unwrap())?;
    let run = run_schedule(&config)?;
    let problems = run
        .problems
        .to_vec()?
        .iter()
        .filter(|p| p.path == history)
        .map(|p| (p.location.to_string(), p.message.clone()))
        .collect();
    let inspected = run
        .rows
        .iter()
        .filter(|r| r.entry.last_inspection.is_some())
        .map(|r| r.parcel.id.as_str().to_string())
        .collect();
    Ok((problems, inspected))
}

/// An inspection log whose date cells are formatted as dates but hold serials no calendar of 1900 to 2100
/// has (Excel shows them as `########`), a number that is not finite, and an error cell: each is a bad date
/// reported on its row, and its parcel is not taken as inspected on some day of 1899 or 2019.
#[test]
fn excel_date_cells_outside_1900_to_2100_are_bad_dates_on_their_rows() {
    let dir = common::fresh_dir("xlsx-serials");
    let book_path = dir.join("inspections.xlsx");
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let day = Format::new().set_num_format("yyyy-mm-dd");
    for (c, h) in ["parcel_id", "inspection_date", "result"].iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    // Rows 2 to 7. 46000 is 2025-12-09 (342 days after 45658, 2025-01-01).
    let cells: [(&str, Option<f64>); 6] = [
        ("054689-128.05-1-1", Some(46000.0)),
        ("054689-128.05-1-2", Some(-1.0)),
        ("054689-128.05-1-3", Some(23_980_000.0)),
        ("054689-128.05-1-5", Some(f64::NAN)),
        ("054689-128.05-1-6", None),
        ("054689-128.05-1-7", Some(f64::INFINITY)),
    ];
    for (r, (id, serial)) in cells.iter().enumerate() {
        let r = r as u32 + 1;
        sheet.write_string(r, 0, *id).unwrap();
        match serial {
            Some(serial) => sheet.write_number_with_format(r, 1, *serial, &day).map(drop).unwrap(),
            None => sheet.write_formula(r, 1, Formula::new("=1/0").set_result("#DIV/0!")).map(drop).unwrap(),
        }
        sheet.write_string(r, 2, "pass").unwrap();
    }
    book.save(&book_path).unwrap();
    let (problems, inspected) = run_with_history(&book_path).unwrap();
    let rows: Vec<&str> = problems.iter().map(|(row, _)| row.as_str()).collect();
    assert_eq!(rows, ["row 3", "row 4", "row 5", "row 6", "row 7"], "{problems:?}");
    for (_, message) in &problems {
        assert!(message.starts_with("inspection_date '") && message.contains("not a date"), "{message}");
    }
    assert!(problems[0].1.contains("'-1' is a number but not a date of 1900 to 2100"), "{}", problems[0].1);
    assert!(problems[1].1.contains("'23980000' is a number"), "{}", problems[1].1);
    assert!(inspected.contains(&"054689-128.05-1-1".to_string()));
    for id in ["054689-128.05-1-2", "054689-128.05-1-3", "054689-128.05-1-5", "054689-128.05-1-6"] {
        assert!(!inspected.contains(&id.to_string()), "{id} was taken as inspected");
    }
}

/// A column named like a date with a few bad cells among its dates is the date column (not "no
/// inspection_date column"), and each bad cell is a problem naming its line, its text and the fix.
#[test]
fn a_date_column_with_a_few_bad_cells_is_read_and_each_bad_cell_reported() {
    let dir = common::fresh_dir("bad-date-cells");
    let history = dir.join("log.csv");
    std::fs::write(
        &history,
        "SBL,Date Inspected,Inspection Result\n\
         054689-128.05-1-1,6/12/2025,pass\n\
         054689-128.05-1-2,pending,pass\n\
         054689-128.05-1-3,2025-07-01,pass\n\
         054689-128.05-1-5,13/45/2025,pass\n\
         054689-128.05-1-6,46000,pass\n",
    )
    .unwrap();
    let (problems, inspected) = run_with_history(&history).unwrap();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, "line 3");
    assert!(problems[0].1.contains("'pending' is not a date; write it as YYYY-MM-DD"), "{}", problems[0].1);
    assert_eq!(problems[1].0, "line 5");
    assert!(problems[1].1.contains("'13/45/2025' is not a date"), "{}", problems[1].1);
    for id in ["054689-128.05-1-1", "054689-128.05-1-3", "054689-128.05-1-6"] {
        assert!(inspected.contains(&id.to_string()), "{id}");
    }
}

#[test]
fn a_sheet_name_misspelt_gets_the_sheet_meant() {
    let dir = common::fresh_dir("sheet-meant");
    let path = dir.join("log.xlsx");
    let mut book = Workbook::new();
    book.add_worksheet().set_name("Read me").unwrap();
    book.add_worksheet().set_name("Inspections 2026").unwrap().write_string(0, 0, "parcel_id").unwrap();
    book.save(&path).unwrap();
    let err = run_with_history(&dir.join("log.xlsx:Inspection 2026")).unwrap_err().to_string();
    assert!(err.contains("sheets: Read me, Inspections 2026"), "{err}");
    assert!(err.contains("did you mean '"), "{err}");
    assert!(err.contains("log.xlsx:Inspections 2026'?"), "{err}");
}

#[test]
fn a_config_file_that_is_not_there_is_named() {
    let dir = common::fresh_dir("no-config");
    let missing = dir.join("county.toml");
    let run = schedule(&missing, AS_OF, &[], &dir.join("out"));
    assert_eq!(run.status.code(), Some(1));
    let said = stderr(&run);
    assert!(said.contains(&format!("{}: no such config file", missing.display())), "{said}");
    assert!(said.contains("--config") && said.contains("lakeshore init"), "{said}");
}

/// `--as-of 1/15/2027` is the day the history would mean by it: the run is the one of `--as-of 2027-01-15`.
#[test]
fn as_of_takes_the_history_s_spellings() {
    let (want, code) = sample_schedule("as-of-iso");
    let out = common::fresh_dir("as-of-us").join("out");
    let run = schedule(&sample().join("county.toml"), "1/15/2027", &[], &out);
    assert_eq!(run.status.code(), code, "{}", stderr(&run));
    assert!(std::fs::read(out.join("schedule.csv")).unwrap() == want, "the schedule differs");
    let run = schedule(&sample().join("county.toml"), "15/1/2027", &[], &out);
    assert_eq!(run.status.code(), Some(1));
    assert!(stderr(&run).contains("--as-of '15/1/2027' is not a date"), "{}", stderr(&run));
}

/// The sample config with `more` appended, in a copy of the sample county; the config's path.
fn config_with(label: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let county = sample_copy(label);
    let config = county.join("county.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, edit(&text)).unwrap();
    config
}

/// A misspelt key under `[fields.history]` is told at its line of the config, with the role meant.
#[test]
fn a_misspelt_fields_history_key_names_file_line_and_the_key_meant() {
    let config =
        config_with("fields-key", |text| format!("{text}[fields.history]\ninspection_dat = \"DATE\"\n"));
    let line = std::fs::read_to_string(&config).unwrap().lines().count();
    let run = schedule(&config, AS_OF, &[], &config.with_file_name("out"));
    assert_eq!(run.status.code(), Some(1));
    let said = stderr(&run);
    let at = format!("{}:{line}:1: [fields.history] inspection_dat", config.display());
    assert!(said.contains(&at), "{said}");
    assert!(said.contains("did you mean `inspection_date`?"), "{said}");
}

/// Two mistakes in a config are both told, each at its line; two mistakes of the settings are both told.
#[test]
fn every_config_mistake_is_told_not_only_the_first() {
    let config = config_with("two-mistakes", |text| {
        text.replace("watershed = ", "watershd = ")
            .replace("border_tolerance_ft = 10.0", "border_tolerance_ft = \"ten\"")
    });
    let text = std::fs::read_to_string(&config).unwrap();
    let line_of = |what: &str| text.lines().position(|l| l.starts_with(what)).unwrap() + 1;
    let run = schedule(&config, AS_OF, &[], &config.with_file_name("out"));
    assert_eq!(run.status.code(), Some(1));
    let said = stderr(&run);
    let at = |what: &str| format!("{}:{}:", config.display(), line_of(what));
    assert!(said.contains(&format!("{}1: [layers] watershd: unknown key", at("watershd"))), "{said}");
    assert!(said.contains("did you mean `watershed`?"), "{said}");
    assert!(
        said.contains(&format!("{}23: border_tolerance_ft: found string", at("border_tolerance_ft"))),
        "{said}"
    );

    let run = schedule(
        &sample().join("county.toml"),
        AS_OF,
        &["--crs", "EPSG:4326", "--border-tolerance-ft=-3"],
        &config.with_file_name("out"),
    );
    assert_eq!(run.status.code(), Some(1));
    let said = stderr(&run);
    assert!(said.contains("2 mistakes in the configuration"), "{said}");
    assert!(
        said.contains("EPSG:4326 is geographic")
            && said.contains("border_tolerance_ft = -3 (or --border-tolerance-ft)"),
        "{said}"
    );
}

/// A log kept a sheet a year (`2026` and `2025`, one header spelt two ways), after a cover sheet and beside a
/// table of codes and an older log with other columns: the yearly sheets are read as one table and the run
/// says so, a bad row names its own sheet, and the older log, which could be the inspections too, is a
/// warning naming both and how to choose.
#[test]
fn sheets_sharing_one_header_are_one_table_and_a_close_second_is_a_warning() {
    let dir = common::fresh_dir("sheet-per-year");
    let path = dir.join("log.xlsx");
    let mut book = Workbook::new();
    book.add_worksheet().set_name("About").unwrap().write_string(0, 0, "Septic inspections by year").unwrap();
    // (name, header, rows)
    type Sheet<'a> = (&'a str, [&'a str; 3], &'a [[&'a str; 3]]);
    let sheets: [Sheet; 4] = [
        ("2026", ["parcel_id", "inspection_date", "result"], &[["054689-128.05-1-1", "2026-06-12", "pass"]]),
        ("Codes", ["code", "meaning", "since"], &[["P", "pass", "1990"], ["F", "fail", "1990"]]),
        (
            "2025",
            ["Parcel ID", "Inspection Date", "Result"],
            &[["054689-128.05-1-3", "2025-07-01", "pass"], ["054689-128.05-1-5", "not yet", "pass"]],
        ),
        ("Old log", ["SBL", "Date Inspected", "Outcome"], &[["054689-128.05-1-6", "1999-07-01", "pass"]]),
    ];
    for (name, header, rows) in sheets {
        let sheet = book.add_worksheet().set_name(name).unwrap();
        for (r, row) in std::iter::once(&header).chain(rows.iter()).enumerate() {
            for (c, cell) in row.iter().enumerate() {
                sheet.write_string(r as u32, c as u16, *cell).unwrap();
            }
        }
    }
    book.save(&path).unwrap();
    let mut file = ConfigFile::load(&sample().join("county.toml")).unwrap();
    file.layers.history = Some(path.clone());
    let run = run_schedule(&Config::new(file, AS_OF.parse().unwrap()).unwrap()).unwrap();
    let inspected = |id: &str| {
        run.rows.iter().find(|r| r.parcel.id.as_str() == id).and_then(|r| r.entry.last_inspection.clone())
    };
    assert_eq!(inspected("054689-128.05-1-1").map(|i| i.date.to_string()).as_deref(), Some("2026-06-12"));
    assert_eq!(inspected("054689-128.05-1-3").map(|i| i.date.to_string()).as_deref(), Some("2025-07-01"));
    // The old log is not read: its parcel keeps the sample's own history, absent from this log.
    assert_eq!(inspected("054689-128.05-1-6"), None);
    let problems: Vec<(String, String, String)> = run
        .problems
        .to_vec()
        .unwrap()
        .iter()
        .filter(|p| p.path.to_string_lossy().contains("log.xlsx"))
        .map(|p| (p.path.display().to_string(), p.location.to_string(), p.message.clone()))
        .collect();
    let bad = problems.iter().find(|(_, _, m)| m.contains("'not yet'")).expect("the bad date is reported");
    assert!(bad.0.ends_with("log.xlsx:2025") && bad.1 == "row 3", "{bad:?}");
    let second = problems.iter().find(|(_, _, m)| m.contains("'Old log'")).expect("the close second is told");
    assert!(second.2.contains("'2026', '2025'") && second.2.contains("log.xlsx:Old log"), "{second:?}");
    let notes = run.notes.join("\n");
    assert!(notes.contains("sheets '2026', '2025' share one header and were read as one table"), "{notes}");
}

/// A log with two columns named like a parcel id: `SBL` (taken first, by the order of the names lakeshore
/// knows) holding an old numbering on two of three rows, and `TAX_ID` holding the parcels' ids on all three.
/// The choice is admitted: a warning names both, how many rows each finds (1 and 3 of 3, by hand), and the
/// flag that settles it.
#[test]
fn a_second_id_column_that_finds_more_parcels_is_a_warning() {
    let dir = common::fresh_dir("id-second");
    let history = dir.join("log.csv");
    std::fs::write(
        &history,
        "SBL,TAX_ID,Date Inspected,Result\n\
         054689-128.05-1-1,054689-128.05-1-1,6/12/2025,pass\n\
         OLD-0002,054689-128.05-1-2,6/12/2025,pass\n\
         OLD-0003,054689-128.05-1-3,6/12/2025,pass\n",
    )
    .unwrap();
    let (problems, _) = run_with_history(&history).unwrap();
    let warning = problems.iter().find(|(_, m)| m.contains("could both be the parcel id")).expect("warned");
    let message = &warning.1;
    assert!(message.contains("'SBL' was taken and finds the parcels of 1 of 3 rows"), "{message}");
    assert!(message.contains("'TAX_ID' would find 3"), "{message}");
    assert!(message.contains("--field history.parcel_id=\"TAX_ID\""), "{message}");

    // The old numbering under a name no id has: TAX_ID is the only candidate, the log joins whole, nothing is warned.
    std::fs::write(&history, std::fs::read_to_string(&history).unwrap().replace("SBL,", "Old Key,")).unwrap();
    let (problems, inspected) = run_with_history(&history).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert!(inspected.contains(&"054689-128.05-1-3".to_string()));
}
