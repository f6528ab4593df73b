//! Reports: what a run turns into for people — the schedule table and the terminal summary — and writing
//! them in the formats asked for.

pub mod buffer;
pub mod labels;
pub mod letters;
pub mod mailing;
pub mod map;
pub mod notices;
pub mod obligations;
pub mod print;
pub mod problems;
pub mod schedule;
pub mod summary;
pub mod workload;

use std::path::{Path, PathBuf};

use crate::crs::{Crs, Reprojector};
use crate::model::error::{Error, Result};
use rayon::prelude::*;

use crate::formats::write::{write_csv, write_geojson, write_gpkg, write_parquet, CsvByPlace};
use crate::model::table::{Kind, Table};
use crate::pipeline::{stream_schedule, Progress, Run};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutputFormat {
    /// `.csv`
    Csv,
    /// `.geojson` (WGS 84)
    GeoJson,
    /// `.parquet`
    Parquet,
    /// `.gpkg` (GeoPackage in the working CRS, with an R-tree index)
    GeoPackage,
}

impl OutputFormat {
    /// Parses "csv", "geojson" or "parquet".
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "csv" => Ok(OutputFormat::Csv),
            "geojson" | "json" => Ok(OutputFormat::GeoJson),
            "parquet" => Ok(OutputFormat::Parquet),
            "gpkg" | "geopackage" => Ok(OutputFormat::GeoPackage),
            other => {
                Err(Error::Config(format!("unknown format '{other}': choose csv, geojson, parquet or gpkg")))
            }
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Csv => "csv",
            OutputFormat::GeoJson => "geojson",
            OutputFormat::Parquet => "parquet",
            OutputFormat::GeoPackage => "gpkg",
        }
    }

    /// Whether the format exists only to carry geometry (a table without any is not written in it).
    pub fn has_geometry(self) -> bool {
        matches!(self, OutputFormat::GeoJson | OutputFormat::GeoPackage)
    }
}

/// Writes `table` as `<dir>/<stem>.<ext>` in each format; returns the files written.
pub fn write_table(
    table: &dyn Table,
    dir: &Path,
    stem: &str,
    formats: &[OutputFormat],
    working_crs: &Crs,
) -> Result<Vec<PathBuf>> {
    write_styled_table(table, dir, stem, formats, working_crs, None)
}

/// [`write_table`], with a QGIS style (QML) stored as the default style of the GeoPackage's layer.
fn write_styled_table(
    table: &dyn Table,
    dir: &Path,
    stem: &str,
    formats: &[OutputFormat],
    working_crs: &Crs,
    style: Option<&str>,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut written = Vec::new();
    for &format in formats {
        let path = crate::formats::write::output_path(dir, &format!("{stem}.{}", format.extension()))?;
        match format {
            OutputFormat::Csv => write_csv(&path, table)?,
            OutputFormat::GeoJson => {
                write_geojson(&path, table, &Reprojector::new(working_crs, &Crs::wgs84())?)?
            }
            OutputFormat::Parquet => {
                write_parquet(&path, table, &Reprojector::new(working_crs, &Crs::wgs84())?)?
            }
            OutputFormat::GeoPackage => write_gpkg(&path, stem, table, working_crs, style)?,
        }
        written.push(path);
    }
    Ok(written)
}

/// Runs the schedule and writes `schedule.csv` in `dir` from the rows as they come, keeping only each row's
/// rendered line: a county of millions of parcels is scheduled in little memory. The run comes back without
/// rows (see [`stream_schedule`]), with the summary counted on the way. The file is the one
/// [`write_schedule`] writes from the whole run.
pub fn stream_schedule_csv<'c>(
    config: &'c crate::pipeline::config::Config,
    progress: &Progress,
    dir: &Path,
) -> Result<(Run<'c>, summary::Summary, Vec<PathBuf>)> {
    let mut csv = BlockCsv::new(dir, "schedule.csv", schedule::COLUMNS)?;
    let mut summary = summary::Summary::default();
    let mut run = stream_schedule(config, progress, &mut |run, rows| {
        let table = schedule::ScheduleTable::of_rows(run, &rows);
        csv.file(run.parcels)?.add(&table, &|i| rows[i].at)?;
        summary.count(run.rules, &rows);
        drop_on_all_cores(rows);
        Ok(())
    })?;
    summary.problems = run.problems.len();
    let path = csv.write(&mut run, "write schedule.csv")?;
    Ok((run, summary, vec![path]))
}

/// A CSV file written from the blocks of a schedule run as they come ([`CsvByPlace`]): created with the
/// first block, when the number of parcels is known, and written once the run is over.
struct BlockCsv {
    path: PathBuf,
    columns: &'static [(&'static str, Kind)],
    csv: Option<CsvByPlace>,
}

impl BlockCsv {
    /// The file `name` in `dir` (made if need be), with `columns`.
    fn new(dir: &Path, name: &str, columns: &'static [(&'static str, Kind)]) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = crate::formats::write::output_path(dir, name)?;
        Ok(BlockCsv { path, columns, csv: None })
    }

    /// The file of a run of `parcels` parcels, one place each.
    fn file(&mut self, parcels: usize) -> Result<&mut CsvByPlace> {
        let csv = match self.csv.take() {
            Some(csv) => csv,
            None => CsvByPlace::create(&self.path, self.columns, parcels)?,
        };
        Ok(self.csv.insert(csv))
    }

    /// Writes the file (its header alone when no block came), the time it took added to `run`'s stages as
    /// `stage`; returns its path.
    fn write(mut self, run: &mut Run<'_>, stage: &'static str) -> Result<PathBuf> {
        let (writing, cpu) = (std::time::Instant::now(), crate::pipeline::cpu_time());
        self.file(0)?;
        if let Some(csv) = self.csv.take() {
            csv.write()?;
        }
        run.timings.push(crate::pipeline::Lap::since(stage, writing, cpu));
        Ok(self.path)
    }
}

/// Frees a block's items on all cores: rows are many small allocations.
fn drop_on_all_cores<T: Send>(items: Vec<T>) {
    items.into_par_iter().for_each(drop);
}

/// Writes the schedule of `run` (`schedule.csv`, `schedule.geojson`, `schedule.parquet`, `schedule.gpkg`),
/// and its QGIS style: beside a GeoJSON as `schedule.qml`, inside the GeoPackage in `layer_styles`.
pub fn write_schedule(
    run: &Run<'_>,
    dir: &Path,
    formats: &[OutputFormat],
    working_crs: &Crs,
) -> Result<Vec<PathBuf>> {
    let style = map::schedule_map::schedule_style(run.rules);
    let table = schedule::ScheduleTable::new(run);
    let mut written = write_styled_table(&table, dir, "schedule", formats, working_crs, Some(&style))?;
    // QGIS opens `schedule.geojson` with the style of the `.qml` of the same name beside it; a GeoPackage
    // carries its style inside, in `layer_styles`.
    if formats.contains(&OutputFormat::GeoJson) {
        let path = dir.join("schedule.qml");
        crate::formats::write::write_atomic(&path, |out| out.write_all(style.as_bytes()))?;
        written.push(path);
    }
    Ok(written)
}
