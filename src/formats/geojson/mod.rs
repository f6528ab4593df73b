//! The GeoJSON reader: an RFC 7946 FeatureCollection, read a block at a time, its features parsed on every
//! core.
//!
//! [`stream`] reads the file in blocks of a few MiB and finds where each feature ends; [`walk`] walks the
//! top-level object with it and hands out the features of every `features` member a block at a time. The
//! features of a block are parsed in parallel (rayon) while the next block is read and scanned: [`feature`]
//! reads each one from its bytes, straight into a `geo` geometry ([`geometry`]) and the values of the kept
//! properties, through [`json`], a strict JSON reader that borrows strings and parses numbers correctly
//! rounded. No JSON tree is built. A whole read ([`read`]) holds the features read so far plus about two
//! blocks, never the whole document; [`Blocks`] hold no more than a block of features, for a layer read in
//! blocks of records (`io::blocks`). Features keep their file order and record numbers, and a document that
//! is not JSON is an error naming the line and column of the first fault. A UTF-8 byte order mark is skipped.
//!
//! The pre-RFC `crs` member that county exports often carry, when present, names the layer's CRS
//! (`urn:ogc:def:crs:EPSG::2261`, `EPSG:2261`); without it the layer is WGS 84, and coordinates that cannot
//! be longitude/latitude are caught here rather than misplaced later.

mod blocks;
mod feature;
mod geometry;
mod json;
mod search;
mod seq;
mod stream;
mod walk;

use std::fs::File;
use std::io::{BufReader, Read};
use std::ops::Range;
use std::path::Path;

use geo::{BoundingRect, Geometry};
use serde_json::Value as Json;

pub(super) use self::blocks::Blocks;
use self::feature::{Names, NewNames, Parsed, Reading};
use self::json::{Parse, SyntaxError};
pub(super) use self::seq::GeoJsonSeq;
use self::stream::Fail;
use self::walk::{Top, Walk};
use super::blocks::{BlockReader, LayerBlocks};
use super::{select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::{Crs, CrsDef};
use crate::model::error::{Error, Problem, Result};

const FIX_GEOMETRY: &str = "correct the feature's geometry or delete the feature";

/// The property names of the features of the GeoJSON file's first block (a few megabytes; all of a small
/// file), in the order they first appear: a feature may leave out a property others have (an exporter that
/// drops nulls), so the first feature alone would miss it. [`every_field_name`] reads the whole file.
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    field_names_in_blocks(path, stream::READ_BYTES, false)
}

/// The property names of every feature of the GeoJSON file at `path`, in the order they first appear.
pub(super) fn every_field_name(path: &Path) -> Result<Vec<String>> {
    field_names_in_blocks(path, stream::READ_BYTES, true)
}

/// Reads the GeoJSON FeatureCollection at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    read_in_blocks(path, options, stream::READ_BYTES)
}

/// The GeoJSON format: a FeatureCollection, read from the file a block at a time.
pub(super) struct GeoJson;

impl LayerReader for GeoJson {
    fn extensions(&self) -> &'static [&'static str] {
        &["geojson", "json"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        field_names(layer.file)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, options)
    }

    fn open_blocks(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<LayerBlocks> {
        let blocks = Blocks::open(layer.file, options)?;
        let (crs, fields, len) = (blocks.crs.clone(), blocks.fields.clone(), blocks.len());
        Ok(LayerBlocks::streamed(layer.file, crs, fields, len, Box::new(blocks)))
    }
}

impl BlockReader for Blocks {
    fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        Blocks::scan(self, columns, each)
    }

    fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        Blocks::next_block(self, count)
    }
}

/// [`field_names`] (the first block) or [`every_field_name`] (`whole`), reading `block` bytes at a time.
fn field_names_in_blocks(path: &Path, block: usize, whole: bool) -> Result<Vec<String>> {
    let fail = |fail| failure(path, fail);
    let mut walk = Walk::open(path, block, false).map_err(fail)?;
    let mut fields = Fields::new(None);
    while let Some(batch) = walk.batch().map_err(fail)? {
        learn_names(path, &batch, &mut fields)?;
        if !whole {
            break;
        }
    }
    Ok(fields.kept)
}

/// The property names of the features of `batch` (a file's first), in the order they first appear (none
/// without one).
fn first_names(path: &Path, batch: Option<stream::Batch>) -> Result<Vec<String>> {
    let mut fields = Fields::new(None);
    if let Some(batch) = batch {
        learn_names(path, &batch, &mut fields)?;
    }
    Ok(fields.kept)
}

/// Gives `fields` the property names of the features of `batch` it has not seen.
fn learn_names(path: &Path, batch: &stream::Batch, fields: &mut Fields) -> Result<()> {
    for element in &batch.elements {
        let bytes = &batch.bytes[element.clone()];
        let base = batch.base + element.start as u64;
        let parsed = feature::read(bytes, base, &fields.names, &Reading::CHECK, &mut Vec::new());
        let Parsed { mut values, new, .. } = parsed.map_err(|e| failure(path, e.into()))?;
        fields.learn(new, &mut values);
    }
    Ok(())
}

/// [`read`], reading `block` bytes at a time.
fn read_in_blocks(path: &Path, options: &ReadOptions, block: usize) -> Result<(Layer, Vec<Problem>)> {
    let keep = options.keep.as_deref();
    let fail = |fail| failure(path, fail);
    let mut walk = Walk::open(path, block, true).map_err(fail)?;
    let mut collector =
        Collector { path, fields: Fields::new(keep), features: Vec::new(), problems: Vec::new() };
    let (mut parsed, file_len) = (Vec::new(), walk.len());
    while let Some(spans) =
        walk.parse_next(&collector.fields.names, &Reading::WHOLE, &mut parsed).map_err(fail)?
    {
        if collector.features.is_empty() {
            collector.expect_more(parsed.len(), spans.all(), file_len);
        }
        collector.take(&mut parsed).map_err(|e| fail(e.into()))?;
    }
    let (crs, explicit) = collection_crs(path, walk.top(), &collector.fields.seen, keep)?;
    collector.finish(crs, explicit)
}

/// The error of a pass over the document at `path` that failed.
fn failure(path: &Path, fail: Fail) -> Error {
    match fail {
        Fail::Io(e) => Error::io(path, e),
        Fail::Syntax(e) => Error::format(
            path,
            format!(
                "not readable GeoJSON ({} at {}): correct the file or re-export it",
                e.what,
                place(path, e.at)
            ),
        ),
    }
}

/// The checks of a whole document once walked, in the order a whole read makes them: a FeatureCollection,
/// with features, whose properties (`seen`) include the kept fields. Returns the CRS its `crs` member names
/// (WGS 84 without one) and whether it names one.
fn collection_crs(path: &Path, top: &Top, seen: &[String], keep: Option<&[String]>) -> Result<(Crs, bool)> {
    match top.collection_type.as_ref() {
        Some(Json::String(t)) if t == "FeatureCollection" => {}
        None if top.has_features => {}
        other => {
            let found = other.map_or("no type".to_string(), |t| format!("a {t}"));
            return Err(Error::format(
                path,
                format!("{found}, not a GeoJSON FeatureCollection: export the layer as a FeatureCollection"),
            ));
        }
    }
    if !top.has_features {
        return Err(Error::format(path, "FeatureCollection without a features member: re-export the layer"));
    }
    select_fields(path, seen, keep)?;
    match top.crs.as_ref().filter(|member| !member.is_null()) {
        Some(member) => Ok((crs_member(path, member)?, true)),
        None => Ok((Crs::wgs84(), false)),
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

/// The property names met, in file order, and the slot of each kept one.
struct Fields {
    /// The slot of every property name met.
    names: Names,
    /// Every property name met, in first-met order.
    seen: Vec<String>,
    /// The kept property names, in first-met order: the layer's fields, each at its slot.
    kept: Vec<String>,
}

impl Fields {
    fn new(keep: Option<&[String]>) -> Self {
        Fields { names: Names::new(keep), seen: Vec::new(), kept: Vec::new() }
    }

    /// Gives the names a feature met first ([`Parsed::new`]) their slots, in order, and puts the values read
    /// of kept ones in the feature's `values`.
    fn learn(&mut self, new: NewNames, values: &mut Vec<Value>) {
        for (name, value) in new {
            let slot = match self.names.slot(name.as_bytes()) {
                Some(slot) => slot,
                None => {
                    let slot = self.names.add(&name);
                    if slot.is_some() {
                        self.kept.push(name.clone());
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
    }
}

/// What a whole read has gathered so far.
struct Collector<'a> {
    path: &'a Path,
    fields: Fields,
    features: Vec<Feature>,
    problems: Vec<(usize, Problem)>,
}

impl Collector<'_> {
    /// Makes room for the features that the rest of the file holds if they are the size of the `count`
    /// features of the first batch, which span `span`: growing a vector of a million features by doubling
    /// would copy it and touch twice the memory.
    fn expect_more(&mut self, count: usize, span: Range<u64>, file_len: u64) {
        self.features.reserve(count + expected_rest(count, span, file_len));
    }

    /// Adds parsed features in file order, giving new property names their slots; the first feature that is
    /// not JSON ends the read.
    fn take(&mut self, parsed: &mut Vec<Parse<Parsed>>) -> Result<(), SyntaxError> {
        for feature in parsed.drain(..) {
            let Parsed { geometry, mut values, new, .. } = feature?;
            self.fields.learn(new, &mut values);
            let record = self.features.len() + 1;
            self.features.push(to_feature(self.path, record, geometry, values, &mut self.problems));
        }
        Ok(())
    }
}

impl Collector<'_> {
    /// The layer gathered, in `crs` (`explicit`ly named by the file, or not): every feature with a value
    /// for each kept field, those outside longitude/latitude range of a WGS 84 layer made unusable, and the
    /// problems in record order.
    fn finish(self, crs: Crs, explicit: bool) -> Result<(Layer, Vec<Problem>)> {
        let Collector { path, fields, mut features, mut problems } = self;
        for feature in &mut features {
            feature.values.resize(fields.kept.len(), Value::Null);
        }
        if crs == Crs::wgs84() {
            check_lon_lat(path, explicit, &mut features, &mut problems)?;
        }
        problems.sort_by_key(|(record, _)| *record);
        let problems = problems.into_iter().map(|(_, p)| p).collect();
        Ok((Layer { path: path.to_path_buf(), crs, fields: fields.kept, features }, problems))
    }
}

/// How many features the rest of a file of `file_len` bytes holds, and a sixteenth more, if they are the size
/// of the first `count`, which span `span`.
fn expected_rest(count: usize, span: Range<u64>, file_len: u64) -> usize {
    let per_feature = (span.end - span.start).div_ceil(count.max(1) as u64);
    let rest = file_len.saturating_sub(span.end) / per_feature.max(1);
    usize::try_from(rest + rest / 16).unwrap_or(0)
}

/// Record `record` of the file at `path`, from what was read of it; an unusable geometry is reported in
/// `problems`.
fn to_feature(
    path: &Path,
    record: usize,
    geometry: Option<Result<Geometry<f64>, Unusable>>,
    values: Vec<Value>,
    problems: &mut Vec<(usize, Problem)>,
) -> Feature {
    let geometry = geometry.unwrap_or_else(|| Err(Unusable::new(GeometryError::NotRead, FIX_GEOMETRY)));
    let geometry = geometry.map(|mut g| {
        if let Some(note) =
            super::drop_empty_parts(&mut g, path, crate::model::error::Location::Record(record))
        {
            problems.push((record, note));
        }
        g
    });
    let geometry = geometry.map_err(|unusable| {
        problems.push((record, unusable.problem(path, record)));
        unusable.reason
    });
    Feature { record, fid: None, geometry, values }
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
        if let Some(span) = outside_lon_lat(geometry) {
            outside.push((i, span));
        }
    }
    if usable > 0 && outside.len() == usable {
        return Err(not_lon_lat(path, explicit, features[outside[0].0].record, &outside[0].1));
    }
    for (i, span) in outside {
        let feature = &mut features[i];
        problems.push((feature.record, mark_outside(path, feature, &span)));
    }
    Ok(())
}

/// How far a geometry of a WGS 84 layer lies outside longitude/latitude range, or `None` if it lies within.
fn outside_lon_lat(geometry: &Geometry<f64>) -> Option<String> {
    let rect = geometry.bounding_rect()?;
    let (min, max) = (rect.min(), rect.max());
    let outside = min.x < -180.0 || max.x > 180.0 || min.y < -90.0 || max.y > 90.0;
    outside.then(|| format!("x {}..{}, y {}..{}", min.x, max.x, min.y, max.y))
}

/// The error for a layer taken as WGS 84 (`explicit`ly or by RFC 7946) none of whose usable features lies
/// within longitude/latitude range; the first, `record`, spans `span`.
fn not_lon_lat(path: &Path, explicit: bool, record: usize, span: &str) -> Error {
    let said =
        if explicit { "the file says WGS 84" } else { "the file names no CRS, so RFC 7946 WGS 84 applies" };
    Error::crs(
        path,
        format!(
            "the coordinates are not longitude/latitude (record {record} spans {span}) but {said}: add a crs \
             member naming the real CRS, as in {{\"type\": \"name\", \"properties\": {{\"name\": \
             \"urn:ogc:def:crs:EPSG::2261\"}}}}, or re-export the file in WGS 84"
        ),
    )
}

/// Makes `feature`, which lies outside longitude/latitude range by `span`, unusable, and returns the problem.
fn mark_outside(path: &Path, feature: &mut Feature, span: &str) -> Problem {
    let unusable = Unusable::new(
        GeometryError::OutsideLonLat { span: span.to_string() },
        "correct the coordinates: this layer is WGS 84 longitude/latitude",
    );
    let problem = unusable.problem(path, feature.record);
    feature.geometry = Err(unusable.reason);
    problem
}

#[cfg(test)]
mod tests;
