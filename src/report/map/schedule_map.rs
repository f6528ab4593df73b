//! The schedule map of `lakeshore map`: turns a run's rows and the reference layers it read into a
//! [`crate::report::map::MapInput`] — parcels classed by tier or status (failed and overdue marked on either), the
//! mean-high-water line, its buffer at the rule set's distance, the watershed outline, the special flood hazard
//! areas and the towns — for the whole county or one town; and the data of the interactive HTML map
//! ([`html_map`]).

use std::borrow::Cow;

use geo::{BoundingRect, Geometry, MultiPolygon, Simplify};

use crate::crs::Reprojector;
use crate::law::obligations::Obligation;
use crate::law::permits::Class;
use crate::law::schedule::Row;
use crate::model::error::{Error, Result};
use crate::model::table::Table;
use crate::pipeline::Run;
use crate::report::map::html::{
    display_tolerance, simplify_for_display, HtmlLayer, HtmlMap, HtmlObligation, HtmlParcel, PARCEL_FIELDS,
};
use crate::report::map::spill::Spilled;
use crate::report::map::{schedule_scene, ColourBy, MapInput, ParcelClass};
use crate::report::schedule::ScheduleTable;
use crate::report::workload::workload;
use crate::rules::notices::Stage;

/// What to map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapOptions {
    /// Colour parcels by tier, by status or by notice stage.
    pub colour_by: ColourBy,
    /// Only this town (case-insensitive), framed on its boundary.
    pub town: Option<String>,
    /// The stage each parcel's notices reached, by position ([`crate::report::notices::stages`]), for a map by
    /// notice stage.
    pub notices: rustc_hash::FxHashMap<usize, crate::rules::notices::Stage>,
}

pub(crate) fn town_of(row: &Row) -> Option<&str> {
    row.facts.as_ref().and_then(|f| f.town.as_deref()).or(row.parcel.town.as_deref())
}

/// The class of a parcel's tier or status, as the schedule gives it, or of the stage its notices reached
/// (`notices`).
fn base_class(row: &Row, colour_by: ColourBy, notices: &rustc_hash::FxHashMap<usize, Stage>) -> ParcelClass {
    let e = &row.entry;
    let by_tier = || ParcelClass::from_tier(e.tier.as_str()).unwrap_or(ParcelClass::Unscheduled);
    match (colour_by, e.status) {
        (ColourBy::Notice, _) => ParcelClass::from_stage(notices.get(&row.at).copied()),
        (ColourBy::Tier, _) | (ColourBy::Status, None) => by_tier(),
        (ColourBy::Status, Some(status)) => ParcelClass::from_status(status.as_str()).unwrap_or_else(by_tier),
    }
}

/// The class a parcel is drawn in: failed systems and (on a tier map) overdue parcels stand out, set apart
/// from the class of their tier or status ([`base_class`]).
fn class_of(row: &Row, colour_by: ColourBy, notices: &rustc_hash::FxHashMap<usize, Stage>) -> ParcelClass {
    let e = &row.entry;
    if colour_by == ColourBy::Notice {
        return base_class(row, colour_by, notices);
    }
    if e.permit.as_ref().is_some_and(|p| p.class == Class::Failed) {
        return ParcelClass::Failed;
    }
    match colour_by {
        ColourBy::Tier if e.owed.is_some_and(|o| o.overdue) => ParcelClass::Overdue,
        _ => base_class(row, colour_by, notices),
    }
}

/// A polygon feature as one multipolygon: the feature's own when it is one, made of its polygon when it is a
/// polygon; `None` for other kinds.
fn area(geometry: &Geometry<f64>) -> Option<Cow<'_, MultiPolygon<f64>>> {
    match geometry {
        Geometry::MultiPolygon(mp) => Some(Cow::Borrowed(mp)),
        Geometry::Polygon(p) => Some(Cow::Owned(MultiPolygon(vec![p.clone()]))),
        _ => None,
    }
}

/// What a static map keeps of a parcel's row: its position, its shape, the class it is drawn in and the
/// class of its tier or status ([`MapInput::set_apart_from`]). A map of a county streamed a block at a time
/// keeps these alone.
#[derive(Debug, Clone)]
pub struct MapParcel<'a> {
    /// The parcel's position (the parcels are drawn in that order).
    pub at: usize,
    /// Its shape, when usable.
    pub shape: Option<Cow<'a, MultiPolygon<f64>>>,
    /// The class it is drawn in.
    pub class: ParcelClass,
    /// The class of its tier or status.
    pub of: ParcelClass,
}

/// Whether `name` is the town `options` maps (every town when it names none).
pub(crate) fn wanted(rules: &crate::rules::RuleSet, options: &MapOptions, name: Option<&str>) -> bool {
    match (&options.town, name) {
        (None, _) => true,
        (Some(town), Some(name)) => {
            rules.municipality(name).unwrap_or_else(|| name.to_string()).eq_ignore_ascii_case(town.trim())
        }
        (Some(_), None) => false,
    }
}

/// The parcels of `rows` (rows of a run under `rules`) that `options` maps, each with its classes; their
/// shapes borrowed from the rows.
pub fn map_parcels<'a>(
    rules: &crate::rules::RuleSet,
    rows: &'a [Row],
    options: &MapOptions,
) -> Vec<MapParcel<'a>> {
    rows.iter()
        .filter(|row| wanted(rules, options, town_of(row)))
        .map(|row| MapParcel {
            at: row.at,
            shape: row.parcel.shape.as_ref().map(Cow::Borrowed),
            class: class_of(row, options.colour_by, &options.notices),
            of: base_class(row, options.colour_by, &options.notices),
        })
        .collect()
}

/// The parcels a static map draws: held in memory, or spilled to disk as the blocks came
/// ([`Spill`](crate::report::map::spill::Spill)).
#[derive(Debug)]
pub enum Kept<'a> {
    /// The parcels in position order, their shapes held.
    Held(Vec<MapParcel<'a>>),
    /// The parcels written to disk, counted on the way
    /// ([`Spill::finish`](crate::report::map::spill::Spill::finish)).
    Spilled(Box<Spilled>),
    /// The parcels are drawn elsewhere (the tiles of a tiled page); how many have a shape tells a town that
    /// has parcels from a name nothing has.
    Elsewhere(u64),
}

/// The map input of `run` with the reference layers it read ([`Run::reference`]), as `options` asks.
pub fn map_input<'a>(run: &'a Run, options: &MapOptions, as_of: String) -> Result<MapInput<'a>> {
    map_input_of(run, Kept::Held(map_parcels(&run.rules, &run.rows, options)), options, as_of)
}

/// The town boundaries of the reference layers read by `run`, each with its name.
fn towns(run: &Run) -> Vec<(Cow<'_, MultiPolygon<f64>>, String)> {
    run.reference
        .towns
        .iter()
        .flat_map(|layer| layer.features())
        .filter_map(|(geometry, name)| Some((area(geometry)?, name.clone()?)))
        .collect()
}

/// The area a map of one town shows (its boundary's bounds and 5 % of their size around), when `options` names
/// a town that a boundary of `run`'s towns layer has; `None` otherwise, the map then framing its parcels.
pub fn town_frame(run: &Run, options: &MapOptions) -> Option<[f64; 4]> {
    frame(&towns(run), &run.rules, options)
}

fn frame(
    towns: &[(Cow<'_, MultiPolygon<f64>>, String)],
    rules: &crate::rules::RuleSet,
    options: &MapOptions,
) -> Option<[f64; 4]> {
    options.town.as_ref()?;
    let r = towns
        .iter()
        .filter(|(_, name)| wanted(rules, options, Some(name)))
        .find_map(|(s, _)| s.bounding_rect())?;
    let margin = 0.05 * r.width().max(r.height());
    Some([r.min().x - margin, r.min().y - margin, r.max().x + margin, r.max().y + margin])
}

/// The map input of the parcels `kept` of `run` (from its rows, or kept from its blocks as they came), with
/// the reference layers it read, as `options` asks.
pub fn map_input_of<'a>(
    run: &'a Run,
    kept: Kept<'a>,
    options: &MapOptions,
    as_of: String,
) -> Result<MapInput<'a>> {
    let rules = &run.rules;
    let reference = &run.reference;
    let (mut parcels, mut unmapped, mut mapped_of, mut unmapped_of) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let elsewhere = match kept {
        Kept::Elsewhere(n) => n,
        _ => 0,
    };
    let spilled = match kept {
        Kept::Held(held) => {
            for parcel in held {
                match parcel.shape {
                    Some(shape) => {
                        parcels.push((shape, parcel.class));
                        mapped_of.push(parcel.of);
                    }
                    None => {
                        unmapped.push(parcel.class);
                        unmapped_of.push(parcel.of);
                    }
                }
            }
            None
        }
        Kept::Spilled(spill) => Some(std::sync::Arc::<Spilled>::from(spill)),
        Kept::Elsewhere(_) => None,
    };
    mapped_of.extend(unmapped_of);
    let towns = towns(run);
    let extent = frame(&towns, rules, options);
    let drawn =
        !parcels.is_empty() || elsewhere > 0 || spilled.as_ref().is_some_and(|s| s.bounds().is_some());
    if let (Some(town), None, false) = (&options.town, extent, drawn) {
        return Err(Error::Config(format!(
            "--town {town}: no parcel or town polygon of that name; check the spelling"
        )));
    }
    let shoreline: Vec<&Geometry<f64>> = reference.mean_high_water().map(|(g, _)| g).collect();
    let distance_ft = rules.max_distance_ft();
    let buffer_ft = (distance_ft > 0.0 && !shoreline.is_empty()).then_some(distance_ft);
    let floodplain = reference
        .floodplain
        .iter()
        .flat_map(|layer| layer.features())
        .filter(|(_, zone)| zone.sfha)
        .filter_map(|(geometry, _)| area(geometry))
        .collect();
    let what = match options.colour_by {
        ColourBy::Tier => "inspection tiers",
        ColourBy::Status => "inspection status",
        ColourBy::Notice => "notice stages",
    };
    let place = options.town.as_deref().map(|t| format!(", {t}")).unwrap_or_default();
    Ok(MapInput {
        parcels,
        unmapped,
        set_apart_from: mapped_of,
        spilled,
        colour_by: options.colour_by,
        shoreline,
        shoreline_layer: reference
            .supplied_shoreline()
            .filter(|(_, name)| reference.derived_mhw.iter().any(|d| d.water_body == *name))
            .map(|(g, _)| g)
            .collect(),
        buffer_ft,
        watershed: reference
            .watersheds
            .iter()
            .flat_map(|layer| layer.features())
            .filter_map(|(geometry, _)| area(geometry))
            .collect(),
        floodplain,
        towns,
        title: format!("{}{place}: septic {what}", rules.jurisdiction.name),
        as_of,
        extent,
    })
}

/// The international foot; a State Plane survey foot differs from it by two parts in a million, nothing on
/// a screen.
const METRES_PER_FOOT: f64 = 0.3048;

/// What the HTML map adds to a [`MapInput`]: the open obligations of the run's parcels (any order), the
/// workload span and the base map.
pub struct HtmlExtras<'a> {
    /// Open obligations, as [`crate::law::obligations::collect`] found them.
    pub obligations: &'a [Obligation],
    /// First and last year of the workload chart.
    pub years: (i32, i32),
    /// A tile URL template for a base map.
    pub basemap: Option<String>,
    /// The last notice each parcel's open duties reached, by the parcel's position
    /// ([`crate::report::notices::stages`]).
    pub notices: &'a rustc_hash::FxHashMap<usize, crate::law::escalation::Issued>,
}

/// The interactive map of `run` ([`crate::report::map::html`]): the parcels `options` selects with their schedule
/// columns (as `schedule.csv` writes them), open obligations and classes by tier and by status, the
/// reference layers of the PNG map (those the run read), and the workload per year; shapes simplified for
/// display at the extent's tolerance and reprojected to WGS 84.
pub fn html_map(
    run: &Run,
    options: &MapOptions,
    as_of: chrono::NaiveDate,
    extras: HtmlExtras<'_>,
    to_wgs84: &Reprojector,
) -> Result<HtmlMap> {
    let input = map_input(run, options, as_of.to_string())?;
    let scene = schedule_scene(&input);
    let tolerance = display_tolerance(scene.extent);
    let project = |shape: &MultiPolygon<f64>| display_shape(shape, tolerance, to_wgs84);
    let layers = reference_layers(&scene, tolerance, to_wgs84);

    let schedule = ScheduleTable::new(run);
    // The fields are shown as the schedule's files write them, control characters replaced and counted.
    let controls = crate::model::controls::Controls::default();
    let table = crate::model::controls::Cleaned::new(&schedule, &|i| i, Some(&controls));
    let columns = field_columns(&table);
    let mut owed: Vec<Vec<&Obligation>> = vec![Vec::new(); run.rows.len()];
    for o in extras.obligations {
        owed[o.parcel].push(o);
    }
    let (mut parcels, mut unmapped) = (Vec::new(), 0);
    for (i, row) in run.rows.iter().enumerate().filter(|(_, row)| wanted(&run.rules, options, town_of(row))) {
        let Some(shape) = row.parcel.shape.as_ref().and_then(&project) else {
            unmapped += 1;
            continue;
        };
        let notice = extras.notices.get(&row.at);
        parcels.push(html_parcel(row, (&table, i, &columns), &owed[i], notice, options, shape));
    }

    let (per_year, backlog) = workload_bars(&workload(run, as_of, extras.years.0, extras.years.1));
    Ok(HtmlMap {
        title: input.title.clone(),
        as_of: as_of.to_string(),
        colour_by: options.colour_by,
        unmapped,
        basemap: extras.basemap,
        parcels,
        layers,
        workload: per_year,
        backlog,
        problems: controls.problems(std::path::Path::new("map.html"), table.columns()),
        tiles: None,
    })
}

/// The reference layers of `scene` as the HTML map draws them: simplified at `tolerance` and in WGS 84.
pub(crate) fn reference_layers(
    scene: &crate::report::map::Scene,
    tolerance: f64,
    to_wgs84: &Reprojector,
) -> Vec<HtmlLayer> {
    let mut layers = Vec::new();
    for layer in scene.layers.iter().filter(|l| !l.name.starts_with("parcels-")) {
        let lines = layer
            .lines
            .iter()
            .filter_map(|l| match to_wgs84.transform(&Geometry::LineString(l.simplify(tolerance))) {
                Ok(Geometry::LineString(l)) => Some(l),
                _ => None,
            })
            .collect();
        layers.push(HtmlLayer {
            name: reference_label(&layer.name).to_string(),
            style: layer.style,
            polygons: layer.polygons.iter().filter_map(|p| display_shape(p, tolerance, to_wgs84)).collect(),
            lines,
            above: layer.name != "lake" && layer.name != "floodplain",
            band_m: layer.band.map(|d| d / scene.units_per_foot * METRES_PER_FOOT),
        });
    }
    layers
}

/// The HTML map's workload chart of `work`: inspections due per year of its span, and the backlog.
pub(crate) fn workload_bars(work: &crate::report::workload::Workload) -> (Vec<(i32, u64)>, u64) {
    let mut per_year: std::collections::BTreeMap<i32, u64> =
        (work.years.0..=work.years.1).map(|y| (y, 0)).collect();
    for r in &work.rows {
        *per_year.entry(r.year).or_default() += r.due;
    }
    (per_year.into_iter().collect(), work.rows.iter().map(|r| r.backlog).sum())
}

/// `shape` as the HTML map shows it: simplified at `tolerance` and in WGS 84; `None` when it cannot be.
pub(crate) fn display_shape(
    shape: &MultiPolygon<f64>,
    tolerance: f64,
    to_wgs84: &Reprojector,
) -> Option<MultiPolygon<f64>> {
    match to_wgs84.transform(&Geometry::MultiPolygon(simplify_for_display(shape, tolerance))) {
        Ok(Geometry::MultiPolygon(m)) => Some(m),
        _ => None,
    }
}

/// The columns of the (cleaned) schedule `table` that [`PARCEL_FIELDS`] name, `None` for those it has not.
pub(crate) fn field_columns<T: Table + ?Sized>(table: &T) -> Vec<Option<usize>> {
    let column = |name: &str| table.columns().iter().position(|(n, _)| *n == name);
    PARCEL_FIELDS.iter().map(|f| column(f)).collect()
}

/// The HTML map's parcel of `row`, shown as `shape` (WGS 84): its fields from row `i` of the cleaned
/// schedule `table` at `columns` ([`field_columns`]) and from the last notice its duties reached, its open
/// obligations `owed` and its classes by tier and by status. The single page and the tiles make every parcel
/// by this one function, so a parcel tells one story in both.
pub(crate) fn html_parcel<T: Table + ?Sized>(
    row: &Row,
    (table, i, columns): (&T, usize, &[Option<usize>]),
    owed: &[&Obligation],
    notice: Option<&crate::law::escalation::Issued>,
    options: &MapOptions,
    shape: MultiPolygon<f64>,
) -> HtmlParcel {
    let fields = std::array::from_fn(|k| match PARCEL_FIELDS[k] {
        "notice_stage" => notice.map(|n| n.stage.to_string()).unwrap_or_default(),
        "notice" => notice.map(|n| format!("{} {}, {}", n.stage, n.letter, n.issued)).unwrap_or_default(),
        _ => columns[k].map(|c| table.cell(i, c).render().into_owned()).unwrap_or_default(),
    });
    let obligations = owed
        .iter()
        .map(|o| HtmlObligation {
            what: o.what.to_string(),
            due: o.due.map(|d| d.to_string()).unwrap_or_default(),
            overdue: o.overdue,
            citation: o.citation.to_string(),
        })
        .collect();
    HtmlParcel {
        shape,
        fields,
        tier_class: class_of(row, ColourBy::Tier, &options.notices),
        status_class: class_of(row, ColourBy::Status, &options.notices),
        overdue: row.entry.owed.is_some_and(|o| o.overdue),
        obligations,
    }
}

/// The name a reference layer of [`schedule_scene`] goes by in the HTML map's layer list.
fn reference_label(name: &str) -> &str {
    match name {
        "lake" => "Lake",
        "shoreline" => "Shoreline (mean high water)",
        "buffer" => "Buffer from the shoreline",
        "watershed" => "Watershed",
        "floodplain" => "Floodplain (FEMA)",
        "towns" => "Towns",
        other => other,
    }
}

/// The QGIS style of the schedule (`schedule.qml`): one category per tier of `rules` in rule order, then
/// unscheduled, coloured as on the PNG map (a tier the map has no colour for gets one of a fixed
/// colour-blind-safe cycle).
pub fn schedule_style(rules: &crate::rules::RuleSet) -> String {
    use crate::report::map::qml::{schedule_qml, Category};
    use crate::report::map::Rgba;
    const SPARE: [u32; 4] = [0xCC79A7, 0xD55E00, 0x999933, 0x882255];
    let mut tiers: Vec<&str> = Vec::new();
    for rule in &rules.rules {
        if !tiers.contains(&rule.tier.as_str()) {
            tiers.push(&rule.tier);
        }
    }
    let mut spare = SPARE.iter().cycle();
    let mut categories: Vec<Category> = tiers
        .iter()
        .map(|tier| {
            let class = ParcelClass::from_tier(tier);
            let fill = class
                .and_then(|c| c.style().fill)
                .unwrap_or_else(|| Rgba::hex(*spare.next().unwrap_or(&SPARE[0])));
            Category { value: tier.to_string(), label: class.map_or(*tier, |c| c.label()).to_string(), fill }
        })
        .collect();
    let unscheduled = ParcelClass::Unscheduled;
    categories.push(Category {
        value: crate::law::schedule::Tier::Unscheduled.to_string(),
        label: unscheduled.label().to_string(),
        fill: unscheduled.style().fill.unwrap_or(Rgba::hex(0xD9D9D9)),
    });
    schedule_qml(&categories)
}
