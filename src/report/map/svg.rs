//! The SVG renderer: hand-written SVG 1.1 in pixel coordinates (y already flipped by [`Layout::to_px`]).
//!
//! Every map feature drawn is exactly one `<path>` (a multipolygon with all its rings, even-odd filled, or a
//! line; a band, such as the shoreline's, is one path of all its lines, stroked as wide as the band); the frame, legend swatches, scale bar and north arrow use `<rect>`, `<line>` and `<polygon>`, so the
//! number of paths is the number of features. Text is `<text>` in the bundled font's family with a generic
//! fallback.

use std::borrow::Cow;
use std::fmt::Write;

use geo::{BoundingRect, LineString, MultiPolygon};

use super::scene::{dash_pattern, layout, Layout, Rgba, Scene, Style, MIN_FEATURE_PX};
use super::text::FONT_FAMILY;

/// Renders the scene as an SVG document `width_px` × `height_px` (the `viewBox` is `0 0 width height`). A scene
/// whose parcels are kept on disk is written with [`write_svg`], which says when they cannot be read back;
/// here the document would end at the layer that failed.
pub fn render_svg(scene: &Scene<'_>, width_px: u32, height_px: u32) -> String {
    let mut out = Vec::new();
    let written = write_svg(scene, width_px, height_px, &mut out);
    debug_assert!(written.is_ok(), "an SVG of shapes held in memory: {written:?}");
    String::from_utf8(out).unwrap_or_default()
}

/// The text written out at a time: the document's features are rendered into a buffer of about this size,
/// so a map of a state's parcels is not held whole.
const CHUNK: usize = 1 << 20;

/// Writes the scene as an SVG document `width_px` × `height_px` to `out`, a part at a time ([`render_svg`]
/// makes the same document in memory). The error is `out`'s, or the disk's for parcels kept there.
pub fn write_svg(
    scene: &Scene<'_>,
    width_px: u32,
    height_px: u32,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let l = layout(scene, width_px, height_px);
    let (w, h) = (l.width, l.height);
    let b = l.text_px;
    let mut s = String::with_capacity(4096);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}, sans-serif">"#
    );
    let f = l.map_frame;
    let frame =
        format!(r#"x="{}" y="{}" width="{}" height="{}""#, n(f[0]), n(f[1]), n(f[2] - f[0]), n(f[3] - f[1]));
    let _ = writeln!(s, r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>"##);
    let _ = writeln!(s, r#"<defs><clipPath id="map-frame"><rect {frame}/></clipPath></defs>"#);
    let _ = writeln!(s, r#"<g clip-path="url(#map-frame)">"#);
    for layer in &scene.layers {
        if layer.is_empty() {
            continue;
        }
        if let (Some(d), Some(c)) = (layer.band, layer.style.fill) {
            band_path(&mut s, &l, &layer.name, &layer.lines, 2.0 * d * l.scale, c);
            continue;
        }
        let _ =
            writeln!(s, r#"<g id="{}" fill-rule="evenodd" {}>"#, escape(&layer.name), paint(&layer.style));
        let mut failed = Ok(());
        layer.each_polygon(|shape| {
            polygon_path(&mut s, &l, shape, &layer.style);
            if s.len() >= CHUNK && failed.is_ok() {
                failed = out.write_all(s.as_bytes());
                s.clear();
            }
        })?;
        failed?;
        for line in &layer.lines {
            line_path(&mut s, &l, line);
        }
        s.push_str("</g>\n");
    }
    for label in &scene.labels {
        let [x, y] = l.to_px(label.at);
        let size = f64::from(label.size_px) * b / 12.0;
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="#222222" stroke="#ffffff" stroke-width="{}" stroke-linejoin="round" paint-order="stroke">{}</text>"##,
            n(x),
            n(y + 0.35 * size),
            n(size),
            n(size / 5.0),
            escape(&label.text)
        );
    }
    s.push_str("</g>\n");
    let _ = writeln!(s, r##"<rect {frame} fill="none" stroke="#666666" stroke-width="1"/>"##);
    let t = l.title_box;
    text(&mut s, t[0], t[1] + 1.4 * b, 1.5 * b, "start", &scene.title);
    text(&mut s, t[0], t[1] + 2.8 * b, b, "start", &scene.subtitle);
    legend(&mut s, scene, &l);
    north_arrow(&mut s, &l);
    scale_bar(&mut s, &l);
    s.push_str("</svg>\n");
    out.write_all(s.as_bytes())
}

/// The fill, stroke and dash attributes of a style.
fn paint(style: &Style) -> String {
    let mut a = String::new();
    match style.fill {
        Some(c) => {
            let _ = write!(a, r#"fill="{}""#, c.css());
            if c.3 < 255 {
                let _ = write!(a, r#" fill-opacity="{}""#, n(f64::from(c.3) / 255.0));
            }
        }
        None => a.push_str(r#"fill="none""#),
    }
    match style.stroke {
        Some(c) => {
            let _ = write!(
                a,
                r#" stroke="{}" stroke-width="{}" stroke-linejoin="round" stroke-linecap="round""#,
                c.css(),
                n(f64::from(style.stroke_px))
            );
            if c.3 < 255 {
                let _ = write!(a, r#" stroke-opacity="{}""#, n(f64::from(c.3) / 255.0));
            }
            if style.dash {
                let [on, off] = dash_pattern(style.stroke_px);
                let _ = write!(a, r#" stroke-dasharray="{} {}""#, n(f64::from(on)), n(f64::from(off)));
            }
        }
        None => a.push_str(r#" stroke="none""#),
    }
    a
}

/// One `<path>` for a multipolygon, unless it lies outside the extent. Its outline is thinned (or dropped)
/// when the polygon is small on the image, as in the PNG; tiny polygons keep their true shape, since an SVG
/// can be zoomed.
fn polygon_path(s: &mut String, l: &Layout, shape: &MultiPolygon<f64>, style: &Style) {
    let Some(px) = shape.bounding_rect().and_then(|r| l.px_box(r)) else { return };
    s.push_str(r#"<path d=""#);
    for polygon in &shape.0 {
        for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
            ring_data(s, l, ring, true);
        }
    }
    s.push('"');
    if style.stroke.is_some() {
        let small = (px[2] - px[0]).max(px[3] - px[1]) < MIN_FEATURE_PX;
        match Layout::outline_px(style, px) {
            Some(w) if !small && w < style.stroke_px => {
                let _ = write!(s, r#" stroke-width="{}""#, n(f64::from(w)));
            }
            Some(_) if !small => {}
            _ => s.push_str(r#" stroke="none""#),
        }
    }
    s.push_str("/>\n");
}

/// One `<path>` for a line, unless it lies outside the extent.
fn line_path(s: &mut String, l: &Layout, line: &LineString<f64>) {
    if line.bounding_rect().and_then(|r| l.px_box(r)).is_none() {
        return;
    }
    s.push_str(r#"<path d=""#);
    ring_data(s, l, line, false);
    s.push_str(r#"" fill="none"/>"#);
    s.push('\n');
}

/// A band layer: one `<path>` of all its lines, stroked `width` pixels wide with round joins and caps in
/// `colour`, so the band is painted once where it overlaps itself.
fn band_path(
    s: &mut String,
    l: &Layout,
    name: &str,
    lines: &[Cow<'_, LineString<f64>>],
    width: f64,
    colour: Rgba,
) {
    let _ = write!(
        s,
        r#"<g id="{}" fill="none" stroke="{}" stroke-opacity="{}" stroke-width="{}" stroke-linejoin="round" stroke-linecap="round">"#,
        escape(name),
        colour.css(),
        n(f64::from(colour.3) / 255.0),
        n(width)
    );
    s.push_str("\n<path d=\"");
    for line in lines {
        ring_data(s, l, line, false);
    }
    s.push_str("\"/>\n</g>\n");
}

/// Path data for one ring or line: `M x y L x y … [Z]`.
fn ring_data(s: &mut String, l: &Layout, ring: &LineString<f64>, close: bool) {
    if ring.0.len() < 2 {
        return;
    }
    for (i, c) in ring.0.iter().enumerate() {
        let [x, y] = l.to_px([c.x, c.y]);
        let _ = write!(s, "{}{} {}", if i == 0 { "M" } else { "L" }, n(x), n(y));
    }
    if close {
        s.push('Z');
    }
}

/// The legend box, its swatches and labels.
fn legend(s: &mut String, scene: &Scene<'_>, l: &Layout) {
    if scene.legend.is_empty() {
        return;
    }
    let g = l.legend_box;
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" stroke="#999999" stroke-width="1"/>"##,
        n(g[0]),
        n(g[1]),
        n(g[2] - g[0]),
        n(g[3] - g[1])
    );
    for (i, entry) in scene.legend.iter().enumerate() {
        let heading = !entry.style.paints();
        let (sw, text_x, baseline) = l.legend_row(i, heading);
        if entry.style.fill.is_some() {
            let _ = writeln!(
                s,
                r#"<rect x="{}" y="{}" width="{}" height="{}" {}/>"#,
                n(sw[0]),
                n(sw[1]),
                n(sw[2] - sw[0]),
                n(sw[3] - sw[1]),
                paint(&entry.style)
            );
        } else if entry.style.stroke.is_some() {
            let y = n((sw[1] + sw[3]) / 2.0);
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{y}" x2="{}" y2="{y}" {}/>"#,
                n(sw[0]),
                n(sw[2]),
                paint(&entry.style)
            );
        }
        text(s, text_x, baseline, l.text_px, "start", &entry.label);
    }
}

/// The north arrow: a dark triangle pointing up (grid north) with an "N" above it.
fn north_arrow(s: &mut String, l: &Layout) {
    let b = l.text_px;
    let [x, tip] = l.north_arrow;
    let foot = tip + 2.2 * b;
    let _ = writeln!(
        s,
        r##"<polygon points="{},{} {},{} {},{} {},{}" fill="#222222"/>"##,
        n(x),
        n(tip),
        n(x + 0.6 * b),
        n(foot),
        n(x),
        n(foot - 0.5 * b),
        n(x - 0.6 * b),
        n(foot)
    );
    text(s, x, tip - 0.3 * b, 1.1 * b, "middle", "N");
}

/// The scale bar: four alternating black and white segments with the length centred above.
fn scale_bar(s: &mut String, l: &Layout) {
    let b = l.text_px;
    let bar = &l.scale_bar;
    let [x0, bottom] = bar.at;
    let top = bottom - 0.5 * b;
    for k in 0..4 {
        let fill = if k % 2 == 0 { Rgba::BLACK } else { Rgba::WHITE };
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#000000" stroke-width="1"/>"##,
            n(x0 + bar.px * f64::from(k) / 4.0),
            n(top),
            n(bar.px / 4.0),
            n(0.5 * b),
            fill.css()
        );
    }
    text(s, x0 + bar.px / 2.0, top - 0.4 * b, b, "middle", &bar.label);
}

/// A `<text>` element in dark grey.
fn text(s: &mut String, x: f64, baseline: f64, size: f64, anchor: &str, content: &str) {
    if content.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" font-size="{}" text-anchor="{anchor}" fill="#111111">{}</text>"##,
        n(x),
        n(baseline),
        n(size),
        escape(content)
    );
}

/// A coordinate with at most two decimals and no trailing zeros.
fn n(v: f64) -> String {
    let mut t = format!("{v:.2}");
    if t.contains('.') {
        while t.ends_with('0') {
            t.pop();
        }
        if t.ends_with('.') {
            t.pop();
        }
    }
    if t == "-0" {
        t = "0".into();
    }
    t
}

/// Text made safe for XML content and attribute values (SVG here, QGIS QML in `qml`): markup escaped, and
/// control characters but the line break written as U+FFFD.
pub(super) fn escape(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML cannot hold the other C0 controls; the rest of the controls would reorder or hide text.
            c if c != '\n' && crate::model::controls::is_control(c) => {
                out.push(crate::model::controls::REPLACEMENT)
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(n(12.0), "12");
        assert_eq!(n(12.5), "12.5");
        assert_eq!(n(12.345), "12.35");
        assert_eq!(n(-0.001), "0");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape(r#"A & B <"c">"#), "A &amp; B &lt;&quot;c&quot;&gt;");
        assert_eq!(escape("bell\u{7}\u{202e}"), "bell\u{fffd}\u{fffd}");
    }
}
