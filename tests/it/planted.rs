//! Planted mistakes: a county's files handed over the ways real files go wrong — coordinates in the wrong
//! order, unit or zone, a vertex thrown far away, an inspection log keyed another way or exported by a
//! spreadsheet with another separator or encoding, fields named otherwise — and for each mistake the run must
//! either **stop** (exit 1, with a message that names the cause) or produce **the corrected county's
//! schedule**. A schedule that differs from the corrected one with exit 0 or 2 fails the suite: that is the
//! run that looks clean and is wrong.
//!
//! The corrected county is the county itself, run as shipped. Each mistake is planted in a copy of its
//! folder through the layers' and records' contents, not their names, so the suite runs on any county
//! whose config it is given: the sample in every `cargo test`, and in `.ci/run` a generated county of
//! 10,000 parcels (`LAKESHORE_PLANTED_CONFIG`, with `LAKESHORE_BIN` the release binary).
//!
//! Two controls plant no mistake: the parcels converted to GeoJSON in their own CRS and in longitude/latitude
//! must schedule as the shipped county does. They show that the conversions the mistakes are built on keep
//! every parcel's schedule, so a difference is the mistake's.

mod dates;
mod messages;
mod parts;
mod roles;

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use geo::{Coord, Geometry, MapCoords};
use lakeshore::crs::layer::{Layer, Value};
use lakeshore::crs::{Crs, Reprojector};
use lakeshore::formats::{read_layer, ReadOptions};
use serde_json::{json, Map};

/// The columns of `schedule.csv` that carry the law's verdict on a parcel. Distances are left out: the
/// controls' round trip through longitude/latitude moves a coordinate by far less than the printed digits
/// can show, but may move the last one.
const VERDICT: &[&str] = &[
    "parcel_id",
    "record",
    "town",
    "tier",
    "rule",
    "cycle_years",
    "next_due",
    "status",
    "inspection_due",
    "overdue",
    "last_inspection",
    "last_result",
    "water_body",
    "borders_mhw",
    "in_watershed",
    "watershed",
    "flood_zone",
    "floodplain_verdict",
    "class",
    "permit",
    "sewered",
    "in_county",
];

fn binary() -> PathBuf {
    std::env::var_os("LAKESHORE_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lakeshore")), PathBuf::from)
}

/// What one run printed and wrote.
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    out: PathBuf,
}

impl Outcome {
    /// `schedule.csv` as the verdict columns of each row, in the file's order.
    fn verdicts(&self) -> Vec<BTreeMap<String, String>> {
        let (_, rows) = common::read_rows(&self.out.join("schedule.csv")).unwrap_or_else(|e| panic!("{e}"));
        rows.into_iter()
            .map(|row| row.into_iter().filter(|(k, _)| VERDICT.contains(&k.as_str())).collect())
            .collect()
    }

    /// The rows of `file` in the output folder whose text mentions `needle`.
    fn mentions(&self, file: &str, needle: &str) -> bool {
        std::fs::read_to_string(self.out.join(file)).is_ok_and(|text| text.contains(needle))
            || self.stderr.contains(needle)
    }
}

/// A county's folder, copied so that its files can be damaged, and its config as a TOML table.
struct County {
    dir: PathBuf,
    toml: toml::Table,
}

impl County {
    /// A copy of the files of the folder holding `config` (not its subfolders) in a fresh folder.
    fn copy_of(config: &Path, label: &str) -> County {
        let from = config.parent().expect("a config file has a folder");
        let dir = common::fresh_dir(&format!("planted-{label}"));
        for entry in std::fs::read_dir(from).expect("the county folder") {
            let entry = entry.expect("a folder entry");
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::copy(entry.path(), dir.join(entry.file_name())).expect("copy a county file");
            }
        }
        let text = std::fs::read_to_string(config).expect("the county config");
        let toml = text.parse().unwrap_or_else(|e| panic!("{}: {e}", config.display()));
        let county = County { dir, toml };
        county.save();
        county
    }

    fn config(&self) -> PathBuf {
        self.dir.join("county.toml")
    }

    fn save(&self) {
        std::fs::write(self.config(), toml::to_string(&self.toml).expect("a TOML table"))
            .expect("write config");
    }

    /// The file the config names for `layer` (a key of `[layers]`).
    fn layer(&self, layer: &str) -> Option<PathBuf> {
        let name = self.toml.get("layers")?.get(layer)?.as_str()?;
        Some(self.dir.join(name))
    }

    /// Points `[layers] layer` at `file` in the county's folder.
    fn set_layer(&mut self, layer: &str, file: &str) {
        let layers = self.toml.entry("layers").or_insert_with(|| toml::Table::new().into());
        layers.as_table_mut().expect("[layers] is a table").insert(layer.into(), file.into());
        self.save();
    }

    /// Takes `[layers] layer` out of the config, as a config written by hand may leave it; `None` when the
    /// county has no such layer.
    fn remove_layer(&mut self, layer: &str) -> Option<()> {
        self.toml.get_mut("layers")?.as_table_mut()?.remove(layer)?;
        self.save();
        Some(())
    }

    /// Reads `[layers] layer`, in its file's CRS.
    fn read(&self, layer: &str) -> Option<Layer> {
        let path = self.layer(layer)?;
        Some(
            read_layer(&path, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .0,
        )
    }

    /// The working CRS the config names (`crs`), else the parcels layer's.
    fn working_crs(&self) -> Option<Crs> {
        match self.toml.get("crs").and_then(|v| v.as_str()) {
            Some(name) => Crs::parse(name).ok(),
            None => Some(self.read("parcels")?.crs),
        }
    }

    /// Runs `lakeshore COMMAND` on the county with `extra` flags.
    fn run(&self, command: &str, as_of: &str, extra: &[String]) -> Outcome {
        let out = self.dir.join(format!("out-{command}"));
        let output = Command::new(binary())
            .arg(command)
            .arg("--config")
            .arg(self.config())
            .args(["--as-of", as_of, "--out"])
            .arg(&out)
            .args(if command == "schedule" { &["--format", "csv"][..] } else { &[] })
            .args(extra)
            .output()
            .expect("cannot run the lakeshore binary");
        Outcome {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            out,
        }
    }
}

/// The CRS a planted layer is written in, and the one its `crs` member names.
enum Coordinates<'a> {
    /// In this CRS, named by a `crs` member (none for longitude/latitude, as RFC 7946 has it).
    In(&'a Crs),
    /// In the first CRS, with a `crs` member naming the second.
    Labelled(&'a Crs, &'a str),
}

/// Writes `layer` as `file` in `county`'s folder, reprojected as `coordinates` asks, each coordinate then
/// passed through `change` (given the feature's index) and each feature's properties through `properties`.
/// `None` when the CRS cannot be written as a GeoJSON `crs` member.
fn write_geojson(
    county: &County,
    file: &str,
    layer: &Layer,
    coordinates: Coordinates<'_>,
    change: impl Fn(usize, Coord) -> Coord,
    properties: impl Fn(usize, &mut Map<String, serde_json::Value>),
) -> Option<()> {
    let (to, crs) = match coordinates {
        Coordinates::In(to) if to.is_geographic().ok()? => (to, None),
        Coordinates::In(to) => (to, Some(format!("urn:ogc:def:crs:EPSG::{}", to.epsg()?))),
        Coordinates::Labelled(to, name) => (to, Some(name.to_string())),
    };
    let reproject = Reprojector::new(&layer.crs, to).ok()?;
    let mut features = Vec::new();
    for (k, feature) in layer.features.iter().enumerate() {
        let geometry = match &feature.geometry {
            Ok(g) => Some(reproject.transform(g).ok()?.map_coords(|c| change(k, c))),
            Err(_) => None,
        };
        let mut props = self::properties(layer, feature);
        properties(k, &mut props);
        features.push((geometry, props));
    }
    geojson_file(county, file, crs, features)
}

/// A feature to write: its geometry (none: unusable) and its properties.
type PlantedFeature = (Option<Geometry<f64>>, Map<String, serde_json::Value>);

/// A feature's attributes as GeoJSON properties.
fn properties(layer: &Layer, feature: &lakeshore::crs::layer::Feature) -> Map<String, serde_json::Value> {
    let mut props = Map::new();
    for (name, value) in layer.fields.iter().zip(&feature.values) {
        let value = match value {
            Value::Null => serde_json::Value::Null,
            Value::Text(t) => json!(t.as_ref()),
            Value::Number(n) => json!(n),
            Value::Bool(b) => json!(b),
        };
        props.insert(name.clone(), value);
    }
    props
}

/// Writes `features` (geometry in `crs`, properties) as `file` in `county`'s folder. `None` when `crs` has no
/// EPSG code to name it by.
fn write_features(county: &County, file: &str, crs: &Crs, features: Vec<PlantedFeature>) -> Option<()> {
    let name = match crs.is_geographic().ok()? {
        true => None,
        false => Some(format!("urn:ogc:def:crs:EPSG::{}", crs.epsg()?)),
    };
    geojson_file(county, file, name, features)
}

/// Writes a feature collection with a `crs` member naming `crs` (none: longitude/latitude).
fn geojson_file(
    county: &County,
    file: &str,
    crs: Option<String>,
    features: Vec<PlantedFeature>,
) -> Option<()> {
    let mut written = Vec::new();
    for (geometry, props) in features {
        let geometry = match geometry {
            Some(g) => serde_json::to_value(geojson::Geometry::new(geojson::GeometryValue::from(&g))).ok()?,
            None => serde_json::Value::Null,
        };
        written.push(json!({"type": "Feature", "geometry": geometry, "properties": props}));
    }
    let mut collection = json!({"type": "FeatureCollection", "features": written});
    if let Some(name) = crs {
        collection["crs"] = json!({"type": "name", "properties": {"name": name}});
    }
    std::fs::write(county.dir.join(file), collection.to_string()).ok()
}

/// Leaves a coordinate as it is.
fn unchanged(_: usize, c: Coord) -> Coord {
    c
}

/// Leaves the properties as they are.
fn keep(_: usize, _: &mut Map<String, serde_json::Value>) {}

/// Rewrites the record file `[layers] layer`, a CSV, through `change` (given its rows, header first, and
/// the column holding parcel ids) with `separator` between fields. `None` when the county has no such CSV.
fn rewrite_csv(
    county: &County,
    layer: &str,
    ids: &BTreeSet<String>,
    change: impl Fn(&mut Vec<Vec<String>>, usize),
    separator: char,
) -> Option<()> {
    let path =
        county.layer(layer).filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")))?;
    let text = std::fs::read_to_string(&path).ok()?;
    let mut rows = common::csv_records(&text);
    rows.retain(|r| !(r.len() == 1 && r[0].trim().is_empty()));
    let column = id_column(&rows, ids)?;
    change(&mut rows, column);
    std::fs::write(&path, csv_text(&rows, separator)).ok()
}

/// Writes the inspection log `[layers] history`, a CSV, as `history.xlsx` and points the config at it: text
/// cells, but the date columns' ISO dates as Excel date cells; `bad` may put another number in the date cell
/// of a data row (1-based). With `per_year`, the rows go to a sheet per year of their date, newest first, each
/// with the header, after a cover sheet of one line, as an office keeping a sheet a year hands its log over.
/// Returns the parcel ids of the rows given a bad cell.
fn workbook(
    county: &mut County,
    ids: &BTreeSet<String>,
    per_year: bool,
    bad: impl Fn(u32) -> Option<f64>,
) -> Option<Vec<String>> {
    use chrono::Datelike;
    let path =
        county.layer("history").filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")))?;
    let text = std::fs::read_to_string(&path).ok()?;
    let mut rows = common::csv_records(&text);
    rows.retain(|r| !(r.len() == 1 && r[0].is_empty()));
    let id = id_column(&rows, ids)?;
    let date = rows[0].iter().position(|h| h.to_lowercase().contains("date"))?;
    let iso = |cell: &str| chrono::NaiveDate::parse_from_str(cell, "%Y-%m-%d").ok();
    // (sheet name, the data rows' indices into `rows`)
    let mut sheets: Vec<(String, Vec<usize>)> = vec![("Log".into(), (1..rows.len()).collect())];
    if per_year {
        let year = |r: &usize| iso(&rows[*r][date]).map_or("undated".to_string(), |d| d.year().to_string());
        let mut years: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for r in 1..rows.len() {
            years.entry(year(&r)).or_default().push(r);
        }
        sheets = years.into_iter().rev().collect();
    }
    let day = rust_xlsxwriter::Format::new().set_num_format("mm/dd/yyyy");
    let mut book = rust_xlsxwriter::Workbook::new();
    if per_year {
        book.add_worksheet()
            .set_name("About")
            .ok()?
            .write_string(0, 0, "Septic inspections, one sheet a year")
            .ok()?;
    }
    let mut damaged = Vec::new();
    for (name, data) in sheets {
        let sheet = book.add_worksheet().set_name(&name).ok()?;
        for (r, at) in std::iter::once(0).chain(data).enumerate() {
            let (r, row) = (r as u32, &rows[at]);
            for (c, cell) in row.iter().enumerate() {
                let serial = iso(cell).map(|d| {
                    (d - chrono::NaiveDate::from_ymd_opt(1899, 12, 30).expect("a date")).num_days() as f64
                });
                let written = match (c == date && r > 0).then(|| bad(at as u32)).flatten() {
                    Some(number) => {
                        damaged.push(row[id].clone());
                        sheet.write_number_with_format(r, c as u16, number, &day)
                    }
                    None => match serial {
                        Some(serial) if r > 0 => sheet.write_number_with_format(r, c as u16, serial, &day),
                        _ => sheet.write_string(r, c as u16, cell),
                    },
                };
                written.ok()?;
            }
        }
    }
    book.save(county.dir.join("history.xlsx")).ok()?;
    county.set_layer("history", "history.xlsx");
    Some(damaged)
}

/// The column of `rows` (header first) whose values are most often parcel ids of the schedule.
fn id_column(rows: &[Vec<String>], ids: &BTreeSet<String>) -> Option<usize> {
    let width = rows.first()?.len();
    (0..width)
        .map(|c| (rows[1..].iter().filter(|r| r.get(c).is_some_and(|v| ids.contains(v.trim()))).count(), c))
        .filter(|&(hits, _)| hits > 0)
        .max()
        .map(|(_, c)| c)
}

/// `rows` as CSV text with `separator`, quoting the fields that need it.
fn csv_text(rows: &[Vec<String>], separator: char) -> String {
    let mut text = String::new();
    for row in rows {
        let fields: Vec<String> = row
            .iter()
            .map(|f| {
                if f.contains(separator) || f.contains('"') || f.contains('\n') {
                    format!("\"{}\"", f.replace('"', "\"\""))
                } else {
                    f.clone()
                }
            })
            .collect();
        text.push_str(&fields.join(&separator.to_string()));
        text.push_str("\r\n");
    }
    text
}

/// What the run on a planted mistake must do.
enum Judge {
    /// Schedule as the corrected county: the mistake is one the tool reads through (a sniffed separator, a
    /// decoded encoding, a field or key found by its name or contents), so stopping is not enough.
    Correct,
    /// Stop with a message holding one of the words, or schedule as the corrected county.
    StopOrCorrect(&'static [&'static str]),
    /// The feature at this record of the parcels layer is unusable: stop, or schedule every other parcel as
    /// the corrected county and this one unscheduled.
    Unusable(usize),
    /// The system point of this parcel lies far outside it: reported (exit 2, the id named), and every
    /// other parcel scheduled as the corrected county.
    Reported(String),
    /// These parcels' record rows hold bad cells: each is reported (more problems than the corrected
    /// county's), and every other parcel scheduled as the corrected county.
    BadRows(Vec<String>),
    /// The notices cannot all be mailed: `notices` must not exit 0.
    NoticesNotClean,
    /// A layer lacks what some verdicts need: exit 2 with a warning holding one of the words, every row as
    /// the corrected county's but that its floodplain verdict may be "unknown" (never another verdict).
    Unknown(&'static [&'static str]),
}

/// A mistake planted in a copy of the county: the flags the run takes, and how it is judged. `None` when the
/// county has nothing to plant it in (no systems layer, a history that is not CSV).
struct Planted {
    flags: Vec<String>,
    judge: Judge,
}

struct Mistake {
    name: &'static str,
    plant: fn(&mut County, &BTreeSet<String>) -> Option<Planted>,
}

fn stop_or_correct(words: &'static [&'static str]) -> Option<Planted> {
    Some(Planted { flags: Vec::new(), judge: Judge::StopOrCorrect(words) })
}

/// The first field of `layer` named like one of `names`.
fn field_like(layer: &Layer, names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| layer.fields.iter().find(|f| f.eq_ignore_ascii_case(n))).cloned()
}

/// Each mistake as a county hands it over.
const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "control: parcels as GeoJSON in their own CRS",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            write_geojson(
                c,
                "parcels_own.geojson",
                &parcels,
                Coordinates::In(&parcels.crs),
                unchanged,
                keep,
            )?;
            c.set_layer("parcels", "parcels_own.geojson");
            control()
        },
    },
    Mistake {
        name: "control: parcels as GeoJSON in longitude/latitude",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            write_geojson(
                c,
                "parcels_wgs84.geojson",
                &parcels,
                Coordinates::In(&Crs::wgs84()),
                unchanged,
                keep,
            )?;
            c.set_layer("parcels", "parcels_wgs84.geojson");
            control()
        },
    },
    Mistake {
        name: "parcels GeoJSON written latitude first",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            write_geojson(c, "parcels_latlon.geojson", &parcels, Coordinates::In(&Crs::wgs84()), swap, keep)?;
            c.set_layer("parcels", "parcels_latlon.geojson");
            stop_or_correct(&["swap"])
        },
    },
    Mistake {
        name: "shoreline with its axes swapped",
        plant: |c, _| {
            let shore = c.read("shoreline")?;
            write_geojson(c, "shoreline_swapped.geojson", &shore, Coordinates::In(&shore.crs), swap, keep)?;
            c.set_layer("shoreline", "shoreline_swapped.geojson");
            stop_or_correct(&["swap"])
        },
    },
    Mistake {
        name: "towns in metres labelled with the county's foot CRS",
        plant: |c, _| {
            let towns = c.read("towns")?;
            let working = c.working_crs()?;
            let to_metre = working.linear_unit().ok().flatten()?.to_metre();
            let metres = move |_, p: Coord| Coord { x: p.x * to_metre, y: p.y * to_metre };
            write_geojson(c, "towns_metres.geojson", &towns, Coordinates::In(&working), metres, keep)?;
            c.set_layer("towns", "towns_metres.geojson");
            stop_or_correct(&["metre", "meter"])
        },
    },
    Mistake {
        name: "parcels shapefile without .prj, --assume-crs in metres",
        plant: |c, _| {
            let parcels = c.layer("parcels").filter(|p| p.extension().is_some_and(|e| e == "shp"))?;
            // The metre twin of New York Central's foot zone; UTM 18N for any other county.
            let metres =
                if c.read("parcels")?.crs.epsg() == Some(2261) { "EPSG:32116" } else { "EPSG:26918" };
            std::fs::remove_file(parcels.with_extension("prj")).ok()?;
            Some(Planted {
                flags: vec!["--assume-crs".into(), metres.into()],
                judge: Judge::StopOrCorrect(&["metre", "meter"]),
            })
        },
    },
    Mistake {
        name: "parcels labelled with the neighbouring State Plane zone",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            // New York West (EPSG:2262) beside Central (2261); Central beside the others.
            let neighbour = if parcels.crs.epsg()? == 2261 {
                "urn:ogc:def:crs:EPSG::2262"
            } else {
                "urn:ogc:def:crs:EPSG::2261"
            };
            let label = Coordinates::Labelled(&parcels.crs, neighbour);
            write_geojson(c, "parcels_zone.geojson", &parcels, label, unchanged, keep)?;
            c.set_layer("parcels", "parcels_zone.geojson");
            stop_or_correct(&["zone"])
        },
    },
    Mistake {
        name: "one parcel vertex at x = 1e300",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            // The first parcel with a shape: its first vertex, and the ring's closing one.
            let k = parcels.features.iter().position(|f| f.geometry.is_ok())?;
            let first = parcels.features[k].geometry.as_ref().ok().and_then(first_coord)?;
            let far =
                move |i: usize, p: Coord| if i == k && p == first { Coord { x: 1e300, y: p.y } } else { p };
            write_geojson(c, "parcels_far.geojson", &parcels, Coordinates::In(&parcels.crs), far, keep)?;
            c.set_layer("parcels", "parcels_far.geojson");
            Some(Planted { flags: Vec::new(), judge: Judge::Unusable(k + 1) })
        },
    },
    Mistake {
        name: "a system point 2,000 ft outside its parcel",
        plant: |c, ids| {
            let systems = c.read("systems")?;
            let at = systems
                .field_index(&field_like(&systems, &["PARCEL_ID", "SWIS_SBL_ID", "SBL", "PRINT_KEY"])?)?;
            let named = |f: &lakeshore::crs::layer::Feature| {
                f.values[at].as_text().is_some_and(|id| ids.contains(&id))
            };
            let k = systems.features.iter().position(|f| named(f) && f.geometry.is_ok())?;
            let id = systems.features[k].values[at].as_text()?;
            // Moved in the county's foot CRS, written back in it.
            let working = c.working_crs()?;
            let shift = 2000.0 * 0.3048 / working.linear_unit().ok().flatten()?.to_metre();
            let moved = move |i: usize, p: Coord| if i == k { Coord { x: p.x + shift, y: p.y } } else { p };
            write_geojson(c, "systems_moved.geojson", &systems, Coordinates::In(&working), moved, keep)?;
            c.set_layer("systems", "systems_moved.geojson");
            Some(Planted { flags: Vec::new(), judge: Judge::Reported(id) })
        },
    },
    Mistake {
        name: "systems' bottom elevation in a field named ELEV_FT",
        plant: |c, _| {
            let systems = c.read("systems")?;
            let bottom = field_like(&systems, &["BOTTOM_FT", "BOTTOM_ELEV", "ABS_BOTTOM", "FIELD_BOTTOM"])?;
            let rename = move |_: usize, p: &mut Map<String, serde_json::Value>| {
                if let Some(v) = p.remove(&bottom) {
                    p.insert("ELEV_FT".into(), v);
                }
            };
            write_geojson(
                c,
                "systems_elev.geojson",
                &systems,
                Coordinates::In(&systems.crs),
                unchanged,
                rename,
            )?;
            c.set_layer("systems", "systems_elev.geojson");
            correct()
        },
    },
    Mistake {
        name: "sewer type in words, as Tompkins County writes it",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            let sewer = field_like(&parcels, &["SEWER_TYPE", "SEWER_CODE", "SEWER"])?;
            // NYS RPS sewer types: 1 none, 2 private, 3 commercial/public (the public sewer the law exempts).
            let words = move |_: usize, p: &mut Map<String, serde_json::Value>| {
                let code = p.get(&sewer).and_then(|v| match v {
                    serde_json::Value::String(s) => Some(s.trim().to_string()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                });
                let word = match code.as_deref() {
                    Some("3") => "Public",
                    Some("2") => "Private",
                    Some("1") => "None",
                    _ => return,
                };
                p.insert(sewer.clone(), json!(word));
            };
            write_geojson(
                c,
                "parcels_sewer.geojson",
                &parcels,
                Coordinates::In(&parcels.crs),
                unchanged,
                words,
            )?;
            c.set_layer("parcels", "parcels_sewer.geojson");
            correct()
        },
    },
    Mistake {
        name: "parcels without mailing-address fields (notices)",
        plant: |c, _| {
            let parcels = c.read("parcels")?;
            let drop = |_: usize, p: &mut Map<String, serde_json::Value>| {
                p.retain(|k, _| {
                    let k = k.to_ascii_uppercase();
                    !(k.starts_with("MAIL")
                        || k.starts_with("ADD_")
                        || k.contains("ZIP")
                        || k.starts_with("PO_BOX"))
                })
            };
            write_geojson(
                c,
                "parcels_no_mail.geojson",
                &parcels,
                Coordinates::In(&parcels.crs),
                unchanged,
                drop,
            )?;
            c.set_layer("parcels", "parcels_no_mail.geojson");
            Some(Planted { flags: Vec::new(), judge: Judge::NoticesNotClean })
        },
    },
    Mistake {
        name: "inspection log keyed by print key alone",
        plant: |c, ids| {
            let strip = |rows: &mut Vec<Vec<String>>, col: usize| {
                for id in rows.iter_mut().skip(1).filter_map(|row| row.get_mut(col)) {
                    if let Some((swis, rest)) = id.split_once('-') {
                        if swis.len() == 6 && swis.bytes().all(|b| b.is_ascii_digit()) {
                            *id = rest.to_string();
                        }
                    }
                }
            };
            rewrite_csv(c, "history", ids, strip, ',')?;
            correct()
        },
    },
    Mistake {
        name: "inspection log of another county",
        plant: |c, ids| {
            let other = |rows: &mut Vec<Vec<String>>, col: usize| {
                for (n, id) in rows.iter_mut().skip(1).filter_map(|row| row.get_mut(col)).enumerate() {
                    *id = format!("999999-{n}.00-9-9");
                }
            };
            rewrite_csv(c, "history", ids, other, ',')?;
            stop_or_correct(&["match"])
        },
    },
    Mistake {
        name: "inspection log exported with semicolons",
        plant: |c, ids| {
            rewrite_csv(c, "history", ids, |_, _| {}, ';')?;
            correct()
        },
    },
    Mistake {
        name: "inspection log exported with tabs",
        plant: |c, ids| {
            rewrite_csv(c, "history", ids, |_, _| {}, '\t')?;
            correct()
        },
    },
    Mistake {
        name: "inspection log in Windows-1252 with accented names",
        plant: |c, ids| {
            // The inspector's (or any name column's) non-empty cells gain a name written with accents.
            let accented = |rows: &mut Vec<Vec<String>>, _: usize| {
                let header = rows[0].iter().map(|h| h.to_lowercase()).collect::<Vec<_>>();
                let names: Vec<usize> = (0..header.len())
                    .filter(|&i| ["inspector", "name", "owner", "note"].iter().any(|w| header[i].contains(w)))
                    .collect();
                for row in rows.iter_mut().skip(1) {
                    for (i, cell) in row.iter_mut().enumerate() {
                        if names.contains(&i) && !cell.is_empty() {
                            cell.push_str(" Núñez-Müller");
                        }
                    }
                }
            };
            rewrite_csv(c, "history", ids, accented, ',')?;
            let path = c.layer("history")?;
            let text = std::fs::read_to_string(&path).ok()?;
            let (bytes, _, lossy) = shapefile::dbase::encoding_rs::WINDOWS_1252.encode(&text);
            assert!(!lossy, "the accented names fit Windows-1252");
            std::fs::write(&path, bytes).ok()?;
            correct()
        },
    },
    Mistake {
        name: "inspection log as a workbook with Excel date cells",
        plant: |c, ids| {
            workbook(c, ids, false, |_| None)?;
            correct()
        },
    },
    Mistake {
        name: "inspection log as a workbook with a sheet per year",
        plant: |c, ids| {
            workbook(c, ids, true, |_| None)?;
            correct()
        },
    },
    Mistake {
        name: "workbook date cells holding serials -1 and 23,980,000",
        plant: |c, ids| {
            let rows = workbook(c, ids, false, |row| match row {
                1 => Some(-1.0),
                2 => Some(23_980_000.0),
                _ => None,
            })?;
            Some(Planted { flags: Vec::new(), judge: Judge::BadRows(rows) })
        },
    },
];

/// A mistake the tool must read through.
fn correct() -> Option<Planted> {
    Some(Planted { flags: Vec::new(), judge: Judge::Correct })
}

/// A control: the county converted, no mistake planted; it must schedule as shipped.
fn control() -> Option<Planted> {
    Some(Planted { flags: Vec::new(), judge: Judge::StopOrCorrect(&[]) })
}

/// Swaps a coordinate's axes.
fn swap(_: usize, p: Coord) -> Coord {
    Coord { x: p.y, y: p.x }
}

fn first_coord(g: &Geometry<f64>) -> Option<Coord> {
    use geo::CoordsIter;
    g.coords_iter().next()
}

/// Plants every mistake in a copy of the county at `config` and judges the run on it; returns the
/// failures, one line each, after printing what each run did.
fn planted_suite(config: &Path, as_of: &str) -> Vec<String> {
    let shipped = County::copy_of(config, "shipped");
    let corrected = shipped.run("schedule", as_of, &[]);
    assert!(
        matches!(corrected.code, Some(0 | 2)),
        "the corrected county must schedule: exit {:?}\n{}",
        corrected.code,
        corrected.stderr
    );
    let expected = corrected.verdicts();
    let ids: BTreeSet<String> = expected.iter().map(|r| r["parcel_id"].clone()).collect();
    let mut failures = Vec::new();
    for (n, mistake) in MISTAKES
        .iter()
        .chain(roles::MISTAKES)
        .chain(dates::MISTAKES)
        .chain(parts::MISTAKES)
        .chain(parts::ROUNDED)
        .chain(dates::COLUMNS)
        .enumerate()
    {
        let mut county = County::copy_of(config, &format!("m{n}"));
        let Some(planted) = (mistake.plant)(&mut county, &ids) else {
            eprintln!("{:<60} not applicable to this county", mistake.name);
            continue;
        };
        let command = if matches!(planted.judge, Judge::NoticesNotClean) { "notices" } else { "schedule" };
        let outcome = county.run(command, as_of, &planted.flags);
        let first_line = outcome.stderr.lines().find(|l| l.contains("error")).unwrap_or("").to_string();
        let verdict = judge(&planted.judge, &outcome, &corrected, &expected);
        eprintln!(
            "{:<60} exit {:?}: {}{}",
            mistake.name,
            outcome.code,
            verdict.as_deref().unwrap_or("ok"),
            if outcome.code == Some(1) { format!(" — {first_line}") } else { String::new() }
        );
        if let Some(why) = verdict {
            failures.push(format!("{}: {why}\n{}", mistake.name, outcome.stderr));
        }
    }
    failures
}

/// `None` when the run did what the judge asks, else why not.
fn judge(
    judge: &Judge,
    outcome: &Outcome,
    corrected: &Outcome,
    expected: &[BTreeMap<String, String>],
) -> Option<String> {
    let stopped = outcome.code == Some(1);
    match judge {
        Judge::StopOrCorrect(words) if stopped => unnamed_cause(words, &outcome.stderr),
        Judge::Unusable(_) | Judge::Reported(_) if stopped => None,
        _ if !matches!(outcome.code, Some(0 | 2)) => Some(format!("exit {:?}", outcome.code)),
        Judge::Correct | Judge::StopOrCorrect(_) => differences(&outcome.verdicts(), expected, |_| false),
        Judge::Unusable(record) => {
            let got = outcome.verdicts();
            let record = record.to_string();
            let planted = got.iter().find(|r| r["record"] == record);
            match planted {
                Some(row) if row["tier"] == "unscheduled" => {
                    differences(&got, expected, |r| r["record"] == record)
                }
                Some(row) => {
                    Some(format!("record {record} was classified from the far vertex: tier {}", row["tier"]))
                }
                None => Some(format!("record {record} is missing from schedule.csv")),
            }
        }
        Judge::Reported(id) => {
            if outcome.code != Some(2) || !outcome.mentions("problems.csv", id) {
                return Some(format!("the system of {id} outside its parcel was not reported"));
            }
            differences(&outcome.verdicts(), expected, |r| &r["parcel_id"] == id)
        }
        Judge::BadRows(ids) => {
            let count = |dir: &Path| {
                std::fs::read_to_string(dir.join("problems.csv")).map_or(0, |t| t.lines().count())
            };
            if count(&outcome.out) < count(&corrected.out) + ids.len() {
                return Some(format!("the bad cells of {ids:?} were not reported one by one"));
            }
            differences(&outcome.verdicts(), expected, |r| ids.contains(&r["parcel_id"]))
        }
        Judge::Unknown(words) => {
            let lower = outcome.stderr.to_lowercase();
            if outcome.code != Some(2) || !words.iter().any(|w| lower.contains(&w.to_lowercase())) {
                return Some(format!("exit {:?} without a warning naming one of {words:?}", outcome.code));
            }
            let unknown = |got: &BTreeMap<String, String>, e: &BTreeMap<String, String>| {
                got.iter().all(|(k, v)| e.get(k) == Some(v) || (k == "floodplain_verdict" && v == "unknown"))
            };
            let got = outcome.verdicts();
            if got.len() != expected.len() {
                return Some(format!("{} rows, the corrected county has {}", got.len(), expected.len()));
            }
            got.iter().zip(expected).find(|(g, e)| !unknown(g, e)).map(|(g, e)| {
                format!("parcel {}: {g:?} where the corrected county has {e:?}", e["parcel_id"])
            })
        }
        Judge::NoticesNotClean if outcome.code == Some(0) => {
            Some("notices exited 0 with nothing to mail".into())
        }
        // The warning names the mailing fields and the key or flag that sets them.
        Judge::NoticesNotClean => {
            let lower = outcome.stderr.to_lowercase();
            (!(lower.contains("mail") && (lower.contains("[fields") || lower.contains("--field"))))
                .then(|| "no warning naming the mailing fields' key or flag".into())
        }
    }
}

/// Why a stop does not do: the run of a control must not stop, and any other must name its cause with one
/// of `words`.
fn unnamed_cause(words: &[&str], stderr: &str) -> Option<String> {
    if words.is_empty() {
        return Some("a control county must not stop".into());
    }
    let lower = stderr.to_lowercase();
    (!words.iter().any(|w| lower.contains(&w.to_lowercase())))
        .then(|| format!("stopped without naming the cause (one of {words:?})"))
}

/// The rows of `got` that differ from `expected` (but those `skip` accepts), or `None` when they agree.
fn differences(
    got: &[BTreeMap<String, String>],
    expected: &[BTreeMap<String, String>],
    skip: impl Fn(&BTreeMap<String, String>) -> bool,
) -> Option<String> {
    if got.len() != expected.len() {
        return Some(format!("{} rows, the corrected county has {}", got.len(), expected.len()));
    }
    let differing: Vec<String> = got
        .iter()
        .zip(expected)
        .filter(|(g, e)| g != e && !skip(e))
        .take(3)
        .map(|(g, e)| {
            let cols: Vec<String> = e
                .iter()
                .filter(|(k, v)| g.get(*k) != Some(v))
                .map(|(k, v)| format!("{k}: {v:?} → {:?}", g.get(k).map_or("", String::as_str)))
                .collect();
            format!("{} {}", e["parcel_id"], cols.join(", "))
        })
        .collect();
    (!differing.is_empty()).then(|| format!("a different schedule with no stop: {}", differing.join("; ")))
}

#[test]
fn every_planted_mistake_stops_the_run_or_is_scheduled_correctly() {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let failures = planted_suite(&config, "2027-01-15");
    assert!(
        failures.is_empty(),
        "{} planted mistakes look clean and are wrong:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The same suite on a county named by `LAKESHORE_PLANTED_CONFIG` (`.ci/run` generates one of 10,000
/// parcels); without it the test has nothing to do.
#[test]
fn every_planted_mistake_on_a_generated_county() {
    let Some(config) = std::env::var_os("LAKESHORE_PLANTED_CONFIG") else {
        return;
    };
    let as_of = std::env::var("LAKESHORE_PLANTED_AS_OF").unwrap_or_else(|_| "2027-01-15".into());
    let failures = planted_suite(Path::new(&config), &as_of);
    assert!(
        failures.is_empty(),
        "{} planted mistakes look clean and are wrong:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
