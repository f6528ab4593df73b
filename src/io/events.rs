//! The event files (CSV): events (`parcel_id,date,event` plus optional columns), pump-outs
//! (`parcel_id,date,hauler_licence`) and drainage-pipe samples
//! (`parcel_id,pipe_id,date,fecal_coliform_per_100ml`). Every row is checked; a bad row names its line and
//! is reported, the rest still count.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use super::records::{Checker, Records};
use crate::error::{Problem, Result};
use crate::rules::vocabulary::{event_column, event_kind, file_event_names, ColumnKind, EVENT_COLUMNS};

/// A value of an optional event column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventValue {
    /// yes or no.
    YesNo(bool),
    /// A number.
    Number(f64),
    /// A date.
    Date(NaiveDate),
}

/// One dated event on a parcel.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The parcel's position.
    pub parcel: usize,
    /// The event kind's canonical name (see [`crate::rules::vocabulary::EVENTS`]).
    pub kind: &'static str,
    /// When it happened.
    pub date: NaiveDate,
    /// Where it was read: file and data row (0-based).
    pub source: Source,
    /// The optional columns filled in for it.
    pub values: Vec<(&'static str, EventValue)>,
}

impl Event {
    /// The value of column `name`, if filled in.
    pub fn value(&self, name: &str) -> Option<EventValue> {
        self.values.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

/// Where a record was read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    /// The file.
    pub path: std::sync::Arc<Path>,
    /// The data row, 0-based (the line is `row + 2`).
    pub row: usize,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self
            .path
            .file_name()
            .map_or_else(|| self.path.display().to_string(), |n| n.to_string_lossy().into());
        write!(f, "{name} line {}", self.row + 2)
    }
}

/// The columns every events file must have.
pub const EVENT_REQUIRED: [&str; 3] = ["parcel_id", "date", "event"];
/// The columns of the pump-outs file.
pub const PUMP_OUT_REQUIRED: [&str; 3] = ["parcel_id", "date", "hauler_licence"];
/// The columns of the samples file.
pub const SAMPLE_REQUIRED: [&str; 4] = ["parcel_id", "pipe_id", "date", "fecal_coliform_per_100ml"];

/// Reads the events file: events on or before `as_of`, with their optional columns.
pub fn read_events(
    path: &Path,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<(Vec<Event>, Vec<Problem>)> {
    let records = Records::read(path, "events", &EVENT_REQUIRED)?;
    let [ids, dates, kinds] = EVENT_REQUIRED.map(|c| records.cells(c));
    let optional: Vec<(&'static str, ColumnKind, Vec<&str>)> = EVENT_COLUMNS
        .iter()
        .filter(|(name, _)| records.has(name))
        .map(|&(name, kind)| (name, kind, records.cells(name)))
        .collect();
    let source_path: std::sync::Arc<Path> = PathBuf::from(path).into();
    let mut check = Checker::new(path);
    let mut events = Vec::new();
    for row in 0..records.len() {
        let parcel = check.parcel(row, ids[row], position);
        let date = check.date(row, "date", dates[row], as_of);
        let kind = match event_kind(kinds[row]).filter(|k| !k.derived) {
            Some(k) => Some(k.name),
            None => {
                check.report(
                    row,
                    format!("unknown event '{}'; write one of: {}", kinds[row], file_event_names()),
                );
                None
            }
        };
        let mut values = Vec::new();
        for (name, kind, cells) in &optional {
            let text = cells[row];
            let value = match kind {
                ColumnKind::YesNo => check.yes_no(row, name, text).flatten().map(EventValue::YesNo),
                ColumnKind::Number => check.number(row, name, text).flatten().map(EventValue::Number),
                // A due date set by an order may lie after the as-of date.
                ColumnKind::Date => {
                    check.optional_date(row, name, text, None).flatten().map(EventValue::Date)
                }
            };
            values.extend(value.map(|v| (*name, v)));
        }
        if let (Some(parcel), Some(date), Some(kind)) = (parcel, date, kind) {
            let source = Source { path: source_path.clone(), row };
            events.push(Event { parcel, kind, date, source, values });
        }
    }
    debug_assert!(EVENT_COLUMNS.iter().all(|(n, _)| event_column(n).is_some()));
    Ok((events, check.problems))
}

/// Reads the pump-outs file as `pump-out` events. A pump-out without a hauler licence is reported and not
/// counted: the law asks for a DEC-licensed hauler.
pub fn read_pump_outs(
    path: &Path,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<(Vec<Event>, Vec<Problem>)> {
    let records = Records::read(path, "pump-outs", &PUMP_OUT_REQUIRED)?;
    let [ids, dates, licences] = PUMP_OUT_REQUIRED.map(|c| records.cells(c));
    let source_path: std::sync::Arc<Path> = PathBuf::from(path).into();
    let mut check = Checker::new(path);
    let mut events = Vec::new();
    for row in 0..records.len() {
        let parcel = check.parcel(row, ids[row], position);
        let date = check.date(row, "date", dates[row], as_of);
        if licences[row].is_empty() {
            check.report(
                row,
                "no hauler_licence; a pump-out counts only by a DEC-licensed hauler: fill in the licence number",
            );
            continue;
        }
        if let (Some(parcel), Some(date)) = (parcel, date) {
            let source = Source { path: source_path.clone(), row };
            events.push(Event {
                parcel,
                kind: crate::rules::vocabulary::PUMP_OUT,
                date,
                source,
                values: Vec::new(),
            });
        }
    }
    Ok((events, check.problems))
}

/// One fecal-coliform sample of a drainage pipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The parcel's position.
    pub parcel: usize,
    /// The pipe, as the owner or inspector names it.
    pub pipe: String,
    /// Sampling date.
    pub date: NaiveDate,
    /// Fecal coliform per 100 mL.
    pub count: f64,
    /// Where it was read.
    pub source: Source,
}

/// Reads the drainage-pipe samples file.
pub fn read_samples(
    path: &Path,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<(Vec<Sample>, Vec<Problem>)> {
    let records = Records::read(path, "samples", &SAMPLE_REQUIRED)?;
    let [ids, pipes, dates, counts] = SAMPLE_REQUIRED.map(|c| records.cells(c));
    let source_path: std::sync::Arc<Path> = PathBuf::from(path).into();
    let mut check = Checker::new(path);
    let mut samples = Vec::new();
    for row in 0..records.len() {
        let parcel = check.parcel(row, ids[row], position);
        let date = check.date(row, "date", dates[row], as_of);
        if pipes[row].is_empty() {
            check.report(row, "no pipe_id; fill in the pipe's name so its retests can be matched");
        }
        let count = match check.number(row, SAMPLE_REQUIRED[3], counts[row]) {
            Some(None) => {
                check.report(row, "no fecal_coliform_per_100ml; fill in the laboratory count");
                None
            }
            other => other.flatten(),
        };
        if let (Some(parcel), Some(date), Some(count), false) = (parcel, date, count, pipes[row].is_empty()) {
            let source = Source { path: source_path.clone(), row };
            samples.push(Sample { parcel, pipe: pipes[row].to_string(), date, count, source });
        }
    }
    Ok((samples, check.problems))
}
