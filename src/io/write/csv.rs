//! CSV output (RFC 4180: comma-separated, fields with commas, quotes or line breaks quoted).
//!
//! Planners open these files in Excel, which runs a cell beginning with `=`, `+`, `-` or `@` (or a tab or
//! carriage return before one) as a formula. A text cell beginning with one of those characters is written
//! with a leading single quote, as OWASP advises against CSV injection, so Excel shows it as text. Only text
//! cells (owner names, addresses, notes, ids) get the quote: numbers and dates are typed cells and are
//! written as they are, so `-12.5` stays a number.

use std::path::Path;

use rayon::prelude::*;

use crate::error::Result;
use crate::io::write::write_atomic;
use crate::table::{Cell, Table};

/// Quotes a field when RFC 4180 requires it.
fn push_field(out: &mut String, field: &str) {
    if field.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
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

/// Writes `table` to `path` as CSV with a header row. Rows are rendered on all cores in blocks and written in
/// order.
pub fn write_csv(path: &Path, table: &dyn Table) -> Result<()> {
    const BLOCK: usize = 16_384;
    let columns = table.columns();
    write_atomic(path, |w| {
        let mut header = String::new();
        for (i, (name, _)) in columns.iter().enumerate() {
            if i > 0 {
                header.push(',');
            }
            push_field(&mut header, name);
        }
        header.push('\n');
        w.write_all(header.as_bytes())?;
        // A few blocks per core at a time: parallel rendering without holding the whole file in memory.
        let blocks: Vec<usize> = (0..table.len()).step_by(BLOCK).collect();
        for group in blocks.chunks(4 * rayon::current_num_threads()) {
            let rendered: Vec<String> = group
                .par_iter()
                .map(|&start| {
                    let mut out = String::with_capacity(BLOCK * 256);
                    for row in start..(start + BLOCK).min(table.len()) {
                        for col in 0..columns.len() {
                            if col > 0 {
                                out.push(',');
                            }
                            push_cell(&mut out, &table.cell(row, col));
                        }
                        out.push('\n');
                    }
                    out
                })
                .collect();
            rendered.iter().try_for_each(|block| w.write_all(block.as_bytes()))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let mut s = String::new();
        push_field(&mut s, "plain");
        s.push(',');
        push_field(&mut s, "Smith, John \"Jack\"");
        assert_eq!(s, "plain,\"Smith, John \"\"Jack\"\"\"");
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
}
