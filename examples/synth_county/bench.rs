//! The bench county: N small parcels on a grid around one detailed lake, all in EPSG:2261.
//!
//! The layout scales with N: the grid is square, about sqrt(2.2 N) columns of 100 ft by
//! sqrt(0.55 N) rows of 200 ft, centred on (837,000, 1,037,000). The lake (20,000 vertices) takes
//! about 7% of it; cells whose centre is in the lake hold no parcel. Parcel corners are shared and
//! jittered, so the quadrilaterals tile. The bottom 3% of rows lies outside the county polygon.
//!
//! The parcels are a shapefile by default; [`ParcelsFormat`] writes them as GeoJSON instead, either the same
//! records to the bit or shaped like a web portal's download.

use std::f64::consts::TAU;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use serde_json::{json, Map, Value};

use crate::feet::{closed_ccw, rect, signed_area_2, Pt, Ring, ToWgs84};
use crate::write::{
    s, write_points, write_polygons, write_text, FeatureStream, Field, ShapefileSpec, Val, PRJ_2261,
};

const CELL_W: f64 = 100.0;
const CELL_H: f64 = 200.0;
const CENTER: Pt = (837_000.0, 1_037_000.0);
const LAKE_VERTICES: usize = 20_000;
/// Largest corner jitter, ft.
const JITTER: f64 = 8.0;

/// Municipalities on a 4 x 6 grid, south row first, west to east; (name, SWIS).
const TOWN_GRID: [[(&str, &str); 4]; 6] = [
    [("Ledyard", "053489"), ("Genoa", "053089"), ("Locke", "053689"), ("Summerhill", "055889")],
    [("Mentz", "053889"), ("Venice", "056289"), ("Sempronius", "055089"), ("Springport", "055489")],
    [("Montezuma", "054089"), ("Moravia", "054289"), ("Auburn", "050100"), ("Throop", "056089")],
    [("Aurelius", "052089"), ("Scipio", "054889"), ("Niles", "054489"), ("Sennett", "055289")],
    [("Cato", "052489"), ("Fleming", "052889"), ("Owasco", "054689"), ("Brutus", "052289")],
    [("Sterling", "055689"), ("Victory", "056489"), ("Ira", "053289"), ("Conquest", "052689")],
];

const PARCEL_FIELDS: &[Field] = &[
    Field::Char("SWIS", 6),
    Field::Char("PRINT_KEY", 25),
    Field::Char("MUNI_NAME", 30),
    Field::Char("PRIMARY_OW", 50),
    Field::Char("LOC_ST_NBR", 8),
    Field::Char("LOC_STREET", 40),
    Field::Char("PROP_CLASS", 3),
    Field::Char("SEWER_TYPE", 1),
];

/// The layout of a bench county of `n` parcels.
struct Layout {
    cols: usize,
    rows: usize,
    origin: Pt,
    lake_radii: Pt,
    county: [f64; 4],
    sewered: [f64; 4],
}

impl Layout {
    fn new(n: usize) -> Self {
        let cols = ((2.2 * n as f64).sqrt().ceil() as usize).max(10);
        let width = cols as f64 * CELL_W;
        let origin = (CENTER.0 - width / 2.0, CENTER.1 - width / 2.0);
        let mut this = Self {
            cols,
            rows: 0,
            origin,
            lake_radii: (0.12 * width, 0.2 * width),
            county: [0.0; 4],
            sewered: [0.0; 4],
        };
        let mut count = 0;
        while count < n {
            count += (0..cols).filter(|&i| !this.in_lake(this.cell_center(i, this.rows))).count();
            this.rows += 1;
        }
        let height = this.rows as f64 * CELL_H;
        this.county = [
            origin.0 - 1000.0,
            origin.1 + 0.03 * height,
            origin.0 + width + 1000.0,
            origin.1 + height + 1000.0,
        ];
        let t = this.town_bounds(2, 2); // Auburn
        let (dx, dy) = ((t[2] - t[0]) * 0.2, (t[3] - t[1]) * 0.2);
        this.sewered = [t[0] + dx, t[1] + dy, t[2] - dx, t[3] - dy];
        this
    }

    fn cell_center(&self, i: usize, j: usize) -> Pt {
        (self.origin.0 + (i as f64 + 0.5) * CELL_W, self.origin.1 + (j as f64 + 0.5) * CELL_H)
    }

    /// The lake in polar form around its centre: radius factor at angle `t`.
    fn lake_factor(t: f64) -> f64 {
        1.0 + 0.05 * (5.0 * t).sin()
            + 0.025 * (17.0 * t + 1.0).sin()
            + 0.01 * (61.0 * t + 2.0).sin()
            + 0.004 * (233.0 * t).sin()
    }

    fn in_lake(&self, p: Pt) -> bool {
        let (u, v) = ((p.0 - CENTER.0) / self.lake_radii.0, (p.1 - CENTER.1) / self.lake_radii.1);
        u.hypot(v) < Self::lake_factor(v.atan2(u))
    }

    /// The ground of the bench DEM: rising 1 ft in 20 away from the lake, so that the 717.13 ft contour runs
    /// [`crate::dem::OFFSET_FT`] outside the shoreline layer's polygon (measured along the ellipse's radius
    /// scaled to its mean radius).
    fn ground(&self, p: Pt) -> f64 {
        let (u, v) = ((p.0 - CENTER.0) / self.lake_radii.0, (p.1 - CENTER.1) / self.lake_radii.1);
        let mean_radius = (self.lake_radii.0 * self.lake_radii.1).sqrt();
        let outside_ft = (u.hypot(v) / Self::lake_factor(v.atan2(u)) - 1.0) * mean_radius;
        717.13 + 0.05 * (outside_ft - crate::dem::OFFSET_FT)
    }

    fn lake(&self) -> Vec<Pt> {
        (0..LAKE_VERTICES)
            .map(|k| {
                let t = TAU * k as f64 / LAKE_VERTICES as f64;
                let m = Self::lake_factor(t);
                (CENTER.0 + self.lake_radii.0 * m * t.cos(), CENTER.1 + self.lake_radii.1 * m * t.sin())
            })
            .collect()
    }

    /// A point at angle `t` and radius factor `f` of the lake's ellipse (no wiggle).
    fn polar(&self, t: f64, f: f64) -> Pt {
        (CENTER.0 + f * self.lake_radii.0 * t.cos(), CENTER.1 + f * self.lake_radii.1 * t.sin())
    }

    fn watershed(&self) -> Vec<Pt> {
        (0..720)
            .map(|k| {
                let t = TAU * k as f64 / 720.0;
                self.polar(t, 2.2 * (1.0 + 0.08 * (3.0 * t + 0.5).sin()))
            })
            .collect()
    }

    fn town_bounds(&self, col: usize, row: usize) -> [f64; 4] {
        let c = self.county;
        let (w, h) = ((c[2] - c[0]) / 4.0, (c[3] - c[1]) / 6.0);
        let x0 = c[0] + col as f64 * w;
        let y0 = c[1] + row as f64 * h;
        // The last column and row end exactly on the county edge.
        let x1 = if col == 3 { c[2] } else { x0 + w };
        let y1 = if row == 5 { c[3] } else { y0 + h };
        [x0, y0, x1, y1]
    }

    /// The town cell of a point (clamped, so points outside the county get the nearest town).
    fn town_of(&self, p: Pt) -> (&'static str, &'static str) {
        let c = self.county;
        let col = (((p.0 - c[0]) / (c[2] - c[0]) * 4.0).floor().max(0.0) as usize).min(3);
        let row = (((p.1 - c[1]) / (c[3] - c[1]) * 6.0).floor().max(0.0) as usize).min(5);
        TOWN_GRID[row][col]
    }

    /// Jittered grid corner, shared by the four cells around it.
    fn corner(&self, i: usize, j: usize) -> Pt {
        let h = splitmix64(((i as u64) << 32) ^ j as u64);
        let jx = ((h & 0xffff) as f64 / 65535.0 * 2.0 - 1.0) * JITTER;
        let jy = (((h >> 16) & 0xffff) as f64 / 65535.0 * 2.0 - 1.0) * JITTER;
        (self.origin.0 + i as f64 * CELL_W + jx, self.origin.1 + j as f64 * CELL_H + jy)
    }

    /// Floodplain corridors: eight radial AE strips from the lake to the watershed edge, each with
    /// a shaded-X strip beside it; one strip has a static BFE.
    fn flood_zones(&self) -> Vec<(Vec<Pt>, &'static str, &'static str, f64)> {
        let mut zones = Vec::new();
        for k in 0..8 {
            let t = TAU * (k as f64 + 0.15) / 8.0;
            let (a, b) = (self.polar(t, 0.95), self.polar(t, 2.3));
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            let n = (-(b.1 - a.1) / len, (b.0 - a.0) / len);
            let strip = |off0: f64, off1: f64| {
                let at = |p: Pt, o: f64| (p.0 + n.0 * o, p.1 + n.1 * o);
                vec![at(a, off0), at(b, off0), at(b, off1), at(a, off1)]
            };
            let bfe = if k == 2 { 716.4 } else { -9999.0 };
            zones.push((strip(-300.0, 300.0), "AE", "T", bfe));
            zones.push((strip(300.0, 900.0), "X", "F", -9999.0));
        }
        zones
    }
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Streams the parcel records and collects the systems and history that go with them.
struct Parcels<'a> {
    layout: &'a Layout,
    n: usize,
    made: usize,
    next_cell: (usize, usize),
    rng: ChaCha8Rng,
    systems: Vec<(Pt, Vec<Val>)>,
    history: String,
    /// Every parcel a bow-tie.
    bad: bool,
    /// Systems in a thousand put on the lot across the road.
    across: u32,
    /// For each column, the owner of the lot across the road from the last parcel made in it, when that
    /// parcel's system was put there: (row of that lot, owner).
    across_owner: Vec<Option<(usize, String)>>,
}

impl Parcels<'_> {
    /// Whether the system of the parcel in cell `(i, j)` goes on the lot across the road, `(i, j + 1)`: drawn
    /// from the cell alone (not the attribute generator, whose draws stay those of a county without), and
    /// only where that lot is a parcel below the last row, which may be cut short.
    fn across_the_road(&self, i: usize, j: usize) -> bool {
        let l = self.layout;
        let drawn = splitmix64(splitmix64(((i as u64) << 32) ^ j as u64) ^ 0xAC05) % 1000;
        drawn < u64::from(self.across) && j + 2 < l.rows && !l.in_lake(l.cell_center(i, j + 1))
    }
}

impl Iterator for Parcels<'_> {
    type Item = (Vec<Ring>, Vec<Val>);

    fn next(&mut self) -> Option<Self::Item> {
        let l = self.layout;
        while self.made < self.n {
            let (i, j) = self.next_cell;
            self.next_cell = if i + 1 == l.cols { (0, j + 1) } else { (i + 1, j) };
            let center = l.cell_center(i, j);
            if l.in_lake(center) {
                continue;
            }
            self.made += 1;
            let (town, swis) = l.town_of(center);
            let key = format!("{}.{:02}-{}-{}", 1 + j / 100, j % 100, 1 + i / 100, 1 + i % 100);
            let id = format!("{swis}-{key}");
            let s_ = l.sewered;
            let sewered = center.0 > s_[0] && center.0 < s_[2] && center.1 > s_[1] && center.1 < s_[3];
            let sewer = if sewered || self.rng.random_bool(0.02) { "3" } else { "2" };
            let owner = match self.across_owner[i].take() {
                Some((row, owner)) if row == j => owner,
                _ => format!("BENCH OWNER {:07}", self.made),
            };
            if self.rng.random_bool(0.35) {
                let mut p = (
                    center.0 + self.rng.random_range(-30.0..30.0),
                    center.1 + self.rng.random_range(-60.0..60.0),
                );
                if self.across_the_road(i, j) {
                    p.1 += CELL_H;
                    self.across_owner[i] = Some((j + 1, owner.clone()));
                }
                let bottom = (self.rng.random_range(7000.0..7400.0_f64)).round() / 10.0;
                self.systems.push((p, vec![s(&id), Val::Num(Some(bottom))]));
            }
            if self.rng.random_bool(0.75) {
                for _ in 0..self.rng.random_range(1..=3) {
                    let day =
                        self.rng.random_range(days_from_civil(2005, 1, 1)..=days_from_civil(2026, 12, 31));
                    let (y, m, d) = civil_from_days(day);
                    let result = if self.rng.random_bool(0.9) { "pass" } else { "fail" };
                    let _ = writeln!(self.history, "{id},{y:04}-{m:02}-{d:02},{result}");
                }
            }
            let ring = match self.bad {
                // The last two corners swapped: the ring's diagonals cross at the cell's centre.
                true => vec![l.corner(i, j), l.corner(i + 1, j), l.corner(i, j + 1), l.corner(i + 1, j + 1)],
                false => vec![l.corner(i, j), l.corner(i + 1, j), l.corner(i + 1, j + 1), l.corner(i, j + 1)],
            };
            let vals = vec![
                s(swis),
                s(&key),
                s(town),
                Val::S(owner),
                Val::S(format!("{}", 10 + 2 * i)),
                Val::S(format!("Grid Row {} Rd", j + 1)),
                s("210"),
                s(sewer),
            ];
            return Some((vec![Ring::Outer(ring)], vals));
        }
        None
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// How the bench writes its parcels layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ParcelsFormat {
    /// `parcels.shp` with its `.shx`, `.dbf`, `.prj` and `.cpg`.
    Shp,
    /// `parcels.geojson` holding the shapefile's records to the bit: EPSG:2261 named by a `crs` member, one
    /// feature per line, the same eight text properties, each ring closed and clockwise as the shapefile
    /// writer stores it. A county read from it schedules exactly as one read from the shapefile.
    Geojson,
    /// `parcels.geojson` shaped like a web portal's download: RFC 7946 WGS 84 (with the CRS84 `crs` member
    /// ArcGIS writes), pretty-printed, a `bbox` before `features`, properties that are text, integers,
    /// decimals and nulls, every fifth parcel a `MultiPolygon`, and coordinates with all the digits the
    /// projection gives (about 15 decimals) or, every other parcel, rounded to 6 decimals.
    GeojsonPortal,
}

/// Writes the parcels as GeoJSON in `format` and returns how many were written.
fn write_parcels_geojson(
    path: &Path,
    format: ParcelsFormat,
    layout: &Layout,
    parcels: impl Iterator<Item = (Vec<Ring>, Vec<Val>)>,
) -> Result<usize> {
    let portal = format == ParcelsFormat::GeojsonPortal;
    let mut members = vec![("name", json!("parcels"))];
    let to_wgs = if portal {
        let wgs = ToWgs84::new()?;
        let (w, s_) = wgs.lonlat(layout.origin)?;
        let far =
            (layout.origin.0 + layout.cols as f64 * CELL_W, layout.origin.1 + layout.rows as f64 * CELL_H);
        let (e, n) = wgs.lonlat(far)?;
        members
            .push(("crs", json!({"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}})));
        members.push(("bbox", json!([w, s_, e, n])));
        Some(wgs)
    } else {
        members.push(("crs", json!({"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2261"}})));
        None
    };
    let mut out = FeatureStream::create(path, &members, portal)?;
    for (k, (rings, vals)) in parcels.enumerate() {
        let mut properties = Map::new();
        if portal {
            properties.insert("OBJECTID".into(), json!(k + 1));
        }
        for (field, val) in PARCEL_FIELDS.iter().zip(&vals) {
            let (Field::Char(name, _) | Field::Num(name, ..)) = *field;
            let value = match val {
                Val::S(text) => json!(text),
                Val::Num(x) => json!(x),
            };
            properties.insert(name.into(), value);
        }
        let ring = rings[0].points();
        let geometry = match &to_wgs {
            None => {
                // As the shapefile writer stores it: closed first, then turned clockwise.
                let mut closed = ring.to_vec();
                closed.push(ring[0]);
                if signed_area_2(&closed) > 0.0 {
                    closed.reverse();
                }
                json!({"type": "Polygon", "coordinates": [positions(&closed, Ok)?]})
            }
            Some(wgs) => {
                let area_ft2 = signed_area_2(&closed_ccw(ring)).abs() / 2.0;
                properties.insert("ACRES".into(), json!((area_ft2 / 43_560.0 * 1e4).round() / 1e4));
                properties.insert(
                    "LAND_AV".into(),
                    if k % 7 == 3 { Value::Null } else { json!(9_000 + 37 * (k % 500)) },
                );
                properties
                    .insert("DEED_DATE".into(), if k % 3 == 0 { Value::Null } else { json!("2019-06-14") });
                properties.insert("NOTES".into(), Value::Null);
                let digits = |d: f64| if k % 2 == 0 { d } else { (d * 1e6).round() / 1e6 };
                let polygon = [positions(&closed_ccw(ring), |p| {
                    let (lon, lat) = wgs.lonlat_unrounded(p)?;
                    Ok((digits(lon), digits(lat)))
                })?];
                if k % 5 == 4 {
                    json!({"type": "MultiPolygon", "coordinates": [polygon]})
                } else {
                    json!({"type": "Polygon", "coordinates": polygon})
                }
            }
        };
        out.push(&json!({"type": "Feature", "properties": properties, "geometry": geometry}))?;
    }
    out.finish()
}

/// The positions of a ring as JSON, each point converted by `convert`.
fn positions(ring: &[Pt], convert: impl Fn(Pt) -> Result<Pt>) -> Result<Value> {
    ring.iter().map(|&p| convert(p).map(|(x, y)| json!([x, y]))).collect::<Result<Vec<_>>>().map(Value::Array)
}

/// Writes the bench county of `n` parcels into `dir`, the parcels in `format`; with `dem`, also a DEM of `dem`
/// × `dem` pixels over the county and `county-dem.toml` reading it; every parcel a bow-tie when `bad`, and
/// `across` systems in a thousand on the lot across the road.
pub fn write_bench(
    n: usize,
    dir: &Path,
    seed: u64,
    format: ParcelsFormat,
    dem: Option<u32>,
    bad: bool,
    across: u32,
) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let layout = Layout::new(n);
    let spec = |stem, fields| ShapefileSpec { dir, stem, prj: PRJ_2261, cpg: Some("UTF-8"), fields };
    let name = [Field::Char("NAME", 40)];

    write_polygons(&spec("shoreline", &name), [(vec![Ring::Outer(layout.lake())], vec![s("Owasco Lake")])])?;
    write_polygons(
        &spec("watershed", &name),
        [(vec![Ring::Outer(layout.watershed())], vec![s("Owasco Lake")])],
    )?;
    write_polygons(
        &spec(
            "floodplain",
            &[
                Field::Char("FLD_ZONE", 17),
                Field::Char("ZONE_SUBTY", 76),
                Field::Char("SFHA_TF", 1),
                Field::Num("STATIC_BFE", 12, 2),
            ],
        ),
        layout.flood_zones().into_iter().map(|(ring, zone, sfha, bfe)| {
            (vec![Ring::Outer(ring)], vec![s(zone), s(""), s(sfha), Val::Num(Some(bfe))])
        }),
    )?;
    let towns = (0..6).flat_map(|row| (0..4).map(move |col| (col, row))).map(|(col, row)| {
        let b = layout.town_bounds(col, row);
        (vec![Ring::Outer(rect(b[0], b[1], b[2], b[3]))], vec![s(TOWN_GRID[row][col].0)])
    });
    write_polygons(&spec("towns", &name), towns)?;
    let c = layout.county;
    write_polygons(
        &spec("county", &name),
        [(vec![Ring::Outer(rect(c[0], c[1], c[2], c[3]))], vec![s("Cayuga")])],
    )?;
    let w = layout.sewered;
    write_polygons(
        &spec("sewered", &name),
        [(vec![Ring::Outer(rect(w[0], w[1], w[2], w[3]))], vec![s("Auburn City Sewer")])],
    )?;

    let mut parcels = Parcels {
        layout: &layout,
        n,
        made: 0,
        next_cell: (0, 0),
        rng: ChaCha8Rng::seed_from_u64(seed),
        systems: Vec::new(),
        history: String::from("parcel_id,inspection_date,result\n"),
        bad,
        across,
        across_owner: vec![None; layout.cols],
    };
    let written = match format {
        ParcelsFormat::Shp => write_polygons(&spec("parcels", PARCEL_FIELDS), &mut parcels)?,
        _ => write_parcels_geojson(&dir.join("parcels.geojson"), format, &layout, &mut parcels)?,
    };
    let systems = std::mem::take(&mut parcels.systems);
    let system_count = systems.len();
    write_points(&spec("systems", &[Field::Char("PARCEL_ID", 40), Field::Num("BOTTOM_FT", 8, 1)]), systems)?;
    write_text(&dir.join("history.csv"), &parcels.history)?;
    let parcels_file = if format == ParcelsFormat::Shp { "parcels.shp" } else { "parcels.geojson" };
    let county_toml = BENCH_TOML.replace("parcels.shp", parcels_file);
    write_text(&dir.join("county.toml"), &format!("{county_toml}{}", crate::sample::COUNTY_OFFICE))?;
    if let Some(pixels) = dem {
        let bounds = [c[0], layout.origin.1, c[2], c[3]];
        crate::dem::write_bench_dem(dir, pixels, bounds, |p| layout.ground(p), &county_toml)?;
    }
    println!(
        "wrote a bench county of {written} parcels ({} x {} grid, {system_count} systems) to {}",
        layout.cols,
        layout.rows,
        dir.display()
    );
    Ok(())
}

const BENCH_TOML: &str = r#"# Bench county for lakeshore (SYNTHETIC, generated by examples/synth_county.rs)
crs = "EPSG:2261"
border_tolerance_ft = 10.0
[layers]
parcels = "parcels.shp"
shoreline = "shoreline.shp"
watershed = "watershed.shp"
floodplain = "floodplain.shp"
towns = "towns.shp"
systems = "systems.shp"
sewered = "sewered.shp"
county = "county.shp"
history = "history.csv"
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2027, 11, 1)), (2027, 11, 1));
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
    }
}
