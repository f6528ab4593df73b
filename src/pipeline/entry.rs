//! A parcel's schedule entry from the rule set's decision, its latest inspection and the day its system was
//! put in service; and the permits whose recorded term the law bounds.

use std::path::Path;

use chrono::NaiveDate;

use crate::law::permit::term_problem;
use crate::law::schedule::{standing, DueGrid, Entry, Row, Standing, Tier};
use crate::model::error::Problem;
use crate::pipeline::config::Config;
use crate::records::events::{events_of, Event};
use crate::records::inspections::{Dated, Installed, LastInspection, Report};
use crate::rules::vocabulary::{SYSTEM_INSTALLED, SYSTEM_REPLACED};
use crate::rules::{Decision, RuleSet, Text};

/// The day the parcel's present system was put in service, from its `system-installed` and `system-replaced`
/// events and the installation its latest inspection that says records: the latest of them.
pub(super) fn in_service(events: &[Event], installed: Option<Dated<Installed>>) -> Option<NaiveDate> {
    let built =
        events.iter().filter(|e| e.kind == SYSTEM_INSTALLED || e.kind == SYSTEM_REPLACED).map(|e| e.date);
    built.chain(installed.map(|i| i.value.date)).max()
}

/// The permits of a block of rows whose recorded expiry lies beyond the law's bounds on the term (Art. V
/// §V.B, §V.C): each reported at the record of the expiry, with the bound used in its place. `records` are
/// the run's events and each parcel's latest received report; `history` is the inspections file they came
/// from.
pub(super) fn report_permit_terms(
    rows: &[Row],
    rules: &RuleSet,
    (events, reports): (&[Event], &[Option<Box<Report>>]),
    history: Option<&Path>,
    problems: &mut Vec<Problem>,
) {
    let (Some(permits), Some(history)) = (&rules.permits, history) else { return };
    for row in rows {
        let Some(permit) = row.entry.permit.as_deref().filter(|p| p.out_of_term.is_some()) else { continue };
        let Some(report) = reports.get(row.at).and_then(|r| r.as_deref()) else { continue };
        problems.extend(term_problem(permits, permit, report, events_of(events, row.at), history));
    }
}

/// The schedule entry of a parcel: unscheduled when no rule schedules it (with the exclusion and its
/// citation, when the rule set made one), else its due dates and standing on the run's as-of date
/// (`schedule::standing`) from its latest inspection and the day its system was put in service.
pub(super) fn entry(
    config: &Config,
    decision: Option<Decision>,
    last: Option<LastInspection>,
    in_service: Option<NaiveDate>,
    has_history: bool,
) -> Entry {
    let unscheduled = Entry::unscheduled;
    match decision {
        None => unscheduled(None, Text::default(), last),
        Some(Decision::Unscheduled { exclusion, citation, .. }) => {
            unscheduled(Some(exclusion), citation, last)
        }
        Some(Decision::Scheduled { rule }) => {
            let rule = config.rules.rule(rule);
            let grid = DueGrid { first_due: rule.first_due, cycle_years: rule.cycle_years };
            let rolls = config.rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
            let Standing { around, status, owed } =
                standing(&grid, config.as_of, last.as_ref().map(|l| l.date), in_service, has_history, rolls);
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
            }
        }
    }
}
