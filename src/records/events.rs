//! The event files (CSV or workbook sheets; columns named in `[fields.events]`, `[fields.pump_outs]`,
//! `[fields.samples]`, `[fields.pipes]` or detected): events (`parcel_id,date,event` plus optional columns),
//! pump-outs (`parcel_id,date,hauler_licence`), drainage-pipe samples
//! (`parcel_id,pipe_id,date,fecal_coliform_per_100ml`, optional `other_source`) and the register of known
//! drainage pipes (`parcel_id,pipe_id`, optional `removed`, `treated`). Every row is checked; a bad row names
//! its line and is reported, the rest still count.

use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

use super::columns::{Column, Detect, FieldMap, Role, Spec};
use crate::model::error::Result;
use crate::records::{read_records, Checker, Read, Records, Row};
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
    /// The event's kind, one of the vocabulary's (see [`crate::rules::vocabulary::EVENTS`]).
    pub kind: crate::rules::vocabulary::EventKind,
    /// When it happened.
    pub date: NaiveDate,
    /// Where it was read: file and line.
    pub source: Source,
    /// The optional columns filled in for it.
    pub values: Vec<(&'static str, EventValue)>,
    /// The system it concerns, when the row names one (column `system_id`); `None`: every active system of
    /// the parcel.
    pub system: Option<Arc<str>>,
    /// The system a `system-replaced` event replaces, when the row names it (column `replaces`).
    pub replaces: Option<Arc<str>>,
}

impl Event {
    /// The value of column `name`, if filled in.
    pub fn value(&self, name: &str) -> Option<EventValue> {
        self.values.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

/// The events of the parcel at `parcel` in `events` (sorted by parcel, as the pipeline keeps them).
pub fn events_of(events: &[Event], parcel: usize) -> &[Event] {
    let start = events.partition_point(|e| e.parcel < parcel);
    let end = events.partition_point(|e| e.parcel <= parcel);
    &events[start..end]
}

/// Where a record was read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    /// The file.
    pub path: Arc<Path>,
    /// The line its row starts on (the header is line 1).
    pub line: usize,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self
            .path
            .file_name()
            .map_or_else(|| self.path.display().to_string(), |n| n.to_string_lossy().into());
        write!(f, "{name} {}", super::line(&self.path, self.line))
    }
}

/// The columns of the samples file.
pub const SAMPLE_REQUIRED: [&str; 4] = ["parcel_id", "pipe_id", "date", "fecal_coliform_per_100ml"];

const PARCEL_ID: Role = Role { name: "parcel_id", aliases: &[], required: true, detect: Detect::ParcelId };

/// The roles of the events file's columns (the optional [`EVENT_COLUMNS`] by their names).
pub fn event_roles() -> Vec<Role> {
    let mut roles = vec![
        PARCEL_ID,
        Role { name: "date", aliases: &[], required: true, detect: Detect::Date(&["date"]) },
        Role { name: "event", aliases: &[], required: true, detect: Detect::Words(&["event", "type"]) },
    ];
    roles.extend(EVENT_COLUMNS.iter().map(|&(name, _)| Role::named(name)));
    roles.extend([
        Role { name: SYSTEM_ID, aliases: &["system"], required: false, detect: Detect::Name },
        Role { name: REPLACES, aliases: &["replaced_system"], required: false, detect: Detect::Name },
    ]);
    roles
}

/// The events file's column naming the system an event concerns (the systems layer's id).
pub const SYSTEM_ID: &str = "system_id";
/// The events file's column naming the system a `system-replaced` event replaces.
pub const REPLACES: &str = "replaces";

/// The roles of the pump-outs file's columns.
pub const PUMP_OUT_SPEC: Spec<'static> = Spec {
    what: "pump-outs",
    key: "pump_outs",
    roles: &[
        PARCEL_ID,
        Role { name: "date", aliases: &[], required: true, detect: Detect::Date(&["pump", "date"]) },
        Role {
            name: "hauler_licence",
            aliases: &["hauler_license", "licence", "license"],
            required: true,
            detect: Detect::Words(&["licen", "hauler"]),
        },
    ],
};

/// The pipe id, named alike in the samples file and the pipe register.
const PIPE_ID: Role =
    Role { name: "pipe_id", aliases: &["pipe"], required: true, detect: Detect::Words(&["pipe", "outfall"]) };

/// The register's column of the day a pipe was removed (Art. V §III.G: "remove the drainage pipe").
const REMOVED: &str = "removed";
/// The register's column of the day treatment of a pipe's flow began ("or treat the flow").
const TREATED: &str = "treated";

/// The roles of the drainage-pipe register's columns.
pub const PIPE_SPEC: Spec<'static> = Spec {
    what: "drainage pipes",
    key: "pipes",
    roles: &[PARCEL_ID, PIPE_ID, Role::named(REMOVED), Role::named(TREATED)],
};

/// The samples file's column of the laboratory's finding that the coliform does not come from the property
/// (Art. V §III.G).
const OTHER_SOURCE: &str = "other_source";

/// The roles of the samples file's columns.
pub const SAMPLE_SPEC: Spec<'static> = Spec {
    what: "samples",
    key: "samples",
    roles: &[
        PARCEL_ID,
        PIPE_ID,
        Role {
            name: "date",
            aliases: &[],
            required: true,
            detect: Detect::Date(&["sampl", "collect", "date"]),
        },
        Role {
            name: "fecal_coliform_per_100ml",
            aliases: &["count", "coliform"],
            required: true,
            detect: Detect::Words(&["coliform", "fecal", "faecal", "cfu"]),
        },
        Role::named(OTHER_SOURCE),
    ],
};

/// One data row's parcel and date, checked (`None` when bad or blank, already reported).
struct Dated {
    line: usize,
    parcel: Option<usize>,
    date: Option<NaiveDate>,
    source: Source,
}

/// Reads the record file at `path` (of the kind `spec` describes), checking each row's `parcel_id` and `date`
/// (not after `as_of`), and keeps what the row reader `make` gives for the file's columns makes of the rest of
/// the row; the row reader reports its own bad cells.
fn each_dated<T, F>(
    path: &Path,
    spec: &Spec<'_>,
    fields: &FieldMap,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
    make: impl Fn(&Records) -> F,
) -> Result<Read<Vec<T>>>
where
    F: FnMut(&mut Checker<'_>, &Row<'_>, Dated) -> Option<T>,
{
    let shared: Arc<Path> = path.into();
    read_records(path, spec, fields, |records, check| {
        let (ids, dates) = (records.column("parcel_id"), records.column("date"));
        let mut finish = make(records);
        let mut kept = Vec::new();
        while let Some(row) = records.next_row(check)? {
            let line = row.line();
            let parcel = check.parcel(line, row.get(ids), position);
            let date = check.date(line, "date", row.get(dates), as_of);
            let source = Source { path: row.sheet().unwrap_or(&shared).clone(), line };
            kept.extend(finish(check, &row, Dated { line, parcel, date, source }));
        }
        Ok(kept)
    })
}

/// Reads the events file (columns named by `fields` or detected): events on or before `as_of`, with their
/// optional columns.
pub fn read_events(
    path: &Path,
    fields: &FieldMap,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<Read<Vec<Event>>> {
    let roles = event_roles();
    let spec = Spec { what: "events", key: "events", roles: &roles };
    debug_assert!(EVENT_COLUMNS.iter().all(|(n, _)| event_column(n).is_some()));
    each_dated(path, &spec, fields, position, as_of, |records| {
        let kinds = records.column("event");
        let (systems, replaced) = (records.column(SYSTEM_ID), records.column(REPLACES));
        let optional: Vec<(&'static str, ColumnKind, Column)> = EVENT_COLUMNS
            .iter()
            .filter_map(|&(name, kind)| Some((name, kind, records.column(name)?)))
            .collect();
        move |check: &mut Checker<'_>, row: &Row<'_>, d: Dated| {
            let line = d.line;
            let written = row.get(kinds);
            let kind = match event_kind(written).filter(|k| !k.derived) {
                Some(k) => Some(k.kind),
                None => {
                    check.report(
                        line,
                        format!("unknown event '{written}'; write one of: {}", file_event_names()),
                    );
                    None
                }
            };
            let mut values = Vec::new();
            for &(name, kind, column) in &optional {
                let text = row.cell(column);
                let value = match kind {
                    ColumnKind::YesNo => check.yes_no(line, name, text).flatten().map(EventValue::YesNo),
                    ColumnKind::Number => check.number(line, name, text).flatten().map(EventValue::Number),
                    // A due date set by an order may lie after the as-of date.
                    ColumnKind::Date => {
                        check.optional_date(line, name, text, None).flatten().map(EventValue::Date)
                    }
                };
                values.extend(value.map(|v| (name, v)));
            }
            let name =
                |column: Option<Column>| Some(row.get(column)).filter(|t| !t.is_empty()).map(Arc::from);
            let (system, replaces) = (name(systems), name(replaced));
            Some(Event {
                parcel: d.parcel?,
                kind: kind?,
                date: d.date?,
                source: d.source,
                values,
                system,
                replaces,
            })
        }
    })
}

/// Reads the pump-outs file as `pump-out` events. A pump-out without a hauler licence is reported and not
/// counted: the law asks for a DEC-licensed hauler.
pub fn read_pump_outs(
    path: &Path,
    fields: &FieldMap,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<Read<Vec<Event>>> {
    each_dated(path, &PUMP_OUT_SPEC, fields, position, as_of, |records| {
        let licences = records.column("hauler_licence");
        move |check: &mut Checker<'_>, row: &Row<'_>, d: Dated| {
            if row.get(licences).is_empty() {
                check.report(
                d.line,
                "no hauler_licence; a pump-out counts only by a DEC-licensed hauler: fill in the licence number",
            );
                return None;
            }
            let kind = crate::rules::vocabulary::PUMP_OUT;
            let source = d.source;
            Some(Event {
                parcel: d.parcel?,
                kind,
                date: d.date?,
                source,
                values: Vec::new(),
                system: None,
                replaces: None,
            })
        }
    })
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
    /// The laboratory's finding, on this sample, that the coliform does not come from the owner's property
    /// or absorption field (`other_source = yes`; blank or unreadable: no such finding).
    pub other_source: bool,
    /// Where it was read.
    pub source: Source,
}

/// Reads the drainage-pipe samples file. An `other_source` cell that is not yes or no is reported and the
/// sample counts without the finding: an unreadable proof proves nothing.
pub fn read_samples(
    path: &Path,
    fields: &FieldMap,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<Read<Vec<Sample>>> {
    each_dated(path, &SAMPLE_SPEC, fields, position, as_of, |records| {
        let (pipes, counts) = (records.column("pipe_id"), records.column(SAMPLE_REQUIRED[3]));
        let other_source = records.column(OTHER_SOURCE);
        move |check: &mut Checker<'_>, row: &Row<'_>, d: Dated| {
            let pipe = row.get(pipes);
            if pipe.is_empty() {
                check.report(d.line, "no pipe_id; fill in the pipe's name so its retests can be matched");
            }
            let count = match check.number(d.line, SAMPLE_REQUIRED[3], row.get(counts)) {
                Some(None) => {
                    check.report(d.line, "no fecal_coliform_per_100ml; fill in the laboratory count");
                    None
                }
                other => other.flatten(),
            };
            let other_source =
                check.yes_no(d.line, OTHER_SOURCE, row.get(other_source)).flatten().unwrap_or(false);
            let pipe = (!pipe.is_empty()).then(|| pipe.to_string())?;
            Some(Sample {
                parcel: d.parcel?,
                pipe,
                date: d.date?,
                count: count?,
                other_source,
                source: d.source,
            })
        }
    })
}

/// A drainage pipe known to be on a parcel, from the register of pipes.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipe {
    /// The parcel's position.
    pub parcel: usize,
    /// The pipe, named as its samples name it.
    pub pipe: String,
    /// The day the pipe was removed, if it was.
    pub removed: Option<NaiveDate>,
    /// The day treatment of its flow began, if it did.
    pub treated: Option<NaiveDate>,
    /// Where it was read.
    pub source: Source,
}

/// Reads the register of drainage pipes (`parcel_id,pipe_id`, optional `removed` and `treated` dates, not
/// after `as_of`): pipes known to be on a parcel whether or not they have been sampled. A bad date is
/// reported and the pipe kept without it: until the register shows the pipe removed or treated, it is
/// neither.
pub fn read_pipes(
    path: &Path,
    fields: &FieldMap,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
) -> Result<Read<Vec<Pipe>>> {
    let shared: Arc<Path> = path.into();
    read_records(path, &PIPE_SPEC, fields, |records, check| {
        let (ids, pipes) = (records.column("parcel_id"), records.column("pipe_id"));
        let (removed, treated) = (records.column(REMOVED), records.column(TREATED));
        let mut kept = Vec::new();
        while let Some(row) = records.next_row(check)? {
            let line = row.line();
            let parcel = check.parcel(line, row.get(ids), position);
            let pipe = row.get(pipes);
            if pipe.is_empty() {
                check.report(line, "no pipe_id; fill in the pipe's name as its samples name it");
                continue;
            }
            let mut dated =
                |column, name| check.optional_date(line, name, row.get(column), Some(as_of)).flatten();
            let (removed, treated) = (dated(removed, REMOVED), dated(treated, TREATED));
            if let Some(parcel) = parcel {
                let source = Source { path: row.sheet().unwrap_or(&shared).clone(), line };
                kept.push(Pipe { parcel, pipe: pipe.to_string(), removed, treated, source });
            }
        }
        Ok(kept)
    })
}
