//! The top-level object walked member by member, and the features of every `features` member handed out a
//! batch at a time: each batch parsed on every core while the batch after it is read.
//!
//! Every pass over a document goes through [`Walk`]: the whole read, the first pass of a layer read in
//! blocks (which checks everything and learns the property names), the pass for the ids and the blocks
//! themselves. They differ only in how much of each feature they read ([`Reading`]) and in what they keep.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value as Json;

use super::feature::{self, Names, Parsed, Reading};
use super::json::Parse;
use super::stream::{Batch, Fail, Stream, Then};

/// Features parsed by one rayon task at the least: enough to outweigh handing the task out.
pub(super) const PER_TASK: usize = 64;

/// What the top-level members other than the features say, as far as the walk has gone.
#[derive(Debug, Default)]
pub(super) struct Top {
    /// The `type` member, as JSON.
    pub collection_type: Option<Json>,
    /// The `crs` member, as JSON.
    pub crs: Option<Json>,
    /// Whether a `features` member was met.
    pub has_features: bool,
}

/// Where the walk stands.
#[derive(Debug)]
enum At {
    /// Between members of the top-level object; `first` before the first.
    Members { first: bool },
    /// In the array of a `features` member.
    Features,
    /// The fault that follows the features handed out last, to be returned next.
    Failed(Fail),
    /// Past the end of the document, or stopped by a fault.
    Done,
}

/// One pass over a GeoJSON document.
pub(super) struct Walk {
    stream: Stream,
    at: At,
    top: Top,
    /// Whether the next batch is read while one is parsed.
    read_ahead: bool,
    /// The batch read while the last one was parsed (`None` inside: the document had ended).
    ahead: Option<Result<Option<Batch>, Fail>>,
    /// A batch done with, whose memory is used again.
    spare: Batch,
}

impl Walk {
    /// Starts a pass over the document at `path`, read `block` bytes at a time; with `read_ahead`, each
    /// batch is read while the one before is parsed.
    pub fn open(path: &Path, block: usize, read_ahead: bool) -> Result<Self, Fail> {
        let mut stream = Stream::open(path, block)?;
        stream.open_top()?;
        Ok(Walk {
            stream,
            at: At::Members { first: true },
            top: Top::default(),
            read_ahead,
            ahead: None,
            spare: Batch::default(),
        })
    }

    /// The file's length when opened.
    pub fn len(&self) -> u64 {
        self.stream.len()
    }

    /// The top-level members met so far (all of them once the walk has ended).
    pub fn top(&self) -> &Top {
        &self.top
    }

    /// The next batch of features: complete elements of a `features` array, walking the top-level object on
    /// to the next array as needed; `None` after the end of the document, which is checked. A fault that
    /// follows a batch's elements is returned by the next call, so that a fault inside them comes first.
    pub fn batch(&mut self) -> Result<Option<Batch>, Fail> {
        loop {
            match std::mem::replace(&mut self.at, At::Done) {
                At::Done => return Ok(None),
                At::Failed(fail) => return Err(fail),
                At::Features => {
                    let mut batch = self.stream.batch(std::mem::take(&mut self.spare))?;
                    self.at = match std::mem::take(&mut batch.then) {
                        Then::More => At::Features,
                        Then::Closed => At::Members { first: false },
                        Then::Broken(e) => At::Failed(Fail::Syntax(e)),
                    };
                    if !batch.elements.is_empty() {
                        return Ok(Some(batch));
                    }
                    self.spare = batch;
                }
                At::Members { mut first } => {
                    let Some(key) = self.stream.key(&mut first)? else {
                        self.stream.end()?;
                        return Ok(None);
                    };
                    match key.as_str() {
                        "type" => self.top.collection_type = Some(self.stream.json()?),
                        "crs" => self.top.crs = Some(self.stream.json()?),
                        "features" => {
                            self.top.has_features = true;
                            self.stream.open_features()?;
                            self.at = At::Features;
                            continue;
                        }
                        _ => self.stream.skip()?,
                    }
                    self.at = At::Members { first };
                }
            }
        }
    }

    /// The features of the next batch, parsed as `reading` says into `out` in file order (the batch after it
    /// read meanwhile); returns where they lie in the file, or `None` after the end of the document.
    pub fn parse_next(
        &mut self,
        names: &Names,
        reading: &Reading,
        out: &mut Vec<Parse<Parsed>>,
    ) -> Result<Option<Spans<'_>>, Fail> {
        let batch = match self.ahead.take() {
            Some(ahead) => ahead?,
            None => self.batch()?,
        };
        let Some(batch) = batch else {
            out.clear();
            return Ok(None);
        };
        let parse_batch = |out: &mut _| parse(&batch.bytes, batch.base, &batch.elements, names, reading, out);
        if self.read_ahead {
            let ((), next) = rayon::join(|| parse_batch(out), || self.batch());
            self.ahead = Some(next);
        } else {
            parse_batch(out);
        }
        self.spare = batch;
        Ok(Some(Spans { base: self.spare.base, elements: &self.spare.elements }))
    }
}

/// Where the features of a batch lie in the file.
pub(super) struct Spans<'a> {
    base: u64,
    elements: &'a [Range<usize>],
}

impl Spans<'_> {
    /// Where feature `i` of the batch lies.
    pub fn get(&self, i: usize) -> Range<u64> {
        let element = &self.elements[i];
        self.base + element.start as u64..self.base + element.end as u64
    }

    /// From the start of the batch's first feature to the end of its last.
    pub fn all(&self) -> Range<u64> {
        match (self.elements.first(), self.elements.last()) {
            (Some(first), Some(last)) => self.base + first.start as u64..self.base + last.end as u64,
            _ => self.base..self.base,
        }
    }
}

/// Parses the features at `elements` of `bytes`, which start at file offset `base`, as `reading` says, on
/// every core, each on its own, into `out` in their order.
pub(super) fn parse(
    bytes: &[u8],
    base: u64,
    elements: &[Range<usize>],
    names: &Names,
    reading: &Reading,
    out: &mut Vec<Parse<Parsed>>,
) {
    elements
        .par_iter()
        .with_min_len(PER_TASK)
        .map_init(Vec::new, |scratch, range| {
            feature::read(&bytes[range.clone()], base + range.start as u64, names, reading, scratch)
        })
        .collect_into_vec(out);
}
