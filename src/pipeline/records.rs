//! The files read about the parcels once their ids are known: the systems layer and the record files
//! (events, pump-outs, inspections, samples, pipes), each row finding its parcel's position.

use std::path::Path;

use chrono::NaiveDate;

use crate::config::Config;
use crate::crs::{LayerExtent, Screen};
use crate::error::{Problem, Result};
use crate::io::blocks::LayerBlocks;
use crate::io::columns::FieldMap;
use crate::io::events::{read_events, read_pipes, read_pump_outs, read_samples, Event, Pipe, Sample};
use crate::io::field_names;
use crate::io::inspections::{read_inspections, Inspections, LastInspection};
use crate::io::records::Read;
use crate::io::ReadOptions;
use crate::parcels::{system_fields, ParcelIds, SystemJoin, Systems};

use super::{block_size, project_block, BLOCK};

/// A reader of dated parcel events (the events file, the pump-outs file).
type ReadEvents = fn(&Path, &FieldMap, &dyn Fn(&str) -> Option<usize>, NaiveDate) -> Result<Read<Vec<Event>>>;

/// The systems layer joined to the parcels' positions (none for a run without one), with its problems. The
/// layer is read a block at a time; one that must be reprojected comes in one block, as the parcels do.
///
/// Its features are screened as the reference layers' are ([`Screen`]), and where they lie comes back for
/// the cross-check with the parcels (`None` without a systems layer).
pub(super) fn read_systems(
    config: &Config,
    known: &ParcelIds,
) -> Result<(Systems, Vec<Problem>, Option<LayerExtent>)> {
    let Some(path) = &config.layers.systems else {
        return Ok((Systems::default(), Vec::new(), None));
    };
    let (parcel_field, bottom_field) = system_fields(&field_names(path)?, &config.fields, path)?;
    let keep = std::iter::once(&parcel_field).chain(&bottom_field).cloned().collect();
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep: Some(keep) };
    let mut blocks = LayerBlocks::open(path, &options)?;
    let reprojector = config.reprojector(path, blocks.crs())?;
    let block = block_size(&reprojector, BLOCK);
    let (file, fields, crs) = (blocks.path().to_path_buf(), blocks.fields().to_vec(), blocks.crs().clone());
    let mut join = SystemJoin::new(&file, &fields, &parcel_field, bottom_field.as_deref(), known);
    let mut problems = Vec::new();
    let mut extent = LayerExtent::new("systems", &file, &crs);
    let mut screen = Screen::new(&config.crs);
    loop {
        let (features, more) = blocks.next_block(block)?;
        problems.extend(more);
        if features.is_empty() {
            break;
        }
        extent.add_source(&features);
        let (mut features, more) = project_block(&reprojector, &file, &crs, features);
        problems.extend(more);
        problems.extend(screen.screen(&file, &mut features));
        extent.add_working(&features);
        join.add(&features);
    }
    let (systems, more) = join.finish();
    problems.extend(more);
    Ok((systems, problems, Some(extent)))
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
/// position in `known`.
pub(super) fn read_record_files(config: &Config, known: &ParcelIds) -> Result<RecordFiles> {
    let mut said = Said::default();
    let fields = &config.fields;
    let cursor = known.cursor();
    let position = |id: &str| cursor.position(id);
    let mut events = Vec::new();
    for (path, fields, read) in [
        (&config.layers.events, &fields.events, read_events as ReadEvents),
        (&config.layers.pump_outs, &fields.pump_outs, read_pump_outs as ReadEvents),
    ] {
        if let Some(path) = path {
            events.extend(said.keep(read(path, fields, &position, config.as_of)?));
        }
    }
    events.sort_by(|a, b| (a.parcel, a.date, &a.source).cmp(&(b.parcel, b.date, &b.source)));
    // Every inspection date of the parcels with events is kept: an event's clock may close on any of them.
    let mut with_events: Vec<usize> = events.iter().map(|e| e.parcel).collect();
    with_events.dedup();
    let (history, inspections) = match &config.layers.history {
        Some(path) => {
            let read =
                read_inspections(path, &fields.history, known.len(), &position, config.as_of, &with_events)?;
            let mut found: Inspections = said.keep(read);
            (Some(std::mem::take(&mut found.latest)), found)
        }
        None => (None, Inspections::default()),
    };
    let samples = match &config.layers.samples {
        Some(path) => said.keep(read_samples(path, &fields.samples, &position, config.as_of)?),
        None => Vec::new(),
    };
    let pipes = match &config.layers.pipes {
        Some(path) => said.keep(read_pipes(path, &fields.pipes, &position, config.as_of)?),
        None => Vec::new(),
    };
    let Said { problems, columns, notes } = said;
    Ok(RecordFiles { events, history, inspections, samples, pipes, columns, problems, notes })
}

/// What the record files said besides their values: problems, the columns taken, notes.
#[derive(Default)]
struct Said {
    problems: Vec<Problem>,
    columns: Vec<String>,
    notes: Vec<String>,
}

impl Said {
    /// The value of a record file's reading; its problems, the columns it took and its notes go to the lists.
    fn keep<T>(&mut self, read: Read<T>) -> T {
        self.problems.extend(read.problems);
        self.columns.push(read.columns);
        self.notes.extend(read.notes);
        read.value
    }
}
