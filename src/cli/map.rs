//! `lakeshore map`: the schedule drawn as a PNG or SVG image, or the interactive HTML page, written into the
//! output set beside its problems.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::Datelike;
use lakeshore::pipeline::{run_schedule_with, stream_schedule};
use lakeshore::write::OutputSet;

use super::args::{ColourByArg, FormatArg, MapArgs, TilesArg};
use super::{finish, output_set, prepare, run_obligations, with_progress};

pub(super) fn map(mut a: MapArgs) -> anyhow::Result<ExitCode> {
    use lakeshore::report::map::schedule_map::{map_input_of, map_parcels, town_frame, Kept, MapOptions};
    use lakeshore::report::map::spill::Spill;
    use lakeshore::report::map::{render_png, schedule_scene, write_svg};
    let format = map_format(&mut a)?;
    if format == FormatArg::Html {
        return html_map(a);
    }
    if a.tiles.is_some() {
        let image = if format == FormatArg::Svg { "an SVG" } else { "a PNG" };
        anyhow::bail!(
            "--tiles applies to the HTML map: give --format html, or leave --tiles out for {image} image"
        );
    }
    // The image's size is checked before the run: a size it cannot draw stops it at once.
    if format == FormatArg::Png {
        lakeshore::report::map::check_png_size(a.width, a.height).map_err(anyhow::Error::msg)?;
    }
    let colour_by = colour_by(a.by);
    // `--out out/` (a folder) means `out/map.png` (or `.svg`).
    let out = match file_extension(&a.run.out) {
        Some(_) => a.run.out.clone(),
        None if format == FormatArg::Svg => a.run.out.join("map.svg"),
        None => a.run.out.join("map.png"),
    };
    let (config, _) = prepare(&a.run)?;
    let set = output_set(out.parent().unwrap_or(Path::new("")), &config)?;
    // The reference layers drawn are those the run read.
    let mut options = MapOptions { colour_by, town: a.town.clone(), ..Default::default() };
    let file = staged_file(&set, &out)?;
    let (mut run, laps) = with_progress(&a.run, |progress| -> anyhow::Result<_> {
        let by_notice = colour_by == lakeshore::report::map::ColourBy::Notice;
        // A map by tier or status writes each block's parcels (shape and classes) to disk as it comes, beside
        // the map; a map by notice stage asks the obligations of the whole run.
        let mut spill: Option<Spill> = None;
        let run = match by_notice {
            true => run_schedule_with(&config, progress)?,
            false => stream_schedule(&config, progress, &mut |run, rows| {
                let spill = spill.get_or_insert_with(|| Spill::new(&file, town_frame(run, &options)));
                // In order of position, so that a class's file is read back in one sweep when the blocks come
                // in order.
                let mut parcels = map_parcels(&run.rules, &rows, &options);
                parcels.sort_unstable_by_key(|p| p.at);
                for p in parcels {
                    spill.add(p.at, p.shape.as_deref(), p.class, p.of)?;
                }
                Ok(())
            })?,
        };
        let mut clock = lakeshore::pipeline::Stopwatch::new();
        if by_notice {
            // The stage each parcel's open duties reached, as the program store recorded them.
            let store = lakeshore::program::Store::read(&config.store)?;
            let (found, _, _) = run.obligations(config.as_of);
            let stages = lakeshore::report::notices::stages(&run, &found, config.as_of, store.as_ref())?;
            options.notices = stages.into_iter().map(|(at, n)| (at, n.stage)).collect();
        }
        progress.start("laying out the map", 0);
        let kept = match by_notice {
            true => Kept::Held(map_parcels(&run.rules, &run.rows, &options)),
            false => Kept::Spilled(Box::new(spill.unwrap_or_else(|| Spill::new(&file, None)).finish()?)),
        };
        let input = map_input_of(&run, kept, &options, config.as_of.to_string())?;
        let scene = schedule_scene(&input);
        clock.lap("map: layers and parcels");
        progress.start("drawing the map", 0);
        if format == FormatArg::Svg {
            lakeshore::write::write_atomic(&file, |w| write_svg(&scene, a.width, a.height, w))?;
        } else {
            let bytes = render_png(&scene, a.width, a.height)
                .map_err(|e| anyhow::anyhow!("cannot draw the map: {e}"))?;
            lakeshore::write::write_atomic(&file, |w| w.write_all(&bytes))?;
        }
        clock.lap("map: draw");
        drop(input);
        Ok((run, clock.laps))
    })?;
    run.timings.extend(laps);
    let writing = std::time::Instant::now();
    // Problems go beside the image.
    let code = finish(&a.run, &config, &mut run, Vec::new(), vec![file], set, writing)?;
    std::mem::forget(run);
    Ok(code)
}

/// The extension of the map file `out` names, none when it names a folder: one that exists, or any `--out`
/// ending with a separator (`maps.2027/`).
fn file_extension(out: &Path) -> Option<&std::ffi::OsStr> {
    let text = out.as_os_str().to_string_lossy();
    let folder = out.is_dir() || text.chars().last().is_some_and(std::path::is_separator);
    if folder {
        None
    } else {
        out.extension()
    }
}

/// The map's format: the one `--format` names (png, svg or html), else the `--out` file's extension, else
/// PNG. The table formats of `--format` do not apply to a map and are dropped.
fn map_format(a: &mut MapArgs) -> anyhow::Result<FormatArg> {
    let image = |f: &FormatArg| matches!(f, FormatArg::Png | FormatArg::Svg | FormatArg::Html);
    let mut asked: Vec<FormatArg> = a.run.format.iter().copied().filter(image).collect();
    asked.dedup();
    a.run.format.retain(|f| !image(f));
    let extension = file_extension(&a.run.out).and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let from_name = match extension.as_deref() {
        None => None,
        Some("png") => Some(FormatArg::Png),
        Some("svg") => Some(FormatArg::Svg),
        Some("html" | "htm") => Some(FormatArg::Html),
        Some(_) => anyhow::bail!(
            "--out {}: name the map file map.png, map.svg or map.html, or give a folder (one that does not \
             exist yet is taken for a folder when --out ends with '/')",
            a.run.out.display()
        ),
    };
    match (asked.as_slice(), from_name) {
        ([], name) => Ok(name.unwrap_or(FormatArg::Png)),
        ([one], None) => Ok(*one),
        ([one], Some(name)) if *one == name => Ok(name),
        _ => anyhow::bail!(
            "--format and --out ask for different maps: give one of png, svg or html, and an --out file of \
             that kind or a folder"
        ),
    }
}

/// `lakeshore map --format html`: the interactive map, `map.html` in the `--out` folder or the `.html` file
/// named.
fn html_map(a: MapArgs) -> anyhow::Result<ExitCode> {
    use lakeshore::report::map::schedule_map::{html_map, HtmlExtras, MapOptions};
    let out = match file_extension(&a.run.out) {
        Some(_) => a.run.out.clone(),
        None => a.run.out.join("map.html"),
    };
    let colour_by = colour_by(a.by);
    let (config, _) = prepare(&a.run)?;
    let tiled = match a.tiles.unwrap_or(TilesArg::Auto) {
        TilesArg::Always => true,
        TilesArg::Never => false,
        TilesArg::Auto => {
            lakeshore::pipeline::parcel_records(&config)? > lakeshore::report::map::tiles::TILES_ABOVE
        }
    };
    if tiled {
        return tiled_map(a, config, &out);
    }
    let mut set = output_set(out.parent().unwrap_or(Path::new("")), &config)?;
    // The page's name is checked before the run, not after it.
    let file = staged_file(&set, &out)?;
    let to_wgs84 = lakeshore::crs::Reprojector::new(&config.crs, &lakeshore::crs::Crs::wgs84())?;
    let year = config.as_of.year();
    let options = MapOptions { colour_by, town: a.town.clone(), ..Default::default() };
    let (mut run, found, problems, html, laps) = with_progress(&a.run, |progress| -> anyhow::Result<_> {
        let (run, found, mut problems) = run_obligations(&config, progress)?;
        let mut clock = lakeshore::pipeline::Stopwatch::new();
        progress.start("laying out the map", 0);
        // The stage each parcel's notices reached, as the program store recorded them (none without a store).
        let store = lakeshore::program::Store::read(&config.store)?;
        let notices = lakeshore::report::notices::stages(&run, &found, config.as_of, store.as_ref())?;
        let extras = HtmlExtras {
            obligations: &found,
            years: (year, year + 9),
            basemap: a.basemap.clone(),
            notices: &notices,
        };
        let page = html_map(&run, &options, config.as_of, extras, &to_wgs84)?;
        clock.lap("map: layers and parcels");
        progress.start("writing the page", 0);
        let html = lakeshore::report::map::html::render_html(&page);
        problems.extend(page.problems.iter().cloned());
        clock.lap("map: page");
        Ok((run, found, problems, html, clock.laps))
    })?;
    run.timings.extend(laps);
    let writing = std::time::Instant::now();
    lakeshore::write::write_atomic(&file, |w| w.write_all(html.as_bytes()))?;
    // A tiled map of the same name before this page leaves no tiles behind it.
    set.retire(stale_tiles(&set, &out, &[]));
    let code = finish(&a.run, &config, &mut run, problems, vec![file], set, writing)?;
    std::mem::forget(found);
    std::mem::forget(run);
    Ok(code)
}

/// `lakeshore map --format html` tiled ([`lakeshore::report::map::tiles`]): the page `out` and the tiles
/// beside it, written as the run's blocks come.
fn tiled_map(
    a: MapArgs,
    config: lakeshore::pipeline::config::Config,
    out: &Path,
) -> anyhow::Result<ExitCode> {
    use lakeshore::report::map::schedule_map::MapOptions;
    use lakeshore::report::map::tiled_map::{stream_tiled_map, TiledExtras};
    let mut set = output_set(out.parent().unwrap_or(Path::new("")), &config)?;
    // The page's name is checked before the run, not after it.
    let file = staged_file(&set, out)?;
    let prefix = lakeshore::report::map::tiles::tile_prefix(out);
    let to_wgs84 = lakeshore::crs::Reprojector::new(&config.crs, &lakeshore::crs::Crs::wgs84())?;
    let year = config.as_of.year();
    let options = MapOptions { colour_by: colour_by(a.by), town: a.town.clone(), ..Default::default() };
    let mut store = lakeshore::program::Store::read(&config.store)?;
    let (mut run, html, tiles, problems, laps) = with_progress(&a.run, |progress| -> anyhow::Result<_> {
        let extras =
            TiledExtras { years: (year, year + 9), basemap: a.basemap.clone(), store: store.as_mut() };
        let mut clock = lakeshore::pipeline::Stopwatch::new();
        let (run, page, tiles) =
            stream_tiled_map(&config, progress, &options, extras, (&to_wgs84, set.staging(), &prefix))?;
        clock.lap("map: tiles");
        progress.start("writing the page", 0);
        let html = lakeshore::report::map::html::render_html(&page);
        clock.lap("map: page");
        Ok((run, html, tiles, page.problems, clock.laps))
    })?;
    run.timings.extend(laps);
    let writing = std::time::Instant::now();
    lakeshore::write::write_atomic(&file, |w| w.write_all(html.as_bytes()))?;
    // The tiles are published with the page; the page alone is named, not thousands of tiles. The tiles an
    // earlier map of the same name had where this one has none go once the new ones are in place.
    set.retire(stale_tiles(&set, out, &tiles));
    drop(tiles);
    let code = finish(&a.run, &config, &mut run, problems, vec![file], set, writing)?;
    std::mem::forget(run);
    Ok(code)
}

/// The tiles of an earlier map of the page `out` in the folder of `set` that the new map, with the tiles
/// `kept` (paths in the staging folder), does not have.
fn stale_tiles(set: &OutputSet, out: &Path, kept: &[PathBuf]) -> Vec<PathBuf> {
    use lakeshore::report::map::tiles::{stale_tiles, tile_prefix};
    let kept = kept.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
    stale_tiles(set.dir(), &tile_prefix(out), &kept)
}

/// Where the map file `out` is written in the staging folder of `set`: under its own name, checked to be a
/// plain file name.
fn staged_file(set: &OutputSet, out: &Path) -> anyhow::Result<PathBuf> {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(lakeshore::write::output_path(set.staging(), &name)?)
}

/// The map's colouring for `--by`.
fn colour_by(by: ColourByArg) -> lakeshore::report::map::ColourBy {
    match by {
        ColourByArg::Tier => lakeshore::report::map::ColourBy::Tier,
        ColourByArg::Status => lakeshore::report::map::ColourBy::Status,
        ColourByArg::Notice => lakeshore::report::map::ColourBy::Notice,
    }
}
