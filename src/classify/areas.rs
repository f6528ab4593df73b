//! Area predicates: which watershed, town, sewer district and county a system or parcel is in.
//!
//! Each reference layer is an [`AreaIndex`] plus the name of each feature. A system is located by its point;
//! a parcel without a known system is in a watershed when any part of it is (the stricter reading, since
//! the system could sit anywhere on the lot), and in a town, sewer district or county by its interior point.

use geo::MultiPolygon;

use crate::classify::Name;
use crate::index::AreaIndex;
use crate::rules::RuleSet;

/// One indexed polygon layer with a name per feature.
#[derive(Debug)]
pub struct AreaLayer {
    index: AreaIndex,
    names: Vec<Option<Name>>,
}

impl AreaLayer {
    /// Indexes `(shape, name)` features.
    pub fn new(features: Vec<(MultiPolygon<f64>, Option<String>)>) -> Self {
        let mut names = Vec::with_capacity(features.len());
        let shapes: Vec<_> = features
            .into_iter()
            .enumerate()
            .map(|(i, (shape, name))| {
                names.push(name.map(Name::from));
                (shape, i as u32)
            })
            .collect();
        AreaLayer { index: AreaIndex::new(shapes), names }
    }

    /// The first feature (in file order) containing `p`.
    pub fn at(&self, p: [f64; 2]) -> Option<usize> {
        self.index.containing(p).first().map(|&i| i as usize)
    }

    /// The first feature (in file order) sharing any point with `shape`.
    pub fn touching(&self, shape: &MultiPolygon<f64>) -> Option<usize> {
        self.index.intersecting(shape).first().map(|&i| i as usize)
    }

    /// The name of feature `i`.
    pub fn name(&self, i: usize) -> Option<&Name> {
        self.names.get(i).and_then(Option::as_ref)
    }
}

/// The polygon layers a parcel is located in; each is optional.
#[derive(Debug, Default)]
pub struct Areas {
    /// Watersheds, named by water body.
    pub watersheds: Option<AreaLayer>,
    /// Towns (and cities), named.
    pub towns: Option<AreaLayer>,
    /// Public sewer districts.
    pub sewered: Option<AreaLayer>,
    /// The county boundary.
    pub county: Option<AreaLayer>,
    /// The rule set's municipalities, in its order, shared by every parcel's facts.
    pub municipalities: Vec<Name>,
}

/// A watershed feature without a name is reported under this one.
pub const UNNAMED_WATERSHED: &str = "watershed";

impl Areas {
    /// The watershed containing a system at `p`.
    pub fn watershed_at(&self, p: [f64; 2]) -> Option<Name> {
        let layer = self.watersheds.as_ref()?;
        layer.at(p).map(|i| layer.name(i).cloned().unwrap_or_else(|| Name::from(UNNAMED_WATERSHED)))
    }

    /// The watershed any part of the parcel lies in.
    pub fn watershed_touching(&self, shape: &MultiPolygon<f64>) -> Option<Name> {
        let layer = self.watersheds.as_ref()?;
        layer.touching(shape).map(|i| layer.name(i).cloned().unwrap_or_else(|| Name::from(UNNAMED_WATERSHED)))
    }

    /// The parcel's town: from the towns layer at the parcel's interior point where that layer is given and
    /// covers it, else from the parcel's own attribute. Returns `(canonical name, unknown name as found)`.
    pub fn town(
        &self,
        rules: &RuleSet,
        inside: Option<[f64; 2]>,
        attribute: Option<&str>,
    ) -> (Option<Name>, Option<String>) {
        let from_layer = match (&self.towns, inside) {
            (Some(layer), Some(p)) => layer.at(p).and_then(|i| layer.name(i)).map(|n| &**n),
            _ => None,
        };
        match from_layer.or(attribute).map(str::trim).filter(|s| !s.is_empty()) {
            None => (None, None),
            Some(found) => match rules.municipality_index(found) {
                Some(i) if i < self.municipalities.len() => (Some(self.municipalities[i].clone()), None),
                Some(_) => (rules.municipality(found).map(Name::from), None),
                None => (None, Some(found.to_string())),
            },
        }
    }

    /// Why the parcel is on public sewer: the assessor's sewer code, or a sewer district containing it.
    pub fn sewered(&self, rules: &RuleSet, inside: Option<[f64; 2]>, code: Option<&str>) -> Option<String> {
        if let Some(code) = code.map(str::trim) {
            if rules.coverage.public_sewer_codes.iter().any(|c| c == code) {
                return Some(format!("assessor sewer code {code} (public sewer)"));
            }
        }
        let layer = self.sewered.as_ref()?;
        let i = layer.at(inside?)?;
        Some(match layer.name(i) {
            Some(name) => format!("inside sewer district {name}"),
            None => "inside a sewer district".to_string(),
        })
    }

    /// Whether `p` is inside the county boundary; true when no boundary layer is given.
    pub fn in_county(&self, p: [f64; 2]) -> bool {
        self.county.as_ref().is_none_or(|layer| layer.at(p).is_some())
    }
}
