//! The sewer-value table (`[coverage] public_sewer_codes`, `private_sewer_codes`): what an assessor's sewer
//! value says, read through the rule set's lists. RPS codes (`3`) and the words some counties write
//! (`Public`, `Private`, `Septic`) compare case, spaces and punctuation aside; a numeric code the public list
//! does not hold is not public; a value in neither list says nothing. Whether a parcel uses public sewer
//! (Art. V §I.B) is the law's verdict (`law::sewer`).

use super::RuleSet;

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

/// Whether `text` is its own fold ([`fold_into`]): ASCII upper-case letters and digits, single spaces between
/// them.
fn is_folded(text: &str) -> bool {
    let bytes = text.as_bytes();
    let word = |b: &u8| b.is_ascii_uppercase() || b.is_ascii_digit();
    bytes.first().is_some_and(word)
        && bytes.last().is_some_and(word)
        && bytes.iter().all(|b| word(b) || *b == b' ')
        && !bytes.windows(2).any(|w| w == b"  ")
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
        // The value is folded once (most, an RPS code such as `3`, are already), and each entry compared
        // with it as far as they agree.
        let value = match is_folded(code) {
            true => std::borrow::Cow::Borrowed(code),
            false => {
                let mut value = String::new();
                fold_into(code, &mut value);
                std::borrow::Cow::Owned(value)
            }
        };
        let is = |list: &[String]| list.iter().any(|v| folds_to(v, &value));
        let coverage = &self.coverage;
        if is(&coverage.public_sewer_codes) {
            SewerValue::Public
        } else if is(&coverage.private_sewer_codes) || numeric(code) {
            SewerValue::NotPublic
        } else {
            SewerValue::Unknown
        }
    }

    /// Whether the rule set's table reads the sewer value `code` (not blank): [`RuleSet::sewer_value`] is not
    /// `Unknown`. A numeric code always says something (public, or not), so its lists are not searched.
    pub fn reads_sewer_value(&self, code: &str) -> bool {
        numeric(code) || self.sewer_value(code) != SewerValue::Unknown
    }
}

/// Whether a sewer value is a numeric code (an RPS code such as `3`), spaces aside.
fn numeric(code: &str) -> bool {
    code.trim().bytes().all(|b| b.is_ascii_digit())
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
        // A value that is its own fold is used as it is; any other is folded.
        let own = [("3", true), ("COMM PUBLIC", true), ("A1", true), ("Comm", false), ("3 ", false)];
        for (text, is) in
            own.into_iter().chain([(" 3", false), ("A  B", false), ("Ö", false), ("A-B", false)])
        {
            assert_eq!(is_folded(text), is, "{text:?}");
            assert!(!is || fold(text) == text, "{text:?}");
        }
        // An entry is compared with a folded value as it would fold.
        for text in ["Comm/Public", "  public -- sewer. ", " 3 ", "Öffentlich", "--", "Public"] {
            for other in ["COMM PUBLIC", "PUBLIC SEWER", "3", "ÖFFENTLICH", "", "PUBLIC", "PUBLIC S", "COMM"]
            {
                assert_eq!(folds_to(text, other), fold(text) == other, "{text:?} against {other:?}");
            }
        }
    }

    /// Sewer values in words (Tompkins County's `SEWER`: Public, Private) are read through the rule set's
    /// table, case and punctuation aside; a word the table does not hold says nothing.
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
            assert_eq!(rules.reads_sewer_value(value), said != SewerValue::Unknown, "{value}");
        }
        // A numeric code says something even when neither list holds it.
        for value in ["7", " 12 ", "0"] {
            assert_eq!(rules.sewer_value(value), SewerValue::NotPublic, "{value}");
            assert!(rules.reads_sewer_value(value), "{value}");
        }
    }
}
