//! The annual notice list (`lakeshore notices --year Y`): which parcels get a letter for a year, and the
//! mail-merge table of their obligations (`notices.csv`). The letters and mailing labels printed from the
//! same list are in [`crate::report::letters`].
//!
//! **Selection rule.** An open obligation (as [`crate::obligations::collect`] found it on the as-of date)
//! is noticed for year `Y` when all of these hold:
//!
//! - the owner owes it: the periodic inspection, the interim-permit renewal, or any other obligation whose
//!   `who` is `owner` (obligations of the health department, inspectors or the town board are not mailed);
//! - it has a due date on or before December 31 of `Y`: due within the year, or due earlier and still open
//!   (which, on January 1 of `Y`, means overdue). An obligation the law sets no time for (a floodplain
//!   elevation, a refinancing report) is not on the list: no date can be given for it;
//! - it is not a right that lapses (a clock with `lapses = true`, such as an appeal window): a notice
//!   demands duties, not the use of rights;
//! - it is still open: a breach corrected late is listed in the obligations, not mailed; and it is not a
//!   staff item such as a permit term the Health Department has still to set (`permit-term`).
//!
//! One letter goes to each parcel with at least one noticed obligation, listing all of them; the table
//! has one row per noticed obligation, numbered by letter.

use std::borrow::Cow;
use std::ops::Range;

use chrono::NaiveDate;
use geo::MultiPolygon;

use crate::obligations::Obligation;
use crate::parcels::ParcelRecord;
use crate::pipeline::{Row, Run};
use crate::report::table::{text, Cell, Kind, Table};
use crate::rules::RuleSet;

/// The obligation kind of the periodic inspection.
pub const PERIODIC: &str = "periodic-inspection";
/// The obligation kind of the interim-permit renewal.
pub const INTERIM_RENEWAL: &str = "interim-renewal";
/// The obligation kind of a permit term the Health Department has still to set: never mailed.
pub const PERMIT_TERM: &str = "permit-term";

/// The notice columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("letter", Kind::Int),
    ("parcel_id", Kind::Text),
    ("owner", Kind::Text),
    ("address", Kind::Text),
    ("city", Kind::Text),
    ("state", Kind::Text),
    ("zip", Kind::Text),
    ("address_source", Kind::Text),
    ("location", Kind::Text),
    ("town", Kind::Text),
    ("obligation", Kind::Text),
    ("what", Kind::Text),
    ("due", Kind::Date),
    ("overdue", Kind::Bool),
    ("citation", Kind::Text),
    ("why", Kind::Text),
];

/// Whether `obligation` is noticed for `year` under `rules` (the selection rule of the module docs).
pub fn is_noticed(obligation: &Obligation<'_>, rules: &RuleSet, year: i32) -> bool {
    let Some(due) = obligation.due else { return false };
    let Some(end_of_year) = NaiveDate::from_ymd_opt(year, 12, 31) else { return false };
    let owner_owes = matches!(obligation.id, PERIODIC | INTERIM_RENEWAL) || obligation.who == "owner";
    let lapses = rules.clocks.iter().any(|c| c.lapses && c.id == obligation.id);
    let open = obligation.corrected.is_none() && obligation.id != PERMIT_TERM;
    owner_owes && open && due <= end_of_year && !lapses
}

/// The obligations noticed for `year`, sorted by parcel, due date and kind (the order of
/// [`crate::obligations::collect`]), so each parcel's obligations stand together.
pub fn select<'a, 'r>(
    obligations: &'a [Obligation<'r>],
    rules: &RuleSet,
    year: i32,
) -> Vec<&'a Obligation<'r>> {
    let mut chosen: Vec<&Obligation<'r>> =
        obligations.iter().filter(|o| is_noticed(o, rules, year)).collect();
    chosen.sort_by_key(|o| (o.parcel, o.due, o.id));
    chosen
}

/// Where a letter is addressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address<'a> {
    /// The owner as the parcel layer has it; `None` when it has no owner.
    pub owner: Option<&'a str>,
    /// The street or post-office box line.
    pub street: Option<&'a str>,
    /// City or post office.
    pub city: Option<&'a str>,
    /// State.
    pub state: Option<&'a str>,
    /// ZIP code.
    pub zip: Option<&'a str>,
    /// Whether this is the owner's mailing address (`true`) or, for a parcel layer without one, the
    /// property's own location and town (`false`).
    pub mailing: bool,
}

impl<'a> Address<'a> {
    /// The parcel's mailing address, or its location and town when the layer keeps no mailing address.
    pub fn of(parcel: &'a ParcelRecord, town: Option<&'a str>) -> Self {
        match parcel.mailing.as_deref() {
            Some(m) => Address {
                owner: parcel.owner.as_deref(),
                street: m.street.as_deref(),
                city: m.city.as_deref(),
                state: m.state.as_deref(),
                zip: m.zip.as_deref(),
                mailing: true,
            },
            None => Address {
                owner: parcel.owner.as_deref(),
                street: parcel.location.as_deref(),
                city: town,
                state: None,
                zip: None,
                mailing: false,
            },
        }
    }

    /// The last line: `City, ST 12345`, from the parts there are.
    pub fn city_line(&self) -> String {
        let state_zip: Vec<&str> = self.state.iter().chain(&self.zip).copied().collect();
        match (self.city, state_zip.is_empty()) {
            (Some(city), false) => format!("{city}, {}", state_zip.join(" ")),
            (Some(city), true) => city.to_string(),
            (None, _) => state_zip.join(" "),
        }
    }
}

/// One letter: a parcel and its noticed obligations.
#[derive(Debug, Clone, Copy)]
pub struct Letter<'n, 'r> {
    /// 1-based number of the letter (its page in `letters.html`, its `letter` in `notices.csv`).
    pub number: usize,
    /// The parcel's schedule row.
    pub row: &'n Row<'r>,
    /// Its noticed obligations, by due date.
    pub items: &'n [&'n Obligation<'r>],
}

impl<'n> Letter<'n, '_> {
    /// The parcel's town: the classified one, else the parcel layer's attribute.
    pub fn town(&self) -> Option<&'n str> {
        town(self.row)
    }

    /// Where the letter goes.
    pub fn address(&self) -> Address<'n> {
        Address::of(&self.row.parcel, self.town())
    }
}

/// The notices of one year: the selected obligations of a run, grouped into letters. A [`Table`], one row
/// per noticed obligation, so every output format can be written (`notices.csv`).
pub struct Notices<'a, 'r> {
    run: &'a Run<'r>,
    year: i32,
    items: Vec<&'a Obligation<'r>>,
    letters: Vec<Range<usize>>,
}

/// The notices for `year` of `obligations`, whose parcels are rows of `run`.
pub fn notices<'a, 'r>(run: &'a Run<'r>, obligations: &'a [Obligation<'r>], year: i32) -> Notices<'a, 'r> {
    let items = select(obligations, run.rules, year);
    let mut letters = Vec::new();
    let mut start = 0;
    for group in items.chunk_by(|a, b| a.parcel == b.parcel) {
        letters.push(start..start + group.len());
        start += group.len();
    }
    Notices { run, year, items, letters }
}

impl<'a, 'r> Notices<'a, 'r> {
    /// The year noticed.
    pub fn year(&self) -> i32 {
        self.year
    }

    /// The run the notices come from.
    pub fn run(&self) -> &'a Run<'r> {
        self.run
    }

    /// The noticed obligations, grouped by parcel.
    pub fn items(&self) -> &[&'a Obligation<'r>] {
        &self.items
    }

    /// The number of letters (parcels noticed).
    pub fn letter_count(&self) -> usize {
        self.letters.len()
    }

    /// The letters, one per parcel, in parcel-id order.
    pub fn letters(&self) -> impl Iterator<Item = Letter<'_, 'r>> + '_ {
        self.letters.iter().enumerate().map(|(i, range)| {
            let items = &self.items[range.clone()];
            Letter { number: i + 1, row: &self.run.rows[items[0].parcel], items }
        })
    }

    /// Why `obligation` is owed, in a sentence: the schedule's reason for the periodic inspection, otherwise
    /// what started the obligation and its particulars.
    pub fn why(&self, obligation: &Obligation<'_>) -> String {
        if obligation.id == PERIODIC {
            return self.run.reason(&self.run.rows[obligation.parcel]);
        }
        let trigger = obligation.trigger.replace('-', " ");
        let mut why = match obligation.since {
            Some(since) => format!("Because of the {trigger} of {since}"),
            None => format!("Because of the {trigger}"),
        };
        if let Some(detail) = obligation.detail.as_deref().filter(|d| !d.is_empty()) {
            why.push_str(": ");
            why.push_str(detail);
        }
        why.push('.');
        why
    }

    /// The 1-based letter number of table row `row`.
    fn letter_of(&self, row: usize) -> usize {
        self.letters.partition_point(|r| r.end <= row) + 1
    }
}

/// The parcel's town: the classified one, else the parcel layer's attribute (as the obligations table).
fn town<'n>(row: &'n Row<'_>) -> Option<&'n str> {
    row.facts.as_ref().and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref())
}

impl Table for Notices<'_, '_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        self.run.rows[self.items[row].parcel].parcel.shape.as_ref()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let o = self.items[row];
        let r = &self.run.rows[o.parcel];
        let address = Address::of(&r.parcel, town(r));
        match column {
            0 => Cell::Int(self.letter_of(row) as i64),
            1 => Cell::Text(Cow::Borrowed(&r.parcel.id)),
            2 => text(address.owner),
            3 => text(address.street),
            4 => text(address.city),
            5 => text(address.state),
            6 => text(address.zip),
            7 => Cell::Text(Cow::Borrowed(if address.mailing { "mailing" } else { "property" })),
            8 => text(r.parcel.location.as_deref()),
            9 => text(town(r)),
            10 => Cell::Text(Cow::Borrowed(o.id)),
            11 => Cell::Text(Cow::Borrowed(&o.what)),
            12 => o.due.map_or(Cell::Null, Cell::Date),
            13 => Cell::Bool(o.overdue),
            14 => Cell::Text(Cow::Borrowed(&o.citation)),
            _ => Cell::Text(Cow::Owned(self.why(o))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn obligation<'r>(parcel: usize, id: &'r str, who: &'r str, due: Option<&str>) -> Obligation<'r> {
        let due = due.map(date);
        Obligation {
            parcel,
            id,
            what: Cow::Borrowed("something"),
            who: Cow::Borrowed(who),
            trigger: "schedule",
            since: None,
            due,
            overdue: due.is_some_and(|d| d < date("2027-01-15")),
            corrected: None,
            detail: None,
            citation: Cow::Borrowed("§1"),
            source: None,
        }
    }

    fn gorham() -> RuleSet {
        RuleSet::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rules/gorham-ch56.toml"))
            .unwrap()
    }

    #[test]
    fn notices_go_to_owners_with_dated_obligations_due_by_the_end_of_the_year() {
        let rules = RuleSet::cayuga_art_v();
        let list = [
            obligation(0, PERIODIC, "owner", Some("2027-11-01")), // due within the year
            obligation(1, PERIODIC, "owner", Some("2020-11-01")), // overdue and still open
            obligation(2, PERIODIC, "owner", Some("2028-11-01")), // next year: no
            obligation(3, INTERIM_RENEWAL, "owner", Some("2027-12-31")), // last day of the year
            obligation(4, INTERIM_RENEWAL, "owner", Some("2028-01-01")), // a day too late
            obligation(5, "transfer-inspection", "owner", Some("2026-10-15")), // event-driven, overdue
            obligation(6, "refinance-report", "owner", None),     // no time set: no
            obligation(7, "inspection-report", "inspector R. Okafor", Some("2027-02-19")), // not the owner's
            obligation(8, "repair-order", "health department", None),
            obligation(9, "pipe-retest", "owner", Some("2027-01-19")),
        ];
        let parcels: Vec<usize> = select(&list, &rules, 2027).iter().map(|o| o.parcel).collect();
        assert_eq!(parcels, [0, 1, 3, 5, 9]);
    }

    /// Art. V §V.B "a term of up to five years": the term is the Health Department's to set, so a term not
    /// yet set is never mailed, even if a date were attached; nor is a transfer pump-out done late (§IV.B.1),
    /// which is a record of the breach, not a duty still owed.
    #[test]
    fn staff_terms_and_corrected_breaches_are_not_mailed() {
        let rules = RuleSet::cayuga_art_v();
        let late = Obligation {
            corrected: Some(date("2026-10-20")),
            overdue: false,
            ..obligation(1, "transfer-pump-out", "owner", Some("2026-10-15"))
        };
        let list = [
            obligation(0, PERMIT_TERM, "owner", Some("2027-06-15")),
            late,
            obligation(2, "transfer-pump-out", "owner", Some("2026-10-15")),
        ];
        let parcels: Vec<usize> = select(&list, &rules, 2027).iter().map(|o| o.parcel).collect();
        assert_eq!(parcels, [2]);
    }

    #[test]
    fn a_lapsing_right_is_not_noticed_but_a_duty_of_the_same_parcel_is() {
        let rules = gorham();
        let list = [
            obligation(0, "appeal-window", "owner", Some("2027-02-10")),
            obligation(0, "deficiency-permit", "owner", Some("2027-02-10")),
            obligation(1, "complaint-notice", "authority", Some("2027-01-20")),
        ];
        let chosen: Vec<(usize, &str)> =
            select(&list, &rules, 2027).iter().map(|o| (o.parcel, o.id)).collect();
        assert_eq!(chosen, [(0, "deficiency-permit")]);
    }

    #[test]
    fn a_parcels_obligations_stand_together_in_due_order() {
        let rules = RuleSet::cayuga_art_v();
        let list = [
            obligation(2, PERIODIC, "owner", Some("2027-11-01")),
            obligation(1, "transfer-inspection", "owner", Some("2026-10-15")),
            obligation(2, "transfer-inspection", "owner", Some("2026-12-01")),
            obligation(1, PERIODIC, "owner", Some("2027-11-01")),
        ];
        let chosen: Vec<(usize, &str)> =
            select(&list, &rules, 2027).iter().map(|o| (o.parcel, o.id)).collect();
        assert_eq!(
            chosen,
            [(1, "transfer-inspection"), (1, PERIODIC), (2, "transfer-inspection"), (2, PERIODIC)]
        );
    }

    #[test]
    fn the_city_line_uses_the_parts_there_are() {
        let mut a = Address {
            owner: None,
            street: Some("PO Box 101"),
            city: Some("Scranton"),
            state: Some("PA"),
            zip: Some("18503"),
            mailing: true,
        };
        assert_eq!(a.city_line(), "Scranton, PA 18503");
        a.zip = None;
        assert_eq!(a.city_line(), "Scranton, PA");
        a.state = None;
        assert_eq!(a.city_line(), "Scranton");
        a.city = None;
        assert_eq!(a.city_line(), "");
    }
}
