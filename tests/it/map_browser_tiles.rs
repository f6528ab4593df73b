//! The tiled interactive map (`map --format html --tiles always`) of a generated county of 100,000 parcels in
//! a real browser, opened from disk (`file://`): the page reads its index, a known parcel's tile is added when
//! the view reaches it, a click on the parcel shows its row, and a filter changes what is drawn. The page's
//! name holds characters a URL reads otherwise, so its tiles, named after it, must be asked for escaped.
//!
//! Expected values come from outside the program: the parcel, its id (SWIS and print key), owner and town
//! are read from the generator's `parcels.shp` with the `shapefile` crate, and its place in longitude and
//! latitude is its box's centre projected from EPSG:2261 with `proj4rs` and the EPSG:2261 parameters, as the
//! generator documents them.
//!
//! Needs the `synth_county` example beside the test binary (`cargo test` builds it), Chromium and
//! chromedriver; without them the test says it is skipped and passes, unless `CI` is set. Nothing sleeps:
//! every wait is on the page's own signals (`data-ready`, `data-tiles`, the popup element appearing).

use crate::common;
use crate::map_browser::{browser_or_skip, write_map, Browser};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

/// EPSG:2261, NAD83 / New York Central (ftUS), as the EPSG registry defines it.
const EPSG_2261: &str = "+proj=tmerc +lat_0=40 +lon_0=-76.58333333333333 +k=0.9999375 +x_0=250000 +y_0=0 \
                         +ellps=GRS80 +units=us-ft +no_defs";

/// The generator, as `cargo test` builds it beside the test binary.
fn generator() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_lakeshore"));
    bin.parent().unwrap().join("examples").join(format!("synth_county{}", std::env::consts::EXE_SUFFIX))
}

/// A parcel as `parcels.shp` has it: id, owner, town, and the centre of its box in longitude and latitude.
struct Known {
    id: String,
    owner: String,
    town: String,
    lon_lat: (f64, f64),
}

/// Record `k` of `parcels.shp` and the number of records with a polygon.
fn known_parcel(shp: &Path, k: usize) -> (Known, usize) {
    let mut reader = shapefile::Reader::from_path(shp).unwrap();
    let mut with_shape = 0;
    let mut known = None;
    for (i, record) in reader.iter_shapes_and_records().enumerate() {
        let (shape, record) = record.unwrap();
        let shapefile::Shape::Polygon(polygon) = shape else { continue };
        with_shape += 1;
        if i != k {
            continue;
        }
        let text = |name: &str| match record.get(name) {
            Some(shapefile::dbase::FieldValue::Character(Some(t))) => t.trim().to_string(),
            other => panic!("{name}: {other:?}"),
        };
        let points = polygon.rings().iter().flat_map(|r| r.points().iter());
        let (x0, y0, x1, y1) = points.fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |(a, b, c, d), p| {
            (a.min(p.x), b.min(p.y), c.max(p.x), d.max(p.y))
        });
        let feet = proj4rs::proj::Proj::from_proj_string(EPSG_2261).unwrap();
        let wgs84 = proj4rs::proj::Proj::from_proj_string("+proj=longlat +datum=WGS84 +no_defs").unwrap();
        let mut at = ((x0 + x1) / 2.0, (y0 + y1) / 2.0, 0.0);
        proj4rs::transform::transform(&feet, &wgs84, &mut at).unwrap();
        known = Some(Known {
            id: format!("{}-{}", text("SWIS"), text("PRINT_KEY")),
            owner: text("PRIMARY_OW"),
            town: text("MUNI_NAME"),
            lon_lat: (at.0.to_degrees(), at.1.to_degrees()),
        });
    }
    (known.expect("the record has a polygon"), with_shape)
}

#[test]
fn a_tiled_map_opens_from_disk_loads_its_tiles_and_answers_clicks_and_filters() {
    let test = "a_tiled_map_opens_from_disk_loads_its_tiles_and_answers_clicks_and_filters";
    let Some((chromium, driver)) = browser_or_skip(test) else { return };
    let generator = generator();
    if !generator.is_file() {
        common::skip_unless_ci(test, "no synth_county example (cargo build --example synth_county)");
        return;
    }
    let dir = common::fresh_dir("map-tiles");
    let county = dir.join("county");
    let status = Command::new(&generator)
        .args(["bench", "--parcels", "100000", "--out"])
        .arg(&county)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "synth_county: {status}");
    let out = dir.join("out");
    // The page is named with characters a URL reads otherwise (a space, `#`, `%`): its tiles, named after
    // it, are still found.
    let page =
        write_map(&county.join("county.toml"), &["--tiles", "always"], &out.join("tiers #1 100%.html"));
    let tiles = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("tiers #1 100%_tile_14_"))
        .count();
    assert!(tiles > 1, "{tiles} tiles");

    let (parcel, with_shape) = known_parcel(&county.join("parcels.shp"), 50_000);
    let browser = Browser::start(&chromium, &driver, "map-tiles");
    browser.open_map(&page);
    assert_eq!(browser.console_errors(), Vec::<String>::new(), "console errors");
    // The whole map is counted from the index, no tile loaded.
    let total = browser.run("return document.getElementById('total').textContent;");
    assert_eq!(total, json!(with_shape.to_string()));

    // Zoomed in on the parcel, its tile comes, and a click on it shows its row.
    let (lon, lat) = parcel.lon_lat;
    browser.run(&format!(
        "window.lakeshoreMap.map.setView([{lat}, {lon}], 18, {{animate: false}}); return null;"
    ));
    browser.tiles_drawn();
    let (x, y) = browser.point(&format!("window.lakeshoreMap.locate('{}')", parcel.id));
    browser.click_at(x, y);
    let popup = browser.popup(&parcel.id);
    assert!(popup.contains(&parcel.owner), "{popup}");
    assert!(popup.contains(&parcel.town), "{popup}");
    assert!(popup.contains("Next due"), "{popup}");

    // A search for its id leaves it alone drawn; cleared, every parcel loaded is drawn again.
    let drawn = browser.run("return window.lakeshoreMap.drawn();").as_u64().unwrap();
    assert!(drawn > 1, "{drawn} parcels drawn");
    browser.type_into("#search", &parcel.id);
    assert_eq!(browser.run("return window.lakeshoreMap.drawn();"), json!(1));
    browser.run(
        "const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); return null;",
    );
    assert_eq!(browser.run("return window.lakeshoreMap.drawn();"), json!(drawn));
    // Its town: the parcels of the view of another town are hidden, those of its own stay.
    browser.run(&format!(
        "const s = document.getElementById('filter-town'); s.value = {}; s.dispatchEvent(new Event('change')); return null;",
        json!(parcel.town)
    ));
    let in_town = browser.run("return window.lakeshoreMap.drawn();").as_u64().unwrap();
    assert!((1..=drawn).contains(&in_town), "{in_town} of {drawn}");
    assert_eq!(browser.console_errors(), Vec::<String>::new(), "console errors after using the map");
}
