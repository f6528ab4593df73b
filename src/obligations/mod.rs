//! What each parcel owes next and by when: the periodic inspection, the permit that follows an inspection,
//! reports inspectors owe, drainage-pipe retests and violations, and the rule set's event clocks.
//!
//! Everything here is computed from the rows of a finished schedule (each with its entry, facts and permit),
//! the record files the run read and the rule set; the rule set decides which obligations exist at all
//! (Gorham's has no periodic cycle or permits but has its event clocks; Cayuga's has both). The pipeline
//! hands them over; nothing here knows how the run was made.

mod clocks;
pub mod pipes;

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;
use rayon::prelude::*;

pub use clocks::{clock_obligations, ParcelEvents};
use pipes::grid_due;
pub use pipes::{pipe_state, pipes_due, PipeState, PipesDue};

use crate::calendar::{add_business_days, add_years};
use crate::error::Problem;
use crate::io::events::{events_of, Event, EventValue, Pipe, Sample, Source};
use crate::io::inspections::{Inspections, PendingReport, Report};
use crate::permit::{Class, Permit, PermitKind};
use crate::rules::vocabulary::{
    CONDITION_BREACH, FAILED_INSPECTION, INSPECTION, INTERIM_RENEWAL, PERMIT_ISSUED, REPAIR_ORDER,
};
use crate::rules::RuleSet;
use crate::schedule::Row;

/// One open obligation of a parcel.
#[derive(Debug, Clone, PartialEq)]
pub struct Obligation<'r> {
    /// The parcel's position in the run's rows.
    pub parcel: usize,
    /// What kind of obligation: a clock id of the rule set, or a built-in one (`periodic-inspection`,
    /// `pipe-inspection`, `permit-renewal`, `permit-term`, `interim-renewal`, `interim-not-renewable`,
    /// `system-location`, `repair-order`, `holding-tank-review`, `floodplain-elevation`, `inspection-report`,
    /// `pipe-retest`, `pipe-violation`).
    pub id: &'r str,
    /// What is owed.
    pub what: Cow<'r, str>,
    /// Who owes it.
    pub who: Cow<'r, str>,
    /// What started it: an event kind, `schedule`, `inspection` or `sample`.
    pub trigger: &'r str,
    /// When it started.
    pub since: Option<NaiveDate>,
    /// When it is due; `None` where the law sets no time.
    pub due: Option<NaiveDate>,
    /// Whether the due date has passed with the obligation still open (a due date equal to the as-of date is
    /// not yet late).
    pub overdue: bool,
    /// A breach corrected late: the day the act came, after the due date (the obligation is no longer open;
    /// it stays listed so the breach shows with both dates).
    pub corrected: Option<NaiveDate>,
    /// Further particulars (counts, fines, measurements).
    pub detail: Option<String>,
    /// The law's citation.
    pub citation: Cow<'r, str>,
    /// The record it comes from ("events.csv line 4").
    pub source: Option<String>,
}

/// The record files a schedule run read, as the obligations need them; parcels are named by their position in
/// the run's rows.
#[derive(Debug, Clone, Copy)]
pub struct Records<'a> {
    /// The inspections file, when given (obligations from it name its rows).
    pub history_path: Option<&'a Arc<Path>>,
    /// What the inspections file says beyond each parcel's latest inspection (which is in its entry).
    pub inspections: &'a Inspections,
    /// Events and pump-outs, sorted by parcel position and date.
    pub events: &'a [Event],
    /// Drainage-pipe samples, in file order.
    pub samples: &'a [Sample],
    /// The register of known drainage pipes, in file order.
    pub pipes: &'a [Pipe],
}

/// Every open obligation of every parcel of `rows` on `as_of`, from the rows and the `records` the run read,
/// sorted by parcel, due date and kind; plus problems found on the way (events whose conditions cannot be
/// checked) and notes (records that set no obligation under this rule set). Row `i` is the parcel at position
/// `i`, as in a whole run's rows.
///
/// Every obligation belongs to one parcel and is found from that parcel's row and records alone, so the rows
/// may as well come a block at a time: this is [`ByParcel`] run over all of them.
pub fn collect<'r>(
    rows: &[Row<'r>],
    records: &Records<'_>,
    rules: &'r RuleSet,
    as_of: NaiveDate,
) -> (Vec<Obligation<'r>>, Vec<Problem>, Vec<String>) {
    let by_parcel = ByParcel::new(records, rules, as_of);
    let found = by_parcel.rows(rows, &records.inspections.reports);
    let notes = by_parcel.notes(found.notes);
    (found.obligations, found.problems, notes)
}

/// The order of the obligations: by parcel, then due date (those without one last), kind and start. The
/// sort is stable, so obligations equal in all of these keep the order they were found in.
fn order<'o>(o: &'o Obligation<'_>) -> (usize, bool, Option<NaiveDate>, &'o str, Option<NaiveDate>) {
    (o.parcel, o.due.is_none(), o.due, o.id, o.since)
}

/// The record files arranged by parcel position, so that each parcel's obligations are found from its row
/// alone, parcels in any order: [`collect`] runs it over a whole run, `lakeshore obligations --format csv`
/// over each block of rows as the pipeline hands it out, keeping nothing of the rows.
///
/// A parcel's obligations are found in one order whichever way: its periodic inspection, its permit's
/// obligations, its event clocks, the reports its inspectors owe, its pipes' samples, its pipes' periodic
/// inspection; then sorted by due date and kind ([`collect`]'s order).
#[derive(Debug)]
pub struct ByParcel<'r> {
    rules: &'r RuleSet,
    as_of: NaiveDate,
    history_path: Option<Arc<Path>>,
    /// The run's events with an event for each inspection and failed inspection, by parcel and date.
    events: Vec<Event>,
    /// Reports not yet received, by parcel (in file order within a parcel); empty when the rule set sets no
    /// deadline for them.
    pending: Vec<PendingReport>,
    /// Drainage-pipe samples by parcel, pipe, date and source; empty when the rule set has no pipe rules.
    samples: Vec<Sample>,
    /// The register of drainage pipes, by parcel (in file order within a parcel); empty when the rule set
    /// has no pipe rules.
    register: Vec<Pipe>,
    /// The note on the kinds of event that set no obligation under the rule set, if any.
    unused: Option<String>,
}

/// The obligations found for some parcels, each parcel's together and in [`collect`]'s order, with the
/// problems and notes found on the way.
#[derive(Debug, Default)]
pub struct Found<'r> {
    /// The obligations, parcel after parcel in the order the rows came.
    pub obligations: Vec<Obligation<'r>>,
    /// For each obligation, the index of its parcel's row among the rows given.
    pub rows: Vec<usize>,
    /// Events whose conditions cannot be checked.
    pub problems: Vec<Problem>,
    /// Pipes and samples on parcels that do not border; [`ByParcel::notes`] puts them in order.
    pub notes: ParcelNotes,
}

impl<'r> Found<'r> {
    /// Appends `other`'s obligations, problems and notes, its row indexes moved on by `rows` (the number of
    /// rows before `other`'s).
    fn append(&mut self, other: Found<'r>, rows: usize) {
        self.obligations.extend(other.obligations);
        self.rows.extend(other.rows.into_iter().map(|i| i + rows));
        self.problems.extend(other.problems);
        self.notes.samples.extend(other.notes.samples);
        self.notes.register.extend(other.notes.register);
    }
}

/// Notes on records that set no obligation, each with the position of its parcel, so that parcels found in
/// any order give the notes of [`collect`] in its order.
#[derive(Debug, Default)]
pub struct ParcelNotes {
    /// Pipes sampled on parcels that do not border the mean-high-water mark.
    samples: Vec<(usize, String)>,
    /// Pipes on the register of parcels that do not border it.
    register: Vec<(usize, String)>,
}

impl ParcelNotes {
    /// Adds the notes of other parcels.
    pub fn append(&mut self, other: ParcelNotes) {
        self.samples.extend(other.samples);
        self.register.extend(other.register);
    }
}

impl<'r> ByParcel<'r> {
    /// The `records` a run read, arranged by parcel, for the obligations under `rules` on `as_of`.
    pub fn new(records: &Records<'_>, rules: &'r RuleSet, as_of: NaiveDate) -> Self {
        let mut pending = match rules.inspection_report {
            Some(_) => records.inspections.pending.clone(),
            None => Vec::new(),
        };
        pending.sort_by_key(|p| p.parcel);
        let (mut samples, mut register) = match rules.drainage_pipes {
            Some(_) => (records.samples.to_vec(), records.pipes.to_vec()),
            None => (Vec::new(), Vec::new()),
        };
        samples.sort_by(|a, b| {
            (a.parcel, &a.pipe, a.date, &a.source).cmp(&(b.parcel, &b.pipe, b.date, &b.source))
        });
        register.sort_by_key(|p| p.parcel);
        ByParcel {
            rules,
            as_of,
            history_path: records.history_path.cloned(),
            events: with_failed_inspections(records),
            pending,
            samples,
            register,
            unused: unused_events(records.events, rules),
        }
    }

    /// The obligations of the parcels of `rows` (each at its position [`Row::at`], in any order), with
    /// `reports` each parcel's latest received report by position ([`Inspections::reports`]). The rows are
    /// shared out among all cores.
    pub fn rows(&self, rows: &[Row<'r>], reports: &[Option<Box<Report>>]) -> Found<'r> {
        const PIECE: usize = 1024;
        let pieces: Vec<Found<'r>> = rows
            .par_chunks(PIECE)
            .map(|piece| {
                let mut found = Found::default();
                for (i, row) in piece.iter().enumerate() {
                    let report = reports.get(row.at).and_then(|r| r.as_deref());
                    self.parcel(i, row, report, &mut found);
                }
                found
            })
            .collect();
        let mut found = Found::default();
        found.obligations.reserve(pieces.iter().map(|p| p.obligations.len()).sum());
        found.rows.reserve(found.obligations.capacity());
        for (k, piece) in pieces.into_iter().enumerate() {
            found.append(piece, k * PIECE);
        }
        found
    }

    /// Adds the obligations of the parcel of `row` (row `index` of the rows given; `report` its latest
    /// received report) to `found`, in [`collect`]'s order.
    fn parcel(&self, index: usize, row: &Row<'r>, report: Option<&Report>, found: &mut Found<'r>) {
        let at = row.at;
        let first = found.obligations.len();
        let out = &mut found.obligations;
        let events = events_of(&self.events, at);
        periodic(at, row, out);
        if let (Some(permit), Some(report)) = (&row.entry.permit, report) {
            let case = PermitCase {
                at,
                row,
                permit,
                report,
                source: self
                    .history_path
                    .as_ref()
                    .map(|p| Source { path: p.clone(), line: report.line }.to_string()),
                events,
            };
            permit_obligations(self.rules, &case, self.as_of, out);
        }
        let input = ParcelEvents { parcel: at, events };
        out.extend(clock_obligations(self.rules, &input, self.as_of, &mut found.problems));
        self.inspection_reports(at, out);
        self.pipe_obligations(row, out, &mut found.notes);
        self.pipe_inspections(row, out, &mut found.notes);
        out[first..].sort_by(|a, b| order(a).cmp(&order(b)));
        found.rows.resize(out.len(), index);
    }

    /// The notes of [`collect`] from the notes found for all the parcels: the samples', the register's (each
    /// by parcel, in the order found within a parcel), then the kinds of event no obligation follows from.
    pub fn notes(&self, notes: ParcelNotes) -> Vec<String> {
        let ParcelNotes { mut samples, mut register } = notes;
        samples.sort_by_key(|(at, _)| *at);
        register.sort_by_key(|(at, _)| *at);
        let mut lines: Vec<String> = samples.into_iter().chain(register).map(|(_, note)| note).collect();
        lines.extend(self.unused.clone());
        lines
    }

    /// The completed inspections of the parcel at `at` whose reports the inspector still owes.
    fn inspection_reports(&self, at: usize, out: &mut Vec<Obligation<'r>>) {
        let Some(report_rules) = &self.rules.inspection_report else { return };
        for pending in of_parcel(&self.pending, at, |p| p.parcel) {
            let due = add_business_days(pending.date, report_rules.business_days);
            let who = if pending.inspector.is_empty() {
                Cow::Borrowed("inspector")
            } else {
                Cow::Owned(format!("inspector {}", pending.inspector))
            };
            out.push(Obligation {
                parcel: pending.parcel,
                id: "inspection-report",
                what: Cow::Owned(format!(
                    "submit the completed inspection of {} to the Health Department ({} business days)",
                    pending.date, report_rules.business_days
                )),
                who,
                trigger: "inspection",
                since: Some(pending.date),
                due: Some(due),
                overdue: due < self.as_of,
                corrected: None,
                detail: None,
                citation: Cow::Borrowed(&report_rules.citation),
                source: self
                    .history_path
                    .as_ref()
                    .map(|p| Source { path: p.clone(), line: pending.line }.to_string()),
            });
        }
    }

    /// The periodic inspection of the drainage pipes of the parcel of `row` when it borders (Art. V §IV.A.1
    /// ¶1: "systems and all drainage pipes ... every two years"), on the rule set's pipe grid whatever tier
    /// the system is on. A parcel's pipes are those its samples name and those on the pipes register; the
    /// pipe sampled least recently (or never) decides whether the last due date was met. The register's pipes
    /// of a parcel that does not border are noted.
    fn pipe_inspections(&self, row: &Row<'r>, out: &mut Vec<Obligation<'r>>, notes: &mut ParcelNotes) {
        let Some(rules) = &self.rules.drainage_pipes else { return };
        let parcel = row.at;
        let register = of_parcel(&self.register, parcel, |p| p.parcel);
        let mut pipes: Vec<(&str, Option<NaiveDate>)> = of_parcel(&self.samples, parcel, |s| s.parcel)
            .iter()
            .map(|s| (s.pipe.as_str(), Some(s.date)))
            .chain(register.iter().map(|p| (p.pipe.as_str(), None)))
            .collect();
        if pipes.is_empty() {
            return;
        }
        pipes.sort_unstable();
        // Per pipe, the last sample (the sort puts it last in each run, after a register entry).
        pipes.reverse();
        pipes.dedup_by(|a, b| a.0 == b.0);
        pipes.reverse();
        if !row.facts.as_ref().is_some_and(|f| f.borders_mhw) {
            for pipe in register {
                notes.register.push((parcel, format!(
                    "{}: parcel {} does not border the mean-high-water mark; {} covers drainage pipes on bordering parcels only, so pipe {} owes no periodic inspection",
                    pipe.source, row.parcel.id, rules.inspection_citation, pipe.pipe
                )));
            }
            return;
        }
        let last: Vec<Option<NaiveDate>> = pipes.iter().map(|p| p.1).collect();
        let rolls = self.rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
        let Some(owed) = pipes_due(rules, &last, self.as_of, rolls) else { return };
        let sampled: Vec<String> = pipes
            .iter()
            .map(|(pipe, on)| match on {
                Some(on) => format!("{pipe} last sampled {on}"),
                None => format!("{pipe} never sampled"),
            })
            .collect();
        out.push(Obligation {
            parcel,
            id: "pipe-inspection",
            what: Cow::Owned(format!(
                "periodic inspection of the drainage pipes by a county inspector, fecal coliform tested by a certified laboratory (every {} years)",
                rules.inspection_cycle_years
            )),
            who: Cow::Borrowed("owner"),
            trigger: "schedule",
            since: owed.previous,
            due: Some(owed.due),
            overdue: owed.overdue,
            corrected: None,
            detail: Some(format!("status {}; {}", owed.status.as_str(), sampled.join(", "))),
            citation: Cow::Borrowed(&rules.inspection_citation),
            source: None,
        });
    }

    /// The retests and violations of the drainage pipes sampled on the parcel of `row` when it borders
    /// (§III.G); the sampled pipes of a parcel that does not border are noted.
    fn pipe_obligations(&self, row: &Row<'r>, out: &mut Vec<Obligation<'r>>, notes: &mut ParcelNotes) {
        let Some(rules) = &self.rules.drainage_pipes else { return };
        let samples = of_parcel(&self.samples, row.at, |s| s.parcel);
        for pipe in samples.chunk_by(|a, b| a.pipe == b.pipe) {
            let first = &pipe[0];
            if !row.facts.as_ref().is_some_and(|f| f.borders_mhw) {
                notes.samples.push((row.at, format!(
                    "{}: parcel {} does not border the mean-high-water mark; {} covers drainage pipes on bordering parcels only, so pipe {} sets no obligation",
                    first.source, row.parcel.id, rules.citation, first.pipe
                )));
                continue;
            }
            let dated: Vec<(NaiveDate, f64)> = pipe.iter().map(|s| (s.date, s.count)).collect();
            let source = Some(format!("{} (pipe {})", first.source, first.pipe));
            let limit = rules.limit_per_100ml;
            let roll = self.rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
            let obligation = match pipe_state(rules, &dated, self.as_of, roll) {
                Some(PipeState::RetestOpen { exceeded, until, taken }) => Obligation {
                    parcel: first.parcel,
                    id: "pipe-retest",
                    what: Cow::Owned(format!(
                        "pipe {}: {} more of {} retest samples by {until}, averaging below {limit} fecal coliform per 100 mL, or remove or treat the discharge",
                        first.pipe, rules.retest_samples - taken, rules.retest_samples
                    )),
                    who: Cow::Borrowed("owner"),
                    trigger: "sample",
                    since: Some(exceeded),
                    due: Some(until),
                    overdue: false,
                    corrected: None,
                    detail: Some(format!("{taken} retest{} taken", if taken == 1 { "" } else { "s" })),
                    citation: Cow::Borrowed(&rules.citation),
                    source,
                },
                Some(PipeState::Violation { exceeded, established, average }) => Obligation {
                    parcel: first.parcel,
                    id: "pipe-violation",
                    what: Cow::Owned(format!(
                        "pipe {}: remove the drainage pipe or treat its flow, unless laboratory samples prove the coliform does not come from the property",
                        first.pipe
                    )),
                    who: Cow::Borrowed("owner"),
                    trigger: "sample",
                    since: Some(exceeded),
                    due: Some(established),
                    overdue: established < self.as_of,
                    corrected: None,
                    detail: Some(match average {
                        Some(avg) => format!("retest average {avg:.1} per 100 mL, not below {limit}"),
                        None => format!("fewer than {} retests within {} days", rules.retest_samples, rules.retest_days),
                    }),
                    citation: Cow::Borrowed(&rules.citation),
                    source,
                },
                _ => continue,
            };
            out.push(obligation);
        }
    }
}

/// The records of the parcel at `at` in `sorted` (sorted by parcel, as `parcel` gives it).
fn of_parcel<T>(sorted: &[T], at: usize, parcel: impl Fn(&T) -> usize) -> &[T] {
    let start = sorted.partition_point(|t| parcel(t) < at);
    let end = start + sorted[start..].partition_point(|t| parcel(t) <= at);
    &sorted[start..end]
}

/// The note on the kinds of `events` that neither start nor close a clock of `rules` nor bear on a permit
/// under it; `None` when every kind does.
fn unused_events(events: &[Event], rules: &RuleSet) -> Option<String> {
    let mut kinds: Vec<&str> = events
        .iter()
        .map(|e| e.kind)
        .filter(|k| !rules.clocks.iter().any(|c| c.starts_on(k) || c.closes_on(k)))
        .filter(|k| {
            rules.permits.is_none()
                || ![INTERIM_RENEWAL, CONDITION_BREACH, REPAIR_ORDER, PERMIT_ISSUED].contains(k)
        })
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    (!kinds.is_empty()).then(|| {
        format!("events that set no obligation under {}: {}", rules.jurisdiction.law, kinds.join(", "))
    })
}

/// The run's events plus an `inspection` event for each inspection of a parcel with events, and a
/// `failed-inspection` event for each parcel whose latest findings show failure, sorted by parcel and date.
fn with_failed_inspections(records: &Records<'_>) -> Vec<Event> {
    let mut events = records.events.to_vec();
    if let Some(path) = records.history_path {
        events.extend(records.inspections.dated.iter().map(|&(parcel, date, line)| Event {
            parcel,
            kind: INSPECTION,
            date,
            source: Source { path: path.clone(), line },
            values: Vec::new(),
        }));
    }
    for (at, report) in records.inspections.reports.iter().enumerate() {
        if let (Some(report), Some(path)) = (report, records.history_path) {
            if report.findings.failure {
                events.push(Event {
                    parcel: at,
                    kind: FAILED_INSPECTION,
                    date: report.date,
                    source: Source { path: path.clone(), line: report.line },
                    values: Vec::new(),
                });
            }
        }
    }
    events.sort_by(|a, b| (a.parcel, a.date, &a.source).cmp(&(b.parcel, b.date, &b.source)));
    events
}

fn periodic<'r>(at: usize, row: &Row<'r>, out: &mut Vec<Obligation<'r>>) {
    let e = &row.entry;
    let (Some(_), Some(cycle), Some(next)) = (e.rule, e.cycle_years, e.next_due) else { return };
    let (due, overdue) = grid_due(e.status, e.previous_due, next);
    out.push(Obligation {
        parcel: at,
        id: "periodic-inspection",
        what: Cow::Owned(format!("periodic inspection and report ({} tier, every {cycle} years)", e.tier)),
        who: Cow::Borrowed("owner"),
        trigger: "schedule",
        since: e.previous_due,
        due: Some(due),
        overdue,
        corrected: None,
        detail: e.status.map(|s| format!("status {}", s.as_str())),
        citation: Cow::Borrowed(e.citation),
        source: None,
    });
}

/// A parcel whose latest findings gave it a class and permit.
struct PermitCase<'a, 'r> {
    at: usize,
    row: &'a Row<'r>,
    permit: &'a Permit,
    report: &'a Report,
    source: Option<String>,
    events: &'a [Event],
}

fn permit_obligations<'r>(
    rules: &'r RuleSet,
    case: &PermitCase<'_, 'r>,
    as_of: NaiveDate,
    out: &mut Vec<Obligation<'r>>,
) {
    let Some(p) = &rules.permits else { return };
    let PermitCase { at, row, permit, events, .. } = *case;
    let report = case.report.date;
    let shortfalls = (!permit.shortfalls.is_empty()).then(|| permit.shortfalls.join("; "));
    // The permit's own obligations run from its start on record, the rest from the inspection; an event that
    // started one (an order, a breach, the permit's issue) gives its date.
    let start = permit.starts.unwrap_or(report);
    let mut push = |id: &'r str,
                    what: String,
                    who: &'r str,
                    due: Option<NaiveDate>,
                    citation: &'r str,
                    (since, by): (NaiveDate, Option<&Event>)| {
        let since = by.map_or(since, |e| e.date);
        out.push(Obligation {
            parcel: at,
            id,
            what: Cow::Owned(what),
            who: Cow::Borrowed(who),
            trigger: by.map_or("inspection", |e| e.kind),
            since: Some(since),
            due,
            overdue: due.is_some_and(|d| d < as_of),
            corrected: None,
            detail: shortfalls.clone(),
            citation: Cow::Borrowed(citation),
            source: by.map_or_else(|| case.source.clone(), |e| Some(e.source.to_string())),
        })
    };
    if permit.floodplain_bar {
        let required = row.facts.as_ref().and_then(|f| f.flood.as_ref()).and_then(|f| f.required_bottom_ft);
        let height = required.map_or_else(
            || "at least 2 ft above the flood elevation".into(),
            |r| format!("at or above {r:.2} ft"),
        );
        let citation = rules.floodplain.as_ref().map_or("", |f| f.citation.as_str());
        push(
            "floodplain-elevation",
            format!("show the absorption-field bottom {height}; no permit may issue until it is"),
            "owner",
            None,
            citation,
            (report, None),
        );
    }
    let issued = events.iter().filter(|e| e.kind == PERMIT_ISSUED && e.date >= report).max_by_key(|e| e.date);
    match (permit.class, permit.kind) {
        (Class::Failed, _) => {
            let order = events.iter().filter(|e| e.kind == REPAIR_ORDER && e.date >= report).max_by_key(|e| e.date);
            match order {
                Some(order) => {
                    let due = match order.value("due_date") {
                        Some(EventValue::Date(d)) => Some(d),
                        _ => None,
                    };
                    push(
                        "repair-order",
                        format!(
                            "repair, alter or modify the failed system as ordered on {}; if not done in time, a Board of Health administrative hearing",
                            order.date
                        ),
                        "owner",
                        due,
                        &p.failed_citation,
                        (report, Some(order)),
                    );
                }
                None => push(
                    "repair-order",
                    "order the repair, alteration or modification of the failed system".into(),
                    "health department",
                    None,
                    &p.failed_citation,
                    (report, None),
                ),
            }
        }
        (_, PermitKind::Undecided) => push(
            "system-location",
            format!(
                "locate the absorption field, or record the distance the inspector measured from it, to show whether it is {} ft from watercourses and wetlands; the class waits for it",
                p.min_watercourse_ft
            ),
            "health department",
            None,
            &p.location_citation,
            (report, None),
        ),
        (_, PermitKind::Discharge) if permit.expires.is_some() => push(
            "permit-renewal",
            "permit to discharge ends: new inspection report and permit".into(),
            "owner",
            permit.expires,
            &p.existing_citation,
            (start, issued),
        ),
        (_, PermitKind::Discharge) => {
            let bound = permit.starts.map_or_else(
                || "from its issue".to_string(),
                |s| format!("from {s}, so ending by {}", add_years(s, p.max_term_years)),
            );
            push(
                "permit-term",
                format!("permit term to be set (at most {} years {bound}) and recorded", p.max_term_years),
                "health department",
                None,
                &p.term_citation,
                (start, None),
            )
        }
        (_, PermitKind::Interim) if permit.renewal_due.is_none() => push(
            "permit-term",
            format!(
                "interim permit term to be set (at least {} year{}) and its date of issue recorded; renewal is applied for annually from it",
                p.interim_min_term_years,
                if p.interim_min_term_years == 1 { "" } else { "s" }
            ),
            "health department",
            None,
            &p.term_citation,
            (start, None),
        ),
        (_, PermitKind::Interim) if permit.renewable => push(
            "interim-renewal",
            "apply to renew the interim permit to discharge".into(),
            "owner",
            permit.renewal_due,
            &p.renewal_citation,
            (start, issued),
        ),
        (_, PermitKind::Interim) => push(
            "interim-not-renewable",
            "interim permit may not be renewed after a breached condition: meet existing standards or replace the system".into(),
            "owner",
            permit.renewal_due,
            &p.renewal_citation,
            (start, events.iter().find(|e| e.kind == CONDITION_BREACH && e.date >= report)),
        ),
        _ => {}
    }
    if permit.class == Class::Substandard && row.facts.as_ref().is_some_and(|f| f.borders_mhw) {
        push(
            "holding-tank-review",
            "substandard system on a lakefront parcel: the Health Department may require a holding tank above high water, with water-use and pump-out records".into(),
            "health department",
            None,
            &p.holding_tank_citation,
            (report, None),
        );
    }
}
