//! Classification: the spatial facts about one parcel that the rules need, each with its basis.
//!
//! [`World`] holds the prepared (projected, indexed) reference layers; [`classify`] answers, for one
//! [`Parcel`], how far it is from the mean-high-water line and whether it borders it, where its system is,
//! whether it is in a watershed, a floodplain, a sewer district or the county, and which town it is in. The
//! facts are plain data ([`crate::model::facts`]), and classification decides no verdict: where the law
//! makes a call — whether a parcel uses public sewer, whether a system is high enough above the flood — it
//! returns the [`Evidence`] (the sewer code and the district found, the flood zones found) and leaves the
//! verdict fields of the facts empty for the law to fill (`law::judge`). One module per predicate: [`shore`]
//! (lakefront and distance), [`floodplain`], and [`areas`] (watershed, town, sewer district, county).

pub mod areas;
pub mod fields;
pub mod floodplain;
pub mod parcels;
pub mod shore;

use geo::{MultiPolygon, Point};

use crate::model::facts::{Basis, District, Evidence, Facts, Measured, NearestWater, SewerFacts};
use crate::rules::RuleSet;

pub use areas::{AreaLayer, Areas};
pub use floodplain::{FloodZone, Floodplain};
pub use shore::DistanceIndex;

/// A parcel ready for classification: projected geometry and the attributes the rules read.
#[derive(Debug, Clone)]
pub struct Parcel {
    /// The parcel polygon(s), in the working CRS.
    pub shape: MultiPolygon<f64>,
    /// The town named by the parcel's own attribute (e.g. `MUNI_NAME`), as written.
    pub town_attribute: Option<String>,
    /// The assessor's sewer code, as written.
    pub sewer_code: Option<String>,
    /// The New York SWIS code (county, city or town, village), as written.
    pub swis: Option<String>,
    /// The parcel's on-site system, when the systems layer has one for it.
    pub system: Option<System>,
    /// The lot the system lies on, measured, when it is not the parcel itself (a system on the owner's lot
    /// across the road): where a system lies is tested on the lot it lies on.
    pub lot: Option<Lot>,
}

/// What a lot is measured for: the nearest mean-high-water line to its edge, and whether it borders it.
#[derive(Debug, Clone, PartialEq)]
pub struct Lot {
    /// The nearest mean-high-water line within the search radius, and the lot edge's distance to it.
    pub shore: Option<NearestWater>,
    /// The lot borders the mean-high-water line (edge within the border tolerance, or overlapping the lake).
    pub borders_mhw: bool,
}

/// The lot `shape` measured against the mean-high-water lines of `world`.
pub fn lot(world: &World, shape: &MultiPolygon<f64>) -> Lot {
    let shore = world.shore.nearest_to_parcel(shape);
    let borders_mhw = shore.as_ref().is_some_and(|s| s.parcel_distance_ft <= world.border_tolerance_ft);
    Lot { shore, borders_mhw }
}

/// An on-site wastewater system's location and absorption-field bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    /// Location in the working CRS.
    pub location: Point<f64>,
    /// Elevation of the bottom of the absorption field, USGS feet, when surveyed.
    pub bottom_ft: Option<f64>,
}

/// The reference layers, projected and indexed once, shared read-only by every parcel.
#[derive(Debug)]
pub struct World {
    /// Shorelines (mean-high-water lines) and the lakes they bound.
    pub shore: DistanceIndex,
    /// Watersheds, towns, sewer districts and the county boundary.
    pub areas: Areas,
    /// FEMA flood zones.
    pub floodplain: Floodplain,
    /// Watercourses and wetlands (lines and polygons), when a layer was given: the features the rule set's
    /// table of terms counts as watercourses (`RuleSet::term`). Distances up to its radius are exact.
    pub watercourses: Option<DistanceIndex>,
    /// How close a parcel edge must come to the mean-high-water line to border it, feet.
    pub border_tolerance_ft: f64,
}

/// Classifies one parcel against the prepared layers: its facts, their verdict fields (public sewer, the flood
/// verdict) left empty, and the evidence the law judges to fill them.
pub fn classify<'a>(world: &'a World, rules: &RuleSet, parcel: &'a Parcel) -> (Facts, Evidence<'a>) {
    let basis = if parcel.system.is_some() { Basis::System } else { Basis::Parcel };
    // The system point, when known, locates the parcel (town, sewer district); otherwise the parcel's interior
    // point stands for it, which always lies inside the parcel, unlike the centroid of an L-shaped lot.
    let system_at = parcel.system.map(|s| [s.location.x(), s.location.y()]);
    let locate = system_at.or_else(|| crate::geom::planar::interior_point(&parcel.shape));

    let Lot { shore, borders_mhw } = parcel.lot.clone().unwrap_or_else(|| lot(world, &parcel.shape));
    let system_mhw_ft =
        system_at.map_or(Measured::Unmeasured, |p| Measured::searched(world.shore.distance_from_point(p)));

    let watershed = match system_at {
        Some(p) => world.areas.watershed_at(p),
        None => world.areas.watershed_touching(&parcel.shape),
    };
    let (town, unknown_town) =
        world.areas.town(rules, locate, parcel.town_attribute.as_deref(), parcel.swis.as_deref());
    // Art. V §I.B: the law decides from the assessor's code and the district the parcel lies in.
    let district =
        world.areas.sewer_district(locate).map(|name| District { name: name.map(|n| &**n), basis });
    let sewer = SewerFacts { code: parcel.sewer_code.as_deref(), district };
    // Art. V §I.C.1: systems "located wholly or partially within" the county.
    let in_county = match system_at {
        Some(p) => world.areas.in_county(p),
        None => world.areas.touches_county(&parcel.shape),
    };
    let flood = world.floodplain.zones_at(parcel);
    // A lake is a watercourse too (Art. V §II.35): the nearer of the watercourse layer and the MHW line.
    let watercourse_ft = world.watercourses.as_ref().map_or(Measured::Unmeasured, |w| {
        let (stream, lake) = match system_at {
            Some(p) => (w.distance_from_point(p), system_mhw_ft.ft()),
            None => (
                w.nearest_to_parcel(&parcel.shape).map(|hit| hit.parcel_distance_ft),
                shore.as_ref().map(|s| s.parcel_distance_ft),
            ),
        };
        Measured::searched(match (stream, lake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        })
    });

    let facts = Facts {
        town,
        unknown_town,
        shore,
        borders_mhw,
        system_mhw_ft,
        system_bottom_ft: parcel.system.and_then(|s| s.bottom_ft),
        watershed,
        flood: None,
        sewered: None,
        sewer_disagreement: None,
        watercourse_ft,
        in_county,
        basis,
    };
    (facts, Evidence { sewer, flood })
}
