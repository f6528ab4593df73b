//! A parcel's line in the schedule: its [`Row`] (the parcel as read, its facts and its [`Entry`]) and its
//! [`Tier`]. The pipeline makes one row per parcel from the verdicts of the other `law` modules; the
//! obligations and the reports read them.

use std::fmt;

use chrono::NaiveDate;

use crate::classify::parcels::ParcelRecord;
use crate::law::coverage::{explain_decided, explain_into, Decision, Exclusion};
use crate::law::periodic::{standing, DueGrid, Owed, Standing, Status};
use crate::law::permits::{permit_for, Permit};
use crate::law::systems::{concerning, grandfathered, Life};
use crate::model::facts::Facts;
use crate::model::id::ParcelId;
use crate::records::events::Event;
use crate::records::inspections::{Inspections, LastInspection};
use crate::rules::{RuleSet, Text};

/// A parcel's tier: the matching periodic rule's, or none.
///
/// Shown as the schedule's `tier` column: the rule set's name of the tier, or `unscheduled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// The tier of the periodic rule that schedules the parcel ("lakefront", "near-shore", "watershed",
    /// "county"), as the rule set names it.
    Rule(Text),
    /// No periodic rule covers the parcel.
    Unscheduled,
}

impl Tier {
    /// The tier's text: the rule set's name, or `unscheduled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Rule(name) => name.as_str(),
            Tier::Unscheduled => "unscheduled",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One parcel's line in the schedule.
#[derive(Debug, Clone)]
pub struct Row {
    /// The parcel's position: its place among all parcel records sorted by id, then record number, which is
    /// the index of its row and of its entries in the per-parcel tables (systems, inspections).
    pub at: usize,
    /// The parcel as read (id, record, attributes, projected shape).
    pub parcel: ParcelRecord,
    /// The spatial facts, when the parcel could be classified.
    pub facts: Option<Facts>,
    /// The schedule entry: its binding system's, for a parcel the register gives systems.
    pub entry: Entry,
    /// The parcel's systems on record in the register (empty when it has none: its one system is unnamed
    /// and located by the parcel), each with what the law makes of it; the row's facts and entry are those
    /// of the one that binds.
    pub systems: Vec<SystemLine>,
}

/// One system of a parcel on record in the register, and what the law makes of it.
#[derive(Debug, Clone)]
pub struct SystemLine {
    /// Its index in the register.
    pub index: u32,
    /// Whether the table of systems lists it from this parcel's row: the first parcel it serves. (A system
    /// serving two parcels is on both their rows, and listed once.)
    pub listed_here: bool,
    /// The other parcel it serves, when it serves two.
    pub partner: Option<ParcelId>,
    /// The lot it lies on, when not this parcel (a system on the owner's lot across the road).
    pub lies_on: Option<ParcelId>,
    /// Whether its point was used; `false`: it was reported, and the system located by the parcel's polygon.
    pub placed: bool,
    /// Its life.
    pub life: Life,
    /// Its facts and entry while in service, unless it binds (the row's are then its own).
    pub own: Option<Box<(Facts, Entry)>>,
    /// Whether the parcel's row takes its duty: the active system due first.
    pub binds: bool,
}

impl Row {
    /// A row that stands for no parcel (position `usize::MAX`): the place of a record in a block whose row
    /// comes later or not at all, taken out before the block is handed on.
    pub fn none() -> Row {
        Row {
            at: usize::MAX,
            parcel: ParcelRecord::empty(),
            facts: None,
            entry: Entry::unscheduled(None, Text::default(), None),
            systems: Vec::new(),
        }
    }

    /// The facts and entry of one of the row's systems while in service: the row's own for the system that
    /// binds.
    pub fn of_system<'a>(&'a self, line: &'a SystemLine) -> Option<(Option<&'a Facts>, &'a Entry)> {
        match (&line.own, line.binds) {
            (Some(own), _) => Some((Some(&own.0), &own.1)),
            (None, true) => Some((self.facts.as_ref(), &self.entry)),
            (None, false) => None,
        }
    }
}

impl SystemLine {
    /// The id of the parcel the system serves first, which names it in a systems layer without ids: the
    /// row's own (`here`), or its partner's.
    pub fn served_first<'a>(&'a self, here: &'a ParcelId) -> &'a str {
        match (&self.partner, self.listed_here) {
            (Some(partner), false) => partner,
            _ => here,
        }
    }
}

/// The later of two dated records, the second on a tie; either when only one is given.
fn later<'a, T>(a: Option<&'a T>, b: Option<&'a T>, date: impl Fn(&T) -> NaiveDate) -> Option<&'a T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if date(b) >= date(a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Which of a parcel's systems in service binds its row: the one whose periodic inspection is due first (a
/// scheduled system before one no rule schedules), the first of them on a tie.
pub fn binding<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Option<usize> {
    let due = |e: &Entry| e.owed.as_ref().map(|o| o.due).or(e.next_due).unwrap_or(NaiveDate::MAX);
    entries.into_iter().enumerate().min_by_key(|&(i, e)| (e.rule.is_none(), due(e), i)).map(|(i, _)| i)
}

impl Row {
    /// Why the parcel has its schedule under `rules`, in a sentence appended to `out`: the rule set's
    /// explanation of its facts, or why it could not be classified.
    pub fn push_reason(&self, rules: &RuleSet, out: &mut String) {
        if self.entry.exclusion == Some(Exclusion::NoSystem) {
            out.push_str("no system in service on the lot: ");
            out.push_str(if self.systems.is_empty() {
                "vacant land with no system on record"
            } else {
                "its systems on record were abandoned"
            });
            out.push_str("; the law's duties are a system's (");
            out.push_str(&self.entry.citation);
            out.push(')');
            return;
        }
        if let Some(lot) = self.systems.iter().find(|l| l.binds).and_then(|l| l.lies_on.as_deref()) {
            out.push_str("system on the lot ");
            out.push_str(lot);
            out.push_str(", whose edge is measured: ");
        }
        match (&self.facts, self.entry.decision(rules)) {
            (Some(facts), Some(decision)) => explain_decided(rules, facts, &decision, out),
            (Some(facts), None) => explain_into(rules, facts, out),
            (None, _) => {
                out.push_str("not classified: ");
                out.push_str(self.parcel.defect.as_deref().unwrap_or("unusable record"));
            }
        }
    }
}

impl Entry {
    /// The decision under `rules` that made this entry: the rule it names, or the exclusion with its citation;
    /// `None` when the entry was made without one (a parcel not classified).
    pub fn decision(&self, rules: &RuleSet) -> Option<Decision> {
        match (self.rule, self.exclusion) {
            (Some(id), _) => rules.rule_id(id).map(|rule| Decision::Scheduled { rule }),
            (None, Some(exclusion)) => Some(Decision::Unscheduled { exclusion, citation: self.citation }),
            (None, None) => None,
        }
    }

    /// The entry of a parcel no periodic rule schedules: `exclusion` says why, when known, `citation` where the
    /// law says so; `last` is its latest inspection.
    pub fn unscheduled(exclusion: Option<Exclusion>, citation: Text, last: Option<LastInspection>) -> Self {
        Entry {
            tier: Tier::Unscheduled,
            rule: None,
            exclusion,
            cycle_years: None,
            first_due: None,
            previous_due: None,
            next_due: None,
            status: None,
            owed: None,
            last_inspection: last,
            citation,
            permit: None,
            grandfathered: None,
            new_life: None,
        }
    }

    /// Why the rule set's law does not apply to the parcel at all ([`Exclusion::out_of_scope`]), when it does
    /// not: the one decision of scope that every duty of that law obeys (the periodic schedule, the permit,
    /// the transfer and other event duties, drainage pipes, reports owed, notices, workload and map).
    pub fn out_of_scope(&self) -> Option<&'static str> {
        self.exclusion.and_then(Exclusion::out_of_scope)
    }
}

/// The schedule columns of a row; names and citations are the rule set's words ([`Text`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The tier of the rule that matched, or unscheduled.
    pub tier: Tier,
    /// The id of the rule that matched.
    pub rule: Option<Text>,
    /// Why unscheduled, when it is.
    pub exclusion: Option<Exclusion>,
    /// Years between inspections.
    pub cycle_years: Option<u32>,
    /// First due date of the grid.
    pub first_due: Option<NaiveDate>,
    /// The due date before `next_due`.
    pub previous_due: Option<NaiveDate>,
    /// The first due date that can still be met on the as-of date: on or after it, or (§25-a, when the rule
    /// set's calendar rolls) one on a weekend or holiday whose next business day is the as-of date.
    pub next_due: Option<NaiveDate>,
    /// Compliance status, when a history was given.
    pub status: Option<Status>,
    /// The periodic inspection owed next ([`crate::law::periodic::standing`]), when a rule schedules the parcel.
    pub owed: Option<Owed>,
    /// Latest inspection on record.
    pub last_inspection: Option<LastInspection>,
    /// The law's citation.
    pub citation: Text,
    /// Class and permit after the latest inspection with findings, when the rule set has permits.
    pub permit: Option<Box<Permit>>,
    /// Whether the parcel's system is grandfathered ([`grandfathered`]), when the rule set and the
    /// inspections file say.
    pub grandfathered: Option<bool>,
    /// The day its system began a life permitted before its construction ([`Life`]): findings before it were
    /// made on the system it replaced, and oblige nothing of this one.
    pub new_life: Option<NaiveDate>,
}

/// What the record files say of one parcel, as its entry needs them.
#[derive(Debug, Clone, Copy)]
pub struct ParcelRecords<'a> {
    /// The parcel's position.
    pub at: usize,
    /// Its latest inspection on or before the as-of date.
    pub last: Option<&'a LastInspection>,
    /// Its events and pump-outs, by date.
    pub events: &'a [Event],
    /// What the inspections file says of every parcel beyond its latest inspection.
    pub inspections: &'a Inspections,
    /// Whether an inspections file was given at all (without one there is no status).
    pub has_history: bool,
    /// The system the entry is for, by the register's id; `None` for a parcel's one unnamed system.
    pub system: Option<&'a str>,
    /// The position of the other parcel the system serves, when it serves two: an inspection naming the system
    /// filed under that parcel inspected it too.
    pub partner: Option<usize>,
    /// That system's life (`life`) on the as-of date.
    pub life: &'a Life,
}

/// The schedule entry of a parcel on `as_of`: unscheduled when no rule schedules it (with the exclusion and
/// its citation, when the rule set made one), else its due dates and standing on its rule's grid
/// ([`standing`]) from its latest inspection and the day its system was put in service; the class and
/// permit of its latest findings, unless the law does not reach it; and whether its system is grandfathered.
pub fn entry(
    rules: &RuleSet,
    as_of: NaiveDate,
    decision: Option<Decision>,
    facts: Option<&Facts>,
    records: &ParcelRecords<'_>,
) -> Entry {
    let &ParcelRecords { at, last, events, inspections, has_history, system, partner, life } = records;
    // An inspection that names a system answers it alone, under whichever parcel it serves the row names; one
    // that names none answers every system of its parcel.
    let named = || {
        system.into_iter().flat_map(move |id| {
            std::iter::once(at).chain(partner).filter_map(move |p| inspections.named(p, id))
        })
    };
    // A system starts a new life when put in service: inspections before it were of the system it replaced.
    let last = later(last, named().map(|n| &n.latest).max_by_key(|l| l.date), |l| l.date)
        .filter(|l| life.since.is_none_or(|since| l.date >= since))
        .cloned();
    let events = concerning(events, system);
    // Its construction counts as an inspection only when permitted before it.
    let new_life = life.since.filter(|_| life.permitted);
    let mut entry = match decision {
        None => Entry::unscheduled(None, Text::default(), last),
        Some(Decision::Unscheduled { exclusion, citation, .. }) => {
            Entry::unscheduled(Some(exclusion), citation, last)
        }
        Some(Decision::Scheduled { rule }) => {
            let rule = rules.rule(rule);
            let grid = DueGrid { first_due: rule.first_due, cycle_years: rule.cycle_years };
            let rolls = rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
            let inspected = last.as_ref().map(|l| l.date);
            let Standing { around, status, owed } =
                standing(&grid, as_of, inspected, new_life, has_history, rolls);
            Entry {
                tier: Tier::Rule(rule.tier),
                rule: Some(rule.id),
                exclusion: None,
                cycle_years: Some(rule.cycle_years),
                first_due: Some(rule.first_due),
                previous_due: around.previous,
                next_due: Some(around.next),
                status,
                owed: Some(owed),
                last_inspection: last,
                citation: rule.citation,
                permit: None,
                grandfathered: None,
                new_life: None,
            }
        }
    };
    entry.new_life = new_life;
    // A parcel the law does not reach (public sewer, outside the county) gets no class or permit. Findings
    // belong to the system they were made on: a permitted new system leaves those before it behind.
    let report = later(
        inspections.reports.get(at).and_then(|r| r.as_deref()),
        named().filter_map(|n| n.report.as_deref()).max_by_key(|r| r.date),
        |r| r.date,
    );
    let own = report.filter(|r| new_life.is_none_or(|since| r.date >= since));
    if let Some(report) = own.filter(|_| entry.out_of_scope().is_none()) {
        entry.permit = permit_for(rules, report, facts, &events).map(Box::new);
    }
    entry.grandfathered = rules.grandfather.as_ref().and_then(|g| grandfathered(g, inspections, at));
    entry
}
