//! Many output files written into one folder ([`FolderWriter`]): each as [`super::write_atomic`] writes it,
//! complete or absent, but the folder looked through for the temporaries of killed runs once, when the writer
//! is made, rather than once for each file. The tiles of a state's map are thousands of files in one folder,
//! and a look through a folder of N files for each of N files is N² names read.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{folder, output_path, remove_stale_temps, AtomicFile, Temps, TMP};
use crate::model::error::Result;

/// The writer of many files into one folder (see the module docs).
#[derive(Debug)]
pub struct FolderWriter {
    dir: PathBuf,
}

impl FolderWriter {
    /// A writer of files into the folder `dir`, which exists. The temporary files that killed runs left of
    /// any file in it are removed now, and only now: a file of the folder the writer does not write is
    /// looked after by whatever writes it.
    pub fn new(dir: &Path) -> Self {
        remove_stale_temps(folder(dir), Temps::Tagged(&format!(".{TMP}-")));
        FolderWriter { dir: dir.to_path_buf() }
    }

    /// Writes the file `name` of the folder as [`super::write_atomic`] does: `fill` writes into a temporary
    /// file beside it, which then replaces it. Returns its path; a name that is not a plain file name is
    /// refused ([`output_path`]).
    pub fn write_atomic(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<PathBuf> {
        let path = output_path(&self.dir, name)?;
        AtomicFile::create_unscanned(&path)?.fill(fill)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    #[test]
    fn many_files_are_written_whole_and_the_temporaries_of_dead_runs_removed_once() {
        let dir = crate::scratch::root().join("folder-writer");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Of dead runs (no process has id 0; `/proc/0` does not exist): removed. Of this process, a name not
        // of a temporary, another tag, a file of the user: kept.
        let mine = format!(".b.js.tmp-{}-99999", std::process::id());
        for name in [".a.js.tmp-0", ".zz.js.tmp-0-7", &mine, ".a.js.tmp-x", ".a.js.lines-0", "notes.txt"] {
            std::fs::write(dir.join(name), "partial").unwrap();
        }
        let writer = FolderWriter::new(&dir);
        // A dead run's temporary of a file the writer then writes, planted after the writer was made: the
        // folder is not looked through again, so it stays.
        std::fs::write(dir.join(".f3.js.tmp-0"), "partial").unwrap();
        let mut written = Vec::new();
        for i in 0..5 {
            written.push(writer.write_atomic(&format!("f{i}.js"), |w| writeln!(w, "file {i}")).unwrap());
        }
        assert_eq!(written, (0..5).map(|i| dir.join(format!("f{i}.js"))).collect::<Vec<_>>());
        for i in 0..5 {
            assert_eq!(std::fs::read_to_string(dir.join(format!("f{i}.js"))).unwrap(), format!("file {i}\n"));
        }
        let mut expected = vec![".a.js.lines-0", ".a.js.tmp-x", ".f3.js.tmp-0", mine.as_str(), "notes.txt"];
        expected.extend(["f0.js", "f1.js", "f2.js", "f3.js", "f4.js"]);
        expected.sort();
        assert_eq!(names(&dir), expected);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_whose_filling_fails_is_absent_and_leaves_no_temporary() {
        let dir = crate::scratch::root().join("folder-writer-fails");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let writer = FolderWriter::new(&dir);
        writer.write_atomic("kept.js", |w| w.write_all(b"old\n")).unwrap();
        let failed = writer.write_atomic("kept.js", |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert!(writer.write_atomic("new.js", |_| Err(std::io::Error::other("disk full"))).is_err());
        assert!(writer.write_atomic("../out.js", |w| w.write_all(b"x")).is_err());
        assert_eq!(names(&dir), ["kept.js"]);
        assert_eq!(std::fs::read_to_string(dir.join("kept.js")).unwrap(), "old\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
