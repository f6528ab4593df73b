//! Workbook sheets (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`, through calamine) as text rows for the record
//! readers, in the shape of CSV records ([`Record`]) with the sheet's row number as their line: the first row
//! is the header, each later row a record (empty rows are skipped, as empty lines of a CSV file are). Cells become the text a CSV export would
//! hold: date cells ISO dates (`2026-03-04`), whole numbers without a decimal point (a serial date typed as a
//! number stays a number, which the date check then reads as a serial), booleans `true`/`false`, error cells
//! their code (`#N/A`), so that the checks name them. A date cell whose day is not in 1900 to 2100 (a serial
//! such as -1 or 23,980,000 under a date format, which Excel shows as `########`) or is not a finite number
//! becomes the number it holds, which no date check takes for a date, so each is reported on its row.
//!
//! A sheet is read within the bounds of [`limits`] (rows, columns, a cell's text and, for `.xlsx` and `.ods`, its XML
//! tokens and shared strings: `ooxml`), and refused, naming the bound, past one.
//!
//! Problems call a sheet's rows rows ([`is_sheet`]); a sheet asked for by a name the workbook does not have
//! is an error listing its sheets, with the one most likely meant.

mod ooxml;

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use calamine::{open_workbook, open_workbook_auto, Data, Reader, Sheets};

use super::csv::Record;
use crate::model::error::{Error, Result};

/// The workbook extensions read as sheets.
const WORKBOOKS: [&str; 5] = ["xlsx", "xlsm", "xlsb", "xls", "ods"];

/// Whether `path` names a workbook by its extension.
pub fn is_workbook(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    WORKBOOKS.contains(&ext.as_str())
}

/// Whether the record file `path` is a workbook sheet (`log.xlsx`, `log.xlsx:Log`), by its name alone.
pub fn is_sheet(path: &Path) -> bool {
    let text = path.to_string_lossy();
    let file = text.rsplit_once(':').map_or(&*text, |(file, _)| file);
    is_workbook(path) || is_workbook(Path::new(file))
}

/// The first and last years of the dates a record file may hold.
pub const YEARS: std::ops::RangeInclusive<i32> = 1900..=2100;

/// The ISO date of a date cell, or `None` when its day is not a finite number in [`YEARS`].
fn date_cell(d: &calamine::ExcelDateTime) -> Option<String> {
    // Beyond 2,958,465 (9999-12-31) calamine's conversion wraps around: 23,980,000 would be 2019-01-03.
    let serial = d.as_f64();
    if !(serial.is_finite() && (0.0..2_958_466.0).contains(&serial)) {
        return None;
    }
    let (y, m, day, ..) = d.to_ymd_hms_milli();
    YEARS.contains(&i32::from(y)).then(|| format!("{y:04}-{m:02}-{day:02}"))
}

/// The text of a number cell: whole numbers without a decimal point.
fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        f.to_string()
    }
}

/// The text of a cell.
fn cell_text(cell: &Data) -> Option<String> {
    match cell {
        Data::Empty => None,
        Data::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Data::Int(i) => Some(i.to_string()),
        Data::Float(f) => Some(number(*f)),
        Data::Bool(b) => Some(b.to_string()),
        Data::DateTime(d) if d.is_datetime() => Some(date_cell(d).unwrap_or_else(|| number(d.as_f64()))),
        Data::DateTime(d) => Some(d.as_f64().to_string()),
        Data::DateTimeIso(s) => Some(s.get(..10).unwrap_or(s).to_string()),
        Data::DurationIso(s) => Some(s.clone()),
        Data::Error(e) => Some(e.to_string()),
    }
}

/// The bounds a workbook is read within (README "Limits"); past one the file is refused, naming the bound.
pub mod limits {
    /// Rows of a sheet: the OOXML sheet's last row is 1,048,576.
    pub const MAX_ROWS: u32 = 1 << 20;
    /// Columns of a sheet: the OOXML sheet's last column, XFD, is the 16,384th.
    pub const MAX_COLUMNS: u32 = 1 << 14;
    /// Characters of one cell's text, Excel's own limit.
    pub const MAX_CELL_CHARS: usize = 32_767;
    /// Bytes of one XML token of an `.xlsx` part (a tag, a run of text, a comment) and of one cell's or
    /// shared string's text as written in the XML, entities and markup of its runs aside.
    pub const MAX_XML_TOKEN_BYTES: usize = 1 << 20;
    /// Strings of an `.xlsx` shared-strings table.
    pub const MAX_SHARED_STRINGS: usize = 1 << 21;
    /// Bytes of text of an `.xlsx` shared-strings table, as written in the XML.
    pub const MAX_SHARED_STRING_BYTES: usize = 1 << 26;
}

use limits::{MAX_CELL_CHARS, MAX_COLUMNS, MAX_ROWS};

/// The workbook `file`, opened by its extension; an `.xlsx`, `.xlsm` or `.ods` is first checked within its
/// bounds.
fn open(file: &Path) -> Result<Sheets<BufReader<File>>> {
    super::require_file(file)?;
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext == "xlsx" || ext == "xlsm" || ext == "ods" {
        ooxml::check(file)?;
    }
    let opened = match ext.as_str() {
        "xlsx" | "xlsm" => open_workbook(file).map(Sheets::Xlsx).map_err(calamine::Error::Xlsx),
        "xlsb" => open_workbook(file).map(Sheets::Xlsb).map_err(calamine::Error::Xlsb),
        "xls" => open_workbook(file).map(Sheets::Xls).map_err(calamine::Error::Xls),
        "ods" => open_workbook(file).map(Sheets::Ods).map_err(calamine::Error::Ods),
        _ => open_workbook_auto(file),
    };
    opened.map_err(|source| unreadable(file, source))
}

/// The error for a file calamine cannot read.
fn unreadable(file: &Path, source: calamine::Error) -> Error {
    Error::Workbook {
        path: file.to_path_buf(),
        message: format!("not a readable workbook ({source}); save it again from the spreadsheet program"),
        source,
    }
}

/// The names of the workbook's sheets, in workbook order (`FILE.xlsx:NAME` reads one).
pub fn sheet_names(file: &Path) -> Result<Vec<String>> {
    Ok(open(file)?.sheet_names())
}

/// Every sheet of the workbook `file`, in workbook order, each with its name and its rows as [`read_sheet`]
/// reads them: for a workbook read without a sheet named, whose sheets may be one table split by year.
pub fn read_sheets(file: &Path) -> Result<Vec<(String, Rows)>> {
    sheet_names(file)?.into_iter().map(|name| Ok((name.clone(), read_sheet(file, Some(&name))?))).collect()
}

/// Reads the sheet `sheet` (or the first) of the workbook `file` as text rows, the header first, each with its
/// row number in the sheet as its line.
///
/// `.xlsx`, `.xlsm` and `.xlsb` sheets are read a cell at a time, never as the box of rows and columns their
/// cells span, so memory follows the cells the sheet holds; `.xls` and `.ods` sheets are read by calamine as
/// that box (an `.xls` sheet has at most 65,536 rows of 256 columns).
pub fn read_sheet(file: &Path, sheet: Option<&str>) -> Result<Rows> {
    let mut workbook = open(file)?;
    let names = workbook.sheet_names();
    let name = match sheet {
        Some(wanted) => names
            .iter()
            .find(|n| n.as_str() == wanted)
            .or_else(|| names.iter().find(|n| n.eq_ignore_ascii_case(wanted))),
        None => names.first(),
    };
    let Some(name) = name.cloned() else {
        let asked = sheet.map_or("sheet at all".to_string(), |s| format!("sheet '{s}'"));
        let meant = sheet.and_then(|s| crate::model::diagnose::closest(s, &names));
        let hint = meant.map_or(String::new(), |m| format!("did you mean '{}:{m}'? ", file.display()));
        return Err(Error::format(
            file,
            format!("has no {asked} (sheets: {}); {hint}name one as FILE.xlsx:SHEET", names.join(", ")),
        ));
    };
    let mut rows = Gather::new(file, &name);
    match &mut workbook {
        Sheets::Xlsx(book) => {
            let mut cells = book.worksheet_cells_reader(&name).map_err(|e| unreadable(file, e.into()))?;
            while let Some(cell) = cells.next_cell().map_err(|e| unreadable(file, e.into()))? {
                let (row, col) = cell.get_position();
                rows.cell(row, col, Data::from(cell.get_value().clone()))?;
            }
        }
        Sheets::Xlsb(book) => {
            let mut cells = book.worksheet_cells_reader(&name).map_err(|e| unreadable(file, e.into()))?;
            while let Some(cell) = cells.next_cell().map_err(|e| unreadable(file, e.into()))? {
                let (row, col) = cell.get_position();
                rows.cell(row, col, Data::from(cell.get_value().clone()))?;
            }
        }
        Sheets::Xls(_) | Sheets::Ods(_) => {
            let range = workbook.worksheet_range(&name).map_err(|e| unreadable(file, e))?;
            let (top, left) = range.start().unwrap_or((0, 0));
            for (row, col, value) in range.used_cells() {
                rows.cell(top + row as u32, left + col as u32, value.clone())?;
            }
        }
    }
    rows.finish()
}

/// The cells of a sheet as they are read, row by row: the text of each non-empty cell with its column, kept
/// in one buffer, so that a sheet takes the memory of its text and not that of the box its cells span.
struct Gather<'a> {
    file: &'a Path,
    sheet: &'a str,
    /// The text of every kept cell, one after the other.
    text: String,
    /// Each kept cell's column and the end of its text in `text`.
    cells: Vec<(u32, usize)>,
    /// Each kept row's number (0-based) and its first cell in `cells`.
    rows: Vec<(u32, usize)>,
    /// The row being read and its cells, put in column order when it ends.
    row: Option<u32>,
    pending: Vec<(u32, String)>,
    /// The first and last columns of the sheet's non-empty cells.
    columns: Option<(u32, u32)>,
}

impl<'a> Gather<'a> {
    fn new(file: &'a Path, sheet: &'a str) -> Self {
        Gather {
            file,
            sheet,
            text: String::new(),
            cells: Vec::new(),
            rows: Vec::new(),
            row: None,
            pending: Vec::new(),
            columns: None,
        }
    }

    fn refuse(&self, what: String) -> Error {
        Error::format(self.file, format!("sheet '{}': {what}", self.sheet))
    }

    /// Takes the cell at `row`, `col` (0-based).
    fn cell(&mut self, row: u32, col: u32, value: Data) -> Result<()> {
        if row >= MAX_ROWS {
            return Err(self.refuse(format!(
                "has a cell in row {}, past the sheet's last row, {MAX_ROWS}; no spreadsheet program writes such \
                 a sheet: save it again from one, or split it into files of fewer rows",
                u64::from(row) + 1
            )));
        }
        if col >= MAX_COLUMNS {
            return Err(self.refuse(format!(
                "has a cell in column {} of row {}, past the sheet's last column, XFD ({MAX_COLUMNS}); save it \
                 again from a spreadsheet program",
                u64::from(col) + 1,
                u64::from(row) + 1
            )));
        }
        if matches!(value, Data::Empty) {
            return Ok(());
        }
        let text = match &value {
            Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.as_str(),
            _ => "",
        };
        if text.len() > MAX_CELL_CHARS && text.chars().count() > MAX_CELL_CHARS {
            return Err(self.refuse(format!(
                "the cell in column {} of row {} holds more than {MAX_CELL_CHARS} characters, a cell's limit; \
                 shorten it",
                u64::from(col) + 1,
                u64::from(row) + 1
            )));
        }
        match self.row {
            Some(current) if row < current => {
                return Err(self.refuse(format!(
                    "row {} comes after row {}: the rows are out of order; save the sheet again from a \
                     spreadsheet program",
                    u64::from(row) + 1,
                    u64::from(current) + 1
                )))
            }
            Some(current) if row == current => {}
            _ => {
                self.end_row()?;
                self.row = Some(row);
            }
        }
        self.columns = Some(self.columns.map_or((col, col), |(a, b)| (a.min(col), b.max(col))));
        if let Some(text) = cell_text(&value) {
            self.pending.push((col, text));
        }
        Ok(())
    }

    /// Keeps the row being read, its cells in column order; two cells in one place are refused.
    fn end_row(&mut self) -> Result<()> {
        let Some(row) = self.row else { return Ok(()) };
        if self.pending.is_empty() {
            return Ok(());
        }
        self.pending.sort_by_key(|&(col, _)| col);
        if let Some(w) = self.pending.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(self.refuse(format!(
                "two cells are in column {} of row {}; save the sheet again from a spreadsheet program",
                u64::from(w[0].0) + 1,
                u64::from(row) + 1
            )));
        }
        self.rows.push((row, self.cells.len()));
        for (col, text) in self.pending.drain(..) {
            self.text.push_str(&text);
            self.cells.push((col, self.text.len()));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Rows> {
        self.end_row()?;
        let (first, last) = self.columns.unwrap_or((0, 0));
        Ok(Rows { text: self.text, cells: self.cells, rows: self.rows.into_iter(), first, last })
    }
}

/// A sheet's rows (those with a non-empty cell), each a [`Record`] of the columns from the sheet's first
/// non-empty column to its last, made as it is taken.
#[derive(Debug, Clone)]
pub struct Rows {
    text: String,
    cells: Vec<(u32, usize)>,
    rows: std::vec::IntoIter<(u32, usize)>,
    first: u32,
    last: u32,
}

impl Iterator for Rows {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        let (row, start) = self.rows.next()?;
        let end = self.rows.as_slice().first().map_or(self.cells.len(), |&(_, next)| next);
        let mut record = Record::new(row as usize + 1);
        let mut from = if start == 0 { 0 } else { self.cells[start - 1].1 };
        let mut cells = self.cells[start..end].iter().peekable();
        for col in self.first..=self.last {
            match cells.next_if(|&&(c, _)| c == col) {
                Some(&(_, to)) => {
                    record.push(&self.text[from..to]);
                    from = to;
                }
                None => record.push(""),
            }
        }
        Some(record)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.rows.size_hint()
    }
}

impl ExactSizeIterator for Rows {}

#[cfg(test)]
mod tests {
    use calamine::{ExcelDateTime, ExcelDateTimeType};

    use super::*;

    fn date(serial: f64) -> Data {
        Data::DateTime(ExcelDateTime::new(serial, ExcelDateTimeType::DateTime, false))
    }

    /// Date cells of 1900 to 2100 are ISO dates; others are their numbers, which no date check reads as a
    /// date. Excel's serial 1 is 1900-01-01, 61 is 1900-03-01 (after its phantom 1900-02-29), 73415 is
    /// 2100-12-31.
    #[test]
    fn date_cells_outside_1900_to_2100_are_their_numbers() {
        let cell = |serial| cell_text(&date(serial)).unwrap();
        assert_eq!(cell(1.0), "1900-01-01");
        assert_eq!(cell(61.0), "1900-03-01");
        assert_eq!(cell(45658.5), "2025-01-01");
        assert_eq!(cell(73415.0), "2100-12-31");
        assert_eq!(cell(-1.0), "-1");
        assert_eq!(cell(73416.0), "73416");
        assert_eq!(cell(23_980_000.0), "23980000");
        assert_eq!(cell(f64::NAN), "NaN");
        assert_eq!(cell_text(&Data::Float(f64::INFINITY)).unwrap(), "inf");
    }
}
