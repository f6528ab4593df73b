//! The floodplain verdict (Art. V §X): which flood elevation binds a system in a special flood hazard area,
//! whether its absorption-field bottom is high enough above it, and, without a surveyed bottom, the screening
//! from the ground at its point.
//!
//! §X: "unless the bottom of the absorption field is designed and constructed two feet above the designated
//! flood elevation, except in Owasco Lake where the designated flood elevation shall be 717.13 USGS". A water
//! body's designated elevation (`[[water_body]] flood_elevation_ft`) applies to its own flood
//! zones, those classification found touching or near its mean-high-water line; every zone's FEMA base flood
//! elevation applies to it; where both apply the higher binds; with neither the elevation must be determined
//! first.

use crate::model::facts::{FloodFacts, FloodVerdict, FloodZones, Name, Screening, ZoneFacts};
use crate::rules::RuleSet;

/// The binding flood elevation and the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct FloodCheck {
    /// The binding flood elevation, feet, when one is known.
    pub flood_elevation_ft: Option<f64>,
    /// Where that elevation comes from; says "elevation must be determined" without one.
    pub source: String,
    /// The absorption field must be at least this high, feet (flood elevation + freeboard).
    pub required_bottom_ft: Option<f64>,
    /// The elevation verdict.
    pub verdict: FloodVerdict,
}

/// The §X verdict on the flood `zones` a system (or parcel) lies in, with its absorption-field bottom at
/// `bottom_ft`: the binding zone, its elevation and the verdict; and, where the verdict is unknown for want of
/// a surveyed bottom, the screening from the ground at the system point, which `ground` gives when asked
/// (`None` without a DEM or a system point).
pub fn judge(
    rules: &RuleSet,
    zones: FloodZones<'_>,
    bottom_ft: Option<f64>,
    ground: impl FnOnce() -> Option<f64>,
) -> Option<FloodFacts> {
    let (binding, check) = flood_check(rules, zones.zones, bottom_ft)?;
    let screening = if check.verdict == FloodVerdict::Unknown && bottom_ft.is_none() {
        ground().and_then(|ground_ft| flood_screening(rules, ground_ft, check.required_bottom_ft))
    } else {
        None
    };
    Some(FloodFacts {
        zone: binding.zone.to_string(),
        static_bfe_ft: binding.static_bfe_ft,
        lake: binding.lake.map(Name::from),
        flood_elevation_ft: check.flood_elevation_ft,
        elevation_source: check.source,
        required_bottom_ft: check.required_bottom_ft,
        verdict: check.verdict,
        basis: zones.basis,
        screening,
    })
}

/// The flood elevation that binds in one zone, with its source.
fn zone_elevation(rules: &RuleSet, z: &ZoneFacts<'_>) -> (Option<f64>, String) {
    let designated =
        z.lake.and_then(|l| rules.water_body(l)).and_then(|w| w.flood_elevation_ft.map(|fe| (fe, w)));
    match (designated, z.static_bfe_ft) {
        (Some((fe, w)), None) if z.bfe_unread => (
            Some(fe),
            format!(
                "{}'s designated flood elevation, zone {} being the lake's own; the floodplain layer gives no \
                 base flood elevation, which binds where it is higher",
                w.name, z.zone
            ),
        ),
        (Some((fe, w)), Some(bfe)) if bfe > fe => (
            Some(bfe),
            format!(
                "FEMA base flood elevation of zone {}, above {}'s designated flood elevation of {fe:.2} ft",
                z.zone, w.name
            ),
        ),
        (Some((fe, w)), _) => (
            Some(fe),
            format!("{}'s designated flood elevation, zone {} being the lake's own", w.name, z.zone),
        ),
        (None, Some(bfe)) => (Some(bfe), format!("FEMA base flood elevation of zone {}", z.zone)),
        (None, None) => (
            None,
            format!(
                "zone {} has no FEMA base flood elevation and no designated flood elevation applies: \
                 elevation must be determined",
                z.zone
            ),
        ),
    }
}

/// The §X check for a system in `zones` (all the special flood hazard areas it lies in; at least one) with
/// its absorption-field bottom at `bottom_ft`. Of several zones the highest elevation binds; a zone with no
/// elevation binds only when no zone has one.
pub fn flood_check<'a>(
    rules: &RuleSet,
    zones: impl IntoIterator<Item = ZoneFacts<'a>>,
    bottom_ft: Option<f64>,
) -> Option<(ZoneFacts<'a>, FloodCheck)> {
    let (zone, (flood_elevation_ft, source)) = zones
        .into_iter()
        .map(|z| (z, zone_elevation(rules, &z)))
        .max_by(|a, b| a.1 .0.unwrap_or(f64::MIN).total_cmp(&b.1 .0.unwrap_or(f64::MIN)))?;
    let freeboard = rules.floodplain.as_ref().map_or(0.0, |r| r.freeboard_ft);
    let required_bottom_ft = flood_elevation_ft.map(|fe| round_hundredths(fe + freeboard));
    let verdict = match (bottom_ft, required_bottom_ft) {
        // A base flood elevation left unread may be higher than the lake's: only "below" is sure.
        (Some(b), Some(req)) if b >= req && zone.bfe_unread => FloodVerdict::Unknown,
        (Some(b), Some(req)) if b >= req => FloodVerdict::Ok,
        (Some(_), Some(_)) => FloodVerdict::Below,
        _ => FloodVerdict::Unknown,
    };
    Some((zone, FloodCheck { flood_elevation_ft, source, required_bottom_ft, verdict }))
}

/// The screening of a system without a surveyed bottom, from the ground at its point: the ground less
/// `[floodplain] trench_depth_ft` against the required bottom. `None` without a trench depth in the rule set
/// or a required bottom.
pub fn flood_screening(
    rules: &RuleSet,
    ground_ft: f64,
    required_bottom_ft: Option<f64>,
) -> Option<Screening> {
    let trench_depth_ft = rules.floodplain.as_ref()?.trench_depth_ft?;
    let required = required_bottom_ft?;
    let estimate = round_hundredths(ground_ft - trench_depth_ft);
    Some(Screening { ground_ft, trench_depth_ft, likely_ok: estimate >= required })
}

/// Elevations are given to the hundredth of a foot; 717.13 + 2.0 must compare as 719.13, not 719.1299999.
fn round_hundredths(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::Basis;

    fn zone(zone: &'static str, bfe: Option<f64>, lake: Option<&'static str>) -> ZoneFacts<'static> {
        ZoneFacts { zone, static_bfe_ft: bfe, bfe_unread: false, lake }
    }

    fn check(zones: &[ZoneFacts<'static>], bottom: Option<f64>) -> FloodCheck {
        flood_check(&RuleSet::cayuga_art_v(), zones.iter().copied(), bottom).expect("a zone").1
    }

    /// The screening: ground 722.00 less a 2.50 ft trench is 719.50 ≥ 719.13 (likely ok); ground 721.50 gives
    /// 719.00 < 719.13 (likely below).
    #[test]
    fn the_ground_less_a_trench_screens_a_system_without_a_bottom() {
        let rules = RuleSet::cayuga_art_v();
        let depth = rules.floodplain.as_ref().unwrap().trench_depth_ft;
        assert_eq!(depth, Some(2.5));
        assert!(flood_screening(&rules, 722.0, Some(719.13)).unwrap().likely_ok);
        assert!(!flood_screening(&rules, 721.5, Some(719.13)).unwrap().likely_ok);
        assert!(flood_screening(&rules, 722.0, None).is_none());
    }

    /// A floodplain layer without a base flood elevation field: the lake's own zone takes 717.13 (+ 2 =
    /// 719.13), and a bottom below that is below whatever FEMA's elevation; a bottom above it is unknown, the
    /// unread BFE may bind higher (718.40 → 720.40 in the sample). A zone up an inlet has no elevation at all.
    #[test]
    fn an_unread_base_flood_elevation_leaves_only_below_sure() {
        let unread = |lake| ZoneFacts { bfe_unread: true, ..zone("AE", None, lake) };
        let below = check(&[unread(Some("Owasco Lake"))], Some(719.12));
        assert_eq!((below.flood_elevation_ft, below.verdict), (Some(717.13), FloodVerdict::Below));
        let above = check(&[unread(Some("Owasco Lake"))], Some(720.0));
        assert_eq!((above.required_bottom_ft, above.verdict), (Some(719.13), FloodVerdict::Unknown));
        assert!(above.source.contains("no base flood elevation"), "{}", above.source);
        let inlet = check(&[unread(None)], Some(760.0));
        assert_eq!((inlet.flood_elevation_ft, inlet.verdict), (None, FloodVerdict::Unknown));
    }

    /// §X: "two feet above the designated flood elevation, except in Owasco Lake where the designated flood
    /// elevation shall be 717.13 USGS". Hand-worked: 717.13 + 2 = 719.13 in the lake's own zone; up an inlet
    /// FEMA's 745.0 binds (747.0); where both apply the higher binds (718.40 > 717.13 → 720.40).
    #[test]
    fn owasco_elevation_binds_only_in_the_lakes_own_zones() {
        let lake = check(&[zone("AE", None, Some("Owasco Lake"))], Some(719.13));
        assert_eq!((lake.flood_elevation_ft, lake.required_bottom_ft), (Some(717.13), Some(719.13)));
        assert_eq!(lake.verdict, FloodVerdict::Ok);
        assert_eq!(
            check(&[zone("AE", None, Some("Owasco Lake"))], Some(719.12)).verdict,
            FloodVerdict::Below
        );

        // Up an inlet in the Owasco watershed: FEMA's BFE, not 717.13 (the old reading would say ok at 730).
        let inlet = check(&[zone("AE", Some(745.0), None)], Some(730.0));
        assert_eq!((inlet.required_bottom_ft, inlet.verdict), (Some(747.0), FloodVerdict::Below));
        assert!(inlet.source.starts_with("FEMA base flood elevation of zone AE"), "{}", inlet.source);

        // Both apply: the higher binds, either way round.
        let both = check(&[zone("AE", Some(718.4), Some("Owasco Lake"))], Some(720.0));
        assert_eq!((both.required_bottom_ft, both.verdict), (Some(720.4), FloodVerdict::Below));
        let lower_bfe = check(&[zone("AE", Some(716.0), Some("Owasco Lake"))], Some(719.0));
        assert_eq!((lower_bfe.required_bottom_ft, lower_bfe.verdict), (Some(719.13), FloodVerdict::Below));

        // Little Sodus Bay has no designated elevation: its own zones take FEMA's BFE (250.5 + 2).
        let bay = check(&[zone("AE", Some(250.5), Some("Little Sodus Bay"))], Some(253.4));
        assert_eq!((bay.required_bottom_ft, bay.verdict), (Some(252.5), FloodVerdict::Ok));
    }

    /// A zone with neither a FEMA BFE nor a designated elevation cannot be checked: unknown, never ok, and
    /// the reason says the elevation must be determined, even for a bottom far above any plausible flood.
    #[test]
    fn a_zone_without_any_elevation_is_unknown() {
        let none = check(&[zone("A", None, None)], Some(722.3));
        assert_eq!((none.flood_elevation_ft, none.verdict), (None, FloodVerdict::Unknown));
        assert!(none.source.contains("elevation must be determined"), "{}", none.source);
        // A water body's own zone without a designated elevation or BFE: the same.
        assert_eq!(
            check(&[zone("A", None, Some("Little Sodus Bay"))], Some(300.0)).verdict,
            FloodVerdict::Unknown
        );
        // Of two overlapping zones the one with an elevation binds.
        let two = check(&[zone("A", None, None), zone("AE", Some(760.0), None)], Some(763.0));
        assert_eq!((two.required_bottom_ft, two.verdict), (Some(762.0), FloodVerdict::Ok));
        assert_eq!(round_hundredths(717.13 + 2.0), 719.13);
    }

    /// The law asks for the ground only where the verdict is unknown for want of a surveyed bottom: in Owasco
    /// Lake's own zone (required bottom 717.13 + 2 = 719.13) ground 722.00 less the 2.50 ft trench is 719.50,
    /// likely ok; with a surveyed bottom of 719.20 the verdict is ok and the ground is never asked.
    #[test]
    fn the_ground_is_asked_only_without_a_surveyed_bottom() {
        let rules = RuleSet::cayuga_art_v();
        let zones =
            || FloodZones { zones: vec![zone("AE", None, Some("Owasco Lake"))], basis: Basis::System };
        let asked = std::cell::Cell::new(0);
        let ground = || {
            asked.set(asked.get() + 1);
            Some(722.0)
        };
        let unsurveyed = judge(&rules, zones(), None, ground).expect("in a zone");
        assert_eq!(
            (unsurveyed.verdict, unsurveyed.required_bottom_ft),
            (FloodVerdict::Unknown, Some(719.13))
        );
        assert_eq!(unsurveyed.screening.map(|s| s.likely_ok), Some(true));
        assert_eq!((unsurveyed.lake.as_deref(), unsurveyed.basis), (Some("Owasco Lake"), Basis::System));
        let surveyed = judge(&rules, zones(), Some(719.2), ground).expect("in a zone");
        assert_eq!((surveyed.verdict, surveyed.screening), (FloodVerdict::Ok, None));
        assert_eq!(asked.get(), 1);
        let none = FloodZones { zones: Vec::new(), basis: Basis::Parcel };
        assert!(judge(&rules, none, None, ground).is_none());
    }
}
