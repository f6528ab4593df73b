//! Record files as county offices keep them: an inspection log in an Excel workbook with its own headers,
//! text `M/D/YYYY` dates, serial numbers and real date cells, read with its columns detected, named in the
//! config file or named with `--field`. The workbooks are written here with rust_xlsxwriter, not by lakeshore.
//! Expected dates are the workbook's dates: serials worked out by hand from Excel's day 0, 1899-12-30
//! (45658 is 2025-01-01, DATE(2025,1,1); 46000 is 342 days later, 2025-12-09).

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::NaiveDate;
use lakeshore::model::error::Location;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};

use crate::common;

const AS_OF: &str = "2027-01-15";

fn sample_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml")
}

fn date(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

/// A workbook whose first sheet is a cover note and whose sheet `Log` has `header` and then `rows`, each cell
/// text, a number or (prefixed `date:`) a real Excel date cell.
pub(crate) fn workbook(path: &Path, header: &[&str], rows: &[&[&str]]) {
    let mut book = Workbook::new();
    let cover = book.add_worksheet();
    cover.set_name("Read me").unwrap();
    cover.write_string(0, 0, "Inspection log of the county health department").unwrap();
    let log = book.add_worksheet();
    log.set_name("Log").unwrap();
    let day = Format::new().set_num_format("mm/dd/yyyy");
    for (c, h) in header.iter().enumerate() {
        log.write_string(0, c as u16, *h).unwrap();
    }
    for (r, row) in rows.iter().enumerate() {
        let r = r as u32 + 1;
        for (c, cell) in row.iter().enumerate() {
            let c = c as u16;
            if let Some(iso) = cell.strip_prefix("date:") {
                let d = date(iso);
                use chrono::Datelike;
                let when = ExcelDateTime::from_ymd(d.year() as u16, d.month() as u8, d.day() as u8).unwrap();
                log.write_datetime_with_format(r, c, &when, &day).unwrap();
            } else if let Ok(n) = cell.parse::<f64>() {
                log.write_number(r, c, n).unwrap();
            } else {
                log.write_string(r, c, *cell).unwrap();
            }
        }
    }
    book.save(path).unwrap();
}

/// The sample county with `history` as its inspections file and `fields` under `[fields.history]`.
fn config_with_history(history: &Path, fields: &[(&str, &str)]) -> lakeshore::model::error::Result<Config> {
    let mut file = ConfigFile::load(&sample_config()).unwrap();
    file.layers.history = Some(history.to_path_buf());
    for (role, column) in fields {
        file.fields.history.insert(role.to_string(), column.to_string());
    }
    Config::new(file, date(AS_OF))
}

fn last_inspection(run: &lakeshore::pipeline::Run, id: &str) -> Option<NaiveDate> {
    let row =
        run.rows.iter().find(|r| r.parcel.id.as_str() == id).unwrap_or_else(|| panic!("no parcel {id}"));
    row.entry.last_inspection.as_ref().map(|l| l.date)
}

const LOG_ROWS: &[&[&str]] = &[
    &["054689-128.05-1-1", "6/12/2025", "Pass", "T. Lindqvist"],
    &["054689-128.05-1-2", "46000", "Pass", "county staff"],
    &["054689-128.05-1-3", "date:2026-03-04", "Fail", "county staff"],
    &["054689-128.05-1-5", "13/45/2025", "Pass", "county staff"],
];

#[test]
fn an_excel_log_with_its_own_headers_is_detected_and_read() {
    let dir = common::fresh_dir("xlsx-detect");
    let book = dir.join("inspections.xlsx");
    workbook(&book, &["SBL", "Date Inspected", "Inspection Result", "Inspector"], LOG_ROWS);
    let config = config_with_history(&dir.join("inspections.xlsx:Log"), &[]).unwrap();
    let run = run_schedule(&config).unwrap();

    assert_eq!(last_inspection(&run, "054689-128.05-1-1"), Some(date("2025-06-12")));
    assert_eq!(last_inspection(&run, "054689-128.05-1-2"), Some(date("2025-12-09")));
    assert_eq!(last_inspection(&run, "054689-128.05-1-3"), Some(date("2026-03-04")));
    assert_eq!(last_inspection(&run, "054689-128.05-1-5"), None, "13/45/2025 is no date");
    let problems = run.problems.to_vec().unwrap();
    let bad: Vec<_> = problems.iter().filter(|p| p.path.ends_with("inspections.xlsx:Log")).collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    // Header on spreadsheet row 1, so the fourth record is on row 5.
    assert_eq!(bad[0].location, Location::Row(5));
    assert!(bad[0].message.contains("'13/45/2025' is not a date"), "{}", bad[0].message);

    let said = run.columns.join("\n");
    assert!(said.contains("parcel_id = SBL (detected"), "{said}");
    assert!(said.contains("inspection_date = Date Inspected (detected"), "{said}");
    assert!(said.contains("result = Inspection Result (detected"), "{said}");
}

#[test]
fn the_sheet_of_records_is_read_when_none_is_named() {
    let dir = common::fresh_dir("xlsx-first");
    let book = dir.join("log.xlsx");
    workbook(&book, &["SBL", "Date Inspected"], &[&["054689-128.05-1-1", "6/12/2025"]]);
    // The first sheet is a cover note of one line: passed over for the sheet that holds the records, and
    // the run says which it read.
    let run = run_schedule(&config_with_history(&book, &[]).unwrap()).unwrap();
    assert_eq!(last_inspection(&run, "054689-128.05-1-1"), Some(date("2025-06-12")));
    let notes = run.notes.join("\n");
    assert!(notes.contains("sheet 'Log' was read: the sheets before it hold no inspections"), "{notes}");
    let err = run_schedule(&config_with_history(&dir.join("log.xlsx:Missing"), &[]).unwrap()).unwrap_err();
    assert!(err.to_string().contains("sheets: Read me, Log"), "{err}");
}

#[test]
fn undetectable_columns_are_refused_with_the_key_and_flag_to_set_and_then_mapped() {
    let dir = common::fresh_dir("xlsx-map");
    let book = dir.join("log.xlsx");
    let rows: &[&[&str]] = &[&["054689-128.05-1-1", "6/12/2025", "ok"]];
    workbook(&book, &["Tax Map No", "Visited", "Outcome"], rows);
    let history = dir.join("log.xlsx:Log");
    let err = run_schedule(&config_with_history(&history, &[]).unwrap()).unwrap_err().to_string();
    assert!(err.contains("no 'parcel_id' column"), "{err}");
    assert!(err.contains("columns found: Tax Map No, Visited, Outcome"), "{err}");
    assert!(err.contains("[fields.history] as parcel_id = \"COLUMN\""), "{err}");
    assert!(err.contains("--field history.parcel_id=COLUMN"), "{err}");

    // The config file's [fields.history] table.
    let config = config_with_history(&history, &[("parcel_id", "Tax Map No"), ("date", "Visited")]).unwrap();
    let run = run_schedule(&config).unwrap();
    assert_eq!(last_inspection(&run, "054689-128.05-1-1"), Some(date("2025-06-12")));
    assert!(run.columns.join(" ").contains("parcel_id = Tax Map No (from the config)"), "{:?}", run.columns);

    // The same as flags, through the binary, with -v saying what was taken.
    let out = dir.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config"])
        .arg(sample_config())
        .args(["--as-of", AS_OF, "--format", "csv", "-v", "--history"])
        .arg(&history)
        .args(["--field", "history.parcel_id=Tax Map No", "--field", "history.date=Visited", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(matches!(output.status.code(), Some(0 | 2)), "{stderr}");
    assert!(stderr.contains("inspection_date = Visited (from the config)"), "{stderr}");
    assert!(stderr.contains("result = Outcome (detected: its name says 'outcome')"), "{stderr}");
    let (_, rows) = common::read_rows(&out.join("schedule.csv")).unwrap();
    let row = rows.iter().find(|r| r["parcel_id"] == "054689-128.05-1-1").unwrap();
    assert_eq!(row["last_inspection"], "2025-06-12");
    assert_eq!(row["last_result"], "ok");

    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--config"])
        .arg(sample_config())
        .args(["--history"])
        .arg(&history)
        .args(["--field", "history.when=Visited", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("[fields.history] when: the inspections file has no such column role"),
        "{stderr}"
    );
}

#[test]
fn csv_event_files_take_county_names_too() {
    let dir = common::fresh_dir("csv-pumpouts");
    let pump_outs = dir.join("pumpouts.csv");
    std::fs::write(
        &pump_outs,
        "SWIS,PRINT_KEY,Date Pumped,Hauler License\n054689,128.05-1-1,3/15/2026,7-1234\n054689,128.05-1-2,46000,\n",
    )
    .unwrap();
    let mut file = ConfigFile::load(&sample_config()).unwrap();
    file.layers.pump_outs = Some(pump_outs.clone());
    let config = Config::new(file, date(AS_OF)).unwrap();
    let run = run_schedule(&config).unwrap();
    let said = run.columns.join("\n");
    assert!(said.contains("parcel_id = PRINT_KEY (detected: SWIS and PRINT_KEY joined with '-')"), "{said}");
    assert!(said.contains("date = Date Pumped (detected: its name says 'pump'"), "{said}");
    assert!(said.contains("hauler_licence = Hauler License (detected"), "{said}");
    let ours: Vec<_> = run.events.iter().filter(|e| *e.source.path == *pump_outs).collect();
    assert_eq!(ours.len(), 1, "the row without a licence does not count");
    assert_eq!(ours[0].date, date("2026-03-15"));
    let problems = run.problems.to_vec().unwrap();
    let problem = problems.iter().find(|p| p.path == pump_outs).unwrap();
    assert_eq!(problem.location, Location::Line(3));
    assert!(problem.message.contains("no hauler_licence"), "{}", problem.message);
}

/// The sample county with `text` written as its inspections file `history.csv` in a fresh folder.
fn with_history_text(label: &str, text: &[u8]) -> (PathBuf, Config) {
    let history = common::fresh_dir(label).join("history.csv");
    std::fs::write(&history, text).unwrap();
    let config = config_with_history(&history, &[]).unwrap();
    (history, config)
}

/// (record, message) of the problems reported for `path`.
fn problems_of(run: &lakeshore::pipeline::Run, path: &Path) -> Vec<(String, String)> {
    run.problems
        .to_vec()
        .unwrap()
        .iter()
        .filter(|p| p.path == path)
        .map(|p| (p.location.to_string(), p.message.clone()))
        .collect()
}

/// A note whose quoted text breaks two lines puts the rows after it two lines further down than their count:
/// the bad date is on line 5 (counted by hand below), where an editor shows it, not on line 3.
#[test]
fn a_bad_date_after_a_multi_line_note_is_reported_on_its_own_line() {
    let text = "parcel_id,inspection_date,result,notes\r\n\
                054689-128.05-1-1,2025-06-12,pass,\"tank lid cracked,\r\nowner told\r\nre-check in spring\"\r\n\
                054689-128.05-1-2,2025-13-01,pass,\r\n\
                054689-128.05-1-3,2025-07-01,\"fail\",\"said \"\"soon\"\"\"\r\n";
    // line 1: header; lines 2-4: the first row and its note; line 5: the bad date; line 6: the last row.
    let (history, config) = with_history_text("csv-lines", text.as_bytes());
    let run = run_schedule(&config).unwrap();
    let problems = problems_of(&run, &history);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "line 5");
    assert!(problems[0].1.contains("'2025-13-01' is not a date"), "{}", problems[0].1);
    assert_eq!(last_inspection(&run, "054689-128.05-1-1"), Some(date("2025-06-12")));
    assert_eq!(last_inspection(&run, "054689-128.05-1-2"), None);
    assert_eq!(last_inspection(&run, "054689-128.05-1-3"), Some(date("2025-07-01")));
}

/// Damaged rows (too many or too few fields, a stray quote, a NUL byte, a quote left open at the end) are
/// each reported on their line; the run goes on and the sound rows count, a row that is not UTF-8 among
/// them (read as Windows-1252).
#[test]
fn damaged_csv_rows_are_reported_by_line_and_the_rest_counts() {
    let text = b"parcel_id,inspection_date,result\n\
                 054689-128.05-1-1,2025-06-12,pass\n\
                 054689-128.05-1-2,2025-06-13\n\
                 054689-128.05-1-3,2025-06-14,pass,extra\n\
                 054689-128.05-1-5,2025-06-15,6\" pipe\n\
                 054689-128.05-1-6,2025-06-16,pa\x00ss\n\
                 054689-128.05-1-7,2025-06-17,r\xe9ussi\n\
                 054689-128.05-1-8,2025-06-18,\"pass\n";
    let (history, config) = with_history_text("csv-damaged", text);
    let run = run_schedule(&config).unwrap();
    let problems = problems_of(&run, &history);
    let lines: Vec<&str> = problems.iter().map(|(line, _)| line.as_str()).collect();
    assert_eq!(lines, ["line 3", "line 4", "line 5", "line 6", "line 8"], "{problems:?}");
    for ((_, message), words) in problems.iter().zip([
        &["2 fields where the header has 3"][..],
        &["4 fields where the header has 3"],
        &["column 'result' holds a '\"'", "read as written"],
        &["NUL byte"],
        &["never closed", "close the quote"],
    ]) {
        assert!(words.iter().all(|w| message.contains(w)), "{message}");
    }
    assert_eq!(last_inspection(&run, "054689-128.05-1-1"), Some(date("2025-06-12")));
    for skipped in ["054689-128.05-1-2", "054689-128.05-1-3"] {
        assert_eq!(last_inspection(&run, skipped), None, "{skipped}");
    }
    // A stray quote is read as written, and 'r\xe9ussi' as Windows-1252.
    assert_eq!(last_inspection(&run, "054689-128.05-1-5"), Some(date("2025-06-15")));
    assert_eq!(last_inspection(&run, "054689-128.05-1-7"), Some(date("2025-06-17")));
}

/// A sheet's rows are reported by their row numbers, and an empty row between them is skipped as an empty
/// line of a CSV file is.
#[test]
fn sheet_rows_are_reported_by_row_number_past_an_empty_row() {
    let dir = common::fresh_dir("xlsx-rows");
    let book = dir.join("log.xlsx");
    let rows: &[&[&str]] = &[
        &["054689-128.05-1-1", "6/12/2025"],
        &["054689-128.05-1-3", "7/1/2025"],
        &["054689-128.05-1-5", "8/1/2025"],
        &["", ""],
        &["054689-128.05-1-2", "13/45/2025"],
    ];
    workbook(&book, &["SBL", "Date Inspected"], rows);
    let history = dir.join("log.xlsx:Log");
    let config = config_with_history(&history, &[]).unwrap();
    let run = run_schedule(&config).unwrap();
    let problems = problems_of(&run, &history);
    assert_eq!(problems.len(), 1, "{problems:?}");
    // Header on row 1, the empty row is row 5, the bad date row 6.
    assert_eq!(problems[0].0, "row 6");
    assert!(problems[0].1.contains("'13/45/2025' is not a date"), "{}", problems[0].1);
    assert_eq!(last_inspection(&run, "054689-128.05-1-1"), Some(date("2025-06-12")));
}
