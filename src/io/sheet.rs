//! Workbook sheets (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`, through calamine) as text tables for the record
//! readers: the first row is the header, each later row a record. Cells become the text a CSV export would
//! hold: date cells ISO dates (`2026-03-04`), whole numbers without a decimal point (a serial date typed as a
//! number stays a number, which the date check then reads as a serial), booleans `true`/`false`, error cells
//! their code (`#N/A`), so that the checks name them.

use std::path::Path;

use calamine::{open_workbook_auto, Data, Reader};
use polars::prelude::*;

use crate::error::{Error, Result};

/// The workbook extensions read as sheets.
const WORKBOOKS: [&str; 5] = ["xlsx", "xlsm", "xlsb", "xls", "ods"];

/// Whether `path` names a workbook by its extension.
pub fn is_workbook(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    WORKBOOKS.contains(&ext.as_str())
}

/// The text of a cell.
fn text(cell: &Data) -> Option<String> {
    match cell {
        Data::Empty => None,
        Data::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Data::Int(i) => Some(i.to_string()),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Some(format!("{}", *f as i64)),
        Data::Float(f) => Some(f.to_string()),
        Data::Bool(b) => Some(b.to_string()),
        Data::DateTime(d) if d.is_datetime() => {
            let (y, m, day, ..) = d.to_ymd_hms_milli();
            Some(format!("{y:04}-{m:02}-{day:02}"))
        }
        Data::DateTime(d) => Some(d.as_f64().to_string()),
        Data::DateTimeIso(s) => Some(s.get(..10).unwrap_or(s).to_string()),
        Data::DurationIso(s) => Some(s.clone()),
        Data::Error(e) => Some(e.to_string()),
    }
}

/// Reads the sheet `sheet` (or the first) of the workbook `file` into text columns named by its header row.
/// Blank header cells become `column N`; a repeated name gets ` (2)`, ` (3)`.
pub fn read_sheet(file: &Path, sheet: Option<&str>) -> Result<DataFrame> {
    super::require_file(file)?;
    let unreadable = |e: &dyn std::fmt::Display| {
        Error::format(
            file,
            format!("not a readable workbook ({e}); save it again from the spreadsheet program"),
        )
    };
    let mut workbook = open_workbook_auto(file).map_err(|e| unreadable(&e))?;
    let names = workbook.sheet_names();
    let name = match sheet {
        Some(wanted) => names
            .iter()
            .find(|n| n.as_str() == wanted)
            .or_else(|| names.iter().find(|n| n.eq_ignore_ascii_case(wanted))),
        None => names.first(),
    };
    let Some(name) = name.cloned() else {
        let asked = sheet.map_or("a first sheet".to_string(), |s| format!("a sheet '{s}'"));
        return Err(Error::format(
            file,
            format!("has no {asked} (sheets: {}); name one as FILE.xlsx:SHEET", names.join(", ")),
        ));
    };
    let range = workbook.worksheet_range(&name).map_err(|e| unreadable(&e))?;
    let mut rows = range.rows();
    let header: Vec<String> =
        rows.next().map(|r| r.iter().map(|c| text(c).unwrap_or_default()).collect()).unwrap_or_default();
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    for (i, h) in header.iter().enumerate() {
        let base = if h.is_empty() { format!("column {}", i + 1) } else { h.clone() };
        let mut unique = base.clone();
        let mut n = 1;
        while names.contains(&unique) {
            n += 1;
            unique = format!("{base} ({n})");
        }
        names.push(unique);
    }
    let mut cells: Vec<Vec<Option<String>>> = vec![Vec::with_capacity(range.height()); names.len()];
    for row in rows {
        for (i, column) in cells.iter_mut().enumerate() {
            column.push(row.get(i).and_then(text));
        }
    }
    let columns: Vec<Column> =
        names.iter().zip(cells).map(|(n, c)| Column::new(n.as_str().into(), c)).collect();
    let height = columns.first().map_or(0, |c| c.len());
    DataFrame::new(height, columns)
        .map_err(|e| Error::format(file, format!("cannot read sheet '{name}': {e}")))
}
