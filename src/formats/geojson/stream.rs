//! The file read in blocks, and the top level of the document walked with a block or two in memory.
//!
//! [`Stream`] holds the bytes not yet consumed. It finds where each value ends with a quick scan that only
//! follows strings and brackets ([`Extent`]); the value is then read, and checked, from its bytes by
//! [`super::json::Cursor`]. The elements of the `features` array are handed out in [`Batch`]es: the complete
//! features of one block, which own their bytes, so that a batch can be parsed on other threads while the next
//! block is read and scanned.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;

use super::feature;
use super::json::{Check, Cursor, SyntaxError};
use super::search::{Extent, Scan};

/// How much of the file is read at a time, and so about the size of a batch.
pub(super) const READ_BYTES: usize = 4 << 20;

/// Why the document could not be read.
#[derive(Debug)]
pub(super) enum Fail {
    /// The file could not be read.
    Io(io::Error),
    /// The file is not JSON.
    Syntax(SyntaxError),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail::Io(e)
    }
}

impl From<SyntaxError> for Fail {
    fn from(e: SyntaxError) -> Self {
        Fail::Syntax(e)
    }
}

/// Complete elements of the `features` array, with the bytes they are in.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// A block of the file; the elements lie in it.
    pub bytes: Vec<u8>,
    /// File offset of `bytes[0]`.
    pub base: u64,
    /// Each element's bytes, in file order.
    pub elements: Vec<Range<usize>>,
    /// How the array goes on after these elements.
    pub then: Then,
}

/// What follows a batch.
#[derive(Debug, Default)]
pub(super) enum Then {
    /// More elements, or the array's end, in the next batch.
    #[default]
    More,
    /// The array's `]`.
    Closed,
    /// Bytes that are not JSON; the batch's own elements come before them.
    Broken(SyntaxError),
}

/// Where the array of features stands between two elements.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// The first element or `]`.
    First,
    /// `,` or `]`.
    Separator,
    /// An element, after a `,`.
    Element,
}

/// The unconsumed part of the file.
pub(super) struct Stream {
    file: File,
    /// Room for a block or more, filled up to `end` and consumed up to `pos`. It stays initialised, so that
    /// reading into it never writes zeros first.
    buf: Vec<u8>,
    end: usize,
    pos: usize,
    /// File offset of `buf[0]`.
    base: u64,
    /// The file's length when opened.
    len: u64,
    /// How much is read at a time ([`READ_BYTES`], smaller in tests).
    block: usize,
    eof: bool,
    /// In the features array: what comes next, and the element whose end is still being looked for.
    expect: Expect,
    partial: Option<(usize, Extent)>,
}

impl Stream {
    /// Opens the file at `path`, to be read `block` bytes at a time, past a UTF-8 byte order mark if it
    /// starts with one.
    pub fn open(path: &Path, block: usize) -> io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut stream = Stream {
            len,
            // A small file needs no block of many MiB.
            block: block.min(usize::try_from(len).unwrap_or(usize::MAX).saturating_add(1)).max(1),
            file,
            buf: Vec::new(),
            end: 0,
            pos: 0,
            base: 0,
            eof: false,
            expect: Expect::First,
            partial: None,
        };
        while stream.end < 3 && stream.fill()? {}
        if stream.filled().starts_with(b"\xEF\xBB\xBF") {
            stream.pos = 3;
        }
        Ok(stream)
    }

    /// The file's length when opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The bytes read.
    fn filled(&self) -> &[u8] {
        &self.buf[..self.end]
    }

    /// Drops the bytes before `keep` and reads up to a block more; returns whether any arrived.
    fn fill_keeping(&mut self, keep: usize) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.end -= keep;
            self.base += keep as u64;
            self.pos -= keep;
            if let Some((start, _)) = &mut self.partial {
                *start -= keep;
            }
        }
        // A value longer than a block makes room for itself.
        if self.buf.len() < self.end + self.block {
            self.buf.resize(self.end + self.block, 0);
        }
        let before = self.end;
        while self.end < self.buf.len() {
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.end > before)
    }

    fn fill(&mut self) -> io::Result<bool> {
        self.fill_keeping(self.pos)
    }

    /// A syntax error at the position.
    fn error(&self, what: impl Into<std::borrow::Cow<'static, str>>) -> SyntaxError {
        SyntaxError { at: self.base + self.pos as u64, what: what.into() }
    }

    /// The next byte after whitespace, reading on as needed; `None` at the end of the file.
    pub fn peek(&mut self) -> Result<Option<u8>, Fail> {
        loop {
            while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.filled().get(self.pos) {
                self.pos += 1;
            }
            if let Some(&b) = self.filled().get(self.pos) {
                return Ok(Some(b));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Consumes the byte [`Stream::peek`] returned.
    pub fn advance(&mut self) {
        self.pos += 1;
    }

    /// The bytes of the value at the position (after [`Stream::peek`]), inside `depth` open containers,
    /// checked as `check` says and consumed; the range is valid until the stream reads on.
    fn value(&mut self, depth: usize, check: Check) -> Result<Range<usize>, Fail> {
        let mut extent = Extent::default();
        loop {
            match extent.scan(&self.filled()[self.pos..], depth) {
                Scan::Complete(len) => {
                    let start = self.pos;
                    self.pos += len;
                    let mut cursor = self.cursor_over(start..self.pos, depth);
                    cursor.skip(check)?;
                    cursor.end("trailing characters")?;
                    return Ok(start..self.pos);
                }
                Scan::TooDeep(at) => return Err(self.diagnose(self.pos..self.pos + at + 1, depth, check)),
                Scan::NeedMore if self.fill_keeping(self.pos)? => {}
                Scan::NeedMore => return Err(self.diagnose(self.pos..self.end, depth, check)),
            }
        }
    }

    /// A cursor over `range` of the buffer, inside `depth` open containers.
    fn cursor_over(&self, range: Range<usize>, depth: usize) -> Cursor<'_> {
        Cursor::new(&self.buf[range.clone()], self.base + range.start as u64, depth)
    }

    /// Enters the top-level object.
    pub fn open_top(&mut self) -> Result<(), Fail> {
        self.enter(b'{', "invalid type: expected a GeoJSON FeatureCollection object")
    }

    /// Enters the array of a `features` member, whose value is at the position.
    pub fn open_features(&mut self) -> Result<(), Fail> {
        self.expect = Expect::First;
        self.enter(b'[', "invalid type: expected an array of GeoJSON Features")
    }

    fn enter(&mut self, bracket: u8, what: &'static str) -> Result<(), Fail> {
        match self.peek()? {
            Some(b) if b == bracket => {
                self.advance();
                Ok(())
            }
            None => Err(self.eof("a value")),
            Some(_) => Err(self.error(what).into()),
        }
    }

    fn eof(&self, what: &str) -> Fail {
        Fail::Syntax(SyntaxError {
            at: self.base + self.end as u64,
            what: format!("EOF while parsing {what}").into(),
        })
    }

    /// In the top-level object: the next member's name, positioned at its value, or `None` after the
    /// closing `}`. `first` is true before the first member and is cleared here.
    pub fn key(&mut self, first: &mut bool) -> Result<Option<String>, Fail> {
        match self.peek()? {
            Some(b'}') => {
                self.advance();
                return Ok(None);
            }
            Some(b',') if !*first => {
                self.advance();
                match self.peek()? {
                    Some(b'}') => return Err(self.error("trailing comma").into()),
                    None => return Err(self.eof("an object")),
                    Some(_) => {}
                }
            }
            None => return Err(self.eof("an object")),
            Some(_) if !*first => return Err(self.error("expected `,` or `}`").into()),
            Some(_) => {}
        }
        *first = false;
        if self.peek()? != Some(b'"') {
            return Err(self.error("key must be a string").into());
        }
        let range = self.value(1, Check::Full)?;
        let key = self.cursor_over(range, 1).string()?.into_owned();
        match self.peek()? {
            Some(b':') => self.advance(),
            None => return Err(self.eof("an object")),
            Some(_) => return Err(self.error("expected `:`").into()),
        }
        if self.peek()?.is_none() {
            return Err(self.eof("a value"));
        }
        Ok(Some(key))
    }

    /// The value of a top-level member, as JSON.
    pub fn json(&mut self) -> Result<serde_json::Value, Fail> {
        let range = self.value(1, Check::Full)?;
        serde_json::from_slice(&self.buf[range.clone()]).map_err(|e| {
            let what = format!("unreadable member ({e})");
            Fail::Syntax(self.cursor_over(range, 1).error_at(0, what))
        })
    }

    /// Checks and skips the value of a top-level member.
    pub fn skip(&mut self) -> Result<(), Fail> {
        self.value(1, Check::Syntax).map(drop)
    }

    /// The error in `range`, the start of a value that does not end (the file ends, or it nests too deep):
    /// the first fault a full check finds in it, or the end of the file.
    fn diagnose(&self, range: Range<usize>, depth: usize, check: Check) -> Fail {
        let end = self.base + range.end as u64;
        match self.cursor_over(range, depth).skip(check) {
            Err(e) => Fail::Syntax(e),
            Ok(()) => Fail::Syntax(SyntaxError { at: end, what: "EOF while parsing a value".into() }),
        }
    }

    /// Checks that the document ends here, but for whitespace.
    pub fn end(&mut self) -> Result<(), Fail> {
        match self.peek()? {
            None => Ok(()),
            Some(_) => Err(self.error("trailing characters").into()),
        }
    }

    /// After the `[` of the features array: the complete elements of the buffered block, reading on until
    /// one is complete. `spare` is a batch done with, whose memory is used again.
    pub fn batch(&mut self, spare: Batch) -> Result<Batch, Fail> {
        let Batch { bytes: spare, mut elements, .. } = spare;
        elements.clear();
        loop {
            if let Some((start, extent)) = &mut self.partial {
                let start = *start;
                match extent.scan(&self.buf[start..self.end], feature::DEPTH) {
                    Scan::Complete(len) => {
                        elements.push(start..start + len);
                        self.pos = start + len;
                        self.partial = None;
                        self.expect = Expect::Separator;
                        continue;
                    }
                    Scan::TooDeep(at) => {
                        let fault = self.diagnose(start..start + at + 1, feature::DEPTH, Check::Syntax);
                        return self.broken(elements, fault, spare);
                    }
                    Scan::NeedMore => {}
                }
            } else {
                while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.filled().get(self.pos) {
                    self.pos += 1;
                }
                if let Some(&b) = self.filled().get(self.pos) {
                    match (self.expect, b) {
                        (Expect::First | Expect::Separator, b']') => {
                            self.pos += 1;
                            self.expect = Expect::First;
                            return Ok(self.carry(elements, self.pos, spare, Then::Closed));
                        }
                        (Expect::Separator, b',') => {
                            self.pos += 1;
                            self.expect = Expect::Element;
                        }
                        (Expect::Separator, _) => {
                            let fault = self.error("expected `,` or `]`").into();
                            return self.broken(elements, fault, spare);
                        }
                        (Expect::Element, b']') => {
                            let fault = self.error("trailing comma").into();
                            return self.broken(elements, fault, spare);
                        }
                        (_, b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                            self.partial = Some((self.pos, Extent::default()));
                        }
                        (_, _) => {
                            let fault = self.error("expected value").into();
                            return self.broken(elements, fault, spare);
                        }
                    }
                    continue;
                }
            }
            // The block is used up: hand out what is complete, or read on.
            let keep = self.partial.as_ref().map_or(self.pos, |(start, _)| *start);
            if !elements.is_empty() {
                return Ok(self.carry(elements, keep, spare, Then::More));
            }
            if !self.fill_keeping(keep)? {
                let fault = match self.partial.take() {
                    Some((start, _)) => self.diagnose(start..self.end, feature::DEPTH, Check::Syntax),
                    None => self.eof("a list"),
                };
                return self.broken(elements, fault, spare);
            }
        }
    }

    /// Hands out `elements` with the block they lie in; the bytes from `keep` on go on in `spare`.
    fn carry(&mut self, elements: Vec<Range<usize>>, keep: usize, mut spare: Vec<u8>, then: Then) -> Batch {
        let rest = self.end - keep;
        if spare.len() < rest + self.block {
            spare.resize(rest + self.block, 0);
        }
        spare[..rest].copy_from_slice(&self.buf[keep..self.end]);
        let bytes = std::mem::replace(&mut self.buf, spare);
        let base = self.base;
        self.base += keep as u64;
        self.end = rest;
        self.pos -= keep;
        if let Some((start, _)) = &mut self.partial {
            *start -= keep;
        }
        Batch { bytes, base, elements, then }
    }

    /// The batch of `elements` before a syntax fault, or the fault itself when it is an I/O error.
    fn broken(&mut self, elements: Vec<Range<usize>>, fault: Fail, spare: Vec<u8>) -> Result<Batch, Fail> {
        match fault {
            Fail::Syntax(e) => Ok(self.carry(elements, self.pos, spare, Then::Broken(e))),
            Fail::Io(e) => Err(Fail::Io(e)),
        }
    }
}
