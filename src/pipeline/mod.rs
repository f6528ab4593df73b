//! The schedule pipeline, one direction: read layers → reproject → index → classify each parcel → apply the
//! rules → due dates and status. The report writers turn the result into files.
//!
//! **Every input parcel appears in [`Run::rows`] exactly once**, scheduled or unscheduled with the reason,
//! and the rows are sorted by parcel id (then record number), so output is deterministic.

pub mod config;
mod hosts;
pub mod init;
mod parcel;
pub mod problems;
mod progress;
mod reach;
mod records;
pub mod reference;
mod warnings;
mod world;

use parcel::{Found, Scheduler};
pub use problems::Problems;
pub use progress::{cpu_time, peak_rss_bytes, Lap, Progress, Stopwatch};
use records::{read_record_files, read_systems, Matcher, RecordFiles};
use warnings::Warnings;
use world::build_world;

use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

use crate::classify::parcels::{
    duplicate_problem, FieldChoice, ParcelColumns, ParcelPositions, ParcelSchema, SystemFields, Systems,
};
use crate::crs::layer::{Feature, Layer};
use crate::crs::{check_overlap, Crs, LayerExtent, Reprojector, Screen};
use crate::formats::blocks::LayerBlocks;
use crate::formats::ReadOptions;
use crate::law::coverage::Exclusion;
use crate::law::obligations::{Obligation, Records};
use crate::law::permits::report_permit_terms;
use crate::law::schedule::Row;
use crate::model::error::{Error, Problem, Result};
use crate::pipeline::config::Config;
use crate::pipeline::reference::{read_reference, Reference};
use crate::records::events::{Event, Pipe, Sample};
use crate::records::inspections::Inspections;
use crate::rules::RuleSet;

/// The result of a schedule run.
#[derive(Debug)]
pub struct Run {
    /// The rule set the rows were decided by.
    pub rules: Arc<RuleSet>,
    /// One row per input parcel, sorted by parcel id (then record number): row `i` is the parcel at
    /// position `i`. Empty in the run [`stream_schedule`] returns, which hands the rows out instead.
    pub rows: Vec<Row>,
    /// The number of parcel records: the rows there are, or will be.
    pub parcels: usize,
    /// Bad records found on the way (the run carried on), in bounded memory: read back in order, each once.
    pub problems: Problems,
    /// Remarks that are not problems (e.g. shoreline features of water bodies the rules do not name).
    pub notes: Vec<String>,
    /// The reference layers (shoreline, watersheds, towns, sewer districts, county, floodplain,
    /// watercourses) as the run read them, once, in the working CRS: classification measured against them,
    /// and maps and buffer reports draw and measure from them here instead of reading the files again.
    pub reference: Reference,
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
    /// Which field of the systems layer was taken for what (empty without one), for `-v`.
    pub system_fields: Vec<FieldChoice>,
    /// Why no letter can be addressed from the parcels layer's fields, when none can
    /// ([`ParcelSchema::mailing_gap`]): a warning for the commands that mail.
    pub mailing_gap: Option<String>,
    /// The register of systems (empty without a systems layer): each row's [`Row::systems`] index it.
    pub systems: Arc<Systems>,
}

impl Run {
    /// Every open obligation of every parcel on `as_of`, with the problems and notes found on the way (see
    /// [`crate::law::obligations::collect`]).
    pub fn obligations(&self, as_of: NaiveDate) -> (Vec<Obligation>, Vec<Problem>, Vec<String>) {
        crate::law::obligations::collect(&self.rows, &self.records(), &self.rules, as_of)
    }

    /// The record files of the run as the obligations take them. While [`stream_schedule`] hands out blocks
    /// they are all read already, so a block's obligations can be found from them and the block's rows.
    pub fn records(&self) -> Records<'_> {
        Records {
            history_path: self.history_path.as_ref(),
            inspections: &self.inspections,
            events: &self.events,
            samples: &self.samples,
            pipes: &self.pipes,
        }
    }

    /// Why the row's parcel has its schedule, in a sentence.
    ///
    /// The sentence is built from the facts when asked for (by the writers), not stored: for a million
    /// parcels that saves a few hundred megabytes, and runs that write no reason never format one.
    pub fn reason(&self, row: &Row) -> String {
        let mut reason = String::new();
        self.push_reason(row, &mut reason);
        reason
    }

    /// [`Run::reason`], appended to `out`.
    pub fn push_reason(&self, row: &Row, out: &mut String) {
        row.push_reason(&self.rules, out);
    }
}

/// Records of the parcels layer converted in one block: enough to keep the block's rows small (a state's
/// parcels are never held whole), large enough that each block keeps both cores busy.
pub const PARCEL_BLOCK: usize = 1 << 13;

/// How many records of a layer read in blocks go in one: `block`, or the whole layer when it must be
/// reprojected, since reprojection interpolates on a grid fitted to the whole layer and its coordinates must
/// stay those of a whole-layer read.
fn block_size(reprojector: &Reprojector, block: usize) -> usize {
    if reprojector.is_identity() {
        block.max(1)
    } else {
        usize::MAX
    }
}

/// A block of features of the layer at `path`, in `crs`, reprojected into the working CRS, with the problems
/// found on the way.
fn project_block(
    reprojector: &Reprojector,
    path: &Path,
    crs: &Crs,
    features: Vec<Feature>,
) -> (Vec<Feature>, Vec<Problem>) {
    let layer = Layer { path: path.to_path_buf(), crs: crs.clone(), fields: Vec::new(), features };
    let (layer, problems) = reprojector.project_layer(layer);
    (layer.into_inner().features, problems)
}

/// The blocks of the parcels layer, read on a thread of `scope` one block ahead of their consumer, until the
/// first empty block or error. When the layer's records can be read in any order and lie near enough to id
/// order, a block is the records of the next `block_size` positions: the rows then come in the order of the
/// output, and a writer puts them straight into its file. Otherwise blocks come in the file's order.
fn read_ahead<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    blocks: &'s mut LayerBlocks,
    known: &'s ParcelPositions,
    block_size: usize,
) -> std::sync::mpsc::Receiver<Result<(Vec<Feature>, Vec<Problem>)>> {
    let by_position =
        block_size != usize::MAX && blocks.reads_any_records() && known.blocks_read_forward(block_size);
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    scope.spawn(move || {
        let mut next: usize = 0;
        loop {
            let block = if by_position {
                let end = known.len().min(next.saturating_add(block_size));
                let records = known.records_at(next..end);
                next = end;
                blocks.read_records(&records)
            } else {
                blocks.next_block(block_size)
            };
            let last = block.as_ref().map_or(true, |(features, _)| features.is_empty());
            if sender.send(block).is_err() || last {
                break;
            }
        }
    });
    receiver
}

/// The parcels layer, opened: its records come in blocks; their ids, sorted, were read first.
struct Parcels {
    blocks: LayerBlocks,
    schema: ParcelSchema,
    columns: ParcelColumns,
    ids: ParcelPositions,
    reprojector: Reprojector,
}

/// Opens the parcels layer and reads the ids of all its records (the `.dbf` id columns alone, for a
/// shapefile), so that every record has its position before any is classified.
fn open_parcels(config: &Config) -> Result<Parcels> {
    let path =
        config.layers.parcels.as_deref().ok_or_else(|| Error::Config("no parcels layer given".into()))?;
    let schema =
        crate::formats::with_field_names(path, |fields| ParcelSchema::detect(fields, &config.fields, path))?;
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep: Some(schema.keep()) };
    let blocks = LayerBlocks::open(path, &options)?;
    let reprojector = config.reprojector(path, blocks.crs())?;
    let columns = ParcelColumns::new(blocks.fields(), &schema);
    let ids =
        ParcelPositions::collect(path, |scanned, each| blocks.scan(scanned, each), &columns, blocks.len())?;
    Ok(Parcels { blocks, schema, columns, ids, reprojector })
}

/// How many records the parcels layer of `config` holds, as the layer says before any is read (a map picks
/// its form by it).
pub fn parcel_records(config: &Config) -> Result<usize> {
    let path =
        config.layers.parcels.as_deref().ok_or_else(|| Error::Config("no parcels layer given".into()))?;
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep: None };
    Ok(LayerBlocks::open(path, &options)?.len())
}

/// Runs the schedule pipeline.
pub fn run_schedule(config: &Config) -> Result<Run> {
    run_schedule_with(config, &Progress::default())
}

/// Runs the schedule pipeline, reporting its stages and the parcels classified to `progress`. The rows are
/// gathered from the blocks of [`stream_schedule`] and put in order of position.
pub fn run_schedule_with(config: &Config, progress: &Progress) -> Result<Run> {
    let mut rows: Vec<Row> = Vec::new();
    let mut run = stream_schedule(config, progress, &mut |run, block| {
        if rows.is_empty() {
            rows.reserve_exact(run.parcels);
        }
        rows.extend(block);
        Ok(())
    })?;
    put_in_order(&mut rows, |row| row.at);
    run.rows = rows;
    Ok(run)
}

/// Puts items in order when `place` gives each its index in that order (a permutation of `0..len`): every
/// swap puts one item where it belongs, so each moves about once and no second vector is needed.
pub fn put_in_order<T>(items: &mut [T], place: impl Fn(&T) -> usize) {
    for i in 0..items.len() {
        loop {
            let j = place(&items[i]);
            // A place out of range or taken twice would loop forever; it stops here instead.
            if j == i || j >= items.len() || place(&items[j]) == j {
                break;
            }
            items.swap(i, j);
        }
    }
}

/// Runs the schedule pipeline and hands its rows to `each_block` a block at a time, each row with its
/// position ([`Row::at`]): blocks of positions in order when the parcels file can be read that way (see
/// [`ParcelPositions::blocks_read_forward`]), else in the parcels file's order. The run it returns has everything
/// but the rows (its `rows` are empty), and `each_block` sees that run as it stands. A consumer that keeps
/// nothing of a block (a CSV writer) lets a run of any size go through in little memory.
pub fn stream_schedule(
    config: &Config,
    progress: &Progress,
    each_block: &mut (dyn FnMut(&Run, Vec<Row>) -> Result<()> + Send),
) -> Result<Run> {
    stream_schedule_in_blocks(config, progress, PARCEL_BLOCK, each_block)
}

/// [`stream_schedule`] with blocks of `block` records (at most; a layer that must be reprojected comes in
/// one block). The rows do not depend on the block size, which the tests check with tiny blocks.
pub fn stream_schedule_in_blocks(
    config: &Config,
    progress: &Progress,
    block: usize,
    each_block: &mut (dyn FnMut(&Run, Vec<Row>) -> Result<()> + Send),
) -> Result<Run> {
    progress.start("reading layers", 0);
    let mut clock = Stopwatch::new();
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    // The parcel ids are read on one core while the reference layers are read and indexed on the other.
    let (parcels, reference) = std::thread::scope(|s| {
        let parcels = s.spawn(|| open_parcels(config));
        let reference = read_reference(config, &mut problems, &mut notes).map(|reference| {
            let world = build_world(config, &reference, reference.mean_high_water());
            // With a line from the DEM, the shoreline layer's is the check: each parcel is also measured
            // from it, and the parcels whose tier it would change are listed.
            let check = (!reference.derived_mhw.is_empty())
                .then(|| build_world(config, &reference, reference.supplied_shoreline()));
            (world, check, reference)
        });
        let parcels = parcels.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        (parcels, reference)
    });
    clock.lap("read parcel ids and reference layers");
    let mut parcels = parcels?;
    let (world, check_world, reference) = reference?;
    // The ground at system points, for the §X screening, when a DEM is given.
    let ground =
        config.layers.dem.as_deref().map(|p| reference::ground::Ground::open(p, config)).transpose()?;
    // Where the reference layers lie, for the cross-check with the parcels' extent as their blocks come.
    let mut others = reference.extents.clone();
    let block_size = block_size(&parcels.reprojector, block);
    let path = parcels.blocks.path().to_path_buf();
    let crs = config.crs.short_name();
    let layer_crs = parcels.blocks.crs().clone();
    let parcel_fields = parcels.schema.choices(&config.fields);
    let Parcels { blocks, schema, columns: parcel_columns, ids, reprojector } = &mut parcels;
    let schema = &*schema;
    let known = &*ids;
    let mut run = std::thread::scope(|s| -> Result<Run> {
        // The parcels layer is read ahead on its own thread from here on: its first blocks while the systems
        // and record files are read, then each next block while the one before is scheduled.
        let receiver = read_ahead(s, blocks, known, block_size);

        // The systems layer is read on one core while the record files are read on the other.
        let matcher = Matcher::new(config, known, schema);
        let (systems, records) = std::thread::scope(|s| {
            let systems = s.spawn(|| read_systems(&matcher));
            let records = read_record_files(&matcher);
            (systems.join().unwrap_or_else(|e| std::panic::resume_unwind(e)), records)
        });
        let records::SystemsRead {
            systems,
            problems: more,
            fields: system_names,
            joined: system_joined,
            extent: systems_extent,
        } = systems?;
        let systems = Arc::new(systems);
        problems.extend(more);
        others.extend(systems_extent);
        let RecordFiles {
            events,
            history,
            inspections,
            samples,
            pipes,
            mut columns,
            problems: more,
            notes: said,
        } = records?;
        problems.extend(more);
        problems.extend(records::unknown_systems(
            &systems,
            &events,
            &inspections,
            config.layers.history.as_deref(),
        ));
        notes.extend(said);
        columns.extend(system_joined);
        let warnings = Warnings::new(system_names.as_ref());
        let reach = reach::Reach::default();
        clock.lap("read systems and records");

        let mut run = Run {
            rules: Arc::clone(&config.rules),
            rows: Vec::new(),
            parcels: known.len(),
            problems: problems.into(),
            notes,
            reference,
            history_path: config.layers.history.as_deref().map(std::sync::Arc::from),
            inspections,
            events,
            samples,
            columns,
            pipes,
            timings: Vec::new(),
            parcel_fields,
            system_fields: system_names.as_ref().map(SystemFields::choices).unwrap_or_default(),
            mailing_gap: schema.mailing_gap(),
            systems: Arc::clone(&systems),
        };
        progress.start("classifying parcels", known.len());
        let scheduler = Scheduler {
            config,
            layer: parcel::Layer { path: &path, crs: &crs, schema, columns: parcel_columns },
            known,
            world: &world,
            check_world: check_world.as_ref(),
            ground: ground.as_ref(),
            systems: &systems,
            warnings: &warnings,
            history: history.as_deref(),
            events: &run.events,
            inspections: &run.inspections,
            progress,
            found: Found::default(),
            hold: block_size,
            hosts: std::sync::OnceLock::new(),
        };
        let (events, reports) = (&run.events, &run.inspections.reports);
        let shown = |rows: &[Row]| {
            let mut found = Vec::new();
            after_block(rows, (known, &path), (&warnings, &reach), (events, reports), config, &mut found);
            found
        };
        // A block is scheduled while the one before it is handed over: a consumer's serial part (a writer's
        // copying into its file) runs beside the classification instead of after it.
        let mut handed: Option<Vec<Row>> = None;
        // The parcels' extent grows block by block; once it meets every other layer the cross-check is
        // passed, and a layer it has not met by the last block stops the run (before any output is renamed
        // into place). A layer read in one block is checked before any parcel is classified.
        let mut extent = LayerExtent::new("parcels", &path, &layer_crs);
        let mut screen = Screen::new(&config.crs);
        let mut seen = 0;
        let mut met = others.is_empty();
        // Each layer's role is checked once the layers are known to lie where the parcels do.
        let mut roles_checked = false;
        for block in receiver {
            // Between blocks is a safe point to stop at (see `crate::model::stop`): every command that
            // schedules parcels answers SIGINT and SIGTERM here, whatever it does with the rows.
            crate::model::stop::check()?;
            let (features, block_problems) = block?;
            run.problems.extend(block_problems);
            if features.is_empty() {
                break;
            }
            seen += features.len();
            extent.add_source(&features);
            let (mut features, more) = project_block(reprojector, &path, &layer_crs, features);
            run.problems.extend(more);
            run.problems.extend(screen.screen(&path, &mut features));
            extent.add_working(&features);
            met = met || others.iter().all(|o| o.source.is_none() || o.overlaps(&extent));
            if !met && seen >= known.len() {
                check_overlap(&extent, &others, &config.crs)?;
            }
            if met && !roles_checked {
                reference::roles::check(config, &run.reference, &mut run.notes)?;
                roles_checked = true;
            }
            // What the block before shows (its problems, warnings and reach) is found beside this block's
            // scheduling too, before its rows are handed over.
            let before = handed.take();
            let (scheduled, consumed) = rayon::join(
                || scheduler.block(features),
                || -> Result<Vec<Problem>> {
                    let Some(rows) = before else { return Ok(Vec::new()) };
                    let found = shown(&rows);
                    each_block(&run, rows)?;
                    Ok(found)
                },
            );
            run.problems.extend(consumed?);
            let (rows, found) = scheduled?;
            run.problems.extend(found);
            handed = Some(rows);
        }
        if !met {
            check_overlap(&extent, &others, &config.crs)?;
        }
        if !roles_checked {
            reference::roles::check(config, &run.reference, &mut run.notes)?;
        }
        if let Some(rows) = handed {
            run.problems.extend(shown(&rows));
            each_block(&run, rows)?;
        }
        // The parcels whose system points lie off them waited for the lots those points lie on, found as the
        // layer was read from the first parcel that waited on, and in the lots read before that, read again
        // now. The waiting parcels are then scheduled, a block at a time as every other: those kept whole, then
        // the others, their records read again.
        let again =
            hosts::Again { config, path: &path, schema, reprojector, block: block_size, screen: &screen };
        let unsearched = scheduler.unsearched();
        if !unsearched.is_empty() {
            let asked = scheduler.asked();
            again.read(&unsearched, &mut |features| {
                scheduler.search(features, &asked);
                Ok(())
            })?;
        }
        let (held, records) = scheduler.wait_over();
        let mut found = Vec::new();
        let mut hand = |(rows, more): (Vec<Row>, Vec<Problem>)| -> Result<()> {
            found.extend(more);
            found.extend(shown(&rows));
            each_block(&run, rows)
        };
        let mut held = held.into_iter().peekable();
        while held.peek().is_some() {
            hand(scheduler.resume(held.by_ref().take(block_size).collect()))?;
        }
        if !records.is_empty() {
            again.read(&records, &mut |features| hand(scheduler.waited(features)?))?;
        }
        run.problems.extend(found);
        let moved = scheduler.finish();
        if check_world.is_some() {
            run.notes.push(reference::mhw::moved_note(moved));
        }
        run.problems.extend(warnings.finish(
            &path,
            schema.sewer.as_deref(),
            config.layers.systems.as_deref(),
        ));
        reach.finish(&config.rules, &path, known.len())?;
        Ok(run)
    })?;
    progress.start("writing", 0);
    clock.lap("read, classify and schedule parcels");
    run.timings = clock.laps;
    Ok(run)
}

/// What is found in a block of rows once it is scheduled: the parcels layer's problems, the warnings
/// counted over the run, and the permit terms the rule set bounds.
fn after_block(
    rows: &[Row],
    (known, path): (&ParcelPositions, &Path),
    (warnings, reach): (&Warnings, &reach::Reach),
    (events, reports): (&[Event], &[Option<Box<crate::records::inspections::Report>>]),
    config: &Config,
    found: &mut Vec<Problem>,
) {
    report_parcel_problems(rows, known, path, found);
    warnings.block(rows);
    reach.block(rows);
    let history = config.layers.history.as_deref();
    report_permit_terms(rows, &config.rules, (events, reports), history, found);
}

/// The problems a block of rows shows in the parcels layer: repeated ids, unknown towns and sewer codes the
/// district layer contradicts, reported by record whether or not they changed the parcel's schedule.
fn report_parcel_problems(rows: &[Row], ids: &ParcelPositions, path: &Path, problems: &mut Vec<Problem>) {
    for row in rows {
        if let Some(why) = ids.duplicate(row.at) {
            problems.push(duplicate_problem(path, row.parcel.location(), &why));
        }
        let Some(facts) = &row.facts else { continue };
        let at = || row.parcel.location();
        // Outside the county or on public sewer, the town does not matter.
        let held = match row.entry.exclusion {
            None => "scheduled by a rule that needs no town",
            Some(Exclusion::UnknownTown) => "held back from the schedule",
            Some(Exclusion::NoRule) => "no rule applies",
            Some(Exclusion::Sewered | Exclusion::OutsideCounty | Exclusion::NoSystem) => "",
        };
        if let (Some(found), false) = (&facts.unknown_town, held.is_empty()) {
            problems.push(Problem::new(
                path,
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
                path,
                at(),
                format!(
                    "parcel {}: {both}; the sewer code decides, so the parcel stays on the schedule; correct the \
                     code or the sewer-district layer",
                    row.parcel.id
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::put_in_order;

    #[test]
    fn items_go_to_the_places_they_name() {
        // Each letter names its place: a permutation with a 3-cycle, a swap and a fixed point.
        let mut items = vec![('c', 2), ('a', 0), ('b', 1), ('e', 4), ('d', 3), ('f', 5)];
        put_in_order(&mut items, |&(_, at)| at);
        let letters: String = items.iter().map(|&(c, _)| c).collect();
        assert_eq!(letters, "abcdef");
    }

    #[test]
    fn a_broken_permutation_stops_instead_of_looping() {
        // Two items claim place 0 and one names a place beyond the end: the function returns.
        let mut items = vec![(0, 'x'), (0, 'y'), (9, 'z')];
        put_in_order(&mut items, |&(at, _)| at);
        assert_eq!(items.len(), 3);
    }
}
