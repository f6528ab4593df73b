//! CSV output (RFC 4180: comma-separated, fields with commas, quotes or line breaks quoted).
//!
//! Planners open these files in Excel, which runs a cell beginning with `=`, `+`, `-` or `@` (or a tab or
//! carriage return before one) as a formula. A text cell beginning with one of those characters is written
//! with a leading single quote, as OWASP advises against CSV injection, so Excel shows it as text. Only text
//! cells (owner names, addresses, notes, ids) get the quote: numbers and dates are typed cells and are
//! written as they are, so `-12.5` stays a number.

use std::path::Path;

use crate::model::controls::{first_control, Cleaned};
use crate::model::error::Result;
use crate::model::table::{Cell, Kind, Table};
use crate::write::by_place::{LineFormat, TextByPlace};
use crate::write::sink::write_whole;

/// Quotes a field when RFC 4180 requires it.
fn push_field(out: &mut String, field: &str) {
    if needs_quotes(field) {
        out.push('"');
        if field.contains('"') {
            out.push_str(&field.replace('"', "\"\""));
        } else {
            out.push_str(field);
        }
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Whether a field must be quoted. Long fields (reasons, citations) are searched with `memchr`, many bytes at a
/// time; short ones byte by byte, where a vector search would cost more than it saves.
fn needs_quotes(field: &str) -> bool {
    let bytes = field.as_bytes();
    if bytes.len() >= 16 {
        memchr::memchr3(b',', b'"', b'\n', bytes).is_some() || memchr::memchr(b'\r', bytes).is_some()
    } else {
        bytes.iter().any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    }
}

/// Whether spreadsheet programs would take text beginning this way for a formula.
fn formula_like(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// Appends a cell; only text can need quoting or defusing, so other cells are written straight into the line.
fn push_cell(out: &mut String, cell: &Cell<'_>) {
    match cell {
        Cell::Text(s) if formula_like(s) => push_field(out, &format!("'{s}")),
        Cell::Text(s) => push_field(out, s),
        other => other.push_to(out),
    }
}

/// The header line of a CSV file with `columns`.
fn header(columns: &[(&'static str, Kind)]) -> String {
    let mut header = String::new();
    for (i, (name, _)) in columns.iter().enumerate() {
        if i > 0 {
            header.push(',');
        }
        push_field(&mut header, name);
    }
    header.push('\n');
    header
}

/// Appends row `row` of `table` as a CSV line.
pub(super) fn push_row<T: Table + ?Sized>(out: &mut String, table: &T, row: usize) {
    for col in 0..table.columns().len() {
        if col > 0 {
            out.push(',');
        }
        let start = out.len();
        if !table.push_text(row, col, out) {
            push_cell(out, &table.cell(row, col));
        } else if out[start..].contains('"') {
            let text = out.split_off(start);
            push_cell(out, &Cell::Text(text.into()));
        } else {
            // Quoted or defused where it stands, as `push_cell` would write it.
            if formula_like(&out[start..]) {
                out.insert(start, '\'');
            }
            if needs_quotes(&out[start..]) {
                out.insert(start, '"');
                out.push('"');
            }
        }
    }
    out.push('\n');
}

/// Appends row `row` of `block` as a CSV line, as [`push_row`] through the block would. A CSV line holds the
/// characters of each text cell as they are, so the line is rendered from the table the block cleans and
/// checked once for control characters; only a line that holds one (besides its end) is rendered again
/// through the block, which replaces them and notes them, cell by cell.
pub(super) fn push_cleaned_row<T: Table + ?Sized>(out: &mut String, block: &Cleaned<'_, T>, row: usize) {
    let start = out.len();
    push_row(out, block.uncleaned(), row);
    if first_control(&out[start..out.len() - 1]).is_some() {
        out.truncate(start);
        push_row(out, block, row);
    }
}

impl TextByPlace {
    /// A CSV file at `path` of `places` places with `columns`, started under its temporary name with its
    /// header row.
    pub fn csv(path: &Path, columns: &[(&'static str, Kind)], places: usize) -> Result<Self> {
        TextByPlace::create(path, header(columns).as_bytes(), LineFormat::Csv, 0, b"", places)
    }
}

/// Writes `table` to `path` as CSV with a header row, its rows rendered on all cores.
pub fn write_csv(path: &Path, table: &dyn Table) -> Result<()> {
    write_whole(Box::new(TextByPlace::csv(path, table.columns(), table.len())?), table)?.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::controls::Controls;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let mut s = String::new();
        push_field(&mut s, "plain");
        s.push(',');
        push_field(&mut s, "Smith, John \"Jack\"");
        assert_eq!(s, "plain,\"Smith, John \"\"Jack\"\"\"");
    }

    #[test]
    fn a_comma_quote_or_line_break_anywhere_in_a_field_of_any_length_needs_quotes() {
        for len in 0..48 {
            let plain = "a".repeat(len);
            assert!(!needs_quotes(&plain), "{len} letters");
            for at in 0..len {
                for special in [',', '"', '\n', '\r'] {
                    let mut field = plain.clone();
                    field.replace_range(at..=at, &special.to_string());
                    assert!(needs_quotes(&field), "{special:?} at {at} of {len}");
                }
                let mut field = plain.clone();
                field.replace_range(at..=at, "; '=\t");
                assert!(!needs_quotes(&field), "no special at {at} of {len}");
            }
        }
    }

    #[test]
    fn text_that_would_run_as_a_formula_gets_a_quote_but_numbers_do_not() {
        let render = |cell: Cell<'_>| {
            let mut s = String::new();
            push_cell(&mut s, &cell);
            s
        };
        let text = |s: &'static str| Cell::Text(s.into());
        assert_eq!(render(text("=HYPERLINK(\"http://x\")")), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(render(text("+1-555-0100")), "'+1-555-0100");
        assert_eq!(render(text("-2+3")), "'-2+3");
        assert_eq!(render(text("@SUM(A1)")), "'@SUM(A1)");
        assert_eq!(render(text("\t=1")), "'\t=1");
        assert_eq!(render(text("\r=1")), "\"'\r=1\"");
        assert_eq!(render(text("Smith = owner")), "Smith = owner");
        assert_eq!(render(Cell::Float(-12.5, 1)), "-12.5");
        assert_eq!(render(Cell::Int(-3)), "-3");
        let date = chrono::NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
        assert_eq!(render(Cell::Date(date)), "2027-01-15");
    }

    /// Text a table writes itself (a sentence) is quoted and defused where it stands exactly as the same
    /// text given as a cell.
    #[test]
    fn text_written_in_place_reads_as_the_same_text_given_as_a_cell() {
        const TEXTS: [&str; 9] =
            ["plain", "a, b", "=1+2", "=1,2", "say \"hi\"", "-3", "\r=1", "line\nbreak", ""];
        struct Sentences;
        impl Table for Sentences {
            fn columns(&self) -> &[(&'static str, Kind)] {
                &[("n", Kind::Int), ("said", Kind::Text)]
            }
            fn len(&self) -> usize {
                TEXTS.len()
            }
            fn cell(&self, row: usize, column: usize) -> Cell<'_> {
                if column == 0 {
                    Cell::Int(row as i64)
                } else {
                    Cell::Text(TEXTS[row].into())
                }
            }
            fn push_text(&self, row: usize, column: usize, out: &mut String) -> bool {
                out.push_str(TEXTS[row]);
                column == 1 || {
                    // Only the sentence column is written in place: anything pushed for another is undone.
                    out.truncate(out.len() - TEXTS[row].len());
                    false
                }
            }
            fn geometry(&self, _: usize) -> Option<&geo::MultiPolygon<f64>> {
                None
            }
        }
        for (row, text) in TEXTS.iter().enumerate() {
            let mut in_place = String::new();
            push_row(&mut in_place, &Sentences, row);
            let mut as_cell = format!("{row},");
            push_cell(&mut as_cell, &Cell::Text((*text).into()));
            as_cell.push('\n');
            assert_eq!(in_place, as_cell, "{text:?}");
        }
    }

    /// A row checked whole ([`push_cleaned_row`]) is the row written through the cleaned view cell by cell
    /// ([`push_row`]), byte for byte, and the control characters noted are the same: clean text (a tab is
    /// not a control), text with characters whose first byte is a control's (U+00A0, U+2028), and text with
    /// controls of each kind, in a cell and in text the table writes itself.
    #[test]
    fn a_row_checked_whole_is_the_row_cleaned_cell_by_cell() {
        const TEXTS: [&str; 12] = [
            "Ann Lee",
            "a, \"b\"",
            "=1+2",
            "caf\u{e9} \u{65e5}\u{672c}",
            "no\u{a0}break\u{2028}line",
            "tab\there",
            "line\nbreak",
            "nul\0",
            "c1 \u{85}",
            "bidi \u{202e}x",
            "isolate \u{2066}x\u{2069}",
            "",
        ];
        struct Owners;
        impl Table for Owners {
            fn columns(&self) -> &[(&'static str, Kind)] {
                &[("n", Kind::Int), ("owner", Kind::Text), ("said", Kind::Text)]
            }
            fn len(&self) -> usize {
                TEXTS.len() * TEXTS.len()
            }
            fn cell(&self, row: usize, column: usize) -> Cell<'_> {
                match column {
                    0 => Cell::Int(row as i64),
                    1 => Cell::Text(TEXTS[row / TEXTS.len()].into()),
                    _ => Cell::Null,
                }
            }
            fn push_text(&self, row: usize, column: usize, out: &mut String) -> bool {
                column == 2 && {
                    out.push_str("said ");
                    out.push_str(TEXTS[row % TEXTS.len()]);
                    true
                }
            }
            fn geometry(&self, _: usize) -> Option<&geo::MultiPolygon<f64>> {
                None
            }
        }
        let (whole, by_cell) = (Controls::default(), Controls::default());
        let place = |i: usize| i;
        let (a, b) =
            (Cleaned::new(&Owners, &place, Some(&whole)), Cleaned::new(&Owners, &place, Some(&by_cell)));
        let mut dirty = 0;
        for row in 0..Owners.len() {
            let (mut checked, mut cleaned) = (String::from("x"), String::from("x"));
            push_cleaned_row(&mut checked, &a, row);
            push_row(&mut cleaned, &b, row);
            assert_eq!(checked, cleaned, "row {row}");
            dirty += usize::from(cleaned.contains('\u{fffd}'));
        }
        // Rows with a control in either cell: all but those whose two texts are both among the seven clean.
        assert_eq!(dirty, TEXTS.len() * TEXTS.len() - 7 * 7);
        let path = Path::new("t.csv");
        let told = |c: &Controls| {
            c.problems(path, Owners.columns()).iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        assert_eq!(told(&whole), told(&by_cell));
        assert_eq!(told(&whole).len(), 2);
    }
}
