//! The letters of the year's notices (`letters.html`, one letter per owner mailing address, from a template the
//! county edits), HTML sized for US Letter paper, for a browser to print; [`crate::report::print`] turns it
//! into a PDF through headless Chromium.
//! The mailing labels are in [`crate::report::labels`].
//!
//! A template is plain HTML with `{{name}}` placeholders, whose values are inserted HTML-escaped, and two
//! repeated blocks: `{{#letters}} ... {{/letters}}` once per letter and, inside it, `{{#items}} ...
//! {{/items}}` once per noticed obligation. The template is checked when loaded — an unknown placeholder or a
//! misplaced block is an error naming it and the template file — so a run never fails half-way through
//! writing letters. Writing streams letter by letter: a county's letters are never all held in memory.

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::model::controls::{is_control, REPLACEMENT};
use crate::model::error::{Error, Result};
use crate::pipeline::config::Office;
use crate::program::batch::{Item, Letter};
use crate::report::notices::table::parcel_ids;
use crate::report::notices::{city_line, Notices};
pub use crate::report::wording::long_date;
use crate::report::wording::Plain;
use crate::rules::notices::Stage;
use crate::rules::RuleSet;
use crate::write::write_atomic;

mod contact;
pub use contact::{contact_problem, fictional_number, office_values, OFFICE_FIELDS};

/// The built-in letter template (`data/templates/letter.html`), used when the county gives none.
pub const BUILTIN_TEMPLATE: &str = include_str!("../../data/templates/letter.html");

/// How errors name the built-in template.
pub const BUILTIN_TEMPLATE_PATH: &str = "data/templates/letter.html (built in)";

/// How letters and labels name an owner the parcel layer does not give.
pub const NO_OWNER: &str = "Property owner";

/// Placeholders usable anywhere in a template besides the office's ([`OFFICE_FIELDS`]).
pub const DOCUMENT_FIELDS: &[&str] = &["jurisdiction", "law", "date", "year", "letter_count"];

/// Placeholders usable inside `{{#letters}}`.
pub const LETTER_FIELDS: &[&str] = &[
    "letter_number",
    "owner",
    "address_line1",
    "address_line2",
    "parcel_ids",
    "parcel_count",
    "first_due",
    "item_count",
    "stage",
    "served",
    "stage_title",
    "stage_text",
];

/// Placeholders usable inside `{{#items}}`: the obligation and the parcel it is owed for.
pub const ITEM_FIELDS: &[&str] = &[
    "parcel_id",
    "location",
    "town",
    "obligation",
    "what",
    "when",
    "due",
    "due_iso",
    "status",
    "citation",
    "why",
    "plain_what",
    "plain_when",
    "plain_why",
    "reference",
];

/// Appends `text` to `out` with the characters HTML gives meaning to (`& < > " '`) escaped, so a value is
/// safe both in element text and in a quoted attribute, and control characters written as U+FFFD
/// ([`crate::model::controls`]), so that no value reorders or hides the letter's text.
pub fn escape_html(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            c if is_control(c) => out.push(REPLACEMENT),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// Replaces each `{{name}}` of `template` (spaces inside the braces allowed) by its value in `values`,
/// HTML-escaped. A name without a value, an unclosed `{{` or a block tag (`{{#...}}`, `{{/...}}`) is an
/// error naming it and `path`, the template's file.
///
/// ```
/// # use std::path::Path;
/// use lakeshore::report::letters::substitute;
/// let html = substitute("<p>{{owner}}</p>", Path::new("letter.html"), &[("owner", "Smith & Sons")]);
/// assert_eq!(html.unwrap(), "<p>Smith &amp; Sons</p>");
/// ```
pub fn substitute(template: &str, path: &Path, values: &[(&str, &str)]) -> Result<String> {
    let names: Vec<&str> = values.iter().map(|(name, _)| *name).collect();
    let pieces = compile(template, path, &names, 1)?;
    let values: Vec<&str> = values.iter().map(|(_, value)| *value).collect();
    let mut out = String::with_capacity(template.len());
    expand(template, &pieces, &values, &mut out);
    Ok(out)
}

/// A piece of a compiled template: text copied as is, or the value of field `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(Range<usize>),
    Field(usize),
}

/// A `{{...}}` tag: where it stands in the text and the name inside, trimmed.
struct Tag<'t> {
    span: Range<usize>,
    name: &'t str,
}

/// The 1-based line of byte `at` of `text`, for messages.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].bytes().filter(|&b| b == b'\n').count() + 1
}

/// The tags of `text`, whose first line is line `first_line` of the template, in order; an unclosed `{{`
/// is an error.
fn tags<'t>(text: &'t str, path: &Path, first_line: usize) -> Result<Vec<Tag<'t>>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find("{{").map(|i| from + i) {
        let Some(close) = text[open + 2..].find("}}").map(|i| open + 2 + i) else {
            return Err(Error::format(
                path,
                format!(
                    "line {}: `{{{{` is never closed by `}}}}`; close the placeholder",
                    first_line + line_of(text, open) - 1
                ),
            ));
        };
        out.push(Tag { span: open..close + 2, name: text[open + 2..close].trim() });
        from = close + 2;
    }
    Ok(out)
}

/// Compiles `text`, whose first line is line `first_line` of the template, against the field `names`
/// allowed there.
fn compile(text: &str, path: &Path, names: &[&str], first_line: usize) -> Result<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut from = 0;
    for tag in tags(text, path, first_line)? {
        if tag.span.start > from {
            pieces.push(Piece::Text(from..tag.span.start));
        }
        let line = first_line + line_of(text, tag.span.start) - 1;
        if tag.name.starts_with('#') || tag.name.starts_with('/') {
            return Err(Error::format(
                path,
                format!(
                    "line {line}: block tag {{{{{}}}}} is not allowed here; {{{{#letters}}}} must enclose {{{{#items}}}}, each closed once",
                    tag.name
                ),
            ));
        }
        match names.iter().position(|n| *n == tag.name) {
            Some(i) => pieces.push(Piece::Field(i)),
            None => {
                return Err(Error::format(
                    path,
                    format!(
                        "line {line}: unknown placeholder {{{{{}}}}}; use one of {}",
                        tag.name,
                        names.join(", ")
                    ),
                ))
            }
        }
        from = tag.span.end;
    }
    if from < text.len() {
        pieces.push(Piece::Text(from..text.len()));
    }
    Ok(pieces)
}

/// Appends the compiled `pieces` of `text` to `out`, field `i` taking `values[i]`, escaped.
fn expand<S: AsRef<str>>(text: &str, pieces: &[Piece], values: &[S], out: &mut String) {
    for piece in pieces {
        match piece {
            Piece::Text(range) => out.push_str(&text[range.clone()]),
            Piece::Field(i) => escape_html(values[*i].as_ref(), out),
        }
    }
}

/// A compiled part of a template: its text and pieces.
#[derive(Debug, Clone)]
struct Part {
    text: String,
    pieces: Vec<Piece>,
}

impl Part {
    /// Compiles `text`, which starts at byte `offset` of the template `whole` (for line numbers).
    fn new(text: &str, path: &Path, names: &[&str], whole: &str, offset: usize) -> Result<Self> {
        let pieces = compile(text, path, names, line_of(whole, offset))?;
        Ok(Part { text: text.to_string(), pieces })
    }

    fn render<S: AsRef<str>>(&self, values: &[S], out: &mut String) {
        expand(&self.text, &self.pieces, values, out);
    }
}

/// A letter template, checked and compiled.
#[derive(Debug, Clone)]
pub struct Template {
    path: PathBuf,
    /// The template's text, for [`Template::contact_problem`].
    source: String,
    /// The `[office]` the letters print ([`Template::with_office`]).
    office: Office,
    head: Part,
    letter_head: Part,
    item: Option<Part>,
    letter_tail: Part,
    tail: Part,
}

/// A text split at a block `{{#name}} ... {{/name}}`.
struct Block<'t> {
    before: &'t str,
    inside: &'t str,
    after: &'t str,
    /// Byte offsets of `inside` and `after` in the text.
    inside_at: usize,
    after_at: usize,
}

/// Splits `text` at the block `{{#name}} ... {{/name}}`; `None` when there is none, an error when it is
/// opened or closed twice or closed before it is opened.
fn split_block<'t>(text: &'t str, name: &str, path: &Path) -> Result<Option<Block<'t>>> {
    let (open_name, close_name) = (format!("#{name}"), format!("/{name}"));
    let found = tags(text, path, 1)?;
    let opens: Vec<&Tag> = found.iter().filter(|t| t.name == open_name).collect();
    let closes: Vec<&Tag> = found.iter().filter(|t| t.name == close_name).collect();
    let block = |n: &str| format!("{{{{#{n}}}}} ... {{{{/{n}}}}}");
    match (opens.as_slice(), closes.as_slice()) {
        ([], []) => Ok(None),
        ([open], [close]) if open.span.end <= close.span.start => Ok(Some(Block {
            before: &text[..open.span.start],
            inside: &text[open.span.end..close.span.start],
            after: &text[close.span.end..],
            inside_at: open.span.end,
            after_at: close.span.end,
        })),
        _ => Err(Error::format(
            path,
            format!(
                "the template must have one {} block, opened before it is closed; fix its tags",
                block(name)
            ),
        )),
    }
}

impl Template {
    /// Reads and checks the template at `path`.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Template::parse(&text, path)
    }

    /// The built-in template ([`BUILTIN_TEMPLATE`]).
    pub fn builtin() -> Result<Self> {
        Template::parse(BUILTIN_TEMPLATE, Path::new(BUILTIN_TEMPLATE_PATH))
    }

    /// Checks and compiles template `text`; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let letters = split_block(text, "letters", path)?.ok_or_else(|| {
            Error::format(
                path,
                "the template has no {{#letters}} ... {{/letters}} block; put the page of one letter between them",
            )
        })?;
        // Field i of every part is entry i of these lists; `render` fills its values in the same order.
        let document: Vec<&str> = DOCUMENT_FIELDS.iter().chain(OFFICE_FIELDS).copied().collect();
        let in_letter: Vec<&str> = document.iter().chain(LETTER_FIELDS).copied().collect();
        let in_item: Vec<&str> = in_letter.iter().chain(ITEM_FIELDS).copied().collect();
        let at = letters.inside_at;
        let (letter_head, item, letter_tail) = match split_block(letters.inside, "items", path)? {
            Some(items) => (
                Part::new(items.before, path, &in_letter, text, at)?,
                Some(Part::new(items.inside, path, &in_item, text, at + items.inside_at)?),
                Part::new(items.after, path, &in_letter, text, at + items.after_at)?,
            ),
            None => (
                Part::new(letters.inside, path, &in_letter, text, at)?,
                None,
                Part::new("", path, &in_letter, text, at)?,
            ),
        };
        Ok(Template {
            path: path.to_path_buf(),
            source: text.to_string(),
            office: Office::default(),
            head: Part::new(letters.before, path, &document, text, 0)?,
            letter_head,
            item,
            letter_tail,
            tail: Part::new(letters.after, path, &document, text, letters.after_at)?,
        })
    }

    /// The template's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The template printing `office` (the config's `[office]`) in its `office_*` placeholders.
    pub fn with_office(mut self, office: &Office) -> Self {
        self.office = office.clone();
        self
    }

    /// Whether letters printed from this template with its office would print a placeholder contact or
    /// none ([`contact_problem`]).
    pub fn contact_problem(&self) -> Option<String> {
        contact_problem(&self.source, &self.office)
            .map(|why| format!("{why} (template {})", self.path.display()))
    }

    /// Writes the letters of `notices`, dated `date`, to `out`.
    pub fn render(&self, notices: &Notices, date: NaiveDate, out: &mut dyn Write) -> std::io::Result<()> {
        let rules = notices.rules();
        let mut values = vec![
            rules.jurisdiction.name.clone(),
            rules.jurisdiction.law.clone(),
            long_date(date),
            notices.year().to_string(),
            notices.letter_count().to_string(),
        ];
        values.extend(office_values(&self.office, &rules.jurisdiction.name));
        let in_document = values.len();
        let mut buffer = String::new();
        self.head.render(&values, &mut buffer);
        out.write_all(buffer.as_bytes())?;
        let in_letter = in_document + LETTER_FIELDS.len();
        for letter in &notices.batch.letters {
            values.truncate(in_document);
            values.extend(letter_values(letter, rules, notices.year()));
            buffer.clear();
            self.letter_head.render(&values, &mut buffer);
            if let Some(part) = &self.item {
                for item in &letter.items {
                    values.truncate(in_letter);
                    values.extend(item_values(item));
                    part.render(&values, &mut buffer);
                }
            }
            values.truncate(in_letter);
            self.letter_tail.render(&values, &mut buffer);
            out.write_all(buffer.as_bytes())?;
        }
        values.truncate(in_document);
        buffer.clear();
        self.tail.render(&values, &mut buffer);
        out.write_all(buffer.as_bytes())
    }
}

/// The values of [`LETTER_FIELDS`] for `letter` of the notices of `year` under `rules`, in order.
fn letter_values(letter: &Letter, rules: &RuleSet, year: i32) -> [String; LETTER_FIELDS.len()] {
    let parcels = parcel_ids(letter);
    let (title, text) = stage_words(letter, rules, year, parcels.len());
    [
        letter.number.clone(),
        letter.owner.clone().unwrap_or_else(|| NO_OWNER.to_string()),
        letter.street.clone(),
        city_line(letter.city.as_deref(), letter.state.as_deref(), letter.zip.as_deref()),
        parcels.join(", "),
        parcels.len().to_string(),
        letter.items.iter().map(|i| i.due).min().map(long_date).unwrap_or_default(),
        letter.items.len().to_string(),
        letter.stage.as_str().to_string(),
        letter.served.words().to_string(),
        title,
        text,
    ]
}

/// The title and opening of a letter at its stage: what it is and what follows, with the rule set's words
/// for who a referral goes to and the clause.
fn stage_words(letter: &Letter, rules: &RuleSet, year: i32, parcels: usize) -> (String, String) {
    let law = &rules.jurisdiction.law;
    let notices = rules.notices.as_ref();
    let properties = if parcels == 1 { "property" } else { "properties" };
    match letter.stage {
        Stage::First => (
            "Notice".to_string(),
            format!(
                "Our records show that the following septic-system requirements for the {properties} named above \
                 are due in {year} or are already overdue. Each is required by the {law}."
            ),
        ),
        Stage::Reminder => (
            "Reminder".to_string(),
            format!(
                "We wrote to you about the requirements below, and our records do not yet show them met. Each is \
                 required by the {law}; please arrange them now."
            ),
        ),
        Stage::Final => {
            let then = notices.map_or(String::new(), |n| {
                format!(
                    " If they are not met within {} days of your receiving this letter, the matter will be referred \
                     to {}.",
                    n.referral.after_days, n.referral.to
                )
            });
            ("Final notice".to_string(), format!("This is our final notice of the requirements below, which our records still do not show met.{then}"))
        }
        Stage::Referral => {
            let mut to: Vec<String> = Vec::new();
            for item in &letter.items {
                let referred = notices.map(|n| match n.direct_for(&item.obligation) {
                    Some(direct) => format!("{} ({})", direct.to, direct.citation),
                    None => format!("{} ({})", n.referral.to, n.referral.citation),
                });
                if let Some(referred) = referred.filter(|r| !to.contains(r)) {
                    to.push(referred);
                }
            }
            let to = if to.is_empty() { "enforcement".to_string() } else { to.join("; and to ") };
            (
                "Notice of referral".to_string(),
                format!("The requirements below were still not met after our notice. The matter has been referred to {to}."),
            )
        }
    }
}

/// The values of [`ITEM_FIELDS`] for `item`, in order.
fn item_values(item: &Item) -> [String; ITEM_FIELDS.len()] {
    let due = long_date(item.due);
    let when = match item.overdue {
        true => format!("Overdue: it was due {due}"),
        false => format!("Due by {due}"),
    };
    let plain = Plain::from_json(&item.words);
    [
        item.parcel_id.clone(),
        item.location.clone().unwrap_or_default(),
        item.town.clone().unwrap_or_default(),
        item.obligation.clone(),
        item.what.clone(),
        when,
        due,
        item.due.to_string(),
        (if item.overdue { "overdue" } else { "due" }).to_string(),
        item.citation.clone(),
        item.why.clone(),
        plain.what,
        plain.when,
        plain.why,
        plain.reference,
    ]
}

/// Writes `<dir>/letters.html`: the letters of `notices` from `template`, dated `date`; returns its path.
pub fn write_letters(notices: &Notices, template: &Template, dir: &Path, date: NaiveDate) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join("letters.html");
    write_atomic(&path, |out| template.render(notices, date, out))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped() {
        let html = substitute(
            "<p title=\"{{owner}}\">{{ owner }} at {{where}}</p>",
            Path::new("t.html"),
            &[("owner", "O'Neil & <Sons> \"Ltd\""), ("where", "6101 E Lake Rd")],
        )
        .unwrap();
        assert_eq!(
            html,
            "<p title=\"O&#39;Neil &amp; &lt;Sons&gt; &quot;Ltd&quot;\">O&#39;Neil &amp; &lt;Sons&gt; &quot;Ltd&quot; at 6101 E Lake Rd</p>"
        );
    }

    #[test]
    fn an_unknown_placeholder_is_an_error_naming_it_and_the_template() {
        let err = substitute("Dear {{owner}},\n{{ownr}}", Path::new("my/letter.html"), &[("owner", "x")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("{{ownr}}"), "{err}");
        assert!(err.contains("my/letter.html"), "{err}");
        assert!(err.contains("line 2"), "{err}");
        let err = substitute("{{owner", Path::new("t.html"), &[("owner", "x")]).unwrap_err().to_string();
        assert!(err.contains("never closed"), "{err}");
    }

    #[test]
    fn a_template_is_checked_when_loaded() {
        let path = Path::new("county/letter.html");
        let ok = "<h1>{{jurisdiction}}</h1>{{#letters}}<p>{{owner}}</p>{{#items}}<li>{{what}}</li>{{/items}}{{/letters}}";
        assert!(Template::parse(ok, path).is_ok());
        let cases = [
            ("<h1>{{owner}}</h1>{{#letters}}{{/letters}}", "{{owner}}"), // a letter field outside the letters
            ("{{#letters}}{{what}}{{/letters}}", "{{what}}"),            // an item field outside the items
            (
                "{{#letters}}\n\n{{#items}}{{colour}}{{/items}}{{/letters}}",
                "line 3: unknown placeholder {{colour}}",
            ),
            ("<p>no letters</p>", "no {{#letters}}"),
            ("{{#letters}}{{/letters}}{{#letters}}{{/letters}}", "one {{#letters}}"),
            ("{{#items}}{{/items}}{{#letters}}{{/letters}}", "{{#items}}"),
        ];
        for (text, expected) in cases {
            let err = Template::parse(text, path).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
            assert!(err.contains("county/letter.html"), "{text:?}: {err}");
        }
    }

    #[test]
    fn the_builtin_template_compiles() {
        let template = Template::builtin().unwrap();
        assert!(template.item.is_some());
    }

    #[test]
    fn dates_are_written_out() {
        assert_eq!(long_date(NaiveDate::from_ymd_opt(2027, 11, 1).unwrap()), "November 1, 2027");
    }
}
