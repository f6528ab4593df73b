//! The reference layers — shoreline, watersheds, towns, sewer districts, county, floodplain, watercourses —
//! read and reprojected into the working CRS, with their names and zones, before anything is indexed. The
//! pipeline indexes them for classification; maps and buffer reports draw and measure the same features.

use std::path::Path;

use geo::{Geometry, MultiPolygon};

use crate::classify::FloodZone;
use crate::config::Config;
use crate::crs::Reprojector;
use crate::error::{Error, Problem, Result};
use crate::io::{read_layer, ReadOptions};
use crate::layer::Layer;

/// Reads a layer and reprojects it into the working CRS, keeping only the `keep` fields (all without).
pub(crate) fn load(path: &Path, config: &Config, keep: Option<Vec<String>>) -> Result<(Layer, Vec<Problem>)> {
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep };
    let (layer, mut problems) = read_layer(path, &options)?;
    let reprojector = Reprojector::new(&layer.crs, &config.crs)
        .map_err(|e| Error::crs(path, format!("cannot reproject to {}: {e}", config.crs)))?;
    let (projected, more) = reprojector.project_layer(layer);
    problems.extend(more);
    Ok((projected.into_inner(), problems))
}

/// The first of `candidates` among the layer's fields.
fn name_field(layer: &Layer, explicit: Option<&String>, candidates: &[&str]) -> Result<Option<usize>> {
    if let Some(name) = explicit {
        return layer.field_index(name).map(Some).ok_or_else(|| {
            Error::format(
                &layer.path,
                format!("no field '{name}'; fields found: {}", layer.fields.join(", ")),
            )
        });
    }
    Ok(candidates.iter().find_map(|c| layer.field_index(c)))
}

fn value_text(layer: &Layer, i: usize, field: Option<usize>) -> Option<String> {
    field.and_then(|f| layer.features[i].values[f].as_text())
}

/// The polygons of a geometry, or `None` for other kinds.
fn polygons(g: &Geometry<f64>) -> Option<MultiPolygon<f64>> {
    match g {
        Geometry::Polygon(p) => Some(MultiPolygon(vec![p.clone()])),
        Geometry::MultiPolygon(mp) => Some(mp.clone()),
        _ => None,
    }
}

/// The polygon features of an area layer with their feature index; features that are not polygons are
/// reported and not used.
fn area_features(layer: &Layer, problems: &mut Vec<Problem>) -> Vec<(usize, MultiPolygon<f64>)> {
    let mut out = Vec::new();
    for (i, f) in layer.features.iter().enumerate() {
        match f.geometry.as_ref().map(polygons) {
            Ok(Some(shape)) => out.push((i, shape)),
            Ok(None) => problems.push(Problem::new(
                &layer.path,
                format!("record {}", f.record),
                "not a polygon; this layer needs polygons, the feature is not used",
            )),
            Err(_) => {} // reported by the reader
        }
    }
    out
}

/// The polygon features of an area layer, each with the text of its `field`.
fn named_areas(
    layer: &Layer,
    field: Option<usize>,
    problems: &mut Vec<Problem>,
) -> Vec<(MultiPolygon<f64>, Option<String>)> {
    area_features(layer, problems)
        .into_iter()
        .map(|(i, shape)| (shape, value_text(layer, i, field)))
        .collect()
}

const NAME_FIELDS: [&str; 6] = ["NAME", "WATERBODY", "GNIS_NAME", "LAKE_NAME", "TOWN", "NAMELSAD"];

/// The shoreline features of the rule set's water bodies, in the working CRS, each with its water body's
/// name; features of other water bodies are named in a note and left out.
pub fn shoreline_features(
    config: &Config,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> Result<Vec<(Geometry<f64>, String)>> {
    let mut shoreline = Vec::new();
    let Some(path) = &config.layers.shoreline else { return Ok(shoreline) };
    let (layer, p) = load_layer(path, config)?;
    problems.extend(p);
    let field = name_field(&layer, config.fields.shoreline_name.as_ref(), &NAME_FIELDS)?;
    let mut ignored = std::collections::BTreeSet::new();
    for (i, f) in layer.features.iter().enumerate() {
        let Ok(geometry) = &f.geometry else { continue };
        let name = value_text(&layer, i, field).unwrap_or_default();
        match config.rules.water_body(&name) {
            Some(body) => shoreline.push((geometry.clone(), body.name.clone())),
            None => {
                ignored.insert(if name.is_empty() { "(unnamed)".to_string() } else { name });
            }
        }
    }
    if !ignored.is_empty() {
        notes.push(format!(
            "{}: shoreline of water bodies the rule set does not name, not used: {}",
            path.display(),
            ignored.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(shoreline)
}

/// Reads a layer and reprojects it into the working CRS, keeping every attribute.
pub fn load_layer(path: &Path, config: &Config) -> Result<(Layer, Vec<Problem>)> {
    load(path, config, None)
}

/// Named polygons of an area layer: each shape with its name attribute, when it has one.
pub type NamedAreas = Vec<(MultiPolygon<f64>, Option<String>)>;

/// The reference layers as read, in the working CRS, before they are indexed: what classification measures
/// against, and what a map draws. A layer not configured is `None` (the shoreline: empty).
#[derive(Debug, Default)]
pub struct Reference {
    /// Shoreline features of the rule set's water bodies, with the water body's name.
    pub shoreline: Vec<(Geometry<f64>, String)>,
    /// Watersheds, named by water body (canonical names where the rule set knows them, the name as found
    /// otherwise; those are named in a note).
    pub watersheds: Option<NamedAreas>,
    /// Towns with their names.
    pub towns: Option<NamedAreas>,
    /// Public sewer districts.
    pub sewered: Option<NamedAreas>,
    /// The county boundary.
    pub county: Option<NamedAreas>,
    /// FEMA flood-hazard polygons with their zone.
    pub floodplain: Option<Vec<(MultiPolygon<f64>, FloodZone)>>,
    /// Watercourses and wetlands with their names.
    pub watercourses: Option<Vec<(Geometry<f64>, String)>>,
}

/// Reads the reference layers of `config` (everything but the parcels, systems and record files).
pub fn read_reference(
    config: &Config,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> Result<Reference> {
    let rules = &config.rules;
    let fields = &config.fields;
    let layers = &config.layers;
    let mut reference =
        Reference { shoreline: shoreline_features(config, problems, notes)?, ..Reference::default() };
    if let Some(path) = &layers.watershed {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let field = name_field(&layer, fields.watershed_name.as_ref(), &NAME_FIELDS)?;
        let mut unmatched = std::collections::BTreeSet::new();
        let named = named_areas(&layer, field, problems)
            .into_iter()
            .map(|(shape, name)| {
                let canonical = name.as_deref().and_then(|n| rules.water_body(n)).map(|w| w.name.clone());
                if canonical.is_none() {
                    unmatched.insert(name.clone().unwrap_or_else(|| "(unnamed)".into()));
                }
                (shape, canonical.or(name))
            })
            .collect();
        if !unmatched.is_empty() {
            notes.push(format!(
                "{}: watersheds the rule set does not name (by name or alias), not counted as a named watershed \
                 (if one is, give it a name field, [fields] watershed_name, or add the name to the water body's \
                 aliases): {}",
                path.display(),
                unmatched.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        reference.watersheds = Some(named);
    }
    if let Some(path) = &layers.towns {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let field =
            name_field(&layer, fields.town_name.as_ref(), &["NAME", "TOWN", "MUNI_NAME", "NAMELSAD"])?
                .ok_or_else(|| {
                    Error::format(
                        path,
                        format!(
                            "no town name field; fields found: {}; set [fields] town_name",
                            layer.fields.join(", ")
                        ),
                    )
                })?;
        reference.towns = Some(named_areas(&layer, Some(field), problems));
    }
    for (slot, path) in [(&mut reference.sewered, &layers.sewered), (&mut reference.county, &layers.county)] {
        if let Some(path) = path {
            let (layer, p) = load(path, config, None)?;
            problems.extend(p);
            let field = name_field(&layer, None, &NAME_FIELDS)?;
            *slot = Some(named_areas(&layer, field, problems));
        }
    }
    if let Some(path) = &layers.floodplain {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let zone = name_field(&layer, None, &["FLD_ZONE", "ZONE", "FLOOD_ZONE"])?.ok_or_else(|| {
            Error::format(
                path,
                format!(
                    "no FLD_ZONE field (FEMA NFHL S_FLD_HAZ_AR); fields found: {}",
                    layer.fields.join(", ")
                ),
            )
        })?;
        let subtype = layer.field_index("ZONE_SUBTY");
        let sfha = layer.field_index("SFHA_TF");
        let bfe = name_field(&layer, None, &["STATIC_BFE", "BFE", "BFE_ELEV"])?;
        let attributed = area_features(&layer, problems)
            .into_iter()
            .map(|(i, shape)| {
                let text = |field| value_text(&layer, i, field);
                let static_bfe = bfe.and_then(|b| layer.features[i].values[b].as_f64());
                let zone = FloodZone::from_nfhl(
                    &text(Some(zone)).unwrap_or_default(),
                    text(subtype).as_deref(),
                    text(sfha).as_deref(),
                    static_bfe,
                );
                (shape, zone)
            })
            .collect();
        reference.floodplain = Some(attributed);
    }
    if let Some(path) = &layers.watercourses {
        let (layer, p) = load(path, config, None)?;
        problems.extend(p);
        let field = name_field(&layer, None, &NAME_FIELDS)?;
        let features = (0..layer.features.len())
            .filter_map(|i| {
                let geometry = layer.features[i].geometry.as_ref().ok()?.clone();
                Some((geometry, value_text(&layer, i, field).unwrap_or_default()))
            })
            .collect();
        reference.watercourses = Some(features);
    }
    Ok(reference)
}
