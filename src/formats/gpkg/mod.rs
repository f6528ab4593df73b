//! The GeoPackage reader: one feature table of a `.gpkg` (SQLite, OGC GeoPackage 1.x), named as
//! `FILE.gpkg:LAYER`, or `FILE.gpkg` alone when the file holds one feature table.
//!
//! The table is found through `gpkg_contents` and `gpkg_geometry_columns`; its CRS is the
//! `gpkg_spatial_ref_sys` row of its `srs_id`: the EPSG code when the organization is EPSG and the code is
//! known, else the `definition` WKT, else (`undefined`) the CRS assumed with `--assume-crs`. Every row of the
//! table becomes a feature, in primary-key order, numbered by its position in the layer from 1; a problem
//! names the row's primary key (`fid`, as QGIS shows it) beside that number when the two differ, since
//! writers number rows as they please (from 0 after `ogr2ogr -preserve_fid`, negative, up to 2^63 − 1). A
//! row whose geometry blob is NULL, empty or damaged keeps its attributes and is reported ([`blob`] checks
//! every length against the bytes).
//!
//! The file is opened read-only and, unless its write-ahead log holds changes not yet written into it,
//! immutable: SQLite then takes no lock and creates no `-wal` or `-shm` file beside it, so a GeoPackage in
//! WAL mode (as QGIS leaves one) reads from a read-only folder and nothing is left next to the user's file.
//! A file with a live rollback journal beside it (a write under way or cut off) is refused rather than read
//! half written.

pub mod blob;
mod blocks;

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use self::blob::{read_blob, Blob};
use super::blocks::LayerBlocks;
use super::{check_geometry, select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Location, Problem, Result};

const FIX_BLOB: &str = "repair or redraw the geometry in the GIS, or delete the row";

/// A feature table: its name, geometry column and `srs_id`.
struct Table {
    name: String,
    geometry: String,
    srs_id: i64,
}

/// An SQL identifier, quoted.
pub(crate) fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The SQLite URI that opens `file` read-only, and `immutable` when asked: every byte of the path but
/// letters, digits and `/-_.~` percent-encoded, so that no file name is read as a query or an authority.
fn uri(file: &Path, immutable: bool) -> String {
    let path = file.as_os_str().as_encoded_bytes();
    // An absolute path goes after an empty authority (`file:///data/county.gpkg`), a relative one straight
    // after the scheme.
    let mut uri = String::from(if path.first() == Some(&b'/') { "file://" } else { "file:" });
    for &byte in path {
        if byte.is_ascii_alphanumeric() || b"/-_.~".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.push_str(if immutable { "?mode=ro&immutable=1" } else { "?mode=ro" });
    uri
}

/// Opens the GeoPackage `file` to be read; nothing is written to it or beside it.
fn open(file: &Path) -> Result<Connection> {
    super::require_file(file)?;
    let beside = |suffix: &str| {
        let mut path = file.as_os_str().to_owned();
        path.push(suffix);
        std::path::PathBuf::from(path)
    };
    // A rollback journal that starts with its magic number is "hot": a write is under way or was cut off,
    // and the file may be half written until SQLite rolls it back, which a reader must not do.
    let journal = beside("-journal");
    const JOURNAL_MAGIC: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
    let mut head = [0; 8];
    let hot = std::fs::File::open(&journal).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head));
    if hot.is_ok() && head == JOURNAL_MAGIC {
        return Err(Error::format(
            file,
            format!(
                "a write to the GeoPackage is under way or was cut off ({} is a live journal); run again once \
                 the program writing it has finished, or open the GeoPackage once in the GIS so that SQLite \
                 rolls the cut-off write back",
                journal.display()
            ),
        ));
    }
    // Changes still in the write-ahead log (a GIS has the file open, or was stopped before writing them in)
    // are part of the layer: then the log is read, which SQLite does only beside a `-shm` file it may create.
    let log = beside("-wal");
    let pending = std::fs::metadata(&log).is_ok_and(|m| m.len() > 0);
    let cannot_open = |source: rusqlite::Error| {
        let advice = if pending {
            format!(
                "its latest changes are still in {}, which can be read only where SQLite may write its \
                 `-shm` file: close the program that has the GeoPackage open, or copy the files to a folder \
                 you can write to",
                log.display()
            )
        } else {
            "check that the file is a GeoPackage, or re-export it from the GIS".to_string()
        };
        Error::Sqlite {
            path: file.to_path_buf(),
            message: format!("cannot open the GeoPackage ({source}); {advice}"),
            source,
        }
    };
    let flags =
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri(file, !pending), flags).map_err(cannot_open)?;
    // SQLite opens a file lazily: reading its schema here makes a file it cannot read fail now, with the
    // advice above.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(())).map_err(cannot_open)?;
    Ok(conn)
}

/// An SQLite error while reading `file`.
fn sql(file: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Sqlite {
        path: file.to_path_buf(),
        message: format!("not a readable GeoPackage ({source}); check the file or re-export it from the GIS"),
        source,
    }
}

/// The feature tables of the GeoPackage, by name.
fn tables(conn: &Connection, file: &Path) -> Result<Vec<Table>> {
    let mut statement = conn
        .prepare(
            "SELECT c.table_name, g.column_name, g.srs_id FROM gpkg_contents c \
             JOIN gpkg_geometry_columns g ON g.table_name = c.table_name \
             WHERE c.data_type = 'features' ORDER BY c.table_name",
        )
        .map_err(sql(file))?;
    let rows = statement
        .query_map([], |r| Ok(Table { name: r.get(0)?, geometry: r.get(1)?, srs_id: r.get(2)? }))
        .map_err(sql(file))?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql(file))
}

/// The table `wanted` names (without regard to ASCII case), or the only one.
fn choose(conn: &Connection, file: &Path, wanted: Option<&str>) -> Result<Table> {
    let mut found = tables(conn, file)?;
    let names = || found.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ");
    match wanted {
        Some(name) => match found.iter().position(|t| t.name.eq_ignore_ascii_case(name)) {
            Some(i) => Ok(found.swap_remove(i)),
            None => Err(Error::format(
                file,
                format!(
                    "no feature layer '{name}' (layers: {}); name one of them as FILE.gpkg:LAYER",
                    names()
                ),
            )),
        },
        None if found.len() == 1 => Ok(found.remove(0)),
        None if found.is_empty() => {
            Err(Error::format(file, "holds no feature layer (gpkg_contents lists none)"))
        }
        None => Err(Error::format(
            file,
            format!("holds {} layers ({}); name the one to read as FILE.gpkg:LAYER", found.len(), names()),
        )),
    }
}

/// The CRS of `srs_id`: EPSG by organization and code, else the definition WKT, else the assumed CRS.
fn table_crs(conn: &Connection, file: &Path, srs_id: i64, options: &ReadOptions) -> Result<Crs> {
    let row: Option<(Option<String>, Option<i64>, Option<String>)> = conn
        .query_row(
            "SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?1",
            [srs_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
        .map_err(sql(file))?;
    let Some((organization, code, definition)) = row else {
        return Err(Error::crs(
            file,
            format!("srs_id {srs_id} is not in gpkg_spatial_ref_sys; re-export the layer with its CRS"),
        ));
    };
    if let (Some(org), Some(code)) = (&organization, code) {
        if org.eq_ignore_ascii_case("EPSG") && code > 0 {
            if let Ok(crs) = Crs::parse(&format!("EPSG:{code}")) {
                return Ok(crs);
            }
        }
    }
    let definition = definition.unwrap_or_default();
    if !definition.trim().is_empty() && !definition.trim().eq_ignore_ascii_case("undefined") {
        return Crs::parse_from(file, &definition);
    }
    options.assume_crs.clone().ok_or_else(|| {
        Error::crs(
            file,
            format!("the layer's CRS is undefined (srs_id {srs_id}); pass --assume-crs EPSG:nnnn"),
        )
    })
}

/// How a feature table's rows are numbered and ordered: by its integer primary key, by the `rowid` of a
/// table without one, or (a view without one) in the order SQLite gives.
enum Key {
    Column(String),
    RowId,
    None,
}

impl Key {
    /// The expression that selects the key.
    fn select(&self) -> String {
        match self {
            Key::Column(name) => quote(name),
            Key::RowId => "rowid".into(),
            Key::None => "NULL".into(),
        }
    }

    /// The `ORDER BY` clause of the rows.
    fn order(&self) -> String {
        match self {
            Key::None => String::new(),
            key => format!(" ORDER BY {}", key.select()),
        }
    }
}

/// The attribute columns of `table` (all but its geometry and integer primary key) and how its rows are
/// numbered. A table `gpkg_contents` lists but the file lacks is an error naming the layer.
fn columns(conn: &Connection, file: &Path, table: &Table) -> Result<(Vec<String>, Key)> {
    let kind: Option<String> = conn
        .query_row(
            "SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE AND type IN ('table', 'view')",
            [&table.name],
            |r| r.get(0),
        )
        .optional()
        .map_err(sql(file))?;
    let Some(kind) = kind else {
        return Err(Error::format(
            file,
            format!(
                "layer '{}' is listed in gpkg_contents but its table is missing from the file; re-export the \
                 layer from the GIS, or name another layer as FILE.gpkg:LAYER",
                table.name
            ),
        ));
    };
    let mut statement =
        conn.prepare(&format!("PRAGMA table_info({})", quote(&table.name))).map_err(sql(file))?;
    let rows = statement
        .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(5)?)))
        .map_err(sql(file))?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sql(file))?;
    let key = rows
        .iter()
        .find(|(_, kind, pk)| *pk == 1 && kind.eq_ignore_ascii_case("INTEGER"))
        .map(|r| r.0.clone());
    let fields = rows
        .into_iter()
        .map(|(name, _, _)| name)
        .filter(|n| !n.eq_ignore_ascii_case(&table.geometry) && Some(n) != key.as_ref())
        .collect();
    let key = match key {
        Some(name) => Key::Column(name),
        None if kind == "view" => Key::None,
        None => Key::RowId,
    };
    Ok((fields, key))
}

/// The names of the GeoPackage's feature layers, in name order (`FILE.gpkg:NAME` reads one).
pub fn layer_names(file: &Path) -> Result<Vec<String>> {
    let conn = open(file)?;
    Ok(tables(&conn, file)?.into_iter().map(|t| t.name).collect())
}

/// The attribute field names of the layer `layer` (or the only one) of the GeoPackage `file`.
pub(super) fn field_names(file: &Path, layer: Option<&str>) -> Result<Vec<String>> {
    let conn = open(file)?;
    let table = choose(&conn, file, layer)?;
    Ok(columns(&conn, file, &table)?.0)
}

/// One attribute's value. SQLite keeps whatever type a writer gave, so a column declared TEXT can hold a
/// BLOB: one that is UTF-8 text is read as that text, any other is an error message (the value is then null).
fn value(field: &str, v: ValueRef<'_>) -> Result<Value, String> {
    let text = |t: &[u8]| match String::from_utf8_lossy(t).trim() {
        "" => Value::Null,
        text => Value::Text(text.into()),
    };
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Number(i as f64),
        ValueRef::Real(f) => Value::Number(f),
        ValueRef::Text(t) => text(t),
        ValueRef::Blob(b) if std::str::from_utf8(b).is_ok() => text(b),
        ValueRef::Blob(b) => {
            return Err(format!(
            "field {field}: holds {} bytes of binary data (a BLOB), not text or a number, so it is read as \
                 empty: store the value as TEXT or a number in the GeoPackage",
            b.len()
        ))
        }
    })
}

/// The GeoPackage format: one feature table of a `.gpkg`, read a block of rows at a time in key order (a view
/// without an integer key, whole).
pub(super) struct GeoPackage;

impl LayerReader for GeoPackage {
    fn extensions(&self) -> &'static [&'static str] {
        &["gpkg", "sqlite"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        field_names(layer.file, layer.member)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, layer.member, layer.path, options)
    }

    fn open_blocks(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<LayerBlocks> {
        let opened = Opened::open(layer.file, layer.member, layer.path, options)?;
        if matches!(opened.key, Key::None) {
            // A view without an integer key has no order to resume from: it is read whole.
            let (layer, problems) = read_opened(opened, layer.file, layer.path)?;
            return Ok(LayerBlocks::in_memory(layer, problems));
        }
        blocks::open(opened, layer.file, layer.path)
    }
}

/// A feature table opened for reading: the connection, the table, its CRS, the kept fields and the key its
/// rows are numbered and ordered by.
struct Opened {
    conn: Connection,
    table: Table,
    crs: Crs,
    fields: Vec<String>,
    key: Key,
}

impl Opened {
    /// Opens the layer `layer` (or the only one) of `file`, keeping the fields `options` names; `label` is
    /// the path problems name (`FILE.gpkg:LAYER`).
    fn open(file: &Path, layer: Option<&str>, label: &Path, options: &ReadOptions) -> Result<Opened> {
        let conn = open(file)?;
        let table = choose(&conn, file, layer)?;
        let crs = table_crs(&conn, file, table.srs_id, options)?;
        let (names, key) = columns(&conn, file, &table)?;
        let kept = select_fields(label, &names, options.keep.as_deref())?;
        let fields: Vec<String> = kept.iter().map(|&i| names[i].clone()).collect();
        Ok(Opened { conn, table, crs, fields, key })
    }

    /// `SELECT key, geometry, fields… FROM table`, then `tail` (a `WHERE` or `ORDER BY` clause).
    fn query(&self, tail: &str) -> String {
        let selected: Vec<String> = [self.key.select(), quote(&self.table.geometry)]
            .into_iter()
            .chain(self.fields.iter().map(|f| quote(f)))
            .collect();
        format!("SELECT {} FROM {}{tail}", selected.join(", "), quote(&self.table.name))
    }
}

/// The feature of one row of [`Opened::query`], numbered `record`, with the values of `fields`; an unusable
/// geometry or value is reported in `problems`, naming `label`.
fn feature(
    row: &rusqlite::Row<'_>,
    record: usize,
    fields: &[String],
    label: &Path,
    problems: &mut Vec<Problem>,
) -> rusqlite::Result<Feature> {
    let fid = match row.get_ref(0)? {
        ValueRef::Integer(fid) => Some(fid),
        _ => None,
    };
    let geometry = match row.get_ref(1)? {
        ValueRef::Null => Err(Unusable::new(GeometryError::NullRow, FIX_BLOB)),
        ValueRef::Blob(bytes) => match read_blob(bytes) {
            Ok(Blob::Geometry(mut g)) => check_geometry(&g).map(|()| {
                problems.extend(super::drop_empty_parts(&mut g, label, Location::record(record, fid)));
                g
            }),
            Ok(Blob::Empty) => Err(Unusable::new(GeometryError::Empty, super::FIX_EMPTY)),
            Err(reason) => Err(Unusable::new(GeometryError::UnreadableBlob(reason), FIX_BLOB)),
        },
        _ => Err(Unusable::new(GeometryError::NotABlob, FIX_BLOB)),
    };
    let geometry = geometry.map_err(|unusable| {
        problems.push(unusable.problem_at(label, Location::record(record, fid)));
        unusable.reason
    });
    let mut values = Vec::with_capacity(fields.len());
    for (i, field) in fields.iter().enumerate() {
        values.push(value(field, row.get_ref(i + 2)?).unwrap_or_else(|message| {
            problems.push(Problem::new(label, Location::record(record, fid), message));
            Value::Null
        }));
    }
    Ok(Feature { record, fid, geometry, values })
}

/// Reads the layer `layer` (or the only one) of the GeoPackage `file`; `label` is the path problems name
/// (`FILE.gpkg:LAYER`).
pub(super) fn read(
    file: &Path,
    layer: Option<&str>,
    label: &Path,
    options: &ReadOptions,
) -> Result<(Layer, Vec<Problem>)> {
    read_opened(Opened::open(file, layer, label, options)?, file, label)
}

/// Reads the whole table of `opened`, from `file`; `label` is the path problems name.
fn read_opened(opened: Opened, file: &Path, label: &Path) -> Result<(Layer, Vec<Problem>)> {
    let mut statement = opened.conn.prepare(&opened.query(&opened.key.order())).map_err(sql(file))?;
    let mut rows = statement.query([]).map_err(sql(file))?;
    let (mut features, mut problems) = (Vec::new(), Vec::new());
    while let Some(row) = rows.next().map_err(sql(file))? {
        let record = features.len() + 1;
        features.push(feature(row, record, &opened.fields, label, &mut problems).map_err(sql(file))?);
    }
    drop(rows);
    drop(statement);
    Ok((Layer { path: label.to_path_buf(), crs: opened.crs, fields: opened.fields, features }, problems))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `gpkg_spatial_ref_sys` with an EPSG row whose definition is junk (the code wins), a row known only
    /// by its WKT, and an undefined one.
    fn srs_table() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT, srs_id INTEGER PRIMARY KEY, organization TEXT,
               organization_coordsys_id INTEGER, definition TEXT, description TEXT);
             INSERT INTO gpkg_spatial_ref_sys VALUES ('a', 2261, 'epsg', 2261, 'junk', NULL);
             INSERT INTO gpkg_spatial_ref_sys VALUES ('c', -1, 'NONE', -1, 'undefined', NULL);",
        )
        .unwrap();
        // UTM 18N (EPSG:26918) known only by its WKT definition (organization NONE).
        let wkt = Crs::parse("EPSG:26918").unwrap().wkt().unwrap();
        conn.execute(
            "INSERT INTO gpkg_spatial_ref_sys VALUES ('b', 100001, 'NONE', 100001, ?1, NULL)",
            [&wkt],
        )
        .unwrap();
        conn
    }

    #[test]
    fn the_crs_comes_from_the_epsg_code_then_the_wkt_then_the_assumption() {
        let conn = srs_table();
        let file = Path::new("county.gpkg");
        let none = ReadOptions::default();
        assert_eq!(table_crs(&conn, file, 2261, &none).unwrap().epsg(), Some(2261));
        assert_eq!(table_crs(&conn, file, 100001, &none).unwrap().epsg(), Some(26918));
        let err = table_crs(&conn, file, -1, &none).unwrap_err().to_string();
        assert!(err.contains("undefined (srs_id -1); pass --assume-crs"), "{err}");
        let assumed = ReadOptions { assume_crs: Some(Crs::wgs84()), keep: None };
        assert_eq!(table_crs(&conn, file, -1, &assumed).unwrap(), Crs::wgs84());
        assert!(table_crs(&conn, file, 7, &none).unwrap_err().to_string().contains("srs_id 7 is not in"));
    }

    #[test]
    fn a_path_becomes_a_uri_with_every_other_byte_percent_encoded() {
        // RFC 3986 §2.1: '%' then the byte's two hex digits; SQLite decodes them back (sqlite.org/uri.html).
        assert_eq!(
            uri(Path::new("/data/Cayuga Co/lots?#%é.gpkg"), true),
            "file:///data/Cayuga%20Co/lots%3F%23%25%C3%A9.gpkg?mode=ro&immutable=1"
        );
        assert_eq!(uri(Path::new("county.gpkg"), false), "file:county.gpkg?mode=ro");
        // A path that starts with two slashes keeps an empty authority before it.
        assert_eq!(uri(Path::new("//x.gpkg"), false), "file:////x.gpkg?mode=ro");
    }

    #[test]
    fn quoting_doubles_quotes() {
        assert_eq!(quote("lots \"a\""), "\"lots \"\"a\"\"\"");
    }
}
