//! The catalog of a File Geodatabase: `a00000001.gdbtable` (`GDB_SystemCatalog`) lists every table by name,
//! the table of object id `n` being the files `a{n:08x}.gdbtable` and `.gdbtablx`; `GDB_Items` says which
//! tables are feature classes. A feature class is chosen by name, or is the only one; one stored in a way
//! this reader cannot open (ArcGIS's Compressed Data Format) is refused by name.

use std::path::{Path, PathBuf};

use super::folder::Folder;
use super::rows::{self, Row, TableFile};
use super::table::{self, Header, EXPORT};
use crate::crs::layer::Value;
use crate::model::error::{Error, Result};

/// A table of the catalog: its object id (which names its files), its name and its storage format (0 for
/// the plain tables this reader reads).
pub(super) struct Entry {
    pub id: u64,
    pub name: String,
    format: f64,
}

/// The name of the file of table `id` with extension `ext`: `a00000009.gdbtable`.
fn table_file(id: u64, ext: &str) -> String {
    format!("a{id:08x}.{ext}")
}

/// A table's header and live rows, and its file open to read them.
pub(super) struct Table {
    /// The `.gdbtable` as messages name it.
    pub path: PathBuf,
    /// The `.gdbtable`'s name in its folder.
    pub name: String,
    pub header: Header,
    pub rows: Vec<Row>,
    pub file: TableFile,
}

impl Table {
    /// Opens table `id` of `gdb`: its header and the live rows its index lists.
    pub(super) fn open(gdb: &Folder, id: u64) -> Result<Table> {
        let name = table_file(id, "gdbtable");
        let mut file = TableFile::open(gdb, &name)?;
        let (path, len) = (gdb.path(&name), file.len());
        let header = table::read_header(file.file(), &path, len)?;
        let rows = rows::live_rows(gdb, &table_file(id, "gdbtablx"), &path, &header, len)?;
        Ok(Table { path, name, header, rows, file })
    }
}

/// The catalog of `gdb`: every table it lists.
fn catalog(gdb: &Folder) -> Result<Vec<Entry>> {
    if !gdb.has(&table_file(1, "gdbtable")) {
        return Err(Error::format(
            gdb.shown(),
            "not a File Geodatabase: its catalog a00000001.gdbtable is missing; give the .gdb folder as ArcGIS \
             wrote it",
        ));
    }
    let rows = columns(gdb, 1, &["Name", "FileFormat"])?;
    let entries = rows.into_iter().filter_map(|(id, values)| match &values[..] {
        [Value::Text(name), format] => {
            Some(Entry { id, name: name.to_string(), format: format.as_f64().unwrap_or(0.0) })
        }
        _ => None,
    });
    Ok(entries.collect())
}

/// The values of the fields `names` (null for a field the table lacks) of every live row of table `id`, with
/// its object id; a table without the first of them is not the system table wanted.
fn columns(gdb: &Folder, id: u64, names: &[&str]) -> Result<Vec<(u64, Vec<Value>)>> {
    let mut table = Table::open(gdb, id)?;
    let fields = &table.header.fields;
    let at: Vec<Option<usize>> =
        names.iter().map(|n| fields.iter().position(|f| f.name.eq_ignore_ascii_case(n))).collect();
    if at[0].is_none() {
        return Err(Error::format(
            &table.path,
            format!("not the system table wanted (no {} field); {EXPORT}", names[0]),
        ));
    }
    let mut out = Vec::with_capacity(table.rows.len());
    for row in table.rows.clone() {
        let bytes = table.file.read(row)?;
        let decoded = rows::decode(&table.header, &bytes)
            .map_err(|what| Error::format(&table.path, format!("object id {}: {what}; {EXPORT}", row.oid)))?;
        out.push((
            row.oid,
            at.iter().map(|i| i.map_or(Value::Null, |i| decoded.values[i].clone())).collect(),
        ));
    }
    Ok(out)
}

/// The type of a feature class among the items of `GDB_Items`.
const FEATURE_CLASS_ITEM: &str = "{70737809-852C-4A03-9E22-2CECEA5B9BFA}";

/// The names (in upper case) of the feature classes `GDB_Items` (table `id`) registers.
fn registered(gdb: &Folder, id: u64) -> Result<std::collections::HashSet<String>> {
    let items = columns(gdb, id, &["Type", "PhysicalName", "Name"])?;
    let names = items.into_iter().filter_map(|(_, values)| match &values[..] {
        [Value::Text(kind), Value::Text(name), _] | [Value::Text(kind), Value::Null, Value::Text(name)]
            if kind.eq_ignore_ascii_case(FEATURE_CLASS_ITEM) =>
        {
            Some(name.to_uppercase())
        }
        _ => None,
    });
    Ok(names.collect())
}

/// Whether the catalog entry is a system table.
fn system(entry: &Entry) -> bool {
    entry.name.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("GDB_"))
}

/// Why the table of `entry` cannot be read as it is stored, if it cannot: compressed (CDF).
fn stored_unreadably(gdb: &Folder, entry: &Entry) -> Option<Error> {
    let cdf = table_file(entry.id, "cdf");
    (entry.format != 0.0 || gdb.has(&cdf)).then(|| {
        Error::format(
            gdb.shown(),
            format!(
                "feature class '{}' is compressed (ArcGIS's Compressed Data Format, {}), which lakeshore does \
                 not read: uncompress it in ArcGIS (\"Uncompress File Geodatabase Data\") or {EXPORT}",
                entry.name, cdf
            ),
        )
    })
}

/// The feature classes of the catalog: the tables `GDB_Items` registers as feature classes (raster and
/// topology tables that carry a geometry are not), or, in a geodatabase without it (ArcGIS 9), the tables
/// but the system ones that have a geometry field; and those stored in a way this reader cannot open or
/// whose header cannot be read, so that naming one says why.
fn feature_classes(gdb: &Folder, entries: Vec<Entry>) -> Result<Vec<Entry>> {
    let items = entries.iter().find(|e| e.name.eq_ignore_ascii_case("GDB_Items"));
    let registered = items.and_then(|items| registered(gdb, items.id).ok());
    let has_geometry = |entry: &Entry| {
        let name = table_file(entry.id, "gdbtable");
        let header = TableFile::open(gdb, &name).and_then(|mut file| {
            let len = file.len();
            table::read_header(file.file(), &gdb.path(&name), len)
        });
        gdb.has(&name) && header.map_or(true, |h| h.grid.is_some())
    };
    let listed = |entry: &Entry| match &registered {
        Some(names) => names.contains(&entry.name.to_uppercase()),
        None => has_geometry(entry),
    };
    Ok(entries
        .into_iter()
        .filter(|e| !system(e) && (stored_unreadably(gdb, e).is_some() || listed(e)))
        .collect())
}

/// The names of the File Geodatabase's feature classes, in the catalog's order (`FILE.gdb:NAME` reads one).
pub fn layer_names(gdb: &Path) -> Result<Vec<String>> {
    names_in(&Folder::Disk(gdb.to_path_buf()))
}

/// The names of the feature classes of the geodatabase in `gdb`, in the catalog's order.
pub(in crate::formats) fn names_in(gdb: &Folder) -> Result<Vec<String>> {
    Ok(feature_classes(gdb, catalog(gdb)?)?.into_iter().map(|e| e.name).collect())
}

/// The feature class `wanted` names (without regard to case), or the only one.
pub(super) fn choose(gdb: &Folder, wanted: Option<&str>) -> Result<Entry> {
    let entries = catalog(gdb)?;
    let entry = match wanted {
        Some(name) => {
            let found = entries.into_iter().find(|e| e.name.eq_ignore_ascii_case(name));
            match found {
                Some(entry) => entry,
                None => {
                    let names = names_in(gdb)?.join(", ");
                    return Err(Error::format(
                        gdb.shown(),
                        format!(
                            "no feature class '{name}' (feature classes: {names}); name one as FILE.gdb:NAME"
                        ),
                    ));
                }
            }
        }
        None => {
            let mut found = feature_classes(gdb, entries)?;
            match found.len() {
                1 => found.remove(0),
                0 => return Err(Error::format(gdb.shown(), "holds no feature class")),
                n => {
                    let names = found.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", ");
                    return Err(Error::format(
                        gdb.shown(),
                        format!("holds {n} feature classes ({names}); name the one to read as FILE.gdb:NAME"),
                    ));
                }
            }
        }
    };
    match stored_unreadably(gdb, &entry) {
        Some(err) => Err(err),
        None => Ok(entry),
    }
}
