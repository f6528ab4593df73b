//! The hand-designed sample county: layers, parcels and their intended cases.
//!
//! Geometry is in EPSG:2261 feet. Owasco Lake is a polygon with straight shores at x = 834,000
//! (west) and x = 840,000 (east) between y = 1,010,000 and 1,064,000, except two coves far from
//! any parcel, so every designed distance to the mean-high-water line (the lake polygon's
//! boundary) is a difference of two numbers. Little Sodus Bay has straight shores at x = 800,000
//! and x = 803,000. The expectations in `tests/golden/sample/expected.csv` were worked out by hand
//! from these numbers and the law; nothing here computes them.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::json;

use crate::feet::{rect, Pt, Ring, ToWgs84};
use crate::write::{
    point_feature, polygon_feature, s, write_geojson, write_polygons, write_text, Field, ShapefileSpec, Val,
    PRJ_2261, PRJ_WGS84,
};

use crate::parcels::{parcels, Parcel};

/// A town (or the City of Auburn): its polygon, SWIS code and the post office its owners use.
pub struct Town {
    pub name: &'static str,
    pub swis: &'static str,
    pub mail_city: &'static str,
    pub mail_zip: &'static str,
    pub bounds: [f64; 4],
}

/// The towns tile the county rectangle x 780,000..880,000, y 1,000,000..1,170,000.
pub const TOWNS: &[Town] = &[
    town("Genoa", "053089", "Genoa", "13071", [780e3, 1000e3, 815e3, 1020e3]),
    town("Ledyard", "053489", "Aurora", "13026", [780e3, 1020e3, 815e3, 1045e3]),
    town("Aurelius", "052089", "Auburn", "13021", [780e3, 1045e3, 815e3, 1090e3]),
    town("Moravia", "054289", "Moravia", "13118", [815e3, 1000e3, 860e3, 1008e3]),
    town("Sempronius", "055089", "Moravia", "13118", [860e3, 1000e3, 880e3, 1037e3]),
    town("Scipio", "054889", "Scipio Center", "13147", [815e3, 1008e3, 837e3, 1037e3]),
    town("Niles", "054489", "Moravia", "13118", [837e3, 1008e3, 860e3, 1037e3]),
    town("Fleming", "052889", "Auburn", "13021", [815e3, 1037e3, 837e3, 1070e3]),
    town("Owasco", "054689", "Auburn", "13021", [837e3, 1037e3, 880e3, 1070e3]),
    town("Auburn", "050100", "Auburn", "13021", [815e3, 1070e3, 850e3, 1090e3]),
    town("Sennett", "055289", "Auburn", "13021", [850e3, 1070e3, 880e3, 1090e3]),
    town("Cato", "052489", "Cato", "13033", [780e3, 1090e3, 830e3, 1120e3]),
    town("Brutus", "052289", "Weedsport", "13166", [830e3, 1090e3, 880e3, 1120e3]),
    town("Ira", "053289", "Cato", "13033", [780e3, 1120e3, 880e3, 1145e3]),
    town("Sterling", "055689", "Sterling", "13156", [780e3, 1145e3, 880e3, 1170e3]),
];

/// Parcels south of the county line are in the Town of Groton, Tompkins County (not a town of
/// the towns layer): the Owasco watershed continues there.
pub const GROTON: Town = town("Groton", "502889", "Groton", "13073", [0.0; 4]);

/// The county polygon.
pub const COUNTY: [f64; 4] = [780e3, 1000e3, 880e3, 1170e3];

const fn town(
    name: &'static str,
    swis: &'static str,
    mail_city: &'static str,
    mail_zip: &'static str,
    bounds: [f64; 4],
) -> Town {
    Town { name, swis, mail_city, mail_zip, bounds }
}

/// The town of that name (Groton included).
pub fn town_named(name: &str) -> Result<&'static Town> {
    if name == GROTON.name {
        return Ok(&GROTON);
    }
    match TOWNS.iter().find(|t| t.name == name) {
        Some(t) => Ok(t),
        None => bail!("no town named {name:?} in the sample design"),
    }
}

fn rect_of(b: [f64; 4]) -> Vec<Pt> {
    rect(b[0], b[1], b[2], b[3])
}

/// The Village of Fair Haven, on the east shore of Little Sodus Bay: the towns layer is a layer of
/// towns outside villages (SWIS `..89`), so the village is a notch cut from the top edge of the Town
/// of Sterling's polygon, and parcels in it take their town from `MUNI_NAME` or `SWIS`.
pub const FAIR_HAVEN: [f64; 4] = [803_000.0, 1_166_500.0, 806_000.0, 1_170_000.0];

/// A town's polygon: its rectangle, less the village notch where it has one.
fn town_ring(t: &Town) -> Vec<Pt> {
    let [x0, y0, x1, y1] = t.bounds;
    let [n0, n1, n2, _] = FAIR_HAVEN;
    if t.name != "Sterling" {
        return rect_of(t.bounds);
    }
    vec![(x0, y0), (x1, y0), (x1, y1), (n2, y1), (n2, n1), (n0, n1), (n0, y1), (x0, y1)]
}

/// Owasco Lake (counter-clockwise from the inlet at the south tip).
pub fn owasco_lake() -> Vec<Pt> {
    let mut v = vec![(837_000.0, 1_006_000.0), (838_500.0, 1_007_000.0), (840_000.0, 1_010_000.0)];
    // East shore, straight except a cove between y 1,048,000 and 1,054,000 that reaches x 841,000.
    v.extend((1_011_000..=1_048_000).step_by(1000).map(|y| (840_000.0, y as f64)));
    v.extend([(841_000.0, 1_050_000.0), (840_600.0, 1_052_000.0)]);
    v.extend((1_054_000..=1_064_000).step_by(1000).map(|y| (840_000.0, y as f64)));
    // The outlet at the north tip.
    v.extend([(838_500.0, 1_067_000.0), (837_000.0, 1_068_000.0), (835_500.0, 1_067_000.0)]);
    // West shore, straight except a cove between y 1,018,000 and 1,012,000 that reaches x 833,000.
    v.extend((1_018_000..=1_064_000).rev().step_by(1000).map(|y| (834_000.0, y as f64)));
    v.extend([(833_000.0, 1_016_000.0), (833_400.0, 1_014_000.0)]);
    v.extend((1_010_000..=1_012_000).rev().step_by(1000).map(|y| (834_000.0, y as f64)));
    v.push((835_500.0, 1_007_000.0));
    v
}

/// Little Sodus Bay (counter-clockwise from its south tip); its north side is the bay's mouth.
pub fn little_sodus_bay() -> Vec<Pt> {
    let mut v = vec![(801_500.0, 1_158_500.0), (803_000.0, 1_160_000.0)];
    v.extend((1_161_000..=1_169_000).step_by(1000).map(|y| (803_000.0, y as f64)));
    v.extend((1_160_000..=1_169_000).rev().step_by(1000).map(|y| (800_000.0, y as f64)));
    v
}

/// The Owasco Lake watershed; it runs south of the county line (y < 1,000,000). Its east edge
/// steps west around the Skaneateles Lake watershed in the Town of Niles.
pub fn owasco_watershed() -> Vec<Pt> {
    let [s0, s1, _, s3] = SKANEATELES;
    vec![
        (826_000.0, 985_000.0),
        (866_000.0, 985_000.0),
        (866_000.0, s1),
        (s0, s1),
        (s0, s3),
        (866_000.0, s3),
        (866_000.0, 1_045_000.0),
        (846_000.0, 1_069_000.0),
        (828_000.0, 1_069_000.0),
        (826_000.0, 1_045_000.0),
    ]
}

/// The part of the Skaneateles Lake watershed in the sample: east of x 856,000 between y 1,024,000
/// and 1,036,000 (Towns of Niles and Sempronius). Article V's watershed tier does not name it.
pub const SKANEATELES: [f64; 4] = [856_000.0, 1_024_000.0, 880_000.0, 1_036_000.0];

/// The Little Sodus Bay watershed, in the Town of Sterling.
pub fn little_sodus_watershed() -> Vec<Pt> {
    vec![
        (795_000.0, 1_150_000.0),
        (810_000.0, 1_150_000.0),
        (811_000.0, 1_160_000.0),
        (808_000.0, 1_169_500.0),
        (797_000.0, 1_169_500.0),
        (794_000.0, 1_160_000.0),
    ]
}

/// A FEMA NFHL flood hazard area (S_FLD_HAZ_AR).
struct FloodZone {
    id: &'static str,
    zone: &'static str,
    subtype: &'static str,
    sfha: &'static str,
    static_bfe: f64,
    bounds: [f64; 4],
}

const FLOOD_ZONES: &[FloodZone] = &[
    // The Owasco Inlet corridor south of the lake, into Groton; riverine AE without a static BFE.
    FloodZone {
        id: "36011C_1",
        zone: "AE",
        subtype: "",
        sfha: "T",
        static_bfe: -9999.0,
        bounds: [836_200.0, 995_000.0, 837_800.0, 1_006_300.0],
    },
    // Shaded X east of the inlet: not a special flood hazard area.
    FloodZone {
        id: "36011C_2",
        zone: "X",
        subtype: "0.2 PCT ANNUAL CHANCE FLOOD HAZARD",
        sfha: "F",
        static_bfe: -9999.0,
        bounds: [837_800.0, 995_000.0, 840_500.0, 1_005_000.0],
    },
    // An approximate-study tributary (zone A, no BFE).
    FloodZone {
        id: "36011C_3",
        zone: "A",
        subtype: "",
        sfha: "T",
        static_bfe: -9999.0,
        bounds: [842_000.0, 1_000_500.0, 842_600.0, 1_007_500.0],
    },
    // Up a creek in Niles, 10,000 ft from the lake: FEMA's BFE 745.0 binds, not Owasco Lake's 717.13.
    FloodZone {
        id: "36011C_5",
        zone: "AE",
        subtype: "",
        sfha: "T",
        static_bfe: 745.0,
        bounds: [850_000.0, 1_020_000.0, 851_000.0, 1_026_000.0],
    },
    // A strip of the lake's own shore in Owasco with a static BFE above 717.13: the higher binds.
    FloodZone {
        id: "36011C_6",
        zone: "AE",
        subtype: "",
        sfha: "T",
        static_bfe: 718.4,
        bounds: [840_000.0, 1_056_000.0, 840_300.0, 1_057_500.0],
    },
    // The low east shore of Little Sodus Bay, with a static BFE.
    FloodZone {
        id: "36011C_4",
        zone: "AE",
        subtype: "",
        sfha: "T",
        static_bfe: 250.5,
        bounds: [803_000.0, 1_161_000.0, 804_500.0, 1_163_000.0],
    },
];

/// Public sewer districts: the City of Auburn's and a lakeside district in the Town of Owasco.
const SEWER_DISTRICTS: &[(&str, [f64; 4])] = &[
    ("Auburn City Sewer", [825_000.0, 1_072_000.0, 845_000.0, 1_088_000.0]),
    ("Owasco Lakeshore Sewer District", [839_000.0, 1_058_000.0, 842_000.0, 1_063_000.0]),
];

/// Writes every layer of the sample county into `dir`; with `bad`, the problem sample: the same county
/// plus the records of `problems.rs`.
pub fn write_sample(dir: &Path, bad: bool) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let to_wgs = ToWgs84::new()?;
    let mut all = parcels();
    check_design(&all)?;
    if bad {
        all.extend(crate::problems::parcels());
    }
    // Lots that report a problem by design (a sewer code the district polygon contradicts) are only in the
    // problem sample. They keep their place in the record order there, and every lot keeps its mailing box.
    let keep = |p: &Parcel| bad || !p.id().is_ok_and(|id| crate::problems::REPORTING.contains(&id.as_str()));
    write_parcels(dir, &all, &keep)?;
    let parcels: Vec<Parcel> = all.into_iter().filter(|p| keep(p)).collect();
    write_geojson(
        &dir.join("shoreline.geojson"),
        "shoreline",
        &[
            polygon_feature(&to_wgs, &owasco_lake(), json!({"NAME": "Owasco Lake", "MHW_FT": 717.13}))?,
            polygon_feature(
                &to_wgs,
                &little_sodus_bay(),
                json!({"NAME": "Little Sodus Bay", "MHW_FT": 248.2}),
            )?,
        ],
    )?;
    write_polygons(
        &ShapefileSpec {
            dir,
            stem: "watershed",
            prj: PRJ_WGS84,
            cpg: None,
            fields: &[Field::Char("NAME", 40)],
        },
        [
            ("Owasco Lake Watershed", owasco_watershed()),
            ("LITTLE SODUS BAY", little_sodus_watershed()),
            ("Skaneateles Lake Watershed", rect_of(SKANEATELES)),
        ]
        .into_iter()
        .map(|(name, ring)| -> Result<_> {
            let lonlat = ring.iter().map(|p| to_wgs.lonlat(*p)).collect::<Result<Vec<_>>>()?;
            Ok((vec![Ring::Outer(lonlat)], vec![s(name)]))
        })
        .collect::<Result<Vec<_>>>()?,
    )?;
    write_polygons(
        &ShapefileSpec {
            dir,
            stem: "floodplain",
            prj: PRJ_2261,
            cpg: Some("UTF-8"),
            fields: &[
                Field::Char("DFIRM_ID", 6),
                Field::Char("FLD_AR_ID", 32),
                Field::Char("FLD_ZONE", 17),
                Field::Char("ZONE_SUBTY", 76),
                Field::Char("SFHA_TF", 1),
                Field::Num("STATIC_BFE", 12, 2),
            ],
        },
        FLOOD_ZONES.iter().map(|z| {
            (
                vec![Ring::Outer(rect_of(z.bounds))],
                vec![s("36011C"), s(z.id), s(z.zone), s(z.subtype), s(z.sfha), Val::Num(Some(z.static_bfe))],
            )
        }),
    )?;
    let towns = TOWNS
        .iter()
        .map(|t| polygon_feature(&to_wgs, &town_ring(t), json!({"NAME": t.name, "SWIS": t.swis})))
        .collect::<Result<Vec<_>>>()?;
    write_geojson(&dir.join("towns.geojson"), "towns", &towns)?;
    write_geojson(
        &dir.join("county.geojson"),
        "county",
        &[polygon_feature(&to_wgs, &rect_of(COUNTY), json!({"NAME": "Cayuga", "STATE": "NY"}))?],
    )?;
    let sewered = SEWER_DISTRICTS
        .iter()
        .map(|(name, b)| polygon_feature(&to_wgs, &rect_of(*b), json!({"NAME": name})))
        .collect::<Result<Vec<_>>>()?;
    write_geojson(&dir.join("sewered.geojson"), "sewered", &sewered)?;
    let mut systems = Vec::new();
    for (p, system_id, at, bottom) in system_points(&parcels) {
        // Only a lot's first system is shared; the layer writes the second parcel's id or null.
        let second = match p.shared_with.filter(|_| p.system.is_some_and(|s| s.0 == at)) {
            Some(key) => Some(format!("{}-{key}", p.swis_code()?)),
            None => None,
        };
        let properties = json!({
            "SYSTEM_ID": system_id, "PARCEL_ID": p.id()?, "PARCEL_ID_2": second, "BOTTOM_FT": bottom
        });
        systems.push(point_feature(&to_wgs, at, properties)?);
    }
    if bad {
        let (id, at, bottom) = crate::problems::STRAY_SYSTEM;
        let properties =
            json!({"SYSTEM_ID": "S-0900", "PARCEL_ID": id, "PARCEL_ID_2": null, "BOTTOM_FT": bottom});
        systems.push(point_feature(&to_wgs, at, properties)?);
    }
    write_geojson(&dir.join("systems.geojson"), "systems", &systems)?;
    crate::records::write_inspections(dir, &parcels, bad)?;
    crate::records::write_event_files(dir, bad)?;
    crate::records::write_watercourses(dir, &to_wgs)?;
    write_text(&dir.join("county.toml"), &format!("{COUNTY_TOML}{LAYERS_TOML}{COUNTY_OFFICE}"))?;
    write_text(&dir.join("gorham.toml"), &format!("{GORHAM_TOML}{LAYERS_TOML}{GORHAM_OFFICE}"))?;
    if !bad {
        crate::dem::write_dem(dir, &owasco_lake(), &format!("{COUNTY_DEM_TOML}{LAYERS_TOML}"))?;
    }
    let readme = if bad { crate::problems::README.to_string() } else { readme(&parcels)? };
    write_text(&dir.join("README.md"), &readme)?;
    println!("wrote the sample county ({} parcels) to {}", parcels.len(), dir.display());
    Ok(())
}

/// Every system of the systems layer, in its order: each parcel's `system`, then its other systems, with its
/// `SYSTEM_ID` (given, or `S-0001`, `S-0002`, ... in this order for the systems given none).
fn system_points(parcels: &[Parcel]) -> Vec<(&Parcel, String, Pt, Option<f64>)> {
    let mut numbered = 0;
    let mut out = Vec::new();
    for p in parcels {
        if let Some((at, bottom)) = p.system {
            let id = p.system_id.map_or_else(
                || {
                    numbered += 1;
                    format!("S-{numbered:04}")
                },
                str::to_string,
            );
            out.push((p, id, at, bottom));
        }
        out.extend(p.more_systems.iter().map(|&(id, at, bottom)| (p, id.to_string(), at, bottom)));
    }
    out
}

/// The layers of both sample configurations.
const LAYERS_TOML: &str = r#"[layers]
parcels = "parcels.shp"
shoreline = "shoreline.geojson"
watershed = "watershed.shp"
floodplain = "floodplain.shp"
towns = "towns.geojson"
systems = "systems.geojson"
sewered = "sewered.geojson"
county = "county.geojson"
history = "history.csv"
watercourses = "watercourses.geojson"
events = "events.csv"
pump_outs = "pump_outs.csv"
samples = "samples.csv"
pipes = "pipes.csv"
"#;

const COUNTY_DEM_TOML: &str = r#"# Sample county for lakeshore (SYNTHETIC), its mean-high-water line from a DEM (Art. V §II.22)
crs = "EPSG:2261"
border_tolerance_ft = 10.0
"#;

const COUNTY_TOML: &str = r#"# Sample county for lakeshore (SYNTHETIC)
crs = "EPSG:2261"
border_tolerance_ft = 10.0
"#;

/// The office that sends the sample county's notices, as its letters print it.
pub const COUNTY_OFFICE: &str = r#"
# The office that sends the notices (the Cayuga County Health Department's Environmental Health Division).
[office]
name = "Cayuga County Health Department"
division = "Environmental Health Division"
street = "8 Dill Street"
city_line = "Auburn, NY 13021"
telephone = "(315) 253-1405"
website = "www.cayugacounty.us"
"#;

/// The office that sends the notices of the sample under the Town of Gorham's Chapter 56.
const GORHAM_OFFICE: &str = r#"
# The office that sends the notices: the Town of Gorham's code enforcement office, at the Town Hall (mail goes
# to the Town's post-office box; the Town Hall is at 4736 South Street).
[office]
name = "Town of Gorham"
division = "Code Enforcement"
street = "PO Box 224"
city_line = "Gorham, NY 14461"
telephone = "(585) 526-6317"
hours = "Building and zoning: Monday to Thursday 7 a.m. to 3 p.m., Friday 8 a.m. to 1 p.m."
title = "Code Enforcement Officer"
"#;

/// The same layers and records under the Town of Gorham's Chapter 56 (event-driven obligations only).
const GORHAM_TOML: &str = r#"# Sample county under the Town of Gorham's Chapter 56 rules (SYNTHETIC)
crs = "EPSG:2261"
border_tolerance_ft = 10.0
rules = "../rules/gorham-ch56.toml"
"#;

/// Fails on design mistakes a hand check could miss: duplicate ids, a parcel outside its town,
/// a system outside its parcel's rings, towns that do not tile the county.
fn check_design(parcels: &[Parcel]) -> Result<()> {
    let mut ids = parcels.iter().map(Parcel::id).collect::<Result<Vec<_>>>()?;
    ids.sort();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        bail!("duplicate parcel id {}", w[0]);
    }
    let area = |b: &[f64; 4]| (b[2] - b[0]) * (b[3] - b[1]);
    let towns_area: f64 = TOWNS.iter().map(|t| area(&t.bounds)).sum();
    if towns_area != area(&COUNTY) {
        bail!("the towns cover {towns_area} sq ft, the county {}", area(&COUNTY));
    }
    for (i, a) in TOWNS.iter().enumerate() {
        for b in &TOWNS[i + 1..] {
            let overlap = a.bounds[0] < b.bounds[2]
                && b.bounds[0] < a.bounds[2]
                && a.bounds[1] < b.bounds[3]
                && b.bounds[1] < a.bounds[3];
            if overlap {
                bail!("towns {} and {} overlap", a.name, b.name);
            }
        }
    }
    for p in parcels {
        let town = town_named(p.town)?;
        let other = p.also_in.map(town_named).transpose()?;
        let inside = |t: &Town, q: &Pt| {
            q.0 > t.bounds[0] && q.0 < t.bounds[2] && q.1 > t.bounds[1] && q.1 < t.bounds[3]
        };
        let inside_town = |q: &Pt| inside(town, q) || other.is_some_and(|t| inside(t, q));
        let inside_county =
            |q: &Pt| q.0 >= COUNTY[0] && q.0 <= COUNTY[2] && q.1 >= COUNTY[1] && q.1 <= COUNTY[3];
        // Only vertices inside the county must be in the town: one parcel straddles the county
        // line, and the Groton parcel lies wholly outside.
        let stray = p.rings.iter().flat_map(Ring::points).find(|q| inside_county(q) && !inside_town(q));
        if let Some(q) = stray {
            bail!("parcel {} has vertex {q:?} outside the Town of {}", p.key, town.name);
        }
        let points = p.system.map(|(at, _)| at).into_iter().chain(p.more_systems.iter().map(|s| s.1));
        for (k, at) in points.enumerate() {
            // A system across the road lies on the owner's lot it names, and not on its own.
            let host = match p.system_on.filter(|_| k == 0) {
                Some(key) => match parcels.iter().find(|q| q.key == key && q.town == p.town) {
                    Some(q) if q.owner == p.owner && !inside_rings(p, at) => q,
                    _ => bail!("the system of parcel {} does not lie on its owner's lot {key}", p.key),
                },
                None => p,
            };
            if !inside_rings(host, at) {
                bail!("the system of parcel {} at {at:?} is not inside lot {}", p.key, host.key);
            }
        }
    }
    let mut system_ids: Vec<String> = system_points(parcels).into_iter().map(|s| s.1).collect();
    system_ids.sort();
    if let Some(w) = system_ids.windows(2).find(|w| w[0] == w[1]) {
        bail!("duplicate system id {}", w[0]);
    }
    Ok(())
}

/// Whether `at` lies inside the parcel `p` (in an outer ring, not in a hole).
fn inside_rings(p: &Parcel, at: Pt) -> bool {
    let in_outer = p.rings.iter().any(|r| matches!(r, Ring::Outer(v) if contains(v, at)));
    let in_hole = p.rings.iter().any(|r| matches!(r, Ring::Inner(v) if contains(v, at)));
    in_outer && !in_hole
}

/// Even-odd point in ring.
fn contains(ring: &[Pt], p: Pt) -> bool {
    let mut inside = false;
    for i in 0..ring.len() {
        let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < a.0 + (p.1 - a.1) / (b.1 - a.1) * (b.0 - a.0) {
            inside = !inside;
        }
    }
    inside
}

fn write_parcels(dir: &Path, parcels: &[Parcel], keep: &dyn Fn(&Parcel) -> bool) -> Result<()> {
    // NYS statewide tax-parcel schema; PRIMARY_OWNER and WATER_SUPPLY are cut to the 10
    // characters a dBase field name allows, as ArcGIS does when it exports the schema.
    const FIELDS: &[Field] = &[
        Field::Char("SWIS", 6),
        Field::Char("SBL", 20),
        Field::Char("PRINT_KEY", 25),
        Field::Char("MUNI_NAME", 30),
        Field::Char("PRIMARY_OW", 50),
        Field::Char("MAIL_ADDR", 40),
        Field::Char("MAIL_CITY", 30),
        Field::Char("MAIL_STATE", 2),
        Field::Char("MAIL_ZIP", 10),
        Field::Char("LOC_ST_NBR", 8),
        Field::Char("LOC_STREET", 40),
        Field::Char("PROP_CLASS", 3),
        Field::Char("SEWER_TYPE", 1),
        Field::Char("WATER_SUPP", 1),
    ];
    let records = parcels
        .iter()
        .enumerate()
        .filter(|(_, p)| keep(p))
        .map(|(i, p)| -> Result<_> {
            let town = town_named(p.town)?;
            let (mail_city, mail_state, mail_zip) = p.mail.unwrap_or((town.mail_city, "NY", town.mail_zip));
            let vals = vec![
                s(p.swis_code()?),
                s(&sbl(p.key)?),
                s(p.key),
                s(p.muni_name()),
                s(p.owner),
                Val::S(p.mail_street.map_or_else(|| format!("PO Box {}", 101 + i * 7), str::to_string)),
                s(mail_city),
                s(mail_state),
                s(mail_zip),
                s(p.location.0),
                s(p.location.1),
                s(p.class),
                s(p.sewer),
                s(if p.sewer == "3" { "3" } else { "2" }),
            ];
            Ok((p.rings.clone(), vals))
        })
        .collect::<Result<Vec<_>>>()?;
    write_polygons(
        &ShapefileSpec { dir, stem: "parcels", prj: PRJ_2261, cpg: Some("UTF-8"), fields: FIELDS },
        records,
    )?;
    Ok(())
}

/// The 20-character SBL of a print key `SSS.ss-B-L`: section (3), subsection (3), block (4),
/// lot (4), suffix (6).
fn sbl(print_key: &str) -> Result<String> {
    let parse = |t: &str| t.parse::<u32>().with_context(|| format!("bad print key {print_key:?}"));
    let parts: Vec<&str> = print_key.split('-').collect();
    let [section, block, lot] = parts[..] else { bail!("bad print key {print_key:?}") };
    let (sec, sub) = section.split_once('.').unwrap_or((section, "0"));
    Ok(format!("{:03}{:03}{:04}{:04}{:06}", parse(sec)?, parse(sub)?, parse(block)?, parse(lot)?, 0))
}

fn readme(parcels: &[Parcel]) -> Result<String> {
    let mut out = README_HEAD.replace("{PARCELS}", &parcels.len().to_string());
    let mut sorted: Vec<&Parcel> = parcels.iter().collect();
    sorted.sort_by_cached_key(|p| p.id().unwrap_or_default());
    let systems = system_points(parcels);
    for p in sorted {
        let id = p.id()?;
        let system: Vec<String> = systems
            .iter()
            .filter(|s| std::ptr::eq(s.0, p))
            .enumerate()
            .map(|(k, (_, system_id, (x, y), bottom))| {
                let bottom =
                    bottom.map_or_else(|| "no bottom elevation".to_string(), |b| format!("bottom {b:.1} ft"));
                let on = match p.system_on.filter(|_| k == 0) {
                    Some(key) => format!(" on lot {key}"),
                    None => String::new(),
                };
                format!("{system_id} ({x:.0}, {y:.0}){on}, {bottom}")
            })
            .collect();
        let system = if system.is_empty() { "none".to_string() } else { system.join("; ") };
        let history = if p.history.is_empty() {
            "none".to_string()
        } else {
            let named = |d: &str| {
                crate::records::NAMED
                    .iter()
                    .find(|(i, day, _)| *i == id && *day == d)
                    .map_or(String::new(), |(_, _, s)| format!(" ({s})"))
            };
            p.history.iter().map(|(d, r)| format!("{d} {r}{}", named(d))).collect::<Vec<_>>().join("; ")
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            id, p.town, p.case, p.distance, p.sewer, system, history
        ));
    }
    Ok(out)
}

const README_HEAD: &str = r#"# Sample county (SYNTHETIC)

**Everything in this folder is made up.** The parcels are not real parcels and the owners are not
real people; the lake and bay only resemble Owasco Lake and Little Sodus Bay (straight shores,
rectangular lots), and the SWIS codes and print keys follow the New York formats without being real
codes. The data exists to exercise every rule of the Cayuga County Sanitary Code, Article V, that
the scheduler applies, and every reader and reprojection path.

Generated by `cargo run --example synth_county -- sample data/sample` (deterministic: the same bytes
every run). Do not edit by hand; change `examples/synth_county/parcels*.rs` (and `sample.rs` for the other layers) and regenerate.
The expected schedule for `--as-of 2027-01-15`, worked out by hand from the law and the numbers
below, is `tests/golden/sample/expected.csv`. Every record here is good: the run exits 0 with no problems.
The mistakes real county files hold are in `data/sample-problems/` (same county, plus the bad records).

## Layers

| file | CRS | content |
|---|---|---|
| `parcels.shp` (.shx .dbf .prj .cpg) | EPSG:2261 (ESRI WKT .prj), UTF-8 | {PARCELS} tax parcels, NYS tax-parcel schema: `SWIS`, `SBL`, `PRINT_KEY`, `MUNI_NAME`, `PRIMARY_OW`, `MAIL_ADDR`, `MAIL_CITY`, `MAIL_STATE`, `MAIL_ZIP`, `LOC_ST_NBR`, `LOC_STREET`, `PROP_CLASS`, `SEWER_TYPE`, `WATER_SUPP` (the schema's `PRIMARY_OWNER` and `WATER_SUPPLY`, cut to dBase's 10 characters as ArcGIS exports them). Parcel id = `SWIS-PRINT_KEY`. |
| `shoreline.geojson` | WGS84 | lake polygons, `NAME` = `Owasco Lake`, `Little Sodus Bay` (and `MHW_FT`); the MHW line is the polygon boundary |
| `watershed.shp` (.prj, no .cpg) | WGS84 (`GCS_WGS_1984`) | watersheds, `NAME` = `Owasco Lake Watershed`, `LITTLE SODUS BAY` (matched to the water bodies by name, case aside, and the rule set's suffix "Watershed"), `Skaneateles Lake Watershed` (not a watershed Article V names: noted once in the run's notes); Owasco's runs south of the county line |
| `floodplain.shp` | EPSG:2261 | FEMA NFHL `S_FLD_HAZ_AR`-style: `FLD_ZONE`, `ZONE_SUBTY`, `SFHA_TF`, `STATIC_BFE` (-9999 = none) |
| `towns.geojson` | WGS84 | 15 towns (and the City of Auburn) outside villages, tiling the county but for the Village of Fair Haven, `NAME` (and `SWIS`) |
| `county.geojson` | WGS84 | the county polygon (`NAME` = `Cayuga`) |
| `sewered.geojson` | WGS84 | public sewer districts (Auburn; a lakeside district in Owasco) |
| `systems.geojson` | WGS84 | the register of systems, one point a system: `SYSTEM_ID` (`S-0001` to `S-0020` for the lots' single systems, in the layer's order; `S-0101` to `S-0106` for the register's own lots), `PARCEL_ID` (the lot it serves), `PARCEL_ID_2` (a second lot it serves, else null), `BOTTOM_FT` (null when unknown); lot 150.09-1-3 has two systems, lot 160.12-1-3 its replaced system and its replacement, the system of lot 128.05-1-8 lies on the owner's lot across the road, and S-0106 serves lots 52.00-1-1 and 52.00-1-2 |
| `history.csv` | | inspections: `parcel_id,inspection_date,result,inspector,report_received`, the findings `failure,overflow_points,components_working,tank_adequate,separation_ft,valid_permit,meets_75a` and `installed,system_size`; with the findings `report_accepted,permit_issued,permit_expires,watercourse_ft` (a measured distance), `adequately_functioning` and `illegally_installed`; `system_id` names the system inspected (blank: every system of the lot) |
| `watercourses.geojson` | WGS84 | a brook (line) 60 ft east of lot 129.00-2-1 and a wetland (polygon) 135 ft east of lot 128.05-1-6 |
| `events.csv` | | events: transfers, a refinancing, complaints, a change of use, expansions, a permit application, denials, an appeal, a violation, a deficiency notice, repair orders (one followed by a Board of Health hearing summons), an interim renewal, a breached condition, permits issued, a transfer inspected only after it, deficiency notices with their receipt dates, plans accepted and construction permits before and after expansions, a change of use and new or replaced systems, hearings held, continued and finally adjourned, and the sale of a vacant lot; `system_id` names the system an event concerns (blank: every system of the lot) and `replaces` the system a `system-replaced` retires |
| `pump_outs.csv` | | pump-outs by licensed haulers |
| `samples.csv` | | drainage-pipe fecal-coliform samples (`other_source`: the laboratory's proof that the coliform comes from elsewhere): passing, passing on retests, retest window open, violations (no retest; retests averaging 200; a third retest on day 22; one passing sample on day 25; passing routine samples after it), an exceedance cleared by proof of another source, a pipe on a parcel that does not border the lake |
| `pipes.csv` | | the register of known drainage pipes (`removed`, `treated`: dates): one never sampled, one also sampled, one on a lot that does not border the lake, one whose flow was treated after its violation |
| `county.toml` | | the configuration tying the layers together (Cayuga County Article V rules) |
| `gorham.toml` | | the same layers and records under the Town of Gorham's Chapter 56 rules |
| `dem.tif` | EPSG:2261, US survey ft | a DEM around Owasco Lake and down its inlet (100-ft pixels, Deflate): ground rising 1 ft in 20 from the shoreline polygon, so that its 717.13 ft contour lies 40 ft outside it, and a kettle pond west of the lake below 717.13 ft that is not the lake; the system of lot 191.00-1-6 (no surveyed bottom, in the inlet AE zone) stands on ground at 993.18 ft; Little Sodus Bay is outside it |
| `county-dem.toml` | | `county.toml` with `dem = "dem.tif"`: Owasco Lake's mean-high-water line is the contour (`tests/golden/sample-dem/expected.csv`) |

## Design (EPSG:2261 feet)

- County x 780,000–880,000, y 1,000,000–1,170,000; towns are rectangles tiling it, except that the
  Village of Fair Haven (x 803,000–806,000, y 1,166,500–1,170,000, on the bay's east shore) is cut
  out of the Town of Sterling: the towns layer holds towns outside villages.
- Owasco Lake: west shore x = 834,000 and east shore x = 840,000, straight from y 1,010,000 to
  1,064,000 except a west cove (y 1,012,000–1,018,000, to x 833,000) and an east cove (y
  1,048,000–1,054,000, to x 841,000), no parcel near either; tips at (837,000, 1,006,000) and
  (837,000, 1,068,000). The town line through the lake is x = 837,000 and y = 1,037,000.
- Little Sodus Bay: shores x = 800,000 and x = 803,000, y 1,160,000–1,169,000, south tip
  (801,500, 1,158,500).
- Owasco watershed: west edge x = 826,000 (y 985,000–1,045,000), east edge x = 866,000 but for a
  step west to x = 856,000 between y 1,024,000 and 1,036,000, north edge y = 1,069,000. The
  Skaneateles Lake watershed fills the step (x 856,000–880,000, y 1,024,000–1,036,000). Little
  Sodus watershed around the bay (x 794,000–811,000).
- Flood zones: inlet AE x 836,200–837,800, y 995,000–1,006,300 (no static BFE); shaded X east of
  it; zone A x 842,000–842,600 (no static BFE, about 2,900 ft from the lake: not the lake's own);
  a creek AE in Niles x 850,000–851,000, y 1,020,000–1,026,000, static BFE 745.0 ft (10,000 ft
  from the lake); the lake's own AE on the Owasco shore x 840,000–840,300, y 1,056,000–1,057,500,
  static BFE 718.4 ft; Little Sodus AE x 803,000–804,500, y 1,161,000–1,163,000, static BFE
  250.5 ft.
- Every designed distance to the MHW line is at least 5 ft from the 10 ft and 500 ft thresholds,
  except the 8 ft / 15 ft pair.

## Parcels

Distance = shortest distance from the parcel polygon to the lake polygon's boundary (the MHW
line). Sewer = `SEWER_TYPE` (2 private, 3 public, 4 community private; blank: no code). System = each point in
`systems.geojson`: its `SYSTEM_ID` and point, in feet (and the lot it lies on when not its own). History: an
inspection that names its system says which.

| parcel id | town | case | distance to MHW | sewer | system | history |
|---|---|---|---|---|---|---|
"#;
