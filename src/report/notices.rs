//! The year's notices (`lakeshore notices --year Y`): which duties owners are sent a letter about, at which
//! stage, in which letters and under which numbers. The letters and labels printed from them are in
//! [`crate::report::letters`] and [`crate::report::labels`]; the tables (`notices.csv`, one row per duty;
//! `letters.csv`, one row per letter for a mail merge; `cannot_mail.csv`) in [`table`].
//!
//! **Selection rule.** An open obligation (as [`crate::law::obligations::collect`] found it on the as-of date)
//! is noticed for year `Y` when all of these hold:
//!
//! - the owner owes it: the periodic inspection, the interim-permit renewal, or any other obligation whose
//!   `who` is `owner` (obligations of the health department, inspectors or the town board are not mailed);
//! - it has a due date on or before December 31 of `Y`: due within the year, or due earlier and still open
//!   (which, on January 1 of `Y`, means overdue). An obligation the law sets no time for (a floodplain
//!   elevation, a refinancing report) is not on the list: no date can be given for it;
//! - it is not a right that lapses (a clock with `lapses = true`, such as an appeal window): a notice
//!   demands duties, not the use of rights;
//! - it is still open: a breach corrected late is listed in the obligations, not mailed; and it is not a
//!   staff item such as a permit term the Health Department has still to set (`permit-term`).
//!
//! **Its stage.** What the program store says was issued for the duty decides what it calls for now
//! ([`crate::law::escalation::next`]): a first notice, the next stage of a chain left unanswered, or nothing
//! yet. A duty already noticed at its stage is listed (`already_noticed`, with its letter and date) but not
//! printed again. Without a store (a draft before any batch was issued) every duty is at its first notice.
//!
//! **One letter per owner, address and stage.** The duties are grouped by the owner *and* the owner's
//! mailing address, each compared normalised ([`crate::report::mailing::owner_key`]: case, punctuation,
//! "LAST, FIRST" order, `&`/`AND`, "et al."; [`crate::report::mailing::address_key`]: case, punctuation, USPS
//! abbreviations, five-digit ZIP), and by stage, since a final notice is served otherwise than a first one.
//! So two owners at one address get two letters, and an owner of several parcels one letter listing each
//! parcel, each duty and its due date.
//!
//! **Bulk-mail order.** Letters are ordered by ZIP code, then address, then owner and stage, and numbered in
//! that order (`2027-000123`, from the store's next number), so letters, labels and the merge table pair up.
//!
//! **Not mailed.** A parcel whose owner has no usable mailing address (no street line, or neither a ZIP code
//! nor a city and state), or whose owner's mail came back undeliverable from the address the parcel layer
//! still gives, is not mailed: its duties go to the cannot-mail report ([`table::CannotMail`]) with the
//! reason, for staff.

pub mod table;

use std::sync::Arc;

use chrono::{Datelike, NaiveDate};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::classify::parcels::ParcelRecord;
use crate::law::escalation::{self, Duty, Next};
use crate::law::obligations::{Obligation, ObligationKind};
use crate::law::schedule::Row;
use crate::model::error::{Location, Problem, Result};
use crate::pipeline::config::Config;
use crate::pipeline::{Progress, Run};
use crate::program::batch::{letter_number, Batch, Item, Letter};
use crate::program::Store;
use crate::report::drop_on_all_cores;
use crate::report::mailing;
use crate::report::obligations::stream_obligations;
use crate::rules::notices::{Service, Stage};
use crate::rules::vocabulary::TRANSFER;
use crate::rules::RuleSet;

pub use table::{CannotMail, MergeTable};

/// Whether `obligation` is noticed for `year` under `rules` (the selection rule of the module docs): the
/// owner owes it by the end of the year ([`crate::law::obligations::owner_owes_by`]).
pub fn is_noticed(obligation: &Obligation, rules: &RuleSet, year: i32) -> bool {
    crate::law::obligations::owner_owes_by(obligation, rules, year)
}

/// The obligations noticed for `year`, sorted by parcel, due date and kind (the order of
/// [`crate::law::obligations::collect`]), so each parcel's obligations stand together.
pub fn select<'a>(obligations: &'a [Obligation], rules: &RuleSet, year: i32) -> Vec<&'a Obligation> {
    let mut chosen: Vec<&Obligation> = obligations.iter().filter(|o| is_noticed(o, rules, year)).collect();
    chosen.sort_by_key(|o| (o.parcel, o.due, o.kind));
    chosen
}

/// Where a letter is addressed: the owner's mailing address as the parcel layer keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address<'a> {
    /// The owner as the parcel layer has it; `None` when it has no owner.
    pub owner: Option<&'a str>,
    /// The street or post-office box line.
    pub street: &'a str,
    /// City or post office.
    pub city: Option<&'a str>,
    /// State.
    pub state: Option<&'a str>,
    /// ZIP code.
    pub zip: Option<&'a str>,
}

impl<'a> Address<'a> {
    /// The parcel's mailing address, or why a letter cannot be addressed from it: a street line and either a
    /// ZIP code or a city and state are needed.
    pub fn of(parcel: &'a ParcelRecord) -> std::result::Result<Self, &'static str> {
        let present = |v: &'a Option<String>| v.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let Some(m) = parcel.mailing.as_deref() else {
            return Err(
                "the parcel layer gives no mailing address for this parcel; add it to the owner's record",
            );
        };
        let Some(street) = present(&m.street) else {
            return Err("the mailing address has no street or post-office box line; complete it");
        };
        let (city, state, zip) = (present(&m.city), present(&m.state), present(&m.zip));
        if zip.is_none() && (city.is_none() || state.is_none()) {
            return Err("the mailing address has neither a ZIP code nor a city and state; complete it");
        }
        Ok(Address { owner: parcel.owner.as_deref(), street, city, state, zip })
    }

    /// The last line: `City, ST 12345`, from the parts there are.
    pub fn city_line(&self) -> String {
        city_line(self.city, self.state, self.zip)
    }

    /// The address, normalised ([`mailing::address_key`]).
    pub fn key(&self) -> String {
        mailing::address_key(
            self.street,
            self.city.unwrap_or_default(),
            self.state.unwrap_or_default(),
            self.zip.unwrap_or_default(),
        )
    }
}

/// The last line of an address: `City, ST 12345`, from the parts there are.
pub fn city_line(city: Option<&str>, state: Option<&str>, zip: Option<&str>) -> String {
    let state_zip: Vec<&str> = state.iter().chain(&zip).copied().collect();
    match (city, state_zip.is_empty()) {
        (Some(city), false) => format!("{city}, {}", state_zip.join(" ")),
        (Some(city), true) => city.to_string(),
        (None, _) => state_zip.join(" "),
    }
}

/// The parcel's town: the classified one, else the parcel layer's attribute (as the obligations table).
pub fn town(row: &Row) -> Option<&str> {
    row.facts.as_ref().and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref())
}

/// The obligations noticed for a year, the rows of their parcels and what the notices need to know of each
/// of those parcels, gathered from the blocks of a run.
#[derive(Debug, Default)]
pub struct Noticed {
    /// The rows of the parcels with a noticed obligation, sorted by position.
    pub rows: Vec<Row>,
    /// The noticed obligations, each parcel's together.
    pub obligations: Vec<Obligation>,
    /// The last transfer on record of each of those parcels that has one, by position.
    pub sold: FxHashMap<usize, NaiveDate>,
    /// The system that binds each of those parcels' rows, by position, where the register names one.
    pub systems: FxHashMap<usize, String>,
}

impl Noticed {
    /// What the notices of `year` need of `rows` (a block of `run`'s, or all of them) and their
    /// `obligations` (row `i`'s in `at[i]`), the rows kept taken out of `rows`.
    fn keep(&mut self, run: &Run, rows: Vec<Row>, found: Vec<(Obligation, usize)>, year: i32) {
        let mut keep = vec![false; rows.len()];
        for (o, i) in found {
            if is_noticed(&o, &run.rules, year) {
                keep[i] = true;
                self.obligations.push(o);
            }
        }
        let (kept, left): (Vec<_>, Vec<_>) = rows.into_iter().zip(keep).partition(|(_, keep)| *keep);
        for (row, _) in kept {
            let at = row.at;
            if let Some(sale) = last_sale(run, at) {
                self.sold.insert(at, sale);
            }
            if let Some(line) = row.systems.iter().find(|l| l.binds) {
                self.systems
                    .insert(at, run.systems.id(line.index, line.served_first(&row.parcel.id)).into_owned());
            }
            self.rows.push(row);
        }
        drop_on_all_cores(left);
    }

    /// What the notices of `year` need of a whole `run` and its `obligations` (in the order
    /// [`crate::law::obligations::collect`] gives), the noticed parcels' rows copied.
    pub fn of_run(run: &Run, obligations: &[Obligation], year: i32) -> Noticed {
        let mut noticed = Noticed::default();
        let wanted: FxHashSet<usize> =
            obligations.iter().filter(|o| is_noticed(o, &run.rules, year)).map(|o| o.parcel).collect();
        let rows: Vec<Row> = run.rows.iter().filter(|r| wanted.contains(&r.at)).cloned().collect();
        let position: FxHashMap<usize, usize> = rows.iter().enumerate().map(|(i, r)| (r.at, i)).collect();
        let found = obligations
            .iter()
            .filter(|o| position.contains_key(&o.parcel))
            .map(|o| (o.clone(), position[&o.parcel]))
            .collect();
        noticed.keep(run, rows, found, year);
        noticed
    }

    /// The row of the parcel at position `at`, which must be among them.
    fn row(&self, at: usize) -> &Row {
        &self.rows[self.rows.partition_point(|row| row.at < at)]
    }
}

/// Runs the schedule in blocks of `block` parcel records ([`crate::pipeline::PARCEL_BLOCK`], or tiny ones in
/// tests) and keeps, of each block as it comes, only the obligations noticed for `year` and the rows of their
/// parcels ([`stream_obligations`]): the notices need no other. The run comes back without rows, with the
/// problems and notes of the obligations; [`Notices::new`] makes the notices of what was kept.
pub fn stream_noticed(
    config: &Config,
    progress: &Progress,
    year: i32,
    block: usize,
) -> Result<(Run, Noticed)> {
    let mut noticed = Noticed::default();
    let run = stream_obligations(config, progress, block, &mut |run, rows, found| {
        noticed.keep(run, rows, found.obligations.into_iter().zip(found.rows).collect(), year);
        Ok(())
    })?;
    noticed.rows.sort_unstable_by_key(|row| row.at);
    // A parcels layer without mailing fields cannot address a letter: one warning says which key to set.
    let mut run = run;
    if let (Some(gap), Some(parcels)) = (&run.mailing_gap, &config.layers.parcels) {
        run.problems.push(Problem::new(parcels, Location::Fields, gap.clone()));
    }
    Ok((run, noticed))
}

/// The last transfer on record of the parcel at position `at` of `run`: a sale restarts its chains of notices.
fn last_sale(run: &Run, at: usize) -> Option<NaiveDate> {
    let events = crate::records::events::events_of(&run.events, at);
    events.iter().filter(|e| e.kind == TRANSFER).map(|e| e.date).max()
}

/// What the program store recorded of one parcel's notices, as the stages of its duties need it: the notices
/// issued for it, its owner (normalised), its last inspection and its last sale. The notices and the map ask
/// it alike, so both tell a duty's stage one way.
#[derive(Debug, Clone, Default)]
pub struct NoticeHistory {
    history: Vec<crate::program::batch::Noticed>,
    /// The owner the parcel layer names, normalised ([`mailing::owner_key`]).
    pub owner_key: String,
    answered: Option<NaiveDate>,
    sold: Option<NaiveDate>,
}

impl NoticeHistory {
    /// The record of the parcel of `row`, sold last on `sold`, in `store` (none: nothing was ever issued).
    pub fn of(store: Option<&Store>, row: &Row, sold: Option<NaiveDate>) -> Result<NoticeHistory> {
        Ok(NoticeHistory {
            history: match store {
                Some(store) => store.noticed(&row.parcel.id)?,
                None => Vec::new(),
            },
            owner_key: mailing::owner_key(row.parcel.owner.as_deref().unwrap_or_default()),
            answered: row.entry.last_inspection.as_ref().map(|l| l.date),
            sold,
        })
    }

    /// What the notices of duty `o` call for on `as_of` under `rules` ([`escalation::next`] of its
    /// [`escalation::chain`]); `None` for a duty without a due date, which is never noticed.
    pub fn next(&self, rules: &RuleSet, o: &Obligation, as_of: NaiveDate) -> Option<Next> {
        let due = o.due?;
        let duty = Duty { kind: o.kind.as_str(), due, owner: &self.owner_key, sold: self.sold };
        let chain = escalation::chain(o.kind, due, o.overdue, self.answered, &self.history);
        Some(escalation::next(rules.notices.as_ref(), &duty, &chain, as_of))
    }
}

/// The last notice each parcel of `run` reached for its open `obligations` on `as_of`, as the program `store`
/// recorded it and [`NoticeHistory::next`] reads it (the latest stage of any of its duties), by position; for
/// the map. A parcel none of whose duties was noticed is not in it.
pub fn stages(
    run: &Run,
    obligations: &[Obligation],
    as_of: NaiveDate,
    store: Option<&Store>,
) -> Result<FxHashMap<usize, escalation::Issued>> {
    let mut found: FxHashMap<usize, escalation::Issued> = FxHashMap::default();
    let Some(store) = store else { return Ok(found) };
    let mut sorted: Vec<&Obligation> = obligations.iter().collect();
    sorted.sort_by_key(|o| o.parcel);
    for parcel in sorted.chunk_by(|a, b| a.parcel == b.parcel) {
        let at = parcel[0].parcel;
        let Some(row) = run.rows.get(at).filter(|r| r.at == at) else { continue };
        let record = NoticeHistory::of(Some(store), row, last_sale(run, at))?;
        for o in parcel {
            if let Some(Next::Waiting { stage, letter, issued, .. }) = record.next(&run.rules, o, as_of) {
                if found.get(&at).is_none_or(|n| (n.stage, n.issued) < (stage, issued)) {
                    let owner = record.owner_key.clone();
                    found.insert(
                        at,
                        escalation::Issued { stage, letter, issued, received: None, returned: None, owner },
                    );
                }
            }
        }
    }
    Ok(found)
}

/// A duty already noticed at the stage it is at, nothing more due yet: listed, not printed again.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    /// The letter that noticed it.
    pub letter: String,
    /// The stage it was noticed at.
    pub stage: Stage,
    /// The day it was issued.
    pub noticed_on: NaiveDate,
    /// The day its next stage falls due, still unanswered; `None` after a referral.
    pub next_on: Option<NaiveDate>,
    /// The duty.
    pub item: Item,
    /// The parcel's position.
    pub at: usize,
}

/// A duty that cannot be mailed, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmailed {
    /// The duty.
    pub item: Item,
    /// The stage it would be noticed at.
    pub stage: Stage,
    /// Why it cannot be mailed, and what staff can do.
    pub because: String,
    /// The parcel's position.
    pub at: usize,
}

/// The notices of one batch: the letters it prints, the duties already noticed and waiting, and those that
/// cannot be mailed, each with what the tables and letters print of it.
pub struct Notices {
    rules: Arc<RuleSet>,
    year: i32,
    noticed: Noticed,
    /// The letters to print, in number order.
    pub batch: Batch,
    /// Per letter, per item: the parcel's position (for its shape); empty for a batch read from the store.
    at: Vec<Vec<usize>>,
    /// Per letter, the number of items of the letters before it: its first row in `notices.csv`.
    starts: Vec<usize>,
    waiting: Vec<Waiting>,
    cannot_mail: Vec<Unmailed>,
}

/// The notices of `year` of a whole `run`'s `obligations` on `as_of`, with no program store: every duty at its
/// first notice, letters numbered from 1.
pub fn notices(run: &Run, obligations: &[Obligation], year: i32, as_of: NaiveDate) -> Notices {
    let noticed = Noticed::of_run(run, obligations, year);
    Notices::new(&run.rules, noticed, year, as_of, None)
        .unwrap_or_else(|e| unreachable!("notices without a store read nothing: {e}"))
}

impl Notices {
    /// The notices of `year` of what `noticed` kept, issued on `as_of`, at the stages the program `store`'s
    /// record calls for (without one, every duty at its first notice), in bulk-mail order, numbered from the
    /// store's next letter number.
    pub fn new(
        rules: &Arc<RuleSet>,
        noticed: Noticed,
        year: i32,
        as_of: NaiveDate,
        store: Option<&Store>,
    ) -> Result<Notices> {
        let returned: FxHashMap<(String, String), (String, NaiveDate)> = match store {
            Some(store) => store
                .returned_addresses()?
                .into_iter()
                .map(|r| ((r.owner_key, r.address_key), (r.letter, r.day)))
                .collect(),
            None => FxHashMap::default(),
        };
        let mut groups: FxHashMap<(String, String, Stage, Service), usize> = FxHashMap::default();
        let mut letters: Vec<(Letter, Vec<usize>)> = Vec::new();
        let mut waiting = Vec::new();
        let mut cannot_mail = Vec::new();
        let selected = select(&noticed.obligations, rules, year);
        for parcel in selected.chunk_by(|a, b| a.parcel == b.parcel) {
            let at = parcel[0].parcel;
            let row = noticed.row(at);
            let record = NoticeHistory::of(store, row, noticed.sold.get(&at).copied())?;
            let address = Address::of(&row.parcel);
            let owner_key = record.owner_key.clone();
            for o in parcel {
                let item = item(rules, row, noticed.systems.get(&at), o);
                let stage = match record.next(rules, o, as_of) {
                    None => continue,
                    Some(Next::Notice(stage)) => stage,
                    Some(Next::Waiting { stage, letter, issued, next }) => {
                        waiting.push(Waiting { letter, stage, noticed_on: issued, next_on: next, item, at });
                        continue;
                    }
                };
                let address = match &address {
                    Ok(address) => address,
                    Err(why) => {
                        cannot_mail.push(Unmailed { item, stage, because: why.to_string(), at });
                        continue;
                    }
                };
                let address_key = address.key();
                if let Some((letter, day)) = returned.get(&(owner_key.clone(), address_key.clone())) {
                    let because = format!(
                        "mail to this owner at this address came back undeliverable on {day} (letter {letter}); \
                         find the owner's address: the duty is mailed again once the parcel layer gives a new one"
                    );
                    cannot_mail.push(Unmailed { item, stage, because, at });
                    continue;
                }
                let served =
                    rules.notices.as_ref().map_or(Service::FirstClass, |n| n.served(stage, o.kind.as_str()));
                let key = (owner_key.clone(), address_key.clone(), stage, served);
                let next = letters.len();
                let index = *groups.entry(key).or_insert(next);
                if index == next {
                    let letter = Letter {
                        number: String::new(),
                        stage,
                        served,
                        owner: row
                            .parcel
                            .owner
                            .as_deref()
                            .map(str::trim)
                            .filter(|n| !n.is_empty())
                            .map(str::to_string),
                        owner_key: owner_key.clone(),
                        street: address.street.to_string(),
                        city: address.city.map(str::to_string),
                        state: address.state.map(str::to_string),
                        zip: address.zip.map(str::to_string),
                        address_key,
                        items: Vec::new(),
                    };
                    letters.push((letter, Vec::new()));
                }
                letters[index].0.items.push(item);
                letters[index].1.push(at);
            }
        }
        // Bulk-mail order: ZIP code, address, owner, stage; numbered in that order.
        letters.sort_by(|(a, _), (b, _)| {
            let zip = |l: &Letter| mailing::zip5(l.zip.as_deref().unwrap_or_default());
            (zip(a), &a.address_key, &a.owner_key, a.stage).cmp(&(
                zip(b),
                &b.address_key,
                &b.owner_key,
                b.stage,
            ))
        });
        let first = match store {
            Some(store) => store.next_serial(as_of.year())?,
            None => 1,
        };
        let mut at = Vec::with_capacity(letters.len());
        let mut printed = Vec::with_capacity(letters.len());
        for (n, (mut letter, positions)) in letters.into_iter().enumerate() {
            letter.number = letter_number(as_of.year(), first + n as u32);
            printed.push(letter);
            at.push(positions);
        }
        waiting.sort_by(|a, b| (&a.letter, &a.item.parcel_id).cmp(&(&b.letter, &b.item.parcel_id)));
        let batch = Batch { id: None, year, issued: as_of, letters: printed };
        let starts = starts(&batch);
        Ok(Notices { rules: Arc::clone(rules), year, noticed, batch, at, starts, waiting, cannot_mail })
    }

    /// The notices of an issued `batch` read back from the store, to print again: its letters alone.
    pub fn reprint(rules: &Arc<RuleSet>, batch: Batch) -> Notices {
        Notices {
            rules: Arc::clone(rules),
            year: batch.year,
            noticed: Noticed::default(),
            starts: starts(&batch),
            batch,
            at: Vec::new(),
            waiting: Vec::new(),
            cannot_mail: Vec::new(),
        }
    }

    /// The year noticed.
    pub fn year(&self) -> i32 {
        self.year
    }

    /// The rule set the obligations are owed under.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The number of letters.
    pub fn letter_count(&self) -> usize {
        self.batch.letters.len()
    }

    /// The number of duties the letters notice.
    pub fn item_count(&self) -> usize {
        self.starts.last().zip(self.batch.letters.last()).map_or(0, |(start, l)| start + l.items.len())
    }

    /// The duties already noticed at their stage, nothing more due yet.
    pub fn waiting(&self) -> &[Waiting] {
        &self.waiting
    }

    /// The duties that cannot be mailed, with why.
    pub fn cannot_mail(&self) -> &[Unmailed] {
        &self.cannot_mail
    }

    /// The letters of each stage, counted.
    pub fn by_stage(&self) -> Vec<(Stage, usize)> {
        Stage::ALL
            .into_iter()
            .map(|s| (s, self.batch.letters.iter().filter(|l| l.stage == s).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The row of the parcel at position `at`, when the notices were made from a run.
    fn row(&self, at: usize) -> Option<&Row> {
        (!self.noticed.rows.is_empty()).then(|| self.noticed.row(at))
    }
}

/// Per letter of `batch`, the number of items of the letters before it.
fn starts(batch: &Batch) -> Vec<usize> {
    let mut before = 0;
    batch
        .letters
        .iter()
        .map(|l| {
            let start = before;
            before += l.items.len();
            start
        })
        .collect()
}

/// What a letter, the tables and the store say of obligation `o` of `row` (whose binding system is `system`).
fn item(rules: &RuleSet, row: &Row, system: Option<&String>, o: &Obligation) -> Item {
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
        words: crate::report::wording::plain(o, row, rules).to_json(),
    }
}

/// Why `o` is owed, in a sentence: the schedule's reason for the periodic inspection, otherwise what started
/// the obligation and its particulars.
pub fn why(rules: &RuleSet, row: &Row, o: &Obligation) -> String {
    if o.kind == ObligationKind::PERIODIC_INSPECTION {
        let mut reason = String::new();
        row.push_reason(rules, &mut reason);
        return reason;
    }
    let trigger = o.trigger.as_str().replace('-', " ");
    let mut why = match o.since {
        Some(since) => format!("Because of the {trigger} of {since}"),
        None => format!("Because of the {trigger}"),
    };
    if let Some(detail) = o.detail.as_deref().filter(|d| !d.is_empty()) {
        why.push_str(": ");
        why.push_str(detail);
    }
    why.push('.');
    why
}

#[cfg(test)]
mod tests;
