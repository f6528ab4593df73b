//! The schedule pipeline, one direction: read layers → reproject → index → classify each parcel → apply the
//! rules → due dates and status. Writers in [`crate::report`] turn the result into files.
//!
//! **Every input parcel appears in [`Run::rows`] exactly once**, scheduled or unscheduled with the reason,
//! and the rows are sorted by parcel id (then record number), so output is deterministic.

use std::path::Path;

use chrono::NaiveDate;
use geo::{Geometry, MultiPolygon};
use rayon::prelude::*;

use crate::classify::{classify, AreaLayer, Areas, Facts, FloodZone, Floodplain, Parcel, Shore, World};
use crate::config::Config;
use crate::crs::Reprojector;
use crate::error::{Error, Problem, Result};
use crate::io::events::{read_events, read_pump_outs, read_samples, Event, Sample};
use crate::io::inspections::{read_inspections, Inspections, LastInspection};
use crate::io::{field_names, read_layer, ReadOptions};
use crate::layer::Layer;
use crate::obligations::{events_of, permit_for, Permit};
use crate::parcels::{
    parcel_records, system_fields, systems_by_parcel, ParcelIndex, ParcelRecord, ParcelSchema,
};
use crate::rules::{decide, explain, Decision, Exclusion, RuleSet};
use crate::schedule::{status, Grid, Status};

/// The tier written for parcels no periodic rule covers.
pub const UNSCHEDULED: &str = "unscheduled";

/// One parcel's line in the schedule.
#[derive(Debug, Clone)]
pub struct Row<'r> {
    /// The parcel as read (id, record, attributes, projected shape).
    pub parcel: ParcelRecord,
    /// The spatial facts, when the parcel could be classified.
    pub facts: Option<Facts>,
    /// The schedule entry.
    pub entry: Entry<'r>,
}

/// The schedule columns of a row; names and citations are borrowed from the rule set.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<'r> {
    /// Tier ("lakefront", "near-shore", "watershed", "county") or [`UNSCHEDULED`].
    pub tier: &'r str,
    /// The rule that matched.
    pub rule: Option<&'r str>,
    /// Why unscheduled, when it is.
    pub exclusion: Option<Exclusion>,
    /// Years between inspections.
    pub cycle_years: Option<u32>,
    /// First due date of the grid.
    pub first_due: Option<NaiveDate>,
    /// Last due date before the as-of date.
    pub previous_due: Option<NaiveDate>,
    /// Next due date on or after the as-of date.
    pub next_due: Option<NaiveDate>,
    /// Compliance status, when a history was given.
    pub status: Option<Status>,
    /// Latest inspection on record.
    pub last_inspection: Option<LastInspection>,
    /// The law's citation.
    pub citation: &'r str,
    /// Class and permit after the latest inspection with findings, when the rule set has permits.
    pub permit: Option<Box<Permit>>,
}

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
    /// Whether a history file was given (so statuses are meaningful).
    pub has_history: bool,
    /// The inspections file, when given.
    pub history_path: Option<std::sync::Arc<Path>>,
    /// What the inspections file says beyond each parcel's latest inspection (which is in its entry).
    pub inspections: Inspections,
    /// Events and pump-outs, sorted by parcel position and date.
    pub events: Vec<Event>,
    /// Drainage-pipe samples, in file order.
    pub samples: Vec<Sample>,
    /// Wall time of each stage, in order, for `-v`.
    pub timings: Vec<(&'static str, std::time::Duration)>,
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

/// Records the wall time of consecutive stages.
struct Stopwatch {
    last: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
}

impl Stopwatch {
    fn new() -> Self {
        Stopwatch { last: std::time::Instant::now(), laps: Vec::new() }
    }

    fn lap(&mut self, stage: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((stage, now - self.last));
        self.last = now;
    }
}

impl Run<'_> {
    /// Whether the system of the parcel at `at` is grandfathered (its installation predates the rule set's
    /// cut-off for its size), when the rule set and the inspections file say.
    pub fn grandfathered(&self, at: usize) -> Option<bool> {
        let rules = self.rules.grandfather.as_ref()?;
        let installed = self.inspections.installed.get(at).copied().flatten()?;
        let cutoff = match installed.size {
            crate::io::inspections::SystemSize::Individual => rules.individual_before,
            crate::io::inspections::SystemSize::Intermediate => rules.intermediate_before,
        };
        Some(installed.date < cutoff)
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
type ReadEvents = fn(&Path, &dyn Fn(&str) -> Option<usize>, NaiveDate) -> Result<(Vec<Event>, Vec<Problem>)>;

/// Reads a layer and reprojects it into the working CRS.
fn load(path: &Path, config: &Config, keep: Option<Vec<String>>) -> Result<(Layer, Vec<Problem>)> {
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep };
    let (layer, mut problems) = read_layer(path, &options)?;
    let reprojector = Reprojector::new(&layer.crs, &config.crs)
        .map_err(|e| Error::crs(path, format!("cannot reproject to {}: {e}", config.crs)))?;
    let (projected, more) = reprojector.project_layer(layer);
    problems.extend(more);
    Ok((projected.into_inner(), problems))
}

/// The first of `candidates` among the layer's fields.
fn name_field(layer: &Layer, explicit: Option<&String>, candidates: &[&str]) -> Result<Option<usize>> {
    if let Some(name) = explicit {
        return layer.field_index(name).map(Some).ok_or_else(|| {
            Error::format(
                &layer.path,
                format!("no field '{name}'; fields found: {}", layer.fields.join(", ")),
            )
        });
    }
    Ok(candidates.iter().find_map(|c| layer.field_index(c)))
}

fn value_text(layer: &Layer, i: usize, field: Option<usize>) -> Option<String> {
    field.and_then(|f| layer.features[i].values[f].as_text())
}

/// The polygons of a geometry, or `None` for other kinds.
fn polygons(g: &Geometry<f64>) -> Option<MultiPolygon<f64>> {
    match g {
        Geometry::Polygon(p) => Some(MultiPolygon(vec![p.clone()])),
        Geometry::MultiPolygon(mp) => Some(mp.clone()),
        _ => None,
    }
}

/// The polygon features of an area layer with their feature index; features that are not polygons are
/// reported and not used.
fn area_features(layer: &Layer, problems: &mut Vec<Problem>) -> Vec<(usize, MultiPolygon<f64>)> {
    let mut out = Vec::new();
    for (i, f) in layer.features.iter().enumerate() {
        match f.geometry.as_ref().map(polygons) {
            Ok(Some(shape)) => out.push((i, shape)),
            Ok(None) => problems.push(Problem::new(
                &layer.path,
                format!("record {}", f.record),
                "not a polygon; this layer needs polygons, the feature is not used",
            )),
            Err(_) => {} // reported by the reader
        }
    }
    out
}

/// The polygon features of an area layer, each with the text of its `field`.
fn named_areas(
    layer: &Layer,
    field: Option<usize>,
    problems: &mut Vec<Problem>,
) -> Vec<(MultiPolygon<f64>, Option<String>)> {
    area_features(layer, problems)
        .into_iter()
        .map(|(i, shape)| (shape, value_text(layer, i, field)))
        .collect()
}

const NAME_FIELDS: [&str; 6] = ["NAME", "WATERBODY", "GNIS_NAME", "LAKE_NAME", "TOWN", "NAMELSAD"];

/// The shoreline features of the rule set's water bodies, in the working CRS, each with its water body's
/// name; features of other water bodies are named in a note and left out.
pub fn shoreline_features(
    config: &Config,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> Result<Vec<(Geometry<f64>, String)>> {
    let mut shoreline = Vec::new();
    let Some(path) = &config.layers.shoreline else { return Ok(shoreline) };
    let (layer, p) = load_layer(path, config)?;
    problems.extend(p);
    let field = name_field(&layer, config.fields.shoreline_name.as_ref(), &NAME_FIELDS)?;
    let mut ignored = std::collections::BTreeSet::new();
    for (i, f) in layer.features.iter().enumerate() {
        let Ok(geometry) = &f.geometry else { continue };
        let name = value_text(&layer, i, field).unwrap_or_default();
        match config.rules.water_body(&name) {
            Some(body) => shoreline.push((geometry.clone(), body.name.clone())),
            None => {
                ignored.insert(if name.is_empty() { "(unnamed)".to_string() } else { name });
            }
        }
    }
    if !ignored.is_empty() {
        notes.push(format!(
            "{}: shoreline of water bodies the rule set does not name, not used: {}",
            path.display(),
            ignored.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(shoreline)
}

/// Reads a layer and reprojects it into the working CRS, keeping every attribute.
pub fn load_layer(path: &Path, config: &Config) -> Result<(Layer, Vec<Problem>)> {
    load(path, config, None)
}

/// Named polygons of an area layer: each shape with its name attribute, when it has one.
pub type NamedAreas = Vec<(MultiPolygon<f64>, Option<String>)>;

/// The reference layers as read, in the working CRS, before they are indexed: what classification measures
/// against, and what a map draws. A layer not configured is `None` (the shoreline: empty).
#[derive(Debug, Default)]
pub struct Reference {
    /// Shoreline features of the rule set's water bodies, with the water body's name.
    pub shoreline: Vec<(Geometry<f64>, String)>,
    /// Watersheds, named by water body (canonical names where the rule set knows them).
    pub watersheds: Option<NamedAreas>,
    /// Towns with their names.
    pub towns: Option<NamedAreas>,
    /// Public sewer districts.
    pub sewered: Option<NamedAreas>,
    /// The county boundary.
    pub county: Option<NamedAreas>,
    /// FEMA flood-hazard polygons with their zone.
    pub floodplain: Option<Vec<(MultiPolygon<f64>, FloodZone)>>,
    /// Watercourses and wetlands with their names.
    pub watercourses: Option<Vec<(Geometry<f64>, String)>>,
}

/// Reads the reference layers of `config` (everything but the parcels, systems and record files).
pub fn read_reference(
    config: &Config,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> Result<Reference> {
    let rules = &config.rules;
    let fields = &config.fields;
    let layers = &config.layers;
    let mut reference =
        Reference { shoreline: shoreline_features(config, problems, notes)?, ..Reference::default() };
    if let Some(path) = &layers.watershed {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let field = name_field(&layer, fields.watershed_name.as_ref(), &NAME_FIELDS)?;
        let named = named_areas(&layer, field, problems)
            .into_iter()
            .map(|(shape, name)| {
                let canonical = name.as_deref().and_then(|n| rules.water_body(n)).map(|w| w.name.clone());
                (shape, canonical.or(name))
            })
            .collect();
        reference.watersheds = Some(named);
    }
    if let Some(path) = &layers.towns {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let field =
            name_field(&layer, fields.town_name.as_ref(), &["NAME", "TOWN", "MUNI_NAME", "NAMELSAD"])?
                .ok_or_else(|| {
                    Error::format(
                        path,
                        format!(
                            "no town name field; fields found: {}; set [fields] town_name",
                            layer.fields.join(", ")
                        ),
                    )
                })?;
        reference.towns = Some(named_areas(&layer, Some(field), problems));
    }
    for (slot, path) in [(&mut reference.sewered, &layers.sewered), (&mut reference.county, &layers.county)] {
        if let Some(path) = path {
            let (layer, p) = load(path, config, None)?;
            problems.extend(p);
            let field = name_field(&layer, None, &NAME_FIELDS)?;
            *slot = Some(named_areas(&layer, field, problems));
        }
    }
    if let Some(path) = &layers.floodplain {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let zone = name_field(&layer, None, &["FLD_ZONE", "ZONE", "FLOOD_ZONE"])?.ok_or_else(|| {
            Error::format(
                path,
                format!(
                    "no FLD_ZONE field (FEMA NFHL S_FLD_HAZ_AR); fields found: {}",
                    layer.fields.join(", ")
                ),
            )
        })?;
        let subtype = layer.field_index("ZONE_SUBTY");
        let sfha = layer.field_index("SFHA_TF");
        let bfe = name_field(&layer, None, &["STATIC_BFE", "BFE", "BFE_ELEV"])?;
        let attributed = area_features(&layer, problems)
            .into_iter()
            .map(|(i, shape)| {
                let text = |field| value_text(&layer, i, field);
                let static_bfe = bfe.and_then(|b| layer.features[i].values[b].as_f64());
                let zone = FloodZone::from_nfhl(
                    &text(Some(zone)).unwrap_or_default(),
                    text(subtype).as_deref(),
                    text(sfha).as_deref(),
                    static_bfe,
                );
                (shape, zone)
            })
            .collect();
        reference.floodplain = Some(attributed);
    }
    if let Some(path) = &layers.watercourses {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let field = name_field(&layer, None, &NAME_FIELDS)?;
        let features = (0..layer.features.len())
            .filter_map(|i| {
                let geometry = layer.features[i].geometry.as_ref().ok()?.clone();
                Some((geometry, value_text(&layer, i, field).unwrap_or_default()))
            })
            .collect();
        reference.watercourses = Some(features);
    }
    Ok(reference)
}

/// Reads and indexes the reference layers.
fn build_world(config: &Config, problems: &mut Vec<Problem>, notes: &mut Vec<String>) -> Result<World> {
    let rules = &config.rules;
    let radius_ft = rules.search_radius_ft().max(config.border_tolerance_ft);
    let reference = read_reference(config, problems, notes)?;
    let areas = Areas {
        municipalities: rules.jurisdiction.municipalities.iter().map(|m| m.as_str().into()).collect(),
        watersheds: reference.watersheds.map(AreaLayer::new),
        towns: reference.towns.map(AreaLayer::new),
        sewered: reference.sewered.map(AreaLayer::new),
        county: reference.county.map(AreaLayer::new),
    };
    // Watercourse distances are exact as far out as the shoreline's (and at least twice the separation the
    // law asks for), so the column means the same for a stream as for the lake.
    let watercourse_radius_ft =
        rules.permits.as_ref().map_or(0.0, |p| 2.0 * p.min_watercourse_ft).max(radius_ft);
    Ok(World {
        shore: Shore::new(reference.shoreline, radius_ft),
        areas,
        floodplain: reference.floodplain.map(Floodplain::new).unwrap_or_default(),
        watercourses: reference.watercourses.map(|w| Shore::new(w, watercourse_radius_ft)),
        border_tolerance_ft: config.border_tolerance_ft,
    })
}

/// Reads the parcels layer and turns it into records.
fn read_parcels(config: &Config) -> Result<(Vec<ParcelRecord>, Vec<Problem>)> {
    let path =
        config.layers.parcels.as_deref().ok_or_else(|| Error::Config("no parcels layer given".into()))?;
    let schema = ParcelSchema::detect(&field_names(path)?, &config.fields, path)?;
    let (layer, mut problems) = load(path, config, Some(schema.keep()))?;
    let (records, more) = parcel_records(layer, &schema);
    problems.extend(more);
    Ok((records, problems))
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
    let (records, parcel_problems) = parcels?;
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
    let (history, mut inspections) = match &config.layers.history {
        Some(path) => {
            let (mut found, p) = read_inspections(path, known, config.as_of)?;
            problems.extend(p);
            (Some(std::mem::take(&mut found.latest)), found)
        }
        None => (None, Inspections::default()),
    };
    let position = |id: &str| known.position(id);
    let mut events = Vec::new();
    for (path, read) in [
        (&config.layers.events, read_events as ReadEvents),
        (&config.layers.pump_outs, read_pump_outs as ReadEvents),
    ] {
        if let Some(path) = path {
            let (found, p) = read(path, &position, config.as_of)?;
            events.extend(found);
            problems.extend(p);
        }
    }
    events.sort_by(|a, b| (a.parcel, a.date, &a.source).cmp(&(b.parcel, b.date, &b.source)));
    let samples = match &config.layers.samples {
        Some(path) => {
            let (found, p) = read_samples(path, &position, config.as_of)?;
            problems.extend(p);
            found
        }
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
            let grid = match &decision {
                Some(Decision::Scheduled { rule }) => {
                    Some(Grid { first_due: rule.first_due, cycle_years: rule.cycle_years })
                }
                _ => None,
            };
            let mut entry = entry(config, decision, last, history.is_some());
            if let Some(report) = reports.get(at).and_then(|r| r.as_deref()) {
                entry.permit =
                    permit_for(rules, report, facts.as_ref(), grid, events_of(&events, at)).map(Box::new);
            }
            progress.advance();
            Row { parcel, facts, entry }
        })
        .collect();
    progress.start("writing", 0);
    clock.lap("classify and schedule");
    // An unknown town is bad input in the parcels layer: report it there, by record.
    let parcels_path = config.layers.parcels.as_deref().unwrap_or(Path::new(""));
    for row in rows.iter().filter(|r| r.entry.exclusion == Some(Exclusion::UnknownTown)) {
        if let Some(found) = row.facts.as_ref().and_then(|f| f.unknown_town.as_deref()) {
            problems.push(Problem::new(
                parcels_path,
                format!("record {}", row.parcel.record),
                format!(
                    "parcel {}: unknown town '{found}'; use one of the rule set's municipalities or fix the towns layer",
                    row.parcel.id
                ),
            ));
        }
    }
    problems.sort();
    inspections.reports = reports;
    Ok(Run {
        rules,
        rows,
        problems,
        notes,
        has_history: history.is_some(),
        history_path: config.layers.history.as_deref().map(std::sync::Arc::from),
        inspections,
        events,
        samples,
        timings: clock.laps,
    })
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
            let grid = Grid { first_due: rule.first_due, cycle_years: rule.cycle_years };
            let around = grid.around(config.as_of);
            let status = has_history.then(|| status(&grid, config.as_of, last.as_ref().map(|l| l.date)));
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
