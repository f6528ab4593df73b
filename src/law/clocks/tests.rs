//! Tests of the event clocks: the deadlines that events start, and what closes them.

use super::*;
use crate::rules::vocabulary::{
    EventKind, FAILED_INSPECTION, ILLEGALLY_INSTALLED, INSPECTION, NOT_FUNCTIONING, PUMP_OUT,
    SYSTEM_INSTALLED, SYSTEM_REPLACED,
};

fn d(y: i32, m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, day).unwrap()
}

fn event(kind: impl AsRef<str>, date: NaiveDate, values: Vec<(&'static str, EventValue)>) -> Event {
    let source = Source { path: std::path::Path::new("events.csv").into(), line: 2 };
    let kind = EventKind::named(kind.as_ref()).expect("an event of the vocabulary");
    Event { parcel: 0, kind, date, source, values, system: None, replaces: None }
}

/// `e` read from line `line` of the events file: events of one day keep the file's order.
fn on_line(line: usize, e: Event) -> Event {
    Event { source: Source { line, ..e.source }, ..e }
}

/// (clock id, due, overdue) of the open obligations of `events` on `as_of` under Chapter 56.
fn open(
    events: &[Event],
    inspected: Option<NaiveDate>,
    as_of: NaiveDate,
) -> Vec<(String, Option<NaiveDate>, bool)> {
    found(&RuleSet::gorham_ch56(), events, inspected, as_of)
        .into_iter()
        .map(|o| (o.kind.as_str().to_string(), o.due, o.overdue))
        .collect()
}

/// The obligations of `events` plus an inspection on `inspected` under `rules` on `as_of`.
fn found(
    rules: &RuleSet,
    events: &[Event],
    inspected: Option<NaiveDate>,
    as_of: NaiveDate,
) -> Vec<Obligation> {
    let mut all = events.to_vec();
    all.extend(inspected.map(|d| event(INSPECTION, d, vec![])));
    all.sort_by_key(|e| e.date);
    let input = ParcelEvents { parcel: 0, events: &all };
    clock_obligations(rules, &input, as_of, &mut Vec::new())
}

/// (clock id, due, overdue, corrected) of the obligations of `events` under `rules` on `as_of`, sorted.
fn state_on(
    rules: &RuleSet,
    events: &[Event],
    as_of: NaiveDate,
) -> Vec<(String, Option<NaiveDate>, bool, Option<NaiveDate>)> {
    let mut got: Vec<_> = found(rules, events, None, as_of)
        .into_iter()
        .map(|o| (o.kind.as_str().to_string(), o.due, o.overdue, o.corrected))
        .collect();
    got.sort();
    got
}

fn due_of(found: &[(String, Option<NaiveDate>, bool)], id: &str) -> Option<Option<NaiveDate>> {
    found.iter().find(|(i, ..)| i == id).map(|(_, due, _)| *due)
}

/// §701.2: notice within 7 business days. Received Wednesday 2026-11-25: Thursday is Thanksgiving, Friday
/// counts (1), Mon-Fri Nov 30-Dec 4 (2-6), Monday Dec 7 (7).
#[test]
fn complaint_notice_counts_business_days() {
    let found = open(&[event("complaint", d(2026, 11, 25), vec![])], None, d(2026, 12, 7));
    assert_eq!(due_of(&found, "complaint-notice"), Some(Some(d(2026, 12, 7))));
    assert!(found.iter().all(|(_, _, overdue)| !overdue), "due today is not late: {found:?}");
    let late = open(&[event("complaint", d(2026, 11, 25), vec![])], None, d(2026, 12, 8));
    assert!(late.iter().any(|(id, _, overdue)| id == "complaint-notice" && *overdue));
    // The notice closes it; the inspection the notice requires stays open until one is on record.
    let answered =
        [event("complaint", d(2026, 11, 25), vec![]), event("owner-notice", d(2026, 12, 1), vec![])];
    let found = open(&answered, None, d(2027, 1, 4));
    assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), ["complaint-inspection"]);
    assert!(open(&answered, Some(d(2026, 12, 20)), d(2027, 1, 4)).is_empty());
}

/// §402.3: denial notice within 7 working days of the denial: denied Monday 2026-12-28; Dec 29, 30, 31
/// (1-3), New Year's Day off, Jan 4-7 (4-7). §801.1: the appeal window of 30 days ends Wednesday
/// 2027-01-27, and lapses after it.
#[test]
fn denial_notice_and_appeal_window() {
    let denied = [event("application-denied", d(2026, 12, 28), vec![])];
    let found = open(&denied, None, d(2027, 1, 15));
    assert_eq!(due_of(&found, "denial-notice"), Some(Some(d(2027, 1, 7))));
    assert_eq!(due_of(&found, "appeal-window"), Some(Some(d(2027, 1, 27))));
    let later = open(&denied, None, d(2027, 1, 28));
    assert_eq!(due_of(&later, "appeal-window"), None, "a lapsed right is not an obligation");
}

/// §801.2-3: hearing notice within 30 days of receiving the appeal, hearing within 15 days of the
/// notice, decision within 30 days of adjournment. A notice on Friday 2026-11-20 puts the hearing on
/// Saturday Dec 5, which runs to Monday Dec 7 (GCL §25-a).
#[test]
fn appeal_clocks() {
    let found = open(&[event("appeal-received", d(2026, 10, 26), vec![])], None, d(2026, 11, 1));
    assert_eq!(due_of(&found, "appeal-hearing-notice"), Some(Some(d(2026, 11, 25))));
    let found = open(&[event("hearing-notice", d(2026, 11, 20), vec![])], None, d(2026, 11, 21));
    assert_eq!(due_of(&found, "appeal-hearing"), Some(Some(d(2026, 12, 7))));
    // Adjourned Monday 2026-12-07: + 30 days = Wednesday 2027-01-06.
    let found = open(&[event("hearing-adjourned", d(2026, 12, 7), vec![])], None, d(2027, 1, 15));
    assert_eq!(found, vec![("appeal-decision".to_string(), Some(d(2027, 1, 6)), true)]);
}

/// §801.3: "Within thirty (30) days of final adjournment of a public hearing, the local governing body shall
/// affirm, modify or deny". A hearing held with nothing after it is taken as finally adjourned that day
/// (the rule set's reading): held Monday 2026-11-30, + 30 days = Wednesday 2026-12-30. Continued the same
/// day (a later line of the file) and finally adjourned Monday 2026-12-07: the decision is due 30 days
/// after the adjournment, Wednesday 2027-01-06, and only then. Held again on Monday 2026-12-14 (a second
/// session): due Wednesday 2027-01-13, once. Continued with no later session: nothing is owed yet. Held and
/// adjourned on one day: one obligation. A decision on 2026-12-20 meets the 2026-12-30 date.
#[test]
fn a_hearing_held_is_finally_adjourned_unless_continued() {
    let decision = |events: &[Event]| -> Vec<Option<NaiveDate>> {
        open(events, None, d(2027, 1, 15))
            .into_iter()
            .filter(|(id, ..)| id == "appeal-decision")
            .map(|(_, due, _)| due)
            .collect()
    };
    let held = |line, on| on_line(line, event("hearing-held", on, vec![]));
    let continued = |line, on| on_line(line, event("hearing-continued", on, vec![]));
    let adjourned = |line, on| on_line(line, event("hearing-adjourned", on, vec![]));
    assert_eq!(decision(&[held(2, d(2026, 11, 30))]), [Some(d(2026, 12, 30))]);
    assert_eq!(
        decision(&[held(2, d(2026, 11, 30)), continued(3, d(2026, 11, 30)), adjourned(4, d(2026, 12, 7))]),
        [Some(d(2027, 1, 6))]
    );
    assert_eq!(decision(&[held(2, d(2026, 11, 30)), held(3, d(2026, 12, 14))]), [Some(d(2027, 1, 13))]);
    assert_eq!(decision(&[held(2, d(2026, 11, 30)), continued(3, d(2026, 11, 30))]), []);
    assert_eq!(decision(&[held(2, d(2026, 11, 30)), adjourned(3, d(2026, 11, 30))]), [Some(d(2026, 12, 30))]);
    // A continuation written above the session on the same day does not come after it.
    assert_eq!(decision(&[continued(2, d(2026, 11, 30)), held(3, d(2026, 11, 30))]), [Some(d(2026, 12, 30))]);
    let decided = [held(2, d(2026, 11, 30)), on_line(3, event("appeal-decision", d(2026, 12, 20), vec![]))];
    assert_eq!(decision(&decided), []);
    // The session held closes §801.2's hearing clock, continued or not: notice Friday 2026-11-20, hearing
    // due 15 days later (Saturday Dec 5, run to Monday Dec 7).
    let noticed = [event("hearing-notice", d(2026, 11, 20), vec![]), continued(3, d(2026, 11, 30))];
    assert_eq!(due_of(&open(&noticed, None, d(2027, 1, 15)), "appeal-hearing"), None);
}

/// §601.2: "Upon receipt of such notice the property owner shall be given thirty (30) days to obtain a
/// wastewater treatment permit." Received Monday 2026-11-23: + 30 days = Wednesday 2026-12-23. Received
/// Friday 2026-10-02: + 30 = Sunday Nov 1 → Monday Nov 2 (§25-a). No receipt recorded: notice Wednesday
/// 2024-07-10 + 5 days for mailing (the rule set's allowance) = Monday 07-15, + 30 = Wednesday 2024-08-14.
#[test]
fn deficiency_permit_thirty_days_from_receipt() {
    let received = |sent, on| event("deficiency-notice", sent, vec![("received", EventValue::Date(on))]);
    let got = open(&[received(d(2026, 11, 20), d(2026, 11, 23))], None, d(2026, 11, 24));
    assert_eq!(due_of(&got, "deficiency-permit"), Some(Some(d(2026, 12, 23))));
    let got = open(&[received(d(2026, 9, 30), d(2026, 10, 2))], None, d(2026, 10, 3));
    assert_eq!(due_of(&got, "deficiency-permit"), Some(Some(d(2026, 11, 2))));
    let rules = RuleSet::gorham_ch56();
    let mailed = found(&rules, &[event("deficiency-notice", d(2024, 7, 10), vec![])], None, d(2024, 7, 11));
    let permit = mailed.iter().find(|o| o.kind.as_str() == "deficiency-permit").expect("open");
    assert_eq!(permit.due, Some(d(2024, 8, 14)));
    let detail = permit.detail.as_deref().unwrap_or_default();
    assert!(detail.contains("plus 5 days for mailing (2024-07-15)"), "{detail}");
    let got = found(&rules, &[received(d(2026, 11, 20), d(2026, 11, 23))], None, d(2026, 11, 24));
    let detail = got.iter().find(|o| o.kind.as_str() == "deficiency-permit").and_then(|o| o.detail.clone());
    assert_eq!(detail.as_deref(), Some("counted from receipt on 2026-11-23 (received)"));
    let permitted =
        [event("deficiency-notice", d(2024, 7, 10), vec![]), event("permit-issued", d(2024, 8, 1), vec![])];
    assert_eq!(due_of(&open(&permitted, None, d(2024, 9, 1)), "deficiency-permit"), None);
}

/// §501.1(b), (d): an arm's-length conveyance needs an inspection before it; a non-arm's-length one is
/// exempt; a blank flag counts as arm's length. An inspection within the 12 months before closes it; one
/// after the conveyance is a breach corrected late.
#[test]
fn conveyance_inspection() {
    let sale = |flag: Option<bool>| {
        event(
            "transfer",
            d(2026, 12, 1),
            flag.map(|f| ("arms_length", EventValue::YesNo(f))).into_iter().collect(),
        )
    };
    let due = Some(Some(d(2026, 12, 1)));
    assert_eq!(due_of(&open(&[sale(Some(true))], None, d(2027, 1, 15)), "conveyance-inspection"), due);
    assert_eq!(due_of(&open(&[sale(None)], None, d(2027, 1, 15)), "conveyance-inspection"), due);
    assert_eq!(due_of(&open(&[sale(Some(false))], None, d(2027, 1, 15)), "conveyance-inspection"), None);
    assert_eq!(
        due_of(&open(&[sale(None)], Some(d(2025, 12, 1)), d(2027, 1, 15)), "conveyance-inspection"),
        None
    );
    assert_eq!(
        due_of(&open(&[sale(None)], Some(d(2025, 11, 30)), d(2027, 1, 15)), "conveyance-inspection"),
        due
    );
    let rules = RuleSet::gorham_ch56();
    let late = found(&rules, &[sale(None)], Some(d(2026, 12, 2)), d(2027, 1, 15));
    let row = late.iter().find(|o| o.kind.as_str() == "conveyance-inspection").expect("listed");
    assert_eq!((row.due, row.corrected, row.overdue), (Some(d(2026, 12, 1)), Some(d(2026, 12, 2)), false));
}

/// Art. V §IV.B.1: "Prior to any property transfer, all septic or holding tanks must be pumped out ...
/// unless ... pumped out by a licensed hauler within the last twelve months"; §IV.B.2: "Prior to, or at
/// the time of property transfer, all wastewater treatment systems shall be inspected". Transfer Thursday
/// 2026-10-15. A pump-out 2025-10-15 (twelve months before) or on the transfer day meets the duty;
/// 2025-10-14 is too early; one on 2026-10-20 is after the transfer: breached on 10-15, corrected late on
/// 10-20. An inspection at the time of transfer meets §IV.B.2; one on 2026-11-02 corrects it late.
#[test]
fn pre_transfer_duties_are_met_only_before_the_transfer() {
    let rules = RuleSet::cayuga_art_v();
    let transfer = event("transfer", d(2026, 10, 15), vec![]);
    let pumped = |on| event(PUMP_OUT, on, vec![]);
    let state = |events: &[Event], inspected: Option<NaiveDate>, id: &str| {
        found(&rules, events, inspected, d(2027, 1, 15))
            .into_iter()
            .find(|o| o.kind.as_str() == id)
            .map(|o| (o.due, o.overdue, o.corrected))
    };
    let due = Some(d(2026, 10, 15));
    let pump = "transfer-pump-out";
    assert_eq!(state(&[transfer.clone(), pumped(d(2025, 10, 15))], None, pump), None);
    assert_eq!(state(&[transfer.clone(), pumped(d(2026, 10, 15))], None, pump), None);
    assert_eq!(state(&[transfer.clone(), pumped(d(2025, 10, 14))], None, pump), Some((due, true, None)));
    assert_eq!(
        state(&[transfer.clone(), pumped(d(2026, 10, 20))], None, pump),
        Some((due, false, Some(d(2026, 10, 20))))
    );
    // A pump-out in time and another after: met.
    let both = [pumped(d(2026, 9, 1)), transfer.clone(), pumped(d(2026, 10, 20))];
    assert_eq!(state(&both, None, pump), None);
    let inspection = "transfer-inspection";
    assert_eq!(state(std::slice::from_ref(&transfer), Some(d(2026, 10, 15)), inspection), None);
    assert_eq!(
        state(std::slice::from_ref(&transfer), Some(d(2026, 11, 2)), inspection),
        Some((due, false, Some(d(2026, 11, 2))))
    );
    assert_eq!(state(&[transfer], None, inspection), Some((due, true, None)));
}

/// §601.1: "Upon discovery of a wastewater treatment system which is not adequately functioning or
/// determined to have been illegally installed, the authority having jurisdiction shall immediately notify
/// the property owner in writing". An inspection on Wednesday 2026-09-09 that found the system not
/// adequately functioning owes the notice that day; one whose row also found failure owes one notice, not
/// two; a determination of illegal installation on Wednesday 2021-05-05 owes it too, and a notice that day
/// meets it.
#[test]
fn not_functioning_or_illegally_installed_owes_the_deficiency_notice() {
    let inspection = |kind, on| {
        let source = Source { path: std::path::Path::new("history.csv").into(), line: 7 };
        Event { source, ..event(kind, on, vec![]) }
    };
    let notices = |events: &[Event]| -> Vec<(Option<NaiveDate>, bool)> {
        open(events, None, d(2027, 1, 15))
            .into_iter()
            .filter(|(id, ..)| id == "deficiency-notice")
            .map(|(_, due, overdue)| (due, overdue))
            .collect()
    };
    let on = d(2026, 9, 9);
    assert_eq!(notices(&[inspection(NOT_FUNCTIONING, on)]), [(Some(on), true)]);
    assert_eq!(
        notices(&[inspection(FAILED_INSPECTION, on), inspection(NOT_FUNCTIONING, on)]),
        [(Some(on), true)]
    );
    let illegal = d(2021, 5, 5);
    assert_eq!(notices(&[inspection(ILLEGALLY_INSTALLED, illegal)]), [(Some(illegal), true)]);
    let told = [inspection(ILLEGALLY_INSTALLED, illegal), event("deficiency-notice", illegal, vec![])];
    assert_eq!(notices(&told), []);
}

/// Art. V §III.B: "No person shall ... expand, repair, modify, enlarge or convert to another use any
/// structure or system that will or may increase the amount of wastewater that is generated ... without
/// obtaining the requisite approval and permits from the County Health Department". An expansion on Monday
/// 2026-06-15, of any size ("will or may": 10 % will do), owes both that day. Plans accepted on 2025-06-15,
/// twelve months before (the rule set's look-back), meet the approval; on 2025-06-14 they are too old. A
/// construction permit on Friday 2026-07-10 is after the expansion: breached on 06-15, corrected late on
/// 07-10. A change of use on Thursday 2026-10-01 with nothing on record owes both, overdue on 2027-01-15.
#[test]
fn expansion_or_change_of_use_needs_approval_and_a_permit_before() {
    let rules = RuleSet::cayuga_art_v();
    let state = |events: &[Event]| state_on(&rules, events, d(2027, 1, 15));
    let expanded = event("expansion", d(2026, 6, 15), vec![("expansion_pct", EventValue::Number(10.0))]);
    let due = Some(d(2026, 6, 15));
    let accepted = |on| event("plan-accepted", on, vec![]);
    let permit = event("construction-permit", d(2026, 7, 10), vec![]);
    assert_eq!(
        state(&[accepted(d(2025, 6, 15)), expanded.clone(), permit.clone()]),
        [("wastewater-increase-permit".into(), due, false, Some(d(2026, 7, 10)))]
    );
    assert_eq!(
        state(&[accepted(d(2025, 6, 14)), expanded, permit]),
        [
            ("wastewater-increase-approval".into(), due, true, None),
            ("wastewater-increase-permit".into(), due, false, Some(d(2026, 7, 10))),
        ]
    );
    let changed = Some(d(2026, 10, 1));
    assert_eq!(
        state(&[event("change-of-use", d(2026, 10, 1), vec![])]),
        [
            ("wastewater-increase-approval".into(), changed, true, None),
            ("wastewater-increase-permit".into(), changed, true, None),
        ]
    );
}

/// Art. V §VII.A.1: "Construction of a new system or modification of an existing system ... all require a
/// review of plans and acceptance by the Cayuga County Health Department, prior to construction"; §III.B:
/// no one shall "build, erect, construct" one "without obtaining the requisite approval and permits". A
/// system replaced and put in service on Friday 2026-05-01 with its plans accepted that day (records carry
/// dates: the same day counts as before) owes only the permit, overdue. A system installed on Wednesday
/// 2025-09-03 whose plans were accepted on 2024-09-02, a day before the twelve-month look-back begins
/// (2024-09-03), owes the acceptance, overdue; its construction permit came on Monday 2025-09-22, after it:
/// breached on 09-03, corrected late.
#[test]
fn new_and_replaced_systems_need_plans_accepted_and_a_permit_before_construction() {
    let rules = RuleSet::cayuga_art_v();
    let state = |events: &[Event]| state_on(&rules, events, d(2027, 1, 15));
    let replaced =
        [event("system-replaced", d(2026, 5, 1), vec![]), event("plan-accepted", d(2026, 5, 1), vec![])];
    assert_eq!(state(&replaced), [("system-construction-permit".into(), Some(d(2026, 5, 1)), true, None)]);
    let installed = [
        event("plan-accepted", d(2024, 9, 2), vec![]),
        event(SYSTEM_INSTALLED, d(2025, 9, 3), vec![]),
        event("construction-permit", d(2025, 9, 22), vec![]),
    ];
    let due = Some(d(2025, 9, 3));
    assert_eq!(
        state(&installed),
        [
            ("system-construction-permit".into(), due, false, Some(d(2025, 9, 22))),
            ("system-plan-acceptance".into(), due, true, None),
        ]
    );
}

/// Ch. 56 §301.1: "It shall be unlawful to install, construct, alter, replace ... any wastewater treatment
/// system unless a wastewater treatment permit is issued by the authority having jurisdiction"; §402.4:
/// "no persons shall occupy any building unless the wastewater treatment system has been approved". A
/// system installed on Monday 2026-03-02 under a permit issued 2025-03-02 (twelve months before) owes
/// nothing; with a permit of Wednesday 2026-04-01 it is a breach corrected late; a replacement with no
/// permit is overdue, and says the building may not be occupied.
#[test]
fn a_new_or_replaced_system_needs_its_permit_first() {
    let rules = RuleSet::gorham_ch56();
    let installed = |permit: Option<NaiveDate>| {
        let mut events = vec![event(SYSTEM_INSTALLED, d(2026, 3, 2), vec![])];
        events.extend(permit.map(|on| event("permit-issued", on, vec![])));
        found(&rules, &events, None, d(2027, 1, 15))
            .into_iter()
            .find(|o| o.kind.as_str() == "system-installation-permit")
            .map(|o| (o.due, o.overdue, o.corrected))
    };
    assert_eq!(installed(Some(d(2025, 3, 2))), None);
    assert_eq!(installed(Some(d(2026, 4, 1))), Some((Some(d(2026, 3, 2)), false, Some(d(2026, 4, 1)))));
    let replaced = found(&rules, &[event(SYSTEM_REPLACED, d(2026, 3, 2), vec![])], None, d(2027, 1, 15));
    let owed = replaced.iter().find(|o| o.kind.as_str() == "system-installation-permit").expect("owed");
    assert_eq!((owed.due, owed.overdue), (Some(d(2026, 3, 2)), true));
    assert!(owed.what.contains("no one may occupy the building"), "{}", owed.what);
}

/// §501.1(c) "greater than fifty percent" and §307.1(d) "in excess of 1,000 gallons per day".
#[test]
fn thresholds_are_strict() {
    let expansion =
        |pct: f64| event("expansion", d(2026, 6, 1), vec![("expansion_pct", EventValue::Number(pct))]);
    assert!(due_of(&open(&[expansion(50.0)], None, d(2026, 7, 1)), "expansion-inspection").is_none());
    assert!(due_of(&open(&[expansion(50.5)], None, d(2026, 7, 1)), "expansion-inspection").is_some());
    let application =
        |gpd: f64| event("permit-application", d(2026, 6, 1), vec![("flow_gpd", EventValue::Number(gpd))]);
    assert!(due_of(&open(&[application(1000.0)], None, d(2026, 7, 1)), "state-approval-flow").is_none());
    assert!(due_of(&open(&[application(1000.5)], None, d(2026, 7, 1)), "state-approval-flow").is_some());
}

/// The detail of the open `violation` of `events` under Chapter 56 on `as_of`.
fn violation_detail(events: &[Event], as_of: NaiveDate) -> String {
    let found = found(&RuleSet::gorham_ch56(), events, None, as_of);
    let violation = found.iter().find(|o| o.kind.as_str() == "violation").expect("open violation");
    assert_eq!(violation.due, Some(events[0].date), "due on the notice's own date");
    violation.detail.clone().unwrap_or_default()
}

/// §904: "a fine not to exceed the sum of $250 ... Each week such violation continues after notification to
/// the person in violation shall constitute a separate violation. Such violation notice shall be served by
/// certified mail, return receipt requested, or by personal service." The weeks count from notification.
///
/// Notice 2026-12-01, the return receipt signed 2026-12-02: on 2027-01-15, 44 days after receipt, six full
/// weeks have passed: seven violations, up to $1,750. On 2026-12-08, six days after receipt: one violation,
/// $250. Received 2026-12-09 instead: 37 days, five full weeks, six violations, $1,500 (counted from the
/// notice date it would be seven).
#[test]
fn violations_count_weeks_after_notification() {
    let notice = |received: Option<NaiveDate>| {
        let values = received.map(|r| ("received", EventValue::Date(r))).into_iter().collect();
        event("violation-notice", d(2026, 12, 1), values)
    };
    let detail = violation_detail(&[notice(Some(d(2026, 12, 2)))], d(2027, 1, 15));
    assert!(detail.contains("7 violations") && detail.contains("$1750"), "{detail}");
    assert!(detail.contains("counted from receipt on 2026-12-02"), "{detail}");
    let detail = violation_detail(&[notice(Some(d(2026, 12, 2)))], d(2026, 12, 8));
    assert!(detail.contains("1 violation ") && detail.contains("$250"), "{detail}");
    let detail = violation_detail(&[notice(Some(d(2026, 12, 9)))], d(2027, 1, 15));
    assert!(detail.contains("6 violations") && detail.contains("$1500"), "{detail}");
}

/// §904 with only the mailing date on record: our reading counts notification from the notice date plus
/// the 5 days for mailing the rule set gives §601.2's notice. Notice 2026-12-01: notified 2026-12-06; on
/// 2027-01-15, 40 days later, five full weeks: six violations, up to $1,500 (not the seven of 45 days from
/// the mailing). On 2026-12-12, six days after notification: one violation.
#[test]
fn without_a_receipt_violations_count_from_the_mailing_plus_its_allowance() {
    let notice = [event("violation-notice", d(2026, 12, 1), vec![])];
    let detail = violation_detail(&notice, d(2027, 1, 15));
    assert!(detail.contains("6 violations") && detail.contains("$1500"), "{detail}");
    assert!(detail.contains("plus 5 days for mailing (2026-12-06)"), "{detail}");
    let detail = violation_detail(&notice, d(2026, 12, 12));
    assert!(detail.contains("1 violation ") && detail.contains("$250"), "{detail}");
}

/// "Prior to" means before the act it guards. Art. V §IV.B.2: "Prior to, or at the time of property
/// transfer, all wastewater treatment systems shall be inspected"; the inspection answers a transfer when
/// dated on or before it and after the previous transfer on record. Transfers 2020-06-01 and Thursday
/// 2026-10-15: an inspection of 2023-03-01, after the 2020 sale and three and a half years before the
/// second, answers the second (a twelve-month window would call it a breach), and the first sale is
/// answered by its own inspection of 2020-05-01. With only the 2020-05-01 inspection, the 2026 sale is owed:
/// that inspection answered the 2020 sale. Before the first transfer on record the rule set's twelve months
/// stand in: a lone transfer on 2026-10-15 is answered by an inspection on 2025-10-15, not on 2025-10-14.
#[test]
fn prior_to_reaches_back_to_the_previous_act_of_its_kind() {
    let rules = RuleSet::cayuga_art_v();
    let owed = |events: &[Event], inspections: &[NaiveDate]| {
        let mut all = events.to_vec();
        all.extend(inspections.iter().map(|&on| event(INSPECTION, on, vec![])));
        all.sort_by_key(|e| e.date);
        state_on(&rules, &all, d(2027, 1, 15))
            .into_iter()
            .filter(|o| o.0 == "transfer-inspection")
            .map(|o| (o.1, o.2))
            .collect::<Vec<_>>()
    };
    let sales = [event("transfer", d(2020, 6, 1), vec![]), event("transfer", d(2026, 10, 15), vec![])];
    assert_eq!(owed(&sales, &[d(2020, 5, 1), d(2023, 3, 1)]), []);
    assert_eq!(owed(&sales, &[d(2020, 5, 1)]), [(Some(d(2026, 10, 15)), true)]);
    let lone = [event("transfer", d(2026, 10, 15), vec![])];
    assert_eq!(owed(&lone, &[d(2025, 10, 15)]), []);
    assert_eq!(owed(&lone, &[d(2025, 10, 14)]), [(Some(d(2026, 10, 15)), true)]);
}

/// §VII.A.1: plans accepted "prior to construction". Approvals issued well before construction are not
/// breaches: a system installed 2005-05-01 and replaced Monday 2026-06-01, whose replacement's plans were
/// accepted 2024-02-01 and construction permit issued 2025-01-10, owes nothing; the same approvals dated
/// 2004-12-01, before the 2005 installation, answered that one and leave the replacement owing both.
#[test]
fn approvals_long_before_construction_answer_it_after_the_previous_one() {
    let rules = RuleSet::cayuga_art_v();
    let owed = |accepted: NaiveDate, permitted: NaiveDate| {
        let mut events = vec![
            event(SYSTEM_INSTALLED, d(2005, 5, 1), vec![]),
            event(SYSTEM_REPLACED, d(2026, 6, 1), vec![]),
            event("plan-accepted", accepted, vec![]),
            event("construction-permit", permitted, vec![]),
        ];
        events.sort_by_key(|e| e.date);
        state_on(&rules, &events, d(2027, 1, 15))
            .into_iter()
            .filter(|o| o.1 == Some(d(2026, 6, 1)))
            .map(|o| o.0)
            .collect::<Vec<_>>()
    };
    assert_eq!(owed(d(2024, 2, 1), d(2025, 1, 10)), Vec::<String>::new());
    assert_eq!(
        owed(d(2004, 12, 1), d(2004, 12, 1)),
        ["system-construction-permit", "system-plan-acceptance"]
    );
}

/// A duty met late stays on the record, with both dates, "met late" and its clause, for the years the rule set
/// keeps (three). Ch. 56 §904: a violation noticed 2022-03-01 (received that day) and corrected 2024-02-01
/// is listed on 2027-01-15 (the record reaches back to 2024-01-15); one corrected 2023-05-01 is not, unless
/// the rule set keeps five years.
#[test]
fn a_duty_met_late_stays_for_the_years_kept() {
    let notice =
        event("violation-notice", d(2022, 3, 1), vec![("received", EventValue::Date(d(2022, 3, 1)))]);
    let corrected = |on| [notice.clone(), event("violation-corrected", on, vec![])];
    let listed = |rules: &RuleSet, on| {
        found(rules, &corrected(on), None, d(2027, 1, 15))
            .into_iter()
            .filter(|o| o.kind.as_str() == "violation")
            .map(|o| (o.corrected, o.detail.unwrap_or_default(), o.citation.to_string()))
            .collect::<Vec<_>>()
    };
    let rules = RuleSet::gorham_ch56();
    let kept = listed(&rules, d(2024, 2, 1));
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].0, Some(d(2024, 2, 1)));
    assert!(kept[0].1.contains("met late: due 2022-03-01, done 2024-02-01"), "{kept:?}");
    assert_eq!(kept[0].2, "Ch. 56 §904");
    assert_eq!(listed(&rules, d(2023, 5, 1)), []);
    let mut longer = RuleSet::gorham_ch56();
    longer.record.met_late_years = 5;
    assert_eq!(listed(&longer, d(2023, 5, 1)).len(), 1);
}
