//! Mailing addresses compared the way the Postal Service reads them, so that one owner who writes
//! "12 North Lake Street, Apt. 3" on one deed and "12 N. LAKE ST # 3" on another gets one letter.
//!
//! [`address_key`] folds case, turns punctuation into spaces, collapses whitespace, writes street suffixes,
//! directionals and secondary-unit designators as their USPS Publication 28 abbreviations (C1, C2),
//! spells post-office boxes one way and cuts ZIP+4 to five digits. The key is for grouping only: letters
//! print the address as the assessor keeps it.

/// USPS Publication 28, appendix C1: street suffixes (the common ones, with their usual variants) and their
/// standard abbreviations.
const SUFFIXES: &[(&str, &str)] = &[
    ("ALLEY", "ALY"),
    ("AVENUE", "AVE"),
    ("AV", "AVE"),
    ("AVEN", "AVE"),
    ("BEACH", "BCH"),
    ("BOULEVARD", "BLVD"),
    ("BOUL", "BLVD"),
    ("BRIDGE", "BRG"),
    ("BYPASS", "BYP"),
    ("CENTER", "CTR"),
    ("CIRCLE", "CIR"),
    ("CIRC", "CIR"),
    ("COURT", "CT"),
    ("COVE", "CV"),
    ("CREEK", "CRK"),
    ("CRESCENT", "CRES"),
    ("CROSSING", "XING"),
    ("DRIVE", "DR"),
    ("DRIV", "DR"),
    ("ESTATES", "ESTS"),
    ("EXPRESSWAY", "EXPY"),
    ("EXTENSION", "EXT"),
    ("GARDENS", "GDNS"),
    ("GROVE", "GRV"),
    ("HARBOR", "HBR"),
    ("HEIGHTS", "HTS"),
    ("HIGHWAY", "HWY"),
    ("HIWAY", "HWY"),
    ("HILL", "HL"),
    ("HOLLOW", "HOLW"),
    ("ISLAND", "IS"),
    ("JUNCTION", "JCT"),
    ("LAKE", "LK"),
    ("LANDING", "LNDG"),
    ("LANE", "LN"),
    ("MEADOWS", "MDWS"),
    ("MOUNT", "MT"),
    ("MOUNTAIN", "MTN"),
    ("ORCHARD", "ORCH"),
    ("PARKWAY", "PKWY"),
    ("PIKE", "PIKE"),
    ("PLACE", "PL"),
    ("PLAZA", "PLZ"),
    ("POINT", "PT"),
    ("RIDGE", "RDG"),
    ("ROAD", "RD"),
    ("ROUTE", "RTE"),
    ("RT", "RTE"),
    ("SHORE", "SHR"),
    ("SHORES", "SHRS"),
    ("SQUARE", "SQ"),
    ("STREET", "ST"),
    ("STR", "ST"),
    ("TERRACE", "TER"),
    ("TRAIL", "TRL"),
    ("TURNPIKE", "TPKE"),
    ("VALLEY", "VLY"),
    ("VIEW", "VW"),
    ("VILLAGE", "VLG"),
    ("VISTA", "VIS"),
];

/// USPS Publication 28, appendix B: directionals.
const DIRECTIONALS: &[(&str, &str)] = &[
    ("NORTH", "N"),
    ("SOUTH", "S"),
    ("EAST", "E"),
    ("WEST", "W"),
    ("NORTHEAST", "NE"),
    ("NORTHWEST", "NW"),
    ("SOUTHEAST", "SE"),
    ("SOUTHWEST", "SW"),
];

/// USPS Publication 28, appendix C2: secondary-unit designators that take a number. All become `#` in the
/// key: "APT 3", "UNIT 3" and "# 3" name the same door to a mail carrier.
const UNITS: &[&str] = &["APARTMENT", "APT", "UNIT", "SUITE", "STE", "NO", "NUMBER", "ROOM", "RM"];

/// One word in its standard form.
fn standard(word: &str) -> &str {
    SUFFIXES.iter().chain(DIRECTIONALS).find(|(long, _)| *long == word).map_or(word, |(_, short)| short)
}

/// A street line, case-folded, without punctuation, in standard abbreviations.
pub fn normalise_street(street: &str) -> String {
    let upper = street.to_uppercase();
    let cleaned: String =
        upper.chars().map(|c| if c.is_alphanumeric() || c == '#' || c == '/' { c } else { ' ' }).collect();
    let cleaned = cleaned.replace('#', " # ");
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let rest = &words[i..];
        // Post-office boxes: "P O BOX", "PO BOX", "POST OFFICE BOX", "POB".
        let po_box = match rest {
            ["P", "O", "BOX", ..] | ["POST", "OFFICE", "BOX", ..] => Some(3),
            ["PO", "BOX", ..] => Some(2),
            ["POB" | "BOX", ..] if i == 0 => Some(1),
            _ => None,
        };
        if let Some(n) = po_box {
            out.extend(["PO", "BOX"]);
            i += n;
            continue;
        }
        if UNITS.contains(&rest[0]) && rest.len() > 1 {
            out.push("#");
            i += 1;
            // "APT # 3" is "# 3".
            if rest[1] == "#" {
                i += 1;
            }
            continue;
        }
        out.push(standard(rest[0]));
        i += 1;
    }
    out.join(" ")
}

/// Case-folded words of `text` without punctuation: city names, owner names.
pub fn fold(text: &str) -> String {
    text.to_uppercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first five digits of a ZIP code (`13021-4410` is `13021`); other text as it is, folded.
pub fn zip5(zip: &str) -> String {
    let digits: String = zip.chars().filter(char::is_ascii_digit).collect();
    if digits.len() >= 5 {
        digits[..5].to_string()
    } else {
        fold(zip)
    }
}

/// The grouping key of a mailing address: street, city, state and five-digit ZIP, each normalised, joined
/// by `|`.
///
/// ```
/// use lakeshore::report::mailing::address_key;
/// assert_eq!(
///     address_key("12 North Lake Street, Apt. 3", "Auburn", "NY", "13021"),
///     address_key("12 N. LAKE ST # 3", "AUBURN", "ny", "13021-4410"),
/// );
/// ```
pub fn address_key(street: &str, city: &str, state: &str, zip: &str) -> String {
    format!("{}|{}|{}|{}", normalise_street(street), fold(city), fold(state), zip5(zip))
}

/// Words an owner's name may carry that do not tell owners apart: "et al." and "et ux." (and others), the
/// `&`/`AND` between co-owners.
const OWNER_NOISE: &[&str] = &["ETAL", "ETUX", "ETVIR", "AND"];

/// The grouping key of an owner's name, so that one owner written two ways is one owner: case, punctuation
/// and hyphens aside, "LAST, FIRST" and "LAST FIRST" alike (the words in any order), `&` as `AND`, and
/// "et al." left out.
///
/// ```
/// use lakeshore::report::mailing::owner_key;
/// assert_eq!(owner_key("MARSH-TILLEY GRACE"), owner_key("Marsh-Tilley, Grace"));
/// assert_eq!(owner_key("SMITH JOHN & MARY"), owner_key("Smith, John and Mary ET AL"));
/// assert_ne!(owner_key("ZIMMERMAN-LEE JAMES"), owner_key("ZIMMERMAN-LEE JOHN"));
/// ```
pub fn owner_key(owner: &str) -> String {
    let folded = fold(&owner.replace('&', " AND "));
    // "ET AL" and "ET UX" are two words before they are one.
    let joined = format!(" {folded} ").replace(" ET AL ", " ETAL ").replace(" ET UX ", " ETUX ");
    let mut words: Vec<&str> = joined.split_whitespace().filter(|w| !OWNER_NOISE.contains(w)).collect();
    words.sort_unstable();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two owners at one address are two owners; one owner spelled the assessor's way and the clerk's way is
    /// one.
    #[test]
    fn owners_are_told_apart_by_their_words_not_their_spelling() {
        let key = owner_key;
        assert_eq!(key("MARSH-TILLEY GRACE"), key("Marsh-Tilley, Grace"));
        assert_eq!(key("MARSH-TILLEY GRACE"), key("marsh tilley grace"));
        assert_eq!(key("DOE JANE ETAL"), key("Doe, Jane et al."));
        assert_eq!(key("DOE JANE ETAL"), key("DOE JANE"));
        assert_eq!(key("KOWALSKI ADAM & EVE"), key("Kowalski, Adam and Eve"));
        assert_ne!(key("ZIMMERMAN-LEE JAMES"), key("ZIMMERMAN-LEE JOHN"));
        assert_ne!(key("DOE JANE"), key("DOE JANE JR"));
        assert_ne!(key("BETA ALAN"), key("BETAL ALAN"));
        assert_eq!(key(""), "");
    }

    #[test]
    fn suffixes_directionals_and_units_take_their_usps_abbreviations() {
        assert_eq!(normalise_street("6101 East Lake Road"), "6101 E LK RD");
        assert_eq!(normalise_street("6101 E. Lake Rd."), "6101 E LK RD");
        assert_eq!(normalise_street("12 North Lake Street, Apt. 3"), "12 N LK ST # 3");
        assert_eq!(normalise_street("12 n lake st  #3"), "12 N LK ST # 3");
        assert_eq!(normalise_street("12 N Lake St Unit 3"), "12 N LK ST # 3");
        assert_eq!(normalise_street("12 N Lake St Apt #3"), "12 N LK ST # 3");
        assert_eq!(normalise_street("400 Southwest Parkway Suite 200"), "400 SW PKWY # 200");
        assert_eq!(normalise_street("1 Avenue of the Americas"), "1 AVE OF THE AMERICAS");
    }

    #[test]
    fn post_office_boxes_are_spelled_one_way() {
        for text in ["PO Box 122", "P.O. Box 122", "p o box 122", "Post Office Box 122", "POB 122", "Box 122"]
        {
            assert_eq!(normalise_street(text), "PO BOX 122", "{text}");
        }
    }

    #[test]
    fn zip_plus_four_is_cut_to_five_digits() {
        assert_eq!(zip5("13021-4410"), "13021");
        assert_eq!(zip5("130214410"), "13021");
        assert_eq!(zip5(" 13021 "), "13021");
        assert_eq!(zip5("K1A 0B1"), "K1A 0B1");
    }

    #[test]
    fn different_addresses_keep_different_keys() {
        let a = address_key("12 N Lake St", "Auburn", "NY", "13021");
        assert_ne!(a, address_key("12 S Lake St", "Auburn", "NY", "13021"));
        assert_ne!(a, address_key("12 N Lake St", "Auburn", "NY", "13022"));
        assert_ne!(a, address_key("12 N Lake St # 2", "Auburn", "NY", "13021"));
        assert_ne!(a, address_key("14 N Lake St", "Auburn", "NY", "13021"));
    }
}
