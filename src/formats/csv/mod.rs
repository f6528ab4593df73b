//! CSV text read record by record (RFC 4180), holding one record at a time, each record with the line it
//! starts on as an editor counts lines, so that a problem in it is reported where it is.
//!
//! Fields are separated by commas, semicolons or tabs (one of them a file: [`sniff_separator`] finds which
//! from its first lines) and records by line breaks (CRLF, LF or a lone CR). A field may be quoted; a quoted
//! field holds separators, line breaks and doubled quotes (`""` for one `"`), so a record may span several
//! lines and the next record starts on a later line than the count of records says. Empty lines are
//! skipped, a UTF-8 byte-order mark at the start is dropped. A field that is not UTF-8 is read as
//! Windows-1252, the encoding of a spreadsheet's plain "CSV" export in North America and Western Europe
//! ([`Record::windows_1252`] says so; [`dialect`]).
//!
//! Damage never stops the reading: a record that is not what RFC 4180 allows comes with its [`Flaw`] (a quote
//! that is never closed, a `"` inside an unquoted field, a NUL byte, a record of more than
//! [`MAX_RECORD_BYTES`]), and the next record is read as usual.

mod ahead;
pub mod dialect;

pub use ahead::ReadAhead;

pub use dialect::{separator_name, sniff_separator};

use std::io::BufRead;

/// The longest record kept; the rest of a longer one is skipped (an unclosed quote would otherwise read the
/// whole remaining file into one field).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// The UTF-8 byte-order mark some programs (Excel's "CSV UTF-8") write first.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One record: its fields as text and the line it starts on (1-based). A row of a workbook sheet is read
/// into the same shape, its row number as its line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    line: usize,
    text: String,
    ends: Vec<usize>,
    flaw: Option<Flaw>,
    windows_1252: bool,
}

impl Record {
    /// An empty record on `line`, to [`push`](Record::push) fields onto.
    pub fn new(line: usize) -> Self {
        Record { line, ..Record::default() }
    }

    /// The line the record starts on (1-based: the header of a file is line 1).
    pub fn line(&self) -> usize {
        self.line
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the record has no fields.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Field `i` (0-based) as written, quotes removed; `None` past the last field.
    pub fn field(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }

    /// The fields in order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).filter_map(|i| self.field(i))
    }

    /// What is wrong with the record, if anything.
    pub fn flaw(&self) -> Option<Flaw> {
        self.flaw
    }

    /// Whether a field of the record was not UTF-8 and was read as Windows-1252 text.
    pub fn windows_1252(&self) -> bool {
        self.windows_1252
    }

    /// Appends a field.
    pub fn push(&mut self, field: &str) {
        self.text.push_str(field);
        self.ends.push(self.text.len());
    }
}

/// What is wrong with a record. Only a stray quote leaves the record readable ([`Flaw::keeps_record`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// A quoted field opened on `line` is never closed: the rest of the input is in it.
    Unclosed {
        /// Where the quote opened.
        line: usize,
    },
    /// The record is longer than [`MAX_RECORD_BYTES`].
    TooLong,
    /// Field `field` holds a NUL byte, the first on `line`.
    Nul {
        /// The line of the NUL byte.
        line: usize,
        /// The field.
        field: usize,
    },
    /// A `"` inside field `field` that is not quoted as a whole, or text after a quoted field's closing
    /// quote, first on `line`; the field is read as written (a quote and all).
    StrayQuote {
        /// The line of the quote.
        line: usize,
        /// The field.
        field: usize,
    },
}

impl Flaw {
    /// Whether the record can still be read: its fields are what the writer most likely meant.
    pub fn keeps_record(self) -> bool {
        matches!(self, Flaw::StrayQuote { .. })
    }

    /// The line to report the flaw on, for a record starting on `start`.
    pub fn line(self, start: usize) -> usize {
        match self {
            Flaw::TooLong => start,
            Flaw::Unclosed { line } | Flaw::Nul { line, .. } | Flaw::StrayQuote { line, .. } => line,
        }
    }

    /// What is wrong, naming a field by its column in `names` (the header's fields).
    pub fn what(self, names: &[String]) -> String {
        let column = |field: usize| match names.get(field) {
            Some(name) => format!("column '{name}'"),
            None => format!("field {}", field + 1),
        };
        match self {
            Flaw::Unclosed { .. } => {
                "a quoted field opened on this line is never closed, so the rest of the file is in it".into()
            }
            Flaw::TooLong => format!(
                "the record is longer than {} MiB, most likely because a quote was left open",
                MAX_RECORD_BYTES >> 20
            ),
            Flaw::Nul { field, .. } => {
                format!("{} holds a NUL byte (the file is damaged or not text)", column(field))
            }
            Flaw::StrayQuote { field, .. } => {
                format!("{} holds a '\"' but is not quoted as a whole", column(field))
            }
        }
    }

    /// What to do about it.
    pub fn fix(self) -> &'static str {
        match self {
            Flaw::Unclosed { .. } | Flaw::TooLong => {
                "close the quote (and double any quote inside the field: \"\")"
            }
            Flaw::Nul { .. } => "delete the byte or export the file again",
            Flaw::StrayQuote { .. } => {
                "quote the whole field and double the quote inside it (\"6\"\" pipe\"), so that every program \
                 reads it alike"
            }
        }
    }
}

/// Where the reader is inside a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing of the record read yet (empty lines are skipped here).
    Empty,
    /// At the start of a field after a comma.
    FieldStart,
    /// Inside a field that does not start with a quote.
    Unquoted,
    /// Inside a quoted field.
    Quoted,
    /// Just after a quote inside a quoted field: its end, or the first of a doubled quote.
    QuoteSeen,
}

/// Reads CSV records from a buffered input, one at a time (see the module's documentation).
///
/// ```
/// use lakeshore::formats::csv::{CsvReader, Record};
/// let text = "id,notes\r\n1,\"two\nlines\"\r\n2,plain\r\n";
/// let mut reader = CsvReader::new(text.as_bytes());
/// let mut record = Record::default();
/// let mut seen = Vec::new();
/// while reader.read(&mut record).unwrap() {
///     seen.push((record.line(), record.fields().map(String::from).collect::<Vec<_>>()));
/// }
/// assert_eq!(seen[1], (2, vec!["1".to_string(), "two\nlines".to_string()]));
/// assert_eq!(seen[2].0, 4, "the record after a two-line field starts on line 4");
/// ```
pub struct CsvReader<R> {
    input: R,
    /// The line the next byte is on.
    line: usize,
    /// Whether the last byte was a CR, so that a LF after it ends the same line.
    after_cr: bool,
    /// Whether the start of the input has been looked at for a byte-order mark.
    started: bool,
    /// The byte between fields: `,`, `;` or a tab.
    separator: u8,
}

impl<R: BufRead> CsvReader<R> {
    /// A reader of `input`, whose first byte is on line 1. A byte-order mark is recognised when the input's
    /// first buffer holds its three bytes, as a file's does.
    pub fn new(input: R) -> Self {
        Self::with_separator(input, b',')
    }

    /// A reader of `input` whose fields are separated by `separator` (as [`sniff_separator`] finds it).
    pub fn with_separator(input: R, separator: u8) -> Self {
        CsvReader { input, line: 1, after_cr: false, started: false, separator }
    }

    /// A reader of `input` whose separator is sniffed ([`sniff_separator`]) from the bytes its first buffer
    /// holds.
    pub fn sniffing(mut input: R) -> std::io::Result<Self> {
        let separator = sniff_separator(input.fill_buf()?);
        Ok(Self::with_separator(input, separator))
    }

    /// The byte between fields.
    pub fn separator(&self) -> u8 {
        self.separator
    }

    /// Reads the next record into `record` (reusing its memory); `false` at the end of the input. Only an
    /// error of the input itself is an error: damage is the record's [`Flaw`].
    pub fn read(&mut self, record: &mut Record) -> std::io::Result<bool> {
        if !self.started {
            self.started = true;
            if self.input.fill_buf()?.starts_with(BOM) {
                self.input.consume(BOM.len());
            }
        }
        let mut bytes = std::mem::take(&mut record.text).into_bytes();
        bytes.clear();
        record.ends.clear();
        record.flaw = None;
        record.windows_1252 = false;
        let separator = self.separator;
        let mut state = State::Empty;
        let mut quote_line = 0;
        let mut stray = None;
        let mut cut = false;
        let mut push = |bytes: &mut Vec<u8>, more: &[u8]| {
            let room = MAX_RECORD_BYTES.saturating_sub(bytes.len());
            bytes.extend_from_slice(&more[..more.len().min(room)]);
            cut |= more.len() > room;
        };
        // Whether a line break ended the record (otherwise the input did).
        let mut ended = false;
        while !ended {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let mut used = 0;
            while used < buf.len() {
                // Inside a field, a run of bytes that neither end it nor quote is copied at once.
                let plain = match state {
                    State::Unquoted | State::Quoted => {
                        plain_run(&buf[used..], (state != State::Quoted).then_some(separator))
                    }
                    _ => 0,
                };
                if plain > 0 {
                    push(&mut bytes, &buf[used..used + plain]);
                    used += plain;
                    self.after_cr = false;
                    continue;
                }
                let b = buf[used];
                used += 1;
                let line = self.line;
                let is_break = b == b'\n' || b == b'\r';
                self.line += usize::from(b == b'\r' || (b == b'\n' && !self.after_cr));
                self.after_cr = b == b'\r';
                state = match (state, b) {
                    (State::Empty, _) if is_break => State::Empty,
                    (State::Empty | State::FieldStart, _) => {
                        if state == State::Empty {
                            record.line = line;
                        }
                        match b {
                            b'"' => {
                                quote_line = line;
                                State::Quoted
                            }
                            _ if b == separator => {
                                record.ends.push(bytes.len());
                                State::FieldStart
                            }
                            _ if is_break => {
                                ended = true;
                                break;
                            }
                            _ => {
                                push(&mut bytes, &[b]);
                                State::Unquoted
                            }
                        }
                    }
                    (State::Quoted, b'"') => State::QuoteSeen,
                    (State::Quoted, _) => {
                        push(&mut bytes, &[b]);
                        State::Quoted
                    }
                    (State::QuoteSeen, b'"') => {
                        push(&mut bytes, &[b]);
                        State::Quoted
                    }
                    (State::Unquoted | State::QuoteSeen, _) if b == separator => {
                        record.ends.push(bytes.len());
                        State::FieldStart
                    }
                    (State::Unquoted | State::QuoteSeen, _) if is_break => {
                        ended = true;
                        break;
                    }
                    (State::Unquoted | State::QuoteSeen, _) => {
                        if b == b'"' || state == State::QuoteSeen {
                            stray = stray.or(Some((line, record.ends.len())));
                        }
                        push(&mut bytes, &[b]);
                        State::Unquoted
                    }
                };
            }
            self.input.consume(used);
        }
        if state == State::Empty {
            record.text = String::from_utf8(bytes).unwrap_or_default();
            return Ok(false);
        }
        // The last field, ended by a line break or by the end of the input.
        record.ends.push(bytes.len());
        let damage = validate(bytes, record);
        record.flaw = if !ended && state == State::Quoted {
            Some(Flaw::Unclosed { line: quote_line })
        } else if cut {
            Some(Flaw::TooLong)
        } else {
            damage.or(stray.map(|(line, field)| Flaw::StrayQuote { line, field }))
        };
        Ok(true)
    }
}

/// The length of the run of bytes at the start of `bytes` that are a field's content as they are: no quote, no
/// line break, and no `separator` (`None` inside a quoted field, where a separator is text).
fn plain_run(bytes: &[u8], separator: Option<u8>) -> usize {
    let special = |b: u8| b == b'"' || b == b'\n' || b == b'\r' || Some(b) == separator;
    bytes.iter().position(|&b| special(b)).unwrap_or(bytes.len())
}

/// The record's bytes as its text, each field that is not UTF-8 read as Windows-1252; the flaw when a field
/// holds a NUL byte.
fn validate(bytes: Vec<u8>, record: &mut Record) -> Option<Flaw> {
    let nul = memchr::memchr(0, &bytes).map(|at| {
        let field = record.ends.partition_point(|&end| end <= at).min(record.ends.len().saturating_sub(1));
        Flaw::Nul { line: line_at(&bytes, record, at), field }
    });
    let bytes = match String::from_utf8(bytes) {
        // A field boundary inside a character leaves two fields each holding part of it: neither is text.
        Ok(text) if record.ends.iter().all(|&end| text.is_char_boundary(end)) => {
            record.text = text;
            return nul;
        }
        Ok(text) => text.into_bytes(),
        Err(e) => e.into_bytes(),
    };
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 8);
    let mut start = 0;
    for end in &mut record.ends {
        let field = &bytes[start..*end];
        start = *end;
        match std::str::from_utf8(field) {
            Ok(field) => text.push_str(field),
            Err(_) => {
                text.push_str(&encoding_rs::WINDOWS_1252.decode_without_bom_handling(field).0);
                record.windows_1252 = true;
            }
        }
        *end = text.len();
    }
    record.text = text;
    nul
}

/// The line of byte `at` of a record's fields: its start line plus the line breaks before it, counted field
/// by field (a CR ending one quoted field and a LF starting the next are two breaks).
fn line_at(bytes: &[u8], record: &Record, at: usize) -> usize {
    let mut line = record.line;
    let mut start = 0;
    for &end in &record.ends {
        let field = &bytes[start.min(at)..end.min(at)];
        line += field.iter().filter(|&&b| b == b'\r').count();
        line += field.windows(2).filter(|w| w[0] != b'\r' && w[1] == b'\n').count();
        line += usize::from(field.first() == Some(&b'\n'));
        start = end;
    }
    line
}

#[cfg(test)]
mod tests;
