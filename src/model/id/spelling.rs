//! A parcel id with its spelling set aside, so that the ids of one parcel written by different offices
//! compare equal: `100.-1-16`, `100.0-1-16` and `100.00-1-16.000` (a print key padded or not), the
//! 20-character unformatted SBL `10000000010160000000`, and either of them after the municipality's SWIS code
//! (`054689-100.-1-16`, `05468910000000010160000000`).
//!
//! New York's tax map number has six parts, `Section.Subsection-Block-Lot.Sublot-Suffix`; the unformatted SBL
//! gives them 3, 3, 4, 3, 3 and 4 characters, zero-filled (ORPTS, "Section, Block, Lot (SBL) format":
//! `ABB.CCC-DDDD-XXX.YYY-ZZZZ`). The print key writes the same parts with their separators and without the
//! padding. [`id_key`] reads either into its parts, each without leading zeros (a part left out is 0), and
//! takes off a leading SWIS code (five or six digits before the parts); an id in neither shape keeps its
//! letters and digits, in upper case.

/// An id as [`id_key`] reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdKey {
    /// The SWIS code before the tax map number, without leading zeros, when the id has one.
    pub swis: Option<String>,
    /// The tax map number's six parts, `S.SS-B-L.LL-SUF`, each without leading zeros; or the id's letters
    /// and digits when it is not a tax map number.
    pub body: String,
}

/// The characters of each part of an unformatted SBL.
const SBL_WIDTHS: [usize; 6] = [3, 3, 4, 3, 3, 4];

/// An id with its spelling set aside (see the module's header).
///
/// ```
/// use lakeshore::model::id::spelling::id_key;
/// assert_eq!(id_key("100.-1-16"), id_key("100.00-1-16.000"));
/// assert_eq!(id_key("100.0-1-16").body, id_key("10000000010160000000").body);
/// assert_eq!(id_key("054689-100.-1-16").swis.as_deref(), Some("54689"));
/// assert_eq!(id_key("054689-100.-1-16").body, id_key(" 100.-1-16 ").body);
/// assert_ne!(id_key("100.-1-16"), id_key("100.-1-17"));
/// ```
pub fn id_key(id: &str) -> IdKey {
    let text = id.trim().to_uppercase();
    let (swis, rest) = split_swis(&text);
    let rest: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
    let body = tax_map_parts(&rest).unwrap_or_else(|| rest.chars().filter(|c| c.is_alphanumeric()).collect());
    IdKey { swis: swis.map(|s| without_zeros(s).to_string()), body }
}

/// The SWIS code an id begins with, and the rest: five or six digits and a separator before a print key of
/// at least three parts, or six digits before an unformatted SBL (26 characters in all).
fn split_swis(text: &str) -> (Option<&str>, &str) {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if (5..=6).contains(&digits) {
        let rest = &text[digits..];
        if let Some(after) = rest.strip_prefix(['-', ' ', '_']) {
            let after = after.trim_start();
            if after.split(['-', '/']).count() >= 3 || is_sbl(after) {
                return (Some(&text[..digits]), after);
            }
        }
    }
    if text.len() == 26 && digits >= 6 && is_sbl(&text[6..]) {
        return (Some(&text[..6]), &text[6..]);
    }
    (None, text)
}

/// Whether `text` is an unformatted SBL: 20 letters and digits.
fn is_sbl(text: &str) -> bool {
    text.len() == 20 && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The six parts of a tax map number written as an unformatted SBL or a print key, as `S.SS-B-L.LL-SUF`;
/// `None` for text of neither shape.
fn tax_map_parts(text: &str) -> Option<String> {
    let mut parts: [&str; 6] = [""; 6];
    if is_sbl(text) {
        let mut at = 0;
        for (part, width) in parts.iter_mut().zip(SBL_WIDTHS) {
            *part = &text[at..at + width];
            at += width;
        }
    } else {
        let groups: Vec<&str> = text.split(['-', '/']).collect();
        if groups.len() > 4 || text.is_empty() {
            return None;
        }
        // Section.Subsection, Block, Lot.Sublot, Suffix.
        for (g, group) in groups.iter().enumerate() {
            let (major, minor) = group.split_once('.').unwrap_or((group, ""));
            let ok = |p: &str| p.chars().all(|c| c.is_ascii_alphanumeric());
            if !ok(major) || !ok(minor) || minor.contains('.') || (g % 2 == 1 && !minor.is_empty()) {
                return None;
            }
            let slot = [0, 2, 3, 5][g];
            parts[slot] = major;
            if g % 2 == 0 && slot + 1 < 6 {
                parts[slot + 1] = minor;
            }
        }
    }
    let [s, ss, b, l, ll, suf] = parts.map(without_zeros);
    Some(format!("{s}.{ss}-{b}-{l}.{ll}-{suf}"))
}

/// A part without its leading zeros; `0` for a part of zeros or none.
fn without_zeros(part: &str) -> &str {
    let trimmed = part.trim_start_matches('0');
    if trimmed.is_empty() {
        "0"
    } else {
        trimmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(id: &str) -> String {
        id_key(id).body
    }

    /// Print keys padded and not, and the unformatted SBL, worked part by part from the ORPTS layout.
    #[test]
    fn print_keys_and_sbls_of_one_parcel_are_one_key() {
        for id in ["100.-1-16", "100.0-1-16", "100.00-1-16.000", "100.000-0001-016.000-0000", "100-1-16"] {
            assert_eq!(body(id), "100.0-1-16.0-0", "{id}");
        }
        // 128 005 0001 001 000 0000 in the ORPTS widths 3, 3, 4, 3, 3, 4.
        assert_eq!(body("12800500010010000000"), body("128.05-1-1"));
        assert_eq!(body("12800500010010000000"), "128.5-1-1.0-0");
        assert_eq!(body("10901100010230000000"), body("109.11-1-23"));
        // A sublot and a suffix, and letters kept.
        assert_eq!(body("109.-1-23.2"), body("10900000010230020000"));
        assert_eq!(body("12.-1-3.1-A"), "12.0-1-3.1-A");
        assert_ne!(body("128.05-1-1"), body("128.05-1-10"));
        assert_ne!(body("128.05-1-1"), body("128.5-1-1.1"));
    }

    #[test]
    fn a_leading_swis_is_taken_off() {
        let key = id_key("054689-128.05-1-1");
        assert_eq!((key.swis.as_deref(), key.body.as_str()), (Some("54689"), "128.5-1-1.0-0"));
        // As a numeric field writes it, with a space, and before an unformatted SBL.
        assert_eq!(id_key("54689-128.05-1-1"), key);
        assert_eq!(id_key("054689 128.05-1-1"), key);
        assert_eq!(id_key("05468912800500010010000000"), key);
        assert_eq!(id_key("054689-12800500010010000000"), key);
        // A section of three digits is no SWIS.
        assert_eq!(id_key("128-1-1").swis, None);
    }

    #[test]
    fn other_ids_keep_their_letters_and_digits() {
        // Dashed ids of any county lose case, spaces and padding; others keep their letters and digits.
        assert_eq!(body(" r-0012 34 "), body("R-1234"));
        assert_ne!(body("R-1234"), body("R-1235"));
        assert_eq!(body("A.B.C-1"), "ABC1");
        assert_eq!(body("PIN#0012"), "PIN0012");
    }
}
