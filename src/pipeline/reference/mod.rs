//! The reference layers — shoreline, watersheds, towns, sewer districts, county, floodplain, watercourses —
//! read and reprojected into the working CRS once per run, each kept whole with what the run takes from its
//! features (names, zones). The pipeline indexes them for classification from borrowed features and keeps
//! them in the run it returns (its `reference`); maps draw them and buffer reports measure from them there,
//! without reading a file again. With a DEM, each water body's mean-high-water line is derived from it
//! ([`mhw`]) and the shoreline layer kept as the check.

pub(crate) mod ground;
pub mod mhw;
pub(crate) mod roles;
mod terms;

pub use terms::TermFeature;

use std::path::Path;

use geo::{Geometry, Polygon};

use crate::classify::FloodZone;
use crate::crs::layer::Layer;
use crate::crs::{LayerExtent, Screen};
use crate::formats::{read_layer, same_layer, ReadOptions};
use crate::geom::planar::polygons;
use crate::model::error::{Error, Problem, Result};
use crate::pipeline::config::Config;
use crate::rules::TermLayer;

/// Reads a layer and reprojects it into the working CRS, keeping only the `keep` fields (all without). A
/// feature with a vertex outside the working CRS's area of use or far outside the rest of the layer is made
/// unusable and reported ([`Screen`]).
pub(crate) fn load(path: &Path, config: &Config, keep: Option<Vec<String>>) -> Result<(Layer, Vec<Problem>)> {
    load_placed(path, config, keep, "layer").map(|(layer, problems, _)| (layer, problems))
}

/// [`load`], with where the layer lies in its own CRS and in the working CRS, for the cross-check of the
/// layers; `role` names the layer there.
fn load_placed(
    path: &Path,
    config: &Config,
    keep: Option<Vec<String>>,
    role: &'static str,
) -> Result<(Layer, Vec<Problem>, LayerExtent)> {
    let options = ReadOptions { assume_crs: config.assume_crs.clone(), keep };
    let (layer, mut problems) = read_layer(path, &options)?;
    let mut extent = LayerExtent::new(role, path, &layer.crs);
    extent.add_source(&layer.features);
    let (projected, more) = config.reprojector(path, &layer.crs)?.project_layer(layer);
    problems.extend(more);
    let mut layer = projected.into_inner();
    problems.extend(Screen::new(&config.crs).screen(path, &mut layer.features));
    extent.add_working(&layer.features);
    Ok((layer, problems, extent))
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

/// Reports the features of an area layer that are not polygons: they are not used.
fn report_non_polygons(layer: &Layer, problems: &mut Vec<Problem>) {
    for f in &layer.features {
        if let Ok(geometry) = &f.geometry {
            if polygons(geometry).is_none() {
                problems.push(Problem::new(
                    &layer.path,
                    f.location(),
                    "not a polygon; this layer needs polygons, the feature is not used",
                ));
            }
        }
        // A feature without a usable geometry was reported by the reader.
    }
}

/// The text of `field` of every feature, by feature index.
fn texts(layer: &Layer, field: Option<usize>) -> Vec<Option<String>> {
    (0..layer.features.len()).map(|i| value_text(layer, i, field)).collect()
}

const NAME_FIELDS: [&str; 6] = ["NAME", "WATERBODY", "GNIS_NAME", "LAKE_NAME", "TOWN", "NAMELSAD"];

/// One reference layer as read and reprojected into the working CRS — every feature, its geometry or why it
/// is unusable, every attribute — with what the run takes from each feature (its name, its flood zone).
#[derive(Debug)]
pub struct ReferenceLayer<T> {
    /// The layer as read (the same [`Layer`] a reader of the file would give).
    pub layer: Layer,
    /// What the run takes from each feature, one per feature of [`Self::layer`], in the same order.
    pub attributes: Vec<T>,
}

impl<T> ReferenceLayer<T> {
    /// The features with a usable geometry, in file order, each with what the run takes from it (the
    /// others were reported by the reader).
    pub fn features(&self) -> impl Iterator<Item = (&Geometry<f64>, &T)> {
        self.layer
            .features
            .iter()
            .zip(&self.attributes)
            .filter_map(|(f, a)| Some((f.geometry.as_ref().ok()?, a)))
    }

    /// The polygon features, in file order, each as its polygons; features of other kinds were reported as
    /// not polygons and are not used.
    pub fn areas(&self) -> impl Iterator<Item = (&[Polygon<f64>], &T)> {
        self.features().filter_map(|(g, a)| Some((polygons(g)?, a)))
    }
}

/// A reference layer whose features have a name when they have one.
pub type NamedLayer = ReferenceLayer<Option<String>>;

/// The reference layers as read, in the working CRS, each kept whole: what classification measures against
/// (the pipeline indexes them from borrowed features), what a map draws and what a buffer report measures
/// from. A layer not configured is `None`.
#[derive(Debug, Default)]
pub struct Reference {
    /// The shoreline layer, each feature named by its water body's name in the rule set; `None` for features
    /// of water bodies the rule set does not name, which are listed in a note and not used.
    pub shoreline: Option<NamedLayer>,
    /// Watersheds, named by water body (canonical names where the rule set knows them, the name as found
    /// otherwise; those are named in a note).
    pub watersheds: Option<NamedLayer>,
    /// Towns with their names.
    pub towns: Option<NamedLayer>,
    /// Public sewer districts.
    pub sewered: Option<NamedLayer>,
    /// The county boundary.
    pub county: Option<NamedLayer>,
    /// FEMA flood-hazard polygons with their zone.
    pub floodplain: Option<ReferenceLayer<FloodZone>>,
    /// Watercourses and wetlands with their names (empty without one), each saying whether it is a
    /// watercourse under the rule set's table of terms (an ephemeral channel is not, Art. V §II.35).
    pub watercourses: Option<ReferenceLayer<TermFeature>>,
    /// Where each layer read lies, in its own CRS and in the working CRS, for the cross-check with the
    /// parcels ([`crate::crs::check_overlap`]).
    pub extents: Vec<LayerExtent>,
    /// The DEM, when one was configured.
    pub dem: Option<std::path::PathBuf>,
    /// The mean-high-water lines derived from the DEM (empty without one), which stand in for the
    /// shoreline layer's features of their water bodies.
    pub derived_mhw: Vec<mhw::DerivedMhw>,
}

/// The problem of a layer the config names that holds no feature (an export of an empty selection): a layer
/// named is there to be used, and one without a feature changes the run as if it were left out, as `effect`
/// says.
pub(super) fn no_features(path: &Path, role: &str, effect: &str) -> Problem {
    Problem::new(
        path,
        crate::model::error::Location::WholeFile,
        format!(
            "the {role} layer has no features, so {effect}: export it again with its features, or leave it out \
             of the config"
        ),
    )
}

impl Reference {
    /// The shoreline layer's line: its usable features of the rule set's water bodies, in file order, each
    /// with its water body's name (none without a shoreline layer).
    pub fn supplied_shoreline(&self) -> impl Iterator<Item = (&Geometry<f64>, &str)> {
        self.shoreline
            .iter()
            .flat_map(ReferenceLayer::features)
            .filter_map(|(g, name)| Some((g, name.as_deref()?)))
    }

    /// The mean-high-water line every tier is measured from: the line derived from the DEM for the water
    /// bodies that have one, then the shoreline layer's features of the others, in file order.
    pub fn mean_high_water(&self) -> impl Iterator<Item = (&Geometry<f64>, &str)> {
        let derived = self.derived_mhw.iter().map(|d| (&d.lake, d.water_body.as_str()));
        let supplied = self
            .supplied_shoreline()
            .filter(|(_, name)| !self.derived_mhw.iter().any(|d| d.water_body == *name));
        derived.chain(supplied)
    }

    /// Where the mean-high-water line of `water_body` comes from, as the schedule's `mhw_source` column says
    /// it: `dem 717.13 ft`, or `shoreline layer`.
    pub fn mhw_source(&self, water_body: &str) -> &str {
        self.derived_mhw.iter().find(|d| d.water_body == water_body).map_or("shoreline layer", |d| &d.source)
    }

    /// The layer read from `path`, if it is one of the reference layers: the same file (however the path
    /// spells it) and, in a GeoPackage, the same layer.
    pub fn layer_at(&self, path: &Path) -> Option<&Layer> {
        let named = [&self.shoreline, &self.watersheds, &self.towns, &self.sewered, &self.county];
        let layers = named.into_iter().flatten().map(|l| &l.layer);
        let mut layers = layers
            .chain(self.floodplain.iter().map(|l| &l.layer))
            .chain(self.watercourses.iter().map(|l| &l.layer));
        layers.find(|layer| same_layer(&layer.path, path))
    }
}

/// Reads the reference layers of `config` (everything but the parcels, systems and record files). The
/// pipeline calls it once per run and keeps the result in the run; nothing else reads them.
pub(crate) fn read_reference(
    config: &Config,
    problems: &mut Vec<Problem>,
    notes: &mut Vec<String>,
) -> Result<Reference> {
    let rules = &config.rules;
    let fields = &config.fields;
    let layers = &config.layers;
    let mut reference = Reference::default();
    let mut extents = Vec::new();
    let mut load = |path: &Path, role: &'static str| -> Result<(Layer, Vec<Problem>)> {
        let (layer, mut problems, extent) = load_placed(path, config, None, role)?;
        extents.push(extent);
        if layer.features.is_empty() {
            problems.push(no_features(path, role, "it places no parcel"));
        }
        Ok((layer, problems))
    };
    if let Some(path) = &layers.shoreline {
        let (layer, p) = load(path, "shoreline")?;
        problems.extend(p);
        let field = name_field(&layer, fields.shoreline_name.as_ref(), &NAME_FIELDS)?;
        let mut ignored = std::collections::BTreeSet::new();
        let mut attributes = Vec::with_capacity(layer.features.len());
        for (i, f) in layer.features.iter().enumerate() {
            let name = value_text(&layer, i, field).unwrap_or_default();
            let body = roles::water_body(config, &name);
            if body.is_none() && f.geometry.is_ok() {
                ignored.insert(if name.is_empty() { "(unnamed)".to_string() } else { name });
            }
            attributes.push(body);
        }
        if !ignored.is_empty() {
            notes.push(format!(
                "{}: shoreline of water bodies the rule set does not name, not used: {}",
                path.display(),
                ignored.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        reference.shoreline = Some(ReferenceLayer { layer, attributes });
    }
    if let Some(path) = &layers.watershed {
        let (layer, p) = load(path, "watershed")?;
        problems.extend(p);
        let field = name_field(&layer, fields.watershed_name.as_ref(), &NAME_FIELDS)?;
        report_non_polygons(&layer, problems);
        let mut unmatched = std::collections::BTreeSet::new();
        let mut attributes = Vec::with_capacity(layer.features.len());
        for (i, f) in layer.features.iter().enumerate() {
            let name = value_text(&layer, i, field);
            let canonical = name.as_deref().and_then(|n| roles::water_body(config, n));
            let area = f.geometry.as_ref().is_ok_and(|g| polygons(g).is_some());
            if canonical.is_none() && area {
                unmatched.insert(name.clone().unwrap_or_else(|| "(unnamed)".into()));
            }
            attributes.push(canonical.or(name));
        }
        if !unmatched.is_empty() {
            notes.push(format!(
                "{}: watersheds the rule set does not name (by name or alias), not counted as a named watershed \
                 (if one is, give it a name field, [fields] watershed_name, or add the name to the water body's \
                 aliases): {}",
                path.display(),
                unmatched.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        reference.watersheds = Some(ReferenceLayer { layer, attributes });
    }
    if let Some(path) = &layers.towns {
        let (layer, p) = load(path, "towns")?;
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
        report_non_polygons(&layer, problems);
        let attributes = texts(&layer, Some(field));
        reference.towns = Some(ReferenceLayer { layer, attributes });
    }
    let areas = [
        (&mut reference.sewered, &layers.sewered, "sewer districts"),
        (&mut reference.county, &layers.county, "county"),
    ];
    for (slot, path, role) in areas {
        if let Some(path) = path {
            let (layer, p) = load(path, role)?;
            if role == "county" && layer.features.is_empty() {
                return Err(Error::format(
                    path,
                    "the county layer has no features, so every parcel would lie outside the county: export \
                     it again with the county's boundary, or leave it out of the config",
                ));
            }
            problems.extend(p);
            let field = name_field(&layer, None, &NAME_FIELDS)?;
            report_non_polygons(&layer, problems);
            let attributes = texts(&layer, field);
            *slot = Some(ReferenceLayer { layer, attributes });
        }
    }
    if let Some(path) = &layers.floodplain {
        let (layer, p) = load(path, "floodplain")?;
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
        const BFE: [&str; 3] = ["STATIC_BFE", "BFE", "BFE_ELEV"];
        let bfe = name_field(&layer, fields.floodplain_bfe.as_ref(), &BFE)?;
        if bfe.is_none() {
            problems.extend(roles::floodplain_without_bfe(config, &layer, &BFE));
        }
        report_non_polygons(&layer, problems);
        let attributes = (0..layer.features.len())
            .map(|i| {
                let text = |field| value_text(&layer, i, field);
                let static_bfe = bfe.and_then(|b| layer.features[i].values[b].as_f64());
                let mut zone = FloodZone::from_nfhl(
                    &text(Some(zone)).unwrap_or_default(),
                    text(subtype).as_deref(),
                    text(sfha).as_deref(),
                    static_bfe,
                );
                zone.bfe_unread = bfe.is_none();
                zone
            })
            .collect();
        reference.floodplain = Some(ReferenceLayer { layer, attributes });
    }
    if let Some(path) = &layers.watercourses {
        let (layer, p) = load(path, "watercourses")?;
        problems.extend(p);
        let field = name_field(&layer, None, &NAME_FIELDS)?;
        let attributes =
            terms::read_terms(rules, TermLayer::Watercourses, &layer, texts(&layer, field), notes);
        reference.watercourses = Some(ReferenceLayer { layer, attributes });
    }
    reference.extents = extents;
    if let Some(dem) = &layers.dem {
        if reference.shoreline.is_none() {
            return Err(Error::Config(format!(
                "{}: a DEM needs the shoreline layer, which tells which low ground is each water body; add \
                 [layers] shoreline (or --shoreline FILE)",
                dem.display()
            )));
        }
        reference.derived_mhw = mhw::derive(dem, config, &reference, problems, notes)?;
        reference.dem = Some(dem.clone());
    }
    Ok(reference)
}
