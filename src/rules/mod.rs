//! The rule-set model: a jurisdiction's tiers, town cohorts, distances, elevations and citations, loaded from
//! TOML (see `data/rules/`). The code knows predicates (borders the mean-high-water mark, within a distance,
//! in the watershed, in one of these towns), never town names; the rule set supplies those. This module holds
//! the rules as data, their loading and validation, and the words they use (`vocabulary`); what the law makes
//! of a parcel under them is `law`'s.

pub mod calendar;
mod duties;
pub mod notices;
mod places;
pub mod plain;
mod sewer;
pub mod starter;
mod terms;
mod text;
pub mod vocabulary;

pub use duties::{
    CalendarRules, Clock, Condition, DrainagePipeRules, GrandfatherReading, GrandfatherRules, Party,
    PermitRules, RecordRules, ReportRules,
};
pub use places::Place;
pub(crate) use places::Spelled;
pub use sewer::SewerValue;
pub use terms::{FeatureMatch, Reading, Term, TermLayer, TermReader};
pub use text::Text;

use std::collections::BTreeMap;
use std::path::Path;

use chrono::NaiveDate;
use serde::Deserialize;

use crate::model::error::{Error, Result};

/// The Cayuga County Article V rule set, embedded as the default.
pub const CAYUGA_ART_V: &str = include_str!("../../data/rules/cayuga-county-art-v.toml");

/// The Town of Gorham Chapter 56 rule set (event clocks only), embedded for tests and `--rules` users.
pub const GORHAM_CH56: &str = include_str!("../../data/rules/gorham-ch56.toml");

/// The mistakes of a rule set an error lists; it counts the others.
const LISTED_MISTAKES: usize = 20;

/// A jurisdiction's rules, validated.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    /// Who makes the rules and which law they come from.
    pub jurisdiction: Jurisdiction,
    /// Water bodies whose mean-high-water mark the rules measure from.
    #[serde(default, rename = "water_body")]
    pub water_bodies: Vec<WaterBody>,
    /// The floodplain requirement.
    pub floodplain: Option<FloodplainRule>,
    /// Who is not covered at all.
    #[serde(default)]
    pub coverage: Coverage,
    /// Periodic-inspection rules, tried in order; the first that matches decides.
    #[serde(default, rename = "rule")]
    pub rules: Vec<Rule>,
    /// How calendar-day periods end (weekends and holidays).
    pub calendar: Option<CalendarRules>,
    /// Classes and permits after an inspection.
    pub permits: Option<PermitRules>,
    /// Fecal-coliform limits for drainage pipes.
    pub drainage_pipes: Option<DrainagePipeRules>,
    /// The inspector's report deadline.
    pub inspection_report: Option<ReportRules>,
    /// Grandfathered system designs.
    pub grandfather: Option<GrandfatherRules>,
    /// Event-driven obligations with their legal clocks.
    #[serde(default, rename = "clock")]
    pub clocks: Vec<Clock>,
    /// How long a duty met late stays on the record.
    #[serde(default)]
    pub record: RecordRules,
    /// How the systems layer is trusted.
    #[serde(default)]
    pub systems: SystemRules,
    /// The terms of the law that a layer's features stand for, and which features qualify.
    #[serde(default, rename = "term")]
    pub terms: Vec<Term>,
    /// The notices of a duty and what follows when they go unanswered; `None`: first notices only.
    pub notices: Option<notices::NoticeRules>,
    /// The municipalities and villages by their spelling, made when the rule set is read.
    #[serde(skip)]
    places: places::PlaceIndex,
}

/// What the rule set says of systems as the register records them: where a point off its parcel may lie,
/// which lots are vacant, and the clause that puts the law's duties on systems.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemRules {
    /// A system point on no parcel (in a road or a shore strip) within this distance of the parcel it serves
    /// is taken as on that parcel; farther, it is reported and the system located by the parcel's polygon. A
    /// point on another lot is used there when that lot is the owner's or one the register says it serves,
    /// whatever the distance. Feet.
    #[serde(default = "SystemRules::default_max_outside_parcel_ft")]
    pub max_outside_parcel_ft: f64,
    /// The property classes of vacant land, as the starts of the parcels layer's class codes (New York's
    /// RPS classes 300–399: `"3"`). A vacant lot that neither hosts nor is served by a system on record owes
    /// no system duty. Empty: no lot is taken as vacant.
    #[serde(default)]
    pub vacant_classes: Vec<String>,
    /// The clause that puts the law's duties on systems, cited for a lot with no system in service.
    #[serde(default)]
    pub no_system_citation: Text,
}

impl SystemRules {
    /// 100 ft: beyond the digitising offset between a systems layer and the tax map, within a neighbour's lot.
    fn default_max_outside_parcel_ft() -> f64 {
        100.0
    }
}

impl Default for SystemRules {
    fn default() -> Self {
        SystemRules {
            max_outside_parcel_ft: SystemRules::default_max_outside_parcel_ft(),
            vacant_classes: Vec::new(),
            no_system_citation: Text::default(),
        }
    }
}

/// The jurisdiction a rule set belongs to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Jurisdiction {
    /// E.g. "Cayuga County Health District".
    pub name: String,
    /// The law, e.g. "Sanitary Code of the Cayuga County Health District, Article V".
    pub law: String,
    /// Short name used in citations, e.g. "Art. V".
    pub short: String,
    /// Every municipality a parcel may be in; any other town name is reported as unknown.
    #[serde(default)]
    pub municipalities: Vec<String>,
    /// Prefixes that do not change which municipality is meant ("Town of ", "City of ").
    #[serde(default)]
    pub strip_prefixes: Vec<String>,
    /// Prefixes that mark a name as a village's ("Village of ", "V/").
    #[serde(default)]
    pub village_prefixes: Vec<String>,
    /// Villages and the municipalities they lie in (one, or several for a village spanning towns).
    #[serde(default)]
    pub villages: BTreeMap<String, Vec<String>>,
    /// New York SWIS code heads (county and city or town, four digits) and the municipality each identifies.
    #[serde(default)]
    pub swis: BTreeMap<String, String>,
    /// Words a watershed layer may add after a water body's name ("Watershed", "Drainage Basin").
    #[serde(default)]
    pub watershed_suffixes: Vec<String>,
}

/// A water body with a mean-high-water mark.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaterBody {
    /// Its name, matched against the shoreline and watershed layers' name attribute.
    pub name: String,
    /// Other names the layers may use for it ("Owasco"), matched like the name.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Mean-high-water elevation, USGS feet.
    pub mhw_ft: f64,
    /// The vertical datum [`Self::mhw_ft`] is stated in (`NGVD29`, `NAVD88`), when the rule set says.
    #[serde(default)]
    pub mhw_datum: Option<String>,
    /// Feet to add to [`Self::mhw_ft`] to give the same elevation in another vertical datum, by that
    /// datum's name: a DEM in a datum named here is contoured at the shifted elevation. A DEM whose datum
    /// is not stated is contoured at `mhw_ft` as it is.
    #[serde(default)]
    pub datum_shift_ft: std::collections::BTreeMap<String, f64>,
    /// The designated flood elevation where the law fixes one (Owasco Lake, §X), USGS feet.
    pub flood_elevation_ft: Option<f64>,
    /// Where the numbers come from.
    pub citation: Text,
}

/// The floodplain requirement: absorption-field bottom at least `freeboard_ft` above the flood elevation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FloodplainRule {
    /// Required height of the absorption-field bottom above the designated flood elevation, feet.
    pub freeboard_ft: f64,
    /// A flood zone is a water body's own (its designated flood elevation applies) when it touches or lies
    /// within this distance of the water body's mean-high-water line, feet.
    #[serde(default)]
    pub lake_zone_within_ft: f64,
    /// The depth of a typical absorption trench below the ground, feet: where a system has no surveyed
    /// bottom and a DEM is given, the ground at the system point less this screens the §X elevation
    /// (`likely ok` or `likely below`, estimated). None: no screening.
    #[serde(default)]
    pub trench_depth_ft: Option<f64>,
    /// Citation.
    pub citation: Text,
}

/// Parcels the law does not cover.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// Assessor sewer values meaning public sewer: codes (RPS `3`) and words (`Public`, `Municipal`),
    /// compared case, spaces and punctuation aside.
    #[serde(default)]
    pub public_sewer_codes: Vec<String>,
    /// Sewer values in words meaning a parcel does not use public sewer (`Private`, `Septic`); a numeric code
    /// the public list does not hold means it too. A value in neither list is reported.
    #[serde(default)]
    pub private_sewer_codes: Vec<String>,
    /// Citation for the public-sewer exclusion.
    #[serde(default)]
    pub sewered_citation: Text,
    /// Citation for systems outside the jurisdiction.
    #[serde(default)]
    pub outside_county_citation: Text,
    /// Citation given with a parcel that no rule covers (a gap in the law, surfaced, never hidden).
    #[serde(default)]
    pub no_rule_citation: Text,
}

/// One periodic-inspection rule. Every condition present must hold; absent conditions are not checked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Stable identifier, written to the schedule.
    pub id: Text,
    /// The tier name written to the schedule ("lakefront", "county", ...).
    pub tier: Text,
    /// What the rule covers, in the law's words.
    pub description: String,
    /// The parcel borders (or does not border) the mean-high-water mark.
    pub borders_mhw: Option<bool>,
    /// The parcel lies within this distance of the mean-high-water mark.
    pub parcel_within_mhw_ft: Option<f64>,
    /// The system, where its location is known, lies within this distance of the mean-high-water mark; a
    /// parcel whose system location is unknown passes (and the output says so).
    pub system_within_mhw_ft: Option<f64>,
    /// The system (or, without one, any part of the parcel) is in the watershed of one of these water bodies
    /// (names of the rule set's `[[water_body]]`s).
    pub watersheds: Option<Vec<String>>,
    /// The parcel's town is one of these.
    pub towns: Option<Vec<String>>,
    /// `towns` by their spelling, made when the rule set is read.
    #[serde(skip)]
    pub(crate) town_names: places::Names,
    /// First due date of the fixed grid.
    #[serde(deserialize_with = "iso_date")]
    pub first_due: NaiveDate,
    /// Years between due dates.
    pub cycle_years: u32,
    /// Where the rule comes from.
    pub citation: Text,
    /// What the owner is to do, in plain words for the letter ("Have your septic system inspected by a
    /// county-certified inspector"); without it the letter prints the duty as the obligations table does.
    pub plain_what: Option<String>,
    /// Why the rule applies to the owner's property, in plain words for the letter, facts named in braces
    /// ([`plain::PLAIN_NAMES`]): "Your property borders {water}; the county requires an inspection of
    /// lakefront systems every {years} years."
    pub plain_why: Option<String>,
}

/// A periodic rule of a rule set, by its place in [`RuleSet::rules`] (the order in which the rules are tried).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId(pub(crate) usize);

/// Reads an ISO `YYYY-MM-DD` date (quoted or a bare TOML date).
pub(crate) fn iso_date<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<NaiveDate, D::Error> {
    let value = toml::Value::deserialize(d)?;
    let text = match &value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Datetime(dt) => dt.to_string(),
        other => return Err(serde::de::Error::custom(format!("expected a date YYYY-MM-DD, found {other}"))),
    };
    NaiveDate::parse_from_str(&text, "%Y-%m-%d")
        .map_err(|e| serde::de::Error::custom(format!("'{text}' is not a date YYYY-MM-DD: {e}")))
}

impl RuleSet {
    /// The periodic rule `id` names.
    pub fn rule(&self, id: RuleId) -> &Rule {
        &self.rules[id.0]
    }

    /// The periodic rule whose id (`Rule::id`, as a schedule entry keeps it) is `id`, when the rule set has one.
    pub fn rule_id(&self, id: Text) -> Option<RuleId> {
        self.rules.iter().position(|r| r.id == id).map(RuleId)
    }

    /// The term of the law the features of `layer` stand for, when the rule set's table names one.
    pub fn term(&self, layer: TermLayer) -> Option<&Term> {
        self.terms.iter().find(|t| t.layer == layer)
    }

    /// Parses and validates a rule set; `origin` names it in messages.
    pub fn from_toml(text: &str, origin: &Path) -> Result<Self> {
        let unfilled = starter::unfilled(text);
        if !unfilled.is_empty() {
            let keys: Vec<String> =
                unfilled.iter().map(|(line, table, key)| format!("- line {line}: {table} {key}")).collect();
            return Err(Error::format(
                origin,
                format!(
                    "{} values are still marked \"{}\"; give each from the law (or delete the key where the law \
                     has no such value) before the rule set can be used:\n{}",
                    unfilled.len(),
                    starter::TO_FILL,
                    keys.join("\n")
                ),
            ));
        }
        // Every mistake of the TOML is told at once, then every one the types cannot catch.
        let parsed = crate::model::diagnose::parse_all::<RuleSet>(origin, text, CAYUGA_ART_V);
        if let Some(first) = parsed.first {
            let mut mistakes = parsed.mistakes;
            mistakes.extend(parsed.untold.line(origin));
            return Err(Error::toml(origin, mistakes.join("\n"), first));
        }
        let mut set = parsed.value.ok_or_else(|| Error::format(origin, "not a rule set; see data/rules/"))?;
        set.places = places::PlaceIndex::new(&set.jurisdiction);
        for rule in &mut set.rules {
            rule.town_names = places::Names::new(rule.towns.iter().flatten().map(String::as_str));
        }
        set.validate(origin)?;
        Ok(set)
    }

    /// Reads a rule set from a TOML file.
    pub fn load(path: &Path) -> Result<Self> {
        let fix = "give a rule set's TOML file as `rules` in the config (or --rules FILE), or leave it out for the \
                   built-in Cayuga County rules; `lakeshore rules` prints a rule set to start one from";
        if path.is_dir() {
            return Err(Error::format(path, format!("a folder, not a rule set file: {fix}")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::io(path, std::io::Error::new(e.kind(), format!("cannot read the rule set ({e}): {fix}")))
        })?;
        Self::from_toml(&text, path)
    }

    /// The embedded Cayuga County Article V rule set.
    pub fn cayuga_art_v() -> Self {
        Self::from_toml(CAYUGA_ART_V, Path::new("data/rules/cayuga-county-art-v.toml"))
            .unwrap_or_else(|e| unreachable!("the embedded rule set is checked by its tests: {e}"))
    }

    /// The embedded Town of Gorham Chapter 56 rule set.
    pub fn gorham_ch56() -> Self {
        Self::from_toml(GORHAM_CH56, Path::new("data/rules/gorham-ch56.toml"))
            .unwrap_or_else(|e| unreachable!("the embedded rule set is checked by its tests: {e}"))
    }

    /// Checks what the types cannot: every town named is a municipality, ids are unique, distances are
    /// feet. Every mistake is told, in one error, a misspelt town with the municipality most likely meant.
    fn validate(&self, origin: &Path) -> Result<()> {
        let mut mistakes = Vec::new();
        let known: Vec<String> = self.jurisdiction.municipalities.clone();
        // The town most likely meant, for the mistakes listed: each hint compares the name with every
        // municipality.
        let meant = |town: &str, listed: usize| match listed < LISTED_MISTAKES {
            true => crate::model::diagnose::closest(town, &known)
                .map_or(String::new(), |m| format!(" (did you mean '{m}'?)")),
            false => String::new(),
        };
        for (village, towns) in &self.jurisdiction.villages {
            for town in towns.iter().filter(|t| self.municipality(t).is_none()) {
                mistakes.push(format!(
                    "village '{village}': town '{town}' is not among [jurisdiction] municipalities{}",
                    meant(town, mistakes.len())
                ));
            }
        }
        for (head, town) in &self.jurisdiction.swis {
            if head.len() != 4
                || !head.bytes().all(|b| b.is_ascii_digit())
                || self.municipality(town).is_none()
            {
                mistakes.push(format!(
                    "SWIS '{head}' = '{town}': keys are the code's first four digits, values municipalities{}",
                    if self.municipality(town).is_none() { meant(town, mistakes.len()) } else { String::new() }
                ));
            }
        }
        let plain = self.rules.iter().map(|r| ("rule", r.id, [&r.plain_what, &r.plain_why]));
        for (what, id, texts) in
            plain.chain(self.clocks.iter().map(|c| ("clock", c.id, [&c.plain_what, &c.plain_why])))
        {
            for (key, text) in ["plain_what", "plain_why"].into_iter().zip(texts) {
                if let Some(Err(e)) = text.as_deref().map(plain::check) {
                    mistakes.push(format!("{what} '{id}': {key}: {e}"));
                }
            }
        }
        let limit = self.systems.max_outside_parcel_ft;
        if !(limit.is_finite() && limit >= 0.0) {
            return Err(Error::format(
                origin,
                format!("[systems] max_outside_parcel_ft = {limit}: give a distance in feet, 0 or more (such as 100)"),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for clock in &self.clocks {
            if !seen.insert(clock.id.as_str()) {
                mistakes.push(format!("clock '{}': the id is used twice", clock.id));
            }
            if let Err(e) = clock.validate() {
                mistakes.push(format!("clock '{}': {e}", clock.id));
            }
        }
        let mut layers = std::collections::HashSet::new();
        for term in &self.terms {
            if !layers.insert(term.layer) {
                mistakes.push(format!(
                    "term '{}': layer '{}' already stands for a term; give each layer one [[term]] entry",
                    term.term,
                    term.layer.as_str()
                ));
            }
            term.validate(&mut mistakes);
        }
        for rule in &self.rules {
            let mut listed = mistakes.len();
            let mut bad = |what: &str| mistakes.push(format!("rule '{}': {what}", rule.id));
            if !seen.insert(rule.id.as_str()) {
                bad("the id is used twice; give each rule its own id");
            }
            if rule.cycle_years == 0 {
                bad("cycle_years must be at least 1");
            }
            let distances = [rule.parcel_within_mhw_ft, rule.system_within_mhw_ft];
            if distances.into_iter().flatten().any(|d| !(d.is_finite() && d >= 0.0)) {
                bad("distances must be non-negative feet");
            }
            for water in rule.watersheds.iter().flatten() {
                if self.water_bodies.iter().all(|w| w.name != *water) {
                    let names: Vec<String> = self.water_bodies.iter().map(|w| w.name.clone()).collect();
                    let hint = crate::model::diagnose::closest(water, &names)
                        .map_or(String::new(), |m| format!(" (did you mean '{m}'?)"));
                    bad(&format!(
                        "watershed '{water}' is not the name of a [[water_body]]{hint}; add the water body or fix \
                         the spelling"
                    ));
                }
            }
            for town in rule.towns.iter().flatten() {
                if self.municipality(town).is_none() {
                    bad(&format!(
                        "town '{town}' is not among [jurisdiction] municipalities{}; add it there or fix the spelling",
                        meant(town, listed)
                    ));
                    listed += 1;
                }
            }
        }
        match mistakes.len() {
            0 => Ok(()),
            1 => Err(Error::format(origin, mistakes.remove(0))),
            n if n > LISTED_MISTAKES => Err(Error::format(
                origin,
                format!(
                    "{n} mistakes, the first {LISTED_MISTAKES}:\n- {}",
                    mistakes[..LISTED_MISTAKES].join("\n- ")
                ),
            )),
            n => Err(Error::format(origin, format!("{n} mistakes:\n- {}", mistakes.join("\n- ")))),
        }
    }

    /// The largest distance any rule measures from the mean-high-water mark: distances up to it are exact in
    /// the schedule.
    pub fn max_distance_ft(&self) -> f64 {
        self.rules
            .iter()
            .flat_map(|r| [r.parcel_within_mhw_ft, r.system_within_mhw_ft])
            .flatten()
            .fold(0.0, f64::max)
    }

    /// How far from the mean-high-water line distances are measured exactly: twice the largest rule
    /// distance (1,000 ft for Article V). Farther parcels are reported as "more than" this.
    pub fn search_radius_ft(&self) -> f64 {
        2.0 * self.max_distance_ft()
    }
}

#[cfg(test)]
mod tests;
