//! `lakeshore notices` (a draft, `--issue` or `--reprint`) and the commands that record what the post said of
//! a letter (`returned`, `received`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::{Datelike, NaiveDate};
use lakeshore::program::batch::{batch_file, published, BATCH_FILE};
use lakeshore::program::mail::Mail;
use lakeshore::program::{Store, StoreLock};
use lakeshore::report::labels::write_labels;
use lakeshore::report::letters::{write_letters, Template};
use lakeshore::report::notices::{stream_notices, CannotMail, MergeTable, Notices};
use lakeshore::report::{write_table, OutputFormat};

use super::args::{MailArgs, NoticesArgs};
use super::{finish, output_set, parse_date, prepare_tables, with_progress};

/// How many years either side of the as-of year `--year` may name.
const NOTICE_YEARS_AROUND: i32 = 10;

/// The program's arguments, for the locks' word of who holds them and the store's record of a batch.
fn command() -> Vec<String> {
    std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect()
}

/// Checks `store` for a run that records in it: batches left pending by runs cut short are settled first
/// (issued when their files were published, forgotten otherwise), and each is told.
fn settle(store: &mut Store) -> anyhow::Result<()> {
    let command = command();
    for told in store.settle(|dir, token| published(dir, token, &command))? {
        say!("note: {told}");
    }
    Ok(())
}

pub(super) fn notices(a: NoticesArgs) -> anyhow::Result<ExitCode> {
    // A bad template, or --pdf without Chromium, stops the run before any work.
    let template = match &a.template {
        Some(path) => Template::load(path)?,
        None => Template::builtin()?,
    };
    let chromium = match (a.pdf, lakeshore::report::print::find_chromium()) {
        (false, _) => None,
        (true, Some(found)) => Some(found),
        (true, None) => anyhow::bail!(
            "--pdf needs Chromium and none was found (chromium, chromium-browser or google-chrome on PATH, or CHROMIUM=path): install it, or leave out --pdf and print letters.html and labels.html from a browser"
        ),
    };
    let (config, formats) = prepare_tables(&a.run)?;
    let template = template.with_office(&config.office);
    // Letters that would print a placeholder contact, or none, are not issued; a draft is warned.
    let contact = template.contact_problem();
    if let (true, Some(why)) = (a.issue, &contact) {
        anyhow::bail!("{why}; nothing was issued");
    }
    if let Some(batch) = a.reprint {
        return reprint(&a, &config, batch, &template, chromium.as_deref());
    }
    let year = a.year.unwrap_or(config.as_of.year());
    // A year far from the as-of date is a slip of the keyboard (`--year 20277`), not a year whose letters to
    // send (and, with --issue, record for good).
    let near = config.as_of.year() - NOTICE_YEARS_AROUND..=config.as_of.year() + NOTICE_YEARS_AROUND;
    if !near.contains(&year) {
        anyhow::bail!(
            "--year {year} is more than {NOTICE_YEARS_AROUND} years from the as-of date ({}): give the year whose \
             notices to write (default: the as-of year), or an --as-of in it; nothing was written",
            config.as_of
        );
    }
    // An issuing run holds the store's lock from before it reads the store until the batch is issued.
    let _lock = match a.issue {
        true => Some(StoreLock::take(&config.store, &command())?),
        false => None,
    };
    let mut store = match a.issue {
        true => Some(Store::open(&config.store)?),
        false => Store::read(&config.store)?,
    };
    if let (true, Some(store)) = (a.issue, store.as_mut()) {
        settle(store)?;
        if let Some(last) = store.last_issued()?.filter(|last| *last > config.as_of) {
            anyhow::bail!(
                "{}: a batch was issued on {last}, after --as-of {}: notices are issued in order of their dates; give --as-of {last} or later",
                config.store.display(),
                config.as_of
            );
        }
    }
    let set = output_set(&a.run.out, &config)?;
    // Of each block only what the notices print of the noticed parcels is kept (their shapes only for a
    // format that writes geometry, every one but CSV), and the duties that cannot be mailed are written.
    let dir = set.staging().to_path_buf();
    let shapes = formats.iter().any(|f| *f != OutputFormat::Csv);
    let (mut run, list, cannot_mail) = with_progress(&a.run, |progress| {
        let block = (year, lakeshore::pipeline::PARCEL_BLOCK);
        stream_notices(&config, progress, block, store.as_mut(), (&dir, shapes))
    })?;
    let writing = std::time::Instant::now();
    let mut pending = None;
    if let (true, Some(store), true) = (a.issue, store.as_mut(), list.letter_count() > 0) {
        let line = lakeshore::write::set::command_line(&command());
        let (id, token) = store.record_pending(&list.batch, set.dir(), &line)?;
        let text = batch_file(id, &token, &config.store, &list.batch);
        lakeshore::write::write_atomic(&dir.join(BATCH_FILE), |out| out.write_all(text.as_bytes()))?;
        pending = Some(id);
    }
    let (written, mut problems) = write_notices(
        &list,
        (&dir, Some(cannot_mail)),
        &formats,
        &config.crs,
        &template,
        chromium.as_deref(),
    )?;
    if let Some(why) = contact {
        let file = a.run.config.clone().unwrap_or_else(|| PathBuf::from("county.toml"));
        problems.push(lakeshore::model::error::Problem::new(
            file,
            lakeshore::model::error::Location::WholeFile,
            why,
        ));
    }
    if !a.run.quiet {
        summary(&list, year, a.issue);
    }
    let finished = finish(&a.run, &config, &mut run, problems, written, set, writing);
    match (pending, store.as_mut()) {
        (Some(id), Some(store)) => match finished {
            Ok(code) => {
                store.mark_issued(id)?;
                if !a.run.quiet {
                    let letters = &list.batch.letters;
                    say!(
                        "issued batch {id} on {}: letters {} to {}, recorded in {}",
                        config.as_of,
                        letters[0].number,
                        letters[letters.len() - 1].number,
                        config.store.display()
                    );
                }
                Ok(code)
            }
            Err(e) => {
                // Published or not, the store says so before the run stops.
                let _ = settle(store);
                Err(e)
            }
        },
        _ => finished,
    }
}

/// Writes the notices' files into `dir`: `notices` in `formats`, `letters.csv` and `cannot_mail.csv` (unless
/// it was written as the run streamed, at `cannot_mail`), the letters and labels (and their PDFs through
/// `chromium`); returns the files and the problems of the tables' text.
fn write_notices(
    list: &Notices,
    (dir, cannot_mail): (&Path, Option<PathBuf>),
    formats: &[OutputFormat],
    crs: &lakeshore::crs::Crs,
    template: &Template,
    chromium: Option<&Path>,
) -> anyhow::Result<(Vec<PathBuf>, Vec<lakeshore::model::error::Problem>)> {
    let (mut written, problems) = write_table(list, dir, "notices", formats, crs)?;
    // Their text is the notices' text, reported with them.
    written.extend(write_table(&MergeTable(list), dir, "letters", &[OutputFormat::Csv], crs)?.0);
    match cannot_mail {
        Some(path) => written.push(path),
        None => {
            let table = CannotMail(list.cannot_mail());
            written.extend(write_table(&table, dir, "cannot_mail", &[OutputFormat::Csv], crs)?.0);
        }
    }
    let html = [write_letters(list, template, dir, list.batch.issued)?, write_labels(list, dir)?];
    written.extend(html.iter().cloned());
    if let Some(chromium) = chromium {
        for page in html {
            let pdf = page.with_extension("pdf");
            lakeshore::report::print::print_to_pdf(chromium, &page, &pdf)?;
            written.push(pdf);
        }
    }
    Ok((written, problems))
}

/// Says what the notices hold: letters by stage, duties waiting, duties that cannot be mailed.
fn summary(list: &Notices, year: i32, issue: bool) {
    let stages: Vec<String> = list.by_stage().iter().map(|(s, n)| format!("{n} {s}")).collect();
    let draft = if issue { "" } else { " (draft: nothing recorded; --issue records them)" };
    say!(
        "{} notices for {year} in {} letters{}{draft}",
        list.item_count(),
        list.letter_count(),
        if stages.is_empty() { String::new() } else { format!(": {}", stages.join(", ")) }
    );
    if !list.waiting().is_empty() {
        say!(
            "{} already noticed at their stage, nothing more due yet (listed in notices.csv)",
            list.waiting().len()
        );
    }
    if list.cannot_mail_count() > 0 {
        say!("{} notices cannot be mailed: see cannot_mail.csv", list.cannot_mail_count());
    }
}

/// `notices --reprint BATCH`: the issued batch's letters, labels and tables again, from the store alone.
fn reprint(
    a: &NoticesArgs,
    config: &lakeshore::pipeline::config::Config,
    batch: i64,
    template: &Template,
    chromium: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let Some(store) = Store::read(&config.store)? else {
        anyhow::bail!(
            "{}: no program store: no batch has been issued to print again",
            config.store.display()
        );
    };
    let batch = store.batch(batch)?;
    let set = output_set(&a.run.out, config)?;
    let list = Notices::reprint(&config.rules, batch);
    let formats: Vec<OutputFormat> = vec![OutputFormat::Csv];
    let (written, _) =
        write_notices(&list, (set.staging(), None), &formats, &config.crs, template, chromium)?;
    let mut written: Vec<PathBuf> = written.iter().map(|p| set.published(p)).collect();
    written.extend(set.publish(list.batch.issued)?.pop());
    if !a.run.quiet {
        say!(
            "{} letters of batch {} printed again, as issued on {}",
            list.letter_count(),
            list.batch.id.unwrap_or_default(),
            list.batch.issued
        );
        for path in &written {
            say!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `lakeshore returned` and `lakeshore received`: records `what` of the letters named, in one transaction.
pub(super) fn mail(a: MailArgs, what: Mail) -> anyhow::Result<ExitCode> {
    let today = chrono::Local::now().date_naive();
    let on = match &a.as_of {
        Some(text) => parse_date(text)?,
        None => today,
    };
    let store = match (&a.store, &a.config) {
        (Some(store), _) => store.clone(),
        (None, Some(config)) => lakeshore::pipeline::config::ConfigFile::load(config)?.store(),
        (None, None) => PathBuf::from(lakeshore::program::DEFAULT_STORE),
    };
    let mut letters: Vec<(String, NaiveDate)> =
        a.letters.iter().map(|l| (l.trim().to_string(), on)).collect();
    if let Some(file) = &a.from {
        letters.extend(read_letters(file, on)?);
    }
    if letters.is_empty() {
        anyhow::bail!("name the letters: their numbers (2027-000123) after the command, or --from FILE with a letter column");
    }
    if !store.exists() {
        anyhow::bail!("{}: no program store: no letter has been issued from it", store.display());
    }
    let _lock = StoreLock::take(&store, &command())?;
    let mut opened = Store::open(&store)?;
    settle(&mut opened)?;
    let marked = opened.mark(what, &letters, today)?;
    say!(
        "{marked} letters recorded {} ({} already were), in {}",
        what.as_str(),
        letters.len() - marked,
        store.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The letters of a CSV file with a `letter` column and an optional `date` column (`on` where it is blank),
/// read as the record files are: RFC 4180 quoting, a byte-order mark, and `;` or tab separators (what a
/// spreadsheet saves, and `letters.csv` as lakeshore writes it).
fn read_letters(file: &Path, on: NaiveDate) -> anyhow::Result<Vec<(String, NaiveDate)>> {
    use lakeshore::formats::csv::{CsvReader, Record};
    let at = |e: std::io::Error| anyhow::anyhow!("{}: {e}", file.display());
    let input = std::fs::File::open(file).map_err(at)?;
    let mut reader = CsvReader::sniffing(std::io::BufReader::new(input)).map_err(at)?;
    let mut record = Record::default();
    let blank = |r: &Record| r.fields().all(|f| f.trim().is_empty());
    let mut header = None;
    while reader.read(&mut record).map_err(at)? {
        if !blank(&record) {
            header = Some(record.fields().map(|h| h.trim().to_ascii_lowercase()).collect::<Vec<String>>());
            break;
        }
    }
    let Some(names) = header else {
        anyhow::bail!(
            "{}: the file is empty; give a header `letter,date` and a letter a line",
            file.display()
        );
    };
    let Some(letter) = names.iter().position(|n| n == "letter") else {
        anyhow::bail!(
            "{}: no `letter` column (found {}); name the column of letter numbers `letter`",
            file.display(),
            names.join(", ")
        );
    };
    let date = names.iter().position(|n| n == "date");
    let mut found = Vec::new();
    while reader.read(&mut record).map_err(at)? {
        if blank(&record) {
            continue;
        }
        let line = record.line();
        if let Some(flaw) = record.flaw().filter(|f| !f.keeps_record()) {
            anyhow::bail!(
                "{}, line {}: {}; {}",
                file.display(),
                flaw.line(line),
                flaw.what(&names),
                flaw.fix()
            );
        }
        let cell = |i: Option<usize>| i.and_then(|i| record.field(i)).map(str::trim).unwrap_or_default();
        let number = cell(Some(letter));
        let day = match cell(date) {
            "" => on,
            text => lakeshore::records::parse_date(text).ok_or_else(|| {
                anyhow::anyhow!(
                    "{}, line {line}: date '{text}' is not a date; write it as YYYY-MM-DD",
                    file.display()
                )
            })?,
        };
        if number.is_empty() {
            anyhow::bail!("{}, line {line}: no letter number; give one or remove the line", file.display());
        }
        found.push((number.to_string(), day));
    }
    Ok(found)
}
