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
use crate::law::schedule::Row;
use crate::model::error::{Error, Problem, Result};
use crate::pipeline::config::Config;
use crate::pipeline::reference::load;
use crate::pipeline::{stream_schedule, Lap, Progress, Run, Stopwatch};

/// The farthest a buffer reaches: 100 miles, past any county. Far beyond it (a distance wider than the
/// Earth) the buffer polygon of the working CRS's plane no longer holds.
pub const MAX_DISTANCE_FT: f64 = 528_000.0;

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
    /// What the report says of a parcel, kept from its row as the rows stream past.
    pub parcel: Option<ParcelHit>,
    /// Its place among hits of equal distance, kind, layer and id: a parcel's position, a feature's index
    /// in the features read, so that two records of one id keep one order however the rows came.
    pub order: usize,
    /// The feature's geometry in the working CRS, for features.
    pub geometry: Option<Geometry<f64>>,
}

/// What a buffer report keeps of a parcel's row: the columns it writes and the shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ParcelHit {
    /// The owner.
    pub owner: Option<String>,
    /// The street address.
    pub location: Option<String>,
    /// The town, as classified (else as the parcels layer says).
    pub town: Option<String>,
    /// The parcel's shape (working CRS).
    pub shape: Option<MultiPolygon<f64>>,
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

/// What a buffer report measures with, made once from the run's reference layers: the buffer polygon and the
/// index of the source's pieces, which the parcels are measured against a block at a time
/// ([`Buffer::parcels`]) and the feature layers after ([`Buffer::features`]).
pub struct Buffer {
    distance_ft: f64,
    source: String,
    zone: MultiPolygon<f64>,
    index: DistanceIndex,
    clock: Stopwatch,
}

impl Buffer {
    /// The buffer of `distance_ft` around `from`, from the reference layers of `run` (a layer other than
    /// those is read now, its problems added to `problems`).
    pub fn new(
        run: &Run,
        config: &Config,
        from: &BufferSource,
        distance_ft: f64,
        progress: &Progress,
        problems: &mut Vec<Problem>,
    ) -> Result<Self> {
        let mut clock = Stopwatch::new();
        if !(distance_ft.is_finite() && distance_ft > 0.0 && distance_ft <= MAX_DISTANCE_FT) {
            return Err(Error::Config(format!(
                "--distance {distance_ft}: give a distance in feet greater than 0 and up to {MAX_DISTANCE_FT} \
                 (100 miles)"
            )));
        }
        let source_layer;
        let source: Vec<&Geometry<f64>> = match from {
            BufferSource::Shoreline => run.reference.mean_high_water().map(|(g, _)| g).collect(),
            BufferSource::ShorelineLayer => run.reference.supplied_shoreline().map(|(g, _)| g).collect(),
            BufferSource::Systems => {
                let path = config.layers.systems.as_deref().ok_or_else(|| {
                    Error::Config("--from systems needs a systems layer: give --systems FILE".into())
                })?;
                source_layer = layer_at(run, config, path, problems)?;
                usable(&source_layer).collect()
            }
            BufferSource::Layer(path) => {
                source_layer = layer_at(run, config, path, problems)?;
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
        progress.start("measuring distances", run.parcels);
        let index = DistanceIndex::new(source.into_iter().map(|g| (g, "")), distance_ft);
        Ok(Buffer { distance_ft, source: from.label(), zone, index, clock })
    }

    /// The parcels of `rows` within the distance, with what the report says of each.
    pub fn parcels(&self, rows: &[Row], progress: &Progress) -> Vec<Hit> {
        rows.par_iter()
            .filter_map(|row| {
                progress.advance();
                let shape = row.parcel.shape.as_ref()?;
                let hit = self.index.nearest_to_parcel(shape)?;
                let town = row.facts.as_ref().and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref());
                Some(Hit {
                    kind: "parcel",
                    layer: "parcels".into(),
                    id: row.parcel.id.to_string(),
                    distance_ft: hit.parcel_distance_ft,
                    order: row.at,
                    parcel: Some(ParcelHit {
                        owner: row.parcel.owner.clone(),
                        location: row.parcel.location.clone(),
                        town: town.map(str::to_string),
                        shape: Some(shape.clone()),
                    }),
                    geometry: None,
                })
            })
            .collect()
    }

    /// The features of the layers `features` within the distance (the run's own reference layers are not
    /// read again; another's problems are added to `problems`).
    pub fn features(
        &self,
        run: &Run,
        config: &Config,
        features: &[PathBuf],
        problems: &mut Vec<Problem>,
    ) -> Result<Vec<Hit>> {
        let mut hits = Vec::new();
        for (k, path) in features.iter().enumerate() {
            // A layer named twice (`--features a.geojson --features ./a.geojson`) is listed once.
            if features[..k].iter().any(|before| same_layer(before, path)) {
                continue;
            }
            let layer = layer_at(run, config, path, problems)?;
            let name = layer_name(path);
            let id_field = ["ID", "NAME", "WELL_ID", "FEATURE_ID", "PARCEL_ID", "OBJECTID"]
                .iter()
                .find_map(|f| layer.field_index(f));
            for feature in &layer.features {
                let Ok(geometry) = &feature.geometry else { continue };
                let Some(distance_ft) = distance_to(&self.index, geometry) else { continue };
                let id = id_field
                    .and_then(|f| feature.values[f].as_text())
                    .unwrap_or_else(|| format!("record {}", feature.record));
                hits.push(Hit {
                    kind: "feature",
                    layer: name.clone(),
                    id,
                    distance_ft,
                    order: hits.len(),
                    parcel: None,
                    geometry: Some(geometry.clone()),
                });
            }
        }
        Ok(hits)
    }

    /// The report of `hits`, nearest first.
    pub fn report(mut self, mut hits: Vec<Hit>) -> BufferReport {
        // Nearest first at the precision written (0.1 ft), so equal distances list in id order.
        let tenths = |d: f64| (d * 10.0).round() as i64;
        hits.par_sort_unstable_by(|a, b| {
            (tenths(a.distance_ft), a.kind, &a.layer, &a.id, a.order).cmp(&(
                tenths(b.distance_ft),
                b.kind,
                &b.layer,
                &b.id,
                b.order,
            ))
        });
        self.clock.lap("buffer: distances");
        BufferReport {
            distance_ft: self.distance_ft,
            source: self.source,
            zone: self.zone,
            hits,
            timings: self.clock.laps,
        }
    }
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
    let (progress, mut problems) = (Progress::default(), Vec::new());
    let buffer = Buffer::new(run, config, from, distance_ft, &progress, &mut problems)?;
    let mut hits = buffer.parcels(&run.rows, &progress);
    hits.extend(buffer.features(run, config, features, &mut problems)?);
    Ok((buffer.report(hits), problems))
}

/// [`buffer_report`] of a run streamed a block at a time: the schedule runs, each block's parcels are measured
/// as it comes and only those within the distance are kept, so a county of millions of parcels takes the
/// memory of its hits. The run comes back without rows (see [`stream_schedule`]).
pub fn stream_buffer_report(
    config: &Config,
    from: &BufferSource,
    distance_ft: f64,
    features: &[PathBuf],
    progress: &Progress,
) -> Result<(Run, BufferReport, Vec<Problem>)> {
    let (mut buffer, mut hits, mut problems) = (None::<Buffer>, Vec::new(), Vec::new());
    // The schedule's own progress counts the parcels; the buffer's stages are not told apart from it.
    let quiet = Progress::default();
    let run = stream_schedule(config, progress, &mut |run, rows| {
        if buffer.is_none() {
            buffer = Some(Buffer::new(run, config, from, distance_ft, &quiet, &mut problems)?);
        }
        if let Some(buffer) = &buffer {
            hits.extend(buffer.parcels(&rows, &quiet));
        }
        Ok(())
    })?;
    let buffer = match buffer {
        Some(buffer) => buffer,
        None => Buffer::new(&run, config, from, distance_ft, &quiet, &mut problems)?,
    };
    hits.extend(buffer.features(&run, config, features, &mut problems)?);
    Ok((run, buffer.report(hits), problems))
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
