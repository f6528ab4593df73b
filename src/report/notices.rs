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

mod sorting;
mod stream;
pub mod table;

use std::sync::Arc;

use chrono::NaiveDate;
use geo::MultiPolygon;
use rustc_hash::FxHashMap;

use crate::classify::parcels::{MailingAddress, ParcelRecord};
use crate::law::escalation::{self, Duty, Next};
use crate::law::obligations::{Found, Obligation, ObligationKind};
use crate::law::schedule::Row;
use crate::model::error::Result;
use crate::pipeline::Run;
use crate::program::batch::{Batch, Item};
use crate::program::Store;
use crate::report::mailing;
use crate::rules::notices::Stage;
use crate::rules::vocabulary::TRANSFER;
use crate::rules::RuleSet;

use sorting::Sorting;
pub use stream::{stream_notices, Noticed, NoticedDuty, NoticedParcel};
pub use table::{CannotMail, MergeTable};

/// Whether `obligation` is noticed for `year` under `rules` (the selection rule of the module docs): the
/// owner owes it by the end of the year ([`crate::law::obligations::owner_owes_by`]).
pub fn is_noticed(obligation: &Obligation, rules: &RuleSet, year: i32) -> bool {
    crate::law::obligations::owner_owes_by(obligation, rules, year)
}

/// The obligations noticed for `year`, sorted by parcel, due date and kind (the order of
/// [`crate::law::obligations::collect`]), so each parcel's obligations stand together.
pub fn select<'a>(
    obligations: impl IntoIterator<Item = &'a Obligation>,
    rules: &RuleSet,
    year: i32,
) -> Vec<&'a Obligation> {
    let mut chosen: Vec<&Obligation> =
        obligations.into_iter().filter(|o| is_noticed(o, rules, year)).collect();
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
        Address::of_owner(parcel.owner.as_deref(), parcel.mailing.as_deref())
    }

    /// The mailing address `mailing` of `owner`, or why a letter cannot be addressed from it (see
    /// [`Address::of`]).
    pub fn of_owner(
        owner: Option<&'a str>,
        mailing: Option<&'a MailingAddress>,
    ) -> std::result::Result<Self, &'static str> {
        let present = |v: &'a Option<String>| v.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let Some(m) = mailing else {
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
        Ok(Address { owner, street, city, state, zip })
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
        let answered = row.entry.last_inspection.as_ref().map(|l| l.date);
        NoticeHistory::of_parcel(store, &row.parcel.id, row.parcel.owner.as_deref(), (answered, sold))
    }

    /// The record of parcel `id` of `owner`, last inspected on `answered` and sold on `sold`, in `store`.
    fn of_parcel(
        store: Option<&Store>,
        id: &str,
        owner: Option<&str>,
        (answered, sold): (Option<NaiveDate>, Option<NaiveDate>),
    ) -> Result<NoticeHistory> {
        Ok(NoticeHistory {
            history: match store {
                Some(store) => store.noticed(id)?,
                None => Vec::new(),
            },
            owner_key: mailing::owner_key(owner.unwrap_or_default()),
            answered,
            sold,
        })
    }

    /// What the notices of duty `o` call for on `as_of` under `rules` ([`escalation::next`] of its
    /// [`escalation::chain`]); `None` for a duty without a due date, which is never noticed.
    pub fn next(&self, rules: &RuleSet, o: &Obligation, as_of: NaiveDate) -> Option<Next> {
        Some(self.next_of(rules, (o.kind, o.due?, o.overdue), as_of))
    }

    /// What the notices of a duty of `kind` due on `due` (`overdue` or not) call for on `as_of`.
    fn next_of(
        &self,
        rules: &RuleSet,
        (kind, due, overdue): (ObligationKind, NaiveDate, bool),
        as_of: NaiveDate,
    ) -> Next {
        let duty = Duty { kind: kind.as_str(), due, owner: &self.owner_key, sold: self.sold };
        let chain = escalation::chain(kind, due, overdue, self.answered, &self.history);
        escalation::next(rules.notices.as_ref(), &duty, &chain, as_of)
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
    let mut sorted: Vec<&Obligation> = obligations.iter().collect();
    sorted.sort_by_key(|o| o.parcel);
    let rows =
        sorted.into_iter().filter_map(|o| Some((run.rows.get(o.parcel).filter(|r| r.at == o.parcel)?, o)));
    stages_of(run, rows, as_of, store)
}

/// [`stages`] of a block of `rows` of `run` and their obligations `found` ([`ByParcel::rows`]), as the
/// blocks of a streamed run come.
///
/// [`ByParcel::rows`]: crate::law::obligations::ByParcel::rows
pub fn block_stages(
    run: &Run,
    rows: &[Row],
    found: &Found,
    as_of: NaiveDate,
    store: Option<&Store>,
) -> Result<FxHashMap<usize, escalation::Issued>> {
    stages_of(run, found.obligations.iter().zip(&found.rows).map(|(o, &r)| (&rows[r], o)), as_of, store)
}

/// [`stages`] of the obligations of `owed`, each with its parcel's row, a parcel's one after another.
fn stages_of<'a>(
    run: &Run,
    owed: impl Iterator<Item = (&'a Row, &'a Obligation)>,
    as_of: NaiveDate,
    store: Option<&Store>,
) -> Result<FxHashMap<usize, escalation::Issued>> {
    let mut found: FxHashMap<usize, escalation::Issued> = FxHashMap::default();
    let Some(store) = store else { return Ok(found) };
    let mut record: Option<(usize, NoticeHistory)> = None;
    for (row, o) in owed {
        let at = row.at;
        if record.as_ref().is_none_or(|(of, _)| *of != at) {
            record = Some((at, NoticeHistory::of(Some(store), row, last_sale(run, at))?));
        }
        let Some((_, record)) = &record else { continue };
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
    /// The owner as the parcel layer has it.
    pub owner: Option<String>,
    /// The owner's mailing address as the parcel layer has it.
    pub mailing: Option<Box<MailingAddress>>,
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
    /// The owner as the parcel layer has it.
    pub owner: Option<String>,
}

/// The notices of one batch: the letters it prints, the duties already noticed and waiting, and those that
/// cannot be mailed, each with what the tables and letters print of it.
pub struct Notices {
    rules: Arc<RuleSet>,
    year: i32,
    /// The letters to print, in number order.
    pub batch: Batch,
    /// Per letter, per item: the parcel's position (for its shape); empty for a batch read from the store.
    at: Vec<Vec<usize>>,
    /// The shapes of the parcels with a duty in `notices.csv`, by position, where they were kept.
    shapes: Vec<(usize, MultiPolygon<f64>)>,
    /// Per letter, the number of items of the letters before it: its first row in `notices.csv`.
    starts: Vec<usize>,
    waiting: Vec<Waiting>,
    /// The duties that cannot be mailed, where they were kept ([`Notices::new`]; [`stream_notices`] writes
    /// them as their blocks come).
    cannot_mail: Vec<Unmailed>,
    /// How many duties cannot be mailed.
    unmailed: usize,
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
        let mut sorting = Sorting::new(rules, year, as_of, store)?;
        for parcel in noticed.parcels {
            sorting.add(parcel, store)?;
        }
        sorting.finish(store)
    }

    /// The notices of an issued `batch` read back from the store, to print again: its letters alone.
    pub fn reprint(rules: &Arc<RuleSet>, batch: Batch) -> Notices {
        Notices {
            rules: Arc::clone(rules),
            year: batch.year,
            starts: starts(&batch),
            batch,
            at: Vec::new(),
            shapes: Vec::new(),
            waiting: Vec::new(),
            cannot_mail: Vec::new(),
            unmailed: 0,
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

    /// The duties that cannot be mailed, with why, when the notices were made by [`Notices::new`] (those of
    /// [`stream_notices`] are written to `cannot_mail.csv` as their blocks come, and only counted here).
    pub fn cannot_mail(&self) -> &[Unmailed] {
        &self.cannot_mail
    }

    /// How many duties cannot be mailed.
    pub fn cannot_mail_count(&self) -> usize {
        self.unmailed
    }

    /// The letters of each stage, counted.
    pub fn by_stage(&self) -> Vec<(Stage, usize)> {
        Stage::ALL
            .into_iter()
            .map(|s| (s, self.batch.letters.iter().filter(|l| l.stage == s).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The shape of the parcel at position `at`, where it was kept.
    fn shape(&self, at: usize) -> Option<&MultiPolygon<f64>> {
        let i = self.shapes.binary_search_by_key(&at, |(at, _)| *at).ok()?;
        Some(&self.shapes[i].1)
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
