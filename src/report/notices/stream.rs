//! What the notices keep of each block of a run ([`NoticedParcel`]: a noticed parcel's record and mailing
//! fields and its noticed duties, the row let go), and the run that streams them ([`stream_notices`]): each
//! block's parcels are sorted into letters as they come and the duties that cannot be mailed are written to
//! `cannot_mail.csv` in their places, as [`crate::report::obligations::stream_obligations_files`] writes its
//! table, so that memory holds a block and the letters' items.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use geo::MultiPolygon;
use rayon::prelude::*;

use super::table::CANNOT_MAIL_COLUMNS;
use super::{last_sale, select, town, why, Address, CannotMail, Notices, Sorting};
use crate::classify::parcels::MailingAddress;
use crate::law::obligations::{Obligation, ObligationKind};
use crate::law::schedule::Row;
use crate::model::error::{Location, Problem, Result};
use crate::pipeline::config::Config;
use crate::pipeline::{Progress, Run};
use crate::program::batch::Item;
use crate::program::Store;
use crate::report::obligations::stream_obligations;
use crate::report::{drop_on_all_cores, OutputFormat, TableFiles};
use crate::rules::RuleSet;
use crate::write::commit_all;

/// What the notices keep of a parcel with a noticed obligation, taken from its row as the blocks pass: its
/// record and mailing fields, what the stage of its duties needs, and each noticed duty with what the letters
/// and tables print of it. The row itself is let go.
#[derive(Debug, Clone)]
pub struct NoticedParcel {
    /// The parcel's position.
    pub at: usize,
    /// The parcel id.
    pub id: String,
    /// The owner as the parcel layer has it.
    pub owner: Option<String>,
    /// The owner's mailing address as the parcel layer has it.
    pub mailing: Option<Box<MailingAddress>>,
    /// The parcel's shape, when the tables are written with geometry.
    pub shape: Option<MultiPolygon<f64>>,
    /// The day of its last inspection on record: it answers a chain of notices.
    pub answered: Option<NaiveDate>,
    /// Its last transfer on record: a sale restarts its chains of notices.
    pub sold: Option<NaiveDate>,
    /// Its noticed duties, by due date and kind; taken out by [`Notices::new`].
    pub duties: Vec<NoticedDuty>,
}

/// A noticed duty of a [`NoticedParcel`]: what its stage needs of the obligation, and its item.
#[derive(Debug, Clone)]
pub struct NoticedDuty {
    /// The obligation's kind.
    pub kind: ObligationKind,
    /// Its due date (a noticed duty has one).
    pub due: NaiveDate,
    /// Whether it is overdue.
    pub overdue: bool,
    /// What a letter, the tables and the store say of it. Its plain sentences (`words`) are left empty for a
    /// parcel whose mailing address cannot be used: no letter prints them.
    pub item: Item,
}

impl NoticedParcel {
    /// What the notices keep of `row`, last sold on `sold`, whose binding system is `system`, and of its
    /// `obligations` noticed for `year` under `rules` (`None` when it has none), in the order of [`select`];
    /// its shape only when `shapes`.
    pub fn of<'o>(
        rules: &RuleSet,
        row: &Row,
        (sold, system): (Option<NaiveDate>, Option<String>),
        obligations: impl IntoIterator<Item = &'o Obligation>,
        year: i32,
        shapes: bool,
    ) -> Option<NoticedParcel> {
        let mailable = Address::of(&row.parcel).is_ok();
        let duties: Vec<NoticedDuty> = select(obligations, rules, year)
            .into_iter()
            .map(|o| {
                let item = item(rules, row, system.as_ref(), o, mailable);
                NoticedDuty { kind: o.kind, due: item.due, overdue: o.overdue, item }
            })
            .collect();
        if duties.is_empty() {
            return None;
        }
        let parcel = &row.parcel;
        Some(NoticedParcel {
            at: row.at,
            id: parcel.id.to_string(),
            owner: parcel.owner.clone(),
            mailing: parcel.mailing.clone(),
            shape: parcel.shape.clone().filter(|_| shapes),
            answered: row.entry.last_inspection.as_ref().map(|l| l.date),
            sold,
            duties,
        })
    }
}

/// What the notices of a year need of the parcels with a noticed obligation, gathered from the blocks of a
/// run: a [`NoticedParcel`] each, sorted by position.
#[derive(Debug, Default)]
pub struct Noticed {
    /// The parcels with a noticed obligation, sorted by position.
    pub parcels: Vec<NoticedParcel>,
}

impl Noticed {
    /// Keeps what the notices of `year` need of `rows` (a block of `run`'s, or all of them) and their
    /// `found` obligations, each with the index of its row in `rows` (a parcel's together); their shapes only
    /// when `shapes`.
    fn keep(&mut self, run: &Run, rows: &[Row], found: &[(&Obligation, usize)], year: i32, shapes: bool) {
        let kept = found.par_chunk_by(|a, b| a.1 == b.1).filter_map(|parcel| {
            let row = &rows[parcel[0].1];
            let system = row.systems.iter().find(|l| l.binds);
            let system = system.map(|l| run.systems.id(l.index, l.served_first(&row.parcel.id)).into_owned());
            let record = (last_sale(run, row.at), system);
            NoticedParcel::of(&run.rules, row, record, parcel.iter().map(|(o, _)| *o), year, shapes)
        });
        self.parcels.par_extend(kept);
    }

    /// What the notices of `year` need of a whole `run` and its `obligations` (in the order
    /// [`crate::law::obligations::collect`] gives), shapes and all.
    pub fn of_run(run: &Run, obligations: &[Obligation], year: i32) -> Noticed {
        let mut noticed = Noticed::default();
        let found: Vec<(&Obligation, usize)> = obligations.iter().map(|o| (o, o.parcel)).collect();
        noticed.keep(run, &run.rows, &found, year, true);
        noticed.parcels.sort_unstable_by_key(|p| p.at);
        noticed
    }
}

/// Runs the schedule in blocks of `block` parcel records ([`crate::pipeline::PARCEL_BLOCK`], or tiny ones in
/// tests) and makes the notices of `year` as the blocks come, at the stages the program `store`'s record
/// calls for: of each block only what the notices print of its noticed parcels is kept ([`NoticedParcel`];
/// their shapes only when `shapes`, for tables with geometry), each duty is sorted into its owner's letter or
/// the duties waiting, and those that cannot be mailed are written to `cannot_mail.csv` in `dir` then and
/// there. The rows are let go block by block, as [`crate::report::buffer::stream_buffer_report`] keeps only
/// its hits. Returns the run (without rows, with the problems and notes of the obligations), the notices
/// (whose letters, waiting duties and tables are those [`Notices::new`] makes of the whole run) and the path
/// of `cannot_mail.csv`.
pub fn stream_notices(
    config: &Config,
    progress: &Progress,
    (year, block): (i32, usize),
    mut store: Option<&mut Store>,
    (dir, shapes): (&Path, bool),
) -> Result<(Run, Notices, PathBuf)> {
    let mut sorting = Sorting::new(&config.rules, year, config.as_of, store.as_deref())?;
    let csv = [OutputFormat::Csv];
    let mut files = TableFiles::new(dir, "cannot_mail", &csv, &config.crs, CANNOT_MAIL_COLUMNS, None)?;
    let mut run = stream_obligations(config, progress, block, &mut |run, rows, found| {
        let filled: Vec<usize> = rows.iter().map(|row| row.at).collect();
        let pairs: Vec<(&Obligation, usize)> =
            found.obligations.iter().zip(found.rows.iter().copied()).collect();
        let mut noticed = Noticed::default();
        noticed.keep(run, &rows, &pairs, year, shapes);
        drop(pairs);
        drop_on_all_cores(found.obligations);
        drop_on_all_cores(rows);
        // The store is borrowed uniquely, so that the block's work may move to another thread.
        let store = store.as_deref_mut().map(|store| &*store);
        for parcel in noticed.parcels {
            sorting.add(parcel, store)?;
        }
        let unmailed = std::mem::take(&mut sorting.cannot_mail);
        files.add(run.parcels, &CannotMail(&unmailed), &|i| unmailed[i].at, &filled)
    })?;
    let (staged, _) = files.finish()?;
    let cannot_mail = commit_all(staged)?.pop().unwrap_or_else(|| dir.join("cannot_mail.csv"));
    let notices = sorting.finish(store.as_deref())?;
    // A parcels layer without mailing fields cannot address a letter: one warning says which key to set.
    if let (Some(gap), Some(parcels)) = (&run.mailing_gap, &config.layers.parcels) {
        run.problems.push(Problem::new(parcels, Location::Fields, gap.clone()));
    }
    Ok((run, notices, cannot_mail))
}

/// What a letter, the tables and the store say of obligation `o` of `row` (whose binding system is `system`);
/// its plain sentences only when the parcel's owner can be `mailed`, since only a letter prints them.
fn item(rules: &RuleSet, row: &Row, system: Option<&String>, o: &Obligation, mailed: bool) -> Item {
    let periodic = o.kind == ObligationKind::PERIODIC_INSPECTION;
    Item {
        parcel_id: row.parcel.id.to_string(),
        system_id: system.filter(|_| periodic).cloned(),
        obligation: o.kind.to_string(),
        due: o.due.unwrap_or(NaiveDate::MIN),
        overdue: o.overdue,
        location: row.parcel.location.clone(),
        town: town(row).map(str::to_string),
        what: o.what.to_string(),
        citation: o.citation.to_string(),
        why: why(rules, row, o),
        words: match mailed {
            true => crate::report::wording::plain(o, row, rules).to_json(),
            false => String::new(),
        },
    }
}
