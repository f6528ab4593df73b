//! `lakeshore buffer` on the SYNTHETIC sample county: the parcels within 500 ft of the mean-high-water line,
//! the mapped systems within 1,000 ft of it, and the parcels within 150 ft of the watercourse layer. Expected
//! ids and distances are the designed ones of `data/sample/README.md` (distance column) and the watercourse
//! layer's description (a brook 60 ft from lot 129.00-2-1, a wetland 135 ft from lot 128.05-1-6).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn buffer(args: &[&str]) -> (Vec<common::Row>, PathBuf) {
    let out = common::fresh_dir("buffer");
    let output = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .args(["buffer", "--config"])
        .arg(root().join("data/sample/county.toml"))
        .args(["--as-of", "2027-01-15", "--out"])
        .arg(&out)
        .args(args)
        .current_dir(root())
        .output()
        .expect("cannot run the lakeshore binary");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    let rows = common::read_rows(&out.join("buffer.csv")).unwrap_or_else(|e| panic!("{e}")).1;
    (rows, out)
}

fn hits(rows: &[common::Row], kind: &str) -> Vec<(String, String)> {
    rows.iter().filter(|r| r["kind"] == kind).map(|r| (r["id"].clone(), r["distance_ft"].clone())).collect()
}

#[test]
fn parcels_within_500_ft_of_the_shoreline() {
    let (rows, out) = buffer(&["--distance", "500", "--format", "csv,geojson"]);
    assert_eq!(rows[0]["kind"], "buffer");
    let parcels = hits(&rows, "parcel");
    // Designed distances: twenty lots at 0 ft (the register's 150.09-1-3, 128.05-1-8 and 160.12-1-3 among
    // them), then 8, 15, 100, 250 (the lot across the road, 128.05-1-9, and 10.07-1-4, in id order) and 490 ft;
    // the 510-ft lot is out. (The twenty-first lot at 0 ft, 054689-122.18-1-10, is in the problem sample.)
    assert_eq!(parcels.len(), 26, "{parcels:?}");
    let tail: Vec<(&str, &str)> = parcels[20..].iter().map(|(i, d)| (i.as_str(), d.as_str())).collect();
    assert_eq!(
        tail,
        [
            ("054689-128.05-1-2", "8.0"),
            ("054689-128.05-1-3", "15.0"),
            ("054489-150.09-1-1", "100.0"),
            ("054689-128.05-1-9", "250.0"),
            ("055689-10.07-1-4", "250.0"),
            ("054889-160.12-1-1", "490.0"),
        ]
    );
    assert!(parcels[..20].iter().all(|(_, d)| d == "0.0"));
    let mut zero: Vec<&String> = parcels[..20].iter().map(|(i, _)| i).collect();
    let sorted = {
        let mut z = zero.clone();
        z.sort();
        z
    };
    assert_eq!(zero, sorted, "equal distances list in id order");
    zero.dedup();
    assert_eq!(zero.len(), 20);
    assert!(!parcels.iter().any(|(i, _)| i == "054689-128.05-1-6"), "510 ft is outside 500 ft");
    // The GeoJSON holds the buffer polygon as its first feature.
    let geojson = std::fs::read_to_string(out.join("buffer.geojson")).unwrap();
    let first = geojson.lines().nth(1).unwrap_or_default();
    assert!(first.contains(r#""kind":"buffer""#) && first.contains("MultiPolygon"), "{first}");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn systems_and_watercourses_as_sources_and_features() {
    let (rows, out) = buffer(&["--distance", "1000", "--features", "data/sample/systems.geojson"]);
    let systems = hits(&rows, "feature");
    // Each system point by its PARCEL_ID, nearest first (ties in id order): the register's lots add S-0101
    // and S-0102 of 150.09-1-3 (150 and 800 ft from x 840,000), S-0105 and S-0104 of 160.12-1-3 (180 and 200
    // ft from x 834,000) and S-0103 of 128.05-1-8 (400 ft, on the lot across the road).
    let expected = [
        ("052889-133.14-1-1", "120.0"),
        ("054489-150.09-1-3", "150.0"),
        ("054689-122.18-1-12", "150.0"),
        ("054689-128.05-1-1", "150.0"),
        ("055689-10.07-1-1", "150.0"),
        ("055689-10.07-1-2", "150.0"),
        ("054889-160.12-1-3", "180.0"),
        ("054889-160.12-1-3", "200.0"),
        ("054689-128.05-1-7", "400.0"),
        ("054689-128.05-1-8", "400.0"),
        ("055689-10.07-1-5", "650.0"),
        ("054489-150.09-1-3", "800.0"),
        ("054689-128.05-1-5", "800.0"),
    ];
    assert_eq!(systems, expected.map(|(i, d)| (i.to_string(), d.to_string())));
    let _ = std::fs::remove_dir_all(out);
    // The layer named twice, spelled two ways, is listed once.
    let twice = ["--features", "data/sample/systems.geojson", "--features", "./data/sample/systems.geojson"];
    let (rows, out) = buffer(&[&["--distance", "1000"][..], &twice].concat());
    assert_eq!(hits(&rows, "feature"), systems);
    let _ = std::fs::remove_dir_all(out);

    let (rows, out) = buffer(&["--distance", "150", "--from", "data/sample/watercourses.geojson"]);
    assert_eq!(
        hits(&rows, "parcel"),
        [
            ("054689-129.00-2-1".to_string(), "60.0".to_string()),
            ("054689-128.05-1-6".to_string(), "135.0".to_string())
        ]
    );
    let _ = std::fs::remove_dir_all(out);
}
