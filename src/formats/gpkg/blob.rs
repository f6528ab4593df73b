//! GeoPackage geometry blobs (GeoPackage 1.3 §2.1.3): an 8-byte header (magic `GP`, version, flags,
//! `srs_id`), an optional envelope, then ISO WKB.
//!
//! The flags byte holds, from bit 0: the byte order of the header's numbers (1 little-endian), three bits of
//! envelope kind (0 none, 1 xy, 2 xyz, 3 xym, 4 xyzm), the empty-geometry flag and the extended-type flag.

use geo::{BoundingRect, Geometry};

use crate::formats::wkb;

/// Appends the blob of `geometry` with `srs_id`: little-endian header with an xy envelope, then the WKB.
/// Returns the envelope (min x, max x, min y, max y), or `None`, writing nothing, when WKB cannot hold the
/// geometry or it has no extent.
pub fn push_blob(out: &mut Vec<u8>, geometry: &Geometry<f64>, srs_id: i32) -> Option<[f64; 4]> {
    let rect = geometry.bounding_rect()?;
    let envelope = [rect.min().x, rect.max().x, rect.min().y, rect.max().y];
    let start = out.len();
    out.extend_from_slice(b"GP");
    out.push(0); // version 1
    out.push(0b0000_0011); // little-endian, envelope kind 1 (xy)
    out.extend_from_slice(&srs_id.to_le_bytes());
    envelope.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    if wkb::push_geometry(out, geometry).is_none() {
        out.truncate(start);
        return None;
    }
    Some(envelope)
}

/// What a blob holds.
#[derive(Debug, PartialEq)]
pub enum Blob {
    /// The empty-geometry flag is set.
    Empty,
    /// A geometry.
    Geometry(Geometry<f64>),
}

/// Reads a GeoPackage geometry blob; the error says what is wrong with it.
pub fn read_blob(bytes: &[u8]) -> Result<Blob, String> {
    if bytes.len() < 8 {
        return Err(format!("geometry blob of {} bytes is shorter than its 8-byte header", bytes.len()));
    }
    if &bytes[..2] != b"GP" {
        return Err("geometry blob does not start with the GeoPackage magic 'GP'".into());
    }
    let flags = bytes[3];
    if flags & 0b0010_0000 != 0 {
        return Err("geometry blob uses an extended (non-standard) geometry type".into());
    }
    let envelope = match (flags >> 1) & 0b111 {
        0 => 0,
        1 => 32,
        2 | 3 => 48,
        4 => 64,
        other => {
            return Err(format!("geometry blob has envelope kind {other}, which does not exist (0 to 4)"))
        }
    };
    let start = 8 + envelope;
    if bytes.len() < start {
        return Err(format!(
            "geometry blob of {} bytes ends inside its {envelope}-byte envelope",
            bytes.len()
        ));
    }
    if flags & 0b0001_0000 != 0 {
        return Ok(Blob::Empty);
    }
    wkb::read(&bytes[start..]).map(Blob::Geometry)
}

#[cfg(test)]
mod tests {
    use geo::point;

    use super::*;

    #[test]
    fn a_point_blob_matches_the_spec_byte_for_byte() {
        let mut out = Vec::new();
        let envelope = push_blob(&mut out, &Geometry::Point(point!(x: 1.5, y: -2.0)), 2261).unwrap();
        assert_eq!(envelope, [1.5, 1.5, -2.0, -2.0]);
        let mut expected = vec![b'G', b'P', 0, 3];
        expected.extend_from_slice(&2261i32.to_le_bytes());
        for v in [1.5f64, 1.5, -2.0, -2.0] {
            expected.extend_from_slice(&v.to_le_bytes());
        }
        expected.extend_from_slice(&[1, 1, 0, 0, 0]);
        expected.extend_from_slice(&1.5f64.to_le_bytes());
        expected.extend_from_slice(&(-2.0f64).to_le_bytes());
        assert_eq!(out, expected);
        assert_eq!(read_blob(&out).unwrap(), Blob::Geometry(Geometry::Point(point!(x: 1.5, y: -2.0))));
    }

    #[test]
    fn damaged_blobs_are_errors() {
        let mut out = Vec::new();
        push_blob(&mut out, &Geometry::Point(point!(x: 1.0, y: 2.0)), 4326).unwrap();
        for n in 0..out.len() {
            assert!(read_blob(&out[..n]).is_err(), "truncated at {n}");
        }
        let mut magic = out.clone();
        magic[0] = b'X';
        assert!(read_blob(&magic).unwrap_err().contains("magic"));
        let mut kind = out.clone();
        kind[3] = 0b0000_1110; // envelope kind 7
        assert!(read_blob(&kind).unwrap_err().contains("envelope kind 7"));
        // The empty flag with no envelope: nothing after the header is read.
        assert_eq!(read_blob(&[b'G', b'P', 0, 0b0001_0001, 0, 0, 0, 0]).unwrap(), Blob::Empty);
    }
}
