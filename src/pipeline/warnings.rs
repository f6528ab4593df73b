//! What a run reports once for the whole run rather than for a record: a role no field fills where the run
//! then cannot do part of its job (systems in a flood zone with no bottom-elevation field), and sewer values
//! the rule set's table does not hold, each with the number of parcels it concerns.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::classify::parcels::SystemFields;
use crate::law::schedule::Row;
use crate::model::error::{Location, Problem};
use crate::rules::RuleSet;

/// The counts behind the run's warnings, gathered block by block.
#[derive(Debug, Default)]
pub(super) struct Warnings {
    /// Whether a systems layer was given without a bottom-elevation field.
    no_bottom: bool,
    /// Parcels with a system in a flood zone, counted when `no_bottom`.
    flooded_without_bottom: AtomicUsize,
    /// Sewer values the rule set does not read, with the number of parcels holding each.
    unknown_sewer: Mutex<BTreeMap<String, usize>>,
}

impl Warnings {
    /// The counts for a run whose systems layer has the fields `systems` (none without a layer).
    pub(super) fn new(systems: Option<&SystemFields>) -> Self {
        Warnings { no_bottom: systems.is_some_and(|f| f.bottom.is_none()), ..Warnings::default() }
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
