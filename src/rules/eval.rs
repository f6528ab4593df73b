//! Applying a rule set to one parcel's facts: the exclusions first, then the rules in order, the first match
//! deciding. The decision carries a plain sentence saying why, built from the facts the rule looked at.

#[cfg(test)]
use crate::classify::Basis;
use crate::classify::Facts;
use crate::rules::{Rule, RuleSet};

/// Why a parcel is outside the law altogether.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclusion {
    /// On public sewer (§I.B).
    Sewered,
    /// Outside the county (§I.C.2).
    OutsideCounty,
    /// The parcel's town is not a municipality of the jurisdiction: bad input, held back for review rather
    /// than scheduled under a guess.
    UnknownTown,
    /// No rule applies (a gap in the law, or an unknown town).
    NoRule,
}

/// What the rules say about one parcel.
#[derive(Debug, Clone)]
pub enum Decision<'r> {
    /// A periodic-inspection rule applies.
    Scheduled {
        /// The rule that matched.
        rule: &'r Rule,
    },
    /// No periodic inspection: excluded, or no rule covers the parcel.
    Unscheduled {
        /// Which kind of gap.
        exclusion: Exclusion,
        /// The citation that says so.
        citation: &'r str,
    },
}

/// Decides a parcel's schedule rule from its facts: the exclusions first, then the rules in order.
pub fn decide<'r>(rules: &'r RuleSet, facts: &Facts) -> Decision<'r> {
    walk(rules, facts, |_, _| {})
}

/// Why [`decide`] decided as it did, in a sentence ending with the citation (and the cycle, when scheduled).
pub fn explain(rules: &RuleSet, facts: &Facts) -> String {
    let mut clauses = Vec::new();
    let decision = walk(rules, facts, |rule, system_ft| {
        let distance =
            system_ft.map_or_else(|| format!("more than {}", feet(rules.search_radius_ft())), feet);
        clauses.push(format!(
            "parcel borders the {} mean-high-water line but its system is {distance} from it, so {} does not apply",
            water_body(facts),
            rule.citation
        ))
    });
    clauses.push(match decision {
        Decision::Scheduled { rule } => format!(
            "{}; {}, every {} years from {}",
            describe(rules, rule, facts),
            rule.citation,
            rule.cycle_years,
            rule.first_due
        ),
        Decision::Unscheduled { exclusion: Exclusion::Sewered, .. } => {
            format!("on public sewer ({}); not covered", facts.sewered.as_deref().unwrap_or_default())
        }
        Decision::Unscheduled { exclusion: Exclusion::OutsideCounty, .. } => {
            format!("{} outside the county boundary; not covered", facts.basis.as_str())
        }
        Decision::Unscheduled { exclusion: Exclusion::UnknownTown, .. } => format!(
            "unknown town '{}': not a municipality of {}; fix the parcel's town (or the towns layer), or add the \
             municipality to the rule set",
            facts.unknown_town.as_deref().unwrap_or_default(),
            rules.jurisdiction.name
        ),
        Decision::Unscheduled { exclusion: Exclusion::NoRule, citation } if rules.rules.is_empty() => format!(
            "no periodic inspection: {} sets no inspection cycle; inspections follow events ({citation})",
            rules.jurisdiction.law
        ),
        Decision::Unscheduled { exclusion: Exclusion::NoRule, .. } => match &facts.town {
            None => "no rule applies: the parcel has no town (no town attribute and no town polygon)".into(),
            Some(town) => format!(
                "no rule applies: parcel in {town}, {}, {}; the law sets no inspection cycle for it",
                match &facts.watershed {
                    Some(w) => format!("in the {w} watershed"),
                    None => "outside the watersheds".into(),
                },
                shore_clause(rules, facts)
            ),
        },
    });
    clauses.join("; ")
}

/// The one walk through exclusions and rules that both [`decide`] and [`explain`] take; `passed_over` hears
/// of each rule that failed only on its system's distance (the §IV.A.1 ¶1 exception), with that distance
/// (`None`: beyond the search radius).
fn walk<'r>(
    rules: &'r RuleSet,
    facts: &Facts,
    mut passed_over: impl FnMut(&'r Rule, Option<f64>),
) -> Decision<'r> {
    let cov = &rules.coverage;
    let unscheduled = |exclusion, citation: &'r str| Decision::Unscheduled { exclusion, citation };
    if facts.sewered.is_some() {
        return unscheduled(Exclusion::Sewered, &cov.sewered_citation);
    }
    if !facts.in_county {
        return unscheduled(Exclusion::OutsideCounty, &cov.outside_county_citation);
    }
    if facts.unknown_town.is_some() {
        return unscheduled(Exclusion::UnknownTown, "");
    }
    for rule in &rules.rules {
        match check(rule, facts) {
            Check::Match => return Decision::Scheduled { rule },
            Check::SystemTooFar(distance) => passed_over(rule, distance),
            Check::NoMatch => {}
        }
    }
    unscheduled(Exclusion::NoRule, &cov.no_rule_citation)
}

enum Check {
    Match,
    NoMatch,
    /// Everything matched except the system's distance (the §IV.A.1 ¶1 exception); `None` when beyond the
    /// search radius.
    SystemTooFar(Option<f64>),
}

fn check(rule: &Rule, facts: &Facts) -> Check {
    let distance = facts.shore.as_ref().map(|s| s.parcel_distance_ft);
    let others = rule.borders_mhw.is_none_or(|b| b == facts.borders_mhw)
        && rule.parcel_within_mhw_ft.is_none_or(|max| distance.is_some_and(|d| d <= max))
        && rule.in_watershed.is_none_or(|w| w == facts.watershed.is_some())
        && rule.towns.as_ref().is_none_or(|towns| {
            facts.town.as_ref().is_some_and(|t| towns.iter().any(|x| x.eq_ignore_ascii_case(t)))
        });
    if !others {
        return Check::NoMatch;
    }
    match (rule.system_within_mhw_ft, facts.system_mhw_ft) {
        // No system condition, or the system's location is unknown: the parcel stands for it.
        (None, _) | (Some(_), None) => Check::Match,
        (Some(max), Some(Some(d))) if d <= max => Check::Match,
        (Some(_), Some(Some(d))) => Check::SystemTooFar(Some(d)),
        (Some(_), Some(None)) => Check::SystemTooFar(None),
    }
}

/// The facts a matching rule looked at, as a clause.
fn describe(rules: &RuleSet, rule: &Rule, facts: &Facts) -> String {
    let mut parts = Vec::new();
    if rule.borders_mhw.is_some() || rule.parcel_within_mhw_ft.is_some() {
        let mut s = shore_clause(rules, facts);
        if rule.borders_mhw == Some(false) {
            s.push_str(", not bordering it");
        }
        parts.push(s);
    }
    if rule.system_within_mhw_ft.is_some() {
        parts.push(match facts.system_mhw_ft {
            Some(Some(d)) => format!("system {} from it", feet(d)),
            _ => "system location unknown, so the parcel is taken as lakefront".to_string(),
        });
    }
    if rule.in_watershed.is_some() {
        parts.push(match &facts.watershed {
            Some(w) => format!("{} in the {w} watershed", facts.basis.as_str()),
            None => format!("{} outside the watersheds", facts.basis.as_str()),
        });
    }
    if rule.towns.is_some() {
        parts.push(format!("in {}", facts.town.as_deref().unwrap_or("no known town")));
    }
    if parts.is_empty() {
        parts.push(rule.description.clone());
    }
    parts.join(", ")
}

fn water_body(facts: &Facts) -> &str {
    facts.shore.as_ref().map_or("lake", |s| &*s.water_body)
}

fn shore_clause(rules: &RuleSet, facts: &Facts) -> String {
    match &facts.shore {
        Some(s) => format!(
            "parcel edge {} from the {} mean-high-water line",
            feet(s.parcel_distance_ft),
            s.water_body
        ),
        None => {
            format!("parcel more than {} from every mean-high-water line", feet(rules.search_radius_ft()))
        }
    }
}

/// Feet for sentences: one decimal, without a trailing ".0" ("0 ft", "8 ft", "14.1 ft").
pub(crate) fn feet(d: f64) -> String {
    let s = format!("{:.1}", d);
    format!("{} ft", s.strip_suffix(".0").unwrap_or(&s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::ShoreFacts;

    fn facts(town: &str) -> Facts {
        Facts {
            town: Some(town.into()),
            unknown_town: None,
            shore: None,
            borders_mhw: false,
            system_mhw_ft: None,
            system_bottom_ft: None,
            watershed: None,
            flood: None,
            sewered: None,
            watercourse_ft: None,
            in_county: true,
            basis: Basis::Parcel,
        }
    }

    fn near(mut f: Facts, d: f64, tolerance: f64) -> Facts {
        f.shore = Some(ShoreFacts { water_body: "Owasco Lake".into(), parcel_distance_ft: d });
        f.borders_mhw = d <= tolerance;
        f
    }

    fn tier(f: &Facts) -> String {
        let rules = RuleSet::cayuga_art_v();
        match decide(&rules, f) {
            Decision::Scheduled { rule, .. } => rule.id.clone(),
            Decision::Unscheduled { exclusion, .. } => format!("{exclusion:?}"),
        }
    }

    // Expected tiers follow Art. V §IV.A as digested in RULES.md, case by case.
    #[test]
    fn first_matching_rule_decides() {
        assert_eq!(tier(&near(facts("Owasco"), 0.0, 10.0)), "lakefront");
        assert_eq!(tier(&near(facts("Owasco"), 15.0, 10.0)), "near-shore");
        assert_eq!(tier(&near(facts("Owasco"), 500.0, 10.0)), "near-shore");
        assert_eq!(tier(&near(facts("Owasco"), 500.1, 10.0)), "cohort-2009");
        let mut ws = near(facts("Owasco"), 600.0, 10.0);
        ws.watershed = Some("Owasco Lake".into());
        assert_eq!(tier(&ws), "watershed");
        ws.town = Some("Sempronius".into());
        assert_eq!(tier(&ws), "cohort-2009");
        assert_eq!(tier(&facts("Ira")), "cohort-2006");
        assert_eq!(tier(&facts("Moravia")), "NoRule");
        assert_eq!(tier(&facts("Auburn")), "NoRule");
        let mut sewered = near(facts("Owasco"), 0.0, 10.0);
        sewered.sewered = Some("assessor sewer code 3 (public sewer)".into());
        assert_eq!(tier(&sewered), "Sewered");
        let mut outside = near(facts("Owasco"), 0.0, 10.0);
        outside.in_county = false;
        assert_eq!(tier(&outside), "OutsideCounty");
    }

    #[test]
    fn lakefront_system_beyond_500_ft_falls_to_the_watershed_tier() {
        let mut f = near(facts("Owasco"), 0.0, 10.0);
        f.watershed = Some("Owasco Lake".into());
        f.basis = Basis::System;
        f.system_mhw_ft = Some(Some(720.0));
        assert_eq!(tier(&f), "watershed");
        let rules = RuleSet::cayuga_art_v();
        let reason = explain(&rules, &f);
        assert!(reason
            .starts_with("parcel borders the Owasco Lake mean-high-water line but its system is 720 ft"));
        assert!(reason.ends_with("Art. V §IV.A.1 ¶3, every 5 years from 1996-11-01"), "{reason}");
        // Outside the six towns it goes to the town's cohort, and never to near-shore (the parcel borders).
        f.town = Some("Venice".into());
        assert_eq!(tier(&f), "cohort-2006");
        f.system_mhw_ft = Some(Some(499.0));
        assert_eq!(tier(&f), "lakefront");
    }

    #[test]
    fn reasons_read_as_sentences() {
        let rules = RuleSet::cayuga_art_v();
        let reason = explain(&rules, &near(facts("Owasco"), 0.0, 10.0));
        assert_eq!(
            reason,
            "parcel edge 0 ft from the Owasco Lake mean-high-water line, system location unknown, so the \
             parcel is taken as lakefront; Art. V §IV.A.1 ¶1, every 2 years from 1994-11-01"
        );
        let Decision::Unscheduled { citation, .. } = decide(&rules, &facts("Moravia")) else {
            panic!("unscheduled expected")
        };
        let reason = explain(&rules, &facts("Moravia"));
        assert!(reason.starts_with("no rule applies: parcel in Moravia, outside the watersheds"), "{reason}");
        // Twice Article V's 500 ft: the farthest distance the schedule measures exactly.
        assert!(reason.contains("parcel more than 1000 ft from every mean-high-water line"), "{reason}");
        assert_eq!(citation, "Art. V §IV.A");
        let mut unknown = facts("x");
        unknown.town = None;
        unknown.unknown_town = Some("Skaneateles".into());
        let reason = explain(&rules, &unknown);
        assert!(reason.starts_with("unknown town 'Skaneateles': not a municipality"), "{reason}");
        // Even beside the lake: a parcel in an unknown town is held back, not scheduled under a guess.
        assert_eq!(tier(&near(unknown, 0.0, 10.0)), "UnknownTown");
    }
}
