//! The first image directory (IFD) of a TIFF or BigTIFF, checked in a few small reads before the `tiff`
//! crate opens the file: the crate reads every tag's values (the strip and tile offsets among them) when it
//! opens a file, within bounds of its own that are looser than ours, so a tag claiming billions of values,
//! or values past the end of the file, is refused here first, and so is a strip or tile that lies past the
//! end of the file (a download cut short). The compression is checked here too, so that a JPEG-compressed
//! image gets a message of its own.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::model::error::{Error, Result};

/// The most bytes one tag's values may take (the offsets of a county-wide tiled DEM fit many times over).
pub(super) const MAX_TAG_BYTES: u64 = 32 * 1024 * 1024;

/// The most entries an IFD may have: a classic TIFF's limit, which no real BigTIFF comes near.
const MAX_ENTRIES: u64 = 65_535;

/// Compression methods the reader decodes: none, LZW, Deflate (both codes), PackBits and ZSTD.
const READABLE: [u16; 6] = [1, 5, 8, 32946, 32773, 50000];

/// JPEG (old and new) and the lossy JPEG of DNG.
const JPEG: [u16; 3] = [6, 7, 34892];

/// Bytes per value of a TIFF field type; `None` for a type no reader knows (the `tiff` crate skips it).
fn type_size(field_type: u16) -> Option<u64> {
    match field_type {
        1 | 2 | 6 | 7 => Some(1),
        3 | 8 => Some(2),
        4 | 9 | 11 | 13 => Some(4),
        5 | 10 | 12 | 16 | 17 | 18 => Some(8),
        _ => None,
    }
}

/// A tag's name in messages, for the tags that place the pixels.
fn tag_name(tag: u16) -> String {
    match tag {
        273 => "StripOffsets (273)".into(),
        279 => "StripByteCounts (279)".into(),
        324 => "TileOffsets (324)".into(),
        325 => "TileByteCounts (325)".into(),
        _ => format!("tag {tag}"),
    }
}

/// Checks the first IFD of the TIFF at `path`: every tag's values within [`MAX_TAG_BYTES`] and inside the
/// file, and a compression the reader decodes. A file too short or odd for this check is left to the `tiff`
/// crate, whose own error is then reported.
pub(super) fn check(path: &Path) -> Result<()> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut head = [0u8; 16];
    if file.read_exact(&mut head).is_err() {
        return Ok(());
    }
    let little = match &head[..2] {
        b"II" => true,
        b"MM" => false,
        _ => return Ok(()),
    };
    let u16_at =
        |b: &[u8]| if little { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) };
    let u32_at = |b: &[u8]| {
        let b = [b[0], b[1], b[2], b[3]];
        u64::from(if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    };
    let u64_at = |b: &[u8]| {
        let b: [u8; 8] = b[..8].try_into().unwrap_or_default();
        if little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        }
    };
    // Classic: 2-byte entry count, 12-byte entries with a 4-byte count and value. BigTIFF: 8, 20 and 8.
    let big = match u16_at(&head[2..4]) {
        42 => false,
        43 => true,
        _ => return Ok(()),
    };
    let (ifd_at, count_size, entry_size, field) =
        if big { (u64_at(&head[8..16]), 8, 20, 8) } else { (u32_at(&head[4..8]), 2, 12, 4) };
    let mut read_at = |at: u64, n: u64| -> Option<Vec<u8>> {
        if at.checked_add(n)? > len {
            return None;
        }
        file.seek(SeekFrom::Start(at)).ok()?;
        let mut buf = vec![0; n as usize];
        file.read_exact(&mut buf).ok()?;
        Some(buf)
    };
    let Some(count) = read_at(ifd_at, count_size) else { return Ok(()) };
    let entries = if big { u64_at(&count) } else { u64::from(u16_at(&count)) };
    if entries > MAX_ENTRIES {
        return Err(Error::format(
            path,
            format!("its image directory claims {entries} tags, more than any TIFF has; the file is damaged"),
        ));
    }
    let Some(table) = read_at(ifd_at + count_size, entries * entry_size) else { return Ok(()) };
    // Where the chunks' offsets and byte counts are: (type, count, the entry's value field).
    let (mut offsets, mut counts) = (None, None);
    for e in table.chunks_exact(entry_size as usize) {
        let (tag, field_type) = (u16_at(&e[0..2]), u16_at(&e[2..4]));
        let (n, value) = if big { (u64_at(&e[4..12]), &e[12..20]) } else { (u32_at(&e[4..8]), &e[8..12]) };
        if tag == 259 && n == 1 {
            // A SHORT, as the specification asks, or a LONG, which big-endian files keep in the other half.
            match field_type {
                3 => compression(path, u16_at(value))?,
                4 => compression(path, u16::try_from(u32_at(value)).unwrap_or(u16::MAX))?,
                _ => {}
            }
        }
        let Some(size) = type_size(field_type) else { continue };
        let bytes = n.saturating_mul(size);
        if bytes > MAX_TAG_BYTES {
            return Err(Error::format(
                path,
                format!(
                    "{} claims {n} values ({bytes} bytes), more than the {MAX_TAG_BYTES} bytes lakeshore \
                     reads for one tag; the file is damaged, export the DEM again",
                    tag_name(tag)
                ),
            ));
        }
        if matches!(tag, 273 | 324) {
            offsets = Some((field_type, n, value.to_vec()));
        } else if matches!(tag, 279 | 325) {
            counts = Some((field_type, n, value.to_vec()));
        }
        let at = if big { u64_at(value) } else { u32_at(value) };
        if bytes > field && at.saturating_add(bytes) > len {
            return Err(Error::format(
                path,
                format!(
                    "the values of {} lie past the end of the file ({bytes} bytes at {at}, the file has \
                     {len}); the file is cut short or damaged, copy or export it again",
                    tag_name(tag)
                ),
            ));
        }
    }
    // Each chunk's bytes inside the file, checked once its offsets and byte counts are known to be.
    let (Some(offsets), Some(counts)) = (offsets, counts) else { return Ok(()) };
    let mut values = |(field_type, n, value): (u16, u64, Vec<u8>)| -> Option<Vec<u64>> {
        let size = match field_type {
            3 => 2,
            4 => 4,
            16 => 8,
            _ => return None,
        };
        let bytes = n * size;
        let raw = if bytes <= field {
            value[..bytes as usize].to_vec()
        } else {
            read_at(if big { u64_at(&value) } else { u32_at(&value) }, bytes)?
        };
        Some(
            raw.chunks_exact(size as usize)
                .map(|b| match size {
                    2 => u64::from(u16_at(b)),
                    4 => u32_at(b),
                    _ => u64_at(b),
                })
                .collect(),
        )
    };
    let (Some(offsets), Some(counts)) = (values(offsets), values(counts)) else { return Ok(()) };
    let chunks = offsets.len();
    for (i, (&at, &n)) in offsets.iter().zip(&counts).enumerate() {
        if at.saturating_add(n) > len {
            return Err(Error::format(
                path,
                format!(
                    "strip or tile {i} of {chunks} lies past the end of the file ({n} bytes at {at}, the file \
                     has {len}); the file is cut short or damaged, copy or export it again"
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a compression the reader does not decode, JPEG with a message of its own.
fn compression(path: &Path, method: u16) -> Result<()> {
    if JPEG.contains(&method) {
        return Err(Error::format(
            path,
            "the TIFF is JPEG-compressed: lossy and 8-bit, an image rather than an elevation model; \
             export the DEM with LZW, Deflate or ZSTD compression",
        ));
    }
    if !READABLE.contains(&method) {
        return Err(Error::format(
            path,
            format!(
                "the TIFF's compression (method {method}) is not one lakeshore reads; export the DEM \
                 uncompressed or with LZW, Deflate or ZSTD compression"
            ),
        ));
    }
    Ok(())
}
