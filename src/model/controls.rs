//! Control characters in output text: which characters no output carries, how they are found (a byte scan
//! that allocates nothing when the text is clean) and replaced by U+FFFD, and [`Cleaned`], the view of a
//! [`Table`] every writer of tables is given, which replaces them in every text cell and counts them column
//! by column, so that each is reported once.
//!
//! The characters are NUL and the other C0 controls but the tab, DEL, the C1 controls, and the
//! bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069). Input text (an owner's name, an
//! address, a layer's names) can hold them; written raw, a NUL truncates a cell in many readers, and a
//! right-to-left override makes a letter or a spreadsheet show text other than what it holds.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

use crate::model::error::{Location, Problem};
use crate::model::table::{Cell, Kind, Table};

/// What a control character is written as.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Whether `c` is a character no output carries: C0 but the tab, DEL, C1, a bidirectional override or
/// isolate.
pub fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{a}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The bytes that may start a control character in UTF-8: C0 but the tab, DEL, and the lead bytes of C1
/// (0xC2) and of the bidirectional controls (0xE2), which the caller then checks.
const SUSPECT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b != 0x09;
        b += 1;
    }
    table[0x7f] = true;
    table[0xc2] = true;
    table[0xe2] = true;
    table
};

/// Bytes looked at together by [`first_suspect`].
const LANES: usize = 16;

/// The offset of the first byte of `bytes` that may start a control character ([`SUSPECT`]). The bytes are
/// looked at [`LANES`] at a time with a test the compiler makes a few vector instructions (a tab passes it
/// and is then looked at again), so that the long clean text of most cells costs little.
fn first_suspect(bytes: &[u8]) -> Option<usize> {
    let maybe = |b: u8| (b < 0x20) | (b == 0x7f) | (b == 0xc2) | (b == 0xe2);
    let exact = |run: &[u8]| run.iter().position(|&b| SUSPECT[usize::from(b)]);
    let mut chunks = bytes.chunks_exact(LANES);
    let mut at = 0;
    for chunk in &mut chunks {
        // As an array, its length known, the test is always a vector one.
        let clean =
            <&[u8; LANES]>::try_from(chunk).is_ok_and(|c| !c.iter().fold(false, |any, &b| any | maybe(b)));
        if !clean {
            if let Some(i) = exact(chunk) {
                return Some(at + i);
            }
        }
        at += LANES;
    }
    exact(chunks.remainder()).map(|i| at + i)
}

/// The byte offset of the first control character of `text`, if it has one.
pub fn first_control(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = first_suspect(&bytes[from..]) {
        let at = from + i;
        let control = match bytes[at] {
            0xc2 => matches!(bytes.get(at + 1), Some(0x80..=0x9f)),
            0xe2 => matches!(
                (bytes.get(at + 1), bytes.get(at + 2)),
                (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
            ),
            _ => true,
        };
        if control {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// `text` with each control character replaced by U+FFFD, borrowed when it has none, and the characters
/// replaced.
pub fn without_controls(text: &str) -> (Cow<'_, str>, Vec<char>) {
    match first_control(text) {
        None => (Cow::Borrowed(text), Vec::new()),
        Some(at) => {
            let mut out = String::with_capacity(text.len() + 2);
            out.push_str(&text[..at]);
            let found = push_replacing(&mut out, &text[at..]);
            (Cow::Owned(out), found)
        }
    }
}

/// `text` for a terminal: its control characters, a terminal's escapes among them, replaced, its line breaks
/// kept (a message may have several lines); borrowed when it has none.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    match first_control(text) {
        None => Cow::Borrowed(text),
        Some(_) => Cow::Owned(
            text.chars().map(|c| if c != '\n' && is_control(c) { REPLACEMENT } else { c }).collect(),
        ),
    }
}

/// Appends `text` to `out` with its control characters replaced; returns them.
fn push_replacing(out: &mut String, text: &str) -> Vec<char> {
    let mut found = Vec::new();
    for c in text.chars() {
        if is_control(c) {
            found.push(c);
            out.push(REPLACEMENT);
        } else {
            out.push(c);
        }
    }
    found
}

/// Replaces the control characters of `out[from..]` where they stand; returns them.
pub fn replace_controls_from(out: &mut String, from: usize) -> Vec<char> {
    match first_control(&out[from..]) {
        None => Vec::new(),
        Some(at) => {
            let tail = out.split_off(from + at);
            push_replacing(out, &tail)
        }
    }
}

/// The control characters found in one column of a table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Column {
    /// Values that held one or more.
    values: usize,
    /// The characters, each once.
    chars: BTreeSet<char>,
    /// The first row that held one, in order of the file (its place, then its row), and its first cell.
    first: Option<((usize, usize), String)>,
}

/// The control characters a table's writers met, column by column; filled by [`Cleaned`] and told as one
/// problem a column by [`Controls::problems`].
#[derive(Debug, Default)]
pub struct Controls {
    columns: Mutex<BTreeMap<usize, Column>>,
}

impl Controls {
    /// Notes that row `row` (at `place` in the file) of `table` held `found` in column `column`.
    fn note<T: Table + ?Sized>(&self, table: &T, row: usize, place: usize, column: usize, found: &[char]) {
        let Ok(mut columns) = self.columns.lock() else { return };
        let entry = columns.entry(column).or_default();
        entry.values += 1;
        entry.chars.extend(found.iter().copied());
        let at = (place, row);
        if entry.first.as_ref().is_none_or(|(first, _)| at < *first) {
            let id = table.cell(row, 0).render().into_owned();
            entry.first = Some((at, without_controls(&id).0.into_owned()));
        }
    }

    /// One problem for each column of the table with `columns` (named by `path`, one of its files) that held
    /// control characters: how many values, which characters, and the first row's first cell.
    pub fn problems(&self, path: &Path, columns: &[(&'static str, Kind)]) -> Vec<Problem> {
        let Ok(found) = self.columns.lock() else { return Vec::new() };
        let mut problems = Vec::new();
        for (&column, seen) in found.iter() {
            let name = columns.get(column).map_or("?", |(name, _)| *name);
            let chars: Vec<String> = seen.chars.iter().map(|&c| format!("U+{:04X}", c as u32)).collect();
            let values =
                if seen.values == 1 { "1 value".to_string() } else { format!("{} values", seen.values) };
            let first = seen
                .first
                .as_ref()
                .map_or(String::new(), |(_, id)| format!(", the first in the row of {id}"));
            problems.push(Problem::new(
                path,
                Location::Field(name.to_string()),
                format!(
                    "{values} held control characters ({}){first}, written as U+FFFD in every file of the \
                     table: correct the {name} in the input file it comes from",
                    chars.join(", ")
                ),
            ));
        }
        problems
    }
}

/// A table seen with its control characters replaced in every text cell, whether the writer asks for the cell
/// ([`Table::cell`]) or has the table write it ([`Table::push_text`]); those met are noted in `found`, when
/// given. A clean cell costs a byte scan and no allocation.
pub struct Cleaned<'a, T: ?Sized> {
    table: &'a T,
    place: &'a (dyn Fn(usize) -> usize + Sync),
    found: Option<&'a Controls>,
}

impl<'a, T: Table + ?Sized> Cleaned<'a, T> {
    /// `table` cleaned; row `i` stands at `place(i)` in its file; what is met is noted in `found`.
    pub fn new(
        table: &'a T,
        place: &'a (dyn Fn(usize) -> usize + Sync),
        found: Option<&'a Controls>,
    ) -> Self {
        Cleaned { table, place, found }
    }

    /// The table this one shows cleaned, its text as it is: for a writer that checks what it wrote of a row
    /// as a whole ([`first_control`]) and asks this view for the row only when that holds a control character.
    pub fn uncleaned(&self) -> &'a T {
        self.table
    }

    fn note(&self, row: usize, column: usize, found: &[char]) {
        if let Some(controls) = self.found.filter(|_| !found.is_empty()) {
            controls.note(self.table, row, (self.place)(row), column, found);
        }
    }
}

impl<T: Table + ?Sized> Table for Cleaned<'_, T> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        self.table.columns()
    }
    fn len(&self) -> usize {
        self.table.len()
    }
    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        match self.table.cell(row, column) {
            Cell::Text(text) if first_control(&text).is_some() => {
                let (clean, found) = without_controls(&text);
                self.note(row, column, &found);
                Cell::Text(Cow::Owned(clean.into_owned()))
            }
            other => other,
        }
    }
    fn push_text(&self, row: usize, column: usize, out: &mut String) -> bool {
        let start = out.len();
        if !self.table.push_text(row, column, out) {
            return false;
        }
        let found = replace_controls_from(out, start);
        self.note(row, column, &found);
        true
    }
    fn geometry(&self, row: usize) -> Option<&geo::MultiPolygon<f64>> {
        self.table.geometry(row)
    }
    fn other_geometry(&self, row: usize) -> Option<geo::Geometry<f64>> {
        self.table.other_geometry(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character the law of this module names, and none other, by its code point: the oracle is the
    /// list of ranges in the module's documentation, checked against every scalar value.
    #[test]
    fn the_scan_finds_exactly_the_named_characters() {
        let named = |c: u32| {
            (c < 0x20 && c != 0x09)
                || (0x7f..=0x9f).contains(&c)
                || (0x202a..=0x202e).contains(&c)
                || (0x2066..=0x2069).contains(&c)
        };
        // Short text, and text looked at 16 bytes at a time: there the character stands at 15, across the first
        // two, or at 16 + 8 inside the second, the rest clean (tabs in a third).
        let (pad, tabs) = ("abcdefghijklmnopqrstuvwxyz0123456789", "\t".repeat(40));
        assert_eq!(first_control(&tabs), None);
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let text = format!("ab{c}cd");
            let expected = named(c as u32).then_some(2);
            assert_eq!(first_control(&text), expected, "U+{:04X}", c as u32);
            assert_eq!(is_control(c), named(c as u32), "U+{:04X}", c as u32);
            for at in [15, 24] {
                let text = format!("{}{c}{pad}{tabs}", &pad[..at]);
                let expected = named(c as u32).then_some(at);
                assert_eq!(first_control(&text), expected, "U+{:04X} at {at} of long text", c as u32);
            }
        }
    }

    #[test]
    fn text_is_borrowed_when_clean_and_each_control_becomes_one_replacement() {
        let clean = "Art. V §IV.A.1 — Owasco\tLake";
        assert!(matches!(without_controls(clean).0, Cow::Borrowed(_)));
        let (text, found) = without_controls("Smi\0th \u{202e}cba\u{85}");
        assert_eq!(text, "Smi\u{fffd}th \u{fffd}cba\u{fffd}");
        assert_eq!(found, ['\0', '\u{202e}', '\u{85}']);
        let mut line = String::from("12,\u{7f}x");
        assert_eq!(replace_controls_from(&mut line, 3), ['\u{7f}']);
        assert_eq!(line, "12,\u{fffd}x");
        // A lead byte of a control in the text before `from` is left alone.
        let mut line = String::from("\u{1}b");
        assert!(replace_controls_from(&mut line, 1).is_empty());
        assert_eq!(for_terminal("line 1\n\u{1b}[2Jline 2"), "line 1\n\u{fffd}[2Jline 2");
    }

    struct Owners(Vec<&'static str>);

    impl Table for Owners {
        fn columns(&self) -> &[(&'static str, Kind)] {
            &[("parcel_id", Kind::Text), ("owner", Kind::Text), ("reason", Kind::Text)]
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn cell(&self, row: usize, column: usize) -> Cell<'_> {
            match column {
                0 => Cell::Text(format!("p{row}").into()),
                1 => Cell::Text(self.0[row].into()),
                _ => Cell::Null,
            }
        }
        fn push_text(&self, row: usize, column: usize, out: &mut String) -> bool {
            column == 2 && {
                out.push_str("owned by ");
                out.push_str(self.0[row]);
                true
            }
        }
        fn geometry(&self, _: usize) -> Option<&geo::MultiPolygon<f64>> {
            None
        }
    }

    #[test]
    fn a_cleaned_table_replaces_and_counts_each_column_once() {
        let owners = Owners(vec!["Ann", "B\0b\u{202e}", "Cy", "D\u{2066}"]);
        let controls = Controls::default();
        let place = |i: usize| 10 - i;
        let cleaned = Cleaned::new(&owners, &place, Some(&controls));
        assert_eq!(cleaned.cell(0, 1), Cell::Text("Ann".into()));
        assert_eq!(cleaned.cell(1, 1), Cell::Text("B\u{fffd}b\u{fffd}".into()));
        assert_eq!(cleaned.cell(3, 1), Cell::Text("D\u{fffd}".into()));
        let mut out = String::from("x,");
        assert!(cleaned.push_text(1, 2, &mut out));
        assert_eq!(out, "x,owned by B\u{fffd}b\u{fffd}");
        assert!(!cleaned.push_text(1, 1, &mut out));
        let problems = controls.problems(Path::new("schedule.csv"), owners.columns());
        let told: Vec<String> = problems.iter().map(ToString::to_string).collect();
        // Row 3 stands at place 7, before row 1 at place 9.
        assert_eq!(
            told,
            [
                "schedule.csv: field owner: 2 values held control characters (U+0000, U+202E, U+2066), the first \
                 in the row of p3, written as U+FFFD in every file of the table: correct the owner in the input \
                 file it comes from",
                "schedule.csv: field reason: 1 value held control characters (U+0000, U+202E), the first in the \
                 row of p1, written as U+FFFD in every file of the table: correct the reason in the input file \
                 it comes from",
            ]
        );
    }
}
