//! [`Checker`]: the cells of a record file's rows checked one by one (ids, dates, yes/no, numbers), each bad
//! cell a problem naming its file (or sheet) and line, and the ids counted as they find their parcel.

use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDate;

use super::dates::DateOrder;
use super::tally::{self, IdTally};
use super::{any_date, line, parse_date_in, MAX_SERIAL};
use crate::model::error::Problem;

/// What is wrong with the date cell `text` of `column`, which [`parse_date_in`] does not read in `order`,
/// and the fix.
pub(super) fn not_a_date(column: &str, text: &str, order: DateOrder) -> String {
    let (first, last) = (crate::formats::sheet::YEARS.start(), crate::formats::sheet::YEARS.end());
    let other = match order {
        DateOrder::MonthFirst => DateOrder::DayFirst,
        DateOrder::DayFirst => DateOrder::MonthFirst,
    };
    if let Some(date) = parse_date_in(text, other).filter(|_| any_date(text, order).is_none()) {
        let (read, other) = (order.name(), other.name());
        return format!(
            "{column} '{text}' is not a date read {read}, as the column's dates are read, but is {date} read \
             {other}; correct the cell, or say which the file uses with --date-order {other} (or [fields.KIND] \
             date_order)"
        );
    }
    if any_date(text, DateOrder::MonthFirst).is_some() || any_date(text, DateOrder::DayFirst).is_some() {
        format!("{column} '{text}' is not a date of {first} to {last}; correct the year")
    } else if text.parse::<f64>().is_ok() || text.eq_ignore_ascii_case("nan") {
        format!(
            "{column} '{text}' is a number but not a date of {first} to {last} (an Excel date is a serial of 1 \
             to {MAX_SERIAL}); correct the cell, or write the date as YYYY-MM-DD"
        )
    } else {
        format!("{column} '{text}' is not a date; write it as YYYY-MM-DD (or M/D/YYYY)")
    }
}

/// `text` without the commas between its thousands (`1,200.5` → `1200.5`); `None` when a comma stands
/// anywhere else: after a decimal point, or not before a group of three digits (`1,5`, `12,34`, `,5`).
fn without_thousands(text: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !text.contains(',') {
        return Some(std::borrow::Cow::Borrowed(text));
    }
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let mut groups = whole.split(',');
    let first = groups.next()?.trim_start_matches(['+', '-']);
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    let grouped = digits(first) && first.len() <= 3 && groups.all(|g| g.len() == 3 && digits(g));
    (grouped && !fraction.contains(',')).then(|| std::borrow::Cow::Owned(text.replace(',', "")))
}

/// Checks cells and collects what is wrong with them, by file and line.
pub struct Checker<'a> {
    path: &'a Path,
    /// The sheet of the row being checked, when the file's path does not name its place (set by
    /// [`Records::next_row`]).
    pub(super) sheet: Option<Arc<Path>>,
    /// The row's cell of the column that could also have been the parcel id (set by [`Records::next_row`];
    /// empty when there is none), and how many parcels those cells found.
    pub(super) second_id: String,
    pub(super) second: IdTally,
    /// The problems found so far.
    pub problems: Vec<Problem>,
    /// The parcel ids looked up so far, found or not.
    pub ids: IdTally,
    /// The last parcel id looked up and its position: a parcel's lines often stand together.
    last: Option<(String, Option<usize>)>,
    /// The date convention of each column not read month-first (set by [`Records::next_row`]).
    pub(super) orders: Vec<(String, DateOrder)>,
}

impl<'a> Checker<'a> {
    /// A checker for the file at `path`.
    pub fn new(path: &'a Path) -> Self {
        Checker {
            path,
            sheet: None,
            second_id: String::new(),
            second: IdTally::default(),
            problems: Vec::new(),
            ids: IdTally::default(),
            last: None,
            orders: Vec::new(),
        }
    }

    /// Reports a problem on `line`.
    pub fn report(&mut self, line: usize, message: impl Into<String>) {
        let path = self.sheet.as_deref().unwrap_or(self.path);
        self.problems.push(Problem::new(path, self::line(path, line), message));
    }

    /// The position of the parcel named in `id`, found by `position`; a blank or unknown id is reported.
    pub fn parcel(
        &mut self,
        line: usize,
        id: &str,
        position: impl Fn(&str) -> Option<usize>,
    ) -> Option<usize> {
        if id.is_empty() {
            self.report(line, "no parcel_id; fill it in or delete the row");
            return None;
        }
        let at = match &mut self.last {
            Some((last, at)) if last == id => *at,
            Some((last, at)) => {
                last.clear();
                last.push_str(id);
                *at = position(id);
                *at
            }
            None => self.last.insert((id.to_string(), position(id))).1,
        };
        let found = tally::found(at);
        self.ids.count(id, found.is_some());
        if !self.second_id.is_empty() {
            let other = tally::found(position(&self.second_id));
            self.second.count(&self.second_id, other.is_some());
        }
        if found.is_none() {
            self.report(line, tally::not_found(id, at));
        }
        found
    }

    /// A required date in `column`, not after `as_of`.
    pub fn date(&mut self, line: usize, column: &str, text: &str, as_of: NaiveDate) -> Option<NaiveDate> {
        if text.is_empty() {
            self.report(line, format!("no {column}; write it as YYYY-MM-DD"));
            return None;
        }
        self.optional_date(line, column, text, Some(as_of)).flatten()
    }

    /// An optional date in `column` (`Some(None)` when blank), not after `as_of` when one is given;
    /// `None` when the cell is bad (reported).
    pub fn optional_date(
        &mut self,
        line: usize,
        column: &str,
        text: &str,
        as_of: Option<NaiveDate>,
    ) -> Option<Option<NaiveDate>> {
        if text.is_empty() {
            return Some(None);
        }
        let order = self.orders.iter().find(|(c, _)| c == column).map_or(DateOrder::MonthFirst, |&(_, o)| o);
        let Some(date) = parse_date_in(text, order) else {
            self.report(line, not_a_date(column, text, order));
            return None;
        };
        if let Some(as_of) = as_of.filter(|&a| date > a) {
            self.report(
                line,
                format!("{column} {date} is after the as-of date {as_of}; check the date or --as-of"),
            );
            return None;
        }
        Some(Some(date))
    }

    /// An optional yes/no in `column` (`Some(None)` when blank); `None` when the cell is bad (reported).
    pub fn yes_no(&mut self, line: usize, column: &str, text: &str) -> Option<Option<bool>> {
        match text.to_ascii_lowercase().as_str() {
            "" => Some(None),
            "yes" | "y" | "true" | "t" | "1" => Some(Some(true)),
            "no" | "n" | "false" | "f" | "0" => Some(Some(false)),
            _ => {
                self.report(line, format!("{column} '{text}' is not yes or no; write yes or no"));
                None
            }
        }
    }

    /// An optional non-negative number in `column` (`Some(None)` when blank); `None` when bad (reported).
    /// Commas are read as a spreadsheet writes thousands (`1,200`); any other comma (`1,5`, a decimal comma)
    /// is reported rather than dropped, which would read `1,5` as 15.
    pub fn number(&mut self, line: usize, column: &str, text: &str) -> Option<Option<f64>> {
        if text.is_empty() {
            return Some(None);
        }
        match without_thousands(text).and_then(|t| t.parse::<f64>().ok()) {
            Some(v) if v.is_finite() && v >= 0.0 => Some(Some(v)),
            _ => {
                let comma = if text.contains(',') {
                    " with a decimal point (1.5) and no comma but between thousands (1,200)"
                } else {
                    ""
                };
                self.report(
                    line,
                    format!("{column} '{text}' is not a number of 0 or more; write digits{comma}, e.g. 240"),
                );
                None
            }
        }
    }
}
