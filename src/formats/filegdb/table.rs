//! A table's `.gdbtable` header and field descriptors: the row count it declares, each field's name, type and
//! nullability, and for the geometry field its coordinate grid (origin and scale) and the CRS's WKT.
//!
//! The 40-byte header gives the format version (3; version 4, the 64-bit object ids of ArcGIS Pro 3.2, is
//! refused by name), the number of live rows and the offset of the field section. That section is read
//! whole, once it is known to lie inside the file and within [`MAX_FIELD_SECTION`]; each declared count is
//! checked against the bytes that would hold it before anything is made of it.

use std::io::SeekFrom;
use std::path::Path;

use super::cursor::{Cursor, Cut};
use crate::model::error::{Error, Result};

/// The largest field section read (GDAL's reader takes 10 MiB): 65,534 fields of long names and a long WKT
/// fit well within it.
pub(super) const MAX_FIELD_SECTION: u64 = 16 << 20;

/// The type of a field, as its descriptor gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Int16,
    Int32,
    Float32,
    Float64,
    Text,
    /// Days since 1899-12-30, with the time of day as the fraction.
    DateTime,
    /// The row's object id, which the row does not store: it is the row's place in the `.gdbtablx`.
    ObjectId,
    Geometry,
    Binary,
    /// A raster column: an `i32` when managed, else a length and its bytes.
    Raster {
        managed: bool,
    },
    Guid,
    Xml,
    Int64,
    /// A date without a time (ArcGIS Pro 3.2), as days since 1899-12-30.
    Date,
    /// A time of day, as a fraction of a day.
    Time,
    /// A date and time with its offset from UTC in minutes.
    DateTimeOffset,
}

/// One field: its name, type and whether a row may leave it null.
#[derive(Debug, Clone)]
pub(super) struct Field {
    pub name: String,
    pub kind: Kind,
    pub nullable: bool,
}

/// The geometry field's coordinate grid and CRS.
#[derive(Debug, Clone, Default)]
pub(super) struct Grid {
    pub x_origin: f64,
    pub y_origin: f64,
    /// Grid units a CRS unit: a stored integer `n` is `n / xy_scale + origin`.
    pub xy_scale: f64,
    /// The CRS as WKT (empty when the feature class has none).
    pub wkt: String,
}

/// A table's header and fields.
#[derive(Debug, Clone)]
pub(super) struct Header {
    /// The live rows the header declares.
    pub rows: u64,
    /// Whether text is UTF-8 (else UTF-16, as ArcGIS 9 wrote it).
    pub utf8: bool,
    pub fields: Vec<Field>,
    /// The bytes of the null flags at the start of each row: a bit for each nullable field.
    pub null_flags: usize,
    /// The geometry field's grid, when the table has a geometry field.
    pub grid: Option<Grid>,
    /// Where the rows may start: the end of the field section.
    pub end: u64,
}

/// What to do about a table that cannot be read: export it to a format lakeshore reads.
pub(super) const EXPORT: &str = "export the feature class to a GeoPackage or a shapefile (ArcGIS \"Export \
     Features\", or ogr2ogr -f GPKG) and give that instead";

/// Reads the header and field descriptors of the `.gdbtable` at `path`, whose length is `len`.
pub(super) fn read_header(file: &mut dyn super::folder::Source, path: &Path, len: u64) -> Result<Header> {
    let damaged = |what: String| Error::format(path, format!("{what}: the table is damaged; {EXPORT}"));
    let mut head = [0u8; 40];
    file.read_exact(&mut head)
        .map_err(|_| damaged(format!("only {len} bytes, shorter than a table's header")))?;
    let mut cursor = Cursor::new(&head);
    let version = cursor.u32().unwrap_or(0);
    match version {
        3 => {}
        4 => {
            return Err(Error::format(
                path,
                format!(
                    "a table of 64-bit object ids (ArcGIS Pro 3.2 and later), which lakeshore does not read; \
                     {EXPORT}"
                ),
            ))
        }
        _ => {
            return Err(Error::format(
                path,
                format!(
                    "not a File Geodatabase table this reader knows (version {version}): it may be compressed or \
                     encrypted, or damaged; {EXPORT}"
                ),
            ))
        }
    }
    let rows = cursor.i32().unwrap_or(-1);
    let rows = u64::try_from(rows).map_err(|_| damaged(format!("a row count of {rows}")))?;
    // Each row takes at least its 4-byte size.
    if rows > len / 4 {
        return Err(damaged(format!("{rows} rows declared in a file of {len} bytes")));
    }
    let fields_at = u64::from_le_bytes(head[32..40].try_into().unwrap_or_default());
    if fields_at.checked_add(14).is_none_or(|end| end > len) {
        return Err(damaged(format!("a field section at byte {fields_at}, beyond the file's {len} bytes")));
    }
    file.seek(SeekFrom::Start(fields_at)).map_err(|e| Error::io(path, e))?;
    let mut size = [0u8; 4];
    file.read_exact(&mut size).map_err(|e| Error::io(path, e))?;
    let size = u64::from(u32::from_le_bytes(size));
    if !(10..=MAX_FIELD_SECTION).contains(&size) || fields_at + 4 + size > len {
        return Err(damaged(format!(
            "a field section of {size} bytes at byte {fields_at}, in a file of {len} bytes"
        )));
    }
    let mut section = vec![0u8; size as usize];
    file.read_exact(&mut section).map_err(|e| Error::io(path, e))?;
    let mut header =
        parse_fields(&section).map_err(|what| damaged(format!("its field descriptors: {what}")))?;
    header.rows = rows;
    header.end = fields_at + 4 + size;
    Ok(header)
}

/// Parses the field section (after its 4-byte size): the version, flags, the field count and each field.
fn parse_fields(section: &[u8]) -> Cut<Header> {
    let mut c = Cursor::new(section);
    let _version = c.u32()?;
    let _geometry_type = c.u8()?;
    let utf8 = c.u8()? & 1 != 0;
    let _ = c.u8()?;
    let flags = c.u8()?;
    let (has_m, has_z) = (flags & (1 << 6) != 0, flags & (1 << 7) != 0);
    let count = usize::from(c.u16()?);
    // A field takes at least 5 bytes: two name lengths, its type and two bytes of flags.
    if count > c.left() / 5 {
        return Err(format!("{count} fields declared in {} bytes", c.left()));
    }
    let mut fields = Vec::with_capacity(count);
    let mut grid = None;
    for i in 0..count {
        let field = parse_field(&mut c, has_z, has_m, &mut grid)
            .map_err(|what| format!("field {}: {what}", i + 1))?;
        fields.push(field);
    }
    let nullable = fields.iter().filter(|f| f.nullable).count();
    Ok(Header { rows: 0, utf8, fields, null_flags: nullable.div_ceil(8), grid, end: 0 })
}

/// One field descriptor; a geometry field's grid goes into `grid`.
fn parse_field(c: &mut Cursor<'_>, has_z: bool, has_m: bool, grid: &mut Option<Grid>) -> Cut<Field> {
    let chars = usize::from(c.u8()?);
    let name = c.utf16(chars)?;
    let chars = usize::from(c.u8()?);
    let _alias = c.utf16(chars)?;
    let code = c.u8()?;
    let kind = match code {
        0 => Kind::Int16,
        1 => Kind::Int32,
        2 => Kind::Float32,
        3 => Kind::Float64,
        4 => Kind::Text,
        5 => Kind::DateTime,
        6 => Kind::ObjectId,
        7 => Kind::Geometry,
        8 => Kind::Binary,
        9 => Kind::Raster { managed: false },
        10 | 11 => Kind::Guid,
        12 => Kind::Xml,
        13 => Kind::Int64,
        14 => Kind::Date,
        15 => Kind::Time,
        16 => Kind::DateTimeOffset,
        _ => return Err(format!("'{name}' has a type ({code}) this reader does not know")),
    };
    let (flags, default) = match kind {
        Kind::Geometry | Kind::Raster { .. } => {
            let _ = c.u8()?;
            let nullable = c.u8()? & 1 != 0;
            let (field_grid, managed) = parse_grid(c, kind == Kind::Geometry, has_z, has_m)?;
            let kind = match kind {
                Kind::Raster { .. } => Kind::Raster { managed },
                _ => {
                    if grid.is_some() {
                        return Err(format!("'{name}' is a second geometry field"));
                    }
                    *grid = Some(field_grid);
                    kind
                }
            };
            return Ok(Field { name, kind, nullable });
        }
        Kind::Text => {
            let _width = c.i32()?;
            let flags = c.u8()?;
            (flags, c.varuint()?)
        }
        Kind::ObjectId | Kind::Binary | Kind::Guid | Kind::Xml => {
            let _ = c.u8()?;
            (c.u8()?, 0)
        }
        _ => {
            let _width = c.u8()?;
            let flags = c.u8()?;
            (flags, u64::from(c.u8()?))
        }
    };
    // A default value follows when the field is editable (bit 2).
    if flags & 4 != 0 {
        let default =
            usize::try_from(default).map_err(|_| format!("'{name}' has a default of {default} bytes"))?;
        c.take(default).map_err(|e| format!("'{name}': its default value: {e}"))?;
    }
    Ok(Field { name, kind, nullable: flags & 1 != 0 })
}

/// The grid and WKT of a geometry or raster field, after its flags; for a raster, whether it is managed.
fn parse_grid(c: &mut Cursor<'_>, geometry: bool, has_z: bool, has_m: bool) -> Cut<(Grid, bool)> {
    if !geometry {
        let chars = usize::from(c.u8()?);
        c.utf16(chars)?;
    }
    let wkt_bytes = usize::from(c.u16()?);
    let wkt = c.utf16(wkt_bytes / 2)?;
    c.take(wkt_bytes % 2)?;
    let flags = c.u8()?;
    let (m, z) = (flags & 2 != 0, flags & 4 != 0);
    let mut grid = Grid { wkt, ..Grid::default() };
    if geometry || flags > 0 {
        grid.x_origin = c.f64()?;
        grid.y_origin = c.f64()?;
        grid.xy_scale = c.f64()?;
        // M origin and scale, Z origin and scale, the XY tolerance, then the M and Z tolerances.
        c.take(8 * (2 * usize::from(m) + 2 * usize::from(z) + 1 + usize::from(m) + usize::from(z)))?;
    }
    if !geometry {
        let managed = c.u8()? == 1;
        return Ok((grid, managed));
    }
    if !(grid.xy_scale.is_finite() && grid.xy_scale > 0.0) {
        return Err(format!("a coordinate scale of {}", grid.xy_scale));
    }
    // The extent, the Z and M ranges of a table that has them, a byte, then the spatial grid sizes.
    c.take(8 * (4 + 2 * usize::from(has_z) + 2 * usize::from(has_m)) + 1)?;
    let sizes = c.u32()?;
    if !(1..=3).contains(&sizes) {
        return Err(format!("{sizes} spatial grid sizes (1 to 3 expected)"));
    }
    c.take(8 * sizes as usize)?;
    Ok((grid, false))
}
