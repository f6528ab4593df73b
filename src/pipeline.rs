//! The schedule pipeline, one direction: read layers → reproject → index → classify each parcel → apply the
//! rules → due dates and status. The report writers turn the result into files.
//!
//! **Every input parcel appears in [`Run::rows`] exactly once**, scheduled or unscheduled with the reason,
//! and the rows are sorted by parcel id (then record number), so output is deterministic.

use std::path::Path;

use chrono::NaiveDate;
use rayon::prelude::*;

use crate::classify::{classify, AreaLayer, Areas, DistanceIndex, Floodplain, Parcel, World};
use crate::config::Config;
use crate::error::{Error, Problem, Result};
use crate::io::columns::FieldMap;
use crate::io::events::{
    events_of, read_events, read_pipes, read_pump_outs, read_samples, Event, Pipe, Sample,
};
use crate::io::field_names;
use crate::io::inspections::{read_inspections, Inspections, LastInspection};
use crate::io::records::Read;
use crate::obligations::{Obligation, Records};
use crate::parcels::{
    parcel_records, system_fields, systems_by_parcel, FieldChoice, ParcelIndex, ParcelRecord, ParcelSchema,
};
use crate::permit::permit_for;
use crate::reference::{load, read_reference};
use crate::rules::{decide, explain, Decision, Exclusion, RuleSet};
use crate::schedule::{status, DueGrid, Entry, Row, UNSCHEDULED};

/// The result of a schedule run.
#[derive(Debug)]
pub struct Run<'r> {
    /// The rule set the rows were decided by.
    pub rules: &'r RuleSet,
    /// One row per input parcel, sorted by parcel id.
    pub rows: Vec<Row<'r>>,
    /// Bad records found on the way (the run carried on).
    pub problems: Vec<Problem>,
    /// Remarks that are not problems (e.g. shoreline features of water bodies the rules do not name).
    pub notes: Vec<String>,
    /// The inspections file, when given (so statuses are meaningful).
    pub history_path: Option<std::sync::Arc<Path>>,
    /// What the inspections file says beyond each parcel's latest inspection (which is in its entry).
    pub inspections: Inspections,
    /// Events and pump-outs, sorted by parcel position and date.
    pub events: Vec<Event>,
    /// Drainage-pipe samples, in file order.
    pub samples: Vec<Sample>,
    /// Which column of each record file was taken for what, a line per file, for `-v`.
    pub columns: Vec<String>,
    /// The register of known drainage pipes, in file order.
    pub pipes: Vec<Pipe>,
    /// Wall time of each stage, in order, and the peak memory of the process at its end, for `-v`.
    pub timings: Vec<Lap>,
    /// Which field of the parcels layer was taken for what, for `-v`.
    pub parcel_fields: Vec<FieldChoice>,
}

/// How far a run has got, for a progress display: the current stage, and parcels done out of a total while
/// classifying. The library only counts; the binary decides whether and how to show it.
#[derive(Debug, Default)]
pub struct Progress {
    stage: std::sync::Mutex<&'static str>,
    done: std::sync::atomic::AtomicUsize,
    total: std::sync::atomic::AtomicUsize,
}

impl Progress {
    fn start(&self, stage: &'static str, total: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Ok(mut s) = self.stage.lock() {
            *s = stage;
        }
        self.done.store(0, Relaxed);
        self.total.store(total, Relaxed);
    }

    fn advance(&self) {
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The current stage, parcels done and the stage's total (0 when it is not counted).
    pub fn snapshot(&self) -> (&'static str, usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let stage = self.stage.lock().map(|s| *s).unwrap_or("");
        (stage, self.done.load(Relaxed), self.total.load(Relaxed))
    }
}

/// One stage of a run: its name, its wall time, and the process's peak resident memory when it ended.
#[derive(Debug, Clone, Copy)]
pub struct Lap {
    /// What the stage did.
    pub stage: &'static str,
    /// Its wall time.
    pub time: std::time::Duration,
    /// The peak resident set size so far, in bytes (`VmHWM`; `None` where the system does not say).
    pub peak_bytes: Option<u64>,
}

/// The process's peak resident set size so far, from `/proc/self/status` (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Records the wall time of consecutive stages.
struct Stopwatch {
    last: std::time::Instant,
    laps: Vec<Lap>,
}

impl Stopwatch {
    fn new() -> Self {
        Stopwatch { last: std::time::Instant::now(), laps: Vec::new() }
    }

    fn lap(&mut self, stage: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push(Lap { stage, time: now - self.last, peak_bytes: peak_rss_bytes() });
        self.last = now;
    }
}

impl<'r> Run<'r> {
    /// Whether the system of the parcel at `at` is grandfathered (installed within the rule set's window for
    /// its size, or found adequately functioning), when the rule set and the inspections file say.
    pub fn grandfathered(&self, at: usize) -> Option<bool> {
        let rules = self.rules.grandfather.as_ref()?;
        let installed = self.inspections.installed.get(at).copied().flatten();
        let intermediate =
            installed.is_some_and(|i| i.size == crate::io::inspections::SystemSize::Intermediate);
        let functioning = self.inspections.functioning.get(at).copied().flatten();
        rules.applies(installed.map(|i| i.date), intermediate, functioning)
    }

    /// Every open obligation of every parcel on `as_of`, with the problems and notes found on the way (see
    /// [`crate::obligations::collect`]).
    pub fn obligations(&self, as_of: NaiveDate) -> (Vec<Obligation<'r>>, Vec<Problem>, Vec<String>) {
        let records = Records {
            history_path: self.history_path.as_ref(),
            inspections: &self.inspections,
            events: &self.events,
            samples: &self.samples,
            pipes: &self.pipes,
        };
        crate::obligations::collect(&self.rows, &records, self.rules, as_of)
    }

    /// Why the row's parcel has its schedule, in a sentence.
    ///
    /// The sentence is built from the facts when asked for (by the writers), not stored: for a million
    /// parcels that saves a few hundred megabytes, and runs that write no reason never format one.
    pub fn reason(&self, row: &Row<'_>) -> String {
        match &row.facts {
            Some(facts) => explain(self.rules, facts),
            None => format!("not classified: {}", row.parcel.defect.as_deref().unwrap_or("unusable record")),
        }
    }
}

/// A reader of dated parcel events (the events file, the pump-outs file).
type ReadEvents = fn(&Path, &FieldMap, &dyn Fn(&str) -> Option<usize>, NaiveDate) -> Result<Read<Vec<Event>>>;

/// Reads and indexes the reference layers.
fn build_world(config: &Config, problems: &mut Vec<Problem>, notes: &mut Vec<String>) -> Result<World> {
    let rules = &config.rules;
    let lake_zone_ft = rules.floodplain.as_ref().map_or(0.0, |f| f.lake_zone_within_ft);
    let radius_ft = rules.search_radius_ft().max(config.border_tolerance_ft).max(lake_zone_ft);
    let reference = read_reference(config, problems, notes)?;
    // Only the watersheds of the rule set's water bodies count (§IV.A.1 ¶3 names two); the reference reader
    // gave those their canonical names and noted the others.
    let named_watersheds = reference.watersheds.map(|w| {
        w.into_iter()
            .filter(|(_, name)| {
                name.as_deref().is_some_and(|n| rules.water_bodies.iter().any(|b| b.name == n))
            })
            .collect()
    });
    let areas = Areas {
        municipalities: rules.jurisdiction.municipalities.iter().map(|m| m.as_str().into()).collect(),
        watersheds: named_watersheds.map(AreaLayer::new),
        towns: reference.towns.map(AreaLayer::new),
        sewered: reference.sewered.map(AreaLayer::new),
        county: reference.county.map(AreaLayer::new),
    };
    // Watercourse distances are exact as far out as the shoreline's (and at least twice the separation the
    // law asks for), so the column means the same for a stream as for the lake.
    let watercourse_radius_ft =
        rules.permits.as_ref().map_or(0.0, |p| 2.0 * p.min_watercourse_ft).max(radius_ft);
    let shore = DistanceIndex::new(reference.shoreline, radius_ft);
    Ok(World {
        floodplain: reference
            .floodplain
            .map(|z| Floodplain::new(z, &shore, lake_zone_ft))
            .unwrap_or_default(),
        shore,
        areas,
        watercourses: reference.watercourses.map(|w| DistanceIndex::new(w, watercourse_radius_ft)),
        border_tolerance_ft: config.border_tolerance_ft,
    })
}

/// Reads the parcels layer and turns it into records.
fn read_parcels(config: &Config) -> Result<(Vec<ParcelRecord>, Vec<Problem>, Vec<FieldChoice>)> {
    let path =
        config.layers.parcels.as_deref().ok_or_else(|| Error::Config("no parcels layer given".into()))?;
    let schema = ParcelSchema::detect(&field_names(path)?, &config.fields, path)?;
    let (layer, mut problems) = load(path, config, Some(schema.keep()))?;
    let (records, more) = parcel_records(layer, &schema);
    problems.extend(more);
    Ok((records, problems, schema.choices(&config.fields)))
}

/// Runs the schedule pipeline.
pub fn run_schedule(config: &Config) -> Result<Run<'_>> {
    run_schedule_with(config, &Progress::default())
}

/// Runs the schedule pipeline, reporting its stages and the parcels classified to `progress`.
pub fn run_schedule_with<'c>(config: &'c Config, progress: &Progress) -> Result<Run<'c>> {
    progress.start("reading layers", 0);
    let mut clock = Stopwatch::new();
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    // The parcels (the big layer) are read on one core while the reference layers are read and indexed on
    // the other.
    let (parcels, world) = std::thread::scope(|s| {
        let parcels = s.spawn(|| read_parcels(config));
        let world = build_world(config, &mut problems, &mut notes);
        let parcels = parcels.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        (parcels, world)
    });
    clock.lap("read parcels and reference layers");
    // Sorted by id already (parcel_records), so the rows come out in order.
    let (records, parcel_problems, parcel_fields) = parcels?;
    let world = world?;
    problems.extend(parcel_problems);

    let known = ParcelIndex(&records);

    let systems = match &config.layers.systems {
        Some(path) => {
            let (parcel_field, bottom_field) = system_fields(&field_names(path)?, &config.fields, path)?;
            let (layer, p) = load(path, config, None)?;
            problems.extend(p);
            let (systems, p) = systems_by_parcel(layer, &parcel_field, bottom_field.as_deref(), known);
            problems.extend(p);
            systems
        }
        None => vec![None; records.len()],
    };
    let mut columns = Vec::new();
    let fields = &config.fields;
    let position = |id: &str| known.position(id);
    let mut events = Vec::new();
    for (path, fields, read) in [
        (&config.layers.events, &fields.events, read_events as ReadEvents),
        (&config.layers.pump_outs, &fields.pump_outs, read_pump_outs as ReadEvents),
    ] {
        if let Some(path) = path {
            events.extend(keep_read(
                &mut problems,
                &mut columns,
                read(path, fields, &position, config.as_of)?,
            ));
        }
    }
    events.sort_by(|a, b| (a.parcel, a.date, &a.source).cmp(&(b.parcel, b.date, &b.source)));
    // Every inspection date of the parcels with events is kept: an event's clock may close on any of them.
    let mut with_events: Vec<usize> = events.iter().map(|e| e.parcel).collect();
    with_events.dedup();
    let (history, mut inspections) = match &config.layers.history {
        Some(path) => {
            let read =
                read_inspections(path, &fields.history, known.len(), &position, config.as_of, &with_events)?;
            let mut found: Inspections = keep_read(&mut problems, &mut columns, read);
            (Some(std::mem::take(&mut found.latest)), found)
        }
        None => (None, Inspections::default()),
    };
    let samples = match &config.layers.samples {
        Some(path) => keep_read(
            &mut problems,
            &mut columns,
            read_samples(path, &fields.samples, &position, config.as_of)?,
        ),
        None => Vec::new(),
    };
    let pipes = match &config.layers.pipes {
        Some(path) => keep_read(&mut problems, &mut columns, read_pipes(path, &fields.pipes, &position)?),
        None => Vec::new(),
    };
    let reports = std::mem::take(&mut inspections.reports);
    clock.lap("read systems and records");

    let rules = &config.rules;
    progress.start("classifying parcels", records.len());
    let rows: Vec<Row> = records
        .into_par_iter()
        .enumerate()
        .map(|(at, mut parcel)| {
            let (facts, decision) = match (&parcel.defect, parcel.shape.take()) {
                (None, Some(shape)) => {
                    let input = Parcel {
                        shape,
                        town_attribute: parcel.town.take(),
                        sewer_code: parcel.sewer.take(),
                        swis: parcel.swis.take(),
                        system: systems[at],
                    };
                    let facts = classify(&world, rules, &input);
                    // The parcel keeps its shape and town for the outputs; the sewer code has served.
                    (parcel.shape, parcel.town) = (Some(input.shape), input.town_attribute);
                    let decision = decide(rules, &facts);
                    (Some(facts), Some(decision))
                }
                (_, shape) => {
                    parcel.shape = shape;
                    (None, None)
                }
            };
            let last = history.as_ref().and_then(|h| h[at].clone());
            let mut entry = entry(config, decision, last, history.is_some());
            if let Some(report) = reports.get(at).and_then(|r| r.as_deref()) {
                entry.permit =
                    permit_for(rules, report, facts.as_ref(), events_of(&events, at)).map(Box::new);
            }
            progress.advance();
            Row { parcel, facts, entry }
        })
        .collect();
    progress.start("writing", 0);
    clock.lap("classify and schedule");
    // An unknown town and a sewer code the district layer contradicts are bad input in the parcels layer:
    // report them there, by record, whether or not they changed the parcel's schedule.
    let parcels_path = config.layers.parcels.as_deref().unwrap_or(Path::new(""));
    for row in &rows {
        let Some(facts) = &row.facts else { continue };
        let at = || format!("record {}", row.parcel.record);
        // Outside the county or on public sewer, the town does not matter.
        let held = match row.entry.exclusion {
            None => "scheduled by a rule that needs no town",
            Some(Exclusion::UnknownTown) => "held back from the schedule",
            Some(Exclusion::NoRule) => "no rule applies",
            Some(Exclusion::Sewered | Exclusion::OutsideCounty) => "",
        };
        if let (Some(found), false) = (&facts.unknown_town, held.is_empty()) {
            problems.push(Problem::new(
                parcels_path,
                at(),
                format!(
                    "parcel {} ({held}): unknown town '{found}'; use one of the rule set's municipalities, a SWIS \
                     code, or fix the towns layer",
                    row.parcel.id
                ),
            ));
        }
        if let Some(both) = &facts.sewer_disagreement {
            problems.push(Problem::new(
                parcels_path,
                at(),
                format!(
                    "parcel {}: {both}; the sewer code decides, so the parcel stays on the schedule; correct the \
                     code or the sewer-district layer",
                    row.parcel.id
                ),
            ));
        }
    }
    Problem::sort_unique(&mut problems);
    inspections.reports = reports;
    Ok(Run {
        rules,
        rows,
        problems,
        notes,
        history_path: config.layers.history.as_deref().map(std::sync::Arc::from),
        inspections,
        events,
        samples,
        columns,
        pipes,
        timings: clock.laps,
        parcel_fields,
    })
}

/// The value of a record file's reading; its problems and the columns it took go to the run's lists.
fn keep_read<T>(problems: &mut Vec<Problem>, columns: &mut Vec<String>, read: Read<T>) -> T {
    problems.extend(read.problems);
    columns.push(read.columns);
    read.value
}

fn entry<'r>(
    config: &Config,
    decision: Option<Decision<'r>>,
    last: Option<LastInspection>,
    has_history: bool,
) -> Entry<'r> {
    let unscheduled = |exclusion: Option<Exclusion>, citation: &'r str, last| Entry {
        tier: UNSCHEDULED,
        rule: None,
        exclusion,
        cycle_years: None,
        first_due: None,
        previous_due: None,
        next_due: None,
        status: None,
        last_inspection: last,
        citation,
        permit: None,
    };
    match decision {
        None => unscheduled(None, "", last),
        Some(Decision::Unscheduled { exclusion, citation, .. }) => {
            unscheduled(Some(exclusion), citation, last)
        }
        Some(Decision::Scheduled { rule }) => {
            let grid = DueGrid { first_due: rule.first_due, cycle_years: rule.cycle_years };
            let rolls = config.rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
            let around = grid.around_rolled(config.as_of, rolls);
            let status =
                has_history.then(|| status(&grid, config.as_of, last.as_ref().map(|l| l.date), rolls));
            Entry {
                tier: &rule.tier,
                rule: Some(&rule.id),
                exclusion: None,
                cycle_years: Some(rule.cycle_years),
                first_due: Some(rule.first_due),
                previous_due: around.previous,
                next_due: Some(around.next),
                status,
                last_inspection: last,
                citation: &rule.citation,
                permit: None,
            }
        }
    }
}
