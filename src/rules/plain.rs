//! Plain words for owners: a rule set may give, beside a periodic rule or an owner's clock, what the duty is
//! and why it applies in sentences a property owner understands (`plain_what`, `plain_why`), as data of the
//! rule set rather than code. A sentence may name facts of the parcel in braces ([`PLAIN_NAMES`]); the names
//! are checked when the rule set is read, and a sentence is filled only when every fact it names is known.

/// The facts a plain sentence may name in braces: `{water}` (the lake or bay whose shore the parcel is
/// measured from), `{watershed}` (the water body whose watershed it lies in), `{town}` (its municipality),
/// `{years}` (the rule's cycle) and `{date}` (the day the event that started the duty happened, written out).
pub const PLAIN_NAMES: &[&str] = &["water", "watershed", "town", "years", "date"];

/// The pieces of a plain sentence: text, and the names in braces.
enum Piece<'t> {
    Text(&'t str),
    Name(&'t str),
}

/// `text` cut into its pieces; a brace left open or closed alone is an error.
fn pieces(text: &str) -> std::result::Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(format!("'}}' without its '{{' in \"{text}\""));
        }
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("'{{' never closed in \"{text}\""))?;
        out.push(Piece::Text(&rest[..open]));
        out.push(Piece::Name(rest[open + 1..close].trim()));
        rest = &rest[close + 1..];
    }
    out.push(Piece::Text(rest));
    Ok(out)
}

/// Checks a plain sentence: braces paired, each name one of [`PLAIN_NAMES`], and some words.
pub fn check(text: &str) -> std::result::Result<(), String> {
    if text.trim().is_empty() {
        return Err("a plain sentence is empty; write one or leave the key out".to_string());
    }
    for piece in pieces(text)? {
        if let Piece::Name(name) = piece {
            if !PLAIN_NAMES.contains(&name) {
                return Err(format!("unknown {{{name}}} in \"{text}\"; use {}", braces(PLAIN_NAMES)));
            }
        }
    }
    Ok(())
}

/// `names` each in braces, joined by commas.
fn braces(names: &[&str]) -> String {
    names.iter().map(|n| format!("{{{n}}}")).collect::<Vec<_>>().join(", ")
}

/// The plain sentence `text` with each name in braces replaced by `value(name)`; `None` when a name has no
/// value (or the sentence is malformed), so the caller falls back to its own words.
pub fn fill(text: &str, value: impl Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text).ok()? {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Name(name) => out.push_str(&value(name)?),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check("Your property borders {water}; every {years} years.").is_ok());
        let err = check("In {twon}").unwrap_err();
        assert!(err.contains("{twon}") && err.contains("{town}"), "{err}");
        assert!(check("open { brace").unwrap_err().contains("never closed"));
        assert!(check("close } brace").unwrap_err().contains("without"));
        assert!(check("  ").is_err());
    }

    #[test]
    fn a_sentence_is_filled_only_when_every_fact_is_known() {
        let value = |name: &str| (name == "water").then(|| "Owasco Lake".to_string());
        assert_eq!(fill("Borders {water}.", value), Some("Borders Owasco Lake.".to_string()));
        assert_eq!(fill("In {town}.", value), None);
        assert_eq!(fill("No names.", value), Some("No names.".to_string()));
    }
}
