//! GeoJSON text sequences: one feature a text, newline-delimited (`.geojsonl`, as GDAL's GeoJSONSeq driver
//! writes by default) or after RFC 8142, each text opened by a record separator (0x1E, `.geojsons`), in which
//! a text may span lines.
//!
//! The file is read a block at a time; each block's complete texts are parsed on every core by the
//! FeatureCollection reader's own feature reader ([`super::feature`]), and gathered as it gathers them
//! (`Collector`): the same properties, geometry checks and problems, the features numbered from 1 in file
//! order. Blank lines are passed over; a text that is not JSON stops the read, naming its line and column.
//! A sequence carries no `crs` member: it is WGS 84 (RFC 7946), as GDAL writes it.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;

use super::feature::Reading;
use super::stream::{Batch, Fail, READ_BYTES};
use super::{failure, first_names, walk, Collector, Fields};
use crate::crs::layer::Layer;
use crate::crs::Crs;
use crate::formats::{select_fields, LayerAt, LayerReader, ReadOptions};
use crate::model::error::{Problem, Result};

/// The record separator that opens each text of an RFC 8142 sequence.
const RS: u8 = 0x1e;

/// The GeoJSON text sequence format, read whole a block at a time.
pub(in crate::formats) struct GeoJsonSeq;

impl LayerReader for GeoJsonSeq {
    fn extensions(&self) -> &'static [&'static str] {
        &["geojsonl", "geojsons", "geojsonseq"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        let path = layer.file;
        let mut texts = Texts::open(path, READ_BYTES).map_err(|e| failure(path, Fail::Io(e)))?;
        first_names(path, texts.next().map_err(|e| failure(path, Fail::Io(e)))?)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read_in_blocks(layer.file, options, READ_BYTES)
    }
}

/// Reads the sequence at `path`, `block` bytes at a time.
fn read_in_blocks(path: &Path, options: &ReadOptions, block: usize) -> Result<(Layer, Vec<Problem>)> {
    let keep = options.keep.as_deref();
    let io = |e| failure(path, Fail::Io(e));
    let mut texts = Texts::open(path, block).map_err(io)?;
    let mut collector =
        Collector { path, fields: Fields::new(keep), features: Vec::new(), problems: Vec::new() };
    let mut parsed = Vec::new();
    while let Some(batch) = texts.next().map_err(io)? {
        let names = &collector.fields.names;
        walk::parse(&batch.bytes, batch.base, &batch.elements, names, &Reading::WHOLE, &mut parsed);
        collector.take(&mut parsed).map_err(|e| failure(path, e.into()))?;
    }
    select_fields(path, &collector.fields.seen, keep)?;
    collector.finish(Crs::wgs84(), false)
}

/// The texts of a sequence, handed out a block at a time.
struct Texts {
    file: File,
    /// Bytes read and not yet handed out; `carry[0]` is at file offset `base`.
    carry: Vec<u8>,
    base: u64,
    block: usize,
    eof: bool,
    /// Whether texts are opened by record separators (decided by the first byte that is not white space).
    separated: Option<bool>,
}

impl Texts {
    fn open(path: &Path, block: usize) -> io::Result<Self> {
        let file = File::open(path)?;
        Ok(Texts { file, carry: Vec::new(), base: 0, block, eof: false, separated: None })
    }

    /// The next block's complete texts (a batch of at least one), or `None` at the end of the file.
    fn next(&mut self) -> io::Result<Option<Batch>> {
        loop {
            if !self.eof {
                let before = self.carry.len();
                (&mut self.file).take(self.block as u64).read_to_end(&mut self.carry)?;
                self.eof = self.carry.len() == before;
            }
            if self.base == 0 && self.carry.starts_with(b"\xEF\xBB\xBF") {
                self.carry.drain(..3);
                self.base = 3;
            }
            if self.separated.is_none() {
                self.separated = self.carry.iter().find(|b| !b.is_ascii_whitespace()).map(|&b| b == RS);
            }
            let separator = if self.separated == Some(true) { RS } else { b'\n' };
            // Everything up to the last separator is whole texts; at the end of the file, everything is.
            let whole = if self.eof {
                self.carry.len()
            } else {
                match memchr::memrchr(separator, &self.carry) {
                    Some(at) => at,
                    None => continue,
                }
            };
            if whole == 0 && self.eof {
                return Ok(None);
            }
            let rest = self.carry.split_off(whole);
            let bytes = std::mem::replace(&mut self.carry, rest);
            let base = self.base;
            self.base += whole as u64;
            let elements = texts(&bytes, separator);
            if !elements.is_empty() {
                return Ok(Some(Batch { bytes, base, elements, ..Batch::default() }));
            }
        }
    }
}

/// The texts of `bytes` between `separator`s, white space trimmed, empty ones passed over.
fn texts(bytes: &[u8], separator: u8) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(separator, bytes).chain([bytes.len()]) {
        let text = &bytes[start..end];
        let first = text.iter().position(|b| !b.is_ascii_whitespace());
        if let Some(first) = first {
            let last = text.iter().rposition(|b| !b.is_ascii_whitespace()).unwrap_or(first);
            out.push(start + first..start + last + 1);
        }
        start = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crs::layer::Value;
    use geo::Geometry;

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("lakeshore-seq-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Three features written both ways, the RFC 8142 one with a text spanning lines; read in blocks of
    /// every size from 1 byte, each gives the same layer, numbered in file order.
    #[test]
    fn both_kinds_of_sequence_read_alike_in_blocks_of_any_size() {
        let features = [
            r#"{"type": "Feature", "properties": {"ID": "a", "N": 1}, "geometry": {"type": "Point", "coordinates": [-76.5, 42.8]}}"#,
            r#"{"type": "Feature", "properties": {"ID": "b", "X": true}, "geometry": {"type": "Point", "coordinates": [-76.6, 42.9]}}"#,
            r#"{"type": "Feature", "properties": {"ID": "c"}, "geometry": null}"#,
        ];
        let lines = format!("\u{feff}{}\n\n{}\r\n{}", features[0], features[1], features[2]);
        let separated =
            format!("\x1e{}\n\x1e{}\n\x1e{}\n", features[0], features[1].replace(", ", ",\n  "), features[2]);
        for (name, text) in [("lines.geojsonl", lines), ("rs.geojsons", separated)] {
            let path = scratch(name, text.as_bytes());
            for block in [1, 2, 7, 100, READ_BYTES] {
                let (layer, problems) = read_in_blocks(&path, &ReadOptions::default(), block).unwrap();
                assert_eq!(layer.fields, ["ID", "N", "X"], "{name}, {block}");
                let ids: Vec<_> = layer.features.iter().map(|f| (f.record, f.values[0].clone())).collect();
                assert_eq!(
                    ids,
                    [
                        (1, Value::Text("a".into())),
                        (2, Value::Text("b".into())),
                        (3, Value::Text("c".into()))
                    ]
                );
                assert!(matches!(layer.features[1].geometry, Ok(Geometry::Point(_))));
                assert_eq!(
                    layer.features[1].values,
                    [Value::Text("b".into()), Value::Null, Value::Bool(true)]
                );
                assert_eq!(problems.len(), 1, "{name}: the null geometry: {problems:?}");
                assert_eq!(layer.crs, Crs::wgs84());
            }
            let names = GeoJsonSeq.field_names(&LayerAt { file: &path, member: None, path: &path }).unwrap();
            assert_eq!(names, ["ID", "N", "X"], "the names of every feature of the first block");
        }
    }

    #[test]
    fn a_text_that_is_not_json_names_its_line() {
        let path = scratch(
            "broken.geojsonl",
            b"{\"type\": \"Feature\", \"properties\": {}, \"geometry\": null}\n{\"type\": \"Feature\",\n",
        );
        let err = read_in_blocks(&path, &ReadOptions::default(), 5).unwrap_err().to_string();
        assert!(err.contains("not readable GeoJSON") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn texts_are_trimmed_and_blank_ones_passed_over() {
        assert_eq!(texts(b" {a} \n\n {b}", b'\n'), [1..4, 8..11]);
        assert_eq!(texts(b"\x1e{a\n b}\n\x1e", RS), vec![Range { start: 1, end: 7 }]);
        assert!(texts(b"  \n ", b'\n').is_empty());
    }
}
