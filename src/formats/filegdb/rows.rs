//! A table's rows: where each live row lies (the `.gdbtablx` offsets), its bytes, and its values.
//!
//! The `.gdbtablx` holds, for each object id from 1, the row's offset in the `.gdbtable` on 4 to 6 bytes, or
//! 0 for a row deleted or never written; a table whose ids have gaps of whole blocks of 1024 stores only the
//! blocks present, with a bitmap of them after the offsets. The live rows are taken in object-id order,
//! which is the file order every reader gives; their number must be the one the `.gdbtable` header declares.
//!
//! A row is its size (4 bytes), a bit for each nullable field (set when null), then the value of each field
//! that is not null, in field order: fixed-size numbers, text and blobs as a variable-length size and its
//! bytes. A row whose size reaches beyond the file stops the read, naming the table; a row whose values do
//! not fit in its size is one bad record.

use std::io::SeekFrom;
use std::path::{Path, PathBuf};

use chrono::{Duration, NaiveDate};

use super::cursor::{Cursor, Cut};
use super::folder::{Folder, Source};
use super::table::{Header, Kind, EXPORT};
use crate::crs::layer::Value;
use crate::model::error::{Error, Result};

/// A live row: its object id and its offset in the `.gdbtable`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Row {
    pub oid: u64,
    pub offset: u64,
}

/// The live rows of the table whose index is the file `tablx` of `gdb`, in object-id order, each offset inside
/// the `.gdbtable` (`table`) of `len` bytes; `header` says how many there must be.
pub(super) fn live_rows(
    gdb: &Folder,
    tablx: &str,
    table: &Path,
    header: &Header,
    len: u64,
) -> Result<Vec<Row>> {
    let bytes = gdb.read(tablx)?;
    let tablx = gdb.path(tablx);
    let rows = index_rows(&bytes, len).map_err(|what| {
        let table = table.display();
        Error::format(
            &tablx,
            format!("{what}: the index of {table} is damaged, or the table cut short; {EXPORT}"),
        )
    })?;
    if rows.len() as u64 != header.rows {
        return Err(Error::format(
            table,
            format!(
                "declares {} rows but its index {} lists {}: the table is damaged; {EXPORT}",
                header.rows,
                tablx.display(),
                rows.len()
            ),
        ));
    }
    Ok(rows)
}

/// The live rows an index lists, each offset checked against the table's length `len`.
fn index_rows(bytes: &[u8], len: u64) -> Cut<Vec<Row>> {
    let mut c = Cursor::new(bytes);
    let version = c.u32()?;
    if version != 3 {
        return Err(format!("version {version} (3 expected)"));
    }
    let blocks = u64::from(c.u32()?);
    let total = c.i32()?;
    let size = c.u32()? as usize;
    if !(4..=6).contains(&size) {
        return Err(format!("offsets of {size} bytes (4 to 6 expected)"));
    }
    let total = u64::try_from(total).map_err(|_| format!("a row count of {total}"))?;
    let stored = blocks * 1024;
    if stored.saturating_mul(size as u64) > c.left() as u64 {
        return Err(format!("{blocks} blocks of offsets declared in {} bytes", bytes.len()));
    }
    let offsets = c.take(stored as usize * size)?;
    // The blocks present, when the index stores only some: a bitmap after a 16-byte trailer.
    let mut map: Option<(&[u8], u64)> = None;
    if blocks > 0 {
        let words = c.u32()?;
        let bits = u64::from(c.u32()?);
        let again = u64::from(c.u32()?);
        let _leading = c.u32()?;
        if again != blocks {
            return Err(format!("{blocks} blocks in the header but {again} in the trailer"));
        }
        if words != 0 {
            let bytes = c.take(bits.div_ceil(8) as usize)?;
            let marked: u64 = bytes.iter().map(|b| u64::from(b.count_ones())).sum();
            if marked != blocks || (bits % 8 != 0 && bytes[bytes.len() - 1] >> (bits % 8) != 0) {
                return Err(format!("a block bitmap that does not mark its {blocks} blocks"));
            }
            map = Some((bytes, bits));
        }
    }
    let span = map.map_or(stored, |(_, bits)| bits * 1024);
    if total > span {
        return Err(format!("{total} rows in {span} places"));
    }
    let mut rows = Vec::new();
    let mut slot = 0usize;
    for block in 0..total.div_ceil(1024) {
        if let Some((bytes, _)) = map {
            if bytes[(block / 8) as usize] & (1 << (block % 8)) == 0 {
                continue;
            }
        }
        for oid in block * 1024 + 1..=total.min(block * 1024 + 1024) {
            let at = slot * size;
            slot += 1;
            let mut offset = [0u8; 8];
            offset[..size].copy_from_slice(&offsets[at..at + size]);
            let offset = u64::from_le_bytes(offset);
            if offset == 0 {
                continue;
            }
            if offset.saturating_add(4) > len {
                return Err(format!("object id {oid} at byte {offset}, beyond the table's {len} bytes"));
            }
            rows.push(Row { oid, offset });
        }
    }
    Ok(rows)
}

/// The `.gdbtable` open for reading rows.
pub(super) struct TableFile {
    file: Box<dyn Source>,
    path: PathBuf,
    len: u64,
}

impl TableFile {
    /// Opens the file `name` of `gdb`.
    pub(super) fn open(gdb: &Folder, name: &str) -> Result<Self> {
        let (file, len) = gdb.open(name)?;
        Ok(TableFile { file, path: gdb.path(name), len })
    }

    /// The table's length when opened.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// The file, to read its header.
    pub(super) fn file(&mut self) -> &mut dyn Source {
        &mut self.file
    }

    /// The bytes of `row` after its size; a size reaching beyond the file stops the read.
    pub(super) fn read(&mut self, row: Row) -> Result<Vec<u8>> {
        let cut = |_| {
            Error::format(
                &self.path,
                "was cut short while it was read; read it again once it is whole".to_string(),
            )
        };
        self.file.seek(SeekFrom::Start(row.offset)).map_err(|e| Error::io(&self.path, e))?;
        let mut size = [0u8; 4];
        self.file.read_exact(&mut size).map_err(cut)?;
        let size = i32::from_le_bytes(size);
        let fits = u64::try_from(size).is_ok_and(|s| row.offset + 4 + s <= self.len);
        if !fits {
            let what = if size < 0 { "is marked deleted".to_string() } else { format!("has {size} bytes") };
            return Err(Error::format(
                &self.path,
                format!(
                    "the row of object id {} at byte {} {what}, beyond the file's {} bytes: the table is \
                     damaged; {EXPORT}",
                    row.oid, row.offset, self.len
                ),
            ));
        }
        let mut bytes = vec![0u8; size as usize];
        self.file.read_exact(&mut bytes).map_err(cut)?;
        Ok(bytes)
    }
}

/// A row's values, one for each field of the header (null for the object id, the geometry, binary and
/// raster fields), and its geometry blob.
pub(super) struct Decoded<'a> {
    pub values: Vec<Value>,
    pub geometry: Option<&'a [u8]>,
}

/// Decodes the values of a row's `bytes`; what cannot be decoded is the message.
pub(super) fn decode<'a>(header: &Header, bytes: &'a [u8]) -> Cut<Decoded<'a>> {
    let mut c = Cursor::new(bytes);
    let flags =
        c.take(header.null_flags).map_err(|_| "the row is shorter than its null flags".to_string())?;
    let mut nullable = 0;
    let mut values = Vec::with_capacity(header.fields.len());
    let mut geometry = None;
    for field in &header.fields {
        if field.nullable {
            let null = flags[nullable / 8] & (1 << (nullable % 8)) != 0;
            nullable += 1;
            if null {
                values.push(Value::Null);
                continue;
            }
        }
        let value = value(&mut c, field.kind, header.utf8, &mut geometry)
            .map_err(|what| format!("field '{}': {what}", field.name))?;
        values.push(value);
    }
    Ok(Decoded { values, geometry })
}

/// The value of one field of kind `kind`; a geometry's blob goes to `geometry`.
fn value<'a>(c: &mut Cursor<'a>, kind: Kind, utf8: bool, geometry: &mut Option<&'a [u8]>) -> Cut<Value> {
    let number = |n: f64| Value::Number(n);
    Ok(match kind {
        Kind::ObjectId => Value::Null,
        Kind::Int16 => number(f64::from(c.i16()?)),
        Kind::Int32 => number(f64::from(c.i32()?)),
        Kind::Int64 => number(c.i64()? as f64),
        Kind::Float32 => number(f64::from(c.f32()?)),
        Kind::Float64 => number(c.f64()?),
        Kind::Text => {
            let n = c.length("text")?;
            let bytes = c.take(n)?;
            let text = if utf8 {
                std::str::from_utf8(bytes).map_err(|_| "text that is not UTF-8".to_string())?.to_string()
            } else {
                Cursor::new(bytes).utf16(n / 2)?
            };
            match text.trim() {
                "" => Value::Null,
                text => Value::Text(text.into()),
            }
        }
        Kind::Geometry => {
            let n = c.length("a geometry")?;
            *geometry = Some(c.take(n)?);
            Value::Null
        }
        Kind::Binary | Kind::Xml | Kind::Raster { managed: false } => {
            let n = c.length("a blob")?;
            c.take(n)?;
            Value::Null
        }
        Kind::Raster { managed: true } => {
            c.i32()?;
            Value::Null
        }
        Kind::Guid => Value::Text(guid(c.take(16)?).into()),
        Kind::DateTime | Kind::Date => date_time(c.f64()?, None)?,
        Kind::DateTimeOffset => {
            let days = c.f64()?;
            date_time(days, Some(c.i16()?))?
        }
        Kind::Time => {
            let day = c.f64()?;
            if !(0.0..1.0).contains(&day) {
                return Err(format!("a time of day of {day} days"));
            }
            let seconds = (day * 86_400.0).round() as u32;
            Value::Text(format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60).into())
        }
    })
}

/// A GUID as ArcGIS shows it: `{78563412-BC9A-F0DE-1234-567890ABCDEF}` for the bytes 12 34 56 78 9A BC DE F0
/// 12 34 56 78 90 AB CD EF (the first three groups little-endian).
fn guid(b: &[u8]) -> String {
    let hex = |range: &[usize]| range.iter().map(|&i| format!("{:02X}", b[i])).collect::<String>();
    format!(
        "{{{}-{}-{}-{}-{}}}",
        hex(&[3, 2, 1, 0]),
        hex(&[5, 4]),
        hex(&[7, 6]),
        hex(&[8, 9]),
        hex(&[10, 11, 12, 13, 14, 15])
    )
}

/// Days since 1899-12-30 (the time of day as the fraction) as ISO 8601: `2024-05-01` at midnight,
/// `2024-05-01T13:30:00` otherwise, with `+HH:MM` when the offset from UTC (in minutes) is given.
fn date_time(days: f64, offset: Option<i16>) -> Cut<Value> {
    // Years 1 to 9999, ±3.65 million days around 1899.
    if !(days.is_finite() && (-693_593.0..=2_958_465.0).contains(&days)) {
        return Err(format!("a date of {days} days since 1899-12-30"));
    }
    let seconds = (days * 86_400.0).round() as i64;
    let epoch = NaiveDate::from_ymd_opt(1899, 12, 30).expect("a date").and_hms_opt(0, 0, 0).expect("a time");
    let at = epoch + Duration::seconds(seconds);
    let mut text = if seconds.rem_euclid(86_400) == 0 && offset.is_none() {
        at.format("%Y-%m-%d").to_string()
    } else {
        at.format("%Y-%m-%dT%H:%M:%S").to_string()
    };
    if let Some(minutes) = offset {
        let sign = if minutes < 0 { '-' } else { '+' };
        let m = minutes.unsigned_abs();
        text.push_str(&format!("{sign}{:02}:{:02}", m / 60, m % 60));
    }
    Ok(Value::Text(text.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `offsets` (0 for a deleted row) on 5 bytes, dense, as GDAL writes it.
    fn index(offsets: &[u64]) -> Vec<u8> {
        let blocks = offsets.len().div_ceil(1024) as u32;
        let mut out =
            [3u32, blocks, offsets.len() as u32, 5].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>();
        let mut slots = vec![0u8; blocks as usize * 1024 * 5];
        for (i, o) in offsets.iter().enumerate() {
            slots[i * 5..i * 5 + 5].copy_from_slice(&o.to_le_bytes()[..5]);
        }
        out.extend(slots);
        out.extend([0u32, blocks, blocks, 0].iter().flat_map(|v| v.to_le_bytes()));
        out
    }

    #[test]
    fn deleted_rows_are_skipped_and_the_others_keep_their_object_ids() {
        let rows = index_rows(&index(&[100, 0, 300]), 1000).unwrap();
        assert_eq!(rows, vec![Row { oid: 1, offset: 100 }, Row { oid: 3, offset: 300 }]);
    }

    #[test]
    fn offsets_beyond_the_table_and_counts_beyond_the_index_are_refused() {
        let err = index_rows(&index(&[100, 5000]), 1000).unwrap_err();
        assert_eq!(err, "object id 2 at byte 5000, beyond the table's 1000 bytes");
        let mut huge = index(&[100]);
        huge[4..8].copy_from_slice(&3_000_000u32.to_le_bytes());
        assert!(index_rows(&huge, 1000).unwrap_err().contains("3000000 blocks of offsets declared in"));
        let mut many = index(&[100]);
        many[8..12].copy_from_slice(&5000u32.to_le_bytes());
        assert_eq!(index_rows(&many, 1000).unwrap_err(), "5000 rows in 1024 places");
    }

    #[test]
    fn a_sparse_index_reads_only_the_blocks_its_bitmap_marks() {
        // Object ids 1..=2048 of which only the second block (ids 1025..) is stored.
        let mut out = [3u32, 1, 2048, 4].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>();
        let mut slots = vec![0u8; 1024 * 4];
        slots[..4].copy_from_slice(&200u32.to_le_bytes());
        out.extend(slots);
        out.extend([32u32, 2, 1, 1].iter().flat_map(|v| v.to_le_bytes()));
        out.push(0b10);
        assert_eq!(index_rows(&out, 1000).unwrap(), vec![Row { oid: 1025, offset: 200 }]);
    }

    #[test]
    fn dates_are_days_since_1899_12_30() {
        // 45413 days after 1899-12-30 is 2024-05-01 (hand count: 1900-01-01 is day 2, 2024-05-01 is 45413).
        assert_eq!(date_time(45413.0, None), Ok(Value::Text("2024-05-01".into())));
        assert_eq!(date_time(45413.5625, None), Ok(Value::Text("2024-05-01T13:30:00".into())));
        assert_eq!(date_time(2.0, Some(-300)), Ok(Value::Text("1900-01-01T00:00:00-05:00".into())));
        assert!(date_time(f64::NAN, None).is_err());
        assert!(date_time(1e300, None).is_err());
    }

    #[test]
    fn guids_print_as_arcgis_shows_them() {
        let bytes =
            [0x78, 0x56, 0x34, 0x12, 0xbc, 0x9a, 0xf0, 0xde, 0x12, 0x34, 0x56, 0x78, 0x90, 0xab, 0xcd, 0xef];
        assert_eq!(guid(&bytes), "{12345678-9ABC-DEF0-1234-567890ABCDEF}");
    }
}
