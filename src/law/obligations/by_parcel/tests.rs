use super::*;
use crate::records::inspections::{Dated, Findings, Inspections, PendingReport};

fn d(y: i32, m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, day).unwrap_or(NaiveDate::MIN)
}

fn history() -> Arc<Path> {
    Path::new("history.csv").into()
}

/// The record files of a run that read only the inspections file at `path`.
fn only<'a>(path: &'a Arc<Path>, inspections: &'a Inspections) -> Records<'a> {
    Records { history_path: Some(path), inspections, events: &[], samples: &[], pipes: &[] }
}

/// Ch. 56 §601.1: "Upon discovery of a wastewater treatment system which is not adequately functioning or
/// determined to have been illegally installed ...". Parcel 0's latest findings (line 3, 2024-07-07)
/// show failure and its latest `adequately_functioning` (the same row) is no: two events of that date and
/// line. Parcel 1 was found adequately functioning (yes): nothing. Parcel 2 was determined illegally
/// installed on 2026-09-09 (line 8), parcel 3 not (no): one event, for parcel 2.
#[test]
fn the_latest_findings_stand_for_events_dated_by_their_inspection() {
    let findings = Findings {
        failure: true,
        overflow_points: false,
        components_working: true,
        tank_adequate: true,
        separation_ft: Some(2.0),
        valid_permit: false,
        meets_75a: false,
    };
    let report = Report {
        date: d(2024, 7, 7),
        line: 3,
        findings,
        accepted: None,
        permit_issued: None,
        permit_expires: None,
        watercourse_ft: None,
        improperly_maintained: false,
    };
    let dated = |date, line, value| Some(Dated { date, line, value });
    let inspections = Inspections {
        reports: vec![Some(Box::new(report)), None, None, None],
        functioning: vec![dated(d(2024, 7, 7), 3, false), dated(d(2025, 1, 2), 5, true), None, None],
        illegally_installed: vec![None, None, dated(d(2026, 9, 9), 8, true), dated(d(2026, 9, 9), 9, false)],
        ..Inspections::default()
    };
    let path = history();
    let records = only(&path, &inspections);
    let got: Vec<(usize, EventKind, NaiveDate, usize)> =
        with_failed_inspections(&records).iter().map(|e| (e.parcel, e.kind, e.date, e.source.line)).collect();
    assert_eq!(
        got,
        [
            (0, FAILED_INSPECTION, d(2024, 7, 7), 3),
            (0, NOT_FUNCTIONING, d(2024, 7, 7), 3),
            (2, ILLEGALLY_INSTALLED, d(2026, 9, 9), 8),
        ]
    );
    // Without an inspections file there is nothing to stand for.
    let none = Records { history_path: None, ..records };
    assert!(with_failed_inspections(&none).is_empty());
}

/// Art. V §VI.B.2: certified inspectors submit each completed inspection "within 30 business days". An
/// inspection on Monday 2026-06-01 is due Tuesday 2026-07-14 (Juneteenth, Friday 06-19, is a holiday;
/// Independence Day falls on a Saturday and moves nothing). A report received that day owes nothing; one
/// received Wednesday 07-15 stays on the record, met late, with both dates and the clause, for the rule
/// set's three years: listed on 2027-01-15, gone on 2030-01-15. One still owed is overdue.
#[test]
fn a_report_received_late_stays_on_the_record_for_the_years_kept() {
    let report = |received: Option<NaiveDate>| PendingReport {
        parcel: 0,
        date: d(2026, 6, 1),
        inspector: "J. Doe".into(),
        received,
        line: 4,
    };
    let listed = |received: Option<NaiveDate>, as_of: NaiveDate| {
        let inspections = Inspections { pending: vec![report(received)], ..Inspections::default() };
        let path = history();
        let records = only(&path, &inspections);
        let by_parcel = ByParcel::new(&records, &Arc::new(RuleSet::cayuga_art_v()), as_of);
        let mut out = Vec::new();
        by_parcel.inspection_reports(0, &mut out);
        out.into_iter()
            .map(|o| (o.due, o.overdue, o.corrected, o.detail, o.citation.to_string()))
            .collect::<Vec<_>>()
    };
    let due = Some(d(2026, 7, 14));
    assert_eq!(listed(Some(d(2026, 7, 14)), d(2027, 1, 15)), []);
    assert_eq!(
        listed(Some(d(2026, 7, 15)), d(2027, 1, 15)),
        [(
            due,
            false,
            Some(d(2026, 7, 15)),
            Some("met late: due 2026-07-14, received 2026-07-15".into()),
            "Art. V §VI.B.2".into()
        )]
    );
    assert_eq!(listed(Some(d(2026, 7, 15)), d(2030, 1, 15)), []);
    assert_eq!(listed(None, d(2027, 1, 15)), [(due, true, None, None, "Art. V §VI.B.2".into())]);
}
