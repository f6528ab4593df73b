//! The outputs of a run as one set: the run holds the output folder's lock, writes every file into a staging
//! folder inside it, commits the set there, and only then puts it in place, with the manifest `run.json` last.
//!
//! - **One run at a time.** [`OutputSet::open`] takes the folder's lock (`lock`) and keeps it until the set
//!   is dropped; a second run says who holds it and stops.
//! - **Staged.** Files are written in `.lakeshore-staging-PID/` inside the folder (a folder the run makes
//!   new, so nothing planted in it is followed). Until the commit point the folder's own files are not
//!   touched.
//! - **Committed.** [`OutputSet::publish`] forces every staged file to disk, writes the new `run.json` (each
//!   file's name, size and SHA-256, the command line, the as-of date and the version) in the staging folder,
//!   forced to disk too, and then writes the commit marker naming the files (`commit`). Writing the marker
//!   is the commit point: before it the folder holds the old set, verifying against its own `run.json`; after
//!   it the new set will be in place, whatever happens.
//! - **Rolled forward.** After the commit point the old `run.json` is removed, every file is renamed into
//!   place and the new `run.json` renamed last (`commit::roll_forward`); renames within one folder, each
//!   replacing one name, with no link and no file of the run open. A run cut short after the commit point (a
//!   kill, an error of the disk) is finished by the next [`OutputSet::open`] of the folder before anything
//!   else; a staging folder with no marker is a run stopped before its commit point, and is removed.
//!
//! The invariant, at every instant a reader can look, killed runs included (and power loss, where folders
//! can be forced to disk: Unix): **a folder with a `run.json` holds the complete set it names**. The old
//! `run.json` stands until the commit point and after, until the first file is about to move; from its
//! removal (forced to disk before any rename) to the new one's rename there is none; the new one appears only
//! once every file it names is in place (the renames forced to disk before it). Files the run does not name
//! (other commands' outputs, the user's own) are never touched, but for those of an earlier run that the set
//! replaces under other names (a map's former tiles, [`OutputSet::retire`]), removed once the new set is in
//! place; the lock file stays where it is.

mod commit;
mod lock;

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use rayon::prelude::*;

use super::digest::digest;
use super::{fault, folder};
use crate::model::error::{Error, Result};
use crate::model::stop;
pub use lock::FileLock;
use lock::Lock;

/// The manifest of the set, renamed into place last.
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
    /// Whether the staging folder was committed: it is then left for the next run to finish, never removed
    /// unfinished.
    committed: bool,
    /// Files of an earlier run that the set replaces without naming them, removed once it is in place.
    retired: Vec<PathBuf>,
    /// The run's input files, as the file system resolves them, which no file of the set may replace.
    inputs: Vec<PathBuf>,
    lock: Option<Lock>,
}

impl OutputSet {
    /// Takes the lock of the folder `dir` (made if need be) for the run of `command` (the program's arguments,
    /// the program first), finishes the publish of a run cut short after its commit point, removes the
    /// staging folders of runs stopped before theirs and makes a new one. Fails, naming the holder, when
    /// another run holds the lock, and, saying why, when an interrupted publish cannot be finished.
    pub fn open(dir: &Path, command: &[String]) -> Result<Self> {
        let made_dir = !dir.as_os_str().is_empty() && !dir.exists();
        std::fs::create_dir_all(folder(dir)).map_err(|e| unusable(dir, e))?;
        let lock = Lock::take(dir, command)?;
        let mut set = OutputSet {
            dir: dir.to_path_buf(),
            staging: PathBuf::new(),
            command: command.to_vec(),
            made_dir,
            committed: false,
            retired: Vec::new(),
            inputs: Vec::new(),
            lock: Some(lock),
        };
        // Holding the lock, no other run is writing here: every staging folder is an interrupted run's.
        let entries = std::fs::read_dir(folder(dir)).map_err(|e| unusable(dir, e))?;
        let mut interrupted: Vec<(PathBuf, bool)> = entries
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(STAGING_PREFIX))
            .map(|entry| (entry.path(), entry.file_type().is_ok_and(|kind| kind.is_dir())))
            .collect();
        interrupted.sort();
        for (path, is_dir) in interrupted {
            let names = if is_dir { commit::committed(&path)? } else { None };
            if let Some(names) = names {
                commit::roll_forward(dir, &path, &names).map_err(|e| unfinished(dir, e))?;
                continue;
            }
            let removed = if is_dir { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
            removed.map_err(|e| unusable(&path, e))?;
        }
        fault::at("open", || Ok(())).map_err(|e| Error::io(dir, e))?;
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

    /// Keeps the files `inputs` (the layers and records the run reads) from being replaced by a file of the set:
    /// an output folder that holds the county's data (`--out` the data folder) would otherwise take a
    /// `systems.geojson` written over the systems layer read. [`OutputSet::publish`] stops before the commit
    /// point, the folder as it was, when one would be. A path that names no file is no matter.
    pub fn protect(&mut self, inputs: &[PathBuf]) {
        self.inputs.extend(inputs.iter().filter_map(|p| std::fs::canonicalize(p).ok()));
    }

    /// Marks `paths`, files of the folder that an earlier run wrote and this set replaces without naming them
    /// (the tiles of a map of the same name that the new map has not), to be removed once the set is in
    /// place, the lock still held: until then they stand with the old set. One already gone is no matter;
    /// one that cannot be removed stays, named by no `run.json` and used by no page.
    pub fn retire(&mut self, paths: Vec<PathBuf>) {
        self.retired.extend(paths);
    }

    /// Where `path`, a file of the staging folder, is once published.
    pub fn published(&self, path: &Path) -> PathBuf {
        path.file_name().map_or_else(|| path.to_path_buf(), |name| self.dir.join(name))
    }

    /// Publishes the files of the staging folder with `run.json` naming them and the as-of date `as_of`:
    /// forces them to disk, writes `run.json` beside them, commits, and puts them in place, `run.json` last
    /// (see the module's account). Returns the paths published, `run.json` last.
    ///
    /// A folder standing where a file goes, a file of the run named `run.json`, an error before the commit
    /// point, or a signal's request to stop ([`stop`]) leaves the folder as it was, the staging folder
    /// removed. An error after the commit point leaves the staging folder for the next run into the folder,
    /// which finishes the publish first; the error says so.
    pub fn publish(mut self, as_of: NaiveDate) -> Result<Vec<PathBuf>> {
        stop::check()?;
        let names = self.staged_names()?;
        // The files are hashed and forced to disk on every core: a county's GeoJSON and CSV are a gigabyte
        // and more.
        let files = names
            .par_iter()
            .map(|name| {
                let path = self.staging.join(name);
                fault::at("sync", || commit::sync_file(&path)).map_err(|e| Error::io(&path, e))?;
                let (bytes, sha256) = digest(&path)?;
                Ok(serde_json::json!({ "name": name, "bytes": bytes, "sha256": sha256 }))
            })
            .collect::<Result<Vec<_>>>()?;
        commit::sync_dir(&self.staging).map_err(|e| Error::io(&self.staging, e))?;
        let manifest = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "command": self.command,
            "as_of": as_of.to_string(),
            "files": files,
        });
        let text = serde_json::to_string_pretty(&manifest)
            .map_err(|e| Error::io(self.dir.join(MANIFEST), e.into()))?;
        commit::write_synced(&self.staging.join(MANIFEST), format!("{text}\n").as_bytes(), "manifest")?;
        // The last safe point: past the commit point a signal waits for the set to be in place.
        stop::check()?;
        let mut moved = names;
        moved.push(MANIFEST.to_string());
        commit::commit(&self.staging, &moved)?;
        self.committed = true;
        let published =
            commit::roll_forward(&self.dir, &self.staging, &moved).map_err(|e| unfinished(&self.dir, e))?;
        for path in self.retired.iter().filter(|path| !published.contains(path)) {
            let _ = std::fs::remove_file(path);
        }
        self.staging = PathBuf::new();
        self.made_dir = false;
        Ok(published)
    }

    /// The names of the files of the staging folder, sorted, checked to have a place in the folder.
    fn staged_names(&self) -> Result<Vec<String>> {
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
            if std::fs::canonicalize(&target).is_ok_and(|t| self.inputs.contains(&t)) {
                return Err(Error::io(
                    &target,
                    std::io::Error::other(
                        "the output would replace this file, which the run reads: give --out a folder that \
                         holds none of the county's data files (nothing was written)",
                    ),
                ));
            }
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
        Ok(names)
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        // A committed staging folder is the next run's to finish; any other is this run's scratch.
        if !self.staging.as_os_str().is_empty() && !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
        // The lock goes before the folder the run made, which is then empty unless it published.
        drop(self.lock.take());
        if self.made_dir {
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// The error `e` of a publish cut short after its commit point in the folder `dir`, saying that the next run
/// into the folder finishes it.
fn unfinished(dir: &Path, e: Error) -> Error {
    let then = format!(
        "the new set was committed but is not all in place: the next lakeshore run into {} puts it in place \
         first; fix the cause and run again",
        folder(dir).display()
    );
    match e {
        Error::Io { path, source } => {
            Error::io(path, std::io::Error::new(source.kind(), format!("{source}: {then}")))
        }
        e => Error::format(dir, format!("{e}: {then}")),
    }
}

/// What to do about an output folder, or a file in it, that the run cannot use as it must.
const OUT_FIX: &str = "give --out a folder you can write in (or remove what stands in the way)";

/// The error of a folder, or a file in it, that the run cannot use as it must, saying what to do.
fn unusable(path: &Path, e: std::io::Error) -> Error {
    told(path, e, OUT_FIX)
}

/// The error `e` of `path`, followed by `fix`, what to do.
fn told(path: &Path, e: std::io::Error, fix: &str) -> Error {
    Error::io(path, std::io::Error::new(e.kind(), format!("{e}: {fix}")))
}

/// The names of the files the `run.json` of the folder `dir` lists; `None` without one, or with one that does
/// not read.
pub fn manifest_names(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(MANIFEST)).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let files = manifest["files"].as_array()?;
    Some(files.iter().filter_map(|f| f["name"].as_str().map(str::to_string)).collect())
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
    fn retired_files_go_once_the_set_is_in_place_and_those_it_names_stay() {
        let dir = fresh("retire");
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["map_tile_14_1_2.js", "map_tile_14_1_3.js", "mine.txt"] {
            std::fs::write(dir.join(name), "old\n").unwrap();
        }
        // Dropped before it is published, a set removes nothing.
        let mut set = OutputSet::open(&dir, &command()).unwrap();
        set.retire(vec![dir.join("map_tile_14_1_2.js")]);
        drop(set);
        assert_eq!(names(&dir), ["map_tile_14_1_2.js", "map_tile_14_1_3.js", "mine.txt"]);

        let mut set = OutputSet::open(&dir, &command()).unwrap();
        std::fs::write(set.staging().join("map_tile_14_1_3.js"), "new\n").unwrap();
        // One retired file the set also publishes, one already gone.
        set.retire(
            ["map_tile_14_1_2.js", "map_tile_14_1_3.js", "map_tile_14_9_9.js"].map(|n| dir.join(n)).to_vec(),
        );
        set.publish(NaiveDate::from_ymd_opt(2027, 1, 15).unwrap()).unwrap();
        assert_eq!(names(&dir), ["map_tile_14_1_3.js", "mine.txt", "run.json"]);
        assert_eq!(std::fs::read_to_string(dir.join("map_tile_14_1_3.js")).unwrap(), "new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_would_replace_an_input_stops_the_publish() {
        let dir = fresh("protect");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("systems.geojson"), "input\n").unwrap();
        let mut set = OutputSet::open(&dir, &command()).unwrap();
        // Named another way (through `.`), the input is the same file.
        set.protect(&[dir.join(".").join("systems.geojson"), dir.join("not-there.csv")]);
        std::fs::write(set.staging().join("systems.geojson"), "output\n").unwrap();
        std::fs::write(set.staging().join("systems.csv"), "output\n").unwrap();
        let err = set.publish(NaiveDate::from_ymd_opt(2027, 1, 15).unwrap()).unwrap_err().to_string();
        assert!(err.contains("systems.geojson") && err.contains("which the run reads"), "{err}");
        assert_eq!(names(&dir), ["systems.geojson"]);
        assert_eq!(std::fs::read_to_string(dir.join("systems.geojson")).unwrap(), "input\n");
        std::fs::remove_dir_all(&dir).unwrap();
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
