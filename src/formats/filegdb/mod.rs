//! The Esri File Geodatabase reader: one feature class of a `.gdb` folder, named as `FILE.gdb:NAME`, or
//! `FILE.gdb` alone when the folder holds one feature class. Read natively, after the published description
//! of the format (GDAL's OpenFileGDB notes, "FGDB Spec"): no Esri or GDAL library.
//!
//! - **The catalog** (`catalog`): `a00000001.gdbtable` (`GDB_SystemCatalog`) lists every table by name;
//!   the table of object id `n` is the file `a{n:08x}.gdbtable` with its index `.gdbtablx`. The feature
//!   classes are the tables `GDB_Items` registers as such (in an ArcGIS 9 geodatabase, without it, the tables
//!   with a geometry field but the system ones, `GDB_…`) ([`layer_names`]).
//! - **The table** (`table`): its header, the fields (all but the object id, the geometry, binary and
//!   raster columns are the layer's fields) and the geometry field's coordinate grid and CRS, a WKT read as a
//!   `.prj` is (else `--assume-crs`).
//! - **The rows** (`rows`): every live row, in object-id order, numbered from 1 by its place in the layer,
//!   its object id shown beside that number in problems (as a GeoPackage's `fid`); deleted rows are skipped
//!   and the count of live rows must be the one the table declares. Text, numbers, dates (ISO 8601), GUIDs.
//! - **The geometry** (`shape`): points, multipoints, lines and polygons with holes, multipart, Z and M
//!   ignored; true curves densified (`curves` states the tolerance). A row whose geometry cannot be used
//!   keeps its attributes, as every reader's does.
//!
//! What cannot be read is refused, naming the table and the export that fixes it: a table compressed in
//! ArcGIS's Compressed Data Format (the catalog marks it, and its rows are in a `.cdf` file), a table of
//! 64-bit object ids, an encrypted or unknown one. Every count and size the files declare is checked
//! against the file that holds it before anything is allocated for it: a damaged table stops the run naming
//! its file, never a huge allocation.

mod catalog;
mod cursor;
mod curves;
mod folder;
mod rows;
mod shape;
mod table;

use std::path::{Path, PathBuf};

use self::catalog::{choose, Table};
pub(super) use self::folder::Folder;
use self::rows::TableFile;
use self::table::{Header, Kind};

pub use self::catalog::layer_names;
pub(super) use self::catalog::names_in;
use super::blocks::{BlockReader, LayerBlocks};
use super::{check_geometry, select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Location, Problem, Result};

const FIX_BLOB: &str = "repair the geometry in ArcGIS (Repair Geometry) or redraw it, or delete the row";

/// Whether `path` is a File Geodatabase: a folder whose name ends in `.gdb`.
pub fn is_geodatabase(path: &Path) -> bool {
    path.is_dir() && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gdb"))
}

/// A feature class opened for reading: its table, its CRS, the kept fields and the tolerance its curves are
/// densified to.
struct Opened {
    label: PathBuf,
    folder: Folder,
    table: Table,
    crs: Crs,
    /// Indices into the table's fields of the kept ones.
    kept: Vec<usize>,
    names: Vec<String>,
    tolerance: f64,
}

/// The table's fields a layer has: all but the object id, the geometry, binary and raster columns.
fn layer_fields(header: &Header) -> Vec<usize> {
    let skipped = |k: Kind| matches!(k, Kind::ObjectId | Kind::Geometry | Kind::Binary | Kind::Raster { .. });
    (0..header.fields.len()).filter(|&i| !skipped(header.fields[i].kind)).collect()
}

impl Opened {
    /// Opens the feature class `member` of `folder` (or its only one); messages name the layer `path`.
    fn open(folder: Folder, member: Option<&str>, path: &Path, options: &ReadOptions) -> Result<Opened> {
        let entry = choose(&folder, member)?;
        let table = Table::open(&folder, entry.id)?;
        let Some(grid) = &table.header.grid else {
            return Err(Error::format(
                path,
                format!(
                    "'{}' is a table without geometry; name a feature class as FILE.gdb:NAME",
                    entry.name
                ),
            ));
        };
        let crs = match grid.wkt.trim() {
            "" => options.assume_crs.clone().ok_or_else(|| {
                Error::crs(path, "the feature class has no coordinate system; pass --assume-crs EPSG:nnnn")
            })?,
            wkt => match (Crs::parse_from(path, wkt), &options.assume_crs) {
                (Ok(crs), _) => crs,
                (Err(_), Some(assumed)) => assumed.clone(),
                (Err(e), None) => return Err(e),
            },
        };
        let tolerance = if crs.is_geographic().unwrap_or(false) { 1e-6 } else { 0.1 };
        let fields = layer_fields(&table.header);
        let names: Vec<String> = fields.iter().map(|&i| table.header.fields[i].name.clone()).collect();
        let kept: Vec<usize> = select_fields(path, &names, options.keep.as_deref())?;
        let names = kept.iter().map(|&k| names[k].clone()).collect();
        let kept = kept.into_iter().map(|k| fields[k]).collect();
        Ok(Opened { label: path.to_path_buf(), folder, table, crs, kept, names, tolerance })
    }

    /// The feature of `row`, numbered `record`; the problems of its values and geometry go to `problems`.
    fn feature(&mut self, record: usize, problems: &mut Vec<Problem>) -> Result<Feature> {
        let row = self.table.rows[record - 1];
        let bytes = self.table.file.read(row)?;
        let fid = i64::try_from(row.oid).ok();
        let location = Location::record(record, fid);
        let unusable = match rows::decode(&self.table.header, &bytes) {
            Ok(decoded) => {
                let values = self.kept.iter().map(|&i| decoded.values[i].clone()).collect();
                let geometry = self.geometry(decoded.geometry, location.clone(), problems);
                return Ok(Feature { record, fid, geometry, values });
            }
            Err(what) => Unusable::new(
                GeometryError::UnreadableBlob(format!("the row cannot be read: {what}")),
                "the table is damaged: repair it in ArcGIS or export it again",
            ),
        };
        problems.push(unusable.problem_at(&self.label, location));
        Ok(Feature {
            record,
            fid,
            geometry: Err(unusable.reason),
            values: vec![Value::Null; self.kept.len()],
        })
    }

    /// The geometry of a row's blob, or why it is unusable (reported in `problems` at `location`).
    fn geometry(
        &self,
        blob: Option<&[u8]>,
        location: Location,
        problems: &mut Vec<Problem>,
    ) -> std::result::Result<geo::Geometry<f64>, GeometryError> {
        let grid = self.table.header.grid.as_ref().expect("a feature class has a geometry field");
        let shape = match blob.map(|b| shape::decode(b, grid, self.tolerance)) {
            None => Err(Unusable::new(GeometryError::NullRow, FIX_BLOB)),
            Some(Err(reason)) => Err(Unusable::new(GeometryError::UnreadableBlob(reason), FIX_BLOB)),
            Some(Ok(shape)) => match shape.geometry {
                None => Err(Unusable::new(GeometryError::Empty, super::FIX_EMPTY)),
                Some(mut g) => check_geometry(&g).map(|()| {
                    for ring in shape.orphans {
                        problems.push(Problem::new(
                            &self.label,
                            location.clone(),
                            format!(
                                "ring {ring} is a hole inside no outer ring: kept as a polygon of its own; fix the \
                                 ring orientation (outer rings clockwise) in a GIS"
                            ),
                        ));
                    }
                    problems.extend(super::drop_empty_parts(&mut g, &self.label, location.clone()));
                    g
                }),
            },
        };
        shape.map_err(|unusable| {
            problems.push(unusable.problem_at(&self.label, location));
            unusable.reason
        })
    }
}

/// A feature class read a block of rows at a time, or by record number: each row is at the offset its index
/// gives.
struct Blocks {
    opened: Opened,
    /// The next record to hand out (1-based).
    next: usize,
}

impl BlockReader for Blocks {
    fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        let o = &self.opened;
        let mut file = TableFile::open(&o.folder, &o.table.name)?;
        for (i, &row) in o.table.rows.iter().enumerate() {
            let bytes = file.read(row)?;
            // A row that cannot be decoded is null here, and reported when its block is read.
            let values = match rows::decode(&o.table.header, &bytes) {
                Ok(decoded) => columns.iter().map(|&c| decoded.values[o.kept[c]].clone()).collect(),
                Err(_) => vec![Value::Null; columns.len()],
            };
            each(i + 1, values);
        }
        Ok(())
    }

    fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        let end = self.next.saturating_add(count).min(self.opened.table.rows.len() + 1);
        let records: Vec<usize> = (self.next..end).collect();
        self.next = end;
        self.features(&records)
    }

    fn read_records(&mut self, records: &[usize]) -> Option<Result<(Vec<Feature>, Vec<Problem>)>> {
        Some(self.features(records))
    }

    fn reads_any_records(&self) -> bool {
        true
    }
}

impl Blocks {
    fn features(&mut self, records: &[usize]) -> Result<(Vec<Feature>, Vec<Problem>)> {
        let (mut features, mut problems) = (Vec::with_capacity(records.len()), Vec::new());
        let len = self.opened.table.rows.len();
        for &record in records {
            if !(1..=len).contains(&record) {
                return Err(Error::format(&self.opened.label, format!("no record {record} (it has {len})")));
            }
            features.push(self.opened.feature(record, &mut problems)?);
        }
        Ok((features, problems))
    }
}

/// The File Geodatabase format: one feature class of a `.gdb` folder.
pub(super) struct FileGdb;

impl LayerReader for FileGdb {
    fn extensions(&self) -> &'static [&'static str] {
        &["gdb"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        field_names_in(&Folder::Disk(layer.file.to_path_buf()), layer.member)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read_in(Folder::Disk(layer.file.to_path_buf()), layer.member, layer.path, options)
    }

    fn open_blocks(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<LayerBlocks> {
        open_blocks_in(Folder::Disk(layer.file.to_path_buf()), layer.member, layer.path, options)
    }
}

/// The field names of the feature class `member` of `folder` (or of its only one).
pub(in crate::formats) fn field_names_in(folder: &Folder, member: Option<&str>) -> Result<Vec<String>> {
    let entry = choose(folder, member)?;
    let table = Table::open(folder, entry.id)?;
    Ok(layer_fields(&table.header).into_iter().map(|i| table.header.fields[i].name.clone()).collect())
}

/// The feature class `member` of `folder` (or its only one) read whole; messages name it `path`.
pub(in crate::formats) fn read_in(
    folder: Folder,
    member: Option<&str>,
    path: &Path,
    options: &ReadOptions,
) -> Result<(Layer, Vec<Problem>)> {
    let mut blocks = open_blocks_in(folder, member, path, options)?;
    let (features, problems) = blocks.next_block(usize::MAX)?;
    let layer = Layer {
        path: path.to_path_buf(),
        crs: blocks.crs().clone(),
        fields: blocks.fields().to_vec(),
        features,
    };
    Ok((layer, problems))
}

/// The feature class `member` of `folder` (or its only one) opened to be read a block at a time.
pub(in crate::formats) fn open_blocks_in(
    folder: Folder,
    member: Option<&str>,
    path: &Path,
    options: &ReadOptions,
) -> Result<LayerBlocks> {
    let opened = Opened::open(folder, member, path, options)?;
    let (crs, names, len) = (opened.crs.clone(), opened.names.clone(), opened.table.rows.len());
    let source = Blocks { opened, next: 1 };
    Ok(LayerBlocks::streamed(path, crs, names, len, Box::new(source)))
}

#[cfg(test)]
mod tests;
