//! Where a File Geodatabase's files are: a `.gdb` folder on disk, or a `.gdb` folder inside a zip, as
//! counties publish them (`Parcels.gdb.zip`), whose members are inflated into memory when a table is opened,
//! within the bounds of `formats::zipped::limits`, and never unpacked to disk. Messages name a file of a
//! zipped geodatabase as `Parcels.gdb.zip:Parcels.gdb/a00000009.gdbtable`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Cursor, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::formats::zipped::ZipArchive;
use crate::model::error::{Error, Result};

/// A file of the geodatabase open for reading, forward and by position.
pub(super) trait Source: Read + Seek + Send {}

impl<T: Read + Seek + Send> Source for T {}

/// A File Geodatabase's folder.
pub(in crate::formats) enum Folder {
    /// A `.gdb` folder on disk.
    Disk(PathBuf),
    /// A `.gdb` folder inside a zip.
    Zipped(Zipped),
}

/// A `.gdb` folder inside a zip: the folder as messages name it, its files (by name in lower case) with their
/// index in the zip, and the zip, opened once, with the files inflated so far.
pub(in crate::formats) struct Zipped {
    shown: PathBuf,
    files: HashMap<String, usize>,
    zip: Mutex<Members>,
}

/// A zip opened once, and its members inflated so far, by index.
struct Members {
    archive: ZipArchive,
    inflated: HashMap<usize, Arc<[u8]>>,
}

impl Folder {
    /// The `.gdb` folder `prefix` (its path in the zip, ending in `/`) of the zip at `path`, opened as `zip`,
    /// whose members are `names` in the zip's order.
    pub(in crate::formats) fn zipped(path: &Path, zip: ZipArchive, prefix: &str, names: &[String]) -> Folder {
        let files = names
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                let file = name.strip_prefix(prefix).filter(|f| !f.is_empty() && !f.contains('/'))?;
                Some((file.to_ascii_lowercase(), i))
            })
            .collect();
        let shown = PathBuf::from(format!("{}:{}", path.display(), prefix.trim_end_matches('/')));
        Folder::Zipped(Zipped {
            shown,
            files,
            zip: Mutex::new(Members { archive: zip, inflated: HashMap::new() }),
        })
    }

    /// The folder as messages name it.
    pub(super) fn shown(&self) -> &Path {
        match self {
            Folder::Disk(path) => path,
            Folder::Zipped(z) => &z.shown,
        }
    }

    /// The file `name` of the folder as messages name it.
    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.shown().join(name)
    }

    /// Whether the folder holds the file `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        match self {
            Folder::Disk(path) => path.join(name).is_file(),
            Folder::Zipped(z) => z.files.contains_key(&name.to_ascii_lowercase()),
        }
    }

    /// The file `name` open for reading, with its length.
    pub(super) fn open(&self, name: &str) -> Result<(Box<dyn Source>, u64)> {
        match self {
            Folder::Disk(folder) => {
                let path = folder.join(name);
                let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
                let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
                Ok((Box::new(file), len))
            }
            Folder::Zipped(_) => {
                let bytes = self.read(name)?;
                let len = bytes.len() as u64;
                Ok((Box::new(Cursor::new(bytes)), len))
            }
        }
    }

    /// The whole of the file `name`.
    pub(super) fn read(&self, name: &str) -> Result<Arc<[u8]>> {
        let path = self.path(name);
        match self {
            Folder::Disk(_) => std::fs::read(&path).map(Arc::from).map_err(|e| Error::io(&path, e)),
            Folder::Zipped(z) => {
                let Some(&index) = z.files.get(&name.to_ascii_lowercase()) else {
                    let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
                    return Err(Error::io(&path, missing));
                };
                let mut zip = z.zip.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some(bytes) = zip.inflated.get(&index) {
                    return Ok(bytes.clone());
                }
                let bytes = super::super::zipped::inflate(&path, &mut zip.archive, index)?;
                zip.inflated.insert(index, bytes.clone());
                Ok(bytes)
            }
        }
    }
}
