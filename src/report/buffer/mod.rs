//! Buffer reports: every parcel and feature within a distance of a source — the mean-high-water line, the
//! mapped systems, or any layer — with exact distances, and the buffer polygon itself.
//!
//! Serves Gorham Ch. 56 §401.1(c) (every well, spring, water supply, building and watercourse within 500 ft of a
//! proposed system, on adjacent properties too) as well as the 500-ft shoreline question of Article V.
//! Distances are measured exactly against the indexed source ([`crate::classify::DistanceIndex`] over its pieces, with
//! points as pieces of no length); the polygon is [`crate::geom::buffer::buffer`] of the source in the working
//! CRS, for maps and files only: membership is decided by the exact distance, never by the polygon's
//! approximated arcs.

pub mod table;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use geo::{Geometry, MultiPolygon};
use rayon::prelude::*;

use crate::classify::DistanceIndex;
use crate::crs::layer::Layer;
use crate::formats::same_layer;
use crate::model::error::{Error, Problem, Result};
use crate::pipeline::config::Config;
use crate::pipeline::reference::load;
use crate::pipeline::{Lap, Progress, Run, Stopwatch};

/// What the distance is measured from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BufferSource {
    /// The rule set's mean-high-water lines (lake polygons or lines of the shoreline layer, or the lines a
    /// DEM gave).
    Shoreline,
    /// The shoreline layer's lines as the file has them, also where a DEM gave the mean-high-water line: the
    /// check on it.
    ShorelineLayer,
    /// The systems layer's points.
    Systems,
    /// Any layer's features.
    Layer(PathBuf),
}

impl BufferSource {
    /// `shoreline`, `shoreline-layer`, `systems`, or a layer's path.
    pub fn parse(text: &str) -> Self {
        match text.trim().to_ascii_lowercase().as_str() {
            "shoreline" | "shore" | "mhw" => BufferSource::Shoreline,
            "shoreline-layer" => BufferSource::ShorelineLayer,
            "systems" => BufferSource::Systems,
            _ => BufferSource::Layer(PathBuf::from(text.trim())),
        }
    }

    /// A label for the report.
    pub fn label(&self) -> String {
        match self {
            BufferSource::Shoreline => "the mean-high-water line".into(),
            BufferSource::ShorelineLayer => "the shoreline layer's line".into(),
            BufferSource::Systems => "the mapped systems".into(),
            BufferSource::Layer(path) => layer_name(path),
        }
    }
}

/// One parcel or feature within the distance.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// `parcel` or `feature`.
    pub kind: &'static str,
    /// `parcels`, or the feature layer's file stem.
    pub layer: String,
    /// The parcel id, or the feature's id/name attribute (its record number without one).
    pub id: String,
    /// Exact distance from the source, feet.
    pub distance_ft: f64,
    /// The parcel's row in the run, for parcels.
    pub row: Option<usize>,
    /// The feature's geometry in the working CRS, for features.
    pub geometry: Option<Geometry<f64>>,
}

/// A buffer report.
#[derive(Debug, Clone)]
pub struct BufferReport {
    /// The distance, feet.
    pub distance_ft: f64,
    /// What it is measured from.
    pub source: String,
    /// The buffer polygon (working CRS).
    pub zone: MultiPolygon<f64>,
    /// Parcels and features within the distance, nearest first (then by kind, layer and id).
    pub hits: Vec<Hit>,
    /// Wall time of each stage of the report, for `-v`.
    pub timings: Vec<Lap>,
}

fn layer_name(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned())
}

/// The layer at `path`: the run's own when it is one of the reference layers the run read (not read again;
/// its problems are the run's already), else read now, its problems added to `problems` — but for the
/// systems layer, whose problems the run reported when it read it.
fn layer_at<'a>(
    run: &'a Run,
    config: &Config,
    path: &Path,
    problems: &mut Vec<Problem>,
) -> Result<Cow<'a, Layer>> {
    if let Some(layer) = run.reference.layer_at(path) {
        return Ok(Cow::Borrowed(layer));
    }
    let (layer, found) = load(path, config, None)?;
    if !config.layers.systems.as_deref().is_some_and(|systems| same_layer(systems, path)) {
        problems.extend(found);
    }
    Ok(Cow::Owned(layer))
}

/// The features of `layer` with a usable geometry.
fn usable(layer: &Layer) -> impl Iterator<Item = &Geometry<f64>> {
    layer.features.iter().filter_map(|f| f.geometry.as_ref().ok())
}

/// The parcels of `run` and the features of the `features` layers within `distance_ft` of `from`.
///
/// The mean-high-water line, and any reference layer named as the source or among the features, are the
/// run's ([`Run::reference`]): only other layers are read here.
pub fn buffer_report(
    run: &Run,
    config: &Config,
    from: &BufferSource,
    distance_ft: f64,
    features: &[PathBuf],
) -> Result<(BufferReport, Vec<Problem>)> {
    buffer_report_with(run, config, from, distance_ft, features, &Progress::default())
}

/// [`buffer_report`], reporting its stages and the parcels measured to `progress`.
pub fn buffer_report_with(
    run: &Run,
    config: &Config,
    from: &BufferSource,
    distance_ft: f64,
    features: &[PathBuf],
    progress: &Progress,
) -> Result<(BufferReport, Vec<Problem>)> {
    let mut clock = Stopwatch::new();
    if !(distance_ft.is_finite() && distance_ft > 0.0) {
        return Err(Error::Config(format!(
            "--distance {distance_ft}: give a distance in feet greater than 0"
        )));
    }
    let mut problems = Vec::new();
    let source_layer;
    let source: Vec<&Geometry<f64>> = match from {
        BufferSource::Shoreline => run.reference.mean_high_water().map(|(g, _)| g).collect(),
        BufferSource::ShorelineLayer => run.reference.supplied_shoreline().map(|(g, _)| g).collect(),
        BufferSource::Systems => {
            let path = config.layers.systems.as_deref().ok_or_else(|| {
                Error::Config("--from systems needs a systems layer: give --systems FILE".into())
            })?;
            source_layer = layer_at(run, config, path, &mut problems)?;
            usable(&source_layer).collect()
        }
        BufferSource::Layer(path) => {
            source_layer = layer_at(run, config, path, &mut problems)?;
            usable(&source_layer).collect()
        }
    };
    if source.is_empty() {
        return Err(Error::Config(format!(
            "nothing to measure from: {} has no usable features; check the layer (or the rule set's water bodies)",
            from.label()
        )));
    }
    clock.lap("buffer: read the source");
    progress.start("buffer polygon", 0);
    let zone = crate::geom::buffer::buffer(source.iter().copied(), distance_ft);
    clock.lap("buffer: polygon");
    progress.start("measuring distances", run.rows.len());
    let index = DistanceIndex::new(source.into_iter().map(|g| (g, "")), distance_ft);

    let mut hits: Vec<Hit> = run
        .rows
        .par_iter()
        .enumerate()
        .filter_map(|(at, row)| {
            progress.advance();
            let shape = row.parcel.shape.as_ref()?;
            let hit = index.nearest_to_parcel(shape)?;
            Some(Hit {
                kind: "parcel",
                layer: "parcels".into(),
                id: row.parcel.id.to_string(),
                distance_ft: hit.parcel_distance_ft,
                row: Some(at),
                geometry: None,
            })
        })
        .collect();
    for path in features {
        let layer = layer_at(run, config, path, &mut problems)?;
        let name = layer_name(path);
        let id_field = ["ID", "NAME", "WELL_ID", "FEATURE_ID", "PARCEL_ID", "OBJECTID"]
            .iter()
            .find_map(|f| layer.field_index(f));
        for feature in &layer.features {
            let Ok(geometry) = &feature.geometry else { continue };
            let Some(distance_ft) = distance_to(&index, geometry) else { continue };
            let id = id_field
                .and_then(|f| feature.values[f].as_text())
                .unwrap_or_else(|| format!("record {}", feature.record));
            hits.push(Hit {
                kind: "feature",
                layer: name.clone(),
                id,
                distance_ft,
                row: None,
                geometry: Some(geometry.clone()),
            });
        }
    }
    // Nearest first at the precision written (0.1 ft), so equal distances list in id order.
    let tenths = |d: f64| (d * 10.0).round() as i64;
    hits.sort_by(|a, b| {
        (tenths(a.distance_ft), a.kind, &a.layer, &a.id).cmp(&(
            tenths(b.distance_ft),
            b.kind,
            &b.layer,
            &b.id,
        ))
    });
    clock.lap("buffer: distances");
    Ok((BufferReport { distance_ft, source: from.label(), zone, hits, timings: clock.laps }, problems))
}

/// Exact distance from `geometry` to the nearest source feature, if within the index's radius.
fn distance_to(index: &DistanceIndex, geometry: &Geometry<f64>) -> Option<f64> {
    match geometry {
        Geometry::Point(p) => index.distance_from_point([p.x(), p.y()]),
        Geometry::MultiPoint(mp) => {
            mp.0.iter().filter_map(|p| index.distance_from_point([p.x(), p.y()])).min_by(f64::total_cmp)
        }
        Geometry::LineString(l) => index.distance_from_line(l),
        Geometry::MultiLineString(ml) => {
            ml.0.iter().filter_map(|l| index.distance_from_line(l)).min_by(f64::total_cmp)
        }
        Geometry::Polygon(p) => {
            index.nearest_to_parcel(&MultiPolygon(vec![p.clone()])).map(|h| h.parcel_distance_ft)
        }
        Geometry::MultiPolygon(mp) => index.nearest_to_parcel(mp).map(|h| h.parcel_distance_ft),
        _ => None,
    }
}
