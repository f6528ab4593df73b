use super::*;
use crate::records::inspections::SPEC;

/// The columns and first rows of a log, resolved, with the guesses a close second leaves.
fn guesses(columns: &[(&str, &str)]) -> (Vec<String>, Vec<String>) {
    let header: Vec<String> = columns.iter().map(|(n, _)| n.to_string()).collect();
    let mut record = Record::new(2);
    columns.iter().for_each(|(_, v)| record.push(v));
    let sample = [&record];
    let (named, _) =
        resolve(Path::new("log.csv"), &header, &sample, &SPEC, &FieldMap::new()).expect("resolved");
    let taken = named.iter().map(|(n, _)| n.clone()).collect();
    (taken, date_guesses(&header, &sample, &SPEC, &FieldMap::new(), &named))
}

/// "Date Received" before "Visit Date": the visit is the inspection's, the other the report's; no guess.
#[test]
fn a_column_named_for_another_day_gives_way() {
    let (taken, said) =
        guesses(&[("SBL", "1.-1-1"), ("Date Received", "3/9/2026"), ("Visit Date", "3/4/2026")]);
    assert_eq!(taken, ["parcel_id", "report_received", "inspection_date"]);
    assert!(said.is_empty(), "{said:?}");
}

/// Two columns that could each be the inspection's date: the first is taken, and a warning names both and
/// the flag that decides.
#[test]
fn a_close_second_is_a_warning_naming_both_and_the_flag() {
    let (taken, said) =
        guesses(&[("SBL", "1.-1-1"), ("Date Inspected", "3/4/2026"), ("Visit Date", "3/5/2026")]);
    assert_eq!(taken[1], "inspection_date");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("'Date Inspected' and 'Visit Date'"), "{}", said[0]);
    assert!(said[0].contains("--field history.inspection_date=COLUMN"), "{}", said[0]);
}
