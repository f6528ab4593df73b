//! `lakeshore init DIR`: look at a folder of county data, work out which file is which layer or record file
//! (by geometry type, field names, file name and record count), read their CRS and fields, and write a
//! commented `county.toml`. What cannot be decided is said, with how to decide it.
//!
//! Every file is scored for every role from the signals in [`SIGNALS`] (data, not code paths); a role goes
//! to its best-scoring file, and a tie between two files is left undecided rather than guessed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use geo::Geometry;

use crate::config::FieldNames;
use crate::error::{Error, Result};
use crate::io::{read_layer, ReadOptions};
use crate::parcels::{find_field, system_fields, ParcelSchema};

/// What a file holds, as far as choosing its role goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Polygons or multipolygons.
    Polygons,
    /// Lines.
    Lines,
    /// Points.
    Points,
    /// Polygons and lines together (watercourses and wetlands).
    Mixed,
    /// A table without geometry (CSV).
    Table,
}

impl Shape {
    fn describe(self) -> &'static str {
        match self {
            Shape::Polygons => "polygons",
            Shape::Lines => "lines",
            Shape::Points => "points",
            Shape::Mixed => "lines and polygons",
            Shape::Table => "rows",
        }
    }
}

/// One file of the folder as it was found.
#[derive(Debug, Clone)]
pub struct Found {
    /// The file.
    pub path: PathBuf,
    /// Geometry kind, or a table.
    pub shape: Shape,
    /// Records (features or rows).
    pub records: usize,
    /// The CRS, for a layer (`EPSG:2261`, a WKT name).
    pub crs: Option<String>,
    /// The CRS as `county.toml`'s `crs` can name it, when it is projected in feet (`EPSG:2261`, or the WKT).
    pub feet_crs: Option<String>,
    /// Attribute fields or column names.
    pub fields: Vec<String>,
}

/// One role a file can play, and the signals that point to it.
pub struct Signal {
    /// The `[layers]` key.
    pub role: &'static str,
    /// What the role is, for messages.
    pub what: &'static str,
    /// The shapes a file for this role may have.
    pub shapes: &'static [Shape],
    /// Words in the file name that point to the role (lower case), 3 points.
    pub names: &'static [&'static str],
    /// Field or column names that point to the role (any case, truncations count), 4 points each.
    pub fields: &'static [&'static str],
    /// Words in the file name that point away from it.
    pub not_names: &'static [&'static str],
}

/// The roles and their signals, in the order of `county.toml`'s `[layers]`.
pub const SIGNALS: &[Signal] = &[
    Signal {
        role: "parcels",
        what: "tax parcels (polygons with SWIS/PRINT_KEY, SBL or PARCEL_ID)",
        shapes: &[Shape::Polygons],
        names: &["parcel", "tax", "sbl", "assess"],
        fields: &["PRINT_KEY", "SBL", "SWIS_SBL_ID", "SWIS_PRINT_KEY_ID", "PRIMARY_OWNER", "PROP_CLASS"],
        not_names: &[],
    },
    Signal {
        role: "shoreline",
        what: "lake polygons or mean-high-water lines, named by water body",
        shapes: &[Shape::Polygons, Shape::Lines],
        names: &["shore", "lake", "mhw", "waterbod", "bay"],
        fields: &["MHW_FT", "MHW", "WATERBODY", "LAKE_NAME"],
        not_names: &["watershed", "watercourse", "basin"],
    },
    Signal {
        role: "watershed",
        what: "watershed polygons, named by water body",
        shapes: &[Shape::Polygons],
        names: &["watershed", "basin", "huc", "wbd", "drainage"],
        fields: &["HUC12", "HUC10", "HUC8", "WATERSHED"],
        not_names: &[],
    },
    Signal {
        role: "floodplain",
        what: "FEMA flood hazard areas (NFHL S_FLD_HAZ_AR: FLD_ZONE, SFHA_TF, STATIC_BFE)",
        shapes: &[Shape::Polygons],
        names: &["fld_haz", "flood", "nfhl", "fema", "firm"],
        fields: &["FLD_ZONE", "SFHA_TF", "STATIC_BFE", "ZONE_SUBTY"],
        not_names: &[],
    },
    Signal {
        role: "towns",
        what: "town and city polygons with their names",
        shapes: &[Shape::Polygons],
        names: &["town", "muni", "civil", "boundar", "city"],
        fields: &["MUNI_NAME", "CITYTOWN_NAME", "NAMELSAD", "MUNI_TYPE"],
        not_names: &["county"],
    },
    Signal {
        role: "systems",
        what: "septic system locations (points with the parcel id and the absorption-field bottom)",
        shapes: &[Shape::Points],
        names: &["system", "septic", "absorp", "owts", "leach"],
        fields: &["BOTTOM_FT", "BOTTOM_ELEV", "ABS_BOTTOM", "FIELD_BOTTOM"],
        not_names: &[],
    },
    Signal {
        role: "sewered",
        what: "public sewer district polygons",
        shapes: &[Shape::Polygons],
        names: &["sewer"],
        fields: &["SEWER_DIST", "DISTRICT"],
        not_names: &[],
    },
    Signal {
        role: "county",
        what: "the county boundary polygon",
        shapes: &[Shape::Polygons],
        names: &["county", "cnty"],
        fields: &["COUNTY", "COUNTY_NAME", "FIPS_CODE"],
        not_names: &[],
    },
    Signal {
        role: "history",
        what: "the inspection history (parcel_id, inspection_date, result...)",
        shapes: &[Shape::Table],
        names: &["history", "inspect"],
        fields: &["inspection_date", "report_received", "inspector", "result"],
        not_names: &[],
    },
    Signal {
        role: "watercourses",
        what: "streams and wetlands (lines and polygons)",
        shapes: &[Shape::Lines, Shape::Mixed, Shape::Polygons],
        names: &["watercourse", "stream", "wetland", "creek", "brook", "river", "hydro"],
        fields: &["KIND", "FTYPE", "GNIS_NAME", "WETLAND_TYPE"],
        not_names: &[],
    },
    Signal {
        role: "events",
        what: "events (parcel_id, date, event)",
        shapes: &[Shape::Table],
        names: &["event", "complaint", "transfer"],
        fields: &["event", "arms_length", "expansion_pct"],
        not_names: &[],
    },
    Signal {
        role: "pump_outs",
        what: "septic-tank pump-outs (parcel_id, date, hauler_licence)",
        shapes: &[Shape::Table],
        names: &["pump"],
        fields: &["hauler_licence", "hauler_license", "hauler"],
        not_names: &[],
    },
    Signal {
        role: "samples",
        what: "drainage-pipe samples (parcel_id, pipe_id, date, fecal_coliform_per_100ml)",
        shapes: &[Shape::Table],
        names: &["sample", "coliform"],
        fields: &["fecal_coliform_per_100ml", "pipe_id"],
        not_names: &[],
    },
    Signal {
        role: "pipes",
        what: "the register of known drainage pipes (parcel_id, pipe_id)",
        shapes: &[Shape::Table],
        names: &["pipe", "outfall"],
        fields: &["pipe_id"],
        not_names: &["sample"],
    },
];

/// The least score that assigns a role.
const ENOUGH: i32 = 3;

/// How well `found` fits `signal`: 0 when its shape rules it out.
pub fn score(found: &Found, signal: &Signal) -> i32 {
    if !signal.shapes.contains(&found.shape) {
        return 0;
    }
    let name = found.path.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default();
    if signal.not_names.iter().any(|n| name.contains(n)) {
        return 0;
    }
    let mut score = 0;
    if signal.names.iter().any(|n| name.contains(n)) {
        score += 3;
    }
    score += 4 * signal.fields.iter().filter(|f| find_field(&found.fields, &[f]).is_some()).count() as i32;
    // One county polygon; a town layer has a handful to a few dozen.
    match signal.role {
        "county" if found.records == 1 => score += 1,
        "towns" if (3..=200).contains(&found.records) => score += 1,
        _ => {}
    }
    score
}

/// What `init` made of a folder.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    /// Every file looked at, in name order.
    pub found: Vec<Found>,
    /// Files that could not be read, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
    /// `(role, file)` for each role decided, in [`SIGNALS`] order.
    pub chosen: Vec<(&'static str, PathBuf)>,
    /// What could not be decided, each with how to decide it.
    pub undecided: Vec<String>,
    /// The parcels layer's fields as detected: `(role, fields)`.
    pub parcel_fields: Vec<(&'static str, Vec<String>)>,
    /// The working CRS proposed.
    pub crs: String,
}

impl Survey {
    /// The file chosen for `role`.
    pub fn file(&self, role: &str) -> Option<&Path> {
        self.chosen.iter().find(|(r, _)| *r == role).map(|(_, p)| p.as_path())
    }
}

/// Reads every layer (`.shp`, `.geojson`, `.json`) and table (`.csv`) in `dir` (not its subfolders) and
/// decides which is which.
pub fn survey(dir: &Path) -> Result<Survey> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let mut survey = Survey::default();
    for path in paths {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        let looked = match ext.as_str() {
            "shp" | "geojson" | "json" => look_at_layer(&path),
            "csv" => look_at_table(&path),
            "xlsx" | "xls" | "ods" | "gpkg" | "parquet" | "gdb" => {
                survey.undecided.push(format!(
                    "{} was not looked into ({ext} is not surveyed); if it holds a layer or record file, name \
                     it under [layers]",
                    name(&path)
                ));
                continue;
            }
            _ => continue,
        };
        match looked {
            Ok(found) => survey.found.push(found),
            Err(e) => survey.unreadable.push((path, e.to_string())),
        }
    }
    decide(&mut survey);
    Ok(survey)
}

fn look_at_layer(path: &Path) -> Result<Found> {
    let options = ReadOptions { assume_crs: None, keep: Some(Vec::new()) };
    let fields = crate::io::field_names(path)?;
    let (layer, _) = read_layer(path, &options)?;
    let (mut polygons, mut lines, mut points) = (0, 0, 0);
    for f in &layer.features {
        match &f.geometry {
            Ok(
                Geometry::Polygon(_) | Geometry::MultiPolygon(_) | Geometry::Rect(_) | Geometry::Triangle(_),
            ) => polygons += 1,
            Ok(Geometry::LineString(_) | Geometry::MultiLineString(_) | Geometry::Line(_)) => lines += 1,
            Ok(Geometry::Point(_) | Geometry::MultiPoint(_)) => points += 1,
            _ => {}
        }
    }
    let shape = match (polygons > 0, lines > 0, points > 0) {
        (true, true, _) => Shape::Mixed,
        (true, false, _) => Shape::Polygons,
        (false, true, _) => Shape::Lines,
        _ => Shape::Points,
    };
    let feet_crs = layer.crs.require_feet().ok().map(|_| match &layer.crs.def {
        crate::crs::CrsDef::Epsg(code) => format!("EPSG:{code}"),
        crate::crs::CrsDef::Proj4(text) | crate::crs::CrsDef::Wkt(text) => text.clone(),
    });
    Ok(Found {
        path: path.to_path_buf(),
        shape,
        records: layer.features.len(),
        crs: Some(layer.crs.short_name()),
        feet_crs,
        fields,
    })
}

fn look_at_table(path: &Path) -> Result<Found> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut lines = text.lines();
    let header = lines.next().unwrap_or("").trim_start_matches('\u{feff}');
    let fields = header.split(',').map(|c| c.trim().trim_matches('"').to_string()).collect();
    let records = lines.filter(|l| !l.trim().is_empty()).count();
    Ok(Found { path: path.to_path_buf(), shape: Shape::Table, records, crs: None, feet_crs: None, fields })
}

/// Gives each role its best file, leaving ties undecided, and works out the parcels' fields and the CRS.
fn decide(survey: &mut Survey) {
    let mut scored: Vec<(i32, usize, usize)> = Vec::new();
    for (s, signal) in SIGNALS.iter().enumerate() {
        for (f, found) in survey.found.iter().enumerate() {
            let score = score(found, signal);
            if score >= ENOUGH {
                scored.push((score, s, f));
            }
        }
    }
    // Best first; equal scores in role, then file order.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut role_done = vec![false; SIGNALS.len()];
    let mut file_done = vec![false; survey.found.len()];
    // Files already named in a tie are not listed again as unused.
    let mut tied = vec![false; survey.found.len()];
    let mut chosen = Vec::new();
    for (i, &(score, s, f)) in scored.iter().enumerate() {
        if role_done[s] || file_done[f] {
            continue;
        }
        let rivals: Vec<usize> = scored[i + 1..]
            .iter()
            .filter(|&&(sc, s2, f2)| sc == score && s2 == s && !file_done[f2])
            .map(|&(_, _, f2)| f2)
            .collect();
        role_done[s] = true;
        if !rivals.is_empty() {
            let mut names = vec![name(&survey.found[f].path)];
            for &f2 in &rivals {
                tied[f2] = true;
                names.push(name(&survey.found[f2].path));
            }
            tied[f] = true;
            survey.undecided.push(format!(
                "{} all look like the {} layer ({}); set [layers] {} = \"FILE\" in county.toml",
                names.join(", "),
                SIGNALS[s].role,
                SIGNALS[s].what,
                SIGNALS[s].role
            ));
            continue;
        }
        file_done[f] = true;
        chosen.push((s, survey.found[f].path.clone()));
    }
    chosen.sort();
    survey.chosen = chosen.into_iter().map(|(s, p)| (SIGNALS[s].role, p)).collect();
    for (f, found) in survey.found.iter().enumerate() {
        if !file_done[f] && !tied[f] {
            survey.undecided.push(format!(
                "{} ({}, {} records) was not given a role; if it is one, set it under [layers]",
                name(&found.path),
                found.shape.describe(),
                found.records
            ));
        }
    }
    for (s, signal) in SIGNALS.iter().enumerate() {
        let tied = survey.undecided.iter().any(|u| u.contains(&format!("[layers] {} =", signal.role)));
        if !role_done[s] && !tied {
            survey.undecided.push(format!(
                "no file looks like the {} layer ({}); add one and set [layers] {} = \"FILE\"{}",
                signal.role,
                signal.what,
                signal.role,
                if signal.role == "parcels" { " (required)" } else { ", or leave it out" }
            ));
        }
    }
    parcel_fields_and_crs(survey);
}

/// The parcels layer's fields as the schedule will read them, and the working CRS: the parcels' own when it
/// is projected in feet, otherwise New York Central (EPSG:2261).
fn parcel_fields_and_crs(survey: &mut Survey) {
    survey.crs = "EPSG:2261".to_string();
    let Some(parcels) = survey.file("parcels").map(Path::to_path_buf) else { return };
    let Some(found) = survey.found.iter().find(|f| f.path == parcels) else { return };
    match ParcelSchema::detect(&found.fields, &FieldNames::default(), &parcels) {
        Ok(schema) => {
            survey.parcel_fields = schema
                .choices(&FieldNames::default())
                .into_iter()
                .map(|c| (c.role, c.fields))
                .collect();
        }
        Err(_) => survey.undecided.push(format!(
            "cannot tell which field of {} holds the parcel id (fields: {}); set [fields] parcel_id = [\"FIELD\"]",
            name(&parcels),
            found.fields.join(", ")
        )),
    }
    match &found.feet_crs {
        Some(crs) => survey.crs = crs.clone(),
        None => survey.undecided.push(format!(
            "{} is in {}, not a projected CRS in feet: the working CRS is EPSG:2261 (NY Central); set crs to \
             your zone if the county lies elsewhere (EPSG:2260 East, 2262 West, 2263 Long Island)",
            name(&parcels),
            found.crs.as_deref().unwrap_or("an unknown CRS")
        )),
    }
    if let Some(systems) = survey.file("systems").map(Path::to_path_buf) {
        let found = survey.found.iter().find(|f| f.path == systems);
        if let Some(found) =
            found.filter(|f| system_fields(&f.fields, &FieldNames::default(), &systems).is_err())
        {
            survey.undecided.push(format!(
                "cannot tell which field of {} holds the parcel id (fields: {}); set [fields] system_parcel",
                name(&systems),
                found.fields.join(", ")
            ));
        }
    }
}

fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The commented `county.toml` for a survey; paths are relative to the folder.
pub fn config_text(survey: &Survey) -> String {
    let mut out = String::from(
        "# County configuration written by `lakeshore init`. Check it, then run:\n\
         #   lakeshore schedule --config county.toml --out out/\n\n",
    );
    out.push_str("# working CRS, projected, in feet (the parcels' own when it is)\n");
    if survey.crs.contains('"') || survey.crs.contains('\n') {
        // WKT holds double quotes: a TOML literal string keeps it as it is.
        let _ = writeln!(out, "crs = '''{}'''", survey.crs);
    } else {
        let _ = writeln!(out, "crs = \"{}\"", survey.crs);
    }
    out.push_str(
        "border_tolerance_ft = 10.0     # a parcel edge this close to the mean-high-water line borders it\n",
    );
    out.push_str("# rules = \"my-rules.toml\"      # default: the built-in Cayuga County Article V rules\n");
    out.push_str("# assume_crs = \"EPSG:2261\"     # for shapefiles that came without a .prj\n\n[layers]\n");
    for signal in SIGNALS {
        match survey.file(signal.role) {
            Some(path) => {
                let found = survey.found.iter().find(|f| f.path == path);
                let about = found.map_or(String::new(), |f| {
                    let crs = f.crs.as_deref().map_or(String::new(), |c| format!(", {c}"));
                    format!("  # {} {}{crs}", f.records, f.shape.describe())
                });
                let _ = writeln!(out, "{} = \"{}\"{about}", signal.role, name(path));
            }
            None => {
                let _ = writeln!(out, "# {} = \"FILE\"  # not found: {}", signal.role, signal.what);
            }
        }
    }
    out.push_str("\n[fields]                       # detected from the parcels layer; uncomment to change\n");
    for (role, fields) in &survey.parcel_fields {
        let key = match *role {
            "parcel id" => "parcel_id",
            "town" => "parcel_town",
            "sewer type" => "parcel_sewer",
            "owner" => "parcel_owner",
            "location" => "parcel_location",
            _ => continue,
        };
        let value = match (key, fields.len()) {
            (_, 0) => "none found".to_string(),
            ("parcel_id" | "parcel_location", _) => {
                format!("[{}]", fields.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", "))
            }
            _ => format!("\"{}\"", fields[0]),
        };
        let _ = writeln!(out, "# {key} = {value}");
    }
    if !survey.undecided.is_empty() {
        out.push_str("\n# Not decided:\n");
        for u in &survey.undecided {
            let _ = writeln!(out, "# - {u}");
        }
    }
    out
}

/// Surveys `dir` and writes `dir/county.toml`, refusing to replace an existing one unless `force`.
pub fn init(dir: &Path, force: bool) -> Result<(PathBuf, Survey)> {
    let target = dir.join("county.toml");
    if target.exists() && !force {
        return Err(Error::Config(format!(
            "{} exists; pass --force to replace it, or move it away first",
            target.display()
        )));
    }
    let survey = survey(dir)?;
    let text = config_text(&survey);
    crate::io::write::write_atomic(&target, |w| w.write_all(text.as_bytes()))?;
    Ok((target, survey))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(name: &str, shape: Shape, records: usize, fields: &[&str]) -> Found {
        Found {
            path: PathBuf::from(name),
            shape,
            records,
            crs: None,
            feet_crs: None,
            fields: fields.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn shapes_rule_out_and_names_and_fields_point_in() {
        let flood = found("S_FLD_HAZ_AR.shp", Shape::Polygons, 40, &["FLD_ZONE", "SFHA_TF", "STATIC_BFE"]);
        let floodplain = &SIGNALS[3];
        assert_eq!(floodplain.role, "floodplain");
        // A file-name word (3) and three fields (4 each).
        assert_eq!(score(&flood, floodplain), 15);
        let as_points = Found { shape: Shape::Points, ..flood.clone() };
        assert_eq!(score(&as_points, floodplain), 0);
        // "watershed" in a name keeps a file from being taken for the shoreline.
        let shoreline = &SIGNALS[1];
        assert_eq!(score(&found("lake_watershed.shp", Shape::Polygons, 1, &["NAME"]), shoreline), 0);
    }

    #[test]
    fn a_tie_is_left_undecided_and_said() {
        let mut survey = Survey {
            found: vec![
                found("parcels.shp", Shape::Polygons, 100, &["SWIS", "PRINT_KEY"]),
                found("basin_east.shp", Shape::Polygons, 1, &["NAME"]),
                found("basin_west.shp", Shape::Polygons, 1, &["NAME"]),
            ],
            ..Survey::default()
        };
        decide(&mut survey);
        assert_eq!(survey.file("parcels"), Some(Path::new("parcels.shp")));
        assert_eq!(survey.file("watershed"), None);
        assert!(
            survey
                .undecided
                .iter()
                .any(|u| u.starts_with("basin_east.shp, basin_west.shp all look like the watershed layer")
                    && u.contains("set [layers] watershed = \"FILE\"")),
            "{:?}",
            survey.undecided
        );
        assert!(survey.undecided.iter().any(|u| u.starts_with("no file looks like the shoreline layer")));
    }
}
