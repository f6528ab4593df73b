//! What a system's class and permit oblige, and whom: the renewal or term of the permit, the repair a
//! failure orders and the hearing that follows it not being done (§V.G.4), the location the class waits
//! for, the holding-tank review of a substandard lakefront system, and the floodplain bar (§X).

use std::borrow::Cow;

use chrono::NaiveDate;

use super::{Class, Permit, PermitKind};
use crate::law::obligations::{Obligation, ObligationKind, Trigger};
use crate::law::schedule::Row;
use crate::records::events::{Event, EventValue};
use crate::records::inspections::Report;
use crate::rules::calendar::add_years;
use crate::rules::vocabulary::{
    CONDITION_BREACH, HEARING_SUMMONS, INTERIM_RENEWAL, PERMIT_ISSUED, REPAIR_ORDER,
};
use crate::rules::{Party, RuleSet, Text};

/// A parcel whose latest findings gave it a class and permit.
pub struct PermitCase<'a> {
    /// The parcel's position.
    pub at: usize,
    /// Its row.
    pub row: &'a Row,
    /// The permit its latest findings give.
    pub permit: &'a Permit,
    /// The report of those findings.
    pub report: &'a Report,
    /// Where the report was read, for the obligations it starts.
    pub source: Option<String>,
    /// The parcel's events.
    pub events: &'a [Event],
}

/// The obligations on `as_of` of the parcel whose latest findings gave it `case.permit`, pushed to `out`.
pub fn permit_obligations(
    rules: &RuleSet,
    case: &PermitCase<'_>,
    as_of: NaiveDate,
    out: &mut Vec<Obligation>,
) {
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
                    who: Party,
                    due: Option<NaiveDate>,
                    citation: &Text,
                    (since, by): (NaiveDate, Option<&Event>)| {
        out.push(Obligation {
            parcel: at,
            kind,
            what: Cow::Owned(what),
            who,
            trigger: by.map_or(Trigger::Inspection, |e| Trigger::Event(e.kind)),
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
            Party::Owner,
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
                        Party::Owner,
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
                                Party::HealthDepartment,
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
                    Party::HealthDepartment,
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
            Party::HealthDepartment,
            None,
            &p.location_citation,
            (report, None),
        ),
        (_, PermitKind::Discharge) if permit.expires.is_some() => push(
            ObligationKind::PERMIT_RENEWAL,
            "permit to discharge ends: new inspection report and permit".into(),
            Party::Owner,
            permit.expires,
            &p.existing_citation,
            (start, issued),
        ),
        (_, PermitKind::Discharge) => {
            // §V.B's ceiling, and §V.D's floor where the rule set reads one.
            let (min, max) = (p.min_term_years, p.max_term_years);
            let years = match min {
                0 => format!("at most {max} years"),
                min => format!("{min} to {max} years"),
            };
            let bound = permit.starts.map_or_else(
                || "from its issue".to_string(),
                |s| match min {
                    0 => format!("from {s}, so ending by {}", add_years(s, max)),
                    min => format!("from {s}, so ending between {} and {}", add_years(s, min), add_years(s, max)),
                },
            );
            push(
                ObligationKind::PERMIT_TERM,
                format!("permit term to be set ({years} {bound}) and recorded"),
                Party::HealthDepartment,
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
            Party::HealthDepartment,
            None,
            &p.term_citation,
            (start, None),
        ),
        (_, PermitKind::Interim) if permit.renewable => push(
            ObligationKind::INTERIM_RENEWAL,
            "apply to renew the interim permit to discharge".into(),
            Party::Owner,
            permit.renewal_due,
            &p.renewal_citation,
            (start, issued),
        ),
        (_, PermitKind::Interim) => {
            let breach = events.iter().find(|e| e.kind == CONDITION_BREACH && e.date >= report);
            push(
                ObligationKind::INTERIM_NOT_RENEWABLE,
                "interim permit may not be renewed after a breached condition: meet existing standards or replace the system".into(),
                Party::Owner,
                permit.renewal_due,
                &p.renewal_citation,
                (breach.map_or(start, |e| e.date), breach),
            )
        }
        _ => {}
    }
    if permit.maintenance_bar {
        push(
            ObligationKind::MAINTENANCE_REPAIR,
            "maintain or repair the system components the Health Department found improperly maintained or repaired; no interim permit to discharge may be issued or renewed until then".into(),
            Party::Owner,
            None,
            &p.maintenance(),
            (report, None),
        );
    }
    // §V.G: "Upon the expiration of an interim permit ... the Health Department shall take action": an
    // interim permit whose renewal date passed unrenewed has expired. Any of the actions §V.G lists that the
    // events record after it answers the item: a permit issued (§V.G.1), the interim permit renewed (§V.G.2,
    // which also carries the renewal date on), or an order to repair (§V.G.4). The law gives the action no
    // time, so the item has no due date.
    if let Some(lapsed) = permit.renewal_due.filter(|d| permit.kind == PermitKind::Interim && *d < as_of) {
        let acted = [PERMIT_ISSUED, INTERIM_RENEWAL, REPAIR_ORDER];
        if !events.iter().any(|e| acted.contains(&e.kind) && e.date > lapsed) {
            push(
                ObligationKind::INTERIM_EXPIRED,
                format!(
                    "the interim permit to discharge expired unrenewed on {lapsed}: issue a permit to discharge, renew the interim permit, grant a variance, waiver or extension, or direct repairs or a replacement"
                ),
                Party::HealthDepartment,
                None,
                &p.expiry(),
                (lapsed.succ_opt().unwrap_or(lapsed), None),
            );
        }
    }
    if permit.class == Class::Substandard && row.facts.as_ref().is_some_and(|f| f.borders_mhw) {
        push(
            ObligationKind::HOLDING_TANK_REVIEW,
            "substandard system on a lakefront parcel: the Health Department may require a holding tank above high water, with water-use and pump-out records".into(),
            Party::HealthDepartment,
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
    use crate::law::permits::permit_for;
    use crate::records::events::Source;
    use crate::records::inspections::Findings;
    use crate::rules::vocabulary::EventKind;

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
            improperly_maintained: false,
        }
    }

    /// An event of `kind` on `on` at `line` of the events file, with a `due_date` when given.
    fn event(kind: EventKind, on: NaiveDate, line: usize, due: Option<NaiveDate>) -> Event {
        Event {
            parcel: 0,
            kind,
            date: on,
            source: Source { path: Path::new("events.csv").into(), line },
            values: due.map(|d| ("due_date", EventValue::Date(d))).into_iter().collect(),
            system: None,
            replaces: None,
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
            parcel: ParcelRecord { id: "052889-133.14-1-1".into(), record: 1, ..ParcelRecord::empty() },
            facts: None,
            entry: crate::law::schedule::Entry {
                tier: crate::law::schedule::Tier::Rule(crate::rules::Text::new("lakefront")),
                ..crate::law::schedule::Entry::unscheduled(None, crate::rules::Text::default(), None)
            },
            systems: Vec::new(),
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

    /// A substandard inspection of 2025-04-10 (line 5) whose interim permit started 2025-05-01.
    fn interim(improperly_maintained: bool) -> Report {
        let mut report = inspection(date(2025, 4, 10), false);
        report.findings.tank_adequate = false;
        report.findings.valid_permit = false;
        report.accepted = Some(date(2025, 5, 1));
        report.improperly_maintained = improperly_maintained;
        report
    }

    /// §V.G: "Upon the expiration of an interim permit to discharge ... the Health Department shall take
    /// action". The interim permit of 2025-05-01 (a year, renewed annually, §V.C, §V.F) is due for renewal
    /// 2026-05-01; no renewal by then and it has expired: from 2026-05-02 the Department owes its action, with
    /// no due date (the law gives it none), beside the owner's overdue renewal. On 2026-05-01 itself nothing
    /// has expired. A late renewal (2026-05-20, §V.G.2), a permit issued (§V.G.1) or an order to repair
    /// (§V.G.4) after the lapse answers it.
    #[test]
    fn an_expired_interim_permit_owes_the_department_action() {
        let kinds = |owed: &[Owed]| owed.iter().map(|o| o.kind.clone()).collect::<Vec<_>>();
        let on_the_day = owed(&interim(false), &[], date(2026, 5, 1));
        assert_eq!(kinds(&on_the_day), ["interim-renewal"]);
        let lapsed = owed(&interim(false), &[], date(2026, 6, 1));
        assert_eq!(kinds(&lapsed), ["interim-renewal", "interim-expired"]);
        assert_eq!(
            lapsed[1],
            Owed {
                kind: "interim-expired".into(),
                who: "health department".into(),
                since: Some(date(2026, 5, 2)),
                due: None,
                overdue: false,
                citation: "Art. V §V.G".into(),
                source: None,
            }
        );
        for (kind, line) in [(INTERIM_RENEWAL, 6), (PERMIT_ISSUED, 7), (REPAIR_ORDER, 8)] {
            let acted = [event(kind, date(2026, 5, 20), line, None)];
            let owed = owed(&interim(false), &acted, date(2026, 6, 1));
            assert!(owed.iter().all(|o| o.kind != "interim-expired"), "{kind}: {owed:?}");
        }
    }

    /// §V.F.2 and §V.E.2: after the Department's determination of "an improperly maintained or improperly
    /// repaired system" no interim permit issues or renews, and the owner owes "the maintenance or repair of
    /// any system component found to be in need of maintenance or repair": no renewal is listed, the repair
    /// is, with no due date (the Department sets the schedule).
    #[test]
    fn an_improperly_maintained_system_owes_its_repair_not_a_renewal() {
        let owed = owed(&interim(true), &[], date(2026, 6, 1));
        assert_eq!(
            owed,
            [Owed {
                kind: "maintenance-repair".into(),
                who: "owner".into(),
                since: Some(date(2025, 4, 10)),
                due: None,
                overdue: false,
                citation: "Art. V §V.F.2, §V.E.2".into(),
                source: None,
            }]
        );
    }
}
