//! A record file that is a workbook: which of its sheets is the table of records, and the table's rows.
//!
//! A sheet named (`FILE.xlsx:SHEET`) is read alone. Without one, every sheet is looked at: a sheet of a header
//! alone (a cover note) holds no records and is passed over; sheets that share one header (a sheet per year or
//! per period, compared without regard to case, spacing and punctuation) are **one table**, read sheet after
//! sheet, and the run says so. Of the tables left, the first whose columns serve the file's kind (its
//! required roles found, [`resolve`]) is read; another that serves it too is a close second, a warning naming
//! both sheets and the name that settles it. A problem on a row of a table of several sheets, or of a sheet
//! other than the first, names its sheet (`history.xlsx:2024`), as a sheet named in the config would be.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::formats::csv::Record;
use crate::formats::sheet::{read_sheet, read_sheets, Rows};
use crate::model::error::Result;
use crate::records::columns::{normal, resolve, FieldMap, Spec, SAMPLE_ROWS};

/// The rows of a workbook's table of records, sheet after sheet: the first sheet's header, then the rows of
/// each sheet after its own header.
#[derive(Debug, Clone)]
pub(super) struct SheetTable {
    /// Each sheet's rows not yet handed out (its header still first, but for the first sheet's once read).
    parts: Vec<Rows>,
    /// The sheet being read.
    at: usize,
    /// Where each sheet's rows end, counted in data rows (the headers not counted), with the path its problems
    /// name; empty when the table is the file itself (one sheet, the one a workbook is read by).
    ends: Vec<(usize, Arc<Path>)>,
}

impl SheetTable {
    /// The next row: the first sheet's header first, then each sheet's rows after its header.
    pub(super) fn next_record(&mut self) -> Option<Record> {
        loop {
            let rows = self.parts.get_mut(self.at)?;
            if let Some(record) = rows.next() {
                return Some(record);
            }
            self.at += 1;
            // A later sheet's header is the first's, already read.
            self.parts.get_mut(self.at)?.next();
        }
    }

    /// The path that problems on the `n`th data row (0-based, in table order) name: its sheet's, when the table
    /// is not the file itself.
    pub(super) fn path_of(&self, n: usize) -> Option<&Arc<Path>> {
        self.ends.iter().find(|(end, _)| n < *end).or(self.ends.last()).map(|(_, path)| path)
    }
}

/// A sheet by its name.
type Sheet = (String, Rows);

/// The table of the workbook `file` (named as `path`) for records of `spec`, with the notes it gives (several
/// sheets read as one, a cover sheet passed over) and the guesses (a close second), as the module says.
pub(super) fn table(
    path: &Path,
    file: &Path,
    sheet: Option<&str>,
    spec: &Spec<'_>,
    fields: &FieldMap,
) -> Result<(SheetTable, Vec<String>, Vec<String>)> {
    if sheet.is_some() {
        let rows = read_sheet(file, sheet)?;
        return Ok((SheetTable { parts: vec![rows], at: 0, ends: Vec::new() }, Vec::new(), Vec::new()));
    }
    let sheets = read_sheets(file)?;
    let first = sheets.first().map(|(name, _)| name.clone());
    // (the header as sheets are matched by it, its sheets by name)
    let mut tables: Vec<(Vec<String>, Vec<Sheet>)> = Vec::new();
    for (name, rows) in sheets {
        // A header alone is a cover note, not a table of records.
        if rows.len() < 2 {
            continue;
        }
        let header = header_key(&rows);
        match tables.iter_mut().find(|(h, _)| *h == header) {
            Some((_, parts)) => parts.push((name, rows)),
            None => tables.push((header, vec![(name, rows)])),
        }
    }
    if tables.is_empty() {
        // No sheet holds a record: the first is read, and says what it lacks.
        let rows = read_sheet(file, None)?;
        return Ok((SheetTable { parts: vec![rows], at: 0, ends: Vec::new() }, Vec::new(), Vec::new()));
    }
    let serving: Vec<usize> =
        (0..tables.len()).filter(|&t| serves(path, &tables[t].1[0].1, spec, fields)).collect();
    let pick = serving.first().copied().unwrap_or(0);
    let (mut notes, mut guesses) = (Vec::new(), Vec::new());
    let quoted =
        |parts: &[(String, Rows)]| parts.iter().map(|(n, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    if let Some(&second) = serving.get(1) {
        guesses.push(format!(
            "sheets {} and {} both hold {} with other columns; {} was read: if the other is meant, name it as \
             FILE.xlsx:SHEET ({}:{})",
            quoted(&tables[pick].1),
            quoted(&tables[second].1),
            spec.what,
            quoted(&tables[pick].1),
            file.display(),
            tables[second].1[0].0,
        ));
    }
    let (_, parts) = tables.swap_remove(pick);
    if parts.len() > 1 {
        notes.push(format!(
            "sheets {} share one header and were read as one table; name one as FILE.xlsx:SHEET to read it alone",
            quoted(&parts)
        ));
    } else if first.as_deref() != Some(parts[0].0.as_str()) {
        notes.push(format!(
            "sheet '{}' was read: the sheets before it hold no {}; name another as FILE.xlsx:SHEET",
            parts[0].0, spec.what
        ));
    }
    let alone = parts.len() == 1 && first.as_deref() == Some(parts[0].0.as_str());
    let mut ends = Vec::new();
    let mut rows_before = 0;
    for (name, rows) in &parts {
        rows_before += rows.len() - 1;
        ends.push((rows_before, Arc::from(member(path, name).as_path())));
    }
    if alone {
        ends.clear();
    }
    Ok((SheetTable { parts: parts.into_iter().map(|(_, rows)| rows).collect(), at: 0, ends }, notes, guesses))
}

/// `FILE.xlsx:SHEET`, the path that names one sheet of the workbook `path`.
fn member(path: &Path, sheet: &str) -> PathBuf {
    let mut named = path.as_os_str().to_os_string();
    named.push(":");
    named.push(sheet);
    PathBuf::from(named)
}

/// A sheet's header as sheets are matched by it: each name as [`normal`] writes it.
fn header_key(rows: &Rows) -> Vec<String> {
    let header = rows.clone().next().unwrap_or_default();
    let mut key: Vec<String> = header.fields().map(normal).collect();
    while key.last().is_some_and(String::is_empty) {
        key.pop();
    }
    key
}

/// Whether the sheet `rows` (its header first) has a column for each role `spec` requires.
fn serves(path: &Path, rows: &Rows, spec: &Spec<'_>, fields: &FieldMap) -> bool {
    let mut rows = rows.clone();
    let Some(header) = rows.next() else { return false };
    let Ok(found) = super::names(path, &header) else { return false };
    let sample: Vec<Record> = rows.take(SAMPLE_ROWS).collect();
    let sample: Vec<&Record> = sample.iter().collect();
    resolve(path, &found, &sample, spec, fields).is_ok()
}
