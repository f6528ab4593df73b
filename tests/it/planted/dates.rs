//! Planted mistakes in the dates of an inspection log, as spreadsheets export them: day-first, Excel
//! date-times, dates written out, and a column mixing both conventions. The first three must give the
//! corrected county's schedule; the last must stop naming `--date-order`.

use chrono::{Datelike, NaiveDate};

use super::{correct, rewrite_csv, stop_or_correct, Mistake};

/// Every ISO date cell of the data rows written by `spell` (given the row's index among the data rows).
fn respell(rows: &mut [Vec<String>], spell: impl Fn(usize, NaiveDate) -> String) {
    for (r, row) in rows.iter_mut().skip(1).enumerate() {
        for cell in row.iter_mut() {
            if let Ok(date) = NaiveDate::parse_from_str(cell, "%Y-%m-%d") {
                *cell = spell(r, date);
            }
        }
    }
}

fn day_first(d: NaiveDate) -> String {
    format!("{}/{}/{}", d.day(), d.month(), d.year())
}

fn month_first(d: NaiveDate) -> String {
    format!("{}/{}/{}", d.month(), d.day(), d.year())
}

/// The mistakes of date columns.
pub(super) const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "inspection log with day-first dates",
        plant: |c, ids| {
            rewrite_csv(c, "history", ids, |rows, _| respell(rows, |_, d| day_first(d)), ',')?;
            correct()
        },
    },
    Mistake {
        name: "inspection log with Excel date-times",
        plant: |c, ids| {
            rewrite_csv(
                c,
                "history",
                ids,
                |rows, _| respell(rows, |_, d| format!("{} 0:00", month_first(d))),
                ',',
            )?;
            correct()
        },
    },
    Mistake {
        name: "inspection log with dates written out",
        plant: |c, ids| {
            let written = |_, d: NaiveDate| d.format("%B %-d, %Y").to_string();
            rewrite_csv(c, "history", ids, |rows, _| respell(rows, written), ',')?;
            correct()
        },
    },
    Mistake {
        name: "inspection log mixing day-first and month-first dates",
        plant: |c, ids| {
            let mixed = |r: usize, d: NaiveDate| if r % 2 == 0 { day_first(d) } else { month_first(d) };
            rewrite_csv(c, "history", ids, |rows, _| respell(rows, mixed), ',')?;
            stop_or_correct(&["--date-order"])
        },
    },
];

/// The log mixing both conventions, read with `--date-order day-first`: the run goes on, and each cell the
/// day-first reading cannot read (a month-first date whose day is above 12) is reported on its row.
#[test]
fn date_order_settles_a_mixed_column() {
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let shipped = super::County::copy_of(&config, "dates-shipped");
    let ids = shipped
        .run("schedule", "2027-01-15", &[])
        .verdicts()
        .into_iter()
        .map(|r| r["parcel_id"].clone())
        .collect();
    let mut county = super::County::copy_of(&config, "dates-mixed");
    let plant = MISTAKES.iter().find(|m| m.name.contains("mixing")).expect("the mixed log").plant;
    plant(&mut county, &ids).expect("planted");
    let stopped = county.run("schedule", "2027-01-15", &[]);
    assert_eq!(stopped.code, Some(1), "{}", stopped.stderr);
    let day_first = ["--date-order".to_string(), "day-first".to_string()];
    let run = county.run("schedule", "2027-01-15", &day_first);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let problems = std::fs::read_to_string(run.out.join("problems.csv")).expect("problems.csv");
    assert!(problems.contains("is not a date"), "{problems}");
    // The flag over the config file: a config saying month-first changes nothing the flag says. (The runs
    // share an output folder: each one's rows are read before the next.)
    let read_day_first = run.verdicts();
    let history = toml::Table::from_iter([("date_order".to_string(), toml::Value::from("month-first"))]);
    let fields = toml::Table::from_iter([("history".to_string(), toml::Value::Table(history))]);
    county.toml.insert("fields".into(), toml::Value::Table(fields));
    county.save();
    let month_first = county.run("schedule", "2027-01-15", &[]);
    assert_ne!(month_first.verdicts(), read_day_first, "the config's month-first is read without the flag");
    let again = county.run("schedule", "2027-01-15", &day_first);
    assert_eq!(again.code, Some(2), "{}", again.stderr);
    assert_eq!(again.verdicts(), read_day_first, "--date-order day-first over the config's month-first");
}

/// The log with its report-received column renamed `Date Received` and moved before the visit date, itself
/// renamed `Visit Date`: both say "date", and the visit is the inspection's.
pub(super) const COLUMNS: &[Mistake] = &[Mistake {
    name: "inspection log with a received-date column before the visit date",
    plant: |c, ids| {
        let reorder = |rows: &mut Vec<Vec<String>>, _: usize| {
            let at = |name: &str| rows[0].iter().position(|h| h == name);
            let (Some(visit), Some(received)) = (at("inspection_date"), at("report_received")) else {
                return;
            };
            rows[0][visit] = "Visit Date".into();
            rows[0][received] = "Date Received".into();
            for row in rows.iter_mut() {
                if row.len() > received.max(visit) {
                    let cell = row.remove(received);
                    row.insert(visit, cell);
                }
            }
        };
        rewrite_csv(c, "history", ids, reorder, ',')?;
        correct()
    },
}];
