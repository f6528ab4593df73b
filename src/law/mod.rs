//! What the law makes of each system and parcel, one concept per module. Each takes the facts
//! classification found, the record files, the rule set and the as-of date, and returns verdicts; none reads
//! a file, and none sees a run's configuration. [`judge`] is the step from classification's evidence to the
//! verdicts a parcel's facts carry and its tier.
//!
//! - [`coverage`]: who the law covers (public sewer, the county) and the periodic rule that schedules a
//!   parcel.
//! - [`sewer`]: whether a parcel uses public sewer (§I.B), from its sewer code and district.
//! - [`flood`]: the flood elevation that binds a system and whether it is high enough above it (§X).
//! - [`periodic`]: the grid of due dates, where a parcel stands on it, and its schedule entry.
//! - [`systems`]: a system's life on the record (in service since, grandfathered).
//! - [`permits`]: a system's class after an inspection, the permit that follows and what it owes (§V).
//! - [`pipes`]: drainage pipes, their samples and violations (§III.G).
//! - [`clocks`]: the rule set's event clocks (sale, complaint, order, hearing).
//! - [`obligations`]: every duty of a parcel on the as-of date, gathered from the modules above.
//! - [`schedule`]: a parcel's row, which carries those verdicts to the reports.

pub mod clocks;
pub mod coverage;
pub mod escalation;
pub mod flood;
pub mod obligations;
pub mod periodic;
pub mod permits;
pub mod pipes;
pub mod schedule;
pub mod sewer;
pub mod systems;

use crate::model::facts::{Evidence, Facts};
use crate::rules::RuleSet;

/// The law's verdicts on what classification found: whether the parcel uses public sewer ([`sewer`]) and
/// the §X flood verdict ([`flood`]), recorded in `facts`; then the decision on its coverage and tier
/// ([`coverage`]). `ground` gives the ground at the system point (`None` without a DEM or a system point);
/// the law asks for it only to screen a system in a flood zone without a surveyed bottom.
pub fn judge(
    rules: &RuleSet,
    facts: &mut Facts,
    evidence: Evidence<'_>,
    ground: impl FnOnce() -> Option<f64>,
) -> coverage::Decision {
    let sewer::Sewer { public, disagreement } = sewer::public_sewer(rules, &evidence.sewer);
    (facts.sewered, facts.sewer_disagreement) = (public, disagreement);
    let bottom_ft = facts.system_bottom_ft;
    facts.flood =
        evidence.flood.and_then(|zones| flood::judge(rules, zones, bottom_ft, ground)).map(Box::new);
    coverage::decide_tier(rules, facts)
}
