//! Every id the parcels layer can give a parcel by, for the record files and the systems layer whose ids are
//! not the parcels' own: the configured id, `SWIS` + `PRINT_KEY`, `PRINT_KEY`, `SBL`, `SWIS_SBL_ID`,
//! `PARCEL_ID` and the other names of [`super::candidates::ID`] the layer has, each read with its spelling set
//! aside ([`crate::model::id::spelling`]: padding, zeros, case, spaces, a leading SWIS code, the unformatted SBL).
//!
//! Nothing here is read unless a file's ids fail to find their parcels: [`OtherKeys::read`] opens the
//! parcels layer again and scans only those fields (a shapefile's `.dbf` columns alone). Each key keeps one
//! pair of 64-bit hashes a parcel; the sorted lookup of a key is built only for a key a file is joined on.

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::OnceLock;

use super::{find_group, ParcelColumns, ParcelPositions, ParcelSchema};
use crate::crs::layer::Value;
use crate::formats::blocks::LayerBlocks;
use crate::formats::ReadOptions;
use crate::model::error::Result;
use crate::model::id::spelling::{id_key, IdKey};

/// How many parcels have an id under a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// None.
    None,
    /// One, at this position.
    One(usize),
    /// More than one: the id does not say which (a print key the same in two towns).
    Many,
}

/// The parcels layer's keys, each parcel's ids under them read with their spelling set aside.
#[derive(Debug)]
pub struct OtherKeys {
    keys: Vec<Key>,
    /// The hash of each id of a parcel under some key, as digits (leading zeros and other characters aside),
    /// rounded as Excel rounds a number of more than 15 digits, where that changes it
    /// ([`crate::records::tally::excel_rounding`]).
    rounded: rustc_hash::FxHashSet<u64>,
}

/// One key of the parcels layer: the fields joined into it, and by position each parcel's id under it.
#[derive(Debug)]
struct Key {
    name: String,
    /// By position: the hash of the id with its SWIS (0 when it has none) and without.
    hashes: Vec<[u64; 2]>,
    /// The first ids under the key, for messages.
    examples: Vec<String>,
    /// (hash, position) sorted, with its SWIS and without, built when a file is joined on the key.
    lookup: OnceLock<[Vec<(u64, u32)>; 2]>,
}

/// How many ids of each key are kept for messages.
const EXAMPLES: usize = 3;

/// The hash of an id key's SWIS and body, or of its body alone; `swis` (the layer's SWIS field, leading zeros
/// aside as [`id_key`] reads them) stands in for a SWIS the id does not begin with.
fn hashes(key: &IdKey, swis: Option<&str>) -> [u64; 2] {
    let hash = |parts: &[&str]| {
        let mut h = std::hash::DefaultHasher::new();
        parts.hash(&mut h);
        // 0 stands for no id.
        h.finish().max(1)
    };
    let swis = key.swis.as_deref().or(swis.map(|s| s.trim().trim_start_matches('0')));
    [swis.map_or(0, |s| hash(&[s, &key.body])), hash(&[&key.body])]
}

/// The hash of a number's digits, for [`OtherKeys::rounds_to`].
fn digits_hash(digits: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    digits.hash(&mut h);
    h.finish()
}

impl OtherKeys {
    /// Reads the keys of the parcels layer at `path` (its schema `schema`, its ids `ids`): the configured id
    /// and every other id field group of [`super::candidates::ID`] the layer has.
    pub fn read(
        path: &Path,
        schema: &ParcelSchema,
        ids: &ParcelPositions,
        options: &ReadOptions,
    ) -> Result<Self> {
        let fields = crate::formats::field_names(path)?;
        let mut groups = vec![schema.id.clone()];
        for group in super::candidates::ID {
            if let Some(found) = find_group(&fields, &[group]) {
                if !groups.iter().any(|g| {
                    g.iter().map(|f| f.to_ascii_uppercase()).eq(found.iter().map(|f| f.to_ascii_uppercase()))
                }) {
                    groups.push(found);
                }
            }
        }
        let mut keep: Vec<String> = groups.iter().flatten().chain(&schema.swis).cloned().collect();
        keep.sort_by_key(|f| f.to_ascii_uppercase());
        keep.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        let blocks = LayerBlocks::open(path, &ReadOptions { keep: Some(keep), ..options.clone() })?;
        let kept = blocks.fields().to_vec();
        let index = |f: &String| kept.iter().position(|k| k.eq_ignore_ascii_case(f));
        let own = ParcelColumns::new(&kept, schema);
        let columns: Vec<Vec<Option<usize>>> = groups.iter().map(|g| g.iter().map(index).collect()).collect();
        let swis_at = schema.swis.as_ref().and_then(index);
        let mut keys: Vec<Key> = groups
            .iter()
            .map(|g| Key {
                name: g.join(" + "),
                hashes: vec![[0, 0]; ids.len()],
                examples: Vec::new(),
                lookup: OnceLock::new(),
            })
            .collect();
        let every: Vec<usize> = (0..kept.len()).collect();
        let mut id = String::new();
        let mut rounded = rustc_hash::FxHashSet::default();
        blocks.scan(&every, &mut |record, values| {
            id.clear();
            own.push_id(&values, record, &mut id);
            let Some(at) = ids.position(&id) else { return };
            let swis = swis_at.and_then(|i| values[i].as_text());
            for (key, parts) in keys.iter_mut().zip(&columns) {
                let Some(text) = joined(&values, parts) else { continue };
                key.hashes[at] = hashes(&id_key(&text), swis.as_deref());
                let digits: String = text.chars().filter(char::is_ascii_digit).collect();
                if let Some(excel) = crate::records::tally::excel_rounding(digits.trim_start_matches('0')) {
                    rounded.insert(digits_hash(&excel));
                }
                if key.examples.len() < EXAMPLES {
                    key.examples.push(text);
                }
            }
        })?;
        Ok(OtherKeys { keys, rounded })
    }

    /// Whether some parcel's id, as digits rounded as Excel rounds a number of more than 15 digits, is
    /// `digits` while being another number: what tells a number cell Excel rounded from a zero-padded id.
    pub fn rounds_to(&self, digits: &str) -> bool {
        self.rounded.contains(&digits_hash(digits))
    }

    /// The keys that find the parcels of some of `ids`, with how many each finds, most first (the configured
    /// id, read with its spelling aside, first among equals).
    pub fn ranked(&self, ids: &[String]) -> Vec<(usize, usize)> {
        let mut ranked: Vec<(usize, usize)> = (0..self.keys.len())
            .map(|k| (k, ids.iter().filter(|id| self.position(k, id).is_some()).count()))
            .filter(|&(_, found)| found > 0)
            .collect();
        ranked.sort_by_key(|&(k, found)| (std::cmp::Reverse(found), k));
        ranked
    }

    /// The position of the parcel whose id under key `key` is `id`, spelling aside: with its SWIS when `id`
    /// has one and the key knows the parcels' SWIS, else without; `None` when no parcel, or more than one,
    /// has it.
    pub fn position(&self, key: usize, id: &str) -> Option<usize> {
        match self.lookup(key, id) {
            Lookup::One(at) => Some(at),
            Lookup::None | Lookup::Many => None,
        }
    }

    /// The parcels whose id under key `key` is `id`, spelling aside, as [`OtherKeys::position`] finds them:
    /// none, one (its position) or more than one.
    pub fn lookup(&self, key: usize, id: &str) -> Lookup {
        let k = &self.keys[key];
        let lookup = k.lookup.get_or_init(|| {
            let mut sorted = [Vec::new(), Vec::new()];
            for (at, pair) in k.hashes.iter().enumerate() {
                for (side, &h) in sorted.iter_mut().zip(pair) {
                    if h != 0 {
                        side.push((h, at as u32));
                    }
                }
            }
            sorted.iter_mut().for_each(|s| s.sort_unstable());
            sorted
        });
        let wanted = hashes(&id_key(id), None);
        let side = usize::from(wanted[0] == 0 || lookup[0].is_empty());
        let list = &lookup[side];
        let from = list.partition_point(|&(h, _)| h < wanted[side]);
        let mut found = list[from..].iter().take_while(|&&(h, _)| h == wanted[side]).map(|&(_, at)| at);
        let Some(first) = found.next() else { return Lookup::None };
        match found.all(|at| at == first) {
            true => Lookup::One(first as usize),
            false => Lookup::Many,
        }
    }

    /// The name of key `key` (`PRINT_KEY`, `SWIS + SBL`).
    pub fn name(&self, key: usize) -> &str {
        &self.keys[key].name
    }

    /// The names of every key but the configured id.
    pub fn others(&self) -> Vec<&str> {
        self.keys.iter().skip(1).map(|k| k.name.as_str()).collect()
    }

    /// The first ids of the parcels layer under key `key`, as the layer writes them.
    pub fn examples(&self, key: usize) -> &[String] {
        &self.keys[key].examples
    }
}

/// The values at `parts` joined with `-`, as the parcels' id joins its fields; `None` when one is empty.
fn joined(values: &[Value], parts: &[Option<usize>]) -> Option<String> {
    let mut text = String::new();
    for (k, part) in parts.iter().enumerate() {
        let value = values.get((*part)?)?.as_text().filter(|t| !t.trim().is_empty())?;
        if k > 0 {
            text.push('-');
        }
        text.push_str(value.trim());
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys over parcels at positions 0, 1, 2, each written under `name` as `ids[position]`, with the SWIS
    /// `swis` of each parcel (from the layer's SWIS field).
    fn key(name: &str, ids: &[&str], swis: &[Option<&str>]) -> Key {
        let hashes = ids.iter().zip(swis).map(|(id, s)| hashes(&id_key(id), *s)).collect();
        let examples = ids.iter().map(|s| s.to_string()).collect();
        Key { name: name.into(), hashes, examples, lookup: OnceLock::new() }
    }

    /// Two towns' parcels: print key 100.-1-16 is in both (SWIS 054689 and 055089), 128.05-1-1 in one.
    fn keys() -> OtherKeys {
        let swis = [Some("054689"), Some("055089"), Some("054689")];
        OtherKeys {
            keys: vec![
                key(
                    "SWIS + PRINT_KEY",
                    &["054689-100.-1-16", "055089-100.-1-16", "054689-128.05-1-1"],
                    &swis,
                ),
                key("PRINT_KEY", &["100.-1-16", "100.-1-16", "128.05-1-1"], &swis),
                key("PARCEL_ID", &["R-0001", "R-0002", "R-0003"], &[None, None, None]),
            ],
            rounded: Default::default(),
        }
    }

    #[test]
    fn ids_find_their_parcel_spelling_aside_and_a_shared_print_key_needs_its_swis() {
        let keys = keys();
        // Padding, zeros, case and spaces aside; a SWIS written as a number drops its leading zero.
        assert_eq!(keys.position(1, "128.5-1-001.000"), Some(2));
        assert_eq!(keys.position(0, " 54689-128.05-1-1"), Some(2));
        assert_eq!(keys.position(1, "054689-100.00-1-16"), Some(0));
        assert_eq!(keys.position(1, "055089-100.00-1-16"), Some(1));
        // Without its SWIS the print key names two parcels: neither is taken.
        assert_eq!(keys.position(1, "100.-1-16"), None);
        // Another town's SWIS finds nothing, nor another county's key.
        assert_eq!(keys.position(1, "141600-128.05-1-1"), None);
        assert_eq!(keys.position(2, "r-003"), Some(2));
        assert_eq!(keys.position(2, "R-0004"), None);
    }

    #[test]
    fn keys_rank_by_the_ids_they_find() {
        let keys = keys();
        let ids: Vec<String> = ["R-0001", "R-2", "128.05-1-1", "nothing"].map(String::from).to_vec();
        // PARCEL_ID finds two, the print key (with or without the SWIS field) one each.
        assert_eq!(keys.ranked(&ids), [(2, 2), (0, 1), (1, 1)]);
        assert_eq!(keys.others(), ["PRINT_KEY", "PARCEL_ID"]);
    }
}
