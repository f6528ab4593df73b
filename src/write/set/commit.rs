//! The commit point of a publish and what follows it: the marker that commits a staging folder, and the
//! roll-forward that puts a committed folder's files in place, run by the publish itself and, when that was
//! cut short (a kill, a power loss, an error), by the next run that opens the output folder.
//!
//! The marker, `.lakeshore-commit` in the staging folder, names the files to move, `run.json` last; it is
//! written only once every file and `run.json` are complete and forced to disk in the staging folder, so it
//! needs nothing else to be acted on. The roll-forward is the same steps whether it runs for the first time
//! or the fifth: while `run.json` is still in the staging folder, the old one is removed from the output
//! folder (and that removal forced to disk) before any file is moved; each file still in the staging folder
//! is renamed into place; the new `run.json` is renamed last; the staging folder is removed. A step that was
//! already done is seen as done (its file is no longer in the staging folder), so an interruption anywhere
//! leaves something the next roll-forward finishes.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::super::{create_temp, fault, output_path};
use super::{folder, MANIFEST};
use crate::model::error::{Error, Result};

/// The commit marker of a staging folder.
pub(super) const MARKER: &str = ".lakeshore-commit";

/// Forces the file at `path` to disk (opened to write: Windows flushes only a handle that may write).
pub(super) fn sync_file(path: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new().write(true).open(path)?.sync_all()
}

/// Forces the entries of the folder `dir` (names made, renamed or removed) to disk. Windows cannot open a
/// folder as a file: there it does nothing, and the entries reach the disk when the file system writes them.
pub(super) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::fs::File::open(dir)?.sync_all();
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Writes `bytes` as the file `path` of a staging folder, forced to disk: under a temporary name created
/// new, written, forced to disk and closed, then renamed to `path` (the fault point `point`), so that `path`
/// is either absent or whole; the folder is forced to disk after the rename.
pub(super) fn write_synced(path: &Path, bytes: &[u8], point: &str) -> Result<()> {
    let (tmp, mut file) = create_temp(path, "tmp")?;
    let synced = file.write_all(bytes).and_then(|()| file.sync_all());
    // Closed before it is renamed.
    drop(file);
    if let Err(e) = synced.and_then(|()| fault::at(point, || std::fs::rename(&tmp, path))) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    sync_dir(folder).map_err(|e| Error::io(folder, e))
}

/// The commit point: writes the marker of `staging` naming `names`, the files to move in their order,
/// `run.json` last, forced to disk. Once it is in place the publish is decided, and whatever stops it the
/// next run into the folder finishes it.
pub(super) fn commit(staging: &Path, names: &[String]) -> Result<()> {
    let marker = serde_json::json!({ "files": names });
    write_synced(&staging.join(MARKER), format!("{marker}\n").as_bytes(), "commit")
}

/// The files the marker of `staging` names, when the staging folder was committed; `None` when it has no
/// marker (a run stopped before its commit point, whose folder is only removed).
pub(super) fn committed(staging: &Path) -> Result<Option<Vec<String>>> {
    let path = staging.join(MARKER);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let unreadable = || {
        Error::format(
            &path,
            "the commit marker of an interrupted run does not read as lakeshore writes it: move the folder \
             it is in out of the output folder and run again",
        )
    };
    let marker: serde_json::Value = serde_json::from_str(&text).map_err(|_| unreadable())?;
    let names: Vec<String> = marker["files"]
        .as_array()
        .ok_or_else(unreadable)?
        .iter()
        .map(|name| name.as_str().map(str::to_string).ok_or_else(unreadable))
        .collect::<Result<_>>()?;
    // The manifest last, and no name that leaves the folder.
    if names.last().map(String::as_str) != Some(MANIFEST) {
        return Err(unreadable());
    }
    for name in &names {
        output_path(staging, name)?;
    }
    Ok(Some(names))
}

/// Puts the files of the committed staging folder `staging` in place in `dir`, `run.json` last, and removes
/// the staging folder; `names` are the marker's. Returns the paths published, `run.json` last. Each step
/// already done is skipped, so it finishes a publish cut short at any point.
pub(super) fn roll_forward(dir: &Path, staging: &Path, names: &[String]) -> Result<Vec<PathBuf>> {
    let manifest = dir.join(MANIFEST);
    let pending = |name: &str| std::fs::symlink_metadata(staging.join(name)).is_ok();
    if pending(MANIFEST) {
        // From here until the new run.json is in place the folder has none: the old one no longer says what
        // is there once the first file is moved, and no reader may find a manifest naming a mix.
        fault::at("unlink", || match std::fs::remove_file(&manifest) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            removed => removed,
        })
        .map_err(|e| Error::io(&manifest, e))?;
        sync_dir(folder(dir)).map_err(|e| Error::io(dir, e))?;
    }
    let mut published = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let target = dir.join(name);
        if name == MANIFEST {
            // run.json names only what stands in the folder, and appears after every file it names, power
            // loss included.
            if let Some(missing) = published.iter().find(|path: &&PathBuf| !path.is_file()) {
                return Err(Error::io(
                    missing,
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "a file of the committed set is missing from the output folder",
                    ),
                ));
            }
            sync_dir(folder(dir)).map_err(|e| Error::io(dir, e))?;
        }
        if pending(name) {
            let point = format!("rename:{}", k + 1);
            fault::at(&point, || std::fs::rename(staging.join(name), &target))
                .map_err(|e| Error::io(&target, e))?;
        }
        published.push(target);
    }
    sync_dir(folder(dir)).map_err(|e| Error::io(dir, e))?;
    // The set is published; a staging folder that cannot be removed now holds only its marker, and the next
    // run removes it.
    let _ = fault::at("cleanup", || std::fs::remove_dir_all(staging));
    Ok(published)
}

#[cfg(test)]
mod tests {
    use super::super::{OutputSet, LOCK, STAGING_PREFIX};
    use super::*;

    /// The SHA-256 of `bytes` in lowercase hex.
    fn sha256(bytes: &[u8]) -> String {
        use sha2::Digest;
        sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The as-of date of the `run.json` of `dir`, once every file it names is checked against its size and
    /// SHA-256; `None` when there is no `run.json`.
    fn verified(dir: &Path) -> Option<String> {
        let text = std::fs::read_to_string(dir.join(MANIFEST)).ok()?;
        let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
        for file in manifest["files"].as_array().unwrap() {
            let name = file["name"].as_str().unwrap();
            let bytes = std::fs::read(dir.join(name)).unwrap();
            assert_eq!(
                (file["bytes"].as_u64(), file["sha256"].as_str()),
                (Some(bytes.len() as u64), Some(sha256(&bytes).as_str())),
                "{name}"
            );
        }
        Some(manifest["as_of"].as_str().unwrap().to_string())
    }

    /// The files of `dir` and their text, the lock file and staging folders left out.
    fn texts(dir: &Path) -> Vec<(String, String)> {
        let mut texts: Vec<(String, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != LOCK && !n.starts_with(STAGING_PREFIX))
            .map(|n| (n.clone(), std::fs::read_to_string(dir.join(&n)).unwrap()))
            .filter(|(n, _)| n != MANIFEST)
            .collect();
        texts.sort();
        texts
    }

    fn command() -> Vec<String> {
        ["lakeshore", "schedule"].map(String::from).to_vec()
    }

    fn date(year: i32) -> chrono::NaiveDate {
        chrono::NaiveDate::from_ymd_opt(year, 1, 15).unwrap()
    }

    /// A folder holding the set of 2027 (`a.csv`, `b.csv` saying "old") and a file of the user's.
    fn old_set(label: &str) -> PathBuf {
        let dir = crate::scratch::root().join(format!("commit-{label}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mine.txt"), "kept\n").unwrap();
        let set = OutputSet::open(&dir, &command()).unwrap();
        for name in ["a.csv", "b.csv"] {
            std::fs::write(set.staging().join(name), "old\n").unwrap();
        }
        set.publish(date(2027)).unwrap();
        dir
    }

    /// Each step of a publish after its commit point, by hand, in the order the roll-forward takes them: the
    /// old `run.json` removed, `a.csv`, `c.csv` and `run.json` renamed, the staging folder removed. A kill
    /// after any number of them leaves no `run.json` or one that verifies, and the next open finishes the
    /// publish: the new set, the old file it does not name (`b.csv`) and the user's file as they were.
    #[test]
    fn a_publish_cut_short_after_its_commit_point_is_finished_by_the_next_open() {
        let new = [("a.csv", "new\n"), ("b.csv", "old\n"), ("c.csv", "new\n"), ("mine.txt", "kept\n")];
        let new: Vec<(String, String)> = new.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
        for done in 0..=5_usize {
            let dir = old_set(&format!("cut-{done}"));
            let mut set = OutputSet::open(&dir, &command()).unwrap();
            let staging = set.staging().to_path_buf();
            for name in ["a.csv", "c.csv"] {
                std::fs::write(staging.join(name), "new\n").unwrap();
            }
            let manifest = serde_json::json!({ "as_of": "2028-01-15", "files": [
                { "name": "a.csv", "bytes": 4, "sha256": sha256(b"new\n") },
                { "name": "c.csv", "bytes": 4, "sha256": sha256(b"new\n") },
            ]});
            write_synced(&staging.join(MANIFEST), manifest.to_string().as_bytes(), "manifest").unwrap();
            let moved = ["a.csv", "c.csv", MANIFEST].map(String::from);
            commit(&staging, &moved).unwrap();
            // Killed there: the set is committed, and dropping it must leave its staging folder.
            set.committed = true;
            drop(set);
            if done >= 1 {
                std::fs::remove_file(dir.join(MANIFEST)).unwrap();
            }
            for name in moved.iter().take(done.saturating_sub(1)) {
                std::fs::rename(staging.join(name), dir.join(name)).unwrap();
            }
            if done == 5 {
                std::fs::remove_dir_all(&staging).unwrap();
            }
            let seen = verified(&dir);
            match done {
                0 => assert_eq!(seen.as_deref(), Some("2027-01-15"), "before the first step, the old set"),
                1..=3 => assert_eq!(seen, None, "{done} steps: no run.json while files move"),
                _ => assert_eq!(seen.as_deref(), Some("2028-01-15"), "{done} steps"),
            }
            drop(OutputSet::open(&dir, &command()).unwrap());
            assert_eq!(verified(&dir).as_deref(), Some("2028-01-15"), "finished after {done} steps");
            assert_eq!(texts(&dir), new, "after {done} steps");
            let left: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.starts_with('.'))
                .collect();
            assert_eq!(left, Vec::<String>::new(), "no staging folder or lock left after {done} steps");
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[test]
    fn a_staging_folder_not_committed_is_removed_and_the_old_set_stays() {
        let dir = old_set("uncommitted");
        let before = texts(&dir);
        let mut set = OutputSet::open(&dir, &command()).unwrap();
        std::fs::write(set.staging().join("a.csv"), "new\n").unwrap();
        write_synced(&set.staging().join(MANIFEST), b"{}", "manifest").unwrap();
        // Killed before its commit point: the staging folder stays behind.
        set.staging = PathBuf::new();
        drop(set);
        assert!(std::fs::read_dir(&dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(STAGING_PREFIX)));
        drop(OutputSet::open(&dir, &command()).unwrap());
        assert_eq!(verified(&dir).as_deref(), Some("2027-01-15"));
        assert_eq!(texts(&dir), before);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_marker_that_does_not_read_stops_the_next_run_saying_what_to_do() {
        for (label, marker) in [
            ("garbled", "{\"files\": [\"a.csv\""),
            ("no-manifest", "{\"files\": [\"a.csv\"]}"),
            ("escape", "{\"files\": [\"../a.csv\", \"run.json\"]}"),
        ] {
            let dir = old_set(label);
            let staging = dir.join(format!("{STAGING_PREFIX}1"));
            std::fs::create_dir_all(&staging).unwrap();
            std::fs::write(staging.join(MARKER), marker).unwrap();
            let err = OutputSet::open(&dir, &command()).err().unwrap().to_string();
            let told = ["does not read as lakeshore writes it", "output names must be plain file names"];
            assert!(told.iter().any(|t| err.contains(t)), "{label}: {err}");
            assert_eq!(verified(&dir).as_deref(), Some("2027-01-15"), "{label}: the old set, untouched");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
