use super::*;
use crate::report::map::html::HtmlObligation;
use geo::{polygon, MultiPolygon};

#[test]
fn a_point_falls_in_the_tile_worked_by_hand() {
    // At zoom 1 the world is 2 × 2 tiles split at the prime meridian and the equator.
    assert_eq!(tile_of(-0.1, 0.1, 1), (0, 0));
    assert_eq!(tile_of(0.1, -0.1, 1), (1, 1));
    // Zoom 14, -76.5°, 42.9°: x = (180 - 76.5) / 360 × 16384 = 4710.4 → 4710; tan 42.9° = 0.929 257 and
    // sec 42.9° = 1.365 116, ln 2.294 373 = 0.830 456, so y = (1 - 0.830 456 / π) / 2 × 16384 = 6026.5 → 6026.
    assert_eq!(tile_of(-76.5, 42.9, 14), (4710, 6026));
    // The grid's edges keep a point in the grid.
    assert_eq!(tile_of(180.0, -90.0, 2), (3, 3));
    assert_eq!(tile_of(-180.0, 90.0, 2), (0, 0));
}

/// A 10 m square parcel at (`lon`, `lat`) with id `id`.
fn parcel(id: &str, lon: f64, lat: f64) -> HtmlParcel {
    let d = 0.0001;
    let mut fields: [String; PARCEL_FIELDS.len()] = Default::default();
    fields[0] = id.to_string();
    fields[1] = "Fleming".to_string();
    HtmlParcel {
        shape: MultiPolygon(vec![
            polygon![(x: lon, y: lat), (x: lon + d, y: lat), (x: lon + d, y: lat + d), (x: lon, y: lat + d)],
        ]),
        fields,
        tier_class: ParcelClass::Lakefront,
        status_class: ParcelClass::Overdue,
        overdue: true,
        obligations: vec![HtmlObligation { what: "inspection".into(), ..Default::default() }],
    }
}

/// The parcel ids in the tile scripts of `dir`, by file name: each line of a script is a segment, a call
/// `lakeshoreTile(14,x,y,texts,records)` whose records refer to its texts by index.
fn ids_in(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "a scratch file is left: {name}");
        let (x, y) =
            name.strip_prefix("map_tile_14_").unwrap().strip_suffix(".js").unwrap().split_once('_').unwrap();
        let mut ids = Vec::new();
        for line in std::fs::read_to_string(dir.join(&name)).unwrap().lines() {
            let call =
                line.strip_prefix(&format!("lakeshoreTile(14,{x},{y},")).unwrap().strip_suffix(");").unwrap();
            let segment: Value = serde_json::from_str(&format!("[{call}]")).unwrap();
            for record in segment[1].as_array().unwrap() {
                ids.push(segment[0][record[0][0].as_u64().unwrap() as usize].as_str().unwrap().to_string());
            }
        }
        found.insert(name, ids);
    }
    found
}

#[test]
fn every_parcel_lands_in_exactly_one_tile_through_the_scratch_files() {
    let dir = std::env::temp_dir().join(format!("lakeshore-tiles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A limit of one byte spills every record to the scratch files at once.
    let mut writer = TileWriter::new(&dir, "map_tile_", 1);
    // 1,000 parcels on a 0.01° grid around -76.5°, 42.9°: at zoom 14 a tile is 0.022° wide.
    let mut expected = Vec::new();
    for i in 0..1000 {
        let (lon, lat) = (-76.5 + f64::from(i % 40) * 0.01, 42.9 + f64::from(i / 40) * 0.01);
        let id = format!("P{i}");
        writer.add(&parcel(&id, lon, lat)).unwrap();
        expected.push((
            id,
            tile_file("map_tile_", TILE_ZOOM, tile_of(lon + 0.000_05, lat + 0.000_05, TILE_ZOOM)),
        ));
    }
    let (index, written) = writer.finish().unwrap();
    let found = ids_in(&dir);
    assert_eq!(written.len(), found.len());
    let mut seen: Vec<(String, String)> =
        found.iter().flat_map(|(file, ids)| ids.iter().map(move |id| (id.clone(), file.clone()))).collect();
    seen.sort();
    expected.sort();
    assert_eq!(seen, expected, "each parcel once, in the tile of its centre");
    assert_eq!(index.tiles.iter().map(|t| t.parcels).sum::<u64>(), 1000);
    assert_eq!(index.tiles.iter().map(|t| t.by_tier[ParcelClass::Lakefront as usize]).sum::<u64>(), 1000);
    assert_eq!(index.choices["town"].iter().collect::<Vec<_>>(), ["Fleming"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_tiled_template_has_every_place_the_tiles_go() {
    let page = tiled_template(crate::report::map::html::TEMPLATE);
    for part in ["function decodeLoaded()", "tilesReady(function ()", "window.lakeshoreTile ="] {
        assert_eq!(page.matches(part).count(), 1, "{part}");
    }
}

#[test]
fn a_page_s_tiles_are_named_after_it() {
    assert_eq!(tile_prefix(Path::new("out/map.html")), "map_tile_");
    assert_eq!(tile_prefix(Path::new("Owasco status.html")), "Owasco status_tile_");
    // A page of another extension keeps it, so `map.htm` beside `map.html` has tiles of its own.
    assert_eq!(tile_prefix(Path::new("out/map.htm")), "map.htm_tile_");
    assert_eq!(tile_prefix(Path::new("out/map.HTML")), "map.HTML_tile_");
    assert_eq!(tile_file("map_tile_", 14, (4710, 6026)), "map_tile_14_4710_6026.js");
}

#[test]
fn stale_tiles_are_the_page_s_own_tiles_the_new_map_has_not() {
    let dir = crate::scratch::root().join("stale-tiles");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let names = [
        "map_tile_14_1_2.js",
        "map_tile_14_1_3.js",
        // Not a tile of `map.html`: another page's, or names a tile cannot have.
        "status_tile_14_1_2.js",
        "map_tile_notes.js",
        "map_tile_14_1.js",
        "map_tile_14_1_2_3.js",
        "map_tile_14_1_x.js",
        "map_tile_14_1_2.json",
        "map.html",
    ];
    for name in names {
        std::fs::write(dir.join(name), "").unwrap();
    }
    let kept = BTreeSet::from(["map_tile_14_1_3.js".to_string()]);
    assert_eq!(stale_tiles(&dir, "map_tile_", &kept), [dir.join("map_tile_14_1_2.js")]);
    assert_eq!(
        stale_tiles(&dir, "map_tile_", &BTreeSet::new()),
        [dir.join("map_tile_14_1_2.js"), dir.join("map_tile_14_1_3.js")]
    );
    assert_eq!(stale_tiles(&dir.join("gone"), "map_tile_", &kept), Vec::<PathBuf>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}
