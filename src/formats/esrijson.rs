//! The Esri JSON reader: a `FeatureSet` as an ArcGIS REST query (`f=json`) or ArcGIS's Features To JSON
//! returns it, after the GeoServices REST specification.
//!
//! The layer's fields are the `fields` array, in its order (without one, the first feature's `attributes`);
//! a date field (`esriFieldTypeDate`, milliseconds since 1970 UTC) is read as its ISO date, with the time of
//! day when it has one. The CRS is the `spatialReference`: its `latestWkid`, else its `wkid` (an EPSG code,
//! or an Esri one such as 102100), else its `wkt`; without one the CRS assumed with `--assume-crs`.
//! Geometries: a point (`x`, `y`), a multipoint (`points`), a polyline (`paths`) and a polygon (`rings`),
//! whose rings are told apart by their orientation as in a shapefile (clockwise outer rings,
//! counter-clockwise holes), each hole given to the smallest outer ring containing it (`shapefile::rings`).
//! Z and M values are ignored. A true curve (an arc or Bézier segment, as `returnTrueCurves=true` gives)
//! makes its feature unusable, with the export that densifies it.
//!
//! A response marked `exceededTransferLimit: true` is the first page of a larger layer: the run stops and
//! says how to page through it or export it whole, rather than schedule part of a county.
//!
//! The document is read whole (it is bounded by its file's size); each feature's geometry is checked on its
//! own, so a damaged feature keeps its attributes and place, with a problem.

use std::path::Path;

use geo::{Coord, Geometry, LineString, MultiLineString, MultiPoint, Point};
use serde::Deserialize;
use serde_json::{Map, Value as Json};

use super::shapefile::rings::{assemble_rings, orphan_problem};
use super::{select_fields, LayerAt, LayerReader, ReadOptions, Unusable};
use crate::crs::layer::{Feature, GeometryError, Layer, Value};
use crate::crs::Crs;
use crate::model::error::{Error, Problem, Result};

const FIX_GEOMETRY: &str = "correct the feature's geometry or delete the feature";
const FIX_CURVE: &str = "query the layer again with returnTrueCurves=false (or export it densified) so that \
                         curves come as vertices";

/// The Esri JSON format: a FeatureSet, read whole.
pub(super) struct EsriJson;

impl LayerReader for EsriJson {
    fn extensions(&self) -> &'static [&'static str] {
        &["esrijson"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        Ok(field_list(&parse(layer.file)?))
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        read(layer.file, options)
    }
}

/// A FeatureSet, as far as this reader needs it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FeatureSet {
    spatial_reference: Option<Json>,
    fields: Option<Vec<Field>>,
    features: Option<Vec<EsriFeature>>,
    exceeded_transfer_limit: Option<Json>,
}

/// One entry of the `fields` array.
#[derive(Deserialize)]
struct Field {
    name: String,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// One feature: its attributes and geometry, each read on its own.
#[derive(Deserialize)]
struct EsriFeature {
    attributes: Option<Map<String, Json>>,
    geometry: Option<Json>,
}

/// The FeatureSet in the file at `path`.
fn parse(path: &Path) -> Result<FeatureSet> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let set: FeatureSet = serde_json::from_slice(text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        message: format!(
            "not a readable Esri JSON FeatureSet ({source}): correct the file or query it again"
        ),
        source,
    })?;
    if set.features.is_none() {
        return Err(Error::format(
            path,
            "an Esri JSON object without a features array: query the layer's features (…/query?where=1=1&outFields=*&f=json)",
        ));
    }
    if set.exceeded_transfer_limit.as_ref().is_some_and(|v| v.as_bool() == Some(true)) {
        let got = set.features.as_ref().map_or(0, Vec::len);
        return Err(Error::format(
            path,
            format!(
                "a partial layer: the ArcGIS server stopped at its transfer limit after {got} features \
                 (exceededTransferLimit: true), and a schedule from part of the parcels would leave the others \
                 out; page through the layer with resultOffset and resultRecordCount (ordered by \
                 orderByFields=OBJECTID) and join the pages into one file, or export the whole layer from \
                 ArcGIS (to a File Geodatabase, a shapefile or GeoJSON)"
            ),
        ));
    }
    Ok(set)
}

/// The layer's field names: the `fields` array, else the first feature's attributes.
fn field_list(set: &FeatureSet) -> Vec<String> {
    match &set.fields {
        Some(fields) => fields.iter().map(|f| f.name.clone()).collect(),
        None => set
            .features
            .iter()
            .flatten()
            .find_map(|f| f.attributes.as_ref())
            .map(|a| a.keys().cloned().collect())
            .unwrap_or_default(),
    }
}

/// Reads the Esri JSON FeatureSet at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let set = parse(path)?;
    let crs = spatial_reference(path, set.spatial_reference.as_ref(), options)?;
    let names = field_list(&set);
    let kept = select_fields(path, &names, options.keep.as_deref())?;
    let dates: Vec<bool> = kept
        .iter()
        .map(|&i| set.fields.as_ref().is_some_and(|f| f[i].kind.as_deref() == Some("esriFieldTypeDate")))
        .collect();
    let fields: Vec<String> = kept.iter().map(|&i| names[i].clone()).collect();
    let mut problems = Vec::new();
    let mut features = Vec::new();
    for (i, feature) in set.features.unwrap_or_default().into_iter().enumerate() {
        let record = i + 1;
        let attributes = feature.attributes.unwrap_or_default();
        let values =
            fields.iter().zip(&dates).map(|(name, &date)| value(attributes.get(name), date)).collect();
        let geometry = match feature.geometry {
            None | Some(Json::Null) => {
                Err(Unusable::new(GeometryError::NoGeometry, "add one or delete the feature"))
            }
            Some(json) => geometry(&json).map(|(g, orphans)| {
                problems.extend(orphans.into_iter().map(|ring| orphan_problem(path, record, ring)));
                g
            }),
        };
        let geometry = super::settle(geometry, path, record, &mut problems);
        features.push(Feature { record, fid: None, geometry, values });
    }
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

/// An attribute as a [`Value`]: text trimmed (empty is null), a date field's milliseconds as an ISO date.
fn value(json: Option<&Json>, date: bool) -> Value {
    match json {
        None | Some(Json::Null) => Value::Null,
        Some(Json::Bool(b)) => Value::Bool(*b),
        Some(Json::Number(n)) if date => {
            n.as_f64().and_then(iso_date).map_or(Value::Null, |d| Value::Text(d.into()))
        }
        Some(Json::Number(n)) => n.as_f64().map_or(Value::Null, Value::Number),
        Some(Json::String(s)) => match s.trim() {
            "" => Value::Null,
            text => Value::Text(text.into()),
        },
        Some(other) => Value::Text(other.to_string().into()),
    }
}

/// The ISO date (and time of day, when it has one) of `ms` milliseconds since 1970-01-01 UTC.
fn iso_date(ms: f64) -> Option<String> {
    let at = chrono::DateTime::from_timestamp_millis(ms as i64).filter(|_| ms.is_finite())?;
    let at = at.naive_utc();
    Some(if at.time() == chrono::NaiveTime::MIN {
        at.format("%Y-%m-%d").to_string()
    } else {
        at.format("%Y-%m-%dT%H:%M:%S").to_string()
    })
}

/// The CRS a `spatialReference` names: `latestWkid`, else `wkid`, else `wkt`; else the assumed CRS.
fn spatial_reference(path: &Path, reference: Option<&Json>, options: &ReadOptions) -> Result<Crs> {
    let member = |key: &str| reference.and_then(|r| r.get(key)).filter(|v| !v.is_null());
    let mut tried = Vec::new();
    for key in ["latestWkid", "wkid"] {
        if let Some(code) = member(key).and_then(Json::as_u64) {
            match Crs::parse_from(path, &format!("EPSG:{code}")) {
                Ok(crs) => return Ok(crs),
                Err(e) => tried.push(format!("{key} {code}: {e}")),
            }
        }
    }
    if let Some(wkt) = member("wkt").and_then(Json::as_str) {
        match Crs::parse_from(path, wkt) {
            Ok(crs) => return Ok(crs),
            Err(e) => tried.push(format!("wkt: {e}")),
        }
    }
    if let Some(crs) = &options.assume_crs {
        return Ok(crs.clone());
    }
    let why = if tried.is_empty() { "names no CRS".to_string() } else { tried.join("; ") };
    Err(Error::crs(
        path,
        format!(
            "the spatialReference {why}: query the layer with outSR=2261 (or another EPSG code), or pass \
             --assume-crs EPSG:nnnn"
        ),
    ))
}

/// A geometry read from its JSON, and the 1-based numbers of a polygon's orphan holes.
fn geometry(json: &Json) -> std::result::Result<(Geometry<f64>, Vec<usize>), Unusable> {
    let plain = |g: Geometry<f64>| Ok((g, Vec::new()));
    let object = json.as_object().ok_or_else(|| unreadable("not an object"))?;
    if object.contains_key("curveRings") || object.contains_key("curvePaths") {
        return Err(curve());
    }
    if let Some(rings) = object.get("rings") {
        let rings = parts(rings, "rings")?;
        if rings.is_empty() {
            return Err(Unusable::new(GeometryError::Empty, super::FIX_EMPTY));
        }
        return Ok(assemble_rings(rings));
    }
    if let Some(paths) = object.get("paths") {
        let mut paths = parts(paths, "paths")?;
        return match paths.len() {
            1 => plain(LineString(paths.swap_remove(0)).into()),
            _ => plain(MultiLineString(paths.into_iter().map(LineString).collect()).into()),
        };
    }
    if let Some(points) = object.get("points") {
        let points = coords(points, "points")?;
        return plain(MultiPoint(points.into_iter().map(Point).collect()).into());
    }
    match (object.get("x"), object.get("y")) {
        (Some(Json::Null), _) | (_, Some(Json::Null)) => {
            Err(Unusable::new(GeometryError::Empty, super::FIX_EMPTY))
        }
        (Some(x), Some(y)) => match (number(x), number(y)) {
            (Some(x), Some(y)) => plain(Point::new(x, y).into()),
            _ => Err(unreadable("x or y is not a number")),
        },
        _ if object.is_empty() => Err(Unusable::new(GeometryError::Empty, super::FIX_EMPTY)),
        _ => Err(unreadable("no x and y, points, paths or rings")),
    }
}

/// A coordinate: a number, or `"NaN"` as ArcGIS writes an empty point's.
fn number(json: &Json) -> Option<f64> {
    match json {
        Json::Number(n) => n.as_f64(),
        Json::String(s) if s == "NaN" => Some(f64::NAN),
        _ => None,
    }
}

fn unreadable(why: &str) -> Unusable {
    Unusable::new(GeometryError::UnreadableGeoJson(why.to_string()), FIX_GEOMETRY)
}

fn curve() -> Unusable {
    Unusable::new(
        GeometryError::UnreadableGeoJson("a true curve (an arc or Bézier segment)".into()),
        FIX_CURVE,
    )
}

/// The `rings` or `paths` of a geometry: arrays of positions.
fn parts(json: &Json, what: &str) -> std::result::Result<Vec<Vec<Coord<f64>>>, Unusable> {
    let parts = json.as_array().ok_or_else(|| unreadable(&format!("{what} is not an array")))?;
    parts.iter().map(|part| coords(part, what)).collect()
}

/// An array of positions `[x, y, …]`; a segment given as an object (`{"a": …}`, `{"c": …}`) is a curve.
fn coords(json: &Json, what: &str) -> std::result::Result<Vec<Coord<f64>>, Unusable> {
    let positions =
        json.as_array().ok_or_else(|| unreadable(&format!("a part of {what} is not an array")))?;
    positions
        .iter()
        .map(|position| match position {
            Json::Array(xy) => match (xy.first().and_then(number), xy.get(1).and_then(number)) {
                (Some(x), Some(y)) => Ok(Coord { x, y }),
                _ => Err(Unusable::new(GeometryError::ShortPosition, FIX_GEOMETRY)),
            },
            Json::Object(_) => Err(curve()),
            _ => Err(unreadable(&format!("a position of {what} is not an array"))),
        })
        .collect()
}

#[cfg(test)]
mod tests;
