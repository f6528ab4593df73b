//! Batches of notices in the store: recorded pending, issued once published, read back to print again.
//!
//! `notices --issue` records its batch **pending**, in one transaction, before it publishes anything: its
//! letters with their numbers, the items each covers. Once the output set is published (letters, labels and
//! tables with `batch.json` naming the batch's token), the batch is marked **issued**. A run cut short between
//! the two leaves a pending batch, which the next run that records settles before anything else
//! ([`Store::settle`]): issued when its output folder holds the published set naming it, forgotten when it
//! does not. So a batch is issued exactly when its letters are published, and a run killed at any point
//! records nothing that was not printed.
//!
//! Letter numbers are the year of the batch and a serial within it (`2027-000123`), unique in the program;
//! a batch printed again ([`Store::batch`]) keeps them.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::{day, Store};
use crate::law::escalation::Issued;
use crate::model::error::{Error, Result};
use crate::rules::notices::{Service, Stage};

/// The file of a published batch's output set that names the batch.
pub const BATCH_FILE: &str = "batch.json";

/// A batch of notices: its letters in number order.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The batch's id in the store (`None` for a draft).
    pub id: Option<i64>,
    /// The notice year.
    pub year: i32,
    /// The day it is issued (the run's as-of date).
    pub issued: NaiveDate,
    /// Its letters, in number order.
    pub letters: Vec<Letter>,
}

/// One letter: the items of one stage for one owner at one address.
#[derive(Debug, Clone, PartialEq)]
pub struct Letter {
    /// Its number, unique in the program (`2027-000123`).
    pub number: String,
    /// The stage of its items.
    pub stage: Stage,
    /// How it is served.
    pub served: Service,
    /// The owner as the parcel layer wrote the name.
    pub owner: Option<String>,
    /// The owner, normalised.
    pub owner_key: String,
    /// The street or post-office box line.
    pub street: String,
    /// City.
    pub city: Option<String>,
    /// State.
    pub state: Option<String>,
    /// ZIP code.
    pub zip: Option<String>,
    /// The address, normalised.
    pub address_key: String,
    /// What it notices, in order.
    pub items: Vec<Item>,
}

/// One duty a letter notices.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The parcel.
    pub parcel_id: String,
    /// The system the duty is of, where the register names one.
    pub system_id: Option<String>,
    /// The obligation's kind.
    pub obligation: String,
    /// Its due date.
    pub due: NaiveDate,
    /// Whether it was overdue when noticed.
    pub overdue: bool,
    /// The parcel's location.
    pub location: Option<String>,
    /// The parcel's town.
    pub town: Option<String>,
    /// What is owed, as the obligations table says it.
    pub what: String,
    /// The law's citation.
    pub citation: String,
    /// Why it is owed, as the obligations table says it.
    pub why: String,
    /// The letter's plain sentences for it, as JSON (`{"what": ..., "when": ..., "why": ...}`).
    pub words: String,
}

/// The number of the `serial`th letter of `year`.
pub fn letter_number(year: i32, serial: u32) -> String {
    format!("{year}-{serial:06}")
}

/// A notice a parcel's duty was given, as the store recorded it: the duty (obligation kind and due date) and
/// the notice.
pub type Noticed = (String, NaiveDate, Issued);

impl Store {
    /// The serial the next letter of `year` gets (1 for the first).
    pub fn next_serial(&self, year: i32) -> Result<u32> {
        let pattern = format!("{year}-%");
        let last: Option<i64> = self
            .conn
            .query_row(
                "SELECT max(CAST(substr(number, 6) AS INTEGER)) FROM letter WHERE number LIKE ?1",
                [pattern],
                |r| r.get(0),
            )
            .map_err(self.sql())?;
        Ok(last.unwrap_or(0) as u32 + 1)
    }

    /// The day of the last batch issued.
    pub fn last_issued(&self) -> Result<Option<NaiveDate>> {
        let last: Option<String> = self
            .conn
            .query_row("SELECT max(issued) FROM batch WHERE state = 'issued'", [], |r| r.get(0))
            .map_err(self.sql())?;
        Ok(last.as_deref().and_then(day))
    }

    /// Every notice issued for the duties of parcel `parcel_id`, with what the post said of each.
    pub fn noticed(&self, parcel_id: &str) -> Result<Vec<Noticed>> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT i.obligation, i.due, l.stage, l.number, b.issued, l.owner_key,
                        (SELECT day FROM mail m WHERE m.letter = l.number AND m.kind = 'received'),
                        (SELECT day FROM mail m WHERE m.letter = l.number AND m.kind = 'returned')
                 FROM item i JOIN letter l ON l.number = i.letter JOIN batch b ON b.id = l.batch
                 WHERE i.parcel_id = ?1 AND b.state = 'issued'",
            )
            .map_err(self.sql())?;
        let rows = statement
            .query_map([parcel_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, Option<String>>(6)?,
                    r.get::<_, Option<String>>(7)?,
                ))
            })
            .map_err(self.sql())?;
        let mut found = Vec::new();
        for row in rows {
            let (obligation, due, stage, letter, issued, owner, received, returned) =
                row.map_err(self.sql())?;
            let (Some(due), Some(stage), Some(issued)) = (day(&due), Stage::parse(&stage), day(&issued))
            else {
                return Err(self.corrupt(&format!("letter {letter} has an item it cannot read")));
            };
            let (received, returned) = (received.as_deref().and_then(day), returned.as_deref().and_then(day));
            found.push((obligation, due, Issued { stage, letter, issued, received, returned, owner }));
        }
        Ok(found)
    }

    /// Records `batch` pending, dated `batch.issued`, for the output folder `out_dir`, in one transaction,
    /// and returns its id and the token its `batch.json` carries. Refused when a batch was issued later than
    /// the batch's day, or when a letter number is taken (another run issued meanwhile). The folder is kept
    /// as an absolute path: the run that settles the batch ([`Store::settle`]) may start in another folder.
    pub fn record_pending(&mut self, batch: &Batch, out_dir: &Path, command: &str) -> Result<(i64, String)> {
        let out_dir = std::path::absolute(out_dir).unwrap_or_else(|_| out_dir.to_path_buf());
        let path = self.path.clone();
        let sql = |e| super::damaged(&path, e);
        let token = token();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(sql)?;
        let last: Option<String> = tx
            .query_row("SELECT max(issued) FROM batch WHERE state = 'issued'", [], |r| r.get(0))
            .map_err(sql)?;
        if let Some(last) = last.as_deref().and_then(day).filter(|last| *last > batch.issued) {
            return Err(Error::format(
                &path,
                format!(
                    "a batch was issued on {last}, after --as-of {}: notices are issued in order of their dates; \
                     give --as-of {last} or later",
                    batch.issued
                ),
            ));
        }
        tx.execute(
            "INSERT INTO batch (year, issued, state, out_dir, token, command) VALUES (?1, ?2, 'pending', ?3, ?4, ?5)",
            params![batch.year, batch.issued.to_string(), out_dir.to_string_lossy(), token, command],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        {
            let mut letter = tx
                .prepare(
                    "INSERT INTO letter (number, batch, ordinal, stage, served, owner, owner_key, street, city,
                     state, zip, address_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                )
                .map_err(sql)?;
            let mut item = tx
                .prepare(
                    "INSERT INTO item (letter, ordinal, parcel_id, system_id, obligation, due, overdue, location,
                     town, what, citation, why, words)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                )
                .map_err(sql)?;
            for (ordinal, l) in batch.letters.iter().enumerate() {
                let inserted = letter.execute(params![
                    l.number,
                    id,
                    ordinal as i64 + 1,
                    l.stage.as_str(),
                    l.served.as_str(),
                    l.owner,
                    l.owner_key,
                    l.street,
                    l.city,
                    l.state,
                    l.zip,
                    l.address_key
                ]);
                if let Err(rusqlite::Error::SqliteFailure(f, _)) = &inserted {
                    if f.code == rusqlite::ErrorCode::ConstraintViolation {
                        return Err(Error::format(
                            &path,
                            format!("letter number {} is already in the program store: run again", l.number),
                        ));
                    }
                }
                inserted.map_err(sql)?;
                for (n, i) in l.items.iter().enumerate() {
                    item.execute(params![
                        l.number,
                        n as i64 + 1,
                        i.parcel_id,
                        i.system_id,
                        i.obligation,
                        i.due.to_string(),
                        i.overdue,
                        i.location,
                        i.town,
                        i.what,
                        i.citation,
                        i.why,
                        i.words
                    ])
                    .map_err(sql)?;
                }
            }
        }
        super::fault_point("store-pending").map_err(|e| Error::io(&path, e))?;
        tx.commit().map_err(sql)?;
        Ok((id, token))
    }

    /// Marks batch `id` issued: its files are published.
    pub fn mark_issued(&mut self, id: i64) -> Result<()> {
        super::fault_point("store-issued").map_err(|e| Error::io(&self.path, e))?;
        self.conn.execute("UPDATE batch SET state = 'issued' WHERE id = ?1", [id]).map_err(self.sql())?;
        Ok(())
    }

    /// Settles the batches left pending by runs cut short: each is issued when `published(out_dir, token)`
    /// says its output folder holds the published set naming it, and forgotten (its letters and items with
    /// it) otherwise. Returns what was done to each, for the run to say.
    pub fn settle(&mut self, published: impl Fn(&Path, &str) -> Result<bool>) -> Result<Vec<String>> {
        let pending: Vec<(i64, String, String)> = {
            let mut statement = self
                .conn
                .prepare("SELECT id, out_dir, token FROM batch WHERE state = 'pending' ORDER BY id")
                .map_err(self.sql())?;
            let rows =
                statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(self.sql())?;
            rows.collect::<rusqlite::Result<_>>().map_err(self.sql())?
        };
        let mut told = Vec::new();
        for (id, out_dir, token) in pending {
            let dir = PathBuf::from(&out_dir);
            if published(&dir, &token)? {
                self.mark_issued(id)?;
                told.push(format!(
                    "batch {id}, cut short after its letters were published in {out_dir}, is issued"
                ));
            } else {
                self.conn.execute("DELETE FROM batch WHERE id = ?1", [id]).map_err(self.sql())?;
                told.push(format!("batch {id}, cut short before its letters were published, was not issued"));
            }
        }
        Ok(told)
    }

    /// The issued batch `id`, letters and items in their order, to print again.
    pub fn batch(&self, id: i64) -> Result<Batch> {
        let found: Option<(i32, String, String)> = self
            .conn
            .query_row("SELECT year, issued, state FROM batch WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
            .map_err(self.sql())?;
        let Some((year, issued, state)) = found else {
            let last: Option<i64> =
                self.conn.query_row("SELECT max(id) FROM batch", [], |r| r.get(0)).map_err(self.sql())?;
            let known =
                last.map_or("no batch has been issued yet".to_string(), |l| format!("batches are 1 to {l}"));
            return Err(Error::format(
                &self.path,
                format!("there is no batch {id} in the program store ({known})"),
            ));
        };
        if state != "issued" {
            return Err(Error::format(
                &self.path,
                format!("batch {id} was never issued: it has nothing to print"),
            ));
        }
        let issued = day(&issued).ok_or_else(|| self.corrupt(&format!("batch {id} has no date")))?;
        let mut letters = self.letters_of(id)?;
        let mut statement = self
            .conn
            .prepare(
                "SELECT parcel_id, system_id, obligation, due, overdue, location, town, what, citation, why, words
                 FROM item WHERE letter = ?1 ORDER BY ordinal",
            )
            .map_err(self.sql())?;
        for letter in &mut letters {
            let rows = statement
                .query_map([&letter.number], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, bool>(4)?,
                        (r.get(5)?, r.get(6)?),
                        (r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?),
                    ))
                })
                .map_err(self.sql())?;
            for row in rows {
                let (
                    parcel_id,
                    system_id,
                    obligation,
                    due,
                    overdue,
                    (location, town),
                    (what, citation, why, words),
                ) = row.map_err(self.sql())?;
                let due = day(&due).ok_or_else(|| {
                    self.corrupt(&format!("letter {} has an item with no due date", letter.number))
                })?;
                letter.items.push(Item {
                    parcel_id,
                    system_id,
                    obligation,
                    due,
                    overdue,
                    location,
                    town,
                    what,
                    citation,
                    why,
                    words,
                });
            }
        }
        Ok(Batch { id: Some(id), year, issued, letters })
    }

    /// The letters of batch `id`, in order, without their items.
    fn letters_of(&self, id: i64) -> Result<Vec<Letter>> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT number, stage, served, owner, owner_key, street, city, state, zip, address_key
                 FROM letter WHERE batch = ?1 ORDER BY ordinal",
            )
            .map_err(self.sql())?;
        let rows = statement
            .query_map([id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    (r.get(3)?, r.get(4)?, r.get(5)?),
                    (r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?),
                ))
            })
            .map_err(self.sql())?;
        let mut letters = Vec::new();
        for row in rows {
            let (number, stage, served, (owner, owner_key, street), (city, state, zip, address_key)) =
                row.map_err(self.sql())?;
            let (Some(stage), Some(served)) = (Stage::parse(&stage), Service::parse(&served)) else {
                return Err(self.corrupt(&format!("letter {number} has a stage or service it cannot read")));
            };
            letters.push(Letter {
                number,
                stage,
                served,
                owner,
                owner_key,
                street,
                city,
                state,
                zip,
                address_key,
                items: Vec::new(),
            });
        }
        Ok(letters)
    }

    /// The error of a store whose rows say what cannot be.
    pub(super) fn corrupt(&self, what: &str) -> Error {
        Error::format(&self.path, format!("the program store is damaged: {what}; restore it from a backup"))
    }
}

/// A token unique to one batch, which its `batch.json` carries: the process, the time and a counter.
fn token() -> String {
    use sha2::{Digest, Sha256};
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let hash = Sha256::digest(format!("{}:{nanos}:{n}", std::process::id()));
    hash.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// The text of `batch.json` for batch `id` with `token`, issued from `store`: the output set's word that it is
/// that batch's letters.
pub fn batch_file(id: i64, token: &str, store: &Path, batch: &Batch) -> String {
    let first = batch.letters.first().map(|l| l.number.as_str());
    let last = batch.letters.last().map(|l| l.number.as_str());
    let json = serde_json::json!({
        "batch": id,
        "token": token,
        "store": store.to_string_lossy(),
        "issued": batch.issued.to_string(),
        "year": batch.year,
        "letters": batch.letters.len(),
        "first_letter": first,
        "last_letter": last,
    });
    format!("{}\n", serde_json::to_string_pretty(&json).unwrap_or_default())
}

/// Whether the output folder `dir` holds the published set of the batch with `token`: a `run.json` that names
/// `batch.json`, whose token is `token`. A publish cut short after its commit point is finished first (the
/// folder's lock taken for it, for `command`), so the folder is read as it will stay.
pub fn published(dir: &Path, token: &str, command: &[String]) -> Result<bool> {
    use crate::write::set::MANIFEST;
    if !dir.join(MANIFEST).exists() && !dir.is_dir() {
        return Ok(false);
    }
    drop(crate::write::OutputSet::open(dir, command)?);
    let Ok(file) = std::fs::read_to_string(dir.join(BATCH_FILE)) else { return Ok(false) };
    let names_it =
        crate::write::set::manifest_names(dir).is_some_and(|names| names.iter().any(|n| n == BATCH_FILE));
    let token_is = serde_json::from_str::<serde_json::Value>(&file).ok().is_some_and(|b| b["token"] == token);
    Ok(names_it && token_is)
}
