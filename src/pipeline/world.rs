//! The reference layers indexed for classification: the `classify::World` each parcel is measured against,
//! built once a run from the layers the run keeps.

use crate::classify::{AreaLayer, Areas, DistanceIndex, Floodplain, World};
use crate::pipeline::config::Config;
use crate::pipeline::reference::{NamedLayer, Reference};

/// Indexes the reference layers for classification, measuring from `mean_high_water`. The indexes borrow the features while they are built
/// and keep only what they measure with, so the layers themselves stay whole for the run's maps and buffer
/// reports.
pub(super) fn build_world<'a>(
    config: &Config,
    reference: &Reference,
    mean_high_water: impl Iterator<Item = (&'a geo::Geometry<f64>, &'a str)>,
) -> World {
    let rules = &config.rules;
    let lake_zone_ft = rules.floodplain.as_ref().map_or(0.0, |f| f.lake_zone_within_ft);
    let radius_ft = rules.search_radius_ft().max(config.border_tolerance_ft).max(lake_zone_ft);
    let named = |layer: &Option<NamedLayer>| {
        layer.as_ref().map(|l| AreaLayer::new(l.areas().map(|(shape, name)| (shape, name.as_deref()))))
    };
    // Only the watersheds of the rule set's water bodies count (§IV.A.1 ¶3 names two); the reference reader
    // gave those their canonical names and noted the others.
    let named_watersheds = reference.watersheds.as_ref().map(|w| {
        AreaLayer::new(w.areas().filter_map(|(shape, name)| {
            let name = name.as_deref()?;
            rules.water_bodies.iter().any(|b| b.name == name).then_some((shape, Some(name)))
        }))
    });
    let areas = Areas {
        municipalities: rules.jurisdiction.municipalities.iter().map(|m| m.as_str().into()).collect(),
        watersheds: named_watersheds,
        towns: named(&reference.towns),
        sewered: named(&reference.sewered),
        county: named(&reference.county),
        places: Default::default(),
    };
    // Watercourse distances are exact as far out as the shoreline's (and at least twice the separation the
    // law asks for), so the column means the same for a stream as for the lake.
    let watercourse_radius_ft =
        rules.permits.as_ref().map_or(0.0, |p| 2.0 * p.min_watercourse_ft).max(radius_ft);
    let shore = DistanceIndex::new(mean_high_water, radius_ft);
    World {
        floodplain: reference
            .floodplain
            .as_ref()
            .map(|z| Floodplain::new(z.areas(), &shore, lake_zone_ft))
            .unwrap_or_default(),
        shore,
        areas,
        // Only the features the rule set's table counts as watercourses (Art. V §II.35: not an ephemeral
        // channel off the county's map); the reference reader noted the others.
        watercourses: reference.watercourses.as_ref().map(|w| {
            let standing = w.features().filter(|(_, f)| f.stands);
            DistanceIndex::new(standing.map(|(g, f)| (g, f.name.as_str())), watercourse_radius_ft)
        }),
        border_tolerance_ft: config.border_tolerance_ft,
    }
}
