//! A system's class and permit after an inspection (Cayuga Art. V §V, with the floodplain bar of §X).
//!
//! The pipeline decides each parcel's class and permit beside its schedule entry ([`permit_for`]), from its
//! latest findings, its facts and its events; the row carries the result, and the obligations read it.
//!
//! | class | when | permit |
//! |---|---|---|
//! | failed | evidence of failure | none; repair order (§V.G.4) |
//! | design standards | §V.B.1-4 hold and the system meets Appendix 75-A | to discharge, up to 5 years |
//! | existing standards | §V.B.1-4 hold and a valid permit, or tank adequate + separation ≥ 2 ft + ≥ 100 ft from watercourses | to discharge, up to 5 years |
//! | substandard | anything else without evidence of failure | interim, at least 1 year, renewal applied for annually unless barred (§V.F) |
//! | cannot verify | only the 100 ft is left to show, and neither the system's location nor a measured distance is known | undecided |
//!
//! The terms are bounds the Health Department sets each permit within: the permit's dates come from the
//! records (its start, from the issue or the acceptance of the report; its expiry), and the bounds hold
//! whatever the records say. A permit to discharge runs "for a term of up to five years" (§V.B), so one whose
//! recorded expiry is later than five years from its start ends five years from it; an interim permit runs
//! "for a minimum term of one year" (§V.C, §V.F), so one whose recorded expiry is earlier ends a year from
//! its start. Each such record is reported ([`term_problem`]). Without a start on record no bound can be
//! applied, and the recorded expiry stands.
//! No permit of any kind issues while the absorption-field bottom is not shown to be 2 ft above the
//! designated flood elevation (§X).

use std::path::Path;

use chrono::NaiveDate;

use crate::law::schedule::Row;
use crate::model::error::Problem;
use crate::model::facts::{Basis, Facts, FloodVerdict, Measured};
use crate::records::events::{events_of, Event, EventValue};
use crate::records::inspections::{Findings, Report};
use crate::rules::calendar::{add_years, roll_forward};
use crate::rules::vocabulary::{EventKind, CONDITION_BREACH, INTERIM_RENEWAL, PERMIT_ISSUED};
use crate::rules::{PermitRules, RuleSet};

/// The class of an inspected system (§V.A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Conforms to 10 NYCRR Appendix 75-A.
    Design,
    /// Conforms to the standards for existing systems.
    Existing,
    /// Neither, with no evidence of failure.
    Substandard,
    /// Discharges onto the ground surface or into a watercourse.
    Failed,
    /// Existing standards turn on the 100 ft from the absorption field, and neither the system's location nor
    /// a measured distance is on record (§V.B.5).
    Unverified,
}

impl Class {
    /// "design standards", "existing standards", "substandard", "failed" or "cannot verify: system location
    /// needed".
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Design => "design standards",
            Class::Existing => "existing standards",
            Class::Substandard => "substandard",
            Class::Failed => "failed",
            Class::Unverified => "cannot verify: system location needed",
        }
    }
}

/// The permit that follows a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermitKind {
    /// Permit to discharge (design or existing standards).
    Discharge,
    /// Interim permit to discharge (substandard).
    Interim,
    /// No permit: failed, or barred by the floodplain requirement.
    None,
    /// Not decided until the class is.
    Undecided,
}

impl PermitKind {
    /// "permit to discharge", "interim permit", "none" or "undecided".
    pub fn as_str(self) -> &'static str {
        match self {
            PermitKind::Discharge => "permit to discharge",
            PermitKind::Interim => "interim permit",
            PermitKind::None => "none",
            PermitKind::Undecided => "undecided",
        }
    }
}

/// What the classification needs besides the findings.
#[derive(Debug, Clone)]
pub struct Context {
    /// The inspection date.
    pub inspected: NaiveDate,
    /// The GIS distance from the system's location to the nearest watercourse or wetland (see
    /// [`crate::model::facts::Facts::watercourse_ft`]); not measured without a watercourse layer.
    pub watercourse_ft: Measured,
    /// Whether the system's location is known (the GIS distance was measured from it, not the parcel).
    pub system_located: bool,
    /// The distance the inspector measured (§IV.C.6); it wins over the GIS distance.
    pub measured_ft: Option<f64>,
    /// The floodplain verdict, when the system is in a flood zone.
    pub flood: Option<FloodVerdict>,
    /// When the permit starts, from the records (issue date, or else the acceptance of the report).
    pub starts: Option<NaiveDate>,
    /// When the permit expires, from the records.
    pub expires: Option<NaiveDate>,
    /// Interim-permit renewals on record after the inspection, in date order.
    pub renewals: Vec<NaiveDate>,
    /// Whether a permit condition was breached after the inspection (§V.F.1).
    pub breached: bool,
    /// Whether the Health Department determined the system improperly maintained or improperly repaired
    /// (§V.F.2).
    pub improperly_maintained: bool,
    /// Whether a renewal due on a Saturday, Sunday or public holiday may be made on the next business day
    /// (N.Y. Gen. Constr. Law §25-a).
    pub roll_forward: bool,
}

/// A system's class and permit.
#[derive(Debug, Clone, PartialEq)]
pub struct Permit {
    /// The class.
    pub class: Class,
    /// The permit that follows.
    pub kind: PermitKind,
    /// When the permit starts, from the records.
    pub starts: Option<NaiveDate>,
    /// When the permit ends: the recorded expiry, or the bound on the term it lies beyond
    /// ([`Permit::out_of_term`]); `None` without an expiry on record.
    pub expires: Option<NaiveDate>,
    /// The recorded expiry, when a bound on the term replaced it.
    pub out_of_term: Option<OutOfTerm>,
    /// When the next application to renew an interim permit is due: annually from its start (or from its
    /// expiry), each renewal on time carrying it a year; `None` without a start or expiry on record.
    pub renewal_due: Option<NaiveDate>,
    /// Whether an interim permit may be renewed (§V.F).
    pub renewable: bool,
    /// Why the system is not of a better class, or why no permit issues, in short clauses.
    pub shortfalls: Vec<String>,
    /// The floodplain requirement is not shown to be met, so no permit issues (§X).
    pub floodplain_bar: bool,
    /// The system was determined improperly maintained or improperly repaired, so no interim permit issues
    /// or renews (§V.F.2) until it is maintained or repaired (§V.E.2).
    pub maintenance_bar: bool,
}

/// Which bound of the law a recorded expiry lies beyond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermLimit {
    /// Later than the longest term of a permit to discharge (§V.B: "for a term of up to five years").
    Longest,
    /// Earlier than the shortest term of an interim permit (§V.C: "for a minimum term of one year").
    Shortest,
    /// Earlier than the shortest term of a permit to discharge (§V.D: "Permit to Discharge (2 to 5 years)").
    DischargeFloor,
}

/// A recorded expiry that a bound on the term replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfTerm {
    /// The expiry on record.
    pub recorded: NaiveDate,
    /// The bound used in its place: the start plus the longest or the shortest term.
    pub used: NaiveDate,
    /// Which bound.
    pub limit: TermLimit,
}

impl OutOfTerm {
    /// What the record does and what is used instead: "more than the 5-year term Art. V §V.B allows;
    /// 2031-03-01 is used".
    pub fn explain(&self, rules: &PermitRules) -> String {
        let used = self.used;
        match self.limit {
            TermLimit::Longest => format!(
                "more than the {}-year term {} allows; {used} is used",
                rules.max_term_years,
                rules.max_term()
            ),
            TermLimit::Shortest => format!(
                "less than the {}-year minimum term {} sets; {used} is used",
                rules.interim_min_term_years,
                rules.interim_min_term()
            ),
            TermLimit::DischargeFloor => format!(
                "less than the {}-year term {} gives a permit to discharge; {used} is used",
                rules.min_term_years,
                rules.min_term()
            ),
        }
    }
}

/// A permit's dates as the records give them, and which record gives each.
struct OnRecord<'e> {
    /// The start and the name of what records it: `permit-issued` (the event), `permit_issued` or
    /// `report_accepted` (columns of the inspections file).
    starts: Option<(NaiveDate, &'static str)>,
    /// The expiry and the `permit-issued` event that records it; `None` for the report's `permit_expires`.
    expires: Option<(NaiveDate, Option<&'e Event>)>,
}

/// The dates of the permit after `report` on record: the latest `permit-issued` event on or after the
/// inspection (with its `expires`), or else the report's `permit_issued` / `permit_expires`, or else the
/// acceptance of the report (§V.A: the permit follows it).
fn on_record<'e>(report: &Report, events: &'e [Event]) -> OnRecord<'e> {
    let issued =
        events.iter().filter(|e| e.kind == PERMIT_ISSUED && e.date >= report.date).max_by_key(|e| e.date);
    let from_report = report.permit_expires.map(|d| (d, None));
    match issued {
        Some(issued) => OnRecord {
            starts: Some((issued.date, PERMIT_ISSUED.as_str())),
            expires: match issued.value("expires") {
                Some(EventValue::Date(d)) => Some((d, Some(issued))),
                _ => from_report,
            },
        },
        None => OnRecord {
            starts: report
                .permit_issued
                .map(|d| (d, "permit_issued"))
                .or(report.accepted.map(|d| (d, "report_accepted"))),
            expires: from_report,
        },
    }
}

/// The class and permit following the parcel's latest inspection with findings, when the rule set has
/// permits. `events` are the parcel's events; `roll_forward` applies N.Y. Gen. Constr. Law §25-a to renewals.
///
/// The permit's dates come from the records: the latest `permit-issued` event on or after the inspection
/// (with its `expires`), or else the report's `permit_issued` / `permit_expires`, or else the acceptance of
/// the report (§V.A: the permit follows it). The bounds on the term hold whatever they say ([`decide_permit`]).
pub fn permit_for(
    rules: &RuleSet,
    report: &Report,
    facts: Option<&Facts>,
    events: &[Event],
) -> Option<Permit> {
    let permits = rules.permits.as_ref()?;
    let after = |kind: EventKind| events.iter().filter(move |e| e.kind == kind && e.date >= report.date);
    let dates = on_record(report, events);
    let context = Context {
        inspected: report.date,
        watercourse_ft: facts.map_or(Measured::Unmeasured, |f| f.watercourse_ft),
        system_located: facts.is_some_and(|f| f.basis == Basis::System),
        measured_ft: report.watercourse_ft,
        flood: facts.and_then(|f| f.flood.as_ref()).map(|f| f.verdict),
        starts: dates.starts.map(|(d, _)| d),
        expires: dates.expires.map(|(d, _)| d),
        renewals: after(INTERIM_RENEWAL).map(|e| e.date).collect(),
        breached: after(CONDITION_BREACH).next().is_some(),
        improperly_maintained: report.improperly_maintained,
        roll_forward: rules.calendar.as_ref().is_some_and(|c| c.roll_forward),
    };
    Some(decide_permit(permits, &report.findings, &context))
}

/// The permits of a block of rows whose recorded expiry lies beyond the law's bounds on the term (Art. V
/// §V.B, §V.C): each reported at the record of the expiry, with the bound used in its place. `records` are
/// the run's events and each parcel's latest received report; `history` is the inspections file they came
/// from.
pub fn report_permit_terms(
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

/// The problem with the record of `permit` (decided by [`permit_for`] from `report` and the parcel's
/// `events`) when a bound on the term replaced its recorded expiry: reported at the record of the expiry, the
/// `permit-issued` event or the report's row of the inspections file at `history`, with the bound and its
/// clause. `None` when the record is within the bounds.
pub fn term_problem(
    rules: &PermitRules,
    permit: &Permit,
    report: &Report,
    events: &[Event],
    history: &Path,
) -> Option<Problem> {
    let out = permit.out_of_term?;
    let dates = on_record(report, events);
    let (starts, name) = dates.starts?;
    let message =
        format!("{name} {starts} with expiry {}, {}: correct the expiry", out.recorded, out.explain(rules));
    Some(match dates.expires {
        Some((_, Some(event))) => {
            let at = crate::records::line(&event.source.path, event.source.line);
            Problem::new(&event.source.path, at, message)
        }
        _ => Problem::new(history, crate::records::line(history, report.line), message),
    })
}

/// The distance existing standards measure, as far as it is known.
enum Distance {
    /// Measured (by the inspector or from the system's location); `None` is beyond the search radius.
    Known(Option<f64>),
    /// No watercourse layer and no measurement.
    NoLayer,
    /// A watercourse layer, but no system location and no measurement: the parcel's edge does not say.
    NeedLocation,
}

/// Classifies a system from an inspection's findings and decides its permit.
pub fn decide_permit(rules: &PermitRules, found: &Findings, context: &Context) -> Permit {
    let mut shortfalls = Vec::new();
    let distance = match (context.measured_ft, context.watercourse_ft, context.system_located) {
        (Some(ft), ..) => Distance::Known(Some(ft)),
        (None, Measured::Unmeasured, _) => Distance::NoLayer,
        (None, _, false) => Distance::NeedLocation,
        (None, gis, true) => Distance::Known(gis.ft()),
    };
    let class = classify(rules, found, &distance, &mut shortfalls);
    let floodplain_bar = matches!(context.flood, Some(FloodVerdict::Below | FloodVerdict::Unknown));
    match context.flood {
        Some(FloodVerdict::Below) => {
            shortfalls.push("absorption-field bottom below the flood elevation + 2 ft".into())
        }
        Some(FloodVerdict::Unknown) => shortfalls
            .push("in a flood zone without a known absorption-field bottom or flood elevation".into()),
        _ => {}
    }
    let maintenance_bar = class == Class::Substandard && context.improperly_maintained;
    if maintenance_bar {
        shortfalls.push("improperly maintained or improperly repaired: no interim permit".into());
    }
    let kind = match class {
        Class::Failed => PermitKind::None,
        _ if floodplain_bar || maintenance_bar => PermitKind::None,
        Class::Unverified => PermitKind::Undecided,
        Class::Design | Class::Existing => PermitKind::Discharge,
        Class::Substandard => PermitKind::Interim,
    };
    let dated = matches!(kind, PermitKind::Discharge | PermitKind::Interim);
    let (expires, out_of_term) = match dated {
        true => bounded_expiry(rules, kind, context),
        false => (None, None),
    };
    let renewal_due =
        (kind == PermitKind::Interim).then(|| interim_renewal(rules, context, expires)).flatten();
    Permit {
        class,
        kind,
        starts: context.starts.filter(|_| dated),
        expires,
        out_of_term,
        renewal_due,
        renewable: kind == PermitKind::Interim && !context.breached,
        shortfalls,
        floodplain_bar,
        maintenance_bar,
    }
}

/// The expiry of a permit of `kind` (to discharge or interim) within the law's bounds on its term, and the
/// recorded expiry when a bound replaced it. The bounds run from the start, so without one the recorded
/// expiry stands.
fn bounded_expiry(
    rules: &PermitRules,
    kind: PermitKind,
    context: &Context,
) -> (Option<NaiveDate>, Option<OutOfTerm>) {
    let (Some(starts), Some(recorded)) = (context.starts, context.expires) else {
        return (context.expires, None);
    };
    let out = |used: NaiveDate, limit: TermLimit| (Some(used), Some(OutOfTerm { recorded, used, limit }));
    match kind {
        PermitKind::Discharge => {
            let longest = add_years(starts, rules.max_term_years);
            if recorded > longest {
                return out(longest, TermLimit::Longest);
            }
            let shortest = add_years(starts, rules.min_term_years);
            if rules.min_term_years > 0 && recorded < shortest {
                return out(shortest, TermLimit::DischargeFloor);
            }
        }
        PermitKind::Interim => {
            let shortest = add_years(starts, rules.interim_min_term_years);
            if recorded < shortest {
                return out(shortest, TermLimit::Shortest);
            }
        }
        PermitKind::None | PermitKind::Undecided => {}
    }
    (Some(recorded), None)
}

/// The next renewal application of an interim permit: the first due date is its `expires` (within the
/// bounds), or else a renewal period after the start, but never before the shortest term has run; each
/// renewal made by a due date carries it one period, and one made after it lapsed renews the period in
/// progress. With `roll_forward` a due date on a weekend or holiday runs to the next business day.
fn interim_renewal(rules: &PermitRules, context: &Context, expires: Option<NaiveDate>) -> Option<NaiveDate> {
    let years = rules.interim_renewal_years.max(1);
    // Due dates are counted in years from one anchor, so that a permit dated February 29 keeps its day in
    // leap years.
    let (anchor, first) = match (expires, context.starts) {
        (Some(expires), _) => (expires, 0),
        (None, Some(starts)) => (starts, years.max(rules.interim_min_term_years)),
        (None, None) => return None,
    };
    let roll = |d: NaiveDate| if context.roll_forward { roll_forward(d) } else { d };
    let due = |n: u32| roll(add_years(anchor, first + (n - 1) * years));
    let mut n = 1;
    for &renewed in &context.renewals {
        if renewed <= due(n) {
            n += 1;
        } else {
            while due(n) < renewed {
                n += 1;
            }
        }
    }
    Some(due(n))
}

fn classify(
    rules: &PermitRules,
    found: &Findings,
    distance: &Distance,
    shortfalls: &mut Vec<String>,
) -> Class {
    if found.failure {
        shortfalls.push("evidence of failure".into());
        return Class::Failed;
    }
    if found.overflow_points {
        shortfalls.push("overflow points".into());
    }
    if !found.components_working {
        shortfalls.push("mechanical or electrical components not in working order".into());
    }
    let conditions = shortfalls.is_empty();
    if conditions && found.meets_75a {
        return Class::Design;
    }
    if conditions && found.valid_permit {
        return Class::Existing;
    }
    let before = shortfalls.len();
    if !found.tank_adequate {
        shortfalls.push("septic tank not adequate".into());
    }
    match found.separation_ft {
        Some(ft) if ft >= rules.min_separation_ft => {}
        Some(ft) => {
            shortfalls.push(format!("vertical separation {ft} ft, under {} ft", rules.min_separation_ft))
        }
        None => shortfalls.push("vertical separation not measured".into()),
    }
    let measured_ok = shortfalls.len() == before;
    match distance {
        Distance::Known(None) => {}
        Distance::Known(Some(ft)) if *ft >= rules.min_watercourse_ft => {}
        Distance::Known(Some(ft)) => shortfalls.push(format!(
            "absorption field {ft:.1} ft from a watercourse or wetland, under {} ft",
            rules.min_watercourse_ft
        )),
        Distance::NoLayer => {
            shortfalls.push("distance to watercourses unknown (no watercourse layer)".into())
        }
        Distance::NeedLocation => {
            // The 100 ft runs from the absorption field, which the parcel's edge does not locate. Only when
            // it is the last thing to show does it leave the class open.
            if conditions && measured_ok {
                shortfalls.push(format!(
                    "no system location and no measured distance: cannot show the absorption field {} ft from watercourses and wetlands",
                    rules.min_watercourse_ft
                ));
                return Class::Unverified;
            }
        }
    }
    if conditions && shortfalls.len() == before {
        Class::Existing
    } else {
        Class::Substandard
    }
}

mod owed;

pub use owed::{permit_obligations, PermitCase};

#[cfg(test)]
mod tests;
