//! The ids of every parcel record, read before the records: what gives each record its position.

use std::path::Path;

use rayon::prelude::*;

use super::ParcelColumns;
use crate::crs::layer::Value;
use crate::model::error::{Error, Result};

/// The id and record number of every parcel record, sorted by id, then record number. A record's place in
/// this order is its *position*: the index of its row in the schedule and of its entries in the per-parcel
/// tables (systems, inspections). A repeated id resolves to its first record, the one that is scheduled.
///
/// The ids are kept as one text in id order, so a million of them are one allocation. A record finds its
/// position through a table by record number, and an id through buckets of the sorted ids (what the record
/// files do for every line): a bucket holds the ids whose first bytes after the prefix all ids share fall in
/// its range, a few ids, and keeps their order, so that files listed in id order are looked up front to back
/// through memory.
#[derive(Debug, Default)]
pub struct ParcelPositions {
    /// Every id, back to back, in id order.
    text: String,
    /// Each record's id (its span of `text`) and record number, sorted by id, then record number.
    sorted: Vec<IdSpan>,
    /// The position of each record number; empty when the record numbers are too sparse for a table
    /// (a slot is then found by searching `sorted`).
    by_record: Vec<u32>,
    /// Where each bucket's ids start, and after the last bucket the number of records.
    buckets: Vec<u32>,
    /// The bytes every id begins with, and the keys of the first and last ids (see [`ParcelPositions::key`]).
    prefix: usize,
    low: u64,
    high: u64,
}

/// One record's id, as a span of [`ParcelPositions::text`], and its record number.
#[derive(Debug, Clone, Copy)]
struct IdSpan {
    start: usize,
    len: u32,
    record: u32,
}

/// The marker of a record number that no record has, in [`ParcelPositions::by_record`].
const NO_RECORD: u32 = u32::MAX;

/// How far past the last answer an [`IdCursor`] searches before it goes to the buckets.
const AHEAD: usize = 64;

/// Looks parcel ids up from where the last search ended (see [`ParcelPositions::cursor`]).
#[derive(Debug)]
pub struct IdCursor<'a> {
    ids: &'a ParcelPositions,
    from: std::cell::Cell<usize>,
}

impl IdCursor<'_> {
    /// The position of the parcel with this id (its first record's), as [`ParcelPositions::position`] gives it.
    pub fn position(&self, id: &str) -> Option<usize> {
        let (found, next) = self.ids.position_from(id, self.from.get());
        self.from.set(next);
        found
    }
}

impl ParcelPositions {
    /// The ids of a parcels layer from the values of its id's columns (as [`ParcelColumns::id_columns`] gives
    /// them), record by record; a record with a part missing gets the `<no id: record N>` of
    /// [`parcel_record`](super::parcel_record). `records` is how many records the layer says it holds: the
    /// tables are made that size at once rather than grown (and copied) as the ids come. `path` is the
    /// layer's, which an error names.
    pub fn collect(
        path: &Path,
        scan: impl FnOnce(&[usize], &mut dyn FnMut(usize, Vec<Value>)) -> Result<()>,
        columns: &ParcelColumns,
        records: usize,
    ) -> Result<Self> {
        let scanned = columns.id_columns();
        // The scan gives the scanned columns in order; the parts are taken from a record of the layer's width.
        let width = scanned.last().map_or(0, |&c| c + 1);
        // Ids of county layers run to about 20 bytes; a longer one grows the text as it would have anyway.
        let mut text = String::with_capacity(records.saturating_mul(20));
        let mut sorted = Vec::with_capacity(records);
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
            return Err(Error::format(
                path,
                format!(
                    "record {record}: more than 4,294,967,295 records, or an id of over 4 GB, cannot be \
                     scheduled in one run: split the layer"
                ),
            ));
        }
        let id = |s: &IdSpan| &text.as_bytes()[s.start..s.start + s.len as usize];
        sorted.par_sort_unstable_by(|a, b| id(a).cmp(id(b)).then(a.record.cmp(&b.record)));
        // The text is laid out again in id order, so that ids looked up in order are read in order.
        let mut in_order = String::with_capacity(text.len());
        for span in &mut sorted {
            let start = in_order.len();
            in_order.push_str(&text[span.start..span.start + span.len as usize]);
            span.start = start;
        }
        drop(text);
        let mut ids = ParcelPositions { text: in_order, sorted, ..ParcelPositions::default() };
        ids.index();
        Ok(ids)
    }

    /// The ids of a layer whose records (numbered from 1) have these ids, for tests.
    #[cfg(test)]
    pub(crate) fn collect_texts(layer: &[String]) -> Self {
        let columns = super::ParcelColumns::for_one_text_field();
        let scan = |_: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)| {
            for (i, id) in layer.iter().enumerate() {
                each(i + 1, vec![Value::Text(id.as_str().into())]);
            }
            Ok(())
        };
        Self::collect(Path::new("parcels.shp"), scan, &columns, layer.len()).expect("the ids are collected")
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
        if n == 0 {
            return;
        }
        let (first, last) = (self.id_at(0).as_bytes().to_vec(), self.id_at(n - 1).as_bytes().to_vec());
        self.prefix = first.iter().zip(&last).take_while(|(a, b)| a == b).count();
        (self.low, self.high) = (self.key(&first), self.key(&last));
        // About two ids a bucket when their keys spread evenly; a crowded bucket is searched all the same.
        let count = (n / 2).max(1);
        self.buckets = vec![0; count + 1];
        for position in 0..n {
            let bucket = self.bucket(self.key(self.id_at(position).as_bytes()));
            self.buckets[bucket + 1] = position as u32 + 1;
        }
        // A bucket no id fell in starts where the one before it ends.
        for b in 1..=count {
            self.buckets[b] = self.buckets[b].max(self.buckets[b - 1]);
        }
    }

    /// The eight bytes of `id` after the shared prefix, as a number that orders as they do (short ids are
    /// padded with zeros).
    fn key(&self, id: &[u8]) -> u64 {
        let mut bytes = [0u8; 8];
        let rest = id.get(self.prefix..).unwrap_or_default();
        let take = rest.len().min(8);
        bytes[..take].copy_from_slice(&rest[..take]);
        u64::from_be_bytes(bytes)
    }

    /// The bucket of a key between the first and last ids' keys: keys in order give buckets in order.
    fn bucket(&self, key: u64) -> usize {
        let count = (self.buckets.len() - 1) as u128;
        let span = u128::from(self.high - self.low) + 1;
        (u128::from(key - self.low) * count / span) as usize
    }

    /// The id of the record at `position`.
    pub fn id_at(&self, position: usize) -> &str {
        self.id_of(&self.sorted[position])
    }

    /// The id a span holds.
    fn id_of(&self, span: &IdSpan) -> &str {
        &self.text[span.start..span.start + span.len as usize]
    }

    /// The position of the parcel with this id (its first record's).
    pub fn position(&self, id: &str) -> Option<usize> {
        let bytes = id.as_bytes();
        let first = self.sorted.first()?;
        if bytes.get(..self.prefix) != self.text.as_bytes().get(first.start..first.start + self.prefix) {
            return None;
        }
        let key = self.key(bytes);
        if key < self.low || key > self.high {
            return None;
        }
        let bucket = self.bucket(key);
        let (from, to) = (self.buckets[bucket] as usize, self.buckets[bucket + 1] as usize);
        let at = from + self.sorted[from..to].partition_point(|s| self.id_of(s) < id);
        (at < to && self.id_at(at) == id).then_some(at)
    }

    /// A lookup of ids for a reader going through a file: each search starts where the one before it
    /// ended, so a file listed by parcel id (as record files usually are) finds each id in a comparison or
    /// two rather than a search of its bucket. Any id gets the answer of [`ParcelPositions::position`].
    pub fn cursor(&self) -> IdCursor<'_> {
        IdCursor { ids: self, from: std::cell::Cell::new(0) }
    }

    /// The position of the parcel with this id, searched forward from `from`, and where the next search
    /// starts. `from` is the first position of its id (every id before it is smaller), as every answer of
    /// this function is. An id behind `from`, or more than [`AHEAD`] positions past it, is found through
    /// the buckets.
    fn position_from(&self, id: &str, from: usize) -> (Option<usize>, usize) {
        let n = self.sorted.len();
        let by_bucket = || {
            let found = self.position(id);
            (found, found.unwrap_or(from))
        };
        let Some(first) = (from < n).then(|| self.id_at(from)) else {
            return by_bucket();
        };
        match first.cmp(id) {
            std::cmp::Ordering::Equal => return (Some(from), from),
            std::cmp::Ordering::Greater => return by_bucket(),
            std::cmp::Ordering::Less => {}
        }
        // Gallop: `id_at(below) < id`, and `id <= id_at(above)` (or `above` is the end).
        let (mut below, mut step) = (from, 1);
        let above = loop {
            let probe = below + step;
            if probe >= n || self.id_at(probe) >= id {
                break probe.min(n);
            }
            if probe - from >= AHEAD {
                return by_bucket();
            }
            (below, step) = (probe, step * 2);
        };
        let at = below + 1 + self.sorted[below + 1..above].partition_point(|s| self.id_of(s) < id);
        ((at < n && self.id_at(at) == id).then_some(at), at)
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

    /// The record numbers of the positions `positions`, rising.
    pub fn records_at(&self, positions: std::ops::Range<usize>) -> Vec<usize> {
        let mut records: Vec<usize> = self.sorted[positions].iter().map(|s| s.record as usize).collect();
        records.sort_unstable();
        records
    }

    /// Whether reading the records in blocks of `block` positions, each block's records forward through the
    /// file, passes over at most `8 ×` as many records as there are. A gap between two records of a block
    /// counts as the records it skips, up to 8,192 (past that, a reader seeks rather than reads through).
    /// Passing over a record costs a copy of its bytes from the page cache; reading in record order instead
    /// costs writing every output line to a scratch file, reading it back and merging. On the 1M bench county
    /// (4 × n passed) reading by position took 2.0 s against 2.6 s. A layer listed in id order, or in runs of
    /// it (a town at a time, towns interleaved), qualifies; one in no order of id does not.
    pub fn blocks_read_forward(&self, block: usize) -> bool {
        const SEEK: usize = 8_192;
        let n = self.sorted.len();
        let block = block.max(1);
        let passed: usize = (0..n.div_ceil(block))
            .into_par_iter()
            .map(|b| {
                let records = self.records_at(b * block..((b + 1) * block).min(n));
                records.windows(2).map(|pair| (pair[1] - pair[0]).min(SEEK)).sum::<usize>() + 1
            })
            .sum();
        passed <= 8 * n
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::ParcelPositions;

    /// Ids built from a tiny alphabet, so that prefixes, repeats, lengths and near misses are common.
    fn ids(seed: u64, count: usize, prefix: &str) -> Vec<String> {
        let mut x = seed;
        (0..count)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let len = (x % 7) as usize;
                let tail: String = (0..len)
                    .map(|i| ['0', '1', '9', '-', '.', 'A'][((x >> (8 + 3 * i)) % 6) as usize])
                    .collect();
                format!("{prefix}{tail}")
            })
            .collect()
    }

    /// Every id finds the first of its records in sorted order, and ids not in the layer find nothing:
    /// checked against a sort of the same ids and a map of their first records.
    #[test]
    fn every_id_finds_its_first_record_and_others_find_nothing() {
        for (seed, count, prefix) in
            [(1, 1, ""), (2, 5, "0548"), (3, 300, ""), (4, 2_000, "054889-"), (5, 40, "x")]
        {
            let layer = ids(seed, count, prefix);
            let found = ParcelPositions::collect_texts(&layer);
            let mut order: Vec<(&str, usize)> =
                layer.iter().enumerate().map(|(r, id)| (id.as_str(), r + 1)).collect();
            order.sort();
            let mut first = BTreeMap::new();
            for (position, (id, _)) in order.iter().enumerate() {
                first.entry(*id).or_insert(position);
            }
            for (id, &position) in &first {
                assert_eq!(found.position(id), Some(position), "{id:?} of seed {seed}");
            }
            for probe in ids(seed + 100, 500, prefix).iter().chain(&ids(seed + 200, 50, "")) {
                assert_eq!(
                    found.position(probe),
                    first.get(probe.as_str()).copied(),
                    "{probe:?} of seed {seed}"
                );
            }
            for (position, (id, record)) in order.iter().enumerate() {
                assert_eq!(found.slot(id, *record), Some(position));
            }
        }
    }

    /// Ids alike for their first bytes (long ids alike for eight bytes and more after a shared prefix, a short
    /// id and the same id with NUL bytes after it) stand in the order of a plain sort of their bytes, then
    /// record numbers.
    #[test]
    fn ids_alike_in_their_first_bytes_stand_in_byte_order() {
        let mut layer: Vec<String> =
            ids(9, 400, "").iter().map(|t| format!("0548-{t}ABCDEFGHIJ{t}")).collect();
        layer.extend(
            ["0548-", "0548-\0", "0548-\0\0", "0548-\0", "0548-A", "0548-ABCDEFGH", "0548-ABCDEFGH\0"]
                .map(String::from),
        );
        let found = ParcelPositions::collect_texts(&layer);
        let mut order: Vec<(&str, usize)> =
            layer.iter().enumerate().map(|(r, id)| (id.as_str(), r + 1)).collect();
        order.sort();
        let stood: Vec<&str> = (0..found.len()).map(|p| found.id_at(p)).collect();
        assert_eq!(stood, order.iter().map(|&(id, _)| id).collect::<Vec<_>>());
        for (position, (id, record)) in order.iter().enumerate() {
            assert_eq!(found.slot(id, *record), Some(position), "{id:?} record {record}");
        }
    }

    /// A cursor answers as the buckets do, whatever order the ids come in: sorted with repeats and
    /// unknown ids among them (the searches it gallops through), reversed (each one behind the last), and
    /// with jumps past its reach.
    #[test]
    fn a_cursor_finds_what_the_buckets_find_in_any_order() {
        for (seed, count, prefix) in [(6, 3_000, "054889-"), (7, 200, ""), (8, 1, "x")] {
            let found = ParcelPositions::collect_texts(&ids(seed, count, prefix));
            let mut probes = ids(seed, count, prefix);
            probes.extend(ids(seed + 300, count / 3, prefix));
            probes.push(String::new());
            probes.push("~".repeat(3));
            probes.sort();
            let mut orders = vec![probes.clone(), probes.iter().rev().cloned().collect()];
            // Every fifth id of the sorted list, then the rest: a few long jumps forward and back.
            orders.push(probes.iter().step_by(5).chain(probes.iter()).cloned().collect());
            for order in orders {
                let cursor = found.cursor();
                for probe in &order {
                    assert_eq!(cursor.position(probe), found.position(probe), "{probe:?} of seed {seed}");
                }
            }
        }
    }

    /// A layer in id order, in reverse, or in runs of it reads forward by blocks of positions; one in no
    /// order of id does not. Each expected answer is worked from the gaps between a block's records.
    #[test]
    fn layers_near_id_order_read_forward_by_positions() {
        let n = 4_000;
        let layer = |id_of_record: &dyn Fn(usize) -> usize| -> ParcelPositions {
            let ids: Vec<String> = (0..n).map(|r| format!("054889-{:06}", id_of_record(r))).collect();
            ParcelPositions::collect_texts(&ids)
        };
        // In id order, forward or backward: every gap is 1 record.
        assert!(layer(&|r| r).blocks_read_forward(100));
        assert!(layer(&|r| n - r).blocks_read_forward(100));
        // Four towns listed in turn, record by record: a block of 100 positions (one town's ids) has its
        // records 4 apart, 4 × n in all, within 8 × n.
        assert!(layer(&|r| (r % 4) * n + r / 4).blocks_read_forward(100));
        // Scattered (a multiplicative shuffle): a block's 100 records are about n / 100 = 40 apart.
        let shuffled = layer(&|r| (r * 2_731) % n);
        assert!(!shuffled.blocks_read_forward(100));
        // One record a block has no gaps to pass over.
        assert!(shuffled.blocks_read_forward(1));
        // The records of the first positions, rising: ids 0, 1 and 2 are those of records 1, 3,172 and 2,343
        // (record r holds id (r - 1) × 2,731 mod 4,000; 3,171 × 2,731 = 8,660,001 and 2,342 × 2,731 =
        // 6,396,002).
        assert_eq!(shuffled.records_at(0..3), [1, 2_343, 3_172]);
    }
}
