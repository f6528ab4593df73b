//! Dates as record files write them, and the convention of a column of them. A slash date (`3/4/2026`) is
//! month-first in the United States and day-first in most other places; a column is read in one convention,
//! decided from the whole column by a clear majority: where values that can only be day-first (a first
//! number above 12) outnumber those that can only be month-first, the column is day-first, and the other way
//! round. A column whose values mix both so that neither convention reads 95 % of its slash dates stops the
//! run, naming it and the setting that decides (`--date-order`, `[fields.KIND] date_order`). A column that
//! stays ambiguous is read month-first, the US convention, and a note says so once. Excel's date-times
//! (`3/3/2021 0:00`) and written dates (`March 3, 2021`, `3 Mar 2021`) are read too.

use chrono::NaiveDate;

/// The `[fields.KIND]` key (and the value of `--date-order`) that sets a record file's date convention.
pub const DATE_ORDER_KEY: &str = "date_order";

/// The share of a column's slash dates one convention must read for the column to be read in it.
const READ_SHARE: f64 = 0.95;

/// Which number of a slash date is the month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DateOrder {
    /// `3/4/2026` is March 4 (the US convention, the default).
    #[default]
    MonthFirst,
    /// `3/4/2026` is 3 April.
    DayFirst,
}

impl DateOrder {
    /// Reads `month-first` or `day-first` (also `mdy`, `dmy`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "month-first" | "mdy" | "us" => Some(DateOrder::MonthFirst),
            "day-first" | "dmy" => Some(DateOrder::DayFirst),
            _ => None,
        }
    }

    /// `month-first` or `day-first`, as `--date-order` takes it.
    pub fn name(self) -> &'static str {
        match self {
            DateOrder::MonthFirst => "month-first",
            DateOrder::DayFirst => "day-first",
        }
    }
}

/// The three numbers of a slash date (`3/4/2026`, `3/4/2026 0:00`, `3/4/2026 12:00:00 AM`), as written.
fn slash_parts(text: &str) -> Option<(u32, u32, i32)> {
    let text = text.trim();
    let date = match text.split_once(' ') {
        Some((date, time)) if is_time(time.trim()) => date,
        Some(_) => return None,
        None => text,
    };
    let mut parts = date.split('/');
    let mut part = |max: usize| {
        parts.next().filter(|p| (1..=max).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let (a, b, y) = (part(2)?, part(2)?, part(4)?);
    if y.len() != 4 || parts.next().is_some() {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?, y.parse().ok()?))
}

/// Whether `text` is a time of day as Excel writes it after a date: `0:00`, `13:45:10`, `12:00:00 AM`.
fn is_time(text: &str) -> bool {
    let clock = text.strip_suffix("AM").or_else(|| text.strip_suffix("PM")).unwrap_or(text).trim_end();
    let parts: Vec<&str> = clock.split(':').collect();
    (2..=3).contains(&parts.len())
        && parts.iter().all(|p| (1..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A slash date in `order`.
pub fn slash_date(text: &str, order: DateOrder) -> Option<Option<NaiveDate>> {
    let (a, b, y) = slash_parts(text)?;
    let (m, d) = match order {
        DateOrder::MonthFirst => (a, b),
        DateOrder::DayFirst => (b, a),
    };
    Some(NaiveDate::from_ymd_opt(y, m, d))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month a word names: its full English name or its first three letters (`Sept` too).
fn month(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.').to_ascii_lowercase();
    if word.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.starts_with(&word) || (word == "sept" && *m == "september"))
        .map(|i| i as u32 + 1)
}

/// A written date: `March 3, 2021`, `Mar 3 2021`, `3 March 2021`, `3-Mar-2021`.
pub fn written_date(text: &str) -> Option<NaiveDate> {
    let words: Vec<&str> =
        text.split(|c: char| c.is_whitespace() || c == ',' || c == '-').filter(|w| !w.is_empty()).collect();
    let [first, second, year] = words[..] else { return None };
    let number = |w: &str| w.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse::<u32>().ok();
    let (m, d) = match (month(first), month(second)) {
        (Some(m), None) => (m, number(second)?),
        (None, Some(m)) => (m, number(first)?),
        _ => return None,
    };
    let year: i32 = year.parse().ok().filter(|_| year.len() == 4)?;
    NaiveDate::from_ymd_opt(year, m, d)
}

/// What a column's slash dates say of their convention, counted over the whole column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderTally {
    /// Slash dates only the day-first reading reads (a first number above 12).
    pub day_only: usize,
    /// Slash dates only the month-first reading reads.
    pub month_only: usize,
    /// Slash dates both read.
    pub both: usize,
    /// Slash dates neither reads.
    pub neither: usize,
    /// The first value of each kind, for messages: day-first only, month-first only.
    examples: [Option<String>; 2],
}

impl OrderTally {
    /// Counts one cell.
    pub fn add(&mut self, text: &str) {
        if !text.contains('/') {
            return;
        }
        let read = |order| slash_date(text, order).flatten().is_some();
        match (read(DateOrder::MonthFirst), read(DateOrder::DayFirst)) {
            (true, true) => self.both += 1,
            (true, false) => {
                self.month_only += 1;
                self.examples[1].get_or_insert_with(|| text.to_string());
            }
            (false, true) => {
                self.day_only += 1;
                self.examples[0].get_or_insert_with(|| text.to_string());
            }
            (false, false) => self.neither += 1,
        }
    }

    /// The convention of the column `column` of `kind` files, `explicit` when set; with a note when it stays
    /// ambiguous, an error when it mixes both so that neither reads 95 % of its slash dates.
    pub fn decide(
        &self,
        column: &str,
        kind: &str,
        explicit: Option<DateOrder>,
    ) -> Result<(DateOrder, Option<String>), String> {
        if let Some(order) = explicit {
            return Ok((order, None));
        }
        let all = self.day_only + self.month_only + self.both + self.neither;
        let order = if self.day_only > self.month_only { DateOrder::DayFirst } else { DateOrder::MonthFirst };
        let read = self.both + if order == DateOrder::DayFirst { self.day_only } else { self.month_only };
        if self.day_only > 0 && self.month_only > 0 && (read as f64) < READ_SHARE * all as f64 {
            return Err(format!(
                "column '{column}' mixes day-first dates ({} cells such as '{}') and month-first ones ({} such as \
                 '{}'), and neither reading reads 95 % of its {all} slash dates; say which the file uses with \
                 --date-order day-first or month-first (or [fields.{kind}] {DATE_ORDER_KEY}), and correct the \
                 cells the other way",
                self.day_only,
                self.examples[0].as_deref().unwrap_or(""),
                self.month_only,
                self.examples[1].as_deref().unwrap_or(""),
            ));
        }
        let note = (self.day_only == 0 && self.month_only == 0 && self.both > 0).then(|| {
            format!(
                "column '{column}': its {} slash dates read either way; read {} (the US convention); if they are \
                 day-first, pass --date-order day-first",
                self.both,
                order.name()
            )
        });
        Ok((order, note))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, day)
    }

    #[test]
    fn excel_date_times_and_written_dates_are_read() {
        assert_eq!(slash_date("3/4/2021 0:00", DateOrder::MonthFirst), Some(d(2021, 3, 4)));
        assert_eq!(slash_date("3/4/2021 12:00:00 AM", DateOrder::DayFirst), Some(d(2021, 4, 3)));
        assert_eq!(slash_date("3/4/2021 noon", DateOrder::MonthFirst), None);
        assert_eq!(written_date("March 3, 2021"), d(2021, 3, 3));
        assert_eq!(written_date("3 Mar 2021"), d(2021, 3, 3));
        assert_eq!(written_date("Sept. 30 2021"), d(2021, 9, 30));
        assert_eq!(written_date("3-Mar-2021"), d(2021, 3, 3));
        assert_eq!(written_date("Marching 3, 2021"), None);
        assert_eq!(written_date("February 30, 2021"), None);
    }

    /// 13/3/2021 can only be day-first, 3/13/2021 only month-first, 3/3/2021 either.
    #[test]
    fn a_column_takes_the_convention_its_unambiguous_dates_show() {
        let tally = |cells: &[&str]| {
            let mut t = OrderTally::default();
            cells.iter().for_each(|c| t.add(c));
            t
        };
        let day_first = tally(&["13/3/2021", "25/12/2020", "3/3/2021", "2021-05-01"]);
        assert_eq!(day_first.decide("date", "history", None).unwrap().0, DateOrder::DayFirst);
        let month_first = tally(&["3/13/2021", "3/3/2021"]);
        assert_eq!(month_first.decide("date", "history", None).unwrap(), (DateOrder::MonthFirst, None));
        // Ambiguous: month-first, said once.
        let (order, note) = tally(&["3/3/2021", "4/5/2021"]).decide("date", "history", None).unwrap();
        assert_eq!(order, DateOrder::MonthFirst);
        assert!(note.is_some_and(|n| n.contains("--date-order day-first")));
        // 20 day-first and one month-first of 21: 20/21 = 95.2 % read, the stray cell reported on its row.
        let mut cells = vec!["13/3/2021"; 20];
        cells.push("3/13/2021");
        assert_eq!(tally(&cells).decide("date", "history", None).unwrap().0, DateOrder::DayFirst);
        // 10 and 3: neither reads 95 %; the flag decides.
        let mut cells = vec!["13/3/2021"; 10];
        cells.extend(["3/13/2021"; 3]);
        let err = tally(&cells).decide("Visit Date", "history", None).unwrap_err();
        assert!(err.contains("'Visit Date'") && err.contains("--date-order"), "{err}");
        let set = tally(&cells).decide("Visit Date", "history", Some(DateOrder::DayFirst));
        assert_eq!(set, Ok((DateOrder::DayFirst, None)));
    }
}
