//! `lakeshore map` on the SYNTHETIC sample county: the PNG has the size asked, is not blank, shows a legend
//! with text and draws the overdue lots of the Town of Owasco in the overdue red; the SVG names the legend
//! entries with the counts worked out from `tests/golden/sample/expected.csv`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn map(args: &[&str], file: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::fresh_dir("map").join(file);
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["map", "--config"])
        .arg(root.join("data/sample/county.toml"))
        .args(["--as-of", "2027-01-15", "--out"])
        .arg(&out)
        .args(args)
        .output()
        .expect("cannot run the lakeshore binary");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"), "{output:?}");
    assert!(out.exists(), "no map written: {}", String::from_utf8_lossy(&output.stderr));
    out
}

/// `lakeshore map` of the sample into `out` with `more` flags, as it ran.
fn run_map(out: &Path, more: &[&str]) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["map", "--config"])
        .arg(root.join("data/sample/county.toml"))
        .args(["--as-of", "2027-01-15", "--out"])
        .arg(out)
        .args(more)
        .output()
        .expect("cannot run the lakeshore binary")
}

/// The PNG's width, height and RGBA pixels.
fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    (info.width, info.height, pixels)
}

#[test]
fn town_map_png_shows_legend_and_overdue_lots() {
    let path = map(&["--town", "Owasco", "--width", "800", "--height", "600"], "owasco.png");
    let (w, h, pixels) = decode(&path);
    assert_eq!((w, h), (800, 600));
    let at = |x: u32, y: u32| {
        let i = 4 * (y * w + x) as usize;
        [pixels[i], pixels[i + 1], pixels[i + 2]]
    };
    let mut colours = std::collections::BTreeSet::new();
    let (mut dark_in_legend, mut overdue_red) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let [r, g, b] = at(x, y);
            colours.insert([r, g, b]);
            // The legend column is the right ~30 % of the image (map frame on the left).
            if x > 580 && y < 300 && r < 90 && g < 90 && b < 90 {
                dark_in_legend += 1;
            }
            // Overdue fill #D7191C.
            if (r as i32 - 0xD7).abs() < 12 && (g as i32 - 0x19).abs() < 12 && (b as i32 - 0x1C).abs() < 12 {
                overdue_red += 1;
            }
        }
    }
    assert!(colours.len() > 20, "a blank-looking image: {} colours", colours.len());
    assert!(dark_in_legend > 500, "no legend text: {dark_in_legend} dark pixels");
    assert!(overdue_red > 20, "Owasco's three overdue lots are not drawn red: {overdue_red} pixels");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn county_map_svg_legend_counts_statuses() {
    let path = map(&["--by", "status"], "county.svg");
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{}", &svg[..60.min(svg.len())]);
    // expected.csv: 12 overdue, 40 current, 11 never inspected, 2 due this year, 8 unscheduled (73 parcels);
    // the three failed systems (052889-133.14-1-1 overdue, 054889-165.00-1-1 and 054889-171.00-1-1 current;
    // permits.csv) are drawn as failed instead, and their statuses' entries say so. 054889-160.12-1-3's
    // failed system was replaced under permit: its findings were the old system's, the lot has no class, and
    // it is drawn current.
    let entries = [
        "Failed inspection (3)",
        "Overdue (11 + 1 failed)",
        "Current (38 + 2 failed)",
        "Never inspected (11)",
        "Due this year (2)",
        "Unscheduled (8)",
        "73 parcels",
    ];
    for entry in entries {
        assert!(svg.contains(entry), "the legend lacks {entry:?}");
    }
    for layer in ["Shoreline", "500 ft from shoreline", "Watershed boundary", "Floodplain", "Town boundary"] {
        assert!(svg.contains(layer), "the legend lacks {layer:?}");
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// The legend's parcel entries of an SVG map: each class's label and the numbers in its brackets.
fn legend_numbers(svg: &str) -> Vec<(String, Vec<u64>)> {
    let mut out = Vec::new();
    for text in svg.split("<text").skip(1) {
        let Some(body) =
            text.split_once('>').and_then(|(_, rest)| rest.split_once("</text>")).map(|(b, _)| b)
        else {
            continue;
        };
        let Some((label, numbers)) = body.strip_suffix(')').and_then(|b| b.split_once(" (")) else {
            continue;
        };
        let numbers: Vec<u64> = numbers
            .split(" + ")
            .map(|n| n.split_whitespace().next().unwrap_or("").replace(',', "").parse())
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        if !numbers.is_empty() {
            out.push((label.to_string(), numbers));
        }
    }
    out
}

/// Each parcel entry's numbers add up to the schedule's count of its status or tier, counted here from
/// `schedule.csv` by a separate run; the failed and overdue entries, drawn apart, make the sum of the
/// numbers drawn the parcels drawn.
#[test]
fn legend_numbers_add_up_to_the_schedule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::fresh_dir("legend-schedule");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["schedule", "--format", "csv", "-q", "--config"])
        .arg(root.join("data/sample/county.toml"))
        .args(["--as-of", "2027-01-15", "--out"])
        .arg(&out)
        .output()
        .expect("cannot run the lakeshore binary");
    assert!(out.join("schedule.csv").exists(), "{output:?}");
    let (_, rows) = common::read_rows(&out.join("schedule.csv")).unwrap();
    let count = |name: &str, value: &str| rows.iter().filter(|r| r[name] == value).count() as u64;
    let failed = count("class", "failed");
    for (by, file, classes) in [
        (
            "status",
            "status.svg",
            [
                ("Current", "current"),
                ("Overdue", "overdue"),
                ("Never inspected", "never-inspected"),
                ("Due this year", "due-this-year"),
                ("Unscheduled", ""),
            ]
            .as_slice(),
        ),
        (
            "tier",
            "tier.svg",
            [
                ("Lakefront", "lakefront"),
                ("Within 500 ft of shore", "near-shore"),
                ("Watershed", "watershed"),
                ("Rest of county", "county"),
                ("Unscheduled", "unscheduled"),
            ]
            .as_slice(),
        ),
    ] {
        let svg = std::fs::read_to_string(map(&["--by", by], file)).unwrap();
        let legend = legend_numbers(&svg);
        let entry = |label: &str| legend.iter().find(|(l, _)| l == label).map(|(_, n)| n.clone());
        let key = if by == "status" { "status" } else { "tier" };
        for (label, value) in classes {
            let expected = count(key, value);
            let got: u64 = entry(label).unwrap_or_default().iter().sum();
            assert_eq!(
                got, expected,
                "{by} map: {label} adds up to {got}, the schedule has {expected}: {legend:?}"
            );
        }
        assert_eq!(entry("Failed inspection"), Some(vec![failed]), "{by} map: {legend:?}");
        // The first number of each entry is what is drawn in it: together, every parcel.
        let drawn: u64 = legend.iter().map(|(_, n)| n[0]).sum();
        assert_eq!(drawn, rows.len() as u64, "{by} map: {legend:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_format_flag_picks_the_map_file_in_a_folder() {
    // `--out` a folder: `--format svg` writes map.svg there (an SVG, not a PNG under another name), and no
    // format means map.png.
    let folder = map(&["--format", "svg"], "maps");
    assert!(folder.is_dir(), "--out names a folder");
    let svg = std::fs::read_to_string(folder.join("map.svg")).expect("map.svg in the folder");
    assert!(svg.contains("<svg"), "map.svg is not an SVG");
    assert!(!folder.join("map.png").exists(), "--format svg also wrote map.png");
    let folder = map(&[], "maps");
    let png = std::fs::read(folder.join("map.png")).expect("map.png in the folder");
    assert!(png.starts_with(b"\x89PNG"), "map.png is not a PNG");
    let _ = std::fs::remove_dir_all(folder.parent().unwrap());
}

#[test]
fn tiles_asked_of_an_image_stop_the_run_naming_the_flag() {
    // Tiles are the HTML page's; an image asked with them is a mistake to say, not a flag to drop.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::fresh_dir("map-tiles-png");
    for (format, image) in [("png", "a PNG image"), ("svg", "an SVG image")] {
        let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
            .args(["map", "--config"])
            .arg(root.join("data/sample/county.toml"))
            .args(["--as-of", "2027-01-15", "--tiles", "always", "--format", format, "--out"])
            .arg(&out)
            .output()
            .expect("cannot run the lakeshore binary");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("--tiles applies to the HTML map") && stderr.contains(image), "{stderr}");
        assert!(!out.join(format!("map.{format}")).exists(), "a map was written: {stderr}");
    }
}

#[test]
fn a_hidden_map_name_stops_the_run_before_it_starts() {
    // A name with a leading dot is hidden, as the run's temporary files are, and would not be published: the
    // run would exit 0 with no map. Each form of the map says so and writes nothing.
    let out = common::fresh_dir("map-hidden");
    for (name, more) in [
        (".map.png", &[][..]),
        (".map.svg", &[]),
        (".map.html", &["--tiles", "never"]),
        (".map.html", &["--tiles", "always"]),
    ] {
        let output = run_map(&out.join(name), more);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name} {more:?}: {stderr}");
        assert!(
            stderr.contains(&format!("'{name}'")) && stderr.contains("without the leading dot"),
            "{stderr}"
        );
        let left: Vec<_> =
            std::fs::read_dir(&out).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
        assert_eq!(left, Vec::<std::ffi::OsString>::new(), "{name} {more:?}: the folder holds {left:?}");
    }
}

#[test]
fn a_png_too_large_to_draw_is_refused_before_the_run() {
    // 100,000 × 100,000 pixels would take 40 GB before the first parcel is drawn.
    let out = common::fresh_dir("map-huge").join("map.png");
    let output = run_map(&out, &["--width", "100000", "--height", "100000"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("100000×100000") && stderr.contains("up to 200 million pixels"), "{stderr}");
    assert!(!out.exists(), "a map was written");
}

#[test]
fn a_folder_with_a_dot_in_its_name_is_a_folder() {
    // An existing folder named like a file, and a new one named so with a trailing '/': the map goes in it as
    // map.png, not refused for its extension nor written as a file of that name.
    let dir = common::fresh_dir("map-dotted");
    std::fs::create_dir_all(dir.join("maps.2027")).unwrap();
    for (out, folder) in
        [(dir.join("maps.2027"), dir.join("maps.2027")), (dir.join("new.png/"), dir.join("new.png"))]
    {
        let output = run_map(&out, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(matches!(output.status.code(), Some(0 | 2)), "{}: {stderr}", out.display());
        assert!(folder.is_dir(), "{} is not a folder", folder.display());
        let png = std::fs::read(folder.join("map.png")).expect("map.png in the folder");
        assert!(png.starts_with(b"\x89PNG"), "map.png is not a PNG");
    }
}
