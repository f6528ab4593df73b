//! Tests of a system's class and permit under Art. V §V and §X.

use super::*;
use crate::model::error::Location;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// A system that meets existing standards by the three measured conditions.
fn sound() -> Findings {
    Findings {
        failure: false,
        overflow_points: false,
        components_working: true,
        tank_adequate: true,
        separation_ft: Some(2.0),
        valid_permit: false,
        meets_75a: false,
    }
}

/// A located system 100 ft from the nearest watercourse, no permit dates on record.
fn context(inspected: NaiveDate) -> Context {
    Context {
        inspected,
        watercourse_ft: Measured::Ft(100.0),
        system_located: true,
        measured_ft: None,
        flood: None,
        starts: None,
        expires: None,
        renewals: Vec::new(),
        breached: false,
        improperly_maintained: false,
        roll_forward: false,
    }
}

fn rules() -> PermitRules {
    RuleSet::cayuga_art_v().permits.expect("Art. V has permits")
}

#[test]
fn classes_follow_section_v() {
    let at = context(date(2026, 6, 1));
    let class = |f: Findings, c: &Context| decide_permit(&rules(), &f, c).class;
    // Exactly 2 ft and 100 ft meet "two feet" and "at least 100 feet" (§V.B.5).
    assert_eq!(class(sound(), &at), Class::Existing);
    assert_eq!(class(Findings { meets_75a: true, ..sound() }, &at), Class::Design);
    assert_eq!(class(Findings { separation_ft: Some(1.9), ..sound() }, &at), Class::Substandard);
    assert_eq!(class(Findings { separation_ft: None, ..sound() }, &at), Class::Substandard);
    assert_eq!(class(Findings { tank_adequate: false, ..sound() }, &at), Class::Substandard);
    let near_creek = Context { watercourse_ft: Measured::Ft(99.9), ..at.clone() };
    assert_eq!(class(sound(), &near_creek), Class::Substandard);
    // A valid permit is enough for existing standards whatever the measurements.
    assert_eq!(
        class(Findings { valid_permit: true, tank_adequate: false, ..sound() }, &near_creek),
        Class::Existing
    );
    // §V.B.1-4 are conditions of any permit to discharge, design standards included.
    assert_eq!(
        class(Findings { meets_75a: true, overflow_points: true, ..sound() }, &at),
        Class::Substandard
    );
    assert_eq!(class(Findings { components_working: false, ..sound() }, &at), Class::Substandard);
    assert_eq!(class(Findings { failure: true, ..sound() }, &at), Class::Failed);
    let no_layer = Context { watercourse_ft: Measured::Unmeasured, ..at.clone() };
    assert_eq!(class(sound(), &no_layer), Class::Substandard);
    let beyond = Context { watercourse_ft: Measured::BeyondRadius, ..at };
    assert_eq!(class(sound(), &beyond), Class::Existing);
}

/// §V.B.5(c)(3): "the absorption field is separated from any watercourse or wetland by at least 100
/// feet". The distance runs from the absorption field, so a parcel edge 150 ft (or 15 ft) from a creek
/// decides nothing: without the system's location or the distance the inspector measured (§IV.C.6: "the
/// distances separating the applicant's ... disposal fields ... from adjacent wells, watercourse"), the
/// class cannot be verified and no interim-renewal chain starts. A measured distance wins over GIS.
#[test]
fn the_hundred_feet_run_from_the_absorption_field() {
    let unlocated = Context {
        system_located: false,
        watercourse_ft: Measured::Ft(15.0),
        starts: Some(date(2026, 6, 20)),
        ..context(date(2026, 6, 1))
    };
    let p = decide_permit(&rules(), &sound(), &unlocated);
    assert_eq!(
        (p.class, p.kind, p.renewal_due, p.starts),
        (Class::Unverified, PermitKind::Undecided, None, None)
    );
    assert_eq!(p.class.as_str(), "cannot verify: system location needed");
    // Another shortfall decides the class without the distance: separation 1.5 ft < 2 ft is substandard.
    let shallow = Findings { separation_ft: Some(1.5), ..sound() };
    assert_eq!(decide_permit(&rules(), &shallow, &unlocated).class, Class::Substandard);
    // A valid permit decides it too.
    let permitted = Findings { valid_permit: true, ..sound() };
    assert_eq!(decide_permit(&rules(), &permitted, &unlocated).class, Class::Existing);
    // The inspector measured 120 ft: existing standards, although GIS put the parcel 15 ft away.
    let measured = Context { measured_ft: Some(120.0), ..unlocated.clone() };
    assert_eq!(decide_permit(&rules(), &sound(), &measured).class, Class::Existing);
    // Measured 60 ft wins over a located system's GIS 150 ft: substandard.
    let closer =
        Context { measured_ft: Some(60.0), watercourse_ft: Measured::Ft(150.0), ..context(date(2026, 6, 1)) };
    assert_eq!(decide_permit(&rules(), &sound(), &closer).class, Class::Substandard);
}

/// §V.B: a permit to discharge "for a term of up to five years"; §V.C, §V.F: an interim permit "for a
/// minimum term of one year", "An application for renewal of an interim permit to discharge annually
/// shall be made". The terms bound what the Health Department sets; the dates come from the records.
#[test]
fn permit_dates_come_from_the_records() {
    // No dates on record: a permit to discharge with no expiry (the term is for staff to set).
    let p = decide_permit(&rules(), &sound(), &context(date(2026, 6, 1)));
    assert_eq!((p.kind, p.starts, p.expires), (PermitKind::Discharge, None, None));
    // Issued 2026-06-20 with expiry 2029-06-20 on record: those dates, nothing computed.
    let issued = Context {
        starts: Some(date(2026, 6, 20)),
        expires: Some(date(2029, 6, 20)),
        ..context(date(2026, 6, 1))
    };
    let p = decide_permit(&rules(), &sound(), &issued);
    assert_eq!((p.starts, p.expires), (Some(date(2026, 6, 20)), Some(date(2029, 6, 20))));
    // Interim with no start on record: no renewal date can be given.
    let bad = Findings { tank_adequate: false, ..sound() };
    let p = decide_permit(&rules(), &bad, &context(date(2025, 3, 10)));
    assert_eq!((p.kind, p.renewal_due, p.renewable), (PermitKind::Interim, None, true));
    // Dated from the acceptance of the report, 2025-03-24: renewal applied for by 2026-03-24.
    let accepted = Context { starts: Some(date(2025, 3, 24)), ..context(date(2025, 3, 10)) };
    assert_eq!(decide_permit(&rules(), &bad, &accepted).renewal_due, Some(date(2026, 3, 24)));
    // Renewed 2026-02-20, before it was due: next 2027-03-24. Renewed again 2027-03-01: 2028-03-24.
    let renewed = Context { renewals: vec![date(2026, 2, 20)], ..accepted.clone() };
    assert_eq!(decide_permit(&rules(), &bad, &renewed).renewal_due, Some(date(2027, 3, 24)));
    let twice = Context { renewals: vec![date(2026, 2, 20), date(2027, 3, 1)], ..accepted.clone() };
    assert_eq!(decide_permit(&rules(), &bad, &twice).renewal_due, Some(date(2028, 3, 24)));
    // Renewed only 2026-04-01, after 2026-03-24 passed: that renews the year in progress, to 2027-03-24.
    let late = Context { renewals: vec![date(2026, 4, 1)], ..accepted.clone() };
    assert_eq!(decide_permit(&rules(), &bad, &late).renewal_due, Some(date(2027, 3, 24)));
    // A recorded expiry is the first renewal date.
    let expiring = Context { expires: Some(date(2026, 9, 30)), ..accepted.clone() };
    assert_eq!(decide_permit(&rules(), &bad, &expiring).renewal_due, Some(date(2026, 9, 30)));
    let breached = Context { breached: true, ..accepted };
    assert!(!decide_permit(&rules(), &bad, &breached).renewable);
    // Failed: no permit, and no dates even when some are on record.
    let p = decide_permit(&rules(), &Findings { failure: true, ..sound() }, &issued);
    assert_eq!((p.kind, p.starts, p.expires), (PermitKind::None, None, None));
}

/// §V.B: "A permit to discharge from a wastewater treatment system may be issued by the Health Department
/// for a term of up to five years". Issued 2026-03-01 with an expiry of 2036-03-01 on record: five years
/// from 2026-03-01 is 2031-03-01, so it must renew by then. An expiry on that day is within the term and
/// stands; one a day later gives way. Without a start on record there is nothing to count from, and the
/// recorded expiry stands.
#[test]
fn a_permit_to_discharge_ends_within_five_years_of_its_start() {
    let issued = |expires| Context {
        starts: Some(date(2026, 3, 1)),
        expires: Some(expires),
        ..context(date(2026, 2, 10))
    };
    let p = decide_permit(&rules(), &sound(), &issued(date(2036, 3, 1)));
    assert_eq!(
        (p.kind, p.starts, p.expires),
        (PermitKind::Discharge, Some(date(2026, 3, 1)), Some(date(2031, 3, 1)))
    );
    assert_eq!(
        p.out_of_term,
        Some(OutOfTerm { recorded: date(2036, 3, 1), used: date(2031, 3, 1), limit: TermLimit::Longest })
    );
    let p = decide_permit(&rules(), &sound(), &issued(date(2031, 3, 1)));
    assert_eq!((p.expires, p.out_of_term), (Some(date(2031, 3, 1)), None));
    let p = decide_permit(&rules(), &sound(), &issued(date(2031, 3, 2)));
    assert_eq!((p.expires, p.out_of_term.map(|t| t.used)), (Some(date(2031, 3, 1)), Some(date(2031, 3, 1))));
    let unknown_start = Context { starts: None, ..issued(date(2036, 3, 1)) };
    let p = decide_permit(&rules(), &sound(), &unknown_start);
    assert_eq!((p.expires, p.out_of_term), (Some(date(2036, 3, 1)), None));
}

/// §V.C: "The Health Department may issue an interim permit to discharge from a substandard system for a
/// minimum term of one year"; §V.F: "Permits to discharge shall be issued for a term of one year minimum
/// for systems on an interim permit". Issued 2026-06-01 with an expiry of 2026-12-01 on record: a year from
/// 2026-06-01 is Tuesday 2027-06-01, so the first renewal falls due then, not on 2026-12-01, and a renewal
/// made 2026-11-20 (early) carries it to Thursday 2028-06-01. An expiry of 2027-06-01 itself stands; without a
/// start on record the recorded 2026-12-01 stands, as before.
#[test]
fn an_interim_permit_runs_at_least_a_year_from_its_start() {
    let bad = Findings { tank_adequate: false, ..sound() };
    let issued = |expires| Context {
        starts: Some(date(2026, 6, 1)),
        expires: Some(expires),
        roll_forward: true,
        ..context(date(2026, 5, 20))
    };
    let p = decide_permit(&rules(), &bad, &issued(date(2026, 12, 1)));
    assert_eq!(
        (p.kind, p.expires, p.renewal_due),
        (PermitKind::Interim, Some(date(2027, 6, 1)), Some(date(2027, 6, 1)))
    );
    assert_eq!(
        p.out_of_term,
        Some(OutOfTerm { recorded: date(2026, 12, 1), used: date(2027, 6, 1), limit: TermLimit::Shortest })
    );
    let early = Context { renewals: vec![date(2026, 11, 20)], ..issued(date(2026, 12, 1)) };
    assert_eq!(decide_permit(&rules(), &bad, &early).renewal_due, Some(date(2028, 6, 1)));
    let p = decide_permit(&rules(), &bad, &issued(date(2027, 6, 1)));
    assert_eq!(
        (p.expires, p.renewal_due, p.out_of_term),
        (Some(date(2027, 6, 1)), Some(date(2027, 6, 1)), None)
    );
    let unknown_start = Context { starts: None, ..issued(date(2026, 12, 1)) };
    let p = decide_permit(&rules(), &bad, &unknown_start);
    assert_eq!(
        (p.expires, p.renewal_due, p.out_of_term),
        (Some(date(2026, 12, 1)), Some(date(2026, 12, 1)), None)
    );
}

/// A report of 2026-02-10 (line 12 of the inspections file) with the findings of `found` and its
/// `permit_issued` / `permit_expires` columns.
fn report(found: Findings, issued: Option<NaiveDate>, expires: Option<NaiveDate>) -> Report {
    Report {
        date: date(2026, 2, 10),
        line: 12,
        findings: found,
        accepted: None,
        permit_issued: issued,
        permit_expires: expires,
        watercourse_ft: None,
        improperly_maintained: false,
    }
}

/// A record beyond a bound is reported where the expiry is written, with the bound and its clause: the
/// `permit-issued` event of 2026-03-01 with `expires` 2036-03-01 (§V.B: five years, so 2031-03-01), or
/// the inspections file's row with `permit_issued` 2026-06-01 and `permit_expires` 2026-12-01 (§V.C, §V.F:
/// a year, so 2027-06-01). A record within the bounds is not reported.
#[test]
fn a_record_beyond_a_bound_is_reported_at_its_line() {
    let rules = RuleSet::cayuga_art_v();
    let permits = rules.permits.as_ref().expect("Art. V has permits");
    let history = Path::new("history.csv");
    let event = |expires: NaiveDate| Event {
        parcel: 0,
        kind: PERMIT_ISSUED,
        date: date(2026, 3, 1),
        source: crate::records::events::Source { path: Path::new("events.csv").into(), line: 7 },
        values: vec![("expires", EventValue::Date(expires))],
        system: None,
        replaces: None,
    };
    let permitted = report(Findings { valid_permit: true, ..sound() }, None, None);
    let events = [event(date(2036, 3, 1))];
    let permit = permit_for(&rules, &permitted, None, &events).expect("a permit");
    assert_eq!(
        term_problem(permits, &permit, &permitted, &events, history),
        Some(Problem::new(
            "events.csv",
            Location::Line(7),
            "permit-issued 2026-03-01 with expiry 2036-03-01, more than the 5-year term Art. V §V.B allows; 2031-03-01 is used: correct the expiry"
        ))
    );
    let within = [event(date(2031, 3, 1))];
    let permit = permit_for(&rules, &permitted, None, &within).expect("a permit");
    assert_eq!(term_problem(permits, &permit, &permitted, &within, history), None);

    let short =
        report(Findings { tank_adequate: false, ..sound() }, Some(date(2026, 6, 1)), Some(date(2026, 12, 1)));
    let permit = permit_for(&rules, &short, None, &[]).expect("a permit");
    assert_eq!(permit.expires, Some(date(2027, 6, 1)));
    assert_eq!(
        term_problem(permits, &permit, &short, &[], history),
        Some(Problem::new(
            "history.csv",
            Location::Line(12),
            "permit_issued 2026-06-01 with expiry 2026-12-01, less than the 1-year minimum term Art. V §V.C, §V.F sets; 2027-06-01 is used: correct the expiry"
        ))
    );
}

/// N.Y. Gen. Constr. Law §25-a: an act due on a Saturday, Sunday or public holiday may be done on the next
/// business day. An interim permit dated Saturday 2026-06-06: the renewal falls due Sunday 2027-06-06 and may
/// be made Monday 2027-06-07. A renewal made that Monday is on time and carries it to Tuesday 2028-06-06.
#[test]
fn interim_renewals_roll_past_weekends_and_holidays() {
    let bad = Findings { tank_adequate: false, ..sound() };
    let accepted =
        Context { starts: Some(date(2026, 6, 6)), roll_forward: true, ..context(date(2026, 5, 20)) };
    assert_eq!(decide_permit(&rules(), &bad, &accepted).renewal_due, Some(date(2027, 6, 7)));
    let on_monday = Context { renewals: vec![date(2027, 6, 7)], ..accepted.clone() };
    assert_eq!(decide_permit(&rules(), &bad, &on_monday).renewal_due, Some(date(2028, 6, 6)));
    // Without the rule the Sunday stands, and the Monday renewal came after the due date.
    let strict = Context { roll_forward: false, ..on_monday };
    assert_eq!(decide_permit(&rules(), &bad, &strict).renewal_due, Some(date(2028, 6, 6)));
    let strict = Context { roll_forward: false, ..accepted };
    assert_eq!(decide_permit(&rules(), &bad, &strict).renewal_due, Some(date(2027, 6, 6)));
}

#[test]
fn the_floodplain_bars_any_permit() {
    for verdict in [FloodVerdict::Below, FloodVerdict::Unknown] {
        let c = Context { flood: Some(verdict), ..context(date(2026, 6, 1)) };
        let p = decide_permit(&rules(), &Findings { meets_75a: true, ..sound() }, &c);
        assert_eq!((p.class, p.kind, p.floodplain_bar), (Class::Design, PermitKind::None, true));
    }
    let c = Context { flood: Some(FloodVerdict::Ok), ..context(date(2026, 6, 1)) };
    assert_eq!(decide_permit(&rules(), &sound(), &c).kind, PermitKind::Discharge);
}

/// §V.D's table, "provided to summarize the classification": "Permit to Discharge (2 to 5 years)". Read as
/// a floor beside §V.B's "up to five years": a permit to discharge issued 2026-03-01 whose record says it
/// expires 2027-03-01 (one year) runs to 2028-03-01, and the record is reported at its line; 2028-03-01
/// itself and 2031-03-01 stand; 2031-03-02 gives way to §V.B's 2031-03-01.
#[test]
fn a_permit_to_discharge_runs_two_to_five_years() {
    let rules = RuleSet::cayuga_art_v();
    let permits = rules.permits.as_ref().expect("Art. V has permits");
    let permitted = report(Findings { valid_permit: true, ..sound() }, Some(date(2026, 3, 1)), None);
    let with_expiry = |expires| Report { permit_expires: Some(expires), ..permitted.clone() };
    let expiry = |expires| permit_for(&rules, &with_expiry(expires), None, &[]).and_then(|p| p.expires);
    assert_eq!(expiry(date(2027, 3, 1)), Some(date(2028, 3, 1)));
    assert_eq!(expiry(date(2028, 3, 1)), Some(date(2028, 3, 1)));
    assert_eq!(expiry(date(2031, 3, 1)), Some(date(2031, 3, 1)));
    assert_eq!(expiry(date(2031, 3, 2)), Some(date(2031, 3, 1)));
    let short = with_expiry(date(2027, 3, 1));
    let permit = permit_for(&rules, &short, None, &[]).expect("a permit");
    assert_eq!(
        term_problem(permits, &permit, &short, &[], Path::new("history.csv")),
        Some(Problem::new(
            "history.csv",
            Location::Line(12),
            "permit_issued 2026-03-01 with expiry 2027-03-01, less than the 2-year term Art. V §V.D gives a permit to discharge; 2028-03-01 is used: correct the expiry"
        ))
    );
    // A rule set that reads no floor keeps the recorded year.
    let mut no_floor = rules.clone();
    if let Some(p) = no_floor.permits.as_mut() {
        p.min_term_years = 0;
    }
    let permit = permit_for(&no_floor, &short, None, &[]).expect("a permit");
    assert_eq!((permit.expires, permit.out_of_term), (Some(date(2027, 3, 1)), None));
}

/// §V.F: "no such permit shall be issued or renewed when ... 2. determination by the Health Department of
/// the existence of ... an improperly maintained or improperly repaired system". A substandard system (tank
/// not adequate) whose report records that determination gets no interim permit, and so no renewal date;
/// the same findings without it get the interim permit. A system meeting existing standards is not touched
/// by a paragraph about interim permits.
#[test]
fn no_interim_permit_for_an_improperly_maintained_system() {
    let bad = Findings { tank_adequate: false, ..sound() };
    let started = Context { starts: Some(date(2026, 6, 1)), ..context(date(2026, 5, 20)) };
    let determined = Context { improperly_maintained: true, ..started.clone() };
    let p = decide_permit(&rules(), &bad, &determined);
    assert_eq!(
        (p.class, p.kind, p.renewal_due, p.maintenance_bar),
        (Class::Substandard, PermitKind::None, None, true)
    );
    let p = decide_permit(&rules(), &bad, &started);
    assert_eq!(
        (p.kind, p.renewal_due, p.maintenance_bar),
        (PermitKind::Interim, Some(date(2027, 6, 1)), false)
    );
    let p = decide_permit(&rules(), &Findings { valid_permit: true, ..sound() }, &determined);
    assert_eq!((p.class, p.kind, p.maintenance_bar), (Class::Existing, PermitKind::Discharge, false));
}
