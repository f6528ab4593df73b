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

use super::temp_path;
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
    tmp: std::path::PathBuf,
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
        let tmp = temp_path(path);
        let _ = std::fs::remove_file(&tmp);
        let conn = Connection::open(&tmp).map_err(sql_error(path))?;
        let setup = format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {USER_VERSION};
             PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN; {SCHEMA}"
        );
        let writer = GpkgWriter { conn, tmp, path: path.to_path_buf(), own_srs: Vec::new() };
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
        let path = self.path.clone();
        let err = sql_error(&path);
        let srs_id = self.srs_id(crs)?;
        let srs_blob = i32::try_from(srs_id).unwrap_or(-1);
        let mut types = std::collections::BTreeSet::new();
        for row in 0..table.len() {
            if table.geometry(row).is_some() {
                types.insert("MULTIPOLYGON");
            } else if let Some(g) = table.other_geometry(row) {
                types.insert(type_name(&g));
            }
        }
        let kind = match types.len() {
            0 => "MULTIPOLYGON",
            1 => types.first().copied().unwrap_or("GEOMETRY"),
            _ => "GEOMETRY",
        };
        let t = quote(name);
        let columns: Vec<String> =
            table.columns().iter().map(|(c, k)| format!("{} {}", quote(c), sql_type(*k))).collect();
        let rtree = format!("rtree_{name}_{GEOMETRY}");
        self.conn
            .execute_batch(&format!(
                "CREATE TABLE {t} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, {GEOMETRY} {kind}{}{});
                 CREATE VIRTUAL TABLE {} USING rtree(id, minx, maxx, miny, maxy);",
                if columns.is_empty() { "" } else { ", " },
                columns.join(", "),
                quote(&rtree)
            ))
            .map_err(&err)?;
        let marks: Vec<String> = (0..table.columns().len() + 2).map(|i| format!("?{}", i + 1)).collect();
        let mut insert =
            self.conn.prepare(&format!("INSERT INTO {t} VALUES ({})", marks.join(", "))).map_err(&err)?;
        let mut index = self
            .conn
            .prepare(&format!("INSERT INTO {} VALUES (?1, ?2, ?3, ?4, ?5)", quote(&rtree)))
            .map_err(&err)?;
        let mut extent: Option<[f64; 4]> = None;
        let mut blob = Vec::new();
        for row in 0..table.len() {
            let fid = row as i64 + 1;
            blob.clear();
            let envelope = shape(table, row).and_then(|g| push_blob(&mut blob, &g, srs_blob));
            let mut values = Vec::with_capacity(marks.len());
            values.push(Sql::Integer(fid));
            values.push(if envelope.is_some() { Sql::Blob(blob.clone()) } else { Sql::Null });
            values.extend((0..table.columns().len()).map(|c| sql_value(table.cell(row, c))));
            insert.execute(rusqlite::params_from_iter(values)).map_err(&err)?;
            if let Some(e) = envelope {
                index.execute(rusqlite::params![fid, e[0], e[1], e[2], e[3]]).map_err(&err)?;
                extent = Some(match extent {
                    None => e,
                    Some(x) => [x[0].min(e[0]), x[1].max(e[1]), x[2].min(e[2]), x[3].max(e[3])],
                });
            }
        }
        drop((insert, index));
        let [min_x, max_x, min_y, max_y] = extent.map_or([None; 4], |e| e.map(Some));
        self.conn
            .execute(
                "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, \
                 max_y, srs_id, last_change) VALUES (?1, 'features', ?1, '', ?2, ?3, ?4, ?5, ?6, \
                 COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', ?7, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))",
                rusqlite::params![name, min_x, min_y, max_x, max_y, srs_id, source_date_epoch()],
            )
            .map_err(&err)?;
        self.conn
            .execute(
                "INSERT INTO gpkg_geometry_columns VALUES (?1, ?2, ?3, ?4, 0, 0)",
                rusqlite::params![name, GEOMETRY, kind, srs_id],
            )
            .map_err(&err)?;
        self.conn
            .execute(
                "INSERT INTO gpkg_extensions VALUES (?1, ?2, 'gpkg_rtree_index', \
                 'http://www.geopackage.org/spec130/#extension_rtree', 'write-only')",
                rusqlite::params![name, GEOMETRY],
            )
            .map_err(&err)?;
        for trigger in RTREE_TRIGGERS {
            let sql = trigger.replace("<t>", name).replace("<c>", GEOMETRY).replace("<i>", "fid");
            self.conn.execute_batch(&sql).map_err(&err)?;
        }
        Ok(())
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
        let GpkgWriter { conn, tmp, path, .. } = self;
        let result = conn
            .execute_batch("COMMIT")
            .map_err(sql_error(&path))
            .and_then(|()| conn.close().map_err(|(_, e)| sql_error(&path)(e)))
            .and_then(|()| std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e)));
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

/// Writes `table` to `path` as a GeoPackage holding the feature table `name` in the working CRS `crs`, with
/// `style` (QGIS QML), when given, as the table's default style in `layer_styles`; on failure the previous
/// file stays and the temporary one goes.
pub fn write_gpkg(path: &Path, name: &str, table: &dyn Table, crs: &Crs, style: Option<&str>) -> Result<()> {
    let result = GpkgWriter::create(path).and_then(|mut writer| {
        writer.add(name, table, crs)?;
        if let Some(qml) = style {
            writer.add_style(name, qml)?;
        }
        writer.finish()
    });
    if result.is_err() {
        let _ = std::fs::remove_file(temp_path(path));
    }
    result
}
