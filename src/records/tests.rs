use super::checker::not_a_date;
use super::*;

#[test]
fn dates_in_three_spellings() {
    let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
    // Excel serials count from 1899-12-30 (after its phantom 1900-02-29): 25569 is 1970-01-01 and 45658
    // is 2025-01-01 (Excel's DATE(2025,1,1)).
    assert_eq!(parse_date("25569"), d(1970, 1, 1));
    assert_eq!(parse_date("45658"), d(2025, 1, 1));
    assert_eq!(parse_date("45658.75"), d(2025, 1, 1));
    assert_eq!(parse_date("60"), None);
    assert_eq!(parse_date("12/31/2024"), d(2024, 12, 31));
    assert_eq!(parse_date("2/29/2023"), None);
    assert_eq!(parse_date("2024-02-29 00:00:00"), d(2024, 2, 29));
    assert_eq!(parse_date("2024-02-29x"), None);
    for bad in ["", "2024", "1/2/24", "1//2024", "-45658", "4.5e4", "20240229", "pass"] {
        assert_eq!(parse_date(bad), None, "{bad}");
    }
    // Only the years 1900 to 2100: 73415 is 2100-12-31 (45658 + 27757 days, 2025 to 2101).
    assert_eq!(parse_date("73415"), d(2100, 12, 31));
    for bad in ["73416", "99999", "1899-12-31", "2101-01-01", "12/31/1899", "1/1/2101", "NaN", "inf"] {
        assert_eq!(parse_date(bad), None, "{bad}");
    }
    let m = DateOrder::MonthFirst;
    assert!(
        not_a_date("date", "23980000", m).contains("'23980000' is a number but not a date of 1900 to 2100")
    );
    assert!(not_a_date("date", "NaN", m).contains("is a number but not a date"));
    assert!(not_a_date("date", "1025-06-12", m).contains("not a date of 1900 to 2100; correct the year"));
    assert!(not_a_date("date", "#N/A", m).contains("'#N/A' is not a date; write it as YYYY-MM-DD"));
    // A month-first date in a column read day-first: the month is what does not read, not the year.
    let told = not_a_date("date", "8/20/2026", DateOrder::DayFirst);
    assert!(
        told.contains("is 2026-08-20 read month-first") && told.contains("--date-order month-first"),
        "{told}"
    );
    let told = not_a_date("date", "20/8/2026", m);
    assert!(
        told.contains("is 2026-08-20 read day-first") && told.contains("--date-order day-first"),
        "{told}"
    );
    // Neither order reads a year out of range.
    assert!(not_a_date("date", "8/20/1025", DateOrder::DayFirst).contains("correct the year"));
}

#[test]
fn a_sheet_is_told_by_its_name() {
    assert_eq!(line(Path::new("log.xlsx:Log"), 4), Location::Row(4));
    assert_eq!(line(Path::new("dir/log.ODS"), 4), Location::Row(4));
    assert_eq!(line(Path::new("c:/dir/log.csv"), 4), Location::Line(4));
}

#[test]
fn cells_are_checked_with_their_line() {
    let path = Path::new("events.csv");
    let mut check = Checker::new(path);
    let as_of = NaiveDate::from_ymd_opt(2027, 3, 1).unwrap();
    assert_eq!(check.date(2, "date", "2027-02-28", as_of), NaiveDate::from_ymd_opt(2027, 2, 28));
    assert_eq!(check.date(3, "date", "2027-03-02", as_of), None);
    assert_eq!(check.date(4, "date", "03/32/2027", as_of), None);
    assert_eq!(check.date(5, "date", "", as_of), None);
    assert_eq!(check.yes_no(6, "arms_length", "No"), Some(Some(false)));
    assert_eq!(check.yes_no(7, "arms_length", "maybe"), None);
    assert_eq!(check.number(8, "count", "1,200"), Some(Some(1200.0)));
    assert_eq!(check.number(8, "count", "12,345,678.5"), Some(Some(12_345_678.5)));
    // A comma that is not between thousands (a decimal comma) is reported, not dropped (1,5 is not 15).
    for text in ["1,5", "12,34", ",5", "1,2345", "1.5,0", "1,,200"] {
        assert_eq!(check.number(11, "separation_ft", text), None, "{text}");
    }
    assert_eq!(check.number(9, "count", "TNTC"), None);
    assert_eq!(check.number(10, "count", "-3"), None);
    let lines: Vec<Location> = check.problems.iter().map(|p| p.location.clone()).collect();
    assert_eq!(lines, [3, 4, 5, 7, 11, 11, 11, 11, 11, 11, 9, 10].map(Location::Line));
    assert!(check.problems[0].message.contains("after the as-of date 2027-03-01"));
    assert!(check.problems[4]
        .message
        .contains("'1,5' is not a number of 0 or more; write digits with a decimal point"));
    assert!(check.problems[10].message.contains("'TNTC' is not a number"));
}

use crate::records::columns::{Detect, Role};

const SPEC: Spec<'static> = Spec {
    what: "inspections",
    key: "history",
    roles: &[
        Role { name: "parcel_id", aliases: &[], required: true, detect: Detect::ParcelId },
        Role { name: "inspection_date", aliases: &[], required: true, detect: Detect::Date(&["insp"]) },
    ],
};

/// A file named `name` holding `bytes`, in a folder of its own.
fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = crate::scratch::root().join(format!("records-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// (line, parcel id, date cell, notes cell) of every row read, the problems as (record, message), and
/// the columns taken.
type Rows = (Vec<(usize, String, String, String)>, Vec<(String, String)>, String);

fn read_rows(path: &Path) -> Result<Rows> {
    let mut records = Records::read(path, &SPEC, &FieldMap::new())?;
    let (id, date, notes) =
        (records.column("parcel_id"), records.column("inspection_date"), records.column("notes"));
    let mut check = Checker::new(path);
    let mut rows = Vec::new();
    while let Some(row) = records.next_row(&mut check)? {
        let cell = |c| row.get(c).to_string();
        rows.push((row.line(), cell(id), cell(date), cell(notes)));
    }
    let problems = check.problems.into_iter().map(|p| (p.location.to_string(), p.message)).collect();
    Ok((rows, problems, records.finish((), Checker::new(path)).columns))
}

#[test]
fn rows_carry_the_line_they_start_on_and_damaged_rows_are_reported() {
    // Lines counted by hand: the note of line 2 runs to line 4 (one break is CRLF), so the next row is on
    // line 5.
    let path = file(
        "history.csv",
        b"SWIS,PRINT_KEY,Date Inspected,notes\n\
          054689,128.05-1-1,2026-01-02,\"first line\r\nsecond, with a comma\nthird \"\"quoted\"\"\"\n\
          054689, 128.05-1-2 ,2026-02-03,plain\n\
          054689,128.05-1-3,2026-02-04\n\
          054689,128.05-1-4,2026-02-05,a,b\n\
          ,128.05-1-5,2026-02-06,6\" pipe\n\
          054689,128.05-1-6,2026-02-07,n\x00l\n\
          054689,128.05-1-7,2026-02-08,caf\xe9\n\
          054689,128.05-1-8,2026-02-09,\"never closed\n\
          054689,128.05-1-9,2026-02-10,x\n",
    );
    let (rows, problems, said) = read_rows(&path).unwrap();
    let row = |line, id: &str, date: &str, notes: &str| (line, id.into(), date.into(), notes.into());
    assert_eq!(
        rows,
        [
            row(2, "054689-128.05-1-1", "2026-01-02", "first line\r\nsecond, with a comma\nthird \"quoted\""),
            row(5, "054689-128.05-1-2", "2026-02-03", "plain"),
            row(8, "", "2026-02-06", "6\" pipe"),
            row(10, "054689-128.05-1-7", "2026-02-08", "caf\u{e9}"),
        ]
    );
    let at: Vec<&str> = problems.iter().map(|(line, _)| line.as_str()).collect();
    assert_eq!(at, ["line 6", "line 7", "line 8", "line 9", "line 11"]);
    let says = |i: usize, words: &[&str]| {
        let message = &problems[i].1;
        assert!(words.iter().all(|w| message.contains(w)), "{message}");
    };
    says(0, &["3 fields where the header has 4", "not read", "quote a field that holds a comma"]);
    says(1, &["5 fields where the header has 4"]);
    says(2, &["column 'notes' holds a '\"'", "read as written", "double the quote"]);
    says(3, &["column 'notes' holds a NUL byte", "not read"]);
    says(4, &["never closed", "close the quote"]);
    assert!(said.contains("parcel_id = PRINT_KEY (detected: SWIS and PRINT_KEY joined with '-')"), "{said}");
    assert!(said.contains("inspection_date = Date Inspected (detected"), "{said}");
}

/// A Windows-1252 file (Excel's plain "CSV" on a North American or Western European computer) keeps its
/// rows, its accented letters read as written, and says so once in a note naming the file.
#[test]
fn text_that_is_not_utf8_is_read_as_windows_1252_with_a_note() {
    let path = file(
        "cp1252.csv",
        b"parcel_id;inspection_date;r\xe9sultat\n1;2026-01-02;r\xe9ussi\n2;2026-01-03;ok\n3;2026-01-04;\x93pass\x94\n",
    );
    let mut records = Records::read(&path, &SPEC, &FieldMap::new()).unwrap();
    assert!(records.has("r\u{e9}sultat"));
    let result = records.column("r\u{e9}sultat");
    let mut check = Checker::new(&path);
    let mut cells = Vec::new();
    while let Some(row) = records.next_row(&mut check).unwrap() {
        cells.push(row.get(result).to_string());
    }
    assert_eq!(cells, ["r\u{e9}ussi", "ok", "\u{201c}pass\u{201d}"]);
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    let read = records.finish((), check);
    assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
    let note = &read.notes[0];
    assert!(note.contains("cp1252.csv: not UTF-8 text; read as Windows-1252"), "{note}");
    assert!(note.contains("3 rows, the first on line 1"), "{note}");
    assert!(read.columns.contains("fields separated by semicolons"), "{}", read.columns);
    // UTF-8 with its byte-order mark: no note.
    let path = file(
        "bom.csv",
        "\u{feff}parcel_id,inspection_date,r\u{e9}sultat\n1,2026-01-02,r\u{e9}ussi\n".as_bytes(),
    );
    let (rows, problems, _) = read_rows(&path).unwrap();
    assert_eq!((rows.len(), problems.len()), (1, 0));
    let records = Records::read(&path, &SPEC, &FieldMap::new()).unwrap();
    assert!(records.has("r\u{e9}sultat") && records.finish((), Checker::new(&path)).notes.is_empty());
}

#[test]
fn rows_after_the_sample_go_on_with_their_lines() {
    // Rows 0..3000 on lines 2.., except that row 1500's note breaks a line, pushing the rest one down.
    let mut text = String::from("parcel_id,inspection_date,notes\n");
    for k in 0..3000 {
        let note = if k == 1500 { "\"two\nlines\"" } else { "one" };
        text.push_str(&format!("p{k},2026-01-02,{note}\n"));
    }
    let (rows, problems, _) = read_rows(&file("long.csv", text.as_bytes())).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(rows.len(), 3000);
    assert_eq!((rows[1500].0, rows[1500].3.as_str()), (1502, "two\nlines"));
    assert_eq!((rows[1501].0, rows[1501].1.as_str()), (1504, "p1501"));
    assert_eq!(rows[2999].0, 3002);
}

#[test]
fn a_header_that_cannot_be_read_stops_the_file() {
    let err = read_rows(&file("utf16.csv", b"\xff\xfep\x00a\x00r\x00\n\x00")).unwrap_err().to_string();
    assert!(err.contains("is UTF-16 text") && err.contains("CSV UTF-8"), "{err}");
    let err = read_rows(&file("nul.csv", b"parcel_id,inspection\x00date\n")).unwrap_err().to_string();
    assert!(err.contains("line 1, the header: ") && err.contains("NUL byte"), "{err}");
    let err = read_rows(&file("open.csv", b"parcel_id,\"inspection_date\n")).unwrap_err().to_string();
    assert!(err.contains("line 1, the header: a quoted field") && err.contains("close the quote"), "{err}");
    let err = read_rows(&file("empty.csv", b"")).unwrap_err().to_string();
    assert!(err.contains("no 'parcel_id' column") && err.contains("columns found: none"), "{err}");
}

/// An event's kind is the vocabulary's: an alias reads as its canonical kind (`Conveyance` is a `transfer`),
/// and a kind the vocabulary does not hold for the events file (`tornado`, or `pump-out`, which only the
/// pump-outs file records) is reported on its line and the row left out.
#[test]
fn event_kinds_come_from_the_vocabulary() {
    use crate::rules::vocabulary::{EventKind, REPAIR_ORDER};
    let path = file(
        "events.csv",
        b"parcel_id,date,event\nA,2026-05-01,Conveyance\nA,2026-05-02,tornado\nA,2026-05-03,pump-out\nA,2026-05-04,repair-order\n",
    );
    let as_of = NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
    let read = events::read_events(&path, &FieldMap::new(), &|id| (id == "A").then_some(0), as_of).unwrap();
    let kinds: Vec<(EventKind, usize)> = read.value.iter().map(|e| (e.kind, e.source.line)).collect();
    assert_eq!(kinds, [(EventKind::named("transfer").unwrap(), 2), (REPAIR_ORDER, 5)]);
    let problems: Vec<(String, &str)> = read
        .problems
        .iter()
        .map(|p| (p.location.to_string(), &p.message[..p.message.find(';').unwrap()]))
        .collect();
    assert_eq!(
        problems,
        [
            ("line 3".to_string(), "unknown event 'tornado'"),
            ("line 4".to_string(), "unknown event 'pump-out'")
        ]
    );
}

/// The dates of every row of a file as `read_records` reads them, its problems and notes, and how many times
/// the file was read.
type Dates = (Vec<Option<NaiveDate>>, Vec<String>, Vec<String>, usize);

fn read_dates(path: &Path, fields: &FieldMap) -> Result<Dates> {
    let as_of = NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
    let mut passes = 0;
    let read = read_records(path, &SPEC, fields, |records, check| {
        passes += 1;
        let date = records.column("inspection_date");
        let mut dates = Vec::new();
        while let Some(row) = records.next_row(check)? {
            dates.push(check.date(row.line(), "inspection_date", row.get(date), as_of));
        }
        Ok(dates)
    })?;
    let problems = read.problems.into_iter().map(|p| format!("{}: {}", p.location, p.message)).collect();
    Ok((read.value, problems, read.notes, passes))
}

/// A log whose first 1,500 slash dates read either way (4 March or 3 April) and whose later ones are day-first
/// only (25/12/2025): the whole column is day-first, so 3/4/2026 is 3 April 2026, every row of it, though the
/// first rows alone would have said month-first. The file is read a second time to read them so; a file its
/// first rows settle is read once.
#[test]
fn the_whole_column_settles_its_dates_not_its_first_rows() {
    let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day);
    let mut text = String::from("parcel_id,inspection_date\n");
    (0..1500).for_each(|k| text.push_str(&format!("p{k},3/4/2026\n")));
    (1500..1600).for_each(|k| text.push_str(&format!("p{k},25/12/2025\n")));
    let (dates, problems, notes, passes) =
        read_dates(&file("late-day-first.csv", text.as_bytes()), &FieldMap::new()).unwrap();
    assert_eq!((problems, notes), (vec![], vec![]));
    assert_eq!(dates.len(), 1600);
    assert!(dates[..1500].iter().all(|&date| date == d(2026, 4, 3)), "{:?}", dates[0]);
    assert!(dates[1500..].iter().all(|&date| date == d(2025, 12, 25)));
    assert_eq!(passes, 2);

    // Month-first shown in the first rows and never contradicted: one pass, 3/13/2026 read as written.
    let mut text = String::from("parcel_id,inspection_date\np0,3/13/2026\n");
    (1..1600).for_each(|k| text.push_str(&format!("p{k},3/4/2026\n")));
    let (dates, problems, notes, passes) =
        read_dates(&file("month-first.csv", text.as_bytes()), &FieldMap::new()).unwrap();
    assert_eq!((problems.len(), notes.len(), passes), (0, 0, 1));
    assert_eq!((dates[0], dates[1599]), (d(2026, 3, 13), d(2026, 3, 4)));

    // Only dates that read either way, all through: month-first, said in a note; one pass.
    let text = "parcel_id,inspection_date\np0,3/4/2026\np1,5/6/2026\n";
    let (dates, _, notes, passes) =
        read_dates(&file("either.csv", text.as_bytes()), &FieldMap::new()).unwrap();
    assert_eq!((dates, passes), (vec![d(2026, 3, 4), d(2026, 5, 6)], 1));
    assert!(notes.len() == 1 && notes[0].contains("its 2 slash dates read either way"), "{notes:?}");

    // Ten day-first dates after a thousand month-first ones: neither reading reads 95 %, an error naming the
    // column, however the first rows read.
    let mut text = String::from("parcel_id,inspection_date\n");
    (0..1000).for_each(|k| text.push_str(&format!("p{k},3/13/2026\n")));
    (0..60).for_each(|k| text.push_str(&format!("q{k},13/3/2026\n")));
    let err = read_dates(&file("mixed.csv", text.as_bytes()), &FieldMap::new()).unwrap_err().to_string();
    assert!(err.contains("mixes day-first dates (60 cells such as '13/3/2026')"), "{err}");

    // The convention set in the config is taken whatever the cells show.
    let mut fields = FieldMap::new();
    fields.insert(crate::records::dates::DATE_ORDER_KEY.to_string(), "day-first".to_string());
    let (dates, _, _, passes) =
        read_dates(&file("late-day-first.csv", b"parcel_id,inspection_date\np0,3/4/2026\n"), &fields)
            .unwrap();
    assert_eq!((dates, passes), (vec![d(2026, 4, 3)], 1));
}
