//! Plain sentences for owners: what an obligation asks of them, by when, and why it applies to their
//! property, in words a property owner understands rather than the rule engine's ("in Aurelius; Art. V
//! §IV.A.2, every 7 years from 2003-11-01"). The citation stays beside them as a reference line.
//!
//! Where the words are the law's own (what a periodic rule or an owner's clock asks, and why), they come
//! from the rule set as data (`plain_what` and `plain_why` beside each `[[rule]]` and `[[clock]]`,
//! [`crate::rules::plain`]); a rule set without them, or a parcel missing a fact a sentence names, gets
//! this module's general sentences. Every function is pure: an obligation, its parcel's row and the rule set
//! in, a sentence out.

use chrono::NaiveDate;

use crate::law::obligations::{Obligation, ObligationKind, Trigger};
use crate::law::schedule::Row;
use crate::rules::{plain, RuleSet};

/// A date as a letter writes it: "November 1, 2027".
pub fn long_date(date: NaiveDate) -> String {
    date.format("%B %-d, %Y").to_string()
}

/// The plain words of an obligation, for one item of a letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain {
    /// What is due: "Have your septic system inspected by a county-certified inspector".
    pub what: String,
    /// By when: "by November 1, 2027" or "overdue since November 1, 2025"; empty without a due date.
    pub when: String,
    /// Why, in a sentence or two an owner understands.
    pub why: String,
    /// The law it comes from: "Reference: Art. V §IV.A.1 ¶1".
    pub reference: String,
}

impl Plain {
    /// The words as the program store keeps them with a letter's item: a JSON object of the four.
    pub fn to_json(&self) -> String {
        serde_json::json!({ "what": self.what, "when": self.when, "why": self.why, "reference": self.reference })
            .to_string()
    }

    /// The words the program store kept ([`Plain::to_json`]); a missing one is empty.
    pub fn from_json(text: &str) -> Plain {
        let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let get = |key: &str| value[key].as_str().unwrap_or_default().to_string();
        Plain { what: get("what"), when: get("when"), why: get("why"), reference: get("reference") }
    }
}

/// The plain words of obligation `o`, whose parcel's schedule row is `row`, under `rules`.
pub fn plain(o: &Obligation, row: &Row, rules: &RuleSet) -> Plain {
    Plain {
        what: what(o, row, rules),
        when: when(o.due, o.overdue),
        why: why(o, row, rules),
        reference: reference(o),
    }
}

/// The rule set's plain words for `o` (`plain_what`, `plain_why`): its periodic rule's, found by the rule id
/// of the parcel's row, or its clock's.
fn texts<'r>(o: &Obligation, row: &Row, rules: &'r RuleSet) -> (Option<&'r str>, Option<&'r str>) {
    if o.kind == ObligationKind::PERIODIC_INSPECTION {
        let rule = row.entry.rule.and_then(|id| rules.rule_id(id)).map(|id| rules.rule(id));
        return rule.map_or((None, None), |r| (r.plain_what.as_deref(), r.plain_why.as_deref()));
    }
    match rules.clocks.iter().find(|c| c.id.as_str() == o.kind.as_str()) {
        Some(c) => (c.plain_what.as_deref(), c.plain_why.as_deref()),
        None => (None, None),
    }
}

/// What obligation `o` on `row` asks: its rule's or clock's `plain_what`, or else the duty as the
/// obligations table words it, with a capital.
pub fn what(o: &Obligation, row: &Row, rules: &RuleSet) -> String {
    capitalised(texts(o, row, rules).0.unwrap_or(&o.what))
}

/// `text` with its first letter a capital.
fn capitalised(text: &str) -> String {
    let mut chars = text.trim().chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// By when, from a due date and whether it has passed: "by November 1, 2027", "overdue since November 1,
/// 2025", or nothing when the law sets no date.
pub fn when(due: Option<NaiveDate>, overdue: bool) -> String {
    match (due, overdue) {
        (Some(due), true) => format!("overdue since {}", long_date(due)),
        (Some(due), false) => format!("by {}", long_date(due)),
        (None, _) => String::new(),
    }
}

/// The reference line of `o`: "Reference: " and its citation.
pub fn reference(o: &Obligation) -> String {
    format!("Reference: {}", o.citation)
}

/// The value of a plain sentence's fact `name` ([`plain::PLAIN_NAMES`]) for obligation `o` on `row`.
fn fact(name: &str, o: &Obligation, row: &Row) -> Option<String> {
    let facts = row.facts.as_ref();
    match name {
        "water" => facts.and_then(|f| f.shore.as_ref()).map(|s| s.water_body.to_string()),
        "watershed" => facts.and_then(|f| f.watershed.as_ref()).map(|w| w.to_string()),
        "town" => {
            facts.and_then(|f| f.town.as_ref()).map(|t| t.to_string()).or_else(|| row.parcel.town.clone())
        }
        "years" => row.entry.cycle_years.map(|y| y.to_string()),
        "date" => o.since.map(long_date),
        _ => None,
    }
}

/// Why `o` applies to the owner's property: the rule set's `plain_why` with the parcel's facts filled in,
/// or else a general sentence: for the periodic inspection, that the law requires one every so many years;
/// for another duty, what started it and when, with its particulars.
pub fn why(o: &Obligation, row: &Row, rules: &RuleSet) -> String {
    if let Some(sentence) = texts(o, row, rules).1.and_then(|t| plain::fill(t, |name| fact(name, o, row))) {
        return sentence;
    }
    if o.kind == ObligationKind::PERIODIC_INSPECTION {
        return match row.entry.cycle_years {
            Some(years) => {
                format!(
                    "The {} requires an inspection of your septic system every {years} years.",
                    rules.jurisdiction.law
                )
            }
            None => format!("The {} requires an inspection of your septic system.", rules.jurisdiction.law),
        };
    }
    let on = o.since.map(|d| format!(" on {}", long_date(d))).unwrap_or_default();
    let mut why = match o.trigger {
        Trigger::Schedule => "This is part of the regular inspection schedule.".to_string(),
        Trigger::Inspection => format!("An inspection of your system{on} found this."),
        Trigger::Sample => format!("A sample was taken from a drainage pipe{on}."),
        Trigger::Event(kind) => {
            format!("This follows the {}{on} on record.", kind.as_str().replace('-', " "))
        }
    };
    if let Some(detail) = o.detail.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        why.push_str(" Details: ");
        why.push_str(detail);
        if !detail.ends_with('.') {
            why.push('.');
        }
    }
    why
}

#[cfg(test)]
mod tests;
