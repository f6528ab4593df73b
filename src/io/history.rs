//! The inspection-history CSV (`parcel_id,inspection_date,result`), read with polars.
//!
//! Every column is read as text and checked row by row, so that a bad date or an unknown parcel names its
//! line and the rest of the file still counts.

use std::collections::HashMap;
use std::path::Path;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::error::{Error, Problem, Result};

/// The latest inspection on record for a parcel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastInspection {
    /// Its date.
    pub date: NaiveDate,
    /// Its result as written (e.g. "pass", "fail"); empty when not given.
    pub result: String,
}

/// The columns the history file must have.
pub const COLUMNS: [&str; 3] = ["parcel_id", "inspection_date", "result"];

/// Reads the history at `path`: the latest inspection on or before `as_of` per known parcel. Rows naming an
/// unknown parcel, an unparsable date or a date after `as_of` are reported and not counted.
pub fn read_history(
    path: &Path,
    known: &HashMap<&str, usize>,
    as_of: NaiveDate,
) -> Result<(HashMap<String, LastInspection>, Vec<Problem>)> {
    if !path.exists() {
        return Err(Error::io(path, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")));
    }
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
    let (ids, dates, results) = (column(COLUMNS[0])?, column(COLUMNS[1])?, column(COLUMNS[2])?);
    let mut latest: HashMap<String, LastInspection> = HashMap::new();
    let mut problems = Vec::new();
    for (row, ((id, date), result)) in ids.iter().zip(dates.iter()).zip(results.iter()).enumerate() {
        // Line numbers as an editor shows them: the header is line 1.
        let line = format!("line {}", row + 2);
        let Some(id) = id.map(str::trim).filter(|s| !s.is_empty()) else {
            problems.push(Problem::new(path, &line, "no parcel_id; fill it in or delete the row"));
            continue;
        };
        if !known.contains_key(id) {
            problems.push(Problem::new(
                path,
                &line,
                format!("parcel {id} is not in the parcels layer; fix the id"),
            ));
            continue;
        }
        let text = date.unwrap_or("").trim();
        let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") else {
            problems.push(Problem::new(
                path,
                &line,
                format!("inspection_date '{text}' is not a date; write it as YYYY-MM-DD"),
            ));
            continue;
        };
        if date > as_of {
            problems.push(Problem::new(
                path,
                &line,
                format!("inspection_date {date} is after the as-of date {as_of}; check the date or --as-of"),
            ));
            continue;
        }
        let result = result.unwrap_or("").trim().to_string();
        let entry = latest.entry(id.to_string()).or_insert(LastInspection { date, result: result.clone() });
        if date > entry.date {
            *entry = LastInspection { date, result };
        }
    }
    Ok((latest, problems))
}
