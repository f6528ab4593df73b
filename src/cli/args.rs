//! The flags: clap structs that only mirror the command line (one per subcommand, `RunArgs` shared by the
//! commands that run the schedule). `super` turns them into a `Config` and runs the command.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Septic-inspection schedules for lakeshore watersheds, from a county's GIS layers.
#[derive(Debug, Parser)]
#[command(name = "lakeshore", version, about, long_about = None)]
pub struct Args {
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Compute every parcel's inspection tier, cycle and due dates.
    ///
    /// Example: lakeshore schedule --config data/sample/county.toml --as-of 2027-01-15 --out out/
    Schedule(RunArgs),
    /// List every open obligation of every parcel: what, who, due date, citation, source record.
    ///
    /// Example: lakeshore obligations --config data/sample/county.toml --as-of 2027-03-01 --out out/
    Obligations(RunArgs),
    /// List every system of the register: the parcels it serves, the lot it lies on, its life (installed,
    /// replaced, abandoned), and its own tier, due dates and status; which one binds its parcel's row.
    ///
    /// Example: lakeshore systems --config data/sample/county.toml --as-of 2027-01-15 --out out/
    Systems(RunArgs),
    /// Count the periodic inspections due per year, town and tier, the overdue backlog, and the drainage-pipe
    /// inspections made at those visits.
    ///
    /// Example: lakeshore workload --config data/sample/county.toml --as-of 2027-01-15 --years 2027..2036
    Workload(WorkloadArgs),
    /// List the parcels and features within a distance of the shoreline, the systems or any layer, with
    /// exact distances, and write the buffer polygon.
    ///
    /// Example: lakeshore buffer --config data/sample/county.toml --as-of 2027-01-15 --distance 500 --features data/sample/watercourses.geojson
    Buffer(BufferArgs),
    /// Write the year's inspection notices: letters, Avery 5160 labels and mail-merge tables, each duty at
    /// the stage the program store calls for (first notice, reminder, final notice, referral). A draft
    /// records nothing; `--issue` records the batch in the store once its files are published.
    ///
    /// Example: lakeshore notices --config data/sample/county.toml --as-of 2027-01-15 --year 2027 --out out/
    Notices(NoticesArgs),
    /// Record letters the post returned undeliverable: they count as no notice, and the owner's address is
    /// not mailed again until the parcel layer gives a new one.
    ///
    /// Example: lakeshore returned --config data/sample/county.toml --as-of 2027-02-03 2027-000004
    Returned(MailArgs),
    /// Record letters received, on the day a return receipt or a signature gives: the next stage counts from
    /// it.
    ///
    /// Example: lakeshore received --config data/sample/county.toml --as-of 2027-12-20 2027-000031
    Received(MailArgs),
    /// Draw the schedule as a map (PNG or SVG): parcels by tier or status, shoreline, 500-ft buffer,
    /// watershed, floodplain, towns, legend, scale bar and north arrow; or, with `--format html` (or an
    /// `.html` file), one offline interactive page with filters, search and parcel popups.
    ///
    /// Example: lakeshore map --config data/sample/county.toml --as-of 2027-01-15 --out out/map.png --by status
    Map(MapArgs),
    /// Look at a folder of county data, work out which file is which layer, and write a commented
    /// county.toml there (an existing one is kept unless --force).
    ///
    /// Example: lakeshore init county/ && lakeshore schedule --config county/county.toml --as-of 2027-01-15 --out out/
    Init {
        /// The folder holding the county's layers and record files.
        dir: PathBuf,
        /// Replace an existing county.toml.
        #[arg(long)]
        force: bool,
    },
    /// Print a built-in rule set, to start a county's own from.
    ///
    /// Example: lakeshore rules --jurisdiction gorham > my-rules.toml
    Rules {
        /// The built-in rule set: `cayuga` (Cayuga County Sanitary Code Article V, the default) or `gorham`
        /// (Town of Gorham Local Law Chapter 56).
        #[arg(long, value_enum, default_value = "cayuga")]
        jurisdiction: JurisdictionArg,
    },
    /// Print a shell completion script.
    ///
    /// Example: lakeshore completions bash > /etc/bash_completion.d/lakeshore
    Completions {
        /// The shell: bash, zsh, fish, powershell or elvish.
        shell: clap_complete::Shell,
    },
}

/// A value of `rules --jurisdiction`: the built-in rule sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum JurisdictionArg {
    /// Cayuga County Health District, Sanitary Code Article V.
    Cayuga,
    /// Town of Gorham, Local Law Chapter 56.
    Gorham,
}

/// A value of `--format`: the tables' file formats, and the map's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub(super) enum FormatArg {
    /// Comma-separated values, one row per line.
    Csv,
    /// GeoJSON in WGS 84 (RFC 7946).
    #[value(alias = "json")]
    Geojson,
    /// GeoParquet 1.1: typed columns and WKB geometry.
    Parquet,
    /// GeoPackage 1.3 in the working CRS, with an R-tree index and a QGIS style.
    #[value(alias = "geopackage")]
    Gpkg,
    /// `map` only: a PNG image.
    Png,
    /// `map` only: an SVG image.
    Svg,
    /// `map` only: one offline interactive HTML page.
    Html,
}

/// A value of `--by`: what the map's parcel colours show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ColourByArg {
    /// The inspection tier (lakefront, near-shore, watershed, county, unscheduled).
    #[value(alias = "tiers")]
    Tier,
    /// The compliance status (current, due, overdue, ...).
    Status,
    /// The stage each parcel's notices reached (first, reminder, final, referral), from the program store.
    #[value(alias = "stage")]
    Notice,
}

/// Flags of `lakeshore buffer`.
#[derive(Debug, clap::Args)]
pub(super) struct BufferArgs {
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// The distance, feet.
    #[arg(long, value_name = "FEET", default_value_t = 500.0)]
    pub(super) distance: f64,
    /// Measure from `shoreline` (the mean-high-water line), `shoreline-layer` (the shoreline layer's line,
    /// also where a DEM gave the mean-high-water line), `systems`, or a layer file.
    #[arg(long, value_name = "shoreline|shoreline-layer|systems|FILE", default_value = "shoreline")]
    pub(super) from: String,
    /// Feature layers to list too (wells, springs, buildings, watercourses); repeat for several.
    #[arg(long = "features", value_name = "FILE")]
    pub(super) features: Vec<PathBuf>,
}

/// Flags of `lakeshore notices`.
#[derive(Debug, clap::Args)]
pub(super) struct NoticesArgs {
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// The year whose notices to write; default: the as-of year.
    #[arg(long, value_name = "YEAR")]
    pub(super) year: Option<i32>,
    /// Letter template (HTML with {{placeholders}}); default: the built-in data/templates/letter.html.
    #[arg(long, value_name = "FILE")]
    pub(super) template: Option<PathBuf>,
    /// Also print the letters and labels to letters.pdf and labels.pdf through headless Chromium.
    #[arg(long)]
    pub(super) pdf: bool,
    /// Record the batch in the program store, dated by --as-of, as issued once its files are published.
    #[arg(long, conflicts_with = "reprint")]
    pub(super) issue: bool,
    /// Print an issued batch again from the program store, with the same letter numbers.
    #[arg(long, value_name = "BATCH")]
    pub(super) reprint: Option<i64>,
}

/// Flags of `lakeshore returned` and `lakeshore received`.
#[derive(Debug, clap::Args)]
pub(super) struct MailArgs {
    /// County config file (TOML): its [program] store is the store recorded in.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// The program store (default: [program] store of the config, or program.sqlite beside it).
    #[arg(long, value_name = "FILE")]
    pub(super) store: Option<PathBuf>,
    /// The day the letters came back or were received (YYYY-MM-DD or M/D/YYYY); default today. A --from
    /// file's `date` column gives each letter's own.
    #[arg(long, value_name = "DATE")]
    pub(super) as_of: Option<String>,
    /// A CSV file with a `letter` column and, optionally, a `date` column.
    #[arg(long, value_name = "FILE")]
    pub(super) from: Option<PathBuf>,
    /// Letter numbers (2027-000123).
    #[arg(value_name = "LETTER")]
    pub(super) letters: Vec<String>,
}

/// Flags of `lakeshore map`. `--out` is the image file, its extension (.png or .svg) picking the format, or a
/// folder to write `map.png` in.
#[derive(Debug, clap::Args)]
pub(super) struct MapArgs {
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// Colour parcels by tier, by status, or by the stage their notices reached in the program store.
    #[arg(long, value_enum, ignore_case = true, default_value_t = ColourByArg::Tier)]
    pub(super) by: ColourByArg,
    /// Map one town only, framed on its boundary.
    #[arg(long, value_name = "NAME")]
    pub(super) town: Option<String>,
    /// Image width, pixels.
    #[arg(long, value_name = "PX", default_value_t = 1600)]
    pub(super) width: u32,
    /// Image height, pixels.
    #[arg(long, value_name = "PX", default_value_t = 1200)]
    pub(super) height: u32,
    /// With `--format html`: a tile URL template for a base map, e.g. https://tile.example/{z}/{x}/{y}.png
    /// (default: none, the map needs no network).
    #[arg(long, value_name = "URL")]
    pub(super) basemap: Option<String>,
    /// With `--format html`: write the parcels into tiles beside the page (`map_tile_Z_X_Y.js` for
    /// `map.html`), which it loads as the view needs them; `auto` (the default) tiles a map of more than
    /// 250,000 parcels.
    #[arg(long, value_enum, ignore_case = true)]
    pub(super) tiles: Option<TilesArg>,
}

/// When `lakeshore map --format html` writes tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum TilesArg {
    /// Above a county's size (more than 250,000 parcels).
    Auto,
    /// Always: the page holds no parcel, the tiles do.
    Always,
    /// Never: one self-contained page.
    Never,
}

/// Flags of `lakeshore workload`.
#[derive(Debug, clap::Args)]
pub(super) struct WorkloadArgs {
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// Years to count, `FIRST..LAST` (inclusive) or one year; default: the as-of year and the nine after.
    #[arg(long, value_name = "FIRST..LAST")]
    pub(super) years: Option<String>,
}

/// Flags of `lakeshore schedule` and `lakeshore obligations`. Each layer flag overrides the config file's
/// `[layers]` entry.
#[derive(Debug, clap::Args)]
pub(super) struct RunArgs {
    /// County config file (TOML): layers, CRS, rules, field names.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// Date the schedule is computed for (YYYY-MM-DD or M/D/YYYY); default today.
    #[arg(long, value_name = "DATE")]
    pub(super) as_of: Option<String>,
    /// Output folder (`map`: also an image or page file, .png, .svg or .html, written in its folder).
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub(super) out: PathBuf,
    /// The program store (default: [program] store of the config, or program.sqlite beside it).
    #[arg(long, value_name = "FILE")]
    pub(super) store: Option<PathBuf>,
    /// Output formats, comma-separated: csv, geojson, parquet, gpkg (`map`: png, svg or html).
    #[arg(
        long,
        value_name = "LIST",
        value_enum,
        value_delimiter = ',',
        ignore_case = true,
        default_value = "csv,geojson"
    )]
    pub(super) format: Vec<FormatArg>,
    /// Tax parcels: a layer file in any format of the README's format table (a GeoPackage's layer as
    /// FILE.gpkg:LAYER).
    #[arg(long, value_name = "FILE")]
    pub(super) parcels: Option<PathBuf>,
    /// Lake polygons or mean-high-water lines.
    #[arg(long, value_name = "FILE")]
    pub(super) shoreline: Option<PathBuf>,
    /// Watershed polygons.
    #[arg(long, value_name = "FILE")]
    pub(super) watershed: Option<PathBuf>,
    /// FEMA flood-hazard polygons (NFHL S_FLD_HAZ_AR).
    #[arg(long, value_name = "FILE")]
    pub(super) floodplain: Option<PathBuf>,
    /// Town polygons.
    #[arg(long, value_name = "FILE")]
    pub(super) towns: Option<PathBuf>,
    /// System locations (points with parcel id and bottom elevation).
    #[arg(long, value_name = "FILE")]
    pub(super) systems: Option<PathBuf>,
    /// Public sewer districts.
    #[arg(long, value_name = "FILE")]
    pub(super) sewered: Option<PathBuf>,
    /// County boundary.
    #[arg(long, value_name = "FILE")]
    pub(super) county: Option<PathBuf>,
    /// Inspections: a CSV file or a workbook sheet (.xlsx, .xls, .ods; FILE.xlsx:SHEET) with parcel_id,
    /// inspection_date, optional result, inspector, report_received, findings.
    #[arg(long, visible_alias = "inspections", value_name = "FILE")]
    pub(super) history: Option<PathBuf>,
    /// Watercourses and wetlands (lines and polygons).
    #[arg(long, value_name = "FILE")]
    pub(super) watercourses: Option<PathBuf>,
    /// Events: a CSV file or a workbook sheet (parcel_id, date, event, optional columns).
    #[arg(long, value_name = "FILE")]
    pub(super) events: Option<PathBuf>,
    /// Pump-outs: a CSV file or a workbook sheet (parcel_id, date, hauler_licence).
    #[arg(long, value_name = "FILE")]
    pub(super) pump_outs: Option<PathBuf>,
    /// Drainage-pipe samples: a CSV file or a workbook sheet (parcel_id, pipe_id, date,
    /// fecal_coliform_per_100ml; optional other_source).
    #[arg(long, value_name = "FILE")]
    pub(super) samples: Option<PathBuf>,
    /// A layer's field for a [fields] key, KEY=FIELD (parcel_mail_street, parcel_mail_po_box,
    /// parcel_mail_city, parcel_mail_state, parcel_mail_zip, parcel_swis, parcel_town, system_bottom, ...;
    /// parcel_id=SWIS+PRINT_KEY), or a record file's column for a role, KIND.ROLE=COLUMN (KIND: history,
    /// events, pump_outs, samples, pipes); repeat for several. Example: --field parcel_mail_city=M_CITY
    /// --field history.date=INSPECTED --field history.parcel_id=SBL
    #[arg(long = "field", value_name = "KEY=FIELD|KIND.ROLE=COLUMN")]
    pub(super) fields: Vec<String>,
    /// How the record files write slash dates: `month-first` (3/4/2026 is March 4, the US convention) or
    /// `day-first` (3 April). Without it each date column takes the convention its dates show.
    #[arg(long, value_name = "month-first|day-first")]
    pub(super) date_order: Option<String>,
    /// Drainage-pipes register: a CSV file or a workbook sheet (parcel_id, pipe_id; optional removed,
    /// treated): pipes known on parcels, sampled or not.
    #[arg(long, value_name = "FILE")]
    pub(super) pipes: Option<PathBuf>,
    /// Elevation raster (GeoTIFF or ESRI ASCII grid): the mean-high-water line becomes its contour at the
    /// rule set's elevation (Art. V §II.22), the shoreline layer a check.
    #[arg(long, value_name = "FILE")]
    pub(super) dem: Option<PathBuf>,
    /// Rule set TOML (default: Cayuga County Article V, built in).
    #[arg(long, value_name = "FILE")]
    pub(super) rules: Option<PathBuf>,
    /// Working CRS, projected in feet (default EPSG:2261).
    #[arg(long, value_name = "CRS")]
    pub(super) crs: Option<String>,
    /// CRS to assume for shapefiles without a .prj.
    #[arg(long, value_name = "CRS")]
    pub(super) assume_crs: Option<String>,
    /// Distance within which a parcel edge borders the mean-high-water line, feet (default 10).
    #[arg(long, value_name = "FEET")]
    pub(super) border_tolerance_ft: Option<f64>,
    /// Print on stderr which field and column was taken for what, and the time each stage took.
    #[arg(short, long, conflicts_with = "quiet")]
    pub(super) verbose: bool,
    /// Print nothing but errors and a count of the problems found (they are all in problems.csv).
    #[arg(short, long)]
    pub(super) quiet: bool,
}
