//! The files read about the parcels once their ids are known: the systems layer and the record files
//! (events, pump-outs, inspections, samples, pipes), each row finding its parcel's position.

use std::path::Path;
use std::sync::OnceLock;

use chrono::NaiveDate;

use crate::classify::parcels::{
    system_fields, Lookup, OtherKeys, ParcelPositions, ParcelSchema, SystemFields, SystemJoin, Systems,
};
use crate::crs::{LayerExtent, Screen};
use crate::formats::blocks::LayerBlocks;
use crate::formats::ReadOptions;
use crate::model::error::{Error, Problem, Result};
use crate::pipeline::config::Config;
use crate::records::columns::FieldMap;
use crate::records::events::{read_events, read_pipes, read_pump_outs, read_samples, Event, Pipe, Sample};
use crate::records::inspections::{read_inspections, Inspections, LastInspection, LateReports};
use crate::records::tally::{IdTally, Position, AMBIGUOUS};
use crate::records::Read;
use crate::rules::RuleSet;

use super::{block_size, project_block, PARCEL_BLOCK};

/// A reader of dated parcel events (the events file, the pump-outs file).
type ReadEvents = fn(&Path, &FieldMap, &dyn Fn(&str) -> Option<usize>, NaiveDate) -> Result<Read<Vec<Event>>>;

/// The parcels' ids, and the other keys of the parcels layer, read the first time a file's ids fail to find
/// their parcels by the parcels' own id (see [`OtherKeys`]).
pub(super) struct Matcher<'a> {
    pub(super) config: &'a Config,
    pub(super) known: &'a ParcelPositions,
    pub(super) schema: &'a ParcelSchema,
    other: OnceLock<std::result::Result<OtherKeys, String>>,
}

impl<'a> Matcher<'a> {
    /// A matcher of ids against the parcels `known`, whose layer has the schema `schema`.
    pub(super) fn new(config: &'a Config, known: &'a ParcelPositions, schema: &'a ParcelSchema) -> Self {
        Matcher { config, known, schema, other: OnceLock::new() }
    }

    /// The other keys of the parcels layer, read once.
    fn other(&self) -> Result<&OtherKeys> {
        let read = self.other.get_or_init(|| {
            let path = self.config.layers.parcels.as_deref().ok_or("no parcels layer")?;
            let options = ReadOptions { assume_crs: self.config.assume_crs.clone(), keep: None };
            OtherKeys::read(path, self.schema, self.known, &options).map_err(|e| e.to_string())
        });
        read.as_ref().map_err(|e| Error::Config(e.clone()))
    }

    /// Reads the file at `file` with `read`, its ids found by the parcels' id. When some find no parcel,
    /// the parcels layer's other keys are tried on those, and the file is read again with the keys that
    /// find some, after the parcels' id, spelling aside; a line saying so is returned for `-v`. A file of
    /// which most filled-in ids still find no parcel is an error naming ids of both sides and `fix`, the
    /// setting that names the file's id column.
    pub(super) fn read<T>(
        &self,
        file: &Path,
        fix: &str,
        read: impl Fn(&dyn Fn(&str) -> Option<usize>) -> Result<(T, IdTally)>,
    ) -> Result<(T, Option<String>)> {
        let cursor = self.known.cursor();
        let (value, tally) = read(&|id: &str| cursor.position(id))?;
        if tally.unmatched == 0 {
            return Ok((value, None));
        }
        // Ids Excel rounded would find the wrong parcels by a looser key: they stop the run first.
        let other = self.other()?;
        if let Some(why) = tally.excel_rounded(&|digits| other.rounds_to(digits)) {
            return Err(Error::format(file, why));
        }
        let keys: Vec<usize> = other.ranked(&tally.unmatched_ids).into_iter().map(|(k, _)| k).collect();
        let (value, after, said) = if keys.is_empty() {
            (value, tally.clone(), None)
        } else {
            let cursor = self.known.cursor();
            // The first key naming one parcel gives it; an id several parcels have under a key names none.
            let joined = |id: &str| {
                cursor.position(id).or_else(|| {
                    let found = keys.iter().map(|&k| other.lookup(k, id));
                    let mut many = false;
                    for lookup in found {
                        match lookup {
                            Lookup::One(at) => return Some(at),
                            Lookup::Many => many = true,
                            Lookup::None => {}
                        }
                    }
                    many.then_some(AMBIGUOUS)
                })
            };
            let (value, after) = read(&joined)?;
            let names: Vec<&str> = keys.iter().map(|&k| other.name(k)).collect();
            let said = format!(
                "{}: {} of {} parcel ids found no parcel by the parcels' id ({}); joined on {} too, spelling \
                 aside (padding, zeros, case, a leading SWIS, the unformatted SBL): {} of {} found their parcel",
                file.display(),
                tally.unmatched,
                tally.matched + tally.unmatched,
                other.name(0),
                names.join(", then "),
                after.matched,
                after.matched + after.unmatched
            );
            (value, after, Some(said))
        };
        if after.mostly_unmatched() {
            return Err(self.unjoined(file, fix, &after, other));
        }
        Ok((value, said))
    }

    /// The error for a file most of whose ids find no parcel by any key.
    fn unjoined(&self, file: &Path, fix: &str, tally: &IdTally, other: &OtherKeys) -> Error {
        let mut theirs: Vec<&str> = Vec::new();
        for id in &tally.unmatched_ids {
            if !theirs.contains(&id.as_str()) && theirs.len() < 3 {
                theirs.push(id);
            }
        }
        let ours: Vec<String> = (0..=other.others().len())
            .filter(|&k| !other.examples(k).is_empty())
            .map(|k| format!("{} {}", other.name(k), other.examples(k).join(", ")))
            .collect();
        let parcels = self.config.layers.parcels.as_deref().unwrap_or(Path::new("the parcels layer"));
        let others = other.others();
        let also = if others.is_empty() { String::new() } else { format!(" or by {}", others.join(", ")) };
        Error::format(
            file,
            format!(
                "{} of {} parcel ids match no parcel of {}, by its id ({}){also}, even with spelling differences \
                 set aside (padding, zeros, case, a leading SWIS), so the file cannot be joined to the parcels; \
                 the file has {}; the parcels layer has {}; if the file's ids are in another column, name it \
                 with {fix}; if the parcels' ids are in other fields, set [fields] parcel_id (or --field \
                 parcel_id=FIELD); otherwise check that the file is of this county",
                tally.unmatched,
                tally.matched + tally.unmatched,
                parcels.display(),
                other.name(0),
                theirs.join(", "),
                ours.join("; ")
            ),
        )
    }
}

/// The systems layer joined to the parcels' positions (none for a run without one), with its problems and
/// fields, and the line saying which key joined it when the parcels' id did not (for `-v`). The layer is read a
/// block at a time; one that must be reprojected comes in one block, as the parcels do.
pub(super) fn read_systems(matcher: &Matcher<'_>) -> Result<SystemsRead> {
    let config = matcher.config;
    let Some(path) = &config.layers.systems else {
        return Ok(SystemsRead {
            systems: Systems::default(),
            problems: Vec::new(),
            fields: None,
            joined: None,
            extent: None,
        });
    };
    let fields =
        crate::formats::with_field_names(path, |fields| system_fields(fields, &config.fields, path))?;
    let fix = "[fields] system_parcel = \"FIELD\" (or --field system_parcel=FIELD)";
    let ((systems, problems, extent), said) = matcher.read(path, fix, |position| {
        let (systems, problems, extent, tally) =
            join_systems(config, path, &fields, (matcher.known.len(), position))?;
        Ok(((systems, problems, extent), tally))
    })?;
    Ok(SystemsRead { systems, problems, fields: Some(fields), joined: said, extent: Some(extent) })
}

/// The systems layer as [`read_systems`] read it.
pub(super) struct SystemsRead {
    /// Each parcel's system.
    pub(super) systems: Systems,
    /// The layer's bad records.
    pub(super) problems: Vec<Problem>,
    /// Its fields, when a layer was given.
    pub(super) fields: Option<SystemFields>,
    /// Which key joined it, when the parcels' id did not (for `-v`).
    pub(super) joined: Option<String>,
    /// Where its features lie, for the cross-check with the parcels (`None` without a systems layer).
    pub(super) extent: Option<LayerExtent>,
}

/// The systems layer at `path` joined to the parcels whose positions `parcels` finds by id. Its features are
/// screened as the reference layers' are ([`Screen`]), and where they lie comes back for the cross-check with
/// the parcels.
fn join_systems(
    config: &Config,
    path: &Path,
    names: &SystemFields,
    parcels: (usize, Position<'_>),
) -> Result<(Systems, Vec<Problem>, LayerExtent, IdTally)> {
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep: Some(names.keep()) };
    let mut blocks = LayerBlocks::open(path, &options)?;
    let reprojector = config.reprojector(path, blocks.crs())?;
    let block = block_size(&reprojector, PARCEL_BLOCK);
    let (file, fields, crs) = (blocks.path().to_path_buf(), blocks.fields().to_vec(), blocks.crs().clone());
    let mut join = SystemJoin::new(&file, &fields, names, parcels);
    let mut problems = Vec::new();
    let mut extent = LayerExtent::new("systems", &file, &crs);
    let mut screen = Screen::new(&config.crs);
    let mut read = 0;
    loop {
        let (features, more) = blocks.next_block(block)?;
        problems.extend(more);
        if features.is_empty() {
            break;
        }
        read += features.len();
        extent.add_source(&features);
        let (mut features, more) = project_block(&reprojector, &file, &crs, features);
        problems.extend(more);
        problems.extend(screen.screen(&file, &mut features));
        extent.add_working(&features);
        join.add(&features);
    }
    if read == 0 {
        problems.push(super::reference::no_features(&file, "systems", "no parcel's system is placed by it"));
    }
    let (systems, more, tally) = join.finish();
    problems.extend(more);
    Ok((systems, problems, extent, tally))
}

/// What the record files say, by parcel position.
pub(super) struct RecordFiles {
    /// Events and pump-outs, sorted by parcel position and date.
    pub(super) events: Vec<Event>,
    /// Each parcel's latest inspection, when an inspections file was given.
    pub(super) history: Option<Vec<Option<LastInspection>>>,
    /// The rest of the inspections file.
    pub(super) inspections: Inspections,
    pub(super) samples: Vec<Sample>,
    pub(super) pipes: Vec<Pipe>,
    /// Which column of each file was taken for what, for `-v`.
    pub(super) columns: Vec<String>,
    pub(super) problems: Vec<Problem>,
    /// Remarks about whole files (text read as Windows-1252).
    pub(super) notes: Vec<String>,
}

/// Reads the record files (events, pump-outs, inspections, samples, pipes), each row finding its parcel's
/// position through `matcher` (the parcels' id, else another key of the parcels layer).
pub(super) fn read_record_files(matcher: &Matcher<'_>) -> Result<RecordFiles> {
    let (config, known) = (matcher.config, matcher.known);
    let mut said = Said::default();
    let fields = &config.fields;
    let fix =
        |key: &str| format!("[fields.{key}] parcel_id = \"COLUMN\" (or --field {key}.parcel_id=COLUMN)");
    let mut events = Vec::new();
    for (path, fields, read, key) in [
        (&config.layers.events, &fields.events, read_events as ReadEvents, "events"),
        (&config.layers.pump_outs, &fields.pump_outs, read_pump_outs as ReadEvents, "pump_outs"),
    ] {
        if let Some(path) = path {
            let read = matcher
                .read(path, &fix(key), |position| tallied(read(path, fields, position, config.as_of)))?;
            events.extend(said.keep(read));
        }
    }
    events.sort_by(|a, b| (a.parcel, a.date, &a.source).cmp(&(b.parcel, b.date, &b.source)));
    // Every inspection date of the parcels with events is kept: an event's clock may close on any of them.
    let mut with_events: Vec<usize> = events.iter().map(|e| e.parcel).collect();
    with_events.dedup();
    let (history, inspections) = match &config.layers.history {
        Some(path) => {
            let read = matcher.read(path, &fix("history"), |position| {
                tallied(read_inspections(
                    path,
                    &fields.history,
                    known.len(),
                    position,
                    config.as_of,
                    &with_events,
                    late_reports(&config.rules, config.as_of),
                ))
            })?;
            let mut found: Inspections = said.keep(read);
            (Some(std::mem::take(&mut found.latest)), found)
        }
        None => (None, Inspections::default()),
    };
    let samples = match &config.layers.samples {
        Some(path) => {
            let read = matcher.read(path, &fix("samples"), |position| {
                tallied(read_samples(path, &fields.samples, position, config.as_of))
            })?;
            said.keep(read)
        }
        None => Vec::new(),
    };
    let pipes = match &config.layers.pipes {
        Some(path) => {
            let read = matcher.read(path, &fix("pipes"), |position| {
                tallied(read_pipes(path, &fields.pipes, position, config.as_of))
            })?;
            said.keep(read)
        }
        None => Vec::new(),
    };
    let Said { problems, columns, notes } = said;
    Ok(RecordFiles { events, history, inspections, samples, pipes, columns, problems, notes })
}

/// A record file's reading, with its tally of ids beside it for [`Matcher::read`].
fn tallied<T>(read: Result<Read<T>>) -> Result<(Read<T>, IdTally)> {
    read.map(|read| {
        let ids = read.ids.clone();
        (read, ids)
    })
}

/// What the record files said besides their values: problems, the columns taken, notes.
#[derive(Default)]
struct Said {
    problems: Vec<Problem>,
    columns: Vec<String>,
    notes: Vec<String>,
}

impl Said {
    /// The value of a record file's reading; its problems, the columns it took, the key it was joined on
    /// (when not the parcels' id) and its notes go to the lists.
    fn keep<T>(&mut self, (read, joined): (Read<T>, Option<String>)) -> T {
        self.problems.extend(read.problems);
        self.columns.push(read.columns);
        self.columns.extend(joined);
        self.notes.extend(read.notes);
        read.value
    }
}

/// The received reports the inspections reader keeps for the law to list as met late: none without the
/// inspector's deadline in the rule set.
fn late_reports(rules: &RuleSet, as_of: NaiveDate) -> Option<LateReports> {
    let deadline = rules.inspection_report.as_ref()?;
    Some(LateReports { business_days: deadline.business_days, since: rules.record.met_late_since(as_of) })
}

/// The records that name a system the register does not give their parcel: an event's `system_id` or
/// `replaces`, an inspection's `system_id`. Each is reported at its line; the record still counts for its
/// parcel, naming no system the register knows.
pub(super) fn unknown_systems(
    systems: &Systems,
    events: &[Event],
    inspections: &Inspections,
    history: Option<&Path>,
) -> Vec<Problem> {
    let known = |parcel: usize, id: &str| systems.of(parcel).iter().any(|&i| systems.own_id(i) == Some(id));
    let told = |path: &Path, line: usize, column: &str, id: &str| {
        Problem::new(
            path,
            crate::records::line(path, line),
            format!(
                "{column} {id} is not a system of this row's parcel in the systems layer (its SYSTEM_ID); fix the \
                 id, or add the system to the systems layer"
            ),
        )
    };
    let mut problems = Vec::new();
    for event in events {
        for (column, id) in [("system_id", &event.system), ("replaces", &event.replaces)] {
            if let Some(id) = id.as_deref().filter(|id| !known(event.parcel, id)) {
                problems.push(told(&event.source.path, event.source.line, column, id));
            }
        }
    }
    if let Some(path) = history {
        for named in inspections.named.iter().filter(|n| !known(n.parcel, &n.system)) {
            problems.push(told(path, named.line, "system_id", &named.system));
        }
    }
    problems
}
