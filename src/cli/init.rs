//! `lakeshore init DIR`: the survey of a county folder, printed, and the `county.toml` it wrote.

use std::path::Path;
use std::process::ExitCode;

/// Surveys `dir`, writes `dir/county.toml` and says what was found, what was chosen and what was not
/// decided. Exits 0 when everything was decided, 2 when something was left for the user.
pub fn init(dir: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let (written, survey) = lakeshore::init::init(dir, force)?;
    for f in &survey.found {
        let crs = f.crs.as_deref().map_or(String::new(), |c| format!(", {c}"));
        let name = f.path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        println!("found {name}: {} records{crs}; fields {}", f.records, f.fields.join(", "));
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
    println!("wrote {}", written.display());
    for u in &survey.undecided {
        eprintln!("lakeshore: not decided: {u}");
    }
    let config = written.display();
    match survey.file("parcels") {
        Some(_) => println!("next: lakeshore schedule --config {config} --out out/"),
        None => {
            println!("next: name the parcels layer in {config}, then lakeshore schedule --config {config}")
        }
    }
    Ok(if survey.undecided.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
