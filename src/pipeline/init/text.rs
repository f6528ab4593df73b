//! The commented `county.toml` written from a survey.

use std::fmt::Write as _;

use super::signals::SIGNALS;
use super::{name, place, Survey};

pub use crate::rules::starter::toml_string;

/// The `[office]` table `init` writes: every key, empty, for the county to fill in.
const OFFICE_TEXT: &str = r#"
# The office that sends the notices, printed on every letter: fill these in before printing letters.
# Owners need a return address and a telephone, an email or a website to reach you.
[office]
name = ""                      # the agency: "Cayuga County Health Department"
division = ""                  # "Environmental Health Division"
street = ""                    # return address for window envelopes: "8 Dill Street"
city_line = ""                 # "Auburn, NY 13021"
telephone = ""
email = ""
website = ""
hours = ""                     # "Monday to Friday, 8:30 a.m. to 4:30 p.m."
signature = ""                 # who signs the letters
title = ""                     # the signer's title

# The program store: the notices issued and what the post said of them. Keep it on a local disk (SQLite's
# locks do not hold on a network share) and back it up with the county's files.
[program]
# store = "program.sqlite"     # default: program.sqlite beside this file
"#;

/// The commented `county.toml` for a survey; paths are relative to the folder.
pub fn config_text(survey: &Survey) -> String {
    let mut out = String::from(
        "# County configuration written by `lakeshore init`. Check it, then run:\n\
         #   lakeshore schedule --config county.toml --out out/\n\n",
    );
    out.push_str("# working CRS, projected, in feet (the parcels' own when it is)\n");
    if survey.crs.is_empty() {
        out.push_str(
            "crs = \"\"                       # set it: no CRS in feet could be proposed (see below)\n",
        );
    } else if survey.crs.contains('"') || survey.crs.contains('\n') {
        // WKT holds double quotes: a TOML literal string keeps it as it is.
        let _ = writeln!(out, "crs = '''{}'''", survey.crs);
    } else {
        let _ = writeln!(out, "crs = {}", toml_string(&survey.crs));
    }
    out.push_str(
        "border_tolerance_ft = 10.0     # a parcel edge this close to the mean-high-water line borders it\n",
    );
    match &survey.rules {
        Some(rules) => {
            let _ =
                writeln!(out, "rules = {}        # the county's own rule set: fill it", toml_string(rules));
        }
        None => out.push_str(
            "# rules = \"my-rules.toml\"      # default: the built-in Cayuga County Article V rules\n",
        ),
    }
    out.push_str("# assume_crs = \"EPSG:2261\"     # for shapefiles that came without a .prj\n\n[layers]\n");
    for signal in SIGNALS {
        match survey.file(signal.role) {
            Some(path) => {
                let about = survey.found_at(path).map_or(String::new(), |f| {
                    let crs = f.crs.as_deref().map_or(String::new(), |c| format!(", {c}"));
                    format!("  # {} {}{crs}", f.records, f.shape.describe())
                });
                let _ = writeln!(out, "{} = {}{about}", signal.role, toml_string(&name(path)));
            }
            None => {
                let _ = writeln!(out, "# {} = \"FILE\"  # not found: {}", signal.role, signal.what);
            }
        }
    }
    out.push_str("\n[fields]                       # detected from the parcels layer; uncomment to change\n");
    for (key, value, why) in &survey.fields {
        let _ = writeln!(out, "{key} = {value}  # {why}");
    }
    for (role, fields) in &survey.parcel_fields {
        let key = match *role {
            "parcel id" => "parcel_id",
            "town" => "parcel_town",
            "sewer type" => "parcel_sewer",
            "owner" => "parcel_owner",
            "location" => "parcel_location",
            _ => continue,
        };
        if survey.fields.iter().any(|(k, _, _)| *k == key) {
            continue;
        }
        let value =
            if fields.is_empty() { "none found".to_string() } else { place::toml_fields(key, fields) };
        let _ = writeln!(out, "# {key} = {value}");
    }
    for record in &survey.record_fields {
        let _ = writeln!(out, "\n[fields.{}]               # {}", record.kind, record.why);
        for (role, column) in &record.columns {
            let _ = writeln!(out, "{role} = {}", toml_string(column));
        }
    }
    out.push_str(OFFICE_TEXT);
    for (title, lines) in [("Notes", &survey.notes), ("Not decided", &survey.undecided)] {
        if !lines.is_empty() {
            let _ = writeln!(out, "\n# {title}:");
            for line in lines {
                let _ = writeln!(out, "# - {line}");
            }
        }
    }
    if !survey.missing.is_empty() {
        let _ = writeln!(out, "\n# Missing (required, none found): {}", survey.missing.join(", "));
    }
    if !survey.absent.is_empty() {
        let _ = writeln!(out, "\n# Left out (optional, none found): {}", survey.absent.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::config::{Office, OFFICE_KEYS};

    #[test]
    fn init_writes_every_office_key_empty() {
        #[derive(serde::Deserialize)]
        struct File {
            office: Office,
        }
        let file: File = toml::from_str(OFFICE_TEXT).unwrap();
        assert_eq!(file.office.name.as_deref(), Some(""));
        for key in OFFICE_KEYS {
            assert!(OFFICE_TEXT.contains(&format!("\n{key} = \"\"")), "init does not write [office] {key}");
            assert_eq!(file.office.get(key), None, "{key} is not empty");
        }
        assert!(OFFICE_TEXT.contains("fill these in"));
    }
}
