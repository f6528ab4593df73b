//! Record files: tables of dated facts about parcels (inspections, events, pump-outs, coliform samples), as
//! CSV or as a workbook sheet (`.xlsx`, `.xls`, `.ods`: the first sheet, or `FILE.xlsx:SHEET`), read as text
//! and checked cell by cell, so that a bad cell names its file, line and column and the rest of the file still
//! counts. Which column plays which role is settled first ([`super::columns`]). Dates may be ISO
//! (`2026-03-04`), `M/D/YYYY` (`3/4/2026`) or Excel serial numbers (`46085`).

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use polars::prelude::*;

use super::columns::{resolve, FieldMap, Spec};
use crate::error::{Error, Problem, Result};

/// Days from 1899-12-30 (Excel's day 0, once its phantom 1900-02-29 is skipped) to 1970-01-01.
const EXCEL_EPOCH_OFFSET: i64 = 25_569;

/// A date written as ISO `YYYY-MM-DD` (a time after it is ignored), `M/D/YYYY`, or an Excel serial number
/// of five digits (days since 1899-12-30, 1927-05-18 to 2173-10-14; a fraction is the time of day), so that
/// a year or a count is never taken for a date.
///
/// ```
/// use lakeshore::io::records::parse_date;
/// let d = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d);
/// assert_eq!(parse_date("2026-03-04"), d(2026, 3, 4));
/// assert_eq!(parse_date("3/4/2026"), d(2026, 3, 4));
/// assert_eq!(parse_date("46085"), d(2026, 3, 4));
/// assert_eq!(parse_date("13/1/2026"), None);
/// ```
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    if text.len() >= 10 && text.is_char_boundary(10) {
        if let Some(date) = crate::date::parse_iso_date(&text[..10]) {
            let rest = &text[10..];
            return (rest.is_empty() || rest.starts_with(['T', ' '])).then_some(date);
        }
    }
    if text.contains('/') {
        let mut parts = text.split('/');
        let mut part = |max: usize| {
            parts.next().filter(|p| (1..=max).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
        };
        let (m, d, y) = (part(2)?, part(2)?, part(4)?);
        if y.len() != 4 || parts.next().is_some() {
            return None;
        }
        return NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    }
    excel_serial(text)
}

/// The date of a five-digit Excel serial number such as `46085` or `46085.5`.
pub fn excel_serial(text: &str) -> Option<NaiveDate> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() != 5 || !digits(whole) || !digits(fraction) {
        return None;
    }
    let days: i64 = whole.parse().ok()?;
    NaiveDate::from_ymd_opt(1970, 1, 1)?.checked_add_signed(chrono::Duration::days(days - EXCEL_EPOCH_OFFSET))
}

/// A record file read as text columns, its columns renamed to the roles they play.
pub struct Records {
    path: PathBuf,
    frame: DataFrame,
    columns: String,
}

/// What a record reader found: its value, the bad rows, and which column it took for what.
#[derive(Debug)]
pub struct Read<T> {
    /// What the file says.
    pub value: T,
    /// Its bad rows.
    pub problems: Vec<Problem>,
    /// Which column was taken for which role, in a line (for `-v`).
    pub columns: String,
}

impl Records {
    /// Reads `path` (CSV, or a workbook sheet) as a file of the kind `spec` describes, its columns named by
    /// `fields` or detected; a required column no column plays is an error saying how to name it.
    pub fn read(path: &Path, spec: &Spec<'_>, fields: &FieldMap) -> Result<Self> {
        let (file, sheet) = super::split_member(path);
        let frame = if super::sheet::is_workbook(&file) {
            super::sheet::read_sheet(&file, sheet.as_deref())?
        } else {
            super::require_file(path)?;
            CsvReadOptions::default()
                .with_has_header(true)
                .with_infer_schema_length(Some(0))
                .try_into_reader_with_file_path(Some(path.to_path_buf()))
                .and_then(|r| r.finish())
                .map_err(|e| Error::format(path, format!("not a readable CSV file: {e}")))?
        };
        let (frame, columns) = resolve(path, frame, spec, fields)?;
        Ok(Records { path: path.to_path_buf(), frame, columns })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What `value` and `problems` read from this file make, with the columns taken.
    pub fn finish<T>(&self, (value, problems): (T, Vec<Problem>)) -> Read<T> {
        Read { value, problems, columns: self.columns.clone() }
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.frame.height()
    }

    /// Whether the file has no data rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the file has the column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.frame.column(name).is_ok()
    }

    /// The column `name` as text, or `None` when the file does not have it.
    pub fn column(&self, name: &str) -> Option<&StringChunked> {
        self.frame.column(name).ok().and_then(|c| c.str().ok())
    }

    /// The column `name` as trimmed cells, one per row (blank for null); all blank when the file lacks it.
    pub fn cells(&self, name: &str) -> Vec<&str> {
        match self.column(name) {
            Some(c) => c.iter().map(|v| v.unwrap_or("").trim()).collect(),
            None => vec![""; self.len()],
        }
    }
}

/// The line a data row is on, as an editor shows it (the header is line 1).
pub fn line(row: usize) -> String {
    format!("line {}", row + 2)
}

/// Checks cells and collects what is wrong with them, by file and line.
pub struct Checker<'a> {
    path: &'a Path,
    /// The problems found so far.
    pub problems: Vec<Problem>,
}

impl<'a> Checker<'a> {
    /// A checker for the file at `path`.
    pub fn new(path: &'a Path) -> Self {
        Checker { path, problems: Vec::new() }
    }

    /// Reports a problem on data row `row`.
    pub fn report(&mut self, row: usize, message: impl Into<String>) {
        self.problems.push(Problem::new(self.path, line(row), message));
    }

    /// The position of the parcel named in `id`, found by `position`; a blank or unknown id is reported.
    pub fn parcel(
        &mut self,
        row: usize,
        id: &str,
        position: impl Fn(&str) -> Option<usize>,
    ) -> Option<usize> {
        if id.is_empty() {
            self.report(row, "no parcel_id; fill it in or delete the row");
            return None;
        }
        let at = position(id);
        if at.is_none() {
            self.report(row, format!("parcel {id} is not in the parcels layer; fix the id"));
        }
        at
    }

    /// A required date in `column`, not after `as_of`.
    pub fn date(&mut self, row: usize, column: &str, text: &str, as_of: NaiveDate) -> Option<NaiveDate> {
        if text.is_empty() {
            self.report(row, format!("no {column}; write it as YYYY-MM-DD"));
            return None;
        }
        self.optional_date(row, column, text, Some(as_of)).flatten()
    }

    /// An optional date in `column` (`Some(None)` when blank), not after `as_of` when one is given;
    /// `None` when the cell is bad (reported).
    pub fn optional_date(
        &mut self,
        row: usize,
        column: &str,
        text: &str,
        as_of: Option<NaiveDate>,
    ) -> Option<Option<NaiveDate>> {
        if text.is_empty() {
            return Some(None);
        }
        let Some(date) = parse_date(text) else {
            self.report(
                row,
                format!("{column} '{text}' is not a date; write it as YYYY-MM-DD (or M/D/YYYY)"),
            );
            return None;
        };
        if let Some(as_of) = as_of.filter(|&a| date > a) {
            self.report(
                row,
                format!("{column} {date} is after the as-of date {as_of}; check the date or --as-of"),
            );
            return None;
        }
        Some(Some(date))
    }

    /// An optional yes/no in `column` (`Some(None)` when blank); `None` when the cell is bad (reported).
    pub fn yes_no(&mut self, row: usize, column: &str, text: &str) -> Option<Option<bool>> {
        match text.to_ascii_lowercase().as_str() {
            "" => Some(None),
            "yes" | "y" | "true" | "t" | "1" => Some(Some(true)),
            "no" | "n" | "false" | "f" | "0" => Some(Some(false)),
            _ => {
                self.report(row, format!("{column} '{text}' is not yes or no; write yes or no"));
                None
            }
        }
    }

    /// An optional non-negative number in `column` (`Some(None)` when blank); `None` when bad (reported).
    pub fn number(&mut self, row: usize, column: &str, text: &str) -> Option<Option<f64>> {
        if text.is_empty() {
            return Some(None);
        }
        match text.replace(',', "").parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Some(Some(v)),
            _ => {
                self.report(
                    row,
                    format!("{column} '{text}' is not a number of 0 or more; write digits, e.g. 240"),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_three_spellings() {
        let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        // Excel serials count from 1899-12-30 (after its phantom 1900-02-29): 25569 is 1970-01-01 and 45658
        // is 2025-01-01 (Excel's DATE(2025,1,1)).
        assert_eq!(parse_date("25569"), d(1970, 1, 1));
        assert_eq!(parse_date("45658"), d(2025, 1, 1));
        assert_eq!(parse_date("45658.75"), d(2025, 1, 1));
        assert_eq!(parse_date("60"), None);
        assert_eq!(parse_date("12/31/2024"), d(2024, 12, 31));
        assert_eq!(parse_date("2/29/2023"), None);
        assert_eq!(parse_date("2024-02-29 00:00:00"), d(2024, 2, 29));
        assert_eq!(parse_date("2024-02-29x"), None);
        for bad in ["", "2024", "1/2/24", "1//2024", "-45658", "4.5e4", "20240229", "pass"] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn cells_are_checked_with_their_line() {
        let path = Path::new("events.csv");
        let mut check = Checker::new(path);
        let as_of = NaiveDate::from_ymd_opt(2027, 3, 1).unwrap();
        assert_eq!(check.date(0, "date", "2027-02-28", as_of), NaiveDate::from_ymd_opt(2027, 2, 28));
        assert_eq!(check.date(1, "date", "2027-03-02", as_of), None);
        assert_eq!(check.date(2, "date", "03/32/2027", as_of), None);
        assert_eq!(check.date(3, "date", "", as_of), None);
        assert_eq!(check.yes_no(4, "arms_length", "No"), Some(Some(false)));
        assert_eq!(check.yes_no(5, "arms_length", "maybe"), None);
        assert_eq!(check.number(6, "count", "1,200"), Some(Some(1200.0)));
        assert_eq!(check.number(7, "count", "TNTC"), None);
        assert_eq!(check.number(8, "count", "-3"), None);
        let lines: Vec<&str> = check.problems.iter().map(|p| p.record.as_str()).collect();
        assert_eq!(lines, ["line 3", "line 4", "line 5", "line 7", "line 9", "line 10"]);
        assert!(check.problems[0].message.contains("after the as-of date 2027-03-01"));
        assert!(check.problems[4].message.contains("'TNTC' is not a number"));
    }
}
