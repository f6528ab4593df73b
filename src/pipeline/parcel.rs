//! One record of the parcels layer to its row: the record read from its feature, given its position, joined
//! to its system, classified against the indexed reference layers, decided by the rule set and scheduled;
//! and a block of records so, on all cores.
//!
//! Everything a parcel's row is made from is read before the first block comes ([`Scheduler`] borrows it):
//! the positions of all ids, the systems, the record files and the indexed layers. So a row does not depend
//! on the block its record came in.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use geo::{BoundingRect, CoordsIter, Distance, Euclidean, MultiPolygon};
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::hosts::{Host, HostSearch, Hosts};
use super::progress::Progress;
use super::reference::ground::Ground;
use super::warnings::Warnings;
use crate::classify::parcels::{
    parcel_record, ParcelColumns, ParcelPositions, ParcelRecord, ParcelSchema, Systems,
};
use crate::classify::{classify, lot, Lot, Parcel, System, World};
use crate::crs::layer::Feature;
use crate::law::coverage::{Decision, Exclusion};
use crate::law::judge;
use crate::law::schedule::{binding, entry, Entry, ParcelRecords, Row, SystemLine};
use crate::law::systems::{life, with_shared, without_system, Life, Retired};
use crate::model::error::{Error, Location, Problem, Result};
use crate::model::facts::Facts;
use crate::model::id::ParcelId;
use crate::pipeline::config::Config;
use crate::records::events::{events_of, Event};
use crate::records::inspections::{Dated, Inspections, Installed, LastInspection};

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
    /// The most waiting parcels kept whole: a block's worth ([`Found::wait`]).
    pub(super) hold: usize,
    /// The lots that system points off their parcels lie on, once found ([`super::hosts`]): until then a
    /// parcel with such a point waits.
    pub(super) hosts: OnceLock<Hosts>,
}

/// What scheduling finds beside the rows, from parcels on any core.
#[derive(Default)]
pub(super) struct Found {
    /// System points too far outside the parcels they name, taken after each block.
    strays: Mutex<Vec<Problem>>,
    /// Parcels whose tier the shoreline layer's line would change.
    moved: Mutex<Vec<Moved>>,
    /// Parcels with a system point off the parcel, waiting for the lot it lies on: their positions and
    /// records, up to a block of them and [`HELD_BYTES`] ([`Found::wait`]).
    held: Mutex<Held>,
    /// The others: their record numbers and positions (the records are read again once the lots are known).
    waiting: Mutex<Vec<(usize, usize)>>,
    /// Whether a parcel has waited.
    waited: AtomicBool,
    /// The lots that system points off their parcels lie on, as far as the layer has been read.
    hosts: HostSearch,
}

/// The waiting parcels kept whole, and about how many bytes they take.
#[derive(Default)]
struct Held {
    records: Vec<(usize, ParcelRecord)>,
    bytes: usize,
}

/// About the most the waiting parcels' records kept whole take, however many a block holds; the others wait
/// as their record numbers and are read again. A county's few parcels across the road are kept; a layer most
/// of whose parcels wait is held in memory no more than one whose parcels all lie where their systems do.
const HELD_BYTES: usize = 16 << 20;

impl Found {
    /// Holds `parcel`, at `at`, back until the lots system points lie on are known: kept whole while fewer
    /// than `hold` records are and they take less than [`HELD_BYTES`] (a record's text and 16 bytes a
    /// coordinate of its shape), else as its record number, to be read again.
    fn wait(&self, parcel: ParcelRecord, at: usize, hold: usize) {
        self.waited.store(true, Ordering::Relaxed);
        let size = 384 + 16 * parcel.shape.as_ref().map_or(0, |shape| shape.coords_count());
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if held.records.len() < hold && held.bytes + size <= HELD_BYTES {
            held.bytes += size;
            held.records.push((at, parcel));
            return;
        }
        drop(held);
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner).push((parcel.record, at));
    }
}

/// Where one of a parcel's systems lies, for classification.
enum Place<'h> {
    /// On the parcel itself (or beside it, on no other lot, within the rule set's distance).
    Here,
    /// On another lot of the owner's, or one the register says it serves.
    On(&'h Host),
    /// Its point cannot be used (reported): the system is located by the parcel's polygon.
    Unplaced,
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
    ///
    /// Each lot is searched on the way for the system points of other parcels that lie on it
    /// ([`HostSearch`]).
    pub(super) fn block(&self, features: Vec<Feature>) -> Result<(Vec<Row>, Vec<Problem>)> {
        self.rows(features, true)
    }

    /// The rows of the parcels that waited, their records read again (see [`super::hosts::Again`]) now
    /// that the lots their systems lie on are known ([`Scheduler::wait_over`]), as [`Scheduler::block`]
    /// gives them but for the records' own problems, which the first read reported, and for the search for
    /// points on their lots, which it made.
    pub(super) fn waited(&self, features: Vec<Feature>) -> Result<(Vec<Row>, Vec<Problem>)> {
        self.rows(features, false)
    }

    /// The rows of a block of features, with the problems found on the way; on the `first` read of these
    /// records, their own problems too, and their lots searched for other parcels' system points.
    fn rows(&self, features: Vec<Feature>, first: bool) -> Result<(Vec<Row>, Vec<Problem>)> {
        let Layer { path, crs, schema, columns } = self.layer;
        // Lots are searched for other parcels' points once a parcel has waited; before, they are marked to be
        // searched at the end.
        let search = first && self.found.waited.load(Ordering::Relaxed);
        if first && !search {
            self.found.hosts.pass(features.iter().map(|f| f.record));
        }
        let found = Mutex::new(Vec::new());
        let changed = Mutex::new(None);
        // Each feature gives a row in its place (collected without a copy); a parcel that waits, or a record
        // that changed, leaves a row with no position, taken out after.
        let rows: Vec<Row> = features
            .into_par_iter()
            .map(|feature| {
                let (parcel, problems) = parcel_record(feature, columns, schema, path, crs);
                if first && !problems.is_empty() {
                    found.lock().unwrap_or_else(PoisonError::into_inner).extend(problems);
                }
                match self.known.slot(&parcel.id, parcel.record) {
                    Some(at) => {
                        if search {
                            let every: &dyn Fn(u32) -> bool = &|_| true;
                            self.found
                                .hosts
                                .lot(&parcel, at, (self.systems, every), |shape| lot(self.world, shape));
                        }
                        self.parcel(parcel, at).unwrap_or_else(Row::none)
                    }
                    None => {
                        let mut changed = changed.lock().unwrap_or_else(PoisonError::into_inner);
                        changed.get_or_insert((parcel.record, parcel.id.clone()));
                        Row::none()
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
        Ok(self.gathered(rows, found.into_inner().unwrap_or_else(PoisonError::into_inner)))
    }

    /// The parcels whose tier the shoreline layer's line would change, found over every block.
    pub(super) fn finish(self) -> Vec<Moved> {
        self.found.moved.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    /// The records read before the first parcel waited, rising, when one did: their lots were not searched
    /// for the waiting parcels' points ([`Scheduler::search`]). None when no parcel waits.
    pub(super) fn unsearched(&self) -> Vec<usize> {
        match self.found.waited.load(Ordering::Relaxed) {
            false => Vec::new(),
            true => self.found.hosts.passed(),
        }
    }

    /// The register indexes of the systems of the parcels waiting for the lots they lie on.
    pub(super) fn asked(&self) -> FxHashSet<u32> {
        let waiting = self.found.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let held = self.found.held.lock().unwrap_or_else(PoisonError::into_inner);
        let at = waiting.iter().map(|&(_, at)| at).chain(held.records.iter().map(|&(at, _)| at));
        at.flat_map(|at| self.systems.of(at).iter().copied()).collect()
    }

    /// Searches the lots of `features`, records read again of those [`Scheduler::unsearched`] gives, for the
    /// points of the systems `asked` for: a lot whose geometry's box holds none is passed over before it is
    /// made a record.
    pub(super) fn search(&self, features: Vec<Feature>, asked: &FxHashSet<u32>) {
        let Layer { path, crs, schema, columns } = self.layer;
        let wanted = |index: u32| asked.contains(&index);
        features
            .into_par_iter()
            .filter(|f| {
                let rect = f.geometry.as_ref().ok().and_then(BoundingRect::bounding_rect);
                rect.is_some_and(|rect| self.systems.in_box(rect).any(|(index, _)| wanted(index)))
            })
            .for_each(|feature| {
                let (parcel, _) = parcel_record(feature, columns, schema, path, crs);
                if let Some(at) = self.known.slot(&parcel.id, parcel.record) {
                    self.found
                        .hosts
                        .lot(&parcel, at, (self.systems, &wanted), |shape| lot(self.world, shape));
                }
            });
    }

    /// Takes the lots found on the way as where the waiting parcels' systems lie, and gives the waiting
    /// parcels: those kept whole, with their positions ([`Scheduler::resume`]), and the record numbers of the
    /// others, rising, to be read again and scheduled ([`Scheduler::waited`]). Called once every record has
    /// been read.
    pub(super) fn wait_over(&self) -> (Vec<(usize, ParcelRecord)>, Vec<usize>) {
        let _ = self.hosts.set(self.found.hosts.take());
        let held = std::mem::take(&mut *self.found.held.lock().unwrap_or_else(PoisonError::into_inner));
        let waiting = std::mem::take(&mut *self.found.waiting.lock().unwrap_or_else(PoisonError::into_inner));
        let mut records: Vec<usize> = waiting.into_iter().map(|(record, _)| record).collect();
        records.sort_unstable();
        (held.records, records)
    }

    /// The rows of waiting parcels kept whole (`held`, each with its position), now that the lots their
    /// systems lie on are known ([`Scheduler::wait_over`]), with the problems found on the way.
    pub(super) fn resume(&self, held: Vec<(usize, ParcelRecord)>) -> (Vec<Row>, Vec<Problem>) {
        let rows = held.into_par_iter().map(|(at, parcel)| self.parcel(parcel, at).unwrap_or_else(Row::none));
        self.gathered(rows.collect(), Vec::new())
    }

    /// `rows` without those that left no row (a parcel that waits, a record that changed), and `found` with
    /// the system points placed since the last block reported.
    fn gathered(&self, mut rows: Vec<Row>, mut found: Vec<Problem>) -> (Vec<Row>, Vec<Problem>) {
        if rows.iter().any(|row| row.at == usize::MAX) {
            rows.retain(|row| row.at != usize::MAX);
        }
        found.append(&mut self.found.strays.lock().unwrap_or_else(PoisonError::into_inner));
        (rows, found)
    }

    /// One parcel at its position: classified, decided and scheduled, unless a defect holds it back; each of
    /// its systems in the register on its own, the row taking the one that binds. `None` when one of its
    /// system points lies off the parcel and the lot it lies on is not known yet: the parcel waits.
    fn parcel(&self, mut parcel: ParcelRecord, at: usize) -> Option<Row> {
        if let Some(why) = self.known.duplicate(at) {
            parcel.defect.get_or_insert(why);
        }
        let registered = self.systems.of(at);
        let places = match (&parcel.defect, &parcel.shape) {
            (None, Some(shape)) if !registered.is_empty() => match self.places(&parcel, shape, at) {
                Some(places) => places,
                None => {
                    self.found.wait(parcel, at, self.hold);
                    return None;
                }
            },
            _ => Vec::new(),
        };
        let (rules, as_of) = (&*self.config.rules, self.config.as_of);
        let events = events_of(self.events, at);
        let installed = self.inspections.installed.get(at).copied().flatten();
        let shape = match parcel.defect {
            None => parcel.shape.take(),
            Some(_) => None,
        };
        let Some(shape) = shape else {
            let entry = self.unnamed_entry((at, events, installed), None, None);
            self.progress.advance();
            return Some(Row { at, parcel, facts: None, entry, systems: Vec::new() });
        };
        self.warnings.sewer(rules, parcel.sewer.as_deref());
        let mut input = Parcel {
            shape,
            town_attribute: parcel.town.take(),
            sewer_code: parcel.sewer.take(),
            swis: parcel.swis.take(),
            system: None,
            lot: None,
        };
        // Each system in service judged on its own: the first one's facts and entry kept here, the others'
        // on their lines until the one that binds is known.
        let mut lines: Vec<SystemLine> = Vec::with_capacity(registered.len());
        let mut first: Option<(Facts, Entry)> = None;
        for (&index, place) in registered.iter().zip(&places) {
            let own = self.systems.own_id(index);
            let registered = self.systems.get(index);
            let listed_here = registered.serves() == at;
            let other = if listed_here { registered.also_serves() } else { Some(registered.serves()) };
            let other = other.filter(|&p| p != at);
            // A system shared by two lots: the other lot's events that name it are its too.
            let events = with_shared(events, other.map_or(&[][..], |p| events_of(self.events, p)), own);
            let life = life(rules, &events, own, installed);
            let (system, lot, lies_on) = match place {
                Place::Here => (Some(registered.system()), None, None),
                Place::On(host) => (Some(registered.system()), Some(host.lot.clone()), Some(host.id.clone())),
                Place::Unplaced => (None, None, None),
            };
            let partner = other.map(|p| ParcelId::from(self.known.id_at(p)));
            let mut line = SystemLine {
                index,
                listed_here,
                partner,
                lies_on,
                placed: system.is_some(),
                life,
                own: None,
                binds: false,
            };
            if line.life.retired.is_none() {
                let (facts, decision) = self.judge(&parcel.id, &mut input, system, lot);
                let entry = entry(
                    rules,
                    as_of,
                    Some(decision),
                    Some(&facts),
                    &self.records((at, other), &events, own, &line.life),
                );
                match first {
                    None => first = Some((facts, entry)),
                    Some(_) => line.own = Some(Box::new((facts, entry))),
                }
            }
            lines.push(line);
        }
        let vacant = lines.is_empty()
            && without_system(&rules.systems, parcel.class.as_deref(), || self.systems.any_on(&input.shape));
        // A lot without a system in service owes no system duty: the row says so.
        let no_system = || {
            let last = self.history.and_then(|h| h[at].clone());
            Entry::unscheduled(Some(Exclusion::NoSystem), rules.systems.no_system_citation, last)
        };
        let (facts, entry) = if vacant {
            // A vacant lot with no system on record: classified for the map.
            let (facts, _) = self.judge(&parcel.id, &mut input, None, None);
            (Some(facts), no_system())
        } else if let Some(first) = first {
            let (facts, entry) = bind(&mut lines, first);
            (Some(facts), entry)
        } else if lines.is_empty() || !all_abandoned(&lines) {
            // No system on record, or none in service but one replaced by a system the register lacks: the
            // parcel's one system, located by its polygon.
            let (facts, decision) = self.judge(&parcel.id, &mut input, None, None);
            let entry = self.unnamed_entry((at, events, installed), Some(decision), Some(&facts));
            (Some(facts), entry)
        } else {
            // Every system on record abandoned: the lot has none in service.
            (None, no_system())
        };
        (parcel.shape, parcel.town) = (self.config.keep_shapes.then_some(input.shape), input.town_attribute);
        self.progress.advance();
        Some(Row { at, parcel, facts, entry, systems: lines })
    }

    /// The entry of the parcel at `at` (its events, and the installation the inspections file records) for
    /// its one unnamed system, as `decision` and `facts` judge it.
    fn unnamed_entry(
        &self,
        (at, events, installed): (usize, &[Event], Option<Dated<Installed>>),
        decision: Option<Decision>,
        facts: Option<&Facts>,
    ) -> Entry {
        let (rules, as_of) = (&*self.config.rules, self.config.as_of);
        let life = life(rules, events, None, installed);
        entry(rules, as_of, decision, facts, &self.records((at, None), events, None, &life))
    }

    /// What the record files say of the parcel at `at`, whose events are `events`, for its system `system`
    /// (`None`: its one unnamed system), whose life is `life`, and which serves the parcel at `partner` too.
    fn records<'a>(
        &'a self,
        (at, partner): (usize, Option<usize>),
        events: &'a [Event],
        system: Option<&'a str>,
        life: &'a Life,
    ) -> ParcelRecords<'a> {
        ParcelRecords {
            at,
            last: self.history.and_then(|h| h[at].as_ref()),
            events,
            inspections: self.inspections,
            has_history: self.history.is_some(),
            system,
            partner,
            life,
        }
    }

    /// The facts of the parcel `input` with its `system` (`None`: located by the parcel's polygon) lying
    /// on `lot` (`None`: the parcel itself), and the rule set's decision on them.
    fn judge(
        &self,
        id: &ParcelId,
        input: &mut Parcel,
        system: Option<System>,
        lot: Option<Lot>,
    ) -> (Facts, Decision) {
        let rules = &*self.config.rules;
        let hosted = lot.is_some();
        (input.system, input.lot) = (system, lot);
        let (mut facts, evidence) = classify(self.world, rules, input);
        let ground = || self.ground.zip(input.system).and_then(|(ground, system)| ground.at(system.location));
        let decision = judge(rules, &mut facts, evidence, ground);
        // A system on another lot is measured from that lot, which the check's world does not hold.
        if !hosted {
            self.check(id, input, &facts, &decision);
        }
        (facts, decision)
    }

    /// Where each of the parcel's systems lies: on the parcel, or, once the lots off it are known
    /// ([`Scheduler::hosts`]), on the lot its point falls on; `None` while one is not known.
    fn places(&self, parcel: &ParcelRecord, shape: &MultiPolygon<f64>, at: usize) -> Option<Vec<Place<'_>>> {
        let registered = self.systems.of(at);
        let mut places = Vec::with_capacity(registered.len());
        for &index in registered {
            let outside = Euclidean.distance(&self.systems.get(index).location, shape);
            if outside <= 0.0 {
                places.push(Place::Here);
                continue;
            }
            let hosts = self.hosts.get()?;
            places.push(self.place(parcel, at, index, outside, hosts.of(index)));
        }
        Some(places)
    }

    /// Where system `index`, serving the parcel at `at` and lying `outside` feet off it, is taken to lie,
    /// given the lot its point falls on (`host`): there, when that lot is the owner's or one the register
    /// says it serves; beside the parcel, when on no lot and within the rule set's distance of it. Otherwise
    /// the point is reported and not used.
    fn place<'h>(
        &self,
        parcel: &ParcelRecord,
        at: usize,
        index: u32,
        outside: f64,
        host: Option<&'h Host>,
    ) -> Place<'h> {
        let system = self.systems.get(index);
        let limit = self.config.rules.systems.max_outside_parcel_ft;
        let why = match host {
            Some(host) if host.at == at => return Place::Here,
            Some(host) if system.serves_parcel(host.at) || same_owner(&host.owner, &parcel.owner) => {
                return Place::On(host)
            }
            None if outside <= limit => return Place::Here,
            Some(host) => format!(
                "lies on parcel {}, which it does not serve and whose owner is not the owner of parcel {}",
                host.id, parcel.id
            ),
            None => format!(
                "lies on no parcel, {outside:.0} ft outside parcel {} (more than [systems] max_outside_parcel_ft = \
                 {limit} ft of the rule set): in water, a road or outside the county",
                parcel.id
            ),
        };
        let file = self.config.layers.systems.as_deref().unwrap_or(Path::new("systems"));
        self.found.strays.lock().unwrap_or_else(PoisonError::into_inner).push(Problem::new(
            file,
            Location::Record(system.record()),
            format!(
                "system {} of parcel {}: its point {why}; the system is located by the parcel's own polygon: move \
                 the point onto the lot it lies on, name that lot as a parcel it serves, or fix its parcel id",
                self.systems.id(index, self.known.id_at(system.serves())),
                parcel.id
            ),
        ));
        Place::Unplaced
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
}

/// The facts and entry of the system of `lines` that binds the row, marked so; `first` is those of the first
/// system in service, and the other systems in service hold theirs on their lines. The first's go on its
/// line when another binds.
fn bind(lines: &mut [SystemLine], first: (Facts, Entry)) -> (Facts, Entry) {
    let mut active: Vec<&mut SystemLine> = lines.iter_mut().filter(|l| l.life.retired.is_none()).collect();
    let entries =
        std::iter::once(&first.1).chain(active.iter().skip(1).filter_map(|l| l.own.as_ref().map(|o| &o.1)));
    let binds = binding(entries).unwrap_or(0);
    if let Some(own) = active.get_mut(binds).filter(|_| binds > 0).and_then(|line| line.own.take()) {
        active[binds].binds = true;
        active[0].own = Some(Box::new(first));
        return *own;
    }
    active[0].binds = true;
    first
}

/// Whether every system of `lines` was abandoned (none replaced).
fn all_abandoned(lines: &[SystemLine]) -> bool {
    lines.iter().all(|l| matches!(l.life.retired, Some(Retired::Abandoned(_))))
}

/// Whether two owners as written are the same: letters and digits alike, case, spacing and punctuation
/// aside. A blank owner is no one's.
fn same_owner(a: &Option<String>, b: &Option<String>) -> bool {
    let key = |s: &str| -> String {
        s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_uppercase).collect()
    };
    match (a.as_deref().map(key), b.as_deref().map(key)) {
        (Some(a), Some(b)) => !a.is_empty() && a == b,
        _ => false,
    }
}
