//! The lots that system points off their own parcels lie on. A system's point usually lies inside the
//! parcel it serves, which is known when that parcel is scheduled; one that does not (a system on the
//! owner's lot across the road) holds its parcel back until the end of the run, and the parcels layer is
//! read once more, for those points alone, to find the lot each lies on. A county whose systems all lie on
//! their parcels never reads it twice.

use std::path::Path;

use geo::{BoundingRect, Intersects, MultiPolygon, Point};
use rustc_hash::FxHashMap;

use super::{block_size, project_block, PARCEL_BLOCK};
use crate::classify::parcels::{parcel_record, ParcelColumns, ParcelPositions, ParcelSchema};
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
    /// Its shape, in the working CRS.
    pub(super) shape: MultiPolygon<f64>,
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

/// Reads the parcels layer again and finds the lot each of `points` (a system's index and point) lies on.
pub(super) fn find(
    config: &Config,
    (schema, ids, reprojector): (&ParcelSchema, &ParcelPositions, &Reprojector),
    path: &Path,
    crs: &str,
    points: &[(u32, Point<f64>)],
) -> Result<Hosts> {
    let mut hosts = Hosts::default();
    if points.is_empty() {
        return Ok(hosts);
    }
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep: Some(schema.keep()) };
    let mut blocks = LayerBlocks::open(path, &options)?;
    let layer_crs = blocks.crs().clone();
    let block = block_size(reprojector, PARCEL_BLOCK);
    let mut screen = Screen::new(&config.crs);
    let columns = ParcelColumns::new(blocks.fields(), schema);
    loop {
        crate::model::stop::check()?;
        let (features, _) = blocks.next_block(block)?;
        if features.is_empty() {
            break;
        }
        let (mut features, _) = project_block(reprojector, path, &layer_crs, features);
        let _ = screen.screen(path, &mut features);
        for feature in features {
            let (record, _) = parcel_record(feature, &columns, schema, path, crs);
            host_points(&mut hosts, record, ids, points);
        }
    }
    Ok(hosts)
}

/// Records the lot of `record` as the host of the points of `points` it holds.
fn host_points(
    hosts: &mut Hosts,
    record: crate::classify::parcels::ParcelRecord,
    ids: &ParcelPositions,
    points: &[(u32, Point<f64>)],
) {
    let Some(shape) = record.shape.as_ref() else { return };
    let Some(rect) = shape.bounding_rect() else { return };
    let Some(at) = ids.slot(&record.id, record.record) else { return };
    for &(index, point) in points {
        if !rect.intersects(&point) || !shape.intersects(&point) {
            continue;
        }
        let better = hosts.found.get(&index).is_none_or(|h| at < h.at);
        if better {
            let host = Host { at, id: record.id.clone(), owner: record.owner.clone(), shape: shape.clone() };
            hosts.found.insert(index, host);
        }
    }
}
