//! The inspection workload of a span of years: periodic inspections due per year × town × tier, and the
//! overdue backlog, so a department can staff and level the work.
//!
//! A parcel's due dates come from its fixed grid. A due date already answered by an inspection on record (one
//! after the due date before it, as the status counts it) needs no new inspection. An overdue parcel (or one
//! never inspected) owes one catch-up inspection now, counted as **backlog** in the first year of the span;
//! that inspection answers the parcel's next due date, which is therefore not counted again.
//!
//! The drainage pipes of a bordering parcel are inspected on their own two-year grid (Art. V §IV.A.1 ¶1), and
//! their test "shall be part of the inspection report": a pipe inspection is made at a visit, not a visit of
//! its own. So it has a column of its own, `pipe_inspections`, and adds neither to `due` nor to `total`. Its
//! count is the obligations' `pipe-inspection` ([`ByParcel::pipe_inspection`]): one per bordering parcel
//! with pipes on record, an overdue one in the first year of the span, then every due date of the pipe grid
//! after the one it answers.
use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::Datelike;
use geo::MultiPolygon;

use crate::law::obligations::ByParcel;
use crate::law::periodic::DueGrid;
use crate::law::pipes::pipe_grid;
use crate::law::schedule::Row;
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
    /// Drainage-pipe inspections of that year (overdue ones in the first year of the span), made at the
    /// parcels' inspection visits: not counted in `due`, `backlog` or the total.
    pub pipe_inspections: u64,
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
/// and records stand on `as_of`, the run's as-of date.
pub fn workload(run: &Run, as_of: chrono::NaiveDate, first: i32, last: i32) -> Workload {
    let mut count = WorkloadCount::new((first, last));
    count.add(&run.rows, &ByParcel::new(&run.records(), &run.rules, as_of));
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
    let mut records: Option<ByParcel> = None;
    let run = stream_schedule(config, progress, &mut |run, rows| {
        // The record files are all read before the first block comes.
        let records = records.get_or_insert_with(|| ByParcel::new(&run.records(), &run.rules, config.as_of));
        count.add(&rows, records);
        super::drop_on_all_cores(rows);
        Ok(())
    })?;
    Ok((run, count.finish()))
}

/// The counts of one year, town and tier.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    due: u64,
    backlog: u64,
    pipe_inspections: u64,
}

/// The workload of a span of years, counted from rows in any order and any number of blocks.
#[derive(Debug)]
pub struct WorkloadCount {
    years: (i32, i32),
    counts: BTreeMap<(i32, String, String), Counts>,
}

impl WorkloadCount {
    /// Nothing counted yet, for the `years` (first, last).
    pub fn new(years: (i32, i32)) -> Self {
        WorkloadCount { years, counts: BTreeMap::new() }
    }

    /// Counts the parcels of `rows`: each scheduled parcel's owed inspection (in the backlog of the first
    /// year when overdue) and, after the due date that inspection answers, every due date of its grid in the
    /// span; and the same for the inspection its drainage pipes owe, which `records` (the run's record files
    /// by parcel) gives as the obligations list it. The owed inspection is the entry's
    /// ([`crate::law::periodic::standing`]), so the workload reads the schedule's story: an inspection that
    /// already answered the next due date leaves nothing in its year.
    pub fn add(&mut self, rows: &[Row], records: &ByParcel) {
        for row in rows {
            let e = &row.entry;
            let periodic = match (e.first_due, e.cycle_years, e.owed) {
                (Some(first_due), Some(cycle_years), Some(owed)) => {
                    Some((DueGrid { first_due, cycle_years }, owed.overdue, owed.due, owed.answers))
                }
                _ => None,
            };
            let pipes = records.pipe_inspection(row).and_then(|owed| {
                let grid = pipe_grid(records.rules().drainage_pipes.as_ref()?);
                Some((grid, owed.overdue, owed.due, owed.answers))
            });
            if periodic.is_none() && pipes.is_none() {
                continue;
            }
            let town = row
                .facts
                .as_ref()
                .and_then(|f| f.town.as_deref())
                .or(row.parcel.town.as_deref())
                .unwrap_or("(no town)");
            let (first, last) = self.years;
            let mut lines = vec![Counts::default(); (last - first + 1).max(0) as usize];
            if let Some(owed) = periodic {
                count_grid(owed, self.years, |i, late| match late {
                    true => lines[i].backlog += 1,
                    false => lines[i].due += 1,
                });
            }
            if let Some(owed) = pipes {
                count_grid(owed, self.years, |i, _| lines[i].pipe_inspections += 1);
            }
            // Every year of the span gets a line for each town and tier with parcels, zeros included, so a
            // missing line never has to be read as "nothing due".
            for (year, n) in (first..=last).zip(lines) {
                let line = self.counts.entry((year, town.to_string(), e.tier.to_string())).or_default();
                line.due += n.due;
                line.backlog += n.backlog;
                line.pipe_inspections += n.pipe_inspections;
            }
        }
    }

    /// The workload counted, sorted by year, town and tier.
    pub fn finish(self) -> Workload {
        let rows = self
            .counts
            .into_iter()
            .map(|((year, town, tier), c)| WorkRow {
                year,
                town,
                tier,
                due: c.due,
                backlog: c.backlog,
                pipe_inspections: c.pipe_inspections,
            })
            .collect();
        Workload { years: self.years, rows }
    }
}

/// Counts one owed inspection on its grid over the span `years`, calling `count` with the index of the year
/// in the span and whether it is an overdue catch-up: the owed one in the first year when it is overdue, else
/// in its own year; then every due date of the grid after the one it answers, in theirs.
fn count_grid(
    (grid, overdue, owed, answers): (DueGrid, bool, chrono::NaiveDate, chrono::NaiveDate),
    (first, last): (i32, i32),
    mut count: impl FnMut(usize, bool),
) {
    let span = first..=last;
    if overdue {
        if first <= last {
            count(0, true);
        }
    } else if span.contains(&owed.year()) {
        count((owed.year() - first) as usize, false);
    }
    let mut due = grid.after(answers);
    while due.year() <= last {
        if span.contains(&due.year()) {
            count((due.year() - first) as usize, false);
        }
        due = grid.after(due);
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
    ("pipe_inspections", Kind::Int),
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
            5 => Cell::Int((r.due + r.backlog) as i64),
            _ => Cell::Int(r.pipe_inspections as i64),
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
        writeln!(f, "of which overdue backlog (counted in the first year): {backlog}")?;
        let pipes: u64 = self.rows.iter().map(|r| r.pipe_inspections).sum();
        if pipes > 0 {
            writeln!(
                f,
                "drainage-pipe inspections, made at those visits and not counted above (overdue ones in the first \
                 year): {pipes}"
            )?;
        }
        Ok(())
    }
}
