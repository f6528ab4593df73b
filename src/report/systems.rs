//! The table of systems: one row per system of the register, with the parcel(s) it serves, the lot it lies
//! on, its life, and its own tier, due dates and status, at its point. A parcel's schedule row takes the
//! duty of the system that binds (`binds`); this table shows every one. Rows come in the parcels' order (a
//! system under the first parcel it serves), then the register's.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use geo::MultiPolygon;

use super::{drop_on_all_cores, OutputFormat, TableFiles};
use crate::law::schedule::{Row, SystemLine};
use crate::law::systems::Retired;
use crate::model::error::Result;
use crate::model::table::{text, Cell, Kind, Table};
use crate::pipeline::config::Config;
use crate::pipeline::{stream_schedule, Progress, Run};
use crate::rules::Text;
use crate::write::commit_all;

/// The columns of the table of systems, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("system_id", Kind::Text),
    ("parcel_id", Kind::Text),
    ("also_serves", Kind::Text),
    ("lies_on", Kind::Text),
    ("located_by", Kind::Text),
    ("life", Kind::Text),
    ("in_service", Kind::Date),
    ("permitted", Kind::Bool),
    ("retired", Kind::Date),
    ("binds", Kind::Bool),
    ("tier", Kind::Text),
    ("rule", Kind::Text),
    ("cycle_years", Kind::Int),
    ("previous_due", Kind::Date),
    ("next_due", Kind::Date),
    ("status", Kind::Text),
    ("inspection_due", Kind::Date),
    ("overdue", Kind::Bool),
    ("borders_mhw", Kind::Bool),
    ("mhw_distance_ft", Kind::Float),
    ("system_mhw_distance_ft", Kind::Float),
    ("citation", Kind::Text),
    ("reason", Kind::Text),
];

/// The systems listed from a block of rows, viewed as a [`Table`].
pub struct SystemTable<'a> {
    run: &'a Run,
    rows: &'a [Row],
    /// Each system's row and its line in the row, in order.
    lines: Vec<(usize, usize)>,
}

impl<'a> SystemTable<'a> {
    /// The systems listed from `rows` of `run`: each under the first parcel it serves.
    pub fn of_rows(run: &'a Run, rows: &'a [Row]) -> Self {
        let lines = rows
            .iter()
            .enumerate()
            .flat_map(|(r, row)| {
                row.systems.iter().enumerate().filter(|(_, l)| l.listed_here).map(move |(k, _)| (r, k))
            })
            .collect();
        SystemTable { run, rows, lines }
    }

    /// The row and system line of table row `i`.
    fn at(&self, i: usize) -> (&'a Row, &'a SystemLine) {
        let (r, k) = self.lines[i];
        let row = &self.rows[r];
        (row, &row.systems[k])
    }

    /// The parcel position of table row `i`: where the sinks put it.
    pub fn place(&self, i: usize) -> usize {
        self.rows[self.lines[i].0].at
    }
}

/// `in service`, `replaced` or `abandoned`.
fn life_word(line: &SystemLine) -> &'static str {
    match line.life.retired {
        None => "in service",
        Some(Retired::Replaced { .. }) => "replaced",
        Some(Retired::Abandoned(_)) => "abandoned",
    }
}

impl Table for SystemTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn geometry(&self, _row: usize) -> Option<&MultiPolygon<f64>> {
        None
    }

    fn other_geometry(&self, row: usize) -> Option<geo::Geometry<f64>> {
        let (_, line) = self.at(row);
        Some(geo::Geometry::Point(self.run.systems.get(line.index).location))
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let (parcel, line) = self.at(row);
        let judged = parcel.of_system(line);
        let (facts, entry) = (judged.and_then(|(f, _)| f), judged.map(|(_, e)| e));
        let date = |d: Option<chrono::NaiveDate>| d.map_or(Cell::Null, Cell::Date);
        let retired_on = line.life.retired.as_ref().map(|r| match r {
            Retired::Replaced { on, .. } | Retired::Abandoned(on) => *on,
        });
        let bool_cell = |b: Option<bool>| b.map_or(Cell::Null, Cell::Bool);
        match COLUMNS[column].0 {
            "system_id" => Cell::Text(self.run.systems.id(line.index, line.served_first(&parcel.parcel.id))),
            "parcel_id" => Cell::Text(Cow::Borrowed(&parcel.parcel.id)),
            "also_serves" => text(line.partner.as_deref()),
            "lies_on" => text(line.lies_on.as_deref()),
            "located_by" => Cell::Text(Cow::Borrowed(if line.placed { "point" } else { "parcel" })),
            "life" => Cell::Text(Cow::Borrowed(life_word(line))),
            "in_service" => date(line.life.since),
            "permitted" => bool_cell(line.life.since.map(|_| line.life.permitted)),
            "retired" => date(retired_on),
            "binds" => Cell::Bool(line.binds),
            "tier" => text(entry.map(|e| e.tier.as_str())),
            "rule" => text(entry.and_then(|e| e.rule).map(Text::as_str)),
            "cycle_years" => entry.and_then(|e| e.cycle_years).map_or(Cell::Null, |c| Cell::Int(c.into())),
            "previous_due" => date(entry.and_then(|e| e.previous_due)),
            "next_due" => date(entry.and_then(|e| e.next_due)),
            "status" => text(entry.and_then(|e| e.status).map(|s| s.as_str())),
            "inspection_due" => date(entry.and_then(|e| e.owed.as_ref()).map(|o| o.due)),
            "overdue" => bool_cell(entry.and_then(|e| e.owed.as_ref()).map(|o| o.overdue)),
            "borders_mhw" => bool_cell(facts.map(|f| f.borders_mhw)),
            "mhw_distance_ft" => facts
                .and_then(|f| f.shore.as_ref())
                .map_or(Cell::Null, |s| Cell::Float(s.parcel_distance_ft, 1)),
            "system_mhw_distance_ft" => {
                facts.and_then(|f| f.system_mhw_ft.ft()).map_or(Cell::Null, |d| Cell::Float(d, 1))
            }
            "citation" => text(entry.map(|e| e.citation.as_str())),
            _ => Cell::Text(Cow::Owned(match (&line.life.retired, facts) {
                (Some(retired), _) => retired.describe(),
                (None, Some(facts)) => crate::law::coverage::explain(&self.run.rules, facts),
                (None, None) => String::new(),
            })),
        }
    }
}

/// What the table of systems held, for the terminal.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SystemSummary {
    /// Systems in service.
    pub in_service: usize,
    /// Systems replaced.
    pub replaced: usize,
    /// Systems abandoned.
    pub abandoned: usize,
    /// Systems whose point could not be used (located by their parcel).
    pub by_parcel: usize,
    /// Systems lying on another lot than the parcel listing them.
    pub elsewhere: usize,
    /// Parcels with more than one system in service.
    pub several: usize,
}

impl SystemSummary {
    /// Counts the systems listed from `rows`.
    fn count(&mut self, rows: &[Row]) {
        for row in rows {
            let active = row.systems.iter().filter(|l| l.life.retired.is_none()).count();
            self.several += usize::from(active > 1);
            for line in row.systems.iter().filter(|l| l.listed_here) {
                match line.life.retired {
                    None => self.in_service += 1,
                    Some(Retired::Replaced { .. }) => self.replaced += 1,
                    Some(Retired::Abandoned(_)) => self.abandoned += 1,
                }
                self.by_parcel += usize::from(!line.placed);
                self.elsewhere += usize::from(line.lies_on.is_some());
            }
        }
    }
}

impl fmt::Display for SystemSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.in_service + self.replaced + self.abandoned;
        writeln!(
            f,
            "{total} systems: {} in service, {} replaced, {} abandoned; {} on another lot than the parcel they \
             serve, {} located by their parcel (point unusable); {} parcels with more than one in service",
            self.in_service, self.replaced, self.abandoned, self.elsewhere, self.by_parcel, self.several
        )
    }
}

/// Runs the schedule and writes `systems.<ext>` in `dir` in each of `formats` from the rows as they come,
/// keeping none. The run comes back without rows, with the summary counted on the way.
pub fn stream_systems_files(
    config: &Config,
    progress: &Progress,
    dir: &Path,
    formats: &[OutputFormat],
) -> Result<(Run, SystemSummary, Vec<PathBuf>)> {
    let mut files = TableFiles::new(dir, "systems", formats, &config.crs, COLUMNS, None)?;
    let mut summary = SystemSummary::default();
    let mut run = stream_schedule(config, progress, &mut |run, rows| {
        let table = SystemTable::of_rows(run, &rows);
        let parcels: Vec<usize> = rows.iter().map(|row| row.at).collect();
        files.add(run.parcels, &table, &|i| table.place(i), &parcels)?;
        summary.count(&rows);
        drop_on_all_cores(rows);
        Ok(())
    })?;
    let (writing, cpu) = (std::time::Instant::now(), crate::pipeline::cpu_time());
    let (staged, problems) = files.finish()?;
    let written = commit_all(staged)?;
    run.problems.extend(problems);
    run.timings.push(crate::pipeline::Lap::since("write systems", writing, cpu));
    Ok((run, summary, written))
}
