//! The tiled HTML map (`map --format html --tiles always`) against the single page (`--tiles never`) of the
//! SYNTHETIC sample county: every parcel of the page is in exactly one tile, with the same fields, classes,
//! overdue flag and open obligations (one story per parcel in both forms), in the tile its shape lies in; the
//! tiled page holds no parcel, and its index counts the tiles' parcels. Each tile is published with the page,
//! named in `run.json`.

use crate::common;
use crate::map_browser::write_map;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

/// The data of the page at `page` (the JSON of its `map-data` element).
fn page_data(page: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html.find("id=\"map-data\">").unwrap() + "id=\"map-data\">".len();
    let end = html[start..].find("</script>").unwrap() + start;
    serde_json::from_str(&html[start..end]).unwrap()
}

/// A parcel record without its polygons (simplified at another tolerance in a tile), its texts resolved
/// through `strings`.
fn story(record: &Value, strings: &[Value]) -> Value {
    let text = |v: &Value| strings[v.as_u64().unwrap() as usize].clone();
    let fields: Vec<Value> = record[0].as_array().unwrap().iter().map(text).collect();
    let owed: Vec<Value> =
        record[4].as_array().unwrap().iter().map(|o| json!([text(&o[0]), o[1], o[2], text(&o[3])])).collect();
    json!([fields, record[1], record[2], record[3], owed])
}

/// The tile `(x, y)` at zoom 14 of longitude `lon` and latitude `lat`, by the slippy-map formula.
fn tile(lon: f64, lat: f64) -> (u64, u64) {
    let n = 16384.0;
    let phi = lat.to_radians();
    let x = (lon + 180.0) / 360.0 * n;
    let y = (1.0 - phi.tan().asinh() / std::f64::consts::PI) / 2.0 * n;
    (x.floor() as u64, y.floor() as u64)
}

#[test]
fn every_parcel_of_the_single_page_is_in_one_tile_with_the_same_story() {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let single = page_data(&write_map(&config, &["--tiles", "never"], &common::fresh_dir("map-single")));
    let out = common::fresh_dir("map-tiled");
    let tiled = page_data(&write_map(&config, &["--tiles", "always"], &out));
    assert_eq!(tiled["parcels"], json!([]), "the tiled page holds no parcel");

    let strings = single["strings"].as_array().unwrap();
    let mut expected: BTreeMap<String, Value> = BTreeMap::new();
    for p in single["parcels"].as_array().unwrap() {
        let s = story(p, strings);
        expected.insert(s[0][0].as_str().unwrap().to_string(), s);
    }
    let mut found: BTreeMap<String, Value> = BTreeMap::new();
    let mut counted = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(at) = name.strip_prefix("map_tile_14_").and_then(|n| n.strip_suffix(".js")) else {
            continue;
        };
        let (x, y) = at.split_once('_').unwrap();
        let (x, y): (u64, u64) = (x.parse().unwrap(), y.parse().unwrap());
        // A line a segment: `lakeshoreTile(14,x,y,texts,records)`, its records referring to its texts.
        let text = std::fs::read_to_string(out.join(&name)).unwrap();
        let head = format!("lakeshoreTile(14,{x},{y},");
        let segments: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(&format!("[{}]", &l[head.len()..l.len() - 2])).unwrap())
            .collect();
        for (texts, record) in
            segments.iter().flat_map(|s| s[1].as_array().unwrap().iter().map(move |r| (&s[0], r)))
        {
            let s = story(record, texts.as_array().unwrap());
            let id = s[0][0].as_str().unwrap().to_string();
            // Its box (the rings' vertices, micro-degree deltas) meets the tile it is in.
            let (mut x0, mut y0, mut x1, mut y1) = (u64::MAX, u64::MAX, 0, 0);
            for ring in record[5].as_array().unwrap().iter().flat_map(|p| p.as_array().unwrap()) {
                let (mut lon, mut lat) = (0, 0);
                for d in ring.as_array().unwrap().chunks(2) {
                    (lon, lat) = (lon + d[0].as_i64().unwrap(), lat + d[1].as_i64().unwrap());
                    let (tx, ty) = tile(lon as f64 * 1e-6, lat as f64 * 1e-6);
                    (x0, y0, x1, y1) = (x0.min(tx), y0.min(ty), x1.max(tx), y1.max(ty));
                }
            }
            assert!((x0..=x1).contains(&x) && (y0..=y1).contains(&y), "{id} in {name}");
            assert!(found.insert(id.clone(), s).is_none(), "{id} is in two tiles");
            counted += 1;
        }
    }
    assert_eq!(found, expected);
    assert_eq!(tiled["tiles"]["total"], json!(counted));
    assert_eq!(tiled["unmapped"], single["unmapped"]);
    assert_eq!(tiled["workload"], single["workload"]);
    assert_eq!(tiled["backlog"], single["backlog"]);
}

/// A map of one town whose parcels name it but which has no boundary (the county gives no towns layer): the
/// tiled map draws that town's parcels, as the single page does, rather than stopping as if no parcel had
/// the name.
#[test]
fn a_town_without_a_boundary_is_mapped_by_its_parcels_in_tiles_too() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let county = common::fresh_dir("map-no-towns");
    common::copy_files(&sample, &county, |name| !name.starts_with("towns."));
    let toml = std::fs::read_to_string(sample.join("county.toml")).unwrap();
    assert!(toml.contains("\ntowns = \"towns.geojson\"\n"), "the sample names its towns layer");
    let config = county.join("county.toml");
    std::fs::write(&config, toml.replace("\ntowns = \"towns.geojson\"\n", "\n")).unwrap();

    let town = ["--town", "Owasco"];
    let single_out = county.join("single");
    let single = page_data(&write_map(&config, &[&town[..], &["--tiles", "never"]].concat(), &single_out));
    let tiled_out = county.join("tiled");
    let tiled = page_data(&write_map(&config, &[&town[..], &["--tiles", "always"]].concat(), &tiled_out));
    let drawn = single["parcels"].as_array().unwrap().len();
    assert!(drawn > 0, "the single page maps the town's parcels");
    assert_eq!(tiled["tiles"]["total"], json!(drawn), "the tiles hold the single page's parcels");
    assert_eq!(tiled["title"], single["title"]);
}

/// The tiles are files of the output set like the page: each named in `run.json` with the SHA-256 of what
/// stands in the folder, as many as the page's index lists, and no temporary file left beside them.
#[test]
fn every_tile_is_published_whole_and_named_in_run_json() {
    use sha2::{Digest, Sha256};
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let out = common::fresh_dir("map-tiles-published");
    let page = page_data(&write_map(&config, &["--tiles", "always"], &out));
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let named: BTreeMap<String, String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f["sha256"].as_str().unwrap().to_string()))
        .collect();
    let (mut files, mut tiles) = (0, 0);
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name == "run.json" || name == ".lakeshore.lock" {
            continue;
        }
        assert!(!name.starts_with('.'), "a hidden file is left in the folder: {name}");
        let sha256: String = Sha256::digest(std::fs::read(out.join(&name)).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(named.get(&name), Some(&sha256), "{name} in run.json");
        files += 1;
        tiles += usize::from(name.starts_with("map_tile_"));
    }
    assert_eq!(named.len(), files, "run.json names the files of the folder: {:?}", named.keys());
    assert_eq!(tiles, page["tiles"]["list"].as_array().unwrap().len(), "the index lists every tile");
    assert!(tiles > 1, "the sample county spans several tiles");
}

/// Two tiled maps in one folder keep their own tiles, each page's named after it: a map of one town written
/// beside the county's leaves the county's tiles as they were. A map written again under the same name
/// leaves none of its former tiles: the county's page made a map of one town keeps that town's tiles alone,
/// and made a single page, none.
#[test]
fn two_maps_in_one_folder_keep_their_own_tiles_and_a_map_written_again_leaves_none_behind() {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let out = common::fresh_dir("map-tiles-two");
    let tiles_of = |prefix: &str| -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(prefix) && name.ends_with(".js"))
            .map(|name| (name.clone(), std::fs::read(out.join(&name)).unwrap()))
            .collect()
    };
    let listed = |page: &Value| page["tiles"]["list"].as_array().unwrap().len();
    let owasco = ["--tiles", "always", "--town", "Owasco"];

    let county = page_data(&write_map(&config, &["--tiles", "always"], &out.join("county.html")));
    assert_eq!(county["tiles"]["prefix"], json!("county_tile_"));
    let county_tiles = tiles_of("county_tile_14_");
    assert_eq!(county_tiles.len(), listed(&county));

    let town = page_data(&write_map(&config, &owasco, &out.join("owasco.html")));
    assert_eq!(town["tiles"]["prefix"], json!("owasco_tile_"));
    let town_tiles = tiles_of("owasco_tile_14_");
    assert_eq!(town_tiles.len(), listed(&town));
    assert!(town_tiles.len() < county_tiles.len(), "the town spans fewer tiles than the county");
    assert_eq!(tiles_of("county_tile_14_"), county_tiles, "the county's tiles are as they were");

    // The county's page written again as the town's map: its tiles are the town's, under its own name.
    let again = page_data(&write_map(&config, &owasco, &out.join("county.html")));
    let renamed = |tiles: &BTreeMap<String, Vec<u8>>| -> Vec<String> {
        tiles.keys().map(|name| name.replacen("owasco_", "county_", 1)).collect()
    };
    assert_eq!(tiles_of("county_tile_").keys().cloned().collect::<Vec<_>>(), renamed(&town_tiles));
    assert_eq!(listed(&again), town_tiles.len());

    // And as one page: none of its tiles is left, and the town's page keeps its own.
    write_map(&config, &["--tiles", "never"], &out.join("county.html"));
    assert_eq!(tiles_of("county_tile_"), BTreeMap::new());
    assert_eq!(tiles_of("owasco_tile_"), town_tiles);

    // A page of the same stem but another extension is another page: `owasco.htm`, tiled or not, leaves
    // `owasco.html`'s tiles as they are.
    let htm = page_data(&write_map(&config, &owasco, &out.join("owasco.htm")));
    assert_eq!(htm["tiles"]["prefix"], json!("owasco.htm_tile_"));
    assert_eq!(tiles_of("owasco.htm_tile_14_").len(), town_tiles.len());
    write_map(&config, &["--tiles", "never", "--town", "Owasco"], &out.join("owasco.htm"));
    assert_eq!(tiles_of("owasco.htm_tile_"), BTreeMap::new());
    assert_eq!(tiles_of("owasco_tile_"), town_tiles);
}
