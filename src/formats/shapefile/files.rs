//! Where a shapefile's files are: beside the `.shp` on disk, or members of a zip held in memory
//! (`formats::zipped`). The readers of the `.shp`, `.shx`, `.dbf`, `.prj` and `.cpg` open them through here,
//! and every message names a file as this gives it (`parcels.dbf`, `county.zip:parcels.dbf`).

use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::error::{Error, Result};

/// A shapefile's set of files.
#[derive(Debug, Clone)]
pub(crate) enum Files {
    /// The `.shp` on disk; its siblings beside it.
    Disk(PathBuf),
    /// Members of a zip, read into memory: the `.shp` as messages name it, and each member by its
    /// extension (lower case).
    Memory { shp: PathBuf, members: Arc<Vec<(String, Arc<[u8]>)>> },
}

/// One file of a shapefile: its name in messages, and its bytes when it is held in memory.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// The file as messages name it.
    pub(crate) path: PathBuf,
    bytes: Option<Arc<[u8]>>,
}

/// A file opened for reading, forward and by position.
pub(super) trait Source: Read + Seek + Send {
    /// Moves `offset` bytes from the current position, keeping what a buffer holds where it can.
    fn skip(&mut self, offset: i64) -> std::io::Result<()>;
}

impl Source for BufReader<File> {
    fn skip(&mut self, offset: i64) -> std::io::Result<()> {
        self.seek_relative(offset)
    }
}

impl Source for Cursor<Arc<[u8]>> {
    fn skip(&mut self, offset: i64) -> std::io::Result<()> {
        self.seek(SeekFrom::Current(offset)).map(drop)
    }
}

impl Files {
    /// The path of the `.shp`, as messages name it.
    pub(crate) fn shp(&self) -> &Path {
        match self {
            Files::Disk(shp) | Files::Memory { shp, .. } => shp,
        }
    }

    /// The file with extension `ext` (lower case) of the shapefile: `parcels.dbf` or `parcels.DBF` beside
    /// the `.shp`, or the zip's member.
    pub(crate) fn sibling(&self, ext: &str) -> Option<Member> {
        match self {
            Files::Disk(shp) => [ext.to_string(), ext.to_ascii_uppercase()]
                .iter()
                .map(|e| shp.with_extension(e))
                .find(|p| p.is_file())
                .map(|path| Member { path, bytes: None }),
            Files::Memory { shp, members } => members
                .iter()
                .find(|(e, _)| e == ext)
                .map(|(_, bytes)| Member { path: shp.with_extension(ext), bytes: Some(bytes.clone()) }),
        }
    }

    /// The `.shp` itself.
    pub(crate) fn main(&self) -> Result<Member> {
        match self {
            Files::Disk(shp) => Ok(Member { path: shp.clone(), bytes: None }),
            Files::Memory { .. } => self.sibling("shp").ok_or_else(|| Error::format(self.shp(), "not found")),
        }
    }
}

impl Member {
    /// Opens the file, with a buffer of `buffer` bytes on disk; returns it and its length.
    pub(super) fn open(&self, buffer: usize) -> Result<(Box<dyn Source>, u64)> {
        match &self.bytes {
            Some(bytes) => Ok((Box::new(Cursor::new(bytes.clone())), bytes.len() as u64)),
            None => {
                let io = |e| Error::io(&self.path, e);
                let file = File::open(&self.path).map_err(io)?;
                let len = file.metadata().map_err(io)?.len();
                Ok((Box::new(BufReader::with_capacity(buffer, file)), len))
            }
        }
    }

    /// The whole file.
    pub(super) fn read(&self) -> Result<Vec<u8>> {
        match &self.bytes {
            Some(bytes) => Ok(bytes.to_vec()),
            None => std::fs::read(&self.path).map_err(|e| Error::io(&self.path, e)),
        }
    }
}
