use super::*;
use crate::rules::vocabulary::EventKind;

#[test]
fn embedded_rule_set_matches_the_law() {
    let set = RuleSet::cayuga_art_v();
    let tiers: Vec<(&str, u32, String)> =
        set.rules.iter().map(|r| (r.tier.as_str(), r.cycle_years, r.first_due.to_string())).collect();
    // §IV.A.1 and the §IV.A.2 table, in order.
    assert_eq!(tiers[0], ("lakefront", 2, "1994-11-01".into()));
    assert_eq!(tiers[1], ("near-shore", 3, "1995-11-01".into()));
    assert_eq!(tiers[2], ("watershed", 5, "1996-11-01".into()));
    let cohorts: Vec<i32> = set.rules[3..].iter().map(|r| chrono::Datelike::year(&r.first_due)).collect();
    assert_eq!(cohorts, vec![2003, 2004, 2005, 2006, 2007, 2008, 2009]);
    assert!(set.rules[3..].iter().all(|r| r.cycle_years == 7 && r.tier == "county"));
    // Every town but Moravia (and the City of Auburn) has a 7-year cohort.
    let mut cohort_towns: Vec<&str> =
        set.rules[3..].iter().flat_map(|r| r.towns.iter().flatten()).map(String::as_str).collect();
    cohort_towns.sort_unstable();
    let mut others: Vec<&str> = set
        .jurisdiction
        .municipalities
        .iter()
        .map(String::as_str)
        .filter(|m| !["Auburn", "Moravia"].contains(m))
        .collect();
    others.sort_unstable();
    assert_eq!(cohort_towns, others);
    assert_eq!(set.water_body("owasco lake").and_then(|w| w.flood_elevation_ft), Some(717.13));
    assert_eq!(set.water_body("Little Sodus Bay").map(|w| w.mhw_ft), Some(248.20));
    assert_eq!(set.max_distance_ft(), 500.0);
    assert_eq!(set.search_radius_ft(), 1000.0);
}

#[test]
fn the_systems_distance_is_the_rule_sets_with_a_default_and_checked() {
    // Both shipped rule sets say 100 ft; a rule set without [systems] gets the same default.
    assert_eq!(RuleSet::cayuga_art_v().systems.max_outside_parcel_ft, 100.0);
    assert_eq!(RuleSet::gorham_ch56().systems.max_outside_parcel_ft, 100.0);
    let text = include_str!("../../data/rules/gorham-ch56.toml");
    let without = text.replace("max_outside_parcel_ft = 100.0", "");
    let set = RuleSet::from_toml(&without, Path::new("r.toml")).expect("valid without the key");
    assert_eq!(set.systems.max_outside_parcel_ft, 100.0);
    let set = RuleSet::from_toml(&text.replace("= 100.0", "= 250.0"), Path::new("r.toml")).expect("valid");
    assert_eq!(set.systems.max_outside_parcel_ft, 250.0);
    let err = RuleSet::from_toml(&text.replace("= 100.0", "= -1.0"), Path::new("r.toml")).unwrap_err();
    assert!(err.to_string().contains("max_outside_parcel_ft"), "{err}");
}

/// The Chapter 56 clocks carry the law's numbers (Chapter 56's sections, as docs/law.md tables them).
#[test]
fn gorham_rule_set_matches_the_law() {
    let set = RuleSet::gorham_ch56();
    assert!(set.rules.is_empty() && set.permits.is_none() && set.drainage_pipes.is_none());
    let clock = |id: &str| set.clocks.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no clock {id}"));
    assert_eq!(clock("complaint-notice").within_business_days, Some(7)); // §701.2
    assert_eq!(clock("denial-notice").within_business_days, Some(7)); // §402.3 "working days"
    assert_eq!(clock("deficiency-permit").within_days, Some(30)); // §601.2
    assert_eq!(clock("appeal-window").within_days, Some(30)); // §801.1
    assert!(clock("appeal-window").lapses);
    assert_eq!(clock("appeal-hearing-notice").within_days, Some(30)); // §801.2
    assert_eq!(clock("appeal-hearing").within_days, Some(15)); // §801.2
    assert_eq!(clock("appeal-decision").within_days, Some(30)); // §801.3
    assert_eq!(clock("violation").weekly_fine_usd, Some(250.0)); // §904
    assert_eq!(clock("expansion-inspection").when.as_ref().and_then(|w| w.above), Some(50.0)); // §501.1(c)
    assert_eq!(clock("state-approval-flow").when.as_ref().and_then(|w| w.above), Some(1000.0)); // §307.1(d)

    // §801.3 "final adjournment": a hearing held is final unless a later event continues it.
    let kind = |name| EventKind::named(name).expect("an event of the vocabulary");
    assert!(clock("appeal-decision").starts_on(kind("hearing-held")));
    assert!(clock("appeal-decision").superseded_on(kind("hearing-continued")));
    // §601.1: "not adequately functioning or determined to have been illegally installed".
    for name in ["failed-inspection", "not-functioning", "illegally-installed"] {
        assert!(clock("deficiency-notice").starts_on(kind(name)), "{name}");
    }
    // §301.1: a permit before installing or replacing a system.
    assert!(clock("system-installation-permit").due_on_event);
    assert!(clock("system-installation-permit").starts_on(kind("system-replaced")));
    let g = set.grandfather.as_ref().expect("§304.2");
    assert_eq!(
        (g.individual_date.to_string(), g.intermediate_date.to_string(), g.adopted.to_string()),
        ("1990-12-01".into(), "1988-01-01".into(), "2000-10-23".into())
    );
    assert_eq!(g.reading, GrandfatherReading::Between);
    assert_eq!(clock("deficiency-permit").mailing_days, Some(5)); // the rule set's mailing allowance
    assert!(set.calendar.as_ref().is_some_and(|c| c.roll_forward));
}

#[test]
fn bad_clocks_are_refused_with_the_reason() {
    let with = |clock: &str| {
        let text = format!("{CAYUGA_ART_V}\n[[clock]]\nid = \"x\"\n{clock}\ncitation = \"c\"\nwhat = \"w\"\nwho = \"owner\"\n");
        RuleSet::from_toml(&text, Path::new("r.toml")).map(|_| ()).unwrap_err().to_string()
    };
    assert!(with("on = [\"tornado\"]").contains("unknown event 'tornado'"));
    // A slip in any list of events: the nearest name is suggested.
    let slip = with("on = [\"hearing-held\"]\nsuperseded_by = [\"hearing-continud\"]");
    assert!(slip.contains("clock 'x': 'superseded_by' names the unknown event 'hearing-continud'"), "{slip}");
    assert!(slip.contains("did you mean 'hearing-continued'?"), "{slip}");
    let slip = with("on = [\"complaint\"]\nclosed_by = [\"owner-notise\"]");
    assert!(slip.contains("'closed_by'") && slip.contains("did you mean 'owner-notice'?"), "{slip}");
    assert!(!with("on = [\"tornado\"]").contains("did you mean"), "nothing is near 'tornado'");
    assert!(with("on = [\"complaint\"]\nwithin_days = 3\ndue_on_event = true").contains("at most one"));
    assert!(with("on = [\"expansion\"]\nwhen = { column = \"size\", above = 1.0 }").contains("'size'"));
    assert!(with("on = [\"expansion\"]\nwhen = { column = \"expansion_pct\", is = true }").contains("above"));
    assert!(with("on = [\"transfer\"]\nlapses = true").contains("needs a length"));
    assert!(with("on = [\"complaint\"]\nwithin_days = 3\nfrom_column = \"arms_length\"")
        .contains("not a date column"));
    assert!(with("on = [\"complaint\"]\nwithin_days = 3\nmailing_days = 5").contains("needs 'from_column'"));
    // "Prior to" is bounded by the previous act, the law's own look-back by its months: one or the other.
    let both =
        with("on = [\"transfer\"]\ndue_on_event = true\nprior_to = true\nclosed_from_months_before = 12");
    assert!(both.contains("not both"), "{both}");
    let stray = with("on = [\"transfer\"]\ndue_on_event = true\nfirst_lookback_months = 12");
    assert!(stray.contains("add prior_to = true"), "{stray}");
    // A key written twice: the file, line and key are named.
    let twice = with("on = [\"transfer\", \"transfer\"]\nid = \"transfer-pump-out\"");
    assert!(twice.starts_with("r.toml:") && twice.contains("duplicate key"), "{twice}");
}

#[test]
fn bad_rule_sets_are_refused_with_the_reason() {
    let base = CAYUGA_ART_V
        .replace("towns = [\"Ira\", \"Montezuma\", \"Venice\"]", "towns = [\"Ira\", \"Atlantis\"]");
    let err = RuleSet::from_toml(&base, Path::new("x.toml")).unwrap_err().to_string();
    assert!(err.contains("Atlantis") && err.contains("municipalities"), "{err}");
    // Every misspelt town is told, each with the municipality meant.
    let text = CAYUGA_ART_V
        .replace(
            "towns = [\"Ira\", \"Montezuma\", \"Venice\"]",
            "towns = [\"Ira\", \"Montezuma\", \"Venise\"]",
        )
        .replace(
            "towns = [\"Genoa\", \"Mentz\", \"Springport\"]",
            "towns = [\"Genoa\", \"Mentz\", \"Springprt\"]",
        );
    let err = RuleSet::from_toml(&text, Path::new("r.toml")).unwrap_err().to_string();
    assert!(err.starts_with("r.toml: 2 mistakes:"), "{err}");
    assert!(
        err.contains("town 'Venise' is not among [jurisdiction] municipalities (did you mean 'Venice'?)"),
        "{err}"
    );
    assert!(
        err.contains(
            "town 'Springprt' is not among [jurisdiction] municipalities (did you mean 'Springport'?)"
        ),
        "{err}"
    );
    let err = RuleSet::from_toml(
        &CAYUGA_ART_V.replace("\"Aurora\" = [\"Ledyard\"]", "\"Aurora\" = [\"Atlantis\"]"),
        Path::new("v.toml"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("village 'Aurora': town 'Atlantis'"), "{err}");
    let err = RuleSet::from_toml(
        &CAYUGA_ART_V.replace("\"0546\" = \"Owasco\"", "\"546\" = \"Owasco\""),
        Path::new("s.toml"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("SWIS '546'"), "{err}");
    let err = RuleSet::from_toml("[jurisdiction]\nname = 1", Path::new("y.toml")).unwrap_err().to_string();
    assert!(
        err.starts_with("y.toml:2:8: [jurisdiction] name: found integer `1`, expected a string"),
        "{err}"
    );
    assert!(err.contains("for example: name = \"Cayuga County Health District\""), "{err}");
    // An unknown key in a rule: the nearest allowed key is suggested.
    let misspelt = CAYUGA_ART_V.replacen("cycle_years = ", "cycle_year = ", 1);
    let err = RuleSet::from_toml(&misspelt, Path::new("z.toml")).unwrap_err().to_string();
    let line = CAYUGA_ART_V[..CAYUGA_ART_V.find("cycle_years = ").unwrap()].lines().count() + 1;
    assert!(err.starts_with(&format!("z.toml:{line}:1: [[rule]] cycle_year: unknown key")), "{err}");
    assert!(err.contains("did you mean `cycle_years`?"), "{err}");
}

#[test]
fn plain_sentences_are_checked_when_the_rule_set_is_read() {
    // Every periodic rule of the county rule set says in plain words what and why.
    let set = RuleSet::cayuga_art_v();
    assert!(set.rules.iter().all(|r| r.plain_what.is_some() && r.plain_why.is_some()));
    let text = CAYUGA_ART_V.replacen("every {years} years.\"", "every {yeras} years.\"", 1);
    let err = RuleSet::from_toml(&text, Path::new("mine.toml")).unwrap_err().to_string();
    assert!(
        err.contains("rule 'lakefront': plain_why") && err.contains("{yeras}") && err.contains("mine.toml"),
        "{err}"
    );
    let text = GORHAM_CH56.replacen("plain_what = \"", "plain_what = \"{", 1);
    let err = RuleSet::from_toml(&text, Path::new("town.toml")).unwrap_err().to_string();
    assert!(
        err.contains("clock 'conveyance-inspection': plain_what") && err.contains("never closed"),
        "{err}"
    );
}
