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
pub mod systems;
pub mod wording;
pub mod workload;

use std::path::{Path, PathBuf};

use crate::crs::{Crs, Reprojector};
use crate::model::controls::{Cleaned, Controls};
use crate::model::error::{Error, Problem, Result};
use rayon::prelude::*;

use crate::model::table::{Kind, Table};
use crate::pipeline::{stream_schedule, Progress, Run};
use crate::write::gpkg::GpkgSink;
use crate::write::sink::{Place, Sink};
use crate::write::{commit_all, ParquetSink, Staged, TextByPlace};

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

    /// Whether a table written in this format carries each row's geometry (every format but CSV).
    pub fn carries_geometry(self) -> bool {
        self != OutputFormat::Csv
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

impl OutputFormat {
    /// The file of a table of `places` places with `columns` in this format at `path`, named `stem` where
    /// the format names its layer, geometry in the working CRS `working_crs`, with the QGIS `style` a
    /// GeoPackage carries inside.
    fn sink(
        self,
        path: &Path,
        stem: &str,
        columns: &[(&'static str, Kind)],
        places: usize,
        working_crs: &Crs,
        style: Option<&str>,
    ) -> Result<FileSink> {
        let to_wgs84 = || Reprojector::new(working_crs, &Crs::wgs84());
        Ok(match self {
            OutputFormat::Csv => FileSink::Text(Box::new(TextByPlace::csv(path, columns, places)?)),
            OutputFormat::GeoJson => {
                FileSink::Text(Box::new(TextByPlace::geojson(path, columns, places, to_wgs84()?)?))
            }
            OutputFormat::Parquet => {
                FileSink::Any(Box::new(ParquetSink::create(path, columns, places, to_wgs84()?)?))
            }
            OutputFormat::GeoPackage => {
                FileSink::Any(Box::new(GpkgSink::create(path, stem, columns, working_crs, style, places)?))
            }
        })
    }
}

/// One file of a [`TableFiles`]: a text file, which renders the rows of a table of a known type without a
/// dynamic call a cell, or any other sink.
enum FileSink {
    Text(Box<TextByPlace>),
    Any(Box<dyn Sink>),
}

/// A table seen through a reference to any table: what a table of no known type is handed on as.
struct Whole<'a>(&'a dyn Table);

impl Table for Whole<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        self.0.columns()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn cell(&self, row: usize, column: usize) -> crate::model::table::Cell<'_> {
        self.0.cell(row, column)
    }
    fn push_text(&self, row: usize, column: usize, out: &mut String) -> bool {
        self.0.push_text(row, column, out)
    }
    fn geometry(&self, row: usize) -> Option<&geo::MultiPolygon<f64>> {
        self.0.geometry(row)
    }
    fn other_geometry(&self, row: usize) -> Option<geo::Geometry<f64>> {
        self.0.other_geometry(row)
    }
}

/// The files of one table (`<dir>/<stem>.<ext>`) in every format asked for, written from the table's blocks
/// as they come: each format is a [`Sink`] of the same blocks. The files are made with the first block, when
/// the number of places is known, and put in place together by [`TableFiles::finish`] and [`commit_all`].
pub struct TableFiles {
    dir: PathBuf,
    stem: String,
    formats: Vec<OutputFormat>,
    crs: Crs,
    columns: Vec<(&'static str, Kind)>,
    style: Option<String>,
    sinks: Option<Vec<FileSink>>,
    /// The control characters the first file's writer met, column by column.
    controls: Controls,
}

impl TableFiles {
    /// The files of `stem` in `dir` (made if need be) with `columns`, in `formats`, geometry in the working
    /// CRS `working_crs`; `style` is the QGIS style a GeoPackage carries inside.
    pub fn new(
        dir: &Path,
        stem: &str,
        formats: &[OutputFormat],
        working_crs: &Crs,
        columns: &[(&'static str, Kind)],
        style: Option<String>,
    ) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        Ok(TableFiles {
            dir: dir.to_path_buf(),
            stem: stem.to_string(),
            formats: formats.to_vec(),
            crs: working_crs.clone(),
            columns: columns.to_vec(),
            style,
            sinks: None,
            controls: Controls::default(),
        })
    }

    /// The sinks of a table of `places` places, made when first asked for.
    fn sinks(&mut self, places: usize) -> Result<&mut Vec<FileSink>> {
        if self.sinks.is_none() {
            let mut sinks = Vec::with_capacity(self.formats.len());
            for &format in &self.formats {
                let name = format!("{}.{}", self.stem, format.extension());
                let path = crate::write::output_path(&self.dir, &name)?;
                let style = self.style.as_deref();
                sinks.push(format.sink(&path, &self.stem, &self.columns, places, &self.crs, style)?);
            }
            self.sinks = Some(sinks);
        }
        Ok(self.sinks.get_or_insert_with(Vec::new))
    }

    /// Adds a block of a table of `places` places to every file: row `i` of `block` goes to place
    /// `place(i)`, one of `filled`, the places the block fills whole (see [`Sink::add`]). Every file gets
    /// the block [`Cleaned`] of control characters; those of the first file are counted. A signal's request
    /// to stop the run ([`crate::model::stop`]) is answered here, before the block.
    pub fn add<T: Table>(
        &mut self,
        places: usize,
        block: &T,
        place: Place<'_>,
        filled: &[usize],
    ) -> Result<()> {
        // Between blocks is a safe point to stop at (see `crate::model::stop`).
        crate::model::stop::check()?;
        self.sinks(places)?;
        let (Some(sinks), controls) = (self.sinks.as_mut(), &self.controls) else { return Ok(()) };
        sinks.iter_mut().enumerate().try_for_each(|(k, sink)| {
            let block = Cleaned::new(block, place, (k == 0).then_some(controls));
            match sink {
                FileSink::Text(text) => text.add_cleaned(&block, place, filled),
                FileSink::Any(sink) => sink.add(&block, place, filled),
            }
        })
    }

    /// Completes every file under its temporary name (a table that got no block has its header alone);
    /// with them, one problem for each column that held control characters, named by the table's first file.
    pub fn finish(mut self) -> Result<(Vec<Staged>, Vec<Problem>)> {
        let sinks = std::mem::take(self.sinks(0)?);
        let staged = sinks
            .into_iter()
            .map(|sink| match sink {
                FileSink::Text(text) => text.finish(),
                FileSink::Any(sink) => sink.finish(),
            })
            .collect::<Result<_>>()?;
        // Named by the first file, without the folder: the files are written in a staging folder.
        let first =
            self.formats.first().map_or(self.stem.clone(), |f| format!("{}.{}", self.stem, f.extension()));
        Ok((staged, self.controls.problems(Path::new(&first), &self.columns)))
    }
}

/// Writes `table` as `<dir>/<stem>.<ext>` in each format; returns the files written and the problems of
/// the control characters its text held (see [`TableFiles::finish`]).
pub fn write_table(
    table: &dyn Table,
    dir: &Path,
    stem: &str,
    formats: &[OutputFormat],
    working_crs: &Crs,
) -> Result<(Vec<PathBuf>, Vec<Problem>)> {
    let mut files = TableFiles::new(dir, stem, formats, working_crs, table.columns(), None)?;
    let filled: Vec<usize> = (0..table.len()).collect();
    files.add(table.len(), &Whole(table), &|i| i, &filled)?;
    let (staged, problems) = files.finish()?;
    Ok((commit_all(staged)?, problems))
}

/// Runs the schedule and writes `schedule.<ext>` in `dir` in each of `formats` from the rows as they come,
/// keeping none: a county of millions of parcels is scheduled in little memory. The run comes back without
/// rows (see [`stream_schedule`]), with the summary counted on the way. The files are those
/// [`write_schedule`] writes from the whole run.
pub fn stream_schedule_files(
    config: &crate::pipeline::config::Config,
    progress: &Progress,
    dir: &Path,
    formats: &[OutputFormat],
) -> Result<(Run, summary::Summary, Vec<PathBuf>)> {
    let mut files =
        ScheduleFiles::new(&config.rules, dir, formats, &config.crs, config.layers.dem.is_some())?;
    let mut summary = summary::Summary::default();
    let mut run = stream_schedule(config, progress, &mut |run, rows| {
        let table = schedule::ScheduleTable::of_rows(run, &rows);
        let filled: Vec<usize> = rows.iter().map(|row| row.at).collect();
        files.table.add(run.parcels, &table, &|i| rows[i].at, &filled)?;
        summary.count(&run.rules, &rows);
        drop_on_all_cores(rows);
        Ok(())
    })?;
    let (writing, cpu) = (std::time::Instant::now(), crate::pipeline::cpu_time());
    let (written, problems) = files.finish()?;
    run.problems.extend(problems);
    summary.problems = run.problems.count()?;
    run.timings.push(crate::pipeline::Lap::since("write schedule", writing, cpu));
    Ok((run, summary, written))
}

/// Frees a block's items on all cores: rows are many small allocations.
fn drop_on_all_cores<T: Send>(items: Vec<T>) {
    items.into_par_iter().for_each(drop);
}

/// The schedule's files: the table in each format, and its QGIS style, beside a GeoJSON as `schedule.qml`
/// and inside the GeoPackage in `layer_styles`.
struct ScheduleFiles {
    table: TableFiles,
    /// `schedule.qml` and its text, when a GeoJSON is written.
    qml: Option<(PathBuf, String)>,
}

impl ScheduleFiles {
    /// The schedule's files in `dir` in `formats`, styled from `rules`.
    fn new(
        rules: &crate::rules::RuleSet,
        dir: &Path,
        formats: &[OutputFormat],
        crs: &Crs,
        dem: bool,
    ) -> Result<Self> {
        let style = map::schedule_map::schedule_style(rules);
        // QGIS opens `schedule.geojson` with the style of the `.qml` of the same name beside it; a
        // GeoPackage carries its style inside, in `layer_styles`.
        let qml = formats.contains(&OutputFormat::GeoJson).then(|| (dir.join("schedule.qml"), style.clone()));
        let table = TableFiles::new(dir, "schedule", formats, crs, schedule::columns(dem), Some(style))?;
        Ok(ScheduleFiles { table, qml })
    }

    /// Completes every file and puts them all in place; returns their paths and the problems of the control
    /// characters the table held.
    fn finish(self) -> Result<(Vec<PathBuf>, Vec<Problem>)> {
        let (mut staged, problems) = self.table.finish()?;
        if let Some((path, style)) = &self.qml {
            let mut file = crate::write::AtomicFile::create(path)?;
            std::io::Write::write_all(&mut file, style.as_bytes()).map_err(|e| Error::io(path, e))?;
            staged.push(file.close()?);
        }
        Ok((commit_all(staged)?, problems))
    }
}

/// Writes the schedule of `run` (`schedule.csv`, `schedule.geojson`, `schedule.parquet`, `schedule.gpkg`),
/// and its QGIS style: beside a GeoJSON as `schedule.qml`, inside the GeoPackage in `layer_styles`; returns
/// the files and the problems of the control characters the table held.
pub fn write_schedule(
    run: &Run,
    dir: &Path,
    formats: &[OutputFormat],
    working_crs: &Crs,
) -> Result<(Vec<PathBuf>, Vec<Problem>)> {
    let mut files = ScheduleFiles::new(&run.rules, dir, formats, working_crs, run.reference.dem.is_some())?;
    let table = schedule::ScheduleTable::new(run);
    let filled: Vec<usize> = (0..table.len()).collect();
    files.table.add(table.len(), &table, &|i| i, &filled)?;
    files.finish()
}
