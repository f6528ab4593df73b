//! The buffer report as a table: the buffer polygon first, then every parcel and feature within the distance,
//! nearest first.

use std::borrow::Cow;

use geo::MultiPolygon;

use crate::model::table::{text, Cell, Kind, Table};
use crate::report::buffer::BufferReport;

/// The buffer report columns, in order.
pub const COLUMNS: &[(&str, Kind)] = &[
    ("kind", Kind::Text),
    ("layer", Kind::Text),
    ("id", Kind::Text),
    ("distance_ft", Kind::Float),
    ("owner", Kind::Text),
    ("location", Kind::Text),
    ("town", Kind::Text),
    ("within_ft", Kind::Float),
    ("from", Kind::Text),
];

/// A buffer report viewed as a [`Table`]: row 0 is the buffer polygon, then the hits.
pub struct BufferTable<'a> {
    report: &'a BufferReport,
}

impl<'a> BufferTable<'a> {
    /// The table of `report`.
    pub fn new(report: &'a BufferReport) -> Self {
        BufferTable { report }
    }
}

impl Table for BufferTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        1 + self.report.hits.len()
    }

    fn geometry(&self, row: usize) -> Option<&MultiPolygon<f64>> {
        match row {
            0 => Some(&self.report.zone),
            _ => self.report.hits[row - 1].parcel.as_ref().and_then(|p| p.shape.as_ref()),
        }
    }

    fn other_geometry(&self, row: usize) -> Option<geo::Geometry<f64>> {
        row.checked_sub(1).and_then(|i| self.report.hits[i].geometry.clone())
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let r = &self.report;
        if row == 0 {
            return match column {
                0 => Cell::Text(Cow::Borrowed("buffer")),
                2 => Cell::Text(Cow::Owned(format!("{} ft from {}", r.distance_ft, r.source))),
                7 => Cell::Float(r.distance_ft, 0),
                8 => Cell::Text(Cow::Borrowed(&r.source)),
                _ => Cell::Null,
            };
        }
        let hit = &r.hits[row - 1];
        let parcel = hit.parcel.as_ref();
        match column {
            0 => Cell::Text(Cow::Borrowed(hit.kind)),
            1 => Cell::Text(Cow::Borrowed(&hit.layer)),
            2 => Cell::Text(Cow::Borrowed(&hit.id)),
            3 => Cell::Float(hit.distance_ft, 1),
            4 => text(parcel.and_then(|p| p.owner.as_deref())),
            5 => text(parcel.and_then(|p| p.location.as_deref())),
            6 => text(parcel.and_then(|p| p.town.as_deref())),
            7 => Cell::Float(r.distance_ft, 0),
            _ => Cell::Text(Cow::Borrowed(&r.source)),
        }
    }
}
