//! One record of the parcels layer to its row: the record read from its feature, given its position, joined
//! to its system, classified against the indexed reference layers, judged by the law and scheduled;
//! and a block of records so, on all cores.
//!
//! Everything a parcel's row is made from is read before the first block comes ([`Scheduler`] borrows it):
//! the positions of all ids, the systems, the record files and the indexed layers. So a row does not depend
//! on the block its record came in.

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use geo::{Distance, Euclidean, MultiPolygon};
use rayon::prelude::*;

use super::progress::Progress;
use super::reference::ground::Ground;
use super::warnings::Warnings;
use crate::classify::parcels::{
    parcel_record, ParcelColumns, ParcelPositions, ParcelRecord, ParcelSchema, Systems,
};
use crate::classify::System;
use crate::classify::{classify, Parcel, World};
use crate::crs::layer::Feature;
use crate::law::coverage::Decision;
use crate::law::judge;
use crate::law::schedule::{entry, Entry, ParcelRecords, Row};
use crate::model::error::{Error, Location, Problem, Result};
use crate::model::facts::Facts;
use crate::model::id::ParcelId;
use crate::pipeline::config::Config;
use crate::records::events::{events_of, Event};
use crate::records::inspections::{Inspections, LastInspection};
use crate::rules::Text;

/// A parcel whose tier the shoreline layer's line would change: its id, its tier by the line from the DEM,
/// and its tier by the layer's.
pub(super) type Moved = (String, &'static str, &'static str);

/// What scheduling a parcel reads, borrowed from the run for all its blocks, and what it finds on the way.
pub(super) struct Scheduler<'r> {
    /// The run's configuration: rules, field choices, layers.
    pub(super) config: &'r Config,
    /// The parcels layer: its path, CRS name, schema and columns.
    pub(super) layer: Layer<'r>,
    /// The position of every parcel record, by id.
    pub(super) known: &'r ParcelPositions,
    /// The reference layers indexed, measuring from the mean-high-water line the run takes.
    pub(super) world: &'r World,
    /// The same, measuring from the shoreline layer's line, when the run's line comes from a DEM.
    pub(super) check_world: Option<&'r World>,
    /// The ground at system points, for the §X screening, when a DEM is given.
    pub(super) ground: Option<&'r Ground>,
    /// The systems layer joined to positions.
    pub(super) systems: &'r Systems,
    /// The warnings counted over the whole run.
    pub(super) warnings: &'r Warnings,
    /// Each position's latest inspection, when an inspections file is given.
    pub(super) history: Option<&'r [Option<LastInspection>]>,
    /// Events and pump-outs, sorted by position and date.
    pub(super) events: &'r [Event],
    /// The inspections file's reports and installation dates by position.
    pub(super) inspections: &'r Inspections,
    /// Told of each parcel scheduled.
    pub(super) progress: &'r Progress,
    /// What the parcels showed on the way; nothing to begin with.
    pub(super) found: Found,
}

/// What scheduling finds beside the rows, from parcels on any core.
#[derive(Default)]
pub(super) struct Found {
    /// System points too far outside the parcels they name, taken after each block.
    strays: Mutex<Vec<Problem>>,
    /// Parcels whose tier the shoreline layer's line would change.
    moved: Mutex<Vec<Moved>>,
}

/// The parcels layer as its records are read: where it is, its CRS's name, and which columns hold what.
pub(super) struct Layer<'r> {
    /// The layer's file.
    pub(super) path: &'r Path,
    /// The short name of the working CRS, for the records' problems.
    pub(super) crs: &'r str,
    /// Which fields hold what.
    pub(super) schema: &'r ParcelSchema,
    /// The columns of those fields in the layer's records.
    pub(super) columns: &'r ParcelColumns,
}

impl<'r> Scheduler<'r> {
    /// Each feature becomes its record, finds its position and is scheduled, in one pass on all cores; the
    /// few records with problems report them on the way. A record whose id is not the one the id pass read
    /// means the file changed under the run.
    pub(super) fn block(&self, features: Vec<Feature>) -> Result<(Vec<Row>, Vec<Problem>)> {
        let Layer { path, crs, schema, columns } = self.layer;
        let found = Mutex::new(Vec::new());
        let changed = Mutex::new(None);
        let rows: Vec<Row> = features
            .into_par_iter()
            .map(|feature| {
                let (parcel, problems) = parcel_record(feature, columns, schema, path, crs);
                if !problems.is_empty() {
                    found.lock().unwrap_or_else(PoisonError::into_inner).extend(problems);
                }
                match self.known.slot(&parcel.id, parcel.record) {
                    Some(at) => self.parcel(parcel, at),
                    None => {
                        let mut changed = changed.lock().unwrap_or_else(PoisonError::into_inner);
                        changed.get_or_insert((parcel.record, parcel.id.clone()));
                        let entry = Entry::unscheduled(None, Text::default(), None);
                        Row { at: usize::MAX, parcel, facts: None, entry }
                    }
                }
            })
            .collect();
        if let Some((record, id)) = changed.into_inner().unwrap_or_else(PoisonError::into_inner) {
            return Err(Error::format(
                path,
                format!("record {record} changed while the layer was read (its id is now {id}): run again"),
            ));
        }
        let mut found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
        found.append(&mut self.found.strays.lock().unwrap_or_else(PoisonError::into_inner));
        Ok((rows, found))
    }

    /// The parcels whose tier the shoreline layer's line would change, found over every block.
    pub(super) fn finish(self) -> Vec<Moved> {
        self.found.moved.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    /// One parcel at its position: classified, decided and scheduled, unless a defect holds it back.
    fn parcel(&self, mut parcel: ParcelRecord, at: usize) -> Row {
        if let Some(why) = self.known.duplicate(at) {
            parcel.defect.get_or_insert(why);
        }
        let (facts, decision) = match (&parcel.defect, parcel.shape.take()) {
            (None, Some(shape)) => {
                let (facts, decision) = self.decide(&mut parcel, shape, at);
                (Some(facts), Some(decision))
            }
            (_, shape) => {
                parcel.shape = shape;
                (None, None)
            }
        };
        let records = ParcelRecords {
            at,
            last: self.history.and_then(|h| h[at].as_ref()),
            events: events_of(self.events, at),
            inspections: self.inspections,
            has_history: self.history.is_some(),
        };
        let entry = entry(&self.config.rules, self.config.as_of, decision, facts.as_ref(), &records);
        self.progress.advance();
        Row { at, parcel, facts, entry }
    }

    /// The facts of a parcel without a defect, measured from its `shape`, and the law's decision on
    /// them. The parcel keeps its town, and its shape when the outputs need it; the sewer code has served.
    fn decide(&self, parcel: &mut ParcelRecord, shape: MultiPolygon<f64>, at: usize) -> (Facts, Decision) {
        let rules = &*self.config.rules;
        self.warnings.sewer(rules, parcel.sewer.as_deref());
        let system = self.system_of(parcel, &shape, at);
        let input = Parcel {
            shape,
            town_attribute: parcel.town.take(),
            sewer_code: parcel.sewer.take(),
            swis: parcel.swis.take(),
            system,
        };
        let (mut facts, evidence) = classify(self.world, rules, &input);
        let ground = || self.ground.zip(input.system).and_then(|(ground, system)| ground.at(system.location));
        let decision = judge(rules, &mut facts, evidence, ground);
        self.check(&parcel.id, &input, &facts, &decision);
        (parcel.shape, parcel.town) = (self.config.keep_shapes.then_some(input.shape), input.town_attribute);
        (facts, decision)
    }

    /// With a line from the DEM, the shoreline layer's line is the check: the parcel is measured from it
    /// too, and listed when its tier would change. Farther than the search radius from both lines, the
    /// shoreline layer gives the same facts, so only parcels near either line are measured again.
    fn check(&self, id: &ParcelId, input: &Parcel, facts: &Facts, decision: &Decision) {
        let Some(check) = self.check_world else { return };
        if facts.shore.is_none() && check.shore.nearest_to_parcel(&input.shape).is_none() {
            return;
        }
        let rules = &*self.config.rules;
        let by_dem = decision.tier_name(rules);
        let (mut facts, evidence) = classify(check, rules, input);
        let by_layer = judge(rules, &mut facts, evidence, || None).tier_name(rules);
        if by_dem != by_layer {
            self.found.moved.lock().unwrap_or_else(PoisonError::into_inner).push((
                id.to_string(),
                by_dem,
                by_layer,
            ));
        }
    }

    /// The system the parcel at `at` names, unless its point lies farther outside the parcel's `shape` than
    /// the rule set allows: that one is reported, and the parcel is located by its own polygon.
    fn system_of(&self, parcel: &ParcelRecord, shape: &MultiPolygon<f64>, at: usize) -> Option<System> {
        let system = self.systems.get(at)?;
        let limit = self.config.rules.systems.max_outside_parcel_ft;
        let outside = Euclidean.distance(&system.location, shape);
        if outside <= limit {
            return Some(system);
        }
        let file = self.config.layers.systems.as_deref().unwrap_or(Path::new("systems"));
        let record = self.systems.record(at).map_or(Location::UnnumberedRecord, Location::Record);
        self.found.strays.lock().unwrap_or_else(PoisonError::into_inner).push(Problem::new(
            file,
            record,
            format!(
                "system point lies {outside:.0} ft outside parcel {}, which it names (more than [systems] \
                 max_outside_parcel_ft = {limit} ft of the rule set); the parcel is located by its own polygon: \
                 move the point into the parcel or fix its parcel id",
                parcel.id
            ),
        ));
        None
    }
}
