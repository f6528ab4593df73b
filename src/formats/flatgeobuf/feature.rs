//! One FlatGeobuf feature: its geometry (the flat `xy` array cut by `ends`, or `parts` for multi-part
//! geometries) and its properties (each a column index and a value encoded by the column's type).

use geo::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon, Point,
    Polygon,
};

use super::table::{Fault, Table};
use crate::crs::layer::Value;

/// The geometry types of the specification, by their codes.
pub(super) mod kind {
    pub const UNKNOWN: u8 = 0;
    pub const POINT: u8 = 1;
    pub const LINE_STRING: u8 = 2;
    pub const POLYGON: u8 = 3;
    pub const MULTI_POINT: u8 = 4;
    pub const MULTI_LINE_STRING: u8 = 5;
    pub const MULTI_POLYGON: u8 = 6;
    pub const GEOMETRY_COLLECTION: u8 = 7;
}

/// Geometries nested deeper than this (collections of collections) are refused.
const MAX_NESTING: usize = 4;

/// Why a geometry cannot be read: it is a curve or a surface lakeshore does not take, or it is damaged.
pub(super) enum Bad {
    /// A type this reader does not take (curves, surfaces), by its code.
    Type(u8),
    /// A damaged geometry.
    Damaged(Fault),
}

impl From<Fault> for Bad {
    fn from(fault: Fault) -> Self {
        Bad::Damaged(fault)
    }
}

/// The geometry table `geometry` of type `code` (the header's, or its own when the header's is unknown),
/// nested `depth` deep in a collection.
pub(super) fn geometry(geometry: &Table<'_>, code: u8, depth: usize) -> Result<Geometry<f64>, Bad> {
    if depth > MAX_NESTING {
        return Err(Bad::Damaged(format!("geometries nested more than {MAX_NESTING} deep")));
    }
    let code = if code == kind::UNKNOWN { geometry.u8(6, kind::UNKNOWN)? } else { code };
    let parts = || -> Result<Vec<Table<'_>>, Bad> { Ok(geometry.tables(7)?) };
    Ok(match code {
        kind::POINT => {
            let xy = geometry.f64s(1)?;
            match xy.as_slice() {
                // An empty point, told as an empty geometry by the checks every reader shares.
                [] => MultiPoint(Vec::new()).into(),
                [x, y, ..] => Point::new(*x, *y).into(),
                [_] => return Err(Bad::Damaged("a point with one coordinate".into())),
            }
        }
        kind::LINE_STRING => LineString(coords(&geometry.f64s(1)?)).into(),
        kind::MULTI_POINT => MultiPoint(coords(&geometry.f64s(1)?).into_iter().map(Point).collect()).into(),
        kind::POLYGON => polygon(geometry)?.into(),
        kind::MULTI_LINE_STRING => {
            MultiLineString(rings(geometry)?.into_iter().map(LineString).collect()).into()
        }
        kind::MULTI_POLYGON => {
            let polygons = parts()?.iter().map(polygon).collect::<Result<Vec<_>, _>>()?;
            MultiPolygon(polygons).into()
        }
        kind::GEOMETRY_COLLECTION => {
            let parts = parts()?;
            let members = parts.iter().map(|part| self::geometry(part, kind::UNKNOWN, depth + 1));
            Geometry::GeometryCollection(GeometryCollection(members.collect::<Result<Vec<_>, _>>()?))
        }
        other => return Err(Bad::Type(other)),
    })
}

/// A polygon: its first ring the exterior, the others holes.
fn polygon(geometry: &Table<'_>) -> Result<Polygon<f64>, Bad> {
    let mut rings = rings(geometry)?.into_iter().map(LineString);
    let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
    Ok(Polygon::new(exterior, rings.collect()))
}

/// The `xy` array cut into rings or lines at `ends` (counts of coordinate pairs, rising); without `ends`, one.
fn rings(geometry: &Table<'_>) -> Result<Vec<Vec<Coord<f64>>>, Bad> {
    let xy = coords(&geometry.f64s(1)?);
    let ends = geometry.u32s(0)?;
    if ends.is_empty() {
        return Ok(if xy.is_empty() { Vec::new() } else { vec![xy] });
    }
    let mut out = Vec::with_capacity(ends.len());
    let mut start = 0;
    for &end in &ends {
        let end = end as usize;
        if end < start || end > xy.len() {
            return Err(Bad::Damaged(format!(
                "a ring or part ends at point {end}, outside the {} points after the one before",
                xy.len()
            )));
        }
        out.push(xy[start..end].to_vec());
        start = end;
    }
    Ok(out)
}

/// Pairs of a flat `x, y, x, y, …` array.
fn coords(xy: &[f64]) -> Vec<Coord<f64>> {
    xy.chunks_exact(2).map(|c| Coord { x: c[0], y: c[1] }).collect()
}

/// The column types of the specification, by their codes.
mod column {
    pub const BYTE: u8 = 0;
    pub const UBYTE: u8 = 1;
    pub const BOOL: u8 = 2;
    pub const SHORT: u8 = 3;
    pub const USHORT: u8 = 4;
    pub const INT: u8 = 5;
    pub const UINT: u8 = 6;
    pub const LONG: u8 = 7;
    pub const ULONG: u8 = 8;
    pub const FLOAT: u8 = 9;
    pub const DOUBLE: u8 = 10;
    pub const STRING: u8 = 11;
    pub const JSON: u8 = 12;
    pub const DATE_TIME: u8 = 13;
    pub const BINARY: u8 = 14;
}

/// The values of a feature's `properties` bytes, one per column of `types` (null where absent), or what is
/// wrong with them.
pub(super) fn properties(bytes: &[u8], types: &[u8]) -> Result<Vec<Value>, Fault> {
    let mut values = vec![Value::Null; types.len()];
    let mut at = 0;
    let take = |at: &mut usize, n: usize| -> Result<&[u8], Fault> {
        let got = at.checked_add(n).and_then(|end| bytes.get(*at..end)).ok_or_else(|| {
            format!(
                "its properties end after {} bytes where {} are needed",
                bytes.len(),
                at.saturating_add(n)
            )
        })?;
        *at += n;
        Ok(got)
    };
    while at < bytes.len() {
        let index = usize::from(u16::from_le_bytes(take(&mut at, 2)?.try_into().unwrap_or_default()));
        let Some(&kind) = types.get(index) else {
            return Err(format!("its properties name column {index} of {}", types.len()));
        };
        let fixed = |at: &mut usize, n: usize| -> Result<[u8; 8], Fault> {
            let mut raw = [0u8; 8];
            raw[..n].copy_from_slice(take(at, n)?);
            Ok(raw)
        };
        values[index] = match kind {
            column::BOOL => Value::Bool(fixed(&mut at, 1)?[0] != 0),
            column::BYTE => Value::Number(f64::from(fixed(&mut at, 1)?[0] as i8)),
            column::UBYTE => Value::Number(f64::from(fixed(&mut at, 1)?[0])),
            column::SHORT => Value::Number(f64::from(i16::from_le_bytes(
                fixed(&mut at, 2)?[..2].try_into().unwrap_or_default(),
            ))),
            column::USHORT => Value::Number(f64::from(u16::from_le_bytes(
                fixed(&mut at, 2)?[..2].try_into().unwrap_or_default(),
            ))),
            column::INT => Value::Number(f64::from(i32::from_le_bytes(
                fixed(&mut at, 4)?[..4].try_into().unwrap_or_default(),
            ))),
            column::UINT => Value::Number(f64::from(u32::from_le_bytes(
                fixed(&mut at, 4)?[..4].try_into().unwrap_or_default(),
            ))),
            column::FLOAT => {
                number(f64::from(f32::from_le_bytes(fixed(&mut at, 4)?[..4].try_into().unwrap_or_default())))
            }
            column::LONG => Value::Number(i64::from_le_bytes(fixed(&mut at, 8)?) as f64),
            column::ULONG => Value::Number(u64::from_le_bytes(fixed(&mut at, 8)?) as f64),
            column::DOUBLE => number(f64::from_le_bytes(fixed(&mut at, 8)?)),
            column::STRING | column::JSON | column::DATE_TIME | column::BINARY => {
                let len = u32::from_le_bytes(take(&mut at, 4)?.try_into().unwrap_or_default()) as usize;
                let text = take(&mut at, len)?;
                match kind {
                    column::BINARY => Value::Null,
                    _ => match String::from_utf8_lossy(text).trim() {
                        "" => Value::Null,
                        text => Value::Text(text.into()),
                    },
                }
            }
            other => return Err(format!("column {index} is of unknown type {other}")),
        };
    }
    Ok(values)
}

/// A number, null when it is not finite.
fn number(n: f64) -> Value {
    if n.is_finite() {
        Value::Number(n)
    } else {
        Value::Null
    }
}
