//! Each reference layer checked for its role, after it has been read and placed: a layer that overlaps the
//! parcels may still be unable to do its job (a shoreline whose features name no water body of the rule set,
//! a watershed cut short of its lake, a floodplain without base flood elevations). A layer that cannot
//! serve its role stops the run, naming the layer, what is missing and the key that fixes it; one that
//! serves it in part is a warning. A role the rule set does not use is not checked: a rule set that
//! measures nothing from the mean-high-water line (the Town of Gorham's Chapter 56) needs no shoreline.

use std::collections::BTreeSet;

use geo::{Coord, Geometry, Line, Polygon};

use crate::crs::layer::Layer;
use crate::geom::index::AreaIndex;
use crate::geom::planar::polygons;
use crate::model::error::{Error, Location, Problem, Result};
use crate::pipeline::config::Config;
use crate::rules::{Rule, RuleSet};

use super::{NamedLayer, Reference};

/// The names a message lists of a layer's values; it counts the others.
const LISTED: usize = 12;

/// The share of a water body's shoreline that may lie outside its own watershed: the drawing offset where
/// the lake's outlet crosses the watershed's edge. A watershed cut short leaves far more outside.
const OUTSIDE_SHARE: f64 = 0.05;

/// The rule set's water body a feature named `name` stands for: by the config's `[water_bodies]`, else by
/// the water body's name or an alias of the rule set (case and watershed suffixes aside).
pub(super) fn water_body(config: &Config, name: &str) -> Option<String> {
    let wanted = squeeze(name);
    if let Some((_, body)) = config.water_body_names.iter().find(|(found, _)| squeeze(found) == wanted) {
        return Some(body.clone());
    }
    config.rules.water_body(name).map(|w| w.name.clone())
}

/// A name with case and runs of spaces set aside.
fn squeeze(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Whether a periodic rule measures from the mean-high-water line: only then must the shoreline name the
/// rule set's water bodies.
fn uses_shoreline(rules: &RuleSet) -> bool {
    rules.rules.iter().any(measures_from_mhw)
}

/// Whether the rule measures from the mean-high-water line.
fn measures_from_mhw(r: &Rule) -> bool {
    r.borders_mhw.is_some() || r.parcel_within_mhw_ft.is_some() || r.system_within_mhw_ft.is_some()
}

/// The rule set's water bodies, for messages.
fn known_water_bodies(rules: &RuleSet) -> String {
    let names: Vec<&str> = rules.water_bodies.iter().map(|w| w.name.as_str()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Up to [`LISTED`] names, then how many more there are.
fn listed(names: &BTreeSet<String>) -> String {
    let mut text: Vec<String> = names.iter().take(LISTED).cloned().collect();
    if names.len() > LISTED {
        text.push(format!("and {} more", names.len() - LISTED));
    }
    if text.is_empty() {
        "none".into()
    } else {
        text.join(", ")
    }
}

/// Checks each reference layer the rule set uses for its role (see the module's documentation); called
/// once the layers are known to overlap the parcels, so that a layer in the wrong place is told as such.
pub(crate) fn check(config: &Config, reference: &Reference, notes: &mut Vec<String>) -> Result<()> {
    check_present(config, reference)?;
    // The rule set's water bodies the shoreline layer holds a usable line of.
    let on_shore: BTreeSet<&str> = reference.supplied_shoreline().map(|(_, name)| name).collect();
    if let Some(shore) = &reference.shoreline {
        check_shoreline(config, shore)?;
        note_missing_bodies(config, shore, &on_shore, notes);
    }
    check_watersheds(config, reference, &on_shore, notes)
}

/// A water body of the rule set that the shoreline `shore` holds no usable line of (it holds those of
/// `on_shore`), told in a note: a county may border only some of the rule set's lakes, but one whose
/// shoreline was left out of the layer would have every parcel on it scheduled as inland. (A DEM derives the
/// line only of a water body the layer holds.)
fn note_missing_bodies(
    config: &Config,
    shore: &NamedLayer,
    on_shore: &BTreeSet<&str>,
    notes: &mut Vec<String>,
) {
    let rules = &config.rules;
    if !uses_shoreline(rules) || on_shore.is_empty() {
        return;
    }
    let missing: Vec<&str> =
        rules.water_bodies.iter().map(|w| w.name.as_str()).filter(|name| !on_shore.contains(name)).collect();
    if !missing.is_empty() {
        notes.push(format!(
            "{}: no usable line of {}, which the rule set measures from: a parcel on its shore is scheduled as \
             inland; if the county borders it, add its mean-high-water line to the layer",
            shore.layer.path.display(),
            missing.join(", ")
        ));
    }
}

/// A layer the rule set's periodic rules place parcels by must be given: without the shoreline every lakefront
/// and near-shore parcel, and without the watersheds every watershed parcel, would fall to a lower tier.
fn check_present(config: &Config, reference: &Reference) -> Result<()> {
    let rules = &config.rules;
    let missing = |role: &str, key: &str, what: String, falls: &str| {
        Error::Config(format!(
            "the rule set's periodic rules place parcels by the {role} ({what}), but the config names no {role} \
             layer, so {falls} would fall to a lower tier; add [layers] {key} = \"FILE\" (or --{key} FILE)"
        ))
    };
    let tiers = |pick: fn(&Rule) -> bool| {
        let tiers: BTreeSet<&str> = rules.rules.iter().filter(|r| pick(r)).map(|r| &*r.tier).collect();
        tiers.into_iter().collect::<Vec<_>>().join(", ")
    };
    if uses_shoreline(rules) && reference.shoreline.is_none() {
        let what = format!(
            "the mean-high-water line of {}: tiers {}",
            known_water_bodies(rules),
            tiers(measures_from_mhw)
        );
        return Err(missing("shoreline", "shoreline", what, "every parcel on or near a lake"));
    }
    let named = rules.watershed_names();
    if !named.is_empty() && reference.watersheds.is_none() {
        let bodies = named.into_iter().collect::<Vec<_>>().join(", ");
        let what = format!("the watersheds of {bodies}: tiers {}", tiers(|r| r.watersheds.is_some()));
        return Err(missing("watershed", "watershed", what, "every parcel of a watershed tier"));
    }
    Ok(())
}

/// The shoreline must tell some feature as one of the rule set's water bodies: without a feature, without a
/// name field, or with names the rule set does not know, no parcel would be measured from a lake and every
/// lakefront and near-shore parcel would fall to a lower tier. (A layer whose every feature is unusable has
/// each reported as a problem of its record.)
fn check_shoreline(config: &Config, shore: &NamedLayer) -> Result<()> {
    let rules = &config.rules;
    let layer = &shore.layer;
    if uses_shoreline(rules) && layer.features.is_empty() {
        return Err(Error::format(
            &layer.path,
            format!(
                "the shoreline layer has no features, so no parcel would be measured from a lake ({}) and every \
                 lakefront and near-shore parcel would fall to a lower tier; give the layer of the lakes' \
                 mean-high-water lines or shorelines",
                known_water_bodies(rules)
            ),
        ));
    }
    if !uses_shoreline(rules) || layer.features.iter().all(|f| f.geometry.is_err()) {
        return Ok(());
    }
    let field = super::name_field(layer, config.fields.shoreline_name.as_ref(), &super::NAME_FIELDS)?;
    let names: BTreeSet<String> =
        (0..layer.features.len()).filter_map(|i| super::value_text(layer, i, field)).collect();
    let bodies = &shore.attributes;
    if field.is_none() {
        return Err(Error::format(
            &layer.path,
            format!(
                "the shoreline layer has no water-body name field (looked for {}; its fields in {}: {}), so none of \
                 its features can be told as one of the rule set's water bodies ({}) and no parcel would be \
                 measured from a lake; set [fields] shoreline_name = \"FIELD\" (or --field shoreline_name=FIELD) \
                 to the field holding the lake's name",
                super::NAME_FIELDS.join(", "),
                attributes_file(&layer.path),
                fields_of(layer),
                known_water_bodies(rules)
            ),
        ));
    }
    if bodies.iter().all(Option::is_none) {
        let example = names.iter().next().cloned().unwrap_or_else(|| "NAME IN THE LAYER".into());
        let body = rules.water_bodies.first().map_or("WATER BODY", |w| w.name.as_str());
        return Err(Error::format(
            &layer.path,
            format!(
                "the shoreline layer names none of the rule set's water bodies ({}): its features name {} (in {}), \
                 so no \
                 parcel would be measured from a lake; map the layer's names in the config, [water_bodies] \
                 \"{body}\" = [\"{example}\"], set [fields] shoreline_name to the field holding the lake's name, \
                 or add the name to the water body's aliases in the rule set",
                known_water_bodies(rules),
                listed(&names),
                attributes_file(&layer.path)
            ),
        ));
    }
    Ok(())
}

/// Every field of `layer`, for messages.
fn fields_of(layer: &Layer) -> String {
    if layer.fields.is_empty() {
        "none".into()
    } else {
        layer.fields.join(", ")
    }
}

/// The watershed of each water body the rule set's periodic rules name, and the shoreline holds, must be
/// found in the watershed layer, and must hold its lake: a watershed named otherwise (HUC-12 pieces named
/// for their streams), or cut short across its lake, would leave its parcels off the watershed tier. A
/// watershed found as several polygons is read as their union, and the run says so in a note. The shoreline
/// holds the water bodies `on_shore`.
fn check_watersheds(
    config: &Config,
    reference: &Reference,
    on_shore: &BTreeSet<&str>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let Some(sheds) = &reference.watersheds else { return Ok(()) };
    let named = config.rules.watershed_names();
    // Without a shoreline layer every watershed a rule names is looked for.
    let wanted: Vec<&str> =
        named.iter().copied().filter(|n| reference.shoreline.is_none() || on_shore.contains(n)).collect();
    for body in wanted {
        let pieces: Vec<(&[Polygon<f64>], usize)> = sheds
            .layer
            .features
            .iter()
            .zip(&sheds.attributes)
            .enumerate()
            .filter(|(_, (_, name))| name.as_deref() == Some(body))
            .filter_map(|(i, (f, _))| Some((polygons(f.geometry.as_ref().ok()?)?, i)))
            .collect();
        if pieces.is_empty() {
            return Err(not_found(config, sheds, body));
        }
        if pieces.len() > 1 {
            let names: BTreeSet<String> =
                pieces.iter().filter_map(|&(_, i)| found_name(config, sheds, i)).collect();
            notes.push(format!(
                "{}: the watershed of {body} read as the union of {} polygons ({})",
                sheds.layer.path.display(),
                pieces.len(),
                listed(&names)
            ));
        }
        if let Some(share) = outside_share(reference, body, &pieces) {
            if share > OUTSIDE_SHARE {
                return Err(Error::format(
                    &sheds.layer.path,
                    format!(
                        "{body} lies partly outside its own watershed: {:.0} % of its shoreline lies outside the \
                         watershed's polygons, and a watershed holds its lake; the layer is likely cut short \
                         (clipped to a map sheet) or handed over in pieces not all named for the lake; give the \
                         whole watershed, or name every piece in the config, [water_bodies] \"{body}\" = \
                         [\"PIECE\", ...] (with [fields] watershed_name the field naming the pieces)",
                        share * 100.0
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The name feature `i` of the watershed layer gives, as found in the file.
fn found_name(config: &Config, sheds: &NamedLayer, i: usize) -> Option<String> {
    let field = super::name_field(&sheds.layer, config.fields.watershed_name.as_ref(), &super::NAME_FIELDS)
        .ok()
        .flatten()?;
    super::value_text(&sheds.layer, i, Some(field))
}

/// Where a layer's attributes are read from, for messages about its names and fields: the `.dbf` beside a
/// shapefile, the file itself otherwise.
fn attributes_file(path: &std::path::Path) -> String {
    let shapefile = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("shp"));
    let file = if shapefile { path.with_extension("dbf") } else { path.to_path_buf() };
    file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The error for a watershed the layer does not hold, listing the names it does; when the layer holds it only
/// as features whose geometry cannot be used (a `.shp` cut short, a null shape), the error is about the
/// first.
fn not_found(config: &Config, sheds: &NamedLayer, body: &str) -> Error {
    let unusable = (sheds.layer.features.iter().zip(&sheds.attributes)).find_map(|(f, name)| {
        Some((f, f.geometry.as_ref().err()?)).filter(|_| name.as_deref() == Some(body))
    });
    if let Some((feature, reason)) = unusable {
        return Error::format(
            &sheds.layer.path,
            format!(
                "the watershed of {body}, which the rule set's periodic rules name, is the layer's {} and its \
                 geometry cannot be used ({reason}), so no parcel would be placed in it; repair the feature in \
                 the GIS or export the layer again",
                Location::record(feature.record, feature.fid)
            ),
        );
    }
    let names: BTreeSet<String> =
        (0..sheds.layer.features.len()).filter_map(|i| found_name(config, sheds, i)).collect();
    let field = super::name_field(&sheds.layer, config.fields.watershed_name.as_ref(), &super::NAME_FIELDS)
        .ok()
        .flatten()
        .map_or("no name field".to_string(), |f| format!("field {}", sheds.layer.fields[f]));
    let field = format!("{field} in {}", attributes_file(&sheds.layer.path));
    Error::format(
        &sheds.layer.path,
        format!(
            "no watershed of {body}, which the rule set's periodic rules name: the layer's features name {} \
             ({field}); set [fields] watershed_name to the field naming it, or list the names of its polygons \
             (HUC-12 pieces) in the config, [water_bodies] \"{body}\" = [\"PIECE\", ...], which reads them as one",
            listed(&names)
        ),
    )
}

/// The share of `body`'s shoreline (its features in the shoreline layer) that lies outside the polygons
/// `pieces`, by length, counting only the shoreline inside the county when a county layer is given (a
/// watershed clipped to the county line leaves the rest of a border lake outside). `None` when the
/// shoreline has no length there.
fn outside_share(reference: &Reference, body: &str, pieces: &[(&[Polygon<f64>], usize)]) -> Option<f64> {
    let index = AreaIndex::new(pieces.iter().map(|&(p, i)| (p, i as u32)));
    let county = reference.county.as_ref().map(|c| AreaIndex::new(c.areas().map(|(p, _)| (p, 0))));
    let (mut total, mut outside) = (0.0, 0.0);
    for (geometry, _) in reference.supplied_shoreline().filter(|(_, name)| *name == body) {
        each_line(geometry, &mut |line| {
            let mid = line.start + (line.end - line.start) * 0.5;
            let at = [mid.x, mid.y];
            if county.as_ref().is_some_and(|c| c.containing(at).is_empty()) {
                return;
            }
            let length = (line.end - line.start).x.hypot((line.end - line.start).y);
            total += length;
            if index.containing(at).is_empty() {
                outside += length;
            }
        });
    }
    (total > 0.0).then(|| outside / total)
}

/// Calls `each` with every segment of a line or polygon boundary.
fn each_line(geometry: &Geometry<f64>, each: &mut dyn FnMut(Line<f64>)) {
    let mut ring = |coords: &[Coord<f64>]| coords.windows(2).for_each(|w| each(Line::new(w[0], w[1])));
    match geometry {
        Geometry::LineString(l) => ring(&l.0),
        Geometry::MultiLineString(m) => m.0.iter().for_each(|l| ring(&l.0)),
        _ => {
            for polygon in polygons(geometry).unwrap_or_default() {
                ring(&polygon.exterior().0);
                polygon.interiors().iter().for_each(|r| ring(&r.0));
            }
        }
    }
}

/// The warning for a floodplain layer whose zones carry no base flood elevation: only the zones that are a
/// water body's own take its designated elevation, and every other zone's verdict is "unknown".
pub(super) fn floodplain_without_bfe(config: &Config, layer: &Layer, candidates: &[&str]) -> Option<Problem> {
    config.rules.floodplain.as_ref()?;
    Some(Problem::new(
        &layer.path,
        Location::Fields,
        format!(
            "no base flood elevation field (looked for {}; its fields: {}): a system in a flood zone that is not \
             a water body's own (those take its designated elevation) has the floodplain verdict \"unknown\"; \
             set [fields] floodplain_bfe = \"FIELD\" or --field floodplain_bfe=FIELD",
            candidates.join(", "),
            fields_of(layer)
        ),
    ))
}
