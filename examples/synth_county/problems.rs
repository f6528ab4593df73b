//! The problem sample (`data/sample-problems/`): the sample county plus the records a real county's files
//! hold by mistake, each one a problem lakeshore must report with file, record and fix while scheduling
//! everything else exactly as in the clean sample.

use crate::feet::Ring;
use crate::parcels::Parcel;

/// Parcels with something wrong, written after the sample's own.
pub fn parcels() -> Vec<Parcel> {
    vec![
        // A bow-tie: the edges (870000, 1080000)-(870400, 1080300) and (870400, 1080000)-(870000, 1080200)
        // cross at (870160, 1080120). Reported, and still scheduled from its shape (Sennett, county tier).
        Parcel {
            town: "Sennett",
            key: "91.00-1-1",
            rings: vec![Ring::Outer(vec![
                (870_000.0, 1_080_000.0),
                (870_400.0, 1_080_300.0),
                (870_400.0, 1_080_000.0),
                (870_000.0, 1_080_200.0),
            ])],
            sewer: "2",
            class: "210",
            owner: "LOOPHOLE BOWTIE LLC",
            muni: None,
            swis: None,
            also_in: None,
            location: ("91", "CROSSED LINES RD"),
            mail: None,
            mail_street: None,
            system: None,
            system_id: None,
            system_on: None,
            more_systems: Vec::new(),
            shared_with: None,
            history: &[],
            case: "bow-tie polygon (self-intersection at (870160 1080120)): reported, scheduled from its shape: Sennett cohort 2004",
            distance: "more than 30,000 ft",
        },
        // The print key of the sample's Sennett lot, typed again for another lot: the second record is
        // reported as a duplicate and left unscheduled.
        Parcel {
            town: "Sennett",
            key: "90.00-1-1",
            rings: vec![Ring::Outer(crate::feet::rect(872_000.0, 1_080_000.0, 872_400.0, 1_080_300.0))],
            sewer: "2",
            class: "210",
            owner: "TWICE NUMBERED ESTATE",
            muni: None,
            swis: None,
            also_in: None,
            location: ("93", "CROSSED LINES RD"),
            mail: None,
            mail_street: None,
            system: None,
            system_id: None,
            system_on: None,
            more_systems: Vec::new(),
            shared_with: None,
            history: &[],
            case: "the id of the lot at 865,000 typed again: duplicate, unscheduled",
            distance: "more than 30,000 ft",
        },
        // A permit to discharge recorded for ten years (events.csv): Art. V §V.B allows up to five.
        term_lot(
            "95.00-1-1",
            876_000.0,
            "LONGTERM ACRES LLC",
            ("95", "CROSSED LINES RD"),
            &[("2026-02-10", "pass")],
            "existing standards (valid permit); permit-issued 2026-03-01 recorded to expire 2036-03-01, beyond the 5-year term of §V.B: reported, 2031-03-01 used",
        ),
        // An interim permit recorded for six months (history.csv): §V.C and §V.F set at least one year.
        term_lot(
            "95.00-1-2",
            878_000.0,
            "SHORTSTAY COTTAGE TRUST",
            ("97", "CROSSED LINES RD"),
            &[("2026-05-20", "pass")],
            "substandard (tank not adequate); permit_issued 2026-06-01, permit_expires 2026-12-01, short of the 1-year minimum of §V.C, §V.F: reported, 2027-06-01 used",
        ),
    ]
}

/// A Sennett lot of 400 by 300 ft at `x` on the bow-tie's road, north of the Owasco watershed: the county
/// tier, on Sennett's 7-year cohort of 2004.
fn term_lot(
    key: &'static str,
    x: f64,
    owner: &'static str,
    location: (&'static str, &'static str),
    history: &'static [(&'static str, &'static str)],
    case: &'static str,
) -> Parcel {
    Parcel {
        town: "Sennett",
        key,
        rings: vec![Ring::Outer(crate::feet::rect(x, 1_080_000.0, x + 400.0, 1_080_300.0))],
        sewer: "2",
        class: "210",
        owner,
        muni: None,
        swis: None,
        also_in: None,
        location,
        mail: None,
        mail_street: None,
        system: None,
        system_id: None,
        system_on: None,
        more_systems: Vec::new(),
        shared_with: None,
        history,
        case,
        distance: "more than 30,000 ft",
    }
}

/// Lots of the sample's design that report a problem by nature: their assessor sewer code says private (2)
/// while a public sewer district polygon covers them; the code decides (§I.B) and the disagreement is
/// reported. They are written to the problem sample only, so the clean sample runs without problems.
pub const REPORTING: &[&str] = &["054689-122.18-1-10", "050100-106.41-1-3"];

/// A system mapped for a parcel the parcels layer does not have: (parcel id, point, bottom elevation).
pub const STRAY_SYSTEM: (&str, (f64, f64), f64) = ("055289-99.00-1-1", (874_000.0, 1_080_100.0), 500.0);

/// Events the sample's events follow with: a blank condition column (reported under Chapter 56 only, whose
/// expansion clock reads it), an unknown event, an unknown parcel, a date after the as-of date and a permit to
/// discharge recorded for longer than Article V allows (reported under Article V only, which bounds it).
pub const BAD_EVENTS: &str = "\
055689-20.00-1-1,2026-08-01,expansion,,,,,,,,,,expansion size not given
054689-128.05-1-3,2026-05-05,alien-landing,,,,,,,,,,not an event: reported
059999-1.00-1-1,2026-05-05,complaint,,,,,,,,,,unknown parcel: reported
052089-123.45-1-3,2027-02-01,complaint,,,,,,,,,,after the as-of date: reported
055289-95.00-1-1,2026-03-01,permit-issued,,,,,,,,,2036-03-01,ten years recorded where five are allowed: reported
";

/// A pump-out without the hauler's licence number.
pub const BAD_PUMP_OUTS: &str = "054689-128.05-1-1,2026-04-01,\n";

/// A count written as "too numerous to count", and a finding of another source that is neither yes nor no
/// (the sample still counts, without the finding: P1 passes with or without it).
pub const BAD_SAMPLES: &str = "\
055689-10.07-1-3,P1,2026-08-08,TNTC,,too numerous to count
054689-128.05-1-1,P1,2026-06-01,30,maybe,the finding is unreadable
";

/// A removal date that is no date: the outfall stays on the register, not removed, its violation standing.
pub const BAD_PIPES: &str = "055689-10.07-1-1,outfall,2026-13-01,,removal date mistyped\n";

/// Findings that contradict each other (failed, yet meeting the design standards), and those of the lots
/// whose permits are recorded beyond the law's bounds on their terms.
pub const BAD_FINDINGS: &[(&str, &str, &str, &str)] = &[
    ("054889-170.00-1-1", "2022-02-02", "yes,no,no,no,,no,yes", "contradiction: failed and design standards"),
    ("055289-95.00-1-1", "2026-02-10", "no,no,yes,yes,,yes,no", "existing standards by a valid permit"),
    ("055289-95.00-1-2", "2026-05-20", "no,no,yes,no,3.0,no,no", "substandard: tank not adequate"),
];

/// Report columns (`report_accepted,permit_issued,permit_expires,watercourse_ft`) of an interim permit
/// recorded for six months, where Article V sets at least a year.
pub const BAD_REPORTS: &[(&str, &str, &str, &str)] =
    &[("055289-95.00-1-2", "2026-05-20", ",2026-06-01,2026-12-01,", "interim permit shorter than a year")];

/// A report received before the inspection it reports.
pub const BAD_RECEIVED: &[(&str, &str, &str)] = &[("052489-50.00-1-1", "2019-09-19", "2019-09-01")];

/// The problem sample's README.
pub const README: &str = r#"# Problem sample county (SYNTHETIC)

The sample county of `data/sample/` with the mistakes real county files hold, each of which lakeshore
reports with the file, the record and what to do, while every other parcel is scheduled exactly as in the
clean sample. Generated by `cargo run --example synth_county -- sample-problems data/sample-problems`
(deterministic); do not edit by hand.

| file | what is wrong |
|---|---|
| `parcels.shp` | lots `054689-122.18-1-10` and `050100-106.41-1-3` have assessor sewer code 2 (private) inside a public sewer district polygon: the code decides, the disagreement is reported; lot `055289-91.00-1-1` is a bow-tie (its ring crosses itself at (870160 1080120)): reported, still scheduled from its shape; a second lot carries the id `055289-90.00-1-1` again: reported, unscheduled as a duplicate; lots `055289-95.00-1-1` and `055289-95.00-1-2` (Sennett) hold the permits recorded beyond Article V's bounds on their terms (below) |
| `systems.geojson` | a system for parcel `055289-99.00-1-1`, which the parcels layer does not have |
| `history.csv` | findings on `054889-170.00-1-1` (2022-02-02) that contradict each other; a report on `052489-50.00-1-1` received before the inspection; an interim permit on `055289-95.00-1-2` issued 2026-06-01 and recorded to expire 2026-12-01, short of the one-year minimum of §V.C and §V.F (a problem under Article V only: 2027-06-01 is used) |
| `events.csv` | an expansion without `expansion_pct` (a problem under Chapter 56 only), an unknown event, an unknown parcel, a date after the as-of date; a permit to discharge on `055289-95.00-1-1` issued 2026-03-01 and recorded to expire 2036-03-01, beyond the five years of §V.B (a problem under Article V only: 2031-03-01 is used) |
| `pump_outs.csv` | a pump-out without the hauler's licence |
| `samples.csv` | a fecal-coliform count written `TNTC`; an `other_source` finding written `maybe` (the sample counts, without the finding) |
| `pipes.csv` | a removal date `2026-13-01` (the pipe stays on the register, not removed) |
"#;
