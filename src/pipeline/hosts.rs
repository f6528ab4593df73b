//! The lots that system points off their own parcels lie on. A system's point usually lies inside the
//! parcel it serves, which is known when that parcel is scheduled; one that does not (a system on the
//! owner's lot across the road) holds its parcel back until the end of the run, and the parcels layer is
//! read once more, for those points alone, to find the lot each lies on. The parcels that waited are then
//! read a third time, by record number where the layer allows it: what waits is a record number and a
//! position, not the record, so a layer most of whose system points lie off their parcels is held in memory
//! no more than one whose points all lie on them. A county whose systems all lie on their parcels never
//! reads it twice.

use std::path::Path;

use geo::{BoundingRect, Intersects, MultiPolygon, Point, Rect};
use rayon::prelude::*;
use rstar::primitives::GeomWithData;
use rstar::RTree;
use rustc_hash::FxHashMap;

use super::project_block;
use crate::classify::parcels::{parcel_record, ParcelColumns, ParcelPositions, ParcelRecord, ParcelSchema};
use crate::classify::{lot, Lot, World};
use crate::crs::layer::Feature;
use crate::crs::{Reprojector, Screen};
use crate::formats::blocks::LayerBlocks;
use crate::formats::ReadOptions;
use crate::geom::index::rect_envelope;
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

/// The lot each point asked for lies on, by the index of its system in the register: of two lots that
/// both hold it (overlapping parcels), the one first in id order.
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

/// The parcels layer as the run read it, to be read again: how its records are read, reprojected and
/// screened, and made records.
pub(super) struct Again<'a> {
    /// The run's configuration (the CRS assumed for a layer that names none).
    pub(super) config: &'a Config,
    /// The layer's file.
    pub(super) path: &'a Path,
    /// The short name of the working CRS, for the records' problems.
    pub(super) crs: &'a str,
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
    /// Reads the layer again and hands `each` its features a block at a time, reprojected and screened as
    /// in the first read: the records numbered `records` (rising) alone, or every record when `None`. A
    /// layer read by record number reads those records alone; another is read through, its other records
    /// passed over. The problems found on the way were found by the first read and are not given again.
    pub(super) fn read(
        &self,
        records: Option<&[usize]>,
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
        if let Some(records) = records.filter(|_| blocks.reads_any_records()) {
            for chunk in records.chunks(block) {
                crate::model::stop::check()?;
                project(blocks.read_records(chunk)?.0)?;
            }
            return Ok(());
        }
        loop {
            crate::model::stop::check()?;
            let (mut features, _) = blocks.next_block(block)?;
            if features.is_empty() {
                return Ok(());
            }
            if let Some(records) = records {
                features.retain(|f| records.binary_search(&f.record).is_ok());
            }
            if !features.is_empty() {
                project(features)?;
            }
        }
    }

    /// The record of `feature` in the parcels layer's columns, its problems (the first read's) set aside.
    pub(super) fn record(&self, feature: Feature, columns: &ParcelColumns) -> ParcelRecord {
        parcel_record(feature, columns, self.schema, self.path, self.crs).0
    }
}

/// Reads the parcels layer again and finds the lot each of `points` (a system's index and point) lies on,
/// measured against the mean-high-water lines of `world`.
pub(super) fn find(
    again: &Again<'_>,
    (ids, columns): (&ParcelPositions, &ParcelColumns),
    world: &World,
    points: &[(u32, Point<f64>)],
) -> Result<Hosts> {
    let mut hosts = Hosts::default();
    if points.is_empty() {
        return Ok(hosts);
    }
    let asked = Asked::new(points);
    let measure = |shape: &MultiPolygon<f64>| lot(world, shape);
    again.read(None, &mut |features| {
        // Most lots hold no point asked for: those whose geometry's box holds none are passed over before
        // they are made records (a record's shape lies within its geometry's box).
        let boxes = |f: &Feature| f.geometry.as_ref().ok().and_then(BoundingRect::bounding_rect);
        let holds: Vec<bool> =
            features.par_iter().map(|f| boxes(f).is_some_and(|r| asked.in_box(r).next().is_some())).collect();
        for (feature, _) in features.into_iter().zip(holds).filter(|&(_, holds)| holds) {
            host_points(&mut hosts, again.record(feature, columns), ids, &asked, &measure);
        }
        Ok(())
    })?;
    Ok(hosts)
}

/// The points asked for, indexed by where they lie: each lot is matched against the points in its bounding
/// box alone, so the second read costs the same whether a few systems or all of them lie off their parcels.
struct Asked {
    tree: RTree<GeomWithData<[f64; 2], u32>>,
}

impl Asked {
    /// The points that lie in `rect`, edges included.
    fn in_box(&self, rect: Rect<f64>) -> impl Iterator<Item = &GeomWithData<[f64; 2], u32>> {
        self.tree.locate_in_envelope_intersecting(&rect_envelope(rect))
    }

    /// Indexes `points` (a system's index and point); a point without finite coordinates lies on no lot.
    fn new(points: &[(u32, Point<f64>)]) -> Self {
        let finite = points.iter().filter(|(_, p)| p.x().is_finite() && p.y().is_finite());
        Asked { tree: RTree::bulk_load(finite.map(|&(i, p)| GeomWithData::new([p.x(), p.y()], i)).collect()) }
    }
}

/// Records the lot of `record` as the host of the points of `asked` it holds, its shape measured by
/// `measure` (once, for the first point it is found to host).
fn host_points(
    hosts: &mut Hosts,
    record: ParcelRecord,
    ids: &ParcelPositions,
    asked: &Asked,
    measure: &dyn Fn(&MultiPolygon<f64>) -> Lot,
) {
    let Some(shape) = record.shape.as_ref() else { return };
    let Some(rect) = shape.bounding_rect() else { return };
    let Some(at) = ids.slot(&record.id, record.record) else { return };
    let mut measured = None;
    for asked in asked.in_box(rect) {
        let (&[x, y], index) = (asked.geom(), asked.data);
        if !shape.intersects(&Point::new(x, y)) {
            continue;
        }
        let better = hosts.found.get(&index).is_none_or(|h| at < h.at);
        if better {
            let lot = measured.get_or_insert_with(|| measure(shape)).clone();
            let host = Host { at, id: record.id.clone(), owner: record.owner.clone(), lot };
            hosts.found.insert(index, host);
        }
    }
}

#[cfg(test)]
mod tests {
    use geo::{polygon, Intersects, MultiPolygon, Point};

    use super::{host_points, Asked, Hosts};
    use crate::classify::parcels::{ParcelPositions, ParcelRecord};
    use crate::classify::Lot;

    #[test]
    fn each_point_finds_the_first_lot_in_id_order_whose_shape_holds_it() {
        // Lots listed out of id order: an L whose box holds a notch it does not, two squares that overlap
        // (5–10 is both C's and A's), and a bow-tie (self-intersecting, as a damaged layer has them).
        let l_shape = polygon![(x: 20., y: 0.), (x: 30., y: 0.), (x: 30., y: 4.), (x: 24., y: 4.), (x: 24., y: 10.), (x: 20., y: 10.)];
        let c = polygon![(x: 5., y: 0.), (x: 15., y: 0.), (x: 15., y: 10.), (x: 5., y: 10.)];
        let a = polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)];
        let bow_tie = polygon![(x: 40., y: 0.), (x: 50., y: 10.), (x: 50., y: 0.), (x: 40., y: 10.)];
        let lots = [("L", l_shape), ("C", c), ("A", a), ("T", bow_tie)];
        let ids =
            ParcelPositions::collect_texts(&lots.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>());
        let points: Vec<(u32, Point<f64>)> = [
            (2., 5.),       // A alone
            (7., 5.),       // A and C: A comes first in id order
            (12., 5.),      // C alone
            (10., 10.),     // on the corner of A and inside C's top edge
            (27., 8.),      // in the L's box, in its notch: no lot
            (22., 8.),      // in the L
            (42., 5.),      // in the bow-tie's left triangle
            (100., 100.),   // far from every lot
            (f64::NAN, 5.), // no coordinates
            (0., 0.),       // A's corner
        ]
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| (u32::try_from(i).unwrap() * 3, Point::new(x, y)))
        .collect();
        let asked = Asked::new(&points);
        // Each lot measured by where it lies: only the bow-tie, east of x = 40, "borders" here.
        let measure = |shape: &MultiPolygon<f64>| Lot {
            shore: None,
            borders_mhw: shape.0.iter().all(|p| p.exterior().0.iter().all(|c| c.x >= 40.)),
        };
        let mut hosts = Hosts::default();
        for (record, (id, shape)) in lots.iter().enumerate() {
            let lot = ParcelRecord {
                id: (*id).into(),
                record: record + 1,
                shape: Some(MultiPolygon(vec![shape.clone()])),
                ..ParcelRecord::empty()
            };
            host_points(&mut hosts, lot, &ids, &asked, &measure);
        }
        let found: Vec<(u32, Option<String>)> =
            points.iter().map(|&(i, _)| (i, hosts.of(i).map(|h| h.id.to_string()))).collect();
        // By hand from the drawing above.
        let by_hand = ["A", "A", "C", "A", "", "L", "T", "", "", "A"];
        for ((i, got), want) in found.iter().zip(by_hand) {
            assert_eq!(got.as_deref().unwrap_or(""), want, "point {i}");
            // A host keeps its own lot's measure, not another's.
            let borders = hosts.of(*i).map(|h| h.lot.borders_mhw);
            assert_eq!(borders, got.as_ref().map(|id| id == "T"), "point {i}");
        }
        // And by every lot tried against every point, in id order, with no index.
        let mut in_id_order = lots.clone();
        in_id_order.sort_by_key(|(id, _)| *id);
        for (i, point) in &points {
            let first =
                in_id_order.iter().find(|(_, shape)| shape.intersects(point)).map(|(id, _)| id.to_string());
            assert_eq!(hosts.of(*i).map(|h| h.id.to_string()), first, "point {i}");
        }
    }
}
