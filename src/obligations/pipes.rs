//! Drainage pipes on lakefront parcels (Cayuga Art. V §III.G).
//!
//! A single sample above the limit (200 fecal coliform per 100 mL) violates, unless the owner takes three more
//! samples within 20 days whose average is below the limit. Samples are read in date order: a sample at or
//! under the limit shows the pipe passing; one above it opens a retest window of the following 20 days, and
//! the first three samples in that window are its retests. A window that closes with fewer than three retests
//! (or with an average at or above the limit) is a violation, which stands until a later routine sample passes.

use chrono::NaiveDate;

use crate::calendar::{add_days, add_days_rolled};
use crate::rules::DrainagePipeRules;
use crate::schedule::{standing, DueGrid, Standing, Status};

/// Where a bordering parcel's pipes stand against their periodic inspection (Art. V §IV.A.1 ¶1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipesDue {
    /// The status on the pipe grid, from the pipe sampled least recently.
    pub status: Status,
    /// When the inspection owed became owed ([`crate::schedule::Owed::since`]).
    pub since: Option<NaiveDate>,
    /// The due date owed: the missed previous one, or the next.
    pub due: NaiveDate,
    /// Whether the previous due date was missed.
    pub overdue: bool,
}

/// The periodic inspection the pipes of a bordering parcel owe on `as_of`, from each pipe's last sample date
/// (`last`; `None` for a known pipe never sampled); `None` without pipes. Every pipe must be inspected, so
/// the least recently sampled one decides. With `rolls` a due date on a weekend or holiday can be met on the
/// next business day (N.Y. Gen. Constr. Law §25-a), as for the periodic inspection.
pub fn pipes_due(
    rules: &DrainagePipeRules,
    last: &[Option<NaiveDate>],
    as_of: NaiveDate,
    rolls: bool,
) -> Option<PipesDue> {
    // `None` sorts first: a pipe never sampled decides.
    let oldest = *last.iter().min()?;
    let grid = DueGrid { first_due: rules.inspection_first_due, cycle_years: rules.inspection_cycle_years };
    let Standing { status, owed, .. } = standing(&grid, as_of, oldest, None, true, rolls);
    let status = status.unwrap_or(Status::NeverInspected);
    Some(PipesDue { status, since: owed.since, due: owed.due, overdue: owed.overdue })
}

/// Where a drainage pipe stands on the as-of date.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PipeState {
    /// The latest routine sample (or retest average) is within the limit.
    Pass {
        /// The sample (or last retest) that shows it.
        on: NaiveDate,
    },
    /// A sample exceeded the limit and the retest window is still open.
    RetestOpen {
        /// Date of the exceeding sample.
        exceeded: NaiveDate,
        /// Last day for retests.
        until: NaiveDate,
        /// Retests taken so far.
        taken: u32,
    },
    /// The pipe violates §III.G.
    Violation {
        /// Date of the exceeding sample.
        exceeded: NaiveDate,
        /// The day the violation stood: the third retest, or the close of the window.
        established: NaiveDate,
        /// The retests' average, when all were taken.
        average: Option<f64>,
    },
}

/// The state of one pipe from its samples `(date, count per 100 mL)`, sorted by date; `None` without samples.
/// With `roll_forward` a window ending on a Saturday, Sunday or public holiday runs to the next business day
/// (N.Y. Gen. Constr. Law §25-a).
pub fn pipe_state(
    rules: &DrainagePipeRules,
    samples: &[(NaiveDate, f64)],
    as_of: NaiveDate,
    roll_forward: bool,
) -> Option<PipeState> {
    let needed = rules.retest_samples as usize;
    let mut state = None;
    let mut i = 0;
    while let Some(&(date, count)) = samples.get(i) {
        if count <= rules.limit_per_100ml {
            state = Some(PipeState::Pass { on: date });
            i += 1;
            continue;
        }
        let until = if roll_forward {
            add_days_rolled(date, rules.retest_days)
        } else {
            add_days(date, rules.retest_days)
        };
        let retests: Vec<(NaiveDate, f64)> =
            samples[i + 1..].iter().copied().take_while(|&(d, _)| d <= until).take(needed).collect();
        i += 1 + retests.len();
        state = Some(if retests.len() == needed && needed > 0 {
            let average = retests.iter().map(|&(_, c)| c).sum::<f64>() / needed as f64;
            let last = retests[needed - 1].0;
            if average < rules.limit_per_100ml {
                PipeState::Pass { on: last }
            } else {
                PipeState::Violation { exceeded: date, established: last, average: Some(average) }
            }
        } else if as_of <= until {
            PipeState::RetestOpen { exceeded: date, until, taken: retests.len() as u32 }
        } else {
            PipeState::Violation { exceeded: date, established: until, average: None }
        });
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    /// §IV.A.1 ¶1: "On or before November 1, 1994, for systems and all drainage pipes located on a parcel of
    /// property bordering the mean high-water mark ... and every two years thereafter." On 2027-01-15 the due
    /// dates around are 2024-11-01, 2026-11-01 (previous) and 2028-11-01 (next). A pipe last sampled
    /// 2026-07-01 answered 2026-11-01: next due 2028-11-01. With a second pipe last sampled 2024-10-30 (which
    /// answered only 2024-11-01), 2026-11-01 was missed.
    #[test]
    fn pipes_stay_on_the_two_year_grid() {
        let rules = RuleSet::cayuga_art_v().drainage_pipes.unwrap();
        let as_of = d(2027, 1, 15);
        let current = pipes_due(&rules, &[Some(d(2026, 7, 1)), Some(d(2026, 8, 21))], as_of, false).unwrap();
        assert_eq!(
            current,
            PipesDue {
                status: Status::Current,
                since: Some(d(2026, 11, 1)),
                due: d(2028, 11, 1),
                overdue: false
            }
        );
        let missed = pipes_due(&rules, &[Some(d(2026, 6, 15)), Some(d(2024, 10, 30))], as_of, false).unwrap();
        assert_eq!((missed.status, missed.due, missed.overdue), (Status::Overdue, d(2026, 11, 1), true));
        // Sampled the day after 2024-11-01: that sample already counts toward 2026-11-01.
        let early = pipes_due(&rules, &[Some(d(2024, 11, 2))], as_of, false).unwrap();
        assert_eq!((early.due, early.overdue), (d(2028, 11, 1), false));
        // A pipe on the register never sampled: never inspected, the 2026-11-01 due date missed.
        let never = pipes_due(&rules, &[Some(d(2026, 7, 1)), None], as_of, false).unwrap();
        assert_eq!((never.status, never.due, never.overdue), (Status::NeverInspected, d(2026, 11, 1), true));
        assert_eq!(pipes_due(&rules, &[], as_of, false), None);
        // GCL §25-a: 2026-11-01 is a Sunday, so on Monday 2026-11-02 a pipe last sampled 2024-06-01 is still
        // within its time (due 2026-11-01, not overdue); on Tuesday it has missed it.
        let monday = pipes_due(&rules, &[Some(d(2024, 6, 1))], d(2026, 11, 2), true).unwrap();
        assert_eq!((monday.due, monday.overdue), (d(2026, 11, 1), false));
        let tuesday = pipes_due(&rules, &[Some(d(2024, 6, 1))], d(2026, 11, 3), true).unwrap();
        assert_eq!((tuesday.due, tuesday.overdue), (d(2026, 11, 1), true));
    }

    fn state(samples: &[(NaiveDate, f64)], as_of: NaiveDate) -> Option<PipeState> {
        pipe_state(&RuleSet::cayuga_art_v().drainage_pipes.unwrap(), samples, as_of, false)
    }

    #[test]
    fn a_single_sample_decides_against_the_limit() {
        let as_of = d(2026, 9, 1);
        // "greater than 200" violates, so exactly 200 passes.
        assert_eq!(state(&[(d(2026, 7, 1), 200.0)], as_of), Some(PipeState::Pass { on: d(2026, 7, 1) }));
        assert_eq!(state(&[], as_of), None);
        // 201 on July 1 with no retests: the window ran to July 21, and the violation stood then.
        assert_eq!(
            state(&[(d(2026, 7, 1), 201.0)], as_of),
            Some(PipeState::Violation {
                exceeded: d(2026, 7, 1),
                established: d(2026, 7, 21),
                average: None
            })
        );
        // Still inside the 20 days: the window is open until July 21.
        assert_eq!(
            state(&[(d(2026, 7, 1), 201.0), (d(2026, 7, 8), 150.0)], d(2026, 7, 21)),
            Some(PipeState::RetestOpen { exceeded: d(2026, 7, 1), until: d(2026, 7, 21), taken: 1 })
        );
    }

    #[test]
    fn three_retests_within_twenty_days_decide_by_their_average() {
        let as_of = d(2026, 9, 1);
        let exceed = (d(2026, 7, 1), 900.0);
        // Average (150 + 250 + 190) / 3 = 196.7 < 200: passes, on the third retest.
        let pass = [exceed, (d(2026, 7, 5), 150.0), (d(2026, 7, 12), 250.0), (d(2026, 7, 21), 190.0)];
        assert_eq!(state(&pass, as_of), Some(PipeState::Pass { on: d(2026, 7, 21) }));
        // Average exactly 200 is not "less than 200".
        let at_limit = [exceed, (d(2026, 7, 5), 200.0), (d(2026, 7, 12), 100.0), (d(2026, 7, 20), 300.0)];
        assert_eq!(
            state(&at_limit, as_of),
            Some(PipeState::Violation {
                exceeded: d(2026, 7, 1),
                established: d(2026, 7, 20),
                average: Some(200.0)
            })
        );
        // The third retest on day 21 (July 22) is too late: the window closed July 21 with two.
        let late = [exceed, (d(2026, 7, 5), 10.0), (d(2026, 7, 12), 10.0), (d(2026, 7, 22), 10.0)];
        assert_eq!(state(&late, as_of), Some(PipeState::Pass { on: d(2026, 7, 22) }));
        let late_then_nothing = &late[..3];
        // With GCL §25-a a window ending Sunday 2027-01-17 runs past Monday 2027-01-18 (Martin Luther King Jr.
        // Day) to Tuesday 2027-01-19.
        let rules = RuleSet::cayuga_art_v().drainage_pipes.unwrap();
        assert_eq!(
            pipe_state(&rules, &[(d(2026, 12, 28), 650.0)], d(2027, 1, 19), true),
            Some(PipeState::RetestOpen { exceeded: d(2026, 12, 28), until: d(2027, 1, 19), taken: 0 })
        );
        assert_eq!(
            state(late_then_nothing, as_of),
            Some(PipeState::Violation {
                exceeded: d(2026, 7, 1),
                established: d(2026, 7, 21),
                average: None
            })
        );
    }
}
