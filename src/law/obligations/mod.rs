//! What each parcel owes next and by when: the periodic inspection, the permit that follows an inspection,
//! reports inspectors owe, drainage-pipe retests and violations, and the rule set's event clocks.
//!
//! Everything here is computed from the rows of a finished schedule (each with its entry, facts and permit),
//! the record files the run read and the rule set; the rule set decides which obligations exist at all
//! (Gorham's has no periodic cycle or permits but has its event clocks; Cayuga's has both). The pipeline
//! hands them over; nothing here knows how the run was made.

mod by_parcel;
mod clocks;
pub mod pipes;

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

pub use by_parcel::{ByParcel, Found, ParcelNotes};
pub use clocks::{clock_obligations, ParcelEvents};
pub use pipes::{pipe_grid, pipe_state, pipes_due, PipeSample, PipeState, PipesDue, Remedy, RemedyKind};

use crate::law::permit::{Class, Permit, PermitKind};
use crate::law::schedule::Row;
use crate::model::error::Problem;
use crate::records::events::{Event, EventValue, Pipe, Sample};
use crate::records::inspections::{Inspections, Report};
use crate::rules::calendar::add_years;
use crate::rules::vocabulary::{CONDITION_BREACH, HEARING_SUMMONS, PERMIT_ISSUED, REPAIR_ORDER};
use crate::rules::{RuleSet, Text};

/// One open obligation of a parcel.
#[derive(Debug, Clone, PartialEq)]
pub struct Obligation {
    /// The parcel's position in the run's rows.
    pub parcel: usize,
    /// What kind of obligation it is.
    pub kind: ObligationKind,
    /// What is owed.
    pub what: Cow<'static, str>,
    /// Who owes it.
    pub who: Cow<'static, str>,
    /// What started it: an event kind, `schedule`, `inspection` or `sample`.
    pub trigger: &'static str,
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
    pub citation: Text,
    /// The record it comes from ("events.csv line 4").
    pub source: Option<String>,
}

/// What kind of obligation a parcel has: one of the rule set's clocks, by its id, or one of the built-in
/// kinds the law's permits, pipes, reports and periodic schedule give. Kinds compare and sort as their text,
/// which the `obligation` column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObligationKind(Text);

impl ObligationKind {
    /// `periodic-inspection`.
    pub const PERIODIC_INSPECTION: Self = ObligationKind(Text::from_static("periodic-inspection"));
    /// `pipe-inspection`.
    pub const PIPE_INSPECTION: Self = ObligationKind(Text::from_static("pipe-inspection"));
    /// `permit-renewal`.
    pub const PERMIT_RENEWAL: Self = ObligationKind(Text::from_static("permit-renewal"));
    /// `permit-term`.
    pub const PERMIT_TERM: Self = ObligationKind(Text::from_static("permit-term"));
    /// `interim-renewal`.
    pub const INTERIM_RENEWAL: Self = ObligationKind(Text::from_static("interim-renewal"));
    /// `interim-not-renewable`.
    pub const INTERIM_NOT_RENEWABLE: Self = ObligationKind(Text::from_static("interim-not-renewable"));
    /// `system-location`.
    pub const SYSTEM_LOCATION: Self = ObligationKind(Text::from_static("system-location"));
    /// `repair-order`.
    pub const REPAIR_ORDER: Self = ObligationKind(Text::from_static("repair-order"));
    /// `board-of-health-hearing`.
    pub const BOARD_OF_HEALTH_HEARING: Self = ObligationKind(Text::from_static("board-of-health-hearing"));
    /// `holding-tank-review`.
    pub const HOLDING_TANK_REVIEW: Self = ObligationKind(Text::from_static("holding-tank-review"));
    /// `floodplain-elevation`.
    pub const FLOODPLAIN_ELEVATION: Self = ObligationKind(Text::from_static("floodplain-elevation"));
    /// `inspection-report`.
    pub const INSPECTION_REPORT: Self = ObligationKind(Text::from_static("inspection-report"));
    /// `pipe-retest`.
    pub const PIPE_RETEST: Self = ObligationKind(Text::from_static("pipe-retest"));
    /// `pipe-violation`.
    pub const PIPE_VIOLATION: Self = ObligationKind(Text::from_static("pipe-violation"));
}

impl ObligationKind {
    /// The kind of the rule set's clock `id`.
    pub fn clock(id: Text) -> Self {
        ObligationKind(id)
    }

    /// The kind's text: the clock's id, or the built-in kind's name.
    pub fn as_str(self) -> &'static str {
        self.0.as_str()
    }
}

impl fmt::Display for ObligationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
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
pub fn collect(
    rows: &[Row],
    records: &Records<'_>,
    rules: &Arc<RuleSet>,
    as_of: NaiveDate,
) -> (Vec<Obligation>, Vec<Problem>, Vec<String>) {
    let by_parcel = ByParcel::new(records, rules, as_of);
    let found = by_parcel.rows(rows, &records.inspections.reports);
    let notes = by_parcel.notes(found.notes);
    (found.obligations, found.problems, notes)
}

/// The order of the obligations: by parcel, then due date (those without one last), kind and start. The
/// sort is stable, so obligations equal in all of these keep the order they were found in.
fn order(o: &Obligation) -> (usize, bool, Option<NaiveDate>, ObligationKind, Option<NaiveDate>) {
    (o.parcel, o.due.is_none(), o.due, o.kind, o.since)
}

/// The periodic inspection the row's parcel owes, as its entry's [`Owed`](crate::law::schedule::Owed) says: the
/// schedule's own reading, never a second one.
fn periodic(at: usize, row: &Row, out: &mut Vec<Obligation>) {
    let e = &row.entry;
    let (Some(_), Some(cycle), Some(owed)) = (e.rule, e.cycle_years, e.owed) else { return };
    out.push(Obligation {
        parcel: at,
        kind: ObligationKind::PERIODIC_INSPECTION,
        what: Cow::Owned(format!("periodic inspection and report ({} tier, every {cycle} years)", e.tier)),
        who: Cow::Borrowed("owner"),
        trigger: "schedule",
        since: owed.since,
        due: Some(owed.due),
        overdue: owed.overdue,
        corrected: None,
        detail: e.status.map(|s| format!("status {}", s.as_str())),
        citation: e.citation,
        source: None,
    });
}

/// A parcel whose latest findings gave it a class and permit.
struct PermitCase<'a> {
    at: usize,
    row: &'a Row,
    permit: &'a Permit,
    report: &'a Report,
    source: Option<String>,
    events: &'a [Event],
}

fn permit_obligations(rules: &RuleSet, case: &PermitCase<'_>, as_of: NaiveDate, out: &mut Vec<Obligation>) {
    let Some(p) = &rules.permits else { return };
    let PermitCase { at, row, permit, events, .. } = *case;
    let report = case.report.date;
    // The particulars: why the class is not better, and a recorded expiry the bounds on the term replaced.
    let term = permit.out_of_term.map(|t| format!("recorded expiry {}, {}", t.recorded, t.explain(p)));
    let particulars: Vec<&str> =
        permit.shortfalls.iter().map(String::as_str).chain(term.as_deref()).collect();
    let shortfalls = (!particulars.is_empty()).then(|| particulars.join("; "));
    // The permit's own obligations run from its start on record, the rest from the inspection; an event that
    // started one (an order, a breach, the permit's issue) is its trigger and source.
    let start = permit.starts.unwrap_or(report);
    let mut push = |kind: ObligationKind,
                    what: String,
                    who: &'static str,
                    due: Option<NaiveDate>,
                    citation: &Text,
                    (since, by): (NaiveDate, Option<&Event>)| {
        out.push(Obligation {
            parcel: at,
            kind,
            what: Cow::Owned(what),
            who: Cow::Borrowed(who),
            trigger: by.map_or("inspection", |e| e.kind),
            since: Some(since),
            due,
            overdue: due.is_some_and(|d| d < as_of),
            corrected: None,
            detail: shortfalls.clone(),
            citation: *citation,
            source: by.map_or_else(|| case.source.clone(), |e| Some(e.source.to_string())),
        })
    };
    if permit.floodplain_bar {
        let required = row.facts.as_ref().and_then(|f| f.flood.as_ref()).and_then(|f| f.required_bottom_ft);
        let height = required.map_or_else(
            || "at least 2 ft above the flood elevation".into(),
            |r| format!("at or above {r:.2} ft"),
        );
        let citation = rules.floodplain.as_ref().map_or(Text::default(), |f| f.citation);
        push(
            ObligationKind::FLOODPLAIN_ELEVATION,
            format!("show the absorption-field bottom {height}; no permit may issue until it is"),
            "owner",
            None,
            &citation,
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
                        ObligationKind::REPAIR_ORDER,
                        format!(
                            "repair, alter or modify the failed system as ordered on {}; if not done in time, a Board of Health administrative hearing",
                            order.date
                        ),
                        "owner",
                        due,
                        &p.failed_citation,
                        (order.date, Some(order)),
                    );
                    // §V.G.4: "When such repairs are not undertaken within the time specified, the Health
                    // Department shall summon the property to a Board of Health administrative hearing". The
                    // class is that of the latest findings, so the system is still failed. "Shall" makes the
                    // summons a duty from the day after the order's due date, but the law gives it no time:
                    // like the other staff items without a deadline it has no due date and is never overdue.
                    // Only a summons after the due date answers it; one before came while the time ran.
                    if let Some(due) = due.filter(|d| *d < as_of) {
                        let summoned = events.iter().any(|e| e.kind == HEARING_SUMMONS && e.date > due);
                        if !summoned {
                            push(
                                ObligationKind::BOARD_OF_HEALTH_HEARING,
                                format!(
                                    "summon the property to a Board of Health administrative hearing for enforcement: the repairs ordered on {} were due {due}",
                                    order.date
                                ),
                                "health department",
                                None,
                                &p.hearing(),
                                (due.succ_opt().unwrap_or(due), Some(order)),
                            );
                        }
                    }
                }
                None => push(
                    ObligationKind::REPAIR_ORDER,
                    "order the repair, alteration or modification of the failed system".into(),
                    "health department",
                    None,
                    &p.failed_citation,
                    (report, None),
                ),
            }
        }
        (_, PermitKind::Undecided) => push(
            ObligationKind::SYSTEM_LOCATION,
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
            ObligationKind::PERMIT_RENEWAL,
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
                ObligationKind::PERMIT_TERM,
                format!("permit term to be set (at most {} years {bound}) and recorded", p.max_term_years),
                "health department",
                None,
                &p.term_citation,
                (start, None),
            )
        }
        (_, PermitKind::Interim) if permit.renewal_due.is_none() => push(
            ObligationKind::PERMIT_TERM,
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
            ObligationKind::INTERIM_RENEWAL,
            "apply to renew the interim permit to discharge".into(),
            "owner",
            permit.renewal_due,
            &p.renewal_citation,
            (start, issued),
        ),
        (_, PermitKind::Interim) => {
            let breach = events.iter().find(|e| e.kind == CONDITION_BREACH && e.date >= report);
            push(
                ObligationKind::INTERIM_NOT_RENEWABLE,
                "interim permit may not be renewed after a breached condition: meet existing standards or replace the system".into(),
                "owner",
                permit.renewal_due,
                &p.renewal_citation,
                (breach.map_or(start, |e| e.date), breach),
            )
        }
        _ => {}
    }
    if permit.class == Class::Substandard && row.facts.as_ref().is_some_and(|f| f.borders_mhw) {
        push(
            ObligationKind::HOLDING_TANK_REVIEW,
            "substandard system on a lakefront parcel: the Health Department may require a holding tank above high water, with water-use and pump-out records".into(),
            "health department",
            None,
            &p.holding_tank_citation,
            (report, None),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::classify::parcels::ParcelRecord;
    use crate::law::permit::permit_for;
    use crate::records::events::Source;
    use crate::records::inspections::Findings;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    /// An inspection at line 5 of the inspections file, with evidence of failure or without.
    fn inspection(on: NaiveDate, failure: bool) -> Report {
        Report {
            date: on,
            line: 5,
            findings: Findings {
                failure,
                overflow_points: false,
                components_working: true,
                tank_adequate: true,
                separation_ft: Some(2.0),
                valid_permit: true,
                meets_75a: false,
            },
            accepted: None,
            permit_issued: None,
            permit_expires: None,
            watercourse_ft: None,
        }
    }

    /// An event of `kind` on `on` at `line` of the events file, with a `due_date` when given.
    fn event(kind: &'static str, on: NaiveDate, line: usize, due: Option<NaiveDate>) -> Event {
        Event {
            parcel: 0,
            kind,
            date: on,
            source: Source { path: Path::new("events.csv").into(), line },
            values: due.map(|d| ("due_date", EventValue::Date(d))).into_iter().collect(),
        }
    }

    /// One obligation's columns, owned.
    #[derive(Debug, PartialEq)]
    struct Owed {
        kind: String,
        who: String,
        since: Option<NaiveDate>,
        due: Option<NaiveDate>,
        overdue: bool,
        citation: String,
        source: Option<String>,
    }

    /// The permit obligations of a parcel after `report`, with `events`, on `as_of` under Art. V.
    fn owed(report: &Report, events: &[Event], as_of: NaiveDate) -> Vec<Owed> {
        let rules = RuleSet::cayuga_art_v();
        let Some(permit) = permit_for(&rules, report, None, events) else { return Vec::new() };
        let row = Row {
            at: 0,
            parcel: ParcelRecord {
                id: "052889-133.14-1-1".into(),
                record: 1,
                fid: None,
                town: None,
                sewer: None,
                swis: None,
                owner: None,
                location: None,
                mailing: None,
                shape: None,
                defect: None,
                geometry_invalid: None,
            },
            facts: None,
            entry: crate::law::schedule::Entry {
                tier: crate::law::schedule::Tier::Rule(crate::rules::Text::new("lakefront")),
                ..crate::law::schedule::Entry::unscheduled(None, crate::rules::Text::default(), None)
            },
        };
        let case = PermitCase { at: 0, row: &row, permit: &permit, report, source: None, events };
        let mut out = Vec::new();
        permit_obligations(&rules, &case, as_of, &mut out);
        out.iter()
            .map(|o| Owed {
                kind: o.kind.to_string(),
                who: o.who.to_string(),
                since: o.since,
                due: o.due,
                overdue: o.overdue,
                citation: o.citation.to_string(),
                source: o.source.clone(),
            })
            .collect()
    }

    /// Art. V §V.G.4: "The Health Department may issue an order requiring repair ... When such repairs are
    /// not undertaken within the time specified, the Health Department shall summon the property to a Board of
    /// Health administrative hearing for enforcement." Failed inspection 2023-03-03, order 2023-04-01 (line 4)
    /// with repairs due 2023-06-30: on 2023-06-30 the time has not run out and only the owner's repairs are
    /// listed; from 2023-07-01 the Health Department owes the summons too, with no due date (the law gives it
    /// none), until a `hearing-summons` after 2023-06-30 is on record. One on 2023-06-30 itself came while the
    /// time still ran and does not answer it.
    #[test]
    fn the_health_department_summons_the_property_when_ordered_repairs_are_late() {
        let failed = inspection(date(2023, 3, 3), true);
        let order = event(REPAIR_ORDER, date(2023, 4, 1), 4, Some(date(2023, 6, 30)));
        let kinds = |owed: &[Owed]| owed.iter().map(|o| o.kind.clone()).collect::<Vec<_>>();
        let on_time = owed(&failed, std::slice::from_ref(&order), date(2023, 6, 30));
        assert_eq!(kinds(&on_time), ["repair-order"]);
        assert!(!on_time[0].overdue);

        let late = owed(&failed, std::slice::from_ref(&order), date(2023, 7, 1));
        assert_eq!(kinds(&late), ["repair-order", "board-of-health-hearing"]);
        assert_eq!(
            late[1],
            Owed {
                kind: "board-of-health-hearing".into(),
                who: "health department".into(),
                since: Some(date(2023, 7, 1)),
                due: None,
                overdue: false,
                citation: "Art. V §V.G.4".into(),
                source: Some("events.csv line 4".into()),
            }
        );
        assert!(late[0].overdue, "the owner's repairs are overdue: {late:?}");

        let as_of = date(2027, 1, 15);
        let early = [order.clone(), event(HEARING_SUMMONS, date(2023, 6, 30), 5, None)];
        assert_eq!(kinds(&owed(&failed, &early, as_of)), ["repair-order", "board-of-health-hearing"]);
        let summoned = [order.clone(), event(HEARING_SUMMONS, date(2023, 7, 20), 5, None)];
        assert_eq!(kinds(&owed(&failed, &summoned, as_of)), ["repair-order"]);
    }

    /// §V.G.4's hearing follows repairs "not undertaken": once the latest findings (2023-09-01, line 5) show
    /// no failure, the system is not failed and neither the repairs nor the hearing are owed, although the
    /// order of 2023-04-01 ran out on 2023-06-30 with no summons. An order without a `due_date` specifies no
    /// time, so no hearing follows it.
    #[test]
    fn no_hearing_without_a_failed_system_or_a_time_specified() {
        let order = event(REPAIR_ORDER, date(2023, 4, 1), 4, Some(date(2023, 6, 30)));
        let repaired =
            owed(&inspection(date(2023, 9, 1), false), std::slice::from_ref(&order), date(2027, 1, 15));
        assert!(
            repaired.iter().all(|o| o.kind != "repair-order" && o.kind != "board-of-health-hearing"),
            "{repaired:?}"
        );
        let open_ended = event(REPAIR_ORDER, date(2023, 4, 1), 4, None);
        let owed = owed(&inspection(date(2023, 3, 3), true), &[open_ended], date(2027, 1, 15));
        assert_eq!(owed.iter().map(|o| o.kind.as_str()).collect::<Vec<_>>(), ["repair-order"]);
    }
}
