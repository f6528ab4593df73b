use std::io::BufReader;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// Every record of `input` as (line, fields, flaw), read through a buffer of `capacity` bytes.
fn records_with(input: &[u8], capacity: usize) -> Vec<(usize, Vec<String>, Option<Flaw>)> {
    let mut reader = CsvReader::new(BufReader::with_capacity(capacity, input));
    let mut record = Record::default();
    let mut out = Vec::new();
    while reader.read(&mut record).unwrap() {
        out.push((record.line(), record.fields().map(String::from).collect(), record.flaw()));
    }
    out
}

fn records(input: &[u8]) -> Vec<(usize, Vec<String>, Option<Flaw>)> {
    let whole = records_with(input, 1 << 16);
    // A buffer of 3 bytes puts buffer ends inside quotes, doubled quotes and CRLF pairs; a BOM still fits.
    assert_eq!(records_with(input, 3), whole, "the buffer size changes nothing");
    whole
}

/// (line, fields) of every record, which must all be whole.
fn lines_and_fields(input: &str) -> Vec<(usize, Vec<String>)> {
    let read = records(input.as_bytes());
    read.into_iter().map(|(line, fields, flaw)| (assert_eq!(flaw, None), (line, fields)).1).collect()
}

fn row(line: usize, fields: &[&str]) -> (usize, Vec<String>) {
    (line, fields.iter().map(|f| f.to_string()).collect())
}

#[test]
fn plain_records_with_any_line_ending() {
    for input in ["a,b\n1,2\n3,4\n", "a,b\r\n1,2\r\n3,4\r\n", "a,b\r1,2\r3,4", "a,b\n1,2\r\n3,4"] {
        let want = vec![row(1, &["a", "b"]), row(2, &["1", "2"]), row(3, &["3", "4"])];
        assert_eq!(lines_and_fields(input), want, "{input:?}");
    }
}

#[test]
fn quoted_fields_hold_commas_quotes_and_line_breaks() {
    // Line 1: header. Line 2: record 1 opens a quoted note that breaks twice (CRLF, then LF), so its
    // closing quote is on line 4; record 2 starts on line 5. Line 6 is empty; record 3 is on line 7, its
    // last field empty after a trailing comma; record 4 (line 8) has no line break at the end.
    let input = "id,note,n\r\n\
                 1,\"first, \"\"quoted\"\"\r\nsecond\nthird\",9\r\n\
                 2,\"\",10\r\n\
                 \r\n\
                 3,plain,\n\
                 4,\"a\rb\",11";
    assert_eq!(
        lines_and_fields(input),
        vec![
            row(1, &["id", "note", "n"]),
            row(2, &["1", "first, \"quoted\"\r\nsecond\nthird", "9"]),
            row(5, &["2", "", "10"]),
            row(7, &["3", "plain", ""]),
            row(8, &["4", "a\rb", "11"]),
        ]
    );
}

#[test]
fn a_byte_order_mark_and_blank_lines_are_skipped() {
    let input = "\u{feff}\n\nid,date\n\n1,2026-01-02\n\n";
    assert_eq!(lines_and_fields(input), vec![row(3, &["id", "date"]), row(5, &["1", "2026-01-02"])]);
    assert_eq!(lines_and_fields(""), vec![]);
    assert_eq!(lines_and_fields("\r\n\n\r"), vec![]);
    // Spaces are a field, not a blank line; one comma makes two empty fields.
    assert_eq!(lines_and_fields(" \n,\n"), vec![row(1, &[" "]), row(2, &["", ""])]);
}

#[test]
fn a_quote_never_closed_takes_the_rest_of_the_input() {
    let read = records(b"id,note\n1,ok\n2,\"open\nstill open\n3,gone\n");
    assert_eq!(read.len(), 3);
    assert_eq!(read[1], (2, vec!["1".into(), "ok".into()], None));
    assert_eq!(read[2].0, 3);
    assert_eq!(read[2].2, Some(Flaw::Unclosed { line: 3 }));
    // Opened on the record's second line, after a closed multi-line field.
    let read = records(b"a,b,c\n\"x\ny\",z,\"w");
    assert_eq!(read[1].2, Some(Flaw::Unclosed { line: 3 }));
    assert_eq!(read[1].0, 2);
}

#[test]
fn a_stray_quote_is_read_as_written() {
    let read = records(b"id,size,n\n1,6\" pipe,2\n2,\"6\"\" pipe\"x,3\n3,\"ok\",4\n");
    assert_eq!(read[1].1, ["1", "6\" pipe", "2"]);
    assert_eq!(read[1].2, Some(Flaw::StrayQuote { line: 2, field: 1 }));
    assert_eq!(read[2].1, ["2", "6\" pipex", "3"]);
    assert_eq!(read[2].2, Some(Flaw::StrayQuote { line: 3, field: 1 }));
    assert_eq!(read[3], (4, vec!["3".into(), "ok".into(), "4".into()], None));
    // A lone quote starting a field opens a quoted field: the line break and next row are in it.
    let read = records(b"a,b\n1,\"x\n2,y\"\n3,z\n");
    assert_eq!(read[1], (2, vec!["1".into(), "x\n2,y".into()], None));
    assert_eq!(read[2].0, 4);
}

#[test]
fn bytes_that_are_not_utf8_are_windows_1252_and_nul_is_found_on_its_line() {
    // Record 1 spans lines 2-4 and ends in 0xE9, Windows-1252 for 'é'; record 2 (line 5) is UTF-8.
    let input = b"id,note\n1,\"a\nb\nd\xe9\"\n2,fine\xe2\x80\x94\n3,n\x00l\n\"\xc3\",\"\xa9\"\n4,\x93q\x94\n";
    let read = records(input);
    assert_eq!(read[1], (2, vec!["1".into(), "a\nb\nd\u{e9}".into()], None));
    assert_eq!(read[2], (5, vec!["2".into(), "fine\u{2014}".into()], None));
    assert_eq!(read[3].2, Some(Flaw::Nul { line: 6, field: 1 }));
    // Two fields each holding half of 'é' are not text, though their bytes together are: each is read as
    // Windows-1252 on its own.
    assert_eq!(read[4], (7, vec!["\u{c3}".into(), "\u{a9}".into()], None));
    // 0x93 and 0x94 are Windows-1252's curly quotes (not Latin-1's control codes).
    assert_eq!(read[5].1, ["4", "\u{201c}q\u{201d}"]);
    let mut reader = CsvReader::new(&input[..]);
    let mut record = Record::default();
    let mut decoded = Vec::new();
    while reader.read(&mut record).unwrap() {
        decoded.push(record.windows_1252());
    }
    assert_eq!(decoded, [false, true, false, false, true, true]);
    // A CR closing one quoted field and a LF opening the next are two line breaks.
    let read = records(b"a,b\n\"x\r\",\"\ny\x00\"\n");
    assert_eq!(read[1].2, Some(Flaw::Nul { line: 4, field: 1 }));
}

#[test]
fn fields_are_split_at_the_separator_given() {
    let mut reader = CsvReader::with_separator(&b"a;b\tc,d\n\"x;y\";2\n"[..], b';');
    let mut record = Record::default();
    assert!(reader.read(&mut record).unwrap());
    assert_eq!(record.fields().collect::<Vec<_>>(), ["a", "b\tc,d"]);
    assert!(reader.read(&mut record).unwrap());
    assert_eq!(record.fields().collect::<Vec<_>>(), ["x;y", "2"]);
    let mut reader = CsvReader::with_separator(&b"a\tb,c\n"[..], b'\t');
    assert!(reader.read(&mut record).unwrap());
    assert_eq!(record.fields().collect::<Vec<_>>(), ["a", "b,c"]);
}

#[test]
fn a_record_too_long_is_cut_and_the_next_is_read() {
    let mut input = b"id,note\n1,\"".to_vec();
    input.extend(std::iter::repeat_n(b'x', MAX_RECORD_BYTES + 10));
    input.extend(b"\"\n2,short\n");
    let read = records_with(&input, 1 << 16);
    assert_eq!(read[1].2, Some(Flaw::TooLong));
    assert_eq!(read[2], (3, vec!["2".into(), "short".into()], None));
}

/// RFC 4180 text of `rows`, quoting a field when it must be, with `eol` after each record.
fn write(rows: &[Vec<String>], eol: &str) -> String {
    let mut out = String::new();
    for fields in rows {
        let quoted: Vec<String> = fields
            .iter()
            .map(|f| {
                let plain = f.is_empty() || !f.contains([',', '"', '\r', '\n']) && !f.starts_with('"');
                if plain {
                    f.clone()
                } else {
                    format!("\"{}\"", f.replace('"', "\"\""))
                }
            })
            .collect();
        out.push_str(&quoted.join(","));
        out.push_str(eol);
    }
    out
}

/// Records written as RFC 4180 text are read back as they were, each on the line the text puts it (the
/// count of line breaks before it, a CRLF counting once).
#[test]
fn written_records_read_back_on_their_lines() {
    let mut rng = ChaCha8Rng::seed_from_u64(4180);
    let pieces = ["a", "é", " ", ",", "\"", "\r\n", "\n", "\r", "42"];
    for case in 0..200 {
        let width = rng.random_range(1..5);
        let rows: Vec<Vec<String>> = (0..rng.random_range(0..8))
            .map(|_| {
                (0..width)
                    .map(|_| (0..rng.random_range(0..5)).map(|_| pieces[rng.random_range(0..9)]).collect())
                    .collect()
            })
            .filter(|r: &Vec<String>| !(width == 1 && r[0].is_empty()))
            .collect();
        let eol = ["\n", "\r\n", "\r"][case % 3];
        let text = write(&rows, eol);
        let mut want = Vec::new();
        let mut line = 1;
        for fields in &rows {
            want.push((line, fields.clone()));
            let written = write(std::slice::from_ref(fields), eol).replace("\r\n", "\n");
            line += written.chars().filter(|&c| c == '\n' || c == '\r').count();
        }
        assert_eq!(lines_and_fields(&text), want, "{text:?}");
    }
}

/// Random bytes never panic or hang the reader, and lines only grow.
#[test]
fn random_bytes_are_read_to_the_end() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let alphabet = [b'a', b',', b'"', b'\r', b'\n', 0, 0xff, 0xc3, 0xa9, b' '];
    for _ in 0..500 {
        let input: Vec<u8> =
            (0..rng.random_range(0..200)).map(|_| alphabet[rng.random_range(0..alphabet.len())]).collect();
        let read = records(&input);
        let breaks = input.iter().filter(|&&b| b == b'\n' || b == b'\r').count();
        assert!(read.windows(2).all(|w| w[0].0 < w[1].0), "{input:?}");
        assert!(read.iter().all(|r| r.0 >= 1 && r.0 <= breaks + 1), "{input:?}");
    }
}
