//! Binary outputs read back as text: what a GeoPackage, a GeoParquet file or a PNG holds, independent of how its
//! bytes are laid out. Two files whose read-backs are equal hold the same tables, rows, values, geometry and
//! CRS (or, for a PNG, the same pixels), whatever the SQLite page layout, Parquet encoding or zlib level.
//!
//! Shared by the `identical_outputs` tests and by `examples/read_back.rs`, which `capture.sh` runs on the
//! outputs of the 100k-parcel bench county. Geometry is decoded from its WKB here, not by the library's own
//! reader, and coordinates are printed in Rust's shortest round-trip form, so equal text means equal bits.

use std::fmt::Write as _;
use std::fs::File;
use std::path::Path;

use polars::prelude::*;

/// The read-back of the output at `path`, or `None` when its extension is no binary output (its bytes are then
/// compared as they are).
pub fn read_back(path: &Path) -> Option<Result<String, String>> {
    match path.extension()?.to_str()? {
        "gpkg" => Some(gpkg(path).map_err(|e| format!("{}: {e}", path.display()))),
        "parquet" => Some(parquet(path).map_err(|e| format!("{}: {e}", path.display()))),
        "png" => Some(png(path).map_err(|e| format!("{}: {e}", path.display()))),
        _ => None,
    }
}

/// Every table of a GeoPackage but its R-tree shadows: the reference tables (`gpkg_spatial_ref_sys`,
/// `gpkg_contents` without its `last_change` time, `gpkg_geometry_columns`), then every feature table's
/// columns and rows by `fid`, geometry decoded.
fn gpkg(path: &Path) -> Result<String, String> {
    let db = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| e.to_string())?;
    let mut out = String::new();
    let queries = [
        "SELECT srs_name, srs_id, organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys \
         ORDER BY srs_id",
        "SELECT table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id \
         FROM gpkg_contents ORDER BY table_name",
        "SELECT table_name, column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns \
         ORDER BY table_name",
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'rtree_%' \
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
    ];
    for query in queries {
        writeln!(out, "# {query}").unwrap();
        dump_rows(&db, query, &mut out)?;
    }
    let mut tables =
        db.prepare("SELECT table_name FROM gpkg_contents ORDER BY table_name").map_err(|e| e.to_string())?;
    let names: Vec<String> = tables
        .query_map([], |row| row.get(0))
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    for table in names {
        let columns = db
            .prepare(&format!("PRAGMA table_info(\"{table}\")"))
            .and_then(|mut s| {
                s.query_map([], |row| {
                    Ok(format!("{} {}", row.get::<_, String>(1)?, row.get::<_, String>(2)?))
                })?
                .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| e.to_string())?;
        writeln!(out, "# table {table}: {}", columns.join(", ")).unwrap();
        dump_rows(&db, &format!("SELECT * FROM \"{table}\" ORDER BY 1"), &mut out)?;
    }
    Ok(out)
}

/// One line per row of `query`, its values separated by ` | `; a blob is read as a GeoPackage geometry.
fn dump_rows(db: &rusqlite::Connection, query: &str, out: &mut String) -> Result<(), String> {
    use rusqlite::types::ValueRef;
    let mut statement = db.prepare(query).map_err(|e| e.to_string())?;
    let width = statement.column_count();
    let mut rows = statement.query([]).map_err(|e| e.to_string())?;
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        for i in 0..width {
            if i > 0 {
                out.push_str(" | ");
            }
            match row.get_ref(i).map_err(|e| e.to_string())? {
                ValueRef::Null => out.push_str("NULL"),
                ValueRef::Integer(n) => write!(out, "{n}").unwrap(),
                ValueRef::Real(x) => write!(out, "{x:?}").unwrap(),
                ValueRef::Text(t) => out.push_str(&String::from_utf8_lossy(t)),
                ValueRef::Blob(b) => gpkg_geometry(b, out)?,
            }
        }
        out.push('\n');
    }
    Ok(())
}

/// A GeoPackage geometry blob: its header's SRS id and envelope, then the WKB it wraps.
fn gpkg_geometry(blob: &[u8], out: &mut String) -> Result<(), String> {
    if blob.len() < 8 || &blob[..2] != b"GP" {
        return Err("a blob that is no GeoPackage geometry".into());
    }
    let flags = blob[3];
    let little = flags & 1 == 1;
    let srs = read_u32(&blob[4..8], little) as i32;
    let envelope_doubles = match (flags >> 1) & 0b111 {
        0 => 0,
        1 => 4,
        2 | 3 => 6,
        4 => 8,
        other => return Err(format!("envelope code {other}")),
    };
    let mut at = 8;
    write!(out, "srs {srs} envelope [").unwrap();
    for i in 0..envelope_doubles {
        let x = read_f64(&blob[at..at + 8], little);
        at += 8;
        write!(out, "{}{x:?}", if i > 0 { " " } else { "" }).unwrap();
    }
    out.push_str("] ");
    let mut wkb = Wkb { bytes: &blob[at..], at: 0 };
    wkb.geometry(out)
}

fn read_u32(b: &[u8], little: bool) -> u32 {
    let b: [u8; 4] = b.try_into().unwrap();
    if little {
        u32::from_le_bytes(b)
    } else {
        u32::from_be_bytes(b)
    }
}

fn read_f64(b: &[u8], little: bool) -> f64 {
    let b: [u8; 8] = b.try_into().unwrap();
    if little {
        f64::from_le_bytes(b)
    } else {
        f64::from_be_bytes(b)
    }
}

/// A reader of ISO WKB (points, lines, polygons and their multi- and collection forms, 2D or with Z/M).
struct Wkb<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Wkb<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let slice = self.bytes.get(self.at..self.at + n).ok_or("WKB cut short")?;
        self.at += n;
        Ok(slice)
    }

    fn geometry(&mut self, out: &mut String) -> Result<(), String> {
        let little = self.take(1)?[0] == 1;
        let code = read_u32(self.take(4)?, little);
        // ISO WKB: 1000 adds Z, 2000 M, 3000 both.
        let kind = code % 1000;
        let dims = match code / 1000 {
            0 => 2,
            1 | 2 => 3,
            _ => 4,
        };
        let names = ["", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON"];
        let name = match kind {
            7 => "GEOMETRYCOLLECTION",
            _ => names.get(kind as usize).filter(|n| !n.is_empty()).ok_or(format!("WKB type {code}"))?,
        };
        write!(out, "{name}{}(", if dims > 2 { format!(" {dims}D") } else { String::new() }).unwrap();
        match kind {
            1 => self.points(1, dims, little, out)?,
            2 => {
                let n = read_u32(self.take(4)?, little) as usize;
                self.points(n, dims, little, out)?;
            }
            3 => {
                let rings = read_u32(self.take(4)?, little);
                for r in 0..rings {
                    out.push_str(if r > 0 { ", (" } else { "(" });
                    let n = read_u32(self.take(4)?, little) as usize;
                    self.points(n, dims, little, out)?;
                    out.push(')');
                }
            }
            _ => {
                let parts = read_u32(self.take(4)?, little);
                for p in 0..parts {
                    if p > 0 {
                        out.push_str(", ");
                    }
                    self.geometry(out)?;
                }
            }
        }
        out.push(')');
        Ok(())
    }

    fn points(&mut self, n: usize, dims: usize, little: bool, out: &mut String) -> Result<(), String> {
        for i in 0..n {
            if i > 0 {
                out.push_str(", ");
            }
            for d in 0..dims {
                let x = read_f64(self.take(8)?, little);
                write!(out, "{}{x:?}", if d > 0 { " " } else { "" }).unwrap();
            }
        }
        Ok(())
    }
}

/// A GeoParquet file: its `geo` metadata (parsed, so key order and spacing do not count), its schema, and
/// every row in file order, WKB geometry decoded.
fn parquet(path: &Path) -> Result<String, String> {
    let mut out = String::new();
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut reader = ParquetReader::new(file);
    let metadata = reader.get_metadata().map_err(|e| e.to_string())?;
    let geo = metadata
        .key_value_metadata()
        .as_ref()
        .and_then(|kv| kv.iter().find(|kv| kv.key == "geo"))
        .and_then(|kv| kv.value.clone());
    match geo {
        Some(text) => {
            let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            writeln!(out, "# geo {json}").unwrap();
        }
        None => out.push_str("# no geo metadata\n"),
    }
    let frame = reader.finish().map_err(|e| e.to_string())?;
    let schema: Vec<String> = frame.columns().iter().map(|c| format!("{} {}", c.name(), c.dtype())).collect();
    writeln!(out, "# columns {}", schema.join(", ")).unwrap();
    for i in 0..frame.height() {
        for (c, column) in frame.columns().iter().enumerate() {
            if c > 0 {
                out.push_str(" | ");
            }
            match column.get(i).map_err(|e| e.to_string())? {
                AnyValue::Null => out.push_str("NULL"),
                AnyValue::Binary(b) => Wkb { bytes: b, at: 0 }.geometry(&mut out)?,
                AnyValue::BinaryOwned(b) => Wkb { bytes: &b, at: 0 }.geometry(&mut out)?,
                AnyValue::String(s) => out.push_str(s),
                AnyValue::StringOwned(s) => out.push_str(&s),
                AnyValue::Float64(x) => write!(out, "{x:?}").unwrap(),
                AnyValue::Float32(x) => write!(out, "{x:?}").unwrap(),
                other => write!(out, "{other}").unwrap(),
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// A PNG's size, colour type and bit depth, and its decoded pixels in hexadecimal rows.
fn png(path: &Path) -> Result<String, String> {
    let decoder = ::png::Decoder::new(std::io::BufReader::new(File::open(path).map_err(|e| e.to_string())?));
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut pixels = vec![0; reader.output_buffer_size().ok_or("a PNG too large to decode")?];
    let frame = reader.next_frame(&mut pixels).map_err(|e| e.to_string())?;
    let mut out =
        format!("# {}x{} {:?} {:?}\n", frame.width, frame.height, frame.color_type, frame.bit_depth);
    for row in pixels[..frame.buffer_size()].chunks(frame.line_size) {
        for b in row {
            write!(out, "{b:02x}").unwrap();
        }
        out.push('\n');
    }
    Ok(out)
}
