//! The inspection workload of a span of years: periodic inspections due per year × town × tier, and the
//! overdue backlog, so a department can staff and level the work.
//!
//! A parcel's due dates come from its fixed grid. A due date already answered by an inspection on record (one
//! after the due date before it, as the status counts it) needs no new inspection. An overdue parcel (or one
//! never inspected) owes one catch-up inspection now, counted as **backlog** in the first year of the span;
//! that inspection answers the parcel's next due date, which is therefore not counted again.

use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::Datelike;
use geo::MultiPolygon;

use crate::law::schedule::{DueGrid, Row};
use crate::model::error::Result;
use crate::model::table::{Cell, Kind, Table};
use crate::pipeline::config::Config;
use crate::pipeline::{stream_schedule, Progress, Run};

/// One line of the workload: a year, a town, a tier.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkRow {
    /// The calendar year.
    pub year: i32,
    /// The town ("(no town)" when unknown).
    pub town: String,
    /// The tier.
    pub tier: String,
    /// Periodic inspections falling due that year and not yet answered.
    pub due: u64,
    /// Overdue catch-up inspections (first year of the span only).
    pub backlog: u64,
}

/// The workload of a run over a span of years, sorted by year, town and tier.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workload {
    /// The first and last year counted.
    pub years: (i32, i32),
    /// The rows: every year of the span for every town and tier that has scheduled parcels.
    pub rows: Vec<WorkRow>,
}

/// The workload of `run` for the years `first..=last` (the as-of date's year or later make sense), as its rows
/// stand on the run's as-of date.
pub fn workload(run: &Run, first: i32, last: i32) -> Workload {
    let mut count = WorkloadCount::new((first, last));
    count.add(&run.rows);
    count.finish()
}

/// Runs the schedule and counts the workload of the years `first..=last` from each block of rows as it
/// comes, keeping none: the run comes back without rows (see [`stream_schedule`]).
pub fn stream_workload(
    config: &Config,
    progress: &Progress,
    first: i32,
    last: i32,
) -> Result<(Run, Workload)> {
    let mut count = WorkloadCount::new((first, last));
    let run = stream_schedule(config, progress, &mut |_, rows| {
        // Between blocks is a safe point to stop at (see `crate::model::stop`).
        crate::model::stop::check()?;
        count.add(&rows);
        super::drop_on_all_cores(rows);
        Ok(())
    })?;
    Ok((run, count.finish()))
}

/// The workload of a span of years, counted from rows in any order and any number of blocks.
#[derive(Debug)]
pub struct WorkloadCount {
    years: (i32, i32),
    /// (due, backlog) per year, town and tier.
    counts: BTreeMap<(i32, String, String), (u64, u64)>,
}

impl WorkloadCount {
    /// Nothing counted yet, for the `years` (first, last).
    pub fn new(years: (i32, i32)) -> Self {
        WorkloadCount { years, counts: BTreeMap::new() }
    }

    /// Counts the parcels of `rows`: each scheduled parcel's owed inspection (in the backlog of the first
    /// year when overdue) and, after the due date that inspection answers, every due date of its grid in the
    /// span. The owed inspection is the entry's ([`crate::law::schedule::standing`]), so the workload reads the
    /// schedule's story: an inspection that already answered the next due date leaves nothing in its year.
    pub fn add(&mut self, rows: &[Row]) {
        let (first, last) = self.years;
        let counts = &mut self.counts;
        for row in rows {
            let e = &row.entry;
            let (Some(first_due), Some(cycle), Some(owed)) = (e.first_due, e.cycle_years, e.owed) else {
                continue;
            };
            let grid = DueGrid { first_due, cycle_years: cycle };
            let town = row
                .facts
                .as_ref()
                .and_then(|f| f.town.as_deref())
                .or(row.parcel.town.as_deref())
                .unwrap_or("(no town)")
                .to_string();
            let key = |year: i32| (year, town.clone(), e.tier.to_string());
            // Every year of the span gets a line for each town and tier with parcels, zeros included, so a
            // missing line never has to be read as "nothing due".
            for year in first..=last {
                counts.entry(key(year)).or_default();
            }
            let span = first..=last;
            if owed.overdue {
                counts.entry(key(first)).or_default().1 += 1;
            } else if span.contains(&owed.due.year()) {
                counts.entry(key(owed.due.year())).or_default().0 += 1;
            }
            let mut due = grid.after(owed.answers);
            while due.year() <= last {
                if span.contains(&due.year()) {
                    counts.entry(key(due.year())).or_default().0 += 1;
                }
                due = grid.after(due);
            }
        }
    }

    /// The workload counted, sorted by year, town and tier.
    pub fn finish(self) -> Workload {
        let rows = self
            .counts
            .into_iter()
            .map(|((year, town, tier), (due, backlog))| WorkRow { year, town, tier, due, backlog })
            .collect();
        Workload { years: self.years, rows }
    }
}

/// The workload columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("year", Kind::Int),
    ("town", Kind::Text),
    ("tier", Kind::Text),
    ("due", Kind::Int),
    ("backlog", Kind::Int),
    ("total", Kind::Int),
];

impl Table for Workload {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn geometry(&self, _row: usize) -> Option<&MultiPolygon<f64>> {
        None
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let r = &self.rows[row];
        match column {
            0 => Cell::Int(r.year.into()),
            1 => Cell::Text(Cow::Borrowed(&r.town)),
            2 => Cell::Text(Cow::Borrowed(&r.tier)),
            3 => Cell::Int(r.due as i64),
            4 => Cell::Int(r.backlog as i64),
            _ => Cell::Int((r.due + r.backlog) as i64),
        }
    }
}

impl std::fmt::Display for Workload {
    /// A year × tier table of totals, for the terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut tiers: Vec<&str> = self.rows.iter().map(|r| r.tier.as_str()).collect();
        tiers.sort_unstable();
        tiers.dedup();
        let mut by_year: BTreeMap<i32, BTreeMap<&str, u64>> = BTreeMap::new();
        for r in &self.rows {
            *by_year.entry(r.year).or_default().entry(&r.tier).or_default() += r.due + r.backlog;
        }
        write!(f, "{:<6}", "year")?;
        for tier in &tiers {
            write!(f, " {tier:>11}")?;
        }
        writeln!(f, " {:>8}", "total")?;
        for year in self.years.0..=self.years.1 {
            let per_tier = by_year.get(&year).cloned().unwrap_or_default();
            write!(f, "{year:<6}")?;
            for tier in &tiers {
                write!(f, " {:>11}", per_tier.get(tier).copied().unwrap_or(0))?;
            }
            writeln!(f, " {:>8}", per_tier.values().sum::<u64>())?;
        }
        let backlog: u64 = self.rows.iter().map(|r| r.backlog).sum();
        writeln!(f, "of which overdue backlog (counted in the first year): {backlog}")
    }
}
