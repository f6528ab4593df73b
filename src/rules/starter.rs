//! A starter rule set for a jurisdiction the built-in ones do not cover, and the marker of the values it
//! cannot know. `lakeshore init` writes one with the county's own towns and water bodies; every value only
//! the law can give (cohort years, elevations, citations) is written as [`TO_FILL`], and a rule set still
//! holding one does not load: each such key is named with its line.

use std::fmt::Write as _;

/// The text a value still to be given from the law holds: `cycle_years = "TO FILL: years between
/// inspections"`.
pub const TO_FILL: &str = "TO FILL";

/// The keys of `text` (a rule set's TOML) whose value is still marked [`TO_FILL`]: `(line, table, key)`,
/// the line counted from 1 and the table as its header says it (`[[rule]]`).
pub fn unfilled(text: &str) -> Vec<(usize, String, String)> {
    let marker = format!("\"{TO_FILL}");
    let mut table = String::new();
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            table = line.split('#').next().unwrap_or(line).trim().to_string();
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if value.contains(&marker) {
                found.push((n + 1, table.clone(), key.trim().to_string()));
            }
        }
    }
    found
}

/// `text` as a TOML basic string, quoted and escaped.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A list of TOML strings.
fn list(items: &[String]) -> String {
    items.iter().map(|i| toml_string(i)).collect::<Vec<_>>().join(", ")
}

/// A value to fill, saying what it is.
fn fill(what: &str) -> String {
    toml_string(&format!("{TO_FILL}: {what}"))
}

/// The starter rule set for a county whose towns are `towns` and whose shoreline names `water_bodies`: the
/// shape of the Cayuga County rule set (lakefront, near-shore and watershed tiers, public sewer exempt), with
/// the county's names in it and every value of the law marked [`TO_FILL`].
pub fn starter(towns: &[String], water_bodies: &[String], watershed_layer: bool) -> String {
    let mut out = String::new();
    out.push_str(
        "# Starter rule set written by `lakeshore init` for the towns and water bodies found in the county's\n\
         # layers. Every value marked TO FILL comes from the county's law: give it (or delete the key where the\n\
         # law has no such value) before the rule set can be used. Compare `lakeshore rules --jurisdiction\n\
         # cayuga`, a complete rule set with its readings.\n\n[jurisdiction]\n",
    );
    let _ = writeln!(out, "name = {}", fill("the health district or town making the rules"));
    let _ = writeln!(out, "law = {}", fill("the law's title"));
    let _ = writeln!(out, "short = {}", fill("its short name, as citations begin (Art. V)"));
    let _ =
        writeln!(out, "# The municipalities found in the towns layer (or the parcels' municipality field).");
    let _ = writeln!(out, "municipalities = [{}]", list(towns));
    out.push_str("strip_prefixes = [\"Town of \", \"City of \", \"T/\", \"C/\"]\n");
    out.push_str("village_prefixes = [\"Village of \", \"V/\"]\n");
    out.push_str("watershed_suffixes = [\"Watershed\", \"Drainage Basin\", \"Basin\"]\n");
    for body in water_bodies {
        out.push_str("\n# A water body found in the shoreline layer. Delete flood_elevation_ft if the law designates none.\n");
        let _ = writeln!(out, "[[water_body]]\nname = {}", toml_string(body));
        let _ = writeln!(out, "mhw_ft = {}", fill("mean high water, feet"));
        let _ = writeln!(out, "flood_elevation_ft = {}", fill("designated flood elevation, feet"));
        let _ = writeln!(out, "citation = {}", fill("the clause defining mean high water"));
    }
    out.push_str("\n[floodplain]\nfreeboard_ft = 2.0\nlake_zone_within_ft = 50.0\n");
    let _ = writeln!(out, "citation = {}", fill("the floodplain clause"));
    out.push_str(
        "\n[coverage]\npublic_sewer_codes = [\"3\", \"Public\", \"Public Sewer\", \"Municipal\"]\n\
         private_sewer_codes = [\"Private\", \"Septic\", \"None\"]\n",
    );
    for key in ["sewered_citation", "outside_county_citation", "no_rule_citation"] {
        let _ = writeln!(out, "{key} = {}", fill("the clause"));
    }
    let water = list(water_bodies);
    let tiers = [
        (
            "lakefront",
            "system on a parcel bordering the mean-high-water mark",
            "borders_mhw = true\nsystem_within_mhw_ft = 500.0",
        ),
        (
            "near-shore",
            "system on a parcel within 500 ft of the mean-high-water mark",
            "borders_mhw = false\nparcel_within_mhw_ft = 500.0",
        ),
    ];
    for (id, description, test) in tiers {
        let _ = writeln!(
            out,
            "\n[[rule]]\nid = {}\ntier = {}\ndescription = {}",
            toml_string(id),
            toml_string(id),
            toml_string(description)
        );
        let _ = writeln!(out, "{test}");
        rule_values(&mut out);
    }
    if !water_bodies.is_empty() && watershed_layer {
        let _ = writeln!(
            out,
            "\n[[rule]]\nid = \"watershed\"\ntier = \"watershed\"\ndescription = \"system in the watershed\"\n\
             watersheds = [{water}]\n# The towns the watershed tier covers: keep those the law names.\ntowns = [{}]",
            list(towns)
        );
        rule_values(&mut out);
    } else if !water_bodies.is_empty() {
        out.push_str(
            "\n# No watershed layer was found, so no watershed tier is written: a rule placing parcels by a lake's\n\
             # watershed needs one. Where the law has such a tier, add [layers] watershed to the config and a rule\n\
             # with `watersheds = [...]` as `lakeshore rules --jurisdiction cayuga` shows.\n",
        );
    }
    out.push_str("\n[calendar]\nroll_forward = true\ncitation = \"N.Y. Gen. Constr. Law §25-a\"\n");
    out.push_str(
        "\n# Notices to owners and what follows an unanswered one. The intervals are practice (30 days each) unless\n\
         # the law sets them; the referral goes to the enforcement the law provides.\n\
         [notices]\nmailing_days = 5\n\n[notices.first]\nserved = \"first-class\"\n\n\
         [notices.reminder]\nafter_days = 30\nserved = \"first-class\"\npractice = true\n\n\
         [notices.final]\nafter_days = 30\nserved = \"certified\"\npractice = true\n\n\
         [notices.referral]\nafter_days = 30\nserved = \"certified\"\npractice = true\n",
    );
    let _ = writeln!(out, "to = {}", fill("who enforces the law (a board, a court)"));
    let _ = writeln!(out, "citation = {}", fill("the enforcement clause"));
    out
}

/// The values of a periodic rule only the law gives.
fn rule_values(out: &mut String) {
    let _ = writeln!(out, "first_due = {}", fill("the first due date, YYYY-MM-DD"));
    let _ = writeln!(out, "cycle_years = {}", fill("years between inspections"));
    let _ = writeln!(out, "citation = {}", fill("the clause"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;
    use std::path::Path;

    /// The starter names each value to fill at its line, does not load while one is left, and loads once
    /// each is given.
    #[test]
    fn a_starter_loads_once_every_value_is_filled() {
        let towns = ["Dryden".to_string(), "Lansing".to_string()];
        let text = starter(&towns, &["Cayuga Lake".to_string()], true);
        let left = unfilled(&text);
        // name, law, short; mhw_ft, flood_elevation_ft, citation; floodplain citation; three coverage
        // citations; three rules of three values each; the referral's addressee and clause.
        assert_eq!(left.len(), 3 + 3 + 1 + 3 + 9 + 2, "{left:?}");
        let line = text.lines().position(|l| l.starts_with("mhw_ft")).expect("mhw_ft") + 1;
        assert!(left.contains(&(line, "[[water_body]]".into(), "mhw_ft".into())), "{left:?}");
        let err = RuleSet::from_toml(&text, Path::new("rules.toml")).expect_err("unfilled").to_string();
        assert!(err.contains(&format!("line {line}: [[water_body]] mhw_ft")), "{err}");
        let filled = text
            .lines()
            .map(|l| match l.split_once(" = \"TO FILL") {
                Some((key, _)) if key.ends_with("_ft") => format!("{key} = 400.0"),
                Some((key, _)) if key == "cycle_years" => format!("{key} = 3"),
                Some((key, _)) if key == "first_due" => format!("{key} = \"2027-11-01\""),
                Some((key, _)) => format!("{key} = \"Local Law 1\""),
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let set = RuleSet::from_toml(&filled, Path::new("rules.toml")).expect("a filled starter loads");
        assert_eq!(set.jurisdiction.municipalities, towns);
        assert_eq!(set.rules.len(), 3);
        assert_eq!(set.water_body("Cayuga Lake").map(|w| w.mhw_ft), Some(400.0));
        assert_eq!(set.notices.map(|n| n.referral.after_days), Some(30));
    }

    /// Without a watershed layer the starter writes no watershed tier (a run would stop for want of the
    /// layer), only a comment saying how to add one.
    #[test]
    fn a_county_without_a_watershed_layer_gets_no_watershed_tier() {
        let text = starter(&["Dryden".to_string()], &["Cayuga Lake".to_string()], false);
        assert!(!text.lines().any(|l| l.starts_with("watersheds")), "{text}");
        assert!(text.contains("No watershed layer was found"), "{text}");
        assert_eq!(unfilled(&text).len(), 3 + 3 + 1 + 3 + 6 + 2);
    }
}
