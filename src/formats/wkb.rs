//! Well-known binary (ISO WKB), written by the GeoParquet and GeoPackage writers and read by their readers.
//!
//! Writing: little-endian, 2D, polygons wound as OGC and GeoParquet ask (exteriors counterclockwise, holes
//! clockwise). Reading: either byte order per geometry, ISO (`1001`, `2001`, `3001`) and EWKB (high flag bits)
//! Z/M variants with the extra ordinates dropped, and every count checked against the bytes left, so a
//! damaged blob is an error, never a panic or a huge allocation.

use geo::winding_order::{Winding, WindingOrder};
use geo::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon, Point,
    Polygon,
};

fn push_u32(out: &mut Vec<u8>, n: usize) {
    // A count past u32 (four billion rings or vertices in one parcel) cannot occur in a county layer.
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

fn push_header(out: &mut Vec<u8>, kind: u32) {
    out.push(1);
    out.extend_from_slice(&kind.to_le_bytes());
}

fn push_coord(out: &mut Vec<u8>, c: Coord<f64>) {
    out.extend_from_slice(&c.x.to_le_bytes());
    out.extend_from_slice(&c.y.to_le_bytes());
}

/// Appends a ring's point count and points, reversed when its winding is not the one asked for. geo closes
/// every ring of a polygon, so the ring is written as it is.
fn push_ring(out: &mut Vec<u8>, ring: &LineString<f64>, want: WindingOrder) {
    push_u32(out, ring.0.len());
    if ring.winding_order().is_some_and(|w| w != want) {
        ring.0.iter().rev().for_each(|c| push_coord(out, *c));
    } else {
        ring.0.iter().for_each(|c| push_coord(out, *c));
    }
}

fn push_polygon(out: &mut Vec<u8>, polygon: &Polygon<f64>) {
    push_header(out, 3);
    push_u32(out, 1 + polygon.interiors().len());
    push_ring(out, polygon.exterior(), WindingOrder::CounterClockwise);
    for hole in polygon.interiors() {
        push_ring(out, hole, WindingOrder::Clockwise);
    }
}

/// Appends the ISO WKB of `shape`: byte order 1 (little-endian), type 6 (`MultiPolygon`) of type 3
/// (`Polygon`) parts, exteriors counterclockwise and holes clockwise.
pub fn push_multipolygon(out: &mut Vec<u8>, shape: &MultiPolygon<f64>) {
    push_header(out, 6);
    push_u32(out, shape.0.len());
    shape.0.iter().for_each(|p| push_polygon(out, p));
}

fn push_line(out: &mut Vec<u8>, line: &LineString<f64>) {
    push_header(out, 2);
    push_u32(out, line.0.len());
    line.0.iter().for_each(|c| push_coord(out, *c));
}

/// Appends the ISO WKB of `geometry`, returning its simple-features type name (`Point`, `MultiPolygon`, ...),
/// or `None`, writing nothing, for the kinds WKB has no type for (`Line`, `Rect`, `Triangle`).
pub fn push_geometry(out: &mut Vec<u8>, geometry: &Geometry<f64>) -> Option<&'static str> {
    match geometry {
        Geometry::Point(p) => {
            push_header(out, 1);
            push_coord(out, p.0);
            Some("Point")
        }
        Geometry::LineString(l) => {
            push_line(out, l);
            Some("LineString")
        }
        Geometry::Polygon(p) => {
            push_polygon(out, p);
            Some("Polygon")
        }
        Geometry::MultiPoint(mp) => {
            push_header(out, 4);
            push_u32(out, mp.0.len());
            for p in &mp.0 {
                push_header(out, 1);
                push_coord(out, p.0);
            }
            Some("MultiPoint")
        }
        Geometry::MultiLineString(ml) => {
            push_header(out, 5);
            push_u32(out, ml.0.len());
            ml.0.iter().for_each(|l| push_line(out, l));
            Some("MultiLineString")
        }
        Geometry::MultiPolygon(mp) => {
            push_multipolygon(out, mp);
            Some("MultiPolygon")
        }
        Geometry::GeometryCollection(gc) => {
            let mut parts = Vec::new();
            let written = gc.0.iter().filter(|g| push_geometry(&mut parts, g).is_some()).count();
            push_header(out, 7);
            push_u32(out, written);
            out.extend_from_slice(&parts);
            Some("GeometryCollection")
        }
        Geometry::Line(_) | Geometry::Rect(_) | Geometry::Triangle(_) => None,
    }
}

/// Nesting deeper than this (collections of collections) is taken as damage rather than followed.
const MAX_DEPTH: usize = 32;

/// A cursor over WKB bytes that checks every read against the bytes left.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| {
            format!("WKB ends early: {n} more bytes needed at byte {} of {}", self.at, self.bytes.len())
        })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self, little: bool) -> Result<u32, String> {
        let b: [u8; 4] = self.take(4)?.try_into().map_err(|_| "WKB ends early".to_string())?;
        Ok(if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    }

    fn f64(&mut self, little: bool) -> Result<f64, String> {
        let b: [u8; 8] = self.take(8)?.try_into().map_err(|_| "WKB ends early".to_string())?;
        Ok(if little { f64::from_le_bytes(b) } else { f64::from_be_bytes(b) })
    }

    /// A count of items at least `min_size` bytes each, checked against the bytes left.
    fn count(&mut self, little: bool, min_size: usize) -> Result<usize, String> {
        let n = self.u32(little)? as usize;
        let left = self.bytes.len() - self.at;
        if n.saturating_mul(min_size) > left {
            return Err(format!(
                "WKB count {n} at byte {} is more than the {left} bytes left hold",
                self.at - 4
            ));
        }
        Ok(n)
    }
}

/// The dimensions of a geometry: how many ordinates each point has (2 to 4).
struct Header {
    little: bool,
    kind: u32,
    ordinates: usize,
}

fn header(r: &mut Reader<'_>) -> Result<Header, String> {
    let little = match r.take(1)?[0] {
        0 => false,
        1 => true,
        other => return Err(format!("WKB byte order {other} at byte {} is neither 0 nor 1", r.at - 1)),
    };
    let raw = r.u32(little)?;
    // EWKB: flags in the high bits, SRID after the type.
    let (z, m, srid) = (raw & 0x8000_0000 != 0, raw & 0x4000_0000 != 0, raw & 0x2000_0000 != 0);
    if srid {
        r.u32(little)?;
    }
    let iso = raw & 0x0FFF_FFFF;
    let (kind, iso_z, iso_m) = match iso / 1000 {
        0 => (iso, false, false),
        1 => (iso % 1000, true, false),
        2 => (iso % 1000, false, true),
        3 => (iso % 1000, true, true),
        _ => return Err(format!("WKB geometry type {raw} is not one lakeshore reads")),
    };
    let ordinates = 2 + usize::from(z || iso_z) + usize::from(m || iso_m);
    Ok(Header { little, kind, ordinates })
}

fn coord(r: &mut Reader<'_>, h: &Header) -> Result<Coord<f64>, String> {
    let x = r.f64(h.little)?;
    let y = r.f64(h.little)?;
    for _ in 2..h.ordinates {
        r.f64(h.little)?;
    }
    Ok(Coord { x, y })
}

fn line(r: &mut Reader<'_>, h: &Header) -> Result<LineString<f64>, String> {
    let n = r.count(h.little, 8 * h.ordinates)?;
    (0..n).map(|_| coord(r, h)).collect::<Result<Vec<_>, _>>().map(LineString)
}

fn polygon(r: &mut Reader<'_>, h: &Header) -> Result<Polygon<f64>, String> {
    let n = r.count(h.little, 4)?;
    let mut rings = (0..n).map(|_| line(r, h)).collect::<Result<Vec<_>, _>>()?;
    if rings.is_empty() {
        return Ok(Polygon::new(LineString(Vec::new()), Vec::new()));
    }
    let exterior = rings.remove(0);
    Ok(Polygon::new(exterior, rings))
}

/// The parts of a multi geometry, each a whole WKB geometry of kind `part`.
fn parts<T>(
    r: &mut Reader<'_>,
    h: &Header,
    part: u32,
    depth: usize,
    pick: impl Fn(Geometry<f64>) -> Option<T>,
) -> Result<Vec<T>, String> {
    let n = r.count(h.little, 5)?;
    (0..n)
        .map(|_| {
            let g = geometry(r, depth + 1)?;
            pick(g).ok_or_else(|| format!("WKB multi-geometry part is not of type {part}"))
        })
        .collect()
}

fn geometry(r: &mut Reader<'_>, depth: usize) -> Result<Geometry<f64>, String> {
    if depth > MAX_DEPTH {
        return Err("WKB geometry collections nested too deep".into());
    }
    let h = header(r)?;
    Ok(match h.kind {
        1 => {
            let c = coord(r, &h)?;
            // An empty point is written with NaN coordinates.
            if c.x.is_nan() && c.y.is_nan() {
                Geometry::MultiPoint(MultiPoint(Vec::new()))
            } else {
                Geometry::Point(Point(c))
            }
        }
        2 => Geometry::LineString(line(r, &h)?),
        3 => Geometry::Polygon(polygon(r, &h)?),
        4 => Geometry::MultiPoint(MultiPoint(parts(r, &h, 1, depth, |g| match g {
            Geometry::Point(p) => Some(p),
            _ => None,
        })?)),
        5 => Geometry::MultiLineString(MultiLineString(parts(r, &h, 2, depth, |g| match g {
            Geometry::LineString(l) => Some(l),
            _ => None,
        })?)),
        6 => Geometry::MultiPolygon(MultiPolygon(parts(r, &h, 3, depth, |g| match g {
            Geometry::Polygon(p) => Some(p),
            _ => None,
        })?)),
        7 => Geometry::GeometryCollection(GeometryCollection(parts(r, &h, 0, depth, Some)?)),
        other => return Err(format!("WKB geometry type {other} is not one lakeshore reads (types 1 to 7)")),
    })
}

/// Reads one WKB geometry that fills `bytes` exactly; the error says what is wrong and where.
pub fn read(bytes: &[u8]) -> Result<Geometry<f64>, String> {
    let mut r = Reader { bytes, at: 0 };
    let g = geometry(&mut r, 0)?;
    if r.at != bytes.len() {
        return Err(format!("{} bytes left over after the WKB geometry", bytes.len() - r.at));
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use geo::{point, polygon};

    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let square = polygon![(x: 0., y: 0.), (x: 2., y: 0.), (x: 2., y: 2.), (x: 0., y: 2.), (x: 0., y: 0.)];
        let shapes = [
            Geometry::Point(point!(x: 1.5, y: -2.0)),
            Geometry::MultiPolygon(MultiPolygon(vec![square.clone()])),
            Geometry::Polygon(square),
            Geometry::MultiLineString(MultiLineString(vec![LineString::from(vec![(0., 0.), (1., 1.)])])),
        ];
        for shape in shapes {
            let mut out = Vec::new();
            push_geometry(&mut out, &shape).unwrap();
            assert_eq!(read(&out).unwrap(), shape);
        }
    }

    /// Big-endian POINT Z (1 2 3) in ISO form (type 1001), spelled out by hand.
    #[test]
    fn big_endian_and_z_are_read() {
        let mut bytes = vec![0u8];
        bytes.extend_from_slice(&1001u32.to_be_bytes());
        for v in [1.0f64, 2.0, 3.0] {
            bytes.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(read(&bytes).unwrap(), Geometry::Point(point!(x: 1.0, y: 2.0)));
    }

    #[test]
    fn damaged_wkb_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        push_geometry(
            &mut out,
            &Geometry::MultiPolygon(MultiPolygon(vec![polygon![
                (x: 0., y: 0.), (x: 1., y: 0.), (x: 1., y: 1.), (x: 0., y: 0.)
            ]])),
        )
        .unwrap();
        // Every truncation, and a count blown up to 2^32 - 1.
        for n in 0..out.len() {
            assert!(read(&out[..n]).is_err(), "truncated at {n}");
        }
        let mut huge = out.clone();
        huge[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(read(&huge).unwrap_err().contains("more than"), "{:?}", read(&huge));
        let mut kind = out.clone();
        kind[1] = 99;
        assert!(read(&kind).is_err());
        out.push(0);
        assert!(read(&out).unwrap_err().contains("left over"));
    }
}
