//! Workbook sheets (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`, through calamine) as text rows for the record
//! readers, in the shape of CSV records ([`Record`]) with the sheet's row number as their line: the first row
//! is the header, each later row a record (empty rows are skipped, as empty lines of a CSV file are). Cells become the text a CSV export would
//! hold: date cells ISO dates (`2026-03-04`), whole numbers without a decimal point (a serial date typed as a
//! number stays a number, which the date check then reads as a serial), booleans `true`/`false`, error cells
//! their code (`#N/A`), so that the checks name them. A date cell whose day is not in 1900 to 2100 (a serial
//! such as -1 or 23,980,000 under a date format, which Excel shows as `########`) or is not a finite number
//! becomes the number it holds, which no date check takes for a date, so each is reported on its row.
//!
//! Problems call a sheet's rows rows ([`is_sheet`]); a sheet asked for by a name the workbook does not have
//! is an error listing its sheets, with the one most likely meant.

use std::path::Path;

use calamine::{open_workbook_auto, Data, Reader};

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
fn text(cell: &Data) -> Option<String> {
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

/// The names of the workbook's sheets, in workbook order (`FILE.xlsx:NAME` reads one).
pub fn sheet_names(file: &Path) -> Result<Vec<String>> {
    super::require_file(file)?;
    let workbook = open_workbook_auto(file).map_err(|source| Error::Workbook {
        path: file.to_path_buf(),
        message: format!("not a readable workbook ({source}); save it again from the spreadsheet program"),
        source,
    })?;
    Ok(workbook.sheet_names())
}

/// Reads the sheet `sheet` (or the first) of the workbook `file` as text rows, the header first, each with its
/// row number in the sheet as its line.
pub fn read_sheet(file: &Path, sheet: Option<&str>) -> Result<Vec<Record>> {
    super::require_file(file)?;
    let unreadable = |source: calamine::Error| Error::Workbook {
        path: file.to_path_buf(),
        message: format!("not a readable workbook ({source}); save it again from the spreadsheet program"),
        source,
    };
    let mut workbook = open_workbook_auto(file).map_err(unreadable)?;
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
    let range = workbook.worksheet_range(&name).map_err(unreadable)?;
    let first = range.start().map_or(0, |(row, _)| row as usize);
    let mut rows = Vec::with_capacity(range.height());
    for (i, cells) in range.rows().enumerate() {
        let mut record = Record::new(first + i + 1);
        cells.iter().for_each(|cell| record.push(text(cell).as_deref().unwrap_or("")));
        if record.fields().any(|f| !f.is_empty()) {
            rows.push(record);
        }
    }
    Ok(rows)
}

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
        let cell = |serial| text(&date(serial)).unwrap();
        assert_eq!(cell(1.0), "1900-01-01");
        assert_eq!(cell(61.0), "1900-03-01");
        assert_eq!(cell(45658.5), "2025-01-01");
        assert_eq!(cell(73415.0), "2100-12-31");
        assert_eq!(cell(-1.0), "-1");
        assert_eq!(cell(73416.0), "73416");
        assert_eq!(cell(23_980_000.0), "23980000");
        assert_eq!(cell(f64::NAN), "NaN");
        assert_eq!(text(&Data::Float(f64::INFINITY)).unwrap(), "inf");
    }
}
