//! The annual notice list (`lakeshore notices --year Y`): which parcels get a letter for a year, and the
//! mail-merge table of their obligations (`notices.csv`). The letters and mailing labels printed from the
//! same list are in [`crate::report::letters`].
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
//! **One letter per owner.** The noticed obligations are grouped by the owner *and* the owner's mailing
//! address, each compared normalised ([`crate::report::mailing::owner_key`]: case, punctuation, "LAST, FIRST"
//! order, `&`/`AND`, "et al."; [`crate::report::mailing::address_key`]: case, punctuation, USPS
//! abbreviations, five-digit ZIP), so two owners at one address get two letters, and an owner of several
//! parcels gets one letter listing each parcel, each obligation and its due date. The table has one row per noticed obligation, numbered by letter. A parcel whose owner has no usable
//! mailing address (no street line, or neither a ZIP code nor a city and state) is not mailed: its
//! obligations go to the cannot-mail report ([`CannotMail`], `cannot_mail.csv`).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use geo::MultiPolygon;

use crate::classify::parcels::ParcelRecord;
use crate::law::obligations::{Obligation, ObligationKind};
use crate::law::schedule::Row;
use crate::model::error::{Location, Problem, Result};
use crate::model::table::{text, Cell, Kind, Table};
use crate::pipeline::config::Config;
use crate::pipeline::{Progress, Run};
use crate::report::drop_on_all_cores;
use crate::report::mailing;
use crate::report::obligations::stream_obligations;
use crate::rules::RuleSet;

/// The notice columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("letter", Kind::Int),
    ("parcel_id", Kind::Text),
    ("owner", Kind::Text),
    ("address", Kind::Text),
    ("city", Kind::Text),
    ("state", Kind::Text),
    ("zip", Kind::Text),
    ("location", Kind::Text),
    ("town", Kind::Text),
    ("obligation", Kind::Text),
    ("what", Kind::Text),
    ("due", Kind::Date),
    ("overdue", Kind::Bool),
    ("citation", Kind::Text),
    ("why", Kind::Text),
];

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
        let state_zip: Vec<&str> = self.state.iter().chain(&self.zip).copied().collect();
        match (self.city, state_zip.is_empty()) {
            (Some(city), false) => format!("{city}, {}", state_zip.join(" ")),
            (Some(city), true) => city.to_string(),
            (None, _) => state_zip.join(" "),
        }
    }

    /// The key letters are grouped by: the owner and the address, each normalised ([`mailing::owner_key`],
    /// [`mailing::address_key`]). Two owners at one address get a letter each.
    pub fn key(&self) -> String {
        let address = mailing::address_key(
            self.street,
            self.city.unwrap_or_default(),
            self.state.unwrap_or_default(),
            self.zip.unwrap_or_default(),
        );
        format!("{}|{address}", mailing::owner_key(self.owner.unwrap_or_default()))
    }
}

/// Rows of a run sorted by position, all of them or those of some parcels, found by position.
#[derive(Debug, Clone, Copy)]
struct Parcels<'n>(&'n [Row]);

impl<'n> Parcels<'n> {
    /// The row of the parcel at `at`, which must be among them.
    fn at(self, at: usize) -> &'n Row {
        match self.0.get(at) {
            // All the rows of a run: row `at` is the parcel's.
            Some(row) if row.at == at => row,
            _ => &self.0[self.0.partition_point(|row| row.at < at)],
        }
    }
}

/// One letter: the noticed obligations of every parcel with the same owner at the same mailing address.
#[derive(Debug, Clone, Copy)]
pub struct Letter<'n> {
    /// 1-based number of the letter (its page in `letters.html`, its `letter` in `notices.csv`).
    pub number: usize,
    /// The noticed obligations, by parcel (in id order) and due date; never empty.
    pub items: &'n [&'n Obligation],
    rows: Parcels<'n>,
}

impl<'n> Letter<'n> {
    /// The schedule row of obligation `o`'s parcel.
    pub fn row(&self, o: &Obligation) -> &'n Row {
        self.rows.at(o.parcel)
    }

    /// The parcels of the letter, in id order.
    pub fn parcels(&self) -> impl Iterator<Item = &'n Row> + '_ {
        self.items.chunk_by(|a, b| a.parcel == b.parcel).map(|group| self.rows.at(group[0].parcel))
    }

    /// Where the letter goes: the mailing address of its first parcel, which all its parcels share once
    /// normalised, to the owners of all of them.
    pub fn address(&self) -> Address<'n> {
        Address::of(&self.rows.at(self.items[0].parcel).parcel).expect("letters hold mailable parcels only")
    }

    /// The owner the letter is addressed to, as the first of its parcels that names one writes the name (every
    /// parcel of a letter has the same owner once normalised); `None` when no parcel names one.
    pub fn owner(&self) -> Option<String> {
        self.parcels()
            .find_map(|row| row.parcel.owner.as_deref().map(str::trim).filter(|n| !n.is_empty()))
            .map(str::to_string)
    }
}

/// The notices of one year: the selected obligations of a run, grouped into one letter per owner mailing
/// address. A [`Table`], one row per noticed obligation with its letter number, so every output format can
/// be written (`notices.csv`). The obligations of parcels whose owner has no usable mailing address are kept
/// apart ([`Notices::cannot_mail`]), never dropped.
pub struct Notices<'a> {
    rules: Arc<RuleSet>,
    rows: Parcels<'a>,
    year: i32,
    items: Vec<&'a Obligation>,
    letters: Vec<Range<usize>>,
    cannot_mail: Vec<(&'a Obligation, &'static str)>,
}

/// The notices for `year` of `obligations`, whose parcels are rows of `run`: letters in the order of their
/// first parcel's id, each listing its parcels in id order.
pub fn notices<'a>(run: &'a Run, obligations: &'a [Obligation], year: i32) -> Notices<'a> {
    notices_among(&run.rules, &run.rows, obligations, year)
}

/// [`notices`] under `rules` with `rows` sorted by position: all of a run's, or only those of the parcels of
/// the obligations noticed ([`stream_noticed`]).
pub fn notices_among<'a>(
    rules: &Arc<RuleSet>,
    rows: &'a [Row],
    obligations: &'a [Obligation],
    year: i32,
) -> Notices<'a> {
    let rows = Parcels(rows);
    let selected = select(obligations, rules, year);
    let mut groups: Vec<Vec<&'a Obligation>> = Vec::new();
    let mut by_key: rustc_hash::FxHashMap<String, usize> = Default::default();
    let mut cannot_mail = Vec::new();
    for parcel in selected.chunk_by(|a, b| a.parcel == b.parcel) {
        match Address::of(&rows.at(parcel[0].parcel).parcel) {
            Ok(address) => {
                let next = groups.len();
                let at = *by_key.entry(address.key()).or_insert(next);
                if at == next {
                    groups.push(Vec::new());
                }
                groups[at].extend_from_slice(parcel);
            }
            Err(why) => cannot_mail.extend(parcel.iter().map(|o| (*o, why))),
        }
    }
    let mut items = Vec::with_capacity(selected.len());
    let mut letters = Vec::with_capacity(groups.len());
    for group in groups {
        letters.push(items.len()..items.len() + group.len());
        items.extend(group);
    }
    Notices { rules: Arc::clone(rules), rows, year, items, letters, cannot_mail }
}

/// The obligations noticed for a year and the rows of their parcels, gathered from the blocks of a run.
#[derive(Debug, Default)]
pub struct Noticed {
    /// The rows of the parcels with a noticed obligation, sorted by position.
    pub rows: Vec<Row>,
    /// The noticed obligations, each parcel's together.
    pub obligations: Vec<Obligation>,
}

/// Runs the schedule in blocks of `block` parcel records ([`crate::pipeline::PARCEL_BLOCK`], or tiny ones in tests)
/// and keeps, of each block as it comes, only the obligations noticed for `year` and the rows of their
/// parcels ([`stream_obligations`]): the notices need no other. The run comes back without rows, with the
/// problems and notes of the obligations; [`notices_among`] makes the notices of what was kept.
pub fn stream_noticed(
    config: &Config,
    progress: &Progress,
    year: i32,
    block: usize,
) -> Result<(Run, Noticed)> {
    let mut noticed = Noticed::default();
    let run = stream_obligations(config, progress, block, &mut |run, rows, found| {
        let mut keep = vec![false; rows.len()];
        for (o, i) in found.obligations.into_iter().zip(found.rows) {
            if is_noticed(&o, &run.rules, year) {
                keep[i] = true;
                noticed.obligations.push(o);
            }
        }
        let (kept, left): (Vec<_>, Vec<_>) = rows.into_iter().zip(keep).partition(|(_, keep)| *keep);
        noticed.rows.extend(kept.into_iter().map(|(row, _)| row));
        drop_on_all_cores(left);
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

impl<'a> Notices<'a> {
    /// The year noticed.
    pub fn year(&self) -> i32 {
        self.year
    }

    /// The rule set the obligations are owed under.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The noticed obligations that are mailed, letter by letter.
    pub fn items(&self) -> &[&'a Obligation] {
        &self.items
    }

    /// The number of letters (owner mailing addresses noticed).
    pub fn letter_count(&self) -> usize {
        self.letters.len()
    }

    /// The letters, one per owner mailing address.
    pub fn letters(&self) -> impl Iterator<Item = Letter<'_>> + '_ {
        self.letters.iter().enumerate().map(|(i, range)| Letter {
            number: i + 1,
            items: &self.items[range.clone()],
            rows: self.rows,
        })
    }

    /// The noticed obligations that cannot be mailed, each with what is missing, by parcel: the
    /// `cannot_mail.csv` report ([`CannotMail`]).
    pub fn cannot_mail(&self) -> &[(&'a Obligation, &'static str)] {
        &self.cannot_mail
    }

    /// Why `obligation` is owed, in a sentence: the schedule's reason for the periodic inspection, otherwise
    /// what started the obligation and its particulars.
    pub fn why(&self, obligation: &Obligation) -> String {
        if obligation.kind == ObligationKind::PERIODIC_INSPECTION {
            let mut reason = String::new();
            self.rows.at(obligation.parcel).push_reason(&self.rules, &mut reason);
            return reason;
        }
        let trigger = obligation.trigger.as_str().replace('-', " ");
        let mut why = match obligation.since {
            Some(since) => format!("Because of the {trigger} of {since}"),
            None => format!("Because of the {trigger}"),
        };
        if let Some(detail) = obligation.detail.as_deref().filter(|d| !d.is_empty()) {
            why.push_str(": ");
            why.push_str(detail);
        }
        why.push('.');
        why
    }

    /// The 1-based letter number of table row `row`.
    fn letter_of(&self, row: usize) -> usize {
        self.letters.partition_point(|r| r.end <= row) + 1
    }

    /// The cell of obligation `o` in a column shared by `notices.csv` and `cannot_mail.csv`.
    fn obligation_cell<'s>(&'s self, o: &'s Obligation, column: &str) -> Cell<'s> {
        let r = self.rows.at(o.parcel);
        match column {
            "parcel_id" => Cell::Text(Cow::Borrowed(&r.parcel.id)),
            "owner" => text(r.parcel.owner.as_deref()),
            "location" => text(r.parcel.location.as_deref()),
            "town" => text(town(r)),
            "obligation" => Cell::Text(Cow::Borrowed(o.kind.as_str())),
            "what" => Cell::Text(Cow::Borrowed(&o.what)),
            "due" => o.due.map_or(Cell::Null, Cell::Date),
            "overdue" => Cell::Bool(o.overdue),
            "citation" => Cell::Text(Cow::Borrowed(&o.citation)),
            _ => Cell::Text(Cow::Owned(self.why(o))),
        }
    }
}

/// The parcel's town: the classified one, else the parcel layer's attribute (as the obligations table).
pub fn town(row: &Row) -> Option<&str> {
    row.facts.as_ref().and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref())
}

impl Table for Notices<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        self.rows.at(self.items[row].parcel).parcel.shape.as_ref()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let o = self.items[row];
        let address = || Address::of(&self.rows.at(o.parcel).parcel).ok();
        match COLUMNS[column].0 {
            "letter" => Cell::Int(self.letter_of(row) as i64),
            "address" => text(address().map(|a| a.street)),
            "city" => text(address().and_then(|a| a.city)),
            "state" => text(address().and_then(|a| a.state)),
            "zip" => text(address().and_then(|a| a.zip)),
            name => self.obligation_cell(o, name),
        }
    }
}

/// The `cannot_mail.csv` columns, in order.
pub const CANNOT_MAIL_COLUMNS: &[(&str, Kind)] = &[
    ("parcel_id", Kind::Text),
    ("owner", Kind::Text),
    ("location", Kind::Text),
    ("town", Kind::Text),
    ("obligation", Kind::Text),
    ("what", Kind::Text),
    ("due", Kind::Date),
    ("overdue", Kind::Bool),
    ("citation", Kind::Text),
    ("cannot_mail_because", Kind::Text),
    ("why", Kind::Text),
];

/// The noticed obligations whose owner has no usable mailing address, one row each with what is missing:
/// `cannot_mail.csv`, for the office to find the address or deliver by hand.
pub struct CannotMail<'n, 'a>(pub &'n Notices<'a>);

impl Table for CannotMail<'_, '_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        CANNOT_MAIL_COLUMNS
    }

    fn len(&self) -> usize {
        self.0.cannot_mail.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        self.0.rows.at(self.0.cannot_mail[row].0.parcel).parcel.shape.as_ref()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let (o, because) = self.0.cannot_mail[row];
        match CANNOT_MAIL_COLUMNS[column].0 {
            "cannot_mail_because" => Cell::Text(Cow::Borrowed(because)),
            name => self.0.obligation_cell(o, name),
        }
    }
}

#[cfg(test)]
mod tests;
