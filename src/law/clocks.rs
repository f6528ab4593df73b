//! The rule set's event clocks, run over a parcel's events: each event that starts a clock opens an
//! obligation due after the law's period; a closing event on or before the due date discharges it, and one
//! after it corrects the breach late (the obligation stays listed with both dates). A start that a later
//! event replaces (`superseded_by`: a hearing continued rather than finally adjourned) owes nothing, and one
//! record starts a clock once, however many of the clock's starters it stands for (an inspection that found
//! a failure and a system not adequately functioning).

use std::borrow::Cow;

use chrono::NaiveDate;

use crate::law::obligations::{Obligation, ObligationKind, Trigger};
use crate::model::error::Problem;
use crate::records::events::{Event, EventValue, Source};
use crate::rules::calendar::{add_business_days, add_days, add_days_rolled};
use crate::rules::{Clock, Condition, RuleSet};

/// What the clocks look at for one parcel.
pub struct ParcelEvents<'a> {
    /// The parcel's position.
    pub parcel: usize,
    /// Its events (file events, pump-outs, inspections and derived events), sorted by date.
    pub events: &'a [Event],
}

/// The open obligations the clocks of `rules` give for one parcel on `as_of`, and the breaches corrected
/// late; a condition that cannot be checked (a blank cell) is reported in `problems` and the clock still
/// starts.
pub fn clock_obligations(
    rules: &RuleSet,
    input: &ParcelEvents<'_>,
    as_of: NaiveDate,
    problems: &mut Vec<Problem>,
) -> Vec<Obligation> {
    let mut out = Vec::new();
    // The starts taken so far, by clock and record: a record that stands for two of a clock's starters
    // starts it once.
    let mut started: Vec<(usize, NaiveDate, &Source)> = Vec::new();
    for event in input.events {
        for (index, clock) in rules.clocks.iter().enumerate().filter(|(_, c)| c.starts_on(event.kind)) {
            let start = (index, event.date, &event.source);
            if started.contains(&start) || superseded(clock, event, input.events) {
                continue;
            }
            if !condition_holds(clock, event, problems) {
                continue;
            }
            started.push(start);
            let (due, notified, counted) = due_date(rules, clock, event);
            if clock.lapses && due.is_some_and(|d| d < as_of) {
                continue;
            }
            let corrected = match closure(clock, event, due, input.events) {
                Closure::Open => None,
                Closure::Met => continue,
                // A duty met late stays on the record for the years the rule set keeps.
                Closure::Late(on) if on < rules.record.met_late_since(as_of) => continue,
                Closure::Late(on) => Some(on),
            };
            let overdue = corrected.is_none() && due.is_some_and(|d| d < as_of);
            let fine = clock.weekly_fine_usd.filter(|_| corrected.is_none()).map(|fine| {
                let weeks = (as_of - notified).num_days().max(0) / 7;
                let count = 1 + weeks;
                format!(
                    "{count} violation{} as of {as_of} (one more each week it continues after notification); fines up to ${}",
                    if count == 1 { "" } else { "s" },
                    fine * count as f64
                )
            });
            let late = corrected.zip(due).map(|(on, due)| format!("met late: due {due}, done {on}"));
            let detail: Vec<String> = [counted, fine, late].into_iter().flatten().collect();
            out.push(Obligation {
                parcel: input.parcel,
                kind: ObligationKind::clock(clock.id),
                what: Cow::Borrowed(clock.what.as_str()),
                who: clock.who,
                trigger: Trigger::Event(event.kind),
                since: Some(event.date),
                due,
                overdue,
                corrected,
                detail: (!detail.is_empty()).then(|| detail.join("; ")),
                citation: clock.citation,
                source: Some(event.source.to_string()),
            });
        }
    }
    out
}

/// The due date of `clock` started by `event`, the day its period runs from (the receipt of a notice where
/// the clock counts from one, else the event's date), and, for a clock that counts from a receipt date,
/// which start was used. Calendar days run to the next business day where the rule set says so (N.Y. Gen. Constr.
/// Law §25-a); business days skip weekends and public holidays.
fn due_date(rules: &RuleSet, clock: &Clock, event: &Event) -> (Option<NaiveDate>, NaiveDate, Option<String>) {
    let (start, counted) = match (&clock.from_column, event.value(clock.from_column.as_deref().unwrap_or("")))
    {
        (Some(column), Some(EventValue::Date(received))) => {
            (received, Some(format!("counted from receipt on {received} ({column})")))
        }
        (Some(column), _) => {
            let days = clock.mailing_days.unwrap_or(0);
            let start = add_days(event.date, days);
            let note = format!(
                "no {column} date recorded: counted from {} plus {days} days for mailing ({start})",
                event.date
            );
            (start, Some(note))
        }
        (None, _) => (event.date, None),
    };
    let roll = rules.calendar.as_ref().is_some_and(|c| c.roll_forward);
    let due = if let Some(days) = clock.within_days {
        Some(if roll { add_days_rolled(start, days) } else { add_days(start, days) })
    } else if let Some(days) = clock.within_business_days {
        Some(add_business_days(start, days))
    } else {
        clock.due_on_event.then_some(event.date)
    };
    (due, start, counted)
}

/// Whether an event of `events` that replaces a start of `clock` comes after `start`: on a later date, or on
/// the same date further down the same file (rows of one day keep the file's order).
fn superseded(clock: &Clock, start: &Event, events: &[Event]) -> bool {
    let after = |e: &Event| {
        e.date > start.date
            || (e.date == start.date
                && e.source.path == start.source.path
                && e.source.line > start.source.line)
    };
    events.iter().any(|e| clock.superseded_on(e.kind) && after(e))
}

/// How the acts on record answer an obligation.
enum Closure {
    /// No closing act.
    Open,
    /// A closing act on or before the due date (or any, when the law sets no time).
    Met,
    /// The first closing act came after the due date, on this day.
    Late(NaiveDate),
}

/// Whether a closing event (or inspection) on record discharges the obligation `event` started. Acts count
/// from the event's date; from the law's look-back before it ("pumped within the last twelve months"); or,
/// for a duty owed "prior to" the act, from the day after the previous act on record that starts the clock
/// (the rule set's first look-back standing in before the first one).
fn closure(clock: &Clock, event: &Event, due: Option<NaiveDate>, events: &[Event]) -> Closure {
    let months_before =
        |months: u32| event.date.checked_sub_months(chrono::Months::new(months)).unwrap_or(NaiveDate::MIN);
    let from = if clock.prior_to {
        let previous =
            events.iter().filter(|e| e.date < event.date && clock.starts_on(e.kind)).map(|e| e.date).max();
        match (previous, clock.first_lookback_months) {
            (Some(previous), _) => previous.succ_opt().unwrap_or(previous),
            (None, Some(months)) => months_before(months),
            (None, None) => NaiveDate::MIN,
        }
    } else {
        clock.closed_from_months_before.map_or(event.date, months_before)
    };
    let mut acts = events
        .iter()
        .filter(|e| e.date >= from && clock.closes_on(e.kind) && !std::ptr::eq(*e, event))
        .map(|e| e.date);
    match due {
        None => acts.next().map_or(Closure::Open, |_| Closure::Met),
        Some(due) => {
            let mut late = None;
            for on in acts {
                if on <= due {
                    return Closure::Met;
                }
                late = Some(late.map_or(on, |l: NaiveDate| l.min(on)));
            }
            late.map_or(Closure::Open, Closure::Late)
        }
    }
}

/// Whether every clock of `rules` that `event` starts is answered on time by `events`: for a new or
/// replaced system, its plans accepted and its permit issued before it was built (Art. V §VII.A.1, §III.B;
/// Ch. 56 §301.1), read as the clocks read "prior to". A clock whose condition does not hold is not started,
/// so it asks nothing.
pub fn answered_on_time(rules: &RuleSet, event: &Event, events: &[Event]) -> bool {
    rules.clocks.iter().filter(|c| c.starts_on(event.kind)).all(|clock| {
        if !condition_holds(clock, event, &mut Vec::new()) {
            return true;
        }
        let (due, _, _) = due_date(rules, clock, event);
        matches!(closure(clock, event, due, events), Closure::Met)
    })
}

fn condition_holds(clock: &Clock, event: &Event, problems: &mut Vec<Problem>) -> bool {
    let Some(Condition { column, is, above, blank }) = &clock.when else { return true };
    match (event.value(column), is, above) {
        (Some(EventValue::YesNo(v)), Some(want), _) => v == *want,
        (Some(EventValue::Number(v)), _, Some(limit)) => v > *limit,
        (None, ..) if blank.is_some() => blank.unwrap_or(true),
        _ => {
            problems.push(Problem::new(
                &*event.source.path,
                crate::records::line(&event.source.path, event.source.line),
                format!(
                    "{} event without {column}; fill it in ({} cannot tell whether it applies, so it is applied)",
                    event.kind, clock.citation
                ),
            ));
            true
        }
    }
}

#[cfg(test)]
mod tests;
