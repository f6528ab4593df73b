//! Finding the next byte of a small set, eight bytes at a time, and with it the end of a JSON value.
//!
//! The scans of the reader stop often (a bracket or a quote every dozen bytes or so) but pass runs of digits,
//! letters and spaces in between. Testing a whole `u64` word per step for "may hold one of the set" (the
//! classic zero-byte test: `(w - 0x01…) & !w & 0x80…` marks a zero byte, exactly for the lowest one) and then
//! checking the one marked byte against a table passes those runs quicker than a byte-by-byte loop, in plain
//! safe Rust. Each set is a type, so that its search is compiled with its own test inlined.
//!
//! [`Extent`] finds where a JSON value ends with those searches, following only strings and brackets: how
//! the stream finds each feature in a block, and how a pass that needs nothing of a value checked before
//! passes over it.

use super::json::MAX_DEPTH;

/// A set of bytes: a table to check one byte, and a word test that marks (at least) each member in a word,
/// the lowest marked byte exactly.
pub(super) trait Set {
    /// Whether each byte value is in the set.
    const TABLE: [bool; 256];

    /// The high bit of (at least) every byte of `w` in the set.
    fn marks(w: u64) -> u64;

    /// The offset of the first byte of the set in `bytes` from `i` on, or `bytes.len()`.
    #[inline]
    fn find(bytes: &[u8], mut i: usize) -> usize {
        while let Some(word) = bytes.get(i..i + 8) {
            let Ok(word) = <[u8; 8]>::try_from(word) else { break };
            let marked = Self::marks(u64::from_le_bytes(word));
            if marked == 0 {
                i += 8;
                continue;
            }
            let j = i + (marked.trailing_zeros() / 8) as usize;
            if Self::TABLE[bytes[j] as usize] {
                return j;
            }
            i = j + 1;
        }
        while i < bytes.len() && !Self::TABLE[bytes[i] as usize] {
            i += 1;
        }
        i
    }
}

/// The byte `b` in every lane of a word.
const fn lanes(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

const HIGH: u64 = lanes(0x80);

/// The high bit of every byte of `w` that is zero (exact for the lowest).
const fn zeros(w: u64) -> u64 {
    w.wrapping_sub(lanes(1)) & !w & HIGH
}

/// The high bit of every byte of `w` below `n` (at most 0x80; exact for the lowest).
const fn below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(lanes(n)) & !w & HIGH
}

const fn table(members: &[u8], below: u8, high: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8) < below || (high && b >= 0x80);
        b += 1;
    }
    let mut i = 0;
    while i < members.len() {
        t[members[i] as usize] = true;
        i += 1;
    }
    t
}

/// Where a JSON string's plain ASCII run ends: the quote, the backslash, a control character or the first
/// byte of a multi-byte character.
pub(super) struct StringStop;

impl Set for StringStop {
    const TABLE: [bool; 256] = table(b"\"\\", 0x20, true);

    #[inline]
    fn marks(w: u64) -> u64 {
        zeros(w ^ lanes(b'"')) | zeros(w ^ lanes(b'\\')) | below(w, 0x20) | (w & HIGH)
    }
}

/// The bytes that matter inside a string when only its end is looked for.
pub(super) struct QuoteOrBackslash;

impl Set for QuoteOrBackslash {
    const TABLE: [bool; 256] = table(b"\"\\", 0, false);

    #[inline]
    fn marks(w: u64) -> u64 {
        zeros(w ^ lanes(b'"')) | zeros(w ^ lanes(b'\\'))
    }
}

/// The bytes that matter outside strings when only a value's end is looked for. Setting bit 5 of every byte
/// turns `[` into `{` and `]` into `}` (and no other byte into either), so three tests cover the five bytes.
pub(super) struct Structure;

impl Set for Structure {
    const TABLE: [bool; 256] = table(b"\"{}[]", 0, false);

    #[inline]
    fn marks(w: u64) -> u64 {
        let folded = w | lanes(0x20);
        zeros(folded ^ lanes(b'{')) | zeros(folded ^ lanes(b'}')) | zeros(w ^ lanes(b'"'))
    }
}

/// What a scan found.
#[derive(Debug, PartialEq)]
pub(super) enum Scan {
    /// The value ends after this many bytes.
    Complete(usize),
    /// The bytes end first.
    NeedMore,
    /// The bracket at this offset opens one container too many.
    TooDeep(usize),
}

/// How far the end of one value has been looked for: strings and brackets followed, nothing checked.
#[derive(Debug, Default)]
pub(super) struct Extent {
    scanned: usize,
    depth: usize,
    in_string: bool,
}

impl Extent {
    /// Looks on for the end of the value that `bytes` start with, from where the last call stopped; `depth`
    /// containers are open around it.
    pub fn scan(&mut self, bytes: &[u8], depth: usize) -> Scan {
        let n = bytes.len();
        let mut i = self.scanned;
        if i == 0 {
            match bytes.first() {
                None => return Scan::NeedMore,
                Some(b'"') => {
                    self.in_string = true;
                    i = 1;
                }
                Some(b'{' | b'[') => {
                    if depth >= MAX_DEPTH {
                        return Scan::TooDeep(0);
                    }
                    self.depth = 1;
                    i = 1;
                }
                Some(_) => {
                    // A number or literal ends at the first byte that cannot be part of it.
                    return match bytes
                        .iter()
                        .position(|b| !matches!(b, b'0'..=b'9' | b'a'..=b'z' | b'E' | b'+' | b'-' | b'.'))
                    {
                        Some(end) => Scan::Complete(end),
                        None => {
                            self.scanned = 0;
                            Scan::NeedMore
                        }
                    };
                }
            }
        }
        loop {
            if self.in_string {
                i = QuoteOrBackslash::find(bytes, i);
                if i >= n {
                    self.scanned = n;
                    return Scan::NeedMore;
                }
                if bytes[i] == b'\\' {
                    if i + 1 >= n {
                        self.scanned = i;
                        return Scan::NeedMore;
                    }
                    i += 2;
                    continue;
                }
                i += 1;
                self.in_string = false;
                if self.depth == 0 {
                    return Scan::Complete(i);
                }
            } else {
                i = Structure::find(bytes, i);
                if i >= n {
                    self.scanned = n;
                    return Scan::NeedMore;
                }
                match bytes[i] {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => {
                        if depth + self.depth >= MAX_DEPTH {
                            return Scan::TooDeep(i);
                        }
                        self.depth += 1;
                    }
                    _ => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            return Scan::Complete(i + 1);
                        }
                    }
                }
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set's search against a byte-by-byte scan, for every byte value at every offset of a word, alone and
    /// after bytes that make the word test borrow.
    fn agrees<S: Set>() {
        for b in 0..=255u8 {
            for at in 0..20 {
                for before in [b'7', 0x00, 0x01, 0x1f, 0x80, 0xff] {
                    let mut bytes = vec![b'7'; 24];
                    bytes[..at].fill(before);
                    bytes[at] = b;
                    let expected =
                        (0..bytes.len()).find(|&i| S::TABLE[bytes[i] as usize]).unwrap_or(bytes.len());
                    assert_eq!(S::find(&bytes, 0), expected, "byte {b:#04x} at {at} after {before:#04x}");
                }
            }
        }
    }

    #[test]
    fn word_search_finds_what_a_byte_loop_finds() {
        agrees::<StringStop>();
        agrees::<QuoteOrBackslash>();
        agrees::<Structure>();
    }
}
