//! `lakeshore init DIR`: the survey of a county folder, printed, and the `county.toml` it wrote.

use std::path::Path;
use std::process::ExitCode;

/// Surveys `dir`, writes `dir/county.toml` and says what was found, what was chosen and what was not
/// decided. Exits 0 when every role was decided or left out as optional (the optional roles left out are
/// named), 2 when something was left for the user, and 1 when a required layer (parcels, shoreline) was not
/// found.
pub fn init(dir: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let (written, survey) = lakeshore::init::init(dir, force)?;
    for f in &survey.found {
        let crs = f.crs.as_deref().map_or(String::new(), |c| format!(", {c}"));
        println!("found {}: {} records{crs}; fields {}", f.name(), f.records, f.fields.join(", "));
    }
    for (path, why) in &survey.unreadable {
        println!("could not read {}: {why}", path.display());
    }
    for (role, path) in &survey.chosen {
        println!("{role:<13} = {}", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    }
    for (role, fields) in &survey.parcel_fields {
        let taken = if fields.is_empty() { "no field found".to_string() } else { fields.join(" + ") };
        println!("parcels {role:<15} {taken}");
    }
    for record in &survey.record_fields {
        let named: Vec<String> =
            record.columns.iter().map(|(role, column)| format!("{role} = {column}")).collect();
        println!("{} columns: {} ({})", record.kind, named.join(", "), record.why);
    }
    for note in &survey.notes {
        println!("note: {note}");
    }
    if !survey.absent.is_empty() {
        println!("left out (optional, no file fits): {}", survey.absent.join(", "));
    }
    println!("wrote {}", written.display());
    for u in &survey.undecided {
        eprintln!("lakeshore: not decided: {u}");
    }
    let config = written.display();
    if !survey.missing.is_empty() {
        let what: Vec<String> = lakeshore::init::SIGNALS
            .iter()
            .filter(|s| survey.missing.contains(&s.role))
            .map(|s| format!("the {} layer ({})", s.role, s.what))
            .collect();
        anyhow::bail!(
            "no file in {} looks like {}; add it to the folder and set [layers] {} in {config}",
            dir.display(),
            what.join(" or "),
            survey.missing.join(", ")
        );
    }
    println!("next: lakeshore schedule --config {config} --out out/");
    Ok(if survey.undecided.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
