//! Maps of the schedule: parcels coloured by inspection tier or by status over the shoreline, the 500-ft
//! buffer, the watershed, the floodplain and the towns, with a legend, scale bar, north arrow, title and
//! as-of date, drawn as PNG or SVG in pure Rust (tiny-skia, ab_glyph and the bundled DejaVu Sans; no system
//! library or font).
//!
//! Two layers:
//!
//! - [`Scene`] is what a map shows, in working-CRS feet: [`MapLayer`]s of polygons and lines each with one
//!   [`Style`], [`Label`]s and [`LegendEntry`]s. [`render_png`] and [`render_svg`] draw it on an image laid out
//!   by [`layout`] (feet square, y up, north at the top).
//! - [`schedule_scene`] builds the scene of a schedule from a [`MapInput`]: parcels with their
//!   [`ParcelClass`] plus the reference layers. The module knows nothing of the pipeline; the caller turns its
//!   rows into a `MapInput`.
//!
//! ```
//! use geo::{polygon, MultiPolygon};
//! use lakeshore::report::map::{render_png, render_svg, schedule_scene, MapInput, ParcelClass};
//!
//! let lot = MultiPolygon(vec![polygon![(x: 0.0, y: 0.0), (x: 200.0, y: 0.0), (x: 200.0, y: 100.0), (x: 0.0, y: 100.0)]]);
//! let input = MapInput {
//!     parcels: vec![(std::borrow::Cow::Borrowed(&lot), ParcelClass::Overdue)],
//!     title: "Owasco Lake watershed".into(),
//!     as_of: "2027-01-15".into(),
//!     ..MapInput::default()
//! };
//! let scene = schedule_scene(&input);
//! let png = render_png(&scene, 800, 600).unwrap();
//! assert_eq!(&png[1..4], b"PNG");
//! assert!(render_svg(&scene, 800, 600).contains("Overdue (1)"));
//! ```
//!
//! Sizes: 1600×1200 reads well for a whole county on screen, 1200×900 for one town; text scales with the image
//! (12 px at 800×600), so a 3200×2400 PNG prints at 300 dpi on letter paper with the same proportions.

pub mod html;
mod png;
pub mod qml;
mod scene;
pub mod schedule_map;
pub mod spill;
mod svg;
mod text;
pub mod tiled_map;
pub mod tiles;

use std::borrow::Cow;

use geo::{BoundingRect, Geometry, LineString, MultiPolygon, Rect};

pub use png::{check_png_size, render_png, MAX_PIXELS};
pub use scene::{layout, Label, Layout, LegendEntry, MapLayer, Rgba, ScaleBar, Scene, Style};
pub use svg::{render_svg, write_svg};
pub use text::FONT_FAMILY;

use crate::geom::planar::{in_polygon, interior_point};
use scene::thousands;

/// What a parcel is coloured by: its inspection tier or its status. Tier classes and status classes have
/// distinct colours, so the two can be mixed (a tier map may mark failed parcels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ParcelClass {
    /// No rule schedules it (sewered, outside the county, unknown town).
    #[default]
    Unscheduled,
    /// The rest of the county (the longest cycle).
    County,
    /// The rest of the watershed.
    Watershed,
    /// Within 500 ft of the mean-high-water line.
    NearShore,
    /// Borders the mean-high-water line.
    Lakefront,
    /// Status: inspected on time.
    Current,
    /// Status: due in the as-of year.
    DueThisYear,
    /// Status: no inspection on record.
    NeverInspected,
    /// Status: a due date passed without an inspection.
    Overdue,
    /// The latest inspection found the system failed.
    Failed,
    /// Notice stage: no open duty of the parcel noticed.
    NotNoticed,
    /// Notice stage: a first notice sent.
    FirstNotice,
    /// Notice stage: a reminder sent.
    Reminder,
    /// Notice stage: a final notice sent.
    FinalNotice,
    /// Notice stage: referred for enforcement.
    Referred,
}

impl ParcelClass {
    /// Every class in drawing order: later classes are drawn over earlier ones, so overdue and failed parcels
    /// are never hidden.
    pub const ALL: [ParcelClass; 15] = [
        ParcelClass::Unscheduled,
        ParcelClass::County,
        ParcelClass::Watershed,
        ParcelClass::NearShore,
        ParcelClass::Lakefront,
        ParcelClass::Current,
        ParcelClass::DueThisYear,
        ParcelClass::NeverInspected,
        ParcelClass::Overdue,
        ParcelClass::Failed,
        ParcelClass::NotNoticed,
        ParcelClass::FirstNotice,
        ParcelClass::Reminder,
        ParcelClass::FinalNotice,
        ParcelClass::Referred,
    ];

    /// The class's place in [`ParcelClass::ALL`].
    pub fn index(self) -> usize {
        ParcelClass::ALL.iter().position(|c| *c == self).unwrap_or(0)
    }

    /// The legend text.
    pub fn label(self) -> &'static str {
        match self {
            ParcelClass::Unscheduled => "Unscheduled",
            ParcelClass::County => "Rest of county",
            ParcelClass::Watershed => "Watershed",
            ParcelClass::NearShore => "Within 500 ft of shore",
            ParcelClass::Lakefront => "Lakefront",
            ParcelClass::Current => "Current",
            ParcelClass::DueThisYear => "Due this year",
            ParcelClass::NeverInspected => "Never inspected",
            ParcelClass::Overdue => "Overdue",
            ParcelClass::Failed => "Failed inspection",
            ParcelClass::NotNoticed => "Not noticed",
            ParcelClass::FirstNotice => "First notice",
            ParcelClass::Reminder => "Reminder",
            ParcelClass::FinalNotice => "Final notice",
            ParcelClass::Referred => "Referred",
        }
    }

    /// The colours: tiers from the Okabe–Ito colour-blind-safe palette, darker nearer the lake; overdue red
    /// with a dark red outline; failed dark red with a dashed black outline; unscheduled light grey.
    pub fn style(self) -> Style {
        let outline = Rgba(64, 64, 64, 110);
        match self {
            ParcelClass::Unscheduled => Style::area(Rgba::hex(0xD9D9D9), outline, 0.5),
            ParcelClass::County => Style::area(Rgba::hex(0xF2EBA6), outline, 0.5),
            ParcelClass::Watershed => Style::area(Rgba::hex(0x009E73), outline, 0.5),
            ParcelClass::NearShore => Style::area(Rgba::hex(0x56B4E9), outline, 0.5),
            ParcelClass::Lakefront => Style::area(Rgba::hex(0x0072B2), outline, 0.5),
            ParcelClass::Current => Style::area(Rgba::hex(0x009E73), outline, 0.5),
            ParcelClass::DueThisYear => Style::area(Rgba::hex(0xF0E442), outline, 0.5),
            ParcelClass::NeverInspected => Style::area(Rgba::hex(0xE69F00), outline, 0.5),
            ParcelClass::Overdue => Style::area(Rgba::hex(0xD7191C), Rgba::hex(0x67000D), 1.0),
            ParcelClass::Failed => Style { dash: true, ..Style::area(Rgba::hex(0x67000D), Rgba::BLACK, 1.5) },
            // Notice stages: a sequential yellow-to-brown ramp, darker as a duty climbs towards enforcement.
            ParcelClass::NotNoticed => Style::area(Rgba::hex(0xEEEEEE), outline, 0.5),
            ParcelClass::FirstNotice => Style::area(Rgba::hex(0xFEE391), outline, 0.5),
            ParcelClass::Reminder => Style::area(Rgba::hex(0xFE9929), outline, 0.5),
            ParcelClass::FinalNotice => Style::area(Rgba::hex(0xCC4C02), outline, 0.8),
            ParcelClass::Referred => Style::area(Rgba::hex(0x662506), Rgba::BLACK, 1.2),
        }
    }

    /// The class of a tier named as in the Cayuga County rule set (`lakefront`, `near-shore`, `watershed`,
    /// `county`); `None` for another name, which the caller maps as it sees fit.
    pub fn from_tier(tier: &str) -> Option<ParcelClass> {
        match tier {
            "lakefront" => Some(ParcelClass::Lakefront),
            "near-shore" => Some(ParcelClass::NearShore),
            "watershed" => Some(ParcelClass::Watershed),
            "county" => Some(ParcelClass::County),
            _ => None,
        }
    }

    /// The class of the stage a parcel's notices reached; `None`: none of its open duties was noticed.
    pub fn from_stage(stage: Option<crate::rules::notices::Stage>) -> ParcelClass {
        use crate::rules::notices::Stage;
        match stage {
            None => ParcelClass::NotNoticed,
            Some(Stage::First) => ParcelClass::FirstNotice,
            Some(Stage::Reminder) => ParcelClass::Reminder,
            Some(Stage::Final) => ParcelClass::FinalNotice,
            Some(Stage::Referral) => ParcelClass::Referred,
        }
    }

    /// The class of a schedule status (`current`, `due-this-year`, `overdue`, `never-inspected`).
    pub fn from_status(status: &str) -> Option<ParcelClass> {
        match status {
            "current" => Some(ParcelClass::Current),
            "due-this-year" => Some(ParcelClass::DueThisYear),
            "overdue" => Some(ParcelClass::Overdue),
            "never-inspected" => Some(ParcelClass::NeverInspected),
            _ => None,
        }
    }
}

/// Whether the map colours parcels by tier or by status: it heads the parcel part of the legend. The caller
/// gives each parcel the class of that kind (and may give `Overdue` or `Failed` on a tier map to mark them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColourBy {
    /// Inspection tier.
    #[default]
    Tier,
    /// Schedule status.
    Status,
    /// The stage the parcel's notices reached, as the program store recorded them.
    Notice,
}

/// What [`schedule_scene`] maps, all in working-CRS feet.
#[derive(Clone, Debug, Default)]
pub struct MapInput<'a> {
    /// Each parcel's shape and class.
    pub parcels: Vec<(Cow<'a, MultiPolygon<f64>>, ParcelClass)>,
    /// The class of each parcel of the map that has no usable shape: not drawn, but counted in the legend
    /// and the title, so the map counts every parcel the schedule lists.
    pub unmapped: Vec<ParcelClass>,
    /// The class of each parcel's tier or status, for the parcels of `parcels` then those of `unmapped`, in
    /// order: a parcel drawn as `Overdue` or `Failed` is set apart from it, and the legend says so ("Current
    /// (38 + 2 failed)"), so that its numbers add up to the schedule's. Empty: each parcel's class is its own.
    pub set_apart_from: Vec<ParcelClass>,
    /// The parcels of a map too large to hold, on disk instead of in `parcels` (with their counts; `unmapped`
    /// and `set_apart_from` then stay empty).
    pub spilled: Option<std::sync::Arc<spill::Spilled>>,
    /// Tier or status (heads the legend).
    pub colour_by: ColourBy,
    /// The mean-high-water line: lines, or lake polygons (filled as water, their rings drawn as the line).
    pub shoreline: Vec<&'a Geometry<f64>>,
    /// The shoreline layer's line where a DEM gave the mean-high-water line: the check on it, drawn thin and
    /// dashed beside it.
    pub shoreline_layer: Vec<&'a Geometry<f64>>,
    /// The distance of the band drawn along the shoreline (the rule set's largest), feet: every point within
    /// it of the mean-high-water line, tinted; `None` draws no band.
    pub buffer_ft: Option<f64>,
    /// Watershed outlines.
    pub watershed: Vec<Cow<'a, MultiPolygon<f64>>>,
    /// Flood hazard areas.
    pub floodplain: Vec<Cow<'a, MultiPolygon<f64>>>,
    /// Town boundaries with their names (labelled at an interior point).
    pub towns: Vec<(Cow<'a, MultiPolygon<f64>>, String)>,
    /// The map title.
    pub title: String,
    /// The as-of date, as text (`2027-01-15`).
    pub as_of: String,
    /// The area to show `[minx, miny, maxx, maxy]`; `None` shows the parcels' bounds plus 5% on each side.
    pub extent: Option<[f64; 4]>,
}

/// Font size of town names (on an 800×600 image).
const TOWN_LABEL_PX: f32 = 13.0;

/// The band within the rule set's distance of the shoreline: the shoreline's dark blue, light enough that the
/// parcels' classes read through it.
const BAND: Rgba = Rgba(0x08, 0x30, 0x6B, 56);

/// The scene of a schedule map: water, parcels by class (overdue and failed last), floodplain, town
/// boundaries, watershed, buffer, shoreline, town names; a legend of the classes present (with counts) and of
/// the reference layers drawn; the title and "As of DATE · N parcels".
///
/// Only what is in view counts: a parcel or reference shape whose bounds miss the extent is left out of the
/// scene, the legend and the count, so a map of one town lists that town's parcels.
pub fn schedule_scene<'a>(input: &'a MapInput<'_>) -> Scene<'a> {
    let extent = input.extent.unwrap_or_else(|| default_extent(input));
    let in_view = |r: Option<Rect<f64>>| in_view(extent, r);
    let mut lake = MapLayer::new("lake", Style { fill: Some(Rgba::hex(0xD6EAF8)), ..Style::NONE });
    let shore_style = Style::line(Rgba::hex(0x08306B), 1.6, false);
    let mut shore = MapLayer::new("shoreline", shore_style);
    for &g in input.shoreline.iter().filter(|g| in_view(g.bounding_rect())) {
        add_shoreline(g, &mut lake, &mut shore);
    }
    let mut checked = MapLayer::new("shoreline-layer", Style::line(Rgba::hex(0xD95F0E), 1.0, true));
    let mut not_filled = MapLayer::new("", Style::NONE);
    for &g in input.shoreline_layer.iter().filter(|g| in_view(g.bounding_rect())) {
        add_shoreline(g, &mut not_filled, &mut checked);
    }

    let mut classes: Vec<MapLayer<'a>> =
        ParcelClass::ALL.iter().map(|c| MapLayer::new(format!("parcels-{c:?}"), c.style())).collect();
    let mut tally = ClassCounts::default();
    let of = |i: usize, class: ParcelClass| input.set_apart_from.get(i).copied().unwrap_or(class);
    for (i, (shape, class)) in input.parcels.iter().enumerate() {
        if in_view(shape.bounding_rect()) {
            tally.add(*class, of(i, *class));
            classes[class.index()].polygons.push(Cow::Borrowed(shape.as_ref()));
        }
    }
    for (i, class) in input.unmapped.iter().enumerate() {
        tally.add(*class, of(input.parcels.len() + i, *class));
    }
    let mut unmapped = input.unmapped.len() as u64;
    if let Some(spill) = &input.spilled {
        tally.merge(spill.counts());
        unmapped += spill.unmapped();
        for (layer, class) in classes.iter_mut().zip(ParcelClass::ALL) {
            layer.spilled = spill.class(class);
        }
    }
    let ClassCounts { counts, apart } = tally;
    let shown: u64 = counts.iter().sum();

    let borrowed = |v: &'a [Cow<'_, MultiPolygon<f64>>]| {
        v.iter().map(|s| &**s).filter(|s| in_view(s.bounding_rect())).map(Cow::Borrowed).collect::<Vec<_>>()
    };
    let mut flood =
        MapLayer::new("floodplain", Style::area(Rgba(86, 180, 233, 80), Rgba::hex(0x2C7FB8), 0.8));
    flood.polygons = borrowed(&input.floodplain);
    let mut towns = MapLayer::new("towns", Style::line(Rgba::hex(0x555555), 1.0, false));
    towns.polygons = input
        .towns
        .iter()
        .map(|(shape, _)| &**shape)
        .filter(|s| in_view(s.bounding_rect()))
        .map(Cow::Borrowed)
        .collect();
    let mut watershed = MapLayer::new("watershed", Style::line(Rgba::hex(0x6A3D9A), 2.0, true));
    watershed.polygons = borrowed(&input.watershed);
    let mut buffer = MapLayer::new("buffer", Style { fill: Some(BAND), ..Style::NONE });
    if let Some(d) = input.buffer_ft.filter(|d| *d > 0.0) {
        buffer.band = Some(d);
        // A shoreline just out of view may have its band in view.
        let mut water = MapLayer::new("", Style::NONE);
        for &g in input.shoreline.iter().filter(|g| in_view(g.bounding_rect().map(|r| grown(r, d)))) {
            add_shoreline(g, &mut water, &mut buffer);
        }
    }

    let mut legend = vec![LegendEntry {
        label: match input.colour_by {
            ColourBy::Tier => "Inspection tier".into(),
            ColourBy::Status => "Status".into(),
            ColourBy::Notice => "Notice stage".into(),
        },
        style: Style::NONE,
    }];
    // Tiers from the lake outwards, then statuses from worst to best, as a reader scans for trouble; notice
    // stages from enforcement back.
    let legend_order = [4, 3, 2, 1, 9, 8, 7, 6, 5, 0, 14, 13, 12, 11, 10];
    for i in legend_order {
        if counts[i] > 0 || apart[i] != [0, 0] {
            let c = ParcelClass::ALL[i];
            legend.push(LegendEntry { label: legend_label(c, counts[i], apart[i]), style: c.style() });
        }
    }
    let references = [
        (&lake, "Lake"),
        (&shore, "Shoreline (mean high water)"),
        (&checked, "Shoreline layer (the check on the DEM's line)"),
        (&buffer, "500 ft from shoreline"),
        (&watershed, "Watershed boundary"),
        (&flood, "Floodplain (FEMA)"),
        (&towns, "Town boundary"),
    ];
    let drawn: Vec<LegendEntry> = references
        .iter()
        .filter(|(layer, _)| !layer.is_empty())
        .map(|(layer, label)| LegendEntry { label: (*label).into(), style: layer.style })
        .collect();
    if !drawn.is_empty() {
        legend.push(LegendEntry { label: "Reference".into(), style: Style::NONE });
        legend.extend(drawn);
    }

    let labels = input
        .towns
        .iter()
        .filter_map(|(shape, name)| {
            label_point(shape, extent).map(|at| Label { at, text: name.clone(), size_px: TOWN_LABEL_PX })
        })
        .collect();
    let noun = if shown == 1 { "parcel" } else { "parcels" };
    let mut count = format!("{} {noun}", thousands(shown));
    if unmapped > 0 {
        count.push_str(&format!(" ({} without a shape, not drawn)", thousands(unmapped)));
    }
    let subtitle = if input.as_of.is_empty() { count } else { format!("As of {} · {count}", input.as_of) };

    let mut layers = vec![lake];
    layers.extend(classes);
    layers.extend([flood, towns, watershed, buffer, checked, shore]);
    layers.retain(|l| !l.is_empty());
    Scene { title: input.title.clone(), subtitle, extent, layers, labels, legend, units_per_foot: 1.0 }
}

/// What the legend counts of the parcels of a map: of each class (by its place in [`ParcelClass::ALL`]), the
/// parcels drawn in it, and of them those set apart from their tier or status as overdue and as failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts {
    /// The parcels drawn in each class.
    pub counts: [u64; ParcelClass::ALL.len()],
    /// Of each class, the parcels of its tier or status drawn apart as `[overdue, failed]`.
    pub apart: [[u64; 2]; ParcelClass::ALL.len()],
}

impl ClassCounts {
    /// Counts a parcel drawn in `class` whose tier or status is of class `of`.
    pub fn add(&mut self, class: ParcelClass, of: ParcelClass) {
        self.counts[class.index()] += 1;
        match class {
            ParcelClass::Overdue if of != class => self.apart[of.index()][0] += 1,
            ParcelClass::Failed if of != class => self.apart[of.index()][1] += 1,
            _ => {}
        }
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &ClassCounts) {
        for i in 0..ParcelClass::ALL.len() {
            self.counts[i] += other.counts[i];
            self.apart[i][0] += other.apart[i][0];
            self.apart[i][1] += other.apart[i][1];
        }
    }
}

/// Whether bounds `r` touch `extent` (`[minx, miny, maxx, maxy]`); no bounds are never in view.
pub fn in_view(extent: [f64; 4], r: Option<Rect<f64>>) -> bool {
    r.is_some_and(|r| {
        r.max().x >= extent[0] && r.min().x <= extent[2] && r.max().y >= extent[1] && r.min().y <= extent[3]
    })
}

/// The legend text of `class`: its label and the parcels drawn in it, and those of its tier or status drawn
/// apart as overdue and as failed (`[overdue, failed]`), so that the numbers of one entry add up to the
/// schedule's count: "Current (38 + 2 failed)".
pub fn legend_label(class: ParcelClass, drawn: u64, apart: [u64; 2]) -> String {
    let mut label = format!("{} ({}", class.label(), thousands(drawn));
    for (n, what) in apart.iter().zip(["overdue", "failed"]) {
        if *n > 0 {
            label.push_str(&format!(" + {} {what}", thousands(*n)));
        }
    }
    label.push(')');
    label
}

/// `r` with `d` added on every side.
fn grown(r: Rect<f64>, d: f64) -> Rect<f64> {
    Rect::new((r.min().x - d, r.min().y - d), (r.max().x + d, r.max().y + d))
}

/// Splits one shoreline geometry into water to fill and lines to stroke.
fn add_shoreline<'a>(g: &'a Geometry<f64>, lake: &mut MapLayer<'a>, shore: &mut MapLayer<'a>) {
    let rings =
        |p: &'a geo::Polygon<f64>| std::iter::once(p.exterior()).chain(p.interiors()).map(Cow::Borrowed);
    match g {
        Geometry::LineString(l) => shore.lines.push(Cow::Borrowed(l)),
        Geometry::MultiLineString(m) => shore.lines.extend(m.0.iter().map(Cow::Borrowed)),
        Geometry::Polygon(p) => {
            lake.polygons.push(Cow::Owned(MultiPolygon(vec![p.clone()])));
            shore.lines.extend(rings(p));
        }
        Geometry::MultiPolygon(m) => {
            lake.polygons.push(Cow::Borrowed(m));
            shore.lines.extend(m.0.iter().flat_map(rings));
        }
        Geometry::GeometryCollection(c) => c.0.iter().for_each(|g| add_shoreline(g, lake, shore)),
        _ => {}
    }
}

/// The parcels' bounds plus 5% of their size on each side (at least 100 ft); without parcels, the bounds of
/// the reference layers.
fn default_extent(input: &MapInput<'_>) -> [f64; 4] {
    let mut bounds: Option<Rect<f64>> = None;
    let mut add = |r: Option<Rect<f64>>| {
        if let Some(r) = r {
            bounds = Some(match bounds {
                None => r,
                Some(b) => Rect::new(
                    (b.min().x.min(r.min().x), b.min().y.min(r.min().y)),
                    (b.max().x.max(r.max().x), b.max().y.max(r.max().y)),
                ),
            });
        }
    };
    let spilled = input.spilled.as_ref().and_then(|s| s.bounds());
    if input.parcels.is_empty() && spilled.is_none() {
        input.towns.iter().for_each(|(t, _)| add(t.bounding_rect()));
        input.watershed.iter().chain(&input.floodplain).map(|s| &**s).for_each(|s| add(s.bounding_rect()));
        // The shoreline with its band.
        let d = input.buffer_ft.unwrap_or(0.0).max(0.0);
        input.shoreline.iter().for_each(|g| add(g.bounding_rect().map(|r| grown(r, d))));
    } else {
        input.parcels.iter().for_each(|(p, _)| add(p.bounding_rect()));
        add(spilled);
    }
    let Some(b) = bounds else { return [0.0, 0.0, 1000.0, 1000.0] };
    let (px, py) = ((b.width() * 0.05).max(100.0), (b.height() * 0.05).max(100.0));
    [b.min().x - px, b.min().y - py, b.max().x + px, b.max().y + py]
}

/// Where a town's name goes: its interior point, or, when that is out of view, the centre of the part of its
/// bounds in view if the town covers it; `None` when the town is not in view.
fn label_point(shape: &MultiPolygon<f64>, extent: [f64; 4]) -> Option<[f64; 2]> {
    let inside =
        |p: [f64; 2]| p[0] >= extent[0] && p[0] <= extent[2] && p[1] >= extent[1] && p[1] <= extent[3];
    if let Some(p) = interior_point(shape).filter(|p| inside(*p)) {
        return Some(p);
    }
    let b = shape.bounding_rect()?;
    let (x0, y0) = (b.min().x.max(extent[0]), b.min().y.max(extent[1]));
    let (x1, y1) = (b.max().x.min(extent[2]), b.max().y.min(extent[3]));
    let centre = [(x0 + x1) / 2.0, (y0 + y1) / 2.0];
    (x0 < x1 && y0 < y1 && shape.0.iter().any(|p| in_polygon(centre, p))).then_some(centre)
}

/// The rectangle `[x0, y0, x1, y1]` as a multipolygon, for scenes built by hand (insets, tests).
pub fn rectangle(r: [f64; 4]) -> MultiPolygon<f64> {
    let [x0, y0, x1, y1] = r;
    MultiPolygon(vec![geo::Polygon::new(
        LineString::from(vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]),
        Vec::new(),
    )])
}

#[cfg(test)]
mod tests;
