//! The floodplain facts (Art. V §X): which FEMA special flood hazard areas the system (or parcel) lies in,
//! each zone's base flood elevation (`STATIC_BFE`; NFHL writes -9999 for none), and whether the zone is a
//! water body's own: it touches or lies within the rule set's `lake_zone_within_ft` of that water body's
//! mean-high-water line. Which elevation binds, and the verdict, are the law's (`law::flood`).

use crate::classify::{DistanceIndex, Parcel};
use crate::geom::index::AreaIndex;
use crate::model::facts::{Basis, FloodZones, Name, ZoneFacts};

/// One FEMA flood-zone polygon's attributes (NFHL `S_FLD_HAZ_AR`).
#[derive(Debug, Clone, PartialEq)]
pub struct FloodZone {
    /// `FLD_ZONE` (with `ZONE_SUBTY` where it says floodway), e.g. "AE", "AE FLOODWAY", "X".
    pub zone: String,
    /// Whether the zone is a special flood hazard area (`SFHA_TF` = T; or an A/V zone when the field is absent).
    pub sfha: bool,
    /// `STATIC_BFE`, feet, when the zone has one.
    pub static_bfe_ft: Option<f64>,
    /// Whether the layer has no base flood elevation field, so that none could be read.
    pub bfe_unread: bool,
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
        FloodZone { zone: label, sfha, static_bfe_ft, bfe_unread: false }
    }
}

/// The indexed special flood hazard areas, each with the water body whose own zone it is.
#[derive(Debug, Default)]
pub struct Floodplain {
    index: Option<AreaIndex>,
    zones: Vec<(FloodZone, Option<Name>)>,
}

impl Floodplain {
    /// Indexes the zones that are special flood hazard areas (other zones, X, are not floodplain under §X),
    /// and finds each one's water body: the nearest mean-high-water line of `shore` within `lake_zone_ft` of
    /// the zone (0: touching it). Zones are few; each is measured once here, not once per parcel.
    pub fn new<'a>(
        features: impl IntoIterator<Item = (&'a [geo::Polygon<f64>], &'a FloodZone)>,
        shore: &DistanceIndex,
        lake_zone_ft: f64,
    ) -> Self {
        let mut zones = Vec::new();
        let mut shapes = Vec::new();
        for (shape, zone) in features.into_iter().filter(|(_, z)| z.sfha) {
            // Measured as a parcel is; the zone's copy lasts for this measurement only.
            let lake = shore
                .nearest_to_parcel(&geo::MultiPolygon(shape.to_vec()))
                .filter(|hit| hit.parcel_distance_ft <= lake_zone_ft)
                .map(|hit| hit.water_body);
            shapes.push((shape, zones.len() as u32));
            zones.push((zone.clone(), lake));
        }
        Floodplain { index: Some(AreaIndex::new(shapes)), zones }
    }

    /// The special flood hazard areas a parcel lies in (its system point when known, else any part of the
    /// parcel), each with its facts; `None` outside every one.
    pub fn zones_at<'a>(&'a self, parcel: &Parcel) -> Option<FloodZones<'a>> {
        let index = self.index.as_ref()?;
        let (hits, basis) = match &parcel.system {
            Some(s) => (index.containing([s.location.x(), s.location.y()]), Basis::System),
            None => (index.intersecting(&parcel.shape), Basis::Parcel),
        };
        if hits.is_empty() {
            return None;
        }
        let zones = hits
            .iter()
            .map(|&i| {
                let (zone, lake) = &self.zones[i as usize];
                ZoneFacts {
                    zone: &zone.zone,
                    static_bfe_ft: zone.static_bfe_ft,
                    bfe_unread: zone.bfe_unread,
                    lake: lake.as_deref(),
                }
            })
            .collect();
        Some(FloodZones { zones, basis })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::System;
    use crate::rules::RuleSet;

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> geo::MultiPolygon<f64> {
        geo::MultiPolygon(vec![geo::Rect::new((x0, y0), (x1, y1)).to_polygon()])
    }

    /// §X "except in Owasco Lake": the lake's own zones are those touching, or within the rule set's 50 ft
    /// of, its mean-high-water line (a lake 0-1,000 ft here; zones at 0 and 40 ft); a zone 500 ft up an inlet is not.
    #[test]
    fn a_zone_is_the_lakes_own_when_it_touches_or_nears_its_mhw_line() {
        let rules = RuleSet::cayuga_art_v();
        let lake = geo::Geometry::Polygon(geo::Rect::new((0.0, 0.0), (1000.0, 1000.0)).to_polygon());
        let shore = DistanceIndex::new([(&lake, "Owasco Lake")], 1000.0);
        let zone = |x0: f64, bfe: Option<f64>| {
            (square(x0, 0.0, x0 + 200.0, 1000.0), FloodZone::from_nfhl("AE", None, Some("T"), bfe))
        };
        let lake_zone_ft = rules.floodplain.as_ref().map_or(0.0, |f| f.lake_zone_within_ft);
        assert_eq!(lake_zone_ft, 50.0);
        let zones = [zone(1000.0, None), zone(1040.0, None), zone(1500.0, None)];
        let plain =
            Floodplain::new(zones.iter().map(|(shape, zone)| (&shape.0[..], zone)), &shore, lake_zone_ft);
        let lakes: Vec<_> = plain.zones.iter().map(|(_, l)| l.as_deref()).collect();
        assert_eq!(lakes, [Some("Owasco Lake"), Some("Owasco Lake"), None]);
        let parcel = |x: f64, bottom: f64| Parcel {
            shape: square(x - 10.0, 490.0, x + 10.0, 510.0),
            town_attribute: None,
            sewer_code: None,
            swis: None,
            system: Some(System { location: geo::Point::new(x, 500.0), bottom_ft: Some(bottom) }),
            lot: None,
        };
        // At x = 1100 the system lies in both of the lake's own zones (1000-1200 and 1040-1240); which
        // elevation binds is the law's (717.13 + 2, law::flood). Up the inlet (1500-1700) the zone is no
        // lake's; outside every zone, no zones.
        let own = plain.zones_at(&parcel(1100.0, 719.2)).expect("in a zone");
        let found =
            ZoneFacts { zone: "AE", static_bfe_ft: None, bfe_unread: false, lake: Some("Owasco Lake") };
        assert_eq!((own.zones, own.basis), (vec![found, found], Basis::System));
        let inlet = plain.zones_at(&parcel(1600.0, 740.0)).expect("in a zone");
        assert_eq!(inlet.zones, [ZoneFacts { lake: None, ..found }]);
        assert!(plain.zones_at(&parcel(2000.0, 700.0)).is_none());
    }

    #[test]
    fn nfhl_attributes_are_normalised() {
        let z = FloodZone::from_nfhl("AE", Some("FLOODWAY"), Some("T"), Some(250.5));
        assert_eq!((z.zone.as_str(), z.sfha, z.static_bfe_ft), ("AE FLOODWAY", true, Some(250.5)));
        let z =
            FloodZone::from_nfhl("X", Some("0.2 PCT ANNUAL CHANCE FLOOD HAZARD"), Some("F"), Some(-9999.0));
        assert_eq!((z.zone.as_str(), z.sfha, z.static_bfe_ft), ("X", false, None));
        let z = FloodZone::from_nfhl("A", None, None, None);
        assert!(z.sfha);
    }
}
