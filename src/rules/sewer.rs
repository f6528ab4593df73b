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

use super::RuleSet;
use crate::model::facts::Basis;

/// The sewer evidence about one parcel, as classification found it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SewerFacts<'a> {
    /// The assessor's sewer code, as written in the parcel's own record.
    pub code: Option<&'a str>,
    /// The sewer district the parcel lies in, when it lies in one.
    pub district: Option<District<'a>>,
}

/// A sewer district containing a parcel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct District<'a> {
    /// The district's name, when the layer gives one.
    pub name: Option<&'a str>,
    /// Where the parcel was located in it: the system's point, or else the parcel's interior point.
    pub basis: Basis,
}

/// What the rule set makes of the sewer evidence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sewer {
    /// Why the parcel uses public sewer, if it does.
    pub public: Option<String>,
    /// The sewer code and the district layer disagree (the code decided): what each says.
    pub disagreement: Option<String>,
}

/// What an assessor's sewer value says, read through the rule set's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SewerValue {
    /// The parcel uses public sewer.
    Public,
    /// It does not: a value of the private list, or a numeric code the public list does not hold.
    NotPublic,
    /// A value in neither list: it says nothing, and is reported.
    Unknown,
}

/// The upper-case letters and digits of `text` into `out` (emptied first), each run of other characters
/// between them one space, for comparing sewer values: `Comm/Public` is `COMM PUBLIC`.
pub(super) fn fold_into(text: &str, out: &mut String) {
    out.clear();
    let mut gap = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push(' ');
        }
        gap = false;
        if c.is_ascii() {
            out.push(c.to_ascii_uppercase());
        } else {
            out.extend(c.to_uppercase());
        }
    }
}

/// Whether `text` folds ([`fold_into`]) to `folded`, looked at only as far as the first character that
/// differs: most entries of a list differ from a value at their first letter.
fn folds_to(text: &str, folded: &str) -> bool {
    let mut want = folded.chars();
    let (mut gap, mut started) = (false, false);
    for c in text.chars() {
        if !c.is_alphanumeric() {
            gap = true;
            continue;
        }
        if gap && started && want.next() != Some(' ') {
            return false;
        }
        (gap, started) = (false, true);
        if c.is_ascii() {
            if want.next() != Some(c.to_ascii_uppercase()) {
                return false;
            }
        } else if !c.to_uppercase().all(|u| want.next() == Some(u)) {
            return false;
        }
    }
    want.next().is_none()
}

impl RuleSet {
    /// What the sewer value `code` (not blank) says (see [`SewerValue`]).
    pub fn sewer_value(&self, code: &str) -> SewerValue {
        // The value is folded once, and each entry compared with it as far as they agree.
        let mut value = String::new();
        fold_into(code, &mut value);
        let is = |list: &[String]| list.iter().any(|v| folds_to(v, &value));
        let coverage = &self.coverage;
        if is(&coverage.public_sewer_codes) {
            SewerValue::Public
        } else if is(&coverage.private_sewer_codes) || code.trim().bytes().all(|b| b.is_ascii_digit()) {
            SewerValue::NotPublic
        } else {
            SewerValue::Unknown
        }
    }

    /// Whether the parcel uses public sewer: the assessor's sewer code decides when it is present (and the
    /// rule set lists codes); the district decides only when it is not.
    pub fn public_sewer(&self, facts: &SewerFacts<'_>) -> Sewer {
        let district = || {
            facts.district.map(|d| match d.name {
                Some(name) => format!("inside sewer district {name}"),
                None => "inside a sewer district".to_string(),
            })
        };
        let codes = &self.coverage.public_sewer_codes;
        let code = facts.code.map(str::trim).filter(|c| !c.is_empty() && !codes.is_empty());
        match code.map(|c| (c, self.sewer_value(c))) {
            Some((code, SewerValue::Public)) => Sewer {
                public: Some(format!("assessor sewer code {code} (public sewer)")),
                disagreement: None,
            },
            Some((code, SewerValue::NotPublic)) => Sewer {
                public: None,
                disagreement: district()
                    .map(|d| format!("assessor sewer code {code} (not public sewer) but {d}")),
            },
            Some((_, SewerValue::Unknown)) | None => Sewer { public: district(), disagreement: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sewer values compare by their letters and digits, upper case, with each run of anything else one
    /// space: the folds worked by hand.
    #[test]
    fn sewer_values_fold_to_their_letters_and_digits() {
        let fold = |text: &str| {
            let mut out = String::new();
            fold_into(text, &mut out);
            out
        };
        assert_eq!(fold("Comm/Public"), "COMM PUBLIC");
        assert_eq!(fold("  public -- sewer. "), "PUBLIC SEWER");
        assert_eq!(fold(" 3 "), "3");
        assert_eq!(fold("Öffentlich"), "ÖFFENTLICH");
        assert_eq!(fold("--"), "");
        // An entry is compared with a folded value as it would fold.
        for text in ["Comm/Public", "  public -- sewer. ", " 3 ", "Öffentlich", "--", "Public"] {
            for other in ["COMM PUBLIC", "PUBLIC SEWER", "3", "ÖFFENTLICH", "", "PUBLIC", "PUBLIC S", "COMM"]
            {
                assert_eq!(folds_to(text, other), fold(text) == other, "{text:?} against {other:?}");
            }
        }
    }

    /// Art. V §I.B "This article does not apply to those properties using public sewer systems": the
    /// assessor's code says who uses it; the district polygon only says sewer is available, so it decides
    /// only without a code, and a code saying "private" inside a district is a disagreement to report.
    #[test]
    fn the_sewer_code_decides_and_the_district_only_without_one() {
        let rules = RuleSet::cayuga_art_v();
        let inside = Some(District { name: Some("Moravia Sewer"), basis: Basis::System });
        let sewer = |district: Option<District<'static>>, code: Option<&'static str>| {
            rules.public_sewer(&SewerFacts { code, district })
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
    fn sewer_words_are_read_through_the_table() {
        let rules = RuleSet::cayuga_art_v();
        for (value, said) in [
            ("Public", SewerValue::Public),
            ("PUBLIC SEWER", SewerValue::Public),
            ("comm / public", SewerValue::Public),
            ("3", SewerValue::Public),
            ("Private", SewerValue::NotPublic),
            ("septic", SewerValue::NotPublic),
            ("2", SewerValue::NotPublic),
            ("Connected", SewerValue::Unknown),
            ("Publicly owned", SewerValue::Unknown),
        ] {
            assert_eq!(rules.sewer_value(value), said, "{value}");
        }
        let inside = Some(District { name: Some("Lake Sewer"), basis: Basis::Parcel });
        let sewer = |code| rules.public_sewer(&SewerFacts { code: Some(code), district: inside });
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
        let private_in_district = rules.public_sewer(&SewerFacts { code: Some("2"), district: inside });
        assert_eq!(private_in_district.public.as_deref(), Some("inside sewer district Moravia Sewer"));
        assert_eq!(private_in_district.disagreement, None);
        assert_eq!(rules.public_sewer(&SewerFacts { code: Some("3"), district: None }), Sewer::default());
    }
}
