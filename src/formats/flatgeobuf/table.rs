//! The FlatBuffers tables of a FlatGeobuf file, read in place: a table's fields through its vtable, its
//! scalars, strings, vectors and sub-tables, every offset and length checked against the buffer before it is
//! followed, so that no value read from the file can make the reader look outside it or allocate more than
//! it holds.

/// What is wrong with a buffer, in words for a message.
pub(super) type Fault = String;

/// A table in a buffer: the buffer and the table's position.
#[derive(Clone, Copy)]
pub(super) struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Where its vtable lies, and the vtable's size in bytes.
    vtable: usize,
    size: usize,
}

/// `n` bytes at `at` of `buf`, or a fault.
fn bytes(buf: &[u8], at: usize, n: usize) -> Result<&[u8], Fault> {
    at.checked_add(n).and_then(|end| buf.get(at..end)).ok_or_else(|| {
        format!("an offset or length points past the end of its buffer of {} bytes", buf.len())
    })
}

fn u16_at(buf: &[u8], at: usize) -> Result<u16, Fault> {
    Ok(u16::from_le_bytes(bytes(buf, at, 2)?.try_into().unwrap_or_default()))
}

pub(super) fn u32_at(buf: &[u8], at: usize) -> Result<u32, Fault> {
    Ok(u32::from_le_bytes(bytes(buf, at, 4)?.try_into().unwrap_or_default()))
}

impl<'a> Table<'a> {
    /// The root table of the buffer `buf` (its first four bytes the root's offset).
    pub fn root(buf: &'a [u8]) -> Result<Self, Fault> {
        let pos = u32_at(buf, 0)? as usize;
        Table::at(buf, pos)
    }

    /// The table at `pos`, its vtable checked to lie in the buffer.
    fn at(buf: &'a [u8], pos: usize) -> Result<Self, Fault> {
        let soffset = i32::from_le_bytes(bytes(buf, pos, 4)?.try_into().unwrap_or_default());
        let vtable = (pos as i64) - i64::from(soffset);
        let vtable =
            usize::try_from(vtable).map_err(|_| "a table's vtable lies before its buffer".to_string())?;
        let size = usize::from(u16_at(buf, vtable)?);
        bytes(buf, vtable, size.max(4))?;
        Ok(Table { buf, pos, vtable, size })
    }

    /// Where field `id`'s value lies, or `None` when the table does not have it.
    fn field(&self, id: usize) -> Result<Option<usize>, Fault> {
        let entry = 4 + 2 * id;
        if entry + 2 > self.size {
            return Ok(None);
        }
        match u16_at(self.buf, self.vtable + entry)? {
            0 => Ok(None),
            offset => Ok(Some(self.pos + usize::from(offset))),
        }
    }

    /// Field `id` as an unsigned byte, `default` when absent.
    pub fn u8(&self, id: usize, default: u8) -> Result<u8, Fault> {
        Ok(match self.field(id)? {
            Some(at) => bytes(self.buf, at, 1)?[0],
            None => default,
        })
    }

    /// Field `id` as a little-endian `u16`.
    pub fn u16(&self, id: usize, default: u16) -> Result<u16, Fault> {
        self.field(id)?.map_or(Ok(default), |at| u16_at(self.buf, at))
    }

    /// Field `id` as a little-endian `i32`.
    pub fn i32(&self, id: usize, default: i32) -> Result<i32, Fault> {
        self.field(id)?.map_or(Ok(default), |at| Ok(u32_at(self.buf, at)? as i32))
    }

    /// Field `id` as a little-endian `u64`.
    pub fn u64(&self, id: usize, default: u64) -> Result<u64, Fault> {
        match self.field(id)? {
            Some(at) => Ok(u64::from_le_bytes(bytes(self.buf, at, 8)?.try_into().unwrap_or_default())),
            None => Ok(default),
        }
    }

    /// Where the object that offset field `id` points to lies.
    fn target(&self, id: usize) -> Result<Option<usize>, Fault> {
        let Some(at) = self.field(id)? else { return Ok(None) };
        let offset = u32_at(self.buf, at)? as usize;
        at.checked_add(offset).map(Some).ok_or_else(|| "an offset overflows".to_string())
    }

    /// The bytes of vector field `id` of elements of `size` bytes, and its length.
    fn vector(&self, id: usize, size: usize) -> Result<Option<(&'a [u8], usize)>, Fault> {
        let Some(at) = self.target(id)? else { return Ok(None) };
        let len = u32_at(self.buf, at)? as usize;
        let n = len.checked_mul(size).ok_or_else(|| format!("a vector claims {len} elements"))?;
        let body = bytes(self.buf, at + 4, n).map_err(|_| {
            format!(
                "a vector claims {len} elements of {size} bytes, past the end of its buffer of {} bytes",
                self.buf.len()
            )
        })?;
        Ok(Some((body, len)))
    }

    /// String field `id` (text that is not UTF-8 read with replacement characters).
    pub fn string(&self, id: usize) -> Result<Option<String>, Fault> {
        Ok(self.vector(id, 1)?.map(|(b, _)| String::from_utf8_lossy(b).into_owned()))
    }

    /// Byte-vector field `id`.
    pub fn bytes(&self, id: usize) -> Result<Option<&'a [u8]>, Fault> {
        Ok(self.vector(id, 1)?.map(|(b, _)| b))
    }

    /// Vector-of-`f64` field `id`.
    pub fn f64s(&self, id: usize) -> Result<Vec<f64>, Fault> {
        Ok(self.vector(id, 8)?.map_or_else(Vec::new, |(b, _)| {
            b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default())).collect()
        }))
    }

    /// Vector-of-`u32` field `id`.
    pub fn u32s(&self, id: usize) -> Result<Vec<u32>, Fault> {
        Ok(self.vector(id, 4)?.map_or_else(Vec::new, |(b, _)| {
            b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default())).collect()
        }))
    }

    /// Table field `id`.
    pub fn table(&self, id: usize) -> Result<Option<Table<'a>>, Fault> {
        self.target(id)?.map(|at| Table::at(self.buf, at)).transpose()
    }

    /// Vector-of-tables field `id`.
    pub fn tables(&self, id: usize) -> Result<Vec<Table<'a>>, Fault> {
        let Some(at) = self.target(id)? else { return Ok(Vec::new()) };
        let Some((_, len)) = self.vector(id, 4)? else { return Ok(Vec::new()) };
        (0..len)
            .map(|i| {
                let slot = at + 4 + 4 * i;
                let offset = u32_at(self.buf, slot)? as usize;
                Table::at(self.buf, slot + offset)
            })
            .collect()
    }
}
