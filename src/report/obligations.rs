//! The obligations as a table: one row per open obligation, sorted by parcel id, due date and kind, with
//! the parcel's shape for the map formats.

use std::borrow::Cow;

use geo::MultiPolygon;

use crate::obligations::Obligation;
use crate::pipeline::Run;
use crate::table::{text, Cell, Kind, Table};

/// The obligations columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("parcel_id", Kind::Text),
    ("town", Kind::Text),
    ("owner", Kind::Text),
    ("location", Kind::Text),
    ("obligation", Kind::Text),
    ("what", Kind::Text),
    ("who", Kind::Text),
    ("trigger", Kind::Text),
    ("since", Kind::Date),
    ("due", Kind::Date),
    ("overdue", Kind::Bool),
    ("corrected", Kind::Date),
    ("detail", Kind::Text),
    ("citation", Kind::Text),
    ("source", Kind::Text),
];

/// Obligations of a run viewed as a [`Table`].
pub struct ObligationTable<'a, 'r> {
    run: &'a Run<'r>,
    obligations: &'a [Obligation<'r>],
}

impl<'a, 'r> ObligationTable<'a, 'r> {
    /// The table of `obligations`, whose parcels are rows of `run`.
    pub fn new(run: &'a Run<'r>, obligations: &'a [Obligation<'r>]) -> Self {
        ObligationTable { run, obligations }
    }
}

impl Table for ObligationTable<'_, '_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.obligations.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        self.run.rows[self.obligations[row].parcel].parcel.shape.as_ref()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let o = &self.obligations[row];
        let r = &self.run.rows[o.parcel];
        let date = |d: Option<chrono::NaiveDate>| d.map_or(Cell::Null, Cell::Date);
        match column {
            0 => Cell::Text(Cow::Borrowed(&r.parcel.id)),
            1 => text(r.facts.as_ref().and_then(|f| f.town.as_deref()).or(r.parcel.town.as_deref())),
            2 => text(r.parcel.owner.as_deref()),
            3 => text(r.parcel.location.as_deref()),
            4 => Cell::Text(Cow::Borrowed(o.id)),
            5 => Cell::Text(Cow::Borrowed(&o.what)),
            6 => Cell::Text(Cow::Borrowed(&o.who)),
            7 => Cell::Text(Cow::Borrowed(o.trigger)),
            8 => date(o.since),
            9 => date(o.due),
            10 => Cell::Bool(o.overdue),
            11 => date(o.corrected),
            12 => text(o.detail.as_deref()),
            13 => Cell::Text(Cow::Borrowed(&o.citation)),
            _ => text(o.source.as_deref()),
        }
    }
}

/// Counts of open obligations per kind, for the terminal (breaches corrected late are listed in the table
/// but not counted as open).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObligationSummary {
    /// The as-of date.
    pub as_of: Option<chrono::NaiveDate>,
    /// Per kind: (open, overdue).
    pub per_kind: std::collections::BTreeMap<String, (usize, usize)>,
    /// Parcels with at least one open obligation.
    pub parcels: usize,
    /// Breaches corrected late (listed in the table, not open).
    pub corrected: usize,
}

impl ObligationSummary {
    /// Counts `obligations`.
    pub fn of(obligations: &[Obligation<'_>], as_of: chrono::NaiveDate) -> Self {
        let mut s = ObligationSummary { as_of: Some(as_of), ..Default::default() };
        for o in obligations.iter().filter(|o| o.corrected.is_none()) {
            let counts = s.per_kind.entry(o.id.to_string()).or_default();
            counts.0 += 1;
            counts.1 += usize::from(o.overdue);
        }
        let open: Vec<usize> =
            obligations.iter().filter(|o| o.corrected.is_none()).map(|o| o.parcel).collect();
        s.parcels = open.chunk_by(|a, b| a == b).count();
        s.corrected = obligations.len() - open.len();
        s
    }
}

impl std::fmt::Display for ObligationSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let total: usize = self.per_kind.values().map(|c| c.0).sum();
        let overdue: usize = self.per_kind.values().map(|c| c.1).sum();
        let day = self.as_of.map(|d| format!(" on {d}")).unwrap_or_default();
        writeln!(f, "{total} open obligations{day} on {} parcels, {overdue} overdue", self.parcels)?;
        for (kind, (open, late)) in &self.per_kind {
            writeln!(f, "  {kind:<28} {open:>7} open {late:>7} overdue")?;
        }
        if self.corrected > 0 {
            writeln!(
                f,
                "{} breaches corrected late (listed with the day they were corrected)",
                self.corrected
            )?;
        }
        Ok(())
    }
}
