//! Writers for the generated layers: shapefiles (with .prj and .cpg), GeoJSON (whole, or streamed feature by
//! feature for the bench) and text files.
//!
//! Output is byte-for-byte deterministic: the one non-deterministic byte run in a shapefile, the
//! dBase "last update" date that the `dbase` crate stamps with today's date, is overwritten with a
//! fixed date after writing.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::ser::PrettyFormatter;
use serde_json::{json, Map, Value};
use shapefile::dbase::{self, FieldName, FieldWriter, TableWriterBuilder, WritableRecord};
use shapefile::{Point, Polygon, PolygonRing, ShapeWriter};

use crate::feet::{closed_ccw, Pt, Ring, ToWgs84};

/// ESRI WKT of EPSG:2261, as ArcGIS writes it in a .prj.
pub const PRJ_2261: &str = "PROJCS[\"NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet\",\
GEOGCS[\"GCS_North_American_1983\",DATUM[\"D_North_American_1983\",\
SPHEROID[\"GRS_1980\",6378137.0,298.257222101]],PRIMEM[\"Greenwich\",0.0],\
UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],\
PARAMETER[\"False_Easting\",820208.3333333333],PARAMETER[\"False_Northing\",0.0],\
PARAMETER[\"Central_Meridian\",-76.58333333333333],PARAMETER[\"Scale_Factor\",0.9999375],\
PARAMETER[\"Latitude_Of_Origin\",40.0],UNIT[\"Foot_US\",0.3048006096012192]]";

/// ESRI WKT of WGS84 longitude/latitude.
pub const PRJ_WGS84: &str = "GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",\
SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],\
UNIT[\"Degree\",0.0174532925199433]]";

/// dBase header date written into every .dbf (year - 1900, month, day): 2025-01-01.
const DBF_DATE: [u8; 3] = [125, 1, 1];

/// A dBase column.
#[derive(Clone, Copy)]
pub enum Field {
    /// Text of at most this many bytes.
    Char(&'static str, u8),
    /// Number written with this width and decimals.
    Num(&'static str, u8, u8),
}

/// A dBase value; `Num(None)` is a null number.
#[derive(Clone, Debug)]
pub enum Val {
    S(String),
    Num(Option<f64>),
}

/// Shorthand for a text value.
pub fn s(text: &str) -> Val {
    Val::S(text.to_string())
}

struct Row<'a>(&'a [Val]);

impl WritableRecord for Row<'_> {
    fn write_using<W: Write>(&self, w: &mut FieldWriter<'_, W>) -> Result<(), dbase::FieldError> {
        for v in self.0 {
            match v {
                Val::S(text) => w.write_next_field_value(&text.as_str())?,
                Val::Num(x) => w.write_next_field_value(x)?,
            }
        }
        Ok(())
    }
}

/// Where a shapefile goes and what travels with it.
pub struct ShapefileSpec<'a> {
    pub dir: &'a Path,
    /// File name without extension.
    pub stem: &'a str,
    /// Content of the .prj.
    pub prj: &'a str,
    /// Content of the .cpg, if one is written.
    pub cpg: Option<&'a str>,
    pub fields: &'a [Field],
}

/// Writes a polygon shapefile. Each record's rings are written in the given order (the writer
/// only closes them and orients outers clockwise, holes counter-clockwise).
pub fn write_polygons<I>(spec: &ShapefileSpec, records: I) -> Result<usize>
where
    I: IntoIterator<Item = (Vec<Ring>, Vec<Val>)>,
{
    write_shapes(spec, records.into_iter().map(|(rings, vals)| (polygon(&rings), vals)))
}

/// Writes a point shapefile.
pub fn write_points<I>(spec: &ShapefileSpec, records: I) -> Result<usize>
where
    I: IntoIterator<Item = (Pt, Vec<Val>)>,
{
    write_shapes(spec, records.into_iter().map(|(p, vals)| (Point::new(p.0, p.1), vals)))
}

fn polygon(rings: &[Ring]) -> Polygon {
    let to_points = |pts: &[Pt]| pts.iter().map(|p| Point::new(p.0, p.1)).collect::<Vec<_>>();
    Polygon::with_rings(
        rings
            .iter()
            .map(|r| match r {
                Ring::Outer(p) => PolygonRing::Outer(to_points(p)),
                Ring::Inner(p) => PolygonRing::Inner(to_points(p)),
            })
            .collect(),
    )
}

fn write_shapes<S, I>(spec: &ShapefileSpec, records: I) -> Result<usize>
where
    S: shapefile::record::EsriShape,
    I: IntoIterator<Item = (S, Vec<Val>)>,
{
    let path = |ext: &str| spec.dir.join(format!("{}.{ext}", spec.stem));
    let create = |ext: &str| -> Result<BufWriter<File>> {
        let p = path(ext);
        Ok(BufWriter::new(File::create(&p).with_context(|| format!("create {}", p.display()))?))
    };
    let (mut shp, mut shx, mut dbf) = (create("shp")?, create("shx")?, create("dbf")?);
    let mut table = TableWriterBuilder::new();
    for f in spec.fields {
        table = match *f {
            Field::Char(name, len) => table.add_character_field(field_name(name)?, len),
            Field::Num(name, len, dec) => table.add_numeric_field(field_name(name)?, len, dec),
        };
    }
    let mut count = 0;
    {
        let mut writer = shapefile::Writer::new(
            ShapeWriter::with_shx(&mut shp, &mut shx),
            table.build_with_dest(&mut dbf),
        );
        for (shape, vals) in records {
            writer
                .write_shape_and_record(&shape, &Row(&vals))
                .with_context(|| format!("write record {count} of {}", path("shp").display()))?;
            count += 1;
        }
        // Dropping the writer finalizes the headers of all three files.
    }
    for (mut w, ext) in [(shp, "shp"), (shx, "shx"), (dbf, "dbf")] {
        w.flush().with_context(|| format!("write {}", path(ext).display()))?;
    }
    let dbf_path = path("dbf");
    let mut dbf = OpenOptions::new().write(true).open(&dbf_path)?;
    dbf.seek(SeekFrom::Start(1))?;
    dbf.write_all(&DBF_DATE).with_context(|| format!("stamp the date of {}", dbf_path.display()))?;
    write_text(&path("prj"), spec.prj)?;
    if let Some(cpg) = spec.cpg {
        write_text(&path("cpg"), cpg)?;
    }
    Ok(count)
}

fn field_name(name: &str) -> Result<FieldName> {
    FieldName::try_from(name).map_err(|e| anyhow::anyhow!("bad dBase field name {name:?}: {e:?}"))
}

/// Writes a text file.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).with_context(|| format!("write {}", path.display()))
}

/// A GeoJSON feature (WGS84) whose geometry is one polygon with the given exterior ring (feet).
pub fn polygon_feature(to_wgs: &ToWgs84, ring: &[Pt], properties: Value) -> Result<Value> {
    let coords = closed_ccw(ring)
        .into_iter()
        .map(|p| to_wgs.lonlat(p).map(|(lon, lat)| json!([lon, lat])))
        .collect::<Result<Vec<_>>>()?;
    Ok(feature(json!({"type": "Polygon", "coordinates": [coords]}), properties))
}

/// A GeoJSON line feature (WGS84) through points given in feet.
pub fn line_feature(to_wgs: &ToWgs84, points: &[Pt], properties: Value) -> Result<Value> {
    let coords = points
        .iter()
        .map(|p| to_wgs.lonlat(*p).map(|(lon, lat)| json!([lon, lat])))
        .collect::<Result<Vec<_>>>()?;
    Ok(feature(json!({"type": "LineString", "coordinates": coords}), properties))
}

/// A GeoJSON point feature (WGS84) at a point given in feet.
pub fn point_feature(to_wgs: &ToWgs84, p: Pt, properties: Value) -> Result<Value> {
    let (lon, lat) = to_wgs.lonlat(p)?;
    Ok(feature(json!({"type": "Point", "coordinates": [lon, lat]}), properties))
}

fn feature(geometry: Value, properties: Value) -> Value {
    let mut f = Map::new();
    f.insert("type".into(), json!("Feature"));
    f.insert("properties".into(), properties);
    f.insert("geometry".into(), geometry);
    Value::Object(f)
}

/// Writes a FeatureCollection, one feature per line so that diffs stay readable.
pub fn write_geojson(path: &Path, name: &str, features: &[Value]) -> Result<()> {
    let mut out = format!("{{\"type\":\"FeatureCollection\",\"name\":{},\"features\":[\n", json!(name));
    for (i, f) in features.iter().enumerate() {
        out.push_str(&serde_json::to_string(f)?);
        out.push_str(if i + 1 < features.len() { ",\n" } else { "\n" });
    }
    out.push_str("]}\n");
    write_text(path, &out)
}

/// A FeatureCollection written feature by feature, so that a million features never sit in memory at once.
pub struct FeatureStream {
    out: BufWriter<File>,
    path: PathBuf,
    /// Pretty-printed (two-space indent, as many portals serve) rather than one feature per line.
    pretty: bool,
    count: usize,
}

impl FeatureStream {
    /// Starts the collection at `path` with the top-level `members` that precede `features`, in order.
    pub fn create(path: &Path, members: &[(&str, Value)], pretty: bool) -> Result<Self> {
        let file = File::create(path).with_context(|| format!("create {}", path.display()))?;
        let mut this = FeatureStream {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.into(),
            pretty,
            count: 0,
        };
        let mut head = String::from("{");
        for (key, value) in std::iter::once(&("type", json!("FeatureCollection"))).chain(members) {
            let value = if pretty { pretty_json(value, "  ")? } else { serde_json::to_string(value)? };
            let gap = if pretty { "\n  " } else { "" };
            let colon = if pretty { ": " } else { ":" };
            head.push_str(&format!("{gap}{}{colon}{value},", json!(key)));
        }
        head.push_str(if pretty { "\n  \"features\": [" } else { "\"features\":[" });
        this.out.write_all(head.as_bytes()).with_context(|| format!("write {}", path.display()))?;
        Ok(this)
    }

    /// Appends one feature.
    pub fn push(&mut self, feature: &Value) -> Result<()> {
        let sep = if self.count == 0 { "" } else { "," };
        let text = if self.pretty {
            format!("{sep}\n    {}", pretty_json(feature, "    ")?)
        } else {
            format!("{sep}\n{}", serde_json::to_string(feature)?)
        };
        self.count += 1;
        self.out.write_all(text.as_bytes()).with_context(|| format!("write {}", self.path.display()))
    }

    /// Closes the collection and returns the number of features written.
    pub fn finish(mut self) -> Result<usize> {
        let tail = if self.pretty { "\n  ]\n}\n" } else { "\n]}\n" };
        self.out
            .write_all(tail.as_bytes())
            .and_then(|()| self.out.flush())
            .with_context(|| format!("write {}", self.path.display()))?;
        Ok(self.count)
    }
}

/// `value` pretty-printed with a two-space indent, every line after the first starting with `margin`.
fn pretty_json(value: &Value, margin: &str) -> Result<String> {
    let mut bytes = Vec::new();
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut bytes,
        PrettyFormatter::with_indent(b"  "),
    ))?;
    Ok(String::from_utf8(bytes)?.replace('\n', &format!("\n{margin}")))
}
