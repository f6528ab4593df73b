//! A GeoJSON layer read in blocks of features, so that a large one (a state's parcels) is never held whole.
//!
//! Opening makes a first pass that checks the whole document as a whole read checks it and builds nothing
//! but the property names, so it fails where and as a whole read fails. It learns the fields (in the order
//! they are first met), the CRS (wherever the `crs` member stands) and where each feature and its properties
//! lie in the file (24 bytes a feature). A WGS 84 layer then has its geometries read until one lies within
//! longitude/latitude range, the first as a rule: without one, the layer is in a CRS it does not name, the
//! error a whole read gives. From then on nothing needs to be looked for or checked again:
//! [`Blocks::scan`] reads the `properties` of each feature alone, [`Blocks::next_block`] each feature of the
//! block, both from the bytes where the first pass found them, a few MiB at a time parsed on every core.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

use super::feature::{self, Names, NewNames, Parsed, Part, Properties, Reading};
use super::json::Parse;
use super::walk::{self, Walk, PER_TASK};
use super::{
    collection_crs, expected_rest, failure, mark_outside, not_lon_lat, outside_lon_lat, stream, to_feature,
    Fields,
};
use crate::crs::layer::{Feature, Value};
use crate::crs::Crs;
use crate::formats::ReadOptions;
use crate::model::error::{Error, Problem, Result};

/// Where one feature lies in the file.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The file offset of its first byte.
    start: u64,
    /// Its length in bytes.
    len: u64,
    /// Where the value of its `properties` member lies, as (offset from the feature's first byte, length);
    /// [`NO_PROPERTIES`] or [`READ_WHOLE`].
    properties: (u32, u32),
}

/// [`Entry::properties`] of a feature without a `properties` member.
const NO_PROPERTIES: (u32, u32) = (0, 0);

/// [`Entry::properties`] of a feature whose properties are read from the whole feature: it has more than one
/// `properties` member, or they lie beyond the first 4 GiB of it.
const READ_WHOLE: (u32, u32) = (u32::MAX, u32::MAX);

impl Entry {
    fn new(at: Range<u64>, properties: Properties) -> Self {
        let properties = match properties {
            Properties::None => NO_PROPERTIES,
            Properties::At(range) => match (u32::try_from(range.start), u32::try_from(range.len())) {
                (Ok(start), Ok(len)) if start != u32::MAX => (start, len),
                _ => READ_WHOLE,
            },
            Properties::Several => READ_WHOLE,
        };
        Entry { start: at.start, len: at.end - at.start, properties }
    }
}

/// A GeoJSON layer being read in blocks of features.
pub(in crate::formats) struct Blocks {
    path: PathBuf,
    /// The CRS the document names (WGS 84 without a `crs` member).
    pub crs: Crs,
    /// The kept property names, in the order they are first met in the file.
    pub fields: Vec<String>,
    /// The slot of every property name in the file.
    names: Names,
    /// Where each feature lies, in file order.
    entries: Vec<Entry>,
    /// Whether a feature outside longitude/latitude range is unusable (a WGS 84 layer).
    lon_lat: bool,
    /// The file's length and modification time when the first pass read it.
    stamp: (u64, Option<SystemTime>),
    /// How many bytes of features are read at a time, at the most.
    chunk: usize,
    /// The file the blocks are read from, once the first is.
    file: Option<File>,
    /// Room for the bytes of a chunk and of the next.
    bufs: [Vec<u8>; 2],
    /// How many features were handed out.
    done: usize,
}

impl Blocks {
    /// Opens the GeoJSON layer at `path` with the fields `options` keeps, checking all of it.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<Self> {
        Self::open_in_blocks(path, options, stream::READ_BYTES)
    }

    /// [`Blocks::open`], reading `block` bytes at a time.
    pub(super) fn open_in_blocks(path: &Path, options: &ReadOptions, block: usize) -> Result<Self> {
        let keep = options.keep.as_deref();
        let fail = |fail| failure(path, fail);
        let stamp = stamp(path).map_err(|e| Error::io(path, e))?;
        let mut walk = Walk::open(path, block, true).map_err(fail)?;
        let (mut fields, mut entries, mut parsed) = (Fields::new(keep), Vec::new(), Vec::new());
        while let Some(spans) = walk.parse_next(&fields.names, &Reading::CHECK, &mut parsed).map_err(fail)? {
            if entries.is_empty() {
                entries.reserve(parsed.len() + expected_rest(parsed.len(), spans.all(), stamp.0));
            }
            for (i, feature) in parsed.drain(..).enumerate() {
                let Parsed { mut values, new, properties, .. } = feature.map_err(|e| fail(e.into()))?;
                fields.learn(new, &mut values);
                entries.push(Entry::new(spans.get(i), properties));
            }
        }
        let (crs, explicit) = collection_crs(path, walk.top(), &fields.seen, keep)?;
        let lon_lat = crs == Crs::wgs84();
        if lon_lat {
            find_lon_lat(path, explicit, block)?;
        }
        Ok(Blocks {
            path: path.to_path_buf(),
            crs,
            fields: fields.kept,
            names: fields.names,
            entries,
            lon_lat,
            stamp,
            chunk: block,
            file: None,
            bufs: Default::default(),
            done: 0,
        })
    }

    /// The number of features.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Calls `each` with the record number and the values of the fields at indices `columns` of every
    /// feature, in order, reading the features' properties alone.
    pub fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        let reading = Reading { geometry: Part::Pass, properties: Part::Read, slots: Some(columns) };
        let mut file = reopen(&self.path, self.stamp)?;
        let mut record = 0;
        let read = |entries: &[Entry], bytes: &[u8]| {
            let base = entries[0].start;
            let mut read = Vec::new();
            entries
                .par_iter()
                .with_min_len(PER_TASK)
                .map(|entry| {
                    let at = (entry.start - base) as usize;
                    properties(&bytes[at..at + entry.len as usize], entry, &self.names, &reading)
                })
                .collect_into_vec(&mut read);
            read
        };
        let take = |read: Vec<Parse<(Vec<Value>, NewNames)>>| {
            for values in read {
                let (values, new) = values.map_err(|e| failure(&self.path, e.into()))?;
                if !new.is_empty() {
                    return Err(changed(&self.path));
                }
                record += 1;
                each(record, pick(values, columns));
            }
            Ok(())
        };
        let mut bufs = Default::default();
        in_chunks(&self.path, &mut file, &self.entries, self.chunk, &mut bufs, read, take)
    }

    /// The next `count` features (fewer at the end, none once all are read) and the problems found in them,
    /// in record order.
    pub fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        let (first, end) = (self.done, self.done.saturating_add(count).min(self.entries.len()));
        let (mut features, mut problems) = (Vec::with_capacity(end - first), Vec::new());
        if first == end {
            return Ok((features, Vec::new()));
        }
        let file = match self.file.take() {
            Some(file) => file,
            None => reopen(&self.path, self.stamp)?,
        };
        let file = self.file.insert(file);
        let (path, names, lon_lat) = (&self.path, &self.names, self.lon_lat);
        let read = |entries: &[Entry], bytes: &[u8]| {
            let base = entries[0].start;
            let elements: Vec<_> = entries
                .iter()
                .map(|e| (e.start - base) as usize..(e.start - base + e.len) as usize)
                .collect();
            let mut parsed = Vec::new();
            walk::parse(bytes, base, &elements, names, &Reading::WHOLE, &mut parsed);
            parsed
        };
        let take = |parsed: Vec<Parse<Parsed>>| {
            for feature in parsed {
                let Parsed { geometry, values, new, .. } = feature.map_err(|e| failure(path, e.into()))?;
                if !new.is_empty() {
                    return Err(changed(path));
                }
                let record = first + features.len() + 1;
                let mut feature = to_feature(path, record, geometry, values, &mut problems);
                if let (true, Ok(geometry)) = (lon_lat, &feature.geometry) {
                    if let Some(span) = outside_lon_lat(geometry) {
                        problems.push((record, mark_outside(path, &mut feature, &span)));
                    }
                }
                features.push(feature);
            }
            Ok(())
        };
        in_chunks(path, file, &self.entries[first..end], self.chunk, &mut self.bufs, read, take)?;
        self.done = end;
        Ok((features, problems.into_iter().map(|(_, p)| p).collect()))
    }
}

/// Reads the features of `entries` a chunk of at most `chunk` bytes at a time (a larger feature alone) into
/// one of `bufs`, and hands each chunk's entries and bytes to `read`, on the thread pool while the next
/// chunk is read, then what it made of them to `take`, in order.
fn in_chunks<T: Send>(
    path: &Path,
    file: &mut File,
    entries: &[Entry],
    chunk: usize,
    bufs: &mut [Vec<u8>; 2],
    read: impl Fn(&[Entry], &[u8]) -> T + Sync,
    mut take: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let io = |e| Error::io(path, e);
    let (mut done, mut count) = (0, read_chunk(file, entries, chunk, &mut bufs[0]).map_err(io)?);
    while count > 0 {
        let (here, rest) = entries[done..].split_at(count);
        let [current, next] = &mut *bufs;
        let (made, next_count) = rayon::join(|| read(here, current), || read_chunk(file, rest, chunk, next));
        take(made)?;
        done += count;
        count = next_count.map_err(io)?;
        bufs.swap(0, 1);
    }
    Ok(())
}

/// The values by slot of the properties of the feature in `bytes` that `reading` reads, and the properties
/// not named before.
fn properties(
    bytes: &[u8],
    entry: &Entry,
    names: &Names,
    reading: &Reading,
) -> Parse<(Vec<Value>, NewNames)> {
    match entry.properties {
        NO_PROPERTIES => Ok((Vec::new(), Vec::new())),
        READ_WHOLE => {
            feature::read(bytes, entry.start, names, reading, &mut Vec::new()).map(|f| (f.values, f.new))
        }
        (at, len) => {
            let (at, len) = (at as usize, len as usize);
            feature::read_properties(&bytes[at..at + len], entry.start + at as u64, names, reading)
        }
    }
}

/// The values of `columns`, from the values of a feature by slot (null where it has none).
fn pick(mut values: Vec<Value>, columns: &[usize]) -> Vec<Value> {
    let mut picked = Vec::with_capacity(columns.len());
    for (i, &column) in columns.iter().enumerate() {
        picked.push(match values.get_mut(column) {
            Some(value) if columns[i + 1..].contains(&column) => value.clone(),
            Some(value) => std::mem::replace(value, Value::Null),
            None => Value::Null,
        });
    }
    picked
}

/// Reads the bytes of the first features of `entries` that lie within `chunk` bytes (the first one at
/// least) into `buf`, from the file offset of the first; returns how many.
fn read_chunk(file: &mut File, entries: &[Entry], chunk: usize, buf: &mut Vec<u8>) -> io::Result<usize> {
    let Some(first) = entries.first() else { return Ok(0) };
    let within = |e: &&Entry| e.start + e.len - first.start <= chunk as u64;
    let count = entries.iter().take_while(within).count().max(1);
    let last = &entries[count - 1];
    let len = usize::try_from(last.start + last.len - first.start)
        .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "a feature larger than memory"))?;
    buf.resize(len, 0);
    file.seek(SeekFrom::Start(first.start))?;
    file.read_exact(buf)?;
    Ok(count)
}

/// The length and modification time of the file at `path`.
fn stamp(path: &Path) -> io::Result<(u64, Option<SystemTime>)> {
    let metadata = std::fs::metadata(path)?;
    Ok((metadata.len(), metadata.modified().ok()))
}

/// The file at `path` opened again, if it is still as the first pass found it (`stamp`).
fn reopen(path: &Path, was: (u64, Option<SystemTime>)) -> Result<File> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let metadata = file.metadata().map_err(|e| Error::io(path, e))?;
    if (metadata.len(), metadata.modified().ok()) != was {
        return Err(changed(path));
    }
    Ok(file)
}

/// The error for a file at `path` that no longer holds what the first pass found.
fn changed(path: &Path) -> Error {
    Error::format(
        path,
        "the file changed while it was being read: read it again once nothing is writing to it",
    )
}

/// Reads the geometries of the WGS 84 layer at `path`, `block` bytes at a time, until one is usable and lies
/// within longitude/latitude range. Without one (but with a usable one) the layer is in a CRS it does not
/// name: the error a whole read gives, naming the first usable feature. `explicit` says whether the file
/// names WGS 84.
fn find_lon_lat(path: &Path, explicit: bool, block: usize) -> Result<()> {
    let reading = Reading { geometry: Part::Read, properties: Part::Pass, slots: None };
    let names = Names::new(Some(&[]));
    let fail = |fail| failure(path, fail);
    let mut walk = Walk::open(path, block, false).map_err(fail)?;
    let (mut record, mut first_outside, mut parsed) = (0, None, Vec::new());
    while walk.parse_next(&names, &reading, &mut parsed).map_err(fail)?.is_some() {
        for feature in parsed.drain(..) {
            record += 1;
            let Some(Ok(geometry)) = feature.map_err(|e| fail(e.into()))?.geometry else { continue };
            match outside_lon_lat(&geometry) {
                None => return Ok(()),
                Some(span) => {
                    first_outside.get_or_insert((record, span));
                }
            }
        }
    }
    match first_outside {
        Some((record, span)) => Err(not_lon_lat(path, explicit, record, &span)),
        None => Ok(()),
    }
}
