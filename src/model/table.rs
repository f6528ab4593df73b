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
        match self {
            Cell::Null => {}
            Cell::Text(s) => out.push_str(s),
            Cell::Int(i) => push_int(out, *i),
            Cell::Float(f, decimals) => push_fixed(out, *f, *decimals),
            Cell::Date(d) => crate::model::date::push_iso_date(out, *d),
            Cell::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        }
    }

    /// The cell as CSV/GeoJSON text: numbers with their decimals, dates ISO, null empty.
    pub fn render(&self) -> Cow<'_, str> {
        match self {
            Cell::Null => Cow::Borrowed(""),
            Cell::Text(s) => Cow::Borrowed(s),
            Cell::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            other => {
                let mut text = String::new();
                other.push_to(&mut text);
                Cow::Owned(text)
            }
        }
    }
}

/// Appends `value` with `decimals` decimals, exactly as `format!("{value:.decimals$}")` writes it.
///
/// A million rows of distances are written this way, so the usual case (a few decimals, a value well inside
/// the range where doubles hold every such decimal, not within a millionth of a tie) is rounded in integers;
/// anything else goes to the standard formatter, which rounds the exact binary value.
pub fn push_fixed(out: &mut String, value: f64, decimals: usize) {
    const SCALE: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
    if let Some(&scale) = SCALE.get(decimals) {
        // Below 1e8 the product is off the exact one by under 1e-8, so away from a tie both round alike.
        let scaled = value.abs() * scale as f64;
        let whole = scaled.trunc();
        let fraction = scaled - whole;
        if scaled < 1e8 && (fraction - 0.5).abs() > 1e-6 {
            let rounded = whole as u64 + u64::from(fraction > 0.5);
            if value.is_sign_negative() {
                out.push('-');
            }
            push_digits(out, rounded / scale, 1);
            if decimals > 0 {
                out.push('.');
                push_digits(out, rounded % scale, decimals);
            }
            return;
        }
    }
    let _ = std::fmt::Write::write_fmt(out, format_args!("{value:.decimals$}"));
}

/// Appends `i` in decimal, as `i.to_string()` writes it.
pub fn push_int(out: &mut String, i: i64) {
    if i < 0 {
        out.push('-');
    }
    push_digits(out, i.unsigned_abs(), 1);
}

/// Appends `n` in decimal, padded with zeros to at least `width` digits.
fn push_digits(out: &mut String, mut n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut at = digits.len();
    while n > 0 || digits.len() - at < width {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    push_ascii(out, &digits[at..]);
}

/// Appends `bytes`, ASCII (digits, signs, dashes), each byte its own character: millions of numbers and dates
/// are written, and text known to be ASCII needs no UTF-8 check.
pub(crate) fn push_ascii(out: &mut String, bytes: &[u8]) {
    debug_assert!(bytes.is_ascii());
    out.extend(bytes.iter().map(|&b| char::from(b)));
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

#[cfg(test)]
mod tests {
    use super::push_fixed;

    #[test]
    fn whole_numbers_read_as_the_standard_formatter_writes_them() {
        for i in [0, 1, -1, 9, 10, -10, 380_105, i64::MAX, i64::MIN, i64::MIN + 1, 1_000_000_007] {
            let mut out = String::new();
            super::push_int(&mut out, i);
            assert_eq!(out, i.to_string());
        }
    }

    /// The standard formatter is the oracle: every value, at every number of decimals, reads the same.
    #[test]
    fn fixed_decimals_read_as_the_standard_formatter_writes_them() {
        let mut values = vec![
            0.0,
            -0.0,
            0.05,
            0.15,
            0.25,
            0.35,
            2.675,
            1.005,
            -0.04,
            -0.05,
            -12.5,
            0.5,
            1.5,
            2.5,
            99.95,
            99.949_999,
            1e-7,
            123_456.789,
            9_999_999.95,
            99_999_999.4,
            1e8,
            1e12,
            4.35,
            716.4,
            714.45,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
        ];
        // A deterministic spread of magnitudes and fractions, ties in the last decimal included.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let magnitude = 10f64.powi((x % 12) as i32 - 3);
            let v = (x >> 11) as f64 / (1u64 << 53) as f64 * magnitude;
            values.push(if x & 1 == 0 { v } else { -v });
            values.push(((x >> 20) % 100_000) as f64 / 1000.0 + 0.0005);
        }
        for &v in &values {
            for decimals in 0..=8 {
                let mut out = String::from("x");
                push_fixed(&mut out, v, decimals);
                assert_eq!(out[1..], format!("{v:.decimals$}"), "{v:e} at {decimals} decimals");
            }
        }
    }
}
