//! The library's error type and the per-record problems a run collects.
//!
//! Two kinds of trouble exist. An [`Error`] stops the run: a file that cannot be opened, a layer with no CRS,
//! a rule set that does not parse. A [`Problem`] is one bad record (a parcel with broken geometry, a duplicate
//! id, an unparsable date): it is reported, the record is carried through as *unscheduled* with the reason where
//! it is a parcel, and the run goes on. Both name the file, the record and what to do next.

use std::fmt;
use std::path::{Path, PathBuf};

/// A failure that stops the run (exit code 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file was read but its content is unusable as a whole.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do about it.
        message: String,
    },
    /// A coordinate reference system is missing, unknown or cannot be transformed.
    #[error("{path}: {message}")]
    Crs {
        /// The file whose CRS is at fault (or the rule set / command line that named it).
        path: PathBuf,
        /// What is wrong and what to do about it.
        message: String,
    },
    /// The configuration (config file, flags or rule set) is inconsistent.
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// A [`Error::Format`] for `path`.
    pub fn format(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Format { path: path.as_ref().to_path_buf(), message: message.into() }
    }

    /// A [`Error::Crs`] for `path`.
    pub fn crs(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Crs { path: path.as_ref().to_path_buf(), message: message.into() }
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io { path: path.as_ref().to_path_buf(), source }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One bad record: reported, never fatal, never silently dropped.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The file the record came from.
    pub path: PathBuf,
    /// Where in the file: "record 12", "line 7", "parcel 052000-1.-1-1".
    pub record: String,
    /// What is wrong, and what to do about it.
    pub message: String,
}

impl Problem {
    /// A problem with `record` of the file at `path`.
    pub fn new(path: impl AsRef<Path>, record: impl Into<String>, message: impl Into<String>) -> Self {
        Problem { path: path.as_ref().to_path_buf(), record: record.into(), message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path.display(), self.record, self.message)
    }
}
