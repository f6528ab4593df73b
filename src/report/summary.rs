//! The run summary a planner reads on the terminal: parcels per tier and per town, statuses, and every
//! unscheduled parcel grouped by reason.

use std::collections::BTreeMap;
use std::fmt;

use rustc_hash::FxHashMap;

use crate::law::coverage::Exclusion;
use crate::law::schedule::{Row, Tier};
use crate::pipeline::Run;
use crate::rules::RuleSet;

/// Counts over a schedule run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Parcels in the run.
    pub parcels: usize,
    /// Parcels per tier (including "unscheduled").
    pub per_tier: BTreeMap<String, usize>,
    /// Parcels per town and tier.
    pub per_town: BTreeMap<String, BTreeMap<String, usize>>,
    /// Parcels per status, when a history was given.
    pub per_status: BTreeMap<String, usize>,
    /// Unscheduled parcels per reason group.
    pub unscheduled: BTreeMap<String, usize>,
    /// Problems reported.
    pub problems: usize,
}

impl Summary {
    /// Counts `run` (its problems each once: a pass over those spilled).
    pub fn of(run: &Run) -> crate::model::error::Result<Self> {
        let mut s = Summary::default();
        s.count(&run.rules, &run.rows);
        s.problems = run.problems.count()?;
        Ok(s)
    }

    /// Adds `rows` to the counts (all but [`Summary::problems`]), for a run whose rows come in blocks.
    ///
    /// Rows are first counted by town, tier and status in a hash map of borrowed names, and the few
    /// combinations found then added to the sorted maps, which would otherwise be searched four times a row.
    pub fn count(&mut self, rules: &RuleSet, rows: &[Row]) {
        let s = self;
        s.parcels += rows.len();
        let mut combinations: FxHashMap<(&str, &str, Option<&str>), usize> = FxHashMap::default();
        for row in rows {
            let e = &row.entry;
            let facts = row.facts.as_ref();
            let town =
                facts.and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref()).unwrap_or("(no town)");
            *combinations.entry((town, e.tier.as_str(), e.status.map(|s| s.as_str()))).or_default() += 1;
            if e.tier == Tier::Unscheduled {
                let group = match (e.exclusion, facts) {
                    (Some(Exclusion::Sewered), _) => "on public sewer".to_string(),
                    (Some(Exclusion::OutsideCounty), _) => "outside the county".to_string(),
                    (Some(Exclusion::NoSystem), _) => "no system in service".to_string(),
                    (Some(Exclusion::UnknownTown), Some(f)) => {
                        format!("unknown town '{}'", f.unknown_town.as_deref().unwrap_or_default())
                    }
                    (Some(Exclusion::NoRule), Some(_)) if rules.rules.is_empty() => {
                        "no periodic cycle (inspections follow events)".to_string()
                    }
                    (Some(Exclusion::NoRule), Some(f)) => match &f.town {
                        Some(t) => format!("no rule applies in {t}"),
                        None => "no town".to_string(),
                    },
                    _ => row.parcel.defect.clone().unwrap_or_else(|| "not classified".into()),
                };
                *s.unscheduled.entry(group).or_default() += 1;
            }
        }
        for ((town, tier, status), n) in combinations {
            add(&mut s.per_tier, tier, n);
            match s.per_town.get_mut(town) {
                Some(tiers) => add(tiers, tier, n),
                None => {
                    s.per_town.insert(town.to_string(), BTreeMap::from([(tier.to_string(), n)]));
                }
            }
            if let Some(status) = status {
                add(&mut s.per_status, status, n);
            }
        }
    }
}

/// Counts `n` more `key`, allocating its name only the first time it is counted.
fn add(counts: &mut BTreeMap<String, usize>, key: &str, n: usize) {
    match counts.get_mut(key) {
        Some(count) => *count += n,
        None => {
            counts.insert(key.to_string(), n);
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} parcels", self.parcels)?;
        writeln!(f, "by tier:")?;
        for (tier, n) in &self.per_tier {
            writeln!(f, "  {tier:<12} {n:>9}")?;
        }
        if !self.per_status.is_empty() {
            writeln!(f, "by status:")?;
            for (status, n) in &self.per_status {
                writeln!(f, "  {status:<16} {n:>9}")?;
            }
        }
        writeln!(f, "by town:")?;
        for (town, tiers) in &self.per_town {
            let parts: Vec<String> = tiers.iter().map(|(t, n)| format!("{t} {n}")).collect();
            writeln!(f, "  {town:<12} {}", parts.join(", "))?;
        }
        if !self.unscheduled.is_empty() {
            writeln!(f, "unscheduled, by reason:")?;
            for (reason, n) in &self.unscheduled {
                writeln!(f, "  {n:>9}  {reason}")?;
            }
        }
        if self.problems > 0 {
            writeln!(f, "{} problem(s) reported", self.problems)?;
        }
        Ok(())
    }
}
