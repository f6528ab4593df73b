//! Command-line flags (clap derive structs that only mirror the flags) and the step that turns them into a
//! ready [`Config`]: flags override the config file, paths are resolved, rules loaded, CRS chosen.

/// `println!` for what a command tells on stdout, which does not stop the run when stdout is closed (a pipe
/// into `head` that has read enough): the outputs are published whatever became of the lines.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `print!`, as [`say!`] is `println!`: a text that ends its own lines.
macro_rules! say_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod args;
mod map;
mod notices;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::{Datelike, NaiveDate};

pub use args::Args;
use args::{BufferArgs, Command, FormatArg, JurisdictionArg, RunArgs, WorkloadArgs};
use clap::ValueEnum;
use lakeshore::model::controls::for_terminal;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::{run_schedule_with, Progress, Run};
use lakeshore::report::obligations::stream_obligations_files;
use lakeshore::report::problems::write_problems;
use lakeshore::report::{write_table, OutputFormat};
use lakeshore::write::OutputSet;

/// Runs the command; the exit code is 2 when bad records were reported.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Schedule(a) => schedule(a),
        Command::Obligations(a) => obligations(a),
        Command::Systems(a) => systems(a),
        Command::Workload(a) => workload(a),
        Command::Buffer(a) => buffer(a),
        Command::Notices(a) => notices::notices(a),
        Command::Returned(a) => notices::mail(a, lakeshore::program::mail::Mail::Returned),
        Command::Received(a) => notices::mail(a, lakeshore::program::mail::Mail::Received),
        Command::Map(a) => map::map(a),
        Command::Init { dir, force } => init(&dir, force),
        Command::Rules { jurisdiction } => {
            use std::io::Write;
            let text = match jurisdiction {
                JurisdictionArg::Cayuga => lakeshore::rules::CAYUGA_ART_V,
                JurisdictionArg::Gorham => lakeshore::rules::GORHAM_CH56,
            };
            // A closed pipe (`| head`) is no error.
            let _ = std::io::stdout().write_all(text.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            use std::io::Write;
            // Into a buffer first: the generator panics on a closed pipe (`| head`), a plain write does not.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Args::command(), "lakeshore", &mut script);
            let _ = std::io::stdout().write_all(&script);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The `--as-of` date, in any spelling a record file's dates may have (`2027-01-15`, `1/15/2027`).
fn parse_date(text: &str) -> anyhow::Result<NaiveDate> {
    lakeshore::records::parse_date(text).ok_or_else(|| {
        anyhow::anyhow!("--as-of '{text}' is not a date of 1900 to 2100; write it as YYYY-MM-DD or M/D/YYYY")
    })
}

/// Flags over the config file.
fn merge(a: &RunArgs) -> anyhow::Result<ConfigFile> {
    let mut file = match &a.config {
        Some(path) => ConfigFile::load(path)?,
        None => ConfigFile::default(),
    };
    let l = &mut file.layers;
    for (slot, flag) in [
        (&mut l.parcels, &a.parcels),
        (&mut l.shoreline, &a.shoreline),
        (&mut l.watershed, &a.watershed),
        (&mut l.floodplain, &a.floodplain),
        (&mut l.towns, &a.towns),
        (&mut l.systems, &a.systems),
        (&mut l.sewered, &a.sewered),
        (&mut l.county, &a.county),
        (&mut l.history, &a.history),
        (&mut l.watercourses, &a.watercourses),
        (&mut l.events, &a.events),
        (&mut l.pump_outs, &a.pump_outs),
        (&mut l.samples, &a.samples),
        (&mut l.pipes, &a.pipes),
        (&mut l.dem, &a.dem),
        (&mut file.rules, &a.rules),
        (&mut file.program.store, &a.store),
    ] {
        if flag.is_some() {
            slot.clone_from(flag);
        }
    }
    for (slot, flag) in [(&mut file.crs, &a.crs), (&mut file.assume_crs, &a.assume_crs)] {
        if flag.is_some() {
            slot.clone_from(flag);
        }
    }
    if a.border_tolerance_ft.is_some() {
        file.border_tolerance_ft = a.border_tolerance_ft;
    }
    // `--date-order` over the file's `date_order` of every record file, and a `--field KIND.date_order=` over
    // it for that file.
    if let Some(order) = &a.date_order {
        let f = &mut file.fields;
        for map in [&mut f.history, &mut f.events, &mut f.pump_outs, &mut f.samples, &mut f.pipes] {
            map.insert(lakeshore::records::dates::DATE_ORDER_KEY.into(), order.clone());
        }
    }
    for assignment in &a.fields {
        file.fields.set(assignment)?;
    }
    Ok(file)
}

/// The configuration and output formats the flags ask for.
fn prepare(a: &RunArgs) -> anyhow::Result<(Config, Vec<OutputFormat>)> {
    let as_of = match &a.as_of {
        Some(text) => parse_date(text)?,
        None => chrono::Local::now().date_naive(),
    };
    let mut formats = Vec::new();
    for format in &a.format {
        formats.push(match format {
            FormatArg::Csv => OutputFormat::Csv,
            FormatArg::Geojson => OutputFormat::GeoJson,
            FormatArg::Parquet => OutputFormat::Parquet,
            FormatArg::Gpkg => OutputFormat::GeoPackage,
            // The map command takes its own formats out before it gets here.
            FormatArg::Png | FormatArg::Svg | FormatArg::Html => anyhow::bail!(
                "--format {}: only `lakeshore map` draws maps; for tables choose csv, geojson, parquet or gpkg",
                format.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string())
            ),
        });
    }
    formats.sort_unstable();
    formats.dedup();
    Ok((Config::new(merge(a)?, as_of)?, formats))
}

/// [`prepare`] for a command that writes its rows as tables: the rows keep the parcels' shapes only when a
/// format asked for carries them.
fn prepare_tables(a: &RunArgs) -> anyhow::Result<(Config, Vec<OutputFormat>)> {
    let (mut config, formats) = prepare(a)?;
    config.keep_shapes = formats.iter().any(|f| f.carries_geometry());
    Ok((config, formats))
}

/// Takes the lock of the output folder `dir` for this run and makes the staging folder its files are
/// written in (see [`OutputSet`]).
fn output_set(dir: &Path, config: &Config) -> anyhow::Result<OutputSet> {
    let command: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut set = OutputSet::open(dir, &command)?;
    set.protect(&config.layers.files());
    Ok(set)
}

/// Writes `problems.csv` from the run's problems and `more`, publishes the run's files with `run.json` (see
/// [`OutputSet::publish`]), prints the stage times (with `-v`), notes, files written and problems, and
/// returns the exit code: 2 when bad records were reported.
fn finish(
    a: &RunArgs,
    config: &Config,
    run: &mut Run,
    more: Vec<lakeshore::model::error::Problem>,
    mut written: Vec<PathBuf>,
    set: OutputSet,
    writing: std::time::Instant,
) -> anyhow::Result<ExitCode> {
    // A safe point between the command's work and its last files (see `lakeshore::model::stop`).
    lakeshore::model::stop::check()?;
    // Each layer is read once a run (a map or buffer report takes the reference layers from the run), so
    // every bad record is reported once; the problems of the stages are only put in order.
    const SHOWN: usize = 50;
    run.problems.extend(more);
    let problems = write_problems(&run.problems, set.staging(), &config.crs, SHOWN)?;
    written.extend(problems.files);
    let mut written: Vec<PathBuf> = written.iter().map(|path| set.published(path)).collect();
    written.extend(set.publish(config.as_of)?.pop());
    // Stopped by a signal past the commit point: the set is in place, and the binary says so in one line.
    if lakeshore::model::stop::requested().is_some() {
        return Ok(ExitCode::SUCCESS);
    }
    if a.verbose {
        for line in &run.columns {
            eprintln!("lakeshore: {line}");
        }
        print_field_choices(run);
        let written = lakeshore::pipeline::Lap::since("write outputs", writing, None);
        for lap in run.timings.iter().chain([&written]) {
            let cpu = lap
                .cpu
                .map(|c| format!("   cpu {:>7.2} s", c.as_secs_f64()))
                .unwrap_or_else(|| " ".repeat(17));
            let peak = lap.peak_bytes.map(|b| format!("   peak {:>6} MiB", b >> 20)).unwrap_or_default();
            eprintln!("lakeshore: {:<34} {:>8.3} s{cpu}{peak}", lap.stage, lap.time.as_secs_f64());
        }
    }
    let code = if problems.count == 0 { ExitCode::SUCCESS } else { ExitCode::from(2) };
    if a.quiet {
        if problems.count > 0 {
            eprintln!("lakeshore: {} problems, listed in problems.csv", problems.count);
        }
        return Ok(code);
    }
    // Input text in a note or a problem could hold control characters, a terminal's escapes among them.
    let shown = |text: String| for_terminal(&text).into_owned();
    for note in &run.notes {
        say!("note: {}", shown(note.to_string()));
    }
    for path in &written {
        say!("wrote {}", path.display());
    }
    for problem in &problems.first {
        eprintln!("lakeshore: {}", shown(problem.to_string()));
    }
    if problems.count > SHOWN {
        eprintln!("lakeshore: ... and {} more, all listed in problems.csv", problems.count - SHOWN);
    }
    Ok(code)
}

/// Says on stderr which field of the parcels and systems layers was taken for what (`-v`).
fn print_field_choices(run: &Run) {
    let layers = [("parcels", &run.parcel_fields), ("systems", &run.system_fields)];
    for (layer, choice) in
        layers.into_iter().flat_map(|(layer, choices)| choices.iter().map(move |c| (layer, c)))
    {
        let how = if choice.configured { "set in [fields]" } else { "detected" };
        match choice.fields.is_empty() {
            true => eprintln!("lakeshore: {layer}: {:<15} no field found", choice.role),
            false => {
                eprintln!("lakeshore: {layer}: {:<15} {} ({how})", choice.role, choice.fields.join(" + "))
            }
        }
    }
}

fn schedule(a: RunArgs) -> anyhow::Result<ExitCode> {
    streamed_table(a, lakeshore::report::stream_schedule_files)
}

fn obligations(a: RunArgs) -> anyhow::Result<ExitCode> {
    streamed_table(a, stream_obligations_files)
}

fn systems(a: RunArgs) -> anyhow::Result<ExitCode> {
    streamed_table(a, lakeshore::report::systems::stream_systems_files)
}

/// The files a table's writer produces, with the summary it counted and the run.
type Streamed<S> = lakeshore::model::error::Result<(Run, S, Vec<PathBuf>)>;

/// A command that writes one table (`schedule`, `obligations`, `systems`): `write` runs the schedule and
/// writes every format from the rows as they come, none kept, into the output set's staging folder; its
/// summary goes to the terminal and the set is published.
fn streamed_table<S: std::fmt::Display>(
    a: RunArgs,
    write: impl FnOnce(&Config, &Progress, &Path, &[OutputFormat]) -> Streamed<S>,
) -> anyhow::Result<ExitCode> {
    let (config, formats) = prepare_tables(&a)?;
    let set = output_set(&a.out, &config)?;
    let (mut run, summary, written) =
        with_progress(&a, |progress| write(&config, progress, set.staging(), &formats))?;
    let writing = std::time::Instant::now();
    if !a.quiet {
        say_text!("{summary}");
    }
    finish(&a, &config, &mut run, Vec::new(), written, set, writing)
}

/// Parses `2027..2036`, `2027..=2036`, `2027-2036` or `2027`.
fn parse_years(text: &str) -> anyhow::Result<(i32, i32)> {
    let bad = || anyhow::anyhow!("--years '{text}' is not a span of years; write it as 2027..2036");
    let text = text.trim();
    let (a, b) = text
        .split_once("..=")
        .or_else(|| text.split_once(".."))
        .or_else(|| text.split_once('-'))
        .unwrap_or((text, text));
    let (a, b): (i32, i32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a > b || !(1900..=2200).contains(&a) || !(1900..=2200).contains(&b) {
        return Err(bad());
    }
    Ok((a, b))
}

fn workload(a: WorkloadArgs) -> anyhow::Result<ExitCode> {
    let (mut config, formats) = prepare(&a.run)?;
    // The workload counts; it draws nothing, so the formats that only carry places are left out (GeoJSON of
    // the default formats), and a run that asks for none other is told so rather than writing nothing.
    let formats: Vec<OutputFormat> = match formats.into_iter().partition::<Vec<_>, _>(|f| f.has_geometry()) {
        (places, tables) if tables.is_empty() && !places.is_empty() => anyhow::bail!(
            "--format {}: the workload is counts by year, town and tier, with no places to write; choose csv \
             or parquet",
            places[0].extension()
        ),
        (_, tables) => tables,
    };
    config.keep_shapes = false;
    let (first, last) = match &a.years {
        Some(text) => parse_years(text)?,
        None => (config.as_of.year(), config.as_of.year() + 9),
    };
    let set = output_set(&a.run.out, &config)?;
    // The rows are counted as they come, and none kept.
    let (mut run, table) = with_progress(&a.run, |progress| {
        lakeshore::report::workload::stream_workload(&config, progress, first, last)
    })?;
    let writing = std::time::Instant::now();
    let (written, problems) = write_table(&table, set.staging(), "workload", &formats, &config.crs)?;
    if !a.run.quiet {
        say_text!("{table}");
    }
    finish(&a.run, &config, &mut run, problems, written, set, writing)
}

/// Runs `job`, with a progress bar of what it reports on stderr when that is a terminal (and not `--quiet`).
fn with_progress<T>(a: &RunArgs, job: impl FnOnce(&Progress) -> T) -> T {
    use std::io::IsTerminal;
    use std::sync::atomic::{AtomicBool, Ordering};
    if a.quiet || !std::io::stderr().is_terminal() {
        return job(&Progress::default());
    }
    let progress = Progress::default();
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let bar = indicatif::ProgressBar::new(0);
            let style =
                indicatif::ProgressStyle::with_template("{spinner} {msg:<22} {bar:30} {pos}/{len} parcels")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            while !finished.load(Ordering::Relaxed) {
                let (stage, done, total) = progress.snapshot();
                bar.set_message(stage);
                bar.set_length(total as u64);
                bar.set_position(done as u64);
                bar.tick();
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            bar.finish_and_clear();
        });
        let done = job(&progress);
        finished.store(true, Ordering::Relaxed);
        done
    })
}

fn buffer(a: BufferArgs) -> anyhow::Result<ExitCode> {
    if a.from.trim().is_empty() {
        anyhow::bail!(
            "--from is empty: give shoreline, shoreline-layer, systems or a layer file to measure from"
        );
    }
    let (config, formats) = prepare(&a.run)?;
    let set = output_set(&a.run.out, &config)?;
    let from = lakeshore::report::buffer::BufferSource::parse(&a.from);
    let (mut run, report, more) = with_progress(&a.run, |progress| -> anyhow::Result<_> {
        Ok(lakeshore::report::buffer::stream_buffer_report(
            &config,
            &from,
            a.distance,
            &a.features,
            progress,
        )?)
    })?;
    run.timings.extend(report.timings.iter().copied());
    let mut problems = more;
    let writing = std::time::Instant::now();
    let table = lakeshore::report::buffer::table::BufferTable::new(&report);
    let (written, cleaned) = write_table(&table, set.staging(), "buffer", &formats, &config.crs)?;
    problems.extend(cleaned);
    if !a.run.quiet {
        let parcels = report.hits.iter().filter(|h| h.kind == "parcel").count();
        say!(
            "{} parcels and {} features within {} ft of {}",
            parcels,
            report.hits.len() - parcels,
            report.distance_ft,
            report.source
        );
    }
    let code = finish(&a.run, &config, &mut run, problems, written, set, writing)?;
    std::mem::forget(run);
    Ok(code)
}

/// Runs the schedule and collects the open obligations, reporting both to `progress`; the problems the
/// obligations found (the schedule's are the run's).
fn run_obligations(
    config: &Config,
    progress: &Progress,
) -> anyhow::Result<(Run, Vec<lakeshore::law::obligations::Obligation>, Vec<lakeshore::model::error::Problem>)>
{
    let mut run = run_schedule_with(config, progress)?;
    let (started, cpu) = (std::time::Instant::now(), lakeshore::pipeline::cpu_time());
    progress.start("collecting obligations", 0);
    let (found, more, notes) = run.obligations(config.as_of);
    run.timings.push(lakeshore::pipeline::Lap::since("obligations", started, cpu));
    run.notes.extend(notes);
    Ok((run, found, more))
}

/// Surveys `dir`, writes `dir/county.toml` and says what was found, what was chosen and what was not
/// decided. Exits 0 when every role was decided or left out as optional (the optional roles left out are
/// named), 2 when something was left for the user, and 1 when a required layer (parcels, shoreline) was not
/// found.
fn init(dir: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let (written, survey) = lakeshore::pipeline::init::init(dir, force)?;
    for f in &survey.found {
        let crs = f.crs.as_deref().map_or(String::new(), |c| format!(", {c}"));
        say!("found {}: {} records{crs}; fields {}", f.name(), f.records, f.fields.join(", "));
    }
    for (path, why) in &survey.unreadable {
        say!("could not read {}: {why}", path.display());
    }
    for (role, path) in &survey.chosen {
        say!("{role:<13} = {}", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    }
    for (role, fields) in &survey.parcel_fields {
        let taken = if fields.is_empty() { "no field found".to_string() } else { fields.join(" + ") };
        say!("parcels {role:<15} {taken}");
    }
    for record in &survey.record_fields {
        let named: Vec<String> =
            record.columns.iter().map(|(role, column)| format!("{role} = {column}")).collect();
        say!("{} columns: {} ({})", record.kind, named.join(", "), record.why);
    }
    for note in &survey.notes {
        say!("note: {note}");
    }
    if !survey.absent.is_empty() {
        say!("left out (optional, no file fits): {}", survey.absent.join(", "));
    }
    say!("wrote {}", written.display());
    for u in &survey.undecided {
        eprintln!("lakeshore: not decided: {u}");
    }
    let config = written.display();
    if !survey.missing.is_empty() {
        let what: Vec<String> = lakeshore::pipeline::init::SIGNALS
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
    say!("next: lakeshore schedule --config {config} --out out/");
    Ok(if survey.undecided.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
