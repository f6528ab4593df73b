//! How many parcel ids of a record file (or the systems layer) found their parcel, and the function a reader
//! finds them with: what tells a file keyed by another id than the parcels' from one with a few bad ids.

/// Whether an id is a number as Excel rounds one: scientific notation (`5.46891E+24`), or digits that are
/// all zero past the 15th and either more than 20 (a SWIS code and an SBL; the SBL alone is 20 digits and
/// legitimately zero-padded) or, at 16 to 20, the rounding of a parcel's id: `rounds_a_parcel` is asked with
/// the id's digits (leading zeros aside), and says whether a parcel's id, rounded to 15 digits as Excel
/// rounds a number, gives them while being another id. Zeros alone prove nothing.
fn is_excel_rounded(id: &str, rounds_a_parcel: &dyn Fn(&str) -> bool) -> bool {
    let id = id.trim();
    if let Some((mantissa, exponent)) = id.to_ascii_uppercase().split_once("E+") {
        let digits = mantissa.replacen('.', "", 1);
        return !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && exponent.parse::<u32>().is_ok_and(|e| e >= 10);
    }
    let digits = id.trim_start_matches('0');
    if digits.len() <= 15 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if !digits.bytes().skip(15).all(|b| b == b'0') {
        return false;
    }
    (id.len() > 20 && digits.len() == id.len()) || rounds_a_parcel(digits)
}

/// The number `digits` (more than 15 of them, no leading zero) as Excel keeps it: rounded to 15 significant
/// digits, half up, the rest zeros; `None` when that is the number itself or `digits` is no such number.
///
/// ```
/// use lakeshore::records::tally::excel_rounding;
/// assert_eq!(excel_rounding("12800500010001012345").as_deref(), Some("12800500010001000000"));
/// assert_eq!(excel_rounding("12800500010001062345").as_deref(), Some("12800500010001100000"));
/// assert_eq!(excel_rounding("9999999999999999"), Some("10000000000000000".to_string()));
/// assert_eq!(excel_rounding("12800500010001000000"), None);
/// ```
pub fn excel_rounding(digits: &str) -> Option<String> {
    if digits.len() <= 15 || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut kept: u64 = digits[..15].parse().ok()?;
    if digits.as_bytes()[15] >= b'5' {
        kept += 1;
    }
    let rounded = format!("{kept}{}", "0".repeat(digits.len() - 15));
    (rounded != digits).then_some(rounded)
}

/// How a reader finds the position of the parcel an id names (`None` when none has it): the reader knows
/// nothing of how the parcels are kept.
pub type Position<'a> = &'a dyn Fn(&str) -> Option<usize>;

/// The answer of a [`Position`] function for an id that more than one parcel has (a print key the same in
/// two towns): no parcel is taken, and the reader says which and how to make the id one parcel's.
pub const AMBIGUOUS: usize = usize::MAX;

/// The parcel a [`Position`] function's answer names: `None` for no parcel and for [`AMBIGUOUS`].
pub fn found(at: Option<usize>) -> Option<usize> {
    at.filter(|&at| at != AMBIGUOUS)
}

/// What a record naming `id` is told when [`found`] finds no parcel for `at`: the id names several parcels,
/// or none.
pub fn not_found(id: &str, at: Option<usize>) -> String {
    let id = crate::model::id::shown(id);
    match at {
        Some(AMBIGUOUS) => format!(
            "parcel {id} matches two or more parcels of the parcels layer (the same print key in two towns); \
             add the SWIS code to the id (SWIS-{id}) so that it names one"
        ),
        _ => format!("parcel {id} is not in the parcels layer; fix the id"),
    }
}

/// How many parcel ids of a file found their parcel, and the first of those that found none: what tells a
/// file keyed by another id than the parcels' from one with a few bad ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdTally {
    /// Ids that found their parcel.
    pub matched: usize,
    /// Ids that found none.
    pub unmatched: usize,
    /// The first [`IdTally::KEPT`] ids that found none, in file order.
    pub unmatched_ids: Vec<String>,
}

impl IdTally {
    /// How many unmatched ids are kept, to try them against the parcels layer's other keys.
    pub const KEPT: usize = 1000;

    /// Why the ids that found no parcel look rounded by Excel, when at least half of them do: written in
    /// scientific notation (`5.46891E+24`), or digits all zero past the 15th (a number cell keeps 15 digits)
    /// that are more than 20 or the rounding of a parcel's id. A zero-padded id that finds its parcel (the
    /// 20-character SBL) is no sign: only those that find none are looked at. `None` when they do not.
    ///
    /// `rounds_a_parcel` tells whether some parcel's id rounds as Excel rounds a number to the digits it is
    /// given ([`excel_rounding`]).
    pub fn excel_rounded(&self, rounds_a_parcel: &dyn Fn(&str) -> bool) -> Option<String> {
        let rounded: Vec<&String> =
            self.unmatched_ids.iter().filter(|id| is_excel_rounded(id, rounds_a_parcel)).collect();
        if rounded.is_empty() || rounded.len() * 2 < self.unmatched_ids.len() {
            return None;
        }
        let mut shown: Vec<&str> = Vec::new();
        for id in &rounded {
            if shown.len() < 3 && !shown.contains(&id.as_str()) {
                shown.push(id);
            }
        }
        Some(format!(
            "{} of the {} parcel ids that match no parcel look rounded by Excel ({}): a number of more than 15 \
             digits keeps only 15, so the parcels they named cannot be told apart; format the id column as text \
             in the spreadsheet (or export the ids with the file's other text) and save the file again",
            rounded.len(),
            self.unmatched_ids.len(),
            shown.join(", ")
        ))
    }

    /// Counts one filled-in id, `found` or not.
    pub fn count(&mut self, id: &str, found: bool) {
        if found {
            self.matched += 1;
        } else {
            self.unmatched += 1;
            if self.unmatched_ids.len() < Self::KEPT {
                self.unmatched_ids.push(id.to_string());
            }
        }
    }

    /// How many ids must find no parcel, at the least, before a file is taken for one that cannot be joined:
    /// a file of a few rows with a few bad ids is reported row by row instead.
    pub const FEWEST_UNMATCHED: usize = 5;

    /// Whether most of the filled-in ids (more than half, and at least [`IdTally::FEWEST_UNMATCHED`]) found
    /// no parcel.
    pub fn mostly_unmatched(&self) -> bool {
        self.unmatched > self.matched && self.unmatched >= Self::FEWEST_UNMATCHED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_unjoined_when_most_ids_and_at_least_five_find_nothing() {
        let tally = |matched: usize, unmatched: usize| {
            let mut t = IdTally::default();
            (0..matched).for_each(|_| t.count("a", true));
            (0..unmatched).for_each(|i| t.count(&format!("x{i}"), false));
            t
        };
        assert!(tally(0, 5).mostly_unmatched());
        assert!(tally(5, 6).mostly_unmatched());
        assert!(!tally(6, 6).mostly_unmatched(), "half is not most");
        assert!(!tally(2, 3).mostly_unmatched(), "three bad ids of five are reported row by row");
        let many = tally(0, IdTally::KEPT + 3);
        assert_eq!((many.unmatched, many.unmatched_ids.len()), (IdTally::KEPT + 3, IdTally::KEPT));
        assert_eq!(many.unmatched_ids[0], "x0");
    }

    /// Excel keeps 15 digits of a number: 5468912800500010001000000 (SWIS 54689, SBL 128005-0001-0010-000000)
    /// becomes 5468912800500010000000000, shown as 5.46891E+24.
    #[test]
    fn ids_excel_rounded_are_told_from_bad_ids() {
        let none = |_: &str| false;
        for rounded in ["5.46891E+24", "5.468912800500E+24", "5468912800500010000000000"] {
            assert!(is_excel_rounded(rounded, &none), "{rounded}");
        }
        for id in ["054689-128.05-1-1", "12800500010001000000", "1E+3", "5468912800500010001000000"] {
            assert!(!is_excel_rounded(id, &none), "{id}");
        }
        let mut tally = IdTally::default();
        tally.count("5468912800500010000000000", false);
        tally.count("5.46891E+24", false);
        tally.count("054689-999.00-1-1", false);
        let why = tally.excel_rounded(&none).expect("rounded");
        assert!(why.contains("2 of the 3") && why.contains("format the id column as text"), "{why}");
        tally.count("054689-998.00-1-1", false);
        tally.count("054689-997.00-1-1", false);
        assert_eq!(tally.excel_rounded(&none), None, "two of five: bad ids, not a rounded column");
    }

    /// The 20-digit unformatted SBL 12800500010001012345 (section 128.005, block 1, lot 10, sublot 12, suffix
    /// 345, by hand) typed as a number keeps 128005000100010 and zeros: rounded only because a parcel's SBL
    /// differs from it past the 15th digit. The same zeros where no parcel's SBL rounds to them are a bad id.
    #[test]
    fn twenty_zero_padded_digits_are_rounded_only_when_a_parcel_differs_past_the_fifteenth() {
        let parcels = ["12800500010001012345"];
        let rounds = |digits: &str| parcels.iter().any(|p| excel_rounding(p).as_deref() == Some(digits));
        assert!(is_excel_rounded("12800500010001000000", &rounds));
        assert!(!is_excel_rounded("12800500020001000000", &rounds), "no parcel rounds to it");
        assert!(!is_excel_rounded("12800500010001000000", &|_| false), "zeros alone prove nothing");
    }
}
