//! Tests of the plain words: each sentence written by hand from the rule set's `plain_*` texts and the
//! parcel's facts, never from the code under test.

use std::borrow::Cow;

use super::*;
use crate::classify::parcels::ParcelRecord;
use crate::law::schedule::{Entry, Tier};
use crate::model::facts::{Basis, Facts, Measured, NearestWater};
use crate::rules::{Party, Text};

fn date(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

/// A parcel on Owasco Lake in Owasco, in its watershed, scheduled by `rule` every `years` years.
fn row(rule: &str, years: u32) -> Row {
    let facts = Facts {
        town: Some("Owasco".into()),
        unknown_town: None,
        shore: Some(NearestWater { water_body: "Owasco Lake".into(), parcel_distance_ft: 0.0 }),
        borders_mhw: true,
        system_mhw_ft: Measured::Ft(120.0),
        system_bottom_ft: None,
        watershed: Some("Owasco Lake".into()),
        flood: None,
        sewered: None,
        sewer_disagreement: None,
        watercourse_ft: Measured::Unmeasured,
        in_county: true,
        basis: Basis::System,
    };
    Row {
        at: 0,
        parcel: ParcelRecord { id: "054601-1.00-1-1".into(), ..ParcelRecord::empty() },
        facts: Some(facts),
        entry: Entry {
            tier: Tier::Rule(Text::new(rule)),
            rule: Some(Text::new(rule)),
            cycle_years: Some(years),
            ..Entry::unscheduled(None, Text::default(), None)
        },
        systems: Vec::new(),
    }
}

fn obligation(
    kind: ObligationKind,
    trigger: Trigger,
    since: Option<&str>,
    due: &str,
    overdue: bool,
) -> Obligation {
    Obligation {
        parcel: 0,
        kind,
        what: Cow::Borrowed("periodic inspection and report (lakefront tier, every 2 years)"),
        who: Party::Owner,
        trigger,
        since: since.map(date),
        due: Some(date(due)),
        overdue,
        corrected: None,
        detail: None,
        citation: Text::new("Art. V §IV.A.1 ¶1"),
        source: None,
    }
}

#[test]
fn a_lakefront_inspection_in_plain_words() {
    let rules = RuleSet::cayuga_art_v();
    let o = obligation(ObligationKind::PERIODIC_INSPECTION, Trigger::Schedule, None, "2027-11-01", false);
    let words = plain(&o, &row("lakefront", 2), &rules);
    assert_eq!(
        words,
        Plain {
            what: "Have your septic system inspected by a county-certified inspector, who sends the report to the Health Department".into(),
            when: "by November 1, 2027".into(),
            why: "Your property borders Owasco Lake; the county requires an inspection of lakefront septic systems every 2 years.".into(),
            reference: "Reference: Art. V §IV.A.1 ¶1".into(),
        }
    );
}

#[test]
fn an_overdue_county_cohort_inspection_names_the_town_not_the_rule() {
    let rules = RuleSet::cayuga_art_v();
    let o = obligation(ObligationKind::PERIODIC_INSPECTION, Trigger::Schedule, None, "2025-11-01", true);
    let r = row("cohort-2009", 7);
    assert_eq!(when(o.due, o.overdue), "overdue since November 1, 2025");
    let why = why(&o, &r, &rules);
    assert_eq!(why, "The county requires an inspection of every septic system in Owasco every 7 years.");
    assert!(!why.contains("§") && !why.contains("2009-11-01"), "{why}");
}

#[test]
fn a_sentence_whose_fact_is_unknown_falls_back_to_general_words() {
    let rules = RuleSet::cayuga_art_v();
    let o = obligation(ObligationKind::PERIODIC_INSPECTION, Trigger::Schedule, None, "2027-11-01", false);
    let mut r = row("watershed", 5);
    r.facts.as_mut().unwrap().watershed = None;
    assert_eq!(
        why(&o, &r, &rules),
        "The Sanitary Code of the Cayuga County Health District, Article V requires an inspection of your septic system every 5 years."
    );
}

#[test]
fn a_clock_takes_its_words_from_the_rule_set_with_the_event_date() {
    let rules = RuleSet::cayuga_art_v();
    let kind = ObligationKind::clock(Text::new("transfer-inspection"));
    let transfer = crate::rules::vocabulary::EventKind::named("transfer").unwrap();
    let o = obligation(kind, Trigger::Event(transfer), Some("2026-12-01"), "2026-12-01", true);
    let words = plain(&o, &row("lakefront", 2), &rules);
    assert_eq!(
        words.what,
        "Have your septic system inspected by a county-certified inspector, and the report sent to the Health Department and the new owner"
    );
    assert_eq!(words.when, "overdue since December 1, 2026");
    assert_eq!(
        words.why,
        "The property changed hands on December 1, 2026; the county requires an inspection of the septic system when a property is sold."
    );
}

#[test]
fn a_duty_without_plain_words_is_told_from_what_started_it() {
    let rules = RuleSet::cayuga_art_v();
    let mut o =
        obligation(ObligationKind::PIPE_RETEST, Trigger::Sample, Some("2026-12-28"), "2027-01-19", false);
    o.what = Cow::Borrowed("pipe P1: 2 more of 3 retest samples");
    o.detail = Some("1 retest taken".into());
    let r = row("lakefront", 2);
    assert_eq!(what(&o, &r, &rules), "Pipe P1: 2 more of 3 retest samples");
    assert_eq!(
        why(&o, &r, &rules),
        "A sample was taken from a drainage pipe on December 28, 2026. Details: 1 retest taken."
    );
    assert_eq!(when(None, false), "");
}
