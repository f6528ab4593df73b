//! A system's class and permit after an inspection (Cayuga Art. V §V, with the floodplain bar of §X).
//!
//! | class | when | permit |
//! |---|---|---|
//! | failed | evidence of failure | none; repair order (§V.G.4) |
//! | design standards | §V.B.1-4 hold and the system meets Appendix 75-A | to discharge, ≤ 5 years |
//! | existing standards | §V.B.1-4 hold and a valid permit, or tank adequate + separation ≥ 2 ft + ≥ 100 ft from watercourses | to discharge, ≤ 5 years |
//! | substandard | anything else without evidence of failure | interim, 1 year, renewed yearly unless barred (§V.F) |
//!
//! A permit to discharge never runs past the parcel's next periodic due date after the one the inspection
//! answered. No permit of any kind issues while the absorption-field bottom is not shown to be 2 ft above the
//! designated flood elevation (§X).

use chrono::NaiveDate;

use crate::calendar::add_years;
use crate::classify::FloodVerdict;
use crate::io::inspections::Findings;
use crate::rules::PermitRules;

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
}

impl Class {
    /// "design standards", "existing standards", "substandard" or "failed".
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Design => "design standards",
            Class::Existing => "existing standards",
            Class::Substandard => "substandard",
            Class::Failed => "failed",
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
}

impl PermitKind {
    /// "permit to discharge", "interim permit" or "none".
    pub fn as_str(self) -> &'static str {
        match self {
            PermitKind::Discharge => "permit to discharge",
            PermitKind::Interim => "interim permit",
            PermitKind::None => "none",
        }
    }
}

/// What the classification needs besides the findings.
#[derive(Debug, Clone)]
pub struct Context {
    /// The inspection date (the permit's start).
    pub inspected: NaiveDate,
    /// Distance from the absorption field to the nearest watercourse or wetland (see
    /// [`crate::classify::Facts::watercourse_ft`]).
    pub watercourse_ft: Option<Option<f64>>,
    /// The floodplain verdict, when the system is in a flood zone.
    pub flood: Option<FloodVerdict>,
    /// The periodic due date after the one the inspection answered, when the parcel is on a cycle.
    pub next_periodic_due: Option<NaiveDate>,
    /// Interim-permit renewals on record after the inspection, in date order.
    pub renewals: Vec<NaiveDate>,
    /// Whether a permit condition was breached after the inspection (§V.F.1).
    pub breached: bool,
}

/// A system's class and permit.
#[derive(Debug, Clone, PartialEq)]
pub struct Permit {
    /// The class.
    pub class: Class,
    /// The permit that follows.
    pub kind: PermitKind,
    /// When the permit ends (none for no permit).
    pub expires: Option<NaiveDate>,
    /// Whether an interim permit may be renewed (§V.F).
    pub renewable: bool,
    /// Why the system is not of a better class, or why no permit issues, in short clauses.
    pub shortfalls: Vec<String>,
    /// The floodplain requirement is not shown to be met, so no permit issues (§X).
    pub floodplain_bar: bool,
}

/// Classifies a system from an inspection's findings and decides its permit.
pub fn decide_permit(rules: &PermitRules, found: &Findings, context: &Context) -> Permit {
    let mut shortfalls = Vec::new();
    let class = classify(rules, found, context.watercourse_ft, &mut shortfalls);
    let floodplain_bar = matches!(context.flood, Some(FloodVerdict::Below | FloodVerdict::Unknown));
    match context.flood {
        Some(FloodVerdict::Below) => {
            shortfalls.push("absorption-field bottom below the flood elevation + 2 ft".into())
        }
        Some(FloodVerdict::Unknown) => shortfalls
            .push("in a flood zone without a known absorption-field bottom or flood elevation".into()),
        _ => {}
    }
    let (kind, expires) = match class {
        Class::Failed => (PermitKind::None, None),
        _ if floodplain_bar => (PermitKind::None, None),
        Class::Design | Class::Existing => {
            let term_end = add_years(context.inspected, rules.max_term_years);
            (PermitKind::Discharge, Some(context.next_periodic_due.map_or(term_end, |d| d.min(term_end))))
        }
        Class::Substandard => {
            // Terms run from the inspection's anniversaries. A renewal made before the permit ends carries it
            // one more term; one made after it lapsed renews the term in progress.
            let term = rules.interim_term_years.max(1);
            let mut n = 1;
            for &renewed in &context.renewals {
                if renewed <= add_years(context.inspected, n * term) {
                    n += 1;
                } else {
                    while add_years(context.inspected, n * term) <= renewed {
                        n += 1;
                    }
                }
            }
            (PermitKind::Interim, Some(add_years(context.inspected, n * term)))
        }
    };
    Permit {
        class,
        kind,
        expires,
        renewable: kind == PermitKind::Interim && !context.breached,
        shortfalls,
        floodplain_bar,
    }
}

fn classify(
    rules: &PermitRules,
    found: &Findings,
    watercourse_ft: Option<Option<f64>>,
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
    match watercourse_ft {
        Some(None) => {}
        Some(Some(ft)) if ft >= rules.min_watercourse_ft => {}
        Some(Some(ft)) => shortfalls.push(format!(
            "absorption field {ft:.1} ft from a watercourse or wetland, under {} ft",
            rules.min_watercourse_ft
        )),
        None => shortfalls.push("distance to watercourses unknown (no watercourse layer)".into()),
    }
    if conditions && shortfalls.len() == before {
        Class::Existing
    } else {
        Class::Substandard
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

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

    fn context(inspected: NaiveDate) -> Context {
        Context {
            inspected,
            watercourse_ft: Some(Some(100.0)),
            flood: None,
            next_periodic_due: None,
            renewals: Vec::new(),
            breached: false,
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
        let near_creek = Context { watercourse_ft: Some(Some(99.9)), ..at.clone() };
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
        let no_layer = Context { watercourse_ft: None, ..at.clone() };
        assert_eq!(class(sound(), &no_layer), Class::Substandard);
        let beyond = Context { watercourse_ft: Some(None), ..at };
        assert_eq!(class(sound(), &beyond), Class::Existing);
    }

    #[test]
    fn permit_terms() {
        // Up to five years (§V.B): inspected 2026-06-01, no cycle → 2031-06-01.
        let p = decide_permit(&rules(), &sound(), &context(date(2026, 6, 1)));
        assert_eq!((p.kind, p.expires), (PermitKind::Discharge, Some(date(2031, 6, 1))));
        // Never past the next periodic due date: a lakefront parcel next due 2028-11-01.
        let lakefront = Context { next_periodic_due: Some(date(2028, 11, 1)), ..context(date(2026, 6, 1)) };
        assert_eq!(decide_permit(&rules(), &sound(), &lakefront).expires, Some(date(2028, 11, 1)));
        // Interim: one year (§V.C), carried a year by each renewal (§V.F).
        let bad = Findings { tank_adequate: false, ..sound() };
        let p = decide_permit(&rules(), &bad, &context(date(2025, 3, 10)));
        assert_eq!((p.kind, p.expires, p.renewable), (PermitKind::Interim, Some(date(2026, 3, 10)), true));
        let renewed = Context { renewals: vec![date(2026, 2, 20)], ..context(date(2025, 3, 10)) };
        assert_eq!(decide_permit(&rules(), &bad, &renewed).expires, Some(date(2027, 3, 10)));
        // Renewed again on time: to 2028-03-10. Renewed only after the permit lapsed: the term in progress.
        let twice =
            Context { renewals: vec![date(2026, 2, 20), date(2027, 3, 1)], ..context(date(2025, 3, 10)) };
        assert_eq!(decide_permit(&rules(), &bad, &twice).expires, Some(date(2028, 3, 10)));
        let late = Context { renewals: vec![date(2026, 4, 1)], ..context(date(2025, 3, 10)) };
        assert_eq!(decide_permit(&rules(), &bad, &late).expires, Some(date(2027, 3, 10)));
        let breached = Context { breached: true, ..context(date(2025, 3, 10)) };
        assert!(!decide_permit(&rules(), &bad, &breached).renewable);
        // Failed: no permit.
        let p = decide_permit(&rules(), &Findings { failure: true, ..sound() }, &context(date(2026, 6, 1)));
        assert_eq!((p.kind, p.expires), (PermitKind::None, None));
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
}
