//! Place names of a rule set: municipalities (with their prefixes), the villages inside them, the New York
//! SWIS codes that identify them, and the water bodies with their aliases. Layers and assessor records spell
//! places many ways ("Town of OWASCO", "V/Fair Haven", "OWASCO LAKE WATERSHED"); these functions bring each
//! spelling to the rule set's own name, or say it is not one.

use std::hash::Hasher;

use super::{Jurisdiction, RuleSet, WaterBody};

/// What a municipality attribute names, once read against the rule set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A municipality of the rule set (canonical name).
    Town(String),
    /// A village lying in more than one town: which one holds the parcel is not known from the name.
    VillageOfTowns {
        /// The village, as the rule set spells it.
        village: String,
        /// Its towns, canonical names.
        towns: Vec<String>,
    },
    /// Neither a municipality nor a village of the rule set.
    Unknown,
}

/// Case-insensitive, whitespace-collapsed comparison key.
fn key(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Whether two names are the same, case (ASCII) and runs of spaces aside, without allocating: this runs for
/// every parcel.
fn same(a: &str, b: &str) -> bool {
    let (mut x, mut y) = (a.split_whitespace(), b.split_whitespace());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p.eq_ignore_ascii_case(q) => {}
            _ => return false,
        }
    }
}

/// A list of names, found by a spelling in about constant time, case (ASCII) and runs of spaces aside (as
/// [`same`] compares them): a rule set may list thousands of municipalities and villages, each checked
/// against the others when it is loaded and looked up for every parcel.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    /// The hash of each name's spelling with its position in the list, sorted.
    hashes: Vec<(u64, usize)>,
}

impl Names {
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut hashes: Vec<(u64, usize)> =
            names.into_iter().enumerate().map(|(i, n)| (spelling(n), i)).collect();
        hashes.sort_unstable();
        Names { hashes }
    }

    /// The first position (in the list's order) whose name `name_at` is `name`, case and spaces aside.
    pub(crate) fn find<'a>(&self, name: &str, name_at: impl Fn(usize) -> &'a str) -> Option<usize> {
        self.find_spelled(&Spelled::new(name), name_at)
    }

    /// [`Names::find`] for a name whose spelling was hashed once, to be looked up in several lists.
    pub(crate) fn find_spelled<'a>(
        &self,
        name: &Spelled<'_>,
        name_at: impl Fn(usize) -> &'a str,
    ) -> Option<usize> {
        let from = self.hashes.partition_point(|&(k, _)| k < name.hash);
        self.hashes[from..]
            .iter()
            .take_while(|&&(k, _)| k == name.hash)
            .map(|&(_, i)| i)
            .find(|&i| same(name_at(i), name.name))
    }
}

/// A name and the hash of its spelling, to look it up in several [`Names`] (a parcel's town in the town
/// lists of every rule).
pub(crate) struct Spelled<'a> {
    name: &'a str,
    hash: u64,
}

impl<'a> Spelled<'a> {
    pub(crate) fn new(name: &'a str) -> Self {
        Spelled { name, hash: spelling(name) }
    }
}

/// The lookups of a jurisdiction's municipalities and villages, in the order the rule set lists them.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlaceIndex {
    municipalities: Names,
    villages: Names,
    /// The villages in the order of [`Jurisdiction::villages`], for [`Self::villages`]'s positions.
    village_names: Vec<String>,
}

impl PlaceIndex {
    pub(crate) fn new(jurisdiction: &Jurisdiction) -> Self {
        PlaceIndex {
            municipalities: Names::new(jurisdiction.municipalities.iter().map(String::as_str)),
            villages: Names::new(jurisdiction.villages.keys().map(String::as_str)),
            village_names: jurisdiction.villages.keys().cloned().collect(),
        }
    }
}

/// A hash of the spelling [`same`] compares: the words, ASCII lower case, one space between.
fn spelling(name: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for (i, word) in name.split_whitespace().enumerate() {
        if i > 0 {
            h.write_u8(b' ');
        }
        word.bytes().for_each(|b| h.write_u8(b.to_ascii_lowercase()));
    }
    h.finish()
}

/// `name` without one of `prefixes` (case-insensitive), trimmed; `None` when no prefix matched.
fn strip_prefix<'a>(name: &'a str, prefixes: &[String]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| {
        let head = name.get(..p.len())?;
        (name.len() > p.len() && head.eq_ignore_ascii_case(p)).then(|| name[p.len()..].trim())
    })
}

impl RuleSet {
    /// The canonical municipality name for `name` ("Town of OWASCO" → "Owasco"), or `None` when it is not a
    /// municipality of this jurisdiction. Without a municipality list every non-empty name is accepted.
    pub fn municipality(&self, name: &str) -> Option<String> {
        let name = name.trim();
        let name = strip_prefix(name, &self.jurisdiction.strip_prefixes).unwrap_or(name);
        if name.is_empty() {
            return None;
        }
        if self.jurisdiction.municipalities.is_empty() {
            return Some(name.to_string());
        }
        let list = &self.jurisdiction.municipalities;
        self.places.municipalities.find(name, |i| &list[i]).map(|i| list[i].clone())
    }

    /// The position of `name`'s municipality in [`super::Jurisdiction::municipalities`] (see
    /// [`Self::municipality`]); `Some(usize::MAX)` when the rule set lists no municipalities and so accepts
    /// any name.
    pub fn municipality_index(&self, name: &str) -> Option<usize> {
        let canonical = self.municipality(name)?;
        Some(self.jurisdiction.municipalities.iter().position(|m| *m == canonical).unwrap_or(usize::MAX))
    }

    /// What a municipality attribute names. A name with a village prefix ("Village of Cato", "V/Cato") is
    /// read as a village only; any other name is a municipality first (a bare "Cato" or "Moravia" is the
    /// town) and a village second ("Fair Haven", "Union Springs"). A village in one town gives that town.
    pub fn place(&self, name: &str) -> Place {
        let name = name.trim();
        let village_name = strip_prefix(name, &self.jurisdiction.village_prefixes);
        if village_name.is_none() {
            if let Some(town) = self.municipality(name) {
                return Place::Town(town);
            }
        }
        let wanted = village_name.unwrap_or(name);
        let villages = &self.places.village_names;
        let found = self.places.villages.find(wanted, |i| &villages[i]);
        let Some((village, towns)) =
            found.and_then(|i| self.jurisdiction.villages.get_key_value(&villages[i]))
        else {
            return Place::Unknown;
        };
        let towns: Vec<String> = towns.iter().filter_map(|t| self.municipality(t)).collect();
        match towns.as_slice() {
            [one] => Place::Town(one.clone()),
            [] => Place::Unknown,
            _ => Place::VillageOfTowns { village: village.clone(), towns },
        }
    }

    /// The municipality a New York SWIS code identifies: its first four digits (county and city or town)
    /// looked up in the rule set's `[jurisdiction.swis]` table.
    /// A code read as a number has lost its leading zero ("54689"): five digits are read as six.
    pub fn swis_town(&self, swis: &str) -> Option<String> {
        let swis = swis.trim();
        let padded;
        let swis = if swis.len() == 5 && swis.bytes().all(|b| b.is_ascii_digit()) {
            padded = format!("0{swis}");
            &padded
        } else {
            swis
        };
        let head = swis.get(..4).filter(|h| h.bytes().all(|b| b.is_ascii_digit()))?;
        self.jurisdiction.swis.get(head).and_then(|t| self.municipality(t))
    }

    /// The water bodies whose watersheds the periodic rules name, each once, in name order.
    pub fn watershed_names(&self) -> std::collections::BTreeSet<&str> {
        self.rules.iter().flat_map(|r| r.watersheds.iter().flatten()).map(String::as_str).collect()
    }

    /// The water body called `name` or one of its aliases (case-insensitive), also when the name carries one
    /// of the rule set's watershed suffixes ("Owasco Lake Watershed", "OWASCO LAKE", "Owasco").
    pub fn water_body(&self, name: &str) -> Option<&WaterBody> {
        let mut wanted = key(name);
        for suffix in &self.jurisdiction.watershed_suffixes {
            let suffix = key(suffix);
            if let Some(head) = wanted.strip_suffix(&suffix).filter(|h| h.ends_with(' ')) {
                wanted = head.trim_end().to_string();
                break;
            }
        }
        self.water_bodies
            .iter()
            .find(|w| std::iter::once(&w.name).chain(&w.aliases).any(|n| key(n) == wanted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn municipality_names_are_canonicalised() {
        let set = RuleSet::cayuga_art_v();
        assert_eq!(set.municipality("Town of OWASCO").as_deref(), Some("Owasco"));
        assert_eq!(set.municipality("City of Auburn").as_deref(), Some("Auburn"));
        assert_eq!(set.municipality(" sennett ").as_deref(), Some("Sennett"));
        assert_eq!(set.municipality("Skaneateles"), None);
        assert_eq!(set.municipality(""), None);
    }

    /// Art. V §IV.A.1 ¶1–2 name no towns, and the villages of Cayuga County lie inside its towns (the
    /// county's villages: "Aurora, Cato, Cayuga, Fair Haven, Meridian, Moravia, Port Byron, Union Springs, Weedsport"). Each
    /// village gives its town; a name that is both a town and a village ("Cato", "Moravia") is the town
    /// unless it says it is the village; the Village of Cato lies in the Towns of Cato and Ira.
    #[test]
    fn villages_give_their_towns() {
        let set = RuleSet::cayuga_art_v();
        let town = |s: &str| Place::Town(s.to_string());
        assert_eq!(set.place("Village of Fair Haven"), town("Sterling"));
        assert_eq!(set.place("FAIR HAVEN"), town("Sterling"));
        assert_eq!(set.place("V/Union Springs"), town("Springport"));
        assert_eq!(set.place("Aurora"), town("Ledyard"));
        assert_eq!(set.place("Cayuga"), town("Aurelius"));
        assert_eq!(set.place("Meridian"), town("Cato"));
        assert_eq!(set.place("Port Byron"), town("Mentz"));
        assert_eq!(set.place("Weedsport"), town("Brutus"));
        // Town and village of the same name: the bare name is the town.
        assert_eq!(set.place("Moravia"), town("Moravia"));
        assert_eq!(set.place("Village of Moravia"), town("Moravia"));
        assert_eq!(set.place("Cato"), town("Cato"));
        assert_eq!(
            set.place("Village of Cato"),
            Place::VillageOfTowns { village: "Cato".into(), towns: vec!["Cato".into(), "Ira".into()] }
        );
        assert_eq!(set.place("Town of Fair Haven"), Place::Unknown);
        assert_eq!(set.place("Skaneateles"), Place::Unknown);
    }

    /// NYS SWIS codes: two digits of county (Cayuga is 05), two of city or town, two of village.
    #[test]
    fn swis_codes_give_the_town() {
        let set = RuleSet::cayuga_art_v();
        assert_eq!(set.swis_town("054689").as_deref(), Some("Owasco"));
        assert_eq!(set.swis_town("055601").as_deref(), Some("Sterling"));
        assert_eq!(set.swis_town("050100").as_deref(), Some("Auburn"));
        assert_eq!(set.swis_town("0544").as_deref(), Some("Niles"));
        assert_eq!(set.swis_town("54689").as_deref(), Some("Owasco")); // a numeric field lost the 0
        assert_eq!(set.swis_town("502889"), None); // another county
        assert_eq!(set.swis_town("05"), None);
        assert_eq!(set.swis_town("05x689"), None);
    }

    /// §IV.A.1 ¶3 "the Owasco Lake or Little Sodus Bay Watershed": layer names are matched to the water
    /// bodies by name or alias, with or without the word "Watershed".
    #[test]
    fn watershed_names_match_water_bodies_by_name_or_alias() {
        let set = RuleSet::cayuga_art_v();
        for name in ["Owasco Lake Watershed", "OWASCO LAKE", "Owasco", "owasco  lake", "Owasco Watershed"] {
            assert_eq!(set.water_body(name).map(|w| w.name.as_str()), Some("Owasco Lake"), "{name}");
        }
        assert_eq!(
            set.water_body("Little Sodus Bay Watershed").map(|w| w.name.as_str()),
            Some("Little Sodus Bay")
        );
        for name in ["Skaneateles Lake", "Skaneateles Lake Watershed", "Watershed", "Owasco Lake Basin Inc"] {
            assert!(set.water_body(name).is_none(), "{name}");
        }
    }

    /// A rule set of 100,000 municipalities and 100,000 villages: each village's town is checked when it is
    /// read and each name is found by its spelling, case and spaces aside, the first listed winning. (Each
    /// name was compared with every other before, which took more than three minutes.)
    #[test]
    fn thousands_of_places_are_found_by_their_spelling() {
        let mut doc: toml::Table = toml::from_str(super::super::CAYUGA_ART_V).unwrap();
        let n = 100_000;
        let jurisdiction = doc["jurisdiction"].as_table_mut().unwrap();
        let towns = jurisdiction["municipalities"].as_array_mut().unwrap();
        towns.extend((0..n).map(|i| toml::Value::String(format!("Town {i}"))));
        // A second spelling of a listed town: the first listed is the canonical one.
        towns.push(toml::Value::String("TOWN  7".into()));
        let villages = jurisdiction["villages"].as_table_mut().unwrap();
        for i in 0..n {
            villages.insert(
                format!("Hamlet {i}"),
                toml::Value::Array(vec![toml::Value::String(format!("town {i}"))]),
            );
        }
        let set =
            RuleSet::from_toml(&toml::to_string(&doc).unwrap(), std::path::Path::new("big.toml")).unwrap();
        assert_eq!(set.municipality("town   99999").as_deref(), Some("Town 99999"));
        assert_eq!(set.municipality("Town of TOWN 7").as_deref(), Some("Town 7"));
        assert_eq!(set.municipality("Owasco").as_deref(), Some("Owasco"));
        assert_eq!(set.municipality("Town 100000"), None);
        assert_eq!(set.place("V/hamlet 4242"), Place::Town("Town 4242".into()));
        assert_eq!(set.place("Fair Haven"), Place::Town("Sterling".into()));
        assert_eq!(set.place("Hamlet 100000"), Place::Unknown);
    }

    /// A rule set with more mistakes than an error lists names the first ones and counts them all.
    #[test]
    fn a_rule_set_of_many_mistakes_lists_the_first() {
        let mut doc: toml::Table = toml::from_str(super::super::CAYUGA_ART_V).unwrap();
        let villages = doc["jurisdiction"]["villages"].as_table_mut().unwrap();
        for i in 0..10_000 {
            villages.insert(
                format!("Hamlet {i:05}"),
                toml::Value::Array(vec![toml::Value::String(format!("Nowhere {i}"))]),
            );
        }
        let err = RuleSet::from_toml(&toml::to_string(&doc).unwrap(), std::path::Path::new("big.toml"))
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("10000 mistakes, the first 20:"), "{}", &text[..200.min(text.len())]);
        assert!(text.contains("village 'Hamlet 00019': town 'Nowhere 19'"), "{text}");
        assert!(!text.contains("Hamlet 00020"), "{text}");
    }
}
