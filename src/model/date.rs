//! Dates as text: the ISO `YYYY-MM-DD` form record files are read in and every output is written in.
//!
//! Both directions are hand-written rather than chrono's `%Y-%m-%d`: a history file holds millions of dates
//! and a schedule writes several per parcel, so neither allocates nor parses a format string.

use chrono::{Datelike, NaiveDate};

/// Parses an ISO date `YYYY-MM-DD` (exactly that form; a history file holds millions of them).
pub fn parse_iso_date(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0')))
    };
    NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)
}

/// Writes a date as `YYYY-MM-DD` (years 0 to 9999, as chrono's `%Y-%m-%d` does for them).
pub fn push_iso_date(out: &mut String, d: NaiveDate) {
    // Millions of dates are written: years of four digits are spelled out here, others by the formatter.
    let Ok(year @ 0..=9999) = u32::try_from(d.year()) else {
        use std::fmt::Write;
        let _ = write!(out, "{:04}-{:02}-{:02}", d.year(), d.month(), d.day());
        return;
    };
    let digit = |n: u32| b'0' + (n % 10) as u8;
    let (month, day) = (d.month(), d.day());
    let text = [
        digit(year / 1000),
        digit(year / 100),
        digit(year / 10),
        digit(year),
        b'-',
        digit(month / 10),
        digit(month),
        b'-',
        digit(day / 10),
        digit(day),
    ];
    crate::model::table::push_ascii(out, &text);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn iso_dates_round_trip_and_refuse_what_is_not_a_date() {
        assert_eq!(parse_iso_date("2024-02-29"), Some(d("2024-02-29")));
        for bad in ["2023-02-29", "2026-13-45", "2026-1-5", "20260105", "2026-01-0x", " 2026-01-05", ""] {
            assert_eq!(parse_iso_date(bad), None, "{bad}");
        }
        let mut s = String::new();
        push_iso_date(&mut s, d("0999-01-05"));
        assert_eq!(s, "0999-01-05");
    }

    /// The spelled-out dates read as the formatter writes them, across the four-digit years and beyond.
    #[test]
    fn dates_are_written_as_the_formatter_writes_them() {
        let mut day = NaiveDate::from_ymd_opt(-12, 1, 1).unwrap();
        let last = NaiveDate::from_ymd_opt(10_012, 12, 31).unwrap();
        while day <= last {
            let mut s = String::from("x");
            push_iso_date(&mut s, day);
            assert_eq!(s[1..], format!("{:04}-{:02}-{:02}", day.year(), day.month(), day.day()));
            day += chrono::Duration::days(13);
        }
    }
}
