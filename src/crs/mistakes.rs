//! The usual mistakes that put a layer in the wrong place, tried on its coordinates: axes swapped, metres read
//! as feet or the reverse, another State Plane zone (any of the United States'), a CRS in degrees on projected
//! numbers or the reverse. Each is tried by reprojecting the corners of the layer's own extent as the mistake
//! would have it undone, and kept when the layer then falls on the place it should.
//!
//! Only a run that stops comes here, so the cost (a few hundred CRSs built) is paid once, on the way out.

use geo::{coord, Geometry, Point, Rect};

use super::extent::{extent_of, grow, intersects};
use super::names::epsg_name;
use super::{proj_string, Crs, CrsDef, LinearUnit, Reprojector};

/// Where the corners and inner points of `source` (in `from`) land in `working`, swapped first if `swap`:
/// the box around the points that reproject.
pub(super) fn lands(source: &Rect<f64>, from: &Crs, working: &Crs, swap: bool) -> Option<Rect<f64>> {
    let to = Reprojector::new(from, working).ok()?;
    let steps = 4;
    let mut extent = None;
    for i in 0..=steps {
        for j in 0..=steps {
            let x = source.min().x + source.width() * f64::from(i) / f64::from(steps);
            let y = source.min().y + source.height() * f64::from(j) / f64::from(steps);
            let (x, y) = if swap { (y, x) } else { (x, y) };
            if let Ok(g) = to.transform(&Geometry::Point(Point::new(x, y))) {
                grow(&mut extent, extent_of(&g));
            }
        }
    }
    extent
}

/// How well a layer landed at `landed` fits `target`: 0 when they do not meet, else the share of the two
/// boxes together that both cover (1 when they are the same box), never below a tiny positive number.
pub(super) fn fit(landed: Option<Rect<f64>>, target: &Rect<f64>) -> f64 {
    let Some(landed) = landed.filter(|l| intersects(l, target)) else { return 0.0 };
    let w = landed.max().x.min(target.max().x) - landed.min().x.max(target.min().x);
    let h = landed.max().y.min(target.max().y) - landed.min().y.max(target.min().y);
    let both = landed.width() * landed.height() + target.width() * target.height() - w * h;
    if both > 0.0 && both.is_finite() {
        (w * h / both).clamp(f64::MIN_POSITIVE, 1.0)
    } else {
        f64::MIN_POSITIVE
    }
}

/// The unit's name in a sentence.
pub(super) fn unit_words(unit: Option<LinearUnit>) -> String {
    match unit {
        None => "degrees".into(),
        Some(LinearUnit::Metre) => "metres".into(),
        Some(LinearUnit::UsSurveyFoot) => "US survey feet".into(),
        Some(LinearUnit::InternationalFoot) => "feet".into(),
        Some(LinearUnit::Other { to_metre }) => format!("units of {to_metre} m"),
    }
}

/// `EPSG:2261 (NAD83 / New York Central (ftUS))`, or the CRS's short name.
pub(super) fn crs_label(crs: &Crs) -> String {
    match crs.epsg().and_then(epsg_name) {
        Some(name) => format!("EPSG:{} ({name})", crs.epsg().unwrap_or_default()),
        None => crs.short_name(),
    }
}

/// The projected NAD83 CRSs of the built-in table — every State Plane zone in metres and in feet, and the
/// UTM zones — as EPSG codes with their names.
fn nad83_zones() -> Vec<(u32, &'static str)> {
    super::epsg::all()
        .filter(|(code, _)| (2000..=32767).contains(code))
        .filter_map(|(code, def)| {
            let name = def.name()?;
            let projected = ["tmerc", "lcc", "omerc", "utm"].contains(&proj_string::get(def.proj4, "proj")?);
            // Not the compound CRSs (a zone "+ NAVD88 height"): the same zone again.
            (name.starts_with("NAD83 / ") && !name.contains(" + ") && projected).then_some((code, name))
        })
        .collect()
}

/// `crs` with its linear unit replaced by `unit` (the false origin of a PROJ string is in metres whatever its
/// unit, so only the unit changes).
fn with_unit(crs: &Crs, unit: &str) -> Option<Crs> {
    let text = crs.to_proj_string().ok()?;
    let kept: Vec<&str> = text
        .split_whitespace()
        .filter(|p| !p.starts_with("+units=") && !p.starts_with("+to_meter=") && !p.starts_with("+vunits="))
        .collect();
    Some(Crs { def: CrsDef::Proj4(format!("{} +units={unit}", kept.join(" "))) })
}

/// The likely causes, in sentences, of a layer in `crs` whose coordinates span `source` not falling on
/// `target` (a box in the working CRS, `target_name` saying what it is): each usual mistake that, undone,
/// makes the layer fall on it.
pub(super) fn likely_causes(
    source: &Rect<f64>,
    crs: &Crs,
    working: &Crs,
    target: &Rect<f64>,
    target_name: &str,
) -> Vec<String> {
    let mut causes = Vec::new();
    let label = crs_label(crs);
    let unit = crs.linear_unit().ok().flatten();
    let geographic = crs.is_geographic().unwrap_or(false);
    if fit(lands(source, crs, working, true), target) > 0.0 {
        causes.push(format!(
            "its axes are swapped (x holds the latitude or northing, y the longitude or easting, as in a GeoJSON \
             written lat,lon): swapped back, it falls on {target_name}; write longitude (or easting) first, as \
             GeoJSON and shapefiles do"
        ));
    }
    let degrees =
        |r: &Rect<f64>| r.min().x >= -180.0 && r.max().x <= 180.0 && r.min().y >= -90.0 && r.max().y <= 90.0;
    let swapped = Rect::new(
        coord! { x: source.min().y, y: source.min().x },
        coord! { x: source.max().y, y: source.max().x },
    );
    if !geographic && (degrees(source) || degrees(&swapped)) {
        let fits = fit(lands(source, &Crs::wgs84(), working, false), target) > 0.0
            || fit(lands(source, &Crs::wgs84(), working, true), target) > 0.0;
        causes.push(format!(
            "its coordinates look like longitude and latitude in degrees, but its CRS {label} is projected, in {}{}; \
             give the layer the .prj of its geographic CRS (WGS 84 or NAD83), or pass --assume-crs EPSG:4326 for it",
            unit_words(unit),
            if fits { format!(": read as degrees it falls on {target_name}") } else { String::new() }
        ));
    }
    if let Some(unit) = unit {
        for (other, name) in [
            (LinearUnit::Metre, "m"),
            (LinearUnit::UsSurveyFoot, "us-ft"),
            (LinearUnit::InternationalFoot, "ft"),
        ] {
            let confused = unit.is_feet() != other.is_feet();
            let Some(variant) = with_unit(crs, name).filter(|_| confused) else { continue };
            if fit(lands(source, &variant, working, false), target) > 0.0 {
                causes.push(format!(
                    "its CRS {label} is in {}, but its coordinates are in {}: read so, it falls on {target_name}; \
                     give the layer a .prj (or --assume-crs) in {}",
                    unit_words(Some(unit)),
                    unit_words(Some(other)),
                    unit_words(Some(other))
                ));
                break;
            }
        }
    }
    let mut zones: Vec<(f64, u32, &str)> = nad83_zones()
        .into_iter()
        .filter(|&(code, _)| Some(code) != crs.epsg())
        .filter_map(|(code, name)| {
            let zone = Crs { def: CrsDef::Epsg(code) };
            let score = fit(lands(source, &zone, working, false), target);
            (score > 0.0).then_some((score, code, name))
        })
        .collect();
    zones.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let best = zones.first().map_or(0.0, |z| z.0);
    zones.retain(|z| z.0 >= best * 0.5);
    zones.truncate(3);
    if let Some(&(_, code, _)) = zones.first() {
        let fitting: Vec<String> = zones.iter().map(|&(_, c, n)| format!("EPSG:{c} ({n})")).collect();
        let fitting = fitting.join(" or ");
        let zone_unit = Crs { def: CrsDef::Epsg(code) }.linear_unit().ok().flatten();
        let same_unit = zone_unit.is_some_and(|z| unit.is_some_and(|u| u.is_feet() == z.is_feet()));
        let state_plane =
            crs.epsg().and_then(epsg_name).is_some_and(|n| n.starts_with("NAD83") && !n.contains("UTM"));
        let cause = if geographic {
            format!(
                "its CRS {label} is geographic (degrees), but its coordinates are projected numbers: they fit \
                 {fitting}, in {}, and the .prj disagrees with them",
                unit_words(zone_unit)
            )
        } else if same_unit && state_plane {
            format!(
                "its CRS {label} is the wrong State Plane zone: its coordinates fit the neighbouring zone {fitting}"
            )
        } else {
            format!(
                "its CRS {label}, in {}, disagrees with its coordinates: they fit {fitting}, in {}",
                unit_words(unit),
                unit_words(zone_unit)
            )
        };
        causes
            .push(format!("{cause}; give the layer the .prj of that CRS (or pass --assume-crs EPSG:{code})"));
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample county's parcels, in EPSG:2261 feet.
    fn county() -> Rect<f64> {
        Rect::new(coord! { x: 800_000.0, y: 1_050_000.0 }, coord! { x: 830_000.0, y: 1_080_000.0 })
    }

    fn crs(code: u32) -> Crs {
        Crs { def: CrsDef::Epsg(code) }
    }

    #[test]
    fn the_county_in_another_new_york_zone_is_found_as_the_neighbouring_zone() {
        // The coordinates are New York Central's (EPSG:2261); the .prj says New York West (EPSG:2262).
        let causes = likely_causes(&county(), &crs(2262), &crs(2261), &county(), "the parcels");
        assert!(causes.iter().any(|c| c.contains("neighbouring zone EPSG:2261")), "{causes:?}");
    }

    #[test]
    fn feet_under_a_metre_crs_are_found() {
        // EPSG:26918 (UTM 18N, metres) assumed on coordinates in New York Central feet.
        let causes = likely_causes(&county(), &crs(26918), &crs(2261), &county(), "the parcels");
        let all = causes.join(" | ");
        assert!(all.contains("metres") && all.contains("EPSG:2261") && all.contains("feet"), "{all}");
        // A UTM 18N layer in metres given a CRS in feet: the unit is the mistake.
        let metres =
            Rect::new(coord! { x: 360_000.0, y: 4_740_000.0 }, coord! { x: 380_000.0, y: 4_760_000.0 });
        let feet = with_unit(&crs(26918), "us-ft").unwrap();
        let target = lands(&metres, &crs(26918), &crs(2261), false).unwrap();
        let causes = likely_causes(&metres, &feet, &crs(2261), &target, "the parcels");
        assert!(causes.iter().any(|c| c.contains("its coordinates are in metres")), "{causes:?}");
    }

    #[test]
    fn swapped_degrees_are_found() {
        let lonlat = Rect::new(coord! { x: -76.62, y: 42.85 }, coord! { x: -76.50, y: 42.95 });
        let target = lands(&lonlat, &Crs::wgs84(), &crs(2261), false).unwrap();
        let latlon = Rect::new(coord! { x: 42.85, y: -76.62 }, coord! { x: 42.95, y: -76.50 });
        let causes = likely_causes(&latlon, &Crs::wgs84(), &crs(2261), &target, "the reference layers");
        assert!(causes[0].contains("swapped"), "{causes:?}");
        // Degrees under a projected .prj.
        let causes = likely_causes(&lonlat, &crs(2261), &crs(2261), &target, "the reference layers");
        assert!(causes.iter().any(|c| c.contains("look like longitude and latitude")), "{causes:?}");
    }

    #[test]
    fn projected_numbers_under_a_geographic_crs_are_found() {
        let causes = likely_causes(&county(), &Crs::wgs84(), &crs(2261), &county(), "the parcels");
        assert!(causes.iter().any(|c| c.contains("geographic") && c.contains("EPSG:2261")), "{causes:?}");
    }

    #[test]
    fn a_zone_of_another_state_is_found() {
        // Vermont (EPSG:32145, metres): a layer of Vermont metres labelled New Hampshire (EPSG:32110).
        let vt = Rect::new(coord! { x: 480_000.0, y: 150_000.0 }, coord! { x: 500_000.0, y: 170_000.0 });
        let target = lands(&vt, &crs(32145), &crs(2261), false).unwrap();
        let causes = likely_causes(&vt, &crs(32110), &crs(2261), &target, "the parcels");
        assert!(causes.iter().any(|c| c.contains("EPSG:32145")), "{causes:?}");
    }
}
