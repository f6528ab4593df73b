//! Whether the run reached the county its rule set is for: a rule set with periodic rules that schedules no
//! parcel, or for most of the parcels it could cover finds no town it knows (so no rule), was given another
//! county's towns (or a towns layer named otherwise), and its schedule would list every such parcel as held
//! back. A parcel of a known town that no rule covers is no sign: a law of shore tiers alone covers few. Such a run stops, naming the towns found and the towns the rule set knows, instead of exiting as a
//! run with a few bad records does.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::law::coverage::Exclusion;
use crate::law::schedule::Row;
use crate::model::error::{Error, Result};
use crate::rules::RuleSet;

/// The town names a message lists; it counts the others.
const LISTED: usize = 15;

/// The distinct town names kept: a county has a few dozen, and a layer of garbage is not kept whole.
const KEPT: usize = 1000;

/// The counts of the run's rows, gathered block by block.
#[derive(Debug, Default)]
pub(super) struct Reach {
    /// Rows a periodic rule schedules.
    scheduled: AtomicUsize,
    /// Rows held back or left without a rule because their town is not one the rule set knows.
    unmatched: AtomicUsize,
    /// The towns the parcels were found in, with the number of parcels of each (known or not).
    towns: Mutex<BTreeMap<String, usize>>,
    /// Rows that could not be classified (no usable shape or id), with the first one's defect.
    unclassified: AtomicUsize,
    first_defect: Mutex<Option<String>>,
}

impl Reach {
    /// Counts a block of rows.
    pub(super) fn block(&self, rows: &[Row]) {
        let mut towns = self.towns.lock().unwrap_or_else(PoisonError::into_inner);
        for row in rows {
            let Some(facts) = &row.facts else {
                if let Some(defect) = &row.parcel.defect {
                    self.unclassified.fetch_add(1, Ordering::Relaxed);
                    let mut first = self.first_defect.lock().unwrap_or_else(PoisonError::into_inner);
                    first.get_or_insert_with(|| format!("record {}: {defect}", row.parcel.record));
                }
                continue;
            };
            match row.entry.exclusion {
                None if row.entry.rule.is_some() => _ = self.scheduled.fetch_add(1, Ordering::Relaxed),
                Some(Exclusion::UnknownTown) => _ = self.unmatched.fetch_add(1, Ordering::Relaxed),
                Some(Exclusion::NoRule) if facts.unknown_town.is_some() => {
                    _ = self.unmatched.fetch_add(1, Ordering::Relaxed)
                }
                _ => continue,
            }
            let town = facts.unknown_town.as_deref().or(facts.town.as_deref());
            if let Some(town) = town.map(str::trim).filter(|t| !t.is_empty()) {
                // A town already counted is found without a copy of its name.
                let kept = towns.len() < KEPT;
                match towns.get_mut(town) {
                    Some(n) => *n += 1,
                    None if kept => _ = towns.insert(town.to_string(), 1),
                    None => {}
                }
            }
        }
    }

    /// Stops the run whose rule set has periodic rules when no parcel of `parcels` (the layer's file, of `rows`
    /// records) is scheduled, or when more than half of those it could cover lie in towns it does not know.
    pub(super) fn finish(self, rules: &RuleSet, parcels: &Path, rows: usize) -> Result<()> {
        if rules.rules.is_empty() {
            return Ok(());
        }
        let scheduled = self.scheduled.into_inner();
        let unmatched = self.unmatched.into_inner();
        let covered = scheduled + unmatched;
        if scheduled > 0 && unmatched * 2 <= covered {
            return Ok(());
        }
        // Most parcels not classified at all: the layer is damaged or read wrongly, not another county's.
        let unclassified = self.unclassified.into_inner();
        if scheduled == 0 && unclassified > 0 && unclassified * 2 >= rows {
            let first =
                self.first_defect.into_inner().unwrap_or_else(PoisonError::into_inner).unwrap_or_default();
            return Err(Error::format(
                parcels,
                format!(
                    "no parcel is scheduled: {unclassified} of the {rows} parcels could not be classified (the \
                     first, {first}); the layer is damaged or its id fields are not the ones read: check the \
                     file (re-export it from the GIS) and [fields] parcel_id"
                ),
            ));
        }
        let towns = self.towns.into_inner().unwrap_or_else(PoisonError::into_inner);
        let mut found: Vec<(&String, &usize)> = towns.iter().collect();
        found.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut shown: Vec<String> = found.iter().take(LISTED).map(|(t, n)| format!("{t} ({n})")).collect();
        if found.len() > LISTED {
            shown.push(format!("and {} more", found.len() - LISTED));
        }
        let known = &rules.jurisdiction.municipalities;
        let what = match scheduled {
            0 => "no parcel is scheduled".to_string(),
            _ => format!(
                "{unmatched} of the {covered} parcels the law could cover lie in towns the rule set does not \
                 know, so no rule can schedule them"
            ),
        };
        Err(Error::format(
            parcels,
            format!(
                "{what}, though the rule set ({}) has periodic rules: the parcels lie in the towns {}; the rule \
                 set knows {}; is this the county the rule set is for? Give the county's own rule set (--rules \
                 FILE; `lakeshore init` writes a starter), or fix the towns layer or the parcels' municipality \
                 field ([fields] town_name, parcel_town)",
                rules.jurisdiction.name,
                if shown.is_empty() { "(none found)".to_string() } else { shown.join(", ") },
                if known.is_empty() { "no towns".to_string() } else { known.join(", ") }
            ),
        ))
    }
}
