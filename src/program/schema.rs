//! The store's tables, version by version. Each migration brings a store from one version to the next; a new
//! store runs them all. They run in one transaction, so a store is at one version or the next, never between.
//!
//! Dates are ISO text (`2027-01-15`), so the tables read well in QGIS or a database browser.

use rusqlite::{Connection, TransactionBehavior};

/// The schema version this program writes.
pub const VERSION: i64 = 2;

/// The statements that bring a store from version `i` to `i + 1`, at index `i`.
const MIGRATIONS: [&str; VERSION as usize] = [
    // 1: batches of notices, their letters, and the items each letter covered.
    "CREATE TABLE batch (
        id INTEGER PRIMARY KEY,
        year INTEGER NOT NULL,
        issued TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'issued')),
        out_dir TEXT NOT NULL,
        token TEXT NOT NULL,
        command TEXT NOT NULL
    );
    CREATE TABLE letter (
        number TEXT PRIMARY KEY,
        batch INTEGER NOT NULL REFERENCES batch(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        stage TEXT NOT NULL CHECK (stage IN ('first', 'reminder', 'final', 'referral')),
        served TEXT NOT NULL CHECK (served IN ('first-class', 'certified', 'personal')),
        owner TEXT,
        owner_key TEXT NOT NULL,
        street TEXT NOT NULL,
        city TEXT,
        state TEXT,
        zip TEXT,
        address_key TEXT NOT NULL,
        UNIQUE (batch, ordinal)
    );
    CREATE TABLE item (
        letter TEXT NOT NULL REFERENCES letter(number) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        parcel_id TEXT NOT NULL,
        system_id TEXT,
        obligation TEXT NOT NULL,
        due TEXT NOT NULL,
        overdue INTEGER NOT NULL,
        location TEXT,
        town TEXT,
        what TEXT NOT NULL,
        citation TEXT NOT NULL,
        why TEXT NOT NULL,
        words TEXT NOT NULL,
        PRIMARY KEY (letter, ordinal)
    );
    CREATE INDEX item_parcel ON item (parcel_id, obligation, due);",
    // 2: what the post said of a letter: received on a day (a return receipt, a signature), or returned.
    "CREATE TABLE mail (
        letter TEXT NOT NULL REFERENCES letter(number) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('received', 'returned')),
        day TEXT NOT NULL,
        recorded TEXT NOT NULL,
        PRIMARY KEY (letter, kind)
    );",
];

/// Brings the store of `conn` from `from` (0: a new file) to [`VERSION`], in one transaction that first reads
/// the version again (another run may have migrated it meanwhile), and marks it a lakeshore store.
pub fn migrate(conn: &mut Connection, from: i64, application_id: i32) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for step in MIGRATIONS.iter().skip(now.max(from) as usize) {
        tx.execute_batch(step)?;
    }
    tx.execute_batch(&format!("PRAGMA application_id = {application_id}; PRAGMA user_version = {VERSION};"))?;
    tx.commit()
}

/// Brings a new store at `conn` to `version` only, as an older lakeshore made it (for the migration tests).
#[cfg(test)]
pub fn make_at(conn: &mut Connection, version: i64, application_id: i32) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    for step in &MIGRATIONS[..version as usize] {
        tx.execute_batch(step)?;
    }
    tx.execute_batch(&format!("PRAGMA application_id = {application_id}; PRAGMA user_version = {version};"))?;
    tx.commit()
}
