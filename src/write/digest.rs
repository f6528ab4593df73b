//! The SHA-256 of each output file, for `run.json`: taken as the file is written, since an output is written
//! front to back through [`super::AtomicFile`], and kept by the path it was put at; a file written otherwise
//! (a GeoPackage through SQLite) is read again. Reading a county's gigabyte of GeoJSON a second time costs more
//! than hashing it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::model::error::{Error, Result};

/// A writer that hashes what it passes on.
pub(super) struct Hashed<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Hashed<W> {
    /// Hashes what is written to `inner`.
    pub(super) fn new(inner: W) -> Self {
        Hashed { inner, hasher: Sha256::new(), bytes: 0 }
    }

    /// The writer, and the size and SHA-256 of everything written through it.
    pub(super) fn finish(self) -> (W, Written) {
        (self.inner, Written { bytes: self.bytes, sha256: self.hasher.finalize().into() })
    }
}

impl<W: Write> Write for Hashed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The size and SHA-256 of a file as it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Written {
    bytes: u64,
    sha256: [u8; 32],
}

/// What was written at each path put in place, with the file's modification time then.
type Known = HashMap<PathBuf, (Written, Option<SystemTime>)>;

fn known() -> &'static Mutex<Known> {
    static KNOWN: OnceLock<Mutex<Known>> = OnceLock::new();
    KNOWN.get_or_init(Mutex::default)
}

/// Records that the file now at `path` was written as `written`.
pub(super) fn record(path: &Path, written: Written) {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    known().lock().unwrap_or_else(PoisonError::into_inner).insert(path.to_path_buf(), (written, modified));
}

/// The size and the SHA-256 (lowercase hex) of the file at `path`: as it was written, when it was put there
/// through [`record`] and is still that size with that modification time; else read from the file.
pub(super) fn digest(path: &Path) -> Result<(u64, String)> {
    let recorded = known().lock().unwrap_or_else(PoisonError::into_inner).remove(path);
    let metadata = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let (bytes, sha256) = match recorded {
        Some((w, modified)) if w.bytes == metadata.len() && modified == metadata.modified().ok() => {
            (w.bytes, w.sha256)
        }
        _ => read_digest(path)?,
    };
    Ok((bytes, sha256.iter().map(|b| format!("{b:02x}")).collect()))
}

/// The size and SHA-256 of the file at `path`, read.
fn read_digest(path: &Path) -> Result<(u64, [u8; 32])> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    let mut bytes = 0;
    loop {
        let n = file.read(&mut buffer).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        bytes += n as u64;
    }
    Ok((bytes, hasher.finalize().into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written through an [`super::super::AtomicFile`] is hashed as written, and that is the SHA-256
    /// `sha256sum` gives its bytes; a file changed after it was put in place is read again.
    #[test]
    fn a_file_is_hashed_as_written_and_read_again_once_changed() {
        let dir = crate::scratch::root().join("digest");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("new.txt");
        super::super::write_atomic(&path, |w| w.write_all(b"new\n")).unwrap();
        // sha256sum of "new\n".
        let new = "7aa7a5359173d05b63cfd682e3c38487f3cb4f7f1d60659fe59fab1505977d4c";
        assert!(known().lock().unwrap().contains_key(&path), "hashed as written");
        assert_eq!(digest(&path).unwrap(), (4, new.to_string()));
        super::super::write_atomic(&path, |w| w.write_all(b"new\n")).unwrap();
        std::fs::write(&path, b"").unwrap();
        // sha256sum of nothing.
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(digest(&path).unwrap(), (0, empty.to_string()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
