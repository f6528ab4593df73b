//! The writing side: tables to CSV, GeoJSON, Parquet and GeoPackage, each file written atomically, and the
//! output set a command's files are published as.
//!
//! Every writer is a [`sink::Sink`] taking a table a block of rows at a time ([`TextByPlace`] for CSV and
//! GeoJSON, [`gpkg::GpkgSink`], [`ParquetSink`]); a finished sink is a [`Staged`] file, and [`commit_all`]
//! puts a run's files in place together. The WKB and the GeoPackage geometry blob come from the readers'
//! floor ([`crate::formats::wkb`], [`crate::formats::gpkg::blob`]), which the two sides share.
//!
//! A file is written to a temporary name in the target folder and renamed over the target only when
//! complete, so a reader never sees half a schedule and a failed run leaves the previous file in place.
//! A writer does not force its file to disk: a command's files go into the output folder as one set
//! ([`set::OutputSet`]), written in a staging folder under the folder's lock, forced to disk there all at
//! once (each file handed to the disk a stretch at a time as it is written, by `writeback`, so that this
//! waits for little), committed, and only then renamed into place, with the manifest `run.json` last.
//! [`FAULT_ENV`] is the tests' hook to kill or fail a run at any point of that ([`fault`]). Many files
//! written into one folder (the tiles of a map) go through a [`FolderWriter`], which looks for the
//! temporaries of killed runs once rather than once a file.

mod by_place;
mod csv;
mod digest;
pub mod fault;
mod folder;
mod geojson;
pub mod gpkg;
mod parquet;
pub mod set;
pub mod sink;
mod writeback;

pub use self::by_place::TextByPlace;
pub use self::csv::write_csv;
pub use self::fault::FAULT_ENV;
pub use self::folder::FolderWriter;
pub use self::geojson::write_geojson;
pub use self::gpkg::write_gpkg;
pub use self::parquet::{write_parquet, ParquetSink};
pub use self::set::{FileLock, OutputSet};

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use self::digest::{Hashed, Written};
use self::fault::Faulty;
use self::writeback::Writeback;
use crate::model::error::{Error, Result};

/// `dir/name` for an output file, refusing a name that could leave `dir`: output names may one day come from
/// data (a town, a district), and a name with a path separator, `..` or a root would write elsewhere. A
/// hidden name (a leading `.`) is refused too: the hidden names of an output folder are the run's
/// temporaries, which are never published.
pub fn output_path(dir: &Path, name: &str) -> Result<PathBuf> {
    let refuse = |why: &str| Err(Error::format(dir, format!("refusing to write the output '{name}': {why}")));
    let mut components = Path::new(name).components();
    match (components.next(), components.next()) {
        (Some(Component::Normal(n)), None) if n == name && !name.contains(['/', '\\']) => {
            if name.starts_with('.') {
                return refuse(
                    "a name starting with '.' is hidden, as the run's temporary files are, and would not be \
                     published; name it without the leading dot",
                );
            }
            Ok(dir.join(name))
        }
        _ => refuse("output names must be plain file names inside --out"),
    }
}

/// Writes `path` atomically: `fill` writes into a temporary file beside it, which then replaces `path`.
/// Temporary files of `path` left by an earlier run that was killed are removed first.
pub fn write_atomic(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    AtomicFile::create(path)?.fill(fill)
}

/// An output file written under a temporary name beside its path ([`write_atomic`]'s file, for writers that
/// fill it a piece at a time). [`AtomicFile::commit`] renames it over the path; dropped uncommitted, it is
/// removed and the path keeps its old file.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<Hashed<Faulty<Writeback>>>>,
}

impl AtomicFile {
    /// The file that will replace `path`, created empty under its temporary name.
    pub fn create(path: &Path) -> Result<Self> {
        Ok(AtomicFile::at(path, create_temp(path, TMP)?))
    }

    /// [`AtomicFile::create`] without looking for the temporaries of killed runs: the caller did
    /// ([`FolderWriter`]).
    fn create_unscanned(path: &Path) -> Result<Self> {
        Ok(AtomicFile::at(path, create_new_temp(path, TMP)?))
    }

    /// The file that will replace `path`, written at the temporary `tmp`.
    fn at(path: &Path, (tmp, file): (PathBuf, File)) -> Self {
        AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, Hashed::new(Faulty(Writeback::new(file))))),
        }
    }

    /// The path the file will replace.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The writer, while the file is open.
    fn open(&mut self) -> std::io::Result<&mut BufWriter<Hashed<Faulty<Writeback>>>> {
        self.out.as_mut().ok_or_else(|| std::io::Error::other("the file was already closed"))
    }

    /// Writes the whole file with `fill` and puts it in place of its path; an error of `fill` leaves the
    /// path as it was.
    fn fill(mut self, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
        fill(&mut self).map_err(|e| Error::io(&self.path, e))?;
        self.commit()
    }

    /// Writes what is buffered and puts the file in place of its path.
    pub fn commit(self) -> Result<()> {
        self.close()?.commit()
    }

    /// Writes what is buffered and closes the file, still under its temporary name: a file complete and
    /// ready to be put in place with the other files of its run.
    pub fn close(mut self) -> Result<Staged> {
        let Some(out) = self.out.take() else {
            return Err(Error::io(&self.path, std::io::Error::other("the file was already closed")));
        };
        let mut staged = Staged::new(&self.path, &self.tmp);
        let hashed = out.into_inner().map_err(|e| Error::io(&self.path, e.into_error()))?;
        staged.written = Some(hashed.finish().1);
        Ok(staged)
    }
}

/// A complete output file under its temporary name. [`Staged::commit`] renames it over its path; dropped
/// uncommitted, it is removed and the path keeps its old file. The files of one run are put in place
/// together by [`commit_all`], once every one of them is complete.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    tmp: Option<PathBuf>,
    /// Its size and SHA-256, when it was hashed as it was written.
    written: Option<Written>,
}

impl Staged {
    /// The file written at `tmp`, to replace `path`.
    fn new(path: &Path, tmp: &Path) -> Self {
        Staged { path: path.to_path_buf(), tmp: Some(tmp.to_path_buf()), written: None }
    }

    /// The path the file will replace.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file over its path.
    pub fn commit(mut self) -> Result<()> {
        let Some(tmp) = self.tmp.take() else { return Ok(()) };
        let done = std::fs::rename(&tmp, &self.path);
        match (&done, self.written) {
            (Err(_), _) => {
                let _ = std::fs::remove_file(&tmp);
            }
            (Ok(()), Some(written)) => digest::record(&self.path, written),
            (Ok(()), None) => {}
        }
        done.map_err(|e| Error::io(&self.path, e))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Puts every file of `files` in place, or none when one of their paths cannot take a file (a folder stands
/// there): the outputs of a run are renamed together only once all of them are complete. Returns their paths.
pub fn commit_all(files: Vec<Staged>) -> Result<Vec<PathBuf>> {
    if let Some(blocked) = files.iter().find(|f| f.path.is_dir()) {
        return Err(Error::io(
            &blocked.path,
            std::io::Error::other("a folder stands where the output goes: move it away and run again"),
        ));
    }
    let mut written = Vec::with_capacity(files.len());
    for file in files {
        written.push(file.path.clone());
        file.commit()?;
    }
    Ok(written)
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.open()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.open()?.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(out) = self.out.take() {
            // What is still buffered is dropped unwritten: the file is removed.
            drop(out.into_parts());
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The tag of [`AtomicFile`]'s temporary files.
const TMP: &str = "tmp";

/// The temporary files [`remove_stale_temps`] looks at.
enum Temps<'a> {
    /// Those of one file: named this prefix, `.NAME.TAG-`.
    Of(&'a str),
    /// Those of every file of the folder with a tag: named `.` + any name + this infix, `.TAG-`.
    Tagged(&'a str),
}

/// Removes the files in `dir` named as `temps` says + the id of a process that is no longer running (and,
/// after a `-`, a number): temporary files of a run that was killed before it could rename or remove them.
/// Where running processes cannot be listed (no `/proc`), every such file but this process's own is taken as
/// stale.
fn remove_stale_temps(dir: &Path, temps: Temps<'_>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let proc = Path::new("/proc");
    let me = std::process::id().to_string();
    let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str() else { continue };
        let rest = match temps {
            Temps::Of(prefix) => name.strip_prefix(prefix),
            Temps::Tagged(infix) => name.strip_prefix('.').and_then(|n| n.rsplit_once(infix)).map(|(_, r)| r),
        };
        let Some(rest) = rest else { continue };
        let (pid, count) = rest.split_once('-').unwrap_or((rest, "0"));
        let running = pid == me || (proc.is_dir() && proc.join(pid).exists());
        if !running && number(pid) && number(count) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The folder of `path` for the file system (`.` when it names none).
fn parent(path: &Path) -> &Path {
    folder(path.parent().unwrap_or(Path::new("")))
}

/// The folder `dir` names for the file system: `.` for the empty path (the folder of a bare file name, an
/// `--out` file with no folder before its name).
pub(crate) fn folder(dir: &Path) -> &Path {
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

/// The start of the names of the scratch files of `path` tagged `tag`: `.NAME.TAG-`.
fn temp_prefix(path: &Path, tag: &str) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!(".{name}.{tag}-")
}

/// Creates a scratch file beside `path` under a name no other file has, `.NAME.TAG-PID-N`, and returns its
/// name and the file. It is created new (`O_EXCL`): whatever stands at a name, a link planted there included,
/// is never opened, and the next name is tried. Scratch files of the same tag left by killed runs are removed
/// first.
pub(crate) fn create_temp(path: &Path, tag: &str) -> Result<(PathBuf, File)> {
    remove_stale_temps(parent(path), Temps::Of(&temp_prefix(path, tag)));
    create_new_temp(path, tag)
}

/// [`create_temp`] without looking for the scratch files of killed runs.
fn create_new_temp(path: &Path, tag: &str) -> Result<(PathBuf, File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = parent(path);
    let prefix = temp_prefix(path, tag);
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..64 {
        let tmp = dir.join(format!("{prefix}{pid}-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    let taken = last.unwrap_or_else(|| std::io::Error::other("no free temporary name"));
    Err(Error::io(
        path,
        std::io::Error::new(taken.kind(), format!("64 temporary names beside it were taken ({taken}): remove the files named {prefix}* and run again")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = crate::scratch::root().join("atomic");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("schedule.csv");
        write_atomic(&path, |w| w.write_all(b"old\n")).unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("schedule.csv")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_files_of_dead_runs_are_removed() {
        let dir = crate::scratch::root().join("stale");
        std::fs::create_dir_all(&dir).unwrap();
        // No process has id 0 in /proc nor a name that is not a number; the other target's file stays.
        for name in [".schedule.csv.tmp-0", ".schedule.csv.tmp-x", ".problems.csv.tmp-0"] {
            std::fs::write(dir.join(name), "partial").unwrap();
        }
        write_atomic(&dir.join("schedule.csv"), |w| w.write_all(b"new\n")).unwrap();
        let mut left: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, [".problems.csv.tmp-0", ".schedule.csv.tmp-x", "schedule.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn output_names_stay_inside_the_output_folder() {
        let out = Path::new("out");
        assert_eq!(output_path(out, "schedule.csv").unwrap(), out.join("schedule.csv"));
        for name in ["../schedule.csv", "/etc/passwd", "a/b.csv", "..", ".", "", "a\\b.csv", "C:x.csv/"] {
            let err = output_path(out, name).unwrap_err().to_string();
            assert!(err.contains("output names must be plain file names"), "{name}: {err}");
        }
        for name in [".map.html", ".schedule.csv", "..csv"] {
            let err = output_path(out, name).unwrap_err().to_string();
            assert!(err.contains("name it without the leading dot"), "{name}: {err}");
        }
    }
}
