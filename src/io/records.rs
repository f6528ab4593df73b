//! Record files: tables of dated facts about parcels (inspections, events, pump-outs, coliform samples), as
//! CSV or as a workbook sheet (`.xlsx`, `.xls`, `.ods`: the first sheet, or `FILE.xlsx:SHEET`), read row by
//! row as text and checked cell by cell, so that a bad cell names its file, line and column and the rest of
//! the file still counts. A row's line is the line it starts on as an editor shows it (a quoted CSV field may
//! hold line breaks; [`super::csv`]), or its row number in the sheet, and problems call it so: `line 7` of a
//! CSV file, `row 7` of a sheet ([`line()`]). A CSV file's separator (comma, semicolon or tab) is found from
//! its first lines, and text that is not UTF-8 is read as Windows-1252 and said in a note. Which column plays
//! which role is settled first, from the header and a sample of the first rows ([`super::columns`]); then the
//! rows are streamed, so a history of millions of rows is never held whole. Dates may be ISO (`2026-03-04`),
//! `M/D/YYYY` (`3/4/2026`) or Excel serial numbers (`46085`), of the years 1900 to 2100.

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use super::columns::{resolve, Column, FieldMap, Spec, SAMPLE_ROWS};
use super::csv::{separator_name, CsvReader, Record};
use super::tally::IdTally;
use crate::error::{Error, Problem, Result};

/// The Excel serial of 2100-12-31, the last day a record file's date may be.
const MAX_SERIAL: i64 = 73_415;

/// Days from 1899-12-30 (Excel's day 0, once its phantom 1900-02-29 is skipped) to 1970-01-01.
const EXCEL_EPOCH_OFFSET: i64 = 25_569;

/// A date written as ISO `YYYY-MM-DD` (a time after it is ignored), `M/D/YYYY`, or an Excel serial number
/// of five digits (days since 1899-12-30, 10000 to 73415: 1927-05-18 to 2100-12-31; a fraction is the time
/// of day), so that a year or a count is never taken for a date; a day outside the years 1900 to 2100
/// ([`super::sheet::YEARS`]) is no date of a record file.
///
/// ```
/// use lakeshore::io::records::parse_date;
/// let d = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d);
/// assert_eq!(parse_date("2026-03-04"), d(2026, 3, 4));
/// assert_eq!(parse_date("3/4/2026"), d(2026, 3, 4));
/// assert_eq!(parse_date("46085"), d(2026, 3, 4));
/// assert_eq!(parse_date("13/1/2026"), None);
/// assert_eq!(parse_date("1026-03-04"), None);
/// ```
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    use chrono::Datelike;
    any_date(text).filter(|d| super::sheet::YEARS.contains(&d.year()))
}

/// A date in one of the spellings [`parse_date`] reads, of any year.
fn any_date(text: &str) -> Option<NaiveDate> {
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
    if days > MAX_SERIAL {
        return None;
    }
    NaiveDate::from_ymd_opt(1970, 1, 1)?.checked_add_signed(chrono::Duration::days(days - EXCEL_EPOCH_OFFSET))
}

/// A record file read row by row: its header and a first sample of rows are read to settle which column
/// plays which role, then [`Records::next_row`] hands out the rows in file order, the sample's first, so a file
/// of millions of rows is never held whole. A workbook sheet is read whole (sheets are small) and handed out
/// the same way, its row numbers as lines.
pub struct Records {
    path: PathBuf,
    input: Input,
    /// The header's column names, blank and repeated ones made unique.
    header: Vec<String>,
    /// Each column's name after the roles were given (a role's column bears the role's name), and a joined
    /// parcel id under its role's name.
    columns: Vec<(String, Column)>,
    /// Which column was taken for which role, in a line (for `-v`).
    said: String,
    /// Rows read ahead for the detection, not yet handed out.
    ahead: VecDeque<Record>,
    /// The row handed out last.
    record: Record,
    /// The fields joined into the parcel id, when it is so detected, and the joined text of the current row.
    joined: Option<(usize, usize)>,
    joined_text: String,
    /// The byte between a CSV file's fields (a comma for a sheet).
    separator: u8,
    /// How many rows were read as Windows-1252 text (not UTF-8), and the line of the first.
    windows_1252: (usize, usize),
}

/// Where the rows of a record file come from.
enum Input {
    /// A CSV file, read as the rows are asked for.
    Csv(CsvReader<BufReader<File>>),
    /// The rows of a workbook sheet after its header.
    Sheet(std::vec::IntoIter<Record>),
}

impl Input {
    /// The next row into `record`; `false` after the last.
    fn read(&mut self, path: &Path, record: &mut Record) -> Result<bool> {
        match self {
            Input::Csv(reader) => reader.read(record).map_err(|e| Error::io(path, e)),
            Input::Sheet(rows) => Ok(rows.next().map(|row| *record = row).is_some()),
        }
    }
}

/// Bytes read from a CSV file at a time.
const BUFFER_BYTES: usize = 1 << 20;

/// One data row of a record file: its cells by column, trimmed, and the line it starts on.
pub struct Row<'a> {
    record: &'a Record,
    joined: &'a str,
}

impl Row<'_> {
    /// The line the row starts on, as an editor shows it (the header is line 1); a sheet's row number.
    pub fn line(&self) -> usize {
        self.record.line()
    }

    /// The trimmed cell of `column`.
    pub fn cell(&self, column: Column) -> &str {
        match column {
            Column::Field(i) => self.record.field(i).unwrap_or("").trim(),
            Column::Joined(..) => self.joined,
        }
    }

    /// The trimmed cell of `column`, blank when the file has no such column.
    pub fn get(&self, column: Option<Column>) -> &str {
        column.map_or("", |c| self.cell(c))
    }
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
    /// Remarks about the file as a whole that are not problems (text read as Windows-1252).
    pub notes: Vec<String>,
    /// How many of its rows' parcel ids found a parcel.
    pub ids: IdTally,
}

impl Records {
    /// Opens `path` (CSV, or a workbook sheet) as a file of the kind `spec` describes, its columns named by
    /// `fields` or detected from the names and the first [`SAMPLE_ROWS`] rows; a required column no column
    /// plays is an error saying how to name it, and so is a header that cannot be read.
    pub fn read(path: &Path, spec: &Spec<'_>, fields: &FieldMap) -> Result<Self> {
        let (file, sheet) = super::split_member(path);
        let mut separator = b',';
        let mut input = if super::sheet::is_workbook(&file) {
            Input::Sheet(super::sheet::read_sheet(&file, sheet.as_deref())?.into_iter())
        } else {
            super::require_file(path)?;
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            let mut input = BufReader::with_capacity(BUFFER_BYTES, file);
            let start = std::io::BufRead::fill_buf(&mut input).map_err(|e| Error::io(path, e))?;
            if start.starts_with(b"\xFF\xFE") || start.starts_with(b"\xFE\xFF") {
                return Err(Error::format(
                    path,
                    "is UTF-16 text (\"Unicode Text\"); save it from the spreadsheet program as CSV UTF-8",
                ));
            }
            let reader = CsvReader::sniffing(input).map_err(|e| Error::io(path, e))?;
            separator = reader.separator();
            Input::Csv(reader)
        };
        let mut first = Record::default();
        let header = if input.read(path, &mut first)? { names(path, &first)? } else { Vec::new() };
        let mut windows_1252 = (usize::from(first.windows_1252()), first.line());
        let mut ahead = VecDeque::new();
        let mut record = Record::default();
        while ahead.len() < SAMPLE_ROWS && input.read(path, &mut record)? {
            ahead.push_back(std::mem::take(&mut record));
        }
        let sample: Vec<&Record> = ahead.iter().filter(|r| damage(r, &header, separator).is_none()).collect();
        let (columns, mut said) = resolve(path, &header, &sample, spec, fields)?;
        if separator != b',' {
            said.push_str(&format!(" (fields separated by {}s)", separator_name(separator)));
        }
        if windows_1252.0 == 0 {
            windows_1252.1 = 0;
        }
        let joined = columns.iter().find_map(|(_, c)| match *c {
            Column::Joined(swis, key) => Some((swis, key)),
            Column::Field(_) => None,
        });
        Ok(Records {
            path: path.to_path_buf(),
            input,
            header,
            columns,
            said,
            ahead,
            record,
            joined,
            joined_text: String::new(),
            separator,
            windows_1252,
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What `value` and the problems and ids `check` found in this file make, with the columns taken.
    pub fn finish<T>(&self, value: T, check: Checker<'_>) -> Read<T> {
        let mut notes = Vec::new();
        if let (rows @ 1.., first) = self.windows_1252 {
            let rows = if rows == 1 { "1 row".to_string() } else { format!("{rows} rows") };
            notes.push(format!(
                "{}: not UTF-8 text; read as Windows-1252, the encoding of a spreadsheet's plain CSV export \
                 ({rows}, the first on {}): if accented names look wrong, save the file as CSV UTF-8",
                self.path.display(),
                line(&self.path, first)
            ));
        }
        Read { value, problems: check.problems, columns: self.said.clone(), notes, ids: check.ids }
    }

    /// The column named `name` (a role's name once the roles are given), or `None` when the file has none.
    pub fn column(&self, name: &str) -> Option<Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|&(_, c)| c)
    }

    /// Whether the file has the column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.column(name).is_some()
    }

    /// The next data row, in file order; `None` after the last. A row that cannot be read as the header's
    /// columns (damaged, or with more or fewer fields than the header) is reported in `check` with its line
    /// and skipped; a row with a stray quote is reported and read as written. Only an error reading the file
    /// itself is an error.
    pub fn next_row(&mut self, check: &mut Checker<'_>) -> Result<Option<Row<'_>>> {
        loop {
            match self.ahead.pop_front() {
                Some(record) => self.record = record,
                None if self.input.read(&self.path, &mut self.record)? => {}
                None => return Ok(None),
            }
            if self.record.windows_1252() {
                if self.windows_1252.0 == 0 {
                    self.windows_1252.1 = self.record.line();
                }
                self.windows_1252.0 += 1;
            }
            if let Some((line, message)) = damage(&self.record, &self.header, self.separator) {
                check.report(line, message);
                continue;
            }
            if let Some(flaw) = self.record.flaw() {
                let message = format!("{}; it was read as written: {}", flaw.what(&self.header), flaw.fix());
                check.report(flaw.line(self.record.line()), message);
            }
            break;
        }
        self.joined_text.clear();
        if let Some((swis, key)) = self.joined {
            let part = |i: usize| self.record.field(i).unwrap_or("").trim();
            let (swis, key) = (part(swis), part(key));
            if !swis.is_empty() && !key.is_empty() {
                self.joined_text.extend([swis, "-", key]);
            }
        }
        Ok(Some(Row { record: &self.record, joined: &self.joined_text }))
    }
}

/// Why `record` cannot be read as a row of a file with the columns `header` and `separator`, at which line: a
/// damage that loses its fields, or more or fewer fields than the header.
fn damage(record: &Record, header: &[String], separator: u8) -> Option<(usize, String)> {
    if let Some(flaw) = record.flaw().filter(|f| !f.keeps_record()) {
        let message = format!("{}, and the row is not read; {}", flaw.what(header), flaw.fix());
        return Some((flaw.line(record.line()), message));
    }
    (record.len() != header.len()).then(|| {
        let message = format!(
            "{} fields where the header has {}, and the row is not read; add the missing fields, or quote a \
             field that holds a {}",
            record.len(),
            header.len(),
            match separator {
                b',' => "comma (\"Smith, J.\")",
                other => separator_name(other),
            }
        );
        (record.line(), message)
    })
}

/// The column names of the header `record`: a blank name becomes `column N`, a repeated one gets ` (2)`,
/// ` (3)`. A header that cannot be read is an error.
fn names(path: &Path, record: &Record) -> Result<Vec<String>> {
    if let Some(flaw) = record.flaw() {
        let line = flaw.line(record.line());
        let (what, fix) = (flaw.what(&[]), flaw.fix());
        let line = self::line(path, line);
        return Err(Error::format(path, format!("{line}, the header: {what}; {fix}")));
    }
    let mut names: Vec<String> = Vec::with_capacity(record.len());
    for (i, field) in record.fields().enumerate() {
        let base = if field.trim().is_empty() { format!("column {}", i + 1) } else { field.to_string() };
        let mut unique = base.clone();
        let mut n = 1;
        while names.contains(&unique) {
            n += 1;
            unique = format!("{base} ({n})");
        }
        names.push(unique);
    }
    Ok(names)
}

/// A line of the record file `path` as problems name it: `line 7` of a CSV file, `row 7` of a workbook sheet.
pub fn line(path: &Path, line: usize) -> String {
    match super::sheet::is_sheet(path) {
        true => format!("row {line}"),
        false => format!("line {line}"),
    }
}

/// What is wrong with the date cell `text` of `column`, which [`parse_date`] does not read, and the fix.
fn not_a_date(column: &str, text: &str) -> String {
    let (first, last) = (super::sheet::YEARS.start(), super::sheet::YEARS.end());
    if any_date(text).is_some() {
        format!("{column} '{text}' is not a date of {first} to {last}; correct the year")
    } else if text.parse::<f64>().is_ok() || text.eq_ignore_ascii_case("nan") {
        format!(
            "{column} '{text}' is a number but not a date of {first} to {last} (an Excel date is a serial of 1 \
             to {MAX_SERIAL}); correct the cell, or write the date as YYYY-MM-DD"
        )
    } else {
        format!("{column} '{text}' is not a date; write it as YYYY-MM-DD (or M/D/YYYY)")
    }
}

/// Checks cells and collects what is wrong with them, by file and line.
pub struct Checker<'a> {
    path: &'a Path,
    /// The problems found so far.
    pub problems: Vec<Problem>,
    /// The parcel ids looked up so far, found or not.
    pub ids: IdTally,
    /// The last parcel id looked up and its position: a parcel's lines often stand together.
    last: Option<(String, Option<usize>)>,
}

impl<'a> Checker<'a> {
    /// A checker for the file at `path`.
    pub fn new(path: &'a Path) -> Self {
        Checker { path, problems: Vec::new(), ids: IdTally::default(), last: None }
    }

    /// Reports a problem on `line`.
    pub fn report(&mut self, line: usize, message: impl Into<String>) {
        self.problems.push(Problem::new(self.path, self::line(self.path, line), message));
    }

    /// The position of the parcel named in `id`, found by `position`; a blank or unknown id is reported.
    pub fn parcel(
        &mut self,
        line: usize,
        id: &str,
        position: impl Fn(&str) -> Option<usize>,
    ) -> Option<usize> {
        if id.is_empty() {
            self.report(line, "no parcel_id; fill it in or delete the row");
            return None;
        }
        let at = match &mut self.last {
            Some((last, at)) if last == id => *at,
            Some((last, at)) => {
                last.clear();
                last.push_str(id);
                *at = position(id);
                *at
            }
            None => self.last.insert((id.to_string(), position(id))).1,
        };
        self.ids.count(id, at.is_some());
        if at.is_none() {
            self.report(line, format!("parcel {id} is not in the parcels layer; fix the id"));
        }
        at
    }

    /// A required date in `column`, not after `as_of`.
    pub fn date(&mut self, line: usize, column: &str, text: &str, as_of: NaiveDate) -> Option<NaiveDate> {
        if text.is_empty() {
            self.report(line, format!("no {column}; write it as YYYY-MM-DD"));
            return None;
        }
        self.optional_date(line, column, text, Some(as_of)).flatten()
    }

    /// An optional date in `column` (`Some(None)` when blank), not after `as_of` when one is given;
    /// `None` when the cell is bad (reported).
    pub fn optional_date(
        &mut self,
        line: usize,
        column: &str,
        text: &str,
        as_of: Option<NaiveDate>,
    ) -> Option<Option<NaiveDate>> {
        if text.is_empty() {
            return Some(None);
        }
        let Some(date) = parse_date(text) else {
            self.report(line, not_a_date(column, text));
            return None;
        };
        if let Some(as_of) = as_of.filter(|&a| date > a) {
            self.report(
                line,
                format!("{column} {date} is after the as-of date {as_of}; check the date or --as-of"),
            );
            return None;
        }
        Some(Some(date))
    }

    /// An optional yes/no in `column` (`Some(None)` when blank); `None` when the cell is bad (reported).
    pub fn yes_no(&mut self, line: usize, column: &str, text: &str) -> Option<Option<bool>> {
        match text.to_ascii_lowercase().as_str() {
            "" => Some(None),
            "yes" | "y" | "true" | "t" | "1" => Some(Some(true)),
            "no" | "n" | "false" | "f" | "0" => Some(Some(false)),
            _ => {
                self.report(line, format!("{column} '{text}' is not yes or no; write yes or no"));
                None
            }
        }
    }

    /// An optional non-negative number in `column` (`Some(None)` when blank); `None` when bad (reported).
    pub fn number(&mut self, line: usize, column: &str, text: &str) -> Option<Option<f64>> {
        if text.is_empty() {
            return Some(None);
        }
        match text.replace(',', "").parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Some(Some(v)),
            _ => {
                self.report(
                    line,
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
        // Only the years 1900 to 2100: 73415 is 2100-12-31 (45658 + 27757 days, 2025 to 2101).
        assert_eq!(parse_date("73415"), d(2100, 12, 31));
        for bad in ["73416", "99999", "1899-12-31", "2101-01-01", "12/31/1899", "1/1/2101", "NaN", "inf"] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        assert!(
            not_a_date("date", "23980000").contains("'23980000' is a number but not a date of 1900 to 2100")
        );
        assert!(not_a_date("date", "NaN").contains("is a number but not a date"));
        assert!(not_a_date("date", "1025-06-12").contains("not a date of 1900 to 2100; correct the year"));
        assert!(not_a_date("date", "#N/A").contains("'#N/A' is not a date; write it as YYYY-MM-DD"));
    }

    #[test]
    fn a_sheet_is_told_by_its_name() {
        assert_eq!(line(Path::new("log.xlsx:Log"), 4), "row 4");
        assert_eq!(line(Path::new("dir/log.ODS"), 4), "row 4");
        assert_eq!(line(Path::new("c:/dir/log.csv"), 4), "line 4");
    }

    #[test]
    fn cells_are_checked_with_their_line() {
        let path = Path::new("events.csv");
        let mut check = Checker::new(path);
        let as_of = NaiveDate::from_ymd_opt(2027, 3, 1).unwrap();
        assert_eq!(check.date(2, "date", "2027-02-28", as_of), NaiveDate::from_ymd_opt(2027, 2, 28));
        assert_eq!(check.date(3, "date", "2027-03-02", as_of), None);
        assert_eq!(check.date(4, "date", "03/32/2027", as_of), None);
        assert_eq!(check.date(5, "date", "", as_of), None);
        assert_eq!(check.yes_no(6, "arms_length", "No"), Some(Some(false)));
        assert_eq!(check.yes_no(7, "arms_length", "maybe"), None);
        assert_eq!(check.number(8, "count", "1,200"), Some(Some(1200.0)));
        assert_eq!(check.number(9, "count", "TNTC"), None);
        assert_eq!(check.number(10, "count", "-3"), None);
        let lines: Vec<&str> = check.problems.iter().map(|p| p.record.as_str()).collect();
        assert_eq!(lines, ["line 3", "line 4", "line 5", "line 7", "line 9", "line 10"]);
        assert!(check.problems[0].message.contains("after the as-of date 2027-03-01"));
        assert!(check.problems[4].message.contains("'TNTC' is not a number"));
    }

    use crate::io::columns::{Detect, Role};

    const SPEC: Spec<'static> = Spec {
        what: "inspections",
        key: "history",
        roles: &[
            Role { name: "parcel_id", aliases: &[], required: true, detect: Detect::ParcelId },
            Role { name: "inspection_date", aliases: &[], required: true, detect: Detect::Date(&["insp"]) },
        ],
    };

    /// A file named `name` holding `bytes`, in a folder of its own.
    fn file(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lakeshore-records-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// (line, parcel id, date cell, notes cell) of every row read, the problems as (record, message), and
    /// the columns taken.
    type Rows = (Vec<(usize, String, String, String)>, Vec<(String, String)>, String);

    fn read_rows(path: &Path) -> Result<Rows> {
        let mut records = Records::read(path, &SPEC, &FieldMap::new())?;
        let (id, date, notes) =
            (records.column("parcel_id"), records.column("inspection_date"), records.column("notes"));
        let mut check = Checker::new(path);
        let mut rows = Vec::new();
        while let Some(row) = records.next_row(&mut check)? {
            let cell = |c| row.get(c).to_string();
            rows.push((row.line(), cell(id), cell(date), cell(notes)));
        }
        let problems = check.problems.into_iter().map(|p| (p.record, p.message)).collect();
        Ok((rows, problems, records.finish((), Checker::new(path)).columns))
    }

    #[test]
    fn rows_carry_the_line_they_start_on_and_damaged_rows_are_reported() {
        // Lines counted by hand: the note of line 2 runs to line 4 (one break is CRLF), so the next row is on
        // line 5.
        let path = file(
            "history.csv",
            b"SWIS,PRINT_KEY,Date Inspected,notes\n\
              054689,128.05-1-1,2026-01-02,\"first line\r\nsecond, with a comma\nthird \"\"quoted\"\"\"\n\
              054689, 128.05-1-2 ,2026-02-03,plain\n\
              054689,128.05-1-3,2026-02-04\n\
              054689,128.05-1-4,2026-02-05,a,b\n\
              ,128.05-1-5,2026-02-06,6\" pipe\n\
              054689,128.05-1-6,2026-02-07,n\x00l\n\
              054689,128.05-1-7,2026-02-08,caf\xe9\n\
              054689,128.05-1-8,2026-02-09,\"never closed\n\
              054689,128.05-1-9,2026-02-10,x\n",
        );
        let (rows, problems, said) = read_rows(&path).unwrap();
        let row = |line, id: &str, date: &str, notes: &str| (line, id.into(), date.into(), notes.into());
        assert_eq!(
            rows,
            [
                row(
                    2,
                    "054689-128.05-1-1",
                    "2026-01-02",
                    "first line\r\nsecond, with a comma\nthird \"quoted\""
                ),
                row(5, "054689-128.05-1-2", "2026-02-03", "plain"),
                row(8, "", "2026-02-06", "6\" pipe"),
                row(10, "054689-128.05-1-7", "2026-02-08", "caf\u{e9}"),
            ]
        );
        let at: Vec<&str> = problems.iter().map(|(line, _)| line.as_str()).collect();
        assert_eq!(at, ["line 6", "line 7", "line 8", "line 9", "line 11"]);
        let says = |i: usize, words: &[&str]| {
            let message = &problems[i].1;
            assert!(words.iter().all(|w| message.contains(w)), "{message}");
        };
        says(0, &["3 fields where the header has 4", "not read", "quote a field that holds a comma"]);
        says(1, &["5 fields where the header has 4"]);
        says(2, &["column 'notes' holds a '\"'", "read as written", "double the quote"]);
        says(3, &["column 'notes' holds a NUL byte", "not read"]);
        says(4, &["never closed", "close the quote"]);
        assert!(
            said.contains("parcel_id = PRINT_KEY (detected: SWIS and PRINT_KEY joined with '-')"),
            "{said}"
        );
        assert!(said.contains("inspection_date = Date Inspected (detected"), "{said}");
    }

    /// A Windows-1252 file (Excel's plain "CSV" on a North American or Western European computer) keeps its
    /// rows, its accented letters read as written, and says so once in a note naming the file.
    #[test]
    fn text_that_is_not_utf8_is_read_as_windows_1252_with_a_note() {
        let path = file(
            "cp1252.csv",
            b"parcel_id;inspection_date;r\xe9sultat\n1;2026-01-02;r\xe9ussi\n2;2026-01-03;ok\n3;2026-01-04;\x93pass\x94\n",
        );
        let mut records = Records::read(&path, &SPEC, &FieldMap::new()).unwrap();
        assert!(records.has("r\u{e9}sultat"));
        let result = records.column("r\u{e9}sultat");
        let mut check = Checker::new(&path);
        let mut cells = Vec::new();
        while let Some(row) = records.next_row(&mut check).unwrap() {
            cells.push(row.get(result).to_string());
        }
        assert_eq!(cells, ["r\u{e9}ussi", "ok", "\u{201c}pass\u{201d}"]);
        assert!(check.problems.is_empty(), "{:?}", check.problems);
        let read = records.finish((), check);
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        let note = &read.notes[0];
        assert!(note.contains("cp1252.csv: not UTF-8 text; read as Windows-1252"), "{note}");
        assert!(note.contains("3 rows, the first on line 1"), "{note}");
        assert!(read.columns.contains("fields separated by semicolons"), "{}", read.columns);
        // UTF-8 with its byte-order mark: no note.
        let path = file(
            "bom.csv",
            "\u{feff}parcel_id,inspection_date,r\u{e9}sultat\n1,2026-01-02,r\u{e9}ussi\n".as_bytes(),
        );
        let (rows, problems, _) = read_rows(&path).unwrap();
        assert_eq!((rows.len(), problems.len()), (1, 0));
        let records = Records::read(&path, &SPEC, &FieldMap::new()).unwrap();
        assert!(records.has("r\u{e9}sultat") && records.finish((), Checker::new(&path)).notes.is_empty());
    }

    #[test]
    fn rows_after_the_sample_go_on_with_their_lines() {
        // Rows 0..3000 on lines 2.., except that row 1500's note breaks a line, pushing the rest one down.
        let mut text = String::from("parcel_id,inspection_date,notes\n");
        for k in 0..3000 {
            let note = if k == 1500 { "\"two\nlines\"" } else { "one" };
            text.push_str(&format!("p{k},2026-01-02,{note}\n"));
        }
        let (rows, problems, _) = read_rows(&file("long.csv", text.as_bytes())).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(rows.len(), 3000);
        assert_eq!((rows[1500].0, rows[1500].3.as_str()), (1502, "two\nlines"));
        assert_eq!((rows[1501].0, rows[1501].1.as_str()), (1504, "p1501"));
        assert_eq!(rows[2999].0, 3002);
    }

    #[test]
    fn a_header_that_cannot_be_read_stops_the_file() {
        let err = read_rows(&file("utf16.csv", b"\xff\xfep\x00a\x00r\x00\n\x00")).unwrap_err().to_string();
        assert!(err.contains("is UTF-16 text") && err.contains("CSV UTF-8"), "{err}");
        let err = read_rows(&file("nul.csv", b"parcel_id,inspection\x00date\n")).unwrap_err().to_string();
        assert!(err.contains("line 1, the header: ") && err.contains("NUL byte"), "{err}");
        let err = read_rows(&file("open.csv", b"parcel_id,\"inspection_date\n")).unwrap_err().to_string();
        assert!(
            err.contains("line 1, the header: a quoted field") && err.contains("close the quote"),
            "{err}"
        );
        let err = read_rows(&file("empty.csv", b"")).unwrap_err().to_string();
        assert!(err.contains("no 'parcel_id' column") && err.contains("columns found: none"), "{err}");
    }
}
