//! The library's error type and the per-record problems a run collects.
//!
//! Two kinds of trouble exist. An [`Error`] stops the run: a file that cannot be opened, a layer with no CRS,
//! a rule set that does not parse. A [`Problem`] is one bad record (a parcel with broken geometry, a duplicate
//! id, an unparsable date): it is reported, the record is carried through as *unscheduled* with the reason where
//! it is a parcel, and the run goes on. Both name the file, the record and what to do next.

use std::cmp::Ordering;
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
///
/// Problems order by file, then record with numbers compared as numbers ("record 9" before "record 10"), then
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl Problem {
    /// Sorts problems (file, record in numeric order, message) and keeps each one once.
    pub fn sort_unique(problems: &mut Vec<Problem>) {
        problems.sort();
        problems.dedup();
    }
}

impl Ord for Problem {
    fn cmp(&self, other: &Self) -> Ordering {
        self.path
            .cmp(&other.path)
            .then_with(|| natural_cmp(&self.record, &other.record))
            .then_with(|| self.message.cmp(&other.message))
    }
}

impl PartialOrd for Problem {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compares text with runs of ASCII digits compared by value: "line 9" < "line 10" < "line 10a".
fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let (da, ra) = split_digits(a);
                let (db, rb) = split_digits(b);
                let (za, zb) = (trim_zeros(da), trim_zeros(db));
                let by_value =
                    za.len().cmp(&zb.len()).then_with(|| za.cmp(zb)).then_with(|| da.len().cmp(&db.len()));
                if by_value != Ordering::Equal {
                    return by_value;
                }
                (a, b) = (ra, rb);
            }
            (Some(x), Some(y)) if x != y => return x.cmp(y),
            _ => (a, b) = (&a[1..], &b[1..]),
        }
    }
}

fn split_digits(s: &[u8]) -> (&[u8], &[u8]) {
    s.split_at(s.iter().position(|c| !c.is_ascii_digit()).unwrap_or(s.len()))
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    &digits[digits.iter().position(|&c| c != b'0').unwrap_or(digits.len())..]
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path.display(), self.record, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(file: &str, record: &str) -> Problem {
        Problem::new(file, record, "bad")
    }

    #[test]
    fn records_sort_by_number_and_repeats_go() {
        let mut problems = vec![
            problem("b.csv", "line 2"),
            problem("a.shp", "record 10"),
            problem("a.shp", "record 9"),
            problem("a.shp", "record 10"),
            problem("a.shp", "record 100"),
            problem("a.shp", "parcel 05-1.-1-1"),
        ];
        Problem::sort_unique(&mut problems);
        let order: Vec<String> =
            problems.iter().map(|p| format!("{} {}", p.path.display(), p.record)).collect();
        assert_eq!(
            order,
            [
                "a.shp parcel 05-1.-1-1",
                "a.shp record 9",
                "a.shp record 10",
                "a.shp record 100",
                "b.csv line 2"
            ]
        );
    }

    #[test]
    fn leading_zeros_and_suffixes_order_stably() {
        assert_eq!(natural_cmp("lot 007", "lot 7"), Ordering::Greater);
        assert_eq!(natural_cmp("lot 7", "lot 7a"), Ordering::Less);
        assert_eq!(natural_cmp("lot 12", "lot 012"), Ordering::Less);
        assert_eq!(natural_cmp("b", "a10"), Ordering::Greater);
    }
}
