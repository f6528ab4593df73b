//! The bundled font and text layout: DejaVu Sans (`data/fonts/DejaVuSans.ttf`, Bitstream Vera licence, see
//! `data/fonts/LICENSE.txt`) compiled into the binary, so maps look the same on every machine and no system
//! font or fontconfig is needed. Both renderers measure text here, so the legend column is as wide in an SVG as
//! in a PNG.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, Glyph, PxScale, ScaleFont};

/// The family name of the bundled font, as SVG text asks for it (with a generic fallback after it).
pub const FONT_FAMILY: &str = "DejaVu Sans";

static FONT_BYTES: &[u8] = include_bytes!("../../../data/fonts/DejaVuSans.ttf");

/// The parsed bundled font.
pub(crate) fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    // The font is compiled in and checked by a test, so failing to parse it is a build defect, not bad input.
    FONT.get_or_init(|| FontRef::try_from_slice(FONT_BYTES).expect("the bundled DejaVu Sans parses"))
}

/// Where a line of text stands relative to its x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// Text starts at x.
    Start,
    /// Text is centred on x.
    Middle,
}

/// ab_glyph scales by the line height (ascent − descent); SVG and CSS sizes are the em, so convert.
fn px_scale(size_px: f64) -> PxScale {
    let f = font();
    let em = f.units_per_em().unwrap_or(2048.0);
    PxScale::from((size_px as f32) * f.height_unscaled() / em)
}

/// The advance width of `text` at `size_px` (em size), kerning included.
pub(crate) fn text_width(text: &str, size_px: f64) -> f64 {
    let scaled = font().as_scaled(px_scale(size_px));
    let mut width = 0.0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        prev = Some(id);
    }
    f64::from(width)
}

/// The glyphs of `text` at `size_px`, positioned with the baseline at `y` and anchored at `x`.
pub(crate) fn glyphs(text: &str, x: f64, y: f64, size_px: f64, anchor: Anchor) -> Vec<Glyph> {
    let scale = px_scale(size_px);
    let scaled = font().as_scaled(scale);
    let start = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - text_width(text, size_px) / 2.0,
    };
    let mut caret = start as f32;
    let mut prev = None;
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            caret += scaled.kern(p, id);
        }
        out.push(id.with_scale_and_position(scale, point(caret, y as f32)));
        caret += scaled.h_advance(id);
        prev = Some(id);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_font_is_dejavu_sans_and_measures_text() {
        let f = font();
        assert_eq!(f.units_per_em(), Some(2048.0));
        // DejaVu Sans advances "M" by 1767/2048 em and a space by 651/2048 em.
        assert!((text_width("M", 20.48) - 17.67).abs() < 0.01, "{}", text_width("M", 20.48));
        assert!((text_width(" ", 20.48) - 6.51).abs() < 0.01);
        assert!(text_width("Overdue", 12.0) > text_width("Over", 12.0));
        assert_eq!(text_width("", 12.0), 0.0);
    }

    #[test]
    fn anchors_shift_the_first_glyph() {
        let w = text_width("Town", 12.0);
        let start = glyphs("Town", 100.0, 50.0, 12.0, Anchor::Start)[0].position.x;
        let middle = glyphs("Town", 100.0, 50.0, 12.0, Anchor::Middle)[0].position.x;
        assert_eq!(start, 100.0);
        assert!((f64::from(middle) - (100.0 - w / 2.0)).abs() < 1e-3);
    }
}
