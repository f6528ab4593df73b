//! Classification: the spatial facts about one parcel that the rules need, each with its basis.
//!
//! [`World`] holds the prepared (projected, indexed) reference layers; [`classify`] answers, for one
//! [`Parcel`], how far it is from the mean-high-water line and whether it borders it, where its system is,
//! whether it is in a watershed, a floodplain, a sewer district or the county, and which town it is in. The
//! facts are plain data; [`crate::rules`] decides what they mean. One module per predicate:
//! [`shore`] (lakefront and distance), [`floodplain`], and [`areas`] (watershed, town, sewer, county).

pub mod areas;
pub mod floodplain;
pub mod shore;

use geo::{MultiPolygon, Point};

use crate::rules::RuleSet;

pub use areas::{AreaLayer, Areas, Sewer};
pub use floodplain::{FloodFacts, FloodVerdict, FloodZone, Floodplain};
pub use shore::{Shore, ShoreFacts};

/// A shared name (town, water body, watershed): one allocation per layer feature, cloned into each parcel's
/// facts by reference count.
pub type Name = std::sync::Arc<str>;

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
}

/// An on-site wastewater system's location and absorption-field bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    /// Location in the working CRS.
    pub location: Point<f64>,
    /// Elevation of the bottom of the absorption field, USGS feet, when surveyed.
    pub bottom_ft: Option<f64>,
}

/// What a fact was measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The system's surveyed location.
    System,
    /// The parcel polygon (the system's location is unknown).
    Parcel,
}

impl Basis {
    /// "system" or "parcel".
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::System => "system",
            Basis::Parcel => "parcel",
        }
    }
}

/// The reference layers, projected and indexed once, shared read-only by every parcel.
#[derive(Debug)]
pub struct World {
    /// Shorelines (mean-high-water lines) and the lakes they bound.
    pub shore: Shore,
    /// Watersheds, towns, sewer districts and the county boundary.
    pub areas: Areas,
    /// FEMA flood zones.
    pub floodplain: Floodplain,
    /// Watercourses and wetlands (lines and polygons), when a layer was given. Distances up to its radius
    /// are exact.
    pub watercourses: Option<Shore>,
    /// How close a parcel edge must come to the mean-high-water line to border it, feet.
    pub border_tolerance_ft: f64,
}

/// Everything the rules need to know about one parcel.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// The canonical town name, when known.
    pub town: Option<Name>,
    /// The town as found (attribute or towns layer) when it is not a municipality of the rule set.
    pub unknown_town: Option<String>,
    /// The nearest mean-high-water line within the search radius, and the parcel edge's distance to it.
    pub shore: Option<ShoreFacts>,
    /// The parcel borders the mean-high-water line (edge within the border tolerance, or overlapping the lake).
    pub borders_mhw: bool,
    /// The system's distance to the nearest mean-high-water line, when the system location is known and the
    /// line is within the search radius; `Some(None)` means known location, farther than the radius.
    pub system_mhw_ft: Option<Option<f64>>,
    /// The system's absorption-field bottom elevation, feet, when surveyed.
    pub system_bottom_ft: Option<f64>,
    /// The watershed of one of the rule set's water bodies (by its canonical name) the system, or else any
    /// part of the parcel, is in.
    pub watershed: Option<Name>,
    /// The flood zone and elevation verdict, when the system or parcel is in a special flood hazard area
    /// (boxed: few parcels have one, and every parcel carries the field).
    pub flood: Option<Box<FloodFacts>>,
    /// Why the parcel is on public sewer, if it is.
    pub sewered: Option<String>,
    /// The assessor's sewer code says the parcel does not use public sewer while a sewer district contains
    /// it: what each says (the code decided; the disagreement is reported).
    pub sewer_disagreement: Option<String>,
    /// Distance from the absorption field (the system, else the parcel) to the nearest watercourse or wetland,
    /// the lakes' mean-high-water line included: `None` without a watercourse layer, `Some(None)` when farther
    /// than the search radius.
    pub watercourse_ft: Option<Option<f64>>,
    /// Whether the system, or else any part of the parcel, lies inside the county boundary (true without a
    /// boundary layer).
    pub in_county: bool,
    /// What location facts were measured from.
    pub basis: Basis,
}

/// Classifies one parcel against the prepared layers.
pub fn classify(world: &World, rules: &RuleSet, parcel: &Parcel) -> Facts {
    let basis = if parcel.system.is_some() { Basis::System } else { Basis::Parcel };
    // The system point, when known, locates the parcel (town, sewer district); otherwise the parcel's interior
    // point stands for it, which always lies inside the parcel, unlike the centroid of an L-shaped lot.
    let system_at = parcel.system.map(|s| [s.location.x(), s.location.y()]);
    let locate = system_at.or_else(|| crate::planar::interior_point(&parcel.shape));

    let shore = world.shore.nearest_to_parcel(&parcel.shape);
    let borders_mhw = shore.as_ref().is_some_and(|s| s.parcel_distance_ft <= world.border_tolerance_ft);
    let system_mhw_ft = system_at.map(|p| world.shore.distance_from_point(p));

    let watershed = match system_at {
        Some(p) => world.areas.watershed_at(p),
        None => world.areas.watershed_touching(&parcel.shape),
    };
    let (town, unknown_town) =
        world.areas.town(rules, locate, parcel.town_attribute.as_deref(), parcel.swis.as_deref());
    let sewer = world.areas.sewer(rules, locate, parcel.sewer_code.as_deref());
    // Art. V §I.C.1: systems "located wholly or partially within" the county.
    let in_county = match system_at {
        Some(p) => world.areas.in_county(p),
        None => world.areas.touches_county(&parcel.shape),
    };
    let flood = world.floodplain.check(rules, parcel).map(Box::new);
    // A lake is a watercourse too (Art. V §II.35): the nearer of the watercourse layer and the MHW line.
    let watercourse_ft = world.watercourses.as_ref().map(|w| {
        let (stream, lake) = match system_at {
            Some(p) => (w.distance_from_point(p), system_mhw_ft.flatten()),
            None => (
                w.nearest_to_parcel(&parcel.shape).map(|hit| hit.parcel_distance_ft),
                shore.as_ref().map(|s| s.parcel_distance_ft),
            ),
        };
        match (stream, lake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    });

    Facts {
        town,
        unknown_town,
        shore,
        borders_mhw,
        system_mhw_ft,
        system_bottom_ft: parcel.system.and_then(|s| s.bottom_ft),
        watershed,
        flood,
        sewered: sewer.public,
        sewer_disagreement: sewer.disagreement,
        watercourse_ft,
        in_county,
        basis,
    }
}
