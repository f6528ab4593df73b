//! The record files arranged by parcel position, so that each parcel's obligations are found from its row
//! alone, in any order and a block of rows at a time.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;
use rayon::prelude::*;

use crate::law::schedule::Row;
use crate::model::error::Problem;
use crate::records::events::{events_of, Event, Pipe, Sample, Source};
use crate::records::inspections::{PendingReport, Report};
use crate::rules::calendar::add_business_days;
use crate::rules::vocabulary::{
    EventKind, CONDITION_BREACH, FAILED_INSPECTION, HEARING_SUMMONS, ILLEGALLY_INSTALLED, INSPECTION,
    INTERIM_RENEWAL, NOT_FUNCTIONING, PERMIT_ISSUED, REPAIR_ORDER,
};
use crate::rules::{Party, RuleSet, Text};

use super::{order, Obligation, ObligationKind, Records, Trigger};
use crate::law::clocks::{clock_obligations, ParcelEvents};
use crate::law::periodic::periodic_obligation;
use crate::law::permits::{permit_obligations, PermitCase};
use crate::law::pipes::{pipe_state, pipes_due, PipeSample, PipeState, PipesDue, Remedy, RemedyKind};

/// The record files arranged by parcel position, so that each parcel's obligations are found from its row
/// alone, parcels in any order: [`collect`](super::collect) runs it over a whole run, `lakeshore obligations --format csv`
/// over each block of rows as the pipeline hands it out, keeping nothing of the rows.
///
/// A parcel's obligations are found in one order whichever way: its periodic inspection, its permit's
/// obligations, its event clocks, the reports its inspectors owe, its pipes' samples, its pipes' periodic
/// inspection; then sorted by due date and kind ([`collect`](super::collect)'s order).
#[derive(Debug)]
pub struct ByParcel {
    rules: Arc<RuleSet>,
    as_of: NaiveDate,
    history_path: Option<Arc<Path>>,
    /// The run's events with the events the inspections file stands for (each inspection of a parcel with
    /// events; the latest findings of failure, not adequately functioning, illegally installed), by parcel
    /// and date.
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

/// The obligations found for some parcels, each parcel's together and in [`collect`](super::collect)'s order, with the
/// problems and notes found on the way.
#[derive(Debug, Default)]
pub struct Found {
    /// The obligations, parcel after parcel in the order the rows came.
    pub obligations: Vec<Obligation>,
    /// For each obligation, the index of its parcel's row among the rows given.
    pub rows: Vec<usize>,
    /// Events whose conditions cannot be checked.
    pub problems: Vec<Problem>,
    /// Pipes and samples on parcels that do not border; [`ByParcel::notes`] puts them in order.
    pub notes: ParcelNotes,
}

impl Found {
    /// Appends `other`'s obligations, problems and notes, its row indexes moved on by `rows` (the number of
    /// rows before `other`'s).
    fn append(&mut self, other: Found, rows: usize) {
        self.obligations.extend(other.obligations);
        self.rows.extend(other.rows.into_iter().map(|i| i + rows));
        self.problems.extend(other.problems);
        self.notes.append(other.notes);
    }
}

/// Notes on records that set no obligation, each with the position of its parcel, so that parcels found in
/// any order give the notes of [`collect`](super::collect) in its order.
#[derive(Debug, Default)]
pub struct ParcelNotes {
    /// Pipes sampled on parcels that do not border the mean-high-water mark.
    samples: Vec<(usize, String)>,
    /// Pipes on the register of parcels that do not border it.
    register: Vec<(usize, String)>,
    /// Records of parcels the law does not reach.
    scope: Vec<(usize, String)>,
}

impl ParcelNotes {
    /// Adds the notes of other parcels.
    pub fn append(&mut self, other: ParcelNotes) {
        self.samples.extend(other.samples);
        self.register.extend(other.register);
        self.scope.extend(other.scope);
    }
}

impl ByParcel {
    /// The `records` a run read, arranged by parcel, for the obligations under `rules` on `as_of`.
    pub fn new(records: &Records<'_>, rules: &Arc<RuleSet>, as_of: NaiveDate) -> Self {
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
            as_of,
            history_path: records.history_path.cloned(),
            events: with_failed_inspections(records),
            pending,
            samples,
            register,
            unused: unused_events(records.events, rules),
            rules: Arc::clone(rules),
        }
    }

    /// The rule set the obligations are found under.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The obligations of the parcels of `rows` (each at its position [`Row::at`], in any order), with
    /// `reports` each parcel's latest received report by position ([`Inspections::reports`](crate::records::inspections::Inspections::reports)). The rows are
    /// shared out among all cores.
    pub fn rows(&self, rows: &[Row], reports: &[Option<Box<Report>>]) -> Found {
        const PIECE: usize = 1024;
        let pieces: Vec<Found> = rows
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
    /// received report) to `found`, in [`collect`](super::collect)'s order.
    fn parcel(&self, index: usize, row: &Row, report: Option<&Report>, found: &mut Found) {
        let at = row.at;
        let events = events_of(&self.events, at);
        if let Some(why) = row.entry.out_of_scope() {
            self.out_of_scope(row, why, events, &mut found.notes);
            return;
        }
        let events = &*left_behind(events, row);
        let first = found.obligations.len();
        let out = &mut found.obligations;
        periodic_obligation(at, row, out);
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
            permit_obligations(&self.rules, &case, self.as_of, out);
        }
        let input = ParcelEvents { parcel: at, events };
        out.extend(clock_obligations(&self.rules, &input, self.as_of, &mut found.problems));
        self.inspection_reports(at, out);
        self.pipe_obligations(row, out, &mut found.notes);
        self.pipe_inspections(row, out, &mut found.notes);
        out[first..].sort_by_key(order);
        found.rows.resize(out.len(), index);
    }

    /// The notes of [`collect`](super::collect) from the notes found for all the parcels: the samples', the
    /// register's, the records of parcels out of the law's scope (each by parcel, in the order found within a
    /// parcel), then the kinds of event no obligation follows from.
    pub fn notes(&self, notes: ParcelNotes) -> Vec<String> {
        let ParcelNotes { mut samples, mut register, mut scope } = notes;
        for notes in [&mut samples, &mut register, &mut scope] {
            notes.sort_by_key(|(at, _)| *at);
        }
        let mut lines: Vec<String> =
            samples.into_iter().chain(register).chain(scope).map(|(_, note)| note).collect();
        lines.extend(self.unused.clone());
        lines
    }

    /// Notes the records of a parcel the law does not reach (`why`: on public sewer, outside the county) that
    /// would otherwise have set an obligation: its events that start a clock, its drainage-pipe samples and
    /// register entries, its reports owed. No duty of the law follows from them (Art. V §I.B, §I.C.2; Ch. 56
    /// §102): not the transfer duties, not a permit, not a letter.
    fn out_of_scope(&self, row: &Row, why: &str, events: &[Event], notes: &mut ParcelNotes) {
        let at = row.at;
        let law = &self.rules.jurisdiction.law;
        let mut records: Vec<String> = events
            .iter()
            .filter(|e| self.rules.clocks.iter().any(|c| c.starts_on(e.kind)))
            .map(|e| format!("{} {} ({})", e.kind, e.date, e.source))
            .collect();
        let samples = of_parcel(&self.samples, at, |s| s.parcel);
        records.extend(samples.first().map(|s| format!("drainage-pipe samples ({})", s.source)));
        let register = of_parcel(&self.register, at, |p| p.parcel);
        records.extend(register.first().map(|p| format!("drainage pipes on the register ({})", p.source)));
        let owed = of_parcel(&self.pending, at, |p| p.parcel).iter().any(|p| p.received.is_none());
        records.extend(owed.then(|| "inspection reports not yet received".to_string()));
        if !records.is_empty() {
            notes.scope.push((
                at,
                format!(
                    "parcel {} is {why}, so {law} does not apply to it ({}): {} set no obligation",
                    row.parcel.id,
                    row.entry.citation,
                    records.join(", ")
                ),
            ));
        }
    }

    /// The completed inspections of the parcel at `at` whose reports the inspector still owes.
    fn inspection_reports(&self, at: usize, out: &mut Vec<Obligation>) {
        let Some(report_rules) = &self.rules.inspection_report else { return };
        for pending in of_parcel(&self.pending, at, |p| p.parcel) {
            let due = add_business_days(pending.date, report_rules.business_days);
            // A report received by its deadline owes nothing; one received after it stays on the record,
            // met late, for the years the rule set keeps.
            let late =
                pending.received.filter(|&on| on > due && on >= self.rules.record.met_late_since(self.as_of));
            if pending.received.is_some() && late.is_none() {
                continue;
            }
            let name = (!pending.inspector.is_empty()).then(|| Text::new(&pending.inspector));
            out.push(Obligation {
                parcel: pending.parcel,
                kind: ObligationKind::INSPECTION_REPORT,
                what: Cow::Owned(format!(
                    "submit the completed inspection of {} to the Health Department ({} business days)",
                    pending.date, report_rules.business_days
                )),
                who: Party::Inspector(name),
                trigger: Trigger::Inspection,
                since: Some(pending.date),
                due: Some(due),
                overdue: late.is_none() && due < self.as_of,
                corrected: late,
                detail: late.map(|on| format!("met late: due {due}, received {on}")),
                citation: report_rules.citation,
                source: self
                    .history_path
                    .as_ref()
                    .map(|p| Source { path: p.clone(), line: pending.line }.to_string()),
            });
        }
    }

    /// The periodic inspection the drainage pipes of the parcel of `row` owe on the as-of date, the one
    /// [`ObligationKind::PIPE_INSPECTION`] lists: `None` when the law does not reach the parcel, the rule set
    /// has no pipe rules, the parcel does not border the mean-high-water mark or it has no pipe on record.
    /// The workload counts these too, so both tell one story.
    pub fn pipe_inspection(&self, row: &Row) -> Option<PipesDue> {
        if row.entry.out_of_scope().is_some() || !borders(row) {
            return None;
        }
        self.pipes_owed(&self.pipes_of(row.at))
    }

    /// The drainage pipes of the parcel at `at` to inspect, each with its last sample (`None`: never
    /// sampled): those its samples name and those on the pipes register, less those the register shows
    /// removed (no longer there to inspect), in order of pipe name.
    fn pipes_of(&self, at: usize) -> Vec<(&str, Option<NaiveDate>)> {
        let register = of_parcel(&self.register, at, |p| p.parcel);
        let mut pipes: Vec<(&str, Option<NaiveDate>)> = of_parcel(&self.samples, at, |s| s.parcel)
            .iter()
            .map(|s| (s.pipe.as_str(), Some(s.date)))
            .chain(register.iter().map(|p| (p.pipe.as_str(), None)))
            .collect();
        pipes.sort_unstable();
        // Per pipe, the last sample (the sort puts it last in each run, after a register entry).
        pipes.reverse();
        pipes.dedup_by(|a, b| a.0 == b.0);
        pipes.reverse();
        pipes.retain(|(pipe, _)| !register.iter().any(|p| p.pipe == *pipe && p.removed.is_some()));
        pipes
    }

    /// The inspection owed by a bordering parcel's `pipes` ([`Self::pipes_of`]); `None` without a pipe.
    fn pipes_owed(&self, pipes: &[(&str, Option<NaiveDate>)]) -> Option<PipesDue> {
        let rules = self.rules.drainage_pipes.as_ref()?;
        let last: Vec<Option<NaiveDate>> = pipes.iter().map(|p| p.1).collect();
        let rolls = self.rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
        pipes_due(rules, &last, self.as_of, rolls)
    }

    /// The periodic inspection of the drainage pipes of the parcel of `row` when it borders (Art. V §IV.A.1
    /// ¶1: "systems and all drainage pipes ... every two years"), on the rule set's pipe grid whatever tier
    /// the system is on ([`Self::pipe_inspection`]). A parcel's pipes are those its samples name and those on
    /// the pipes register, less those the register shows removed; the pipe sampled least recently (or never)
    /// decides whether the last due date was met. The register's pipes of a parcel that does not border are
    /// noted.
    fn pipe_inspections(&self, row: &Row, out: &mut Vec<Obligation>, notes: &mut ParcelNotes) {
        let Some(rules) = &self.rules.drainage_pipes else { return };
        let parcel = row.at;
        if !borders(row) {
            for pipe in of_parcel(&self.register, parcel, |p| p.parcel) {
                notes.register.push((parcel, format!(
                    "{}: parcel {} does not border the mean-high-water mark; {} covers drainage pipes on bordering parcels only, so pipe {} owes no periodic inspection",
                    pipe.source, row.parcel.id, rules.inspection_citation, pipe.pipe
                )));
            }
            return;
        }
        let pipes = self.pipes_of(parcel);
        let Some(owed) = self.pipes_owed(&pipes) else { return };
        let sampled: Vec<String> = pipes
            .iter()
            .map(|(pipe, on)| match on {
                Some(on) => format!("{pipe} last sampled {on}"),
                None => format!("{pipe} never sampled"),
            })
            .collect();
        out.push(Obligation::on_schedule(
            (parcel, ObligationKind::PIPE_INSPECTION),
            format!(
                "periodic inspection of the drainage pipes by a county inspector, fecal coliform tested by a certified laboratory (every {} years)",
                rules.inspection_cycle_years
            ),
            (owed.since, owed.due, owed.overdue),
            Some(format!("status {}; {}", owed.status.as_str(), sampled.join(", "))),
            rules.inspection_citation,
        ));
    }

    /// The retests and violations of the drainage pipes sampled on the parcel of `row` when it borders
    /// (§III.G), each pipe's samples read with what the register says was done about it; the sampled pipes
    /// of a parcel that does not border are noted. A violation stays listed until the pipe is removed or its
    /// flow treated, or a sample carries the laboratory's proof of another source.
    fn pipe_obligations(&self, row: &Row, out: &mut Vec<Obligation>, notes: &mut ParcelNotes) {
        let Some(rules) = &self.rules.drainage_pipes else { return };
        let samples = of_parcel(&self.samples, row.at, |s| s.parcel);
        let register = of_parcel(&self.register, row.at, |p| p.parcel);
        for pipe in samples.chunk_by(|a, b| a.pipe == b.pipe) {
            let first = &pipe[0];
            if !borders(row) {
                notes.samples.push((row.at, format!(
                    "{}: parcel {} does not border the mean-high-water mark; {} covers drainage pipes on bordering parcels only, so pipe {} sets no obligation",
                    first.source, row.parcel.id, rules.citation, first.pipe
                )));
                continue;
            }
            let mut tested: Vec<PipeSample> = pipe
                .iter()
                .map(|s| PipeSample { date: s.date, count: s.count, other_source: s.other_source })
                .collect();
            // Within a day the proof comes last, so that it answers an exceedance of the same day.
            tested.sort_by_key(|s| (s.date, s.other_source));
            let source = Some(format!("{} (pipe {})", first.source, first.pipe));
            let limit = rules.limit_per_100ml;
            let roll = self.rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
            let remedy = remedy_of(register, &first.pipe);
            let obligation = match pipe_state(rules, &tested, remedy, self.as_of, roll) {
                Some(PipeState::RetestOpen { exceeded, until, taken }) => Obligation {
                    parcel: first.parcel,
                    kind: ObligationKind::PIPE_RETEST,
                    what: Cow::Owned(format!(
                        "pipe {}: {} more of {} retest samples by {until}, averaging below {limit} fecal coliform per 100 mL, or laboratory samples proving the coliform does not come from the property; otherwise remove the pipe or treat its flow",
                        first.pipe, rules.retest_samples - taken, rules.retest_samples
                    )),
                    who: Party::Owner,
                    trigger: Trigger::Sample,
                    since: Some(exceeded),
                    due: Some(until),
                    overdue: false,
                    corrected: None,
                    detail: Some(format!("{taken} retest{} taken", if taken == 1 { "" } else { "s" })),
                    citation: rules.citation,
                    source,
                },
                Some(PipeState::Violation { exceeded, established, taken, average, later }) => {
                    let mut detail = match average {
                        Some(avg) => format!("retest average {avg:.1} per 100 mL, not below {limit}"),
                        None => format!(
                            "{taken} of {} retests within {} days (window closed {established})",
                            rules.retest_samples, rules.retest_days
                        ),
                    };
                    match later {
                        0 => {}
                        1 => detail.push_str("; a later sample does not end it"),
                        n => detail.push_str(&format!("; {n} later samples do not end it")),
                    }
                    Obligation {
                        parcel: first.parcel,
                        kind: ObligationKind::PIPE_VIOLATION,
                        what: Cow::Owned(format!(
                            "pipe {}: remove the drainage pipe or treat its flow, unless laboratory samples prove the coliform does not come from the property",
                            first.pipe
                        )),
                        who: Party::Owner,
                        trigger: Trigger::Sample,
                        since: Some(exceeded),
                        due: Some(established),
                        overdue: established < self.as_of,
                        corrected: None,
                        detail: Some(detail),
                        citation: rules.citation,
                        source,
                    }
                }
                _ => continue,
            };
            out.push(obligation);
        }
    }
}

/// What the `register` rows of a parcel say was last done about its pipe `pipe`: the latest removal or
/// treatment on record (removal first on the same day: the pipe is gone). Everything sampled up to it has
/// ended, whichever it was.
fn remedy_of(register: &[Pipe], pipe: &str) -> Option<Remedy> {
    register
        .iter()
        .filter(|p| p.pipe == pipe)
        .flat_map(|p| {
            [(RemedyKind::Removed, p.removed), (RemedyKind::Treated, p.treated)]
                .map(|(kind, on)| on.map(|on| Remedy { kind, on }))
        })
        .flatten()
        .max_by_key(|r| (r.on, r.kind))
}

/// The parcel's `events` without the findings its systems in service left behind: an inspection's finding of
/// failure, of a system not adequately functioning or illegally installed, dated before every system of the
/// row in service began a life permitted before its construction ([`Entry::new_life`](crate::law::schedule::Entry::new_life)), was made on the
/// system it replaced (Art. V §VII.A.1, §III.B; Ch. 56 §301.1), as the row's class and permit read it.
fn left_behind<'a>(events: &'a [Event], row: &Row) -> Cow<'a, [Event]> {
    let entries =
        std::iter::once(&row.entry).chain(row.systems.iter().filter_map(|l| l.own.as_ref()).map(|o| &o.1));
    let Some(since) =
        entries.map(|e| e.new_life.unwrap_or(NaiveDate::MIN)).min().filter(|&d| d > NaiveDate::MIN)
    else {
        return Cow::Borrowed(events);
    };
    let findings = [FAILED_INSPECTION, NOT_FUNCTIONING, ILLEGALLY_INSTALLED];
    let old = |e: &Event| e.date < since && findings.contains(&e.kind);
    if !events.iter().any(old) {
        return Cow::Borrowed(events);
    }
    Cow::Owned(events.iter().filter(|e| !old(e)).cloned().collect())
}

/// The records of the parcel at `at` in `sorted` (sorted by parcel, as `parcel` gives it).
fn of_parcel<T>(sorted: &[T], at: usize, parcel: impl Fn(&T) -> usize) -> &[T] {
    let start = sorted.partition_point(|t| parcel(t) < at);
    let end = start + sorted[start..].partition_point(|t| parcel(t) <= at);
    &sorted[start..end]
}

/// Whether the parcel of `row` borders the mean-high-water mark, as classification found.
fn borders(row: &Row) -> bool {
    row.facts.as_ref().is_some_and(|f| f.borders_mhw)
}

/// The note on the kinds of `events` that neither start, close nor replace a start of a clock of `rules`, nor
/// bear on a permit under it; `None` when every kind does.
fn unused_events(events: &[Event], rules: &RuleSet) -> Option<String> {
    let mut kinds: Vec<&str> = events
        .iter()
        .map(|e| e.kind)
        .filter(|&k| !rules.clocks.iter().any(|c| c.bears_on(k)))
        .filter(|k| {
            rules.permits.is_none()
                || ![INTERIM_RENEWAL, CONDITION_BREACH, REPAIR_ORDER, HEARING_SUMMONS, PERMIT_ISSUED]
                    .contains(k)
        })
        .map(EventKind::as_str)
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    (!kinds.is_empty()).then(|| {
        format!("events that set no obligation under {}: {}", rules.jurisdiction.law, kinds.join(", "))
    })
}

/// The run's events plus the events the inspections file stands for, sorted by parcel and date: an
/// `inspection` event for each inspection of a parcel with events, and, from each parcel's latest findings
/// (each dated by its inspection and sourced to its line), a `failed-inspection` event when they show
/// failure, a `not-functioning` event when the system was found not adequately functioning and an
/// `illegally-installed` event when it was determined illegally installed.
fn with_failed_inspections(records: &Records<'_>) -> Vec<Event> {
    let mut events = records.events.to_vec();
    if let Some(path) = records.history_path {
        let found = |kind: EventKind, parcel: usize, date: NaiveDate, line: usize| Event {
            parcel,
            kind,
            date,
            source: Source { path: path.clone(), line },
            values: Vec::new(),
            system: None,
            replaces: None,
        };
        let inspections = records.inspections;
        events.extend(
            inspections.dated.iter().map(|&(parcel, date, line)| found(INSPECTION, parcel, date, line)),
        );
        let failed = inspections.reports.iter().enumerate().filter_map(|(at, report)| {
            let report = report.as_ref().filter(|r| r.findings.failure)?;
            Some(found(FAILED_INSPECTION, at, report.date, report.line))
        });
        events.extend(failed);
        // (kind, findings, the value that owes it)
        let flags = [
            (NOT_FUNCTIONING, &inspections.functioning, false),
            (ILLEGALLY_INSTALLED, &inspections.illegally_installed, true),
        ];
        for (kind, latest, owes) in flags {
            events.extend(latest.iter().enumerate().filter_map(|(at, finding)| {
                let finding = finding.filter(|f| f.value == owes)?;
                Some(found(kind, at, finding.date, finding.line))
            }));
        }
    }
    events.sort_by(|a, b| (a.parcel, a.date, &a.source).cmp(&(b.parcel, b.date, &b.source)));
    events
}

#[cfg(test)]
mod tests;
