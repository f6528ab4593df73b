//! A cursor over the bytes of a File Geodatabase table: little-endian numbers, UTF-16 names, and the two
//! variable-length integers of the format. Every read checks the bytes left and says what was cut short;
//! nothing here allocates more than the bytes it was given.

/// What went wrong, as a sentence fragment (`"the field section ends inside field 3"`).
pub(super) type Cut<T> = std::result::Result<T, String>;

/// Bytes being read front to back.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    /// Bytes not yet read.
    pub(super) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// The next byte, not read.
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// The next `n` bytes.
    pub(super) fn take(&mut self, n: usize) -> Cut<&'a [u8]> {
        if n > self.left() {
            return Err(format!("{n} bytes wanted where {} are left", self.left()));
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Cut<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(super) fn u8(&mut self) -> Cut<u8> {
        Ok(self.array::<1>()?[0])
    }

    pub(super) fn u16(&mut self) -> Cut<u16> {
        self.array().map(u16::from_le_bytes)
    }

    pub(super) fn i16(&mut self) -> Cut<i16> {
        self.array().map(i16::from_le_bytes)
    }

    pub(super) fn u32(&mut self) -> Cut<u32> {
        self.array().map(u32::from_le_bytes)
    }

    pub(super) fn i32(&mut self) -> Cut<i32> {
        self.array().map(i32::from_le_bytes)
    }

    pub(super) fn i64(&mut self) -> Cut<i64> {
        self.array().map(i64::from_le_bytes)
    }

    pub(super) fn f32(&mut self) -> Cut<f32> {
        self.array().map(f32::from_le_bytes)
    }

    pub(super) fn f64(&mut self) -> Cut<f64> {
        self.array().map(f64::from_le_bytes)
    }

    /// `chars` UTF-16 code units (a field's name, the CRS's WKT), invalid ones as U+FFFD.
    pub(super) fn utf16(&mut self, chars: usize) -> Cut<String> {
        let bytes = self.take(chars.checked_mul(2).ok_or("a string longer than memory")?)?;
        let units = bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
        Ok(char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect())
    }

    /// An unsigned variable-length integer: 7 bits a byte, least significant first, the high bit set on
    /// every byte but the last.
    pub(super) fn varuint(&mut self) -> Cut<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8().map_err(|_| "a variable-length integer cut short".to_string())?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a variable-length integer of more than 64 bits".into())
    }

    /// A signed variable-length integer: the first byte holds the sign (0x40) and 6 bits, the next ones 7
    /// bits each, least significant first.
    pub(super) fn varint(&mut self) -> Cut<i64> {
        let first = self.u8().map_err(|_| "a coordinate cut short".to_string())?;
        let negative = first & 0x40 != 0;
        let mut value = u64::from(first & 0x3f);
        let mut more = first & 0x80 != 0;
        let mut shift = 6;
        while more {
            if shift >= 64 {
                return Err("a coordinate of more than 64 bits".into());
            }
            let byte = self.u8().map_err(|_| "a coordinate cut short".to_string())?;
            value |= u64::from(byte & 0x7f) << shift;
            more = byte & 0x80 != 0;
            shift += 7;
        }
        // Wrapping: a damaged blob's huge value gives a far coordinate, which the checks after reading catch.
        let value = value as i64;
        Ok(if negative { value.wrapping_neg() } else { value })
    }

    /// A length (a varuint) that must fit in the bytes left, as `what` says.
    pub(super) fn length(&mut self, what: &str) -> Cut<usize> {
        let n = self.varuint()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.left() => Ok(n),
            _ => Err(format!("{what} of {n} bytes where {} are left", self.left())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_length_integers_read_as_the_format_writes_them() {
        // 300 = 0b10_0101100: 0xac (44 with the continuation bit), then 2.
        assert_eq!(Cursor::new(&[0xac, 0x02]).varuint(), Ok(300));
        assert_eq!(Cursor::new(&[0x05]).varuint(), Ok(5));
        // Signed: 0x41 is -1 (sign bit, value 1); 0xc0 0x01 is -(0 + 1 << 6) = -64.
        assert_eq!(Cursor::new(&[0x41]).varint(), Ok(-1));
        assert_eq!(Cursor::new(&[0xc0, 0x01]).varint(), Ok(-64));
        assert_eq!(Cursor::new(&[0x3f]).varint(), Ok(63));
        assert!(Cursor::new(&[0x80]).varuint().is_err());
        assert!(Cursor::new(&[0xff; 11]).varuint().unwrap_err().contains("more than 64 bits"));
        assert!(Cursor::new(&[0xff; 11]).varint().unwrap_err().contains("more than 64 bits"));
    }

    #[test]
    fn lengths_beyond_the_bytes_left_are_refused() {
        let mut cursor = Cursor::new(&[0x05, 1, 2]);
        assert_eq!(cursor.length("a string").unwrap_err(), "a string of 5 bytes where 2 are left");
        assert_eq!(Cursor::new(&[0x02, 1, 2]).length("a string"), Ok(2));
        assert!(Cursor::new(&[1]).u32().unwrap_err().contains("4 bytes wanted where 1 are left"));
    }

    #[test]
    fn names_are_utf16() {
        let bytes: Vec<u8> = "Ñame".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(Cursor::new(&bytes).utf16(4), Ok("Ñame".to_string()));
    }
}
