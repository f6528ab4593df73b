//! The library's error type and the per-record problems a run collects.
//!
//! Two kinds of trouble exist. An [`Error`] stops the run: a file that cannot be opened, a layer with no CRS,
//! a rule set that does not parse. A [`Problem`] is one bad record (a parcel with broken geometry, a duplicate
//! id, an unparsable date): it is reported, the record is carried through as *unscheduled* with the reason where
//! it is a parcel, and the run goes on. Both name the file, the record and what to do next.
//!
//! An [`Error`] that comes from another library (the operating system, toml, polars, SQLite, dBase, calamine,
//! serde_json) has a variant of its own that keeps that library's error as its
//! [`source`](std::error::Error::source), so a caller can match on the kind and reach the cause; its message
//! is written for a person and already includes what the source says.

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
    /// A TOML file (a county config, a rule set) does not parse or does not fit: a misspelt key, a value of the
    /// wrong type. Its message and source are those of the [`TomlError`].
    #[error(transparent)]
    Toml(Box<TomlError>),
    /// A Parquet file could not be read, or a table could not be written as Parquet.
    #[error("{path}: {message}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do about it.
        message: String,
        /// The error of polars, which reads and writes Parquet.
        #[source]
        source: polars::error::PolarsError,
    },
    /// A GeoPackage could not be read or written.
    #[error("{path}: {message}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do about it.
        message: String,
        /// The error of SQLite (through rusqlite), in which a GeoPackage is kept.
        #[source]
        source: rusqlite::Error,
    },
    /// The dBase table (`.dbf`) of a shapefile could not be read.
    #[error("{path}: not a readable dBase table ({source}): re-export the layer")]
    Dbase {
        /// The `.dbf` file.
        path: PathBuf,
        /// The error of the dBase reader the `shapefile` crate provides.
        #[source]
        source: shapefile::dbase::Error,
    },
    /// A workbook (`.xlsx`, `.ods`, ...) could not be read.
    #[error("{path}: {message}")]
    Workbook {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do about it.
        message: String,
        /// The error of calamine, which reads workbooks.
        #[source]
        source: calamine::Error,
    },
    /// JSON inside a file (the `geo` metadata of a GeoParquet file) is not JSON.
    #[error("{path}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do about it.
        message: String,
        /// serde_json's error, with the line and column in the JSON text.
        #[source]
        source: serde_json::Error,
    },
    /// A signal asked the run to stop, and it stopped at a safe point before its outputs were published
    /// (see [`super::stop`]).
    #[error("stopped by {}", .0.name())]
    Stopped(super::stop::Signal),
}

/// A mistake in a TOML file, as [`Error::Toml`] holds it (boxed: the `toml` crate's error is large, and an
/// [`Error`] travels in every [`Result`]).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct TomlError {
    /// The file.
    pub path: PathBuf,
    /// The message for a person: `path:line:column: key: what is wrong`, the line with a caret under the
    /// mistake, and a hint (an example of the key, the key meant when one is misspelt).
    pub message: String,
    /// The `toml` crate's error, with the byte span of the mistake.
    #[source]
    pub source: toml::de::Error,
}

impl Error {
    /// An [`Error::Toml`] for `path`: `message` is the account of `source` given to a person.
    pub fn toml(path: impl AsRef<Path>, message: impl Into<String>, source: toml::de::Error) -> Self {
        Error::Toml(Box::new(TomlError {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
            source,
        }))
    }

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
/// Problems order by file, then [`Location`] (records by number: record 9 before record 10), then message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file the record came from.
    pub path: PathBuf,
    /// Where in the file.
    pub location: Location,
    /// What is wrong, and what to do about it.
    pub message: String,
}

/// Problems sort by file, then place in the file, then message. Most problems of a run share a file: the
/// same path, byte for byte, is equal without the component-wise comparison a path's order takes.
impl Ord for Problem {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let files = match self.path.as_os_str() == other.path.as_os_str() {
            true => std::cmp::Ordering::Equal,
            false => self.path.cmp(&other.path),
        };
        files.then_with(|| self.location.cmp(&other.location)).then_with(|| self.message.cmp(&other.message))
    }
}

impl PartialOrd for Problem {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Problem {
    /// A problem at `location` of the file at `path`.
    pub fn new(path: impl AsRef<Path>, location: Location, message: impl Into<String>) -> Self {
        Problem { path: path.as_ref().to_path_buf(), location, message: message.into() }
    }

    /// Sorts problems (file, location, message) and keeps each one once.
    pub fn sort_unique(problems: &mut Vec<Problem>) {
        problems.sort();
        problems.dedup();
    }
}

/// Where in its file a [`Problem`] lies, shown as `problems.csv` and messages name it: `record 12`, `line 7`.
///
/// Locations sort as their text reads with numbers taken by value: `a record`, `field SEWER`, `fields`,
/// `line 9`, `line 10`, `record 2`, `record 3 (fid 0)`, `record 10`, `row 3`, `whole file`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    /// A feature of a layer whose record number is not known (`a record`).
    UnnumberedRecord,
    /// One field of a layer, by its name (`field SEWER`).
    Field(String),
    /// A layer's fields as a whole, as when one it needs is missing (`fields`).
    Fields,
    /// A line of a text record file, 1-based (`line 7`).
    Line(usize),
    /// A feature of a layer, by its 1-based record number (`record 12`).
    Record(usize),
    /// A feature of a layer whose rows carry ids of their own (a GeoPackage's `fid`), by its 1-based
    /// position in the layer and its id (`record 12 (fid 0)`).
    RecordWithId(usize, i64),
    /// A row of a workbook sheet, 1-based (`row 3`).
    Row(usize),
    /// The file as a whole: its CRS, its text encoding (`whole file`).
    WholeFile,
}

impl Location {
    /// A feature of a layer by its 1-based place in the layer, with the row's own id beside it when the
    /// layer has one that differs from the place (a GeoPackage's `fid`).
    pub fn record(record: usize, fid: Option<i64>) -> Location {
        match fid {
            Some(fid) if i64::try_from(record) != Ok(fid) => Location::RecordWithId(record, fid),
            _ => Location::Record(record),
        }
    }

    /// What locations sort by: their kind in the order of their text, then the number, then the id beside
    /// a record number; two fields sort by their names ([`Location::cmp`]).
    fn sort_key(&self) -> (u8, usize, Option<i64>) {
        match self {
            Location::UnnumberedRecord => (0, 0, None),
            Location::Field(_) => (1, 0, None),
            Location::Fields => (2, 0, None),
            Location::Line(n) => (3, *n, None),
            Location::Record(n) => (4, *n, None),
            Location::RecordWithId(n, id) => (4, *n, Some(*id)),
            Location::Row(n) => (5, *n, None),
            Location::WholeFile => (6, 0, None),
        }
    }
}

impl Ord for Location {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (Location::Field(a), Location::Field(b)) => a.cmp(b),
            _ => self.sort_key().cmp(&other.sort_key()),
        }
    }
}

impl PartialOrd for Location {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::UnnumberedRecord => f.write_str("a record"),
            Location::Field(name) => write!(f, "field {name}"),
            Location::Fields => f.write_str("fields"),
            Location::Line(n) => write!(f, "line {n}"),
            Location::Record(n) => write!(f, "record {n}"),
            Location::RecordWithId(n, id) => write!(f, "record {n} (fid {id})"),
            Location::Row(n) => write!(f, "row {n}"),
            Location::WholeFile => f.write_str("whole file"),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path.display(), self.location, self.message)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn locations_read_as_before() {
        let shown = [
            (Location::UnnumberedRecord, "a record"),
            (Location::Field("SEWER".into()), "field SEWER"),
            (Location::Fields, "fields"),
            (Location::Line(7), "line 7"),
            (Location::Record(12), "record 12"),
            (Location::RecordWithId(1, 0), "record 1 (fid 0)"),
            (Location::Row(3), "row 3"),
            (Location::WholeFile, "whole file"),
        ];
        for (location, text) in shown {
            assert_eq!(location.to_string(), text);
        }
    }

    #[test]
    fn fields_sort_by_name_messages_last_and_a_path_by_its_components() {
        let problems = vec![
            Problem::new("d/a.shp", Location::Field("ZONE".into()), "m"),
            Problem::new("d/a.shp", Location::Record(1), "b"),
            Problem::new("d//a.shp", Location::Record(1), "b"),
            Problem::new("d/a.shp", Location::Record(1), "a"),
            Problem::new("d/a.shp", Location::Field("AREA".into()), "z"),
            Problem::new("c/z.shp", Location::WholeFile, "m"),
        ];
        let mut sorted = problems.clone();
        Problem::sort_unique(&mut sorted);
        let order: Vec<String> = sorted.iter().map(|p| format!("{}: {}", p.location, p.message)).collect();
        // `d//a.shp` is `d/a.shp` as a path: its problem is the same one, told once.
        assert_eq!(order, ["whole file: m", "field AREA: z", "field ZONE: m", "record 1: a", "record 1: b"]);
        assert_eq!(problems[1].cmp(&problems[2]), std::cmp::Ordering::Equal);
        assert_eq!(problems[1], problems[2]);
    }

    #[test]
    fn problems_sort_by_file_then_location_in_reading_order_and_repeats_go() {
        let problem = |file: &str, location: Location| Problem::new(file, location, "bad");
        let mut problems = vec![
            problem("b.csv", Location::Line(2)),
            problem("a.shp", Location::Record(10)),
            problem("a.shp", Location::WholeFile),
            problem("a.shp", Location::Record(9)),
            problem("a.shp", Location::Record(10)),
            problem("a.shp", Location::Record(100)),
            problem("a.shp", Location::RecordWithId(10, -4)),
            problem("a.shp", Location::Fields),
            problem("a.shp", Location::Field("SEWER".into())),
            problem("a.shp", Location::UnnumberedRecord),
            problem("b.csv", Location::Line(10)),
            problem("b.xlsx", Location::Row(3)),
        ];
        Problem::sort_unique(&mut problems);
        let order: Vec<String> =
            problems.iter().map(|p| format!("{} {}", p.path.display(), p.location)).collect();
        assert_eq!(
            order,
            [
                "a.shp a record",
                "a.shp field SEWER",
                "a.shp fields",
                "a.shp record 9",
                "a.shp record 10",
                "a.shp record 10 (fid -4)",
                "a.shp record 100",
                "a.shp whole file",
                "b.csv line 2",
                "b.csv line 10",
                "b.xlsx row 3",
            ]
        );
    }

    /// A fresh file path `name` in a directory of its own under the system temp dir, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(test: &str) -> Self {
            let dir = crate::scratch::root().join(format!("error-{test}"));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        /// Writes `bytes` to `name` in the directory and gives its path.
        fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
            let path = self.0.join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_toml_mistake_keeps_the_toml_error_as_its_source() {
        let dir = Scratch::new("toml");
        let text = "crs = \"EPSG:2261\"\n\nborder_tolerance_ft = \"ten\"\n";
        let path = dir.file("county.toml", text.as_bytes());
        let value = text.find("\"ten\"").unwrap();
        let line = text[..value].lines().count();

        let err = crate::pipeline::config::ConfigFile::load(&path).unwrap_err();
        let Error::Toml(toml) = &err else { panic!("not a TOML error: {err:?}") };
        assert_eq!(toml.path, path);
        let shown = err.to_string();
        assert!(shown.starts_with(&format!("{}:{line}:", path.display())), "{shown}");
        assert!(shown.contains("border_tolerance_ft = \"ten\""), "the line is quoted: {shown}");
        let source = err.source().and_then(|s| s.downcast_ref::<toml::de::Error>()).expect("the toml error");
        assert_eq!(source.span().map(|s| s.start), Some(value));

        let err = crate::rules::RuleSet::from_toml("[jurisdiction]\nname = 1", Path::new("rules.toml"))
            .unwrap_err();
        assert!(matches!(&err, Error::Toml(t) if t.path == Path::new("rules.toml")), "{err:?}");
        assert!(err.source().is_some_and(|s| s.is::<toml::de::Error>()), "{err:?}");
    }

    #[test]
    fn an_unreadable_file_is_an_io_error_with_its_source() {
        let dir = Scratch::new("io");
        let missing = dir.0.join("no-such-rules.toml");
        let err = crate::rules::RuleSet::load(&missing).unwrap_err();
        assert!(matches!(&err, Error::Io { path, .. } if *path == missing), "{err:?}");
        assert!(err.to_string().starts_with(&missing.display().to_string()), "{err}");
        let source = err.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("the io error");
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn a_corrupt_geoparquet_is_a_parquet_error_with_the_polars_source() {
        let dir = Scratch::new("parquet");
        // The magic at both ends, nothing sensible between.
        let path = dir.file("parcels.parquet", b"PAR1 this is not a Parquet footer PAR1");
        let err = crate::formats::read_layer(&path, &Default::default()).unwrap_err();
        assert!(matches!(&err, Error::Parquet { path: p, .. } if *p == path), "{err:?}");
        let shown = err.to_string();
        assert!(shown.starts_with(&format!("{}: not a readable Parquet file", path.display())), "{shown}");
        assert!(err.source().is_some_and(|s| s.is::<polars::error::PolarsError>()), "{err:?}");
    }

    #[test]
    fn geoparquet_metadata_that_is_not_json_keeps_the_json_error() {
        use polars::prelude::{Column, DataFrame, KeyValueMetadata, ParquetWriter};

        let dir = Scratch::new("json");
        let path = dir.0.join("parcels.parquet");
        let mut frame = DataFrame::new(1, vec![Column::new("id".into(), &[1i32])]).unwrap();
        let geo = KeyValueMetadata::from_static(vec![("geo".into(), "{not json".into())]);
        ParquetWriter::new(std::fs::File::create(&path).unwrap())
            .with_key_value_metadata(Some(geo))
            .finish(&mut frame)
            .unwrap();
        let err = crate::formats::read_layer(&path, &Default::default()).unwrap_err();
        assert!(matches!(&err, Error::Json { path: p, .. } if *p == path), "{err:?}");
        assert!(err.to_string().contains("'geo' metadata is not JSON"), "{err}");
        let source =
            err.source().and_then(|s| s.downcast_ref::<serde_json::Error>()).expect("the JSON error");
        assert!(source.is_syntax() && source.line() == 1, "{source}");
    }

    #[test]
    fn a_geopackage_that_is_not_sqlite_keeps_the_sqlite_error() {
        let dir = Scratch::new("gpkg");
        let path = dir.file("parcels.gpkg", &[b'x'; 4096]);
        let err = crate::formats::read_layer(&path, &Default::default()).unwrap_err();
        assert!(matches!(&err, Error::Sqlite { path: p, .. } if *p == path), "{err:?}");
        assert!(err.to_string().starts_with(&format!("{}: ", path.display())), "{err}");
        let source =
            err.source().and_then(|s| s.downcast_ref::<rusqlite::Error>()).expect("the SQLite error");
        assert_eq!(source.sqlite_error_code(), Some(rusqlite::ErrorCode::NotADatabase), "{source}");
    }

    #[test]
    fn a_workbook_that_is_not_one_keeps_the_calamine_error() {
        let dir = Scratch::new("sheet");
        let path = dir.file("history.xlsx", b"name,date\nnot,a workbook\n");
        let err = crate::formats::sheet::read_sheet(&path, None).unwrap_err();
        assert!(matches!(&err, Error::Workbook { path: p, .. } if *p == path), "{err:?}");
        assert!(err.to_string().contains("not a readable workbook"), "{err}");
        assert!(err.source().is_some_and(|s| s.is::<calamine::Error>()), "{err:?}");
    }
}
