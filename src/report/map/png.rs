//! The PNG renderer: paths with tiny-skia (anti-aliased, even-odd fill) and text with ab_glyph from the
//! bundled font, onto an opaque white image laid out by [`layout`]; map features and labels are clipped to
//! the map frame.
//!
//! A polygon smaller than [`MIN_FEATURE_PX`] across is drawn as a square of that size at its centre, so every
//! parcel shows on a map of the whole county; map text has a white halo so it reads over any fill.

use geo::{BoundingRect, LineString, MultiPolygon};
use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, StrokeDash, Transform,
};

use super::scene::{dash_pattern, layout, Layout, Rgba, Scene, Style, MIN_FEATURE_PX};
use super::text::{font, glyphs, Anchor};
use ab_glyph::Font;

/// The most pixels a PNG map may have: a poster of 36 × 48 inches at 300 dpi is 155 million, held in memory
/// at 4 bytes a pixel while it is drawn.
pub const MAX_PIXELS: u64 = 200_000_000;

/// Whether a PNG map of `width_px` × `height_px` can be drawn: `Err` says why not (no pixel, or more than
/// [`MAX_PIXELS`], which would take gigabytes before the first parcel is drawn).
pub fn check_png_size(width_px: u32, height_px: u32) -> Result<(), String> {
    let pixels = u64::from(width_px) * u64::from(height_px);
    if pixels == 0 || pixels > MAX_PIXELS {
        return Err(format!(
            "cannot make a {width_px}×{height_px} image: give a size from 1×1 up to {} million pixels \
             (--width × --height; 1600×1200 is the default)",
            MAX_PIXELS / 1_000_000
        ));
    }
    Ok(())
}

/// Renders the scene as a PNG image `width_px` × `height_px`; the error says why the image could not be made
/// (a size [`check_png_size`] refuses, or the encoder failing).
pub fn render_png(scene: &Scene<'_>, width_px: u32, height_px: u32) -> Result<Vec<u8>, String> {
    check_png_size(width_px, height_px)?;
    let mut pixmap = Pixmap::new(width_px, height_px)
        .ok_or_else(|| format!("cannot make a {width_px}×{height_px} image: give a smaller size"))?;
    pixmap.fill(Color::WHITE);
    let l = layout(scene, width_px, height_px);
    let b = l.text_px;
    let f = l.map_frame;
    // Features are drawn unclipped and the margins painted white over them afterwards: cheaper than a clip
    // mask on every path, and the frame has whole-pixel edges so nothing shows through.
    for layer in &scene.layers {
        layer
            .each_polygon(|shape| draw_polygon(&mut pixmap, &l, shape, &layer.style))
            .map_err(|e| format!("cannot read back the parcels kept on disk: {e}"))?;
        match layer.band {
            Some(d) => draw_band(&mut pixmap, &l, &layer.lines, d, &layer.style),
            None => layer.lines.iter().for_each(|line| draw_line(&mut pixmap, &l, line, &layer.style)),
        }
    }
    for label in &scene.labels {
        let [x, y] = l.to_px(label.at);
        let size = f64::from(label.size_px) * b / 12.0;
        let text =
            Text { x, baseline: y + 0.35 * size, size, anchor: Anchor::Middle, colour: Rgba::hex(0x222222) };
        draw_text(&mut pixmap, &text, &label.text, Some(Rgba::WHITE), f);
    }
    let (w, h) = (l.width, l.height);
    let mut white = paint(Rgba::WHITE);
    white.anti_alias = false;
    for [x0, y0, x1, y1] in
        [[0.0, 0.0, w, f[1]], [0.0, f[3], w, h], [0.0, f[1], f[0], f[3]], [f[2], f[1], w, f[3]]]
    {
        if let Some(r) = Rect::from_ltrb(x0 as f32, y0 as f32, x1 as f32, y1 as f32) {
            pixmap.fill_rect(r, &white, Transform::identity(), None);
        }
    }
    if let Some(r) = Rect::from_ltrb(f[0] as f32, f[1] as f32, f[2] as f32, f[3] as f32) {
        stroke(&mut pixmap, &PathBuilder::from_rect(r), Rgba::hex(0x666666), 1.0, false);
    }
    let all = [0.0, 0.0, l.width, l.height];
    let dark = Rgba::hex(0x111111);
    let t = l.title_box;
    let title =
        Text { x: t[0], baseline: t[1] + 1.4 * b, size: 1.5 * b, anchor: Anchor::Start, colour: dark };
    draw_text(&mut pixmap, &title, &scene.title, None, all);
    let subtitle = Text { baseline: t[1] + 2.8 * b, size: b, ..title };
    draw_text(&mut pixmap, &subtitle, &scene.subtitle, None, all);
    legend(&mut pixmap, scene, &l);
    north_arrow(&mut pixmap, &l);
    scale_bar(&mut pixmap, &l);
    pixmap.encode_png().map_err(|e| format!("cannot encode the PNG: {e}"))
}

/// Fills and outlines one multipolygon.
fn draw_polygon(pm: &mut Pixmap, l: &Layout, shape: &MultiPolygon<f64>, style: &Style) {
    let Some(px) = shape.bounding_rect().and_then(|r| l.px_box(r)) else { return };
    if (px[2] - px[0]).max(px[3] - px[1]) < MIN_FEATURE_PX {
        let Some(colour) = style.fill.or(style.stroke) else { return };
        let (cx, cy, half) = ((px[0] + px[2]) / 2.0, (px[1] + px[3]) / 2.0, MIN_FEATURE_PX / 2.0);
        if let Some(r) =
            Rect::from_ltrb((cx - half) as f32, (cy - half) as f32, (cx + half) as f32, (cy + half) as f32)
        {
            pm.fill_rect(r, &paint(colour), Transform::identity(), None);
        }
        return;
    }
    let mut pb = PathBuilder::new();
    for polygon in &shape.0 {
        for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
            trace(&mut pb, l, ring, true);
        }
    }
    let Some(path) = pb.finish() else { return };
    if let Some(fill) = style.fill {
        pm.fill_path(&path, &paint(fill), FillRule::EvenOdd, Transform::identity(), None);
    }
    if let (Some(colour), Some(width)) = (style.stroke, Layout::outline_px(style, px)) {
        stroke(pm, &path, colour, width, style.dash);
    }
}

/// Strokes one line.
fn draw_line(pm: &mut Pixmap, l: &Layout, line: &LineString<f64>, style: &Style) {
    let Some(colour) = style.stroke else { return };
    if line.bounding_rect().and_then(|r| l.px_box(r)).is_none() {
        return;
    }
    let mut pb = PathBuilder::new();
    trace(&mut pb, l, line, false);
    if let Some(path) = pb.finish() {
        stroke(pm, &path, colour, style.stroke_px, style.dash);
    }
}

/// Paints everything within `d` scene units of the lines in the style's fill: one path of all the lines,
/// stroked `2·d` wide with round joins and caps, so the band is painted once where it overlaps itself.
fn draw_band(
    pm: &mut Pixmap,
    l: &Layout,
    lines: &[std::borrow::Cow<'_, LineString<f64>>],
    d: f64,
    style: &Style,
) {
    let Some(colour) = style.fill else { return };
    let mut pb = PathBuilder::new();
    for line in lines {
        trace(&mut pb, l, line, false);
    }
    let Some(path) = pb.finish() else { return };
    let s = Stroke {
        width: (2.0 * d * l.scale) as f32,
        line_join: LineJoin::Round,
        line_cap: LineCap::Round,
        ..Stroke::default()
    };
    pm.stroke_path(&path, &paint(colour), &s, Transform::identity(), None);
}

/// Adds one ring or line, in pixels, to the path.
fn trace(pb: &mut PathBuilder, l: &Layout, ring: &LineString<f64>, close: bool) {
    if ring.0.len() < 2 {
        return;
    }
    for (i, c) in ring.0.iter().enumerate() {
        let [x, y] = l.to_px([c.x, c.y]);
        if i == 0 {
            pb.move_to(x as f32, y as f32);
        } else {
            pb.line_to(x as f32, y as f32);
        }
    }
    if close {
        pb.close();
    }
}

/// A solid anti-aliased paint.
fn paint(c: Rgba) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c.0, c.1, c.2, c.3);
    p.anti_alias = true;
    p
}

/// Strokes a path `width` pixels wide, dashed or solid.
fn stroke(pm: &mut Pixmap, path: &Path, colour: Rgba, width: f32, dash: bool) {
    let mut s = Stroke { width, line_join: LineJoin::Round, line_cap: LineCap::Round, ..Stroke::default() };
    if dash {
        let [on, off] = dash_pattern(width);
        s.dash = StrokeDash::new(vec![on, off], 0.0);
        s.line_cap = LineCap::Butt;
    }
    pm.stroke_path(path, &paint(colour), &s, Transform::identity(), None);
}

/// A line of text: where it stands, its size and colour.
#[derive(Clone, Copy)]
struct Text {
    x: f64,
    baseline: f64,
    size: f64,
    anchor: Anchor,
    colour: Rgba,
}

/// Draws `content` inside `clip` (`[x0, y0, x1, y1]`), first in `halo` one pixel around it when given.
fn draw_text(pm: &mut Pixmap, t: &Text, content: &str, halo: Option<Rgba>, clip: [f64; 4]) {
    if content.is_empty() {
        return;
    }
    if let Some(h) = halo {
        for (dx, dy) in [
            (-1.0, -1.0),
            (0.0, -1.0),
            (1.0, -1.0),
            (-1.0, 0.0),
            (1.0, 0.0),
            (-1.0, 1.0),
            (0.0, 1.0),
            (1.0, 1.0),
        ] {
            let moved = Text { x: t.x + dx, baseline: t.baseline + dy, colour: h, ..*t };
            draw_text(pm, &moved, content, None, clip);
        }
    }
    let (w, h) = (pm.width() as i64, pm.height() as i64);
    let (cx0, cy0) = (clip[0].max(0.0) as i64, clip[1].max(0.0) as i64);
    let (cx1, cy1) = ((clip[2].ceil() as i64).min(w), (clip[3].ceil() as i64).min(h));
    let data = pm.data_mut();
    for glyph in glyphs(content, t.x, t.baseline, t.size, t.anchor) {
        let Some(outlined) = font().outline_glyph(glyph) else { continue };
        let bounds = outlined.px_bounds();
        outlined.draw(|gx, gy, coverage| {
            let x = bounds.min.x as i64 + i64::from(gx);
            let y = bounds.min.y as i64 + i64::from(gy);
            if x < cx0 || y < cy0 || x >= cx1 || y >= cy1 {
                return;
            }
            let i = ((y * w + x) * 4) as usize;
            blend(&mut data[i..i + 4], t.colour, coverage);
        });
    }
}

/// Source-over blend of `colour` at `coverage` onto one premultiplied RGBA pixel.
fn blend(px: &mut [u8], colour: Rgba, coverage: f32) {
    let a = coverage.clamp(0.0, 1.0) * f32::from(colour.3) / 255.0;
    let src = [colour.0, colour.1, colour.2];
    for k in 0..3 {
        px[k] = (f32::from(src[k]) * a + f32::from(px[k]) * (1.0 - a)).round() as u8;
    }
    px[3] = (255.0 * a + f32::from(px[3]) * (1.0 - a)).round() as u8;
    // Premultiplied colour never exceeds its alpha; rounding must not make it.
    for k in 0..3 {
        px[k] = px[k].min(px[3]);
    }
}

/// The legend box, its swatches and labels.
fn legend(pm: &mut Pixmap, scene: &Scene<'_>, l: &Layout) {
    if scene.legend.is_empty() {
        return;
    }
    let g = l.legend_box;
    if let Some(r) = Rect::from_ltrb(g[0] as f32, g[1] as f32, g[2] as f32, g[3] as f32) {
        pm.fill_rect(r, &paint(Rgba::WHITE), Transform::identity(), None);
        stroke(pm, &PathBuilder::from_rect(r), Rgba::hex(0x999999), 1.0, false);
    }
    let all = [0.0, 0.0, l.width, l.height];
    for (i, entry) in scene.legend.iter().enumerate() {
        let heading = !entry.style.paints();
        let (sw, text_x, baseline) = l.legend_row(i, heading);
        let swatch = Rect::from_ltrb(sw[0] as f32, sw[1] as f32, sw[2] as f32, sw[3] as f32);
        match (entry.style.fill, swatch) {
            (Some(fill), Some(r)) => {
                pm.fill_rect(r, &paint(fill), Transform::identity(), None);
                if let Some(s) = entry.style.stroke {
                    stroke(
                        pm,
                        &PathBuilder::from_rect(r),
                        s,
                        entry.style.stroke_px.min(2.0),
                        entry.style.dash,
                    );
                }
            }
            (None, Some(_)) if entry.style.stroke.is_some() => {
                let mut pb = PathBuilder::new();
                let y = ((sw[1] + sw[3]) / 2.0) as f32;
                pb.move_to(sw[0] as f32, y);
                pb.line_to(sw[2] as f32, y);
                if let (Some(path), Some(s)) = (pb.finish(), entry.style.stroke) {
                    stroke(pm, &path, s, entry.style.stroke_px, entry.style.dash);
                }
            }
            _ => {}
        }
        let t =
            Text { x: text_x, baseline, size: l.text_px, anchor: Anchor::Start, colour: Rgba::hex(0x111111) };
        draw_text(pm, &t, &entry.label, None, all);
    }
}

/// The north arrow: a dark triangle pointing up (grid north) with an "N" above it.
fn north_arrow(pm: &mut Pixmap, l: &Layout) {
    let b = l.text_px;
    let [x, tip] = l.north_arrow;
    let foot = tip + 2.2 * b;
    let mut pb = PathBuilder::new();
    pb.move_to(x as f32, tip as f32);
    pb.line_to((x + 0.6 * b) as f32, foot as f32);
    pb.line_to(x as f32, (foot - 0.5 * b) as f32);
    pb.line_to((x - 0.6 * b) as f32, foot as f32);
    pb.close();
    if let Some(path) = pb.finish() {
        pm.fill_path(&path, &paint(Rgba::hex(0x222222)), FillRule::Winding, Transform::identity(), None);
    }
    let n = Text {
        x,
        baseline: tip - 0.3 * b,
        size: 1.1 * b,
        anchor: Anchor::Middle,
        colour: Rgba::hex(0x111111),
    };
    draw_text(pm, &n, "N", None, [0.0, 0.0, l.width, l.height]);
}

/// The scale bar: four alternating black and white segments with the length centred above.
fn scale_bar(pm: &mut Pixmap, l: &Layout) {
    let b = l.text_px;
    let bar = &l.scale_bar;
    let [x0, bottom] = bar.at;
    let top = bottom - 0.5 * b;
    for k in 0..4 {
        let left = x0 + bar.px * f64::from(k) / 4.0;
        let Some(r) = Rect::from_ltrb(left as f32, top as f32, (left + bar.px / 4.0) as f32, bottom as f32)
        else {
            continue;
        };
        let fill = if k % 2 == 0 { Rgba::BLACK } else { Rgba::WHITE };
        pm.fill_rect(r, &paint(fill), Transform::identity(), None);
        stroke(pm, &PathBuilder::from_rect(r), Rgba::BLACK, 1.0, false);
    }
    let t = Text {
        x: x0 + bar.px / 2.0,
        baseline: top - 0.4 * b,
        size: b,
        anchor: Anchor::Middle,
        colour: Rgba::BLACK,
    };
    draw_text(pm, &t, &bar.label, None, [0.0, 0.0, l.width, l.height]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blending_is_source_over_and_stays_premultiplied() {
        let mut px = [255, 255, 255, 255];
        blend(&mut px, Rgba::BLACK, 1.0);
        assert_eq!(px, [0, 0, 0, 255]);
        let mut px = [255, 255, 255, 255];
        blend(&mut px, Rgba::BLACK, 0.5);
        assert_eq!(px, [128, 128, 128, 255]);
        let mut px = [0, 0, 0, 0];
        blend(&mut px, Rgba(200, 100, 0, 255), 0.5);
        assert_eq!(px, [100, 50, 0, 128]);
    }

    #[test]
    fn zero_sized_image_is_an_error() {
        let scene = Scene {
            title: String::new(),
            subtitle: String::new(),
            extent: [0.0, 0.0, 1.0, 1.0],
            layers: Vec::new(),
            labels: Vec::new(),
            legend: Vec::new(),
            units_per_foot: 1.0,
        };
        assert!(render_png(&scene, 0, 10).unwrap_err().contains("0×10"));
    }
}
