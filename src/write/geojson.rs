//! GeoJSON output: an RFC 7946 FeatureCollection in WGS 84, polygons wound by the right-hand rule,
//! coordinates to 7 decimals (about 1 cm), one feature per table row with the row's cells as properties.

use std::fmt::Write as _;
use std::path::Path;

use crate::crs::Reprojector;
use crate::model::error::Result;
use crate::model::table::{Cell, Kind, Table};
use crate::write::by_place::{LineFormat, TextByPlace};
use crate::write::sink::write_whole;
use geo::orient::{Direction, Orient};
use geo::{Geometry, MultiPolygon};

fn push_ring(out: &mut String, ring: &geo::LineString<f64>) {
    out.push('[');
    for (i, c) in ring.0.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "[{:.7},{:.7}]", c.x, c.y);
    }
    out.push(']');
}

/// The `geometry` member for a multipolygon already in WGS 84.
fn push_multipolygon(out: &mut String, shape: &MultiPolygon<f64>) {
    let shape = shape.orient(Direction::Default);
    out.push_str(r#"{"type":"MultiPolygon","coordinates":["#);
    for (i, polygon) in shape.0.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        push_ring(out, polygon.exterior());
        for hole in polygon.interiors() {
            out.push(',');
            push_ring(out, hole);
        }
        out.push(']');
    }
    out.push_str("]}");
}

/// `[a,b,...]`: each of `items` written by `push`, comma-separated.
fn push_list<T>(out: &mut String, items: &[T], mut push: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push(out, item);
    }
    out.push(']');
}

/// `[x,y]` of one position.
fn push_position(out: &mut String, c: geo::Coord<f64>) {
    let _ = write!(out, "[{:.7},{:.7}]", c.x, c.y);
}

/// The `geometry` member for any geometry already in WGS 84 (`null` for kinds GeoJSON output does not use).
fn push_geometry(out: &mut String, geometry: &Geometry<f64>) {
    match geometry {
        Geometry::MultiPolygon(mp) => push_multipolygon(out, mp),
        Geometry::Polygon(p) => push_multipolygon(out, &MultiPolygon(vec![p.clone()])),
        Geometry::Point(p) => {
            out.push_str(r#"{"type":"Point","coordinates":"#);
            push_position(out, p.0);
            out.push('}');
        }
        Geometry::MultiPoint(mp) => {
            out.push_str(r#"{"type":"MultiPoint","coordinates":"#);
            push_list(out, &mp.0, |out, p| push_position(out, p.0));
            out.push('}');
        }
        Geometry::LineString(l) => {
            out.push_str(r#"{"type":"LineString","coordinates":"#);
            push_ring(out, l);
            out.push('}');
        }
        Geometry::MultiLineString(ml) => {
            out.push_str(r#"{"type":"MultiLineString","coordinates":"#);
            push_list(out, &ml.0, push_ring);
            out.push('}');
        }
        _ => out.push_str("null"),
    }
}

fn push_value(out: &mut String, cell: &Cell<'_>) {
    match cell {
        Cell::Null => out.push_str("null"),
        Cell::Int(_) | Cell::Bool(_) => out.push_str(&cell.render()),
        Cell::Float(f, _) if f.is_finite() => out.push_str(&cell.render()),
        Cell::Float(..) => out.push_str("null"),
        Cell::Text(_) | Cell::Date(_) => {
            out.push_str(&serde_json::to_string(&cell.render()).unwrap_or_else(|_| "null".into()))
        }
    }
}

/// A GeoJSON feature per row, with the `,` and line break that separate it from the one before.
pub(crate) struct FeatureLines {
    /// The column names, as JSON strings.
    names: Vec<String>,
    to_wgs84: Reprojector,
}

/// The separator before every feature but the first.
const SEPARATOR: &str = ",\n";

impl FeatureLines {
    /// Appends row `row` of `table` as a feature, the separator before it.
    pub(super) fn push_line<T: Table + ?Sized>(&self, out: &mut String, table: &T, row: usize) {
        out.push_str(SEPARATOR);
        out.push_str(r#"{"type":"Feature","geometry":"#);
        let shape = match table.geometry(row) {
            Some(mp) => Some(Geometry::MultiPolygon(mp.clone())),
            None => table.other_geometry(row),
        };
        match shape.and_then(|g| self.to_wgs84.transform(&g).ok()) {
            Some(g) => push_geometry(out, &g),
            None => out.push_str("null"),
        }
        out.push_str(r#","properties":{"#);
        for (col, name) in self.names.iter().enumerate() {
            if col > 0 {
                out.push(',');
            }
            out.push_str(name);
            out.push(':');
            push_value(out, &table.cell(row, col));
        }
        out.push_str("}}");
    }
}

impl TextByPlace {
    /// A GeoJSON file at `path` of `places` places with `columns` as properties, started under its temporary
    /// name; `to_wgs84` transforms row geometries from the working CRS. A row whose geometry is missing or
    /// cannot be transformed is written with `"geometry": null`, never left out.
    pub fn geojson(
        path: &Path,
        columns: &[(&'static str, Kind)],
        places: usize,
        to_wgs84: Reprojector,
    ) -> Result<Self> {
        let names = columns.iter().map(|(n, _)| serde_json::to_string(n).unwrap_or_default()).collect();
        TextByPlace::create(
            path,
            b"{\"type\":\"FeatureCollection\",\"features\":[\n",
            LineFormat::GeoJson(Box::new(FeatureLines { names, to_wgs84 })),
            SEPARATOR.len(),
            b"\n]}\n",
            places,
        )
    }
}

/// Writes `table` to `path` as GeoJSON ([`TextByPlace::geojson`]).
pub fn write_geojson(path: &Path, table: &dyn Table, to_wgs84: Reprojector) -> Result<()> {
    let file = TextByPlace::geojson(path, table.columns(), table.len(), to_wgs84)?;
    write_whole(Box::new(file), table)?.commit()
}

#[cfg(test)]
mod tests {
    use geo::{line_string, point, MultiLineString, MultiPoint};

    use super::*;

    /// RFC 7946 §3.1: points, lines and their multi forms, positions to 7 decimals.
    #[test]
    fn point_and_line_geometries_are_written_as_rfc_7946() {
        let write = |g: Geometry<f64>| {
            let mut out = String::new();
            push_geometry(&mut out, &g);
            out
        };
        assert_eq!(
            write(point!(x: -76.5, y: 42.9).into()),
            r#"{"type":"Point","coordinates":[-76.5000000,42.9000000]}"#
        );
        let points = MultiPoint(vec![point!(x: 1.0, y: 2.0), point!(x: 3.0, y: 4.0)]);
        assert_eq!(
            write(points.into()),
            r#"{"type":"MultiPoint","coordinates":[[1.0000000,2.0000000],[3.0000000,4.0000000]]}"#
        );
        let lines = MultiLineString(vec![
            line_string![(x: 0.0, y: 0.0), (x: 1.0, y: 1.0)],
            line_string![(x: 2.0, y: 2.0), (x: 3.0, y: 2.5)],
        ]);
        assert_eq!(
            write(lines.into()),
            r#"{"type":"MultiLineString","coordinates":[[[0.0000000,0.0000000],[1.0000000,1.0000000]],[[2.0000000,2.0000000],[3.0000000,2.5000000]]]}"#
        );
    }
}
