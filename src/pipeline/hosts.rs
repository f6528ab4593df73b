//! The lots that system points off their own parcels lie on. A system's point usually lies inside the
//! parcel it serves, which is known when that parcel is scheduled; one that does not (a system on the
//! owner's lot across the road) holds its parcel back until the end of the run. From then on every lot, as
//! the parcels layer is read, is asked which points of the register lie on it other than those of its own
//! systems ([`HostSearch`]), and the lots read before are read again at the end and asked of the waiting
//! parcels' points alone: the lot each such point lies on is then known, without a second read of the whole
//! layer unless the first parcel to wait came last. A waiting parcel is kept whole while the waiting records
//! take a few megabytes, and beyond that as its record number and position, its record read again ([`Again`],
//! by record number where the layer allows it): a layer most of whose system points lie off their parcels is
//! held in memory no more than one whose points all lie on them.

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use geo::MultiPolygon;
use rustc_hash::FxHashMap;

use super::project_block;
use crate::classify::parcels::{ParcelRecord, ParcelSchema, Systems};
use crate::classify::Lot;
use crate::crs::layer::Feature;
use crate::crs::{Reprojector, Screen};
use crate::formats::blocks::LayerBlocks;
use crate::formats::ReadOptions;
use crate::model::error::Result;
use crate::model::id::ParcelId;
use crate::pipeline::config::Config;

/// A lot a system point lies on.
#[derive(Debug, Clone)]
pub(super) struct Host {
    /// Its position.
    pub(super) at: usize,
    /// Its id.
    pub(super) id: ParcelId,
    /// Its owner as written.
    pub(super) owner: Option<String>,
    /// Its shape measured against the mean-high-water lines (what a system on it is judged by), not the
    /// shape itself, which may be large and is not needed again.
    pub(super) lot: Lot,
}

/// The lot each system point lies on, when that is not the one parcel the system serves, by the index of its
/// system in the register: of two lots that both hold it (overlapping parcels), the one first in id order.
#[derive(Debug, Default)]
pub(super) struct Hosts {
    found: FxHashMap<u32, Host>,
}

impl Hosts {
    /// The lot the point of system `index` lies on, when it lies on one.
    pub(super) fn of(&self, index: u32) -> Option<&Host> {
        self.found.get(&index)
    }
}

/// The parcels layer as the run read it, to be read again for the parcels that waited: how its records are
/// read, reprojected and screened.
pub(super) struct Again<'a> {
    /// The run's configuration (the CRS assumed for a layer that names none).
    pub(super) config: &'a Config,
    /// The layer's file.
    pub(super) path: &'a Path,
    /// Which fields hold what.
    pub(super) schema: &'a ParcelSchema,
    /// Into the working CRS.
    pub(super) reprojector: &'a Reprojector,
    /// The run's blocks: at most this many records a block.
    pub(super) block: usize,
    /// The screen of the first read, with the middle of the layer it took from the first block, so that
    /// a feature is screened again as it was then.
    pub(super) screen: &'a Screen,
}

impl Again<'_> {
    /// Reads the records numbered `records` (rising) of the layer again and hands `each` their features a
    /// block at a time, reprojected and screened as in the first read. A layer read by record number reads
    /// those records alone; another is read through up to the last of them, its other records passed over.
    /// The problems found on the way were found by the first read and are not given again.
    pub(super) fn read(
        &self,
        records: &[usize],
        each: &mut dyn FnMut(Vec<Feature>) -> Result<()>,
    ) -> Result<()> {
        let options =
            ReadOptions { assume_crs: self.config.assume_crs.clone(), keep: Some(self.schema.keep()) };
        let mut blocks = LayerBlocks::open(self.path, &options)?;
        let layer_crs = blocks.crs().clone();
        let block = self.block;
        let mut screen = self.screen.clone();
        let mut project = |features: Vec<Feature>| -> Result<()> {
            let (mut features, _) = project_block(self.reprojector, self.path, &layer_crs, features);
            let _ = screen.screen(self.path, &mut features);
            each(features)
        };
        if blocks.reads_any_records() {
            for chunk in records.chunks(block) {
                crate::model::stop::check()?;
                project(blocks.read_records(chunk)?.0)?;
            }
            return Ok(());
        }
        // Read through, the file ends for the run at the last record asked for.
        let Some(&last) = records.last() else { return Ok(()) };
        loop {
            crate::model::stop::check()?;
            let (mut features, _) = blocks.next_block(block)?;
            let Some(through) = features.last().map(|f| f.record) else { return Ok(()) };
            features.retain(|f| records.binary_search(&f.record).is_ok());
            if !features.is_empty() {
                project(features)?;
            }
            if through >= last {
                return Ok(());
            }
        }
    }
}

/// The lots found so far that system points lie on, other than the parcels those systems serve alone, and
/// the records read before the search began.
///
/// No lot is searched until a parcel has waited: a county whose points all lie on their parcels pays nothing
/// for the search. The records of the blocks read before that are marked ([`HostSearch::pass`]) and searched
/// at the end ([`HostSearch::passed`]), read again by record number where the layer allows it.
#[derive(Debug, Default)]
pub(super) struct HostSearch {
    found: Mutex<FxHashMap<u32, Host>>,
    /// A bit for each record number not searched.
    passed: Mutex<Vec<u64>>,
}

impl HostSearch {
    /// Takes the lot of `record`, at position `at`, as the host of each point of `systems` that `wanted`
    /// takes and that lies on its shape, unless a lot before it in id order holds the point too: of two lots
    /// that both hold it (overlapping parcels), the first in id order is its host. The points of systems that
    /// serve this lot and no other are passed over: their own lot is no host. The lot is measured by
    /// `measure` once, when it is found to host a point.
    pub(super) fn lot(
        &self,
        record: &ParcelRecord,
        at: usize,
        (systems, wanted): (&Systems, &dyn Fn(u32) -> bool),
        measure: impl FnOnce(&MultiPolygon<f64>) -> Lot,
    ) {
        let Some(shape) = record.shape.as_ref() else { return };
        let foreign = |index: u32| {
            let system = systems.get(index);
            (system.serves() != at || system.also_serves().is_some()) && wanted(index)
        };
        let points: Vec<u32> = systems.on(shape, foreign).collect();
        if points.is_empty() {
            return;
        }
        let host = Host { at, id: record.id.clone(), owner: record.owner.clone(), lot: measure(shape) };
        let mut found = self.found.lock().unwrap_or_else(PoisonError::into_inner);
        for index in points {
            if found.get(&index).is_none_or(|h| at < h.at) {
                found.insert(index, host.clone());
            }
        }
    }

    /// Marks `records` (record numbers) as read without being searched.
    pub(super) fn pass(&self, records: impl Iterator<Item = usize>) {
        let mut passed = self.passed.lock().unwrap_or_else(PoisonError::into_inner);
        for record in records {
            let word = record / 64;
            if passed.len() <= word {
                passed.resize(word + 1, 0);
            }
            passed[word] |= 1 << (record % 64);
        }
    }

    /// The record numbers marked by [`HostSearch::pass`], rising; none are marked after.
    pub(super) fn passed(&self) -> Vec<usize> {
        let passed = std::mem::take(&mut *self.passed.lock().unwrap_or_else(PoisonError::into_inner));
        let set = |(word, bits): (usize, u64)| {
            (0..64).filter(move |b| bits >> b & 1 == 1).map(move |b| word * 64 + b)
        };
        passed.into_iter().enumerate().flat_map(set).collect()
    }

    /// The lots found, by the register index of the system whose point lies on each.
    pub(super) fn take(&self) -> Hosts {
        Hosts { found: std::mem::take(&mut *self.found.lock().unwrap_or_else(PoisonError::into_inner)) }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use geo::{polygon, Geometry, Intersects, MultiPolygon, Point};

    use super::HostSearch;
    use crate::classify::fields::FieldNames;
    use crate::classify::parcels::{system_fields, ParcelPositions, ParcelRecord, SystemJoin, Systems};
    use crate::classify::Lot;
    use crate::crs::layer::{Feature, Value};

    /// The register of `points`, each a system at a point serving a parcel (and a second one) of `ids`.
    fn register(ids: &ParcelPositions, points: &[((f64, f64), &str, Option<&str>)]) -> Systems {
        let fields: Vec<String> = ["PARCEL_ID", "PARCEL_ID_2"].iter().map(|f| f.to_string()).collect();
        let path = Path::new("systems.shp");
        let names = system_fields(&fields, &FieldNames::default(), path).expect("fields");
        let position = |id: &str| ids.position(id);
        let mut join = SystemJoin::new(path, &fields, &names, (ids.len(), &position));
        let text = |t: &str| Value::Text(t.into());
        let features: Vec<Feature> = points
            .iter()
            .enumerate()
            .map(|(i, &((x, y), serves, also))| Feature {
                record: i + 1,
                fid: None,
                geometry: Ok(Geometry::Point(Point::new(x, y))),
                values: vec![text(serves), also.map_or(Value::Null, text)],
            })
            .collect();
        join.add(&features);
        let (systems, problems, _) = join.finish();
        assert!(problems.is_empty(), "{problems:?}");
        systems
    }

    #[test]
    fn each_point_finds_the_first_lot_in_id_order_whose_shape_holds_it() {
        // Lots listed out of id order: an L whose box holds a notch it does not, two squares that overlap
        // (5–10 is both C's and A's), and a bow-tie (self-intersecting, as a damaged layer has them). W, far
        // away, is the parcel most of the systems serve.
        let l_shape = polygon![(x: 20., y: 0.), (x: 30., y: 0.), (x: 30., y: 4.), (x: 24., y: 4.), (x: 24., y: 10.), (x: 20., y: 10.)];
        let c = polygon![(x: 5., y: 0.), (x: 15., y: 0.), (x: 15., y: 10.), (x: 5., y: 10.)];
        let a = polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)];
        let bow_tie = polygon![(x: 40., y: 0.), (x: 50., y: 10.), (x: 50., y: 0.), (x: 40., y: 10.)];
        let w = polygon![(x: 500., y: 0.), (x: 510., y: 0.), (x: 510., y: 10.), (x: 500., y: 10.)];
        let lots = [("L", l_shape), ("C", c), ("A", a), ("T", bow_tie), ("W", w)];
        let ids =
            ParcelPositions::collect_texts(&lots.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>());
        let points = [
            ((2., 5.), "W", None),       // A alone
            ((7., 5.), "W", None),       // A and C: A comes first in id order
            ((12., 5.), "W", None),      // C alone
            ((10., 10.), "W", None),     // on the corner of A and inside C's top edge
            ((27., 8.), "W", None),      // in the L's box, in its notch: no lot
            ((22., 8.), "W", None),      // in the L
            ((42., 5.), "W", None),      // in the bow-tie's left triangle
            ((100., 100.), "W", None),   // far from every lot
            ((0., 0.), "W", None),       // A's corner
            ((3., 3.), "A", None),       // on A, the one lot it serves: A is no host
            ((13., 3.), "C", Some("W")), // on C, which it serves with W: C hosts it for W
            ((505., 5.), "W", None),     // on W, its own lot
        ];
        let systems = register(&ids, &points);
        // Each lot measured by where it lies: only the bow-tie, east of x = 40 and west of x = 100, "borders"
        // here.
        let measure = |shape: &MultiPolygon<f64>| Lot {
            shore: None,
            borders_mhw: shape.0.iter().all(|p| p.exterior().0.iter().all(|c| c.x >= 40. && c.x < 100.)),
        };
        let search = HostSearch::default();
        for (record, (id, shape)) in lots.iter().enumerate() {
            let lot = ParcelRecord {
                id: (*id).into(),
                record: record + 1,
                shape: Some(MultiPolygon(vec![shape.clone()])),
                ..ParcelRecord::empty()
            };
            let at = ids.slot(id, record + 1).expect("a listed lot");
            search.lot(&lot, at, (&systems, &|_| true), measure);
        }
        let hosts = search.take();
        // The register keeps its systems in order of the parcel they serve, then of record: each point's
        // index is found by where it lies.
        let index_of = |(x, y): (f64, f64)| {
            (0..u32::try_from(systems.len()).unwrap())
                .find(|&i| systems.get(i).location == Point::new(x, y))
                .expect("registered")
        };
        let found: Vec<Option<String>> =
            points.iter().map(|&(p, ..)| hosts.of(index_of(p)).map(|h| h.id.to_string())).collect();
        // By hand from the drawing above.
        let by_hand = ["A", "A", "C", "A", "", "L", "T", "", "A", "", "C", ""];
        for ((point, got), want) in points.iter().zip(&found).zip(by_hand) {
            assert_eq!(got.as_deref().unwrap_or(""), want, "point {point:?}");
            // A host keeps its own lot's measure, not another's.
            let borders = hosts.of(index_of(point.0)).map(|h| h.lot.borders_mhw);
            assert_eq!(borders, got.as_ref().map(|id| id == "T"), "point {point:?}");
        }
        // And by every lot tried against every point of a system that is not its own alone, in id order,
        // with no index.
        let mut in_id_order = lots.clone();
        in_id_order.sort_by_key(|(id, _)| *id);
        for &((x, y), serves, also) in &points {
            let first = in_id_order
                .iter()
                .filter(|(id, _)| *id != serves || also.is_some())
                .find(|(_, shape)| shape.intersects(&Point::new(x, y)))
                .map(|(id, _)| id.to_string());
            assert_eq!(hosts.of(index_of((x, y))).map(|h| h.id.to_string()), first, "point {x}, {y}");
        }
    }

    #[test]
    fn the_records_passed_over_come_back_rising_once() {
        let search = HostSearch::default();
        search.pass([3, 64, 1].into_iter());
        search.pass([200, 63, 0].into_iter());
        assert_eq!(search.passed(), [0, 1, 3, 63, 64, 200]);
        assert!(search.passed().is_empty(), "taken");
    }
}
