//! The schedule map of `lakeshore map`: turns a run's rows and the reference layers into a
//! [`crate::map::MapInput`] — parcels classed by tier or status (failed and overdue marked on either), the
//! mean-high-water line, its buffer at the rule set's distance, the watershed outline, the special flood hazard
//! areas and the towns — for the whole county or one town.

use geo::{BoundingRect, Buffer, GeometryCollection, MultiPolygon};

use crate::error::{Error, Result};
use crate::map::{ColourBy, MapInput, ParcelClass};
use crate::obligations::Class;
use crate::pipeline::{Row, Run};
use crate::reference::Reference;
use crate::schedule::Status;

/// What to map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapOptions {
    /// Colour parcels by tier or by status.
    pub colour_by: ColourBy,
    /// Only this town (case-insensitive), framed on its boundary.
    pub town: Option<String>,
}

fn town_of<'a>(row: &'a Row<'_>) -> Option<&'a str> {
    row.facts.as_ref().and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref())
}

/// The class a parcel is drawn in: failed systems and (on a tier map) overdue parcels stand out.
fn class_of(row: &Row<'_>, colour_by: ColourBy) -> ParcelClass {
    let e = &row.entry;
    if e.permit.as_ref().is_some_and(|p| p.class == Class::Failed) {
        return ParcelClass::Failed;
    }
    let by_tier = || ParcelClass::from_tier(e.tier).unwrap_or(ParcelClass::Unscheduled);
    match (colour_by, e.status) {
        (ColourBy::Tier, Some(Status::Overdue)) => ParcelClass::Overdue,
        (ColourBy::Tier, _) | (ColourBy::Status, None) => by_tier(),
        (ColourBy::Status, Some(status)) => ParcelClass::from_status(status.as_str()).unwrap_or_else(by_tier),
    }
}

/// The map input of `run` with the `reference` layers, as `options` asks.
pub fn map_input<'a>(
    run: &'a Run<'_>,
    reference: Reference,
    options: &MapOptions,
    as_of: String,
) -> Result<MapInput<'a>> {
    let rules = run.rules;
    let wanted = |name: Option<&str>| match (&options.town, name) {
        (None, _) => true,
        (Some(town), Some(name)) => {
            rules.municipality(name).unwrap_or_else(|| name.to_string()).eq_ignore_ascii_case(town.trim())
        }
        (Some(_), None) => false,
    };
    let parcels: Vec<_> = run
        .rows
        .iter()
        .filter(|row| wanted(town_of(row)))
        .filter_map(|row| Some((row.parcel.shape.as_ref()?, class_of(row, options.colour_by))))
        .collect();
    let towns: Vec<(MultiPolygon<f64>, String)> = reference
        .towns
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(shape, name)| Some((shape, name?)))
        .collect();
    let extent = match &options.town {
        None => None,
        Some(town) => {
            let frame = towns
                .iter()
                .filter(|(_, name)| wanted(Some(name)))
                .find_map(|(shape, _)| shape.bounding_rect());
            if frame.is_none() && parcels.is_empty() {
                return Err(Error::Config(format!(
                    "--town {town}: no parcel or town polygon of that name; check the spelling"
                )));
            }
            frame.map(|r| {
                let margin = 0.05 * r.width().max(r.height());
                [r.min().x - margin, r.min().y - margin, r.max().x + margin, r.max().y + margin]
            })
        }
    };
    let shoreline: Vec<_> = reference.shoreline.into_iter().map(|(g, _)| g).collect();
    let distance_ft = rules.max_distance_ft();
    let buffer = (distance_ft > 0.0 && !shoreline.is_empty())
        .then(|| GeometryCollection(shoreline.clone()).buffer(distance_ft));
    let floodplain = reference
        .floodplain
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, zone)| zone.sfha)
        .map(|(shape, _)| shape)
        .collect();
    let what = match options.colour_by {
        ColourBy::Tier => "inspection tiers",
        ColourBy::Status => "inspection status",
    };
    let place = options.town.as_deref().map(|t| format!(", {t}")).unwrap_or_default();
    Ok(MapInput {
        parcels,
        colour_by: options.colour_by,
        shoreline,
        buffer,
        watershed: reference.watersheds.unwrap_or_default().into_iter().map(|(shape, _)| shape).collect(),
        floodplain,
        towns,
        title: format!("{}{place}: septic {what}", rules.jurisdiction.name),
        as_of,
        extent,
    })
}
