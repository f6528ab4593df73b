//! The ids of every parcel record, read before the records: what gives each record its position.

use rayon::slice::ParallelSliceMut;

use super::{parcel_id, ParcelColumns};
use crate::error::Result;
use crate::layer::Value;

/// The id and record number of every parcel record, sorted by id, then record number. A record's place in
/// this order is its *position*: the index of its row in the schedule and of its entries in the per-parcel
/// tables (systems, inspections). A repeated id resolves to its first record, the one that is scheduled.
#[derive(Debug, Default)]
pub struct ParcelIds {
    ids: Vec<(Box<str>, usize)>,
}

impl ParcelIds {
    /// The ids of a parcels layer from the values of its id's columns (as [`ParcelColumns::id_columns`] gives
    /// them), record by record; a record with a part missing gets the `<no id: record N>` of
    /// [`records_of`].
    pub fn collect(
        scan: impl FnOnce(&[usize], &mut dyn FnMut(usize, Vec<Value>)) -> Result<()>,
        columns: &ParcelColumns,
    ) -> Result<Self> {
        let scanned = columns.id_columns();
        // The scan gives the scanned columns in order; the parts are taken from a record of the layer's width.
        let width = scanned.last().map_or(0, |&c| c + 1);
        let mut ids = Vec::new();
        let mut record_values = vec![Value::Null; width];
        scan(&scanned, &mut |record, values| {
            for (&c, v) in scanned.iter().zip(values) {
                record_values[c] = v;
            }
            let mut parts = columns.take_id_parts(&mut record_values);
            let (id, _) = parcel_id(&mut parts, columns.id.len(), record);
            ids.push((id.into_boxed_str(), record));
        })?;
        ids.par_sort_unstable();
        Ok(ParcelIds { ids })
    }

    /// The position of the parcel with this id (its first record's).
    pub fn position(&self, id: &str) -> Option<usize> {
        let i = self.ids.partition_point(|(x, _)| &**x < id);
        (self.ids.get(i)?.0.as_ref() == id).then_some(i)
    }

    /// The position of record `record`, whose id is `id`.
    pub fn slot(&self, id: &str, record: usize) -> Option<usize> {
        self.ids.binary_search_by(|(x, r)| (&**x, *r).cmp(&(id, record))).ok()
    }

    /// Why the record at `position` cannot be scheduled, when an earlier record has the same id: the id's
    /// records stand together, the first one first.
    pub fn duplicate(&self, position: usize) -> Option<String> {
        let id = &self.ids.get(position)?.0;
        if position == 0 || self.ids[position - 1].0 != *id {
            return None;
        }
        let first = self.ids[..position].iter().rposition(|(other, _)| other != id).map_or(0, |i| i + 1);
        Some(format!("duplicate parcel id {id} (also record {})", self.ids[first].1))
    }

    /// Number of parcel records.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no parcel records.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}
