//! The GeoJSON reader: an RFC 7946 FeatureCollection, read a block at a time, its features parsed on every
//! core.
//!
//! [`stream`] reads the file in blocks of a few MiB and walks the top-level object. The features of a block
//! are parsed in parallel (rayon) while the next block is read and scanned: [`feature`] reads each one from
//! its bytes, straight into a `geo` geometry ([`geometry`]) and the values of the kept properties, through
//! [`json`], a strict JSON reader that borrows strings and parses numbers correctly rounded. No JSON tree is
//! built. Memory holds the features read so far plus about two blocks, never the whole document; features
//! keep their file order and record numbers, and a document that is not JSON is an error naming the line and
//! column of the first fault. A UTF-8 byte order mark is skipped.
//!
//! The pre-RFC `crs` member that county exports often carry, when present, names the layer's CRS
//! (`urn:ogc:def:crs:EPSG::2261`, `EPSG:2261`); without it the layer is WGS 84, and coordinates that cannot
//! be longitude/latitude are caught here rather than misplaced later.

mod feature;
mod geometry;
mod json;
mod search;
mod stream;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use geo::BoundingRect;
use rayon::prelude::*;
use serde_json::Value as Json;

use self::feature::{Names, Parsed};
use self::json::{Parse, SyntaxError};
use self::stream::{Batch, Fail, Stream, Then};
use super::{select_fields, ReadOptions, Unusable};
use crate::crs::{Crs, CrsDef};
use crate::error::{Error, Problem, Result};
use crate::layer::{Feature, Layer, Value};

const FIX_GEOMETRY: &str = "correct the feature's geometry or delete the feature";

/// Features parsed by one rayon task at the least: enough to outweigh handing the task out.
const PER_TASK: usize = 64;

/// The property names of the first feature of the GeoJSON file at `path`, in the file's order; the file is
/// read no further than that feature.
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    field_names_in_blocks(path, stream::BLOCK)
}

/// Reads the GeoJSON FeatureCollection at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    read_in_blocks(path, options, stream::BLOCK)
}

/// [`field_names`], reading `block` bytes at a time.
fn field_names_in_blocks(path: &Path, block: usize) -> Result<Vec<String>> {
    let mut collector = Collector::new(path, None, true);
    parse(path, &mut collector, block)?;
    Ok(collector.fields)
}

/// [`read`], reading `block` bytes at a time.
fn read_in_blocks(path: &Path, options: &ReadOptions, block: usize) -> Result<(Layer, Vec<Problem>)> {
    let keep = options.keep.as_deref();
    let mut collector = Collector::new(path, keep, false);
    parse(path, &mut collector, block)?;
    match collector.collection_type.as_ref() {
        Some(Json::String(t)) if t == "FeatureCollection" => {}
        None if collector.has_features => {}
        other => {
            let found = other.map_or("no type".to_string(), |t| format!("a {t}"));
            return Err(Error::format(
                path,
                format!("{found}, not a GeoJSON FeatureCollection: export the layer as a FeatureCollection"),
            ));
        }
    }
    if !collector.has_features {
        return Err(Error::format(path, "FeatureCollection without a features member: re-export the layer"));
    }
    select_fields(path, &collector.seen, keep)?;
    let named_crs = collector.crs.take().filter(|member| !member.is_null());
    let explicit = named_crs.is_some();
    let crs = match named_crs {
        Some(member) => crs_member(path, &member)?,
        None => Crs::wgs84(),
    };
    let Collector { fields, mut features, mut problems, .. } = collector;
    for feature in &mut features {
        feature.values.resize(fields.len(), Value::Null);
    }
    if crs == Crs::wgs84() {
        check_lon_lat(path, explicit, &mut features, &mut problems)?;
    }
    problems.sort_by_key(|(record, _)| *record);
    let problems = problems.into_iter().map(|(_, p)| p).collect();
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

/// Reads the document at `path` into `collector`, `block` bytes at a time.
fn parse(path: &Path, collector: &mut Collector, block: usize) -> Result<()> {
    let result =
        Stream::open(path, block).map_err(Fail::Io).and_then(|mut stream| walk(&mut stream, collector));
    match result {
        Ok(()) => Ok(()),
        Err(Fail::Io(e)) => Err(Error::io(path, e)),
        Err(Fail::Syntax(e)) => Err(Error::format(
            path,
            format!(
                "not readable GeoJSON ({} at {}): correct the file or re-export it",
                e.what,
                place(path, e.at)
            ),
        )),
    }
}

/// The top-level object: `type` and `crs` kept as JSON, `features` read, other members checked and skipped.
fn walk(stream: &mut Stream, collector: &mut Collector) -> Result<(), Fail> {
    stream.open_top()?;
    let mut first = true;
    while let Some(key) = stream.key(&mut first)? {
        match key.as_str() {
            "type" => collector.collection_type = Some(stream.json()?),
            "crs" => collector.crs = Some(stream.json()?),
            "features" => {
                collector.has_features = true;
                if !features(stream, collector)? {
                    return Ok(());
                }
            }
            _ => stream.skip()?,
        }
    }
    stream.end()
}

/// The `features` array, a batch at a time: each batch is parsed while the next is read. Returns whether to
/// read on (not after the first feature when that is all that is wanted).
fn features(stream: &mut Stream, collector: &mut Collector) -> Result<bool, Fail> {
    stream.open_features()?;
    // The memory of the batch before and of the parsed features is used again for the next.
    let (mut spare, mut parsed) = (Batch::default(), Vec::new());
    let mut batch = stream.batch(Batch::default())?;
    loop {
        let next = if matches!(batch.then, Then::More) && !collector.first_only {
            let recycled = std::mem::take(&mut spare);
            let ((), next) = rayon::join(|| collector.parse(&batch, &mut parsed), || stream.batch(recycled));
            Some(next)
        } else {
            collector.parse(&batch, &mut parsed);
            None
        };
        let first_batch = collector.features.is_empty();
        if !collector.take(&mut parsed)? {
            return Ok(false);
        }
        if first_batch {
            collector.expect_more(&batch, stream.len());
        }
        match std::mem::take(&mut batch.then) {
            Then::Closed => return Ok(true),
            Then::Broken(e) => return Err(e.into()),
            Then::More => {}
        }
        spare = std::mem::take(&mut batch);
        batch = match next {
            Some(next) => next?,
            None => stream.batch(std::mem::take(&mut spare))?,
        };
    }
}

/// `line L column C` (both from 1) of byte offset `at` of the file at `path`, counted by reading it again.
fn place(path: &Path, at: u64) -> String {
    let Ok(file) = File::open(path) else { return format!("byte {at}") };
    let mut reader = BufReader::new(file.take(at));
    let mut chunk = vec![0; 1 << 16];
    let (mut line, mut column) = (1, 1);
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                let chunk = &chunk[..n];
                match memchr::memrchr(b'\n', chunk) {
                    Some(last) => {
                        line += memchr::memchr_iter(b'\n', chunk).count();
                        column = n - last;
                    }
                    None => column += n,
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return format!("byte {at}"),
        }
    }
    format!("line {line} column {column}")
}

/// What the parse has gathered so far.
struct Collector<'a> {
    path: &'a Path,
    /// Stop after the first feature (for [`field_names`]).
    first_only: bool,
    /// The slot of every property name met.
    names: Names,
    /// Every property name seen, in first-seen order.
    seen: Vec<String>,
    /// The kept property names, in first-seen order.
    fields: Vec<String>,
    features: Vec<Feature>,
    problems: Vec<(usize, Problem)>,
    collection_type: Option<Json>,
    crs: Option<Json>,
    has_features: bool,
}

impl<'a> Collector<'a> {
    fn new(path: &'a Path, keep: Option<&'a [String]>, first_only: bool) -> Self {
        Collector {
            path,
            first_only,
            names: Names::new(keep),
            seen: Vec::new(),
            fields: Vec::new(),
            features: Vec::new(),
            problems: Vec::new(),
            collection_type: None,
            crs: None,
            has_features: false,
        }
    }

    /// Parses the features of `batch` on every core, each on its own, into `out` in their order.
    fn parse(&self, batch: &Batch, out: &mut Vec<Parse<Parsed>>) {
        let elements = match self.first_only {
            true => &batch.elements[..batch.elements.len().min(1)],
            false => &batch.elements[..],
        };
        elements
            .par_iter()
            .with_min_len(PER_TASK)
            .map_init(Vec::new, |scratch, range| {
                let base = batch.base + range.start as u64;
                feature::read(&batch.bytes[range.clone()], base, &self.names, scratch)
            })
            .collect_into_vec(out);
    }

    /// Makes room for the features that the rest of the file holds if they are the size of those of `batch`,
    /// the first: growing a vector of a million features by doubling would copy it and touch twice the memory.
    fn expect_more(&mut self, batch: &Batch, file_len: u64) {
        let (Some(first), Some(last)) = (batch.elements.first(), batch.elements.last()) else { return };
        let per_feature = (last.end - first.start).div_ceil(batch.elements.len()) as u64;
        let rest = file_len.saturating_sub(batch.base + last.end as u64) / per_feature.max(1);
        self.features.reserve(usize::try_from(rest + rest / 16).unwrap_or(0));
    }

    /// Adds parsed features in file order, giving new property names their slots; the first feature that is
    /// not JSON ends the read. Returns whether to read on.
    fn take(&mut self, parsed: &mut Vec<Parse<Parsed>>) -> Result<bool, SyntaxError> {
        for feature in parsed.drain(..) {
            let Parsed { geometry, mut values, new } = feature?;
            for (name, value) in new {
                let slot = match self.names.slot(name.as_bytes()) {
                    Some(slot) => slot,
                    None => {
                        let slot = self.names.add(&name);
                        if slot.is_some() {
                            self.fields.push(name.clone());
                        }
                        self.seen.push(name);
                        slot
                    }
                };
                if let (Some(slot), Some(value)) = (slot, value) {
                    if values.len() <= slot {
                        values.resize(slot + 1, Value::Null);
                    }
                    values[slot] = value;
                }
            }
            let record = self.features.len() + 1;
            let geometry = geometry.map_err(|unusable| {
                self.problems.push((record, unusable.problem(self.path, record)));
                unusable.reason
            });
            self.features.push(Feature { record, geometry, values });
        }
        Ok(!self.first_only || self.features.is_empty())
    }
}

/// The CRS a pre-RFC `crs` member names: `{"type": "name", "properties": {"name": ...}}` or the older
/// `{"type": "EPSG", "properties": {"code": ...}}`.
fn crs_member(path: &Path, member: &Json) -> Result<Crs> {
    let property = |key: &str| member.get("properties").and_then(|p| p.get(key));
    let crs = match member.get("type").and_then(Json::as_str) {
        Some("name") => match property("name").and_then(Json::as_str) {
            Some(name) => named_crs(name).map_or_else(|| Crs::parse(name), Ok).map_err(|e| {
                Error::crs(
                    path,
                    format!(
                        "the crs member names '{name}', which is not understood ({e}): name an EPSG code, as in \
                         \"urn:ogc:def:crs:EPSG::2261\", or re-export the file as RFC 7946 GeoJSON (WGS 84)"
                    ),
                )
            }),
            None => Err(Error::crs(path, "the crs member has no properties.name: name the CRS or remove it")),
        },
        Some("EPSG" | "epsg") => match property("code").and_then(Json::as_u64).and_then(|c| u32::try_from(c).ok()) {
            Some(code) => Ok(Crs { def: CrsDef::Epsg(code) }),
            None => Err(Error::crs(path, "the crs member has no numeric properties.code: fix it or remove it")),
        },
        _ => Err(Error::crs(
            path,
            format!(
                "unsupported crs member {member}: name an EPSG code, as in {{\"type\": \"name\", \"properties\": \
                 {{\"name\": \"urn:ogc:def:crs:EPSG::2261\"}}}}, or re-export the file as RFC 7946 GeoJSON (WGS 84)"
            ),
        )),
    }?;
    Ok(crs)
}

/// The CRS of an OGC URN, OGC URL or `EPSG:n` name, where it is an EPSG code or CRS84.
fn named_crs(name: &str) -> Option<Crs> {
    let upper = name.trim().to_ascii_uppercase();
    if upper.ends_with(":CRS84") || upper.ends_with("/CRS84") || upper == "CRS84" {
        return Some(Crs::wgs84());
    }
    let code = if let Some(rest) = upper.strip_prefix("EPSG:") {
        rest.trim()
    } else if let Some(rest) = upper.strip_prefix("URN:OGC:DEF:CRS:EPSG:") {
        // `EPSG::2261` or, with a version, `EPSG:6.6:2261`.
        rest.rsplit(':').next()?
    } else if upper.starts_with("HTTP") && upper.contains("/EPSG/") {
        upper.rsplit('/').next()?
    } else {
        return None;
    };
    code.parse().ok().map(|code| Crs { def: CrsDef::Epsg(code) })
}

/// In a WGS 84 layer, a feature outside longitude/latitude range is unusable; if every feature is, the file
/// is in some other CRS it does not name, which is an error.
fn check_lon_lat(
    path: &Path,
    explicit: bool,
    features: &mut [Feature],
    problems: &mut Vec<(usize, Problem)>,
) -> Result<()> {
    let mut usable = 0;
    let mut outside = Vec::new();
    for (i, feature) in features.iter().enumerate() {
        let Ok(geometry) = &feature.geometry else { continue };
        usable += 1;
        if let Some(rect) = geometry.bounding_rect() {
            let (min, max) = (rect.min(), rect.max());
            if min.x < -180.0 || max.x > 180.0 || min.y < -90.0 || max.y > 90.0 {
                outside.push((i, format!("x {}..{}, y {}..{}", min.x, max.x, min.y, max.y)));
            }
        }
    }
    if usable > 0 && outside.len() == usable {
        let said = if explicit {
            "the file says WGS 84"
        } else {
            "the file names no CRS, so RFC 7946 WGS 84 applies"
        };
        return Err(Error::crs(
            path,
            format!(
                "the coordinates are not longitude/latitude (record {} spans {}) but {said}: add a crs member \
                 naming the real CRS, as in {{\"type\": \"name\", \"properties\": {{\"name\": \
                 \"urn:ogc:def:crs:EPSG::2261\"}}}}, or re-export the file in WGS 84",
                features[outside[0].0].record,
                outside[0].1
            ),
        ));
    }
    for (i, span) in outside {
        let feature = &mut features[i];
        let unusable = Unusable::new(
            format!("coordinates outside longitude/latitude range ({span})"),
            "correct the coordinates: this layer is WGS 84 longitude/latitude",
        );
        problems.push((feature.record, unusable.problem(path, feature.record)));
        feature.geometry = Err(unusable.reason);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
