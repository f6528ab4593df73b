//! What a run reports once for the whole run rather than for a record: a role no field fills where the run
//! then cannot do part of its job (systems in a flood zone with no bottom-elevation field), bottom elevations
//! that are likely in metres, and sewer values the rule set's table does not hold, each with the number of
//! parcels or systems it concerns.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::classify::parcels::SystemFields;
use crate::law::schedule::Row;
use crate::model::error::{Location, Problem};
use crate::model::facts::Facts;
use crate::rules::RuleSet;

/// How far below its flood elevation an absorption field's bottom can lie, feet: the flood's depth over the
/// ground and the field's depth under the ground come to a few tens of feet at the most. A bottom further
/// down that lies within this of the flood elevation once read as metres is a bottom given in metres.
const DEEPEST_FT: f64 = 50.0;

/// Feet in a metre (the international foot; the survey foot differs by 2 parts in a million).
const FEET_PER_METRE: f64 = 1.0 / 0.3048;

/// The system's surveyed bottom and its flood elevation, as given, when the bottom is likely in metres: more
/// than [`DEEPEST_FT`] below the flood elevation, and within that of it once read as metres.
fn metres_like(facts: &Facts) -> Option<(f64, f64)> {
    let bottom = facts.system_bottom_ft?;
    let flood = facts.flood.as_ref()?.flood_elevation_ft?;
    let in_feet = bottom * FEET_PER_METRE;
    (flood - bottom > DEEPEST_FT && (in_feet - flood).abs() <= DEEPEST_FT).then_some((bottom, flood))
}

/// The systems whose bottoms are likely in metres: how many, and the one of the first parcel (its position,
/// id, bottom and flood elevation) as the example.
type InMetres = (usize, Option<(usize, String, f64, f64)>);

/// The counts behind the run's warnings, gathered block by block.
#[derive(Debug, Default)]
pub(super) struct Warnings {
    /// Whether a systems layer was given without a bottom-elevation field.
    no_bottom: bool,
    /// Parcels with a system in a flood zone, counted when `no_bottom`.
    flooded_without_bottom: AtomicUsize,
    /// Sewer values the rule set does not read, with the number of parcels holding each.
    unknown_sewer: Mutex<BTreeMap<String, usize>>,
    /// The systems layer's bottom-elevation field, when it has one.
    bottom: Option<String>,
    /// Systems in a flood zone whose bottom is likely in metres.
    in_metres: Mutex<InMetres>,
}

impl Warnings {
    /// The counts for a run whose systems layer has the fields `systems` (none without a layer).
    pub(super) fn new(systems: Option<&SystemFields>) -> Self {
        Warnings {
            no_bottom: systems.is_some_and(|f| f.bottom.is_none()),
            bottom: systems.and_then(|f| f.bottom.clone()),
            ..Warnings::default()
        }
    }

    /// Counts the sewer value of one parcel when the rule set's table does not hold it.
    pub(super) fn sewer(&self, rules: &RuleSet, code: Option<&str>) {
        let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) else { return };
        if rules.coverage.public_sewer_codes.is_empty() || rules.reads_sewer_value(code) {
            return;
        }
        let mut unknown = self.unknown_sewer.lock().unwrap_or_else(PoisonError::into_inner);
        *unknown.entry(code.to_string()).or_default() += 1;
    }

    /// Counts a block of rows.
    pub(super) fn block(&self, rows: &[Row]) {
        if self.no_bottom {
            let flooded =
                |row: &&Row| !row.systems.is_empty() && row.facts.as_ref().is_some_and(|f| f.flood.is_some());
            self.flooded_without_bottom.fetch_add(rows.iter().filter(flooded).count(), Ordering::Relaxed);
        }
        if self.bottom.is_some() {
            // Each system once: on the row of the parcel that lists it, its facts the row's when it binds.
            let systems = rows.iter().flat_map(|row| {
                let listed = row.systems.iter().filter(|line| line.listed_here);
                listed
                    .filter_map(move |line| match line.binds {
                        true => row.facts.as_ref(),
                        false => line.own.as_deref().map(|(facts, _)| facts),
                    })
                    .map(move |facts| (row, facts))
            });
            for (row, (bottom, flood)) in systems.filter_map(|(row, f)| Some((row, metres_like(f)?))) {
                let mut found = self.in_metres.lock().unwrap_or_else(PoisonError::into_inner);
                found.0 += 1;
                if found.1.as_ref().is_none_or(|(at, ..)| row.at < *at) {
                    found.1 = Some((row.at, row.parcel.id.to_string(), bottom, flood));
                }
            }
        }
    }

    /// The warnings: `parcels` and `systems` are the layers' files, `sewer` the parcels' sewer field.
    pub(super) fn finish(self, parcels: &Path, sewer: Option<&str>, systems: Option<&Path>) -> Vec<Problem> {
        let mut found = Vec::new();
        if let (Some(systems), n @ 1..) = (systems, self.flooded_without_bottom.into_inner()) {
            found.push(Problem::new(
                systems,
                Location::Fields,
                format!(
                    "no bottom-elevation field (looked for {}): {n} systems lie in a flood zone and their \
                     floodplain verdict is unknown without the absorption field's bottom; set [fields] \
                     system_bottom = \"FIELD\" or --field system_bottom=FIELD",
                    crate::classify::parcels::candidates::SYSTEM_BOTTOM[..4].join(", ") + ", ..."
                ),
            ));
        }
        let (n, first) = self.in_metres.into_inner().unwrap_or_else(PoisonError::into_inner);
        if let (Some(systems), Some(field), Some((_, parcel, bottom, flood))) = (systems, self.bottom, first)
        {
            found.push(Problem::new(
                systems,
                Location::Field(field),
                format!(
                    "{n} system{} in a flood zone {} an absorption-field bottom more than {DEEPEST_FT:.0} ft below \
                     the flood elevation, deeper than a field can lie, and within {DEEPEST_FT:.0} ft of it read as \
                     metres (parcel {parcel}: {bottom} against {flood:.2} ft, {:.1} ft as metres): the bottom \
                     elevations are likely in metres, and the floodplain verdicts on them wrong; give them in feet",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "has" } else { "have" },
                    bottom * FEET_PER_METRE
                ),
            ));
        }
        let field = sewer.unwrap_or("sewer");
        for (value, n) in self.unknown_sewer.into_inner().unwrap_or_else(PoisonError::into_inner) {
            found.push(Problem::new(
                parcels,
                Location::Field(field.to_string()),
                format!(
                    "sewer value '{value}' ({n} parcel{}) is neither a public-sewer nor a private value of the \
                     rule set, so the sewer-district layer decides for {}; add it to [coverage] \
                     public_sewer_codes or private_sewer_codes of the rule set, or correct the field",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "it" } else { "them" }
                ),
            ));
        }
        found
    }
}
