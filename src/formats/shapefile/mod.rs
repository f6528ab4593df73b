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
mod rings;
mod shp;

use std::path::{Path, PathBuf};

use geo::{Coord, Geometry, LineString, MultiLineString, MultiPoint, Point};

use self::dbf::{DbfRows, DbfTable};
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
const FIX_UNREADABLE: &str = "repair the shapefile (e.g. re-export it from the GIS) or delete the record";

/// The attribute field names of the shapefile at `path`, read from its `.dbf` header.
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    let dbf = required_sibling(path, "dbf", "attribute table")?;
    let (table, _) = DbfTable::open(&dbf, sibling(path, "cpg").as_deref())?;
    Ok(table.fields.into_iter().map(|f| f.name).collect())
}

/// Reads the shapefile at `path` (the `.shp`) with its `.shx`, `.dbf`, `.prj` and `.cpg`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let mut blocks = Blocks::open(path, options)?;
    let (features, problems) = blocks.next_block(usize::MAX)?;
    let Blocks { crs, fields, .. } = blocks;
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
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
        let blocks = Blocks::open(layer.file, options)?;
        let (crs, fields, len) = (blocks.crs.clone(), blocks.fields.clone(), blocks.len());
        Ok(LayerBlocks::streamed(layer.file, crs, fields, len, Box::new(blocks)))
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
    dbf: (PathBuf, Option<PathBuf>, Vec<usize>),
    /// Records read so far.
    done: usize,
    /// Problems with the whole file (its CRS, its text encoding), given with the first block.
    opening: Vec<Problem>,
}

impl Blocks {
    /// Opens the shapefile at `path`: its CRS, the `.shx` index, and the `.dbf` header, checked against each
    /// other before any record is read.
    pub(super) fn open(path: &Path, options: &ReadOptions) -> Result<Self> {
        // A missing .shp is reported as such, not as its missing siblings.
        std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        let shx = required_sibling(path, "shx", "shape index")?;
        let dbf = required_sibling(path, "dbf", "attribute table")?;
        let (crs, crs_problem) = layer_crs(path, options)?;
        let shx_bytes = std::fs::read(&shx).map_err(|e| Error::io(&shx, e))?;
        let index = shp::parse_index(&shx_bytes).map_err(|message| Error::format(&shx, message))?;
        let count = index.len();
        let shapes = ShpFile::open(path)?;
        let (table, encoding_problem) = DbfTable::open(&dbf, sibling(path, "cpg").as_deref())?;
        if table.num_records != count {
            return Err(Error::format(
                path,
                format!(
                    "{} has {} records but {} has {}: the files are out of step; re-export the layer",
                    dbf.display(),
                    table.num_records,
                    shx.display(),
                    count
                ),
            ));
        }
        let names: Vec<String> = table.fields.iter().map(|f| f.name.clone()).collect();
        let kept = select_fields(&dbf, &names, options.keep.as_deref())?;
        let fields = kept.iter().map(|&i| names[i].clone()).collect();
        let rows = table.rows(kept.clone())?;
        let opening = crs_problem.into_iter().chain(encoding_problem).collect();
        let dbf = (dbf, sibling(path, "cpg"), kept);
        Ok(Blocks { path: path.to_path_buf(), crs, fields, index, shapes, rows, dbf, done: 0, opening })
    }

    /// Calls `each` with the record number and the values of the kept fields at indices `columns` of every
    /// record, reading only those columns of the `.dbf`. Values that cannot be decoded are null here; the
    /// blocks report them.
    pub(super) fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        const SCAN_BLOCK: usize = 1 << 16;
        let (dbf, cpg, kept) = &self.dbf;
        let (table, _) = DbfTable::open(dbf, cpg.as_deref())?;
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

/// The sibling of `shp` with extension `ext` (given in lower case), as `parcels.dbf` or `parcels.DBF`.
fn sibling(shp: &Path, ext: &str) -> Option<PathBuf> {
    [ext.to_string(), ext.to_ascii_uppercase()].iter().map(|e| shp.with_extension(e)).find(|p| p.is_file())
}

fn required_sibling(shp: &Path, ext: &str, what: &str) -> Result<PathBuf> {
    sibling(shp, ext).ok_or_else(|| {
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

/// The text of the `.prj` beside `shp`, if there is one.
fn read_prj(shp: &Path) -> Result<Option<(PathBuf, String)>> {
    let Some(prj) = sibling(shp, "prj") else { return Ok(None) };
    let bytes = std::fs::read(&prj).map_err(|e| Error::io(&prj, e))?;
    let text = String::from_utf8_lossy(&bytes).trim_start_matches('\u{feff}').trim().to_string();
    Ok(Some((prj, text)))
}

/// The layer's CRS: the `.prj`, else [`ReadOptions::assume_crs`]; an unusable `.prj` gives way to the assumed
/// CRS with a problem saying so.
fn layer_crs(shp: &Path, options: &ReadOptions) -> Result<(Crs, Option<Problem>)> {
    let Some((prj, wkt)) = read_prj(shp)? else {
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
        let shape = shapes.read(entry).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => Error::format(path, cut_short(record)),
            _ => Error::io(path, e),
        })?;
        let geometry = match shape {
            Ok(shape) => shape_to_geometry(shape).map(|(geometry, orphans)| {
                for ring in orphans {
                    let message = format!(
                        "ring {ring} is counter-clockwise (a hole) but lies in no outer ring, so it was read as a \
                         polygon of its own: fix the ring orientation (outer rings clockwise) in a GIS"
                    );
                    problems.push((record, Problem::new(path, Location::Record(record), message)));
                }
                geometry
            }),
            Err(e) => Err(Unusable::new(GeometryError::UnreadableShape(e.to_string()), FIX_UNREADABLE)),
        };
        let geometry = geometry.and_then(|g| check_geometry(&g).map(|()| g)).map_err(|unusable| {
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
mod test_support {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};

    use ::shapefile::dbase::{self, FieldName, FieldValue, Record, TableWriterBuilder};
    use ::shapefile::{PolygonRing, Writer};

    use crate::crs::{Crs, CrsDef};
    use crate::formats::ReadOptions;

    /// A fresh directory under the system temp dir, removed on drop.
    pub(super) struct TempDir(PathBuf);

    impl TempDir {
        pub(super) fn new(name: &str) -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = crate::scratch::root().join(format!("shp-{name}-{n}"));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        pub(super) fn path(&self, file: &str) -> PathBuf {
            self.0.join(file)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    pub(super) fn assumed() -> ReadOptions {
        ReadOptions { assume_crs: Some(Crs { def: CrsDef::Epsg(2261) }), keep: None }
    }

    pub(super) fn name(n: &str) -> FieldName {
        FieldName::try_from(n).unwrap()
    }

    /// Writes `shapes` to `shp` with one numeric field ID = 1, 2, ...
    pub(super) fn write_with_ids<S: ::shapefile::record::EsriShape>(shp: &Path, shapes: &[S]) {
        let table = TableWriterBuilder::new().add_numeric_field(name("ID"), 10, 0);
        let mut writer = Writer::from_path(shp, table).unwrap();
        for (i, shape) in shapes.iter().enumerate() {
            let record =
                Record::from(HashMap::from([("ID".to_string(), FieldValue::Numeric(Some(i as f64 + 1.0)))]));
            writer.write_shape_and_record(shape, &record).unwrap();
        }
    }

    pub(super) fn square(x: f64, y: f64, size: f64) -> Vec<::shapefile::Point> {
        let p = ::shapefile::Point::new;
        vec![p(x, y), p(x, y + size), p(x + size, y + size), p(x + size, y), p(x, y)]
    }

    pub(super) fn polygon(rings: Vec<PolygonRing<::shapefile::Point>>) -> ::shapefile::Polygon {
        ::shapefile::Polygon::with_rings(rings)
    }

    pub(super) fn patch(path: &Path, offset: usize, bytes: &[u8]) {
        let mut data = std::fs::read(path).unwrap();
        data[offset..offset + bytes.len()].copy_from_slice(bytes);
        std::fs::write(path, data).unwrap();
    }

    pub(super) fn write_attributes(shp: &Path) {
        let table = TableWriterBuilder::new()
            .add_character_field(name("NAME"), 20)
            .add_numeric_field(name("ACRES"), 10, 2)
            .add_logical_field(name("SEPTIC"))
            .add_date_field(name("BUILT"))
            .add_float_field(name("DEPTH"), 10, 3)
            .add_character_field(name("NOTE"), 5);
        let mut writer = Writer::from_path(shp, table).unwrap();
        let full = Record::from(HashMap::from([
            ("NAME".to_string(), FieldValue::Character(Some("  Lake House ".to_string()))),
            ("ACRES".to_string(), FieldValue::Numeric(Some(1.25))),
            ("SEPTIC".to_string(), FieldValue::Logical(Some(true))),
            ("BUILT".to_string(), FieldValue::Date(Some(dbase::Date::new(5, 6, 1987).unwrap()))),
            ("DEPTH".to_string(), FieldValue::Float(Some(2.5))),
            ("NOTE".to_string(), FieldValue::Character(Some(String::new()))),
        ]));
        let empty = Record::from(HashMap::from([
            ("NAME".to_string(), FieldValue::Character(None)),
            ("ACRES".to_string(), FieldValue::Numeric(None)),
            ("SEPTIC".to_string(), FieldValue::Logical(None)),
            ("BUILT".to_string(), FieldValue::Date(None)),
            ("DEPTH".to_string(), FieldValue::Float(None)),
            ("NOTE".to_string(), FieldValue::Character(None)),
        ]));
        writer.write_shape_and_record(&::shapefile::Point::new(0., 0.), &full).unwrap();
        writer.write_shape_and_record(&::shapefile::Point::new(1., 1.), &empty).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use ::shapefile::dbase::{FieldValue, Record, TableWriterBuilder};
    use ::shapefile::{PointZ, PolygonRing, Polyline, PolylineM};

    use super::test_support::{
        assumed, name, patch, polygon, square, write_attributes, write_with_ids, TempDir,
    };
    use super::*;
    use crate::crs::layer::Value;
    use crate::crs::CrsDef;

    #[test]
    fn points_lines_and_z_m_variants_drop_z_and_m() {
        let dir = TempDir::new("points");
        let points = dir.path("systems.shp");
        write_with_ids(&points, &[PointZ::new(1., 2., 3., 4.), PointZ::new(-5., 6.5, 0., 0.)]);
        let (layer, problems) = read(&points, &assumed()).unwrap();
        assert!(problems.is_empty());
        assert_eq!(layer.features[0].geometry, Ok(Point::new(1., 2.).into()));
        assert_eq!(layer.features[1].geometry, Ok(Point::new(-5., 6.5).into()));

        let lines = dir.path("shore.shp");
        let p = ::shapefile::Point::new;
        let single = Polyline::new(vec![p(0., 0.), p(1., 1.)]);
        let double =
            Polyline::with_parts(vec![vec![p(0., 0.), p(1., 0.)], vec![p(2., 2.), p(3., 3.), p(4., 2.)]]);
        write_with_ids(&lines, &[single, double]);
        let (layer, _) = read(&lines, &assumed()).unwrap();
        assert_eq!(layer.features[0].geometry, Ok(LineString::from(vec![(0., 0.), (1., 1.)]).into()));
        let expected = MultiLineString(vec![
            LineString::from(vec![(0., 0.), (1., 0.)]),
            LineString::from(vec![(2., 2.), (3., 3.), (4., 2.)]),
        ]);
        assert_eq!(layer.features[1].geometry, Ok(expected.into()));

        let measured = dir.path("measured.shp");
        let pm = ::shapefile::PointM::new;
        write_with_ids(&measured, &[PolylineM::new(vec![pm(7., 8., 100.), pm(9., 10., 200.)])]);
        let (layer, _) = read(&measured, &assumed()).unwrap();
        assert_eq!(layer.features[0].geometry, Ok(LineString::from(vec![(7., 8.), (9., 10.)]).into()));
    }

    #[test]
    fn null_shape_keeps_its_record_with_a_geometry_error() {
        let dir = TempDir::new("null");
        let shp = dir.path("systems.shp");
        write_with_ids(&shp, &[::shapefile::Point::new(1., 2.), ::shapefile::Point::new(3., 4.)]);
        // Record 2's shape type: 100-byte header, record 1 (8 + 20 bytes), record 2's 8-byte header.
        patch(&shp, 136, &0i32.to_le_bytes());
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert_eq!(layer.features.len(), 2);
        assert_eq!(layer.features[0].geometry, Ok(Point::new(1., 2.).into()));
        assert_eq!(layer.features[1].geometry, Err(GeometryError::NullShape));
        assert_eq!(layer.features[1].values, vec![Value::Number(2.0)]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].location, Location::Record(2));
    }

    #[test]
    fn degenerate_ring_is_a_problem_not_a_panic() {
        let dir = TempDir::new("degenerate");
        let shp = dir.path("parcels.shp");
        let p = ::shapefile::Point::new;
        let sliver = polygon(vec![PolygonRing::Outer(vec![p(0., 0.), p(1., 1.), p(0., 0.)])]);
        write_with_ids(&shp, &[sliver, polygon(vec![PolygonRing::Outer(square(0., 0., 1.))])]);
        let (layer, problems) = read(&shp, &assumed()).unwrap();
        assert_eq!(layer.features[0].geometry, Err(GeometryError::ShortRing { points: 3 }));
        assert!(layer.features[1].geometry.is_ok());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].location, Location::Record(1));
        assert!(problems[0].message.contains("redraw the polygon"), "{}", problems[0].message);
    }

    #[test]
    fn keep_selects_fields_without_regard_to_case() {
        let dir = TempDir::new("keep");
        let shp = dir.path("systems.shp");
        write_attributes(&shp);
        let options = ReadOptions { keep: Some(vec!["built".into(), "Name".into()]), ..assumed() };
        let (layer, _) = read(&shp, &options).unwrap();
        assert_eq!(layer.fields, vec!["NAME", "BUILT"]);
        assert_eq!(
            layer.features[0].values,
            vec![Value::Text("Lake House".into()), Value::Text("1987-06-05".into())]
        );
        assert_eq!(layer.features[1].values, vec![Value::Null, Value::Null]);

        let options = ReadOptions { keep: Some(vec!["PIN".into()]), ..assumed() };
        let err = read(&shp, &options).unwrap_err();
        assert!(matches!(err, Error::Format { .. }));
        assert!(err.to_string().contains("fields found: NAME, ACRES, SEPTIC, BUILT, DEPTH, NOTE"), "{err}");
    }

    #[test]
    fn missing_prj_is_a_crs_error_unless_a_crs_is_assumed() {
        let dir = TempDir::new("prj");
        let shp = dir.path("parcels.shp");
        write_with_ids(&shp, &[::shapefile::Point::new(1., 2.)]);
        let err = read(&shp, &ReadOptions::default()).unwrap_err();
        assert!(matches!(&err, Error::Crs { path, .. } if path == &shp), "{err:?}");
        assert!(err.to_string().contains("add a .prj next to it or pass --assume-crs EPSG:nnnn"), "{err}");
        let (layer, _) = read(&shp, &assumed()).unwrap();
        assert_eq!(layer.crs, Crs { def: CrsDef::Epsg(2261) });
    }

    #[test]
    fn prj_text_is_read_without_bom_or_trailing_newline() {
        let dir = TempDir::new("prjtext");
        let shp = dir.path("parcels.shp");
        assert!(read_prj(&shp).unwrap().is_none());
        std::fs::write(dir.path("parcels.prj"), "\u{feff}PROJCS[\"NAD83 / New York Central (ftUS)\"]\r\n")
            .unwrap();
        let (path, text) = read_prj(&shp).unwrap().unwrap();
        assert_eq!(path, dir.path("parcels.prj"));
        assert_eq!(text, "PROJCS[\"NAD83 / New York Central (ftUS)\"]");
    }

    #[test]
    fn record_counts_out_of_step_is_a_format_error_naming_both_files() {
        let dir = TempDir::new("count");
        let shp = dir.path("parcels.shp");
        write_with_ids(&shp, &[::shapefile::Point::new(1., 2.), ::shapefile::Point::new(3., 4.)]);
        let dbf = dir.path("parcels.dbf");
        let mut table = TableWriterBuilder::new()
            .add_numeric_field(name("ID"), 10, 0)
            .build_with_file_dest(&dbf)
            .unwrap();
        table
            .write_record(&Record::from(HashMap::from([("ID".to_string(), FieldValue::Numeric(Some(1.0)))])))
            .unwrap();
        drop(table);
        let err = read(&shp, &assumed()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Format { .. }));
        assert!(text.contains("parcels.dbf has 1 records but"), "{text}");
        assert!(text.contains("parcels.shx has 2"), "{text}");
    }

    #[test]
    fn an_unreadable_dbf_header_keeps_the_dbase_error() {
        let dir = TempDir::new("bad-field");
        let shp = dir.path("parcels.shp");
        write_with_ids(&shp, &[::shapefile::Point::new(1., 2.)]);
        // The first field descriptor starts at byte 32; its type letter is byte 11 of it.
        let dbf = dir.path("parcels.dbf");
        let mut bytes = std::fs::read(&dbf).unwrap();
        bytes[32 + 11] = b'!';
        std::fs::write(&dbf, bytes).unwrap();
        let err = read(&shp, &assumed()).unwrap_err();
        assert!(matches!(&err, Error::Dbase { path, .. } if *path == dbf), "{err:?}");
        let text = err.to_string();
        assert!(text.starts_with(&format!("{}: not a readable dBase table (", dbf.display())), "{text}");
        let source = std::error::Error::source(&err)
            .and_then(|s| s.downcast_ref::<::shapefile::dbase::Error>())
            .expect("the dbase error");
        assert!(matches!(source.kind(), ::shapefile::dbase::ErrorKind::InvalidFieldType('!')), "{source:?}");
    }

    #[test]
    fn missing_sibling_files_are_named() {
        let dir = TempDir::new("missing");
        let shp = dir.path("parcels.shp");
        write_with_ids(&shp, &[::shapefile::Point::new(1., 2.)]);
        std::fs::rename(dir.path("parcels.dbf"), dir.path("parcels.DBF")).unwrap();
        assert_eq!(read(&shp, &assumed()).unwrap().0.features.len(), 1, "upper-case extension found");
        std::fs::remove_file(dir.path("parcels.DBF")).unwrap();
        let err = read(&shp, &assumed()).unwrap_err();
        assert!(matches!(&err, Error::Format { path, .. } if path == &dir.path("parcels.dbf")), "{err:?}");
        assert!(err.to_string().contains("attribute table (.dbf)"), "{err}");
        std::fs::remove_file(dir.path("parcels.shx")).unwrap();
        let err = read(&shp, &assumed()).unwrap_err();
        assert!(matches!(&err, Error::Format { path, .. } if path == &dir.path("parcels.shx")), "{err:?}");
        let err = read(&dir.path("nothing.shp"), &assumed()).unwrap_err();
        assert!(matches!(&err, Error::Io { path, .. } if path == &dir.path("nothing.shp")), "{err:?}");
    }
}
