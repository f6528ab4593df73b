//! What a CSV file's first lines say about how it was written: which byte separates its fields.
//!
//! Spreadsheet programs export "CSV" with the list separator of the computer's region: a comma in the US, a
//! semicolon where the comma is the decimal mark, a tab for "Text (Tab delimited)". [`sniff_separator`]
//! counts each candidate outside quoted fields on the header line and on the first records, and takes the one
//! that splits the header and the most records into the same number of fields, as RFC 4180 asks of every
//! record.

/// The separators tried, in order of preference when they fit equally well.
const SEPARATORS: [u8; 3] = [b',', b';', b'\t'];

/// Records after the header looked at.
const SNIFF_RECORDS: usize = 100;

/// The separator of the CSV text that starts with `sample` (its first bytes; a byte-order mark may lead):
/// the candidate (comma, semicolon, tab) found on the header line whose count, outside quotes, the most of
/// the next records repeat, more fields winning a tie; a comma when no candidate is on the header line (a
/// file of one column).
///
/// ```
/// use lakeshore::formats::csv::sniff_separator;
/// assert_eq!(sniff_separator(b"id;date;inspector\n1;2026-01-02;\"Lindqvist; T.\"\n"), b';');
/// assert_eq!(sniff_separator(b"id,date,inspector\n1,2026-01-02,\"Lindqvist; T.\"\n"), b',');
/// assert_eq!(sniff_separator(b"id\tdate\n1\t2,5\n"), b'\t');
/// ```
pub fn sniff_separator(sample: &[u8]) -> u8 {
    let sample = sample.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(sample);
    let mut best = (b',', 0, 0);
    for separator in SEPARATORS {
        let counts = counts(sample, separator);
        let Some((&header, rows)) = counts.split_first() else { continue };
        if header == 0 {
            continue;
        }
        let agreeing = rows.iter().filter(|&&n| n == header).count();
        if (agreeing, header) > (best.1, best.2) {
            best = (separator, agreeing, header);
        }
    }
    best.0
}

/// The separator's name, for messages: "comma", "semicolon", "tab".
pub fn separator_name(separator: u8) -> &'static str {
    match separator {
        b';' => "semicolon",
        b'\t' => "tab",
        b',' => "comma",
        _ => "separator",
    }
}

/// The number of `separator`s outside quotes in each record of `sample` (empty lines skipped), the header's
/// first, up to [`SNIFF_RECORDS`] records after it; a last record that the sample may cut short is left out.
fn counts(sample: &[u8], separator: u8) -> Vec<usize> {
    let mut counts = Vec::new();
    let (mut count, mut quoted, mut field_start, mut blank) = (0, false, true, true);
    let mut bytes = sample.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        if quoted {
            if b == b'"' {
                if bytes.peek() == Some(&b'"') {
                    bytes.next();
                } else {
                    quoted = false;
                }
            }
            continue;
        }
        match b {
            b'\n' | b'\r' => {
                if !blank {
                    counts.push(count);
                    if counts.len() > SNIFF_RECORDS {
                        return counts;
                    }
                }
                (count, field_start, blank) = (0, true, true);
                continue;
            }
            b'"' if field_start => quoted = true,
            _ if b == separator => {
                count += 1;
                field_start = true;
                blank = false;
                continue;
            }
            _ => {}
        }
        field_start = false;
        blank = false;
    }
    // The sample ends inside a record: whole when it is the only one (a file of one line), else maybe cut.
    if !blank && counts.is_empty() {
        counts.push(count);
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_separator_that_splits_every_record_alike_wins() {
        // A comma file whose notes hold semicolons, and a semicolon file whose numbers use a decimal comma.
        assert_eq!(sniff_separator(b"a,b,c\n1,x; y,3\n2,z,4\n"), b',');
        assert_eq!(sniff_separator(b"a;b;c\n1;4,5;x\n2;3,0;y\n"), b';');
        // A header name holding a comma, in a tab file.
        assert_eq!(sniff_separator(b"id\towner, first\tdate\n1\tA\t2026-01-02\n2\tB\t2026-01-03\n"), b'\t');
        // Separators inside quotes, even across lines, do not count.
        assert_eq!(sniff_separator(b"a;b\n\"1,2,3\";\"x\ny,z\"\n\"4,5\";w\n"), b';');
        // A byte-order mark, CRLF line ends and blank lines.
        assert_eq!(sniff_separator(b"\xEF\xBB\xBFa;b\r\n\r\n1;2\r\n"), b';');
        // One column, or nothing at all: a comma.
        assert_eq!(sniff_separator(b"parcel_id\n1\n2\n"), b',');
        assert_eq!(sniff_separator(b""), b',');
        // A header alone.
        assert_eq!(sniff_separator(b"a\tb\tc"), b'\t');
    }

    #[test]
    fn a_record_cut_at_the_end_of_the_sample_is_not_counted() {
        // The sample stops inside the third record: two agreeing records decide.
        assert_eq!(sniff_separator(b"a;b;c\n1;2;3\n4;5;6\n7;8"), b';');
        assert_eq!(counts(b"a;b;c\n1;2;3\n7;8", b';'), [2, 2]);
    }
}
