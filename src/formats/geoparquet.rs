//! The GeoParquet reader (GeoParquet 1.0 and 1.1, through polars): the geometry column the `geo` file
//! metadata names as `primary_column`, in WKB or a native GeoArrow encoding (`point`, `polygon`,
//! `multipolygon`…, read by [`super::geoarrow`]), and every other column as attributes but the bounding-box
//! column its `covering` names (GeoPandas' `write_covering_bbox`, GDAL's default). The WKB column may carry
//! an Arrow extension type (`geoarrow.wkb`, as GeoPandas 1.x writes it) or none (DuckDB, GDAL); either way
//! its binary storage is read.
//!
//! The CRS is the column's `crs` member: PROJJSON, with an `id` or without one (GeoPandas writes a CRS read
//! from a `.prj` without one; it is read as that WKT would be), or a CRS string lakeshore parses; a missing
//! `crs` means OGC:CRS84 (longitude/latitude) as the specification says (DuckDB writes none), and
//! `crs: null` (undefined) takes the CRS assumed with `--assume-crs`. Coordinates are x = longitude or
//! easting whatever axis order the CRS declares, as the specification requires. Every row becomes a
//! feature, numbered from 1 in file order; a null or damaged geometry keeps the row and is reported.
//!
//! The file is never memory-mapped (polars maps a `File` it is given, and a file cut short under a map ends
//! the process with SIGBUS): it is read into memory through one handle, by bounded reads, and polars parses
//! those bytes. A file that is cut short, grows or is rewritten while it is read is an error naming it, and
//! a panic inside polars (a damaged file it does not check) is caught at this boundary and becomes one too.

use std::io::{Cursor, Read};
use std::path::Path;

use polars::io::mmap::MmapBytesReader;
use polars::prelude::*;
use serde_json::Value as Json;

use super::{select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Problem, Result};

const FIX_GEOMETRY: &str = "repair or redraw the geometry, or delete the row";

/// What a GeoParquet file is read into: its bytes, as they were while read.
type Bytes = Cursor<Vec<u8>>;

/// How much of a file one read takes.
const CHUNK: usize = 8 << 20;

/// A Parquet reader over the bytes of the file at `path`, read by [`read_bounded`].
fn reader(path: &Path) -> Result<ParquetReader<Bytes>> {
    reader_with(path, CHUNK, &mut || {})
}

/// [`reader`], reading `chunk` bytes at a time and calling `between` after each read but the last (a test
/// changes the file there).
fn reader_with(path: &Path, chunk: usize, between: &mut dyn FnMut()) -> Result<ParquetReader<Bytes>> {
    super::require_file(path)?;
    Ok(ParquetReader::new(Cursor::new(read_bounded(path, chunk, between)?)))
}

/// The bytes of the file at `path`, read through one handle `chunk` bytes at a time, never more than the
/// length it had when opened: a file that is shorter or longer at the end of the read than at its start, or
/// was written to meanwhile, is an error naming it.
fn read_bounded(path: &Path, chunk: usize, between: &mut dyn FnMut()) -> Result<Vec<u8>> {
    let io = |e| Error::io(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    let len = opened.len();
    let changed = |now: String| {
        Error::format(
            path,
            format!(
                "the file changed while it was read ({len} bytes when opened, {now}); read it again once \
                 nothing is writing it"
            ),
        )
    };
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    while (bytes.len() as u64) < len {
        let want = chunk.min(usize::try_from(len - bytes.len() as u64).unwrap_or(chunk));
        let got = file.by_ref().take(want as u64).read_to_end(&mut bytes).map_err(io)?;
        if got == 0 {
            return Err(changed(format!("{} bytes at its end", bytes.len())));
        }
        if (bytes.len() as u64) < len {
            between();
        }
    }
    let now = file.metadata().map_err(io)?;
    if file.read(&mut [0; 1]).map_err(io)? > 0 || now.len() != len {
        return Err(changed(format!("{} bytes now", now.len())));
    }
    if opened.modified().ok() != now.modified().ok() {
        return Err(changed("written to since".into()));
    }
    if replaced(&now, &std::fs::metadata(path).map_err(io)?) {
        return Err(changed("another file by that name now".into()));
    }
    Ok(bytes)
}

/// Whether `now`, the metadata of the path read, is another file than `read`, the metadata of the handle.
#[cfg(unix)]
fn replaced(read: &std::fs::Metadata, now: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (read.dev(), read.ino()) != (now.dev(), now.ino())
}

/// Whether `now` is another file than `read` (told by length and time where no file number is at hand).
#[cfg(not(unix))]
fn replaced(read: &std::fs::Metadata, now: &std::fs::Metadata) -> bool {
    read.len() != now.len() || read.modified().ok() != now.modified().ok()
}

/// The value of `read`, which reads the Parquet file at `path` with polars; a panic inside it becomes an
/// error naming the file (and is kept off the terminal: it is told as that error).
fn guarded<T>(path: &Path, read: impl FnOnce() -> Result<T>) -> Result<T> {
    quiet_panics::hold(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))).unwrap_or_else(
        |panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the Parquet reader failed".into());
            Err(Error::format(
                path,
                format!("not a readable Parquet file (damaged: {why}); check the file or re-export it"),
            ))
        },
    )
}

/// Panics raised inside polars while a [`guarded`] read is under way are not printed by the panic hook:
/// they are caught and told as an error naming the file.
mod quiet_panics {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Once;

    /// How many guarded reads are under way.
    static HOLDING: AtomicUsize = AtomicUsize::new(0);

    /// Runs `f` with the panics of polars kept quiet.
    pub(super) fn hold<T>(f: impl FnOnce() -> T) -> T {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let in_polars = info.location().is_some_and(|l| l.file().contains("polars"));
                if !(in_polars && HOLDING.load(Ordering::SeqCst) > 0) {
                    previous(info)
                }
            }));
        });
        HOLDING.fetch_add(1, Ordering::SeqCst);
        let value = f();
        HOLDING.fetch_sub(1, Ordering::SeqCst);
        value
    }
}

fn unreadable(path: &Path) -> impl Fn(PolarsError) -> Error + '_ {
    move |source| Error::Parquet {
        path: path.to_path_buf(),
        message: format!("not a readable Parquet file ({source}); check the file or re-export it"),
        source,
    }
}

/// What the `geo` metadata says of the primary geometry column.
struct GeoColumn {
    /// Its name.
    name: String,
    /// Its `crs` member (`None` when absent).
    crs: Option<Json>,
    /// `WKB`, or a GeoArrow encoding in lower case.
    encoding: String,
    /// The columns its `covering` names (the bounding box of each row), which are no attributes.
    covering: Vec<String>,
}

impl GeoColumn {
    /// Whether the column `name` is an attribute: neither the geometry nor its covering.
    fn attribute(&self, name: &str) -> bool {
        name != self.name && !self.covering.iter().any(|c| c == name)
    }
}

/// The `geo` metadata's primary column.
fn geo_metadata<R: MmapBytesReader>(path: &Path, reader: &mut ParquetReader<R>) -> Result<GeoColumn> {
    let metadata = reader.get_metadata().map_err(unreadable(path))?;
    let geo = metadata
        .key_value_metadata()
        .as_ref()
        .and_then(|kv| kv.iter().find(|kv| kv.key == "geo"))
        .and_then(|kv| kv.value.clone())
        .ok_or_else(|| {
            Error::format(
                path,
                "a Parquet file without GeoParquet 'geo' metadata; write it as GeoParquet (WKB)",
            )
        })?;
    let geo: Json = serde_json::from_str(&geo).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        message: format!("the GeoParquet 'geo' metadata is not JSON ({source})"),
        source,
    })?;
    let primary = geo["primary_column"].as_str().unwrap_or("geometry").to_string();
    let column = &geo["columns"][&primary];
    let encoding = match column["encoding"].as_str() {
        Some(e) if e.eq_ignore_ascii_case("WKB") => "WKB".to_string(),
        Some(e) if super::geoarrow::ENCODINGS.contains(&e.to_ascii_lowercase().as_str()) => {
            e.to_ascii_lowercase()
        }
        other => {
            return Err(Error::format(
                path,
                format!(
                    "geometry column '{primary}' is encoded as {}; lakeshore reads WKB and the GeoArrow \
                     encodings ({}): re-export with WKB encoding",
                    other.unwrap_or("nothing named"),
                    super::geoarrow::ENCODINGS.join(", ")
                ),
            ))
        }
    };
    let covering = column["covering"]
        .as_object()
        .into_iter()
        .flat_map(|c| c.values())
        .flat_map(|b| b.as_object().into_iter().flat_map(|b| b.values()))
        .filter_map(|path| path.get(0).and_then(Json::as_str).map(str::to_string))
        .collect();
    let crs = column.as_object().and_then(|c| c.get("crs")).cloned();
    Ok(GeoColumn { name: primary, crs, encoding, covering })
}

/// The CRS of a GeoParquet `crs` member.
fn crs_of(path: &Path, crs: Option<Json>, options: &ReadOptions) -> Result<Crs> {
    let assumed = || {
        options.assume_crs.clone().ok_or_else(|| {
            Error::crs(path, "the geometry's CRS is undefined (crs: null); pass --assume-crs EPSG:nnnn")
        })
    };
    match crs {
        None => Ok(Crs::wgs84()),
        Some(Json::Null) => assumed(),
        Some(Json::String(text)) => Crs::parse_from(path, &text),
        // PROJJSON, read as the WKT it stands for; one lakeshore cannot use takes the assumed CRS.
        Some(projjson) => {
            Crs::parse_from(path, &projjson.to_string()).or_else(|err| options.assume_crs.clone().ok_or(err))
        }
    }
}

/// The attribute field names of the GeoParquet file at `path` (all columns but the geometry).
/// Only the file's footer is read, through the file (polars reads the metadata with reads and seeks, and maps
/// a file only to read its data).
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    super::require_file(path)?;
    let mut reader = ParquetReader::new(std::fs::File::open(path).map_err(|e| Error::io(path, e))?);
    guarded(path, || names(path, &mut reader))
}

/// The attribute field names of the file `path` that `reader` reads.
fn names<R: MmapBytesReader>(path: &Path, reader: &mut ParquetReader<R>) -> Result<Vec<String>> {
    let geometry = geo_metadata(path, reader)?;
    attributes(path, reader, &geometry)
}

/// The names of the attribute columns of the file `path` that `reader` reads, whose geometry is `geometry`.
fn attributes<R: MmapBytesReader>(
    path: &Path,
    reader: &mut ParquetReader<R>,
    geometry: &GeoColumn,
) -> Result<Vec<String>> {
    let schema = reader.schema().map_err(unreadable(path))?;
    Ok(schema.iter_names().map(|n| n.to_string()).filter(|n| geometry.attribute(n)).collect())
}

/// A column's cells as attribute values: numbers, booleans, text, anything else as its text; a column with
/// an extension type as its storage.
fn values(column: &Column) -> Vec<Value> {
    let column = column.as_materialized_series().to_storage();
    let text = |s: Option<&str>| {
        s.map(str::trim).filter(|s| !s.is_empty()).map_or(Value::Null, |s| Value::Text(s.into()))
    };
    match column.dtype() {
        DataType::Boolean => match column.bool() {
            Ok(b) => b.iter().map(|v| v.map_or(Value::Null, Value::Bool)).collect(),
            Err(_) => vec![Value::Null; column.len()],
        },
        dtype if dtype.is_primitive_numeric() => match column.cast(&DataType::Float64) {
            Ok(c) => c
                .f64()
                .map(|f| f.iter().map(|v| v.map_or(Value::Null, Value::Number)).collect())
                .unwrap_or_default(),
            Err(_) => vec![Value::Null; column.len()],
        },
        _ => match column.cast(&DataType::String) {
            Ok(c) => c.str().map(|s| s.iter().map(text).collect()).unwrap_or_default(),
            Err(_) => vec![Value::Null; column.len()],
        },
    }
}

/// The GeoParquet format: a `.parquet` file with a WKB geometry column, read whole.
pub(super) struct GeoParquet;

impl LayerReader for GeoParquet {
    fn extensions(&self) -> &'static [&'static str] {
        &["parquet", "geoparquet"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        field_names(layer.file)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, options)
    }
}

/// Reads the GeoParquet file at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let reader = reader(path)?;
    guarded(path, || layer(path, reader, options))
}

/// Each row's geometry, as read from the column `geo` in `frame`: `None` for a null, the reason for one that
/// cannot be read.
type Rows = Vec<Option<std::result::Result<geo::Geometry<f64>, GeometryError>>>;

/// The geometries of the column `geo` of `frame`, read from the file `path`. A column with an extension type
/// is read as its storage: the WKB, or the GeoArrow lists.
fn geometries(path: &Path, geo: &GeoColumn, frame: &DataFrame) -> Result<Rows> {
    let primary = &geo.name;
    let missing =
        |what: &str| Error::format(path, format!("geometry column '{primary}' is missing or not {what}"));
    let column = frame.column(primary).map_err(|_| missing("there"))?.as_materialized_series().to_storage();
    if geo.encoding == "WKB" {
        let wkb = column.binary().map_err(|_| missing("binary WKB"))?;
        let read = |bytes: &[u8]| super::wkb::read(bytes).map_err(GeometryError::UnreadableWkb);
        return Ok(wkb.iter().map(|w| w.map(read)).collect());
    }
    let rows = super::geoarrow::geometries(column, &geo.encoding).map_err(|why| {
        Error::format(
            path,
            format!("geometry column '{primary}' cannot be read ({why}): re-export with WKB encoding"),
        )
    })?;
    Ok(rows.into_iter().map(|row| row.map(|g| g.map_err(GeometryError::UnreadableShape))).collect())
}

/// The layer `reader` reads from the file `path`.
fn layer(
    path: &Path,
    mut reader: ParquetReader<Bytes>,
    options: &ReadOptions,
) -> Result<(Layer, Vec<Problem>)> {
    let geo = geo_metadata(path, &mut reader)?;
    let crs = crs_of(path, geo.crs.clone(), options)?;
    let names = attributes(path, &mut reader, &geo)?;
    let kept = select_fields(path, &names, options.keep.as_deref())?;
    let fields: Vec<String> = kept.iter().map(|&i| names[i].clone()).collect();
    let frame = reader.finish().map_err(unreadable(path))?;
    let geometries = geometries(path, &geo, &frame)?;
    let mut columns: Vec<std::vec::IntoIter<Value>> = Vec::with_capacity(fields.len());
    for name in &fields {
        let column = frame.column(name).map_err(unreadable(path))?;
        columns.push(values(column).into_iter());
    }
    let mut problems = Vec::new();
    let mut features = Vec::with_capacity(frame.height());
    for (i, read) in geometries.into_iter().enumerate() {
        let record = i + 1;
        let shape = match read {
            None => Err(Unusable::new(GeometryError::NullRow, FIX_GEOMETRY)),
            Some(read) => read.map_err(|reason| Unusable::new(reason, FIX_GEOMETRY)),
        };
        let geometry = super::settle(shape, path, record, &mut problems);
        let values = columns.iter_mut().map(|c| c.next().unwrap_or(Value::Null)).collect();
        features.push(Feature { record, fid: None, geometry, values });
    }
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A folder of the test's own, removed after it.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(label: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("lakeshore-geoparquet-{label}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Rows of the test file.
    const ROWS: usize = 20_000;

    /// A GeoParquet file of `ROWS` points (WKB) with an id each, in EPSG:2261, of several row groups.
    fn points(dir: &Path) -> PathBuf {
        let wkb: Vec<Vec<u8>> = (0..ROWS)
            .map(|i| {
                let mut b = vec![1, 1, 0, 0, 0];
                b.extend((i as f64).to_le_bytes());
                b.extend((2.0 * i as f64).to_le_bytes());
                b
            })
            .collect();
        let mut geometry = BinaryChunkedBuilder::new("geometry".into(), ROWS);
        wkb.iter().for_each(|w| geometry.append_value(w));
        let ids: Vec<String> = (0..ROWS).map(|i| format!("P{i:05}")).collect();
        let columns = vec![Column::new("ID".into(), ids), geometry.finish().into_column()];
        let mut frame = DataFrame::new(ROWS, columns).unwrap();
        let geo = serde_json::json!({"version": "1.1.0", "primary_column": "geometry",
            "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["Point"],
            "crs": {"id": {"authority": "EPSG", "code": 2261}}}}});
        let path = dir.join("points.parquet");
        let metadata = KeyValueMetadata::from_static(vec![("geo".into(), geo.to_string())]);
        ParquetWriter::new(std::fs::File::create(&path).unwrap())
            .with_key_value_metadata(Some(metadata))
            .with_row_group_size(Some(ROWS / 4))
            .finish(&mut frame)
            .unwrap();
        path
    }

    /// The error of reading `path` 4 KiB at a time with `change` done to the file after the first read.
    fn changed_while_read(path: &Path, change: impl FnOnce(&Path)) -> String {
        let mut change = Some(change);
        let mut between = || {
            if let Some(change) = change.take() {
                change(path)
            }
        };
        match reader_with(path, 4096, &mut between) {
            Ok(_) => panic!("{} was read although it changed", path.display()),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn a_file_that_changes_while_read_is_an_error_naming_it() {
        let dir = Scratch::new("changes");
        let path = points(&dir.0);
        let (layer, problems) = read(&path, &ReadOptions::default()).unwrap();
        assert_eq!((layer.features.len(), problems.len()), (ROWS, 0));
        let len = std::fs::metadata(&path).unwrap().len();
        assert!(len > 3 * 4096, "the file is read in several pieces: {len} bytes");
        let original = std::fs::read(&path).unwrap();
        let restore = || std::fs::write(&path, &original).unwrap();
        let named = |err: &str, how: &str| {
            assert!(err.starts_with(&path.display().to_string()), "{err}");
            assert!(err.contains("changed while it was read") && err.contains(how), "{err}");
        };

        // Cut to half its length after the first 4 KiB were read: the rest comes short.
        let half = len / 2;
        let err = changed_while_read(&path, |p| {
            std::fs::File::options().write(true).open(p).unwrap().set_len(half).unwrap()
        });
        named(&err, &format!("{len} bytes when opened, {half} bytes at its end"));
        restore();
        // Grown by a byte.
        let err = changed_while_read(&path, |p| {
            use std::io::Write;
            std::fs::File::options().append(true).open(p).unwrap().write_all(b"x").unwrap()
        });
        named(&err, &format!("{} bytes now", len + 1));
        restore();
        // Written over in place, at the same length: its time says so.
        let err = changed_while_read(&path, |p| {
            let file = std::fs::File::options().write(true).open(p).unwrap();
            let then = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(86_400);
            file.set_modified(then).unwrap();
        });
        named(&err, "written to since");
        restore();
        // Replaced by another file of the same bytes under its name.
        let err = changed_while_read(&path, |p| {
            let other = p.with_extension("new");
            std::fs::write(&other, &original).unwrap();
            std::fs::rename(&other, p).unwrap();
        });
        named(&err, "another file by that name now");
        // Cut short before it is opened: its footer is gone, and reading its fields says so.
        std::fs::File::options().write(true).open(&path).unwrap().set_len(len / 2).unwrap();
        let err = field_names(&path).unwrap_err().to_string();
        assert!(err.starts_with(&path.display().to_string()), "{err}");
        assert!(err.contains("not a readable Parquet file"), "{err}");
    }

    /// A file whose footer names column chunks that are not where it says (bytes taken out of the middle,
    /// as a file cut while another program copied it may be): an error naming the file, whatever polars
    /// makes of it, never a panic.
    #[test]
    fn a_file_whose_data_is_not_where_its_footer_says_is_an_error() {
        let dir = Scratch::new("hollow");
        let path = points(&dir.0);
        let bytes = std::fs::read(&path).unwrap();
        for (from, to) in [(4, bytes.len() / 2), (bytes.len() / 3, bytes.len() / 2), (100, 4000)] {
            let hollow: Vec<u8> = [&bytes[..from], &bytes[to..]].concat();
            std::fs::write(&path, &hollow).unwrap();
            let err = read(&path, &ReadOptions::default()).map(|_| ()).unwrap_err().to_string();
            assert!(err.starts_with(&path.display().to_string()), "{err}");
            assert!(err.contains("not a readable Parquet file"), "{err}");
        }
    }

    #[test]
    fn a_panic_while_reading_is_an_error_naming_the_file() {
        let err = guarded(Path::new("x.parquet"), || -> Result<()> {
            panic!("range start index 65532 out of range")
        })
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "x.parquet: not a readable Parquet file (damaged: range start index 65532 out of range); check the \
             file or re-export it"
        );
    }
}
