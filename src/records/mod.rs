//! Record files: tables of dated facts about parcels (inspections, events, pump-outs, coliform samples), as
//! CSV or as a workbook (`.xlsx`, `.xls`, `.ods`: its sheet of records, sheets sharing one header as one table,
//! or `FILE.xlsx:SHEET`; see `sheets`), read row by
//! row as text and checked cell by cell, so that a bad cell names its file, line and column and the rest of
//! the file still counts. A row's line is the line it starts on as an editor shows it (a quoted CSV field may
//! hold line breaks; [`crate::formats::csv`]), or its row number in the sheet, and problems call it so: `line 7` of a
//! CSV file, `row 7` of a sheet ([`line()`]). A CSV file's separator (comma, semicolon or tab) is found from
//! its first lines, and text that is not UTF-8 is read as Windows-1252 and said in a note. Which column plays
//! which role is settled first, from the header and a sample of the first rows ([`crate::records::columns`]); then the
//! rows are streamed, so a history of millions of rows is never held whole. Dates may be ISO (`2026-03-04`),
//! `M/D/YYYY` (`3/4/2026`) or Excel serial numbers (`46085`), of the years 1900 to 2100.

mod checker;
pub mod columns;
pub mod dates;
pub mod events;
pub mod inspections;
mod sheets;
pub mod tally;

pub use checker::Checker;

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;

use crate::formats::csv::{separator_name, CsvReader, ReadAhead, Record};
use crate::model::error::{Error, Location, Problem, Result};
use crate::records::columns::{resolve, Column, FieldMap, Spec, SAMPLE_ROWS};
use crate::records::dates::{DateOrder, OrderTally, DATE_ORDER_KEY};
use crate::records::tally::IdTally;

/// The Excel serial of 2100-12-31, the last day a record file's date may be.
const MAX_SERIAL: i64 = 73_415;

/// Days from 1899-12-30 (Excel's day 0, once its phantom 1900-02-29 is skipped) to 1970-01-01.
const EXCEL_EPOCH_OFFSET: i64 = 25_569;

/// A date written as ISO `YYYY-MM-DD` (a time after it is ignored), `M/D/YYYY`, or an Excel serial number
/// of five digits (days since 1899-12-30, 10000 to 73415: 1927-05-18 to 2100-12-31; a fraction is the time
/// of day), so that a year or a count is never taken for a date; a day outside the years 1900 to 2100
/// ([`crate::formats::sheet::YEARS`]) is no date of a record file.
///
/// ```
/// use lakeshore::records::parse_date;
/// let d = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d);
/// assert_eq!(parse_date("2026-03-04"), d(2026, 3, 4));
/// assert_eq!(parse_date("3/4/2026"), d(2026, 3, 4));
/// assert_eq!(parse_date("46085"), d(2026, 3, 4));
/// assert_eq!(parse_date("13/1/2026"), None);
/// assert_eq!(parse_date("1026-03-04"), None);
/// ```
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    parse_date_in(text, DateOrder::MonthFirst)
}

/// [`parse_date`] with slash dates read in `order`; Excel's date-times (`3/4/2026 0:00`) and written dates
/// (`March 4, 2026`) are read too.
pub fn parse_date_in(text: &str, order: DateOrder) -> Option<NaiveDate> {
    use chrono::Datelike;
    any_date(text, order).filter(|d| crate::formats::sheet::YEARS.contains(&d.year()))
}

/// A date in one of the spellings [`parse_date_in`] reads, of any year.
fn any_date(text: &str, order: DateOrder) -> Option<NaiveDate> {
    let text = text.trim();
    if text.len() >= 10 && text.is_char_boundary(10) {
        if let Some(date) = crate::model::date::parse_iso_date(&text[..10]) {
            let rest = &text[10..];
            return (rest.is_empty() || rest.starts_with(['T', ' '])).then_some(date);
        }
    }
    if text.contains('/') {
        return dates::slash_date(text, order).flatten();
    }
    excel_serial(text).or_else(|| dates::written_date(text))
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
    /// The date convention of each column not read month-first, by its name once the roles are given: as the
    /// first rows show it, or as the whole file showed it when the file is read a second time.
    orders: ColumnOrders,
    /// The date conventions counted over every row handed out, column by column.
    tallies: DateTallies,
    /// What was said of a workbook's dates that the user should know.
    sheet_notes: Vec<String>,
    /// Columns a role was detected in where a close second could have been it: warnings.
    guesses: Vec<String>,
    /// Data rows handed out so far (those read ahead among them once handed).
    handed: usize,
    /// Another column named like a parcel id, when the id column was detected among several (with the name
    /// of the column taken): how many parcels its cells find is counted beside the id column's.
    id_second: Option<(usize, String)>,
    /// The file's key in `[fields.KEY]` (`history`).
    kind: &'static str,
}

/// Where the rows of a record file come from.
enum Input {
    /// A CSV file, read on a thread of its own a few batches ahead of the rows asked for.
    Csv(ReadAhead),
    /// The rows of a workbook's table of records: one sheet, or several sharing one header.
    Sheet(sheets::SheetTable),
}

impl Input {
    /// The next row into `record`; `false` after the last.
    fn read(&mut self, path: &Path, record: &mut Record) -> Result<bool> {
        match self {
            Input::Csv(reader) => reader.read(record).map_err(|e| Error::io(path, e)),
            Input::Sheet(rows) => Ok(rows.next_record().map(|row| *record = row).is_some()),
        }
    }
}

/// Bytes read from a CSV file at a time.
const BUFFER_BYTES: usize = 1 << 20;

/// One data row of a record file: its cells by column, trimmed, and the line it starts on.
pub struct Row<'a> {
    record: &'a Record,
    joined: &'a str,
    sheet: Option<&'a Arc<Path>>,
}

impl Row<'_> {
    /// The line the row starts on, as an editor shows it (the header is line 1); a sheet's row number.
    pub fn line(&self) -> usize {
        self.record.line()
    }

    /// The sheet the row is on (`history.xlsx:2024`) when the file is a workbook whose table is not its first
    /// sheet alone; `None` when the file's own path names the row's place.
    pub fn sheet(&self) -> Option<&Arc<Path>> {
        self.sheet
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
    ///
    /// The convention of each column's slash dates is taken from the sample, and counted over every row handed
    /// out; [`Records::settle`] says whether the whole file agrees. [`read_records`] reads a file so.
    pub fn read(path: &Path, spec: &Spec<'_>, fields: &FieldMap) -> Result<Self> {
        Records::open(path, spec, fields, None)
    }

    /// [`Records::read`], with the date conventions `settled` over the whole file when it is read again.
    fn open(path: &Path, spec: &Spec<'_>, fields: &FieldMap, settled: Option<ColumnOrders>) -> Result<Self> {
        let (file, sheet) = crate::formats::split_member(path);
        let mut separator = b',';
        let (mut sheet_notes, mut sheet_guesses) = (Vec::new(), Vec::new());
        let mut input = if crate::formats::sheet::is_workbook(&file) {
            let (table, notes, guesses) = sheets::table(path, &file, sheet.as_deref(), spec, fields)?;
            (sheet_notes, sheet_guesses) = (notes, guesses);
            Input::Sheet(table)
        } else {
            crate::formats::require_file(path)?;
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            let mut input = BufReader::with_capacity(BUFFER_BYTES, file);
            let start = std::io::BufRead::fill_buf(&mut input).map_err(|e| Error::io(path, e))?;
            if start.starts_with(b"\xFF\xFE") || start.starts_with(b"\xFE\xFF") {
                return Err(Error::format(
                    path,
                    "is UTF-16 text (\"Unicode Text\"); save it from the spreadsheet program as CSV UTF-8",
                ));
            }
            let reader = ReadAhead::new(CsvReader::sniffing(input).map_err(|e| Error::io(path, e))?);
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
        let id_second = columns::id_second(&header, spec, fields, &columns).map(|second| {
            let taken = columns.iter().find(|(n, _)| n == "parcel_id").map(|&(_, c)| match c {
                Column::Field(i) => header[i].clone(),
                Column::Joined(a, b) => format!("{} + {}", header[a], header[b]),
            });
            (second, taken.unwrap_or_default())
        });
        let mut guesses = columns::date_guesses(&header, &sample, spec, fields, &columns);
        guesses.append(&mut sheet_guesses);
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
        let tallies = DateTallies::new(&columns, &header, spec.key, fields)?;
        let orders = match settled {
            Some(orders) => orders,
            None => tallies.sample_orders(&ahead),
        };
        Ok(Records {
            guesses,
            orders,
            tallies,
            sheet_notes,
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
            handed: 0,
            id_second,
            kind: spec.key,
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What `value` and the problems and ids `check` found in this file make, with the columns taken.
    pub fn finish<T>(&self, value: T, check: Checker<'_>) -> Read<T> {
        let date_notes = self.tallies.decide().map(|(_, notes)| notes).unwrap_or_default();
        let mut notes: Vec<String> = (date_notes.iter().chain(&self.sheet_notes))
            .map(|n| format!("{}: {n}", self.path.display()))
            .collect();
        if let (rows @ 1.., first) = self.windows_1252 {
            let rows = if rows == 1 { "1 row".to_string() } else { format!("{rows} rows") };
            notes.push(format!(
                "{}: not UTF-8 text; read as Windows-1252, the encoding of a spreadsheet's plain CSV export \
                 ({rows}, the first on {}): if accented names look wrong, save the file as CSV UTF-8",
                self.path.display(),
                line(&self.path, first)
            ));
        }
        let mut problems = check.problems;
        problems.extend(self.guesses.iter().map(|g| Problem::new(&self.path, Location::Fields, g.clone())));
        if let Some((second, taken)) =
            self.id_second.as_ref().filter(|_| check.second.matched > check.ids.matched)
        {
            let (name, total) = (&self.header[*second], check.ids.matched + check.ids.unmatched);
            problems.push(Problem::new(
                &self.path,
                Location::Fields,
                format!(
                    "columns '{taken}' and '{name}' could both be the parcel id: '{taken}' was taken and finds the \
                     parcels of {} of {total} rows, '{name}' would find {}; if '{name}' is meant, name it with \
                     --field {}.parcel_id=\"{name}\" (or [fields.{}] parcel_id = \"{name}\")",
                    check.ids.matched, check.second.matched, self.kind, self.kind
                ),
            ));
        }
        Read { value, problems, columns: self.said.clone(), notes, ids: check.ids }
    }

    /// The column named `name` (a role's name once the roles are given), or `None` when the file has none.
    pub fn column(&self, name: &str) -> Option<Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|&(_, c)| c)
    }

    /// Whether the file has the column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.column(name).is_some()
    }

    /// Whether the rows handed out agree with the date conventions they were read in: `None` when they do, the
    /// conventions of the whole file when its later rows show otherwise than its first (read it again with
    /// them). A column that mixes both conventions is an error naming it.
    pub fn settle(&self) -> Result<Option<ColumnOrders>> {
        let (orders, _) = self.tallies.decide().map_err(|e| Error::format(&self.path, e))?;
        Ok((orders != self.orders).then_some(orders))
    }

    /// The next data row, in file order; `None` after the last. A row that cannot be read as the header's
    /// columns (damaged, or with more or fewer fields than the header) is reported in `check` with its line
    /// and skipped; a row with a stray quote is reported and read as written. Only an error reading the file
    /// itself is an error.
    pub fn next_row(&mut self, check: &mut Checker<'_>) -> Result<Option<Row<'_>>> {
        if check.orders.len() != self.orders.len() {
            check.orders.clone_from(&self.orders);
        }
        loop {
            match self.ahead.pop_front() {
                Some(record) => self.record = record,
                None if self.input.read(&self.path, &mut self.record)? => {}
                None => return Ok(None),
            }
            self.handed += 1;
            self.tallies.add(&self.record);
            check.sheet = self.sheet().cloned();
            if let Some((i, _)) = self.id_second {
                check.second_id.clear();
                check.second_id.push_str(self.record.field(i).unwrap_or("").trim());
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
        let sheet = self.sheet();
        Ok(Some(Row { record: &self.record, joined: &self.joined_text, sheet }))
    }

    /// The sheet of the row handed out last, when the file's own path does not name its place.
    fn sheet(&self) -> Option<&Arc<Path>> {
        match &self.input {
            Input::Sheet(table) => table.path_of(self.handed.saturating_sub(1)),
            Input::Csv(_) => None,
        }
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
pub fn line(path: &Path, line: usize) -> Location {
    match crate::formats::sheet::is_sheet(path) {
        true => Location::Row(line),
        false => Location::Line(line),
    }
}

/// The date convention of each column not read month-first, by its name once the roles are given.
pub type ColumnOrders = Vec<(String, DateOrder)>;

/// Reads the record file at `path` (of the kind `spec` describes, its columns named by `fields` or detected)
/// with `read`, which takes its rows through [`Records::next_row`] and checks them with the checker it is
/// given, and returns what it made of them. The file is read once: the convention of each column's slash
/// dates is taken from its first rows and counted over every row as it is read. In a file whose later rows
/// show the other convention, `read` is given the file a second time, read in the convention of the whole
/// column, so that no date is read by a guess.
pub fn read_records<'p, T>(
    path: &'p Path,
    spec: &Spec<'_>,
    fields: &FieldMap,
    mut read: impl FnMut(&mut Records, &mut Checker<'p>) -> Result<T>,
) -> Result<Read<T>> {
    let mut records = Records::read(path, spec, fields)?;
    let mut check = Checker::new(path);
    let mut value = read(&mut records, &mut check)?;
    if let Some(settled) = records.settle()? {
        records = Records::open(path, spec, fields, Some(settled))?;
        check = Checker::new(path);
        value = read(&mut records, &mut check)?;
    }
    Ok(records.finish(value, check))
}

/// The slash dates of a record file's columns counted by convention, column by column, and the convention the
/// config sets, if it does.
struct DateTallies {
    /// Each column given a role (its field, its name once the roles are given, its name in the header) and
    /// what its cells say so far.
    columns: Vec<(usize, String, String, OrderTally)>,
    explicit: Option<DateOrder>,
    /// The file's key in `[fields.KEY]`.
    kind: &'static str,
}

impl DateTallies {
    /// Nothing counted yet of the columns `columns` of a file with the header `header`; `fields` may set the
    /// convention (`date_order`), and a value it cannot read is an error.
    fn new(
        columns: &[(String, Column)],
        header: &[String],
        kind: &'static str,
        fields: &FieldMap,
    ) -> Result<Self> {
        let explicit = match fields.get(DATE_ORDER_KEY) {
            None => None,
            Some(text) => Some(DateOrder::parse(text).ok_or_else(|| {
                Error::Config(format!(
                    "[fields.{kind}] {DATE_ORDER_KEY} = \"{text}\" (or --date-order): write day-first or \
                     month-first"
                ))
            })?),
        };
        let columns = columns
            .iter()
            .filter_map(|(name, c)| match *c {
                Column::Field(i) => {
                    let shown = header.get(i).unwrap_or(name).clone();
                    Some((i, name.clone(), shown, OrderTally::default()))
                }
                Column::Joined(..) => None,
            })
            .collect();
        Ok(DateTallies { columns, explicit, kind })
    }

    /// Counts the cells of `record`.
    fn add(&mut self, record: &Record) {
        for (i, _, _, tally) in &mut self.columns {
            tally.add(record.field(*i).unwrap_or("").trim());
        }
    }

    /// The conventions the rows `sample` show, to read the file in while the rest is counted; a column they
    /// show mixed is read month-first until the whole file settles it.
    fn sample_orders(&self, sample: &VecDeque<Record>) -> ColumnOrders {
        let mut counted = DateTallies { columns: self.columns.clone(), ..*self };
        sample.iter().for_each(|record| counted.add(record));
        counted.decide().map_or_else(|_| Vec::new(), |(orders, _)| orders)
    }

    /// The convention of each column not read month-first, and the notes to give; a column mixing both
    /// conventions is an error naming it.
    fn decide(&self) -> std::result::Result<(ColumnOrders, Vec<String>), String> {
        let (mut orders, mut notes) = (Vec::new(), Vec::new());
        for (_, name, shown, tally) in &self.columns {
            let (order, note) = tally.decide(shown, self.kind, self.explicit)?;
            notes.extend(note);
            if order != DateOrder::MonthFirst {
                orders.push((name.clone(), order));
            }
        }
        Ok((orders, notes))
    }
}

/// The column roles `[fields.KIND]` of the config file may name for the record file `kind` (`history` or
/// `inspections`, `events`, `pump_outs`, `samples`, `pipes`), each role's name and aliases; `None` for a kind
/// that is no record file.
pub fn record_roles(kind: &str) -> Option<Vec<&'static str>> {
    let events;
    let roles: &[columns::Role] = match kind {
        "history" | "inspections" => inspections::SPEC.roles,
        "events" => {
            events = events::event_roles();
            &events
        }
        "pump_outs" => events::PUMP_OUT_SPEC.roles,
        "samples" => events::SAMPLE_SPEC.roles,
        "pipes" => events::PIPE_SPEC.roles,
        _ => return None,
    };
    let names = roles.iter().flat_map(|r| std::iter::once(r.name).chain(r.aliases.iter().copied()));
    Some(names.chain([DATE_ORDER_KEY]).collect())
}

#[cfg(test)]
mod tests;
