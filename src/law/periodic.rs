//! The periodic inspection: the grid of due dates a tier's rule sets, where a parcel stands on it, the
//! schedule entry that follows, and the inspection the parcel owes.
//!
//! Article V's inspections fall on a **fixed grid**: "on or before November 1, 1994 and every two years
//! thereafter" means due dates 1994-11-01, 1996-11-01, ... whatever the date of the last inspection. A date
//! `first_due + k·cycle` that does not exist (February 29 in a common year) falls on the last day of the month.

use chrono::{Datelike, Months, NaiveDate};

use crate::law::obligations::{Obligation, ObligationKind};
use crate::law::schedule::Row;
use crate::rules::calendar::roll_forward;

/// A fixed grid of due dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DueGrid {
    /// The first due date.
    pub first_due: NaiveDate,
    /// Years between due dates (at least 1).
    pub cycle_years: u32,
}

/// The due dates either side of a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Around {
    /// The last due date before the day, if any.
    pub previous: Option<NaiveDate>,
    /// The first due date on or after the day (an inspection due today is not yet late).
    pub next: NaiveDate,
    /// The due date before `previous`, if any: the start of the window `previous` covered.
    pub before_previous: Option<NaiveDate>,
}

impl DueGrid {
    /// The `k`-th due date (k = 0 is `first_due`), or `None` past chrono's calendar.
    pub fn due(&self, k: u32) -> Option<NaiveDate> {
        let months = k.checked_mul(self.cycle_years)?.checked_mul(12)?;
        self.first_due.checked_add_months(Months::new(months))
    }

    /// The due dates around `day`.
    pub fn around(&self, day: NaiveDate) -> Around {
        let cycle = self.cycle_years.max(1) as i32;
        // An estimate of k from the years alone, corrected by at most a step either way.
        let mut k = ((day.year() - self.first_due.year()).max(0) / cycle) as u32;
        while k > 0 && self.due(k).is_some_and(|d| d >= day) {
            k -= 1;
        }
        while self.due(k).is_some_and(|d| d < day) {
            k += 1;
        }
        let next = self.due(k).unwrap_or(NaiveDate::MAX);
        let previous = k.checked_sub(1).and_then(|j| self.due(j));
        let before_previous = k.checked_sub(2).and_then(|j| self.due(j));
        Around { previous, next, before_previous }
    }

    /// The due date after `due`, a date of the grid (`NaiveDate::MAX` past chrono's calendar).
    pub fn after(&self, due: NaiveDate) -> NaiveDate {
        due.succ_opt().map_or(NaiveDate::MAX, |day| self.around(day).next)
    }

    /// The due dates around `day` when each due date can still be met on the last day for it: with `rolls`,
    /// a due date on a Saturday, Sunday or public holiday runs to the next business day (N.Y. Gen. Constr.
    /// Law §25-a), so on that business day it is still `next`, not yet `previous`.
    pub fn around_rolled(&self, day: NaiveDate, rolls: bool) -> Around {
        let around = self.around(day);
        match around.previous {
            Some(previous) if rolls && roll_forward(previous) >= day => self.around(previous),
            _ => around,
        }
    }
}

/// The last day a due date can be met on: the next business day when `rolls` and it falls on a weekend or
/// public holiday (§25-a), else the date itself.
pub fn last_day(due: NaiveDate, rolls: bool) -> NaiveDate {
    if rolls {
        roll_forward(due)
    } else {
        due
    }
}

/// Where a parcel stands against its schedule, given its inspection history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// The last due date was met (or not yet reached) and the next is not this year.
    Current,
    /// The last due date was met; the next one falls in the as-of year and has no inspection yet.
    DueThisYear,
    /// The last due date passed with no inspection in its window or since.
    Overdue,
    /// No inspection on record.
    NeverInspected,
}

impl Status {
    /// "current", "due-this-year", "overdue" or "never-inspected".
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Current => "current",
            Status::DueThisYear => "due-this-year",
            Status::Overdue => "overdue",
            Status::NeverInspected => "never-inspected",
        }
    }
}

/// The periodic inspection a parcel owes: the one due date it must be inspected by next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owed {
    /// The due date owed: the previous due date while it stands missed, else the first due date that no
    /// inspection on record has answered.
    pub due: NaiveDate,
    /// When the duty started: the missed due date itself, or the due date before `due` (its window opened
    /// then).
    pub since: Option<NaiveDate>,
    /// Whether `due` has passed unanswered (a due date on its last day is not yet late).
    pub overdue: bool,
    /// The due date the next inspection answers: `due`, or while overdue the next due date, in whose window a
    /// late inspection falls.
    pub answers: NaiveDate,
}

/// Where a parcel stands on its grid on the as-of date: the status, the grid's dates around it and the
/// inspection it owes. Every command (schedule, obligations, notices, workload, map) reads this one value, so
/// they tell one story.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// The grid's due dates around the as-of date.
    pub around: Around,
    /// The status; `None` when no inspection history was given.
    pub status: Option<Status>,
    /// The inspection owed next.
    pub owed: Owed,
}

/// Where a parcel on `grid` stands on `as_of`: the one reading of which inspection answers which due date.
///
/// **An inspection answers the due date of the window it falls in.** "On or before November 1, 2006 and every
/// seven years thereafter" (§IV.A.2) is met for a due date D by an inspection on or before D (its last day
/// under §25-a when `rolls`) and after the due date before D: early inspections count. One made after D is
/// not on or before D, so D stays missed; it falls in the next due date's window and answers that one. One
/// inspection answers one due date, so after it the parcel owes the due date after the one it answered.
///
/// `last` is the latest inspection on or before `as_of`; `in_service` the day the parcel's present system
/// was installed or replaced, if the records say. The system's construction is inspected under its permit
/// (Art. V §VII.A, §III.B; Ch. 56 §301.1, §402.4), so the installation stands on the timeline as an
/// inspection: inspections before it were of the system it replaced and do not count, and no due date before
/// it was missed by this system. `has_history` says whether an inspections file was given at all: without one
/// there is no status, and the next due date is owed.
pub fn standing(
    grid: &DueGrid,
    as_of: NaiveDate,
    last: Option<NaiveDate>,
    in_service: Option<NaiveDate>,
    has_history: bool,
    rolls: bool,
) -> Standing {
    let around = grid.around_rolled(as_of, rolls);
    let last = match (last, in_service) {
        (Some(last), Some(built)) => Some(last.max(built)),
        (last, built) => last.or(built),
    };
    let end = |d: NaiveDate| last_day(d, rolls);
    // Whether the latest inspection falls after the previous due date: in the next one's window, or (before
    // the first due date) in the first one's.
    let answered_next = last.is_some_and(|last| around.previous.is_none_or(|p| last > end(p)));
    let status = has_history.then(|| match last {
        None => Status::NeverInspected,
        // The previous due date had no inspection in its window, nor any since.
        Some(last) if around.previous.is_some() && around.before_previous.is_some_and(|s| last <= end(s)) => {
            Status::Overdue
        }
        Some(_) if answered_next => Status::Current,
        Some(_) if around.next.year() == as_of.year() => Status::DueThisYear,
        Some(_) => Status::Current,
    });
    let owed = match (status, around.previous) {
        (Some(Status::Overdue | Status::NeverInspected), Some(previous)) => {
            Owed { due: previous, since: Some(previous), overdue: true, answers: around.next }
        }
        _ if answered_next => {
            let after = grid.after(around.next);
            Owed { due: after, since: Some(around.next), overdue: false, answers: after }
        }
        _ => Owed { due: around.next, since: around.previous, overdue: false, answers: around.next },
    };
    Standing { around, status, owed }
}

/// The status on `as_of` of a parcel on `grid` whose latest inspection on or before `as_of` is `last`: the
/// status of [`standing`], for a parcel with an inspection history and no recorded installation.
pub fn status(grid: &DueGrid, as_of: NaiveDate, last: Option<NaiveDate>, rolls: bool) -> Status {
    standing(grid, as_of, last, None, true, rolls).status.unwrap_or(Status::NeverInspected)
}

/// The periodic inspection the row's parcel owes, as its entry's [`Owed`] says: the schedule's own reading,
/// never a second one.
pub fn periodic_obligation(at: usize, row: &Row, out: &mut Vec<Obligation>) {
    let e = &row.entry;
    let (Some(_), Some(cycle), Some(owed)) = (e.rule, e.cycle_years, e.owed) else { return };
    out.push(Obligation::on_schedule(
        (at, ObligationKind::PERIODIC_INSPECTION),
        format!("periodic inspection and report ({} tier, every {cycle} years)", e.tier),
        (owed.since, owed.due, owed.overdue),
        e.status.map(|s| format!("status {}", s.as_str())),
        e.citation,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn grid(first: &str, cycle: u32) -> DueGrid {
        DueGrid { first_due: d(first), cycle_years: cycle }
    }

    #[test]
    fn due_dates_sit_on_the_fixed_grid_around_november_1() {
        let lakefront = grid("1994-11-01", 2);
        // 1994 + 2k: 2026-11-01 is the 16th due date.
        let a = lakefront.around(d("2027-01-15"));
        assert_eq!((a.previous, a.next), (Some(d("2026-11-01")), d("2028-11-01")));
        // On the due date itself the inspection is due today, not late.
        let a = lakefront.around(d("2026-11-01"));
        assert_eq!((a.previous, a.next), (Some(d("2024-11-01")), d("2026-11-01")));
        let a = lakefront.around(d("2026-11-02"));
        assert_eq!((a.previous, a.next), (Some(d("2026-11-01")), d("2028-11-01")));
        let a = lakefront.around(d("2026-10-31"));
        assert_eq!(a.next, d("2026-11-01"));
        // Before the first due date there is no previous one.
        let a = lakefront.around(d("1990-06-01"));
        assert_eq!((a.previous, a.next), (None, d("1994-11-01")));
        // §IV.A.2's table restates the tiers: 1995 + 3k reaches 2004, 1996 + 5k reaches 2006.
        assert_eq!(grid("1995-11-01", 3).due(3), Some(d("2004-11-01")));
        assert_eq!(grid("1996-11-01", 5).due(2), Some(d("2006-11-01")));
        assert_eq!(grid("2006-11-01", 7).around(d("2027-01-15")).next, d("2027-11-01"));
    }

    #[test]
    fn leap_days() {
        // A grid anchored on February 29 falls on February 28 in common years, back to the 29th in leap years.
        let g = grid("2000-02-29", 1);
        assert_eq!(g.due(1), Some(d("2001-02-28")));
        assert_eq!(g.due(4), Some(d("2004-02-29")));
        assert_eq!(g.around(d("2028-02-29")).next, d("2028-02-29"));
        assert_eq!(g.around(d("2027-03-01")).next, d("2028-02-29"));
        // A November grid is not moved by leap days in between.
        assert_eq!(grid("1996-11-01", 5).around(d("2024-02-29")).next, d("2026-11-01"));
    }

    #[test]
    fn status_follows_the_windows() {
        let g = grid("1994-11-01", 2); // previous 2026-11-01, before that 2024-11-01, next 2028-11-01
        let as_of = d("2027-01-15");
        let status = |g: &DueGrid, as_of, last| status(g, as_of, last, false);
        assert_eq!(status(&g, as_of, None), Status::NeverInspected);
        assert_eq!(status(&g, as_of, Some(d("2025-06-01"))), Status::Current);
        assert_eq!(status(&g, as_of, Some(d("2024-11-02"))), Status::Current);
        assert_eq!(status(&g, as_of, Some(d("2024-11-01"))), Status::Overdue);
        assert_eq!(status(&g, as_of, Some(d("2026-12-01"))), Status::Current);
        // A 7-year cohort due 2027-11-01, last met in 2021: due this year.
        let ira = grid("2006-11-01", 7);
        assert_eq!(status(&ira, as_of, Some(d("2019-05-01"))), Status::DueThisYear);
        assert_eq!(status(&ira, as_of, Some(d("2013-11-01"))), Status::Overdue);
        assert_eq!(status(&ira, as_of, Some(d("2027-01-02"))), Status::Current);
        // Before the first due date any inspection is current.
        assert_eq!(status(&g, d("1993-01-01"), Some(d("1990-01-01"))), Status::Current);
    }

    /// GCL §25-a: "Where a period of time ... ends on a Saturday, Sunday or a public holiday, such act may be
    /// done on the next succeeding business day". Art. V §IV.A.1 ¶1: "on or before November 1, 1994 and every
    /// two years thereafter". Hand-worked: 2026-11-01 and 2020-11-01 are Sundays, so those due dates can be
    /// met on Monday 2026-11-02 and 2020-11-02; 2027-11-01 is a Monday and does not move.
    #[test]
    fn a_due_date_on_a_sunday_can_be_met_on_monday() {
        let lakefront = grid("1994-11-01", 2);
        // On Monday 2026-11-02 the Sunday due date is still open: due this year, not overdue.
        assert_eq!(status(&lakefront, d("2026-11-02"), Some(d("2024-06-01")), true), Status::DueThisYear);
        assert_eq!(status(&lakefront, d("2026-11-02"), Some(d("2024-06-01")), false), Status::Overdue);
        let open = lakefront.around_rolled(d("2026-11-02"), true);
        assert_eq!((open.previous, open.next), (Some(d("2024-11-01")), d("2026-11-01")));
        // On Tuesday it has passed.
        assert_eq!(status(&lakefront, d("2026-11-03"), Some(d("2024-06-01")), true), Status::Overdue);
        assert_eq!(lakefront.around_rolled(d("2026-11-03"), true).next, d("2028-11-01"));
        // An inspection on the Monday met the 2026 due date; in 2028 the next one is due this year (without
        // the roll it would have counted for 2028 and the parcel would read current).
        assert_eq!(status(&lakefront, d("2028-03-01"), Some(d("2026-11-02")), true), Status::DueThisYear);
        assert_eq!(status(&lakefront, d("2028-03-01"), Some(d("2026-11-02")), false), Status::Current);
        // The Ira cohort (2006 + 7k): 2020-11-01 was a Sunday; inspected Monday 2020-11-02, due 2027-11-01.
        let ira = grid("2006-11-01", 7);
        assert_eq!(status(&ira, d("2027-01-15"), Some(d("2020-11-02")), true), Status::DueThisYear);
        assert_eq!(status(&ira, d("2027-01-15"), Some(d("2020-11-03")), true), Status::Current);
        // 2027-11-01 is a Monday: on 2027-11-02 it has passed.
        assert_eq!(status(&ira, d("2027-11-02"), Some(d("2020-11-02")), true), Status::Overdue);
    }

    /// Art. V §IV.A.2: "on or before November 1, 2006 and every 7 years thereafter" (Ira). Hand-worked on the
    /// grid 2013-11-01, 2020-11-01 (a Sunday: its last day is Monday 2020-11-02), 2027-11-01, 2034-11-01.
    /// An inspection on 2021-03-01 is not on or before 2020-11-01, which stays missed; it is on or before
    /// 2027-11-01 and after 2020-11-01, so it answers 2027-11-01, and 2034-11-01 is owed. The schedule says
    /// `current` for it, so the obligation must not say 2027-11-01 (the contradiction this reading ends).
    #[test]
    fn a_late_inspection_answers_the_due_date_of_its_window_and_no_other() {
        let ira = grid("2006-11-01", 7);
        for as_of in [d("2026-11-29"), d("2027-03-01")] {
            let s = standing(&ira, as_of, Some(d("2021-03-01")), None, true, true);
            assert_eq!(s.status, Some(Status::Current));
            assert_eq!((s.around.previous, s.around.next), (Some(d("2020-11-01")), d("2027-11-01")));
            let owed = Owed {
                due: d("2034-11-01"),
                since: Some(d("2027-11-01")),
                overdue: false,
                answers: d("2034-11-01"),
            };
            assert_eq!(s.owed, owed, "as of {as_of}");
        }
        // Inspected on time for 2020-11-01: on 2027-03-01 the 2027-11-01 due date is owed this year.
        let s = standing(&ira, d("2027-03-01"), Some(d("2020-10-01")), None, true, true);
        assert_eq!(
            (s.status, s.owed.due, s.owed.overdue),
            (Some(Status::DueThisYear), d("2027-11-01"), false)
        );
        assert_eq!(s.owed.since, Some(d("2020-11-01")));
        // On the Monday after the Sunday due date (§25-a) the inspection still answers 2020-11-01.
        let s = standing(&ira, d("2027-03-01"), Some(d("2020-11-02")), None, true, true);
        assert_eq!(s.owed.due, d("2027-11-01"));
        // Last inspected 2013-10-01: 2020-11-01 passed with nothing in its window. It is owed and overdue;
        // the inspection that cures it falls after it, in 2027-11-01's window, and answers that one.
        let s = standing(&ira, d("2027-03-01"), Some(d("2013-10-01")), None, true, true);
        let owed = Owed {
            due: d("2020-11-01"),
            since: Some(d("2020-11-01")),
            overdue: true,
            answers: d("2027-11-01"),
        };
        assert_eq!((s.status, s.owed), (Some(Status::Overdue), owed));
        // Never inspected: the same missed due date; no history given at all: no status, the next one owed.
        let s = standing(&ira, d("2027-03-01"), None, None, true, true);
        assert_eq!(
            (s.status, s.owed.due, s.owed.overdue),
            (Some(Status::NeverInspected), d("2020-11-01"), true)
        );
        let s = standing(&ira, d("2027-03-01"), None, None, false, true);
        assert_eq!((s.status, s.owed.due, s.owed.overdue), (None, d("2027-11-01"), false));
    }

    /// Before the first due date ("on or before November 1, 1994"), any inspection is in its window: it
    /// answers 1994-11-01 and the next one, 1996-11-01, is owed.
    #[test]
    fn before_the_first_due_date_an_inspection_answers_it() {
        let lakefront = grid("1994-11-01", 2);
        let s = standing(&lakefront, d("1994-03-01"), Some(d("1993-06-01")), None, true, false);
        assert_eq!(
            (s.status, s.owed.due, s.owed.since),
            (Some(Status::Current), d("1996-11-01"), Some(d("1994-11-01")))
        );
        let s = standing(&lakefront, d("1994-03-01"), None, None, true, false);
        assert_eq!(
            (s.status, s.owed.due, s.owed.overdue),
            (Some(Status::NeverInspected), d("1994-11-01"), false)
        );
    }

    /// Art. V §VII.A.1: "Construction of a new system ... require[s] a review of plans and acceptance ...
    /// prior to construction"; the construction is inspected under its permit, so a system put in service
    /// stands on the timeline as inspected that day. Lakefront grid 2024-11-01, 2026-11-01, 2028-11-01,
    /// 2030-11-01. A system installed 2026-12-01 owes nothing before it existed: it answers 2028-11-01, whose
    /// window it was built in, and owes 2030-11-01. One built 2026-10-25 answers 2026-11-01 and owes
    /// 2028-11-01. An inspection of the old system before the replacement does not count for the new one.
    #[test]
    fn a_new_system_owes_no_due_date_before_it_existed() {
        let lakefront = grid("1994-11-01", 2);
        let as_of = d("2027-01-15");
        let s = standing(&lakefront, as_of, None, Some(d("2026-12-01")), true, true);
        assert_eq!((s.status, s.owed.due, s.owed.overdue), (Some(Status::Current), d("2030-11-01"), false));
        let s = standing(&lakefront, as_of, Some(d("2020-05-01")), Some(d("2026-10-25")), true, true);
        assert_eq!((s.status, s.owed.due, s.owed.overdue), (Some(Status::Current), d("2028-11-01"), false));
        // Without the installation the 2020 inspection leaves 2022, 2024 and 2026-11-01 missed; the latest of
        // them is the one owed (the older ones are past breaches no inspection can now answer).
        let s = standing(&lakefront, as_of, Some(d("2020-05-01")), None, true, true);
        assert_eq!((s.owed.due, s.owed.overdue), (d("2026-11-01"), true));
        // An inspection after the installation counts as usual.
        let s = standing(&lakefront, as_of, Some(d("2027-01-10")), Some(d("2026-06-01")), true, true);
        assert_eq!(s.owed.due, d("2030-11-01"));
    }
}
