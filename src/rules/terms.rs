//! The terms of the law that a layer's features stand for, and which features qualify: the rule set's
//! `[[term]]` table.
//!
//! A reference layer is drawn by whoever keeps it, not by the law: a watercourses layer holds ephemeral
//! channels that Art. V §II.35 says are no watercourse ("shall not include drainage areas which contain water
//! only during and immediately after a rainstorm"). Each entry names the term, the layer whose features stand
//! for it, the clause that defines it, the attribute values that leave a feature out (`exclude`) and those
//! that make it count whatever else it says (`qualify`: on the official map the definition names). A feature
//! matching neither counts. Every place a layer's features stand for a term reads them through this table;
//! the pipeline says once a run how many features it left out and why.

use serde::Deserialize;

use super::sewer::fold_into;
use super::Text;

/// The reference layers whose features a term can stand on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TermLayer {
    /// The watercourses and wetlands layer (`[layers] watercourses`).
    Watercourses,
}

impl TermLayer {
    /// The layer's name as the rule set and the configuration write it.
    pub fn as_str(self) -> &'static str {
        match self {
            TermLayer::Watercourses => "watercourses",
        }
    }
}

/// One term of the law and which features of a layer stand for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    /// The term as the law writes it ("watercourse").
    pub term: Text,
    /// The layer whose features stand for it.
    pub layer: TermLayer,
    /// The clause that defines it ("Art. V §II.35").
    pub citation: Text,
    /// Attribute values that leave a feature out: the definition excludes what they describe.
    #[serde(default)]
    pub exclude: Vec<FeatureMatch>,
    /// Attribute values that make a feature count whatever the `exclude` entries say of it.
    #[serde(default)]
    pub qualify: Vec<FeatureMatch>,
}

/// Attribute values that describe a kind of feature.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureMatch {
    /// What the values describe, for the run's notes ("ephemeral (NHD FCode 46007)").
    pub what: String,
    /// The fields that may hold the value, tried in order (case aside); the first the layer has is read.
    pub fields: Vec<String>,
    /// The values, compared case, spaces and punctuation aside (a number as its digits: `46007`).
    pub values: Vec<String>,
}

impl FeatureMatch {
    fn validate(&self, mistakes: &mut Vec<String>, term: &Term, list: &str) {
        let mut bad = |what: &str| {
            mistakes.push(format!(
                "term '{}' ({}): {list} '{}': {what}",
                term.term,
                term.layer.as_str(),
                self.what
            ))
        };
        if self.what.trim().is_empty() {
            bad("give 'what', the words the notes use for these features");
        }
        if self.fields.iter().all(|f| f.trim().is_empty()) {
            bad("name at least one field in 'fields'");
        }
        if self.values.iter().all(|v| v.trim().is_empty()) {
            bad("give at least one value in 'values'");
        }
    }
}

impl Term {
    /// The mistakes of this entry the types cannot catch, told into `mistakes`.
    pub(super) fn validate(&self, mistakes: &mut Vec<String>) {
        if self.term.trim().is_empty() || self.citation.trim().is_empty() {
            mistakes.push(format!(
                "term for layer '{}': give the term and the clause that defines it ('term', 'citation')",
                self.layer.as_str()
            ));
        }
        for m in &self.exclude {
            m.validate(mistakes, self, "exclude");
        }
        for m in &self.qualify {
            m.validate(mistakes, self, "qualify");
        }
    }

    /// The term read against a layer with the fields `fields`: each entry's field found once.
    pub fn reader(&self, fields: &[String]) -> TermReader<'_> {
        let bind = |matches: &[FeatureMatch]| -> Vec<Option<usize>> {
            matches
                .iter()
                .map(|m| {
                    m.fields.iter().find_map(|f| fields.iter().position(|g| g.eq_ignore_ascii_case(f.trim())))
                })
                .collect()
        };
        let folded = |matches: &[FeatureMatch]| -> Vec<Vec<String>> {
            matches
                .iter()
                .map(|m| {
                    m.values
                        .iter()
                        .map(|v| {
                            let mut out = String::new();
                            fold_into(v, &mut out);
                            out
                        })
                        .collect()
                })
                .collect()
        };
        TermReader {
            term: self,
            exclude: bind(&self.exclude),
            qualify: bind(&self.qualify),
            exclude_values: folded(&self.exclude),
            qualify_values: folded(&self.qualify),
            tally: Tally { left_out: vec![0; self.exclude.len()], kept: vec![0; self.qualify.len()] },
        }
    }
}

/// What the table makes of one feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// It stands for the term.
    Counts,
    /// It does not: it matches the term's `exclude` entry of this index (and no `qualify` entry).
    LeftOut(usize),
}

impl Reading {
    /// Whether the feature stands for the term.
    pub fn counts(self) -> bool {
        self == Reading::Counts
    }
}

/// Features left out per `exclude` entry, and features kept by a `qualify` entry that an `exclude` entry
/// would have left out.
#[derive(Debug, Clone, Default)]
struct Tally {
    left_out: Vec<usize>,
    kept: Vec<usize>,
}

/// A [`Term`] bound to one layer's fields, reading its features one by one and counting what it left out.
#[derive(Debug)]
pub struct TermReader<'a> {
    term: &'a Term,
    exclude: Vec<Option<usize>>,
    qualify: Vec<Option<usize>>,
    exclude_values: Vec<Vec<String>>,
    qualify_values: Vec<Vec<String>>,
    tally: Tally,
}

/// The index of the first entry whose field holds one of its values.
fn first_match(
    fields: &[Option<usize>],
    values: &[Vec<String>],
    value: &impl Fn(usize) -> Option<String>,
    folded: &mut String,
) -> Option<usize> {
    (0..fields.len()).find(|&i| {
        let Some(text) = fields[i].and_then(value) else { return false };
        fold_into(&text, folded);
        values[i].iter().any(|v| v == folded)
    })
}

impl TermReader<'_> {
    /// Reads one feature, `value` giving the text of its field of that index (`None` when empty), and counts
    /// it.
    pub fn read(&mut self, value: impl Fn(usize) -> Option<String>) -> Reading {
        let mut folded = String::new();
        let Some(excluded) = first_match(&self.exclude, &self.exclude_values, &value, &mut folded) else {
            return Reading::Counts;
        };
        if let Some(kept) = first_match(&self.qualify, &self.qualify_values, &value, &mut folded) {
            self.tally.kept[kept] += 1;
            return Reading::Counts;
        }
        self.tally.left_out[excluded] += 1;
        Reading::LeftOut(excluded)
    }

    /// The note on the features read, `layer` naming the layer's file; `None` when the table left none out
    /// and kept none it would have. A layer without any field the `exclude` entries read cannot say which
    /// features are not the term: the note says so, since every feature then counts.
    pub fn note(&self, layer: &str) -> Option<String> {
        let term = self.term;
        if !term.exclude.is_empty() && self.exclude.iter().all(Option::is_none) {
            let mut fields: Vec<&str> =
                term.exclude.iter().flat_map(|m| &m.fields).map(String::as_str).collect();
            fields.dedup();
            return Some(format!(
                "{layer}: no field says which features are not a {} under {} (looked for {}): every feature is \
                 taken as one",
                term.term,
                term.citation,
                fields.join(", ")
            ));
        }
        let counted = |counts: &[usize], matches: &[FeatureMatch]| -> (usize, Vec<String>) {
            let parts = counts
                .iter()
                .zip(matches)
                .filter(|(n, _)| **n > 0)
                .map(|(n, m)| format!("{n} {}", m.what))
                .collect();
            (counts.iter().sum(), parts)
        };
        let (left, left_parts) = counted(&self.tally.left_out, &term.exclude);
        let (kept, kept_parts) = counted(&self.tally.kept, &term.qualify);
        if left + kept == 0 {
            return None;
        }
        let plural = |n: usize| if n == 1 { "feature" } else { "features" };
        let mut note = layer.to_string();
        if left > 0 {
            note.push_str(&format!(
                ": {left} {} left out, not a {} under {} ({})",
                plural(left),
                term.term,
                term.citation,
                left_parts.join(", ")
            ));
        }
        if kept > 0 {
            note.push_str(&format!(
                "{} {kept} {} counted as a {} whatever else {} ({})",
                if left > 0 { ";" } else { ":" },
                plural(kept),
                term.term,
                if kept == 1 { "it says" } else { "they say" },
                kept_parts.join(", ")
            ));
        }
        Some(note)
    }
}

#[cfg(test)]
mod tests;
