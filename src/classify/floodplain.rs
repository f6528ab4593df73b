//! The floodplain predicate (Art. V §X): is the system in a FEMA special flood hazard area, and is the bottom
//! of its absorption field at least the required freeboard above the designated flood elevation?
//!
//! The designated flood elevation is the water body's own where the rule set fixes one (Owasco Lake: 717.13
//! ft) for systems in that water body's watershed, and otherwise the zone's FEMA base flood elevation
//! (`STATIC_BFE`; NFHL writes -9999 for none).

use crate::classify::{Basis, Parcel};
use crate::index::AreaIndex;
use crate::rules::RuleSet;

/// One FEMA flood-zone polygon's attributes (NFHL `S_FLD_HAZ_AR`).
#[derive(Debug, Clone, PartialEq)]
pub struct FloodZone {
    /// `FLD_ZONE` (with `ZONE_SUBTY` where it says floodway), e.g. "AE", "AE FLOODWAY", "X".
    pub zone: String,
    /// Whether the zone is a special flood hazard area (`SFHA_TF` = T; or an A/V zone when the field is absent).
    pub sfha: bool,
    /// `STATIC_BFE`, feet, when the zone has one.
    pub static_bfe_ft: Option<f64>,
}

impl FloodZone {
    /// Builds a zone from NFHL-style attribute text. `sfha_tf` is the `SFHA_TF` value when the layer has one.
    pub fn from_nfhl(
        zone: &str,
        subtype: Option<&str>,
        sfha_tf: Option<&str>,
        static_bfe: Option<f64>,
    ) -> Self {
        let mut label = zone.trim().to_ascii_uppercase();
        if let Some(sub) = subtype.map(str::trim).filter(|s| s.to_ascii_uppercase().contains("FLOODWAY")) {
            if !label.contains("FLOODWAY") {
                label = format!("{label} {}", sub.to_ascii_uppercase());
            }
        }
        let sfha = match sfha_tf.map(|s| s.trim().to_ascii_uppercase()) {
            Some(tf) if tf == "T" || tf == "TRUE" || tf == "Y" => true,
            Some(tf) if tf == "F" || tf == "FALSE" || tf == "N" => false,
            _ => label.starts_with('A') || label.starts_with('V'),
        };
        // NFHL marks "no BFE" with -9999 (and sometimes 0 in older exports).
        let static_bfe_ft = static_bfe.filter(|v| v.is_finite() && *v > -9000.0 && *v != 0.0);
        FloodZone { zone: label, sfha, static_bfe_ft }
    }
}

/// The indexed special flood hazard areas.
#[derive(Debug, Default)]
pub struct Floodplain {
    index: Option<AreaIndex>,
    zones: Vec<FloodZone>,
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

/// A system or parcel in a special flood hazard area.
#[derive(Debug, Clone, PartialEq)]
pub struct FloodFacts {
    /// The flood zone label.
    pub zone: String,
    /// The designated flood elevation, feet, when known.
    pub flood_elevation_ft: Option<f64>,
    /// Where that elevation comes from, with its citation.
    pub elevation_source: String,
    /// The absorption field must be at least this high, feet (flood elevation + freeboard).
    pub required_bottom_ft: Option<f64>,
    /// The elevation verdict.
    pub verdict: FloodVerdict,
    /// What the zone was found from.
    pub basis: Basis,
}

impl Floodplain {
    /// Indexes the zones that are special flood hazard areas; other zones (X) are not floodplain under §X.
    pub fn new(features: Vec<(geo::MultiPolygon<f64>, FloodZone)>) -> Self {
        let mut zones = Vec::new();
        let mut shapes = Vec::new();
        for (shape, zone) in features.into_iter().filter(|(_, z)| z.sfha) {
            shapes.push((shape, zones.len() as u32));
            zones.push(zone);
        }
        Floodplain { index: Some(AreaIndex::new(shapes)), zones }
    }

    /// The floodplain facts for a parcel (its system point when known, else any part of the parcel), with the
    /// elevation verdict; `None` outside every special flood hazard area.
    pub fn check(&self, rules: &RuleSet, parcel: &Parcel, watershed: Option<&str>) -> Option<FloodFacts> {
        let index = self.index.as_ref()?;
        let (hits, basis) = match &parcel.system {
            Some(s) => (index.containing([s.location.x(), s.location.y()]), Basis::System),
            None => (index.intersecting(&parcel.shape), Basis::Parcel),
        };
        // Of several overlapping zones the one with the highest base flood elevation is the binding one.
        let zone = hits.iter().map(|&i| &self.zones[i as usize]).max_by(|a, b| {
            a.static_bfe_ft.unwrap_or(f64::MIN).total_cmp(&b.static_bfe_ft.unwrap_or(f64::MIN))
        })?;
        let rule = rules.floodplain.as_ref();
        let designated = watershed.and_then(|w| rules.water_body(w)).and_then(|w| {
            w.flood_elevation_ft
                .map(|fe| (fe, format!("{} designated flood elevation, {}", w.name, w.citation)))
        });
        let (flood_elevation_ft, elevation_source) = match (designated, zone.static_bfe_ft) {
            (Some((fe, source)), _) => (Some(fe), source),
            (None, Some(bfe)) => (Some(bfe), format!("FEMA base flood elevation of zone {}", zone.zone)),
            (None, None) => (None, format!("zone {} has no base flood elevation", zone.zone)),
        };
        let freeboard = rule.map_or(0.0, |r| r.freeboard_ft);
        let required_bottom_ft = flood_elevation_ft.map(|fe| round_hundredths(fe + freeboard));
        let bottom = parcel.system.and_then(|s| s.bottom_ft);
        let verdict = match (bottom, required_bottom_ft) {
            (Some(b), Some(req)) if b >= req => FloodVerdict::Ok,
            (Some(_), Some(_)) => FloodVerdict::Below,
            _ => FloodVerdict::Unknown,
        };
        Some(FloodFacts {
            zone: zone.zone.clone(),
            flood_elevation_ft,
            elevation_source,
            required_bottom_ft,
            verdict,
            basis,
        })
    }
}

/// Elevations are given to the hundredth of a foot; 717.13 + 2.0 must compare as 719.13, not 719.1299999.
fn round_hundredths(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfhl_attributes_are_normalised() {
        let z = FloodZone::from_nfhl("AE", Some("FLOODWAY"), Some("T"), Some(250.5));
        assert_eq!((z.zone.as_str(), z.sfha, z.static_bfe_ft), ("AE FLOODWAY", true, Some(250.5)));
        let z =
            FloodZone::from_nfhl("X", Some("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"), Some("F"), Some(-9999.0));
        assert_eq!((z.zone.as_str(), z.sfha, z.static_bfe_ft), ("X", false, None));
        let z = FloodZone::from_nfhl("A", None, None, None);
        assert!(z.sfha);
        assert_eq!(round_hundredths(717.13 + 2.0), 719.13);
    }
}
