//! What classification found about one parcel, as plain data: everything the rules, the schedule and the
//! obligations read about it, each location fact with its basis (the system's point or the parcel).
//!
//! Classification (`classify`) fills these in from the reference layers, with the [`Evidence`] the law judges;
//! the law (`law::judge`) decides what they mean and records its verdicts (public sewer, the §X flood
//! elevation) in the facts once per parcel. They stand on the bottom floor so that classification and the law,
//! on floors that must not know each other's workings, share them.

/// A shared name (town, water body, watershed): one allocation per layer feature, cloned into each parcel's
/// facts by reference count.
pub type Name = std::sync::Arc<str>;

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

/// Everything the rules need to know about one parcel.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// The canonical town name, when known.
    pub town: Option<Name>,
    /// The town as found (attribute or towns layer) when it is not a municipality of the rule set.
    pub unknown_town: Option<String>,
    /// The nearest mean-high-water line within the search radius, and the parcel edge's distance to it.
    pub shore: Option<NearestWater>,
    /// The parcel borders the mean-high-water line (edge within the border tolerance, or overlapping the lake).
    pub borders_mhw: bool,
    /// The system's distance to the nearest mean-high-water line: not measured when the system's location is
    /// unknown.
    pub system_mhw_ft: Measured,
    /// The system's absorption-field bottom elevation, feet, when surveyed.
    pub system_bottom_ft: Option<f64>,
    /// The watershed of one of the rule set's water bodies (by its canonical name) the system, or else any
    /// part of the parcel, is in.
    pub watershed: Option<Name>,
    /// The flood zone and elevation verdict, when the system or parcel is in a special flood hazard area
    /// (boxed: few parcels have one, and every parcel carries the field). A verdict: the law fills it in.
    pub flood: Option<Box<FloodFacts>>,
    /// Why the parcel is on public sewer, if it is. A verdict: the law fills it in.
    pub sewered: Option<String>,
    /// The assessor's sewer code says the parcel does not use public sewer while a sewer district contains
    /// it: what each says (the code decided; the disagreement is reported). The law fills it in.
    pub sewer_disagreement: Option<String>,
    /// Distance from the absorption field (the system, else the parcel) to the nearest watercourse or wetland,
    /// the lakes' mean-high-water line included: not measured without a watercourse layer. Only the layer's
    /// features the rule set's table of terms counts as watercourses are measured (not an ephemeral channel
    /// off the county's map, Art. V §II.35).
    pub watercourse_ft: Measured,
    /// Whether the system, or else any part of the parcel, lies inside the county boundary (true without a
    /// boundary layer).
    pub in_county: bool,
    /// What location facts were measured from.
    pub basis: Basis,
}

/// A distance in feet to the nearest line of a layer (mean high water, a watercourse), as far as it was
/// measured. A search looks only as far as its radius, so a measured distance may be beyond it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measured {
    /// Not measured: nothing to measure from (the system's location is unknown) or to (no layer).
    Unmeasured,
    /// Measured, and no line lies within the search radius.
    BeyondRadius,
    /// Measured: this many feet.
    Ft(f64),
}

impl Measured {
    /// The outcome of a search within the radius: `None` when it found nothing.
    pub fn searched(found: Option<f64>) -> Measured {
        found.map_or(Measured::BeyondRadius, Measured::Ft)
    }

    /// The distance, when one was found within the radius.
    pub fn ft(self) -> Option<f64> {
        match self {
            Measured::Ft(ft) => Some(ft),
            Measured::Unmeasured | Measured::BeyondRadius => None,
        }
    }
}

/// The nearest water to a parcel — a water body's mean-high-water line, or a watercourse — and how far the
/// parcel's edge is from it.
#[derive(Debug, Clone, PartialEq)]
pub struct NearestWater {
    /// Its water body (or watercourse).
    pub water_body: Name,
    /// Exact distance from the parcel's edge to the line, feet (0 when the parcel touches or overlaps the
    /// water).
    pub parcel_distance_ft: f64,
}

/// A system or parcel in a special flood hazard area.
#[derive(Debug, Clone, PartialEq)]
pub struct FloodFacts {
    /// The flood zone label.
    pub zone: String,
    /// The zone's FEMA static base flood elevation, feet, when it has one.
    pub static_bfe_ft: Option<f64>,
    /// The water body whose own zone it is (touching or near its mean-high-water line).
    pub lake: Option<Name>,
    /// The binding flood elevation, feet, when known.
    pub flood_elevation_ft: Option<f64>,
    /// Where that elevation comes from (the reason, "elevation must be determined" without one).
    pub elevation_source: String,
    /// The absorption field must be at least this high, feet (flood elevation + freeboard).
    pub required_bottom_ft: Option<f64>,
    /// The elevation verdict.
    pub verdict: FloodVerdict,
    /// What the zone was found from.
    pub basis: Basis,
    /// Where the verdict is unknown for want of a surveyed bottom: a screening from the DEM's ground at the
    /// system point (never a verdict of its own).
    pub screening: Option<Screening>,
}

/// A screening of the §X elevation from the DEM's ground at the system point, less a typical absorption
/// trench's depth: an estimate to direct a survey, never `ok`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screening {
    /// The ground at the system point, feet.
    pub ground_ft: f64,
    /// The trench depth taken off it, feet.
    pub trench_depth_ft: f64,
    /// Whether the estimated bottom is at or above the required bottom.
    pub likely_ok: bool,
}

impl Screening {
    /// `likely ok (estimated: ground 725.30 ft less a 2.50 ft trench)` or `likely below (...)`.
    pub fn describe(&self) -> String {
        format!(
            "{} (estimated: ground {:.2} ft less a {:.2} ft trench)",
            if self.likely_ok { "likely ok" } else { "likely below" },
            self.ground_ft,
            self.trench_depth_ft
        )
    }
}

/// The outcome of the elevation check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloodVerdict {
    /// Bottom of the absorption field at or above flood elevation + freeboard.
    Ok,
    /// Below it: no permit may issue (§X).
    Below,
    /// Cannot tell: no surveyed bottom elevation, or no flood elevation for the zone.
    Unknown,
}

impl FloodVerdict {
    /// "ok", "below" or "unknown".
    pub fn as_str(self) -> &'static str {
        match self {
            FloodVerdict::Ok => "ok",
            FloodVerdict::Below => "below",
            FloodVerdict::Unknown => "unknown",
        }
    }
}

/// What classification found that the law has still to judge, borrowed from the parcel and the reference
/// layers for that moment: the sewer evidence (Art. V §I.B) and the flood zones (§X).
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence<'a> {
    /// The assessor's sewer code and the sewer district found.
    pub sewer: SewerFacts<'a>,
    /// The special flood hazard areas the system (or parcel) lies in; `None` outside every one.
    pub flood: Option<FloodZones<'a>>,
}

/// The sewer evidence about one parcel, as classification found it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SewerFacts<'a> {
    /// The assessor's sewer code, as written in the parcel's own record.
    pub code: Option<&'a str>,
    /// The sewer district the parcel lies in, when it lies in one.
    pub district: Option<District<'a>>,
}

/// A sewer district containing a parcel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct District<'a> {
    /// The district's name, when the layer gives one.
    pub name: Option<&'a str>,
    /// Where the parcel was located in it: the system's point, or else the parcel's interior point.
    pub basis: Basis,
}

/// The special flood hazard areas a system (or parcel) lies in: at least one.
#[derive(Debug, Clone, PartialEq)]
pub struct FloodZones<'a> {
    /// Each zone's facts, in the order the index found them.
    pub zones: Vec<ZoneFacts<'a>>,
    /// What the zones were found from.
    pub basis: Basis,
}

/// The facts of one flood zone a system (or parcel) lies in, as classification found them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneFacts<'a> {
    /// The zone label ("AE", "A").
    pub zone: &'a str,
    /// FEMA's static base flood elevation, feet, when the zone has one.
    pub static_bfe_ft: Option<f64>,
    /// Whether the layer gave no base flood elevation field at all, so that the zone's elevation is not
    /// known to be absent but unread: a water body's designated elevation may not be the one that binds.
    pub bfe_unread: bool,
    /// The water body whose own zone this is (it touches or lies near its mean-high-water line).
    pub lake: Option<&'a str>,
}
