//! Who the law covers and on which periodic tier (Art. V §I.B, §I.C, §IV.A): a rule set applied to one
//! parcel's facts, the exclusions first (public sewer, outside the county), then the rules in order, the first
//! match deciding. The decision carries a plain sentence saying why, built from the facts the rule looked at.

use std::fmt::Write;

use crate::model::date::push_iso_date;
use crate::model::table::{push_fixed, push_int};

#[cfg(test)]
use crate::model::facts::Basis;
use crate::model::facts::{Facts, Measured};
use crate::rules::{Rule, RuleId, RuleSet, Spelled, Text};

/// Why a parcel is outside the law altogether.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclusion {
    /// On public sewer (§I.B).
    Sewered,
    /// Outside the county (§I.C.2).
    OutsideCounty,
    /// The parcel's town is not a municipality of the jurisdiction and the first rule that could apply needs
    /// the town: bad input, held back for review rather than scheduled under a guess.
    UnknownTown,
    /// No rule applies (a gap in the law, or an unknown town).
    NoRule,
    /// No system in service on the lot: a vacant lot that neither hosts nor is served by a system on record,
    /// or one whose systems on record were all abandoned. The law's duties are a system's.
    NoSystem,
}

impl Exclusion {
    /// Why the law does not apply to the parcel at all, when this is such an exclusion: "on public sewer" or
    /// "outside the county". The other kinds leave the law applying (it sets no periodic cycle, or the town
    /// is to be fixed), so its other duties still run.
    pub fn out_of_scope(self) -> Option<&'static str> {
        match self {
            Exclusion::Sewered => Some("on public sewer"),
            Exclusion::OutsideCounty => Some("outside the county"),
            Exclusion::NoSystem => Some("without a system in service"),
            Exclusion::UnknownTown | Exclusion::NoRule => None,
        }
    }
}

/// What the rules say about one parcel.
#[derive(Debug, Clone)]
pub enum Decision {
    /// A periodic-inspection rule applies.
    Scheduled {
        /// The rule that matched.
        rule: RuleId,
    },
    /// No periodic inspection: excluded, or no rule covers the parcel.
    Unscheduled {
        /// Which kind of gap.
        exclusion: Exclusion,
        /// The citation that says so.
        citation: Text,
    },
}

impl Decision {
    /// The tier decided under `rules` (the rule set that decided it), by the rule's tier name, or
    /// `unscheduled`.
    pub fn tier_name(&self, rules: &RuleSet) -> &'static str {
        match *self {
            Decision::Scheduled { rule } => rules.rule(rule).tier.as_str(),
            Decision::Unscheduled { .. } => "unscheduled",
        }
    }
}

/// Decides a parcel's schedule rule from its facts: the exclusions first, then the rules in order.
pub fn decide_tier(rules: &RuleSet, facts: &Facts) -> Decision {
    walk(rules, facts, |_, _| {})
}

/// Why [`decide_tier`] decided as it did, in a sentence ending with the citation (and the cycle, when scheduled).
pub fn explain(rules: &RuleSet, facts: &Facts) -> String {
    let mut sentence = String::new();
    explain_into(rules, facts, &mut sentence);
    sentence
}

/// [`explain`], appended to `out`: a writer puts the sentence straight into its line.
pub fn explain_into(rules: &RuleSet, facts: &Facts, out: &mut String) {
    explain_decided(rules, facts, &decide_tier(rules, facts), out);
}

/// [`explain_into`] when [`decide_tier`] has already decided on `facts` (`decision`, as a row's entry keeps
/// it): the rules are not walked again, only those before the deciding one that a system's distance can pass
/// over are looked at.
pub fn explain_decided(rules: &RuleSet, facts: &Facts, decision: &Decision, out: &mut String) {
    let mut first = true;
    // The clauses are joined with "; ".
    let mut clause = |out: &mut String| {
        if !std::mem::take(&mut first) {
            out.push_str("; ");
        }
    };
    passed_over(rules, facts, decision, |rule, system_ft| {
        clause(out);
        out.push_str("parcel borders the ");
        out.push_str(water_body(facts));
        out.push_str(" mean-high-water line but its system is ");
        match system_ft {
            Some(d) => push_feet(out, d),
            None => {
                out.push_str("more than ");
                push_feet(out, rules.search_radius_ft());
            }
        }
        out.push_str(" from it, so ");
        out.push_str(&rule.citation);
        out.push_str(" does not apply");
    });
    clause(out);
    let _ = match *decision {
        Decision::Scheduled { rule } => {
            let rule = rules.rule(rule);
            describe(rules, rule, facts, out);
            out.push_str("; ");
            out.push_str(&rule.citation);
            out.push_str(", every ");
            push_int(out, rule.cycle_years.into());
            out.push_str(" years from ");
            push_iso_date(out, rule.first_due);
            match &facts.unknown_town {
                Some(found) => write!(out, "; town unknown ('{found}'), which this rule does not need"),
                None => Ok(()),
            }
        }
        Decision::Unscheduled { exclusion: Exclusion::Sewered, .. } => {
            write!(out, "on public sewer ({}); not covered", facts.sewered.as_deref().unwrap_or_default())
        }
        Decision::Unscheduled { exclusion: Exclusion::OutsideCounty, .. } => {
            write!(out, "{} outside the county boundary; not covered", facts.basis.as_str())
        }
        Decision::Unscheduled { exclusion: Exclusion::NoSystem, citation } => {
            write!(out, "no system in service on the lot; the law's duties are a system's ({citation})")
        }
        Decision::Unscheduled { exclusion: Exclusion::UnknownTown, .. } => write!(
            out,
            "unknown town '{}': not a municipality of {}; fix the parcel's town (or the towns layer), or add the \
             municipality to the rule set",
            facts.unknown_town.as_deref().unwrap_or_default(),
            rules.jurisdiction.name
        ),
        Decision::Unscheduled { exclusion: Exclusion::NoRule, citation } if rules.rules.is_empty() => write!(
            out,
            "no periodic inspection: {} sets no inspection cycle; inspections follow events ({citation})",
            rules.jurisdiction.law
        ),
        Decision::Unscheduled { exclusion: Exclusion::NoRule, .. } => match &facts.town {
            None => {
                out.push_str("no rule applies: the parcel has no town (no town polygon, municipality or SWIS code)");
                Ok(())
            }
            Some(town) => {
                let _ = write!(out, "no rule applies: parcel in {town}, ");
                let _ = match &facts.watershed {
                    Some(w) => write!(out, "in the {w} watershed"),
                    None => write!(out, "outside the named watersheds"),
                };
                out.push_str(", ");
                push_shore_clause(rules, facts, out);
                out.push_str("; the law sets no inspection cycle for it");
                Ok(())
            }
        },
    };
    if let (Some(flood), Some(rule)) = (&facts.flood, &rules.floodplain) {
        clause(out);
        let _ = write!(
            out,
            "{} in flood zone {}: {} ({})",
            flood.basis.as_str(),
            flood.zone,
            flood.elevation_source,
            rule.citation
        );
    }
}

/// Tells `heard` of each rule the walk that came to `decision` passed over on its system's distance alone (the
/// §IV.A.1 ¶1 exception), in order, with that distance. Only a rule with a system condition can be passed
/// over, and only one before the rule that decided (any, when none did; none, when an exclusion came first),
/// so those alone are checked again; a town held back is walked to again, as it is rare.
fn passed_over<'r>(
    rules: &'r RuleSet,
    facts: &Facts,
    decision: &Decision,
    mut heard: impl FnMut(&'r Rule, Option<f64>),
) {
    let before = match *decision {
        Decision::Scheduled { rule } => rule.0,
        Decision::Unscheduled { exclusion: Exclusion::NoRule, .. } => rules.rules.len(),
        Decision::Unscheduled { exclusion: Exclusion::UnknownTown, .. } => {
            walk(rules, facts, heard);
            return;
        }
        Decision::Unscheduled { .. } => return,
    };
    let town = facts.town.as_deref().map(Spelled::new);
    for rule in rules.rules[..before].iter().filter(|r| r.system_within_mhw_ft.is_some()) {
        if let Check::SystemTooFar(distance) = check(rule, facts, town.as_ref()) {
            heard(rule, distance);
        }
    }
}

/// The one walk through exclusions and rules that decides ([`decide_tier`]; [`passed_over`] walks to a town held
/// back again); `passed_over` hears of each rule that failed only on its system's distance (the §IV.A.1 ¶1
/// exception), with that distance (`None`: beyond the search radius).
fn walk<'r>(
    rules: &'r RuleSet,
    facts: &Facts,
    mut passed_over: impl FnMut(&'r Rule, Option<f64>),
) -> Decision {
    let cov = &rules.coverage;
    let unscheduled = |exclusion, citation| Decision::Unscheduled { exclusion, citation };
    if facts.sewered.is_some() {
        return unscheduled(Exclusion::Sewered, cov.sewered_citation);
    }
    if !facts.in_county {
        return unscheduled(Exclusion::OutsideCounty, cov.outside_county_citation);
    }
    let town = facts.town.as_deref().map(Spelled::new);
    for (index, rule) in rules.rules.iter().enumerate() {
        match check(rule, facts, town.as_ref()) {
            Check::Match => return Decision::Scheduled { rule: RuleId(index) },
            Check::SystemTooFar(distance) => passed_over(rule, distance),
            // Had the town been known this rule might have decided: hold the parcel back, not guess.
            Check::TownUnknown => return unscheduled(Exclusion::UnknownTown, Text::default()),
            Check::NoMatch => {}
        }
    }
    unscheduled(Exclusion::NoRule, cov.no_rule_citation)
}

enum Check {
    Match,
    NoMatch,
    /// Everything matched except the system's distance (the §IV.A.1 ¶1 exception); `None` when beyond the
    /// search radius.
    SystemTooFar(Option<f64>),
    /// Everything else matched, the rule names towns and the parcel's town is unknown.
    TownUnknown,
}

/// Whether `rule` schedules the parcel of `facts`, whose town is `town`, spelled.
fn check(rule: &Rule, facts: &Facts, town: Option<&Spelled<'_>>) -> Check {
    let distance = facts.shore.as_ref().map(|s| s.parcel_distance_ft);
    let others = rule.borders_mhw.is_none_or(|b| b == facts.borders_mhw)
        && rule.parcel_within_mhw_ft.is_none_or(|max| distance.is_some_and(|d| d <= max))
        && rule.watersheds.as_ref().is_none_or(|names| {
            facts.watershed.as_ref().is_some_and(|w| names.iter().any(|x| x.eq_ignore_ascii_case(w)))
        });
    if !others {
        return Check::NoMatch;
    }
    match (rule.system_within_mhw_ft, facts.system_mhw_ft) {
        // No system condition, or the system's location is unknown: the parcel stands for it.
        (None, _) | (Some(_), Measured::Unmeasured) => {}
        (Some(max), Measured::Ft(d)) if d <= max => {}
        (Some(_), Measured::Ft(d)) => return Check::SystemTooFar(Some(d)),
        (Some(_), Measured::BeyondRadius) => return Check::SystemTooFar(None),
    }
    match (&rule.towns, town) {
        (None, _) => Check::Match,
        (Some(towns), Some(t)) if rule.town_names.find_spelled(t, |i| &towns[i]).is_some() => Check::Match,
        (Some(_), None) if facts.unknown_town.is_some() => Check::TownUnknown,
        (Some(_), _) => Check::NoMatch,
    }
}

/// The facts a matching rule looked at, as a clause, appended to `out`.
fn describe(rules: &RuleSet, rule: &Rule, facts: &Facts, out: &mut String) {
    let start = out.len();
    // The parts are joined with ", ".
    let part = |out: &mut String| {
        if out.len() > start {
            out.push_str(", ");
        }
    };
    if rule.borders_mhw.is_some() || rule.parcel_within_mhw_ft.is_some() {
        push_shore_clause(rules, facts, out);
        if rule.borders_mhw == Some(false) {
            out.push_str(", not bordering it");
        }
    }
    if rule.system_within_mhw_ft.is_some() {
        part(out);
        match facts.system_mhw_ft {
            Measured::Ft(d) => {
                out.push_str("system ");
                push_feet(out, d);
                out.push_str(" from it");
            }
            _ => out.push_str("system location unknown, so the parcel is taken as lakefront"),
        }
    }
    if rule.watersheds.is_some() {
        part(out);
        out.push_str(facts.basis.as_str());
        let _ = match &facts.watershed {
            Some(w) => write!(out, " in the {w} watershed"),
            None => write!(out, " outside the named watersheds"),
        };
    }
    if rule.towns.is_some() {
        part(out);
        out.push_str("in ");
        out.push_str(facts.town.as_deref().unwrap_or("no known town"));
    }
    if out.len() == start {
        out.push_str(&rule.description);
    }
}

fn water_body(facts: &Facts) -> &str {
    facts.shore.as_ref().map_or("lake", |s| &*s.water_body)
}

fn push_shore_clause(rules: &RuleSet, facts: &Facts, out: &mut String) {
    match &facts.shore {
        Some(s) => {
            out.push_str("parcel edge ");
            push_feet(out, s.parcel_distance_ft);
            out.push_str(" from the ");
            out.push_str(&s.water_body);
            out.push_str(" mean-high-water line");
        }
        None => {
            out.push_str("parcel more than ");
            push_feet(out, rules.search_radius_ft());
            out.push_str(" from every mean-high-water line");
        }
    }
}

/// Feet for sentences, appended to `out`: one decimal, without a trailing ".0" ("0 ft", "8 ft", "14.1 ft").
fn push_feet(out: &mut String, d: f64) {
    push_fixed(out, d, 1);
    if out.ends_with(".0") {
        out.truncate(out.len() - 2);
    }
    out.push_str(" ft");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::NearestWater;

    fn facts(town: &str) -> Facts {
        Facts {
            town: Some(town.into()),
            unknown_town: None,
            shore: None,
            borders_mhw: false,
            system_mhw_ft: Measured::Unmeasured,
            system_bottom_ft: None,
            watershed: None,
            flood: None,
            sewered: None,
            sewer_disagreement: None,
            watercourse_ft: Measured::Unmeasured,
            in_county: true,
            basis: Basis::Parcel,
        }
    }

    fn near(mut f: Facts, d: f64, tolerance: f64) -> Facts {
        f.shore = Some(NearestWater { water_body: "Owasco Lake".into(), parcel_distance_ft: d });
        f.borders_mhw = d <= tolerance;
        f
    }

    fn tier(f: &Facts) -> String {
        let rules = RuleSet::cayuga_art_v();
        match decide_tier(&rules, f) {
            Decision::Scheduled { rule, .. } => rules.rule(rule).id.to_string(),
            Decision::Unscheduled { exclusion, .. } => format!("{exclusion:?}"),
        }
    }

    /// The sentence of a decision already made names the rules passed over on a system's distance that the
    /// walk itself passes over (its own hearing the oracle), for every kind of decision: bordering parcels
    /// with systems near, far and unmeasured, in towns known, of no rule and unknown, sewered and outside.
    #[test]
    fn a_decision_made_hears_of_the_rules_the_walk_passed_over() {
        let rules = RuleSet::cayuga_art_v();
        let mut cases = Vec::new();
        for town in [Some("Owasco"), Some("Venice"), Some("Moravia"), None] {
            for distance in [None, Some(0.0), Some(300.0), Some(900.0)] {
                for system in
                    [Measured::Unmeasured, Measured::Ft(120.0), Measured::Ft(720.0), Measured::BeyondRadius]
                {
                    for watershed in [None, Some("Owasco Lake")] {
                        let mut f = facts("x");
                        f.town = town.map(Into::into);
                        f.unknown_town = town.is_none().then(|| "Fair Haven Bch".into());
                        if let Some(d) = distance {
                            f = near(f, d, 10.0);
                        }
                        f.system_mhw_ft = system;
                        f.watershed = watershed.map(Into::into);
                        cases.push(f);
                    }
                }
            }
        }
        let mut sewered = near(facts("Owasco"), 0.0, 10.0);
        (sewered.sewered, sewered.system_mhw_ft) =
            (Some("assessor sewer code 3".into()), Measured::Ft(720.0));
        let mut outside = near(facts("Owasco"), 0.0, 10.0);
        (outside.in_county, outside.system_mhw_ft) = (false, Measured::BeyondRadius);
        cases.extend([sewered, outside]);
        let mut passed = 0;
        for f in &cases {
            let mut walked = Vec::new();
            let decision = walk(&rules, f, |rule, d| walked.push((rule.id, d)));
            let mut heard = Vec::new();
            passed_over(&rules, f, &decision, |rule, d| heard.push((rule.id, d)));
            assert_eq!(heard, walked, "{f:?}");
            passed += usize::from(!heard.is_empty());
        }
        assert!(passed >= 8, "the cases pass over a rule {passed} times");
    }

    // Expected tiers follow Art. V §IV.A as the law reads (docs/law.md), case by case.
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
        f.system_mhw_ft = Measured::Ft(720.0);
        assert_eq!(tier(&f), "watershed");
        let rules = RuleSet::cayuga_art_v();
        let reason = explain(&rules, &f);
        assert!(reason
            .starts_with("parcel borders the Owasco Lake mean-high-water line but its system is 720 ft"));
        assert!(reason.ends_with("Art. V §IV.A.1 ¶3, every 5 years from 1996-11-01"), "{reason}");
        // Outside the six towns it goes to the town's cohort, and never to near-shore (the parcel borders).
        f.town = Some("Venice".into());
        assert_eq!(tier(&f), "cohort-2006");
        f.system_mhw_ft = Measured::Ft(499.0);
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
        let Decision::Unscheduled { citation, .. } = decide_tier(&rules, &facts("Moravia")) else {
            panic!("unscheduled expected")
        };
        let reason = explain(&rules, &facts("Moravia"));
        assert!(
            reason.starts_with("no rule applies: parcel in Moravia, outside the named watersheds"),
            "{reason}"
        );
        // Twice Article V's 500 ft: the farthest distance the schedule measures exactly.
        assert!(reason.contains("parcel more than 1000 ft from every mean-high-water line"), "{reason}");
        assert_eq!(citation, "Art. V §IV.A");
        let mut unknown = facts("x");
        unknown.town = None;
        unknown.unknown_town = Some("Skaneateles".into());
        let reason = explain(&rules, &unknown);
        assert!(reason.starts_with("unknown town 'Skaneateles': not a municipality"), "{reason}");
    }

    /// §IV.A.1 ¶1: "All parcels bordering Owasco Lake or Little Sodus Bay" and ¶2 "a parcel ... within 500
    /// feet thereof" name no towns; ¶3 ("in the Towns of Owasco, Niles, ...") and §IV.A.2's cohorts do. An
    /// unknown town blocks only the rules that need a town.
    #[test]
    fn an_unknown_town_blocks_only_the_rules_that_need_a_town() {
        let rules = RuleSet::cayuga_art_v();
        let mut unknown = facts("x");
        unknown.town = None;
        unknown.unknown_town = Some("Fair Haven Bch".into());
        // Bordering: lakefront whatever the town; the reason still says the town is unknown.
        let bordering = near(unknown.clone(), 0.0, 10.0);
        assert_eq!(tier(&bordering), "lakefront");
        assert!(explain(&rules, &bordering)
            .ends_with("town unknown ('Fair Haven Bch'), which this rule does not need"));
        // 250 ft away, not bordering: near-shore.
        assert_eq!(tier(&near(unknown.clone(), 250.0, 10.0)), "near-shore");
        // In the watershed 600 ft away: the watershed rule needs the town, so the parcel is held back rather
        // than put in a cohort under a guess.
        let mut inland = near(unknown.clone(), 600.0, 10.0);
        inland.watershed = Some("Owasco Lake".into());
        assert_eq!(tier(&inland), "UnknownTown");
        // Outside the watersheds the cohorts need the town too.
        assert_eq!(tier(&unknown), "UnknownTown");
        // No town at all (no attribute, no layer, no SWIS) is not an unknown town: no rule applies.
        let mut none = facts("x");
        none.town = None;
        assert_eq!(tier(&none), "NoRule");
    }

    /// §IV.A.1 ¶3 "the Owasco Lake or Little Sodus Bay Watershed": a parcel in another watershed's polygon
    /// (classification leaves those out, so its watershed is none) goes to its town's cohort; a rule naming
    /// one watershed does not take the other's parcels.
    #[test]
    fn only_the_named_watersheds_count() {
        let mut niles = near(facts("Niles"), 18_000.0, 10.0);
        assert_eq!(tier(&niles), "cohort-2004");
        niles.watershed = Some("Owasco Lake".into());
        assert_eq!(tier(&niles), "watershed");
        niles.watershed = Some("Little Sodus Bay".into());
        assert_eq!(tier(&niles), "watershed");
        let only_owasco = crate::rules::CAYUGA_ART_V.replace(
            "watersheds = [\"Owasco Lake\", \"Little Sodus Bay\"]",
            "watersheds = [\"Owasco Lake\"]",
        );
        let rules = RuleSet::from_toml(&only_owasco, std::path::Path::new("r.toml")).expect("valid");
        assert!(
            matches!(decide_tier(&rules, &niles), Decision::Scheduled { rule } if rules.rule(rule).id == "cohort-2004")
        );
        let bad = crate::rules::CAYUGA_ART_V.replace("\"Little Sodus Bay\"]", "\"Skaneateles Lake\"]");
        let err = RuleSet::from_toml(&bad, std::path::Path::new("r.toml")).unwrap_err().to_string();
        assert!(err.contains("watershed 'Skaneateles Lake' is not the name of a [[water_body]]"), "{err}");
    }
}
