//! The inspection-history CSV (`parcel_id,inspection_date,result`), read with polars.
//!
//! Every column is read as text and checked row by row, so that a bad date or an unknown parcel names its
//! line and the rest of the file still counts.

use std::path::Path;

use chrono::NaiveDate;
use polars::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::{Error, Problem, Result};
use crate::parcels::ParcelIndex;

/// The latest inspection on record for a parcel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastInspection {
    /// Its date.
    pub date: NaiveDate,
    /// Its result as written (e.g. "pass", "fail"); empty when not given. Shared: a file holds few results.
    pub result: std::sync::Arc<str>,
}

/// The columns the history file must have.
pub const COLUMNS: [&str; 3] = ["parcel_id", "inspection_date", "result"];

/// Reads the history at `path`: the latest inspection on or before `as_of` of each parcel, at the parcel's
/// position in `parcels`. Rows naming an unknown parcel, an
/// unparsable date or a date after `as_of` are reported and not counted.
pub fn read_history(
    path: &Path,
    parcels: ParcelIndex<'_>,
    as_of: NaiveDate,
) -> Result<(Vec<Option<LastInspection>>, Vec<Problem>)> {
    super::require_file(path)?;
    let frame = CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .and_then(|r| r.finish())
        .map_err(|e| Error::format(path, format!("not a readable CSV file: {e}")))?;
    let column = |name: &str| -> Result<&StringChunked> {
        frame.column(name).and_then(|c| c.str()).map_err(|_| {
            let found: Vec<String> = frame.get_column_names().iter().map(|s| s.to_string()).collect();
            Error::format(
                path,
                format!(
                    "no '{name}' column; the history needs {}; found: {}",
                    COLUMNS.join(", "),
                    found.join(", ")
                ),
            )
        })
    };
    let (ids, dates, outcomes) = (column(COLUMNS[0])?, column(COLUMNS[1])?, column(COLUMNS[2])?);
    let mut latest: Vec<Option<LastInspection>> = vec![None; parcels.len()];
    let mut results: FxHashMap<&str, std::sync::Arc<str>> = FxHashMap::default();
    let mut problems = Vec::new();
    for (row, ((id, date), result)) in ids.iter().zip(dates.iter()).zip(outcomes.iter()).enumerate() {
        // Line numbers as an editor shows them: the header is line 1.
        let line = || format!("line {}", row + 2);
        let Some(id) = id.map(str::trim).filter(|s| !s.is_empty()) else {
            problems.push(Problem::new(path, line(), "no parcel_id; fill it in or delete the row"));
            continue;
        };
        let Some(at) = parcels.position(id) else {
            problems.push(Problem::new(
                path,
                line(),
                format!("parcel {id} is not in the parcels layer; fix the id"),
            ));
            continue;
        };
        let text = date.unwrap_or("").trim();
        let Some(date) = crate::schedule::parse_iso_date(text) else {
            problems.push(Problem::new(
                path,
                line(),
                format!("inspection_date '{text}' is not a date; write it as YYYY-MM-DD"),
            ));
            continue;
        };
        if date > as_of {
            problems.push(Problem::new(
                path,
                line(),
                format!("inspection_date {date} is after the as-of date {as_of}; check the date or --as-of"),
            ));
            continue;
        }
        let result = result.unwrap_or("").trim();
        let result = results.entry(result).or_insert_with(|| result.into()).clone();
        match &mut latest[at] {
            Some(last) if last.date >= date => {}
            slot => *slot = Some(LastInspection { date, result }),
        }
    }
    Ok((latest, problems))
}
