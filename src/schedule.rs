//! Due dates and compliance status.
//!
//! Article V's inspections fall on a **fixed grid**: "on or before November 1, 1994 and every two years
//! thereafter" means due dates 1994-11-01, 1996-11-01, ... whatever the date of the last inspection. A date
//! `first_due + k·cycle` that does not exist (February 29 in a common year) falls on the last day of the month.
//!
//! A parcel's result is its [`Row`]: the parcel as read, its facts, and its [`Entry`] (tier, due dates,
//! status, class and permit). The pipeline makes one row per parcel; the obligations and the reports read them.

use chrono::{Datelike, Months, NaiveDate};

use crate::calendar::roll_forward;
use crate::facts::Facts;
use crate::io::inspections::LastInspection;
use crate::parcels::ParcelRecord;
use crate::permit::Permit;
use crate::rules::{explain_into, Exclusion, RuleSet};

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

/// The status on `as_of` of a parcel on `grid` whose latest inspection on or before `as_of` is `last`.
///
/// Each due date D covers the window since the due date before it: an inspection after that earlier date
/// satisfies D (early inspections count), and one after D still catches up late. With `rolls` each due date
/// ends on its last day under §25-a ([`DueGrid::around_rolled`]): an inspection on the Monday after a Sunday due
/// date meets that due date, and the next window starts after it.
pub fn status(grid: &DueGrid, as_of: NaiveDate, last: Option<NaiveDate>, rolls: bool) -> Status {
    let Some(last) = last else { return Status::NeverInspected };
    let around = grid.around_rolled(as_of, rolls);
    let end = |d: NaiveDate| last_day(d, rolls);
    if around.previous.is_some() && around.before_previous.is_some_and(|start| last <= end(start)) {
        return Status::Overdue;
    }
    if around.previous.is_some_and(|prev| last > end(prev)) {
        return Status::Current;
    }
    if around.next.year() == as_of.year() {
        Status::DueThisYear
    } else {
        Status::Current
    }
}

/// The tier written for parcels no periodic rule covers.
pub const UNSCHEDULED: &str = "unscheduled";

/// One parcel's line in the schedule.
#[derive(Debug, Clone)]
pub struct Row<'r> {
    /// The parcel's position: its place among all parcel records sorted by id, then record number, which is
    /// the index of its row and of its entries in the per-parcel tables (systems, inspections).
    pub at: usize,
    /// The parcel as read (id, record, attributes, projected shape).
    pub parcel: ParcelRecord,
    /// The spatial facts, when the parcel could be classified.
    pub facts: Option<Facts>,
    /// The schedule entry.
    pub entry: Entry<'r>,
}

impl Row<'_> {
    /// Why the parcel has its schedule under `rules`, in a sentence appended to `out`: the rule set's
    /// explanation of its facts, or why it could not be classified.
    pub fn push_reason(&self, rules: &RuleSet, out: &mut String) {
        match &self.facts {
            Some(facts) => explain_into(rules, facts, out),
            None => {
                out.push_str("not classified: ");
                out.push_str(self.parcel.defect.as_deref().unwrap_or("unusable record"));
            }
        }
    }
}

/// The schedule columns of a row; names and citations are borrowed from the rule set.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<'r> {
    /// Tier ("lakefront", "near-shore", "watershed", "county") or [`UNSCHEDULED`].
    pub tier: &'r str,
    /// The rule that matched.
    pub rule: Option<&'r str>,
    /// Why unscheduled, when it is.
    pub exclusion: Option<Exclusion>,
    /// Years between inspections.
    pub cycle_years: Option<u32>,
    /// First due date of the grid.
    pub first_due: Option<NaiveDate>,
    /// The due date before `next_due`.
    pub previous_due: Option<NaiveDate>,
    /// The first due date that can still be met on the as-of date: on or after it, or (§25-a, when the rule
    /// set's calendar rolls) one on a weekend or holiday whose next business day is the as-of date.
    pub next_due: Option<NaiveDate>,
    /// Compliance status, when a history was given.
    pub status: Option<Status>,
    /// Latest inspection on record.
    pub last_inspection: Option<LastInspection>,
    /// The law's citation.
    pub citation: &'r str,
    /// Class and permit after the latest inspection with findings, when the rule set has permits.
    pub permit: Option<Box<Permit>>,
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
}
