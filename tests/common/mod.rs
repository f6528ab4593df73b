//! Helpers shared by the integration tests.

/// Splits CSV text into records (RFC 4180: quoted fields may hold commas, doubled quotes and
/// line breaks). A trailing `\r` ends a record like `\n` does.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut in_quotes, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (in_quotes, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => in_quotes = false,
            (true, c) => field.push(c),
            (false, '"') => in_quotes = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}
