//! CSV text read record by record (RFC 4180) with the `csv` crate, holding one record at a time, each record
//! with the line it starts on as an editor counts lines, so that a problem in it is reported where it is.
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
//!
//! The `csv` crate splits the records into fields and unquotes them. What it does not say is checked on the
//! record's bytes as written, which the reader keeps until the record is read: the line the record starts on
//! (`csv` counts line feeds only, and from before the empty lines it skips), its quotes, and a NUL byte.

pub mod dialect;

pub use dialect::{separator_name, sniff_separator};

use std::io::{self, BufRead, Read};

use csv::{ByteRecord, StringRecord};

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
    fields: StringRecord,
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
        self.fields.len()
    }

    /// Whether the record has no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Field `i` (0-based) as written, quotes removed; `None` past the last field.
    pub fn field(&self, i: usize) -> Option<&str> {
        self.fields.get(i)
    }

    /// The fields in order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.fields.iter()
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
        self.fields.push_field(field);
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
    csv: csv::Reader<Kept<R>>,
    /// The line of the byte the next record's bytes start at (the byte after the last record read).
    line: usize,
    /// Whether the byte before it is a CR, so that a LF there ends the same line.
    after_cr: bool,
    /// The byte between fields: `,`, `;` or a tab.
    separator: u8,
}

impl<R: BufRead> CsvReader<R> {
    /// A reader of `input`, whose first byte is on line 1; a byte-order mark at its start is dropped.
    pub fn new(input: R) -> Self {
        Self::with_separator(input, b',')
    }

    /// A reader of `input` whose fields are separated by `separator` (as [`sniff_separator`] finds it).
    pub fn with_separator(input: R, separator: u8) -> Self {
        let csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(separator)
            .from_reader(Kept { input, bytes: Vec::new(), start: 0 });
        CsvReader { csv, line: 1, after_cr: false, separator }
    }

    /// A reader of `input` whose separator is sniffed ([`sniff_separator`]) from the bytes its first buffer
    /// holds.
    pub fn sniffing(mut input: R) -> io::Result<Self> {
        let separator = sniff_separator(input.fill_buf()?);
        Ok(Self::with_separator(input, separator))
    }

    /// The byte between fields.
    pub fn separator(&self) -> u8 {
        self.separator
    }

    /// Reads the next record into `record` (reusing its memory); `false` at the end of the input. Only an
    /// error of the input itself is an error: damage is the record's [`Flaw`].
    pub fn read(&mut self, record: &mut Record) -> io::Result<bool> {
        let mut bytes = std::mem::take(&mut record.fields).into_byte_record();
        record.flaw = None;
        record.windows_1252 = false;
        if !self.csv.read_byte_record(&mut bytes).map_err(input_error)? {
            record.fields = StringRecord::from_byte_record_lossy(bytes);
            return Ok(false);
        }
        // The record's bytes as written: the empty lines `csv` skipped before it, then the record and the
        // line break that ends it.
        let (start, end) = (bytes.position().map_or(0, csv::Position::byte), self.csv.position().byte());
        let mut written = self.csv.get_ref().bytes(start, end);
        if start == 0 && written.starts_with(BOM) && !bytes.get(0).is_some_and(|f| f.starts_with(BOM)) {
            written = &written[BOM.len()..];
        }
        let blank = written.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
        let (before, after_cr) = breaks(&written[..blank], self.after_cr);
        let (written, line) = (&written[blank..], self.line + before);
        let line_of = |at: usize| line + breaks(&written[..at], after_cr).0;
        let (inside, after_cr) = breaks(written, after_cr);
        (self.line, self.after_cr) = (line + inside, after_cr);
        record.line = line;
        let quotes = match memchr::memchr(b'"', written) {
            Some(_) => check_quotes(written, self.separator),
            None => Quotes::default(),
        };
        let too_long = bytes.as_slice().len() > MAX_RECORD_BYTES;
        record.flaw = if let Some(open) = quotes.open {
            Some(Flaw::Unclosed { line: line_of(open) })
        } else if too_long {
            Some(Flaw::TooLong)
        } else if let Some(at) = memchr::memchr(0, written) {
            Some(Flaw::Nul { line: line_of(at), field: field_of(&bytes, 0) })
        } else {
            quotes.stray.map(|(at, field)| Flaw::StrayQuote { line: line_of(at), field })
        };
        if too_long {
            bytes = cut(&bytes, MAX_RECORD_BYTES);
        }
        self.csv.get_mut().forget(end);
        (record.fields, record.windows_1252) = text(bytes);
        Ok(true)
    }
}

/// The input as `csv` reads it, with a copy of the bytes handed to it from the start of the record being
/// read on (what `csv` has buffered beyond it too), so that the record can be looked at as written.
struct Kept<R> {
    input: R,
    bytes: Vec<u8>,
    /// The input offset of `bytes[0]`.
    start: u64,
}

/// Bytes of records already read that are kept before they are dropped at once (dropping them record by
/// record would move the bytes after them each time).
const FORGET_BYTES: usize = 1 << 16;

impl<R> Kept<R> {
    /// The input's bytes from offset `start` to `end`, both kept.
    fn bytes(&self, start: u64, end: u64) -> &[u8] {
        let at = |offset: u64| usize::try_from(offset - self.start).unwrap_or(usize::MAX);
        &self.bytes[at(start)..at(end)]
    }

    /// Drops the bytes before offset `end` once there are enough of them.
    fn forget(&mut self, end: u64) {
        let done = usize::try_from(end - self.start).unwrap_or(usize::MAX).min(self.bytes.len());
        if done >= FORGET_BYTES && done * 2 >= self.bytes.len() {
            self.bytes.drain(..done);
            self.start += done as u64;
        }
    }
}

impl<R: BufRead> Read for Kept<R> {
    /// Fills `out` as far as the input goes, not only from the input's buffer: `csv` takes a first read of a
    /// byte-order mark alone for the end of the input.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            let available = self.input.fill_buf()?;
            if available.is_empty() {
                break;
            }
            let more = available.len().min(out.len() - n);
            out[n..n + more].copy_from_slice(&available[..more]);
            self.bytes.extend_from_slice(&available[..more]);
            self.input.consume(more);
            n += more;
        }
        Ok(n)
    }
}

/// The error of the input under a `csv` error (a reader of byte records, flexible in their length, has no
/// other).
fn input_error(error: csv::Error) -> io::Error {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// The line breaks in `bytes` (a CRLF is one, and so is a lone CR or LF) and whether its last byte is a CR;
/// `after_cr` says whether the byte before `bytes` is one.
fn breaks(bytes: &[u8], after_cr: bool) -> (usize, bool) {
    let mut count = 0;
    for at in memchr::memchr2_iter(b'\r', b'\n', bytes) {
        let cr_before = if at == 0 { after_cr } else { bytes[at - 1] == b'\r' };
        count += usize::from(bytes[at] == b'\r' || !cr_before);
    }
    (count, bytes.last().map_or(after_cr, |&b| b == b'\r'))
}

/// Where the quotes of a record as written stray from RFC 4180.
#[derive(Debug, Default)]
struct Quotes {
    /// The first `"` inside a field that is not quoted as a whole, or the first byte after a quoted field's
    /// closing quote that is not a separator or line break: its offset and its field.
    stray: Option<(usize, usize)>,
    /// The offset of the opening quote of the field the input ends inside.
    open: Option<usize>,
}

/// The quotes of the record `written` (from its first byte to the line break that ends it, or the end of the
/// input), whose fields are separated by `separator`.
fn check_quotes(written: &[u8], separator: u8) -> Quotes {
    let mut quotes = Quotes::default();
    let (mut at, mut field) = (0, 0);
    // At the start of a field; just after a quoted field's closing quote.
    let (mut field_start, mut closed) = (true, false);
    while let Some(&b) = written.get(at) {
        if b == b'"' && field_start {
            // A quoted field runs to a quote that is not doubled.
            let open = at;
            at += 1;
            loop {
                match memchr::memchr(b'"', &written[at..]) {
                    None => {
                        quotes.open = Some(open);
                        return quotes;
                    }
                    Some(n) if written.get(at + n + 1) == Some(&b'"') => at += n + 2,
                    Some(n) => {
                        at += n + 1;
                        break;
                    }
                }
            }
            (field_start, closed) = (false, true);
            continue;
        }
        if b == separator {
            field += 1;
            (field_start, closed) = (true, false);
        } else if b == b'\r' || b == b'\n' {
            break;
        } else {
            if b == b'"' || closed {
                quotes.stray = quotes.stray.or(Some((at, field)));
            }
            (field_start, closed) = (false, false);
        }
        at += 1;
    }
    quotes
}

/// The field of `bytes` that holds its first `byte` (the last field when none does).
fn field_of(bytes: &ByteRecord, byte: u8) -> usize {
    let fields = bytes.iter().position(|field| field.contains(&byte));
    fields.unwrap_or(bytes.len().saturating_sub(1))
}

/// The first `max` bytes of the fields of `bytes`, the fields after them kept empty.
fn cut(bytes: &ByteRecord, max: usize) -> ByteRecord {
    let mut room = max;
    let mut kept = ByteRecord::with_capacity(max, bytes.len());
    for field in bytes {
        let n = field.len().min(room);
        kept.push_field(&field[..n]);
        room -= n;
    }
    kept
}

/// The fields of `bytes` as text, each field that is not UTF-8 read as Windows-1252, and whether one was.
fn text(bytes: ByteRecord) -> (StringRecord, bool) {
    // Each field is checked on its own: two fields each holding part of a character are not text.
    let bytes = match StringRecord::from_byte_record(bytes) {
        Ok(fields) => return (fields, false),
        Err(error) => error.into_byte_record(),
    };
    let mut fields = StringRecord::with_capacity(bytes.as_slice().len() * 9 / 8, bytes.len());
    for field in &bytes {
        match std::str::from_utf8(field) {
            Ok(field) => fields.push_field(field),
            Err(_) => fields.push_field(&encoding_rs::WINDOWS_1252.decode_without_bom_handling(field).0),
        }
    }
    (fields, true)
}

#[cfg(test)]
mod tests;
