//! The program store: what lakeshore itself did and only it can know, kept in a SQLite file (`[program] store`
//! in the config, `program.sqlite` beside it by default). The office's record files (history, events,
//! samples, pump-outs, pipes) stay the inputs they are; the store holds the notices issued from them.
//!
//! - **What it holds** (`schema`): each batch of notices (its date, its state), each letter (a number unique
//!   in the program, `2027-000123`; its stage, how it was served, the owner and address it went to), each
//!   item a letter covered (parcel, system, obligation and its due date), and what the post said of a letter
//!   (received on a date, returned undeliverable).
//! - **Versioned.** The schema version is SQLite's `user_version`; an older store is migrated in one
//!   transaction when opened, a newer one is refused. A file that is not a lakeshore store, or is damaged, is
//!   refused naming it, and nothing is issued.
//! - **Local disk only.** SQLite's locks do not hold on network shares: a store on a network file system is
//!   refused where that can be told (NFS, SMB/CIFS, AFS and the like on Linux; a `\\server\share` path on
//!   Windows).
//! - **One issuing run at a time** ([`StoreLock`]): a run that issues or records mail holds the store's lock
//!   file; a second one says who holds it and stops. Drafts only read.
//!
//! How a batch becomes issued (pending, then issued once its files are published) is in [`batch`].

pub mod batch;
pub mod mail;
mod schema;

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use rusqlite::{Connection, OpenFlags};

pub use batch::{Batch, Item, Letter};

use crate::model::error::{Error, Result};

/// The store's file name when the config names none.
pub const DEFAULT_STORE: &str = "program.sqlite";

/// SQLite's `application_id` of a lakeshore program store ("LKSP").
const APPLICATION_ID: i32 = 0x4C4B_5350;

/// An open program store.
pub struct Store {
    path: PathBuf,
    conn: Connection,
}

impl Store {
    /// Opens the store at `path`, made if it is not there, migrated if it is older.
    pub fn open(path: &Path) -> Result<Store> {
        refuse_network(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| damaged(path, e))?;
        let mut store = Store { path: path.to_path_buf(), conn };
        store.prepare()?;
        Ok(store)
    }

    /// Opens the store at `path` to read it, when it is there (`None` when it is not: no notice was ever
    /// issued). A store of an older version is migrated first; nothing else is written.
    pub fn read(path: &Path) -> Result<Option<Store>> {
        match path.exists() {
            true => Store::open(path).map(Some),
            false => Ok(None),
        }
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks that the file is a lakeshore store, whole, of a version this program knows, and brings it to
    /// the current version (a new file gets the whole schema).
    fn prepare(&mut self) -> Result<()> {
        let path = self.path.clone();
        let sql = |e| damaged(&path, e);
        self.conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(sql)?;
        let check: String = self.conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(sql)?;
        if check != "ok" {
            return Err(Error::format(
                &self.path,
                format!(
                    "the program store is damaged ({check}); restore it from a backup. Nothing was issued"
                ),
            ));
        }
        let id: i32 = self.conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(sql)?;
        let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(sql)?;
        let tables: i64 =
            self.conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(sql)?;
        if id != APPLICATION_ID && !(id == 0 && version == 0 && tables == 0) {
            return Err(Error::format(
                &self.path,
                "is not a lakeshore program store: give [program] store another file name, or move this file \
                 away. Nothing was issued",
            ));
        }
        if version > schema::VERSION {
            return Err(Error::format(
                &self.path,
                format!(
                    "the program store is of version {version}, made by a newer lakeshore than this one (which \
                     knows up to {}): use that lakeshore. Nothing was issued",
                    schema::VERSION
                ),
            ));
        }
        if version < schema::VERSION {
            schema::migrate(&mut self.conn, version, APPLICATION_ID).map_err(sql)?;
        }
        self.conn.execute_batch("PRAGMA foreign_keys = ON").map_err(sql)?;
        Ok(())
    }

    /// The error of a statement on the store.
    fn sql(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        |e| damaged(&self.path, e)
    }
}

/// The error of the store at `path` that SQLite gave as `e`, naming the file and saying nothing was issued.
fn damaged(path: &Path, e: rusqlite::Error) -> Error {
    let told = match &e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
            "is not a lakeshore program store, or is damaged: restore it from a backup or give [program] store \
             another file. Nothing was issued"
                .to_string()
        }
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseBusy => {
            "the program store is busy: another program holds it open for writing; close it (QGIS, a database \
             browser) and run again"
                .to_string()
        }
        e => format!("program store: {e}. Nothing was issued"),
    };
    Error::format(path, told)
}

/// The store's points of the fault-injection hook (`crate::write::fault`).
fn fault_point(point: &str) -> std::io::Result<()> {
    crate::write::fault::at(point, || Ok(()))
}

/// Parses a date the store wrote.
fn day(text: &str) -> Option<NaiveDate> {
    text.parse().ok()
}

/// Refuses a store on a network file system, where SQLite's locks do not hold.
fn refuse_network(path: &Path) -> Result<()> {
    match network_file_system(path) {
        Some(kind) => Err(Error::format(
            path,
            format!(
                "the program store is on a network file system ({kind}), where SQLite's locks do not hold and \
                 two runs could issue the same notices: keep it on a local disk ([program] store) and back it \
                 up to the share"
            ),
        )),
        None => Ok(()),
    }
}

/// The kind of network file system the folder of `path` is on, where that can be told.
#[cfg(target_os = "linux")]
fn network_file_system(path: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a NUL-terminated path and `stat` a buffer of the type statfs fills.
    if unsafe { libc::statfs(name.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    network_kind(stat.f_type as i64)
}

/// The network file system a `statfs` type number stands for.
#[cfg(any(target_os = "linux", test))]
fn network_kind(magic: i64) -> Option<&'static str> {
    match magic as u32 {
        0x6969 => Some("NFS"),
        0x517B => Some("SMB"),
        0xFF53_4D42 => Some("CIFS"),
        0xFE53_4D42 => Some("SMB2"),
        0x5346_414F => Some("AFS"),
        0x7375_7245 => Some("Coda"),
        0x564C => Some("NCP"),
        0x0102_1997 => Some("9P"),
        0x00C3_6400 => Some("Ceph"),
        0x0BD0_0BD0 => Some("Lustre"),
        _ => None,
    }
}

/// The kind of network file system `path` is on, where that can be told: a UNC path.
#[cfg(not(target_os = "linux"))]
fn network_file_system(path: &Path) -> Option<&'static str> {
    let text = path.to_string_lossy();
    (text.starts_with(r"\\") && !text.starts_with(r"\\?\") && !text.starts_with(r"\\.\"))
        .then_some("a network share")
}

/// The lock of a store for a run that records in it: an exclusive lock on the file beside it
/// (`program.sqlite.lock`), held until dropped.
pub struct StoreLock {
    _held: crate::write::FileLock,
}

impl StoreLock {
    /// Takes the lock of the store at `path` for `command`, or fails naming the run that holds it.
    pub fn take(path: &Path, command: &[String]) -> Result<StoreLock> {
        let mut name = path.as_os_str().to_owned();
        name.push(".lock");
        let lock = crate::write::FileLock::take(
            Path::new(&name),
            command,
            "another lakeshore run is recording in this program store",
            "give --store (or [program] store) a file in a folder you can write in",
        )?;
        Ok(StoreLock { _held: lock })
    }
}

#[cfg(test)]
mod tests;
