//! The inspections file (CSV or a workbook sheet): one row per inspection. `parcel_id` and `inspection_date`
//! are required (named in `[fields.history]`, or detected: see [`SPEC`]); the other columns are optional
//! groups:
//!
//! - `result`, `inspector`: as written on the report;
//! - `report_received`: when the report reached the Health Department (blank: not yet), for the inspector's
//!   deadline;
//! - the findings `failure`, `overflow_points`, `components_working`, `tank_adequate`, `separation_ft`,
//!   `valid_permit`, `meets_75a`, from which the system's class and permit follow (all or none of them);
//! - with the findings, the report's `report_accepted` date (a permit dates from it, §V.A), the permit's
//!   `permit_issued` and `permit_expires` dates, and the `watercourse_ft` the inspector measured from the
//!   absorption field (§IV.C.6), and `improperly_maintained` (yes/no: the Health Department determined the
//!   system improperly maintained or improperly repaired, §V.F.2), each optional;
//! - `installed`, `system_size` (`individual` or `intermediate`), and `adequately_functioning`, for
//!   grandfathered designs; `adequately_functioning` and `illegally_installed` (yes/no: the authority found the
//!   system adequately functioning, or determined it illegally installed) are also discoveries that owe the
//!   owner a notice (Gorham Ch. 56 §601.1).
//!
//! Each row is checked on its own: a bad date or an unknown parcel names its line and the rest still counts.
//! The file may hold millions of rows; only the latest inspection of each parcel is kept (plus reports still
//! owed).
//!
//! **One timeline per parcel.** "Latest" always means the latest *date*, never the last row: a log written
//! newest-first reads the same as one written oldest-first. Rows of one parcel on the same date keep the
//! file's order, so of those the one further down the file is the later ([`keep_latest`]). Every finding kept
//! (the latest inspection, findings, installation, adequately functioning, illegally installed) follows that
//! one rule.

use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;
use rustc_hash::FxHashSet;

use super::columns::{Detect, FieldMap, Role, Spec};
use crate::model::error::{Error, Result};
use crate::records::{read_records, Checker, Read};

/// The latest inspection on record for a parcel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastInspection {
    /// Its date.
    pub date: NaiveDate,
    /// Its result as written (e.g. "pass", "fail"); empty when not given. Shared: a file holds few results.
    pub result: Arc<str>,
}

/// The columns every inspections file must have.
pub const REQUIRED: [&str; 2] = ["parcel_id", "inspection_date"];

/// The roles of the inspections file's columns: `[fields.history]` in the config, `--field history.ROLE=COLUMN`.
pub const SPEC: Spec<'static> = Spec {
    what: "inspections",
    key: "history",
    roles: &[
        Role { name: "parcel_id", aliases: &[], required: true, detect: Detect::ParcelId },
        Role {
            name: "inspection_date",
            aliases: &["date"],
            required: true,
            detect: Detect::Date(&["inspect", "date"]),
        },
        Role { name: "result", aliases: &[], required: false, detect: Detect::Words(&["result", "outcome"]) },
        Role { name: "inspector", aliases: &[], required: false, detect: Detect::Words(&["inspector"]) },
        // "Date Received", "Received": a column named for the day the report came in.
        Role { name: "report_received", aliases: &[], required: false, detect: Detect::Date(&["receiv"]) },
        Role::named("failure"),
        Role::named("overflow_points"),
        Role::named("components_working"),
        Role::named("tank_adequate"),
        Role::named("separation_ft"),
        Role::named("valid_permit"),
        Role::named("meets_75a"),
        Role::named("installed"),
        Role::named("system_size"),
        Role { name: "system_id", aliases: &["system"], required: false, detect: Detect::Name },
    ],
};

/// The findings columns (all or none).
pub const FINDINGS: [&str; 7] = [
    "failure",
    "overflow_points",
    "components_working",
    "tank_adequate",
    "separation_ft",
    "valid_permit",
    "meets_75a",
];

/// What an inspection found, as the law's classification needs it (Art. V §V.B).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Findings {
    /// Evidence of failure: discharge onto the ground surface or into a watercourse.
    pub failure: bool,
    /// Known or identifiable overflow points.
    pub overflow_points: bool,
    /// All mechanical and electrical components in good working order.
    pub components_working: bool,
    /// Septic tank of a size and construction consistent with the requirements for existing systems.
    pub tank_adequate: bool,
    /// Vertical separation between the absorption-device bottom and seasonal high groundwater, bedrock or
    /// impervious strata, feet; `None` when not measured.
    pub separation_ft: Option<f64>,
    /// Built and maintained under a valid DEC, DOH, town or village permit.
    pub valid_permit: bool,
    /// Conforms to the design standards of 10 NYCRR Appendix 75-A.
    pub meets_75a: bool,
}

/// The optional columns that go with the findings.
pub const REPORT_COLUMNS: [&str; 5] =
    ["report_accepted", "permit_issued", "permit_expires", "watercourse_ft", "improperly_maintained"];

/// The latest inspection of a parcel that recorded findings.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Inspection date.
    pub date: NaiveDate,
    /// The line of the file its row starts on.
    pub line: usize,
    /// The findings.
    pub findings: Findings,
    /// When the Health Department accepted the report as complete (§V.A), when recorded.
    pub accepted: Option<NaiveDate>,
    /// When the permit that followed was issued, when recorded.
    pub permit_issued: Option<NaiveDate>,
    /// When that permit expires, when recorded.
    pub permit_expires: Option<NaiveDate>,
    /// The distance from the absorption field to the nearest watercourse or wetland the inspector measured
    /// (§IV.C.6), feet; it wins over the GIS distance.
    pub watercourse_ft: Option<f64>,
    /// The Health Department determined the system improperly maintained or improperly repaired (§V.F.2);
    /// blank is no such determination.
    pub improperly_maintained: bool,
}

/// A system's size class, for grandfathered designs (Gorham Ch. 56 §304.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemSize {
    /// Individual household system.
    Individual,
    /// Intermediate-sized system.
    Intermediate,
}

impl SystemSize {
    /// "individual" or "intermediate".
    pub fn as_str(self) -> &'static str {
        match self {
            SystemSize::Individual => "individual",
            SystemSize::Intermediate => "intermediate",
        }
    }
}

/// When and what size a parcel's system was installed, from its latest inspection that says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Installed {
    /// Installation date.
    pub date: NaiveDate,
    /// Size class.
    pub size: SystemSize,
}

/// A finding together with the inspection that made it: the date that orders it on the parcel's timeline and
/// the line of the file it was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dated<T> {
    /// The date of the inspection that found it.
    pub date: NaiveDate,
    /// The line of the file its row starts on.
    pub line: usize,
    /// What was found.
    pub value: T,
}

/// Keeps in `slot` the finding of the parcel's latest inspection: `value`, found on `date` at `line`,
/// replaces what `slot` holds unless that was found on a later date. Rows come in file order, so of two rows
/// on one date the one further down the file is kept.
pub fn keep_latest<T>(slot: &mut Option<Dated<T>>, date: NaiveDate, line: usize, value: T) {
    if slot.as_ref().is_none_or(|kept| kept.date <= date) {
        *slot = Some(Dated { date, line, value });
    }
}

/// An inspection whose report has not reached the Health Department.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingReport {
    /// The parcel's position.
    pub parcel: usize,
    /// Inspection date.
    pub date: NaiveDate,
    /// Who inspected, as written.
    pub inspector: Arc<str>,
    /// When the report was received, when it may have come after the inspector's deadline
    /// ([`LateReports`]); `None` while it is still owed.
    pub received: Option<NaiveDate>,
    /// The line of the file its row starts on.
    pub line: usize,
}

/// What the inspections file says, per parcel position.
#[derive(Debug, Default)]
pub struct Inspections {
    /// The latest inspection on or before the as-of date of each parcel.
    pub latest: Vec<Option<LastInspection>>,
    /// The latest inspection with findings of each parcel whose report has been received (§V.A); empty when
    /// the file has no findings columns.
    pub reports: Vec<Option<Box<Report>>>,
    /// Each parcel's system installation as its latest inspection that says records it; empty when the file
    /// has no `installed` column.
    pub installed: Vec<Option<Dated<Installed>>>,
    /// Each parcel's latest finding that its system is (or is not) adequately functioning; empty when the
    /// file has no `adequately_functioning` column.
    pub functioning: Vec<Option<Dated<bool>>>,
    /// Each parcel's latest determination that its system was (or was not) illegally installed; empty when
    /// the file has no `illegally_installed` column.
    pub illegally_installed: Vec<Option<Dated<bool>>>,
    /// Every inspection date (parcel position, date, line) of the parcels the reader was asked to keep
    /// them for, in file order.
    pub dated: Vec<(usize, NaiveDate, usize)>,
    /// Reports not yet received, in file order; empty when the file has no `report_received` column.
    pub pending: Vec<PendingReport>,
    /// The inspections that name the system they inspected (column `system_id`): each named system's
    /// latest inspection and latest received report with findings, sorted by parcel position and system.
    /// They answer that system alone; the tables above hold the inspections that name none, which answer
    /// every system of their parcel.
    pub named: Vec<Named>,
}

/// What the inspections file says of one system it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    /// The position of the parcel its rows name.
    pub parcel: usize,
    /// The system's id.
    pub system: Arc<str>,
    /// Its latest inspection.
    pub latest: LastInspection,
    /// Its latest received report with findings.
    pub report: Option<Box<Report>>,
    /// The line of the file its first row starts on.
    pub line: usize,
}

impl Inspections {
    /// What the inspections file says of system `system` of the parcel at `parcel`, when a row names it.
    pub fn named(&self, parcel: usize, system: &str) -> Option<&Named> {
        let at = self.named.partition_point(|n| (n.parcel, &*n.system) < (parcel, system));
        self.named.get(at).filter(|n| n.parcel == parcel && &*n.system == system)
    }
}

/// Reads the inspections file at `path`, its columns named by `fields` or detected, for `parcels` parcels whose
/// positions `position` finds by id (as for the events readers; the reader knows nothing of how the parcels
/// are kept); rows naming an unknown parcel, a bad cell or a date after `as_of` are reported, and the row does
/// not count. Every inspection date is kept for the parcel positions in `keep_dates` (sorted), the rest only
/// as each parcel's latest.
pub fn read_inspections(
    path: &Path,
    fields: &FieldMap,
    parcels: usize,
    position: &dyn Fn(&str) -> Option<usize>,
    as_of: NaiveDate,
    keep_dates: &[usize],
    late: Option<LateReports>,
) -> Result<Read<Inspections>> {
    read_records(path, &SPEC, fields, |records, check| {
        let has_findings = FINDINGS.iter().any(|c| records.has(c));
        let missing: Vec<&str> = FINDINGS.iter().copied().filter(|c| !records.has(c)).collect();
        if has_findings && !missing.is_empty() {
            return Err(Error::format(
                path,
                format!(
                    "findings columns missing: {}; add them (all of {}) or remove the findings columns",
                    missing.join(", "),
                    FINDINGS.join(", ")
                ),
            ));
        }
        if records.has("installed") != records.has("system_size") {
            return Err(Error::format(
                path,
                "only one of 'installed' and 'system_size'; add the other column or remove this one",
            ));
        }
        let column = |name: &str| records.column(name);
        let (ids, dates) = (column(REQUIRED[0]), column(REQUIRED[1]));
        let (results, inspectors, received) =
            (column("result"), column("inspector"), column("report_received"));
        let systems = column("system_id");
        let findings = has_findings.then(|| FINDINGS.map(column));
        let install = column("installed").zip(column("system_size"));
        let (functioning, illegal) = (column(YES_NO[0]), column(YES_NO[1]));
        let report_columns = REPORT_COLUMNS.map(column);

        let mut out = Inspections {
            latest: vec![None; parcels],
            reports: if has_findings { vec![None; parcels] } else { Vec::new() },
            installed: if install.is_some() { vec![None; parcels] } else { Vec::new() },
            functioning: if functioning.is_some() { vec![None; parcels] } else { Vec::new() },
            illegally_installed: if illegal.is_some() { vec![None; parcels] } else { Vec::new() },
            dated: Vec::new(),
            pending: Vec::new(),
            named: Vec::new(),
        };
        let mut named: rustc_hash::FxHashMap<(usize, Arc<str>), Named> = rustc_hash::FxHashMap::default();
        let mut shared: FxHashSet<Arc<str>> = FxHashSet::default();
        while let Some(row) = records.next_row(check)? {
            let line = row.line();
            let Some(at) = check.parcel(line, row.get(ids), position) else { continue };
            let Some(date) = check.date(line, REQUIRED[1], row.get(dates), as_of) else { continue };
            if keep_dates.binary_search(&at).is_ok() {
                out.dated.push((at, date, line));
            }
            let result = share(&mut shared, row.get(results));
            let system = Some(row.get(systems)).filter(|s| !s.is_empty()).map(|s| share(&mut shared, s));
            let this = LastInspection { date, result };
            let (latest, report_slot) = match &system {
                Some(system) => {
                    let entry = named.entry((at, system.clone())).or_insert_with(|| Named {
                        parcel: at,
                        system: system.clone(),
                        latest: this.clone(),
                        report: None,
                        line,
                    });
                    (&mut entry.latest, Some(&mut entry.report))
                }
                None => (out.latest[at].get_or_insert_with(|| this.clone()), None),
            };
            if latest.date <= date {
                *latest = this;
            }
            // §V.A: a system is classified once its report has been filed and accepted; while a report is
            // outstanding its findings wait.
            let mut outstanding = false;
            if let Some(received) = received {
                let on = row.cell(received);
                outstanding = on.is_empty();
                match check.optional_date(line, "report_received", on, Some(as_of)) {
                    Some(Some(on)) if on < date => check.report(
                        line,
                        format!("report_received {on} is before the inspection_date {date}; fix one of them"),
                    ),
                    Some(None) => out.pending.push(PendingReport {
                        parcel: at,
                        date,
                        inspector: share(&mut shared, row.get(inspectors)),
                        received: None,
                        line,
                    }),
                    Some(Some(on)) if late.is_some_and(|l| l.may_be_late(date, on)) => {
                        out.pending.push(PendingReport {
                            parcel: at,
                            date,
                            inspector: share(&mut shared, row.get(inspectors)),
                            received: Some(on),
                            line,
                        })
                    }
                    _ => {}
                }
            }
            if let Some(columns) = findings {
                let found = read_findings(check, line, columns.map(|c| row.get(c))).filter(|_| !outstanding);
                if let Some(found) = found {
                    let slot = match report_slot {
                        Some(slot) => slot,
                        None => &mut out.reports[at],
                    };
                    let newer = slot.as_ref().is_none_or(|r| r.date <= date);
                    if newer {
                        let cells = report_columns.map(|c| row.get(c));
                        let report = read_report_columns(check, line, cells, date, as_of, found);
                        *slot = Some(Box::new(report));
                    }
                }
            }
            let flags = [(functioning, &mut out.functioning), (illegal, &mut out.illegally_installed)];
            for ((column, kept), name) in flags.into_iter().zip(YES_NO) {
                let Some(column) = column else { continue };
                if let Some(Some(found)) = check.yes_no(line, name, row.cell(column)) {
                    keep_latest(&mut kept[at], date, line, found);
                }
            }
            if let Some((dates, sizes)) = install {
                if let Some(found) = read_installed(check, line, row.cell(dates), row.cell(sizes), as_of) {
                    keep_latest(&mut out.installed[at], date, line, found);
                }
            }
        }
        out.named = named.into_values().collect();
        out.named.sort_by(|a, b| (a.parcel, &a.system).cmp(&(b.parcel, &b.system)));
        Ok(out)
    })
}

/// Which received reports the reader keeps beside those still owed: those that may have come after the
/// inspector's deadline, so that the law can list them as met late. A superset, decided without the legal
/// calendar: a deadline of `n` business days is never fewer than `n` calendar days.
#[derive(Debug, Clone, Copy)]
pub struct LateReports {
    /// The deadline's length in business days.
    pub business_days: u32,
    /// The first receipt date still listed.
    pub since: NaiveDate,
}

impl LateReports {
    /// Whether a report of an inspection on `inspected` received on `received` may have been late and is
    /// still listed.
    fn may_be_late(self, inspected: NaiveDate, received: NaiveDate) -> bool {
        received >= self.since && (received - inspected).num_days() > i64::from(self.business_days)
    }
}

/// The optional yes/no findings, each kept as the parcel's latest: [`Inspections::functioning`] and
/// [`Inspections::illegally_installed`].
pub const YES_NO: [&str; 2] = ["adequately_functioning", "illegally_installed"];

/// One shared copy of each distinct text (a file holds few distinct results and inspectors).
fn share(shared: &mut FxHashSet<Arc<str>>, text: &str) -> Arc<str> {
    if let Some(known) = shared.get(text) {
        return known.clone();
    }
    let new: Arc<str> = text.into();
    shared.insert(new.clone());
    new
}

/// The findings of one row, when it has them all and they agree with each other; a row with every finding
/// blank is an inspection without findings (not a problem).
fn read_findings(check: &mut Checker<'_>, line: usize, cells: [&str; 7]) -> Option<Findings> {
    let cell = |i: usize| cells[i];
    if (0..FINDINGS.len()).all(|i| cell(i).is_empty()) {
        return None;
    }
    let mut flags = [false; 7];
    let mut blank = Vec::new();
    let mut bad = false;
    for (i, name) in FINDINGS.iter().enumerate() {
        if *name == "separation_ft" {
            continue;
        }
        match check.yes_no(line, name, cell(i)) {
            Some(Some(v)) => flags[i] = v,
            Some(None) => blank.push(*name),
            None => bad = true,
        }
    }
    let separation_ft = check.number(line, "separation_ft", cell(4));
    if !blank.is_empty() {
        check.report(
            line,
            format!(
                "findings incomplete: no {}; fill them in (or leave every finding blank)",
                blank.join(", ")
            ),
        );
        return None;
    }
    let found = Findings {
        failure: flags[0],
        overflow_points: flags[1],
        components_working: flags[2],
        tank_adequate: flags[3],
        separation_ft: separation_ft?,
        valid_permit: flags[5],
        meets_75a: flags[6],
    };
    if bad {
        return None;
    }
    if found.failure && found.meets_75a {
        check.report(
            line,
            "the findings contradict each other: failure = yes and meets_75a = yes (a failed system does not \
             meet design standards); correct one of them",
        );
        return None;
    }
    Some(found)
}

/// The report of the findings `found` on `line`, with the optional report columns' cells (`cells`, in the
/// order of [`REPORT_COLUMNS`], blank where the file lacks one); a bad date or number is reported and left out.
fn read_report_columns(
    check: &mut Checker<'_>,
    line: usize,
    cells: [&str; 5],
    date: NaiveDate,
    as_of: NaiveDate,
    findings: Findings,
) -> Report {
    // An expiry lies in the future; the other dates are records of what happened.
    let mut dated = |i: usize, latest: Option<NaiveDate>| {
        check.optional_date(line, REPORT_COLUMNS[i], cells[i], latest).flatten()
    };
    let accepted = dated(0, Some(as_of));
    let permit_issued = dated(1, Some(as_of));
    let permit_expires = dated(2, None);
    let watercourse_ft = check.number(line, REPORT_COLUMNS[3], cells[3]).flatten();
    let improperly_maintained = check.yes_no(line, REPORT_COLUMNS[4], cells[4]).flatten().unwrap_or(false);
    for (name, day) in [(REPORT_COLUMNS[0], accepted), (REPORT_COLUMNS[1], permit_issued)] {
        if day.is_some_and(|d| d < date) {
            check.report(line, format!("{name} is before the inspection_date {date}; fix one of them"));
        }
    }
    Report {
        date,
        line,
        findings,
        accepted,
        permit_issued,
        permit_expires,
        watercourse_ft,
        improperly_maintained,
    }
}

fn read_installed(
    check: &mut Checker<'_>,
    line: usize,
    date: &str,
    size: &str,
    as_of: NaiveDate,
) -> Option<Installed> {
    let date = check.optional_date(line, "installed", date, Some(as_of))??;
    let size = match size.to_ascii_lowercase().as_str() {
        "individual" => SystemSize::Individual,
        "intermediate" => SystemSize::Intermediate,
        other => {
            check.report(
                line,
                format!("system_size '{other}' is not individual or intermediate; write one of them"),
            );
            return None;
        }
    };
    Some(Installed { date, size })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::error::Location;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap_or(NaiveDate::MIN)
    }

    /// The yes/no findings of §601.1 ("not adequately functioning or determined to have been illegally
    /// installed") are each the parcel's latest *by date*: parcel A's row of 2025-01-01 comes after its row of
    /// 2026-03-01 in the file but is older, so the 2026 findings stand (line 2); parcel B's two rows of
    /// 2026-02-02 keep the file's order, so the one further down (line 5) is the later. A blank cell finds
    /// nothing, and a cell that is not yes or no is reported on its line.
    #[test]
    fn illegally_installed_is_the_latest_determination_by_date() {
        let dir = crate::scratch::root().join("inspections");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("history.csv");
        std::fs::write(
            &path,
            "parcel_id,inspection_date,adequately_functioning,illegally_installed\n\
             A,2026-03-01,no,yes\n\
             A,2025-01-01,yes,no\n\
             B,2026-02-02,,no\n\
             B,2026-02-02,,yes\n\
             C,2026-01-01,yes,perhaps\n",
        )
        .unwrap();
        let position = |id: &str| ["A", "B", "C"].iter().position(|p| *p == id);
        let read =
            read_inspections(&path, &FieldMap::new(), 3, &position, d(2027, 1, 15), &[], None).unwrap();
        let found = read.value;
        assert_eq!(found.illegally_installed[0], Some(Dated { date: d(2026, 3, 1), line: 2, value: true }));
        assert_eq!(found.functioning[0], Some(Dated { date: d(2026, 3, 1), line: 2, value: false }));
        assert_eq!(found.illegally_installed[1], Some(Dated { date: d(2026, 2, 2), line: 5, value: true }));
        assert_eq!(found.functioning[1], None);
        assert_eq!(found.illegally_installed[2], None);
        assert_eq!(found.functioning[2], Some(Dated { date: d(2026, 1, 1), line: 6, value: true }));
        let problems: Vec<(&Location, &str)> =
            read.problems.iter().map(|p| (&p.location, p.message.as_str())).collect();
        assert_eq!(
            problems,
            [(&Location::Line(6), "illegally_installed 'perhaps' is not yes or no; write yes or no")]
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
