//! The QGIS style written beside the sample's GeoJSON schedule (`schedule.qml`): well-formed XML (checked by
//! Python's own XML parser, not by lakeshore), a categorized renderer on a column that exists, a category for
//! each tier of the Cayuga County rule set, overdue outlined by an expression on a column that exists, and
//! parcel-id labels limited to large scales.
//!
//! Needs `python3` (its standard library only); without it the test says it is skipped and passes, unless
//! `CI` is set: then it fails.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use chrono::NaiveDate;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use lakeshore::report::{write_schedule, OutputFormat};

/// Parses the style with `xml.etree` and prints what it refers to, one `kind<TAB>value` a line: the
/// renderer's attribute, each category value, each label field, every "quoted" field name in an expression,
/// and the label scale range.
const INSPECT: &str = r#"
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "qgis", root.tag
renderer = root.find("renderer-v2")
print("renderer\t" + renderer.get("type"))
print("field\t" + renderer.get("attr"))
for c in renderer.find("categories"):
    print("category\t" + c.get("value"))
for t in root.iter("text-style"):
    print("field\t" + t.get("fieldName"))
for o in root.iter("Option"):
    if o.get("name") == "expression":
        print("expression\t" + o.get("value"))
        for f in re.findall(r'"([^"]+)"', o.get("value")):
            print("field\t" + f)
r = root.find("labeling/settings/rendering")
print("scales\t%s %s %s" % (r.get("scaleVisibility"), r.get("scaleMin"), r.get("scaleMax")))
"#;

#[test]
fn the_style_beside_the_geojson_is_well_formed_and_names_real_columns() {
    let Some(python) = common::tool_or_skip("qgis_style", "python3", "python3") else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let as_of: NaiveDate = "2027-01-15".parse().unwrap();
    let config = Config::new(ConfigFile::load(&path).unwrap(), as_of).unwrap();
    let run = run_schedule(&config).unwrap();
    let dir = common::fresh_dir("qgis-style");
    let (written, _) =
        write_schedule(&run, &dir, &[OutputFormat::Csv, OutputFormat::GeoJson], &config.crs).unwrap();
    let style = dir.join("schedule.qml");
    assert!(written.contains(&style), "{written:?}");

    let mut child = Command::new(python)
        .args(["-", style.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(INSPECT.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "not well-formed: {}", String::from_utf8_lossy(&out.stderr));
    let found: Vec<(String, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    let of = |kind: &str| -> Vec<&str> {
        found.iter().filter(|(k, _)| k == kind).map(|(_, v)| v.as_str()).collect()
    };

    let (header, _) = common::read_rows(&dir.join("schedule.csv")).unwrap();
    let fields = of("field");
    assert!(
        fields.contains(&"tier") && fields.contains(&"parcel_id") && fields.contains(&"status"),
        "{fields:?}"
    );
    for field in &fields {
        assert!(
            header.iter().any(|h| h == field),
            "the style names {field}, which schedule.csv does not have"
        );
    }
    assert_eq!(of("renderer"), ["categorizedSymbol"]);
    // data/rules/cayuga-county-art-v.toml: tiers lakefront, near-shore, watershed, county; then unscheduled
    // and the catch-all.
    assert_eq!(of("category"), ["lakefront", "near-shore", "watershed", "county", "unscheduled", ""]);
    assert!(of("expression").iter().all(|e| e.contains("'overdue'")), "{:?}", of("expression"));
    assert_eq!(of("scales"), ["1 1 5000"], "labels from 1:5,000 inwards");
}

/// Prints each `layer_styles` row as `table<TAB>geometry column<TAB>default<TAB>QML length` (so a second row
/// would stand where the declared column is expected), then the geometry column the GeoPackage declares for
/// the first row's table, then that row's QML.
const LAYER_STYLES: &str = r#"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("SELECT f_table_name, f_geometry_column, useAsDefault, styleQML FROM layer_styles").fetchall()
declared = c.execute("SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?", (rows[0][0],)).fetchone()
for t, g, d, q in rows:
    print("%s\t%s\t%s\t%d" % (t, g, d, len(q)))
print(declared[0])
sys.stdout.write(rows[0][3])
"#;

#[test]
fn the_geopackage_carries_the_same_style_as_its_default() {
    let Some(python) = common::tool_or_skip("qgis_style", "python3", "python3") else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let config = Config::new(ConfigFile::load(&path).unwrap(), "2027-01-15".parse().unwrap()).unwrap();
    let run = run_schedule(&config).unwrap();
    let dir = common::fresh_dir("qgis-style-gpkg");
    write_schedule(&run, &dir, &[OutputFormat::GeoJson, OutputFormat::GeoPackage], &config.crs).unwrap();

    let out =
        Command::new(python).args(["-c", LAYER_STYLES]).arg(dir.join("schedule.gpkg")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.splitn(3, '\n');
    let row: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let declared = lines.next().unwrap();
    let qml = lines.next().unwrap();
    assert_eq!(
        row[..3],
        ["schedule", declared, "1"],
        "one default style for the schedule layer and its geometry"
    );
    assert_eq!(
        qml,
        std::fs::read_to_string(dir.join("schedule.qml")).unwrap(),
        "the style beside the GeoJSON"
    );
}
