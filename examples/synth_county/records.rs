//! The sample county's record files beyond the inspection dates: inspection findings, events, pump-outs,
//! drainage-pipe samples and a watercourse layer. Each row is a case of Article V or Chapter 56, worked out
//! by hand in `tests/golden/sample/obligations-*.csv`.

use std::path::Path;

use anyhow::Result;
use serde_json::json;

use crate::feet::{Pt, ToWgs84};
use crate::parcels::Parcel;
use crate::problems::{
    BAD_EVENTS, BAD_FINDINGS, BAD_PIPES, BAD_PUMP_OUTS, BAD_RECEIVED, BAD_REPORTS, BAD_SAMPLES,
};
use crate::write::{line_feature, polygon_feature, write_geojson, write_text};

/// The inspections file header: dates and results from the parcels table, the rest from here.
const HEADER: &str = "parcel_id,inspection_date,result,inspector,report_received,failure,overflow_points,\
components_working,tank_adequate,separation_ft,valid_permit,meets_75a,installed,system_size,report_accepted,\
permit_issued,permit_expires,watercourse_ft,adequately_functioning,illegally_installed,system_id";

/// Inspections that name the system they inspected (column `system_id`; blank on every other row, which
/// answers every system of its parcel): (parcel id, inspection date, system id).
pub const NAMED: &[(&str, &str, &str)] = &[
    // The lakefront system of the two-system lot, inspected in the window of 2026-11-01: current.
    ("054489-150.09-1-3", "2026-06-10", "S-0101"),
    // Its system 800 ft from the shore, last inspected in the window of 2021-11-01: 2026-11-01 missed.
    ("054489-150.09-1-3", "2020-05-01", "S-0102"),
    // The system shared by two Cato lots, its inspection filed under the first.
    ("052489-52.00-1-1", "2023-06-01", "S-0106"),
];

/// Findings of particular inspections, `failure,overflow_points,components_working,tank_adequate,
/// separation_ft,valid_permit,meets_75a`: (parcel id, inspection date, findings, what it exercises).
const FINDINGS: &[(&str, &str, &str, &str)] = &[
    ("054689-128.05-1-1", "2025-06-12", "no,no,yes,yes,4.0,no,yes", "design standards"),
    ("054689-128.05-1-2", "2026-08-20", "no,no,yes,no,,yes,no", "existing standards by a valid permit"),
    (
        "054689-128.05-1-3",
        "2023-05-01",
        "no,no,yes,yes,3.0,no,no",
        "substandard: the lake (a watercourse) 15 ft away",
    ),
    (
        "054689-128.05-1-6",
        "2022-04-15",
        "no,no,yes,yes,3.0,no,no",
        "existing standards measured (wetland 135 ft)",
    ),
    (
        "054689-129.00-2-1",
        "2026-03-10",
        "no,no,yes,yes,2.5,no,no",
        "substandard: creek 60 ft from the parcel",
    ),
    ("054889-160.12-1-2", "2025-10-01", "no,no,yes,yes,1.5,no,no", "substandard lakefront, renewed"),
    ("055689-10.07-1-3", "2026-06-06", "no,no,yes,no,3.0,no,no", "substandard lakefront, condition breached"),
    (
        "054889-165.00-1-1",
        "2024-07-07",
        "yes,no,yes,yes,2.0,no,no",
        "failed; deficiency notice given (Ch. 56)",
    ),
    ("054489-156.00-1-1", "2022-05-01", "yes,yes,no,no,0.5,no,no", "failed, but a later inspection decides"),
    ("054489-156.00-1-1", "2022-06-15", "no,no,yes,yes,,yes,no", "existing standards by a valid permit"),
    (
        "055689-10.07-1-2",
        "2022-08-08",
        "no,no,yes,yes,2.5,yes,no",
        "existing standards, floodplain bottom below",
    ),
    (
        "054289-191.00-1-6",
        "2026-02-02",
        "no,no,yes,yes,3.0,no,yes",
        "design standards, floodplain bottom unknown",
    ),
    (
        "052889-133.14-1-1",
        "2023-03-03",
        "yes,no,yes,yes,2.0,no,no",
        "failed; repair order overdue, no hearing summons (Art. V)",
    ),
    (
        "054889-171.00-1-1",
        "2023-03-03",
        "yes,no,no,yes,2.5,no,no",
        "failed; repair order overdue, the hearing summoned after it (Art. V)",
    ),
    (
        "054489-150.09-1-2",
        "2027-01-05",
        "no,no,yes,yes,2.0,no,no",
        "findings wait: report not yet received (§V.A)",
    ),
    (
        "054889-160.12-1-3",
        "2024-09-05",
        "yes,yes,no,no,0.5,no,no",
        "failed, then replaced under permit: the findings stay with the old system",
    ),
];

/// Report columns of particular findings rows, `report_accepted,permit_issued,permit_expires,watercourse_ft`:
/// (parcel id, inspection date, columns, what it exercises).
const REPORTS: &[(&str, &str, &str, &str)] = &[
    ("054689-128.05-1-2", "2026-08-20", "2026-09-10,,,", "permit dates from acceptance; term not set"),
    (
        "054689-128.05-1-3",
        "2023-05-01",
        "2023-05-20,,,40",
        "measured 40 ft: substandard, renewals from acceptance",
    ),
    (
        "054689-129.00-2-1",
        "2026-03-10",
        ",,,75",
        "measured 75 ft wins over the brook's 60 ft from the parcel",
    ),
    ("054889-160.12-1-2", "2025-10-01", "2025-10-20,,,", "interim renewals from acceptance"),
    (
        "055689-10.07-1-3",
        "2026-06-06",
        ",2026-06-20,2027-06-20,",
        "interim permit dates on record; ends on a Sunday",
    ),
];

/// The authority's findings that a system is, or is not, adequately functioning (Ch. 56 §304.2, §601.1):
/// (parcel id, inspection date, yes or no).
const FUNCTIONING: &[(&str, &str, &str)] = &[
    // Grandfathered whatever its date (§304.2).
    ("054889-160.12-1-2", "2025-10-01", "yes"),
    // Not adequately functioning: a deficiency to notify at once (§601.1).
    ("055689-12.00-1-1", "2021-05-05", "no"),
    // The failed inspection that found it not adequately functioning too: one discovery, one notice.
    ("054889-165.00-1-1", "2024-07-07", "no"),
    // Not adequately functioning at the failed inspection, adequately functioning at the later one.
    ("054689-128.05-1-7", "2022-10-01", "no"),
    ("054689-128.05-1-7", "2024-11-01", "yes"),
];

/// The authority's determinations that a system was illegally installed (Ch. 56 §601.1): (parcel id,
/// inspection date, yes or no).
const ILLEGAL: &[(&str, &str, &str)] = &[("052889-134.00-1-1", "2026-09-09", "yes")];

/// Inspections whose report has not reached the Health Department (blank `report_received`) or whose
/// receipt date is wrong; every other report arrived 12 days after its inspection.
const RECEIVED: &[(&str, &str, &str)] =
    &[("054489-150.09-1-2", "2026-11-01", ""), ("054489-150.09-1-2", "2027-01-05", "")];

/// Installation (Ch. 56 §304.2), on each parcel's latest inspection row: (parcel id, date, size).
const INSTALLED: &[(&str, &str, &str)] = &[
    ("054689-128.05-1-1", "1985-06-01", "individual"),
    ("054689-128.05-1-2", "1992-05-01", "individual"),
    ("054489-156.00-1-1", "1987-07-01", "intermediate"),
    ("055689-10.07-1-3", "1988-03-01", "intermediate"),
    ("054889-160.12-1-2", "1990-11-30", "individual"),
    ("054689-129.00-2-1", "1990-12-01", "individual"),
];

/// Who inspected, by parcel (others: the county's staff inspector).
const INSPECTORS: &[(&str, &str)] = &[
    ("054489-150.09-1-2", "R. Okafor"),
    ("054689-128.05-1-1", "T. Lindqvist"),
    ("054889-165.00-1-1", "T. Lindqvist"),
];

const EVENTS: &str = "\
parcel_id,date,event,arms_length,expansion_pct,flow_gpd,alternative_system,realty_subdivision,doh_facility,due_date,received,expires,note,system_id,replaces
054689-129.00-2-1,2026-09-30,transfer,yes,,,,,,,,,sale; pumped 2025-11-15 and inspected 2026-03-10
054889-165.00-1-1,2026-12-01,transfer,,,,,,,,,,sale; last pump-out 2025-10-01 and inspection 2024-07-07 too old
053289-40.00-1-2,2026-10-15,conveyance,no,,,,,,,,,deed to a family trust (non-arm's-length); pumped after
054689-122.18-1-11,2026-11-16,transfer,yes,,,,,,,,,sale of a lakefront lot on public sewer: the law does not apply (Art. V §I.B; Ch. 56 §102)
502889-1.00-1-1,2026-12-15,transfer,yes,,,,,,,,,sale of a lot outside the county: Art. V does not apply (§I.C.2)
055089-200.00-1-1,2026-08-01,refinance,,,,,,,,,,lender asked for an inspection
052089-123.45-1-2,2026-11-25,complaint,,,,,,,,,,odor complaint the day before Thanksgiving
053089-180.00-1-1,2027-01-08,observation,,,,,,,,,,staff saw seepage by the road
052289-60.00-1-1,2026-12-01,complaint,,,,,,,,,,complaint answered in time
052289-60.00-1-1,2026-12-04,owner-notice,,,,,,,,,,
053489-175.00-1-1,2026-10-01,change-of-use,,,,,,,,,,house became a short-term rental
053289-40.00-1-1,2026-06-15,expansion,,60,,,,,,,,addition of two bedrooms
053289-40.00-1-3,2026-07-01,expansion,,40,,,,,,,,porch enclosure
054289-191.00-1-5,2026-12-10,permit-application,,,1500,yes,no,,,,,new system for a camp
054289-191.00-1-5,2026-12-20,watershed-inspector-review,,,,,,,,,,
054289-191.00-1-5,2026-12-28,application-denied,,,,,,,,,,
054889-166.00-1-2,2026-10-05,application-denied,,,,,,,,,,
054889-166.00-1-2,2026-10-09,denial-notice,,,,,,,,,,
054889-166.00-1-2,2026-10-26,appeal-received,,,,,,,,,,
054889-166.00-1-2,2026-11-20,hearing-notice,,,,,,,,,,
054889-166.00-1-2,2026-12-07,hearing-adjourned,,,,,,,,,,
054289-191.00-1-3,2026-12-01,violation-notice,,,,,,,,,,system used while failed
054889-165.00-1-1,2024-07-10,deficiency-notice,,,,,,,,,,
052889-133.14-1-1,2023-04-01,repair-order,,,,,,,2023-06-30,,,
054889-171.00-1-1,2023-04-14,repair-order,,,,,,,2023-08-31,,,pump repairs ordered by the end of August
054889-171.00-1-1,2023-09-12,hearing-summons,,,,,,,,,,repairs not made: summoned to a Board of Health hearing
054889-160.12-1-2,2026-09-15,interim-renewal,,,,,,,,,,
055689-10.07-1-3,2026-09-01,condition-breach,,,,,,,,,,flows over the permitted limit
054689-129.00-2-1,2026-04-01,permit-issued,,,,,,,,,,interim permit issued; no expiry recorded
054689-128.05-1-1,2025-07-01,permit-issued,,,,,,,,,2030-07-01,permit to discharge with its expiry
054689-128.05-1-2,2026-08-03,transfer,yes,,,,,,,,,sale; pumped 2026-07-28 but inspected only 2026-08-20
054289-191.00-1-3,2026-11-20,deficiency-notice,,,,,,,,2026-11-23,,certified mail received the Monday after
053289-40.00-1-1,2026-05-20,plan-accepted,,,,,,,,,,plans for the two-bedroom addition accepted
053289-40.00-1-1,2026-07-10,construction-permit,,,,,,,,,,permit issued after the building-permit application
053289-40.00-1-3,2025-07-01,plan-accepted,,,,,,,,,,porch plans accepted twelve months before
053289-40.00-1-3,2026-07-01,construction-permit,,,,,,,,,,permit issued the day of the application
053489-175.00-1-1,2025-09-30,plan-accepted,,,,,,,,,,plans accepted a year and a day before the change of use
053489-175.00-1-1,2026-10-01,construction-permit,,,,,,,,,,
054289-191.00-1-4,2024-02-15,plan-accepted,,,,,,,,,,replacement system plans accepted
054289-191.00-1-4,2024-05-01,system-replaced,,,,,,,,,,new system in service
054289-191.00-1-4,2024-06-03,construction-permit,,,,,,,,,,construction permit only after the work
054889-171.00-1-1,2021-08-15,plan-accepted,,,,,,,,,,plans accepted long before the work
054889-171.00-1-1,2022-03-01,construction-permit,,,,,,,,,,
054889-171.00-1-1,2022-03-01,permit-issued,,,,,,,,,,wastewater treatment permit (Ch. 56)
054889-171.00-1-1,2022-09-01,system-installed,,,,,,,,,,new system in service
054889-166.00-1-2,2026-11-30,hearing-held,,,,,,,,,,first session
054889-166.00-1-2,2026-11-30,hearing-continued,,,,,,,,,,continued to 2026-12-07
054889-166.00-1-1,2026-11-02,appeal-received,,,,,,,,,,
054889-166.00-1-1,2026-11-16,hearing-notice,,,,,,,,,,
054889-166.00-1-1,2026-11-30,hearing-held,,,,,,,,,,no decision on record
052889-134.00-1-1,2026-09-09,deficiency-notice,,,,,,,,2026-09-14,,illegally installed: notice the day of the inspection
";

/// Events of the register of systems, with the system each names (`system_id`) and the system a
/// `system-replaced` replaces (`replaces`); a blank `system_id` concerns every system of the parcel.
const SYSTEM_EVENTS: &str = "\
054889-160.12-1-3,2024-10-01,repair-order,,,,,,,2025-06-30,,,replace the failed system by the end of June,,
054889-160.12-1-3,2025-01-20,plan-accepted,,,,,,,,,,plans for the replacement system accepted,S-0105,
054889-160.12-1-3,2025-02-10,construction-permit,,,,,,,,,,,S-0105,
054889-160.12-1-3,2025-02-10,permit-issued,,,,,,,,,,wastewater treatment permit (Ch. 56),S-0105,
054889-160.12-1-3,2025-05-15,system-replaced,,,,,,,,,,replacement in service,S-0105,S-0104
054689-129.00-2-5,2026-10-20,transfer,yes,,,,,,,,,sale of vacant land with no system,,
";

const PUMP_OUTS: &str = "\
parcel_id,date,hauler_licence
054689-129.00-2-1,2025-11-15,7-1234
054889-165.00-1-1,2025-10-01,7-1234
053289-40.00-1-2,2026-10-20,7-5678
054689-128.05-1-2,2026-07-28,7-1234
";

/// Drainage-pipe samples (Art. V §III.G), each pipe a case; `other_source` is the laboratory's proof that the
/// coliform does not come from the property.
const SAMPLES: &str = "\
parcel_id,pipe_id,date,fecal_coliform_per_100ml,other_source,note
054689-128.05-1-1,P1,2026-07-01,40,,passes
054689-128.05-1-1,P2,2026-08-03,420,,exceeds; window to Mon 2026-08-24
054689-128.05-1-1,P2,2026-08-10,150,,retest 1
054689-128.05-1-1,P2,2026-08-17,180,,retest 2
054689-128.05-1-1,P2,2026-08-21,230,,retest 3: average 186.7 passes
054689-128.05-1-1,P3,2027-01-04,1500,,exceeds; window to Mon 2027-01-25
054689-128.05-1-1,P3,2027-01-11,1400,yes,upstream of the lot as high: the laboratory finds another source
054689-128.05-1-2,P1,2026-12-28,650,,exceeds; window to Tue 2027-01-19
054689-128.05-1-2,P1,2027-01-04,120,,retest 1
055689-10.07-1-1,outfall,2026-05-04,310,,exceeds; no retest by Tue 2026-05-26
055689-10.07-1-1,outfall,2026-08-03,60,,routine: does not end the violation
055689-10.07-1-1,outfall,2026-10-05,45,,routine: does not end the violation
055689-10.07-1-1,P2,2026-03-02,700,,exceeds; no retest by Mon 2026-03-23; flow treated since (pipes.csv)
055689-10.07-1-1,P3,2023-05-01,50,,routine; the pipe was removed 2026-02-01 (pipes.csv)
055689-10.07-1-5,P1,2026-06-01,900,,exceeds; window to Mon 2026-06-22
055689-10.07-1-5,P1,2026-06-05,300,,retest 1
055689-10.07-1-5,P1,2026-06-10,200,,retest 2
055689-10.07-1-5,P1,2026-06-15,100,,retest 3: average 200 is not below 200
054489-150.09-1-1,P1,2026-07-07,500,,the lot does not border the lake
055689-10.07-1-5,P2,2024-10-30,80,,passes
054889-160.12-1-2,P1,2026-09-08,510,,exceeds; window to Mon 2026-09-28
054889-160.12-1-2,P1,2026-09-14,60,,retest 1
054889-160.12-1-2,P1,2026-09-21,80,,retest 2
054889-160.12-1-2,P1,2026-09-30,40,,day 22: too late to be retest 3
055689-10.06-1-1,P1,2026-06-04,380,,exceeds; no retest by Wed 2026-06-24
055689-10.06-1-1,P1,2026-06-29,90,,day 25: one passing sample does not end the violation
";

/// The register of known drainage pipes: a pipe never sampled on the Owasco lot whose system is 800 ft from
/// the shore, a pipe that also has samples, one on a lot that does not border the lake, and one whose flow
/// has been treated since its violation (§III.G: "remove the drainage pipe or treat the flow").
const PIPES: &str = "\
parcel_id,pipe_id,removed,treated,note
054689-128.05-1-5,D1,,,never sampled
055689-10.07-1-5,P1,,,also sampled
054489-150.09-1-1,P1,,,the lot does not border the lake
055689-10.07-1-1,P2,,2026-07-15,flow treated after its violation
055689-10.07-1-1,P3,2026-02-01,,removed: no longer a pipe to inspect
";

/// Writes the inspections file (dates and results from `parcels`, the rest from the tables above, and with
/// `bad` the problem sample's findings, report columns and receipt dates over them).
pub fn write_inspections(dir: &Path, parcels: &[Parcel], bad: bool) -> Result<()> {
    // The first row of a table that names an inspection gives its columns, so the problem sample's go first.
    fn over<T: Clone>(bad: bool, problems: &[T], good: &[T]) -> Vec<T> {
        if bad {
            [problems, good].concat()
        } else {
            good.to_vec()
        }
    }
    let findings = over(bad, BAD_FINDINGS, FINDINGS);
    let reports = over(bad, BAD_REPORTS, REPORTS);
    let received = over(bad, BAD_RECEIVED, RECEIVED);
    let mut out = format!("{HEADER}\n");
    for p in parcels {
        let id = p.id()?;
        let latest = p.history.iter().map(|(d, _)| *d).max();
        for (date, result) in p.history {
            let lookup = |table: &[(&str, &str, &str)]| {
                table.iter().find(|(i, d, _)| *i == id && d == date).map(|(_, _, v)| v.to_string())
            };
            let received = lookup(&received).unwrap_or_else(|| plus_days(date, 12));
            let findings =
                findings.iter().find(|(i, d, _, _)| *i == id && d == date).map_or(",,,,,,", |(_, _, f, _)| f);
            let inspector = INSPECTORS.iter().find(|(i, _)| *i == id).map_or("county staff", |(_, n)| n);
            let installed = INSTALLED
                .iter()
                .find(|(i, _, _)| *i == id)
                .filter(|_| latest == Some(*date))
                .map_or(",".to_string(), |(_, d, s)| format!("{d},{s}"));
            let report =
                reports.iter().find(|(i, d, _, _)| *i == id && d == date).map_or(",,,", |(_, _, r, _)| r);
            let functioning = lookup(FUNCTIONING).unwrap_or_default();
            let illegal = lookup(ILLEGAL).unwrap_or_default();
            let system = lookup(NAMED).unwrap_or_default();
            out.push_str(&format!(
                "{id},{date},{result},{inspector},{received},{findings},{installed},{report},{functioning},{illegal},{system}\n"
            ));
        }
    }
    write_text(&dir.join("history.csv"), &out)
}

/// Writes `events.csv`, `pump_outs.csv`, `samples.csv` and `pipes.csv`; with `bad`, the problem sample's bad
/// rows follow the good ones.
pub fn write_event_files(dir: &Path, bad: bool) -> Result<()> {
    let with = |good: &str, rows: &str| if bad { format!("{good}{rows}") } else { good.to_string() };
    // The rows written before the register of systems name no system: two blank columns more.
    let blank_systems = |rows: &str| rows.lines().map(|l| format!("{l},,\n")).collect::<String>();
    let (header, rows) = EVENTS.split_once('\n').unwrap_or((EVENTS, ""));
    let events = format!("{header}\n{}{SYSTEM_EVENTS}", blank_systems(rows));
    write_text(&dir.join("events.csv"), &with(&events, &blank_systems(BAD_EVENTS)))?;
    write_text(&dir.join("pump_outs.csv"), &with(PUMP_OUTS, BAD_PUMP_OUTS))?;
    write_text(&dir.join("samples.csv"), &with(SAMPLES, BAD_SAMPLES))?;
    write_text(&dir.join("pipes.csv"), &with(PIPES, BAD_PIPES))
}

/// Writes `watercourses.geojson`: a brook 60 ft east of lot 129.00-2-1 and a wetland 135 ft east of lot
/// 128.05-1-6.
pub fn write_watercourses(dir: &Path, to_wgs: &ToWgs84) -> Result<()> {
    let brook: Vec<Pt> = vec![(845_460.0, 1_049_000.0), (845_460.0, 1_051_000.0), (845_900.0, 1_052_500.0)];
    let wetland: Vec<Pt> = vec![
        (840_945.0, 1_045_000.0),
        (841_200.0, 1_045_000.0),
        (841_200.0, 1_045_200.0),
        (840_945.0, 1_045_200.0),
    ];
    write_geojson(
        &dir.join("watercourses.geojson"),
        "watercourses",
        &[
            line_feature(to_wgs, &brook, json!({"NAME": "Dutch Hollow Brook", "KIND": "stream"}))?,
            polygon_feature(to_wgs, &wetland, json!({"NAME": "East Lake Road wetland", "KIND": "wetland"}))?,
        ],
    )
}

/// `date` (YYYY-MM-DD) plus `days`.
fn plus_days(date: &str, days: i64) -> String {
    chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .map(|d| (d + chrono::Duration::days(days)).to_string())
        .unwrap_or_default()
}
