//! The ids of every parcel record, read before the records: what gives each record its position.

use std::hash::{BuildHasher, BuildHasherDefault};

use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHasher;

use super::ParcelColumns;
use crate::error::Result;
use crate::layer::Value;

/// The id and record number of every parcel record, sorted by id, then record number. A record's place in
/// this order is its *position*: the index of its row in the schedule and of its entries in the per-parcel
/// tables (systems, inspections). A repeated id resolves to its first record, the one that is scheduled.
///
/// The ids are kept as one text, so a million of them are one allocation. A record finds its position
/// through a table by record number, and an id through a hash table, not by searching the sorted ids: the
/// record files look up a parcel for every line.
#[derive(Debug, Default)]
pub struct ParcelIds {
    /// Every id, back to back, in the order the records were read.
    text: String,
    /// Each record's id (its span of `text`) and record number, sorted by id, then record number.
    sorted: Vec<IdSpan>,
    /// The position of each record number; empty when the record numbers are too sparse for a table
    /// (a slot is then found by searching `sorted`).
    by_record: Vec<u32>,
    /// Open addressing by the id's hash: each slot holds one more than the position of an id's first
    /// record, or 0 when empty. Twice as many slots as records, a power of two.
    by_id: Vec<u32>,
}

/// One record's id, as a span of [`ParcelIds::text`], and its record number.
#[derive(Debug, Clone, Copy)]
struct IdSpan {
    start: usize,
    len: u32,
    record: u32,
}

/// The hasher of the id table: fast on short keys, and the same on every run.
type IdHasher = BuildHasherDefault<FxHasher>;

/// The marker of a record number that no record has, in [`ParcelIds::by_record`].
const NO_RECORD: u32 = u32::MAX;

impl ParcelIds {
    /// The ids of a parcels layer from the values of its id's columns (as [`ParcelColumns::id_columns`] gives
    /// them), record by record; a record with a part missing gets the `<no id: record N>` of
    /// [`parcel_record`](super::parcel_record).
    pub fn collect(
        scan: impl FnOnce(&[usize], &mut dyn FnMut(usize, Vec<Value>)) -> Result<()>,
        columns: &ParcelColumns,
    ) -> Result<Self> {
        let scanned = columns.id_columns();
        // The scan gives the scanned columns in order; the parts are taken from a record of the layer's width.
        let width = scanned.last().map_or(0, |&c| c + 1);
        let mut text = String::new();
        let mut sorted = Vec::new();
        let mut record_values = vec![Value::Null; width];
        let mut too_many = None;
        scan(&scanned, &mut |record, values| {
            for (&c, v) in scanned.iter().zip(values) {
                record_values[c] = v;
            }
            let start = text.len();
            columns.push_id(&record_values, record, &mut text);
            let (Ok(len), Ok(number)) = (u32::try_from(text.len() - start), u32::try_from(record)) else {
                too_many.get_or_insert(record);
                return;
            };
            sorted.push(IdSpan { start, len, record: number });
        })?;
        if let Some(record) = too_many {
            return Err(crate::error::Error::Config(format!(
                "record {record} of the parcels layer: more than 4,294,967,295 records, or an id of over 4 GB, \
                 cannot be scheduled in one run: split the layer"
            )));
        }
        let id = |s: &IdSpan| &text.as_bytes()[s.start..s.start + s.len as usize];
        sorted.par_sort_unstable_by(|a, b| id(a).cmp(id(b)).then(a.record.cmp(&b.record)));
        let mut ids = ParcelIds { text, sorted, by_record: Vec::new(), by_id: Vec::new() };
        ids.index();
        Ok(ids)
    }

    /// Builds the tables by record number and by id.
    fn index(&mut self) {
        let n = self.sorted.len();
        let highest = self.sorted.iter().map(|s| s.record as usize).max().unwrap_or(0);
        // Record numbers are usually 1..=n (0-based in some formats); a table of them costs 4 bytes each.
        if highest <= 2 * n + 16 {
            self.by_record = vec![NO_RECORD; highest + 1];
            for (position, span) in self.sorted.iter().enumerate() {
                self.by_record[span.record as usize] = position as u32;
            }
        }
        let slots = (2 * n).next_power_of_two().max(2);
        self.by_id = vec![0; slots];
        for position in 0..n {
            if position > 0 && self.id_at(position - 1) == self.id_at(position) {
                continue;
            }
            let mut slot = self.home(self.id_at(position));
            while self.by_id[slot] != 0 {
                slot = (slot + 1) & (slots - 1);
            }
            self.by_id[slot] = position as u32 + 1;
        }
    }

    /// The id of the record at `position`.
    fn id_at(&self, position: usize) -> &str {
        self.id_of(&self.sorted[position])
    }

    /// The id a span holds.
    fn id_of(&self, span: &IdSpan) -> &str {
        &self.text[span.start..span.start + span.len as usize]
    }

    /// The first slot of the id table to look in for `id`.
    fn home(&self, id: &str) -> usize {
        (IdHasher::default().hash_one(id) as usize) & (self.by_id.len() - 1)
    }

    /// The position of the parcel with this id (its first record's).
    pub fn position(&self, id: &str) -> Option<usize> {
        if self.sorted.is_empty() {
            return None;
        }
        let mask = self.by_id.len() - 1;
        let mut slot = self.home(id);
        loop {
            let position = (self.by_id[slot] as usize).checked_sub(1)?;
            if self.id_at(position) == id {
                return Some(position);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The position of record `record`, whose id is `id`; `None` when no record has that number and id.
    pub fn slot(&self, id: &str, record: usize) -> Option<usize> {
        let position = if self.by_record.is_empty() {
            let key = (id.as_bytes(), record);
            self.sorted.binary_search_by(|s| (self.id_of(s).as_bytes(), s.record as usize).cmp(&key)).ok()?
        } else {
            match *self.by_record.get(record)? {
                NO_RECORD => return None,
                p => p as usize,
            }
        };
        (self.id_at(position) == id).then_some(position)
    }

    /// Why the record at `position` cannot be scheduled, when an earlier record has the same id: the id's
    /// records stand together, the first one first.
    pub fn duplicate(&self, position: usize) -> Option<String> {
        if position == 0 || position >= self.sorted.len() {
            return None;
        }
        let id = self.id_at(position);
        if self.id_at(position - 1) != id {
            return None;
        }
        // The first record of the id is the one the id table holds.
        let first = self.position(id)?;
        Some(format!("duplicate parcel id {id} (also record {})", self.sorted[first].record))
    }

    /// Number of parcel records.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether there are no parcel records.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
}
