//! How many parcel ids of a record file (or the systems layer) found their parcel, and the function a reader
//! finds them with: what tells a file keyed by another id than the parcels' from one with a few bad ids.

/// Whether an id is a number as Excel rounds one: scientific notation (`5.46891E+24`), or more than 20
/// digits (a SWIS code and an SBL, which alone is 20 and legitimately zero-padded) all zero past the 15th.
fn is_excel_rounded(id: &str) -> bool {
    let id = id.trim();
    if let Some((mantissa, exponent)) = id.to_ascii_uppercase().split_once("E+") {
        let digits = mantissa.replacen('.', "", 1);
        return !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && exponent.parse::<u32>().is_ok_and(|e| e >= 10);
    }
    id.len() > 20 && id.bytes().all(|b| b.is_ascii_digit()) && id.bytes().skip(15).all(|b| b == b'0')
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
    /// scientific notation (`5.46891E+24`), or a SWIS code and SBL of more than 20 digits all zero past the
    /// 15th (a number cell keeps 15 digits). A zero-padded id that finds its parcel (the 20-character SBL) is no sign: only those that
    /// find none are looked at. `None` when they do not.
    pub fn excel_rounded(&self) -> Option<String> {
        let rounded: Vec<&String> = self.unmatched_ids.iter().filter(|id| is_excel_rounded(id)).collect();
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
        for rounded in ["5.46891E+24", "5.468912800500E+24", "5468912800500010000000000"] {
            assert!(is_excel_rounded(rounded), "{rounded}");
        }
        for id in ["054689-128.05-1-1", "12800500010001000000", "1E+3", "5468912800500010001000000"] {
            assert!(!is_excel_rounded(id), "{id}");
        }
        let mut tally = IdTally::default();
        tally.count("5468912800500010000000000", false);
        tally.count("5.46891E+24", false);
        tally.count("054689-999.00-1-1", false);
        let why = tally.excel_rounded().expect("rounded");
        assert!(why.contains("2 of the 3") && why.contains("format the id column as text"), "{why}");
        tally.count("054689-998.00-1-1", false);
        tally.count("054689-997.00-1-1", false);
        assert_eq!(tally.excel_rounded(), None, "two of five: bad ids, not a rounded column");
    }
}
