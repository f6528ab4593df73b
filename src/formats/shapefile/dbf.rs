//! Raw `.dbf` record decoding and text encodings.
//!
//! Records are decoded from their raw bytes rather than through dbase's record iterator, on purpose: that
//! iterator skips rows marked deleted, which would pair every later shape with the wrong attributes, and
//! builds a map per record; here every record is read (a deleted one is reported) and only the kept fields
//! are decoded, at fixed offsets. dbase still parses the header and field descriptors and supplies the code
//! pages. Text is decoded as [`super::encoding`] chooses, from the `.cpg` and the header; a value whose bytes
//! contradict the declared encoding is reported once per file, at the first value it garbles.

use std::io::{BufReader, ErrorKind, Read, Seek, SeekFrom};

use ::shapefile::dbase::{self, CodePageMark, FieldType};

use super::encoding::TextDecoder;
use super::files::{Member, Source};
use super::{Numbered, BUFFER};
use crate::crs::layer::Value;
use crate::model::error::{Error, Location, Problem, Result};

/// A `.dbf` table ready to be read: where the records are and how to decode each field.
pub(super) struct DbfTable {
    file: Member,
    pub(super) num_records: usize,
    /// Offset of the first record.
    start: u64,
    /// Bytes per record, the deletion flag included.
    record_len: usize,
    pub(super) fields: Vec<DbfField>,
    text: TextDecoder,
}

/// The records of a [`DbfTable`], read front to back in blocks.
pub(super) struct DbfRows {
    table: DbfTable,
    kept: Vec<usize>,
    reader: Box<dyn Source>,
    buf: Vec<u8>,
    /// The 1-based number of the next record.
    next: usize,
    /// Whether a text value has been reported as contradicting the declared encoding (once per file).
    told: bool,
}

impl DbfRows {
    /// Reads the next `count` records (fewer at the end of the table), decoding the kept fields; a record marked
    /// deleted is read all the same (its shape is still in the `.shp`) and reported.
    pub(super) fn read(&mut self, count: usize) -> Result<(Vec<Vec<Value>>, Numbered)> {
        let last = self.table.num_records.min(self.next.saturating_add(count).saturating_sub(1));
        self.read_records(self.next..last + 1)
    }

    /// Reads the records numbered `records` (from 1, at most the table's count), as [`DbfRows::read`] does,
    /// moving to each one from the last: forward through the buffer when it is near.
    pub(super) fn read_records(
        &mut self,
        records: impl IntoIterator<Item = usize>,
    ) -> Result<(Vec<Vec<Value>>, Numbered)> {
        let table = &self.table;
        let path = &table.file.path;
        let records = records.into_iter();
        let mut rows = Vec::with_capacity(records.size_hint().0);
        let mut problems = Vec::new();
        for record in records {
            if record != self.next {
                let records_away = record as i64 - self.next as i64;
                self.reader.skip(records_away * table.record_len as i64).map_err(|e| Error::io(path, e))?;
            }
            self.reader.read_exact(&mut self.buf).map_err(|e| match e.kind() {
                ErrorKind::UnexpectedEof => Error::format(path, super::cut_short(record)),
                _ => Error::io(path, e),
            })?;
            self.next = record + 1;
            if self.buf[0] == b'*' {
                let message =
                    "marked deleted in the .dbf but its shape is in the .shp, so it is read: delete the \
                               feature in a GIS (or undelete the row) to settle it";
                problems.push((record, Problem::new(path, Location::Record(record), message)));
            }
            let row = self
                .kept
                .iter()
                .map(|&i| {
                    let field = &table.fields[i];
                    let bytes = &self.buf[field.offset..field.offset + field.len];
                    // Padding is ASCII, so a field of ASCII bytes is ASCII text: only the others are
                    // looked at.
                    if !self.told && field.kind == FieldKind::Text && !bytes.is_ascii() {
                        if let Some(message) = table.text.contradiction(&field.name, trim_field(bytes)) {
                            self.told = true;
                            problems.push((record, Problem::new(path, Location::Record(record), message)));
                        }
                    }
                    table.decode(field, bytes).unwrap_or_else(|message| {
                        problems.push((record, Problem::new(path, Location::Record(record), message)));
                        Value::Null
                    })
                })
                .collect();
            rows.push(row);
        }
        Ok((rows, problems))
    }
}

/// One `.dbf` column.
pub(super) struct DbfField {
    pub(super) name: String,
    kind: FieldKind,
    /// Offset of the field within a record (after the deletion flag).
    offset: usize,
    len: usize,
}

/// How a column's bytes become a [`Value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    /// `C`: text.
    Text,
    /// `N`, `F`: a number written in ASCII.
    Number,
    /// `L`.
    Bool,
    /// `D`: `YYYYMMDD`, read as ISO text.
    Date,
    /// `I`: little-endian `i32`.
    Int32,
    /// `B` (8 bytes): little-endian `f64`.
    Float64,
    /// `Y`: little-endian `i64` in ten-thousandths.
    Currency,
    /// Memo, date-time and anything else: read as null.
    Other,
}

impl FieldKind {
    fn of(field_type: FieldType, len: usize) -> Self {
        match (field_type, len) {
            (FieldType::Character, _) => FieldKind::Text,
            (FieldType::Numeric | FieldType::Float, _) => FieldKind::Number,
            (FieldType::Logical, _) => FieldKind::Bool,
            (FieldType::Date, _) => FieldKind::Date,
            (FieldType::Integer, 4) => FieldKind::Int32,
            (FieldType::Double, 8) => FieldKind::Float64,
            (FieldType::Currency, 8) => FieldKind::Currency,
            _ => FieldKind::Other,
        }
    }
}

impl DbfTable {
    /// Reads the header of the `.dbf` `dbf`; the text encoding comes from the `.cpg` `cpg` if it names one,
    /// else from the code page the `.dbf` declares. An encoding that cannot be honoured is a problem, not an
    /// error: text is then read as UTF-8.
    pub(super) fn open(dbf: &Member, cpg: Option<&Member>) -> Result<(Self, Option<Problem>)> {
        let path = dbf.path.as_path();
        let mut file = BufReader::new(dbf.open(BUFFER)?.0);
        // The code page mark is byte 29 of the header; dbase needs the encoding before it reads the header. A
        // file too short to hold it is cut off: a format error, worded as Error::Dbase words dbase's own.
        let mut head = [0u8; 32];
        file.read_exact(&mut head).map_err(|e| {
            Error::format(path, format!("not a readable dBase table ({e}): re-export the layer"))
        })?;
        file.seek(SeekFrom::Start(0)).map_err(|e| Error::io(path, e))?;
        let label = match cpg {
            Some(cpg) => Some((cpg.path.as_path(), cpg.read()?)),
            None => None,
        };
        let label = label.map(|(cpg, bytes)| (cpg, String::from_utf8_lossy(&bytes).into_owned()));
        let (text, warning) =
            TextDecoder::choose(label.as_ref().map(|(_, l)| l.as_str()), CodePageMark::from(head[29]));
        let warned_file = label.as_ref().map_or(path, |(cpg, _)| *cpg);
        let problem = warning.map(|w| Problem::new(warned_file, Location::WholeFile, w));

        let reader = dbase::ReaderBuilder::new().with_encoding(text.for_names()).build(file);
        let reader = reader.map_err(|source| Error::Dbase { path: path.to_path_buf(), source })?;
        let mut offset = 1;
        let fields = reader
            .fields()
            .iter()
            .map(|info| {
                let len = usize::from(info.length());
                let field = DbfField {
                    name: info.name().trim().to_string(),
                    kind: FieldKind::of(info.field_type(), len),
                    offset,
                    len,
                };
                offset += len;
                field
            })
            .collect();
        let header = reader.header();
        let table = DbfTable {
            file: dbf.clone(),
            num_records: header.num_records as usize,
            start: u64::from(header.offset_to_first_record),
            record_len: offset,
            fields,
            text,
        };
        Ok((table, problem))
    }

    /// Opens the records for reading in blocks, decoding only the fields at indices `kept`. A file shorter
    /// than its header's record count is an error here, before any record is read.
    pub(super) fn rows(self, kept: Vec<usize>) -> Result<DbfRows> {
        let path = &self.file.path;
        let (mut reader, len) = self.file.open(BUFFER)?;
        let available = len.saturating_sub(self.start);
        let complete = usize::try_from(available).unwrap_or(usize::MAX) / self.record_len;
        if complete < self.num_records {
            return Err(Error::format(
                path,
                format!(
                    "holds {complete} complete records but its header says {}: the file is truncated; re-export \
                     the layer",
                    self.num_records
                ),
            ));
        }
        reader.seek(SeekFrom::Start(self.start)).map_err(|e| Error::io(path, e))?;
        let buf = vec![0u8; self.record_len];
        Ok(DbfRows { table: self, kept, reader, buf, next: 1, told: false })
    }

    /// One field's value; an unparsable value is an error message (the value is then null).
    fn decode(&self, field: &DbfField, bytes: &[u8]) -> Result<Value, String> {
        let trimmed = trim_field(bytes);
        let invalid = |what: &str| {
            let raw = String::from_utf8_lossy(trimmed);
            format!(
                "field {}: '{raw}' is not {what}, so it is read as empty: correct it in the .dbf",
                field.name
            )
        };
        let value = match field.kind {
            FieldKind::Text if trimmed.is_empty() => Value::Null,
            FieldKind::Text => Value::Text(self.text.decode(trimmed)),
            FieldKind::Number if trimmed.is_empty() || trimmed.iter().all(|&b| b == b'*') => Value::Null,
            FieldKind::Number => std::str::from_utf8(trimmed)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|n| n.is_finite())
                .map(Value::Number)
                .ok_or_else(|| invalid("a number"))?,
            FieldKind::Bool => match trimmed.first() {
                None | Some(b'?') => Value::Null,
                Some(b'T' | b't' | b'Y' | b'y' | b'1') => Value::Bool(true),
                Some(b'F' | b'f' | b'N' | b'n' | b'0') => Value::Bool(false),
                Some(_) => return Err(invalid("a logical value (T or F)")),
            },
            FieldKind::Date if trimmed.iter().all(|&b| b == b'0') => Value::Null,
            FieldKind::Date => {
                iso_date(trimmed).map(Value::Text).ok_or_else(|| invalid("a date (YYYYMMDD)"))?
            }
            FieldKind::Int32 => {
                bytes.try_into().map_or(Value::Null, |b| Value::Number(f64::from(i32::from_le_bytes(b))))
            }
            FieldKind::Float64 => bytes
                .try_into()
                .map(f64::from_le_bytes)
                .ok()
                .filter(|n| n.is_finite())
                .map_or(Value::Null, Value::Number),
            FieldKind::Currency => bytes
                .try_into()
                .map_or(Value::Null, |b| Value::Number(i64::from_le_bytes(b) as f64 / 10_000.0)),
            FieldKind::Other => Value::Null,
        };
        Ok(value)
    }
}

/// A field's bytes without the padding: cut at the first NUL, spaces trimmed from both ends.
///
/// Text fields are mostly padding (a 50-character owner field holding 20), so the NUL is found with `memchr`
/// and the trailing spaces are skipped eight at a time.
fn trim_field(bytes: &[u8]) -> &[u8] {
    let bytes = memchr::memchr(0, bytes).map_or(bytes, |end| &bytes[..end]);
    let mut stop = bytes.len();
    while stop >= 8 && bytes[stop - 8..stop] == [b' '; 8] {
        stop -= 8;
    }
    while stop > 0 && bytes[stop - 1] == b' ' {
        stop -= 1;
    }
    let start = bytes[..stop].iter().position(|&b| b != b' ').unwrap_or(stop);
    &bytes[start..stop]
}

/// `YYYYMMDD` as `YYYY-MM-DD`, if it is a real date.
fn iso_date(bytes: &[u8]) -> Option<Box<str>> {
    let text =
        std::str::from_utf8(bytes).ok().filter(|t| t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit()))?;
    let (year, month, day) = (text[..4].parse().ok()?, text[4..6].parse().ok()?, text[6..].parse().ok()?);
    chrono::NaiveDate::from_ymd_opt(year, month, day)?;
    Some(format!("{}-{}-{}", &text[..4], &text[4..6], &text[6..]).into())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use ::shapefile::dbase::{FieldValue, Record, TableWriterBuilder};
    use ::shapefile::Writer;

    use super::*;
    use crate::crs::layer::Layer;
    use crate::formats::shapefile::files::Files;
    use crate::formats::shapefile::test_support::{
        assumed, name, patch, write_attributes, write_with_ids, TempDir,
    };
    use crate::formats::shapefile::{field_names, read};

    #[test]
    fn padding_is_trimmed_as_the_byte_by_byte_rule_says() {
        // The rule, byte by byte: cut at the first NUL, then drop the spaces at both ends.
        fn by_bytes(bytes: &[u8]) -> &[u8] {
            let bytes = &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())];
            let start = bytes.iter().position(|&b| b != b' ').unwrap_or(bytes.len());
            let stop = bytes.iter().rposition(|&b| b != b' ').map_or(start, |i| i + 1);
            &bytes[start..stop]
        }
        let mut fields: Vec<Vec<u8>> = Vec::new();
        for width in 0..40 {
            for value in [&b""[..], b"A", b"Lake House", b"  two  words ", b"x\0after", b"\0", b"ab\0  cd "] {
                for lead in [0, 1, 9] {
                    let mut field = vec![b' '; lead];
                    field.extend_from_slice(value);
                    field.resize(field.len().max(width), b' ');
                    fields.push(field);
                }
            }
        }
        for field in &fields {
            assert_eq!(trim_field(field), by_bytes(field), "{:?}", String::from_utf8_lossy(field));
        }
        assert_eq!(trim_field(b"  Owasco Lake                       "), b"Owasco Lake");
        assert_eq!(trim_field(b"Auburn\0garbage after the NUL      "), b"Auburn");
        assert_eq!(trim_field(&[b' '; 33]), b"");
    }

    #[test]
    fn field_values_by_type() {
        let dir = TempDir::new("attrs");
        let shp = dir.path("systems.shp");
        write_attributes(&shp);
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(layer.fields, vec!["NAME", "ACRES", "SEPTIC", "BUILT", "DEPTH", "NOTE"]);
        assert_eq!(
            layer.features[0].values,
            vec![
                Value::Text("Lake House".into()),
                Value::Number(1.25),
                Value::Bool(true),
                Value::Text("1987-06-05".into()),
                Value::Number(2.5),
                Value::Null,
            ]
        );
        assert_eq!(layer.features[1].values, vec![Value::Null; 6]);
        assert_eq!(field_names(&shp).unwrap(), layer.fields);
    }

    #[test]
    fn deleted_and_unparsable_rows_are_kept_and_reported() {
        let dir = TempDir::new("deleted");
        let shp = dir.path("systems.shp");
        write_with_ids(&shp, &[::shapefile::Point::new(1., 2.), ::shapefile::Point::new(3., 4.)]);
        let dbf = dir.path("systems.dbf");
        // Header 32 + one 32-byte field descriptor + terminator = 65; records of 1 + 10 bytes.
        patch(&dbf, 65, b"*");
        patch(&dbf, 77, b"       abc");
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert_eq!(layer.features.len(), 2);
        assert_eq!(layer.features[0].values, vec![Value::Number(1.0)]);
        assert_eq!(layer.features[1].values, vec![Value::Null]);
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].location, Location::Record(1));
        assert!(problems[0].message.starts_with("marked deleted"), "{}", problems[0].message);
        assert_eq!(problems[1].location, Location::Record(2));
        assert!(
            problems[1].message.starts_with("field ID: 'abc' is not a number"),
            "{}",
            problems[1].message
        );
    }

    fn write_names(shp: &Path, names: &[&str]) {
        let table = TableWriterBuilder::new().add_character_field(name("NAME"), 10);
        let mut writer = Writer::from_path(shp, table).unwrap();
        for n in names {
            let record = Record::from(HashMap::from([(
                "NAME".to_string(),
                FieldValue::Character(Some(n.to_string())),
            )]));
            writer.write_shape_and_record(&::shapefile::Point::new(0., 0.), &record).unwrap();
        }
    }

    #[test]
    fn text_encoding_from_cpg_or_utf8_with_1252_fallback() {
        let dir = TempDir::new("cpg");
        let shp = dir.path("owners.shp");
        write_names(&shp, &["Cafe", "Café"]);
        // Record 1's NAME starts at 65 + 1: make its 'e' the single byte 0xE9.
        patch(&dir.path("owners.dbf"), 69, &[0xE9]);
        let names = |layer: &Layer| layer.features.iter().map(|f| f.values[0].clone()).collect::<Vec<_>>();

        let (layer, _) = read(&shp, &assumed()).unwrap();
        assert_eq!(names(&layer), vec![Value::Text("Café".into()), Value::Text("Café".into())]);

        std::fs::write(dir.path("owners.cpg"), "1251\n").unwrap();
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        // 0xE9 is й in Windows-1251; record 2's é is the two bytes of UTF-8, which the .cpg contradicts.
        assert_eq!(names(&layer), vec![Value::Text("Cafй".into()), Value::Text("Café".into())]);
        let told: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.location, p.message)).collect();
        assert_eq!(
            told,
            ["record 2: field NAME: 'Café' is UTF-8 though the .cpg says '1251', so it and every value like it \
              are read as UTF-8: write UTF-8 in the .cpg"]
        );

        // The other way round: a .cpg saying UTF-8 over a Windows-1252 byte, told at its record.
        std::fs::write(dir.path("owners.cpg"), "UTF-8").unwrap();
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert_eq!(names(&layer), vec![Value::Text("Café".into()), Value::Text("Café".into())]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].location.to_string(), "record 1");
        assert!(problems[0]
            .message
            .starts_with("field NAME: 'Café' is not UTF-8 though the .cpg says 'UTF-8'"));

        std::fs::write(dir.path("owners.cpg"), "KLINGON").unwrap();
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert_eq!(names(&layer)[1], Value::Text("Café".into()));
        // The header the file was written with declares UTF-8, which record 1's byte contradicts in turn.
        assert_eq!(problems.len(), 2);
        assert!(problems[0].message.starts_with("unknown encoding 'KLINGON'"), "{}", problems[0].message);
        assert!(problems[1].message.contains("not UTF-8 though the .dbf header declares UTF-8"));
    }

    #[test]
    fn binary_and_text_fields_decode() {
        let table = DbfTable {
            file: Files::Disk("t.shp".into()).main().unwrap(),
            num_records: 0,
            start: 0,
            record_len: 1,
            fields: Vec::new(),
            text: TextDecoder::choose(None, CodePageMark::Undefined).0,
        };
        let field = |kind, len| DbfField { name: "F".into(), kind, offset: 1, len };
        let decode = |kind, bytes: &[u8]| table.decode(&field(kind, bytes.len()), bytes);
        assert_eq!(decode(FieldKind::Int32, &(-7i32).to_le_bytes()), Ok(Value::Number(-7.0)));
        assert_eq!(decode(FieldKind::Currency, &123_456i64.to_le_bytes()), Ok(Value::Number(12.3456)));
        assert_eq!(decode(FieldKind::Float64, &2.5f64.to_le_bytes()), Ok(Value::Number(2.5)));
        assert_eq!(decode(FieldKind::Float64, &f64::NAN.to_le_bytes()), Ok(Value::Null));
        assert_eq!(decode(FieldKind::Number, b"  1.5e3 "), Ok(Value::Number(1500.0)));
        assert_eq!(decode(FieldKind::Number, b"*****"), Ok(Value::Null));
        assert!(decode(FieldKind::Number, b"  nan").is_err());
        assert_eq!(decode(FieldKind::Date, b"        "), Ok(Value::Null));
        assert_eq!(decode(FieldKind::Date, b"00000000"), Ok(Value::Null));
        assert!(decode(FieldKind::Date, b"20230230").unwrap_err().contains("is not a date"));
        assert_eq!(decode(FieldKind::Bool, b"?"), Ok(Value::Null));
        assert_eq!(decode(FieldKind::Bool, b"t"), Ok(Value::Bool(true)));
        assert_eq!(decode(FieldKind::Bool, b"N"), Ok(Value::Bool(false)));
        assert!(decode(FieldKind::Bool, b"x").is_err());
        assert_eq!(decode(FieldKind::Text, b" a b\0junk"), Ok(Value::Text("a b".into())));
        assert_eq!(decode(FieldKind::Other, b"12345678"), Ok(Value::Null));
    }
}
