//! The interactive map (`lakeshore map --format html`): one self-contained HTML file, with Leaflet
//! (`data/vendor/leaflet/`, inlined at build time), its stylesheet, the page's own script and the data all in
//! it. It needs no network: no tile server unless `--basemap` names one, no CDN.
//!
//! What the caller gives ([`HtmlMap`]) is already in WGS 84 longitude/latitude and already simplified for
//! display ([`simplify_for_display`], Douglas–Peucker at [`display_tolerance`] of the extent). Here the
//! coordinates are quantised to micro-degrees (6 decimals, about 0.1 m) and delta-encoded ring by ring, the
//! repeated texts (towns, tiers, reasons, citations) are stored once in a string table, and the data is
//! embedded as JSON with `<`, `>`, `&` and the JavaScript line separators escaped, so no value (an owner
//! named `</script>`) can end the script element.
//!
//! The page (`data/templates/map.html`) draws the parcels through one canvas layer of its own, from flat
//! arrays of projected vertices, rather than a Leaflet object per parcel: a parcel is drawn when its box meets
//! the view, as its box when it is a few pixels across, and clicks are found by its rings. So a page of a
//! million parcels opens, filters and redraws in seconds.

use geo::{LineString, MultiPolygon, Polygon, Simplify};
use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use crate::model::controls::{first_control, without_controls};
use crate::report::map::{ColourBy, ParcelClass, Rgba, Style};

/// The page: markup, styles and script, with the places Leaflet, the title and the data go.
pub(crate) const TEMPLATE: &str = include_str!("../../../data/templates/map.html");
/// Leaflet's script, as the npm package ships it.
const LEAFLET_JS: &str = include_str!("../../../data/vendor/leaflet/leaflet.js");
/// Leaflet's stylesheet, as the npm package ships it.
const LEAFLET_CSS: &str = include_str!("../../../data/vendor/leaflet/leaflet.css");
/// The vendored Leaflet version (`data/vendor/leaflet/README.md`).
pub const LEAFLET_VERSION: &str = "1.9.4";

/// Coordinates are stored as integer multiples of this many degrees.
pub const QUANTUM_DEGREES: f64 = 1e-6;

/// One open obligation shown in a parcel's popup.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HtmlObligation {
    /// What is owed.
    pub what: String,
    /// Due date (`YYYY-MM-DD`), empty when the law sets none.
    pub due: String,
    /// Whether it is overdue.
    pub overdue: bool,
    /// The law's citation.
    pub citation: String,
}

/// One parcel of the map: its shape in WGS 84 and what its popup, filters and colours need.
#[derive(Debug, Clone)]
pub struct HtmlParcel {
    /// Shape, longitude/latitude.
    pub shape: MultiPolygon<f64>,
    /// Texts by [`PARCEL_FIELDS`], in that order (empty when unknown).
    pub fields: [String; PARCEL_FIELDS.len()],
    /// Its class on a tier map.
    pub tier_class: ParcelClass,
    /// Its class on a status map.
    pub status_class: ParcelClass,
    /// Whether a due date passed without an inspection (drawn with a heavy outline).
    pub overdue: bool,
    /// Open obligations.
    pub obligations: Vec<HtmlObligation>,
}

/// The texts each parcel carries, in [`HtmlParcel::fields`] order; names as in `schedule.csv`, and the stage
/// its notices reached (`notice_stage`: first, reminder, final or referral; `notice`: the stage, letter and day,
/// as the program store recorded them).
pub const PARCEL_FIELDS: [&str; 14] = [
    "parcel_id",
    "town",
    "owner",
    "location",
    "tier",
    "cycle_years",
    "previous_due",
    "next_due",
    "status",
    "last_inspection",
    "reason",
    "citation",
    "notice_stage",
    "notice",
];

/// A reference layer the reader can switch on and off.
#[derive(Debug, Clone)]
pub struct HtmlLayer {
    /// Its name in the layer list.
    pub name: String,
    /// How it is drawn (fill, outline, width, dash), as on the PNG map.
    pub style: Style,
    /// Polygons, longitude/latitude.
    pub polygons: Vec<MultiPolygon<f64>>,
    /// Lines, longitude/latitude.
    pub lines: Vec<LineString<f64>>,
    /// Drawn above the parcels (outlines) rather than below them (water).
    pub above: bool,
    /// Draws the lines as a band instead: every point within this many metres of them, in the style's fill
    /// (one line of all of them, as wide on the screen as the band at every zoom).
    pub band_m: Option<f64>,
}

/// Everything the HTML map shows.
#[derive(Debug, Clone, Default)]
pub struct HtmlMap {
    /// Title.
    pub title: String,
    /// As-of date, as text.
    pub as_of: String,
    /// What parcels are coloured by when the page opens.
    pub colour_by: ColourBy,
    /// A tile URL template (`https://tile.example/{z}/{x}/{y}.png`) for a base map; `None` for none.
    pub basemap: Option<String>,
    /// The parcels, in parcel-id order.
    pub parcels: Vec<HtmlParcel>,
    /// Parcels of the map without a usable shape: not drawn, but counted in the total.
    pub unmapped: u64,
    /// Reference layers, in drawing order.
    pub layers: Vec<HtmlLayer>,
    /// Periodic inspections due per year: (year, count).
    pub workload: Vec<(i32, u64)>,
    /// Inspections overdue at the as-of date (the backlog before the first year).
    pub backlog: u64,
    /// The control characters the parcels' fields held, one problem a field (they are shown as U+FFFD).
    pub problems: Vec<crate::model::error::Problem>,
    /// The tiles the parcels were written to, beside the page ([`crate::report::map::tiles`]); `None` for
    /// the single page, whose parcels are in it.
    pub tiles: Option<crate::report::map::tiles::TileIndex>,
}

/// The Douglas–Peucker tolerance for showing shapes within `extent` (`[minx, miny, maxx, maxy]`, in feet or
/// any unit): 1/40,000 of its larger side, about a third of a pixel when the whole extent is zoomed in
/// eight times on a 1,600-pixel screen. A 100,000-ft county gets 2.5 ft.
pub fn display_tolerance(extent: [f64; 4]) -> f64 {
    ((extent[2] - extent[0]).max(extent[3] - extent[1]) / 40_000.0).max(0.0)
}

/// `shape` simplified (Douglas–Peucker) at `tolerance`, in its own units. A ring that would collapse below a
/// triangle keeps all its vertices: no parcel disappears from the map.
pub fn simplify_for_display(shape: &MultiPolygon<f64>, tolerance: f64) -> MultiPolygon<f64> {
    let ring = |r: &LineString<f64>| {
        let s = r.simplify(tolerance);
        if s.0.len() >= 4 {
            s
        } else {
            r.clone()
        }
    };
    MultiPolygon(
        shape
            .0
            .iter()
            .map(|p| Polygon::new(ring(p.exterior()), p.interiors().iter().map(ring).collect()))
            .collect(),
    )
}

/// A ring as micro-degrees, delta-encoded: `[x0, y0, dx1, dy1, ...]`, repeated points dropped.
fn encode_ring(ring: &LineString<f64>) -> Vec<i64> {
    let mut out = Vec::with_capacity(ring.0.len() * 2);
    let (mut px, mut py) = (0i64, 0i64);
    for (i, c) in ring.0.iter().enumerate() {
        let (x, y) = ((c.x / QUANTUM_DEGREES).round() as i64, (c.y / QUANTUM_DEGREES).round() as i64);
        if i > 0 && x == px && y == py {
            continue;
        }
        out.extend([x - px, y - py]);
        (px, py) = (x, y);
    }
    out
}

/// A multipolygon as polygons of encoded rings.
fn encode_polygons(shape: &MultiPolygon<f64>) -> Vec<Vec<Vec<i64>>> {
    shape
        .0
        .iter()
        .map(|p| std::iter::once(p.exterior()).chain(p.interiors()).map(encode_ring).collect())
        .collect()
}

/// Texts stored once, referred to by index: the single page's table, and each tile's.
#[derive(Debug, Default)]
pub(crate) struct Strings {
    list: Vec<String>,
    index: FxHashMap<String, usize>,
    bytes: usize,
}

impl Strings {
    /// The index of `text`, stored if new.
    fn id(&mut self, text: &str) -> usize {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        self.list.push(text.to_string());
        self.index.insert(text.to_string(), self.list.len() - 1);
        self.bytes += 2 * text.len();
        self.list.len() - 1
    }

    /// The texts, by index.
    pub(crate) fn texts(&self) -> &[String] {
        &self.list
    }

    /// About how many bytes the texts take.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

fn css(c: Rgba) -> String {
    format!("rgba({},{},{},{:.3})", c.0, c.1, c.2, f64::from(c.3) / 255.0)
}

/// The parcels as the page's script reads them, as JSON text: an array of records ([`push_parcel`]), their
/// texts interned in `strings`. They are written straight to text: a `Value` tree of a million parcels takes
/// gigabytes.
fn parcels_json(parcels: &[HtmlParcel], strings: &mut Strings) -> String {
    let mut out = Vec::with_capacity(parcels.len() * 160 + 2);
    out.push(b'[');
    for (i, p) in parcels.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_parcel(&mut out, p, strings);
    }
    out.push(b']');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Appends parcel `p` as the page's script reads it, as JSON: `[fields, tier class, status class, overdue,
/// obligations, polygons]`, its texts interned in `strings`. The single page and the tiles write each parcel
/// by this one function. Its only strings are the obligations' due dates, cleaned of control characters as
/// every other string of the page is.
pub(crate) fn push_parcel(out: &mut Vec<u8>, p: &HtmlParcel, strings: &mut Strings) {
    let fields: Vec<usize> = p.fields.iter().map(|f| strings.id(f)).collect();
    let obligations: Vec<_> = p
        .obligations
        .iter()
        .map(|o| {
            (strings.id(&o.what), without_controls(&o.due).0, u8::from(o.overdue), strings.id(&o.citation))
        })
        .collect();
    let parcel = (
        fields,
        p.tier_class as usize,
        p.status_class as usize,
        u8::from(p.overdue),
        obligations,
        encode_polygons(&p.shape),
    );
    serde_json::to_writer(&mut *out, &parcel).expect("numbers and strings always serialise");
}

/// `{name: index}` of the class each of `names` stands for ([`ParcelClass::ALL`] indexes): the script finds
/// a parcel's tier or status class by them, to count a parcel drawn as overdue or failed in its tier's or
/// status's legend entry too.
fn class_indexes(names: &[&str], class: fn(&str) -> Option<ParcelClass>) -> Value {
    let pairs = names.iter().filter_map(|n| {
        let i = ParcelClass::ALL.iter().position(|c| Some(*c) == class(n))?;
        Some((n.to_string(), json!(i)))
    });
    Value::Object(pairs.collect())
}

/// The data of `map` as the page's script reads it (see the module docs), but for its parcels, which
/// [`parcels_json`] writes, and the string table they fill: those members are `null` here, their places kept
/// in the members' order.
fn data(map: &HtmlMap) -> Value {
    let classes: Vec<Value> = ParcelClass::ALL
        .iter()
        .map(|c| {
            let s = c.style();
            json!({"label": c.label(), "fill": s.fill.map(css), "stroke": s.stroke.map(css)})
        })
        .collect();
    let layers: Vec<Value> = map
        .layers
        .iter()
        .map(|l| {
            let style = &l.style;
            json!({
                "name": l.name,
                "stroke": style.stroke.map(css),
                "fill": style.fill.map(css),
                "weight": style.stroke_px,
                "dash": style.dash,
                "above": l.above,
                "band": l.band_m,
                "polygons": l.polygons.iter().map(encode_polygons).collect::<Vec<_>>(),
                "lines": l.lines.iter().map(encode_ring).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut data = json!({
        "title": map.title,
        "asOf": map.as_of,
        "colourBy": match map.colour_by {
            // The page colours by tier or status; its notice stages are a filter of their own.
            ColourBy::Tier | ColourBy::Notice => "tier",
            ColourBy::Status => "status",
        },
        "basemap": map.basemap,
        "quantum": QUANTUM_DEGREES,
        "fields": PARCEL_FIELDS,
        "classes": classes,
        "class_of_tier": class_indexes(&["lakefront", "near-shore", "watershed", "county"], ParcelClass::from_tier),
        "class_of_status": class_indexes(&["current", "due-this-year", "overdue", "never-inspected"], ParcelClass::from_status),
        "strings": Value::Null,
        "parcels": Value::Null,
        "unmapped": map.unmapped,
        "layers": layers,
        "workload": map.workload,
        "backlog": map.backlog,
    });
    if let (Some(tiles), Value::Object(members)) = (&map.tiles, &mut data) {
        members.insert("tiles".into(), tiles.to_json());
    }
    data
}

/// Appends JSON `text` to `out` made safe inside a `<script>` element: `<`, `>` and `&` become `\u003c`,
/// `\u003e`, `\u0026`, and U+2028 and U+2029 their escapes. JSON has these characters only inside strings,
/// where the escapes mean the same characters, so the text parses to the same value.
fn push_script_safe(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['<', '>', '&', '\u{2028}', '\u{2029}']) {
        out.push_str(&rest[..at]);
        let c = rest[at..].chars().next().unwrap_or_default();
        out.push_str(&format!("\\u{:04x}", u32::from(c)));
        rest = &rest[at + c.len_utf8()..];
    }
    out.push_str(rest);
}

/// Replaces the control characters of every string in `value` (see [`crate::model::controls`]): JSON would
/// carry them as escapes, which the page would turn back into the characters.
fn clean_strings(value: &mut Value) {
    match value {
        Value::String(text) if first_control(text).is_some() => *text = without_controls(text).0.into_owned(),
        Value::Array(items) => items.iter_mut().for_each(clean_strings),
        Value::Object(fields) => fields.values_mut().for_each(clean_strings),
        _ => {}
    }
}

/// Appends the page's data to `out`: the members of [`data`] in their order, with the parcels' text and then
/// the string table they filled, script-safe.
fn push_data(out: &mut String, map: &HtmlMap) {
    let mut strings = Strings::default();
    let parcels = parcels_json(&map.parcels, &mut strings);
    let mut data = data(map);
    if let Value::Object(members) = &mut data {
        members.insert("strings".into(), strings.list.into());
    }
    clean_strings(&mut data);
    let Value::Object(members) = &data else { return };
    out.push('{');
    for (i, (name, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_script_safe(out, &Value::String(name.clone()).to_string());
        out.push(':');
        match name.as_str() {
            "parcels" => push_script_safe(out, &parcels),
            _ => push_script_safe(out, &value.to_string()),
        }
    }
    out.push('}');
}

/// The HTML file of `map`.
pub fn render_html(map: &HtmlMap) -> String {
    let title =
        without_controls(&map.title).0.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let mut out = String::with_capacity(
        TEMPLATE.len() + LEAFLET_JS.len() + LEAFLET_CSS.len() + map.parcels.len() * 240 + (1 << 16),
    );
    let template = match &map.tiles {
        None => std::borrow::Cow::Borrowed(TEMPLATE),
        Some(_) => std::borrow::Cow::Owned(crate::report::map::tiles::tiled_template(TEMPLATE)),
    };
    let mut rest = template.as_ref();
    for marker in ["{{title}}", "/*{{leaflet_css}}*/", "/*{{leaflet_js}}*/", "{{data}}"] {
        let at = rest.find(marker).expect("the map template has every marker, in order");
        out.push_str(&rest[..at]);
        match marker {
            "{{title}}" => out.push_str(&title),
            "/*{{leaflet_css}}*/" => out.push_str(LEAFLET_CSS),
            "/*{{leaflet_js}}*/" => out.push_str(LEAFLET_JS),
            _ => push_data(&mut out, map),
        }
        rest = &rest[at + marker.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::polygon;

    fn lot() -> MultiPolygon<f64> {
        MultiPolygon(vec![
            polygon![(x: -76.5, y: 42.9), (x: -76.499, y: 42.9), (x: -76.499, y: 42.901), (x: -76.5, y: 42.901)],
        ])
    }

    /// The JSON between the data script's tags.
    fn embedded(html: &str) -> &str {
        let start = html.find("id=\"map-data\">").unwrap() + "id=\"map-data\">".len();
        let end = html[start..].find("</script>").unwrap() + start;
        &html[start..end]
    }

    #[test]
    fn a_script_closing_tag_in_a_value_cannot_end_the_data() {
        let owner = "</script><script>alert('x')</script> & <!-- \u{2028}";
        let mut parcel = HtmlParcel {
            shape: lot(),
            fields: Default::default(),
            tier_class: ParcelClass::Lakefront,
            status_class: ParcelClass::Overdue,
            overdue: true,
            obligations: vec![],
        };
        parcel.fields[2] = owner.to_string();
        let map = HtmlMap { title: "</title><b>".into(), parcels: vec![parcel], ..HtmlMap::default() };
        let html = render_html(&map);
        let json = embedded(&html);
        assert!(!json.contains('<') && !json.contains('>'), "{json}");
        let value: Value = serde_json::from_str(json).unwrap();
        assert!(
            value["strings"].as_array().unwrap().iter().any(|s| s == owner),
            "the owner survives unchanged"
        );
        // The page's own script elements only: Leaflet, the data and the page script.
        assert_eq!(html.matches("</script>").count(), html.matches("<script").count());
        assert!(html.contains("<title>&lt;/title&gt;&lt;b&gt;</title>"));
    }

    #[test]
    fn coordinates_are_quantised_to_micro_degrees_and_delta_encoded() {
        let ring =
            LineString::from(vec![(-76.5000004, 42.9), (-76.499, 42.9), (-76.499, 42.9), (-76.499, 42.901)]);
        // -76.5000004 rounds to -76500000 micro-degrees; the repeated point is dropped.
        assert_eq!(encode_ring(&ring), [-76_500_000, 42_900_000, 1_000, 0, 0, 1_000]);
    }

    #[test]
    fn simplification_removes_needless_vertices_but_never_a_parcel() {
        // A 100 ft square with a vertex 0.5 ft off its bottom edge.
        let square = MultiPolygon(vec![
            polygon![(x: 0.0, y: 0.0), (x: 50.0, y: -0.5), (x: 100.0, y: 0.0), (x: 100.0, y: 100.0), (x: 0.0, y: 100.0)],
        ]);
        assert_eq!(simplify_for_display(&square, 1.0).0[0].exterior().0.len(), 5);
        assert_eq!(simplify_for_display(&square, 0.1).0[0].exterior().0.len(), 6);
        // A sliver smaller than the tolerance stays as it is.
        let sliver = MultiPolygon(vec![
            polygon![(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0), (x: 0.0, y: 1.0)],
        ]);
        assert_eq!(simplify_for_display(&sliver, 5.0), sliver);
        assert_eq!(display_tolerance([0.0, 0.0, 100_000.0, 50_000.0]), 2.5);
    }

    #[test]
    fn leaflet_is_inlined_and_nothing_is_fetched() {
        let html = render_html(&HtmlMap::default());
        assert!(html.contains(&format!("Leaflet {LEAFLET_VERSION}")));
        // No script, stylesheet or import from elsewhere: everything is inline.
        for remote in ["<script src", "<link", "@import"] {
            assert!(!html.contains(remote), "the page loads {remote}");
        }
        // The page's own markup and script name no address but the SVG namespace.
        let addresses: Vec<&str> =
            TEMPLATE.match_indices("http").map(|(i, _)| &TEMPLATE[i..i + 26]).collect();
        assert_eq!(addresses, ["http://www.w3.org/2000/svg"]);
    }
}
