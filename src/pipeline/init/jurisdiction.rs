//! Whether the built-in rule set is the county's: the towns of the towns layer (or of the parcels'
//! municipality field) and the water bodies of the shoreline layer compared with the rule set's. A county the
//! rule set does not know needs its own: `init` then writes a starter rule set beside the config, with the
//! county's towns and water bodies and every value of the law marked to fill
//! ([`crate::rules::starter`]), and points the config at it.

use std::collections::BTreeSet;
use std::path::Path;

use crate::formats::{read_layer, ReadOptions};
use crate::rules::RuleSet;

use super::Survey;

/// The fields a layer may name its features by, in the order they are tried.
const NAME_FIELDS: [&str; 8] =
    ["NAME", "TOWN", "MUNI_NAME", "NAMELSAD", "GNIS_NAME", "WATERBODY", "LAKE_NAME", "GNIS_Name"];

/// The distinct names of the first field of `fields` the layer at `path` has; empty when it cannot be read.
fn names(path: &Path, fields: &[&str]) -> BTreeSet<String> {
    let Ok((layer, _)) = read_layer(path, &ReadOptions::default()) else { return BTreeSet::new() };
    let Some(field) = fields.iter().find_map(|f| layer.field_index(f)) else { return BTreeSet::new() };
    layer
        .features
        .iter()
        .filter_map(|f| f.values[field].as_text())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// What the county's layers name that the rule set does not know.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mismatch {
    /// The county's towns.
    pub towns: Vec<String>,
    /// The water bodies its shoreline names.
    pub water_bodies: Vec<String>,
    /// Why the rule set is not the county's, in a sentence.
    pub why: String,
}

/// Compares the towns and water bodies of the surveyed county with `rules`: `None` when the rule set knows
/// most of the county's towns and one of its water bodies (or the layers name none).
pub fn compare(survey: &Survey, rules: &RuleSet) -> Option<Mismatch> {
    let mut towns = survey.file("towns").map(|p| names(p, &NAME_FIELDS)).unwrap_or_default();
    if towns.is_empty() {
        let field =
            survey.parcel_fields.iter().find(|(role, _)| *role == "town").and_then(|(_, f)| f.first());
        if let (Some(parcels), Some(field)) = (survey.file("parcels"), field) {
            towns = names(parcels, &[field.as_str()]);
        }
    }
    let water: BTreeSet<String> =
        survey.file("shoreline").map(|p| names(p, &NAME_FIELDS)).unwrap_or_default();
    let known_towns = towns.iter().filter(|t| rules.municipality(t).is_some()).count();
    let known_water = water.iter().any(|w| rules.water_body(w).is_some());
    let mut why = Vec::new();
    if !towns.is_empty() && known_towns * 2 < towns.len() {
        why.push(format!("{} of the county's {} towns", towns.len() - known_towns, towns.len()));
    }
    if !water.is_empty() && !known_water {
        why.push(format!("its water bodies ({})", water.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    if why.is_empty() {
        return None;
    }
    Some(Mismatch {
        why: format!(
            "the built-in rule set ({}) does not know {}",
            rules.jurisdiction.name,
            why.join(" or ")
        ),
        towns: towns.into_iter().collect(),
        water_bodies: water.into_iter().collect(),
    })
}
