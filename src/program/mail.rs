//! What the post said of a letter: received on a day (a return receipt, a signature) or returned
//! undeliverable (`lakeshore received`, `lakeshore returned`).
//!
//! A receipt dates the notice's reaching the owner, from which the next stage counts. A returned letter is no
//! notice: its items are noticed again once the parcel layer gives the owner a new address, and until then
//! every item for that owner at that address is left to staff (`cannot_mail.csv`), never mailed again.

use chrono::NaiveDate;
use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::{day, Store};
use crate::model::error::{Error, Result};

/// What the post said of a letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mail {
    /// Received on the day a return receipt or a signature gives.
    Received,
    /// Returned undeliverable on the day.
    Returned,
}

impl Mail {
    /// Its name in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Mail::Received => "received",
            Mail::Returned => "returned",
        }
    }
}

/// An address mail came back from: the owner and address, normalised, the letter and the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnedAddress {
    /// The owner, normalised.
    pub owner_key: String,
    /// The address, normalised.
    pub address_key: String,
    /// The letter returned.
    pub letter: String,
    /// The day it came back.
    pub day: NaiveDate,
}

impl Store {
    /// Records that each of `letters` was `what` on its day, recorded on `today`, in one transaction: all of
    /// them or, when one is no issued letter of the store or was already marked with another day, none, the
    /// error naming each such letter. Returns the letters newly marked (one marked again on the same day is
    /// left as it was).
    pub fn mark(&mut self, what: Mail, letters: &[(String, NaiveDate)], today: NaiveDate) -> Result<usize> {
        let path = self.path.clone();
        let sql = |e| super::damaged(&path, e);
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(sql)?;
        let mut mistakes = Vec::new();
        let mut marked = 0;
        for (letter, on) in letters {
            let issued: Option<String> = tx
                .query_row(
                    "SELECT b.issued FROM letter l JOIN batch b ON b.id = l.batch WHERE l.number = ?1 AND b.state = 'issued'",
                    [letter],
                    |r| r.get(0),
                )
                .optional()
                .map_err(sql)?;
            let Some(issued) = issued.as_deref().and_then(day) else {
                mistakes.push(format!("{letter}: no issued letter has this number"));
                continue;
            };
            if *on < issued {
                mistakes.push(format!("{letter}: {} {on}, before it was issued on {issued}", what.as_str()));
                continue;
            }
            let before: Option<String> = tx
                .query_row(
                    "SELECT day FROM mail WHERE letter = ?1 AND kind = ?2",
                    [letter, what.as_str()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(sql)?;
            match before.as_deref().and_then(day) {
                Some(d) if d == *on => {}
                Some(d) => mistakes.push(format!("{letter}: already recorded {} on {d}", what.as_str())),
                None => {
                    tx.execute(
                        "INSERT INTO mail (letter, kind, day, recorded) VALUES (?1, ?2, ?3, ?4)",
                        params![letter, what.as_str(), on.to_string(), today.to_string()],
                    )
                    .map_err(sql)?;
                    marked += 1;
                }
            }
        }
        if !mistakes.is_empty() {
            return Err(Error::format(&path, format!("nothing was recorded:\n- {}", mistakes.join("\n- "))));
        }
        tx.commit().map_err(sql)?;
        Ok(marked)
    }

    /// Every owner and address mail came back from, with the letter and the day, earliest first.
    pub fn returned_addresses(&self) -> Result<Vec<ReturnedAddress>> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT l.owner_key, l.address_key, l.number, m.day FROM mail m JOIN letter l ON l.number = m.letter
                 WHERE m.kind = 'returned' ORDER BY m.day, l.number",
            )
            .map_err(self.sql())?;
        let rows = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, String>(3)?)))
            .map_err(self.sql())?;
        let mut found = Vec::new();
        for row in rows {
            let (owner_key, address_key, letter, on) = row.map_err(self.sql())?;
            let day =
                day(&on).ok_or_else(|| self.corrupt(&format!("letter {letter} was returned on no day")))?;
            found.push(ReturnedAddress { owner_key, address_key, letter, day });
        }
        Ok(found)
    }
}
