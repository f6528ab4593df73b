//! Parquet output through polars: one typed column per table column (dates as Parquet dates), for
//! notebooks and DuckDB.

use std::path::Path;

use polars::prelude::*;

use crate::error::{Error, Result};
use crate::io::write::write_atomic;
use crate::report::table::{Cell, Kind, Table};

fn column(table: &dyn Table, col: usize, name: &str, kind: Kind) -> Column {
    let rows = 0..table.len();
    let name = PlSmallStr::from_str(name);
    match kind {
        Kind::Text => {
            let v: Vec<Option<String>> = rows
                .map(|r| match table.cell(r, col) {
                    Cell::Null => None,
                    c => Some(c.render().into_owned()),
                })
                .collect();
            Column::new(name, v)
        }
        Kind::Int => {
            let v: Vec<Option<i64>> = rows
                .map(|r| match table.cell(r, col) {
                    Cell::Int(i) => Some(i),
                    _ => None,
                })
                .collect();
            Column::new(name, v)
        }
        Kind::Float => {
            let v: Vec<Option<f64>> = rows
                .map(|r| match table.cell(r, col) {
                    Cell::Float(f, _) => Some(f),
                    _ => None,
                })
                .collect();
            Column::new(name, v)
        }
        Kind::Bool => {
            let v: Vec<Option<bool>> = rows
                .map(|r| match table.cell(r, col) {
                    Cell::Bool(b) => Some(b),
                    _ => None,
                })
                .collect();
            Column::new(name, v)
        }
        Kind::Date => {
            let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
            let v: Vec<Option<i32>> = rows
                .map(|r| match table.cell(r, col) {
                    Cell::Date(d) => Some((d - epoch).num_days() as i32),
                    _ => None,
                })
                .collect();
            let days = Column::new(name, v);
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
