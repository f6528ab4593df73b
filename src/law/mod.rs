//! What the law makes of each system and parcel, one concept per module. Each takes the facts
//! classification found, the record files, the rule set and the as-of date, and returns verdicts; none reads
//! a file, and none sees a run's configuration.
//!
//! - [`coverage`]: who the law covers (public sewer, the county) and the periodic rule that schedules a parcel.
//! - [`periodic`]: the grid of due dates, where a parcel stands on it, and its schedule entry.
//! - [`systems`]: a system's life on the record (in service since, grandfathered).
//! - [`permits`]: a system's class after an inspection, the permit that follows and what it owes (§V).
//! - [`pipes`]: drainage pipes, their samples and violations (§III.G).
//! - [`clocks`]: the rule set's event clocks (sale, complaint, order, hearing).
//! - [`obligations`]: every duty of a parcel on the as-of date, gathered from the modules above.
//! - [`schedule`]: a parcel's row, which carries those verdicts to the reports.

pub mod clocks;
pub mod coverage;
pub mod obligations;
pub mod periodic;
pub mod permits;
pub mod pipes;
pub mod schedule;
pub mod systems;
