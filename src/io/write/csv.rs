//! CSV output (RFC 4180: comma-separated, fields with commas, quotes or line breaks quoted).

use std::path::Path;

use rayon::prelude::*;

use crate::error::Result;
use crate::io::write::write_atomic;
use crate::report::table::{Cell, Table};

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

/// Appends a cell; only text can need quoting, so other cells are written straight into the line.
fn push_cell(out: &mut String, cell: &Cell<'_>) {
    match cell {
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
}
