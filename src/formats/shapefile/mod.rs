//! The shapefile reader: opens the `.shp` (geometry) with its `.shx`, `.dbf`, `.prj` (the CRS) and `.cpg`
//! (the text encoding), converts each shape, and pairs shapes with attribute rows by record number.
//!
//! Geometry and attributes are read on two threads and zipped by record number. Three things are done in
//! submodules rather than by the crates underneath, on purpose:
//!
//! - [`shp`]: **shapes are read with every count bounded by the file.** A damaged record length, part count or
//!   point count gives that record an error; it never makes the reader loop, seek outside the file or allocate
//!   more than the file holds. The `.shx` is cross-checked with the `.shp` record by record.
//! - [`rings`]: **polygon rings are assembled by containment.** The `shapefile` crate's conversion to
//!   geo-types gives each hole to the outer ring before it (its issue #55); there each hole goes to the
//!   smallest outer ring that contains it.
//! - [`dbf`]: **`.dbf` records are decoded from their raw bytes.** dbase's record iterator skips rows marked
//!   deleted, which would pair every later shape with the wrong attributes, and builds a map per record; there
//!   only the kept fields are decoded, at fixed offsets.

mod dbf;
mod encoding;
pub(crate) mod files;
pub(crate) mod rings;
mod shp;

use std::path::{Path, PathBuf};

use geo::{Coord, Geometry, LineString, MultiLineString, MultiPoint, Point};

use self::dbf::{DbfRows, DbfTable};
use self::files::{Files, Member};
use self::rings::assemble_rings;
use self::shp::{Entry, Shape, ShpFile};
use super::blocks::{BlockReader, LayerBlocks};
use super::{check_geometry, select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Location, Problem, Result};

/// Problems with the record number each is about (0 for the whole file), to be merged in record order.
type Numbered = Vec<(usize, Problem)>;

/// Bigger than the default 8 KiB, so that a file read straight through takes few calls; no bigger, since
/// blocks read by position jump between parts of the file and each jump past the buffer refills it whole.
const BUFFER: usize = 1 << 16;

/// The extensions of a shapefile's files that are read: the `.shp` and its siblings.
pub(crate) const PARTS: [&str; 5] = ["shp", "shx", "dbf", "prj", "cpg"];
const FIX_UNREADABLE: &str = "repair the shapefile (e.g. re-export it from the GIS) or delete the record";

/// The attribute field names of the shapefile at `path`, read from its `.dbf` header.
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    field_names_of(&Files::Disk(path.to_path_buf()))
}

/// Reads the shapefile at `path` (the `.shp`) with its `.shx`, `.dbf`, `.prj` and `.cpg`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    read_files(&Files::Disk(path.to_path_buf()), path, options)
}

/// The attribute field names of the shapefile `files`, read from its `.dbf` header.
pub(super) fn field_names_of(files: &Files) -> Result<Vec<String>> {
    let dbf = required_sibling(files, "dbf", "attribute table")?;
    let (table, _) = DbfTable::open(&dbf, files.sibling("cpg").as_ref())?;
    Ok(table.fields.into_iter().map(|f| f.name).collect())
}

/// Reads the shapefile `files` (the `.shp`) with its `.shx`, `.dbf`, `.prj` and `.cpg`, as the layer at
/// `path` (as given).
pub(super) fn read_files(files: &Files, path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let mut blocks = Blocks::open(files, options)?;
    let (features, problems) = blocks.next_block(usize::MAX)?;
    let Blocks { crs, fields, .. } = blocks;
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

/// The shapefile `files` opened to be read in blocks, named `path` (as given).
pub(super) fn open_blocks(files: &Files, path: &Path, options: &ReadOptions) -> Result<LayerBlocks> {
    let blocks = Blocks::open(files, options)?;
    let (crs, fields, len) = (blocks.crs.clone(), blocks.fields.clone(), blocks.len());
    Ok(LayerBlocks::streamed(path, crs, fields, len, Box::new(blocks)))
}

/// The shapefile format: a `.shp` with its siblings, read from the files a block at a time.
pub(super) struct Shapefile;

impl LayerReader for Shapefile {
    fn extensions(&self) -> &'static [&'static str] {
        &["shp"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        field_names(layer.file)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, options)
    }

    fn open_blocks(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<LayerBlocks> {
        open_blocks(&Files::Disk(layer.file.to_path_buf()), layer.file, options)
    }
}

impl BlockReader for Blocks {
    fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        Blocks::scan(self, columns, each)
    }

    fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        Blocks::next_block(self, count)
    }

    fn read_records(&mut self, records: &[usize]) -> Option<Result<(Vec<Feature>, Vec<Problem>)>> {
        Some(Blocks::read_records(self, records))
    }

    fn reads_any_records(&self) -> bool {
        true
    }
}

/// An open shapefile, read front to back in blocks of records: shapes and attribute rows of a block are read
/// on two threads and paired by record number.
pub(super) struct Blocks {
    path: PathBuf,
    /// The CRS of the coordinates.
    pub(super) crs: Crs,
    /// The kept attribute fields, in the order of each feature's values.
    pub(super) fields: Vec<String>,
    index: Vec<Entry>,
    shapes: ShpFile,
    rows: DbfRows,
    /// The `.dbf` and `.cpg`, and the `.dbf` column of each kept field, for [`Blocks::scan`].
    dbf: (Member, Option<Member>, Vec<usize>),
    /// Records read so far.
    done: usize,
    /// Problems with the whole file (its CRS, its text encoding), given with the first block.
    opening: Vec<Problem>,
}

impl Blocks {
    /// Opens the shapefile `files`: its CRS, the `.shx` index, and the `.dbf` header, checked against each
    /// other before any record is read.
    pub(super) fn open(files: &Files, options: &ReadOptions) -> Result<Self> {
        let path = files.shp();
        // A missing .shp is reported as such, not as its missing siblings.
        if let Files::Disk(path) = files {
            std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        }
        let shx = required_sibling(files, "shx", "shape index")?;
        let dbf = required_sibling(files, "dbf", "attribute table")?;
        let (crs, crs_problem) = layer_crs(files, options)?;
        let index = shp::parse_index(&shx.read()?).map_err(|message| Error::format(&shx.path, message))?;
        let count = index.len();
        let shapes = ShpFile::open(&files.main()?)?;
        let cpg = files.sibling("cpg");
        let (table, encoding_problem) = DbfTable::open(&dbf, cpg.as_ref())?;
        if table.num_records != count {
            return Err(Error::format(
                path,
                format!(
                    "{} has {} records but {} has {}: the files are out of step; re-export the layer",
                    dbf.path.display(),
                    table.num_records,
                    shx.path.display(),
                    count
                ),
            ));
        }
        let names: Vec<String> = table.fields.iter().map(|f| f.name.clone()).collect();
        let kept = select_fields(&dbf.path, &names, options.keep.as_deref())?;
        let fields = kept.iter().map(|&i| names[i].clone()).collect();
        let rows = table.rows(kept.clone())?;
        let tail = shapes.unindexed(&index).map(|message| Problem::new(path, Location::WholeFile, message));
        let opening = crs_problem.into_iter().chain(encoding_problem).chain(tail).collect();
        let dbf = (dbf, cpg, kept);
        Ok(Blocks { path: path.to_path_buf(), crs, fields, index, shapes, rows, dbf, done: 0, opening })
    }

    /// Calls `each` with the record number and the values of the kept fields at indices `columns` of every
    /// record, reading only those columns of the `.dbf`. Values that cannot be decoded are null here; the
    /// blocks report them.
    pub(super) fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        const SCAN_BLOCK: usize = 1 << 16;
        let (dbf, cpg, kept) = &self.dbf;
        let (table, _) = DbfTable::open(dbf, cpg.as_ref())?;
        let mut rows = table.rows(columns.iter().map(|&c| kept[c]).collect())?;
        let mut record = 0;
        loop {
            let (block, _) = rows.read(SCAN_BLOCK)?;
            if block.is_empty() {
                return Ok(());
            }
            for values in block {
                record += 1;
                each(record, values);
            }
        }
    }

    /// The number of records in the file.
    pub(super) fn len(&self) -> usize {
        self.index.len()
    }

    /// The next `count` records (fewer at the end; none once all are read) with their problems in record
    /// order, the whole file's first.
    pub(super) fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        let first = self.done;
        let last = self.index.len().min(first.saturating_add(count));
        self.done = last;
        self.read_records(&(first + 1..last + 1).collect::<Vec<_>>())
    }

    /// The records numbered `records` (from 1, rising, each at most [`Blocks::len`]), read forward through
    /// both files, skipping the records between, with their problems in record order, the whole file's first
    /// with the first block read. A reader that takes the records this way reads each once, in any order of
    /// blocks, and does not mix this with [`Blocks::next_block`]. Shapes and attribute rows are read on two
    /// threads and paired.
    pub(super) fn read_records(&mut self, records: &[usize]) -> Result<(Vec<Feature>, Vec<Problem>)> {
        let (path, index, shapes, rows) = (&self.path, &self.index, &mut self.shapes, &mut self.rows);
        let entries = records.iter().map(|&record| (record, index[record - 1]));
        let (geometry, attributes) = std::thread::scope(|scope| {
            let attributes = scope.spawn(|| rows.read_records(records.iter().copied()));
            let geometry = read_shapes(path, shapes, entries);
            let attributes = attributes.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (geometry, attributes)
        });
        let (mut features, mut problems) = geometry?;
        let (values, row_problems) = attributes?;
        for (feature, values) in features.iter_mut().zip(values) {
            feature.values = values;
        }
        problems.extend(row_problems);
        problems.sort_by_key(|(record, _)| *record);
        let opening = std::mem::take(&mut self.opening);
        Ok((features, opening.into_iter().chain(problems.into_iter().map(|(_, p)| p)).collect()))
    }
}

fn required_sibling(files: &Files, ext: &str, what: &str) -> Result<Member> {
    let shp = files.shp();
    files.sibling(ext).ok_or_else(|| {
        Error::format(
            shp.with_extension(ext),
            format!(
                "not found: the shapefile {} needs its {what} (.{ext}) beside it; copy all the files of the \
                 export together",
                shp.display()
            ),
        )
    })
}

/// The text of the shapefile's `.prj`, if it has one.
fn read_prj(files: &Files) -> Result<Option<(PathBuf, String)>> {
    let Some(prj) = files.sibling("prj") else { return Ok(None) };
    let bytes = prj.read()?;
    let text = String::from_utf8_lossy(&bytes).trim_start_matches('\u{feff}').trim().to_string();
    Ok(Some((prj.path, text)))
}

/// The layer's CRS: the `.prj`, else [`ReadOptions::assume_crs`]; an unusable `.prj` gives way to the assumed
/// CRS with a problem saying so.
fn layer_crs(files: &Files, options: &ReadOptions) -> Result<(Crs, Option<Problem>)> {
    let shp = files.shp();
    let Some((prj, wkt)) = read_prj(files)? else {
        return match &options.assume_crs {
            Some(crs) => Ok((crs.clone(), None)),
            None => Err(Error::crs(
                shp,
                "no .prj, so the CRS is unknown: add a .prj next to it or pass --assume-crs EPSG:nnnn",
            )),
        };
    };
    match (Crs::parse(&wkt), &options.assume_crs) {
        (Ok(crs), _) => Ok((crs, None)),
        (Err(e), Some(crs)) => {
            let message =
                format!("CRS not understood ({e}); using the assumed {crs}: check that it is right");
            Ok((crs.clone(), Some(Problem::new(&prj, Location::WholeFile, message))))
        }
        (Err(e), None) => Err(Error::crs(
            &prj,
            format!("CRS not understood ({e}): fix the .prj or pass --assume-crs EPSG:nnnn"),
        )),
    }
}

/// What a `.shp` or `.dbf` that ends inside record `record` is told: it was longer when opened, or its
/// header says it holds records it does not.
pub(super) fn cut_short(record: usize) -> String {
    format!(
        "ends inside record {record}, short of the records its header and index count: the file was cut short \
         while it was read, or is damaged; read it again once nothing is writing it, or re-export the layer"
    )
}

/// Reads the shapes of the `.shx` entries `index`, the first of them record `before + 1`: a record whose shape cannot be read or used keeps its place with a
/// geometry error.
fn read_shapes(
    path: &Path,
    shapes: &mut ShpFile,
    entries: impl ExactSizeIterator<Item = (usize, Entry)>,
) -> Result<(Vec<Feature>, Numbered)> {
    let mut features = Vec::with_capacity(entries.len());
    let mut problems = Vec::new();
    for (record, entry) in entries {
        let shape = shapes.read(record, entry).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => Error::format(path, cut_short(record)),
            _ => Error::io(path, e),
        })?;
        let geometry = match shape {
            Ok(shape) => shape_to_geometry(shape).map(|(geometry, orphans)| {
                for ring in orphans {
                    problems.push((record, rings::orphan_problem(path, record, ring)));
                }
                geometry
            }),
            Err(e) => Err(Unusable::new(GeometryError::UnreadableShape(e.to_string()), FIX_UNREADABLE)),
        };
        let geometry = geometry.and_then(|mut g| {
            check_geometry(&g)?;
            if let Some(note) = super::drop_empty_parts(&mut g, path, Location::Record(record)) {
                problems.push((record, note));
            }
            Ok(g)
        });
        let geometry = geometry.map_err(|unusable| {
            problems.push((record, unusable.problem(path, record)));
            unusable.reason
        });
        features.push(Feature { record, fid: None, geometry, values: Vec::new() });
    }
    Ok((features, problems))
}

/// Converts one shape; polygons also give the 1-based numbers of their orphan holes.
fn shape_to_geometry(shape: Shape) -> Result<(Geometry<f64>, Vec<usize>), Unusable> {
    let plain = |g: Geometry<f64>| Ok((g, Vec::new()));
    match shape {
        Shape::Null => Err(Unusable::new(GeometryError::NullShape, "draw its shape or delete the record")),
        Shape::Point(p) => plain(Point(p).into()),
        Shape::MultiPoint(points) => plain(MultiPoint(points.into_iter().map(Point).collect()).into()),
        Shape::Polyline(parts) => plain(lines(parts)),
        Shape::Polygon(rings) => Ok(assemble_rings(rings)),
        Shape::Multipatch => {
            Err(Unusable::new(GeometryError::Multipatch, "export the layer as 2-D polygons"))
        }
    }
}

fn lines(mut parts: Vec<Vec<Coord<f64>>>) -> Geometry<f64> {
    match parts.len() {
        1 => LineString(parts.swap_remove(0)).into(),
        _ => MultiLineString(parts.into_iter().map(LineString).collect()).into(),
    }
}
/// Fixtures shared by the unit tests of this module and its submodules: shapefiles written to a temporary
/// directory.
#[cfg(test)]
mod test_support;

#[cfg(test)]
mod tests;
