//! GeoParquet's native encodings (GeoArrow): a geometry column of nested lists of coordinates instead of WKB,
//! as GeoPandas writes with `geometry_encoding="geoarrow"` and GDAL with `GEOMETRY_ENCODING=GEOARROW`.
//!
//! A coordinate is a struct of `x`, `y` (and `z`, `m`, ignored), the separated layout, or a fixed-size list
//! of 2 to 4 numbers, the interleaved one. `point` is a coordinate; `linestring` and `multipoint` a list of
//! them; `polygon` (rings, the first the exterior) and `multilinestring` a list of lists; `multipolygon` a
//! list of polygons. The column is read whole by polars and walked by its offsets, each checked before it is
//! used, so a damaged column makes a row unusable, never a panic.

use std::ops::Range;

use geo::{Coord, Geometry, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon};
use polars::prelude::*;

/// The GeoArrow encodings, by their names in the `geo` metadata.
pub(super) const ENCODINGS: [&str; 6] =
    ["point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon"];

/// Each row's geometry: `None` for a null row, the reason for a damaged one.
pub(super) type Rows = Vec<Option<Result<Geometry<f64>, String>>>;

/// One level of the column: the coordinates, or lists of the level below by their offsets.
enum Level {
    Coords(Vec<Coord<f64>>),
    Lists(Vec<i64>, Box<Level>),
}

/// Each row's geometry of the column `column` of encoding `encoding`, or why the column cannot be read at
/// all.
pub(super) fn geometries(column: &Series, encoding: &str) -> Result<Rows, String> {
    let depth = match encoding {
        "point" => 0,
        "linestring" | "multipoint" => 1,
        "polygon" | "multilinestring" => 2,
        "multipolygon" => 3,
        other => return Err(format!("the GeoArrow encoding '{other}' is not one lakeshore reads")),
    };
    let level = level(column)?;
    let nulls: Vec<bool> = column.is_null().iter().map(|n| n.unwrap_or(false)).collect();
    let rows = (0..column.len()).map(|row| {
        if nulls[row] {
            return None;
        }
        Some(match (encoding, &level) {
            ("point", Level::Coords(coords)) => coords.get(row).map(|&c| Point(c).into()).ok_or_else(short),
            (_, Level::Lists(offsets, inner)) => {
                let range = span(offsets, row);
                range.and_then(|range| shape(encoding, inner, range))
            }
            _ => Err(format!("a {encoding} column nested {depth} deep is not laid out as GeoArrow")),
        })
    });
    Ok(rows.collect())
}

fn short() -> String {
    "the column holds fewer coordinates than rows".into()
}

/// The geometry of `encoding` made of the items `range` of `level` (the level under the row's list).
fn shape(encoding: &str, level: &Level, range: Range<usize>) -> Result<Geometry<f64>, String> {
    Ok(match encoding {
        "linestring" => LineString(coords(level, range)?).into(),
        "multipoint" => MultiPoint(coords(level, range)?.into_iter().map(Point).collect()).into(),
        "polygon" => polygon(level, range)?.into(),
        "multilinestring" => {
            MultiLineString(lists(level, range)?.into_iter().map(LineString).collect()).into()
        }
        "multipolygon" => {
            let Level::Lists(offsets, rings) = level else { return Err(layout(encoding)) };
            let polygons = range.map(|i| polygon(rings, span(offsets, i)?)).collect::<Result<Vec<_>, _>>()?;
            MultiPolygon(polygons).into()
        }
        _ => return Err(layout(encoding)),
    })
}

fn layout(encoding: &str) -> String {
    format!("the {encoding} column is not laid out as GeoArrow")
}

/// A polygon of the rings `range` of `level`: the first the exterior.
fn polygon(level: &Level, range: Range<usize>) -> Result<Polygon<f64>, String> {
    let mut rings = lists(level, range)?.into_iter().map(LineString);
    let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
    Ok(Polygon::new(exterior, rings.collect()))
}

/// The lists of coordinates `range` of `level`.
fn lists(level: &Level, range: Range<usize>) -> Result<Vec<Vec<Coord<f64>>>, String> {
    let Level::Lists(offsets, inner) = level else { return Err("a list of coordinates was expected".into()) };
    range.map(|i| coords(inner, span(offsets, i)?)).collect()
}

/// The coordinates `range` of `level`.
fn coords(level: &Level, range: Range<usize>) -> Result<Vec<Coord<f64>>, String> {
    let Level::Coords(coords) = level else { return Err("coordinates were expected".into()) };
    coords.get(range).map(<[_]>::to_vec).ok_or_else(short)
}

/// The items of list `i` by `offsets`, checked to rise.
fn span(offsets: &[i64], i: usize) -> Result<Range<usize>, String> {
    let at = |k: usize| offsets.get(k).and_then(|&o| usize::try_from(o).ok());
    match (at(i), at(i + 1)) {
        (Some(start), Some(end)) if start <= end => Ok(start..end),
        _ => Err(format!("list {i} has offsets outside the column")),
    }
}

/// The level of the column `series`: lists down to coordinates.
fn level(series: &Series) -> Result<Level, String> {
    let fail = |e: PolarsError| e.to_string();
    match series.dtype() {
        DataType::List(_) => {
            let list = series.list().map_err(fail)?.rechunk();
            let offsets = match list.downcast_iter().next() {
                Some(array) => array.offsets().as_slice().to_vec(),
                None => vec![0],
            };
            Ok(Level::Lists(offsets, Box::new(level(&list.get_inner())?)))
        }
        DataType::Struct(_) => {
            let fields = series.struct_().map_err(fail)?.fields_as_series();
            let axis = |name: &str, k: usize| {
                let field = fields.iter().find(|f| f.name().as_str() == name).or(fields.get(k));
                field.ok_or_else(|| format!("the coordinates have no {name}")).and_then(numbers)
            };
            let (x, y) = (axis("x", 0)?, axis("y", 1)?);
            Ok(Level::Coords(x.into_iter().zip(y).map(|(x, y)| Coord { x, y }).collect()))
        }
        DataType::Array(_, width) if (2..=4).contains(width) => {
            let values = numbers(&series.array().map_err(fail)?.get_inner())?;
            Ok(Level::Coords(values.chunks_exact(*width).map(|c| Coord { x: c[0], y: c[1] }).collect()))
        }
        other => Err(format!("a geometry column of type {other} is not GeoArrow")),
    }
}

/// A column of numbers as `f64`, a null as NaN (which the geometry checks then refuse).
fn numbers(series: &Series) -> Result<Vec<f64>, String> {
    let cast = series.cast(&DataType::Float64).map_err(|e| e.to_string())?;
    let values = cast.f64().map_err(|e| e.to_string())?;
    Ok(values.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::Area;

    fn square(x: f64, side: f64) -> Vec<Coord<f64>> {
        [(x, 0.), (x + side, 0.), (x + side, side), (x, side), (x, 0.)].map(|(x, y)| Coord { x, y }).to_vec()
    }

    /// Two rows of multipolygons laid out as GeoArrow lays them: row 0 a square of 4 with a hole of 1 and a
    /// square of 1; row 1 a square of 9. Offsets by hand: rows to polygons [0, 2, 3], polygons to rings
    /// [0, 2, 3, 4], rings to coordinates five a ring.
    fn multipolygons() -> Level {
        let hole: Vec<Coord<f64>> = square(1.0, 1.0).into_iter().rev().collect();
        let coords = [square(0., 2.), hole, square(10., 1.), square(20., 3.)].concat();
        let rings = Level::Lists(vec![0, 5, 10, 15, 20], Box::new(Level::Coords(coords)));
        let polygons = Level::Lists(vec![0, 2, 3, 4], Box::new(rings));
        Level::Lists(vec![0, 2, 3], Box::new(polygons))
    }

    #[test]
    fn multipolygons_follow_their_offsets() {
        let Level::Lists(offsets, polygons) = multipolygons() else { unreachable!() };
        let areas = |row| {
            let Geometry::MultiPolygon(mp) =
                shape("multipolygon", &polygons, span(&offsets, row).unwrap()).unwrap()
            else {
                panic!()
            };
            mp.0.iter().map(|p| p.unsigned_area()).collect::<Vec<_>>()
        };
        assert_eq!(areas(0), [3.0, 1.0]);
        assert_eq!(areas(1), [9.0]);
    }

    #[test]
    fn offsets_outside_the_column_are_errors_not_panics() {
        assert!(span(&[0, 5, 3], 1).unwrap_err().contains("list 1"));
        assert!(span(&[0, 5], 1).is_err());
        assert!(span(&[-1, 5], 0).is_err());
        let level = Level::Lists(vec![0, 99], Box::new(Level::Coords(square(0., 1.))));
        let Level::Lists(_, inner) = &level else { unreachable!() };
        assert_eq!(shape("linestring", inner, 0..99).unwrap_err(), short());
        assert!(shape("multipolygon", &Level::Coords(Vec::new()), 0..1).is_err());
    }
}
