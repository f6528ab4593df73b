//! The notices as tables: `notices.csv` (one row per duty: those the batch's letters notice, in letter order,
//! then those already noticed and waiting), `letters.csv` (one row per letter, its duties joined in order, for
//! a word processor's mail merge) and `cannot_mail.csv` (the duties staff must deliver otherwise).

use std::borrow::Cow;

use geo::MultiPolygon;

use super::{city_line, Notices, Unmailed, Waiting};
use crate::model::table::{text, Cell, Kind, Table};
use crate::program::batch::{Item, Letter};
use crate::report::letters::{long_date, NO_OWNER};

/// The `notices.csv` columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("letter", Kind::Text),
    ("stage", Kind::Text),
    ("served", Kind::Text),
    ("already_noticed", Kind::Bool),
    ("noticed_on", Kind::Date),
    ("next_stage_on", Kind::Date),
    ("parcel_id", Kind::Text),
    ("system_id", Kind::Text),
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

/// One row of `notices.csv`: a duty of a letter of the batch, or one waiting.
enum Line<'n> {
    Printed(&'n Letter, &'n Item, usize),
    Waiting(&'n Waiting),
}

impl Notices {
    /// Row `row` of `notices.csv`.
    fn line(&self, row: usize) -> Line<'_> {
        let printed = self.item_count();
        if row >= printed {
            return Line::Waiting(&self.waiting[row - printed]);
        }
        // The letter whose items hold the row: the last that starts at or before it.
        let l = self.starts.partition_point(|&start| start <= row) - 1;
        let (letter, n) = (&self.batch.letters[l], row - self.starts[l]);
        let at = self.at.get(l).and_then(|a| a.get(n)).copied().unwrap_or(usize::MAX);
        Line::Printed(letter, &letter.items[n], at)
    }
}

/// The cell of `item` in a column shared by the tables of duties.
fn item_cell<'s>(item: &'s Item, column: &str) -> Cell<'s> {
    match column {
        "parcel_id" => Cell::Text(Cow::Borrowed(&item.parcel_id)),
        "system_id" => text(item.system_id.as_deref()),
        "location" => text(item.location.as_deref()),
        "town" => text(item.town.as_deref()),
        "obligation" => Cell::Text(Cow::Borrowed(&item.obligation)),
        "what" => Cell::Text(Cow::Borrowed(&item.what)),
        "due" => Cell::Date(item.due),
        "overdue" => Cell::Bool(item.overdue),
        "citation" => Cell::Text(Cow::Borrowed(&item.citation)),
        "why" => Cell::Text(Cow::Borrowed(&item.why)),
        _ => Cell::Null,
    }
}

impl Table for Notices {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.item_count() + self.waiting.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        match self.line(row) {
            Line::Printed(_, _, at) => self.shape(at),
            Line::Waiting(w) => self.shape(w.at),
        }
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let name = COLUMNS[column].0;
        match self.line(row) {
            Line::Printed(letter, item, _) => match name {
                "letter" => Cell::Text(Cow::Borrowed(&letter.number)),
                "stage" => Cell::Text(Cow::Borrowed(letter.stage.as_str())),
                "served" => Cell::Text(Cow::Borrowed(letter.served.as_str())),
                "already_noticed" => Cell::Bool(false),
                "noticed_on" => Cell::Date(self.batch.issued),
                "next_stage_on" => Cell::Null,
                "owner" => text(letter.owner.as_deref()),
                "address" => Cell::Text(Cow::Borrowed(&letter.street)),
                "city" => text(letter.city.as_deref()),
                "state" => text(letter.state.as_deref()),
                "zip" => text(letter.zip.as_deref()),
                name => item_cell(item, name),
            },
            Line::Waiting(w) => {
                let mailing = w.mailing.as_deref();
                match name {
                    "letter" => Cell::Text(Cow::Borrowed(&w.letter)),
                    "stage" => Cell::Text(Cow::Borrowed(w.stage.as_str())),
                    "served" => Cell::Null,
                    "already_noticed" => Cell::Bool(true),
                    "noticed_on" => Cell::Date(w.noticed_on),
                    "next_stage_on" => w.next_on.map_or(Cell::Null, Cell::Date),
                    "owner" => text(w.owner.as_deref()),
                    "address" => text(mailing.and_then(|m| m.street.as_deref())),
                    "city" => text(mailing.and_then(|m| m.city.as_deref())),
                    "state" => text(mailing.and_then(|m| m.state.as_deref())),
                    "zip" => text(mailing.and_then(|m| m.zip.as_deref())),
                    name => item_cell(&w.item, name),
                }
            }
        }
    }
}

/// The `cannot_mail.csv` columns, in order.
pub const CANNOT_MAIL_COLUMNS: &[(&str, Kind)] = &[
    ("parcel_id", Kind::Text),
    ("owner", Kind::Text),
    ("location", Kind::Text),
    ("town", Kind::Text),
    ("stage", Kind::Text),
    ("obligation", Kind::Text),
    ("what", Kind::Text),
    ("due", Kind::Date),
    ("overdue", Kind::Bool),
    ("citation", Kind::Text),
    ("cannot_mail_because", Kind::Text),
    ("why", Kind::Text),
];

/// The noticed duties that cannot be mailed, one row each with why: `cannot_mail.csv`, for staff to find the
/// address or deliver by hand. It carries no geometry: it is written as CSV alone.
pub struct CannotMail<'n>(pub &'n [Unmailed]);

impl Table for CannotMail<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        CANNOT_MAIL_COLUMNS
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn geometry(&self, _: usize) -> Option<&MultiPolygon<f64>> {
        None
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let u = &self.0[row];
        match CANNOT_MAIL_COLUMNS[column].0 {
            "owner" => text(u.owner.as_deref()),
            "stage" => Cell::Text(Cow::Borrowed(u.stage.as_str())),
            "cannot_mail_because" => Cell::Text(Cow::Borrowed(&u.because)),
            name => item_cell(&u.item, name),
        }
    }
}

/// The `letters.csv` columns, in order: one row per letter.
pub const MERGE_COLUMNS: &[(&str, Kind)] = &[
    ("letter", Kind::Text),
    ("stage", Kind::Text),
    ("served", Kind::Text),
    ("date", Kind::Text),
    ("owner", Kind::Text),
    ("address_line1", Kind::Text),
    ("address_line2", Kind::Text),
    ("zip", Kind::Text),
    ("parcel_ids", Kind::Text),
    ("item_count", Kind::Int),
    ("first_due", Kind::Date),
    ("items", Kind::Text),
];

/// The letters of a batch, one row each with its duties joined in order: `letters.csv`, for a word
/// processor's mail merge, in the letters' order.
pub struct MergeTable<'n>(pub &'n Notices);

impl Table for MergeTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        MERGE_COLUMNS
    }

    fn len(&self) -> usize {
        self.0.letter_count()
    }

    fn geometry(&self, _: usize) -> Option<&MultiPolygon<f64>> {
        None
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let letter = &self.0.batch.letters[row];
        match MERGE_COLUMNS[column].0 {
            "letter" => Cell::Text(Cow::Borrowed(&letter.number)),
            "stage" => Cell::Text(Cow::Borrowed(letter.stage.as_str())),
            "served" => Cell::Text(Cow::Borrowed(letter.served.words())),
            "date" => Cell::Text(Cow::Owned(long_date(self.0.batch.issued))),
            "owner" => Cell::Text(Cow::Borrowed(letter.owner.as_deref().unwrap_or(NO_OWNER))),
            "address_line1" => Cell::Text(Cow::Borrowed(&letter.street)),
            "address_line2" => Cell::Text(Cow::Owned(city_line(
                letter.city.as_deref(),
                letter.state.as_deref(),
                letter.zip.as_deref(),
            ))),
            "zip" => text(letter.zip.as_deref()),
            "parcel_ids" => Cell::Text(Cow::Owned(parcel_ids(letter).join(", "))),
            "item_count" => Cell::Int(letter.items.len() as i64),
            "first_due" => letter.items.iter().map(|i| i.due).min().map_or(Cell::Null, Cell::Date),
            _ => Cell::Text(Cow::Owned(items_text(letter))),
        }
    }
}

/// The parcels of a letter, in the order of its items, each once.
pub fn parcel_ids(letter: &Letter) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for item in &letter.items {
        if ids.last() != Some(&item.parcel_id.as_str()) {
            ids.push(&item.parcel_id);
        }
    }
    ids
}

/// A letter's duties in one text, each "1. Parcel ...: what, due by ... (citation)", joined by " | " (a table
/// cell carries no line break).
fn items_text(letter: &Letter) -> String {
    let lines: Vec<String> = letter
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let when = match item.overdue {
                true => format!("overdue since {}", long_date(item.due)),
                false => format!("due by {}", long_date(item.due)),
            };
            format!("{}. Parcel {}: {}, {when} ({})", i + 1, item.parcel_id, item.what, item.citation)
        })
        .collect();
    lines.join(" | ")
}
