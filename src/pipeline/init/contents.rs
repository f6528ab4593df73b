//! A record file's parcel-id and date columns found by what they hold, for logs whose headers are the
//! office's own ("Tax Map #", "Insp Dt"): the parcel id is the column whose values are the parcels layer's
//! ids, the date the column whose cells are dates. When the file's reader cannot find a required column by
//! its name, the columns so found are named under `[fields.KIND]`, and the reader is asked again.

use std::collections::HashSet;
use std::path::Path;

use crate::formats::csv::Record;
use crate::records::columns::{resolve, Detect, FieldMap, Spec};
use crate::records::events::{event_roles, PIPE_SPEC, PUMP_OUT_SPEC, SAMPLE_SPEC};
use crate::records::parse_date;

use super::Found;

/// Words of a column name that say it holds the day of the record ("Insp Dt", "Date of visit").
pub const DAY_WORDS: [&str; 6] = ["date", "dt", "dated", "day", "when", "inspected"];

/// The cells of `column` that are filled, trimmed.
fn filled(rows: &[Record], column: usize) -> impl Iterator<Item = &str> {
    rows.iter().filter_map(move |r| r.field(column)).map(str::trim).filter(|c| !c.is_empty())
}

/// The words of a column name, in lower case.
fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// The column that holds the records' dates: of the columns at least half filled whose filled cells are at
/// least three in four dates, one whose name says it is a day ([`DAY_WORDS`]), else the most filled, else the
/// first.
pub fn date_column(header: &[String], rows: &[Record]) -> Option<usize> {
    let candidates = (0..header.len()).filter_map(|i| {
        let (mut dates, mut all) = (0, 0);
        for cell in filled(rows, i) {
            all += 1;
            dates += usize::from(parse_date(cell).is_some());
        }
        (all > 0 && all * 2 >= rows.len() && dates * 4 >= all * 3).then_some((i, all))
    });
    let says_day = |i: usize| words(&header[i]).any(|w| DAY_WORDS.contains(&w.as_str()));
    candidates
        .max_by(|&(a, na), &(b, nb)| says_day(a).cmp(&says_day(b)).then(na.cmp(&nb)).then(b.cmp(&a)))
        .map(|(i, _)| i)
}

/// The column most of whose filled values (at least half) are ids of `ids`, the one with most such values.
pub fn id_column(header: &[String], rows: &[Record], ids: &HashSet<String>) -> Option<usize> {
    let counts = (0..header.len()).filter_map(|i| {
        let (mut hits, mut all) = (0, 0);
        for cell in filled(rows, i) {
            all += 1;
            hits += usize::from(ids.contains(cell));
        }
        (hits > 0 && hits * 2 >= all).then_some((i, hits))
    });
    counts.max_by(|&(a, ha), &(b, hb)| ha.cmp(&hb).then(b.cmp(&a))).map(|(i, _)| i)
}

/// The roles of the record file `role` (`history`, `events`, ...), as its reader knows them.
fn with_spec<T>(role: &str, f: impl FnOnce(&Spec<'_>) -> T) -> Option<T> {
    match role {
        "history" => Some(f(&crate::records::inspections::SPEC)),
        "events" => {
            let roles = event_roles();
            Some(f(&Spec { what: "events", key: "events", roles: &roles }))
        }
        "pump_outs" => Some(f(&PUMP_OUT_SPEC)),
        "samples" => Some(f(&SAMPLE_SPEC)),
        "pipes" => Some(f(&PIPE_SPEC)),
        _ => None,
    }
}

/// The columns of the record file `found`, read as `role`, to name under `[fields.ROLE]`: `Ok(None)` when
/// its reader finds every required column by itself, `Ok(Some(map))` when it does once the parcel-id and
/// date columns found by their contents are named, `Err(why)` when it does not even then.
pub fn field_map(found: &Found, role: &str) -> Result<Option<FieldMap>, String> {
    let Some(table) = &found.table else { return Ok(None) };
    let sample: Vec<&Record> = table.rows.iter().collect();
    let path: &Path = &found.path;
    with_spec(role, |spec| {
        let read =
            |map: &FieldMap| resolve(path, &found.fields, &sample, spec, map).map_err(|e| e.to_string());
        let first = read(&FieldMap::new());
        if first.is_ok() {
            return Ok(None);
        }
        let id = table.id.map(|i| ("parcel_id".to_string(), found.fields[i].clone()));
        let date_role = spec.roles.iter().find(|r| r.required && matches!(r.detect, Detect::Date(_)));
        let date = date_role.zip(table.date).map(|(r, i)| (r.name.to_string(), found.fields[i].clone()));
        let tries = [
            id.clone().into_iter().collect(),
            date.clone().into_iter().collect(),
            id.into_iter().chain(date).collect(),
        ];
        for map in tries {
            let map: FieldMap = map;
            if !map.is_empty() && read(&map).is_ok() {
                return Ok(Some(map));
            }
        }
        first.map(|_| None)
    })
    .unwrap_or(Ok(None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cells: &[&[&str]]) -> Vec<Record> {
        cells
            .iter()
            .enumerate()
            .map(|(n, row)| {
                let mut r = Record::new(n + 2);
                row.iter().for_each(|c| r.push(c));
                r
            })
            .collect()
    }

    fn header(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_date_column_is_told_by_its_cells_and_a_day_word_among_several() {
        let h = header(&["Tax Map #", "Received", "Insp Dt", "Notes"]);
        let r = rows(&[
            &["054689-128.05-1-1", "2025-06-24", "2025-06-12", "ok 2025-01-01"],
            &["054689-128.05-1-2", "", "6/20/2026", "pumped"],
            &["054689-128.05-1-3", "2026-09-01", "2026-08-20", ""],
        ]);
        assert_eq!(date_column(&h, &r), Some(2));
        // Without a day word, the most filled date column.
        let h = header(&["Tax Map #", "Received", "Seen", "Notes"]);
        assert_eq!(date_column(&h, &r), Some(2));
        // Text is no date.
        assert_eq!(date_column(&header(&["a"]), &rows(&[&["pass"], &["fail"]])), None);
    }

    #[test]
    fn the_id_column_holds_the_parcels_ids() {
        let ids: HashSet<String> =
            ["054689-128.05-1-1", "054689-128.05-1-2"].iter().map(|s| s.to_string()).collect();
        let h = header(&["Owner", "Tax Map #", "Insp Dt"]);
        let r = rows(&[
            &["SMITH", "054689-128.05-1-1", "2025-06-12"],
            &["JONES", "054689-128.05-1-2", "2026-08-20"],
            &["DOE", "054689-999.00-1-1", "2026-08-20"],
        ]);
        assert_eq!(id_column(&h, &r, &ids), Some(1));
        assert_eq!(id_column(&h, &r, &HashSet::new()), None);
    }
}
