//! A table of parcel rows as the writers see it: named, typed columns, cells computed on demand, and an
//! optional geometry per row. Reports (the schedule, obligations, notices, buffer reports...) implement
//! [`Table`]; the CSV, GeoJSON, Parquet and GeoPackage writers take any table, so every command writes every
//! format the same way. It stands on the bottom floor, so that the writers, below the reports, can take it.

use std::borrow::Cow;

use chrono::NaiveDate;
use geo::MultiPolygon;

/// The type of a column, which the Parquet writer needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Text,
    /// Whole numbers.
    Int,
    /// Decimal numbers.
    Float,
    /// Calendar dates.
    Date,
    /// True or false.
    Bool,
}

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    /// No value.
    Null,
    /// Text.
    Text(Cow<'a, str>),
    /// A whole number.
    Int(i64),
    /// A decimal number and how many decimals to print.
    Float(f64, usize),
    /// A date.
    Date(NaiveDate),
    /// A boolean.
    Bool(bool),
}

impl Cell<'_> {
    /// Appends the cell's text to `out` without allocating (see [`Cell::render`]).
    pub fn push_to(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = match self {
            Cell::Null => Ok(()),
            Cell::Text(s) => {
                out.push_str(s);
                Ok(())
            }
            Cell::Int(i) => write!(out, "{i}"),
            Cell::Float(f, decimals) => write!(out, "{f:.decimals$}"),
            Cell::Date(d) => {
                crate::date::push_iso_date(out, *d);
                Ok(())
            }
            Cell::Bool(b) => {
                out.push_str(if *b { "true" } else { "false" });
                Ok(())
            }
        };
    }

    /// The cell as CSV/GeoJSON text: numbers with their decimals, dates ISO, null empty.
    pub fn render(&self) -> Cow<'_, str> {
        match self {
            Cell::Null => Cow::Borrowed(""),
            Cell::Text(s) => Cow::Borrowed(s),
            Cell::Int(i) => Cow::Owned(i.to_string()),
            Cell::Float(f, decimals) => Cow::Owned(format!("{f:.decimals$}")),
            Cell::Date(d) => {
                let mut s = String::with_capacity(10);
                crate::date::push_iso_date(&mut s, *d);
                Cow::Owned(s)
            }
            Cell::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        }
    }
}

/// Text cell from an optional string.
pub fn text<'a>(s: Option<&'a str>) -> Cell<'a> {
    s.map_or(Cell::Null, |s| Cell::Text(Cow::Borrowed(s)))
}

/// A table the writers can write.
pub trait Table: Sync {
    /// Column names and kinds, in order.
    fn columns(&self) -> &[(&'static str, Kind)];
    /// Number of rows.
    fn len(&self) -> usize;
    /// Whether the table has no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The cell at `row`, `column`.
    fn cell(&self, row: usize, column: usize) -> Cell<'_>;
    /// For a text cell built when asked (a sentence), appends its text to `out` and returns `true`, so a
    /// writer of text gets it straight into its line; `false` (the default) sends the writer to
    /// [`Table::cell`].
    fn push_text(&self, _row: usize, _column: usize, _out: &mut String) -> bool {
        false
    }
    /// The row's geometry in the working CRS, if it has one.
    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>>;
    /// The row's geometry when it is not a (multi)polygon — a well's point, a stream's line — in the working
    /// CRS. Asked only when [`Table::geometry`] has none.
    fn other_geometry(&self, _row: usize) -> Option<geo::Geometry<f64>> {
        None
    }
}
