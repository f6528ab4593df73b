//! A strict JSON reader (RFC 8259) over bytes held in memory: the GeoJSON reader's inner loop.
//!
//! [`Cursor`] walks one value at a time, borrowing strings from the bytes where they hold no escapes and
//! parsing numbers with `fast-float2` (correctly rounded). It accepts exactly what serde_json accepts: no
//! comments, no trailing commas, no control characters in strings, no `NaN`, nesting at most [`MAX_DEPTH`]
//! deep. Nothing in it recurses, so no input can exhaust the stack, and every error carries the byte offset
//! in the file where the text stops being JSON.

use std::borrow::Cow;

use super::search::{Extent, Scan, Set, StringStop};

/// The deepest nesting of arrays and objects accepted, counted from the top of the document (serde_json's
/// limit, which the reader has always had).
pub(super) const MAX_DEPTH: usize = 128;

/// Where the bytes stop being JSON, and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SyntaxError {
    /// Byte offset in the file.
    pub at: u64,
    /// What was found or missing, in serde_json's words where it has some.
    pub what: Cow<'static, str>,
}

/// The result of reading JSON.
pub(super) type Parse<T> = Result<T, SyntaxError>;

/// How closely a skipped value is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// The syntax only, as serde_json checks a value it ignores.
    Syntax,
    /// Also that text is UTF-8 and numbers are within `f64` range, as serde_json checks a value it reads.
    Full,
}

/// A position in one JSON text (a whole document or one value of it).
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// File offset of `bytes[0]`.
    base: u64,
    /// Arrays and objects open around the position, counted from the top of the document.
    depth: usize,
}

const FIRST_OF_VALUE: &str = "expected value";

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`, which begin at file offset `base` inside `depth` open containers.
    pub fn new(bytes: &'a [u8], base: u64, depth: usize) -> Self {
        Cursor { bytes, pos: 0, base, depth }
    }

    /// The offset of the position in the bytes.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes from `start` to the position.
    pub fn since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.pos]
    }

    /// An error at byte `at` of the bytes.
    pub fn error_at(&self, at: usize, what: impl Into<Cow<'static, str>>) -> SyntaxError {
        SyntaxError { at: self.base + at as u64, what: what.into() }
    }

    fn error(&self, what: impl Into<Cow<'static, str>>) -> SyntaxError {
        self.error_at(self.pos, what)
    }

    /// The error for running out of bytes while reading `what` ("a string", "an object" ...).
    fn eof(&self, what: &str) -> SyntaxError {
        self.error_at(self.bytes.len(), format!("EOF while parsing {what}"))
    }

    fn skip_ws(&mut self) {
        // Indentation comes in runs of spaces, passed eight at a time.
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
            while self.bytes.get(self.pos..self.pos + 8) == Some(b"        ") {
                self.pos += 8;
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// Checks that nothing but whitespace follows; `what` says what was expected instead.
    pub fn end(&mut self, what: &'static str) -> Parse<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error(what)),
        }
    }

    /// Enters the array or object whose bracket is at the position.
    fn open(&mut self) -> Parse<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH} arrays and objects")));
        }
        self.depth += 1;
        self.pos += 1;
        Ok(())
    }

    /// Enters the object at the position, which must be one.
    pub fn object(&mut self, what: &'static str) -> Parse<()> {
        match self.peek() {
            Some(b'{') => self.open(),
            None => Err(self.eof("a value")),
            Some(_) => Err(self.error(what)),
        }
    }

    /// Enters the array at the position, which must be one.
    pub fn array(&mut self, what: &'static str) -> Parse<()> {
        match self.peek() {
            Some(b'[') => self.open(),
            None => Err(self.eof("a value")),
            Some(_) => Err(self.error(what)),
        }
    }

    /// In an object: moves to the next member's name and returns `true`, or leaves the object at its `}`.
    /// `first` is true before the first member and is cleared here.
    fn member(&mut self, first: &mut bool) -> Parse<bool> {
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                self.depth -= 1;
                return Ok(false);
            }
            Some(b',') if !*first => {
                self.pos += 1;
                match self.peek() {
                    Some(b'}') => return Err(self.error("trailing comma")),
                    None => return Err(self.eof("an object")),
                    Some(_) => {}
                }
            }
            None => return Err(self.eof("an object")),
            Some(_) if !*first => return Err(self.error("expected `,` or `}`")),
            Some(_) => {}
        }
        *first = false;
        if self.bytes[self.pos] != b'"' {
            return Err(self.error("key must be a string"));
        }
        Ok(true)
    }

    fn colon(&mut self) -> Parse<()> {
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            None => Err(self.eof("an object")),
            Some(_) => Err(self.error("expected `:`")),
        }
    }

    /// In an object: the next member's name, positioned at its value, or `None` after the closing `}`. The
    /// name is unescaped and checked to be UTF-8, but left as bytes: names are only compared.
    pub fn key(&mut self, first: &mut bool) -> Parse<Option<Cow<'a, [u8]>>> {
        if !self.member(first)? {
            return Ok(None);
        }
        let key = self.text()?;
        self.colon()?;
        Ok(Some(key))
    }

    /// In an array: returns `true` positioned at the next element, or `false` after the closing `]`. `first`
    /// is true before the first element and is cleared here.
    pub fn element(&mut self, first: &mut bool) -> Parse<bool> {
        match self.peek() {
            Some(b']') => {
                self.pos += 1;
                self.depth -= 1;
                Ok(false)
            }
            Some(b',') if !*first => {
                self.pos += 1;
                match self.peek() {
                    Some(b']') => Err(self.error("trailing comma")),
                    None => Err(self.eof("a list")),
                    Some(_) => Ok(true),
                }
            }
            None => Err(self.eof("a list")),
            Some(_) if !*first => Err(self.error("expected `,` or `]`")),
            Some(_) => {
                *first = false;
                Ok(true)
            }
        }
    }

    /// The string at the position, unescaped, checked to be UTF-8.
    pub fn string(&mut self) -> Parse<Cow<'a, str>> {
        let start = self.pos + 1;
        Ok(match self.text()? {
            Cow::Borrowed(raw) => Cow::Borrowed(self.utf8(raw, start)?),
            Cow::Owned(bytes) => Cow::Owned(
                String::from_utf8(bytes)
                    .map_err(|e| self.error_at(start + e.utf8_error().valid_up_to(), BAD_UTF8))?,
            ),
        })
    }

    /// `raw`, which starts at byte `start`, as text.
    fn utf8(&self, raw: &'a [u8], start: usize) -> Parse<&'a str> {
        std::str::from_utf8(raw).map_err(|e| self.error_at(start + e.valid_up_to(), BAD_UTF8))
    }

    /// The bytes of the string at the position, unescaped and checked to be UTF-8; borrowed when it holds no
    /// escapes.
    fn text(&mut self) -> Parse<Cow<'a, [u8]>> {
        let start = self.pos + 1;
        let Lexed { end, escaped, ascii } = self.string_end(Check::Full)?;
        let raw = &self.bytes[start..end];
        // Checked before unescaping, so that a fault is placed where it is in the file (and where skipping
        // the string places it).
        if !ascii {
            self.utf8(raw, start)?;
        }
        let text = if escaped { Cow::Owned(self.unescape(start, end)?) } else { Cow::Borrowed(raw) };
        self.pos = end + 1;
        Ok(text)
    }

    fn skip_string(&mut self, check: Check) -> Parse<()> {
        let start = self.pos + 1;
        let Lexed { end, ascii, .. } = self.string_end(check)?;
        if check == Check::Full && !ascii {
            self.utf8(&self.bytes[start..end], start)?;
        }
        self.pos = end + 1;
        Ok(())
    }

    /// The closing quote of the string whose opening quote is at the position; the escapes are checked
    /// (with [`Check::Full`], their surrogates paired too).
    fn string_end(&self, check: Check) -> Parse<Lexed> {
        let bytes = self.bytes;
        let mut i = self.pos + 1;
        let (mut escaped, mut ascii) = (false, true);
        loop {
            i = StringStop::find(bytes, i);
            match bytes.get(i) {
                None => return Err(self.eof("a string")),
                Some(b'"') => return Ok(Lexed { end: i, escaped, ascii }),
                Some(b'\\') => {
                    escaped = true;
                    i = self.escape(i, check)?.0;
                }
                Some(0x80..) => {
                    ascii = false;
                    i += 1;
                }
                Some(_) => {
                    return Err(
                        self.error_at(i, "control character (\\u0000-\\u001F) found while parsing a string")
                    )
                }
            }
        }
    }

    /// Checks the escape whose backslash is at `at`: the offset after it and the character it stands for
    /// (`None` for a lone surrogate under [`Check::Syntax`]).
    fn escape(&self, at: usize, check: Check) -> Parse<(usize, Option<char>)> {
        let c = match self.bytes.get(at + 1) {
            None => return Err(self.eof("a string")),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(at, check),
            Some(_) => return Err(self.error_at(at + 1, "invalid escape")),
        };
        Ok((at + 2, Some(c)))
    }

    /// A `\uXXXX` escape at `at`, with the low surrogate that must follow a high one.
    fn unicode_escape(&self, at: usize, check: Check) -> Parse<(usize, Option<char>)> {
        let high = self.hex4(at + 2)?;
        if !(0xD800..0xE000).contains(&high) {
            return Ok((at + 6, char::from_u32(high)));
        }
        let paired = high < 0xDC00
            && self.bytes.get(at + 6) == Some(&b'\\')
            && self.bytes.get(at + 7) == Some(&b'u')
            && self.hex4(at + 8).is_ok_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            let low = self.hex4(at + 8)?;
            let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
            return Ok((at + 12, c));
        }
        match check {
            Check::Syntax => Ok((at + 6, None)),
            Check::Full if high < 0xDC00 => Err(self.error_at(at, "lone leading surrogate in hex escape")),
            Check::Full => Err(self.error_at(at, "invalid unicode code point")),
        }
    }

    fn hex4(&self, at: usize) -> Parse<u32> {
        let mut n = 0;
        for i in at..at + 4 {
            let digit = match self.bytes.get(i) {
                None => return Err(self.eof("a string")),
                Some(&b) => (b as char).to_digit(16).ok_or_else(|| self.error_at(i, "invalid escape"))?,
            };
            n = n * 16 + digit;
        }
        Ok(n)
    }

    /// The bytes of the checked string `bytes[start..end]`, escapes replaced.
    fn unescape(&self, start: usize, end: usize) -> Parse<Vec<u8>> {
        let mut out = Vec::with_capacity(end - start);
        let mut i = start;
        while i < end {
            match memchr::memchr(b'\\', &self.bytes[i..end]) {
                None => {
                    out.extend_from_slice(&self.bytes[i..end]);
                    break;
                }
                Some(k) => {
                    out.extend_from_slice(&self.bytes[i..i + k]);
                    let (next, c) = self.escape(i + k, Check::Full)?;
                    let c = c.ok_or_else(|| self.error_at(i + k, "invalid unicode code point"))?;
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    i = next;
                }
            }
        }
        std::str::from_utf8(&out).map_err(|e| self.error_at(start + e.valid_up_to(), BAD_UTF8))?;
        Ok(out)
    }

    /// The number at the position.
    pub fn number(&mut self) -> Parse<f64> {
        let start = self.pos;
        match self.number_end::<true>()? {
            Number { exact: Some(x), .. } => Ok(x),
            Number { exact: None, .. } => self.number_value(start),
        }
    }

    /// The number from `start` to the position, parsed by fast-float2 (correctly rounded).
    fn number_value(&self, start: usize) -> Parse<f64> {
        match fast_float2::parse::<f64, _>(&self.bytes[start..self.pos]) {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(self.error_at(start, "number out of range")),
            Err(_) => Err(self.error_at(start, "invalid number")),
        }
    }

    fn skip_number(&mut self, check: Check) -> Parse<()> {
        let start = self.pos;
        let number = self.number_end::<false>()?;
        if check == Check::Full && number.may_overflow {
            self.number_value(start)?;
        }
        Ok(())
    }

    /// Moves past the number at the position, checking its syntax. With `VALUE`, numbers of at most 19
    /// digits whose digits fit in the 53 bits of a double and whose power of ten is at most 22 (most
    /// coordinates) get their value on the way, exactly as correct rounding gives it: one rounding of two
    /// exact doubles. Without it (a number skipped) the digits are only counted.
    fn number_end<const VALUE: bool>(&mut self) -> Parse<Number> {
        let bytes = self.bytes;
        let mut i = self.pos;
        let negative = bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let (mut digits, mut mantissa) = (0u32, 0u64);
        let mut take = |i: &mut usize| {
            while let Some(&d @ b'0'..=b'9') = bytes.get(*i) {
                mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
                digits += 1;
                *i += 1;
            }
        };
        let int_start = i;
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => take(&mut i),
            None => return Err(self.eof("a value")),
            Some(_) => return Err(self.error_at(i, "invalid number")),
        }
        let int_digits = if bytes[int_start] == b'0' { 0 } else { (i - int_start) as i64 };
        let mut fraction = 0i64;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            match bytes.get(i) {
                Some(b'0'..=b'9') => {
                    let before = i;
                    take(&mut i);
                    fraction = (i - before) as i64;
                }
                None => return Err(self.eof("a value")),
                Some(_) => return Err(self.error_at(i, "invalid number")),
            }
        }
        let mut exponent = 0i64;
        if let Some(b'e' | b'E') = bytes.get(i) {
            i += 1;
            let negative = match bytes.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            match bytes.get(i) {
                Some(b'0'..=b'9') => {}
                None => return Err(self.eof("a value")),
                Some(_) => return Err(self.error_at(i, "invalid number")),
            }
            while let Some(&d @ b'0'..=b'9') = bytes.get(i) {
                exponent = (exponent * 10 + i64::from(d - b'0')).min(1 << 40);
                i += 1;
            }
            if negative {
                exponent = -exponent;
            }
        }
        self.pos = i;
        let power = exponent - fraction;
        let exact = (VALUE && digits <= 19 && mantissa <= 1 << 53 && power.abs() <= 22).then(|| {
            let m = mantissa as f64;
            let x = if power < 0 { m / POW10[-power as usize] } else { m * POW10[power as usize] };
            if negative {
                -x
            } else {
                x
            }
        });
        Ok(Number { may_overflow: int_digits + exponent > 308, exact })
    }

    fn literal(&mut self, word: &'static [u8]) -> Parse<()> {
        for (k, &b) in word.iter().enumerate() {
            match self.bytes.get(self.pos + k) {
                None => return Err(self.eof("a value")),
                Some(&c) if c == b => {}
                Some(_) => return Err(self.error_at(self.pos + k, "expected ident")),
            }
        }
        self.pos += word.len();
        Ok(())
    }

    /// Reads `null`, `true` or `false` at the position, as `None`, `Some(true)` or `Some(false)`.
    pub fn null_or_bool(&mut self) -> Parse<Option<bool>> {
        match self.peek() {
            Some(b'n') => self.literal(b"null").map(|()| None),
            Some(b't') => self.literal(b"true").map(|()| Some(true)),
            Some(b'f') => self.literal(b"false").map(|()| Some(false)),
            None => Err(self.eof("a value")),
            Some(_) => Err(self.error(FIRST_OF_VALUE)),
        }
    }

    /// Moves past the value at the position without checking it, following only its strings and brackets to
    /// find its end: for bytes a pass before has checked.
    pub fn pass(&mut self) -> Parse<()> {
        self.skip_ws();
        match Extent::default().scan(&self.bytes[self.pos..], self.depth) {
            Scan::Complete(len) => {
                self.pos += len;
                Ok(())
            }
            Scan::NeedMore => Err(self.eof("a value")),
            Scan::TooDeep(at) => {
                Err(self
                    .error_at(self.pos + at, format!("nesting deeper than {MAX_DEPTH} arrays and objects")))
            }
        }
    }

    /// Moves past the value at the position, checking it as `check` says. Nested containers are followed with
    /// a bit per level (set for an object), not by recursion.
    pub fn skip(&mut self, check: Check) -> Parse<()> {
        let bottom = self.depth;
        let mut objects: u128 = 0;
        'value: loop {
            match self.peek() {
                Some(b'{') => {
                    self.open()?;
                    objects |= 1 << (self.depth - bottom - 1);
                    if self.member(&mut true)? {
                        self.skip_string(check)?;
                        self.colon()?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.open()?;
                    objects &= !(1 << (self.depth - bottom - 1));
                    if self.element(&mut true)? {
                        continue 'value;
                    }
                }
                Some(b'"') => self.skip_string(check)?,
                Some(b'-' | b'0'..=b'9') => self.skip_number(check)?,
                Some(b'n' | b't' | b'f') => {
                    self.null_or_bool()?;
                }
                None => return Err(self.eof("a value")),
                Some(_) => return Err(self.error(FIRST_OF_VALUE)),
            }
            // A value is complete: close the containers it completes, or go on to their next value.
            while self.depth > bottom {
                if objects >> (self.depth - bottom - 1) & 1 == 1 {
                    if self.member(&mut false)? {
                        self.skip_string(check)?;
                        self.colon()?;
                        continue 'value;
                    }
                } else if self.element(&mut false)? {
                    continue 'value;
                }
            }
            return Ok(());
        }
    }
}

const BAD_UTF8: &str = "invalid unicode code point";

/// What scanning a string found.
struct Lexed {
    /// The offset of the closing quote.
    end: usize,
    /// Whether it holds escapes.
    escaped: bool,
    /// Whether every byte is ASCII (so the bytes are UTF-8).
    ascii: bool,
}

/// What scanning a number found.
struct Number {
    /// Whether its integer digits and exponent say it may reach 10^309 (beyond `f64`).
    may_overflow: bool,
    /// Its value, when the fast path gives it.
    exact: Option<f64>,
}

/// The powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
