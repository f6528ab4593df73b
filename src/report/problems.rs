//! The problems of a run as a table (`problems.csv`): file, record, message, sorted.

use std::borrow::Cow;

use geo::MultiPolygon;

use crate::model::error::Problem;
use crate::model::table::{Cell, Kind, Table};

/// Problems viewed as a [`Table`].
pub struct ProblemTable<'a>(pub &'a [Problem]);

const COLUMNS: &[(&str, Kind)] = &[("file", Kind::Text), ("record", Kind::Text), ("problem", Kind::Text)];

impl Table for ProblemTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let p = &self.0[row];
        match column {
            0 => Cell::Text(p.path.to_string_lossy()),
            1 => Cell::Text(Cow::Owned(p.location.to_string())),
            _ => Cell::Text(Cow::Borrowed(&p.message)),
        }
    }

    fn geometry(&self, _: usize) -> Option<&MultiPolygon<f64>> {
        None
    }
}
