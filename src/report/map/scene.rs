//! The scene a map is drawn from (layers of polygons and lines with their styles, labels, the legend, title
//! and extent) and its [`Layout`] on an image: where the title, the map frame and the legend column go, the
//! map-to-pixel transform, the scale bar and the north arrow. Both renderers draw from the same layout, so a
//! PNG and an SVG of one scene put every feature on the same pixel.

use std::borrow::Cow;

use geo::{LineString, MultiPolygon, Rect};

use super::spill::ClassFile;
use super::text::text_width;

/// A colour with straight (not premultiplied) alpha: red, green, blue, alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgba(pub u8, pub u8, pub u8, pub u8);

impl Rgba {
    /// Opaque black.
    pub const BLACK: Rgba = Rgba(0, 0, 0, 255);
    /// Opaque white.
    pub const WHITE: Rgba = Rgba(255, 255, 255, 255);

    /// An opaque colour from `0xRRGGBB`.
    pub const fn hex(rgb: u32) -> Rgba {
        Rgba((rgb >> 16) as u8, (rgb >> 8) as u8, rgb as u8, 255)
    }

    /// The same colour with alpha `a` (0 transparent, 255 opaque).
    pub const fn alpha(self, a: u8) -> Rgba {
        Rgba(self.0, self.1, self.2, a)
    }

    /// `#rrggbb`, for SVG.
    pub(crate) fn css(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// How a feature (or a legend swatch) is painted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// Fill of polygons; `None` leaves them hollow.
    pub fill: Option<Rgba>,
    /// Outline of polygons and colour of lines; `None` draws no outline.
    pub stroke: Option<Rgba>,
    /// Width of the outline or line in pixels.
    pub stroke_px: f32,
    /// Dashed outline or line.
    pub dash: bool,
}

impl Style {
    /// Nothing painted: a legend entry with this style is a heading (text without a swatch).
    pub const NONE: Style = Style { fill: None, stroke: None, stroke_px: 0.0, dash: false };

    /// Filled polygons outlined with `stroke` at `stroke_px`.
    pub const fn area(fill: Rgba, stroke: Rgba, stroke_px: f32) -> Style {
        Style { fill: Some(fill), stroke: Some(stroke), stroke_px, dash: false }
    }

    /// Lines, or hollow polygon outlines, of `stroke` at `stroke_px`.
    pub const fn line(stroke: Rgba, stroke_px: f32, dash: bool) -> Style {
        Style { fill: None, stroke: Some(stroke), stroke_px, dash }
    }

    /// Whether anything is painted (a legend entry without paint is a heading).
    pub fn paints(&self) -> bool {
        self.fill.is_some() || self.stroke.is_some()
    }
}

/// One layer of the map: polygons and lines drawn with one style, in the order given.
///
/// Geometry is borrowed where the caller already holds it (`Cow::Borrowed`), so mapping a county of a million
/// parcels does not copy them.
#[derive(Clone, Debug)]
pub struct MapLayer<'a> {
    /// The layer's name (the SVG group id; not shown on the map).
    pub name: String,
    /// Areas, in the scene's coordinates.
    pub polygons: Vec<Cow<'a, MultiPolygon<f64>>>,
    /// Lines, in the scene's coordinates.
    pub lines: Vec<Cow<'a, LineString<f64>>>,
    /// How the layer is painted.
    pub style: Style,
    /// Draws the lines as a band instead: every point within this many scene units of them, in the style's
    /// fill (the lines stroked twice as wide with round joins and caps, all in one path so that where the
    /// band overlaps itself it is painted once). No polygon of the band is computed.
    pub band: Option<f64>,
    /// More areas, drawn after `polygons`: a class of parcels kept on disk ([`super::spill`]).
    pub spilled: Option<&'a ClassFile>,
}

impl<'a> MapLayer<'a> {
    /// An empty layer.
    pub fn new(name: impl Into<String>, style: Style) -> MapLayer<'a> {
        MapLayer {
            name: name.into(),
            polygons: Vec::new(),
            lines: Vec::new(),
            style,
            band: None,
            spilled: None,
        }
    }

    /// Whether the layer has nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.polygons.is_empty() && self.lines.is_empty() && self.spilled.is_none_or(ClassFile::is_empty)
    }

    /// Calls `draw` with each area of the layer, in order: those held, then those on disk. The error is the
    /// disk's.
    pub fn each_polygon(&self, mut draw: impl FnMut(&MultiPolygon<f64>)) -> std::io::Result<()> {
        self.polygons.iter().for_each(|p| draw(p));
        match self.spilled {
            Some(file) => file.each_shape(&mut draw),
            None => Ok(()),
        }
    }
}

/// Text placed on the map, centred on a point.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The point (scene coordinates) the text is centred on.
    pub at: [f64; 2],
    /// The text.
    pub text: String,
    /// Font size in pixels on an 800×600 image; the renderers scale it with the image
    /// ([`Layout::text_px`] / 12).
    pub size_px: f32,
}

/// One row of the legend: a swatch drawn in `style` and its label. A row whose style paints nothing is a
/// heading.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// The text of the row.
    pub label: String,
    /// The swatch: a filled box when the style fills, otherwise a short line.
    pub style: Style,
}

/// Everything a map shows, independent of the image size.
#[derive(Clone, Debug)]
pub struct Scene<'a> {
    /// Title, top left.
    pub title: String,
    /// Second line under the title (the as-of date).
    pub subtitle: String,
    /// The area shown, `[minx, miny, maxx, maxy]` in scene coordinates (working-CRS feet); y points north.
    pub extent: [f64; 4],
    /// Layers, drawn first to last.
    pub layers: Vec<MapLayer<'a>>,
    /// Text on the map, drawn over every layer.
    pub labels: Vec<Label>,
    /// Legend rows, top to bottom.
    pub legend: Vec<LegendEntry>,
    /// Scene units per foot (1.0 in the working CRS); the scale bar is measured with it.
    pub units_per_foot: f64,
}

/// Features smaller than this many pixels across are drawn as a square of this size, so that a parcel still
/// shows (and an overdue one still stands out) on a map of the whole county.
pub(crate) const MIN_FEATURE_PX: f64 = 1.5;

/// Where everything goes on a `width` × `height` image, all in pixels with y down.
///
/// ```text
/// base    = clamp(min(W, H) / 50, 9, 28)     text size (12 on 800×600); margin = base, pad = 0.6·base
/// title   : size 1.5·base, baseline margin + 1.4·base; subtitle: size base, baseline margin + 2.8·base
/// legend column width lw = clamp(widest legend row + 2·pad, 12·base, 0.4·W), at the right
/// map frame = [margin, margin + 3.5·base, W − 2·margin − lw, H − margin], each rounded to a whole pixel
/// scale   = min(frame width / extent width, frame height / extent height)   pixels per scene unit
/// origin  = frame centre − scale · (extent width, extent height) / 2         pixel of (minx, maxy)
/// to_px(x, y) = (origin.x + (x − minx)·scale, origin.y + (maxy − y)·scale)
/// ```
///
/// On 800×600 with short legend labels the frame is `[12, 54, 632, 588]`; a square extent then fills its
/// full height (534 px) and is centred horizontally (origin x = 322 − 267 = 55).
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Image width in pixels.
    pub width: f64,
    /// Image height in pixels.
    pub height: f64,
    /// Base text size in pixels (`base` above).
    pub text_px: f64,
    /// The title block `[x0, y0, x1, y1]`.
    pub title_box: [f64; 4],
    /// The map frame `[x0, y0, x1, y1]`; features are clipped to it.
    pub map_frame: [f64; 4],
    /// The legend box `[x0, y0, x1, y1]` (zero height when the legend is empty).
    pub legend_box: [f64; 4],
    /// Pixels per scene unit, the same along both axes.
    pub scale: f64,
    /// The pixel of the extent's top-left corner `(minx, maxy)`.
    pub origin: [f64; 2],
    /// The scene's extent, made non-degenerate.
    pub extent: [f64; 4],
    /// The scale bar: its length, label and position.
    pub scale_bar: ScaleBar,
    /// The north arrow's tip `[x, y]`; the arrow is `2.2·base` tall with an "N" above it.
    pub north_arrow: [f64; 2],
}

/// A scale bar of a round length.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleBar {
    /// Its length in feet (a round number of feet, or of miles).
    pub feet: f64,
    /// Its length in pixels.
    pub px: f64,
    /// Its label: "500 ft", "2,000 ft", "1 mi", "10 mi".
    pub label: String,
    /// The bar's bottom-left pixel `[x, y]`; the bar is `0.5·base` tall, the label centred above it.
    pub at: [f64; 2],
}

impl Layout {
    /// The pixel `[x, y]` (y down) of a scene point (y up).
    pub fn to_px(&self, p: [f64; 2]) -> [f64; 2] {
        [
            self.origin[0] + (p[0] - self.extent[0]) * self.scale,
            self.origin[1] + (self.extent[3] - p[1]) * self.scale,
        ]
    }

    /// The padding inside the legend box.
    pub(crate) fn pad(&self) -> f64 {
        0.6 * self.text_px
    }

    /// Height of one legend row.
    pub(crate) fn row_px(&self) -> f64 {
        1.6 * self.text_px
    }

    /// Legend row `i`: its swatch `[x0, y0, x1, y1]`, the x where its text starts, and the text baseline.
    /// A heading's text starts where the swatch would.
    pub(crate) fn legend_row(&self, i: usize, heading: bool) -> ([f64; 4], f64, f64) {
        let b = self.text_px;
        let top = self.legend_box[1] + self.pad() + i as f64 * self.row_px();
        let x0 = self.legend_box[0] + self.pad();
        let swatch = [x0, top + 0.3 * b, x0 + 1.8 * b, top + 1.3 * b];
        let text_x = if heading { x0 } else { swatch[2] + 0.6 * b };
        (swatch, text_x, top + 1.15 * b)
    }

    /// The pixel box of a scene rectangle, or `None` when it lies wholly outside the extent.
    pub(crate) fn px_box(&self, r: Rect<f64>) -> Option<[f64; 4]> {
        let e = self.extent;
        if r.max().x < e[0] || r.min().x > e[2] || r.max().y < e[1] || r.min().y > e[3] {
            return None;
        }
        let [x0, y0] = self.to_px([r.min().x, r.max().y]);
        let [x1, y1] = self.to_px([r.max().x, r.min().y]);
        Some([x0, y0, x1, y1])
    }

    /// The outline width for a polygon whose pixel box is `b`: at most a quarter of its smaller side, so that
    /// the outlines of small parcels do not hide their fill; `None` when that is too thin to see.
    pub(crate) fn outline_px(style: &Style, b: [f64; 4]) -> Option<f32> {
        let cap = ((b[2] - b[0]).min(b[3] - b[1]) / 4.0) as f32;
        let w = style.stroke_px.min(cap);
        (style.stroke.is_some() && w >= 0.2).then_some(w)
    }
}

/// The dash pattern (on, off) for a dashed line `width` pixels wide.
pub(crate) fn dash_pattern(width: f32) -> [f32; 2] {
    let w = width.max(1.0);
    [4.0 * w, 3.0 * w]
}

/// Lays the scene out on a `width` × `height` image (see [`Layout`] for the rules).
pub fn layout(scene: &Scene<'_>, width: u32, height: u32) -> Layout {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let b = (w.min(h) / 50.0).clamp(9.0, 28.0);
    let (margin, pad) = (b, 0.6 * b);
    let widest = scene
        .legend
        .iter()
        .map(|e| if e.style.paints() { 2.4 * b + text_width(&e.label, b) } else { text_width(&e.label, b) })
        .fold(0.0, f64::max);
    let lw = (widest + 2.0 * pad).max(12.0 * b).min(0.4 * w);
    let frame =
        [margin.round(), (margin + 3.5 * b).round(), (w - 2.0 * margin - lw).round(), (h - margin).round()];
    let extent = usable_extent(scene.extent);
    let (ew, eh) = (extent[2] - extent[0], extent[3] - extent[1]);
    let scale = ((frame[2] - frame[0]) / ew).min((frame[3] - frame[1]) / eh).max(f64::MIN_POSITIVE);
    let origin =
        [(frame[0] + frame[2]) / 2.0 - scale * ew / 2.0, (frame[1] + frame[3]) / 2.0 - scale * eh / 2.0];
    let column = [w - margin - lw, w - margin];
    let legend_h =
        if scene.legend.is_empty() { 0.0 } else { 2.0 * pad + scene.legend.len() as f64 * 1.6 * b };
    let legend_box = [column[0], frame[1], column[1], frame[1] + legend_h];

    // The scale bar and north arrow stand at the foot of the legend column, below the legend when it is tall.
    let units_per_foot = if scene.units_per_foot > 0.0 { scene.units_per_foot } else { 1.0 };
    let (feet, label) = round_length((lw - 2.0 * pad) / (scale * units_per_foot));
    let bar_px = feet * units_per_foot * scale;
    let decor_h = 0.5 * b + 0.4 * b + 1.6 * b + 2.2 * b + 0.3 * b + 1.1 * b;
    let bottom = frame[3].max(legend_box[3] + b + decor_h);
    let bar_top = bottom - 0.5 * b;
    let tip_y = bar_top - 0.4 * b - 1.6 * b - 2.2 * b;
    Layout {
        width: w,
        height: h,
        text_px: b,
        title_box: [margin, margin, w - margin, margin + 3.1 * b],
        map_frame: frame,
        legend_box,
        scale,
        origin,
        extent,
        scale_bar: ScaleBar { feet, px: bar_px, label, at: [column[0] + pad, bottom] },
        north_arrow: [(column[0] + column[1]) / 2.0, tip_y],
    }
}

/// The extent with a positive width and height (a point or a line gets a 500-unit box around it).
fn usable_extent(e: [f64; 4]) -> [f64; 4] {
    if !e.iter().all(|v| v.is_finite()) {
        return [0.0, 0.0, 1000.0, 1000.0];
    }
    let [mut x0, mut y0, mut x1, mut y1] = e;
    if x1 <= x0 {
        (x0, x1) = ((x0 + x1) / 2.0 - 500.0, (x0 + x1) / 2.0 + 500.0);
    }
    if y1 <= y0 {
        (y0, y1) = ((y0 + y1) / 2.0 - 500.0, (y0 + y1) / 2.0 + 500.0);
    }
    [x0, y0, x1, y1]
}

/// The longest round length not over `max_feet`, and its label: 1, 2, 5, 10 … 2,000 ft, then 1, 2, 5 … miles.
fn round_length(max_feet: f64) -> (f64, String) {
    const FEET: [f64; 11] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0];
    const MILES: [f64; 9] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0];
    let mut best = (FEET[0], "1 ft".to_string());
    for ft in FEET {
        if ft <= max_feet {
            best = (ft, format!("{} ft", thousands(ft as u64)));
        }
    }
    for mi in MILES {
        if mi * 5280.0 <= max_feet {
            best = (mi * 5280.0, format!("{} mi", mi as u64));
        }
    }
    best
}

/// `n` with a comma between thousands: 12345 → "12,345".
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(extent: [f64; 4]) -> Scene<'static> {
        Scene {
            title: "T".into(),
            subtitle: String::new(),
            extent,
            layers: Vec::new(),
            labels: Vec::new(),
            legend: vec![LegendEntry { label: "A".into(), style: Style::line(Rgba::BLACK, 1.0, false) }],
            units_per_foot: 1.0,
        }
    }

    #[test]
    fn square_extent_fills_the_frame_height_and_keeps_feet_square() {
        let l = layout(&scene([0.0, 0.0, 10_000.0, 10_000.0]), 800, 600);
        assert_eq!(l.text_px, 12.0);
        assert_eq!(l.map_frame, [12.0, 54.0, 632.0, 588.0]);
        assert!((l.scale - 534.0 / 10_000.0).abs() < 1e-12);
        assert_eq!(l.to_px([0.0, 10_000.0]), [55.0, 54.0]);
        let [x, y] = l.to_px([10_000.0, 0.0]);
        assert!((x - 589.0).abs() < 1e-9 && (y - 588.0).abs() < 1e-9, "{x} {y}");
    }

    #[test]
    fn wide_extent_fills_the_frame_width() {
        let l = layout(&scene([100.0, 200.0, 6_300.0, 1_200.0]), 800, 600);
        assert!((l.scale - 620.0 / 6_200.0).abs() < 1e-12);
        assert_eq!(l.to_px([100.0, 700.0]), [12.0, 321.0]);
    }

    #[test]
    fn round_lengths_and_labels() {
        assert_eq!(round_length(2_600.0), (2_000.0, "2,000 ft".to_string()));
        assert_eq!(round_length(6_000.0), (5_280.0, "1 mi".to_string()));
        assert_eq!(round_length(60_000.0), (52_800.0, "10 mi".to_string()));
        assert_eq!(round_length(450.0), (200.0, "200 ft".to_string()));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn degenerate_extent_gets_a_box() {
        assert_eq!(usable_extent([5.0, 5.0, 5.0, 5.0]), [-495.0, -495.0, 505.0, 505.0]);
        assert_eq!(usable_extent([0.0, f64::NAN, 1.0, 1.0]), [0.0, 0.0, 1000.0, 1000.0]);
    }
}
