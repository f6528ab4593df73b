//! Compiler-style messages for TOML files (county configs, rule sets): the file, line and column, the key,
//! what was expected with an example, the offending line with a caret, and "did you mean" for unknown keys.
//!
//! The `toml` crate's errors carry the byte span of the offending key or value; this module turns the span
//! into a line and column, finds the key written there and the table it belongs to, and looks the key up in
//! a reference document (the embedded rule set, a commented county config) for an example to show.
//!
//! Every mistake of a file is told at once ([`parse_all`]): after each, the entry at fault is blanked out
//! (its bytes made spaces, so every other line and column stays where it was) and the file is read again, so
//! a person fixes them all in one go rather than one a run.

use std::path::Path;

/// A TOML parse or type error, rendered for a person: `path:line:col: [table] key: message`, the source
/// line with a caret under the span, and hints (an example of the key, the nearest known key).
pub fn toml_error(path: &Path, text: &str, error: &toml::de::Error, reference: &str) -> String {
    render_toml(path, text, error.span().unwrap_or(0..0), error.message(), reference)
}

/// [`toml_error`] of the toml crate's `message` at `span`.
fn render_toml(
    path: &Path,
    text: &str,
    span: std::ops::Range<usize>,
    message: &str,
    reference: &str,
) -> String {
    let (line, _) = line_column(text, span.start);
    let source_line = text.lines().nth(line - 1).unwrap_or("");
    let located = key_at(text, span.start);
    let message = message.trim_end_matches('\n').to_string();
    let mut hints = Vec::new();
    let message = match unknown_key(&message) {
        Some((found, expected)) => {
            let what = if source_line.trim().starts_with('[') { "table" } else { "key" };
            let mut m = format!("unknown {what} `{found}`");
            match closest(&found, &expected) {
                Some(best) => hints.push(format!("did you mean `{best}`?")),
                None if !expected.is_empty() => {
                    hints.push(format!("the keys allowed here are {}", quoted_list(&expected)))
                }
                None => {}
            }
            if let Some(table) = located.as_ref().and_then(|l| l.table.as_deref()) {
                m.push_str(&format!(" in {table}"));
            }
            m
        }
        None => {
            if let Some(example) = located.as_ref().and_then(|l| example_of(reference, l)) {
                hints.push(format!("for example: {example}"));
            }
            plain(&message)
        }
    };
    let place = match &located {
        Some(Located { table: Some(t), key: Some(k) }) => format!("{t} {k}: "),
        Some(Located { table: None, key: Some(k) }) => format!("{k}: "),
        _ => String::new(),
    };
    render(path, text, span, &format!("{place}{message}"), &hints)
}

/// `path:line:column: message`, the source line of `span` with a caret under it, and the hints.
fn render(path: &Path, text: &str, span: std::ops::Range<usize>, message: &str, hints: &[String]) -> String {
    let (line, column) = line_column(text, span.start);
    let source_line = text.lines().nth(line - 1).unwrap_or("");
    let mut out = format!("{}:{line}:{column}: {message}", path.display());
    let gutter = line.to_string().len();
    let width =
        span.end.saturating_sub(span.start).clamp(1, source_line.len().saturating_sub(column - 1).max(1));
    out.push_str(&format!("\n{:gutter$} |\n{line} | {source_line}\n{:gutter$} | ", "", ""));
    out.push_str(&format!("{}{}", " ".repeat(column - 1), "^".repeat(width)));
    for hint in hints {
        out.push_str(&format!("\n{:gutter$} = {hint}", ""));
    }
    out
}

/// The most mistakes [`parse_all`] tells of one file; the rest are counted ([`Untold`]).
pub const MOST_TOLD: usize = 20;

/// The most readings of a file [`parse_all`] makes to count the mistakes past [`MOST_TOLD`]; each reading
/// passes over every unknown key of a table at once, and this bound keeps the time in the file's length.
const MOST_COUNTING_READINGS: usize = 20;

/// A TOML file read with every mistake told: the value when the file has none, else each mistake rendered
/// by [`toml_error`] in the order of the file's readings, and the first as the `toml` crate gave it.
pub struct Parsed<T> {
    /// What the file says once the entries at fault are left out (`None` when that cannot be read either).
    pub value: Option<T>,
    /// Each mistake as [`toml_error`] renders it, at most [`MOST_TOLD`].
    pub mistakes: Vec<String>,
    /// The first mistake, as the `toml` crate reported it.
    pub first: Option<toml::de::Error>,
    /// The mistakes found past the [`MOST_TOLD`] told.
    pub untold: Untold,
}

/// How many mistakes of a file were found but not told one by one.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Untold {
    /// How many.
    pub count: usize,
    /// Whether there may be more than `count` (counting stopped before the file read clean).
    pub at_least: bool,
}

impl Untold {
    /// The line that says how many more mistakes the file `path` has, when it has any.
    pub fn line(&self, path: &Path) -> Option<String> {
        let plural = if self.count == 1 && !self.at_least { "mistake" } else { "mistakes" };
        let bound = if self.at_least { "at least " } else { "" };
        (self.count > 0 || self.at_least).then(|| {
            format!(
                "{}: and {bound}{} more {plural} not shown (unknown keys and others); fix the ones above and \
                 run again to see the next",
                path.display(),
                self.count
            )
        })
    }
}

/// Reads `text` (the file `path`) as a `T`, telling every mistake up to [`MOST_TOLD`] and counting the rest:
/// after each mistake that has a place, the entry there (a key's lines, or a table header and its keys) is
/// blanked out and the text read again, until it reads, a mistake has no place, or blanking would leave text
/// that is not TOML. An unknown key brings every other unknown key of its table with it, found in one pass
/// over the text, so that a file of many unknown keys is read a few times, not once a key. `reference` gives
/// the examples, as for [`toml_error`].
pub fn parse_all<T: serde::de::DeserializeOwned>(path: &Path, text: &str, reference: &str) -> Parsed<T> {
    let mut work = text.to_string();
    let mut parsed = Parsed { value: None, mistakes: Vec::new(), first: None, untold: Untold::default() };
    let mut readings_past_cap = 0;
    loop {
        let error = match toml::from_str::<T>(&work) {
            Ok(value) => {
                parsed.value = Some(value);
                break;
            }
            Err(error) => error,
        };
        readings_past_cap += usize::from(parsed.mistakes.len() == MOST_TOLD);
        // Each mistake is rendered only when it is told: one takes a pass over the text.
        let mut tell = |span: Option<std::ops::Range<usize>>, message: &str| {
            if parsed.mistakes.len() == MOST_TOLD {
                parsed.untold.count += 1;
                return true;
            }
            let told = render_toml(path, text, span.unwrap_or(0..0), message, reference);
            let new = !parsed.mistakes.contains(&told);
            parsed.mistakes.extend(new.then_some(told));
            new
        };
        if !tell(error.span(), error.message()) {
            break;
        }
        let next = error.span().map(|span| match unknown_keys_like(&work, span.clone(), error.message()) {
            Some((others, next)) => {
                for (span, message) in others {
                    tell(Some(span), &message);
                }
                next
            }
            None => blank_entry(&work, span),
        });
        parsed.first.get_or_insert(error);
        match next {
            Some(next) if next != work && toml::from_str::<toml::Table>(&next).is_ok() => work = next,
            _ => {
                parsed.untold.at_least = readings_past_cap > 0;
                break;
            }
        }
        if readings_past_cap == MOST_COUNTING_READINGS {
            parsed.untold.at_least = true;
            break;
        }
    }
    parsed
}

/// The other unknown keys of the table of the unknown key at `span`, which the toml crate's `message` names
/// with the keys expected there: each key's span and the message the toml crate would give for it, in the
/// order of the text; and the text with all of them, the one at `span` too, blanked out. `None` when
/// `message` is not about an unknown key or does not list the keys expected.
#[allow(clippy::type_complexity)]
fn unknown_keys_like(
    text: &str,
    span: std::ops::Range<usize>,
    message: &str,
) -> Option<(Vec<(std::ops::Range<usize>, String)>, String)> {
    let message = message.trim_end();
    let (found, expected) = unknown_key(message)?;
    let at = key_at(text, span.start)?;
    if expected.is_empty() {
        return None;
    }
    // What the message says after the key: ", expected one of `a`, `b`".
    let after = &message[message.find('`')? + 1 + found.len() + 1..];
    // The dotted name of the table the unknown key is in ("" for the top level).
    let table = at.table.as_deref().map_or(String::new(), table_name);
    let first_part = |key: &str| key.split('.').next().unwrap_or(key).trim().trim_matches('"').to_string();
    let unknown = |key: &str| !expected.contains(&first_part(key));
    let (mut others, mut out) = (Vec::new(), String::with_capacity(text.len()));
    let (mut offset, mut current, mut blanking) = (0, String::new(), false);
    let error_line = text[..span.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let mut key = None;
        if t.starts_with('[') {
            current = table_name(&header(t));
            // A header of a table under the table at fault, named by a key it does not know.
            let below = match table.as_str() {
                "" => Some(current.as_str()),
                name => current.strip_prefix(name).and_then(|rest| rest.strip_prefix('.')),
            };
            blanking = below.is_some_and(|rest| !rest.is_empty() && unknown(rest));
            key = below.filter(|_| blanking).map(first_part);
        } else if !blanking && current == table {
            key = assignment_key(t).filter(|k| unknown(k)).map(|k| first_part(&k));
        }
        if let Some(key) = key.as_ref().filter(|_| offset != error_line) {
            let at = offset + line.find(key.as_str()).unwrap_or(0);
            others.push((at..at + key.len(), format!("unknown field `{key}`{after}")));
        }
        if blanking || key.is_some() {
            out.extend(line.chars().map(|c| if c == '\n' || c == '\r' { c } else { ' ' }));
        } else {
            out.push_str(line);
        }
        offset += line.len();
    }
    Some((others, out))
}

/// The dotted name of a table header as written: `[ fields.history ]` and `[[rule]]` are `fields.history`
/// and `rule`.
fn table_name(header: &str) -> String {
    header.trim_matches(|c| c == '[' || c == ']').split('.').map(str::trim).collect::<Vec<_>>().join(".")
}

/// `text` with the entry at `span` made spaces (line breaks kept): the lines of the span, or, when it starts
/// on a table header, the header and every line up to the next header.
fn blank_entry(text: &str, span: std::ops::Range<usize>) -> String {
    let start = text[..span.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let header = text[start..].trim_start().starts_with('[');
    let mut end = span.end.max(span.start + 1).min(text.len());
    end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    if header {
        let mut at = end;
        while at < text.len() {
            let line_end = text[at + 1..].find('\n').map_or(text.len(), |i| at + 1 + i);
            if text[at + 1..line_end].trim_start().starts_with('[') {
                break;
            }
            at = line_end;
        }
        end = at;
    }
    let blank: String = text[start..end].chars().map(|c| if c == '\n' { c } else { ' ' }).collect();
    format!("{}{blank}{}", &text[..start], &text[end..])
}

/// A mistake found in a key of `table` (`[fields.history]`) of the TOML file `path` after it was read:
/// rendered as [`toml_error`] renders one, at the key's line, with `message` and "did you mean" the closest
/// of `known`. Without such a key in the text, the message names the file and table alone.
pub fn key_mistake(
    path: &Path,
    text: &str,
    table: &str,
    key: &str,
    message: &str,
    known: &[String],
) -> String {
    let hints: Vec<String> = match closest(key, known) {
        Some(best) => vec![format!("did you mean `{best}`?")],
        None => vec![format!("the keys allowed here are {}", quoted_list(known))],
    };
    let message = format!("{table} {key}: {message}");
    match key_span(text, table, key) {
        Some(span) => render(path, text, span, &message, &hints),
        None => format!("{}: {message}; {}", path.display(), hints.join("; ")),
    }
}

/// The byte span of `key` as written in the table `table` (`[fields.history]`) of `text`.
fn key_span(text: &str, table: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut current: Option<String> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            current = Some(header(t).replace(' ', ""));
        } else if current.as_deref() == Some(table) && assignment_key(t).as_deref() == Some(key) {
            let at = line.find(key).unwrap_or(0);
            return Some(offset + at..offset + at + key.len());
        }
        offset += line.len();
    }
    None
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The key written on the line of an offset, and the table header above it (as written, brackets included).
#[derive(Debug, Clone, PartialEq)]
struct Located {
    table: Option<String>,
    key: Option<String>,
}

/// Finds the `key = ` that an offset belongs to (the nearest assignment at or above it) and its table.
fn key_at(text: &str, offset: usize) -> Option<Located> {
    let (line, _) = line_column(text, offset);
    let lines: Vec<&str> = text.lines().take(line).collect();
    let mut key = None;
    let mut table = None;
    // A table header is itself a key of the table its dotted name is in: `[layer]` is the key `layer` of the
    // top level, `[fields.history]` the key `history` of `[fields]`.
    if let Some(last) = lines.last().map(|l| l.trim()).filter(|l| l.starts_with('[')) {
        let name = header(last).trim_matches(|c| c == '[' || c == ']').trim().to_string();
        return Some(match name.rsplit_once('.') {
            Some((parent, key)) => Located { table: Some(format!("[{parent}]")), key: Some(key.to_string()) },
            None => Located { table: None, key: Some(name) },
        });
    }
    for l in lines.iter().rev() {
        let t = l.trim();
        if t.starts_with('[') {
            table = Some(header(t));
            break;
        }
        if key.is_none() {
            key = assignment_key(t);
        }
    }
    Some(Located { table, key })
}

/// A table header as written, without a trailing comment: `[fields]`, `[[rule]]`.
fn header(line: &str) -> String {
    line.split_once('#').map_or(line, |(h, _)| h).trim().to_string()
}

/// `key` of a line `key = value` (a dotted or quoted key as written).
fn assignment_key(line: &str) -> Option<String> {
    if line.starts_with('#') {
        return None;
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let ok = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"' | ' '));
    ok.then(|| key.trim_matches('"').to_string())
}

/// The line of `reference` that sets the same key in the same table, uncommented, as an example.
fn example_of(reference: &str, at: &Located) -> Option<String> {
    let key = at.key.as_deref()?;
    let mut table: Option<String> = None;
    for l in reference.lines() {
        let t = l.trim();
        if t.starts_with('[') {
            table = Some(header(t));
            continue;
        }
        // Commented examples count too: `# parcel_id = ["SWIS", "PRINT_KEY"]`.
        let t = t.trim_start_matches('#').trim();
        if table == at.table && assignment_key(t).as_deref() == Some(key) {
            let value = t.split_once(" #").map_or(t, |(v, _)| v).trim();
            return Some(value.to_string());
        }
    }
    None
}

/// `unknown field `x`, expected one of `a`, `b`` (or `expected `a``), as serde writes it.
fn unknown_key(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (found, rest) = rest.split_once('`')?;
    let expected = rest.split('`').skip(1).step_by(2).map(str::to_string).collect();
    Some((found.to_string(), expected))
}

/// serde's wording made plainer: `invalid type: string "SBL", expected a sequence` says what was found and
/// what was wanted in words a config author uses.
fn plain(message: &str) -> String {
    message
        .replace("invalid type: ", "found ")
        .replace("expected a sequence", "expected a list in brackets")
        .replace("a sequence", "a list in brackets")
        .replace("a map", "a table")
        .replace("expected f64", "expected a number")
        .replace("expected u32", "expected a whole number")
        .replace("expected a boolean", "expected true or false")
        .replace("struct ", "table ")
}

fn quoted_list(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// The known name closest to `found` by edit distance, when it is close enough to be a slip.
pub fn closest<'a>(found: &str, known: &'a [String]) -> Option<&'a str> {
    let found_lower = found.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&found_lower, &k.to_ascii_lowercase()), k))
        .filter(|(d, k)| *d <= (k.chars().count().max(found.chars().count()) / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance between two strings, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("parcel_idd", "parcel_id"), 1);
        let known = vec!["parcel_id".to_string(), "parcel_town".to_string(), "layers".to_string()];
        assert_eq!(closest("parcl_id", &known), Some("parcel_id"));
        assert_eq!(closest("layer", &known), Some("layers"));
        assert_eq!(closest("colour", &known), None);
    }

    #[test]
    fn lines_and_columns() {
        let text = "a = 1\n[t]\nkey = \"é\"\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 10), (3, 1));
        // Byte 19 is the closing quote, after the two-byte é: column 9 in characters.
        assert_eq!(line_column(text, 19), (3, 9));
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        top: Option<u32>,
        #[serde(default)]
        t: Table,
    }

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Table {
        names: Option<Vec<String>>,
        other: Option<String>,
    }

    fn render(text: &str) -> String {
        let e = toml::from_str::<Doc>(text).unwrap_err();
        toml_error(Path::new("x.toml"), text, &e, "top = 3\n[t]\n# names = [\"A\", \"B\"]\n")
    }

    #[test]
    fn a_wrong_type_names_line_key_and_example() {
        let m = render("top = 1\n\n[t]\nnames = \"A\"\n");
        assert!(m.starts_with("x.toml:4:9: [t] names: found string \"A\""), "{m}");
        assert!(m.contains("expected a list in brackets"), "{m}");
        assert!(m.contains("4 | names = \"A\""), "{m}");
        assert!(m.contains("^^^"), "{m}");
        assert!(m.contains("for example: names = [\"A\", \"B\"]"), "{m}");
    }

    #[test]
    fn an_unknown_key_gets_a_suggestion() {
        let m = render("[t]\nnamse = [\"A\"]\n");
        assert!(m.starts_with("x.toml:2:1: [t] namse: unknown key `namse` in [t]"), "{m}");
        assert!(m.contains("did you mean `names`?"), "{m}");
        // A misspelt table header is an unknown key of the level above.
        let m = render("top = 1\n[tt]\nnames = []\n");
        assert!(m.starts_with("x.toml:2:2: tt: unknown table `tt`"), "{m}");
        assert!(m.contains("did you mean `t`?"), "{m}");
        let m = render("[t]\nzzzzzzzzzzzz = 1\n");
        assert!(m.contains("the keys allowed here are `names`, `other`"), "{m}");
    }

    /// Each mistake is told at its own line, the lines after a blanked entry where they were.
    #[test]
    fn every_mistake_is_told_at_its_line() {
        let text = "top = \"x\"\n[t]\nnamse = [\"A\"]\nother = 3\n[tt]\nnames = []\n";
        let parsed = parse_all::<Doc>(Path::new("x.toml"), text, "");
        assert!(parsed.value.is_some() && parsed.first.is_some());
        let starts: Vec<&str> = parsed.mistakes.iter().map(|m| m.lines().next().unwrap()).collect();
        assert_eq!(starts.len(), 4, "{starts:?}");
        assert!(starts[0].starts_with("x.toml:1:7: top: found string"), "{starts:?}");
        assert!(starts[1].starts_with("x.toml:3:1: [t] namse: unknown key"), "{starts:?}");
        assert!(starts[2].starts_with("x.toml:4:9: [t] other: found integer"), "{starts:?}");
        assert!(starts[3].starts_with("x.toml:5:2: tt: unknown table"), "{starts:?}");
        let parsed = parse_all::<Doc>(Path::new("x.toml"), "top = 1\n[t\nnames = 3\n", "");
        assert_eq!(parsed.mistakes.len(), 1, "{:?}", parsed.mistakes);
        assert!(
            parsed.mistakes[0].starts_with("x.toml:2:3: t: invalid table header"),
            "{:?}",
            parsed.mistakes
        );
        let parsed = parse_all::<Doc>(Path::new("x.toml"), "top = 1\n", "");
        assert!(parsed.mistakes.is_empty() && parsed.first.is_none() && parsed.value.is_some());
    }

    /// The unknown keys of a table found with the first are told as the toml crate tells each one.
    #[test]
    fn unknown_keys_found_together_are_told_as_one_by_one() {
        let text = "[t]\nnamse = [\"A\"]\n othr = \"x\"\n[tt]\nnames = []\n[t.sub]\nx = 1\n";
        let parsed = parse_all::<Doc>(Path::new("x.toml"), text, "");
        let starts: Vec<&str> = parsed.mistakes.iter().map(|m| m.lines().next().unwrap()).collect();
        assert_eq!(
            starts,
            [
                "x.toml:2:1: [t] namse: unknown key `namse` in [t]",
                "x.toml:3:2: [t] othr: unknown key `othr` in [t]",
                // Told with the other unknown keys of [t], at the key in the header.
                "x.toml:6:4: [t] sub: unknown table `sub` in [t]",
                "x.toml:4:2: tt: unknown table `tt`",
            ]
        );
        assert!(parsed.mistakes[1].contains("did you mean `other`?"), "{}", parsed.mistakes[1]);
        assert!(parsed.value.is_some() && parsed.untold == Untold::default());
    }

    #[test]
    fn mistakes_past_the_cap_are_counted() {
        let keys: String = (0..MOST_TOLD + 5).map(|i| format!("k{i} = 1\n")).collect();
        let parsed = parse_all::<Doc>(Path::new("x.toml"), &format!("[t]\n{keys}"), "");
        assert_eq!(parsed.mistakes.len(), MOST_TOLD);
        assert_eq!(parsed.untold, Untold { count: 5, at_least: false });
        let line = parsed.untold.line(Path::new("x.toml")).unwrap();
        assert!(line.starts_with("x.toml: and 5 more mistakes not shown"), "{line}");
        // Wrong types are found one a reading: past the cap, the readings stop and the count is a floor.
        let keys: String = (0..MOST_TOLD + 30).map(|i| format!("[[list]]\nn = \"{i}\"\n")).collect();
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Listed {
            list: Vec<Item>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Item {
            n: Option<u32>,
        }
        let parsed = parse_all::<Listed>(Path::new("x.toml"), &keys, "");
        assert_eq!(parsed.mistakes.len(), MOST_TOLD, "{:?}", parsed.mistakes);
        assert_eq!(parsed.untold, Untold { count: MOST_COUNTING_READINGS, at_least: true });
        let line = parsed.untold.line(Path::new("x.toml")).unwrap();
        assert!(line.starts_with("x.toml: and at least 20 more mistakes not shown"), "{line}");
    }

    #[test]
    fn a_key_found_wrong_after_reading_is_told_at_its_line() {
        let text = "[fields]\nx = 1\n[fields.history]\nparcel_id = \"SBL\"\n  inspection_dat = \"D\"\n";
        let known = vec!["parcel_id".to_string(), "inspection_date".to_string()];
        let m =
            key_mistake(Path::new("c.toml"), text, "[fields.history]", "inspection_dat", "no role", &known);
        assert!(m.starts_with("c.toml:5:3: [fields.history] inspection_dat: no role"), "{m}");
        assert!(
            m.contains("5 |   inspection_dat = \"D\"") && m.contains("did you mean `inspection_date`?"),
            "{m}"
        );
        let m = key_mistake(Path::new("c.toml"), text, "[fields.events]", "zzzzzzzz", "no role", &known);
        assert!(m.starts_with("c.toml: [fields.events] zzzzzzzz: no role; the keys allowed here are"), "{m}");
    }
}
