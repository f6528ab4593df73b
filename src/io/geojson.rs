//! The GeoJSON reader: an RFC 7946 FeatureCollection, streamed one feature at a time.
//!
//! serde_json's streaming deserializer runs over a `BufReader<File>`; each element of `features` is turned
//! into a [`Feature`] as soon as it is parsed, so memory holds the features read so far plus one feature's
//! JSON, never the whole document. geojson's `FeatureReader` is not used: it finds the features array by
//! looking for the first `[` of the file, so a `bbox` before `features` derails it, and it never sees the
//! pre-RFC `crs` member that county exports often carry. That member, when present, names the layer's CRS
//! (`urn:ogc:def:crs:EPSG::2261`, `EPSG:2261`); without it the layer is WGS 84, and coordinates that cannot
//! be longitude/latitude are caught here rather than misplaced later.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use geo::{BoundingRect, Geometry};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::{check_geometry, select_fields, ReadOptions, Unusable};
use crate::crs::{Crs, CrsDef};
use crate::error::{Error, Problem, Result};
use crate::layer::{Feature, Layer, Value};

const FIX_GEOMETRY: &str = "correct the feature's geometry or delete the feature";

/// The property names of the first feature of the GeoJSON file at `path`, in the file's order; the file is
/// read no further than that feature.
pub(super) fn field_names(path: &Path) -> Result<Vec<String>> {
    let mut collector = Collector::new(path, None, true);
    parse(path, &mut collector)?;
    Ok(collector.fields)
}

/// Reads the GeoJSON FeatureCollection at `path`.
pub(super) fn read(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let keep = options.keep.as_deref();
    let mut collector = Collector::new(path, keep, false);
    parse(path, &mut collector)?;
    match collector.collection_type.as_ref() {
        Some(Json::String(t)) if t == "FeatureCollection" => {}
        None if collector.has_features => {}
        other => {
            let found = other.map_or("no type".to_string(), |t| format!("a {t}"));
            return Err(Error::format(
                path,
                format!("{found}, not a GeoJSON FeatureCollection: export the layer as a FeatureCollection"),
            ));
        }
    }
    if !collector.has_features {
        return Err(Error::format(path, "FeatureCollection without a features member: re-export the layer"));
    }
    select_fields(path, &collector.seen, keep)?;
    let named_crs = collector.crs.take().filter(|member| !member.is_null());
    let explicit = named_crs.is_some();
    let crs = match named_crs {
        Some(member) => crs_member(path, &member)?,
        None => Crs::wgs84(),
    };
    let Collector { fields, mut features, mut problems, .. } = collector;
    for feature in &mut features {
        feature.values.resize(fields.len(), Value::Null);
    }
    if crs == Crs::wgs84() {
        check_lon_lat(path, explicit, &mut features, &mut problems)?;
    }
    problems.sort_by_key(|(record, _)| *record);
    let problems = problems.into_iter().map(|(_, p)| p).collect();
    Ok((Layer { path: path.to_path_buf(), crs, fields, features }, problems))
}

fn parse(path: &Path, collector: &mut Collector) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut json = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 16, file));
    let result = (&mut json).deserialize_map(TopVisitor(&mut *collector)).and_then(|()| json.end());
    match result {
        Err(_) if collector.stopped => Ok(()),
        Err(e) if e.is_io() => Err(Error::io(path, e.into())),
        Err(e) => {
            Err(Error::format(path, format!("not readable GeoJSON ({e}): correct the file or re-export it")))
        }
        Ok(()) => Ok(()),
    }
}

/// What the parse has gathered so far.
struct Collector<'a> {
    path: &'a Path,
    keep: Option<&'a [String]>,
    /// Stop after the first feature (for [`field_names`]).
    first_only: bool,
    /// Set when the parse was cut short on purpose.
    stopped: bool,
    /// Every property name seen, in first-seen order.
    seen: Vec<String>,
    /// Where each property's value goes in [`Feature::values`]; `None` for properties not kept.
    slots: HashMap<String, Option<usize>>,
    /// The kept property names, in first-seen order.
    fields: Vec<String>,
    features: Vec<Feature>,
    problems: Vec<(usize, Problem)>,
    collection_type: Option<Json>,
    crs: Option<Json>,
    has_features: bool,
}

impl<'a> Collector<'a> {
    fn new(path: &'a Path, keep: Option<&'a [String]>, first_only: bool) -> Self {
        Collector {
            path,
            keep,
            first_only,
            stopped: false,
            seen: Vec::new(),
            slots: HashMap::new(),
            fields: Vec::new(),
            features: Vec::new(),
            problems: Vec::new(),
            collection_type: None,
            crs: None,
            has_features: false,
        }
    }

    /// Stores a property of the feature being read into `values`.
    fn set_property(&mut self, name: String, json: Json, values: &mut Vec<Value>) {
        let slot = match self.slots.get(&name) {
            Some(&slot) => slot,
            None => {
                let kept = self.keep.is_none_or(|keep| keep.iter().any(|k| k.eq_ignore_ascii_case(&name)));
                let slot = kept.then(|| {
                    self.fields.push(name.clone());
                    self.fields.len() - 1
                });
                self.seen.push(name.clone());
                self.slots.insert(name, slot);
                slot
            }
        };
        if let Some(slot) = slot {
            if values.len() <= slot {
                values.resize(slot + 1, Value::Null);
            }
            values[slot] = property_value(json);
        }
    }

    /// Adds the feature just parsed.
    fn push(&mut self, kind: Option<Json>, geometry: Option<Json>, values: Vec<Value>) {
        let record = self.features.len() + 1;
        let geometry = match kind {
            Some(Json::String(t)) if t == "Feature" => to_geometry(geometry),
            _ => Err(Unusable::new("not a GeoJSON Feature (its type is not \"Feature\")", FIX_GEOMETRY)),
        };
        let geometry = geometry.and_then(|g| check_geometry(&g).map(|()| g)).map_err(|unusable| {
            self.problems.push((record, unusable.problem(self.path, record)));
            unusable.reason
        });
        self.features.push(Feature { record, geometry, values });
    }
}

fn to_geometry(json: Option<Json>) -> Result<Geometry<f64>, Unusable> {
    let json = match json {
        None | Some(Json::Null) => return Err(Unusable::new("no geometry", "add one or delete the feature")),
        Some(json) => json,
    };
    let unreadable = |e: &dyn fmt::Display| Unusable::new(format!("unreadable geometry ({e})"), FIX_GEOMETRY);
    let geometry: ::geojson::Geometry = serde_json::from_value(json).map_err(|e| unreadable(&e))?;
    // geojson's conversion indexes x and y without checking that a position has them.
    if !positions_have_xy(&geometry.value) {
        return Err(Unusable::new("a position with fewer than 2 coordinates", FIX_GEOMETRY));
    }
    Geometry::<f64>::try_from(&geometry.value).map_err(|e| unreadable(&e))
}

/// Whether every position of `value` has at least x and y.
fn positions_have_xy(value: &::geojson::GeometryValue) -> bool {
    use ::geojson::GeometryValue as G;
    let all = |positions: &[::geojson::Position]| positions.iter().all(|p| p.len() >= 2);
    match value {
        G::Point { coordinates } => coordinates.len() >= 2,
        G::MultiPoint { coordinates } | G::LineString { coordinates } => all(coordinates),
        G::MultiLineString { coordinates } | G::Polygon { coordinates } => coordinates.iter().all(|l| all(l)),
        G::MultiPolygon { coordinates } => coordinates.iter().flatten().all(|l| all(l)),
        G::GeometryCollection { geometries } => geometries.iter().all(|g| positions_have_xy(&g.value)),
    }
}

/// A property as a [`Value`]: strings trimmed (empty is null), arrays and objects as their JSON text.
fn property_value(json: Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(b),
        Json::Number(n) => n.as_f64().map_or(Value::Null, Value::Number),
        Json::String(s) => match s.trim() {
            "" => Value::Null,
            t if t.len() == s.len() => Value::Text(s.into_boxed_str()),
            t => Value::Text(t.into()),
        },
        other => Value::Text(other.to_string().into()),
    }
}

/// The CRS a pre-RFC `crs` member names: `{"type": "name", "properties": {"name": ...}}` or the older
/// `{"type": "EPSG", "properties": {"code": ...}}`.
fn crs_member(path: &Path, member: &Json) -> Result<Crs> {
    let property = |key: &str| member.get("properties").and_then(|p| p.get(key));
    let crs = match member.get("type").and_then(Json::as_str) {
        Some("name") => match property("name").and_then(Json::as_str) {
            Some(name) => named_crs(name).map_or_else(|| Crs::parse(name), Ok).map_err(|e| {
                Error::crs(
                    path,
                    format!(
                        "the crs member names '{name}', which is not understood ({e}): name an EPSG code, as in \
                         \"urn:ogc:def:crs:EPSG::2261\", or re-export the file as RFC 7946 GeoJSON (WGS 84)"
                    ),
                )
            }),
            None => Err(Error::crs(path, "the crs member has no properties.name: name the CRS or remove it")),
        },
        Some("EPSG" | "epsg") => match property("code").and_then(Json::as_u64).and_then(|c| u32::try_from(c).ok()) {
            Some(code) => Ok(Crs { def: CrsDef::Epsg(code) }),
            None => Err(Error::crs(path, "the crs member has no numeric properties.code: fix it or remove it")),
        },
        _ => Err(Error::crs(
            path,
            format!(
                "unsupported crs member {member}: name an EPSG code, as in {{\"type\": \"name\", \"properties\": \
                 {{\"name\": \"urn:ogc:def:crs:EPSG::2261\"}}}}, or re-export the file as RFC 7946 GeoJSON (WGS 84)"
            ),
        )),
    }?;
    Ok(crs)
}

/// The CRS of an OGC URN, OGC URL or `EPSG:n` name, where it is an EPSG code or CRS84.
fn named_crs(name: &str) -> Option<Crs> {
    let upper = name.trim().to_ascii_uppercase();
    if upper.ends_with(":CRS84") || upper.ends_with("/CRS84") || upper == "CRS84" {
        return Some(Crs::wgs84());
    }
    let code = if let Some(rest) = upper.strip_prefix("EPSG:") {
        rest.trim()
    } else if let Some(rest) = upper.strip_prefix("URN:OGC:DEF:CRS:EPSG:") {
        // `EPSG::2261` or, with a version, `EPSG:6.6:2261`.
        rest.rsplit(':').next()?
    } else if upper.starts_with("HTTP") && upper.contains("/EPSG/") {
        upper.rsplit('/').next()?
    } else {
        return None;
    };
    code.parse().ok().map(|code| Crs { def: CrsDef::Epsg(code) })
}

/// In a WGS 84 layer, a feature outside longitude/latitude range is unusable; if every feature is, the file
/// is in some other CRS it does not name, which is an error.
fn check_lon_lat(
    path: &Path,
    explicit: bool,
    features: &mut [Feature],
    problems: &mut Vec<(usize, Problem)>,
) -> Result<()> {
    let mut usable = 0;
    let mut outside = Vec::new();
    for (i, feature) in features.iter().enumerate() {
        let Ok(geometry) = &feature.geometry else { continue };
        usable += 1;
        if let Some(rect) = geometry.bounding_rect() {
            let (min, max) = (rect.min(), rect.max());
            if min.x < -180.0 || max.x > 180.0 || min.y < -90.0 || max.y > 90.0 {
                outside.push((i, format!("x {}..{}, y {}..{}", min.x, max.x, min.y, max.y)));
            }
        }
    }
    if usable > 0 && outside.len() == usable {
        let said = if explicit {
            "the file says WGS 84"
        } else {
            "the file names no CRS, so RFC 7946 WGS 84 applies"
        };
        return Err(Error::crs(
            path,
            format!(
                "the coordinates are not longitude/latitude (record {} spans {}) but {said}: add a crs member \
                 naming the real CRS, as in {{\"type\": \"name\", \"properties\": {{\"name\": \
                 \"urn:ogc:def:crs:EPSG::2261\"}}}}, or re-export the file in WGS 84",
                features[outside[0].0].record,
                outside[0].1
            ),
        ));
    }
    for (i, span) in outside {
        let feature = &mut features[i];
        let unusable = Unusable::new(
            format!("coordinates outside longitude/latitude range ({span})"),
            "correct the coordinates: this layer is WGS 84 longitude/latitude",
        );
        problems.push((feature.record, unusable.problem(path, feature.record)));
        feature.geometry = Err(unusable.reason);
    }
    Ok(())
}

/// Visits the top-level object, handing `features` to [`FeaturesSeed`].
struct TopVisitor<'c, 'p>(&'c mut Collector<'p>);

impl<'de> Visitor<'de> for TopVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a GeoJSON FeatureCollection object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let collector = self.0;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => collector.collection_type = Some(map.next_value()?),
                "crs" => collector.crs = Some(map.next_value()?),
                "features" => {
                    collector.has_features = true;
                    map.next_value_seed(FeaturesSeed(&mut *collector))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The `features` array, read element by element.
struct FeaturesSeed<'c, 'p>(&'c mut Collector<'p>);

impl<'de> DeserializeSeed<'de> for FeaturesSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FeaturesSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of GeoJSON Features")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let collector = self.0;
        while seq.next_element_seed(FeatureSeed(&mut *collector))?.is_some() {
            if collector.first_only {
                collector.stopped = true;
                return Err(de::Error::custom("stopped after the first feature"));
            }
        }
        Ok(())
    }
}

/// One feature: `type` and `geometry` kept as JSON, `properties` stored as they stream past.
struct FeatureSeed<'c, 'p>(&'c mut Collector<'p>);

impl<'de> DeserializeSeed<'de> for FeatureSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FeatureSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a GeoJSON Feature object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let collector = self.0;
        let (mut kind, mut geometry) = (None, None);
        let mut values = Vec::with_capacity(collector.fields.len());
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => kind = Some(map.next_value()?),
                "geometry" => geometry = Some(map.next_value()?),
                "properties" => map.next_value_seed(PropertiesSeed(&mut *collector, &mut values))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        collector.push(kind, geometry, values);
        Ok(())
    }
}

/// A feature's `properties` (an object or null), stored in file order.
struct PropertiesSeed<'c, 'p, 'v>(&'c mut Collector<'p>, &'v mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for PropertiesSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PropertiesSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a properties object or null")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let PropertiesSeed(collector, values) = self;
        while let Some((name, json)) = map.next_entry::<String, Json>()? {
            collector.set_property(name, json, values);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "geojson_tests.rs"]
mod tests;
