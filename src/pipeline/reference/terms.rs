//! The features of a reference layer read through the rule set's table of terms (`[[term]]`): which of them
//! stand for the term of the law the layer stands for (a watercourse under Art. V §II.35), the others kept in
//! the layer (maps and buffer reports show them) but not indexed for the term, and counted once in the run's
//! notes.

use crate::crs::layer::Layer;
use crate::rules::{RuleSet, TermLayer};

/// A feature of a layer whose features stand for a term of the law: its name, and whether it stands for the
/// term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermFeature {
    /// The feature's name (empty without one).
    pub name: String,
    /// Whether the rule set's table counts it as the term: always, when the rule set names no term for the
    /// layer.
    pub stands: bool,
}

/// Reads every feature of `layer` (the layer `role`) through the rule set's term for it, with `names` the
/// features' names; says in `notes` what the table left out. A feature without a usable geometry was
/// reported by the reader and is not counted.
pub(super) fn read_terms(
    rules: &RuleSet,
    role: TermLayer,
    layer: &Layer,
    names: Vec<Option<String>>,
    notes: &mut Vec<String>,
) -> Vec<TermFeature> {
    let mut reader = rules.term(role).map(|term| term.reader(&layer.fields));
    let features = layer.features.iter().zip(names).map(|(feature, name)| {
        let stands = match (&mut reader, &feature.geometry) {
            (Some(reader), Ok(_)) => reader.read(|field| feature.values[field].as_text()).counts(),
            _ => true,
        };
        TermFeature { name: name.unwrap_or_default(), stands }
    });
    let features = features.collect();
    notes.extend(reader.and_then(|r| r.note(&layer.path.display().to_string())));
    features
}
