use super::*;

const SPEC: Spec<'static> = Spec {
    what: "inspections",
    key: "history",
    roles: &[
        Role { name: "parcel_id", aliases: &[], required: true, detect: Detect::ParcelId },
        Role {
            name: "inspection_date",
            aliases: &["date"],
            required: true,
            detect: Detect::Date(&["insp", "date"]),
        },
        Role { name: "result", aliases: &[], required: false, detect: Detect::Words(&["result"]) },
    ],
};

/// The header and rows of a table given by columns, resolved as the file `log.csv`.
fn resolve_table(columns: &[(&str, &[&str])], fields: &FieldMap) -> Result<(Vec<(String, Column)>, String)> {
    let header: Vec<String> = columns.iter().map(|(n, _)| n.to_string()).collect();
    let height = columns.first().map_or(0, |(_, v)| v.len());
    let rows: Vec<Record> = (0..height)
        .map(|r| {
            let mut record = Record::new(r + 2);
            columns.iter().for_each(|(_, v)| record.push(v[r]));
            record
        })
        .collect();
    let sample: Vec<&Record> = rows.iter().collect();
    resolve(Path::new("log.csv"), &header, &sample, &SPEC, fields)
}

fn names(named: &[(String, Column)]) -> Vec<&str> {
    named.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn county_names_are_detected() {
    let table: &[(&str, &[&str])] = &[
        ("SBL", &["1.-1-1"]),
        ("Date Received", &["3/4/2026"]),
        ("Date Inspected", &["3/1/2026"]),
        ("Inspection Result", &["pass"]),
    ];
    let (f, said) = resolve_table(table, &FieldMap::new()).unwrap();
    assert_eq!(names(&f), ["parcel_id", "Date Received", "inspection_date", "result"]);
    assert!(said.contains("parcel_id = SBL (detected"), "{said}");
    assert!(said.contains("inspection_date = Date Inspected (detected: its name says 'insp'"), "{said}");
}

#[test]
fn swis_and_print_key_are_joined() {
    let table: &[(&str, &[&str])] =
        &[("SWIS", &["050100", ""]), ("PRINT_KEY", &["1.-1-1", "2.-1-1"]), ("DATE", &["2026-01-02", ""])];
    let (f, said) = resolve_table(table, &FieldMap::new()).unwrap();
    assert_eq!(names(&f), ["SWIS", "PRINT_KEY", "inspection_date", "parcel_id"]);
    assert_eq!(f[3].1, Column::Joined(0, 1));
    assert!(said.contains("parcel_id = PRINT_KEY (detected: SWIS and PRINT_KEY joined with '-')"), "{said}");
}

#[test]
fn a_print_key_alone_is_the_parcel_id() {
    let table: &[(&str, &[&str])] = &[("Print Key", &["100.-1-16"]), ("DATE", &["2026-01-02"])];
    let (f, said) = resolve_table(table, &FieldMap::new()).unwrap();
    assert_eq!(names(&f), ["parcel_id", "inspection_date"]);
    assert!(said.contains("parcel_id = Print Key (detected: a print key)"), "{said}");
}

#[test]
fn config_wins_and_a_text_column_is_no_date() {
    let table: &[(&str, &[&str])] =
        &[("parcel_id", &["a"]), ("PIN", &["b"]), ("Date Note", &["see file"]), ("When", &["2026-01-02"])];
    let fields = FieldMap::from([("parcel_id".into(), "PIN".into()), ("date".into(), "when".into())]);
    let (f, said) = resolve_table(table, &fields).unwrap();
    assert_eq!(names(&f), ["parcel_id (not used)", "parcel_id", "Date Note", "inspection_date"]);
    assert!(said.contains("parcel_id = PIN (from the config)"), "{said}");
}

#[test]
fn a_role_read_from_one_of_two_columns_of_one_name_is_refused() {
    // The first holds an old date, the second the visit: neither is more likely the file's meaning.
    let table: &[(&str, &[&str])] =
        &[("inspection_date", &["2010-01-01"]), ("parcel_id", &["1"]), ("Inspection Date", &["2026-01-02"])];
    let err = resolve_table(table, &FieldMap::new()).unwrap_err().to_string();
    assert!(err.contains("columns 1 and 3 are both named 'inspection_date'"), "{err}");
    assert!(err.contains("the inspection_date would be read from one of them"), "{err}");
    // Named in the config, the name found twice is as ambiguous.
    let table: &[(&str, &[&str])] = &[("SBL", &["1"]), ("SBL", &["2"]), ("DATE", &["2026-01-02"])];
    let fields = FieldMap::from([("parcel_id".into(), "SBL".into())]);
    let err = resolve_table(table, &fields).unwrap_err().to_string();
    assert!(err.contains("columns 1 and 2 are both named 'SBL'"), "{err}");
}

#[test]
fn a_file_of_another_kind_is_told_as_such() {
    // The events file given as the inspection log: its `date` would be taken for the visit.
    let table: &[(&str, &[&str])] = &[("parcel_id", &["1"]), ("date", &["2026-01-02"]), ("event", &["sale"])];
    let err = resolve_table(table, &FieldMap::new()).unwrap_err().to_string();
    assert!(
        err.contains("given as the inspections file, but it has the column 'event' of the events file"),
        "{err}"
    );
    assert!(err.contains("no inspection_date column (it would be read from 'date')"), "{err}");
    // Named in the config, the date column is the file's word, and the file is read.
    let fields = FieldMap::from([("inspection_date".into(), "date".into())]);
    assert!(resolve_table(table, &fields).is_ok());
}

#[test]
fn a_missing_role_names_the_columns_and_the_key_to_set() {
    let table: &[(&str, &[&str])] = &[("SBL", &["1"]), ("Visited", &["2026-01-02"])];
    let err = resolve_table(table, &FieldMap::new()).unwrap_err().to_string();
    assert!(err.contains("columns found: SBL, Visited"), "{err}");
    assert!(err.contains("inspection_date = \"COLUMN\""), "{err}");
    assert!(err.contains("--field history.inspection_date=COLUMN"), "{err}");
    let fields = FieldMap::from([("when".into(), "Visited".into())]);
    let err = resolve_table(&[("SBL", &["1"])], &fields).unwrap_err().to_string();
    assert!(err.contains("use one of: parcel_id, inspection_date, result"), "{err}");
}

/// A column named like a date is the date column when half its cells are dates: its bad cells are the
/// reader's to report. It wins over a clean date column whose name says a later word, and a column
/// named like a date that holds hardly any dates is named in the error.
#[test]
fn a_date_column_with_bad_cells_is_still_the_date_column() {
    let table: &[(&str, &[&str])] = &[
        ("SBL", &["1", "2", "3", "4", "5"]),
        ("Inspector", &["A. Lee", "B. Kahn", "", "A. Lee", "C. Ruiz"]),
        ("Date Received", &["2025-01-09", "2025-02-09", "2025-03-09", "2025-04-09", "2025-05-09"]),
        ("Date of Inspection", &["2025-01-02", "-1", "2025-03-02", "#N/A", "3/2/2025"]),
    ];
    let (f, said) = resolve_table(table, &FieldMap::new()).unwrap();
    assert_eq!(names(&f), ["parcel_id", "Inspector", "Date Received", "inspection_date"]);
    assert!(
        said.contains("Date of Inspection (detected: its name says 'insp' and most of its cells"),
        "{said}"
    );
    let table: &[(&str, &[&str])] =
        &[("SBL", &["1", "2", "3"]), ("Date Visited", &["04.03.2026", "05.03.2026", "2026-03-06"])];
    let err = resolve_table(table, &FieldMap::new()).unwrap_err().to_string();
    assert!(
        err.contains("'Date Visited' holds 1 dates in its first 3 filled cells (not '04.03.2026')"),
        "{err}"
    );
}
