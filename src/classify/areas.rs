//! Area predicates: which watershed, town, sewer district and county a system or parcel is in.
//!
//! Each reference layer is an [`AreaIndex`] plus the name of each feature. A system is located by its point;
//! a parcel without a known system is in a watershed or the county when any part of it is (the system could
//! sit anywhere on the lot; Art. V §I.C.1 "wholly or partially within"), and in a town or sewer district by
//! its interior point.

use geo::{MultiPolygon, Polygon};

use crate::geom::index::AreaIndex;
use crate::model::facts::Name;
use crate::rules::{Place, RuleSet};

/// One indexed polygon layer with a name per feature.
#[derive(Debug)]
pub struct AreaLayer {
    index: AreaIndex,
    names: Vec<Option<Name>>,
}

impl AreaLayer {
    /// Indexes `(polygons, name)` features, borrowed (see [`AreaIndex::new`]); feature `i` is the `i`-th given.
    pub fn new<'a>(features: impl IntoIterator<Item = (&'a [Polygon<f64>], Option<&'a str>)>) -> Self {
        let mut names = Vec::new();
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
    /// Watersheds of the rule set's water bodies, each named by its water body's canonical name (the
    /// pipeline leaves out the polygons of other watersheds).
    pub watersheds: Option<AreaLayer>,
    /// Towns (and cities), named.
    pub towns: Option<AreaLayer>,
    /// Public sewer districts.
    pub sewered: Option<AreaLayer>,
    /// The county boundary.
    pub county: Option<AreaLayer>,
    /// The rule set's municipalities, in its order, shared by every parcel's facts.
    pub municipalities: Vec<Name>,
    /// What each town name met so far means ([`RuleSet::place`]): a county spells its towns a few dozen
    /// ways, and a million parcels name them.
    pub places: PlaceMemo,
}

/// [`RuleSet::place`] of the names met, with a town as its shared name; filled as parcels are classified.
#[derive(Debug, Default)]
pub struct PlaceMemo(std::sync::RwLock<rustc_hash::FxHashMap<Box<str>, KnownPlace>>);

/// A [`Place`] with the town's shared name.
#[derive(Debug, Clone)]
enum KnownPlace {
    Town(Name),
    VillageOfTowns { village: String, towns: Vec<String> },
    Unknown,
}

/// `s` trimmed, unless that leaves nothing.
fn nonblank(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

impl Areas {
    /// The watershed containing a system at `p`.
    pub fn watershed_at(&self, p: [f64; 2]) -> Option<Name> {
        let layer = self.watersheds.as_ref()?;
        layer.at(p).and_then(|i| layer.name(i).cloned())
    }

    /// The watershed any part of the parcel lies in.
    pub fn watershed_touching(&self, shape: &MultiPolygon<f64>) -> Option<Name> {
        let layer = self.watersheds.as_ref()?;
        layer.touching(shape).and_then(|i| layer.name(i).cloned())
    }

    /// The parcel's town: from the towns layer at `at` (the system point when known, else the parcel's
    /// interior point) where that layer is given and covers it; else from the parcel's municipality attribute
    /// (a village gives its town; a village spanning towns takes the one its SWIS code names); else, when the
    /// attribute is blank, from the SWIS code alone. A name that is neither a municipality nor a village is
    /// bad input, reported, not overridden. Returns `(canonical name, the name as found when no town could be
    /// made of it)`.
    pub fn town(
        &self,
        rules: &RuleSet,
        at: Option<[f64; 2]>,
        attribute: Option<&str>,
        swis: Option<&str>,
    ) -> (Option<Name>, Option<String>) {
        let from_layer = match (&self.towns, at) {
            (Some(layer), Some(p)) => layer.at(p).and_then(|i| layer.name(i)).map(|n| &**n),
            _ => None,
        };
        let swis_town = || nonblank(swis).and_then(|s| rules.swis_town(s));
        let found = nonblank(from_layer).or(nonblank(attribute));
        match found.map(|name| (name, self.place(rules, name))) {
            Some((_, KnownPlace::Town(town))) => (Some(town), None),
            Some((_, KnownPlace::VillageOfTowns { village, towns })) => match swis_town() {
                Some(t) if towns.contains(&t) => (Some(self.shared(rules, &t)), None),
                _ => (
                    None,
                    Some(format!(
                        "{village} (a village in {}; a towns layer or SWIS code decides which)",
                        towns.join(" and ")
                    )),
                ),
            },
            Some((name, KnownPlace::Unknown)) => (None, Some(name.to_string())),
            None => (swis_town().map(|t| self.shared(rules, &t)), None),
        }
    }

    /// What the town name `name` means, worked out once per name.
    fn place(&self, rules: &RuleSet, name: &str) -> KnownPlace {
        let memo = &self.places.0;
        if let Some(known) = memo.read().ok().and_then(|m| m.get(name).cloned()) {
            return known;
        }
        let known = match rules.place(name) {
            Place::Town(town) => KnownPlace::Town(self.shared(rules, &town)),
            Place::VillageOfTowns { village, towns } => KnownPlace::VillageOfTowns { village, towns },
            Place::Unknown => KnownPlace::Unknown,
        };
        if let Ok(mut m) = memo.write() {
            m.insert(name.into(), known.clone());
        }
        known
    }

    /// The shared copy of a canonical municipality name.
    fn shared(&self, rules: &RuleSet, town: &str) -> Name {
        match rules.municipality_index(town) {
            Some(i) if i < self.municipalities.len() => self.municipalities[i].clone(),
            _ => Name::from(town),
        }
    }

    /// The sewer district containing `at` (the system point when known, else the parcel's interior point), with
    /// its name when it has one; `None` outside every district or without a sewer-district layer. Whether the
    /// parcel uses public sewer is the law's to decide (`law::sewer`).
    pub fn sewer_district(&self, at: Option<[f64; 2]>) -> Option<Option<&Name>> {
        let layer = self.sewered.as_ref()?;
        let i = layer.at(at?)?;
        Some(layer.name(i))
    }

    /// Whether `p` is inside the county boundary; true when no boundary layer is given.
    pub fn in_county(&self, p: [f64; 2]) -> bool {
        self.county.as_ref().is_none_or(|layer| layer.at(p).is_some())
    }

    /// Whether any part of `shape` is inside the county boundary; true when no boundary layer is given.
    pub fn touches_county(&self, shape: &MultiPolygon<f64>) -> bool {
        self.county.as_ref().is_none_or(|layer| layer.touching(shape).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> MultiPolygon<f64> {
        geo::MultiPolygon(vec![geo::Rect::new((x0, y0), (x1, y1)).to_polygon()])
    }

    fn layer(features: &[([f64; 4], &str)]) -> Option<AreaLayer> {
        let shapes: Vec<_> = features.iter().map(|(b, _)| square(b[0], b[1], b[2], b[3])).collect();
        Some(AreaLayer::new(
            shapes.iter().zip(features).map(|(shape, (_, name))| (&shape.0[..], Some(*name))),
        ))
    }

    /// Two towns side by side (Moravia x < 100, Scipio x >= 100), a sewer district over x 0-50, and the
    /// county y >= 0.
    fn areas(rules: &RuleSet) -> Areas {
        Areas {
            towns: layer(&[([0.0, 0.0, 100.0, 100.0], "Moravia"), ([100.0, 0.0, 200.0, 100.0], "Scipio")]),
            sewered: layer(&[([0.0, 0.0, 50.0, 100.0], "Moravia Sewer")]),
            county: layer(&[([0.0, 0.0, 200.0, 100.0], "Cayuga")]),
            municipalities: rules
                .jurisdiction
                .municipalities
                .iter()
                .map(|m| Name::from(m.as_str()))
                .collect(),
            ..Areas::default()
        }
    }

    /// The sewer district is found at the point given (the system's, or the parcel's interior point); what it
    /// means is the rule set's (`rules::sewer`).
    #[test]
    fn the_sewer_district_is_found_at_the_point() {
        let rules = RuleSet::cayuga_art_v();
        let a = areas(&rules);
        let name = |at| a.sewer_district(at).map(|n| n.map(|n| n.to_string()));
        assert_eq!(name(Some([25.0, 50.0])), Some(Some("Moravia Sewer".to_string())));
        assert_eq!(name(Some([75.0, 50.0])), None);
        assert_eq!(name(None), None);
        assert_eq!(Areas::default().sewer_district(Some([25.0, 50.0])), None);
    }

    /// §I.C.1 "wastewater treatment systems located wholly or partially within Cayuga County": any part of
    /// a parcel whose system location is unknown counts.
    #[test]
    fn a_parcel_partly_in_the_county_is_in_it() {
        let rules = RuleSet::cayuga_art_v();
        let a = areas(&rules);
        // 30 % of the lot lies north of the county line y = 0; its interior point would be outside.
        let straddling = square(10.0, -70.0, 20.0, 30.0);
        assert!(a.touches_county(&straddling));
        assert!(!a.in_county([15.0, -20.0]));
        assert!(!a.touches_county(&square(10.0, -70.0, 20.0, -1.0)));
    }

    /// The town from the system point when it is known (a lot across the Moravia/Scipio line with its system in
    /// Scipio is in Scipio); then the assessor municipality, a village giving its town; then the SWIS code.
    #[test]
    fn the_town_comes_from_the_layer_then_the_name_then_the_swis_code() {
        let rules = RuleSet::cayuga_art_v();
        let a = areas(&rules);
        let town = |at: Option<[f64; 2]>, name: Option<&str>, swis: Option<&str>| {
            let (t, unknown) = a.town(&rules, at, name, swis);
            (t.map(|t| t.to_string()), unknown)
        };
        assert_eq!(town(Some([150.0, 50.0]), Some("Moravia"), None), (Some("Scipio".into()), None));
        // A village spanning two towns takes its town from the towns layer where it covers the parcel.
        assert_eq!(town(Some([150.0, 50.0]), Some("Village of Cato"), None), (Some("Scipio".into()), None));
        // Outside the towns layer: the name, a village's town, the SWIS code.
        let off = Some([500.0, 500.0]);
        assert_eq!(town(off, Some("Village of Fair Haven"), None), (Some("Sterling".into()), None));
        assert_eq!(town(off, None, Some("055601")), (Some("Sterling".into()), None));
        assert_eq!(town(off, Some(""), Some("055601")), (Some("Sterling".into()), None));
        // The Village of Cato spans the Towns of Cato and Ira: the SWIS code decides, else it is unknown.
        assert_eq!(town(off, Some("Village of Cato"), Some("053201")), (Some("Ira".into()), None));
        let (t, unknown) = town(off, Some("Village of Cato"), None);
        assert_eq!(t, None);
        assert!(unknown.is_some_and(|u| u.starts_with("Cato (a village in Cato and Ira")));
        assert_eq!(town(off, Some("Skaneateles"), None), (None, Some("Skaneateles".into())));
        // A name that is no municipality is reported, not replaced by the SWIS code's town.
        assert_eq!(town(off, Some("Skaneateles"), Some("054401")), (None, Some("Skaneateles".into())));
        assert_eq!(town(off, None, None), (None, None));
    }
}
