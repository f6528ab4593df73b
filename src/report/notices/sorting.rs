//! The notices made a parcel at a time ([`Sorting`]): each noticed duty goes to its owner's letter, to the
//! duties already noticed and waiting, or to those that cannot be mailed, as the program store's record calls
//! for; once every parcel has come, the letters are put in bulk-mail order and numbered.

use std::sync::Arc;

use chrono::{Datelike, NaiveDate};
use geo::MultiPolygon;
use rustc_hash::FxHashMap;

use super::{starts, Address, NoticeHistory, NoticedDuty, NoticedParcel, Notices, Unmailed, Waiting};
use crate::law::escalation::Next;
use crate::model::error::Result;
use crate::program::batch::{letter_number, Batch, Letter};
use crate::program::Store;
use crate::report::mailing;
use crate::rules::notices::{Service, Stage};
use crate::rules::RuleSet;

/// The notices of a year as they are made, a parcel at a time: the letters so far (each with the positions of
/// its items' parcels), the duties waiting, the shapes the tables draw, and the duties that cannot be mailed
/// since they were last taken. The parcels may come in any order (a run's blocks come in the order of the
/// parcels file): [`Sorting::finish`] puts each letter's items in order of position, and orders letters and
/// duties waiting as they would be had the parcels come in order of position.
pub(super) struct Sorting {
    rules: Arc<RuleSet>,
    year: i32,
    as_of: NaiveDate,
    /// The addresses the post returned mail from, by owner and address (normalised): the letter and day.
    returned: FxHashMap<(String, String), (String, NaiveDate)>,
    /// The letter of each owner, address, stage and service, by index in `letters`.
    groups: FxHashMap<(String, String, Stage, Service), usize>,
    /// Each letter, with the position of each item's parcel and the first item's position and index among
    /// its parcel's duties.
    letters: Vec<(Letter, Vec<usize>, (usize, usize))>,
    shapes: Vec<(usize, MultiPolygon<f64>)>,
    waiting: Vec<Waiting>,
    /// The duties that cannot be mailed, of the parcels added since they were last taken.
    pub(super) cannot_mail: Vec<Unmailed>,
    /// How many duties could not be mailed in all.
    unmailed: usize,
}

impl Sorting {
    /// The notices of `year` issued on `as_of` under `rules`, before any parcel, with the addresses the
    /// program `store` knows the post returned mail from.
    pub(super) fn new(
        rules: &Arc<RuleSet>,
        year: i32,
        as_of: NaiveDate,
        store: Option<&Store>,
    ) -> Result<Sorting> {
        let returned = match store {
            Some(store) => store
                .returned_addresses()?
                .into_iter()
                .map(|r| ((r.owner_key, r.address_key), (r.letter, r.day)))
                .collect(),
            None => FxHashMap::default(),
        };
        Ok(Sorting {
            rules: Arc::clone(rules),
            year,
            as_of,
            returned,
            groups: FxHashMap::default(),
            letters: Vec::new(),
            shapes: Vec::new(),
            waiting: Vec::new(),
            cannot_mail: Vec::new(),
            unmailed: 0,
        })
    }

    /// Sorts the duties of `parcel` at the stages the program `store`'s record calls for (without one, every
    /// duty at its first notice): into its owner's letter, the duties waiting, or those that cannot be mailed.
    pub(super) fn add(&mut self, parcel: NoticedParcel, store: Option<&Store>) -> Result<()> {
        let NoticedParcel { at, id, owner, mailing, shape, answered, sold, duties } = parcel;
        let rules = &*self.rules;
        let record = NoticeHistory::of_parcel(store, &id, owner.as_deref(), (answered, sold))?;
        let address = Address::of_owner(owner.as_deref(), mailing.as_deref());
        let owner_key = &record.owner_key;
        // Whether the parcel has a row in `notices.csv`, which draws its shape.
        let mut listed = false;
        let unmailed = self.cannot_mail.len();
        for (k, NoticedDuty { kind, due, overdue, item }) in duties.into_iter().enumerate() {
            let stage = match record.next_of(rules, (kind, due, overdue), self.as_of) {
                Next::Notice(stage) => stage,
                Next::Waiting { stage, letter, issued, next } => {
                    let (owner, mailing) = (owner.clone(), mailing.clone());
                    let noticed_on = issued;
                    self.waiting.push(Waiting {
                        letter,
                        stage,
                        noticed_on,
                        next_on: next,
                        item,
                        at,
                        owner,
                        mailing,
                    });
                    listed = true;
                    continue;
                }
            };
            let address = match &address {
                Ok(address) => address,
                Err(why) => {
                    let because = why.to_string();
                    self.cannot_mail.push(Unmailed { item, stage, because, at, owner: owner.clone() });
                    continue;
                }
            };
            let address_key = address.key();
            if let Some((letter, day)) = self.returned.get(&(owner_key.clone(), address_key.clone())) {
                let because = format!(
                    "mail to this owner at this address came back undeliverable on {day} (letter {letter}); \
                     find the owner's address: the duty is mailed again once the parcel layer gives a new one"
                );
                self.cannot_mail.push(Unmailed { item, stage, because, at, owner: owner.clone() });
                continue;
            }
            let served =
                rules.notices.as_ref().map_or(Service::FirstClass, |n| n.served(stage, kind.as_str()));
            let key = (owner_key.clone(), address_key.clone(), stage, served);
            let next = self.letters.len();
            let index = *self.groups.entry(key).or_insert(next);
            // A letter is addressed as its first parcel in order of position has it (one owner and address,
            // normalised, may be written several ways).
            if index == next || (at, k) < self.letters[index].2 {
                let letter = Letter {
                    number: String::new(),
                    stage,
                    served,
                    owner: owner.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string),
                    owner_key: owner_key.clone(),
                    street: address.street.to_string(),
                    city: address.city.map(str::to_string),
                    state: address.state.map(str::to_string),
                    zip: address.zip.map(str::to_string),
                    address_key,
                    items: Vec::new(),
                };
                match self.letters.get_mut(index) {
                    Some((earlier, _, first)) => {
                        *earlier = Letter { items: std::mem::take(&mut earlier.items), ..letter };
                        *first = (at, k);
                    }
                    None => self.letters.push((letter, Vec::new(), (at, k))),
                }
            }
            let (letter, positions, _) = &mut self.letters[index];
            letter.items.push(item);
            positions.push(at);
            listed = true;
        }
        self.unmailed += self.cannot_mail.len() - unmailed;
        if let (true, Some(shape)) = (listed, shape) {
            self.shapes.push((at, shape));
        }
        Ok(())
    }

    /// The notices: the letters in bulk-mail order (ZIP code, address, owner, stage), numbered in that order
    /// from the program `store`'s next letter number (without one, from 1); the duties waiting by letter and
    /// parcel.
    pub(super) fn finish(self, store: Option<&Store>) -> Result<Notices> {
        let Sorting {
            rules, year, as_of, mut letters, mut shapes, mut waiting, cannot_mail, unmailed, ..
        } = self;
        // Each letter's items in order of position (a parcel's duties stay in their order), the letters in
        // bulk-mail order, those alike in it (one owner, address and stage served two ways) by first item.
        for (letter, positions, _) in &mut letters {
            let mut items: Vec<_> = positions.drain(..).zip(letter.items.drain(..)).collect();
            items.sort_by_key(|(at, _)| *at);
            (*positions, letter.items) = items.into_iter().unzip();
        }
        letters.sort_by(|(a, _, first_a), (b, _, first_b)| {
            let zip = |l: &Letter| mailing::zip5(l.zip.as_deref().unwrap_or_default());
            (zip(a), &a.address_key, &a.owner_key, a.stage, first_a).cmp(&(
                zip(b),
                &b.address_key,
                &b.owner_key,
                b.stage,
                first_b,
            ))
        });
        let first = match store {
            Some(store) => store.next_serial(as_of.year())?,
            None => 1,
        };
        let mut at = Vec::with_capacity(letters.len());
        let mut printed = Vec::with_capacity(letters.len());
        for (n, (mut letter, positions, _)) in letters.into_iter().enumerate() {
            letter.number = letter_number(as_of.year(), first + n as u32);
            printed.push(letter);
            at.push(positions);
        }
        // By letter and parcel; a parcel's duties in their order.
        waiting
            .sort_by(|a, b| (&a.letter, &a.item.parcel_id, a.at).cmp(&(&b.letter, &b.item.parcel_id, b.at)));
        shapes.sort_unstable_by_key(|(at, _)| *at);
        let batch = Batch { id: None, year, issued: as_of, letters: printed };
        let starts = starts(&batch);
        Ok(Notices { rules, year, batch, at, shapes, starts, waiting, cannot_mail, unmailed })
    }
}
