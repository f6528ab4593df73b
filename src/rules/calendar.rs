//! The New York State legal calendar: public holidays, business days and statutory periods.
//!
//! Deadlines such as "within 7 business days" or "within 30 days" are counted by the New York General
//! Construction Law (GCL):
//!
//! - **§24** lists the *public holidays*. Each is a rule, not a date, and this module evaluates the rules
//!   for any year; it holds no list of dates. The holidays are New Year's Day (January 1), Dr. Martin Luther
//!   King Jr. Day (third Monday of January), Lincoln's Birthday (February 12), Washington's Birthday (third
//!   Monday of February), Memorial Day (last Monday of May), Flag Day (second Sunday of June), Juneteenth
//!   (June 19, added in 2020 and so only from 2020 on), Independence Day (July 4), Labor Day (first Monday of
//!   September), Columbus Day (second Monday of October), General Election Day (the Tuesday after the first
//!   Monday of November; New York holds a general election every year), Veterans Day (November 11),
//!   Thanksgiving Day (fourth Thursday of November) and Christmas Day (December 25). When one of them other
//!   than Flag Day falls on a Sunday, the next day (Monday) is a public holiday too. A holiday on a Saturday
//!   is **not** moved to the Friday. Flag Day is always a Sunday, so it never changes whether a day is a
//!   business day; it is listed for completeness.
//! - **§19**: a *business day* is any day except a Saturday, a Sunday or a public holiday.
//! - **§25-a**: when a period ends on a Saturday, Sunday or public holiday, the act may be done on the next
//!   business day ([`roll_forward`], [`add_days_rolled`]).
//!
//! Periods are counted from the day *after* the day they start from: that day itself never counts
//! ([`add_days`], [`add_business_days`]).
//!
//! Limits: §24 also makes a public holiday of any day the President or the Governor proclaims a day of
//! thanksgiving, fasting, prayer or other religious observance. Such days are ad hoc and are not included.
//! The rules are today's, applied to every year (only Juneteenth is limited to 2020 on); for dates before a
//! holiday was enacted the result is what the current law would say, not what the law said then.
//!
//! Every function accepts any [`NaiveDate`] without panicking; arithmetic that would go past
//! [`NaiveDate::MAX`] saturates there. Only [`holidays`] allocates.

use chrono::{Datelike, Days, Months, NaiveDate, Weekday};

/// One public holiday: its date (the observed Monday for a Sunday holiday is its own entry) and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holiday {
    /// The day that is a public holiday.
    pub date: NaiveDate,
    /// The holiday's name, e.g. `"Christmas Day"`, or `"Christmas Day (observed)"` for the Monday after a
    /// Christmas that falls on a Sunday.
    pub name: &'static str,
}

/// How a holiday's date is found within its month.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// A fixed day of the month. When it falls on a Sunday the next day is a holiday too, under the name
    /// `observed`.
    Fixed { day: u32, observed: &'static str },
    /// The `n`-th (from 1) `weekday` of the month.
    Nth { weekday: Weekday, n: u8 },
    /// The last `weekday` of the month.
    Last { weekday: Weekday },
    /// The Tuesday after the first Monday of the month.
    TuesdayAfterFirstMonday,
}

/// One GCL §24 holiday.
#[derive(Debug, Clone, Copy)]
struct Def {
    name: &'static str,
    /// The first year the holiday exists.
    since: i32,
    rule: Rule,
}

/// A holiday on a fixed day of the month, observed on the Monday when it falls on a Sunday.
macro_rules! fixed {
    ($name:literal, $day:literal) => {
        fixed!($name, $day, i32::MIN)
    };
    ($name:literal, $day:literal, $since:expr) => {
        Def {
            name: $name,
            since: $since,
            rule: Rule::Fixed { day: $day, observed: concat!($name, " (observed)") },
        }
    };
}

/// A holiday on a weekday rule (never a Sunday holiday that moves).
const fn by_rule(name: &'static str, rule: Rule) -> Def {
    Def { name, since: i32::MIN, rule }
}

/// The GCL §24 holidays by month (index 0 is January), each month's in date order.
const MONTHS: [&[Def]; 12] = [
    &[
        fixed!("New Year's Day", 1),
        by_rule("Dr. Martin Luther King Jr. Day", Rule::Nth { weekday: Weekday::Mon, n: 3 }),
    ],
    &[
        fixed!("Lincoln's Birthday", 12),
        by_rule("Washington's Birthday", Rule::Nth { weekday: Weekday::Mon, n: 3 }),
    ],
    &[],
    &[],
    &[by_rule("Memorial Day", Rule::Last { weekday: Weekday::Mon })],
    &[by_rule("Flag Day", Rule::Nth { weekday: Weekday::Sun, n: 2 }), fixed!("Juneteenth", 19, 2020)],
    &[fixed!("Independence Day", 4)],
    &[],
    &[by_rule("Labor Day", Rule::Nth { weekday: Weekday::Mon, n: 1 })],
    &[by_rule("Columbus Day", Rule::Nth { weekday: Weekday::Mon, n: 2 })],
    &[
        by_rule("General Election Day", Rule::TuesdayAfterFirstMonday),
        fixed!("Veterans Day", 11),
        by_rule("Thanksgiving Day", Rule::Nth { weekday: Weekday::Thu, n: 4 }),
    ],
    &[fixed!("Christmas Day", 25)],
];

/// The number of days in a month of the proleptic Gregorian calendar.
const fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The public holidays of `year` (GCL §24), sorted by date.
///
/// A holiday that falls on a Sunday (other than Flag Day) appears twice: on the Sunday under its own name,
/// and on the following Monday as `"<name> (observed)"`. Empty for a year outside [`NaiveDate`]'s range.
pub fn holidays(year: i32) -> Vec<Holiday> {
    let mut out = Vec::with_capacity(16);
    for (month, defs) in (1..=12).zip(MONTHS) {
        for def in defs.iter().filter(|def| year >= def.since) {
            let date = match def.rule {
                Rule::Fixed { day, .. } => NaiveDate::from_ymd_opt(year, month, day),
                Rule::Nth { weekday, n } => NaiveDate::from_weekday_of_month_opt(year, month, weekday, n),
                Rule::Last { weekday } => NaiveDate::from_weekday_of_month_opt(year, month, weekday, 5)
                    .or_else(|| NaiveDate::from_weekday_of_month_opt(year, month, weekday, 4)),
                Rule::TuesdayAfterFirstMonday => {
                    NaiveDate::from_weekday_of_month_opt(year, month, Weekday::Mon, 1)
                        .and_then(|d| d.succ_opt())
                }
            };
            let Some(date) = date else { continue };
            out.push(Holiday { date, name: def.name });
            if let Rule::Fixed { observed, .. } = def.rule {
                if date.weekday() == Weekday::Sun {
                    if let Some(monday) = date.succ_opt() {
                        out.push(Holiday { date: monday, name: observed });
                    }
                }
            }
        }
    }
    out.sort_by_key(|h| h.date);
    out
}

/// The name of the public holiday on `date`, if it is one (GCL §24), including the Monday observed for a
/// holiday that falls on a Sunday (named `"<name> (observed)"`).
///
/// Cheap: only the rules of `date`'s month are checked, against the day and weekday, without allocating.
pub fn holiday(date: NaiveDate) -> Option<&'static str> {
    let (year, month, day, weekday) = (date.year(), date.month(), date.day(), date.weekday());
    // Which occurrence of its weekday `date` is within the month: 1 for days 1–7, 2 for days 8–14, ...
    let occurrence = (day - 1) / 7 + 1;
    MONTHS[date.month0() as usize].iter().filter(|def| year >= def.since).find_map(|def| match def.rule {
        Rule::Fixed { day: fixed, observed } => {
            if day == fixed {
                Some(def.name)
            } else if weekday == Weekday::Mon && day == fixed + 1 {
                Some(observed)
            } else {
                None
            }
        }
        Rule::Nth { weekday: w, n } => (weekday == w && occurrence == u32::from(n)).then_some(def.name),
        Rule::Last { weekday: w } => {
            (weekday == w && day + 7 > days_in_month(year, month)).then_some(def.name)
        }
        Rule::TuesdayAfterFirstMonday => {
            (weekday == Weekday::Tue && (2..=8).contains(&day)).then_some(def.name)
        }
    })
}

/// Whether `date` is a business day (GCL §19): not a Saturday, not a Sunday and not a public holiday.
pub fn is_business_day(date: NaiveDate) -> bool {
    !matches!(date.weekday(), Weekday::Sat | Weekday::Sun) && holiday(date).is_none()
}

/// The first business day strictly after `date`, or `None` if there is none before [`NaiveDate::MAX`].
fn next_business_day(date: NaiveDate) -> Option<NaiveDate> {
    let mut d = date.succ_opt()?;
    while !is_business_day(d) {
        d = d.succ_opt()?;
    }
    Some(d)
}

/// The `n`-th business day after `start` ("within `n` business days").
///
/// `start` itself never counts, whether or not it is a business day; `n = 0` returns `start` unchanged.
/// Saturates at [`NaiveDate::MAX`] when the `n`-th business day would lie beyond it.
pub fn add_business_days(start: NaiveDate, n: u32) -> NaiveDate {
    // The n-th business day is at least n days on: when even that is out of range, saturate at once rather
    // than walk the rest of the calendar to find out.
    if start.checked_add_days(Days::new(n.into())).is_none() {
        return NaiveDate::MAX;
    }
    let mut date = start;
    for _ in 0..n {
        match next_business_day(date) {
            Some(next) => date = next,
            None => return NaiveDate::MAX,
        }
    }
    date
}

/// `n` calendar days after `start` ("within `n` days"), with no rollover: the result may be a weekend or a
/// holiday. Saturates at [`NaiveDate::MAX`].
pub fn add_days(start: NaiveDate, n: u32) -> NaiveDate {
    start.checked_add_days(Days::new(n.into())).unwrap_or(NaiveDate::MAX)
}

/// `date` itself if it is a business day, else the next business day (GCL §25-a: a period ending on a
/// Saturday, Sunday or public holiday extends to the next business day). Saturates at [`NaiveDate::MAX`].
pub fn roll_forward(date: NaiveDate) -> NaiveDate {
    if is_business_day(date) {
        date
    } else {
        next_business_day(date).unwrap_or(NaiveDate::MAX)
    }
}

/// The last day of a period of `n` calendar days from `start`, extended to the next business day if it
/// ends on a Saturday, Sunday or public holiday: `roll_forward(add_days(start, n))`.
pub fn add_days_rolled(start: NaiveDate, n: u32) -> NaiveDate {
    roll_forward(add_days(start, n))
}

/// `n` calendar months after `start`, the day clamped to the end of a shorter month (January 31 plus one
/// month is the last day of February). No rollover. Saturates at [`NaiveDate::MAX`].
pub fn add_months(start: NaiveDate, n: u32) -> NaiveDate {
    start.checked_add_months(Months::new(n)).unwrap_or(NaiveDate::MAX)
}

/// `n` years after `start`: `add_months(start, 12 * n)`, so February 29 plus a year is February 28.
/// No rollover. Saturates at [`NaiveDate::MAX`].
pub fn add_years(start: NaiveDate, n: u32) -> NaiveDate {
    add_months(start, n.saturating_mul(12))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    fn list(year: i32) -> Vec<(NaiveDate, &'static str)> {
        holidays(year).into_iter().map(|h| (h.date, h.name)).collect()
    }

    #[test]
    fn holidays_2026() {
        // No fixed-date holiday falls on a Sunday in 2026; July 4 is a Saturday and stays there.
        let expected = vec![
            (d(2026, 1, 1), "New Year's Day"),
            (d(2026, 1, 19), "Dr. Martin Luther King Jr. Day"),
            (d(2026, 2, 12), "Lincoln's Birthday"),
            (d(2026, 2, 16), "Washington's Birthday"),
            (d(2026, 5, 25), "Memorial Day"),
            (d(2026, 6, 14), "Flag Day"),
            (d(2026, 6, 19), "Juneteenth"),
            (d(2026, 7, 4), "Independence Day"),
            (d(2026, 9, 7), "Labor Day"),
            (d(2026, 10, 12), "Columbus Day"),
            (d(2026, 11, 3), "General Election Day"),
            (d(2026, 11, 11), "Veterans Day"),
            (d(2026, 11, 26), "Thanksgiving Day"),
            (d(2026, 12, 25), "Christmas Day"),
        ];
        assert_eq!(list(2026), expected);
        for (date, name) in expected {
            assert_eq!(holiday(date), Some(name), "{date}");
        }
    }

    #[test]
    fn holidays_2022_with_sunday_holidays() {
        // 2022: Jan 1 and Feb 12 are Saturdays (not moved); June 19 and December 25 are Sundays (observed
        // on the Monday).
        assert_eq!(
            list(2022),
            vec![
                (d(2022, 1, 1), "New Year's Day"),
                (d(2022, 1, 17), "Dr. Martin Luther King Jr. Day"),
                (d(2022, 2, 12), "Lincoln's Birthday"),
                (d(2022, 2, 21), "Washington's Birthday"),
                (d(2022, 5, 30), "Memorial Day"),
                (d(2022, 6, 12), "Flag Day"),
                (d(2022, 6, 19), "Juneteenth"),
                (d(2022, 6, 20), "Juneteenth (observed)"),
                (d(2022, 7, 4), "Independence Day"),
                (d(2022, 9, 5), "Labor Day"),
                (d(2022, 10, 10), "Columbus Day"),
                (d(2022, 11, 8), "General Election Day"),
                (d(2022, 11, 11), "Veterans Day"),
                (d(2022, 11, 24), "Thanksgiving Day"),
                (d(2022, 12, 25), "Christmas Day"),
                (d(2022, 12, 26), "Christmas Day (observed)"),
            ]
        );
    }

    #[test]
    fn sunday_holiday_observed_on_monday() {
        assert_eq!(holiday(d(2022, 12, 26)), Some("Christmas Day (observed)"));
        assert!(!is_business_day(d(2022, 12, 26)));
        assert_eq!(holiday(d(2023, 1, 2)), Some("New Year's Day (observed)"));
        assert!(!is_business_day(d(2023, 1, 2)));
        assert_eq!(holiday(d(2023, 2, 13)), Some("Lincoln's Birthday (observed)"));
        assert_eq!(holiday(d(2021, 7, 5)), Some("Independence Day (observed)"));
        assert_eq!(holiday(d(2022, 6, 20)), Some("Juneteenth (observed)"));
        // 2018-11-11 was a Sunday.
        assert_eq!(holiday(d(2018, 11, 12)), Some("Veterans Day (observed)"));
        // The Tuesday after an observed Monday is an ordinary business day.
        assert!(is_business_day(d(2022, 12, 27)));
        // 2023 list: New Year's Day on Sunday January 1, observed Monday January 2.
        let l = list(2023);
        assert_eq!(
            &l[..3],
            &[
                (d(2023, 1, 1), "New Year's Day"),
                (d(2023, 1, 2), "New Year's Day (observed)"),
                (d(2023, 1, 16), "Dr. Martin Luther King Jr. Day"),
            ]
        );
    }

    #[test]
    fn flag_day_is_not_observed_on_monday() {
        // Flag Day 2023 was Sunday June 11; Monday June 12 is a business day.
        assert_eq!(holiday(d(2023, 6, 11)), Some("Flag Day"));
        assert_eq!(holiday(d(2023, 6, 12)), None);
        assert!(is_business_day(d(2023, 6, 12)));
        assert!(!list(2023).iter().any(|(_, name)| name.starts_with("Flag Day (")));
    }

    #[test]
    fn saturday_holiday_not_observed_on_friday() {
        // July 4 2026 is a Saturday: Friday July 3 is a business day.
        assert_eq!(holiday(d(2026, 7, 4)), Some("Independence Day"));
        assert_eq!(holiday(d(2026, 7, 3)), None);
        assert!(is_business_day(d(2026, 7, 3)));
        // Christmas 2021 and New Year's Day 2022 are Saturdays: the Fridays before are business days.
        assert!(is_business_day(d(2021, 12, 24)));
        assert!(is_business_day(d(2021, 12, 31)));
        // Nor is the Monday after a Saturday holiday a holiday.
        assert!(is_business_day(d(2021, 12, 27)));
        assert!(is_business_day(d(2022, 1, 3)));
    }

    #[test]
    fn election_day() {
        // November 1 2021 is a Monday: Election Day is Tuesday November 2.
        assert_eq!(holiday(d(2021, 11, 2)), Some("General Election Day"));
        assert_eq!(holiday(d(2021, 11, 9)), None);
        // November 1 2022 is a Tuesday: the first Monday is November 7, Election Day November 8.
        assert_eq!(holiday(d(2022, 11, 1)), None);
        assert!(is_business_day(d(2022, 11, 1)));
        assert_eq!(holiday(d(2022, 11, 8)), Some("General Election Day"));
        // November 1 2026 is a Sunday: Monday November 2, Election Day November 3.
        assert_eq!(holiday(d(2026, 11, 3)), Some("General Election Day"));
        // 2027 (an odd year: New York still holds a general election): Nov 1 is a Monday, so Nov 2.
        assert_eq!(holiday(d(2027, 11, 2)), Some("General Election Day"));
    }

    #[test]
    fn juneteenth_from_2020() {
        // 2019-06-19 was a Wednesday and not yet a holiday.
        assert_eq!(holiday(d(2019, 6, 19)), None);
        assert!(is_business_day(d(2019, 6, 19)));
        assert!(!list(2019).iter().any(|(_, name)| name.starts_with("Juneteenth")));
        // 2020-06-19 was a Friday.
        assert_eq!(holiday(d(2020, 6, 19)), Some("Juneteenth"));
        assert!(!is_business_day(d(2020, 6, 19)));
        // 2021-06-19 was a Saturday: not moved to Friday the 18th.
        assert_eq!(holiday(d(2021, 6, 19)), Some("Juneteenth"));
        assert!(is_business_day(d(2021, 6, 18)));
        // 2023-06-19 was a Monday.
        assert_eq!(holiday(d(2023, 6, 19)), Some("Juneteenth"));
    }

    #[test]
    fn memorial_day_last_monday() {
        // May 2021 has five Mondays (3, 10, 17, 24, 31); May 2026 has four (4, 11, 18, 25).
        assert_eq!(holiday(d(2021, 5, 31)), Some("Memorial Day"));
        assert_eq!(holiday(d(2021, 5, 24)), None);
        assert_eq!(holiday(d(2026, 5, 25)), Some("Memorial Day"));
        assert_eq!(holiday(d(2026, 5, 18)), None);
    }

    #[test]
    fn weekends_and_ordinary_days() {
        assert!(!is_business_day(d(2026, 2, 28))); // Saturday
        assert!(!is_business_day(d(2026, 3, 1))); // Sunday
        assert!(is_business_day(d(2026, 3, 2))); // Monday
        assert!(!is_business_day(d(2026, 6, 14))); // Flag Day, a Sunday
        assert!(!is_business_day(d(2026, 11, 26))); // Thanksgiving
        assert!(is_business_day(d(2026, 11, 27))); // the Friday after Thanksgiving is not a holiday
    }

    #[test]
    fn business_days_over_thanksgiving() {
        // Wed 2026-11-25; Thu 26 holiday; Fri 27 (1), Mon 30 (2), Tue Dec 1 (3), Wed 2 (4), Thu 3 (5),
        // Fri 4 (6), Mon 7 (7).
        assert_eq!(add_business_days(d(2026, 11, 25), 7), d(2026, 12, 7));
        assert_eq!(add_business_days(d(2026, 11, 25), 1), d(2026, 11, 27));
    }

    #[test]
    fn business_days_from_weekend() {
        // Saturday 2026-12-19 and Sunday 2026-12-20: the first business day after is Monday 2026-12-21.
        assert_eq!(add_business_days(d(2026, 12, 19), 1), d(2026, 12, 21));
        assert_eq!(add_business_days(d(2026, 12, 20), 1), d(2026, 12, 21));
        // Mon 21 (1), Tue 22 (2), Wed 23 (3), Thu 24 (4), Fri 25 Christmas, Mon 28 (5).
        assert_eq!(add_business_days(d(2026, 12, 19), 5), d(2026, 12, 28));
    }

    #[test]
    fn business_days_from_a_holiday() {
        // The start never counts, even a holiday: Thanksgiving 2026 + 1 is Friday the 27th.
        assert_eq!(add_business_days(d(2026, 11, 26), 1), d(2026, 11, 27));
    }

    #[test]
    fn business_days_across_christmas_and_new_year() {
        // Wed 2026-12-23: Thu 24 (1), Fri 25 Christmas, Mon 28 (2), Tue 29 (3), Wed 30 (4), Thu 31 (5),
        // Fri 2027-01-01 New Year's Day, Mon 2027-01-04 (6).
        assert_eq!(add_business_days(d(2026, 12, 23), 5), d(2026, 12, 31));
        assert_eq!(add_business_days(d(2026, 12, 23), 6), d(2027, 1, 4));
        // Fri 2022-12-23: Mon 26 observed Christmas; Tue 27 (1), ..., Fri 30 (4), Mon 2023-01-02 observed
        // New Year's Day, Tue 2023-01-03 (5).
        assert_eq!(add_business_days(d(2022, 12, 23), 5), d(2023, 1, 3));
    }

    #[test]
    fn zero_business_days_is_start() {
        assert_eq!(add_business_days(d(2026, 11, 25), 0), d(2026, 11, 25));
        // Even when start is not a business day.
        assert_eq!(add_business_days(d(2026, 12, 25), 0), d(2026, 12, 25));
        assert_eq!(add_business_days(d(2026, 12, 19), 0), d(2026, 12, 19));
    }

    #[test]
    fn thirty_business_days() {
        // From Mon 2026-11-02 (Election Day Tue 3, Veterans Day Wed 11, Thanksgiving Thu 26):
        // Nov 4, 5, 6 (3); 9, 10, 12, 13 (7); 16–20 (12); 23, 24, 25, 27 (16); 30 (17);
        // Dec 1–4 (21); 7–11 (26); 14, 15, 16, 17 (30).
        assert_eq!(add_business_days(d(2026, 11, 2), 30), d(2026, 12, 17));
    }

    #[test]
    fn add_days_no_rollover() {
        assert_eq!(add_days(d(2026, 6, 4), 30), d(2026, 7, 4));
        assert_eq!(add_days(d(2026, 12, 25), 0), d(2026, 12, 25));
        assert_eq!(add_days(d(2026, 12, 31), 1), d(2027, 1, 1));
        assert_eq!(add_days(d(2024, 2, 28), 1), d(2024, 2, 29));
    }

    #[test]
    fn days_rolled() {
        // Lands on Saturday 2026-07-04 (Independence Day): Sunday 5, Monday 6.
        assert_eq!(add_days_rolled(d(2026, 6, 4), 30), d(2026, 7, 6));
        // Lands on Sunday 2026-03-01: Monday 2.
        assert_eq!(add_days_rolled(d(2026, 1, 30), 30), d(2026, 3, 2));
        // Lands on Labor Day, Monday 2026-09-07: Tuesday 8.
        assert_eq!(add_days_rolled(d(2026, 8, 8), 30), d(2026, 9, 8));
        // Lands on Saturday 2026-09-05 before Labor Day: Tuesday 8.
        assert_eq!(add_days_rolled(d(2026, 8, 6), 30), d(2026, 9, 8));
        // Lands on Christmas Sunday 2022-12-25, observed Monday 26: Tuesday 27.
        assert_eq!(add_days_rolled(d(2022, 11, 25), 30), d(2022, 12, 27));
        // Lands on a business day, Wednesday 2026-11-25: unchanged.
        assert_eq!(add_days_rolled(d(2026, 10, 26), 30), d(2026, 11, 25));
    }

    #[test]
    fn roll_forward_cases() {
        assert_eq!(roll_forward(d(2026, 11, 25)), d(2026, 11, 25));
        assert_eq!(roll_forward(d(2026, 11, 26)), d(2026, 11, 27));
        assert_eq!(roll_forward(d(2026, 12, 25)), d(2026, 12, 28));
        assert_eq!(roll_forward(d(2022, 12, 24)), d(2022, 12, 27));
    }

    #[test]
    fn months_and_years() {
        assert_eq!(add_months(d(2026, 1, 31), 1), d(2026, 2, 28));
        assert_eq!(add_months(d(2024, 1, 31), 1), d(2024, 2, 29));
        assert_eq!(add_months(d(2026, 1, 31), 3), d(2026, 4, 30));
        assert_eq!(add_months(d(2026, 1, 31), 0), d(2026, 1, 31));
        assert_eq!(add_months(d(2026, 11, 15), 2), d(2027, 1, 15));
        assert_eq!(add_years(d(2024, 2, 29), 1), d(2025, 2, 28));
        assert_eq!(add_years(d(2024, 2, 29), 4), d(2028, 2, 29));
        assert_eq!(add_years(d(2024, 2, 29), 0), d(2024, 2, 29));
        // No rollover: 2027-07-04 is a Sunday and stays.
        assert_eq!(add_years(d(2026, 7, 4), 1), d(2027, 7, 4));
    }

    #[test]
    fn saturates_without_panicking() {
        let max = NaiveDate::MAX;
        let min = NaiveDate::MIN;
        assert_eq!(add_days(max, 1), max);
        assert_eq!(add_days(min, u32::MAX), max);
        assert_eq!(add_business_days(max, 1), max);
        assert_eq!(add_business_days(max - Days::new(10), 100), max);
        assert_eq!(add_business_days(min, u32::MAX), max);
        assert_eq!(add_months(max, 1), max);
        assert_eq!(add_months(min, u32::MAX), max);
        assert_eq!(add_years(min, u32::MAX), max);
        assert_eq!(add_years(d(2026, 1, 1), u32::MAX / 2), max);
        assert_eq!(roll_forward(max), max);
        assert_eq!(add_days_rolled(max, 5), max);
        assert_eq!(add_business_days(max, 0), max);
        assert_eq!(add_business_days(min, 0), min);
        let _ = holiday(min);
        let _ = holiday(max);
        let _ = is_business_day(min);
        let _ = roll_forward(min);
        assert!(holidays(i32::MAX).is_empty());
        assert!(holidays(i32::MIN).is_empty());
        assert!(!holidays(max.year()).is_empty());
        assert!(!holidays(min.year()).is_empty());
    }

    #[test]
    fn fast_path_matches_list_2000_to_2100() {
        for year in 2000..=2100 {
            let list = holidays(year);
            assert!(list.windows(2).all(|w| w[0].date < w[1].date), "{year}: sorted, no duplicate dates");
            assert!(list.iter().all(|h| h.date.year() == year));
            let mut date = d(year, 1, 1);
            while date.year() == year {
                let listed = list.iter().find(|h| h.date == date).map(|h| h.name);
                assert_eq!(holiday(date), listed, "{date}");
                assert_eq!(
                    is_business_day(date),
                    listed.is_none() && !matches!(date.weekday(), Weekday::Sat | Weekday::Sun),
                    "{date}"
                );
                date = date.succ_opt().unwrap();
            }
            // 14 holidays (13 before 2020), plus one observed Monday per fixed-date holiday on a Sunday.
            let base = if year >= 2020 { 14 } else { 13 };
            let observed = list.iter().filter(|h| h.name.ends_with(" (observed)")).count();
            assert_eq!(list.len(), base + observed, "{year}");
            for h in list.iter().filter(|h| h.name.ends_with(" (observed)")) {
                assert_eq!(h.date.weekday(), Weekday::Mon);
                assert_eq!(holiday(h.date.pred_opt().unwrap()), h.name.strip_suffix(" (observed)"));
            }
        }
    }
}
