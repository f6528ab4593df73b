//! What each parcel owes next and by when, gathered from the other `law` modules: the periodic inspection
//! ([`periodic`](crate::law::periodic)), what the permit that follows an inspection obliges
//! ([`permits`](crate::law::permits)), reports inspectors owe, drainage-pipe inspections, retests and
//! violations ([`pipes`](crate::law::pipes)), and the rule set's event clocks ([`clocks`](crate::law::clocks)).
//!
//! Everything here is computed from the rows of a finished schedule (each with its entry, facts and permit),
//! the record files the run read and the rule set; the rule set decides which obligations exist at all
//! (Gorham's has no periodic cycle or permits but has its event clocks; Cayuga's has both). The pipeline
//! hands them over; nothing here knows how the run was made.

mod by_parcel;

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

pub use by_parcel::{ByParcel, Found, ParcelNotes};

use crate::law::schedule::Row;
use crate::model::error::Problem;
use crate::records::events::{Event, Pipe, Sample};
use crate::records::inspections::Inspections;
use crate::rules::vocabulary::EventKind;
use crate::rules::{Party, RuleSet, Text};

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
    pub who: Party,
    /// What started it.
    pub trigger: Trigger,
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

impl Obligation {
    /// The owner's inspection of a grid of due dates (the periodic one, the pipes'): at `parcel`, of `kind`,
    /// owed `since` by `due`, `overdue` or not.
    pub fn on_schedule(
        (parcel, kind): (usize, ObligationKind),
        what: String,
        (since, due, overdue): (Option<NaiveDate>, NaiveDate, bool),
        detail: Option<String>,
        citation: Text,
    ) -> Self {
        Obligation {
            parcel,
            kind,
            what: Cow::Owned(what),
            who: Party::Owner,
            trigger: Trigger::Schedule,
            since,
            due: Some(due),
            overdue,
            corrected: None,
            detail,
            citation,
            source: None,
        }
    }
}

/// What started an obligation, as the `trigger` column shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// The periodic schedule (`schedule`).
    Schedule,
    /// An inspection and its findings (`inspection`).
    Inspection,
    /// A drainage-pipe sample (`sample`).
    Sample,
    /// An event of the events file, by its kind (`transfer`, `repair-order`, ...).
    Event(EventKind),
}

impl Trigger {
    /// The trigger's name: the event's kind, or `schedule`, `inspection`, `sample`.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Schedule => "schedule",
            Trigger::Inspection => "inspection",
            Trigger::Sample => "sample",
            Trigger::Event(kind) => kind.as_str(),
        }
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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
    /// `interim-expired`.
    pub const INTERIM_EXPIRED: Self = ObligationKind(Text::from_static("interim-expired"));
    /// `maintenance-repair`.
    pub const MAINTENANCE_REPAIR: Self = ObligationKind(Text::from_static("maintenance-repair"));
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

/// Whether the owner owes `obligation` under `rules` by the end of `year`: the periodic inspection, the
/// interim-permit renewal or another duty of the owner's, with a due date on or before December 31 of the
/// year, still open (not corrected late), and not a right that lapses (an appeal window) nor a term the
/// Health Department has still to set. What a year's notice demands of the owner.
pub fn owner_owes_by(obligation: &Obligation, rules: &RuleSet, year: i32) -> bool {
    let Some(due) = obligation.due else { return false };
    let Some(end_of_year) = NaiveDate::from_ymd_opt(year, 12, 31) else { return false };
    let owner_owes =
        matches!(obligation.kind, ObligationKind::PERIODIC_INSPECTION | ObligationKind::INTERIM_RENEWAL)
            || obligation.who == Party::Owner;
    let lapses = rules.clocks.iter().any(|c| c.lapses && ObligationKind::clock(c.id) == obligation.kind);
    let open = obligation.corrected.is_none() && obligation.kind != ObligationKind::PERMIT_TERM;
    owner_owes && open && due <= end_of_year && !lapses
}
