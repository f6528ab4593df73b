//! Parquet output through polars: one typed column per table column (dates as Parquet dates), for
//! notebooks and DuckDB.

use std::path::Path;

use polars::prelude::*;

use crate::error::{Error, Result};
use crate::io::write::write_atomic;
use crate::report::table::{Cell, Kind, Table};

/// The values of one column, `pick` turning each cell into the column's type (`None` for nulls).
fn values<T>(table: &dyn Table, col: usize, pick: impl Fn(Cell<'_>) -> Option<T>) -> Vec<Option<T>> {
    (0..table.len()).map(|r| pick(table.cell(r, col))).collect()
}

fn column(table: &dyn Table, col: usize, name: &str, kind: Kind) -> Column {
    let name = PlSmallStr::from_str(name);
    match kind {
        Kind::Text => Column::new(
            name,
            values(table, col, |c| match c {
                Cell::Null => None,
                c => Some(c.render().into_owned()),
            }),
        ),
        Kind::Int => {
            Column::new(name, values(table, col, |c| if let Cell::Int(i) = c { Some(i) } else { None }))
        }
        Kind::Float => {
            Column::new(name, values(table, col, |c| if let Cell::Float(f, _) = c { Some(f) } else { None }))
        }
        Kind::Bool => {
            Column::new(name, values(table, col, |c| if let Cell::Bool(b) = c { Some(b) } else { None }))
        }
        Kind::Date => {
            let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
            let days: Vec<Option<i32>> = values(table, col, |c| match c {
                Cell::Date(d) => Some((d - epoch).num_days() as i32),
                _ => None,
            });
            let days = Column::new(name, days);
            days.cast(&DataType::Date).unwrap_or(days)
        }
    }
}

/// Writes `table` to `path` as Parquet (geometry is not included; see the GeoJSON output for shapes).
pub fn write_parquet(path: &Path, table: &dyn Table) -> Result<()> {
    let columns: Vec<Column> =
        table.columns().iter().enumerate().map(|(i, (name, kind))| column(table, i, name, *kind)).collect();
    let mut frame = DataFrame::new(table.len(), columns)
        .map_err(|e| Error::format(path, format!("cannot build the table: {e}")))?;
    let mut failure = None;
    write_atomic(path, |w| {
        ParquetWriter::new(w).finish(&mut frame).map(|_| ()).map_err(|e| {
            let message = e.to_string();
            failure = Some(message.clone());
            std::io::Error::other(message)
        })
    })
    .map_err(|e| match failure {
        Some(m) => Error::format(path, format!("cannot write Parquet: {m}")),
        None => e,
    })
}
