//! `lakeshore init DIR`: look at a folder of county data, work out which file is which layer or record file
//! (by geometry type, field names, file name, record count and what record files' columns hold), read their
//! CRS and fields, and write a commented `county.toml`. What cannot be decided is said, with how to decide it.
//!
//! - [`look`] reads every layer (shapefile, GeoJSON and its text sequences, Esri JSON, GeoParquet,
//!   FlatGeobuf, each layer of a GeoPackage as `FILE.gpkg:LAYER`, each feature class of a File Geodatabase as
//!   `FILE.gdb:NAME`, each shapefile of a zip as `FILE.zip:LAYER.shp`) and record file (CSV, each sheet of a
//!   workbook) with all its fields, GeoJSON
//!   properties that only later features carry included;
//! - [`signals`] scores every file for every role from a table of signals (data, not code paths);
//! - [`assign`] picks the newest of several parcels layers, then gives roles to files as one matching of the
//!   best total score, so a required role never stays empty while a file fits it as a runner-up; a tie
//!   between two files is left undecided rather than guessed;
//! - [`contents`] finds a record file's parcel-id and date columns by their values when the reader cannot
//!   find them by name, and names them under `[fields.KIND]`;
//! - [`place`] detects the parcels' fields and proposes the working CRS: the parcels' own when in feet, else
//!   the State Plane zone in feet their extent lies in ([`crate::crs::zones`]).

pub mod assign;
pub mod contents;
pub mod jurisdiction;
pub mod look;
pub mod parcel_values;
pub mod place;
pub mod signals;
mod text;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use self::signals::{score, Signal, SIGNALS};
pub use self::text::config_text;
use crate::formats::csv::Record;
use crate::model::error::{Error, Result};

/// What a file holds, as far as choosing its role goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// Polygons or multipolygons.
    Polygons,
    /// Lines.
    Lines,
    /// Points.
    Points,
    /// Polygons and lines together (watercourses and wetlands).
    Mixed,
    /// A table without geometry (CSV, a workbook sheet).
    #[default]
    Table,
    /// An elevation raster (GeoTIFF, ESRI ASCII grid).
    Raster,
}

impl Shape {
    fn describe(self) -> &'static str {
        match self {
            Shape::Polygons => "polygons",
            Shape::Lines => "lines",
            Shape::Points => "points",
            Shape::Mixed => "lines and polygons",
            Shape::Table => "rows",
            Shape::Raster => "elevations",
        }
    }
}

/// A record file's first rows and the columns its values point to.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The first rows after the header (at most [`crate::records::columns::SAMPLE_ROWS`]).
    pub rows: Vec<Record>,
    /// The column whose values are the parcels layer's ids, when one is.
    pub id: Option<usize>,
    /// The column of dates, when one is.
    pub date: Option<usize>,
}

/// One layer or record file of the folder as it was found.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// The file, or `FILE.gpkg:LAYER` / `FILE.gdb:NAME` / `FILE.xlsx:SHEET` for one layer or sheet of it.
    pub path: PathBuf,
    /// The words its role is told by (lower case): the file's name, a GeoPackage layer's own name.
    pub words: String,
    /// Geometry kind, or a table.
    pub shape: Shape,
    /// Records (features or rows).
    pub records: usize,
    /// The CRS, for a layer (`EPSG:2261`, a WKT name).
    pub crs: Option<String>,
    /// The CRS as `county.toml`'s `crs` can name it, when it is projected in feet (`EPSG:2261`, or the WKT).
    pub feet_crs: Option<String>,
    /// Attribute fields or column names, of every feature.
    pub fields: Vec<String>,
    /// Fields no first feature has (GeoJSON properties of later features), which a run detects only when
    /// the config names them.
    pub late_fields: Vec<String>,
    /// The layer's extent in longitude/latitude: west, south, east, north.
    pub extent: Option<[f64; 4]>,
    /// When the file was last modified.
    pub modified: Option<SystemTime>,
    /// A record file's rows, for detection by contents.
    pub table: Option<Table>,
    /// A layer's fields with the values of its first features as text (at most
    /// [`crate::records::columns::SAMPLE_ROWS`]), for detection by contents.
    pub values: Vec<(String, Vec<String>)>,
}

impl Found {
    /// The name `county.toml` gives it (relative to the folder): `parcels.shp`, `county.gpkg:parcels`.
    pub fn name(&self) -> String {
        name(&self.path)
    }
}

/// The columns of a record file the config must name for its reader to find them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordColumns {
    /// The record file's role and `[fields.KIND]` key (`history`).
    pub kind: &'static str,
    /// `(role, column)`: `("parcel_id", "Tax Map #")`.
    pub columns: Vec<(String, String)>,
    /// How they were found.
    pub why: String,
}

/// What `init` made of a folder.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    /// Every layer, sheet and file looked at, in name order.
    pub found: Vec<Found>,
    /// Files that could not be read, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
    /// `(role, file)` for each role decided, in [`SIGNALS`] order.
    pub chosen: Vec<(&'static str, PathBuf)>,
    /// What could not be decided, each with how to decide it.
    pub undecided: Vec<String>,
    /// What was decided that the user should know (the newer of two parcels layers, the CRS proposed).
    pub notes: Vec<String>,
    /// Optional roles no file fits: the run does without them.
    pub absent: Vec<&'static str>,
    /// Required roles ([`signals::REQUIRED`]) no file fits: the run cannot go on without them.
    pub missing: Vec<&'static str>,
    /// The parcels layer's fields as detected: `(role, fields)`.
    pub parcel_fields: Vec<(&'static str, Vec<String>)>,
    /// `[fields]` keys the config must set for the run to find what init found: `(key, TOML value, why)`.
    pub fields: Vec<(&'static str, String, String)>,
    /// Columns of record files named by role, for `[fields.KIND]`.
    pub record_fields: Vec<RecordColumns>,
    /// The working CRS proposed; empty when none could be.
    pub crs: String,
    /// The rule set the config names (a starter written beside it), when the built-in one is not the
    /// county's.
    pub rules: Option<String>,
}

impl Survey {
    /// The file chosen for `role`.
    pub fn file(&self, role: &str) -> Option<&Path> {
        self.chosen.iter().find(|(r, _)| *r == role).map(|(_, p)| p.as_path())
    }

    /// The found layer or file at `path`.
    pub fn found_at(&self, path: &Path) -> Option<&Found> {
        self.found.iter().find(|f| f.path == path)
    }
}

/// Reads every layer (`.shp`, `.geojson`, `.json`, `.geojsonl`, `.parquet`, `.fgb`, each layer of a `.gpkg`,
/// each feature class of a `.gdb`, each shapefile of a `.zip`) and record file
/// (`.csv`, each sheet of a `.xlsx`/`.xls`/`.ods`) in `dir` (not its subfolders) and decides which is which.
pub fn survey(dir: &Path) -> Result<Survey> {
    let mut survey = Survey::default();
    look::look_at_folder(dir, &mut survey)?;
    assign::decide(&mut survey);
    place::parcel_fields_and_crs(&mut survey);
    Ok(survey)
}

/// The name of a path as the config gives it: `parcels.shp`, `county.gpkg:parcels`.
fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The starter rule set `init` writes beside the config for a county the built-in rule set does not know.
pub const STARTER_RULES: &str = "rules.toml";

/// Surveys `dir` and writes `dir/county.toml`, refusing to replace an existing one unless `force`.
pub fn init(dir: &Path, force: bool) -> Result<(PathBuf, Survey)> {
    let target = dir.join("county.toml");
    if target.exists() && !force {
        return Err(Error::Config(format!(
            "{} exists; pass --force to replace it, or move it away first",
            target.display()
        )));
    }
    let mut survey = survey(dir)?;
    let builtin = crate::rules::RuleSet::cayuga_art_v();
    if let Some(mismatch) = jurisdiction::compare(&survey, &builtin) {
        let starter = dir.join(STARTER_RULES);
        let kept = starter.exists() && !force;
        if !kept {
            let text = crate::rules::starter::starter(
                &mismatch.towns,
                &mismatch.water_bodies,
                survey.file("watershed").is_some(),
            );
            crate::write::write_atomic(&starter, |w| w.write_all(text.as_bytes()))?;
        }
        survey.undecided.push(format!(
            "{}: {} {STARTER_RULES}, a starter rule set with the county's towns and water bodies, and the \
             config names it; give each value marked \"{}\" from the county's law (a run stops naming those \
             left)",
            mismatch.why,
            if kept { "kept the existing" } else { "wrote" },
            crate::rules::starter::TO_FILL
        ));
        survey.rules = Some(STARTER_RULES.into());
    } else if survey.file("watershed").is_none() {
        let named = builtin.watershed_names();
        if !named.is_empty() {
            survey.undecided.push(format!(
                "no watershed layer found, and the rule set's watershed tier places parcels by the watersheds of \
                 {}: a run stops until [layers] watershed names one",
                named.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let text = config_text(&survey);
    crate::write::write_atomic(&target, |w| w.write_all(text.as_bytes()))?;
    Ok((target, survey))
}
