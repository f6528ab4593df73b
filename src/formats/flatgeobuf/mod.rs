//! The FlatGeobuf reader (`.fgb`, specification version 3), native: the FlatBuffers tables are read in
//! place by [`table`], no FlatBuffers library needed.
//!
//! A file is the magic bytes, a header (the layer's geometry type, its columns, its feature count, the node
//! size of its spatial index and its CRS), then the packed Hilbert R-tree index when the node size is not 0
//! (GDAL writes one by default, and sorts the features in its order), then the features, each a
//! size-prefixed table of its geometry and its properties. The index is passed over by its size, computed
//! from the feature count and node size as the specification does; the features are read in file order and
//! numbered from 1 in it, each exactly once. A file without a count (written as a stream) is read to its end.
//!
//! **Every size is bounded by the file.** The header size, the index a declared feature count implies and
//! each feature's size are checked against the bytes left before anything is allocated; a file that
//! declares more than it holds is refused naming the file and what it declares. Inside a feature every
//! offset and length is checked against the feature's bytes ([`table`]): a damaged feature keeps its place
//! and attributes (where they can be read) with a geometry error and a problem.
//!
//! The CRS is the header's: its EPSG code, else its WKT; without either, the CRS assumed with
//! `--assume-crs`. Z and M are ignored. Curves and surfaces are refused, feature by feature, with the export
//! that linearises them.

mod feature;
mod table;

use std::io::{BufReader, Read};
use std::path::Path;

use self::feature::Bad;
use self::table::{u32_at, Table};
use super::{select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Location, Problem, Result};

/// The first bytes of a FlatGeobuf file, version 3 (the last byte, the patch version, may be any).
const MAGIC: &[u8; 7] = b"fgb\x03fgb";
/// The largest header read, the specification's reference readers' bound.
const MAX_HEADER: u64 = 10 << 20;
/// One node of the packed R-tree: a box of four `f64` and an offset.
const NODE: u64 = 40;
const FIX_FILE: &str = "export the layer again (ogr2ogr -f FlatGeobuf)";
const FIX_GEOMETRY: &str = "repair or redraw the geometry, or delete the feature";

/// The FlatGeobuf format, read whole.
pub(super) struct FlatGeobuf;

impl LayerReader for FlatGeobuf {
    fn extensions(&self) -> &'static [&'static str] {
        &["fgb"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        let mut file = open(layer.file)?;
        Ok(Header::read(layer.file, &mut file)?.columns.into_iter().map(|(name, _)| name).collect())
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, options)
    }
}

/// The file at `path` opened: its reader and the bytes left in it.
struct Opened {
    reader: BufReader<std::fs::File>,
    left: u64,
}

fn open(path: &Path) -> Result<Opened> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let left = file.metadata().map_err(|e| Error::io(path, e))?.len();
    Ok(Opened { reader: BufReader::with_capacity(1 << 16, file), left })
}

impl Opened {
    /// The next `n` bytes, which the caller has checked are no more than [`Opened::left`].
    fn take(&mut self, path: &Path, n: u64) -> Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        (&mut self.reader).take(n).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
        if (bytes.len() as u64) < n {
            return Err(ended_sooner(path));
        }
        self.left -= n;
        Ok(bytes)
    }

    /// Passes over the next `n` bytes, which the caller has checked are no more than [`Opened::left`].
    fn skip(&mut self, path: &Path, n: u64) -> Result<()> {
        let skipped = std::io::copy(&mut (&mut self.reader).take(n), &mut std::io::sink());
        if skipped.map_err(|e| Error::io(path, e))? < n {
            return Err(ended_sooner(path));
        }
        self.left -= n;
        Ok(())
    }

    /// A little-endian `u32` size, with the bytes left after it.
    fn size(&mut self, path: &Path) -> Result<u64> {
        Ok(u64::from(u32_at(&self.take(path, 4)?, 0).unwrap_or(0)))
    }
}

/// The error for a file that ends sooner than its size when it was opened said.
fn ended_sooner(path: &Path) -> Error {
    Error::format(
        path,
        "the file ended sooner than its size said: it was cut short while it was read; read it again once \
         nothing is writing it",
    )
}

/// What the header says.
struct Header {
    geometry_type: u8,
    /// Each column's name and type.
    columns: Vec<(String, u8)>,
    /// The number of features, 0 when unknown.
    count: u64,
    /// The R-tree's node size, 0 without an index.
    node_size: u16,
    /// The CRS: organisation and code, and WKT.
    crs: Option<(Option<String>, i32, Option<String>)>,
}

impl Header {
    /// Reads the magic bytes and the header of the file `path`, checking every size against the file.
    fn read(path: &Path, file: &mut Opened) -> Result<Self> {
        let refuse = |message: String| Error::format(path, format!("{message}: {FIX_FILE}"));
        if file.left < 12 {
            return Err(refuse(format!("{} bytes, too short for a FlatGeobuf file", file.left)));
        }
        let magic = file.take(path, 8)?;
        if !magic.starts_with(MAGIC) {
            return Err(refuse(
                "does not start with the FlatGeobuf version 3 magic bytes (fgb\\x03fgb)".into(),
            ));
        }
        let size = file.size(path)?;
        if size > file.left.min(MAX_HEADER) {
            return Err(refuse(format!(
                "its header claims {size} bytes, more than the {} bytes left in the file (or {MAX_HEADER})",
                file.left
            )));
        }
        let bytes = file.take(path, size)?;
        Header::parse(&bytes).map_err(|fault| refuse(format!("its header cannot be read ({fault})")))
    }

    fn parse(bytes: &[u8]) -> std::result::Result<Self, table::Fault> {
        let header = Table::root(bytes)?;
        let columns = header
            .tables(7)?
            .iter()
            .map(|c| Ok((c.string(0)?.unwrap_or_default(), c.u8(1, 0)?)))
            .collect::<std::result::Result<_, table::Fault>>()?;
        let crs = match header.table(10)? {
            Some(crs) => Some((crs.string(0)?, crs.i32(1, 0)?, crs.string(4)?)),
            None => None,
        };
        Ok(Header {
            geometry_type: header.u8(2, 0)?,
            columns,
            count: header.u64(8, 0)?,
            node_size: header.u16(9, 16)?,
            crs,
        })
    }

    /// The CRS the header names, else the assumed one.
    fn crs(&self, path: &Path, options: &ReadOptions) -> Result<Crs> {
        let mut why = "names no CRS".to_string();
        if let Some((org, code, wkt)) = &self.crs {
            let epsg = org.as_deref().is_none_or(|o| o.eq_ignore_ascii_case("EPSG"));
            if epsg && *code > 0 {
                match Crs::parse_from(path, &format!("EPSG:{code}")) {
                    Ok(crs) => return Ok(crs),
                    Err(e) => why = e.to_string(),
                }
            }
            if let Some(wkt) = wkt.as_deref().filter(|w| !w.trim().is_empty()) {
                match Crs::parse_from(path, wkt) {
                    Ok(crs) => return Ok(crs),
                    Err(e) => why = e.to_string(),
                }
            }
        }
        options.assume_crs.clone().ok_or_else(|| {
            Error::crs(
                path,
                format!("the header {why}: export the layer with its CRS, or pass --assume-crs EPSG:nnnn"),
            )
        })
    }
}

/// The size in bytes of a packed Hilbert R-tree of `count` items and nodes of `node_size`, as the
/// specification computes it; `None` when it overflows.
fn index_size(count: u64, node_size: u16) -> Option<u64> {
    let node_size = u64::from(node_size.max(2));
    let mut n = count;
    let mut nodes = n;
    loop {
        n = n.div_ceil(node_size);
        nodes = nodes.checked_add(n)?;
        if n <= 1 {
            break;
        }
    }
    nodes.checked_mul(NODE)
}

/// Reads the FlatGeobuf file at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let mut file = open(path)?;
    let header = Header::read(path, &mut file)?;
    let crs = header.crs(path, options)?;
    let names: Vec<String> = header.columns.iter().map(|(name, _)| name.clone()).collect();
    let types: Vec<u8> = header.columns.iter().map(|&(_, kind)| kind).collect();
    let kept = select_fields(path, &names, options.keep.as_deref())?;
    let fields = kept.iter().map(|&i| names[i].clone()).collect();
    // Every feature takes at least its 4-byte size and an index node.
    let per_feature = 4 + if header.node_size > 0 { NODE } else { 0 };
    if header.count > file.left / per_feature {
        return Err(Error::format(
            path,
            format!(
                "its header declares {} features but the {} bytes left in the file hold at most {}: it is \
                 cut short or damaged; {FIX_FILE}",
                header.count,
                file.left,
                file.left / per_feature
            ),
        ));
    }
    if header.node_size > 0 && header.count > 0 {
        let size = index_size(header.count, header.node_size).unwrap_or(u64::MAX);
        if size > file.left {
            return Err(Error::format(
                path,
                format!(
                    "its spatial index takes {size} bytes, more than the {} left in the file: {FIX_FILE}",
                    file.left
                ),
            ));
        }
        file.skip(path, size)?;
    }
    // Room for the declared features, up to a bound: a count is checked only against the bytes left, and a
    // feature takes more memory than its 4 bytes.
    let mut features = Vec::with_capacity(usize::try_from(header.count.min(1 << 16)).unwrap_or(0));
    let mut problems = Vec::new();
    let mut record = 0;
    while (header.count == 0 && file.left > 0) || (record as u64) < header.count {
        record += 1;
        if file.left < 4 {
            return Err(cut_short(path, record, header.count));
        }
        let size = file.size(path)?;
        if size > file.left {
            return Err(Error::format(
                path,
                format!(
                    "feature {record} claims {size} bytes but {} are left in the file: it is cut short or \
                     damaged; {FIX_FILE}",
                    file.left
                ),
            ));
        }
        let bytes = file.take(path, size)?;
        let (geometry, values) = one_feature(&bytes, &header, &types);
        let values = match values {
            Ok(values) => kept.iter().map(|&i| values.get(i).cloned().unwrap_or(Value::Null)).collect(),
            Err(fault) => {
                let message =
                    format!("its attributes cannot be read ({fault}), so they are read as empty: {FIX_FILE}");
                problems.push(Problem::new(path, Location::Record(record), message));
                vec![Value::Null; kept.len()]
            }
        };
        let geometry = super::settle(geometry, path, record, &mut problems);
        features.push(Feature { record, fid: None, geometry, values });
    }
    if file.left > 0 {
        // A count lowered by damage would otherwise leave features unread.
        return Err(Error::format(
            path,
            format!(
                "holds {} bytes after the {} features its header declares: the count or a feature's size is \
                 damaged; {FIX_FILE}",
                file.left, header.count
            ),
        ));
    }
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

/// The error for a file that ends before feature `record` of the `count` it declares.
fn cut_short(path: &Path, record: usize, count: u64) -> Error {
    Error::format(
        path,
        format!(
            "ends before feature {record} of the {count} its header declares: it is cut short; {FIX_FILE}"
        ),
    )
}

/// The geometry and the values of every column of the feature in `bytes`.
fn one_feature(
    bytes: &[u8],
    header: &Header,
    types: &[u8],
) -> (std::result::Result<geo::Geometry<f64>, Unusable>, std::result::Result<Vec<Value>, table::Fault>) {
    let damaged = |fault: table::Fault| Unusable::new(GeometryError::UnreadableShape(fault), FIX_GEOMETRY);
    let table = match Table::root(bytes) {
        Ok(table) => table,
        Err(fault) => return (Err(damaged(fault.clone())), Err(fault)),
    };
    let geometry = match table.table(0) {
        Ok(None) => Err(Unusable::new(GeometryError::NullRow, FIX_GEOMETRY)),
        Ok(Some(g)) => feature::geometry(&g, header.geometry_type, 0).map_err(|bad| match bad {
            Bad::Damaged(fault) => damaged(fault),
            Bad::Type(code) => Unusable::new(
                GeometryError::UnreadableShape(format!("geometry type {code}, a curve or surface")),
                "export the layer with curves linearised (ogr2ogr -nlt CONVERT_TO_LINEAR)",
            ),
        }),
        Err(fault) => Err(damaged(fault)),
    };
    let values = table.bytes(1).and_then(|p| feature::properties(p.unwrap_or_default(), types));
    (geometry, values)
}

#[cfg(test)]
mod tests;
