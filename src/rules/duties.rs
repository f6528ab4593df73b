//! The duty tables of a rule set, as data: permits after an inspection (§V), drainage-pipe samples (§III.G),
//! the inspector's report deadline (§VI.B.2), grandfathered designs, and the event clocks ("within 7 business
//! days of a complaint"). Each is optional: a rule set owes only what its law says. What the law makes of them
//! for a system or parcel is decided in the `law` module.

use chrono::NaiveDate;
use serde::Deserialize;

use super::vocabulary::{event_column, event_kind, ColumnKind, EventKind};
use super::{iso_date, Text};

/// Classification of an inspected system and the permit that follows (Cayuga Art. V §V).
///
/// The terms are bounds the Health Department sets each permit within, not dates: a permit's issue date and
/// expiry come from the records, and without them the obligations list the term as a staff item. A recorded
/// expiry beyond a bound (a permit to discharge longer than the longest term, an interim permit shorter than
/// the shortest) gives way to the bound, and the record is reported.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermitRules {
    /// Longest term of a permit to discharge, years ("up to five years").
    pub max_term_years: u32,
    /// Shortest term of a permit to discharge, years (§V.D's table: "Permit to Discharge (2 to 5 years)");
    /// 0: no floor.
    #[serde(default)]
    pub min_term_years: u32,
    /// Shortest term of an interim permit, years ("a minimum term of one year").
    pub interim_min_term_years: u32,
    /// Years between applications to renew an interim permit ("annually").
    pub interim_renewal_years: u32,
    /// Vertical separation between absorption-device bottom and groundwater/bedrock for existing standards, ft.
    pub min_separation_ft: f64,
    /// Distance between absorption field and any watercourse or wetland for existing standards, ft.
    pub min_watercourse_ft: f64,
    /// Citation of the classes.
    pub class_citation: Text,
    /// Citation of the permit conditions (complete report, no failure, no overflow points, parts working).
    pub conditions_citation: Text,
    /// Citation of design standards (10 NYCRR Appendix 75-A).
    pub design_citation: Text,
    /// Citation of existing standards.
    pub existing_citation: Text,
    /// Citation of the substandard class and its interim permit.
    pub substandard_citation: Text,
    /// Citation of interim-permit renewal and the bar on renewing it.
    pub renewal_citation: Text,
    /// Citation of the repair order for failed systems.
    pub failed_citation: Text,
    /// Citation of the Board of Health administrative hearing the Health Department summons the property to
    /// when ordered repairs are not made in time; blank: the repair order's ([`PermitRules::hearing`]).
    #[serde(default)]
    pub hearing_citation: Text,
    /// Citation of the possible holding-tank requirement for substandard lakefront systems.
    pub holding_tank_citation: Text,
    /// Citation of the permit's dates: from acceptance of the report, terms set by the Health Department.
    pub term_citation: Text,
    /// Citation of the longest term of a permit to discharge; blank: the term's ([`PermitRules::max_term`]).
    #[serde(default)]
    pub max_term_citation: Text,
    /// Citation of the shortest term of an interim permit; blank: the term's ([`PermitRules::interim_min_term`]).
    #[serde(default)]
    pub interim_min_term_citation: Text,
    /// Citation of the shortest term of a permit to discharge; blank: the term's ([`PermitRules::min_term`]).
    #[serde(default)]
    pub min_term_citation: Text,
    /// Citation of the measurement from the absorption field that existing standards need.
    pub location_citation: Text,
    /// Citation of the Health Department's action upon the expiration of an interim permit (§V.G); blank:
    /// the renewal's ([`PermitRules::expiry`]).
    #[serde(default)]
    pub expiry_citation: Text,
    /// Citation of the bar on issuing or renewing an interim permit for a system the Health Department
    /// determined improperly maintained or improperly repaired, and of the maintenance or repair then owed
    /// (§V.F.2, §V.E.2); blank: the renewal's ([`PermitRules::maintenance`]).
    #[serde(default)]
    pub maintenance_citation: Text,
}

impl PermitRules {
    /// The citation of the §V.G.4 hearing, or the repair order's where the rule set names none.
    pub fn hearing(&self) -> Text {
        or(self.hearing_citation, self.failed_citation)
    }

    /// The citation of the longest term of a permit to discharge, or the term's where the rule set names none.
    pub fn max_term(&self) -> Text {
        or(self.max_term_citation, self.term_citation)
    }

    /// The citation of the shortest term of a permit to discharge, or the term's where the rule set names none.
    pub fn min_term(&self) -> Text {
        or(self.min_term_citation, self.term_citation)
    }

    /// The citation of the Department's action on an expired interim permit, or the renewal's.
    pub fn expiry(&self) -> Text {
        or(self.expiry_citation, self.renewal_citation)
    }

    /// The citation of the maintenance bar on an interim permit, or the renewal's.
    pub fn maintenance(&self) -> Text {
        or(self.maintenance_citation, self.renewal_citation)
    }

    /// The citation of the shortest term of an interim permit, or the term's where the rule set names none.
    pub fn interim_min_term(&self) -> Text {
        or(self.interim_min_term_citation, self.term_citation)
    }
}

/// `citation`, or `otherwise` when it is blank.
fn or(citation: Text, otherwise: Text) -> Text {
    if citation.trim().is_empty() {
        otherwise
    } else {
        citation
    }
}

/// Fecal-coliform limits for drainage pipes on lakefront parcels (Art. V §III.G).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrainagePipeRules {
    /// A single sample above this many fecal coliform per 100 mL violates.
    pub limit_per_100ml: f64,
    /// Retest samples the owner may take after an exceedance.
    pub retest_samples: u32,
    /// Days after the exceedance within which the retests must be taken.
    pub retest_days: u32,
    /// Citation.
    pub citation: Text,
    /// First due date of the periodic inspection of the drainage pipes of bordering parcels.
    #[serde(deserialize_with = "iso_date")]
    pub inspection_first_due: NaiveDate,
    /// Years between the pipes' periodic inspections.
    pub inspection_cycle_years: u32,
    /// Citation of the periodic pipe inspection.
    pub inspection_citation: Text,
}

/// When a certified inspector's report is due (Art. V §VI.B.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportRules {
    /// Business days after the inspection.
    pub business_days: u32,
    /// Citation.
    pub citation: Text,
}

/// How calendar-day periods end.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalendarRules {
    /// A period of days ending on a Saturday, Sunday or public holiday runs to the next business day.
    pub roll_forward: bool,
    /// Citation (N.Y. Gen. Constr. Law §25-a).
    pub citation: Text,
}

/// How long the record keeps a duty met after its deadline: the row stays with both dates, "met late", and its
/// clause (the inspector's report under §VI.B.2, a violation corrected under Ch. 56 §904) for this many years
/// before the as-of date. The law keeps no such period; it is the county's practice, as data.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordRules {
    /// Years before the as-of date that a duty met late stays listed (default 3).
    #[serde(default = "RecordRules::default_met_late_years")]
    pub met_late_years: u32,
}

impl RecordRules {
    fn default_met_late_years() -> u32 {
        3
    }

    /// The first day whose late acts are still listed on `as_of`.
    pub fn met_late_since(&self, as_of: NaiveDate) -> NaiveDate {
        as_of.checked_sub_months(chrono::Months::new(12 * self.met_late_years)).unwrap_or(NaiveDate::MIN)
    }
}

impl Default for RecordRules {
    fn default() -> Self {
        RecordRules { met_late_years: Self::default_met_late_years() }
    }
}

/// Who owes a duty. The owner is the one party lakeshore writes to; the others' duties are staff items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Party {
    /// The owner of the property (`owner`).
    Owner,
    /// The Health Department (`health department`).
    HealthDepartment,
    /// The inspector who made an inspection (`inspector`), by name when the inspections file gives one.
    Inspector(Option<Text>),
    /// Another party a rule set names, in its words (`authority`, `town board`).
    Other(Text),
}

impl Party {
    /// The party a rule set names `name`.
    pub fn named(name: &str) -> Self {
        match name {
            "owner" => Party::Owner,
            "health department" => Party::HealthDepartment,
            "inspector" => Party::Inspector(None),
            other => Party::Other(Text::new(other)),
        }
    }

    /// The party's words, as the `who` column shows them: an inspector with the name.
    pub fn text(self) -> std::borrow::Cow<'static, str> {
        use std::borrow::Cow::{Borrowed, Owned};
        match self {
            Party::Owner => Borrowed("owner"),
            Party::HealthDepartment => Borrowed("health department"),
            Party::Inspector(None) => Borrowed("inspector"),
            Party::Inspector(Some(name)) => Owned(format!("inspector {name}")),
            Party::Other(words) => Borrowed(words.as_str()),
        }
    }
}

impl std::fmt::Display for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for Party {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Party::named(&s))
    }
}

/// Systems whose design the current standards do not reach (Gorham Ch. 56 §304.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrandfatherRules {
    /// Which reading of the paragraph dates the rule set takes.
    pub reading: GrandfatherReading,
    /// Why it takes that reading.
    pub reason: String,
    /// The paragraph date for individual household systems (§304.2(a): December 1, 1990).
    #[serde(deserialize_with = "iso_date")]
    pub individual_date: NaiveDate,
    /// The paragraph date for intermediate-sized systems (§304.2(b): January 1, 1988).
    #[serde(deserialize_with = "iso_date")]
    pub intermediate_date: NaiveDate,
    /// The date of adoption of the law, the end of the window under [`GrandfatherReading::Between`].
    #[serde(deserialize_with = "iso_date")]
    pub adopted: NaiveDate,
    /// Where the adoption date comes from (the text may not state it).
    pub adopted_source: String,
    /// Citation.
    pub citation: Text,
}

/// The two readings of Ch. 56 §304.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GrandfatherReading {
    /// The sentence: installed after the paragraph date and before the adoption of the law.
    Between,
    /// The paragraphs: installed before the paragraph date.
    Before,
}

impl GrandfatherRules {
    /// The date of paragraph (a) or, for intermediate-sized systems, (b).
    pub fn paragraph_date(&self, intermediate: bool) -> NaiveDate {
        if intermediate {
            self.intermediate_date
        } else {
            self.individual_date
        }
    }
}

/// A condition on an event's column: `{ column = "arms_length", is = true }` or
/// `{ column = "flow_gpd", above = 1000 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// The events-file column tested.
    pub column: String,
    /// A yes/no column must hold this.
    pub is: Option<bool>,
    /// A number column must be strictly greater than this.
    pub above: Option<f64>,
    /// The outcome when the cell is blank; without it a blank cell is reported and the clock still starts.
    pub blank: Option<bool>,
}

/// A legal clock: an event starts it, a later event (or record) closes it, and the law gives its length.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// Stable identifier, written to the obligations file.
    pub id: Text,
    /// The events that start it.
    pub on: Vec<String>,
    /// Only events meeting this condition start it.
    pub when: Option<Condition>,
    /// What is owed, in the law's words.
    pub what: Text,
    /// Who owes it: "owner", "authority", "inspector", "town board", ...
    pub who: Party,
    /// Due this many calendar days after the event.
    pub within_days: Option<u32>,
    /// The period runs from the date in this events-file column (a receipt date) when it is filled in: the
    /// days to the due date, or the weeks of a fined clock (Gorham Ch. 56 §904: "each week such violation
    /// continues after notification"). A clock due on the event's own date stays due on it.
    pub from_column: Option<String>,
    /// Without that date, the period runs from the event's date plus this many days (a mailing allowance).
    pub mailing_days: Option<u32>,
    /// Due this many business days after the event.
    pub within_business_days: Option<u32>,
    /// Due on the event's own date (e.g. an inspection "prior to" a conveyance).
    #[serde(default)]
    pub due_on_event: bool,
    /// Events that discharge the obligation (none: it stays open until the law's time runs out). One on or
    /// before the due date meets it; a later one corrects the breach late, and the obligation stays listed
    /// with both dates.
    #[serde(default)]
    pub closed_by: Vec<String>,
    /// A closing event counts from this many months before the starting event: the law's own look-back
    /// ("pumped within the last twelve months"); by default only on or after it.
    pub closed_from_months_before: Option<u32>,
    /// The duty is owed "prior to" the act that starts it: a closing event answers it when dated on or before
    /// the act and after the previous act on record that starts this clock (the previous sale, the previous
    /// construction), never one that answered an earlier act.
    #[serde(default)]
    pub prior_to: bool,
    /// With `prior_to`, before the first act of its kind on record: how many months before the act a closing
    /// event may be dated. The county's history does not go back for ever, so this stands in for the
    /// previous act it did not record; it is the rule set's reading, not the law's.
    pub first_lookback_months: Option<u32>,
    /// Events that replace a start when they come after it on the same parcel: on a later date, or on the
    /// same date further down the same file (a hearing continued to another session is not its final
    /// adjournment). The start then owes nothing; a later event that starts the clock starts its own.
    #[serde(default)]
    pub superseded_by: Vec<String>,
    /// The obligation is a window that lapses at its due date rather than becoming overdue (a right to appeal).
    #[serde(default)]
    pub lapses: bool,
    /// Each week the obligation stays open after the event is a separate violation fined up to this much.
    pub weekly_fine_usd: Option<f64>,
    /// Where the clock comes from.
    pub citation: Text,
    /// What the owner is to do, in plain words for the letter (see [`super::Rule::plain_what`]).
    pub plain_what: Option<String>,
    /// Why the owner owes it, in plain words for the letter, facts named in braces
    /// ([`super::plain::PLAIN_NAMES`]): "You sold or bought the property on {date}; ..."
    pub plain_why: Option<String>,
}

impl Clock {
    /// Checks names against the event vocabulary and that at most one length is given.
    pub(super) fn validate(&self) -> std::result::Result<(), String> {
        let counted = self.within_days.is_some() || self.weekly_fine_usd.is_some();
        if self.mailing_days.is_some() && (self.from_column.is_none() || !counted) {
            return Err("'mailing_days' needs 'from_column' and 'within_days' or 'weekly_fine_usd': it stands in for a missing receipt date".into());
        }
        if let Some(column) = &self.from_column {
            if event_column(column) != Some(ColumnKind::Date) {
                return Err(format!(
                    "'from_column' names '{column}', which is not a date column of the events file"
                ));
            }
        }
        if self.prior_to && self.closed_from_months_before.is_some() {
            return Err("give 'prior_to' (the act before it on record bounds it) or 'closed_from_months_before' (the law's own look-back), not both".into());
        }
        if self.first_lookback_months.is_some() && !self.prior_to {
            return Err("'first_lookback_months' stands in for the previous act of a 'prior_to' clock; add prior_to = true".into());
        }
        if self.on.is_empty() {
            return Err("'on' names no event; list the events that start the clock".into());
        }
        for (key, names) in
            [("on", &self.on), ("closed_by", &self.closed_by), ("superseded_by", &self.superseded_by)]
        {
            if let Some(name) = names.iter().find(|n| event_kind(n).is_none()) {
                return Err(unknown_event(key, name));
            }
        }
        let lengths = [self.within_days.is_some(), self.within_business_days.is_some(), self.due_on_event];
        if lengths.iter().filter(|&&b| b).count() > 1 {
            return Err("give at most one of within_days, within_business_days, due_on_event".into());
        }
        if (self.lapses || self.weekly_fine_usd.is_some()) && !lengths.iter().any(|&b| b) {
            return Err("a lapsing or fined clock needs a length".into());
        }
        if let Some(c) = &self.when {
            let kind = event_column(&c.column).ok_or_else(|| {
                format!(
                    "'when' tests column '{}', which the events file does not have; use one of: {}",
                    c.column,
                    super::vocabulary::EVENT_COLUMNS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                )
            })?;
            match (kind, c.is, c.above) {
                (ColumnKind::YesNo, Some(_), None) | (ColumnKind::Number, None, Some(_)) => {}
                (ColumnKind::YesNo, ..) => {
                    return Err(format!("'when' on {}: give `is = true|false`", c.column))
                }
                (ColumnKind::Number, ..) => {
                    return Err(format!("'when' on {}: give `above = NUMBER`", c.column))
                }
                (ColumnKind::Date, ..) => {
                    return Err(format!("'when' cannot test the date column {}", c.column))
                }
            }
        }
        Ok(())
    }

    /// Whether an event of `kind` starts this clock.
    pub fn starts_on(&self, kind: EventKind) -> bool {
        names_kind(&self.on, kind)
    }

    /// Whether an event of `kind` closes this clock.
    pub fn closes_on(&self, kind: EventKind) -> bool {
        names_kind(&self.closed_by, kind)
    }

    /// Whether an event of `kind`, coming after a start, replaces it.
    pub fn superseded_on(&self, kind: EventKind) -> bool {
        names_kind(&self.superseded_by, kind)
    }

    /// Whether an event of `kind` bears on this clock at all: starts, closes or replaces a start of it.
    pub fn bears_on(&self, kind: EventKind) -> bool {
        self.starts_on(kind) || self.closes_on(kind) || self.superseded_on(kind)
    }
}

/// Whether `list` (event names as a rule set writes them, aliases included) names `kind`.
fn names_kind(list: &[String], kind: EventKind) -> bool {
    list.iter().any(|o| event_kind(o).is_some_and(|e| e.kind == kind))
}

/// The message for an event name under `key` that the vocabulary does not know: the nearest name, when it
/// is close enough to be a slip, and every name.
fn unknown_event(key: &str, name: &str) -> String {
    let known: Vec<String> = super::vocabulary::EVENTS
        .iter()
        .flat_map(|e| std::iter::once(e.kind.as_str()).chain(e.aliases.iter().copied()))
        .map(String::from)
        .collect();
    let hint = crate::model::diagnose::closest(name, &known)
        .and_then(event_kind)
        .map_or_else(String::new, |e| format!("did you mean '{}'? ", e.kind));
    let names: Vec<&str> = super::vocabulary::EVENTS.iter().map(|e| e.kind.as_str()).collect();
    format!("'{key}' names the unknown event '{name}'; {hint}use one of: {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    /// A county rule set written before the term bounds and the hearing had citations of their own still
    /// loads, and cites the term (§V.A-C) and the repair order (§V.G.4) for them.
    #[test]
    fn the_bound_and_hearing_citations_fall_back_when_a_rule_set_names_none() {
        let mut permits = RuleSet::cayuga_art_v().permits.expect("Art. V has permits");
        assert_eq!(
            (permits.max_term().as_str(), permits.hearing().as_str()),
            ("Art. V §V.B", "Art. V §V.G.4")
        );
        permits.max_term_citation = Text::default();
        permits.interim_min_term_citation = Text::default();
        permits.hearing_citation = Text::default();
        assert_eq!(permits.max_term(), permits.term_citation);
        assert_eq!(permits.interim_min_term(), permits.term_citation);
        assert_eq!(permits.hearing(), permits.failed_citation);
    }
}
