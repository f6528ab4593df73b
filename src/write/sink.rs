//! Sinks: an output file that takes a table a block of rows at a time, as the pipeline produces them, and
//! keeps the rows of the file in order of place whatever order the blocks come in.
//!
//! A place is one parcel's position: it holds the rows of that parcel, one for the schedule, none or several
//! for the obligations. Each block says which places it fills, whole. A block that continues the file (its
//! places follow the last one written, with no gap, which is how blocks come when the parcels layer can be
//! read in order of id) goes straight into it; how a sink keeps the blocks that come out of order until
//! their turn is its own (a scratch file for text, a staging table for a GeoPackage).
//!
//! A sink's [`Sink::finish`] leaves the file complete under its temporary name ([`Staged`]); the files of a
//! run are renamed into place together ([`super::commit_all`]).

use std::path::Path;

use rayon::prelude::*;

use super::Staged;
use crate::model::controls::Cleaned;
use crate::model::error::{Error, Result};
use crate::model::table::Table;

/// Where each row of a block goes: row `i` to place `place(i)`.
pub type Place<'a> = &'a (dyn Fn(usize) -> usize + Sync);

/// An output file written a block of rows at a time.
pub trait Sink: Send {
    /// Adds the rows of `block`: row `i` goes to place `place(i)`, which must be one of `filled`, after the
    /// rows of `block` before it that go to the same place. Each place is filled by one block, whole.
    fn add(&mut self, block: &dyn Table, place: Place<'_>, filled: &[usize]) -> Result<()>;

    /// Completes the file under its temporary name. A place that no block filled is an error, not a short
    /// file.
    fn finish(self: Box<Self>) -> Result<Staged>;
}

/// Which block filled each place, and how far the file stands: the bookkeeping of every sink.
#[derive(Debug)]
pub struct Order {
    /// For each place, the block that filled it (`u32::MAX` before one does).
    blocks: Vec<u32>,
    /// Blocks claimed so far.
    claimed: u32,
    /// The places before this one are written in order.
    through: usize,
    /// Whether every block so far continued the file.
    straight: bool,
}

/// What [`Order::claim`] found of a block.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    /// The block's number, in order of arrival.
    pub block: u32,
    /// Whether the block continues the file: every block before it did, and its places follow the last one
    /// written with no gap.
    pub continues: bool,
}

impl Order {
    /// The bookkeeping of a file of `places` places.
    pub fn new(places: usize) -> Self {
        Order { blocks: vec![u32::MAX; places], claimed: 0, through: 0, straight: true }
    }

    /// The number of places.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether the file has no place.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The places before this one went straight into the file.
    pub fn through(&self) -> usize {
        self.through
    }

    /// The block that filled `place`, once one did.
    pub fn block_of(&self, place: usize) -> Option<u32> {
        self.blocks.get(place).copied().filter(|&b| b != u32::MAX)
    }

    /// Claims the places `filled` for the next block of the file at `path`; a place filled before, or beyond
    /// the file, is an error.
    pub fn claim(&mut self, path: &Path, filled: &[usize]) -> Result<Claim> {
        let block = self.claimed;
        self.claimed = block.checked_add(1).ok_or_else(|| Error::io(path, too_many()))?;
        let (mut new, mut first, mut last) = (0, usize::MAX, 0);
        for &at in filled {
            match self.blocks.get_mut(at) {
                Some(slot) if *slot == u32::MAX => {
                    *slot = block;
                    (new, first, last) = (new + 1, first.min(at), last.max(at));
                }
                Some(slot) if *slot == block => {}
                _ => return Err(misplaced(path, at, "filled twice, or beyond the file")),
            }
        }
        let continues = self.straight && (new == 0 || (first == self.through && last + 1 - first == new));
        if continues {
            self.through += new;
        }
        self.straight = continues;
        Ok(Claim { block, continues })
    }

    /// Checks that row `row`'s place `at` is one its block `claim` filled.
    pub fn check(&self, path: &Path, claim: Claim, at: usize) -> Result<()> {
        match self.blocks.get(at) {
            Some(&block) if block == claim.block => Ok(()),
            _ => Err(misplaced(path, at, "not among the places filled")),
        }
    }

    /// Fails on the first place of the file at `path` no block filled.
    pub fn check_complete(&self, path: &Path) -> Result<()> {
        match self.blocks.iter().position(|&b| b == u32::MAX) {
            Some(place) => Err(Error::io(
                path,
                std::io::Error::other(format!("row {} of the file was never rendered", place + 1)),
            )),
            None => Ok(()),
        }
    }
}

/// The rows of a block of `len` rows in the order of the file: by place, and within a place in the block's
/// order.
pub fn in_order_of_place(len: usize, place: Place<'_>) -> Vec<usize> {
    let mut rows: Vec<(usize, usize)> = (0..len).into_par_iter().map(|i| (place(i), i)).collect();
    rows.par_sort_unstable();
    rows.into_iter().map(|(_, i)| i).collect()
}

/// The error of a file beyond what a block number or a place's length can count.
pub(crate) fn too_many() -> std::io::Error {
    std::io::Error::other("more than 4 GiB in one place, or more than 4 billion blocks")
}

/// The error of a caller that sends a row to a place of the file at `path` it may not fill.
pub(crate) fn misplaced(path: &Path, at: usize, why: &str) -> Error {
    Error::io(path, std::io::Error::other(format!("place {at} of the file: {why}")))
}

/// Writes a whole table through `sink` as one block, row `i` at place `i`, and completes the file; its text
/// is [`Cleaned`] of control characters, as every table's writers get it.
pub fn write_whole(mut sink: Box<dyn Sink>, table: &dyn Table) -> Result<Staged> {
    let filled: Vec<usize> = (0..table.len()).collect();
    sink.add(&Cleaned::new(table, &|i| i, None), &|i| i, &filled)?;
    sink.finish()
}

/// A table of no rows with the columns given: what a file that got no block is written from.
pub(crate) struct NoRows<'a>(pub &'a [(&'static str, crate::model::table::Kind)]);

impl Table for NoRows<'_> {
    fn columns(&self) -> &[(&'static str, crate::model::table::Kind)] {
        self.0
    }
    fn len(&self) -> usize {
        0
    }
    fn cell(&self, _: usize, _: usize) -> crate::model::table::Cell<'_> {
        crate::model::table::Cell::Null
    }
    fn geometry(&self, _: usize) -> Option<&geo::MultiPolygon<f64>> {
        None
    }
}
