//! The `.shp` and `.shx` readers, bounded by the files' sizes.
//!
//! Shapes are read here rather than by the `shapefile` crate, on purpose: a damaged record length, part count
//! or point count must never make a reader loop, seek outside the file or allocate more than the file could
//! hold. Every count and offset read from either file is checked against the bytes that are there before it
//! is used, and the `.shx` is cross-checked with the `.shp`: each index entry must point inside the `.shp` at
//! a record header of its own record number (in a file that numbers its records) claiming the same length,
//! and the `.shp` must hold nothing after the last record the `.shx` lists ([`ShpFile::unindexed`]). A record
//! failing a check keeps its place with an error; only a damaged file header stops the read.

use std::io::Read;

use geo::Coord;

use super::files::{Member, Source};
use super::BUFFER;
use crate::model::error::{Error, Result};

/// The file code that opens both files (big-endian).
const FILE_CODE: i32 = 9994;
/// The main file header of both files.
const HEADER: usize = 100;
/// A `.shp` record header: record number and content length (big-endian).
const RECORD_HEADER: u64 = 8;
/// One `.shx` entry: offset and content length, in 16-bit words (big-endian).
const INDEX_ENTRY: usize = 8;
const FIX_REEXPORT: &str = "re-export the layer from the GIS";

/// One record's place in the `.shp`, from the `.shx`, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    /// Offset of the record header.
    pub(super) offset: u64,
    /// Length of the record content (after its header).
    pub(super) length: u64,
}

/// One shape record, in the plain 2-D terms the reader needs: Z and M values are dropped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// Shape type 0: no geometry.
    Null,
    /// Shape types 1, 11, 21.
    Point(Coord<f64>),
    /// Shape types 8, 18, 28.
    MultiPoint(Vec<Coord<f64>>),
    /// Shape types 3, 13, 23: the parts.
    Polyline(Vec<Vec<Coord<f64>>>),
    /// Shape types 5, 15, 25: the rings, in file order.
    Polygon(Vec<Vec<Coord<f64>>>),
    /// Shape type 31: a 3-D surface.
    Multipatch,
}

/// Parses a whole `.shx`: the checked index entries. Errors say what is wrong with the file.
pub(super) fn parse_index(bytes: &[u8]) -> std::result::Result<Vec<Entry>, String> {
    check_header(bytes)?;
    let declared = declared_length(bytes);
    if declared != bytes.len() as u64 {
        return Err(format!(
            "its header says it has {declared} bytes but it has {}: it is truncated or damaged; {FIX_REEXPORT}",
            bytes.len()
        ));
    }
    let body = &bytes[HEADER..];
    if body.len() % INDEX_ENTRY != 0 {
        return Err(format!(
            "{} bytes after the last whole index entry: it is truncated or damaged; {FIX_REEXPORT}",
            body.len() % INDEX_ENTRY
        ));
    }
    Ok(body
        .chunks_exact(INDEX_ENTRY)
        .map(|entry| Entry { offset: words(&entry[0..4]), length: words(&entry[4..8]) })
        .collect())
}

/// Checks the 100-byte file header both files share: present and opening with the file code.
fn check_header(bytes: &[u8]) -> std::result::Result<(), String> {
    if bytes.len() < HEADER {
        return Err(format!(
            "{} bytes, shorter than the {HEADER}-byte shapefile header: it is truncated; {FIX_REEXPORT}",
            bytes.len()
        ));
    }
    let code = i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if code != FILE_CODE {
        return Err(format!("does not start with the shapefile file code {FILE_CODE}: {FIX_REEXPORT}"));
    }
    Ok(())
}

/// The file length the header declares, in bytes.
fn declared_length(header: &[u8]) -> u64 {
    words(&header[24..28])
}

/// A big-endian count of 16-bit words as bytes; a negative count reads as a huge one, which every bounds
/// check then rejects.
fn words(bytes: &[u8]) -> u64 {
    let w = i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    u64::from(w as u32) * 2
}

/// An open `.shp`, read record by record at the offsets the `.shx` gives.
pub(super) struct ShpFile {
    reader: Box<dyn Source>,
    /// The file size in bytes.
    size: u64,
    /// The file length the header declares, in bytes.
    declared: u64,
    /// Whether the file numbers its records from 1, as the format says: its first record is numbered 1. Some
    /// writers number every record 0; their record numbers say nothing and are not checked.
    numbered: bool,
    /// The reader's position in bytes.
    position: u64,
}

impl ShpFile {
    /// Opens the `.shp` and checks its header.
    pub(super) fn open(shp: &Member) -> Result<Self> {
        let path = &shp.path;
        let (mut reader, size) = shp.open(BUFFER)?;
        let mut header = vec![0u8; HEADER.min(size as usize)];
        reader.read_exact(&mut header).map_err(|e| Error::io(path, e))?;
        check_header(&header).map_err(|message| Error::format(path, message))?;
        // The first record's number, where the file has a first record.
        let (numbered, position) = match size >= HEADER as u64 + RECORD_HEADER {
            true => {
                let mut first = [0u8; 4];
                reader.read_exact(&mut first).map_err(|e| Error::io(path, e))?;
                (i32::from_be_bytes(first) == 1, HEADER as u64 + 4)
            }
            false => (false, HEADER as u64),
        };
        Ok(ShpFile { reader, size, declared: declared_length(&header), numbered, position })
    }

    /// What is wrong with the `.shp` beyond the records the `.shx` entries `index` list: bytes after the last
    /// of them (records the `.shx` does not list, which are not read), or a length in the header that is not
    /// the file's. `None` when the two agree.
    pub(super) fn unindexed(&self, index: &[Entry]) -> Option<String> {
        let end = index.iter().map(|e| e.offset.saturating_add(RECORD_HEADER).saturating_add(e.length)).max();
        let end = end.unwrap_or(HEADER as u64);
        if end < self.size {
            return Some(format!(
                "the .shp has {} bytes after the last of the {} records its .shx lists: it holds records the .shx \
                 does not list, which are not read (a .shx of an older copy of the layer); {FIX_REEXPORT}",
                self.size - end,
                index.len()
            ));
        }
        (self.declared != self.size).then(|| {
            format!(
                "the .shp's header gives its length as {} bytes but it has {}: {FIX_REEXPORT}",
                self.declared, self.size
            )
        })
    }

    /// Reads the record that `entry` (record number `record`) points to. The error says what is wrong with the
    /// record; an I/O error stops the read.
    pub(super) fn read(
        &mut self,
        record: usize,
        entry: Entry,
    ) -> std::io::Result<std::result::Result<Shape, String>> {
        let content_end = entry.offset.checked_add(RECORD_HEADER).and_then(|o| o.checked_add(entry.length));
        if entry.offset < HEADER as u64 || content_end.is_none_or(|end| end > self.size) {
            return Ok(Err(format!(
                "the .shx puts it at bytes {}..{} but the .shp has {} bytes: the .shx and .shp are out of step",
                entry.offset,
                content_end.map_or_else(|| "?".to_string(), |e| e.to_string()),
                self.size
            )));
        }
        if self.position != entry.offset {
            let delta = entry.offset as i64 - self.position as i64;
            self.reader.skip(delta)?;
            self.position = entry.offset;
        }
        let mut header = [0u8; RECORD_HEADER as usize];
        self.reader.read_exact(&mut header)?;
        self.position += RECORD_HEADER;
        let number = i32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        if self.numbered && usize::try_from(number).ok() != Some(record) {
            return Ok(Err(format!(
                "the .shx points to the .shp's record {number} for it: the .shx and .shp are out of step (a .shx \
                 of another copy of the layer); {FIX_REEXPORT}"
            )));
        }
        let length = words(&header[4..8]);
        if length != entry.length {
            return Ok(Err(format!(
                "its header in the .shp gives a length of {length} bytes but the .shx gives {}: the .shx and \
                 .shp are out of step",
                entry.length
            )));
        }
        // Bounded: the length was checked against the file size above.
        let mut content = vec![0u8; length as usize];
        self.reader.read_exact(&mut content)?;
        self.position += length;
        Ok(parse_shape(&content))
    }
}

/// Parses one record's content (shape type first). Every count is checked against the bytes there.
pub(crate) fn parse_shape(content: &[u8]) -> std::result::Result<Shape, String> {
    let mut bytes = Cursor { bytes: content, at: 0 };
    let shape_type = bytes.i32()?;
    match shape_type {
        0 => Ok(Shape::Null),
        1 | 11 | 21 => Ok(Shape::Point(bytes.coord()?)),
        8 | 18 | 28 => {
            bytes.skip(32)?; // bounding box
            let count = bytes.count("points", 16)?;
            Ok(Shape::MultiPoint(bytes.coords(count)?))
        }
        3 | 13 | 23 => Ok(Shape::Polyline(bytes.parts()?)),
        5 | 15 | 25 => Ok(Shape::Polygon(bytes.parts()?)),
        31 => Ok(Shape::Multipatch),
        other => Err(format!("unknown shape type {other}")),
    }
}

/// Little-endian reads from a record's content that never go past its end.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(format!(
                "the record ends after {} bytes where {} are needed",
                self.bytes.len(),
                self.at.saturating_add(n)
            ));
        }
        let taken = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(taken)
    }

    fn skip(&mut self, n: usize) -> std::result::Result<(), String> {
        self.take(n).map(|_| ())
    }

    fn i32(&mut self) -> std::result::Result<i32, String> {
        let b = self.take(4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f64(&mut self) -> std::result::Result<f64, String> {
        let b = self.take(8)?;
        Ok(f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    fn coord(&mut self) -> std::result::Result<Coord<f64>, String> {
        Ok(Coord { x: self.f64()?, y: self.f64()? })
    }

    /// A count of items of `size` bytes each, which must be non-negative and fit in the bytes left.
    fn count(&mut self, what: &str, size: usize) -> std::result::Result<usize, String> {
        let n = self.i32()?;
        let left = self.bytes.len() - self.at;
        match usize::try_from(n) {
            Ok(n) if n <= left / size => Ok(n),
            _ => Err(format!(
                "it claims {n} {what} but its {left} remaining bytes hold at most {}",
                left / size
            )),
        }
    }

    fn coords(&mut self, count: usize) -> std::result::Result<Vec<Coord<f64>>, String> {
        (0..count).map(|_| self.coord()).collect()
    }

    /// The parts of a polyline or polygon: bounding box, part and point counts, part starts, points. The part
    /// starts must begin at 0 and rise strictly below the point count, so every part has a point.
    fn parts(&mut self) -> std::result::Result<Vec<Vec<Coord<f64>>>, String> {
        self.skip(32)?; // bounding box
        let (parts, points) = (self.i32()?, self.i32()?);
        let left = self.bytes.len() - self.at;
        let fits = match (usize::try_from(parts), usize::try_from(points)) {
            (Ok(parts), Ok(points)) => {
                parts.checked_mul(4).zip(points.checked_mul(16)).and_then(|(a, b)| a.checked_add(b))
                    <= Some(left)
            }
            _ => false,
        };
        if !fits {
            return Err(format!(
                "it claims {parts} parts and {points} points but its {left} remaining bytes cannot hold them"
            ));
        }
        let (parts, points) = (parts as usize, points as usize);
        let mut starts = Vec::with_capacity(parts);
        for _ in 0..parts {
            starts.push(self.i32()?);
        }
        let coords = self.coords(points)?;
        // Each part starts after the one before (so it has a point) and inside the points; the first at 0.
        for (i, &start) in starts.iter().enumerate() {
            let after = if i == 0 { start == 0 } else { start > starts[i - 1] };
            if !after || start as usize >= points.max(1) {
                return Err(format!(
                    "part {} starts at point {start}, which does not follow the previous part within the {points} \
                     points",
                    i + 1
                ));
            }
        }
        let ends = starts.iter().skip(1).map(|&e| e as usize).chain([points]);
        let out = starts.iter().zip(ends).map(|(&start, end)| coords[start as usize..end].to_vec()).collect();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polyline(shape_type: i32, parts: &[i32], points: &[(f64, f64)]) -> Vec<u8> {
        let mut b = shape_type.to_le_bytes().to_vec();
        b.extend([0u8; 32]);
        b.extend((parts.len() as i32).to_le_bytes());
        b.extend((points.len() as i32).to_le_bytes());
        parts.iter().for_each(|p| b.extend(p.to_le_bytes()));
        points.iter().for_each(|(x, y)| {
            b.extend(x.to_le_bytes());
            b.extend(y.to_le_bytes());
        });
        b
    }

    #[test]
    fn parts_are_split_at_their_starts() {
        let bytes = polyline(3, &[0, 2], &[(0., 0.), (1., 1.), (2., 2.), (3., 3.), (4., 4.)]);
        let c = |x: f64| Coord { x, y: x };
        assert_eq!(
            parse_shape(&bytes),
            Ok(Shape::Polyline(vec![vec![c(0.), c(1.)], vec![c(2.), c(3.), c(4.)]]))
        );
    }

    #[test]
    fn counts_beyond_the_record_are_errors_not_allocations() {
        let mut bytes = polyline(5, &[0], &[(0., 0.), (1., 1.)]);
        // Point count 2 -> i32::MAX.
        bytes[40..44].copy_from_slice(&i32::MAX.to_le_bytes());
        let err = parse_shape(&bytes).unwrap_err();
        assert!(err.contains("claims 1 parts and 2147483647 points"), "{err}");
        bytes[40..44].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(parse_shape(&bytes).unwrap_err().contains("-1 points"));
        let mut bytes = polyline(8, &[], &[]);
        bytes.truncate(36);
        bytes.extend(1000i32.to_le_bytes());
        let err = parse_shape(&bytes).unwrap_err();
        assert!(err.contains("claims 1000 points"), "{err}");
    }

    #[test]
    fn part_starts_must_rise_within_the_points() {
        let points = [(0., 0.), (1., 1.), (2., 2.)];
        for parts in [&[1][..], &[0, 0], &[0, 3], &[0, 5], &[0, 2, 1], &[0, 2, 7], &[0, -1]] {
            let err = parse_shape(&polyline(3, parts, &points)).unwrap_err();
            assert!(err.contains("starts at point"), "{parts:?}: {err}");
        }
        assert!(parse_shape(&polyline(3, &[0, 2], &points)).is_ok());
    }

    #[test]
    fn short_records_and_unknown_types_are_errors() {
        assert!(parse_shape(&[]).unwrap_err().contains("ends after 0 bytes"));
        assert!(parse_shape(&1i32.to_le_bytes()).unwrap_err().contains("ends after 4 bytes"));
        assert_eq!(parse_shape(&77i32.to_le_bytes()), Err("unknown shape type 77".to_string()));
    }

    #[test]
    fn index_must_match_its_declared_length() {
        let mut shx = vec![0u8; 116];
        shx[0..4].copy_from_slice(&FILE_CODE.to_be_bytes());
        shx[24..28].copy_from_slice(&58i32.to_be_bytes());
        shx[100..104].copy_from_slice(&50i32.to_be_bytes());
        shx[104..108].copy_from_slice(&10i32.to_be_bytes());
        assert_eq!(parse_index(&shx).unwrap()[0], Entry { offset: 100, length: 20 });
        assert!(parse_index(&shx[..112]).unwrap_err().contains("says it has 116 bytes but it has 112"));
        assert!(parse_index(&shx[..50]).unwrap_err().contains("shorter than the 100-byte"));
        shx[3] = 0;
        assert!(parse_index(&shx).unwrap_err().contains("file code"));
    }
}
