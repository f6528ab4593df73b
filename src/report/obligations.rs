//! The obligations as a table: one row per open obligation, sorted by parcel id, due date and kind, with
//! the parcel's shape for the map formats.

use std::borrow::Cow;

use geo::MultiPolygon;

use std::path::{Path, PathBuf};

use super::{drop_on_all_cores, OutputFormat, TableFiles};
use crate::law::obligations::{ByParcel, Found, Obligation, ParcelNotes};
use crate::law::schedule::Row;
use crate::model::error::Result;
use crate::model::table::{text, Cell, Kind, Table};
use crate::pipeline::config::Config;
use crate::pipeline::{stream_schedule_in_blocks, Progress, Run, PARCEL_BLOCK};
use crate::write::commit_all;

/// The obligations columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("parcel_id", Kind::Text),
    ("town", Kind::Text),
    ("owner", Kind::Text),
    ("location", Kind::Text),
    ("obligation", Kind::Text),
    ("what", Kind::Text),
    ("who", Kind::Text),
    ("trigger", Kind::Text),
    ("since", Kind::Date),
    ("due", Kind::Date),
    ("overdue", Kind::Bool),
    ("corrected", Kind::Date),
    ("detail", Kind::Text),
    ("citation", Kind::Text),
    ("source", Kind::Text),
];

/// Obligations of a run viewed as a [`Table`].
pub struct ObligationTable<'a> {
    rows: &'a [Row],
    obligations: &'a [Obligation],
    /// For each obligation, the index of its parcel's row in `rows`; `None` when `rows` are a whole run's,
    /// where that index is the obligation's parcel.
    row_of: Option<&'a [usize]>,
}

impl<'a> ObligationTable<'a> {
    /// The table of `obligations`, whose parcels are rows of `run`.
    pub fn new(run: &'a Run, obligations: &'a [Obligation]) -> Self {
        ObligationTable { rows: &run.rows, obligations, row_of: None }
    }

    /// The table of the obligations `found` for a block of rows (see [`crate::law::obligations::ByParcel::rows`]).
    pub fn of_block(rows: &'a [Row], found: &'a Found) -> Self {
        ObligationTable { rows, obligations: &found.obligations, row_of: Some(&found.rows) }
    }

    /// The row of the parcel of obligation `i`.
    fn row(&self, i: usize) -> &'a Row {
        match self.row_of {
            Some(row_of) => &self.rows[row_of[i]],
            None => &self.rows[self.obligations[i].parcel],
        }
    }
}

impl Table for ObligationTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.obligations.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        self.row(row).parcel.shape.as_ref()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let o = &self.obligations[row];
        let r = self.row(row);
        let date = |d: Option<chrono::NaiveDate>| d.map_or(Cell::Null, Cell::Date);
        match column {
            0 => Cell::Text(Cow::Borrowed(&r.parcel.id)),
            1 => text(r.facts.as_ref().and_then(|f| f.town.as_deref()).or(r.parcel.town.as_deref())),
            2 => text(r.parcel.owner.as_deref()),
            3 => text(r.parcel.location.as_deref()),
            4 => Cell::Text(Cow::Borrowed(o.kind.as_str())),
            5 => Cell::Text(Cow::Borrowed(&o.what)),
            6 => Cell::Text(o.who.text()),
            7 => Cell::Text(Cow::Borrowed(o.trigger.as_str())),
            8 => date(o.since),
            9 => date(o.due),
            10 => Cell::Bool(o.overdue),
            11 => date(o.corrected),
            12 => text(o.detail.as_deref()),
            13 => Cell::Text(Cow::Borrowed(&o.citation)),
            _ => text(o.source.as_deref()),
        }
    }
}

/// Runs the schedule and writes `obligations.<ext>` in `dir` in each of `formats` from each block of rows as
/// it comes: the block's obligations are found ([`ByParcel`]), handed to every file in the places of their
/// parcels and the rows let go, so a county of millions of parcels needs little memory. The run comes back
/// without rows (see [`crate::pipeline::stream_schedule`]), its notes and problems with those of the
/// obligations, and the summary counted on the way. The files are those the [`ObligationTable`] of the whole
/// run's obligations writes.
pub fn stream_obligations_files(
    config: &Config,
    progress: &Progress,
    dir: &Path,
    formats: &[OutputFormat],
) -> Result<(Run, ObligationSummary, Vec<PathBuf>)> {
    stream_obligations_files_in_blocks(config, progress, dir, formats, PARCEL_BLOCK)
}

/// [`stream_obligations_files`] with blocks of `block` parcel records (see [`stream_schedule_in_blocks`]);
/// the files do not depend on the block size, which the tests check with tiny blocks.
pub fn stream_obligations_files_in_blocks(
    config: &Config,
    progress: &Progress,
    dir: &Path,
    formats: &[OutputFormat],
    block: usize,
) -> Result<(Run, ObligationSummary, Vec<PathBuf>)> {
    let mut files = TableFiles::new(dir, "obligations", formats, &config.crs, COLUMNS, None)?;
    let mut summary = ObligationSummary { as_of: Some(config.as_of), ..Default::default() };
    let mut run = stream_obligations(config, progress, block, &mut |run, rows, found| {
        let table = ObligationTable::of_block(&rows, &found);
        let parcels: Vec<usize> = rows.iter().map(|row| row.at).collect();
        files.add(run.parcels, &table, &|i| found.obligations[i].parcel, &parcels)?;
        summary.count(&found.obligations);
        drop_on_all_cores(found.obligations);
        drop_on_all_cores(rows);
        Ok(())
    })?;
    let (writing, cpu) = (std::time::Instant::now(), crate::pipeline::cpu_time());
    let (staged, problems) = files.finish()?;
    let written = commit_all(staged)?;
    run.problems.extend(problems);
    run.timings.push(crate::pipeline::Lap::since("write obligations", writing, cpu));
    Ok((run, summary, written))
}

/// A consumer of the blocks of [`stream_obligations`]: the run as it stands, a block's rows and their
/// obligations.
pub type BlockObligations<'a> = dyn FnMut(&Run, Vec<Row>, Found) -> Result<()> + Send + 'a;

/// Runs the schedule in blocks of `block` parcel records and hands each block's rows to `each` with their
/// obligations on the as-of date ([`ByParcel::rows`]; their problems and notes taken out). The run comes back
/// without rows (see [`stream_schedule_in_blocks`]), with the problems and notes of the obligations added to
/// its own as [`crate::pipeline::Run::obligations`] gives them.
pub fn stream_obligations(
    config: &Config,
    progress: &Progress,
    block: usize,
    each: &mut BlockObligations<'_>,
) -> Result<Run> {
    let as_of = config.as_of;
    let mut by_parcel: Option<ByParcel> = None;
    let mut problems = crate::pipeline::Problems::new();
    let mut notes = ParcelNotes::default();
    let mut run = stream_schedule_in_blocks(config, progress, block, &mut |run, rows| {
        // The record files are all read before the first block comes.
        let by_parcel = by_parcel.get_or_insert_with(|| ByParcel::new(&run.records(), &run.rules, as_of));
        let mut found = by_parcel.rows(&rows, &run.inspections.reports);
        problems.extend(found.problems.drain(..));
        notes.append(std::mem::take(&mut found.notes));
        each(run, rows, found)
    })?;
    let by_parcel = by_parcel.unwrap_or_else(|| ByParcel::new(&run.records(), &run.rules, as_of));
    run.notes.extend(by_parcel.notes(notes));
    run.problems.append(problems)?;
    Ok(run)
}

/// Counts of open obligations per kind, for the terminal (breaches corrected late are listed in the table
/// but not counted as open).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObligationSummary {
    /// The as-of date.
    pub as_of: Option<chrono::NaiveDate>,
    /// Per kind: (open, overdue).
    pub per_kind: std::collections::BTreeMap<String, (usize, usize)>,
    /// Parcels with at least one open obligation.
    pub parcels: usize,
    /// Breaches corrected late (listed in the table, not open).
    pub corrected: usize,
}

impl ObligationSummary {
    /// Counts `obligations`.
    pub fn of(obligations: &[Obligation], as_of: chrono::NaiveDate) -> Self {
        let mut s = ObligationSummary { as_of: Some(as_of), ..Default::default() };
        s.count(obligations);
        s
    }

    /// Adds `obligations` to the counts, for obligations found a block of rows at a time: sorted by parcel
    /// within the block, and no parcel's in two blocks.
    pub fn count(&mut self, obligations: &[Obligation]) {
        let open = || obligations.iter().filter(|o| o.corrected.is_none());
        for o in open() {
            let counts = match self.per_kind.get_mut(o.kind.as_str()) {
                Some(counts) => counts,
                None => self.per_kind.entry(o.kind.to_string()).or_default(),
            };
            counts.0 += 1;
            counts.1 += usize::from(o.overdue);
        }
        let mut parcels = open().map(|o| o.parcel).peekable();
        while let Some(parcel) = parcels.next() {
            self.parcels += 1;
            while parcels.next_if_eq(&parcel).is_some() {}
        }
        self.corrected += obligations.iter().filter(|o| o.corrected.is_some()).count();
    }
}

impl std::fmt::Display for ObligationSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let total: usize = self.per_kind.values().map(|c| c.0).sum();
        let overdue: usize = self.per_kind.values().map(|c| c.1).sum();
        let day = self.as_of.map(|d| format!(" on {d}")).unwrap_or_default();
        writeln!(f, "{total} open obligations{day} on {} parcels, {overdue} overdue", self.parcels)?;
        for (kind, (open, late)) in &self.per_kind {
            writeln!(f, "  {kind:<28} {open:>7} open {late:>7} overdue")?;
        }
        if self.corrected > 0 {
            writeln!(
                f,
                "{} breaches corrected late (listed with the day they were corrected)",
                self.corrected
            )?;
        }
        Ok(())
    }
}
