//! The tiled interactive map of a run streamed a block at a time ([`stream_tiled_map`]): each block's
//! parcels are made into the single page's records (`schedule_map::html_parcel`) and written into their tiles
//! ([`TileWriter`]); the page that loads them ([`HtmlMap::tiles`]) gets the reference layers, the workload
//! and the tiles' index once the run is done.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use rayon::prelude::*;

use crate::crs::Reprojector;
use crate::law::obligations::{ByParcel, Obligation};
use crate::model::controls::{Cleaned, Controls};
use crate::model::error::Result;
use crate::pipeline::config::Config;
use crate::pipeline::{Progress, Run, PARCEL_BLOCK};
use crate::program::Store;
use crate::report::map::html::{HtmlMap, HtmlParcel};
use crate::report::map::schedule_map::{
    display_shape, field_columns, html_parcel, map_input_of, reference_layers, town_of, wanted,
    workload_bars, Kept, MapOptions,
};
use crate::report::map::schedule_scene;
use crate::report::map::tiles::{TileWriter, BUFFER_LIMIT};
use crate::report::notices::block_stages;
use crate::report::obligations::stream_obligations;
use crate::report::schedule::ScheduleTable;
use crate::report::workload::WorkloadCount;

/// The Douglas–Peucker tolerance of the parcels of tiles, in the working CRS's feet: a tile's parcels are
/// drawn from zoom 14 in, where a foot is under a pixel up to zoom 18.
pub const TILE_TOLERANCE_FT: f64 = 1.0;

/// What the tiled map adds to the run: the workload span, the base map and the program store.
pub struct TiledExtras<'a> {
    /// First and last year of the workload chart.
    pub years: (i32, i32),
    /// A tile URL template for a base map.
    pub basemap: Option<String>,
    /// The program store, whose notices give each parcel's notice stage.
    pub store: Option<&'a mut Store>,
}

/// Runs the schedule in blocks and writes the parcels `options` selects into tiles in `dir`, their names
/// starting with `prefix` ([`crate::report::map::tiles::tile_prefix`]), as the blocks
/// come (see [`crate::report::map::tiles`]), each parcel as the single page shows it (its schedule columns,
/// notice stage, open obligations on `config`'s as-of date and classes), so that memory holds a block and
/// the tiles' buffers. Returns the run (without rows), the page that loads the tiles (no parcel in it), and
/// the tiles' paths.
pub fn stream_tiled_map(
    config: &Config,
    progress: &Progress,
    options: &MapOptions,
    mut extras: TiledExtras<'_>,
    (to_wgs84, dir, prefix): (&Reprojector, &Path, &str),
) -> Result<(Run, HtmlMap, Vec<PathBuf>)> {
    let as_of: NaiveDate = config.as_of;
    let mut writer = TileWriter::new(dir, prefix, BUFFER_LIMIT);
    let controls = Controls::default();
    let mut count = WorkloadCount::new(extras.years);
    let mut records: Option<ByParcel> = None;
    let (mut mapped, mut unmapped) = (0, 0);
    let run = stream_obligations(config, progress, PARCEL_BLOCK, &mut |run, rows, found| {
        // The record files are all read before the first block comes.
        let records = records.get_or_insert_with(|| ByParcel::new(&run.records(), &run.rules, as_of));
        count.add(&rows, records);
        let store = extras.store.as_deref_mut().map(|store| &*store);
        let notices = block_stages(run, &rows, &found, as_of, store)?;
        let schedule = ScheduleTable::of_rows(run, &rows);
        let place = |i: usize| rows[i].at;
        let table = Cleaned::new(&schedule, &place, Some(&controls));
        let columns = field_columns(&table);
        let mut owed: Vec<Vec<&Obligation>> = vec![Vec::new(); rows.len()];
        for (o, &r) in found.obligations.iter().zip(&found.rows) {
            owed[r].push(o);
        }
        // The parcels are made on all cores (simplified, reprojected, their texts rendered), and written into
        // their tiles in the block's order.
        let parcels: Vec<Option<HtmlParcel>> = rows
            .par_iter()
            .enumerate()
            .filter(|(_, row)| wanted(&run.rules, options, town_of(row)))
            .map(|(i, row)| {
                let shape =
                    row.parcel.shape.as_ref().and_then(|s| display_shape(s, TILE_TOLERANCE_FT, to_wgs84))?;
                let notice = notices.get(&row.at);
                Some(html_parcel(row, (&table, i, &columns), &owed[i], notice, options, shape))
            })
            .collect();
        for parcel in parcels {
            match parcel {
                Some(parcel) => {
                    writer.add(&parcel)?;
                    mapped += 1;
                }
                None => unmapped += 1,
            }
        }
        Ok(())
    })?;
    let (index, files) = writer.finish()?;
    let input = map_input_of(&run, Kept::Elsewhere(mapped), options, as_of.to_string())?;
    let scene = schedule_scene(&input);
    let layers =
        reference_layers(&scene, crate::report::map::html::display_tolerance(scene.extent), to_wgs84);
    let (workload, backlog) = workload_bars(&count.finish());
    let columns = ScheduleTable::of_rows(&run, &[]);
    let problems = controls.problems(Path::new("map.html"), crate::model::table::Table::columns(&columns));
    let page = HtmlMap {
        title: input.title.clone(),
        as_of: as_of.to_string(),
        colour_by: options.colour_by,
        basemap: extras.basemap,
        parcels: Vec::new(),
        unmapped,
        layers,
        workload,
        backlog,
        problems,
        tiles: Some(index),
    };
    drop(input);
    Ok((run, page, files))
}
