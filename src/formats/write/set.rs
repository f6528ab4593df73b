//! The outputs of a run as one set: the run holds the output folder's lock, writes every file into a staging
//! folder inside it, and only once all are written puts them in place, with the manifest `run.json` last.
//!
//! - **One run at a time.** [`OutputSet::open`] takes an exclusive advisory lock (`flock`) on `.lakeshore.lock`
//!   in the folder and writes into it who holds it (process id, start time, command line). The operating
//!   system releases the lock when the process ends, however it ends; a second run does not wait: it says who
//!   holds the lock and stops.
//! - **Staged, then published.** Files are written in `.lakeshore-staging-PID/` inside the folder (a folder
//!   the run makes new, so nothing planted in it is followed); a staging folder left by a killed run is
//!   removed by the next run that takes the lock. [`OutputSet::publish`] removes the old `run.json`, renames
//!   every file into place, writes the new `run.json` (each file's name, size and SHA-256, the command line,
//!   the as-of date and the version) and removes the staging folder. A reader who finds a `run.json` so finds
//!   the complete set it names; between the renames there is none. A run that fails or is dropped before
//!   publishing removes its staging folder and leaves the folder as it was.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use rayon::prelude::*;

use super::digest::digest;
use super::AtomicFile;
use crate::model::error::{Error, Result};

/// The manifest of the set, written last.
pub const MANIFEST: &str = "run.json";

/// The lock file of an output folder.
pub const LOCK: &str = ".lakeshore.lock";

/// The start of a staging folder's name; the process id follows.
pub const STAGING_PREFIX: &str = ".lakeshore-staging-";

/// The outputs of one run into one folder: the folder's lock, held until the set is dropped, and the staging
/// folder the files are written in.
pub struct OutputSet {
    dir: PathBuf,
    staging: PathBuf,
    command: Vec<String>,
    /// Whether the run made the folder, which it then removes when it publishes nothing.
    made_dir: bool,
    lock: Option<Lock>,
}

impl OutputSet {
    /// Takes the lock of the folder `dir` (made if need be) for the run of `command` (the program's arguments,
    /// the program first), removes the staging folders of killed runs and makes a new one. Fails, naming the
    /// holder, when another run holds the lock.
    pub fn open(dir: &Path, command: &[String]) -> Result<Self> {
        let made_dir = !dir.as_os_str().is_empty() && !dir.exists();
        std::fs::create_dir_all(folder(dir)).map_err(|e| unusable(dir, e))?;
        let lock = Lock::take(dir, command)?;
        let mut set = OutputSet {
            dir: dir.to_path_buf(),
            staging: PathBuf::new(),
            command: command.to_vec(),
            made_dir,
            lock: Some(lock),
        };
        // Holding the lock, no other run is writing here: every staging folder is a killed run's.
        let entries = std::fs::read_dir(folder(dir)).map_err(|e| unusable(dir, e))?;
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(STAGING_PREFIX) {
                let path = entry.path();
                let removed = match entry.file_type() {
                    Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
                    _ => std::fs::remove_file(&path),
                };
                removed.map_err(|e| unusable(&path, e))?;
            }
        }
        let staging = dir.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        std::fs::create_dir(&staging).map_err(|e| unusable(&staging, e))?;
        set.staging = staging;
        Ok(set)
    }

    /// The folder the outputs go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The staging folder, where every file of the run is written under its own name.
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Where `path`, a file of the staging folder, is once published.
    pub fn published(&self, path: &Path) -> PathBuf {
        path.file_name().map_or_else(|| path.to_path_buf(), |name| self.dir.join(name))
    }

    /// Puts every file of the staging folder in place, then `run.json` naming them with the as-of date
    /// `as_of`; returns the paths published, `run.json` last. A folder standing where a file goes, or a file
    /// of the run named `run.json`, stops it before anything is moved.
    pub fn publish(mut self, as_of: NaiveDate) -> Result<Vec<PathBuf>> {
        let mut names = Vec::new();
        let entries = std::fs::read_dir(&self.staging).map_err(|e| Error::io(&self.staging, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&self.staging, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            // Hidden names are the writers' temporaries; a folder is a tool's scratch (a browser profile).
            if !name.starts_with('.') && entry.file_type().is_ok_and(|t| t.is_file()) {
                names.push(name);
            }
        }
        names.sort();
        for name in &names {
            let target = self.dir.join(name);
            if name == MANIFEST || target.is_dir() {
                return Err(Error::io(
                    &target,
                    std::io::Error::other(
                        "the output cannot go there (a folder stands there, or the name is the manifest's): \
                         move it away and run again",
                    ),
                ));
            }
        }
        // The files are hashed on every core: a county's GeoJSON and CSV are a gigabyte and more.
        let files = names
            .par_iter()
            .map(|name| {
                let (bytes, sha256) = digest(&self.staging.join(name))?;
                Ok(serde_json::json!({ "name": name, "bytes": bytes, "sha256": sha256 }))
            })
            .collect::<Result<Vec<_>>>()?;
        let manifest = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "command": self.command,
            "as_of": as_of.to_string(),
            "files": files,
        });
        let manifest_path = self.dir.join(MANIFEST);
        match std::fs::remove_file(&manifest_path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(&manifest_path, e)),
            _ => {}
        }
        let mut published = Vec::with_capacity(names.len() + 1);
        for name in &names {
            let target = self.dir.join(name);
            std::fs::rename(self.staging.join(name), &target).map_err(|e| Error::io(&target, e))?;
            published.push(target);
        }
        let mut file = AtomicFile::create(&self.staging.join(MANIFEST))?;
        let text =
            serde_json::to_string_pretty(&manifest).map_err(|e| Error::io(&manifest_path, e.into()))?;
        file.write_all(format!("{text}\n").as_bytes()).map_err(|e| Error::io(&manifest_path, e))?;
        file.commit()?;
        std::fs::rename(self.staging.join(MANIFEST), &manifest_path)
            .map_err(|e| Error::io(&manifest_path, e))?;
        published.push(manifest_path);
        self.made_dir = false;
        Ok(published)
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if !self.staging.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
        // The lock goes before the folder the run made, which is then empty unless it published.
        drop(self.lock.take());
        if self.made_dir {
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// The error of a folder, or a file in it, that the run cannot use as it must, saying what to do.
fn unusable(path: &Path, e: std::io::Error) -> Error {
    let told = format!("{e}: give --out a folder you can write in (or remove what stands in the way)");
    Error::io(path, std::io::Error::new(e.kind(), told))
}

/// The folder `dir` names for the file system: the current one when it is empty (an `--out` file with no
/// folder before its name).
fn folder(dir: &Path) -> &Path {
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

/// The command line `args` as a POSIX shell reads it back: plain words as they are, others in single quotes.
pub fn command_line(args: &[String]) -> String {
    let quote = |arg: &String| {
        let plain =
            !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./:=@,+".contains(&b));
        if plain {
            arg.clone()
        } else {
            format!("'{}'", arg.replace('\'', "'\\''"))
        }
    };
    args.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// The exclusive lock of an output folder, held while the file is open; the file is removed when the lock
/// is let go.
struct Lock {
    path: PathBuf,
    _file: File,
}

impl Lock {
    /// Takes the lock of `dir` for `command`, or fails naming the run that holds it.
    fn take(dir: &Path, command: &[String]) -> Result<Lock> {
        let path = dir.join(LOCK);
        loop {
            let mut file = open_lock_file(&path)?;
            if !try_lock(&file).map_err(|e| Error::io(&path, e))? {
                let holder = holder_of(&mut file);
                return Err(Error::format(
                    dir,
                    format!(
                        "another lakeshore run is writing into this folder ({holder}): wait for it to finish, or \
                         give another --out"
                    ),
                ));
            }
            // A run that let the lock go removed the file: a lock on the file it removed is no lock.
            if !same_file(&file, &path) {
                continue;
            }
            let started = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC");
            let holder = format!(
                "pid {}, started {started}, command: {}\n",
                std::process::id(),
                command_line(command)
            );
            file.set_len(0)
                .and_then(|()| file.write_all(holder.as_bytes()))
                .map_err(|e| Error::io(&path, e))?;
            return Ok(Lock { path, _file: file });
        }
    }
}

/// Who holds the lock of `file`, as the holder wrote it (its first [`HOLDER_BYTES`] bytes). The holder writes
/// its line just after taking the lock, so a line not yet whole is read again, for up to two seconds, before
/// the run says it does not know.
fn holder_of(file: &mut File) -> String {
    const TRIES: u32 = 200;
    for _ in 0..TRIES {
        let mut said = Vec::new();
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| Read::by_ref(file).take(HOLDER_BYTES).read_to_end(&mut said));
        if read.is_ok() && (said.ends_with(b"\n") || said.len() as u64 == HOLDER_BYTES) {
            let said = String::from_utf8_lossy(&said);
            return crate::model::controls::without_controls(said.trim()).0.into_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "which one has not yet been written".to_string()
}

/// How much of the holder's line is read: a long command line is cut there.
const HOLDER_BYTES: u64 = 4096;

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held; the lock goes with the file's closing, after this.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Opens the lock file, made if need be; a link planted in its place is not followed.
fn open_lock_file(path: &Path) -> Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc_eloop()) {
            let told = "a link stands where the lock file goes: remove it and run again";
            return Error::io(path, std::io::Error::other(told));
        }
        unusable(path, e)
    })
}

/// The error number of a link met where `O_NOFOLLOW` forbids one.
fn libc_eloop() -> i32 {
    #[cfg(unix)]
    return libc::ELOOP;
    #[cfg(not(unix))]
    return -1;
}

/// Takes the exclusive lock of `file` without waiting: `false` when another process holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock only reads the descriptor, which `file` keeps open for the call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Without `flock`, no lock is taken.
#[cfg(not(unix))]
fn try_lock(_: &File) -> std::io::Result<bool> {
    Ok(true)
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(label: &str) -> PathBuf {
        let dir = crate::scratch::root().join(format!("set-{label}"));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    fn command() -> Vec<String> {
        ["lakeshore", "schedule", "--out", "my out"].map(String::from).to_vec()
    }

    #[test]
    fn a_second_set_on_a_folder_says_who_holds_it() {
        let dir = fresh("held");
        let first = OutputSet::open(&dir, &command()).unwrap();
        let err = OutputSet::open(&dir, &command()).err().unwrap().to_string();
        let pid = format!("pid {}, started ", std::process::id());
        assert!(err.contains(&pid) && err.contains("command: lakeshore schedule --out 'my out'"), "{err}");
        assert!(err.contains("wait for it to finish, or give another --out"), "{err}");
        drop(first);
        // Let go, the lock can be taken again, and nothing of the run is left (it made the folder).
        assert!(!dir.exists());
        drop(OutputSet::open(&dir, &command()).unwrap());
    }

    #[test]
    fn a_published_set_is_named_by_its_manifest_and_a_dropped_one_leaves_nothing() {
        let dir = fresh("publish");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("schedule.csv"), "old\n").unwrap();
        std::fs::write(dir.join("mine.txt"), "kept\n").unwrap();
        // A dropped set: the folder is as it was.
        let set = OutputSet::open(&dir, &command()).unwrap();
        std::fs::write(set.staging().join("schedule.csv"), "new\n").unwrap();
        drop(set);
        assert_eq!(names(&dir), ["mine.txt", "schedule.csv"]);
        assert_eq!(std::fs::read_to_string(dir.join("schedule.csv")).unwrap(), "old\n");

        let set = OutputSet::open(&dir, &command()).unwrap();
        std::fs::write(set.staging().join("schedule.csv"), "new\n").unwrap();
        std::fs::write(set.staging().join("problems.csv"), "").unwrap();
        let as_of = NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
        let published = set.publish(as_of).unwrap();
        assert_eq!(published, ["problems.csv", "schedule.csv", "run.json"].map(|n| dir.join(n)));
        assert_eq!(names(&dir), ["mine.txt", "problems.csv", "run.json", "schedule.csv"]);
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(MANIFEST)).unwrap()).unwrap();
        // SHA-256 of "new\n" and of nothing, as `sha256sum` gives them.
        assert_eq!(
            manifest["files"],
            serde_json::json!([
                { "name": "problems.csv", "bytes": 0,
                  "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
                { "name": "schedule.csv", "bytes": 4,
                  "sha256": "7aa7a5359173d05b63cfd682e3c38487f3cb4f7f1d60659fe59fab1505977d4c" },
            ])
        );
        assert_eq!(manifest["as_of"], "2027-01-15");
        assert_eq!(manifest["command"], serde_json::json!(command()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_holder_is_read_from_the_start_of_its_line_without_controls() {
        let dir = fresh("holder");
        std::fs::create_dir_all(&dir).unwrap();
        let mut file = open_lock_file(&dir.join(LOCK)).unwrap();
        file.write_all(b"pid 7, started 2027-01-15 09:00:00 UTC, command: lakeshore \x1b[2Jschedule\n")
            .unwrap();
        assert_eq!(
            holder_of(&mut file),
            "pid 7, started 2027-01-15 09:00:00 UTC, command: lakeshore \u{fffd}[2Jschedule"
        );
        // A command line longer than what is read is cut, not waited on, even inside a character.
        let long =
            format!("pid 8, started 2027-01-15 09:00:00 UTC, command: lakeshore {}\n", "é".repeat(4096));
        file.set_len(0).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.write_all(long.as_bytes()).unwrap();
        let holder = holder_of(&mut file);
        assert!(
            holder.starts_with("pid 8, started 2027-01-15 09:00:00 UTC, command: lakeshore éé"),
            "{holder}"
        );
        assert_eq!(holder.len(), 4096 - 1 + "\u{fffd}".len(), "the first 4096 bytes, the cut 'é' replaced");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_staging_folder_of_a_killed_run_goes_and_a_planted_lock_link_is_refused() {
        let dir = fresh("stale");
        std::fs::create_dir_all(dir.join(".lakeshore-staging-1")).unwrap();
        std::fs::write(dir.join(".lakeshore-staging-1/schedule.csv"), "half").unwrap();
        let set = OutputSet::open(&dir, &command()).unwrap();
        assert_eq!(names(&dir), [format!("{STAGING_PREFIX}{}", std::process::id()), LOCK.to_string()]);
        drop(set);
        assert_eq!(names(&dir), Vec::<String>::new());

        #[cfg(unix)]
        {
            let victim = dir.join("victim.txt");
            std::fs::write(&victim, "precious").unwrap();
            std::os::unix::fs::symlink(&victim, dir.join(LOCK)).unwrap();
            let err = OutputSet::open(&dir, &command()).err().unwrap().to_string();
            assert!(err.contains("a link stands where the lock file goes"), "{err}");
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
