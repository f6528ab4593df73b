//! How many parcel ids of a record file (or the systems layer) found their parcel, and the function a reader
//! finds them with: what tells a file keyed by another id than the parcels' from one with a few bad ids.

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
}
