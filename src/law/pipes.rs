//! Drainage pipes on lakefront parcels (Cayuga Art. V §III.G).
//!
//! A single sample above the limit (200 fecal coliform per 100 mL) violates, unless the owner has "three
//! additional tests taken within twenty (20) days" whose average is below the limit, or proves by laboratory
//! samples that the coliform does not come from the property. Samples are read in date order: a sample at or
//! under the limit shows the pipe passing; one above it opens a retest window of the following 20 days, and
//! the first three samples in that window are its retests (a sample after the window is no retest). Three
//! retests in time averaging below the limit pass the pipe; otherwise it is in violation, and the violation
//! stands: later samples, passing or not, do not end it. It ends when the pipe is removed or its flow
//! treated (dates on the pipes register), or when a sample dated on or after the exceedance carries the
//! laboratory's proof of another source (`other_source`), which clears an open window too. Samples after
//! that are read afresh: a new exceedance opens a new window.

use chrono::NaiveDate;

use crate::law::periodic::{standing, DueGrid, Standing, Status};
use crate::rules::calendar::{add_days, add_days_rolled};
use crate::rules::DrainagePipeRules;

/// Where a bordering parcel's pipes stand against their periodic inspection (Art. V §IV.A.1 ¶1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipesDue {
    /// The status on the pipe grid, from the pipe sampled least recently.
    pub status: Status,
    /// When the inspection owed became owed ([`crate::law::periodic::Owed::since`]).
    pub since: Option<NaiveDate>,
    /// The due date owed: the missed previous one, or the next.
    pub due: NaiveDate,
    /// Whether the previous due date was missed.
    pub overdue: bool,
    /// The due date the next inspection answers ([`crate::law::periodic::Owed::answers`]): `due`, or while
    /// overdue the next due date; the grid's later due dates follow it ([`pipe_grid`]).
    pub answers: NaiveDate,
}

/// The grid of the drainage pipes' periodic inspection (Art. V §IV.A.1 ¶1), whatever tier the system is on.
pub fn pipe_grid(rules: &DrainagePipeRules) -> DueGrid {
    DueGrid { first_due: rules.inspection_first_due, cycle_years: rules.inspection_cycle_years }
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
    let Standing { status, owed, .. } = standing(&pipe_grid(rules), as_of, oldest, None, true, rolls);
    let status = status.unwrap_or(Status::NeverInspected);
    Some(PipesDue { status, since: owed.since, due: owed.due, overdue: owed.overdue, answers: owed.answers })
}

/// One sample of a drainage pipe, as the §III.G state machine reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeSample {
    /// Sampling date.
    pub date: NaiveDate,
    /// Fecal coliform per 100 mL.
    pub count: f64,
    /// The laboratory's finding that the coliform does not come from the owner's property or absorption
    /// field.
    pub other_source: bool,
}

/// How a pipe's discharge was stopped, the two ways §III.G names ("remove the drainage pipe or treat the
/// flow").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RemedyKind {
    /// Its flow is treated.
    Treated,
    /// The pipe was removed.
    Removed,
}

/// A pipe removed or its flow treated, and since when (from the pipes register).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remedy {
    /// Removed or treated.
    pub kind: RemedyKind,
    /// The day it was done.
    pub on: NaiveDate,
}

/// Where a drainage pipe stands on the as-of date.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PipeState {
    /// The latest routine sample is within the limit, or the three retests of the latest exceedance averaged
    /// below it.
    Pass {
        /// The sample (or third retest) that shows it.
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
    /// The pipe violates §III.G: it must be removed or its flow treated, unless laboratory samples prove
    /// that the coliform comes from elsewhere. Later samples do not end it.
    Violation {
        /// Date of the exceeding sample.
        exceeded: NaiveDate,
        /// The day the violation stood: the third retest, or the close of the window.
        established: NaiveDate,
        /// Retests taken within the window.
        taken: u32,
        /// The retests' average, when all were taken.
        average: Option<f64>,
        /// Samples after the violation stood, none of which ends it.
        later: u32,
    },
    /// Laboratory samples proved that the coliform of an exceedance does not come from the property: the
    /// pipe is neither prohibited nor to be treated.
    Cleared {
        /// Date of the exceeding sample.
        exceeded: NaiveDate,
        /// Date of the sample carrying the proof.
        proof: NaiveDate,
    },
    /// The pipe was removed or its flow treated: what its samples up to then showed has ended.
    Ended(Remedy),
}

/// The state of one pipe from its `samples`, sorted by date, and the `remedy` on record, if any; `None`
/// without samples or remedy. A remedy ends what the samples up to its day showed (records carry dates, not
/// hours: a sample dated the day of the remedy is read as taken before it); later samples are read afresh.
/// A remedy after `as_of` is not yet done. With `roll_forward` a window ending on a Saturday, Sunday or
/// public holiday runs to the next business day (N.Y. Gen. Constr. Law §25-a).
pub fn pipe_state(
    rules: &DrainagePipeRules,
    samples: &[PipeSample],
    remedy: Option<Remedy>,
    as_of: NaiveDate,
    roll_forward: bool,
) -> Option<PipeState> {
    let (mut state, after) = match remedy.filter(|r| r.on <= as_of) {
        Some(r) => (Some(PipeState::Ended(r)), samples.partition_point(|s| s.date <= r.on)),
        None => (None, 0),
    };
    let mut rest = samples[after..].iter().peekable();
    while let Some(s) = rest.next() {
        state = Some(match state {
            // A violation stands whatever later samples show, unless one carries the proof.
            Some(PipeState::Violation { exceeded, .. }) if s.other_source => {
                PipeState::Cleared { exceeded, proof: s.date }
            }
            Some(PipeState::Violation { exceeded, established, taken, average, later }) => {
                PipeState::Violation { exceeded, established, taken, average, later: later + 1 }
            }
            _ if s.count <= rules.limit_per_100ml => PipeState::Pass { on: s.date },
            _ if s.other_source => PipeState::Cleared { exceeded: s.date, proof: s.date },
            _ => window(rules, s.date, &mut rest, as_of, roll_forward),
        });
    }
    state
}

/// What the retest window of the sample of `exceeded` comes to: its retests are the first of the samples
/// that follow (taken from `rest`) dated within the window, and a sample with the proof among them clears
/// it. The first sample after the window is left in `rest`.
fn window<'s>(
    rules: &DrainagePipeRules,
    exceeded: NaiveDate,
    rest: &mut std::iter::Peekable<impl Iterator<Item = &'s PipeSample>>,
    as_of: NaiveDate,
    roll_forward: bool,
) -> PipeState {
    let needed = rules.retest_samples;
    let violation = |established, taken, average| PipeState::Violation {
        exceeded,
        established,
        taken,
        average,
        later: 0,
    };
    // A rule set that allows no retests leaves no option: the sample itself violates.
    if needed == 0 {
        return violation(exceeded, 0, None);
    }
    let until = if roll_forward {
        add_days_rolled(exceeded, rules.retest_days)
    } else {
        add_days(exceeded, rules.retest_days)
    };
    let (mut taken, mut sum) = (0, 0.0);
    while let Some(s) = rest.next_if(|s| s.date <= until) {
        if s.other_source {
            return PipeState::Cleared { exceeded, proof: s.date };
        }
        taken += 1;
        sum += s.count;
        if taken == needed {
            let average = sum / f64::from(needed);
            return if average < rules.limit_per_100ml {
                PipeState::Pass { on: s.date }
            } else {
                violation(s.date, taken, Some(average))
            };
        }
    }
    if as_of <= until {
        PipeState::RetestOpen { exceeded, until, taken }
    } else {
        violation(until, taken, None)
    }
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
                overdue: false,
                answers: d(2028, 11, 1)
            }
        );
        let missed = pipes_due(&rules, &[Some(d(2026, 6, 15)), Some(d(2024, 10, 30))], as_of, false).unwrap();
        assert_eq!((missed.status, missed.due, missed.overdue), (Status::Overdue, d(2026, 11, 1), true));
        // The late inspection falls in the window of 2028-11-01 and answers it.
        assert_eq!(missed.answers, d(2028, 11, 1));
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

    /// A sample without a finding of another source.
    fn sample(date: NaiveDate, count: f64) -> PipeSample {
        PipeSample { date, count, other_source: false }
    }

    /// A sample carrying the laboratory's proof that the coliform does not come from the property.
    fn proof(date: NaiveDate, count: f64) -> PipeSample {
        PipeSample { date, count, other_source: true }
    }

    fn rules() -> DrainagePipeRules {
        RuleSet::cayuga_art_v().drainage_pipes.unwrap()
    }

    fn state(samples: &[PipeSample], as_of: NaiveDate) -> Option<PipeState> {
        pipe_state(&rules(), samples, None, as_of, false)
    }

    fn violation(
        exceeded: NaiveDate,
        established: NaiveDate,
        taken: u32,
        average: Option<f64>,
        later: u32,
    ) -> Option<PipeState> {
        Some(PipeState::Violation { exceeded, established, taken, average, later })
    }

    /// §III.G: "a coliform count greater than 200 fecal coliform organisms ... for a single sample". Exactly
    /// 200 is not greater, so it passes. 201 on Wednesday 2026-07-01 opens the window of "twenty (20) days":
    /// 07-01 + 20 = Tuesday 07-21; with no retest the violation stands from then. On 07-21 itself the window
    /// is still open.
    #[test]
    fn a_single_sample_decides_against_the_limit() {
        let as_of = d(2026, 9, 1);
        assert_eq!(
            state(&[sample(d(2026, 7, 1), 200.0)], as_of),
            Some(PipeState::Pass { on: d(2026, 7, 1) })
        );
        assert_eq!(state(&[], as_of), None);
        assert_eq!(
            state(&[sample(d(2026, 7, 1), 201.0)], as_of),
            violation(d(2026, 7, 1), d(2026, 7, 21), 0, None, 0)
        );
        assert_eq!(
            state(&[sample(d(2026, 7, 1), 201.0), sample(d(2026, 7, 8), 150.0)], d(2026, 7, 21)),
            Some(PipeState::RetestOpen { exceeded: d(2026, 7, 1), until: d(2026, 7, 21), taken: 1 })
        );
    }

    /// §III.G: "the owner shall have the option of having three additional tests taken within twenty (20)
    /// days". 900 on Wednesday 2026-07-01; the window ends 07-01 + 20 = Tuesday 07-21. Retests on 07-05 and
    /// 07-12 are in time; a third on day 22 (Thursday 07-23) is not one of the three, so the window closed on
    /// 07-21 with two and the violation stands from then, the late sample only a later one (it was a pass
    /// before). A third on day 20 itself (07-21) is in time: (10 + 10 + 10) / 3 = 10 < 200, a pass.
    #[test]
    fn a_retest_after_twenty_days_does_not_count() {
        let as_of = d(2026, 9, 1);
        let exceed = sample(d(2026, 7, 1), 900.0);
        let (first, second) = (sample(d(2026, 7, 5), 10.0), sample(d(2026, 7, 12), 10.0));
        let late = [exceed, first, second, sample(d(2026, 7, 23), 10.0)];
        assert_eq!(state(&late, as_of), violation(d(2026, 7, 1), d(2026, 7, 21), 2, None, 1));
        assert_eq!(state(&late[..3], as_of), violation(d(2026, 7, 1), d(2026, 7, 21), 2, None, 0));
        let on_day_twenty = [exceed, first, second, sample(d(2026, 7, 21), 10.0)];
        assert_eq!(state(&on_day_twenty, as_of), Some(PipeState::Pass { on: d(2026, 7, 21) }));
    }

    /// §III.G gives the owner "three additional tests taken within twenty (20) days", not one test whenever:
    /// 450 on 2026-07-01, no retest by 07-21, and a single sample of 30 on day 25 (Sunday 07-26). The
    /// violation stood on 07-21 and the passing sample does not end it (it was a pass before).
    #[test]
    fn one_passing_sample_after_the_window_leaves_the_violation() {
        let samples = [sample(d(2026, 7, 1), 450.0), sample(d(2026, 7, 26), 30.0)];
        assert_eq!(state(&samples, d(2026, 9, 1)), violation(d(2026, 7, 1), d(2026, 7, 21), 0, None, 1));
    }

    /// §III.G: "if the average of the three sample results is less than 200 fecal coliform, the drainage pipe
    /// shall not be prohibited or require treatment". 900 on 2026-07-01 (window to 07-21); retests 07-05,
    /// 07-12, 07-20. (100 + 200 + 299.7) / 3 = 599.7 / 3 = 199.9 < 200: a pass on the third retest, though
    /// one retest is above the limit. (100 + 200 + 300) / 3 = 200 is not less than 200: the violation stands
    /// from the third retest, 07-20, the owner's option spent.
    #[test]
    fn three_retests_in_time_pass_only_below_an_average_of_200() {
        let as_of = d(2026, 9, 1);
        let exceed = sample(d(2026, 7, 1), 900.0);
        let retests = |third| {
            [
                exceed,
                sample(d(2026, 7, 5), 100.0),
                sample(d(2026, 7, 12), 200.0),
                sample(d(2026, 7, 20), third),
            ]
        };
        assert_eq!(state(&retests(299.7), as_of), Some(PipeState::Pass { on: d(2026, 7, 20) }));
        assert_eq!(
            state(&retests(300.0), as_of),
            violation(d(2026, 7, 1), d(2026, 7, 20), 3, Some(200.0), 0)
        );
    }

    /// Art. V §III.G: the owner of a pipe over the limit is relieved of having to "remove the drainage pipe or
    /// treat the flow" only by the three retests or by proof of another source: a single later passing sample
    /// does not end the violation. 900 on 2026-07-01; retests 07-05 250, 07-12 230, 07-20 240: (250 + 230 + 240) / 3 = 240, the
    /// violation stands from 07-20. The routine samples of 09-01 (40), 10-01 (650) and 11-02 (20) neither end
    /// it nor open a window of their own: on 2027-01-15 it stands, with three later samples.
    #[test]
    fn a_violation_stands_through_later_routine_samples() {
        let samples = [
            sample(d(2026, 7, 1), 900.0),
            sample(d(2026, 7, 5), 250.0),
            sample(d(2026, 7, 12), 230.0),
            sample(d(2026, 7, 20), 240.0),
            sample(d(2026, 9, 1), 40.0),
            sample(d(2026, 10, 1), 650.0),
            sample(d(2026, 11, 2), 20.0),
        ];
        assert_eq!(
            state(&samples, d(2027, 1, 15)),
            violation(d(2026, 7, 1), d(2026, 7, 20), 3, Some(240.0), 3)
        );
    }

    /// §III.G: "the lake front owner with the drainage pipe shall not be required to remove the drainage pipe
    /// or treat the flow if it can be proven ... by laboratory samples that the coliform is not originating
    /// from the owner's property or absorption field". 900 on 2026-07-01 (window to 07-21):
    /// - proof on 07-08, window still open on 07-15: cleared, no retests owed;
    /// - no retest, violation from 07-21, a routine 50 on 08-03, proof on 09-10: cleared from 09-10;
    /// - the exceeding sample itself carrying the proof: cleared at once;
    /// - proof on 06-01, before the exceedance, is not recorded against it: violation from 07-21.
    #[test]
    fn laboratory_proof_of_another_source_clears_the_pipe() {
        let exceed = sample(d(2026, 7, 1), 900.0);
        let cleared = |proof| Some(PipeState::Cleared { exceeded: d(2026, 7, 1), proof });
        assert_eq!(state(&[exceed, proof(d(2026, 7, 8), 880.0)], d(2026, 7, 15)), cleared(d(2026, 7, 8)));
        let after = [exceed, sample(d(2026, 8, 3), 50.0), proof(d(2026, 9, 10), 700.0)];
        assert_eq!(state(&after, d(2026, 10, 1)), cleared(d(2026, 9, 10)));
        assert_eq!(state(&[proof(d(2026, 7, 1), 900.0)], d(2026, 10, 1)), cleared(d(2026, 7, 1)));
        let before = [proof(d(2026, 6, 1), 40.0), exceed];
        assert_eq!(state(&before, d(2026, 10, 1)), violation(d(2026, 7, 1), d(2026, 7, 21), 0, None, 0));
    }

    /// §III.G: the proof spares the pipe for the exceedance it answers; a later sample "greater than 200" is
    /// a new exceedance with its own "three additional tests taken within twenty (20) days". 900 on
    /// 2026-07-01 cleared by proof on 07-08; 500 on Monday 08-03 opens a window to 08-03 + 20 = 08-23: open on
    /// 08-10, a violation from 08-23 on 09-01.
    #[test]
    fn a_new_exceedance_after_a_cleared_one_opens_a_new_window() {
        let samples =
            [sample(d(2026, 7, 1), 900.0), proof(d(2026, 7, 8), 880.0), sample(d(2026, 8, 3), 500.0)];
        assert_eq!(
            state(&samples, d(2026, 8, 10)),
            Some(PipeState::RetestOpen { exceeded: d(2026, 8, 3), until: d(2026, 8, 23), taken: 0 })
        );
        assert_eq!(state(&samples, d(2026, 9, 1)), violation(d(2026, 8, 3), d(2026, 8, 23), 0, None, 0));
    }

    /// §III.G: without three passing retests or proof the owner must "remove the drainage pipe or treat the
    /// flow". 900 on 2026-07-01, no retest: a violation from 07-21.
    /// - removed on 08-15: ended on 2026-09-01 (and, treated instead, ended too); on 08-10 the removal is
    ///   not yet done and the violation stands;
    /// - treated on 07-10, inside the window: ended;
    /// - a sample dated the day of the treatment (900 on 08-15) is read as taken before it: ended;
    /// - after treatment on 08-15, 700 on Tuesday 09-01 opens a window to 09-21: a violation from 09-21 on
    ///   2026-10-01.
    #[test]
    fn removal_or_treatment_ends_the_violation() {
        let rules = rules();
        let exceed = [sample(d(2026, 7, 1), 900.0)];
        let removed = Remedy { kind: RemedyKind::Removed, on: d(2026, 8, 15) };
        let treated = Remedy { kind: RemedyKind::Treated, on: d(2026, 8, 15) };
        let at =
            |samples: &[PipeSample], remedy, as_of| pipe_state(&rules, samples, Some(remedy), as_of, false);
        assert_eq!(at(&exceed, removed, d(2026, 9, 1)), Some(PipeState::Ended(removed)));
        assert_eq!(at(&exceed, treated, d(2026, 9, 1)), Some(PipeState::Ended(treated)));
        assert_eq!(
            at(&exceed, removed, d(2026, 8, 10)),
            violation(d(2026, 7, 1), d(2026, 7, 21), 0, None, 0)
        );
        let early = Remedy { kind: RemedyKind::Treated, on: d(2026, 7, 10) };
        assert_eq!(at(&exceed, early, d(2026, 7, 15)), Some(PipeState::Ended(early)));
        let same_day = [exceed[0], sample(d(2026, 8, 15), 900.0)];
        assert_eq!(at(&same_day, treated, d(2026, 9, 1)), Some(PipeState::Ended(treated)));
        let afresh = [exceed[0], sample(d(2026, 9, 1), 700.0)];
        assert_eq!(
            at(&afresh, treated, d(2026, 10, 1)),
            violation(d(2026, 9, 1), d(2026, 9, 21), 0, None, 0)
        );
    }

    /// N.Y. Gen. Constr. Law §25-a: a window ending on a weekend or holiday runs to the next business day.
    /// 650 on Monday 2026-12-28: + 20 = Sunday 2027-01-17, Monday 01-18 is Martin Luther King Jr. Day, so the
    /// window is open through Tuesday 2027-01-19.
    #[test]
    fn the_window_rolls_forward_past_a_weekend_and_holiday() {
        assert_eq!(
            pipe_state(&rules(), &[sample(d(2026, 12, 28), 650.0)], None, d(2027, 1, 19), true),
            Some(PipeState::RetestOpen { exceeded: d(2026, 12, 28), until: d(2027, 1, 19), taken: 0 })
        );
    }
}
