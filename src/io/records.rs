//! Record files: CSV tables of dated facts about parcels (inspections, events, pump-outs, coliform samples),
//! read with polars as text and checked cell by cell, so that a bad cell names its file, line and column and
//! the rest of the file still counts.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use polars::prelude::*;

use crate::error::{Error, Problem, Result};

/// A CSV file read as text columns, with its required columns checked.
pub struct Records {
    path: PathBuf,
    frame: DataFrame,
}

impl Records {
    /// Reads `path`, a `what` file ("inspections", "events"), which must have the `required` columns.
    pub fn read(path: &Path, what: &str, required: &[&str]) -> Result<Self> {
        super::require_file(path)?;
        let frame = CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .try_into_reader_with_file_path(Some(path.to_path_buf()))
            .and_then(|r| r.finish())
            .map_err(|e| Error::format(path, format!("not a readable CSV file: {e}")))?;
        let records = Records { path: path.to_path_buf(), frame };
        let missing: Vec<&str> = required.iter().copied().filter(|c| !records.has(c)).collect();
        if !missing.is_empty() {
            return Err(Error::format(
                path,
                format!(
                    "no {} column; the {what} file needs {}; found: {}; add or rename the column",
                    missing.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(", "),
                    required.join(", "),
                    records
                        .frame
                        .get_column_names()
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(records)
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
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
        let Some(date) = crate::schedule::parse_iso_date(text) else {
            self.report(row, format!("{column} '{text}' is not a date; write it as YYYY-MM-DD"));
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
    fn cells_are_checked_with_their_line() {
        let path = Path::new("events.csv");
        let mut check = Checker::new(path);
        let as_of = NaiveDate::from_ymd_opt(2027, 3, 1).unwrap();
        assert_eq!(check.date(0, "date", "2027-02-28", as_of), NaiveDate::from_ymd_opt(2027, 2, 28));
        assert_eq!(check.date(1, "date", "2027-03-02", as_of), None);
        assert_eq!(check.date(2, "date", "03/01/2027", as_of), None);
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
