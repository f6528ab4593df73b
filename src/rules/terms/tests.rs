//! The table of terms as the shipped rule sets hold it, and a feature read through it.
//!
//! Art. V §II.35: "Watercourse means any surface water path, river, stream, creek ... that is sustained
//! primarily through base flow, or any water body of any kind designated on the official Cayuga County
//! watershed map ... as Map 94-99. Watercourse shall not include drainage areas which contain water only during
//! and immediately after a rainstorm."

use std::path::Path;

use super::*;
use crate::rules::{RuleSet, CAYUGA_ART_V};

/// A feature of a layer with these fields and values (an empty value is a null).
fn read(term: &Term, fields: &[&str], values: &[&str]) -> Reading {
    let fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    let mut reader = term.reader(&fields);
    reader.read(|i| Some(values[i]).filter(|v| !v.is_empty()).map(str::to_string))
}

fn watercourse() -> Term {
    RuleSet::cayuga_art_v().term(TermLayer::Watercourses).expect("Art. V defines a watercourse").clone()
}

#[test]
fn the_cayuga_table_reads_section_ii_35() {
    let term = watercourse();
    assert_eq!((term.term.as_str(), term.citation.as_str()), ("watercourse", "Art. V §II.35"));
    // NHD FCode 46007, "Stream/River: Hydrographic Category = Ephemeral": water only after a rainstorm.
    assert_eq!(read(&term, &["FCode", "GNIS_Name"], &["46007", "Unnamed"]), Reading::LeftOut(0));
    // 46006 (perennial) and 46003 (intermittent) are sustained by base flow: they count.
    assert_eq!(read(&term, &["FCode"], &["46006"]), Reading::Counts);
    assert_eq!(read(&term, &["FCODE"], &["46003"]), Reading::Counts);
    // A flow-regime word says the same as the code, case and spaces aside.
    assert_eq!(read(&term, &["NAME", "FLOW"], &["Gully", " EPHEMERAL "]), Reading::LeftOut(1));
    // "or any water body of any kind designated on the official ... map": marked on Map 94-99, it counts.
    assert_eq!(read(&term, &["FCODE", "MAP_94_99"], &["46007", "Y"]), Reading::Counts);
    assert_eq!(read(&term, &["FCODE", "MAP_94_99"], &["46007", "N"]), Reading::LeftOut(0));
    assert_eq!(read(&term, &["FCODE", "MAP_94_99"], &["46007", ""]), Reading::LeftOut(0));
    // A layer with none of the fields: every feature counts (nothing says it is ephemeral).
    assert_eq!(read(&term, &["NAME", "KIND"], &["Dutch Hollow Brook", "stream"]), Reading::Counts);
}

#[test]
fn the_note_counts_what_was_left_out_and_kept() {
    let term = watercourse();
    let fields: Vec<String> = ["FCODE", "MAP_94_99"].iter().map(|f| f.to_string()).collect();
    let mut reader = term.reader(&fields);
    assert_eq!(reader.note("w.geojson"), None, "nothing read, nothing to say");
    for (code, map) in [("46007", ""), ("46007", ""), ("46006", ""), ("46007", "Yes"), ("46006", "Yes")] {
        reader.read(|i| Some([code, map][i]).filter(|v| !v.is_empty()).map(str::to_string));
    }
    // Two left out; one ephemeral kept by the map (the perennial one on the map counted anyway).
    assert_eq!(
        reader.note("w.geojson").as_deref(),
        Some(
            "w.geojson: 2 features left out, not a watercourse under Art. V §II.35 (2 ephemeral (NHD FCode \
             46007)); 1 feature counted as a watercourse whatever else it says (1 on the official watershed \
             map, Map 94-99)"
        )
    );
}

/// A layer with none of the fields the table reads cannot show an ephemeral channel: the run says so rather
/// than count every feature in silence.
#[test]
fn a_layer_without_the_fields_is_said_to_count_whole() {
    let term = watercourse();
    let fields: Vec<String> = ["NAME", "LENGTH_FT"].iter().map(|f| f.to_string()).collect();
    let mut reader = term.reader(&fields);
    assert_eq!(reader.read(|_| Some("Gully".into())), Reading::Counts);
    let note = reader.note("w.shp").expect("a note");
    assert!(
        note.starts_with("w.shp: no field says which features are not a watercourse under Art. V §II.35"),
        "{note}"
    );
    assert!(
        note.contains("looked for FCODE, FCODE_1, NHD_FCODE, FLOW,") && note.ends_with("taken as one"),
        "{note}"
    );
}

#[test]
fn gorham_defines_no_term_a_layer_stands_for() {
    assert!(RuleSet::gorham_ch56().terms.is_empty());
}

#[test]
fn bad_terms_are_refused_with_the_reason() {
    let with = |entry: &str| {
        let text = format!("{CAYUGA_ART_V}\n{entry}\n");
        RuleSet::from_toml(&text, Path::new("r.toml")).map(|_| ()).unwrap_err().to_string()
    };
    let twice = with("[[term]]\nterm = \"stream\"\nlayer = \"watercourses\"\ncitation = \"x\"");
    assert!(twice.contains("layer 'watercourses' already stands for a term"), "{twice}");
    let empty = with(
        "[[term]]\nterm = \"w\"\nlayer = \"watercourses\"\ncitation = \"x\"\n[[term.exclude]]\nwhat = \"\"\nfields = []\nvalues = [\"1\"]",
    );
    assert!(empty.contains("give 'what'") && empty.contains("name at least one field"), "{empty}");
    let unknown = with("[[term]]\nterm = \"w\"\nlayer = \"wells\"\ncitation = \"x\"");
    assert!(unknown.contains("wells"), "{unknown}");
}
