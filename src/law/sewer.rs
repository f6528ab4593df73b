//! Public sewer (Art. V §I.B: "This article does not apply to those properties using public sewer systems").
//!
//! *Using*, not having access: the assessor's sewer code says who uses public sewer, so it decides when it is
//! present; a sewer-district polygon only says sewer is available, so it decides only without a code. A code
//! saying "not public" inside a district keeps the parcel scheduled, and the disagreement is reported. A rule
//! set that lists no public-sewer codes cannot read the code: the district decides.
//!
//! The code is read through the rule set's table ([`RuleSet::sewer_value`]): RPS codes (`3`) and the words
//! some counties write (`Public`, `Private`, `Septic`), case, spaces and punctuation aside. A value the table
//! does not hold says nothing: the district decides, and the run reports the value once with its count.

use crate::model::facts::SewerFacts;
use crate::rules::{RuleSet, SewerValue};

/// What the law makes of the sewer evidence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sewer {
    /// Why the parcel uses public sewer, if it does.
    pub public: Option<String>,
    /// The sewer code and the district layer disagree (the code decided): what each says.
    pub disagreement: Option<String>,
}

/// Whether the parcel uses public sewer: the assessor's sewer code decides when it is present (and the rule
/// set lists codes); the district decides only when it is not.
pub fn public_sewer(rules: &RuleSet, facts: &SewerFacts<'_>) -> Sewer {
    let district = || {
        facts.district.map(|d| match d.name {
            Some(name) => format!("inside sewer district {name}"),
            None => "inside a sewer district".to_string(),
        })
    };
    let codes = &rules.coverage.public_sewer_codes;
    let code = facts.code.map(str::trim).filter(|c| !c.is_empty() && !codes.is_empty());
    match code.map(|c| (c, rules.sewer_value(c))) {
        Some((code, SewerValue::Public)) => {
            Sewer { public: Some(format!("assessor sewer code {code} (public sewer)")), disagreement: None }
        }
        Some((code, SewerValue::NotPublic)) => Sewer {
            public: None,
            disagreement: district()
                .map(|d| format!("assessor sewer code {code} (not public sewer) but {d}")),
        },
        Some((_, SewerValue::Unknown)) | None => Sewer { public: district(), disagreement: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::{Basis, District};

    /// Art. V §I.B "This article does not apply to those properties using public sewer systems": the
    /// assessor's code says who uses it; the district polygon only says sewer is available, so it decides
    /// only without a code, and a code saying "private" inside a district is a disagreement to report.
    #[test]
    fn the_sewer_code_decides_and_the_district_only_without_one() {
        let rules = RuleSet::cayuga_art_v();
        let inside = Some(District { name: Some("Moravia Sewer"), basis: Basis::System });
        let sewer = |district: Option<District<'static>>, code: Option<&'static str>| {
            public_sewer(&rules, &SewerFacts { code, district })
        };
        let private_in_district = sewer(inside, Some("2"));
        assert_eq!(private_in_district.public, None);
        assert_eq!(
            private_in_district.disagreement.as_deref(),
            Some("assessor sewer code 2 (not public sewer) but inside sewer district Moravia Sewer")
        );
        assert_eq!(sewer(inside, Some("3")).public.as_deref(), Some("assessor sewer code 3 (public sewer)"));
        assert_eq!(sewer(None, Some("3")).disagreement, None);
        assert_eq!(sewer(inside, Some(" ")).public.as_deref(), Some("inside sewer district Moravia Sewer"));
        assert_eq!(sewer(inside, None).disagreement, None);
        assert_eq!(sewer(None, None), Sewer::default());
        assert_eq!(sewer(None, Some("2")), Sewer::default());
        // A district without a name still decides, as "a sewer district".
        let unnamed = Some(District { name: None, basis: Basis::Parcel });
        assert_eq!(sewer(unnamed, None).public.as_deref(), Some("inside a sewer district"));
    }

    /// Sewer values in words (Tompkins County's `SEWER`: Public, Private) are read through the rule set's
    /// table, case and punctuation aside; a word the table does not hold says nothing, so the district decides.
    #[test]
    fn sewer_words_decide_through_the_table() {
        let rules = RuleSet::cayuga_art_v();
        let inside = Some(District { name: Some("Lake Sewer"), basis: Basis::Parcel });
        let sewer = |code| public_sewer(&rules, &SewerFacts { code: Some(code), district: inside });
        assert_eq!(sewer("Public").public.as_deref(), Some("assessor sewer code Public (public sewer)"));
        assert_eq!(sewer("Private").public, None);
        assert!(sewer("Private").disagreement.is_some());
        assert_eq!(sewer("Connected").public.as_deref(), Some("inside sewer district Lake Sewer"));
        assert_eq!(sewer("Connected").disagreement, None);
    }

    /// A rule set that lists no public-sewer codes cannot read the code: the district decides.
    #[test]
    fn without_codes_the_district_decides() {
        let mut rules = RuleSet::cayuga_art_v();
        rules.coverage.public_sewer_codes.clear();
        let inside = Some(District { name: Some("Moravia Sewer"), basis: Basis::Parcel });
        let private_in_district = public_sewer(&rules, &SewerFacts { code: Some("2"), district: inside });
        assert_eq!(private_in_district.public.as_deref(), Some("inside sewer district Moravia Sewer"));
        assert_eq!(private_in_district.disagreement, None);
        assert_eq!(public_sewer(&rules, &SewerFacts { code: Some("3"), district: None }), Sewer::default());
    }
}
