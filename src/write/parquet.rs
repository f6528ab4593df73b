//! GeoParquet output through polars: one typed column per table column (dates as Parquet dates), for
//! notebooks and DuckDB, plus the row's shape as a GeoParquet 1.1 `geometry` column.
//!
//! The geometry is stored as ISO WKB (little-endian `MultiPolygon`, null for a row without a shape or whose
//! shape cannot be reprojected) in WGS 84 longitude/latitude, the same coordinates as the GeoJSON output
//! (polygons wound the same way: exteriors counterclockwise, holes clockwise). The file therefore carries no
//! `crs` member: GeoParquet reads its absence as OGC:CRS84. The working CRS in feet would need its PROJJSON,
//! which nothing in the crate produces.
//!
//! The `geo` file metadata (the column's encoding, geometry type, orientation and bounding box) goes into
//! the Parquet footer through polars' own `ParquetWriter::with_key_value_metadata`; polars adds its
//! `ARROW:schema` key beside it. The WKB comes from [`crate::formats::wkb`], which the GeoPackage writer shares.

use std::ops::Range;
use std::path::{Path, PathBuf};

use geo::{BoundingRect, Geometry, MultiPolygon, Rect};
use polars::prelude::*;
use rayon::prelude::*;

use crate::crs::Reprojector;
use crate::formats::wkb::{push_geometry, push_multipolygon};
use crate::model::error::{Error, Result};
use crate::model::table::{Cell, Kind, Table};
use crate::write::sink::{in_order_of_place, write_whole, Order, Place, Sink};
use crate::write::{AtomicFile, Staged};

/// The name of the geometry column, GeoParquet's `primary_column`.
const GEOMETRY: &str = "geometry";

/// The values of one column at `rows`, `pick` turning each cell into the column's type (`None` for nulls).
fn values<T>(
    (table, rows): (&dyn Table, &[usize]),
    col: usize,
    pick: impl Fn(Cell<'_>) -> Option<T>,
) -> Vec<Option<T>> {
    rows.iter().map(|&r| pick(table.cell(r, col))).collect()
}

/// Column `col` of the rows `rows` of `table`.
fn column(table: (&dyn Table, &[usize]), col: usize, name: &str, kind: Kind) -> Column {
    let name = PlSmallStr::from_str(name);
    match kind {
        Kind::Text => Column::new(
            name,
            values(table, col, |c| match c {
                Cell::Null => None,
                c => Some(c.render().into_owned()),
            }),
        ),
        Kind::Int => {
            Column::new(name, values(table, col, |c| if let Cell::Int(i) = c { Some(i) } else { None }))
        }
        Kind::Float => {
            Column::new(name, values(table, col, |c| if let Cell::Float(f, _) = c { Some(f) } else { None }))
        }
        Kind::Bool => {
            Column::new(name, values(table, col, |c| if let Cell::Bool(b) = c { Some(b) } else { None }))
        }
        Kind::Date => {
            let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
            let days: Vec<Option<i32>> = values(table, col, |c| match c {
                Cell::Date(d) => Some((d - epoch).num_days() as i32),
                _ => None,
            });
            let days = Column::new(name, days);
            days.cast(&DataType::Date).unwrap_or(days)
        }
    }
}

fn union(a: Option<Rect<f64>>, b: Option<Rect<f64>>) -> Option<Rect<f64>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Rect::new(
            (a.min().x.min(b.min().x), a.min().y.min(b.min().y)),
            (a.max().x.max(b.max().x), a.max().y.max(b.max().y)),
        )),
        (a, b) => a.or(b),
    }
}

/// The WKB of a run of rows in WGS 84: all their bytes, each row's span of them (`None` for null) and the
/// rows' bounding box.
struct Block {
    bytes: Vec<u8>,
    spans: Vec<Option<Range<usize>>>,
    bbox: Option<Rect<f64>>,
    /// The GeoParquet geometry types written.
    types: std::collections::BTreeSet<&'static str>,
}

fn encode_block(table: &dyn Table, rows: &[usize], to_wgs84: &Reprojector) -> Block {
    let mut block = Block {
        bytes: Vec::new(),
        spans: Vec::with_capacity(rows.len()),
        bbox: None,
        types: Default::default(),
    };
    for &row in rows {
        let shape = match table.geometry(row) {
            Some(mp) => Some(Geometry::MultiPolygon(mp.clone())),
            None => table.other_geometry(row),
        };
        let start = block.bytes.len();
        let written = match shape.and_then(|g| to_wgs84.transform(&g).ok()) {
            Some(Geometry::MultiPolygon(mp)) => {
                push_multipolygon(&mut block.bytes, &mp);
                Some(("MultiPolygon", mp.bounding_rect()))
            }
            Some(Geometry::Polygon(p)) => {
                let mp = MultiPolygon(vec![p]);
                push_multipolygon(&mut block.bytes, &mp);
                Some(("MultiPolygon", mp.bounding_rect()))
            }
            Some(other) => push_geometry(&mut block.bytes, &other).map(|kind| (kind, other.bounding_rect())),
            None => None,
        };
        block.spans.push(written.map(|(kind, bbox)| {
            block.types.insert(kind);
            block.bbox = union(block.bbox, bbox);
            start..block.bytes.len()
        }));
    }
    block
}

/// The `geometry` column of the rows `rows` of `table` (WKB in WGS 84, reprojected in parallel) and the
/// bounding box of all its rows.
fn geometry_column(
    table: &dyn Table,
    rows: &[usize],
    to_wgs84: &Reprojector,
) -> (Column, Option<Rect<f64>>, std::collections::BTreeSet<&'static str>) {
    const BLOCK: usize = 4096;
    let mut builder = BinaryChunkedBuilder::new(PlSmallStr::from_static(GEOMETRY), rows.len());
    let mut bbox = None;
    let mut types = std::collections::BTreeSet::new();
    let pieces: Vec<&[usize]> = rows.chunks(BLOCK).collect();
    // A group of blocks at a time, so that only one group's WKB is held twice (block and builder).
    for group in pieces.chunks(4 * rayon::current_num_threads()) {
        let blocks: Vec<Block> = group.par_iter().map(|rows| encode_block(table, rows, to_wgs84)).collect();
        for block in &blocks {
            for span in &block.spans {
                builder.append_option(span.clone().map(|r| &block.bytes[r]));
            }
            bbox = union(bbox, block.bbox);
            types.extend(&block.types);
        }
    }
    (builder.finish().into_column(), bbox, types)
}

/// The GeoParquet 1.1 `geo` metadata of the geometry column; `bbox` is left out when no row has a shape.
fn geo_metadata(bbox: Option<Rect<f64>>, types: &std::collections::BTreeSet<&'static str>) -> String {
    let types: Vec<&str> =
        if types.is_empty() { vec!["MultiPolygon"] } else { types.iter().copied().collect() };
    let mut column = serde_json::json!({
        "encoding": "WKB",
        "geometry_types": types,
        "orientation": "counterclockwise",
    });
    if let Some(b) = bbox {
        column["bbox"] = serde_json::json!([b.min().x, b.min().y, b.max().x, b.max().y]);
    }
    serde_json::json!({
        "version": "1.1.0",
        "primary_column": GEOMETRY,
        "columns": { GEOMETRY: column },
    })
    .to_string()
}

/// A GeoParquet 1.1 file written from blocks of rows: each block becomes columns as it comes (its rows are
/// then free to go), in order of place, and the file is written from them at the end, when the bounding box
/// and geometry types of all the rows are known for the `geo` metadata of its footer. Blocks that come out of
/// order are put in order of place then.
pub struct ParquetSink {
    path: PathBuf,
    columns: Vec<(&'static str, Kind)>,
    to_wgs84: Reprojector,
    order: Order,
    /// The frames of the blocks that continued the file, in order.
    frames: Vec<DataFrame>,
    /// The frames of the blocks that came out of order, with the place of each of their rows.
    held: Vec<(DataFrame, Vec<usize>)>,
    bbox: Option<Rect<f64>>,
    types: std::collections::BTreeSet<&'static str>,
}

impl ParquetSink {
    /// A GeoParquet file at `path` of `places` places with `columns`, then `geometry`: each row's shape as WKB
    /// in WGS 84 longitude/latitude, which `to_wgs84` transforms it to from the working CRS. A row whose
    /// geometry is missing or cannot be transformed has a null `geometry`, never a missing row.
    pub fn create(
        path: &Path,
        columns: &[(&'static str, Kind)],
        places: usize,
        to_wgs84: Reprojector,
    ) -> Result<Self> {
        Ok(ParquetSink {
            path: path.to_path_buf(),
            columns: columns.to_vec(),
            to_wgs84,
            order: Order::new(places),
            frames: Vec::new(),
            held: Vec::new(),
            bbox: None,
            types: Default::default(),
        })
    }

    /// The error of a frame that cannot be built or written.
    fn error(&self, what: &str) -> impl Fn(PolarsError) -> Error + '_ {
        let what = what.to_string();
        move |source| Error::Parquet {
            path: self.path.clone(),
            message: format!("cannot {what}: {source}"),
            source,
        }
    }

    /// The frame of the rows `rows` of `table`, in that order: its typed columns, then `geometry`.
    fn frame(&mut self, table: &dyn Table, rows: &[usize]) -> Result<DataFrame> {
        let mut columns: Vec<Column> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, (name, kind))| column((table, rows), i, name, *kind))
            .collect();
        let (geometry, bbox, types) = geometry_column(table, rows, &self.to_wgs84);
        columns.push(geometry);
        self.bbox = union(self.bbox, bbox);
        self.types.extend(types);
        DataFrame::new(rows.len(), columns).map_err(self.error("build the table"))
    }
}

impl Sink for ParquetSink {
    fn add(&mut self, block: &dyn Table, place: Place<'_>, filled: &[usize]) -> Result<()> {
        let claim = self.order.claim(&self.path, filled)?;
        let rows = in_order_of_place(block.len(), place);
        for &row in &rows {
            self.order.check(&self.path, claim, place(row))?;
        }
        let frame = self.frame(block, &rows)?;
        if claim.continues {
            self.frames.push(frame);
        } else {
            self.held.push((frame, rows.iter().map(|&row| place(row)).collect()));
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Staged> {
        let mut sink = *self;
        sink.order.check_complete(&sink.path)?;
        // The frames held are put in order of place, each place's rows in the order of their block.
        if !sink.held.is_empty() {
            let mut places = Vec::new();
            let mut held: Option<DataFrame> = None;
            for (frame, at) in std::mem::take(&mut sink.held) {
                places.extend(at);
                match &mut held {
                    None => held = Some(frame),
                    Some(all) => {
                        all.vstack_mut_owned(frame).map_err(sink.error("build the table"))?;
                    }
                }
            }
            let mut order: Vec<IdxSize> = (0..places.len() as IdxSize).collect();
            order.sort_by_key(|&i| places[i as usize]);
            if let Some(held) = held {
                let take = IdxCa::from_vec(PlSmallStr::EMPTY, order);
                sink.frames.push(held.take(&take).map_err(sink.error("build the table"))?);
            }
        }
        let mut frame = match sink.frames.len() {
            0 => {
                let rows: [usize; 0] = [];
                let columns = sink.columns.clone();
                sink.frame(&super::sink::NoRows(&columns), &rows)?
            }
            _ => {
                let mut frames = std::mem::take(&mut sink.frames).into_iter();
                let mut all = frames.next().unwrap_or_default();
                for frame in frames {
                    all.vstack_mut_owned(frame).map_err(sink.error("build the table"))?;
                }
                all
            }
        };
        frame.rechunk_mut_par();
        let metadata =
            KeyValueMetadata::from_static(vec![("geo".into(), geo_metadata(sink.bbox, &sink.types))]);
        let mut file = AtomicFile::create(&sink.path)?;
        ParquetWriter::new(&mut file)
            .with_key_value_metadata(Some(metadata))
            .finish(&mut frame)
            .map_err(sink.error("write Parquet"))?;
        file.close()
    }
}

/// Writes `table` to `path` as GeoParquet 1.1 ([`ParquetSink::create`]).
pub fn write_parquet(path: &Path, table: &dyn Table, to_wgs84: Reprojector) -> Result<()> {
    let sink = ParquetSink::create(path, table.columns(), table.len(), to_wgs84)?;
    write_whole(Box::new(sink), table)?.commit()
}

#[cfg(test)]
mod tests {
    use geo::{polygon, Polygon};

    use super::*;
    use crate::crs::Crs;

    /// x from -1.5 to 2, y from 0 to 1, counterclockwise from the lower left corner.
    fn rectangle() -> Polygon<f64> {
        polygon![(x: -1.5, y: 0.0), (x: 2.0, y: 0.0), (x: 2.0, y: 1.0), (x: -1.5, y: 1.0), (x: -1.5, y: 0.0)]
    }

    /// The rectangle's WKB, spelled out from the ISO WKB layout: byte order, type, counts, then x and y of
    /// each point as IEEE 754 doubles, least significant byte first.
    #[rustfmt::skip]
    const RECTANGLE_WKB: [u8; 102] = [
        0x01,                                           // little-endian
        0x06, 0x00, 0x00, 0x00,                         // MultiPolygon
        0x01, 0x00, 0x00, 0x00,                         // 1 polygon
        0x01,                                           // little-endian
        0x03, 0x00, 0x00, 0x00,                         // Polygon
        0x01, 0x00, 0x00, 0x00,                         // 1 ring
        0x05, 0x00, 0x00, 0x00,                         // 5 points
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0xBF, // x -1.5 = 0xBFF8_0000_0000_0000
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // y 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // x 2 = 0x4000_0000_0000_0000
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // y 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // x 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F, // y 1 = 0x3FF0_0000_0000_0000
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0xBF, // x -1.5
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F, // y 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0xBF, // x -1.5
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // y 0
    ];

    fn wkb(shape: &MultiPolygon<f64>) -> Vec<u8> {
        let mut out = Vec::new();
        push_multipolygon(&mut out, shape);
        out
    }

    /// ISO WKB of POINT (1.5 -2): byte order 1, type 1, then x and y as little-endian IEEE doubles
    /// (1.5 = 0x3FF8000000000000, -2 = 0xC000000000000000).
    #[test]
    fn parquet_wkb_of_a_point_matches_the_spec_byte_for_byte() {
        let mut out = Vec::new();
        let kind = push_geometry(&mut out, &Geometry::Point(geo::Point::new(1.5, -2.0)));
        assert_eq!(kind, Some("Point"));
        #[rustfmt::skip]
        let expected = [
            0x01, 0x01, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC0,
        ];
        assert_eq!(out, expected);
    }

    #[test]
    fn parquet_wkb_of_a_rectangle_matches_the_spec_byte_for_byte() {
        assert_eq!(wkb(&MultiPolygon(vec![rectangle()])), RECTANGLE_WKB);
    }

    #[test]
    fn parquet_wkb_winds_exteriors_counterclockwise_and_holes_clockwise() {
        let clockwise = Polygon::new(rectangle().exterior().0.iter().rev().copied().collect(), vec![]);
        assert_eq!(wkb(&MultiPolygon(vec![clockwise])), RECTANGLE_WKB);

        let hole = polygon![(x: 0.0, y: 0.25), (x: 1.0, y: 0.25), (x: 1.0, y: 0.75), (x: 0.0, y: 0.75)];
        let holed = Polygon::new(rectangle().exterior().clone(), vec![hole.exterior().clone()]);
        let bytes = wkb(&MultiPolygon(vec![holed]));
        assert_eq!(&bytes[..14], &RECTANGLE_WKB[..14]);
        assert_eq!(&bytes[14..18], &2u32.to_le_bytes());
        // The hole starts after the exterior's count and 5 points; its second point is the first one reversed.
        let hole_points = 22 + 5 * 16 + 4;
        let second = &bytes[hole_points + 16..hole_points + 32];
        assert_eq!(second, [0.0f64.to_le_bytes(), 0.75f64.to_le_bytes()].concat());
    }

    struct Rows(Vec<Option<MultiPolygon<f64>>>);

    impl Table for Rows {
        fn columns(&self) -> &[(&'static str, Kind)] {
            &[("row", Kind::Int)]
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn cell(&self, row: usize, _: usize) -> Cell<'_> {
            Cell::Int(row as i64)
        }
        fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
            self.0[row].as_ref()
        }
    }

    #[test]
    fn parquet_file_carries_wkb_and_geo_metadata() {
        let dir = crate::scratch::root().join("geoparquet");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.parquet");
        let table = Rows(vec![Some(MultiPolygon(vec![rectangle()])), None]);
        let identity = Reprojector::new(&Crs::wgs84(), &Crs::wgs84()).unwrap();
        write_parquet(&path, &table, identity).unwrap();

        let mut reader = ParquetReader::new(std::fs::File::open(&path).unwrap());
        let metadata = reader.get_metadata().unwrap().clone();
        let frame = reader.finish().unwrap();
        let geometry = frame.column(GEOMETRY).unwrap().binary().unwrap();
        assert_eq!(geometry.get(0), Some(&RECTANGLE_WKB[..]));
        assert_eq!(geometry.get(1), None);

        let kv = metadata.key_value_metadata().as_ref().unwrap();
        let geo = kv.iter().find(|kv| kv.key == "geo").and_then(|kv| kv.value.as_deref()).unwrap();
        let geo: serde_json::Value = serde_json::from_str(geo).unwrap();
        assert_eq!(geo["version"], "1.1.0");
        assert_eq!(geo["primary_column"], GEOMETRY);
        let column = &geo["columns"][GEOMETRY];
        assert_eq!(column["encoding"], "WKB");
        assert_eq!(column["geometry_types"], serde_json::json!(["MultiPolygon"]));
        assert_eq!(column["bbox"], serde_json::json!([-1.5, 0.0, 2.0, 1.0]));
        assert!(column.get("crs").is_none(), "no crs member means OGC:CRS84");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
