//! GeoPackage output (OGC GeoPackage 1.3, through SQLite): a table's rows as a feature table in the working
//! CRS, which QGIS opens as it is, with an R-tree spatial index.
//!
//! The file holds the required `gpkg_spatial_ref_sys` (the two undefined systems, WGS 84 and the working CRS
//! with its WKT definition), `gpkg_contents` (the table, its extent and CRS), `gpkg_geometry_columns`, and the
//! `gpkg_rtree_index` extension: `gpkg_extensions` lists it, `rtree_<table>_geom` holds every row's envelope
//! and the specification's triggers keep it in step when the table is edited later (they are created after
//! the rows, since they call the `ST_` functions a GIS provides and plain SQLite lacks). Geometry blobs are a
//! GeoPackage header and the ISO WKB [`crate::formats::wkb`] writes for GeoParquet too. Rows keep the table's order
//! (sorted by parcel id), `fid` numbering them from 1; a row without a shape has a NULL geometry.
//!
//! The file is built under a temporary name beside the target and renamed over it when complete.

use std::path::Path;

use geo::{Geometry, MultiPolygon};
use rusqlite::types::Value as Sql;
use rusqlite::Connection;

use super::sink::{in_order_of_place, write_whole, NoRows, Order, Place, Sink};
use super::Staged;
use crate::crs::Crs;
use crate::formats::gpkg::blob::push_blob;
use crate::formats::gpkg::quote;
use crate::model::error::{Error, Result};
use crate::model::table::{Cell, Kind, Table};

/// `PRAGMA application_id` of a GeoPackage: "GPKG" as a big-endian 32-bit integer.
pub const APPLICATION_ID: i32 = 0x4750_4B47;
/// `PRAGMA user_version` of GeoPackage 1.3.0.
pub const USER_VERSION: i32 = 10300;
/// The geometry column of every table written.
pub const GEOMETRY: &str = "geom";
/// The first `srs_id` used for a CRS that has no EPSG code.
const OWN_SRS_ID: i64 = 100_000;

const WGS84_WKT: &str = "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563,\
    AUTHORITY[\"EPSG\",\"7030\"]],AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,AUTHORITY[\"EPSG\",\"8901\"]],\
    UNIT[\"degree\",0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],AUTHORITY[\"EPSG\",\"4326\"]]";

const SCHEMA: &str = "
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
  description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE gpkg_geometry_columns (
  table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE gpkg_extensions (
  table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
  scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
";

/// `SOURCE_DATE_EPOCH` (seconds since 1970, the reproducible-builds convention) when set: the `last_change` of
/// every table written, so that the same inputs give the same bytes. Without it `last_change` is the time of
/// writing, as the GeoPackage standard describes it.
fn source_date_epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH").ok()?.trim().parse().ok()
}

/// QGIS's `layer_styles` table. Its `update_time` has no default here (QGIS's own has the time of writing), so a
/// GeoPackage written twice from the same inputs has the same styles.
const LAYER_STYLES: &str = "CREATE TABLE IF NOT EXISTS layer_styles (
  id INTEGER PRIMARY KEY AUTOINCREMENT, f_table_catalog TEXT(256), f_table_schema TEXT(256),
  f_table_name TEXT(256), f_geometry_column TEXT(256), styleName TEXT(30), styleQML TEXT, styleSLD TEXT,
  useAsDefault BOOLEAN, description TEXT, owner TEXT(30), ui TEXT(30), update_time DATETIME);";

/// The R-tree triggers of GeoPackage 1.3 (Annex F.3), with `<t>`, `<c>` and `<i>` standing for the table,
/// geometry column and primary key.
const RTREE_TRIGGERS: [&str; 6] = [
    "CREATE TRIGGER rtree_<t>_<c>_insert AFTER INSERT ON <t> WHEN (new.<c> NOT NULL AND NOT ST_IsEmpty(NEW.<c>))
     BEGIN INSERT OR REPLACE INTO rtree_<t>_<c> VALUES (NEW.<i>, ST_MinX(NEW.<c>), ST_MaxX(NEW.<c>),
     ST_MinY(NEW.<c>), ST_MaxY(NEW.<c>)); END",
    "CREATE TRIGGER rtree_<t>_<c>_update1 AFTER UPDATE OF <c> ON <t> WHEN OLD.<i> = NEW.<i> AND
     (NEW.<c> NOTNULL AND NOT ST_IsEmpty(NEW.<c>)) BEGIN INSERT OR REPLACE INTO rtree_<t>_<c> VALUES (NEW.<i>,
     ST_MinX(NEW.<c>), ST_MaxX(NEW.<c>), ST_MinY(NEW.<c>), ST_MaxY(NEW.<c>)); END",
    "CREATE TRIGGER rtree_<t>_<c>_update2 AFTER UPDATE OF <c> ON <t> WHEN OLD.<i> = NEW.<i> AND
     (NEW.<c> ISNULL OR ST_IsEmpty(NEW.<c>)) BEGIN DELETE FROM rtree_<t>_<c> WHERE id = OLD.<i>; END",
    "CREATE TRIGGER rtree_<t>_<c>_update3 AFTER UPDATE ON <t> WHEN OLD.<i> != NEW.<i> AND
     (NEW.<c> NOTNULL AND NOT ST_IsEmpty(NEW.<c>)) BEGIN DELETE FROM rtree_<t>_<c> WHERE id = OLD.<i>;
     INSERT OR REPLACE INTO rtree_<t>_<c> VALUES (NEW.<i>, ST_MinX(NEW.<c>), ST_MaxX(NEW.<c>),
     ST_MinY(NEW.<c>), ST_MaxY(NEW.<c>)); END",
    "CREATE TRIGGER rtree_<t>_<c>_update4 AFTER UPDATE ON <t> WHEN OLD.<i> != NEW.<i> AND
     (NEW.<c> ISNULL OR ST_IsEmpty(NEW.<c>)) BEGIN DELETE FROM rtree_<t>_<c> WHERE id IN (OLD.<i>, NEW.<i>); END",
    "CREATE TRIGGER rtree_<t>_<c>_delete AFTER DELETE ON <t> WHEN old.<c> NOT NULL
     BEGIN DELETE FROM rtree_<t>_<c> WHERE id = OLD.<i>; END",
];

/// A GeoPackage being written: tables are added one by one, and [`GpkgWriter::finish`] puts the file in place.
pub struct GpkgWriter {
    conn: Connection,
    /// The file under its temporary name, removed unless the writer completes it.
    file: Staged,
    path: std::path::PathBuf,
    /// `srs_id`s given to CRSs without an EPSG code, by their definition.
    own_srs: Vec<String>,
}

fn sql_error(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Sqlite {
        path: path.to_path_buf(),
        message: format!("cannot write the GeoPackage: {source}"),
        source,
    }
}

/// The SQL type of a column kind.
fn sql_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "TEXT",
        Kind::Int => "INTEGER",
        Kind::Float => "DOUBLE",
        Kind::Date => "DATE",
        Kind::Bool => "BOOLEAN",
    }
}

fn sql_value(cell: Cell<'_>) -> Sql {
    match cell {
        Cell::Null => Sql::Null,
        Cell::Int(i) => Sql::Integer(i),
        Cell::Float(f, _) => Sql::Real(f),
        Cell::Bool(b) => Sql::Integer(i64::from(b)),
        other => Sql::Text(other.render().into_owned()),
    }
}

/// The row's shape in the working CRS: its (multi)polygon, or another geometry.
fn shape(table: &dyn Table, row: usize) -> Option<Geometry<f64>> {
    match table.geometry(row) {
        Some(mp) => Some(Geometry::MultiPolygon(MultiPolygon::clone(mp))),
        None => table.other_geometry(row),
    }
}

/// The GeoPackage geometry type name of a geometry.
fn type_name(g: &Geometry<f64>) -> &'static str {
    match g {
        Geometry::Point(_) => "POINT",
        Geometry::LineString(_) | Geometry::Line(_) => "LINESTRING",
        Geometry::Polygon(_) | Geometry::Rect(_) | Geometry::Triangle(_) => "POLYGON",
        Geometry::MultiPoint(_) => "MULTIPOINT",
        Geometry::MultiLineString(_) => "MULTILINESTRING",
        Geometry::MultiPolygon(_) => "MULTIPOLYGON",
        Geometry::GeometryCollection(_) => "GEOMETRYCOLLECTION",
    }
}

impl GpkgWriter {
    /// Starts a GeoPackage that will become `path`, under a temporary name beside it.
    pub fn create(path: &Path) -> Result<Self> {
        // SQLite opens what stands at a name; the name is made here, new, so it opens no planted link, and
        // takes the empty file for a new database.
        let (tmp, file) = super::create_temp(path, "tmp")?;
        drop(file);
        let staged = Staged::new(path, &tmp);
        let conn = Connection::open(&tmp).map_err(sql_error(path))?;
        let setup = format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {USER_VERSION};
             PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN; {SCHEMA}"
        );
        let writer = GpkgWriter { conn, file: staged, path: path.to_path_buf(), own_srs: Vec::new() };
        writer.conn.execute_batch(&setup).map_err(sql_error(path))?;
        let mut srs = writer
            .conn
            .prepare(
                "INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, \
                 definition, description) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .map_err(sql_error(path))?;
        for (name, id, org, def, description) in [
            (
                "Undefined cartesian SRS",
                -1,
                "NONE",
                "undefined",
                "undefined cartesian coordinate reference system",
            ),
            (
                "Undefined geographic SRS",
                0,
                "NONE",
                "undefined",
                "undefined geographic coordinate reference system",
            ),
            (
                "WGS 84 geodetic",
                4326,
                "EPSG",
                WGS84_WKT,
                "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid",
            ),
        ] {
            srs.execute(rusqlite::params![name, id, org, id, def, description]).map_err(sql_error(path))?;
        }
        drop(srs);
        Ok(writer)
    }

    /// The `srs_id` of `crs`, adding its `gpkg_spatial_ref_sys` row when new: the EPSG code with the EPSG
    /// definition, or an own id from 100000 with the WKT (`undefined` for a PROJ string, kept in the
    /// description).
    fn srs_id(&mut self, crs: &Crs) -> Result<i64> {
        let wkt = crs.wkt();
        let id = match crs.epsg() {
            Some(code) => i64::from(code),
            None => {
                let key = crs.to_string();
                let at = self.own_srs.iter().position(|k| *k == key).unwrap_or_else(|| {
                    self.own_srs.push(key);
                    self.own_srs.len() - 1
                });
                OWN_SRS_ID + at as i64
            }
        };
        let (org, code) = match crs.epsg() {
            Some(code) => ("EPSG", i64::from(code)),
            None => ("NONE", id),
        };
        self.conn
            .execute(
                "INSERT OR IGNORE INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, \
                 organization_coordsys_id, definition, description) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                rusqlite::params![
                    crs.short_name(),
                    id,
                    org,
                    code,
                    wkt.as_deref().unwrap_or("undefined"),
                    crs.to_string()
                ],
            )
            .map_err(sql_error(&self.path))?;
        Ok(id)
    }

    /// Adds `table` as the feature table `name`, its shapes in `crs`, with its R-tree index.
    pub fn add(&mut self, name: &str, table: &dyn Table, crs: &Crs) -> Result<()> {
        let mut features = FeatureTable::begin(self, name, table.columns(), crs)?;
        let rows: Vec<usize> = (0..table.len()).collect();
        features.insert(&self.conn, &self.path, table, &rows, None)?;
        features.end(&self.conn, &self.path)
    }

    /// Stores `qml` as the default QGIS style of the feature table `name` in `layer_styles`, the table QGIS
    /// reads when it opens a GeoPackage layer (the same schema QGIS itself writes with "Save style ... in
    /// database").
    pub fn add_style(&mut self, name: &str, qml: &str) -> Result<()> {
        let path = self.path.clone();
        self.conn
            .execute_batch(LAYER_STYLES)
            .and_then(|()| {
                self.conn.execute(
                    "INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, \
                     styleName, styleQML, styleSLD, useAsDefault, description, owner, ui) \
                     VALUES ('', '', ?1, ?2, ?1, ?3, '', 1, 'lakeshore: tiers, overdue outlined', '', NULL)",
                    rusqlite::params![name, GEOMETRY, qml],
                )
            })
            .map(drop)
            .map_err(sql_error(&path))
    }

    /// Commits the file and renames it to its target.
    pub fn finish(self) -> Result<()> {
        self.close()?.commit()
    }

    /// Commits the file and closes it, still under its temporary name.
    pub fn close(self) -> Result<Staged> {
        let GpkgWriter { conn, file, path, .. } = self;
        conn.execute_batch("COMMIT")
            .map_err(sql_error(&path))
            .and_then(|()| conn.close().map_err(|(_, e)| sql_error(&path)(e)))?;
        Ok(file)
    }
}

/// A feature table being filled: its rows are inserted a block at a time, numbered from 1 in order, and
/// [`FeatureTable::end`] describes it in the GeoPackage's tables once all are in.
struct FeatureTable {
    name: String,
    columns: Vec<(&'static str, Kind)>,
    srs_id: i64,
    /// The geometry type the table was created with, once it was (with its first block).
    declared: Option<&'static str>,
    /// The geometry types of the rows so far.
    types: std::collections::BTreeSet<&'static str>,
    /// The rows so far.
    rows: i64,
    extent: Option<[f64; 4]>,
    /// Rows held for later, in the temporary table [`STAGED`], so far.
    staged: i64,
}

/// The temporary table of the rows of blocks that came out of order: their place, their order of arrival,
/// envelope, geometry blob and cells.
const STAGED: &str = "temp.lakeshore_staged";

impl FeatureTable {
    /// Starts the feature table `name` of `writer` with `columns`, its shapes in `crs`.
    fn begin(
        writer: &mut GpkgWriter,
        name: &str,
        columns: &[(&'static str, Kind)],
        crs: &Crs,
    ) -> Result<Self> {
        let srs_id = writer.srs_id(crs)?;
        Ok(FeatureTable {
            name: name.to_string(),
            columns: columns.to_vec(),
            srs_id,
            declared: None,
            types: Default::default(),
            rows: 0,
            extent: None,
            staged: 0,
        })
    }

    /// The geometry type of the column for the types seen.
    fn kind(types: &std::collections::BTreeSet<&'static str>) -> &'static str {
        match types.len() {
            0 => "MULTIPOLYGON",
            1 => types.first().copied().unwrap_or("GEOMETRY"),
            _ => "GEOMETRY",
        }
    }

    /// `CREATE TABLE` of the table named `table` with the geometry type `kind`.
    fn create_sql(&self, table: &str, kind: &str) -> String {
        let columns: Vec<String> =
            self.columns.iter().map(|(c, k)| format!("{} {}", quote(c), sql_type(*k))).collect();
        format!(
            "CREATE TABLE {table} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, {GEOMETRY} {kind}{}{});",
            if columns.is_empty() { "" } else { ", " },
            columns.join(", "),
        )
    }

    /// The name of the table's R-tree.
    fn rtree(&self) -> String {
        quote(&format!("rtree_{}_{GEOMETRY}", self.name))
    }

    /// Inserts the rows `rows` of `table`, in that order: as the table's next rows, or, with `staged` (each
    /// row's place), into [`STAGED`] until [`FeatureTable::end`] puts them in order. The table is created
    /// with the first block, with the geometry type of its rows.
    fn insert(
        &mut self,
        conn: &Connection,
        path: &Path,
        table: &dyn Table,
        rows: &[usize],
        staged: Option<crate::write::sink::Place<'_>>,
    ) -> Result<()> {
        let err = sql_error(path);
        let shapes: Vec<Option<Geometry<f64>>> = rows.iter().map(|&row| shape(table, row)).collect();
        self.types.extend(shapes.iter().flatten().map(type_name));
        if self.declared.is_none() {
            let kind = Self::kind(&self.types);
            let sql = format!(
                "{} CREATE VIRTUAL TABLE {} USING rtree(id, minx, maxx, miny, maxy);",
                self.create_sql(&quote(&self.name), kind),
                self.rtree()
            );
            conn.execute_batch(&sql).map_err(&err)?;
            self.declared = Some(kind);
        }
        let srs_blob = i32::try_from(self.srs_id).unwrap_or(-1);
        let width = self.columns.len();
        if staged.is_some() && self.staged == 0 {
            let cells: Vec<String> = (0..width).map(|i| format!(", c{i}")).collect();
            let sql = format!(
                "CREATE TABLE {STAGED} (place INTEGER, seq INTEGER, minx, maxx, miny, maxy, geom{});",
                cells.concat()
            );
            conn.execute_batch(&sql).map_err(&err)?;
        }
        let mut blob = Vec::new();
        for (&row, shape) in rows.iter().zip(shapes) {
            blob.clear();
            let envelope = shape.and_then(|g| push_blob(&mut blob, &g, srs_blob));
            let geometry = if envelope.is_some() { Sql::Blob(blob.clone()) } else { Sql::Null };
            let cells = (0..width).map(|c| sql_value(table.cell(row, c)));
            match staged {
                None => self.push(conn, path, envelope, geometry, cells)?,
                Some(place) => {
                    let mut values = Vec::with_capacity(width + 7);
                    values.push(Sql::Integer(place(row) as i64));
                    values.push(Sql::Integer(self.staged));
                    match envelope {
                        Some(e) => values.extend(e.map(Sql::Real)),
                        None => values.extend([Sql::Null, Sql::Null, Sql::Null, Sql::Null]),
                    }
                    values.push(geometry);
                    values.extend(cells);
                    let marks: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
                    let sql = format!("INSERT INTO {STAGED} VALUES ({})", marks.join(", "));
                    let mut insert = conn.prepare_cached(&sql).map_err(&err)?;
                    insert.execute(rusqlite::params_from_iter(values)).map_err(&err)?;
                    self.staged += 1;
                }
            }
        }
        Ok(())
    }

    /// Appends one row: its envelope (for the R-tree and the extent), geometry and cells.
    fn push(
        &mut self,
        conn: &Connection,
        path: &Path,
        envelope: Option<[f64; 4]>,
        geometry: Sql,
        cells: impl Iterator<Item = Sql>,
    ) -> Result<()> {
        let err = sql_error(path);
        self.rows += 1;
        let fid = self.rows;
        let mut values = Vec::with_capacity(self.columns.len() + 2);
        values.push(Sql::Integer(fid));
        values.push(geometry);
        values.extend(cells);
        let marks: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
        let sql = format!("INSERT INTO {} VALUES ({})", quote(&self.name), marks.join(", "));
        conn.prepare_cached(&sql).map_err(&err)?.execute(rusqlite::params_from_iter(values)).map_err(&err)?;
        if let Some(e) = envelope {
            let sql = format!("INSERT INTO {} VALUES (?1, ?2, ?3, ?4, ?5)", self.rtree());
            let mut index = conn.prepare_cached(&sql).map_err(&err)?;
            index.execute(rusqlite::params![fid, e[0], e[1], e[2], e[3]]).map_err(&err)?;
            self.extent = Some(match self.extent {
                None => e,
                Some(x) => [x[0].min(e[0]), x[1].max(e[1]), x[2].min(e[2]), x[3].max(e[3])],
            });
        }
        Ok(())
    }

    /// Appends the staged rows in order of place, gives the geometry column the type of all the rows (when
    /// the first block's was another), and describes the table: its contents row with the extent, its
    /// geometry column, the R-tree extension and triggers.
    fn end(mut self, conn: &Connection, path: &Path) -> Result<()> {
        let err = sql_error(path);
        if self.declared.is_none() {
            self.insert(conn, path, &NoRows(&self.columns.clone()), &[], None)?;
        }
        if self.staged > 0 {
            let width = self.columns.len();
            let mut select =
                conn.prepare(&format!("SELECT * FROM {STAGED} ORDER BY place, seq")).map_err(&err)?;
            let mut staged = select.query([]).map_err(&err)?;
            while let Some(row) = staged.next().map_err(&err)? {
                let value = |i: usize| row.get::<_, Sql>(i).map_err(&err);
                let envelope = match (value(2)?, value(3)?, value(4)?, value(5)?) {
                    (Sql::Real(a), Sql::Real(b), Sql::Real(c), Sql::Real(d)) => Some([a, b, c, d]),
                    _ => None,
                };
                let cells = (0..width).map(|i| value(7 + i)).collect::<Result<Vec<Sql>>>()?;
                self.push(conn, path, envelope, value(6)?, cells.into_iter())?;
            }
            drop(staged);
            drop(select);
            conn.execute_batch(&format!("DROP TABLE {STAGED};")).map_err(&err)?;
        }
        let (name, kind) = (self.name.as_str(), Self::kind(&self.types));
        if self.declared != Some(kind) {
            let (t, old) = (quote(name), quote(&format!("{name}_old")));
            let sql = format!(
                "ALTER TABLE {t} RENAME TO {old}; {} INSERT INTO {t} SELECT * FROM {old}; DROP TABLE {old};",
                self.create_sql(&t, kind)
            );
            conn.execute_batch(&sql).map_err(&err)?;
        }
        let [min_x, max_x, min_y, max_y] = self.extent.map_or([None; 4], |e| e.map(Some));
        conn.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, \
             max_y, srs_id, last_change) VALUES (?1, 'features', ?1, '', ?2, ?3, ?4, ?5, ?6, \
             COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', ?7, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))",
            rusqlite::params![name, min_x, min_y, max_x, max_y, self.srs_id, source_date_epoch()],
        )
        .map_err(&err)?;
        conn.execute(
            "INSERT INTO gpkg_geometry_columns VALUES (?1, ?2, ?3, ?4, 0, 0)",
            rusqlite::params![name, GEOMETRY, kind, self.srs_id],
        )
        .map_err(&err)?;
        conn.execute(
            "INSERT INTO gpkg_extensions VALUES (?1, ?2, 'gpkg_rtree_index', \
             'http://www.geopackage.org/spec130/#extension_rtree', 'write-only')",
            rusqlite::params![name, GEOMETRY],
        )
        .map_err(&err)?;
        for trigger in RTREE_TRIGGERS {
            let sql = trigger.replace("<t>", name).replace("<c>", GEOMETRY).replace("<i>", "fid");
            conn.execute_batch(&sql).map_err(&err)?;
        }
        Ok(())
    }
}

/// A GeoPackage of one feature table written a block of rows at a time, in one transaction: the blocks that
/// continue the table are inserted as they come, those out of order are held in a temporary table and
/// inserted in order of place at the end.
pub struct GpkgSink {
    writer: GpkgWriter,
    features: FeatureTable,
    order: Order,
    style: Option<String>,
}

impl GpkgSink {
    /// A GeoPackage at `path` of `places` places, its feature table `name` with `columns` and shapes in the
    /// working CRS `crs`, with `style` (QGIS QML), when given, as the table's default style.
    pub fn create(
        path: &Path,
        name: &str,
        columns: &[(&'static str, Kind)],
        crs: &Crs,
        style: Option<&str>,
        places: usize,
    ) -> Result<Self> {
        let mut writer = GpkgWriter::create(path)?;
        let features = FeatureTable::begin(&mut writer, name, columns, crs)?;
        Ok(GpkgSink { writer, features, order: Order::new(places), style: style.map(str::to_string) })
    }
}

impl Sink for GpkgSink {
    fn add(&mut self, block: &dyn Table, place: Place<'_>, filled: &[usize]) -> Result<()> {
        let path = self.writer.path.clone();
        let claim = self.order.claim(&path, filled)?;
        let rows = in_order_of_place(block.len(), place);
        for &row in &rows {
            self.order.check(&path, claim, place(row))?;
        }
        let staged = (!claim.continues).then_some(place);
        self.features.insert(&self.writer.conn, &path, block, &rows, staged)
    }

    fn finish(self: Box<Self>) -> Result<Staged> {
        let GpkgSink { mut writer, features, order, style } = *self;
        order.check_complete(&writer.path)?;
        let name = features.name.clone();
        features.end(&writer.conn, &writer.path)?;
        if let Some(qml) = &style {
            writer.add_style(&name, qml)?;
        }
        writer.close()
    }
}

/// Writes `table` to `path` as a GeoPackage holding the feature table `name` in the working CRS `crs`, with
/// `style` (QGIS QML), when given, as the table's default style in `layer_styles`; on failure the previous
/// file stays and the temporary one goes.
pub fn write_gpkg(path: &Path, name: &str, table: &dyn Table, crs: &Crs, style: Option<&str>) -> Result<()> {
    let sink = GpkgSink::create(path, name, table.columns(), crs, style, table.len())?;
    write_whole(Box::new(sink), table)?.commit()
}
