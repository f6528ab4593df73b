//! The map renderers on a scene built by hand: pixels land where the documented transform puts them (feet
//! square, y up), text is drawn with the bundled font, and the SVG has one path per feature, the legend, the
//! title and a round scale bar.

use std::borrow::Cow;

use geo::{LineString, MultiPolygon, Polygon};
use lakeshore::report::map::{
    layout, rectangle, render_png, render_svg, schedule_scene, Label, LegendEntry, MapInput, MapLayer,
    ParcelClass, Rgba, Scene, Style,
};
use tiny_skia::Pixmap;

const BLUE: Rgba = Rgba::hex(0x0072B2);
const RED: Rgba = Rgba::hex(0xD7191C);
const GREEN: Rgba = Rgba::hex(0x009E73);

/// A square 10,000 ft county: a blue lot up and to the left, a red lot down and to the right, a green lot
/// with a hole, a river, a town name and a three-row legend.
fn county(title: &str) -> Scene<'static> {
    let outline = Rgba(64, 64, 64, 110);
    let mut blue = MapLayer::new("blue", Style::area(BLUE, outline, 0.5));
    blue.polygons.push(Cow::Owned(rectangle([1_000.0, 7_000.0, 2_000.0, 8_000.0])));
    let mut red = MapLayer::new("red", Style::area(RED, Rgba::hex(0x67000D), 1.0));
    red.polygons.push(Cow::Owned(rectangle([6_000.0, 2_000.0, 7_000.0, 3_000.0])));
    let donut = Polygon::new(
        LineString::from(vec![
            (3_000.0, 3_000.0),
            (5_000.0, 3_000.0),
            (5_000.0, 5_000.0),
            (3_000.0, 5_000.0),
        ]),
        vec![LineString::from(vec![
            (3_600.0, 3_600.0),
            (4_400.0, 3_600.0),
            (4_400.0, 4_400.0),
            (3_600.0, 4_400.0),
        ])],
    );
    let mut green = MapLayer::new("green", Style::area(GREEN, outline, 0.5));
    green.polygons.push(Cow::Owned(MultiPolygon(vec![donut])));
    let mut river = MapLayer::new("river", Style::line(Rgba::hex(0x08306B), 2.0, false));
    river.lines.push(Cow::Owned(LineString::from(vec![(0.0, 1_000.0), (10_000.0, 1_500.0)])));
    Scene {
        title: title.into(),
        subtitle: if title.is_empty() { String::new() } else { "As of 2027-01-15".into() },
        extent: [0.0, 0.0, 10_000.0, 10_000.0],
        layers: vec![blue, red, green, river],
        labels: vec![Label { at: [8_000.0, 8_000.0], text: "Fleming".into(), size_px: 13.0 }],
        legend: vec![
            LegendEntry { label: "Lakefront".into(), style: Style::area(BLUE, outline, 0.5) },
            LegendEntry { label: "Overdue".into(), style: Style::area(RED, Rgba::hex(0x67000D), 1.0) },
            LegendEntry { label: "River".into(), style: Style::line(Rgba::hex(0x08306B), 2.0, false) },
        ],
        units_per_foot: 1.0,
    }
}

fn decode(png: &[u8]) -> Pixmap {
    Pixmap::decode_png(png).expect("the renderer writes a valid PNG")
}

fn rgb(pm: &Pixmap, x: u32, y: u32) -> (u8, u8, u8) {
    let p = pm.pixel(x, y).expect("pixel inside the image");
    (p.red(), p.green(), p.blue())
}

/// Pixels in the box `[x0, y0, x1, y1]` darker than mid grey.
fn dark_pixels(pm: &Pixmap, b: [f64; 4]) -> usize {
    let mut n = 0;
    for y in b[1].max(0.0) as u32..(b[3] as u32).min(pm.height()) {
        for x in b[0].max(0.0) as u32..(b[2] as u32).min(pm.width()) {
            let (r, g, bl) = rgb(pm, x, y);
            if u32::from(r) + u32::from(g) + u32::from(bl) < 300 {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn png_has_the_size_asked_and_is_not_blank() {
    let pm = decode(&render_png(&county("Cayuga County"), 800, 600).unwrap());
    assert_eq!((pm.width(), pm.height()), (800, 600));
    let mut colours: Vec<[u8; 4]> =
        pm.pixels().iter().map(|p| [p.red(), p.green(), p.blue(), p.alpha()]).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 50, "only {} distinct colours", colours.len());
    assert!(pm.pixels().iter().all(|p| p.alpha() == 255), "the image is opaque");
}

#[test]
fn png_puts_features_where_the_transform_says_with_y_up() {
    // By hand (Layout docs): on 800×600, base 12, the legend column is 12·base = 144 px, so the frame is
    // [12, 54, 632, 588], 620 × 534 px. The square extent fills the height: scale = 534 / 10,000 px per ft,
    // centred horizontally: origin = (322 − 267, 54) = (55, 54).
    let s = 534.0 / 10_000.0;
    let px = |x: f64, y: f64| ((55.0 + x * s) as u32, (54.0 + (10_000.0 - y) * s) as u32);
    let scene = county("Cayuga County");
    let l = layout(&scene, 800, 600);
    assert_eq!(l.map_frame, [12.0, 54.0, 632.0, 588.0]);
    assert_eq!(
        l.to_px([1_500.0, 7_500.0]).map(|v| v as u32),
        [px(1_500.0, 7_500.0).0, px(1_500.0, 7_500.0).1]
    );

    let pm = decode(&render_png(&scene, 800, 600).unwrap());
    let (x, y) = px(1_500.0, 7_500.0); // the blue lot, up and to the left: (135, 187)
    assert_eq!((x, y), (135, 187));
    assert_eq!(rgb(&pm, x, y), (BLUE.0, BLUE.1, BLUE.2));
    let (x, y) = px(6_500.0, 2_500.0); // the red lot, down and to the right: (402, 454)
    assert_eq!(rgb(&pm, x, y), (RED.0, RED.1, RED.2));
    // Were y not flipped, the red lot would be up here: that is background.
    let (x, y) = (px(6_500.0, 2_500.0).0, (54.0 + 2_500.0 * s) as u32);
    assert_eq!(rgb(&pm, x, y), (255, 255, 255));
    // The green lot is filled even-odd: its ring is green, its hole shows the background.
    let (x, y) = px(3_300.0, 4_000.0);
    assert_eq!(rgb(&pm, x, y), (GREEN.0, GREEN.1, GREEN.2));
    let (x, y) = px(4_000.0, 4_000.0);
    assert_eq!(rgb(&pm, x, y), (255, 255, 255));
    // The river runs along the bottom: dark under its middle.
    let (x, y) = px(5_000.0, 1_250.0);
    let (r, g, b) = rgb(&pm, x, y);
    assert!(u32::from(r) + u32::from(g) + u32::from(b) < 300, "river pixel is {:?}", (r, g, b));
}

#[test]
fn png_draws_legend_title_and_label_text() {
    let scene = county("Cayuga County");
    let l = layout(&scene, 800, 600);
    let pm = decode(&render_png(&scene, 800, 600).unwrap());
    // Legend text sits right of the swatches; the swatches (blue, red, a line) are not counted there.
    let g = l.legend_box;
    let text_area = [g[0] + 0.6 * 12.0 + 2.4 * 12.0, g[1], g[2], g[3]];
    assert!(dark_pixels(&pm, text_area) > 60, "legend text: {}", dark_pixels(&pm, text_area));
    assert!(dark_pixels(&pm, l.title_box) > 150, "title text: {}", dark_pixels(&pm, l.title_box));
    let [x, y] = l.to_px([8_000.0, 8_000.0]);
    let around = [x - 40.0, y - 12.0, x + 40.0, y + 12.0];
    assert!(dark_pixels(&pm, around) > 40, "town label: {}", dark_pixels(&pm, around));

    // Without a title the same box is empty: the text above came from the title.
    let pm = decode(&render_png(&county(""), 800, 600).unwrap());
    assert_eq!(dark_pixels(&pm, l.title_box), 0);
}

#[test]
fn png_of_a_schedule_scene_shows_overdue_parcels_red() {
    let (a, b) = (rectangle([0.0, 0.0, 1_000.0, 1_000.0]), rectangle([1_000.0, 0.0, 2_000.0, 1_000.0]));
    let input = MapInput {
        parcels: vec![(Cow::Borrowed(&a), ParcelClass::Current), (Cow::Borrowed(&b), ParcelClass::Overdue)],
        title: "Owasco Lake".into(),
        as_of: "2027-01-15".into(),
        ..MapInput::default()
    };
    let scene = schedule_scene(&input);
    let l = layout(&scene, 800, 600);
    let pm = decode(&render_png(&scene, 800, 600).unwrap());
    let [x, y] = l.to_px([1_500.0, 500.0]);
    assert_eq!(rgb(&pm, x as u32, y as u32), (RED.0, RED.1, RED.2));
    let [x, y] = l.to_px([500.0, 500.0]);
    assert_eq!(rgb(&pm, x as u32, y as u32), (GREEN.0, GREEN.1, GREEN.2));
}

#[test]
fn tiny_parcels_of_a_county_map_still_show() {
    // A 200 ft lot in a 200,000 ft county is under one pixel; it is drawn as a small square.
    let lot = rectangle([100_000.0, 100_000.0, 100_200.0, 100_100.0]);
    let input = MapInput {
        parcels: vec![(Cow::Borrowed(&lot), ParcelClass::Overdue)],
        extent: Some([0.0, 0.0, 200_000.0, 200_000.0]),
        ..MapInput::default()
    };
    let scene = schedule_scene(&input);
    let l = layout(&scene, 800, 600);
    let pm = decode(&render_png(&scene, 800, 600).unwrap());
    let [x, y] = l.to_px([100_100.0, 100_050.0]);
    let (r, g, b) = rgb(&pm, x as u32, y as u32);
    assert!(r > 150 && g < 120 && b < 120, "overdue lot pixel is {:?}", (r, g, b));
}

#[test]
fn svg_has_viewbox_one_path_per_feature_legend_title_and_scale_bar() {
    let svg = render_svg(&county("Cayuga County"), 800, 600);
    assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    assert!(svg.contains(r#"viewBox="0 0 800 600""#));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<path").count(), 4, "three lots and a river");
    for text in ["Lakefront", "Overdue", "River", "Cayuga County", "As of 2027-01-15", "Fleming", ">N<"] {
        assert!(svg.contains(text), "missing {text}");
    }
    // 129.6 px of legend column at 534 px per 10,000 ft is 2,427 ft: the bar is 2,000 ft.
    assert!(svg.contains(">2,000 ft</text>"));
    assert!(svg.contains(r#"font-family="DejaVu Sans, sans-serif""#));
    // The blue lot's first corner (1,000, 7,000) is at (55 + 53.4, 54 + 160.2): y is flipped.
    assert!(svg.contains(r#"d="M108.4 214.2L"#), "blue lot path not where expected");
    // Elements are balanced.
    assert_eq!(svg.matches("<g").count(), svg.matches("</g>").count());
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
}

#[test]
fn svg_scale_bar_switches_to_miles_and_features_out_of_view_are_left_out() {
    let mut scene = county("Wide");
    scene.extent = [0.0, 0.0, 30_000.0, 30_000.0];
    // 129.6 px at 534 px per 30,000 ft is 7,281 ft: one mile.
    assert!(render_svg(&scene, 800, 600).contains(">1 mi</text>"));
    // Zoomed to the blue lot, the red and green lots and the river are not written.
    scene.extent = [900.0, 6_900.0, 2_100.0, 8_100.0];
    assert_eq!(render_svg(&scene, 800, 600).matches("<path").count(), 1);
}

#[test]
fn svg_escapes_text() {
    let svg = render_svg(&county("Lots & <Lakes>"), 800, 600);
    assert!(svg.contains("Lots &amp; &lt;Lakes&gt;"));
    assert!(!svg.contains("Lots & <"));
}
