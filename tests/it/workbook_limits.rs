//! Workbooks at and past the bounds a sheet is read within (README "Limits"): a cell at the sheet's last
//! row and column, a shared string, a cell's text, an XML comment, a declared count and rows past what the
//! format allows. Each file is made here, small, with rust_xlsxwriter or as the OOXML parts written by
//! hand (stored, not compressed, in a zip), and used as the sample county's inspection history. A workbook
//! within the bounds schedules as the sample does; one past a bound stops the run (exit 1) with a message
//! naming the file and the bound; none aborts. The peaks of the same files at full size are measured by
//! `bench/hostile_workbooks.sh` (bench/README.md).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rust_xlsxwriter::Workbook;

use crate::common;

const AS_OF: &str = "2027-01-15";

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

/// The sample county in a fresh folder with `history` (a file name in it) as its inspections file.
fn county(label: &str, history: &str) -> PathBuf {
    let dir = crate::spreadsheets::sample_copy(label);
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
    let config = config.replace("history = \"history.csv\"", &format!("history = \"{history}\""));
    std::fs::write(dir.join("county.toml"), config).unwrap();
    dir
}

fn schedule(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(dir)
        .args(["schedule", "--config", "county.toml", "--as-of", AS_OF, "--out", "out", "--format", "csv"])
        .args(["--quiet"])
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The sample's own schedule, the oracle for a workbook that holds the sample history.
fn sample_schedule() -> Vec<u8> {
    let dir = county("wb-sample", "history.csv");
    let run = schedule(&dir);
    assert!(matches!(run.status.code(), Some(0 | 2)), "{}", stderr(&run));
    std::fs::read(dir.join("out/schedule.csv")).unwrap()
}

/// The sample history's records, as the file holds them.
fn sample_history() -> Vec<Vec<String>> {
    common::csv_records(&std::fs::read_to_string(sample().join("history.csv")).unwrap())
}

/// The sample history as a workbook of text cells at `path`, with `more` written after it.
fn history_xlsx(path: &Path, more: impl FnOnce(&mut rust_xlsxwriter::Worksheet)) {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    for (r, record) in sample_history().iter().enumerate() {
        for (c, field) in record.iter().enumerate() {
            if !field.is_empty() {
                sheet.write_string(r as u32, c as u16, field).unwrap();
            }
        }
    }
    more(sheet);
    book.save(path).unwrap();
}

/// A workbook of one sheet, written by hand: `sheet_data` is the XML inside `<sheetData>`, `strings` the
/// shared-strings part when there is one, `extra` further members.
fn handmade_xlsx(path: &Path, sheet_data: &[u8], strings: Option<&[u8]>, extra: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let stored = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let mut member = |name: &str, parts: &[&[u8]]| {
        zip.start_file(name, stored).unwrap();
        parts.iter().for_each(|p| zip.write_all(p).unwrap());
    };
    member(
        "[Content_Types].xml",
        &[br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>"#],
    );
    member(
        "xl/workbook.xml",
        &[br#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Log" sheetId="1" r:id="rId1"/></sheets></workbook>"#],
    );
    member(
        "xl/_rels/workbook.xml.rels",
        &[br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#],
    );
    member(
        "xl/worksheets/sheet1.xml",
        &[
            br#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#,
            sheet_data,
            b"</sheetData></worksheet>",
        ],
    );
    if let Some(strings) = strings {
        member("xl/sharedStrings.xml", &[strings]);
    }
    for (name, bytes) in extra {
        member(name, &[bytes]);
    }
    zip.finish().unwrap();
}

/// The sample history as rows of inline-string cells, for hand-made sheets.
fn history_rows() -> Vec<u8> {
    let mut xml = Vec::new();
    for (r, record) in sample_history().iter().enumerate() {
        write!(xml, "<row r=\"{}\">", r + 1).unwrap();
        for (c, field) in record.iter().enumerate() {
            let col = (b'A' + c as u8) as char;
            let text = field.replace('&', "&amp;").replace('<', "&lt;");
            write!(xml, "<c r=\"{col}{}\" t=\"inlineStr\"><is><t>{text}</t></is></c>", r + 1).unwrap();
        }
        xml.extend_from_slice(b"</row>");
    }
    xml
}

/// A run stopped by a bound: exit 1, naming the file and the bound.
fn refused(dir: &Path, bound: &str) {
    let run = schedule(dir);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("history.xlsx") && err.contains(bound), "{err}");
}

/// A value at XFD1048576, the sheet's last cell, in the sample history: its box is 16,384 columns by
/// 1,048,576 rows (calamine's range of it asked 550 GB and aborted); read cell by cell it is one more row
/// (a problem: no parcel id) and 16,378 more empty columns, and the schedule is the sample's.
#[test]
fn a_cell_at_the_last_row_and_column_is_read_in_little_memory() {
    let dir = county("wb-far-cell", "history.xlsx");
    history_xlsx(&dir.join("history.xlsx"), |sheet| {
        sheet.write_string(1_048_575, 16_383, "far").unwrap();
    });
    let run = schedule(&dir);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    let problems = std::fs::read_to_string(dir.join("out/problems.csv")).unwrap();
    assert!(problems.contains("history.xlsx") && problems.contains("row 1048576"), "{problems}");
    assert!(std::fs::read(dir.join("out/schedule.csv")).unwrap() == sample_schedule());
}

/// The sample history written by hand as inline strings, a long XML comment inside the bound and a cell
/// note of 3 MiB (a part the reader never opens) schedule as the sample does.
#[test]
fn a_handmade_sheet_with_a_comment_and_a_long_note_schedules_as_the_sample() {
    let dir = county("wb-handmade", "history.xlsx");
    let mut data = b"<!-- exported by hand -->".to_vec();
    data.extend(history_rows());
    let note = [
        b"<comments><commentList><comment ref=\"A1\"><text><t>".as_slice(),
        &vec![b'n'; 3 << 20],
        b"</t></text></comment></commentList></comments>",
    ]
    .concat();
    handmade_xlsx(&dir.join("history.xlsx"), &data, None, &[("xl/comments1.xml", &note)]);
    let run = schedule(&dir);
    assert!(matches!(run.status.code(), Some(0 | 2)), "{}", stderr(&run));
    assert!(std::fs::read(dir.join("out/schedule.csv")).unwrap() == sample_schedule());
}

/// A shared string longer than the bound on one XML token (1 MiB; the issue's was 1 GB) is refused before
/// the strings are read.
#[test]
fn a_shared_string_past_the_bound_is_refused() {
    let dir = county("wb-long-string", "history.xlsx");
    let strings = [
        br#"<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>"#.as_slice(),
        &vec![b's'; (1 << 20) + 1],
        b"</t></si></sst>",
    ]
    .concat();
    handmade_xlsx(
        &dir.join("history.xlsx"),
        b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>",
        Some(&strings),
        &[],
    );
    refused(&dir, "xl/sharedStrings.xml holds a text longer than 1048576 bytes");
}

/// A shared-strings table that declares more strings than the bound (calamine sets room aside for them
/// first) is refused.
#[test]
fn a_declared_count_past_the_bound_is_refused() {
    let dir = county("wb-count", "history.xlsx");
    let strings = br#"<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" uniqueCount="4000000000000"><si><t>a</t></si></sst>"#;
    handmade_xlsx(
        &dir.join("history.xlsx"),
        b"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>",
        Some(strings),
        &[],
    );
    refused(&dir, "declares more than 2097152 shared strings");
}

/// An XML comment in the sheet longer than the bound is refused, not read into memory.
#[test]
fn a_comment_past_the_bound_is_refused() {
    let dir = county("wb-comment", "history.xlsx");
    let data = [b"<!--".as_slice(), &vec![b'c'; (1 << 20) + 10], b"-->"].concat();
    handmade_xlsx(&dir.join("history.xlsx"), &[data, history_rows()].concat(), None, &[]);
    refused(&dir, "xl/worksheets/sheet1.xml holds an XML comment longer than 1048576 bytes");
}

/// A cell of 32,768 characters, one past Excel's limit for a cell, is refused naming the cell.
#[test]
fn a_cell_past_32767_characters_is_refused() {
    let dir = county("wb-long-cell", "history.xlsx");
    let cell =
        format!("<row r=\"9\"><c r=\"B9\" t=\"inlineStr\"><is><t>{}</t></is></c></row>", "é".repeat(32_768));
    handmade_xlsx(&dir.join("history.xlsx"), &[history_rows(), cell.into_bytes()].concat(), None, &[]);
    refused(&dir, "the cell in column 2 of row 9 holds more than 32767 characters");
}

/// Rows without their numbers count from the row before, as the format says: 1,048,576 empty rows put the
/// next cell in row 1,048,577, past the sheet's last, and the workbook is refused (14 million rows of a 7 MB
/// workbook took 4.2 GB as a range).
#[test]
fn rows_past_the_sheets_last_are_refused() {
    let dir = county("wb-rows", "history.xlsx");
    let mut data = b"<row/>".repeat(1 << 20);
    data.extend_from_slice(b"<row><c t=\"inlineStr\"><is><t>x</t></is></c></row>");
    handmade_xlsx(&dir.join("history.xlsx"), &[history_rows(), data].concat(), None, &[]);
    refused(&dir, "past the sheet's last row, 1048576");
}

/// Cells of one row out of column order are put in order; a cell in a row above the rows read is refused.
#[test]
fn cells_out_of_order_are_ordered_in_a_row_and_refused_across_rows() {
    let dir = county("wb-order", "history.xlsx");
    let history = sample_history();
    let mut data = Vec::new();
    for (r, record) in history.iter().enumerate() {
        write!(data, "<row r=\"{}\">", r + 1).unwrap();
        for (c, field) in record.iter().enumerate().rev() {
            let col = (b'A' + c as u8) as char;
            write!(data, "<c r=\"{col}{}\" t=\"inlineStr\"><is><t>{field}</t></is></c>", r + 1).unwrap();
        }
        data.extend_from_slice(b"</row>");
    }
    handmade_xlsx(&dir.join("history.xlsx"), &data, None, &[]);
    let run = schedule(&dir);
    assert!(matches!(run.status.code(), Some(0 | 2)), "{}", stderr(&run));
    assert!(std::fs::read(dir.join("out/schedule.csv")).unwrap() == sample_schedule());
    data.extend_from_slice(b"<row r=\"2\"><c r=\"A2\" t=\"inlineStr\"><is><t>again</t></is></c></row>");
    handmade_xlsx(&dir.join("history.xlsx"), &data, None, &[]);
    refused(&dir, "rows are out of order");
}

/// A cell in column 16,385 (`XFE`), one past the sheet's last, is refused naming the column.
#[test]
fn a_cell_past_the_last_column_is_refused() {
    let dir = county("wb-column", "history.xlsx");
    let cell = b"<row r=\"30\"><c r=\"XFE30\" t=\"inlineStr\"><is><t>x</t></is></c></row>";
    handmade_xlsx(&dir.join("history.xlsx"), &[history_rows(), cell.to_vec()].concat(), None, &[]);
    refused(&dir, "has a cell in column 16385 of row 30, past the sheet's last column, XFD (16384)");
}

/// A shared-strings table of 2,097,153 empty strings, one past the bound, is refused while it is counted.
#[test]
fn shared_strings_past_the_count_are_refused() {
    let dir = county("wb-strings", "history.xlsx");
    let strings = [b"<sst>".as_slice(), &b"<si/>".repeat((1 << 21) + 1), b"</sst>"].concat();
    handmade_xlsx(&dir.join("history.xlsx"), &history_rows(), Some(&strings), &[]);
    refused(&dir, "xl/sharedStrings.xml holds more than 2097152 shared strings");
}
