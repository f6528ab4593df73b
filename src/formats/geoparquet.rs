//! The GeoParquet reader (GeoParquet 1.0 and 1.1, through polars): the geometry column the `geo` file
//! metadata names as `primary_column`, in WKB, and every other column as attributes. The WKB column may carry
//! an Arrow extension type (`geoarrow.wkb`, as GeoPandas 1.x writes it) or none (DuckDB, GDAL); either way
//! its binary storage is read.
//!
//! The CRS is the column's `crs` member: PROJJSON, with an `id` or without one (GeoPandas writes a CRS read
//! from a `.prj` without one; it is read as that WKT would be), or a CRS string lakeshore parses; a missing
//! `crs` means OGC:CRS84 (longitude/latitude) as the specification says (DuckDB writes none), and
//! `crs: null` (undefined) takes the CRS assumed with `--assume-crs`. Coordinates are x = longitude or
//! easting whatever axis order the CRS declares, as the specification requires. Every row becomes a
//! feature, numbered from 1 in file order; a null or damaged geometry keeps the row and is reported.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;
use serde_json::Value as Json;

use super::{check_geometry, select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Problem, Result};

const FIX_GEOMETRY: &str = "repair or redraw the geometry, or delete the row";

fn reader(path: &Path) -> Result<ParquetReader<File>> {
    super::require_file(path)?;
    Ok(ParquetReader::new(File::open(path).map_err(|e| Error::io(path, e))?))
}

fn unreadable(path: &Path) -> impl Fn(PolarsError) -> Error + '_ {
    move |source| Error::Parquet {
        path: path.to_path_buf(),
        message: format!("not a readable Parquet file ({source}); check the file or re-export it"),
        source,
    }
}

/// The `geo` metadata's primary column name and its `crs` member (`None` when absent).
fn geo_metadata(path: &Path, reader: &mut ParquetReader<File>) -> Result<(String, Option<Json>)> {
    let metadata = reader.get_metadata().map_err(unreadable(path))?;
    let geo = metadata
        .key_value_metadata()
        .as_ref()
        .and_then(|kv| kv.iter().find(|kv| kv.key == "geo"))
        .and_then(|kv| kv.value.clone())
        .ok_or_else(|| {
            Error::format(
                path,
                "a Parquet file without GeoParquet 'geo' metadata; write it as GeoParquet (WKB)",
            )
        })?;
    let geo: Json = serde_json::from_str(&geo).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        message: format!("the GeoParquet 'geo' metadata is not JSON ({source})"),
        source,
    })?;
    let primary = geo["primary_column"].as_str().unwrap_or("geometry").to_string();
    let column = &geo["columns"][&primary];
    match column["encoding"].as_str() {
        Some(e) if e.eq_ignore_ascii_case("WKB") => {}
        other => {
            return Err(Error::format(
                path,
                format!(
                    "geometry column '{primary}' is encoded as {}; lakeshore reads WKB: re-export with WKB encoding",
                    other.unwrap_or("nothing named")
                ),
            ))
        }
    }
    Ok((primary, column.as_object().and_then(|c| c.get("crs")).cloned()))
}

/// The CRS of a GeoParquet `crs` member.
fn crs_of(path: &Path, crs: Option<Json>, options: &ReadOptions) -> Result<Crs> {
    let assumed = || {
        options.assume_crs.clone().ok_or_else(|| {
            Error::crs(path, "the geometry's CRS is undefined (crs: null); pass --assume-crs EPSG:nnnn")
        })
    };
    match crs {
        None => Ok(Crs::wgs84()),
        Some(Json::Null) => assumed(),
        Some(Json::String(text)) => Crs::parse_from(path, &text),
        // PROJJSON, read as the WKT it stands for; one lakeshore cannot use takes the assumed CRS.
        Some(projjson) => {
            Crs::parse_from(path, &projjson.to_string()).or_else(|err| options.assume_crs.clone().ok_or(err))
        }
    }
}

/// The attribute field names of the GeoParquet file at `path` (all columns but the geometry).
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    let mut reader = reader(path)?;
    let (primary, _) = geo_metadata(path, &mut reader)?;
    let schema = reader.schema().map_err(unreadable(path))?;
    Ok(schema.iter_names().map(|n| n.to_string()).filter(|n| *n != primary).collect())
}

/// A column's cells as attribute values: numbers, booleans, text, anything else as its text; a column with
/// an extension type as its storage.
fn values(column: &Column) -> Vec<Value> {
    let column = column.as_materialized_series().to_storage();
    let text = |s: Option<&str>| {
        s.map(str::trim).filter(|s| !s.is_empty()).map_or(Value::Null, |s| Value::Text(s.into()))
    };
    match column.dtype() {
        DataType::Boolean => match column.bool() {
            Ok(b) => b.iter().map(|v| v.map_or(Value::Null, Value::Bool)).collect(),
            Err(_) => vec![Value::Null; column.len()],
        },
        dtype if dtype.is_primitive_numeric() => match column.cast(&DataType::Float64) {
            Ok(c) => c
                .f64()
                .map(|f| f.iter().map(|v| v.map_or(Value::Null, Value::Number)).collect())
                .unwrap_or_default(),
            Err(_) => vec![Value::Null; column.len()],
        },
        _ => match column.cast(&DataType::String) {
            Ok(c) => c.str().map(|s| s.iter().map(text).collect()).unwrap_or_default(),
            Err(_) => vec![Value::Null; column.len()],
        },
    }
}

/// The GeoParquet format: a `.parquet` file with a WKB geometry column, read whole.
pub(super) struct GeoParquet;

impl LayerReader for GeoParquet {
    fn extensions(&self) -> &'static [&'static str] {
        &["parquet", "geoparquet"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        field_names(layer.file)
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, options)
    }
}

/// Reads the GeoParquet file at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let mut reader = reader(path)?;
    let (primary, crs) = geo_metadata(path, &mut reader)?;
    let crs = crs_of(path, crs, options)?;
    let names: Vec<String> = reader
        .schema()
        .map_err(unreadable(path))?
        .iter_names()
        .map(|n| n.to_string())
        .filter(|n| *n != primary)
        .collect();
    let kept = select_fields(path, &names, options.keep.as_deref())?;
    let fields: Vec<String> = kept.iter().map(|&i| names[i].clone()).collect();
    let frame = reader.finish().map_err(unreadable(path))?;
    // A column with an extension type is read as its storage, the WKB.
    let geometry =
        frame.column(&primary).and_then(|c| c.as_materialized_series().to_storage().binary().cloned());
    let geometry = geometry.map_err(|_| {
        Error::format(path, format!("geometry column '{primary}' is missing or not binary WKB"))
    })?;
    let mut columns: Vec<std::vec::IntoIter<Value>> = Vec::with_capacity(fields.len());
    for name in &fields {
        let column = frame.column(name).map_err(unreadable(path))?;
        columns.push(values(column).into_iter());
    }
    let mut problems = Vec::new();
    let mut features = Vec::with_capacity(frame.height());
    for (i, wkb) in geometry.iter().enumerate() {
        let record = i + 1;
        let shape = match wkb {
            None => Err(Unusable::new(GeometryError::NullRow, FIX_GEOMETRY)),
            Some(bytes) => match super::wkb::read(bytes) {
                Ok(g) => check_geometry(&g).map(|()| g),
                Err(reason) => Err(Unusable::new(GeometryError::UnreadableWkb(reason), FIX_GEOMETRY)),
            },
        };
        let geometry = shape.map_err(|unusable| {
            problems.push(unusable.problem(path, record));
            unusable.reason
        });
        let values = columns.iter_mut().map(|c| c.next().unwrap_or(Value::Null)).collect();
        features.push(Feature { record, fid: None, geometry, values });
    }
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}
