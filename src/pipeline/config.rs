//! The ready-to-run configuration: layer paths resolved, rule set loaded, CRS chosen.
//!
//! A county's settings live in a TOML file ([`ConfigFile`], e.g. `data/sample/county.toml`, paths relative
//! to it); the command line may override any of them. The binary merges the two and calls [`Config::new`];
//! the library never sees raw flags.
//!
//! Every mistake is told at once: all those of the file's TOML and its `[fields.*]` role keys when it is
//! loaded ([`ConfigFile::load`], each at its line with "did you mean"), then all those of the merged settings
//! ([`Config::new`]), so that one run lists everything to fix.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;
use serde::Deserialize;

use crate::classify::fields::FieldNames;
use crate::crs::{Crs, Reprojector};
use crate::formats::dem::VerticalUnit;
use crate::model::error::{Error, Result};
use crate::rules::RuleSet;

/// The layer files of a county. Only `parcels` is required.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LayerPaths {
    /// Tax parcels (polygons).
    pub parcels: Option<PathBuf>,
    /// Lake polygons or mean-high-water lines, named by water body.
    pub shoreline: Option<PathBuf>,
    /// Watershed polygons, named by water body.
    pub watershed: Option<PathBuf>,
    /// FEMA flood-hazard polygons (NFHL `S_FLD_HAZ_AR`).
    pub floodplain: Option<PathBuf>,
    /// Town polygons; without them the parcel's town attribute is used.
    pub towns: Option<PathBuf>,
    /// System locations (points with parcel id and absorption-field bottom elevation).
    pub systems: Option<PathBuf>,
    /// Public sewer districts (polygons).
    pub sewered: Option<PathBuf>,
    /// The county boundary (polygon).
    pub county: Option<PathBuf>,
    /// Inspections (CSV: parcel_id, inspection_date and optional result, inspector, report_received,
    /// findings and installation columns). Also accepted as `inspections`.
    #[serde(alias = "inspections")]
    pub history: Option<PathBuf>,
    /// Watercourses and wetlands (lines and polygons), for the 100-ft separation of existing standards.
    pub watercourses: Option<PathBuf>,
    /// Events (CSV: parcel_id, date, event and optional columns).
    pub events: Option<PathBuf>,
    /// Septic-tank pump-outs (CSV: parcel_id, date, hauler_licence).
    pub pump_outs: Option<PathBuf>,
    /// Drainage-pipe fecal-coliform samples (CSV: parcel_id, pipe_id, date, fecal_coliform_per_100ml;
    /// optional other_source).
    pub samples: Option<PathBuf>,
    /// Drainage pipes known on parcels, sampled or not (CSV: parcel_id, pipe_id; optional removed, treated).
    pub pipes: Option<PathBuf>,
    /// An elevation raster (GeoTIFF or ESRI ASCII grid): the mean-high-water line of each water body with a
    /// shoreline feature is its contour at the rule set's elevation (Art. V §II.22).
    pub dem: Option<PathBuf>,
}

impl LayerPaths {
    /// Every file the layers are read from: each layer's file (the container's, for a layer in a GeoPackage
    /// or a zip), and beside a shapefile its other parts (`.shx`, `.dbf`, `.prj`, `.cpg`). An output set
    /// keeps them from being replaced ([`crate::write::OutputSet::protect`]).
    pub fn files(&self) -> Vec<PathBuf> {
        let every = [
            &self.parcels,
            &self.shoreline,
            &self.watershed,
            &self.floodplain,
            &self.towns,
            &self.systems,
            &self.sewered,
            &self.county,
            &self.history,
            &self.watercourses,
            &self.events,
            &self.pump_outs,
            &self.samples,
            &self.pipes,
            &self.dem,
        ];
        every.into_iter().flatten().flat_map(|path| crate::formats::layer_files(path)).collect()
    }
}

/// What the configuration says of the DEM where the file does not: the unit and vertical datum of its
/// values.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DemSettings {
    /// `m`, `ft` or `us-ft`.
    pub vertical_unit: Option<String>,
    /// The vertical datum's name as the rule set's `datum_shift_ft` keys it (`NAVD88`, `NGVD29`).
    pub vertical_datum: Option<String>,
}

/// What lakeshore keeps of the program it runs (`[program]`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProgramSettings {
    /// The program store, a SQLite file on a local disk; default `program.sqlite` beside the config.
    pub store: Option<PathBuf>,
}

/// The office that sends the notices, as its letters print it (`[office]`): the letterhead, the return address
/// for window envelopes, how owners reach it and who signs. Every key is optional; a letter printed without a
/// way to reach the office is reported (`report::letters::contact_problem`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Office {
    /// The agency, e.g. "Cayuga County Health Department".
    pub name: Option<String>,
    /// The division or office within it, e.g. "Environmental Health Division".
    pub division: Option<String>,
    /// The street or post-office box line of the return address.
    pub street: Option<String>,
    /// The last line of the return address: "Auburn, NY 13021".
    pub city_line: Option<String>,
    /// The telephone owners call, e.g. "(315) 253-1405".
    pub telephone: Option<String>,
    /// An email address owners may write to.
    pub email: Option<String>,
    /// A website owners may visit.
    pub website: Option<String>,
    /// The office's hours, e.g. "Monday to Friday, 8:30 a.m. to 4:30 p.m.".
    pub hours: Option<String>,
    /// Who signs the letters.
    pub signature: Option<String>,
    /// The signer's title.
    pub title: Option<String>,
}

impl Office {
    /// The value of `[office]` key `key` (one of [`OFFICE_KEYS`]), trimmed; `None` when it is absent, empty
    /// or no key.
    pub fn get(&self, key: &str) -> Option<&str> {
        let value = match key {
            "name" => &self.name,
            "division" => &self.division,
            "street" => &self.street,
            "city_line" => &self.city_line,
            "telephone" => &self.telephone,
            "email" => &self.email,
            "website" => &self.website,
            "hours" => &self.hours,
            "signature" => &self.signature,
            "title" => &self.title,
            _ => &None,
        };
        value.as_deref().map(str::trim).filter(|v| !v.is_empty())
    }
}

/// The `[office]` keys, in the order `lakeshore init` writes them.
pub const OFFICE_KEYS: &[&str] = &[
    "name",
    "division",
    "street",
    "city_line",
    "telephone",
    "email",
    "website",
    "hours",
    "signature",
    "title",
];

/// A county config with every key, commented: what `lakeshore init` starts from, and where config error
/// messages take their examples.
pub const EXAMPLE_CONFIG: &str = r#"crs = "EPSG:2261"              # working CRS, projected, in feet (default EPSG:2261, NY Central ftUS)
border_tolerance_ft = 10.0     # a parcel edge this close to the mean-high-water line borders it (default 10)
rules = "my-rules.toml"        # default: the built-in Cayuga County Article V rules
assume_crs = "EPSG:2261"       # for shapefiles that came without a .prj

[layers]
parcels = "parcels.shp"
shoreline = "shoreline.geojson"
watershed = "watershed.shp"
floodplain = "S_FLD_HAZ_AR.shp"
towns = "towns.geojson"
systems = "systems.geojson"
sewered = "sewered.geojson"
county = "county.geojson"
history = "history.csv"
watercourses = "watercourses.geojson"
events = "events.csv"
pump_outs = "pump_outs.csv"
samples = "samples.csv"
pipes = "pipes.csv"
dem = "dem.tif"                # elevations: the mean-high-water line is their contour at the law's elevation

[dem]                          # where the DEM file does not say
vertical_unit = "ft"           # m, ft or us-ft
vertical_datum = "NAVD88"

[program]
store = "program.sqlite"       # the notices issued, on a local disk (default: program.sqlite beside this file)

[fields]
parcel_id = ["SWIS", "PRINT_KEY"]
parcel_town = "MUNI_NAME"
parcel_sewer = "SEWER_TYPE"
parcel_owner = "PRIMARY_OWNER"
parcel_location = ["LOC_ST_NBR", "LOC_STREET"]
parcel_swis = "SWIS"
parcel_class = "PROP_CLASS"      # the property class (vacant land: the rule set's [systems] vacant_classes)
parcel_mail_street = "MAIL_ADDR"
parcel_mail_po_box = "PO_BOX"
parcel_mail_city = "MAIL_CITY"
parcel_mail_state = "MAIL_STATE"
parcel_mail_zip = "MAIL_ZIP"
shoreline_name = "NAME"
watershed_name = "NAME"
town_name = "NAME"
floodplain_bfe = "STATIC_BFE"    # the base flood elevation of each flood-hazard zone, feet
system_parcel = "PARCEL_ID"
system_bottom = "BOTTOM_FT"
system_id = "SYSTEM_ID"           # each system's own id, which records and events name it by
system_parcel_2 = "PARCEL_ID_2"   # a second parcel a shared system serves

[fields.history]               # a record file's columns by role (also events, pump_outs, samples, pipes)
parcel_id = "SBL"
date = "INSPECTED"

[office]                       # who sends the notices: printed on every letter; fill them in
name = "Cayuga County Health Department"
division = "Environmental Health Division"
street = "8 Dill Street"       # the return address, for window envelopes
city_line = "Auburn, NY 13021"
telephone = "(315) 253-1405"   # a telephone, an email or a website: owners need one way to reach you
email = ""                     # empty: not printed
website = "www.cayugacounty.us"
hours = ""                     # e.g. "Monday to Friday, 8:30 a.m. to 4:30 p.m."
signature = ""                 # who signs the letters
title = ""                     # the signer's title
[water_bodies]                 # names the shoreline and watershed layers give a rule-set water body
"Owasco Lake" = ["Headwaters Owasco Inlet", "Owasco Inlet", "Owasco Lake-Owasco Outlet"]
"#;

/// A county configuration file (`county.toml`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// The file it was loaded from (none for settings made from flags alone), for messages.
    #[serde(skip)]
    pub source: Option<PathBuf>,
    /// The working CRS (feet-based), e.g. `EPSG:2261`.
    pub crs: Option<String>,
    /// CRS to assume for shapefiles that have no `.prj`.
    pub assume_crs: Option<String>,
    /// Rule-set TOML; the embedded Cayuga County Article V rules when absent.
    pub rules: Option<PathBuf>,
    /// How close a parcel edge must come to the mean-high-water line to border it, feet.
    pub border_tolerance_ft: Option<f64>,
    /// The layer files.
    #[serde(default)]
    pub layers: LayerPaths,
    /// The DEM's unit and datum where the file does not state them.
    #[serde(default)]
    pub dem: DemSettings,
    /// Attribute-name overrides.
    #[serde(default)]
    pub fields: FieldNames,
    /// The program store.
    #[serde(default)]
    pub program: ProgramSettings,
    /// The office that sends the notices.
    #[serde(default)]
    pub office: Office,
    /// The names the shoreline and watershed layers give each of the rule set's water bodies, beside its own
    /// name and aliases: a lake named otherwise, or a watershed handed over as HUC-12 pieces, each piece
    /// named.
    #[serde(default)]
    pub water_bodies: std::collections::BTreeMap<String, Vec<String>>,
}

impl ConfigFile {
    /// The program store's file: `[program] store`, or `program.sqlite` beside the config file (in the
    /// current folder when there is none).
    pub fn store(&self) -> PathBuf {
        self.program.store.clone().unwrap_or_else(|| {
            let folder = self.source.as_deref().and_then(Path::parent).unwrap_or(Path::new(""));
            folder.join(crate::program::DEFAULT_STORE)
        })
    }

    /// Reads a config file; relative paths in it are made relative to its folder. A file that is not there is
    /// named in the error; a file with mistakes is an error telling each of them (TOML that does not fit,
    /// unknown keys, `[fields.*]` keys that are no column role), at its line.
    pub fn load(path: &Path) -> Result<Self> {
        if path.is_dir() {
            let inside = path.join("county.toml");
            let fix = match inside.is_file() {
                true => format!("give the config file in it: --config {}", inside.display()),
                false => format!("write one there with `lakeshore init {}`", path.display()),
            };
            return Err(Error::format(path, format!("a folder, not a config file; {fix}")));
        }
        let text = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::format(
                path,
                "no such config file; check the path given to --config, or write one with `lakeshore init \
                     FOLDER`",
            )),
            read => read.map_err(|e| Error::io(path, e))?,
        };
        let parsed = crate::model::diagnose::parse_all::<ConfigFile>(path, &text, EXAMPLE_CONFIG);
        let (mut mistakes, mut untold) = (parsed.mistakes, parsed.untold);
        if let Some(file) = &parsed.value {
            let room = crate::model::diagnose::MOST_TOLD.saturating_sub(mistakes.len());
            let (told, more) = file.fields.role_mistakes(path, &text, room);
            mistakes.extend(told);
            untold.count += more;
        }
        mistakes.extend(untold.line(path));
        let mut file = match (parsed.value, parsed.first) {
            (_, Some(first)) => return Err(Error::toml(path, mistakes.join("\n"), first)),
            (Some(file), None) if mistakes.is_empty() => file,
            _ => return Err(Error::Config(mistakes.join("\n"))),
        };
        file.source = Some(path.to_path_buf());
        let base = path.parent().unwrap_or(Path::new("."));
        let l = &mut file.layers;
        for p in [
            &mut l.parcels,
            &mut l.shoreline,
            &mut l.watershed,
            &mut l.floodplain,
            &mut l.towns,
            &mut l.systems,
            &mut l.sewered,
            &mut l.county,
            &mut l.history,
            &mut l.watercourses,
            &mut l.events,
            &mut l.pump_outs,
            &mut l.samples,
            &mut l.pipes,
            &mut l.dem,
            &mut file.rules,
            &mut file.program.store,
        ]
        .into_iter()
        .flatten()
        {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
        Ok(file)
    }
}

/// The value of `found`, or `None` with its error put in `errors`.
fn keep<T>(errors: &mut Vec<Error>, found: Result<T>) -> Option<T> {
    found.map_err(|e| errors.push(e)).ok()
}

/// `errors` as one error: the only one as it is, several as an [`Error::Config`] telling each on its line.
fn one_or_all(mut errors: Vec<Error>) -> Error {
    if errors.len() == 1 {
        return errors.remove(0);
    }
    let told: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
    Error::Config(format!("{} mistakes in the configuration:\n{}", errors.len(), told.join("\n")))
}

/// The default distance within which a parcel edge borders the mean-high-water line, feet: enough to absorb
/// digitising differences between the tax map and the shoreline layer, well under a road right-of-way
/// (49.5 ft), so a parcel across the road from the lake does not border it.
pub const DEFAULT_BORDER_TOLERANCE_FT: f64 = 10.0;

/// Everything a run needs, ready to use.
#[derive(Debug, Clone)]
pub struct Config {
    /// Layer files; `parcels` is present.
    pub layers: LayerPaths,
    /// The DEM's unit where the file does not state it.
    pub dem_unit: Option<VerticalUnit>,
    /// The DEM's vertical datum where the file does not state it.
    pub dem_datum: Option<String>,
    /// Attribute-name overrides.
    pub fields: FieldNames,
    /// The office that sends the notices (`[office]`).
    pub office: Office,
    /// The names the shoreline and watershed layers give the rule set's water bodies (`[water_bodies]`),
    /// each with the water body's own name.
    pub water_body_names: Vec<(String, String)>,
    /// The rule set.
    pub rules: Arc<RuleSet>,
    /// The working CRS (projected, feet).
    pub crs: Crs,
    /// CRS assumed for shapefiles without `.prj`.
    pub assume_crs: Option<Crs>,
    /// Border tolerance, feet.
    pub border_tolerance_ft: f64,
    /// The day the schedule is computed for.
    pub as_of: NaiveDate,
    /// The program store's file: `[program] store`, or `program.sqlite` beside the config file (in the
    /// current folder when there is none).
    pub store: PathBuf,
    /// Whether the rows keep each parcel's shape after classification (true): a command whose outputs draw
    /// or carry no geometry (CSV tables, the workload) sets it false, and a million rows are lighter by the
    /// shapes.
    pub keep_shapes: bool,
}

impl Config {
    /// The reprojector from `from`, the CRS of the layer at `path`, into the working CRS.
    pub fn reprojector(&self, path: &Path, from: &Crs) -> Result<Reprojector> {
        Reprojector::new(from, &self.crs)
            .map_err(|e| Error::crs(path, format!("cannot reproject to {}: {e}", self.crs)))
    }

    /// Checks and completes a merged configuration: parcels given, CRS feet-based, rules loaded. Every
    /// mistake is told: one is returned as it is, several as one [`Error::Config`] listing them all.
    pub fn new(file: ConfigFile, as_of: NaiveDate) -> Result<Self> {
        let mut errors = Vec::new();
        if file.layers.parcels.is_none() {
            errors.push(match &file.source {
                // A config file cut short, or never finished.
                Some(config) => Error::format(
                    config,
                    "names no parcels layer: add [layers] parcels = \"...\" to it or give --parcels FILE",
                ),
                None => Error::Config(
                    "no parcels layer: give --parcels FILE or [layers] parcels = \"...\" in the config file"
                        .into(),
                ),
            });
        }
        let crs = keep(
            &mut errors,
            match &file.crs {
                Some(text) => Crs::parse(text),
                None => Ok(Crs::ny_central_ftus()),
            },
        );
        if let Some(crs) = &crs {
            keep(&mut errors, crs.require_feet());
        }
        // The CRS's own message names --crs; this one is the assumed CRS's.
        let assumed = file.assume_crs.as_deref().map(|text| {
            Crs::parse(text).map_err(|e| {
                Error::Config(format!(
                    "assume_crs = \"{text}\" (or --assume-crs): {}",
                    e.to_string()
                        .replace("pass --crs", "give --assume-crs")
                        .replace("--crs EPSG", "--assume-crs EPSG")
                ))
            })
        });
        let assume_crs = keep(&mut errors, assumed.transpose());
        let rules = keep(
            &mut errors,
            match &file.rules {
                Some(path) => RuleSet::load(path),
                None => Ok(RuleSet::cayuga_art_v()),
            },
        );
        let dem_unit = file.dem.vertical_unit.as_deref().and_then(|u| {
            let unit = VerticalUnit::parse(u);
            if unit.is_none() {
                errors.push(Error::Config(format!(
                    "[dem] vertical_unit = \"{u}\": give \"m\", \"ft\" or \"us-ft\""
                )));
            }
            unit
        });
        let border_tolerance_ft = file.border_tolerance_ft.unwrap_or(DEFAULT_BORDER_TOLERANCE_FT);
        if !(border_tolerance_ft.is_finite() && border_tolerance_ft >= 0.0) {
            errors.push(Error::Config(format!(
                "border_tolerance_ft = {border_tolerance_ft} (or --border-tolerance-ft): give a distance of 0 ft or \
                 more"
            )));
        }
        // A parcel within the tolerance borders the line: a tolerance as wide as a distance the rules measure
        // from the line would make every parcel within that distance a bordering one.
        let measured = rules
            .iter()
            .flat_map(|r| &r.rules)
            .flat_map(|r| [r.parcel_within_mhw_ft, r.system_within_mhw_ft]);
        if let Some(least) = measured.flatten().reduce(f64::min).filter(|&least| border_tolerance_ft >= least)
        {
            errors.push(Error::Config(format!(
                "border_tolerance_ft = {border_tolerance_ft} (or --border-tolerance-ft): a parcel this close to the \
                 mean-high-water line would border it, but the rule set measures {least} ft from the line; give \
                 the few feet a parcel edge may lie off the line as drawn (default {DEFAULT_BORDER_TOLERANCE_FT})"
            )));
        }
        let water_body_names = match &rules {
            Some(rules) => keep(&mut errors, water_body_names(&file, rules)).unwrap_or_default(),
            None => Vec::new(),
        };
        let (Some(crs), Some(assume_crs), Some(rules), true) = (crs, assume_crs, rules, errors.is_empty())
        else {
            return Err(one_or_all(errors));
        };
        let store = file.store();
        Ok(Config {
            store,
            layers: file.layers,
            dem_unit,
            dem_datum: file.dem.vertical_datum,
            fields: file.fields,
            office: file.office,
            water_body_names,
            rules: Arc::new(rules),
            crs,
            assume_crs,
            border_tolerance_ft,
            as_of,
            keep_shapes: true,
        })
    }
}

/// The `[water_bodies]` table as (name in a layer, the rule set's water body): each key must name one of the
/// rule set's water bodies, and no name may be another of them (or its alias): that would hand one lake's
/// shoreline and watershed to the other.
fn water_body_names(file: &ConfigFile, rules: &RuleSet) -> Result<Vec<(String, String)>> {
    let mut names = Vec::new();
    for (key, found) in &file.water_bodies {
        let Some(body) = rules.water_body(key) else {
            let known: Vec<String> = rules.water_bodies.iter().map(|w| w.name.clone()).collect();
            return Err(Error::Config(format!(
                "[water_bodies] \"{key}\": the rule set has no such water body; its water bodies are: {}",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        };
        if let Some((name, other)) = found
            .iter()
            .find_map(|n| rules.water_body(n).filter(|w| w.name != body.name).map(|w| (n, &w.name)))
        {
            return Err(Error::Config(format!(
                "[water_bodies] \"{key}\" = [\"{name}\"]: \"{name}\" is the rule set's {other}, another water \
                 body, whose shoreline and watershed would be taken for {}'s; list only the names the layers \
                 give {} itself",
                body.name, body.name
            )));
        }
        names.extend(found.iter().map(|n| (n.clone(), body.name.clone())));
    }
    Ok(names)
}

#[cfg(test)]
mod tests;
