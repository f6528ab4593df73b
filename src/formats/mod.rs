//! Readers: the only code that reads layers from the filesystem.
//!
//! [`read_layer`] turns a file into a [`Layer`] in the file's own CRS, choosing the format by its content; each
//! format is a `LayerReader`, which names a layer's fields, reads it whole and opens it in blocks
//! ([`blocks::LayerBlocks`]):
//!
//! - `shapefile`: `.shp` with its `.shx`, `.dbf`, `.prj` and `.cpg` siblings;
//! - `zipped`: a shapefile in a zip (`.zip`, `.shp.zip`; `FILE.zip:LAYER.shp` when it holds several), read
//!   in memory;
//! - `geojson`: an RFC 7946 FeatureCollection (`.geojson`/`.json`), read a block at a time, its features parsed
//!   on every core, and a GeoJSON text sequence (`.geojsonl`, `.geojsons`, newline-delimited or RFC 8142);
//! - `esrijson`: an Esri JSON FeatureSet (`.json`), as an ArcGIS REST query returns it;
//! - `gpkg`: one feature table of a GeoPackage, `FILE.gpkg:LAYER` (or `FILE.gpkg` holding one layer);
//! - `geoparquet`: a GeoParquet file (`.parquet`) with a WKB geometry column, or a native GeoArrow one;
//! - `flatgeobuf`: a FlatGeobuf file (`.fgb`), with or without its spatial index;
//! - `filegdb`: one feature class of an Esri File Geodatabase, `FILE.gdb:NAME` (or `FILE.gdb` holding one).
//!
//! The format is told by the file's first bytes (`sniff`), and by its extension when they show none: a
//! `.json` that is Esri JSON is read as Esri JSON, a `.geojson` of one feature a line as a sequence, and a
//! file that is no layer (an HTML page, KML, a PDF) says what it looks like.
//!
//! All follow the same rules, kept here: **every record of the file appears in [`Layer::features`], in file
//! order, with its 1-based record number**; a record whose geometry is unusable keeps its attributes, gets
//! `geometry: Err(reason)` and a [`Problem`] saying what to fix (`check_geometry` is the one check all
//! formats share); only the fields named in [`ReadOptions::keep`] are kept.
//!
//! The writing side (the tables out, the output set and its publishing) stands a floor above, in the
//! top-level `write` module; what both sides need, [`wkb`] and the GeoPackage geometry blob ([`gpkg::blob`]),
//! lives here, below it.

mod esrijson;
mod flatgeobuf;
mod geoarrow;
mod geojson;
mod geoparquet;
mod shapefile;
mod sniff;

pub mod blocks;
pub mod csv;
pub mod dem;
pub mod filegdb;
pub mod gpkg;
pub mod sheet;
pub mod wkb;
pub mod zipped;

use std::path::{Path, PathBuf};

use geo::{Geometry, LineString, Polygon};

use crate::crs::layer::{GeometryError, Layer};
use crate::crs::Crs;
use crate::model::error::{Error, Location, Problem, Result};

/// How to read a layer.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The CRS to assume for a shapefile without a `.prj` (otherwise that is an error), or whose `.prj` cannot
    /// be understood. GeoJSON ignores it: a file without a `crs` member is WGS 84 by RFC 7946.
    pub assume_crs: Option<Crs>,
    /// Attribute fields to keep (matched without regard to ASCII case); `None` keeps all. Kept fields stay in
    /// the file's order; naming a field the file does not have is an error.
    pub keep: Option<Vec<String>>,
}

/// The attribute field names of the layer at `path`, without reading its records.
///
/// For a shapefile these are the `.dbf` columns; for GeoJSON, the property names of the first feature; for a
/// GeoPackage or GeoParquet layer, its columns but the geometry (and the GeoPackage primary key); for a File
/// Geodatabase feature class, its fields but the object id, the geometry, binary and raster ones.
pub fn field_names(path: &Path) -> Result<Vec<String>> {
    let (file, member) = split_member(path);
    let reader = reader_for(&file)?;
    require_file(&file)?;
    reader.field_names(&LayerAt { file: &file, member: member.as_deref(), path })
}

/// [`field_names`] from every record: the same for a format that declares its fields once; for GeoJSON, whose
/// features each carry their own properties, the names of every feature, reading the whole file.
pub fn every_field_name(path: &Path) -> Result<Vec<String>> {
    let (file, _) = split_member(path);
    if reader_for(&file)?.extensions().contains(&"geojson") {
        require_file(&file)?;
        return geojson::every_field_name(&file);
    }
    field_names(path)
}

/// What `detect` makes of the field names of the layer at `path` ([`field_names`]); when it fails and
/// [`every_field_name`] finds more names, it is asked again with those, so a field the first features leave
/// out is still found and the message of a field no feature has lists every field of the layer.
pub fn with_field_names<T>(path: &Path, detect: impl Fn(&[String]) -> Result<T>) -> Result<T> {
    let first = field_names(path)?;
    match detect(&first) {
        Ok(found) => Ok(found),
        Err(err) => {
            let every = every_field_name(path)?;
            if every.len() > first.len() {
                detect(&every)
            } else {
                Err(err)
            }
        }
    }
}

/// Reads the layer at `path` (`.shp`, `.zip[:LAYER.shp]`, `.geojson`/`.json`, `.geojsonl`, `.gpkg[:LAYER]`,
/// `.parquet`, `.fgb` or `.gdb[:NAME]`), choosing the format by its content, else by its extension.
///
/// Bad records are kept (with a geometry error where the geometry is unusable) and reported as problems.
pub fn read_layer(path: &Path, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
    let (file, member) = split_member(path);
    let reader = reader_for(&file)?;
    require_file(&file)?;
    reader.read(&LayerAt { file: &file, member: member.as_deref(), path }, options)
}

/// A layer as a path names it: the file, the layer inside it when the file holds several (a GeoPackage's
/// `FILE.gpkg:LAYER`), and the path as given, which problems name.
struct LayerAt<'a> {
    file: &'a Path,
    member: Option<&'a str>,
    path: &'a Path,
}

/// What a layer format does: name a layer's fields, read it whole, and open it to be read in blocks. Each
/// format implements it; [`reader_for`] chooses one from a file's extension.
trait LayerReader: Sync {
    /// The extensions of its files, in lower case (`shp`; `geojson` and `json`).
    fn extensions(&self) -> &'static [&'static str];

    /// The layer's attribute field names, without reading its records.
    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>>;

    /// The layer read whole, in the file's own CRS, with the problems of its records.
    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)>;

    /// The layer opened to be read in blocks of records: read whole here and handed out from memory, unless
    /// the format reads it from the file a block at a time.
    fn open_blocks(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<blocks::LayerBlocks> {
        let (layer, problems) = self.read(layer, options)?;
        Ok(blocks::LayerBlocks::in_memory(layer, problems))
    }
}

/// The reader of each layer format.
const READERS: [&dyn LayerReader; 9] = [
    &shapefile::Shapefile,
    &geojson::GeoJson,
    &gpkg::GeoPackage,
    &geoparquet::GeoParquet,
    &filegdb::FileGdb,
    &zipped::Zipped,
    &esrijson::EsriJson,
    &geojson::GeoJsonSeq,
    &flatgeobuf::FlatGeobuf,
];

/// The reader of the layer format of `file`: the one its first bytes show ([`sniff`]), else the one its
/// extension names; an error saying what the file looks like when its bytes show something that is no layer
/// format, or naming the formats known for another extension.
fn reader_for(file: &Path) -> Result<&'static dyn LayerReader> {
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let by_extension = READERS.into_iter().find(|r| r.extensions().contains(&ext.as_str()));
    match sniff::sniff(file) {
        sniff::Sniffed::Reader(reader) => Ok(reader),
        sniff::Sniffed::Other(what) => Err(Error::format(file, format!("not a layer: it looks like {what}"))),
        sniff::Sniffed::Unknown => by_extension.ok_or_else(|| {
            Error::format(
                file,
                "unsupported layer format: give a shapefile (.shp, or zipped: .zip, FILE.zip:LAYER.shp), a GeoJSON \
                 FeatureCollection (.geojson, .json) or text sequence (.geojsonl, .geojsons), an Esri JSON \
                 FeatureSet (.json), a GeoPackage layer (.gpkg or FILE.gpkg:LAYER), GeoParquet (.parquet), \
                 FlatGeobuf (.fgb) or a File Geodatabase feature class (FILE.gdb or FILE.gdb:NAME)",
            )
        }),
    }
}

/// Extensions of files that hold several layers or sheets, one of which a path may name after a colon.
const CONTAINERS: [&str; 9] = ["gpkg", "xlsx", "xlsm", "xlsb", "xls", "ods", "sqlite", "gdb", "zip"];

/// The file a path names and the layer or sheet after its last colon: `county.gpkg:parcels` is
/// (`county.gpkg`, `parcels`), `log.xlsx:2026` is (`log.xlsx`, `2026`), `county.zip:parcels.shp` is
/// (`county.zip`, `parcels.shp`). A path that names an existing file, or whose part before the colon is not
/// a GeoPackage, zip or workbook, is the file itself.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use lakeshore::formats::split_member;
/// assert_eq!(
///     split_member(Path::new("county/county.gpkg:parcels")),
///     (PathBuf::from("county/county.gpkg"), Some("parcels".to_string()))
/// );
/// assert_eq!(split_member(Path::new("parcels.shp")), (PathBuf::from("parcels.shp"), None));
/// ```
pub fn split_member(path: &Path) -> (PathBuf, Option<String>) {
    let whole = (path.to_path_buf(), None);
    if path.is_file() || filegdb::is_geodatabase(path) {
        return whole;
    }
    let Some((file, member)) = path.to_str().and_then(|s| s.rsplit_once(':')) else { return whole };
    let ext = Path::new(file).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    // A zip's member may lie in a folder of the zip (`county.zip:county/parcels.shp`).
    let folder = member.contains(['/', '\\']) && ext != "zip";
    if member.is_empty() || folder || !CONTAINERS.contains(&ext.as_str()) {
        return whole;
    }
    (PathBuf::from(file), Some(member.to_string()))
}

/// The files the layer at `path` is read from: its file (the container's, for a layer in a GeoPackage or a
/// zip) and, beside a shapefile, its other parts (`.shx`, `.dbf`, `.prj`, `.cpg`).
pub fn layer_files(path: &Path) -> Vec<PathBuf> {
    let (file, _) = split_member(path);
    if !file.extension().is_some_and(|e| e.eq_ignore_ascii_case("shp")) {
        return vec![file];
    }
    shapefile::PARTS.iter().map(|ext| file.with_extension(ext)).collect()
}

/// Whether two layer paths name the same layer: the same file, however each spells it (relative or absolute,
/// through links), and in a GeoPackage the same layer.
///
/// ```
/// use std::path::Path;
/// use lakeshore::formats::same_layer;
/// let here = std::env::current_dir().unwrap();
/// assert!(same_layer(Path::new("Cargo.toml"), &here.join("Cargo.toml")));
/// assert!(!same_layer(Path::new("county.gpkg:towns"), Path::new("county.gpkg:county")));
/// ```
pub fn same_layer(a: &Path, b: &Path) -> bool {
    let source = |path: &Path| {
        let (file, member) = split_member(path);
        (file.canonicalize().unwrap_or(file), member)
    };
    source(a) == source(b)
}

/// A missing layer file (or File Geodatabase folder) is named as such, before any of its siblings are looked
/// for.
pub fn require_file(path: &Path) -> Result<()> {
    if path.is_file() || filegdb::is_geodatabase(path) {
        return Ok(());
    }
    let what = if path.exists() { "is not a file" } else { "not found" };
    Err(Error::format(
        path,
        format!("{what}; check the path given on the command line or in the config file's [layers] section"),
    ))
}

/// Which of a file's fields to keep: indices into `found`, in file order.
///
/// `keep` names are matched without regard to ASCII case; a name matching no field is an error that lists the
/// fields found, and so is one matching two (a table may hold two columns of one name): which holds the
/// values the run needs cannot be told.
fn select_fields(path: &Path, found: &[String], keep: Option<&[String]>) -> Result<Vec<usize>> {
    let Some(keep) = keep else {
        return Ok((0..found.len()).collect());
    };
    let missing: Vec<&str> = keep
        .iter()
        .filter(|k| !found.iter().any(|f| f.eq_ignore_ascii_case(k)))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(Error::format(path, missing_fields_message(&missing, found)));
    }
    for k in keep {
        let mut matching = (0..found.len()).filter(|&i| found[i].eq_ignore_ascii_case(k));
        if let (Some(first), Some(second)) = (matching.next(), matching.next()) {
            return Err(Error::format(
                path,
                format!(
                    "fields {} and {} are both named '{}' (or differ only in case), and the run reads {k} from \
                     one of them: rename or remove the other in the GIS, so that the layer says which holds it",
                    first + 1,
                    second + 1,
                    found[first]
                ),
            ));
        }
    }
    Ok((0..found.len()).filter(|&i| keep.iter().any(|k| k.eq_ignore_ascii_case(&found[i]))).collect())
}

/// Says which kept fields are missing and which exist.
fn missing_fields_message(missing: &[&str], found: &[String]) -> String {
    format!(
        "no field named {} (fields found: {}): correct the field names the configuration or rule set asks for",
        missing.join(", "),
        if found.is_empty() { "none".to_string() } else { found.join(", ") }
    )
}

/// Why a geometry is unusable, and what to do about it.
#[derive(Debug, Clone, PartialEq)]
struct Unusable {
    /// What is wrong; becomes the feature's geometry error.
    reason: GeometryError,
    /// What to do; the problem's message adds it to the reason.
    fix: &'static str,
}

impl Unusable {
    fn new(reason: GeometryError, fix: &'static str) -> Self {
        Unusable { reason, fix }
    }

    /// The problem this makes for `record` (1-based) of the file at `path`.
    fn problem(&self, path: &Path, record: usize) -> Problem {
        self.problem_at(path, Location::Record(record))
    }

    /// The problem this makes at `location` of the file at `path`.
    fn problem_at(&self, path: &Path, location: Location) -> Problem {
        Problem::new(path, location, format!("{}: {}", self.reason, self.fix))
    }
}

const FIX_EMPTY: &str = "draw the feature's shape or delete the record";
const FIX_NON_FINITE: &str = "repair or redraw the geometry (it has NaN or infinite coordinates)";
const FIX_RING: &str = "redraw the polygon or remove its degenerate ring";
const FIX_LINE: &str = "redraw the line or delete the record";

/// Checks a geometry every reader produces: not empty, finite coordinates, polygon rings of at least 4 points
/// (closed), lines of at least 2.
fn check_geometry(geometry: &Geometry<f64>) -> Result<(), Unusable> {
    let empty = || Unusable::new(GeometryError::Empty, FIX_EMPTY);
    match geometry {
        Geometry::Point(p) => finite(p.x(), p.y()),
        Geometry::Line(l) => finite(l.start.x, l.start.y).and(finite(l.end.x, l.end.y)),
        Geometry::LineString(ls) => check_line(ls),
        Geometry::Polygon(p) => check_polygon(p),
        Geometry::MultiPoint(mp) if mp.0.is_empty() => Err(empty()),
        Geometry::MultiPoint(mp) => mp.0.iter().try_for_each(|p| finite(p.x(), p.y())),
        // Empty parts are dropped by `drop_empty_parts`; a geometry of empty parts alone is empty.
        Geometry::MultiLineString(mls) if mls.0.iter().all(|l| l.0.is_empty()) => Err(empty()),
        Geometry::MultiLineString(mls) => mls.0.iter().filter(|l| !l.0.is_empty()).try_for_each(check_line),
        Geometry::MultiPolygon(mp) if mp.0.iter().all(empty_polygon) => Err(empty()),
        Geometry::MultiPolygon(mp) => mp.0.iter().filter(|p| !empty_polygon(p)).try_for_each(check_polygon),
        Geometry::GeometryCollection(gc) if gc.0.is_empty() => Err(empty()),
        Geometry::GeometryCollection(gc) => gc.0.iter().try_for_each(check_geometry),
        Geometry::Rect(r) => finite(r.min().x, r.min().y).and(finite(r.max().x, r.max().y)),
        Geometry::Triangle(t) => t.to_array().iter().try_for_each(|c| finite(c.x, c.y)),
    }
}

/// Whether a polygon has no points at all.
fn empty_polygon(polygon: &Polygon<f64>) -> bool {
    polygon.exterior().0.is_empty() && polygon.interiors().iter().all(|r| r.0.is_empty())
}

/// Drops the empty parts of a multi-part geometry that [`check_geometry`] passed (a MultiPolygon's polygon
/// without points, a MultiLineString's line without points), as GDAL and shapely read them: the feature
/// keeps its other parts, and the problem returned, for the feature at `location` of `path`, says so.
fn drop_empty_parts(geometry: &mut Geometry<f64>, path: &Path, location: Location) -> Option<Problem> {
    let dropped = match geometry {
        Geometry::MultiPolygon(mp) => {
            let before = mp.0.len();
            mp.0.retain(|p| !empty_polygon(p));
            before - mp.0.len()
        }
        Geometry::MultiLineString(mls) => {
            let before = mls.0.len();
            mls.0.retain(|l| !l.0.is_empty());
            before - mls.0.len()
        }
        _ => 0,
    };
    (dropped > 0).then(|| {
        let parts = if dropped == 1 { "an empty part".to_string() } else { format!("{dropped} empty parts") };
        Problem::new(
            path,
            location,
            format!("{parts} of the multi-part geometry dropped, as GDAL and shapely read it; its other parts are kept"),
        )
    })
}

/// The geometry a reader made of record `record` of the file at `path`, or why it is unusable: checked
/// ([`check_geometry`]) and its empty parts dropped ([`drop_empty_parts`]), each problem found put in
/// `problems`; an unusable one becomes its reason, the feature's geometry error.
fn settle(
    geometry: Result<Geometry<f64>, Unusable>,
    path: &Path,
    record: usize,
    problems: &mut Vec<Problem>,
) -> Result<Geometry<f64>, GeometryError> {
    let geometry = geometry.and_then(|mut g| {
        check_geometry(&g)?;
        problems.extend(drop_empty_parts(&mut g, path, Location::Record(record)));
        Ok(g)
    });
    geometry.map_err(|unusable| {
        problems.push(unusable.problem(path, record));
        unusable.reason
    })
}

fn finite(x: f64, y: f64) -> Result<(), Unusable> {
    if x.is_finite() && y.is_finite() {
        Ok(())
    } else {
        Err(Unusable::new(GeometryError::NonFinite, FIX_NON_FINITE))
    }
}

fn check_line(line: &LineString<f64>) -> Result<(), Unusable> {
    if line.0.is_empty() {
        return Err(Unusable::new(GeometryError::Empty, FIX_EMPTY));
    }
    line.0.iter().try_for_each(|c| finite(c.x, c.y))?;
    if line.0.len() < 2 {
        return Err(Unusable::new(GeometryError::ShortLine, FIX_LINE));
    }
    Ok(())
}

fn check_polygon(polygon: &Polygon<f64>) -> Result<(), Unusable> {
    if polygon.exterior().0.is_empty() {
        return Err(Unusable::new(GeometryError::Empty, FIX_EMPTY));
    }
    std::iter::once(polygon.exterior()).chain(polygon.interiors()).try_for_each(check_ring)
}

fn check_ring(ring: &LineString<f64>) -> Result<(), Unusable> {
    ring.0.iter().try_for_each(|c| finite(c.x, c.y))?;
    if ring.0.len() < 4 {
        return Err(Unusable::new(GeometryError::ShortRing { points: ring.0.len() }, FIX_RING));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::{line_string, point, polygon, MultiPolygon};

    #[test]
    fn format_by_extension() {
        let first = |path: &str| reader_for(Path::new(path)).map(|r| r.extensions()[0]);
        assert_eq!(first("a/parcels.SHP").unwrap(), "shp");
        assert_eq!(first("lakes.geojson").unwrap(), "geojson");
        assert_eq!(first("lakes.json").unwrap(), "geojson");
        assert_eq!(first("county.GPKG").unwrap(), "gpkg");
        assert_eq!(first("county.sqlite").unwrap(), "gpkg");
        assert_eq!(first("county.GDB").unwrap(), "gdb");
        assert_eq!(
            split_member(Path::new("/nonexistent/county.gdb:Parcels")),
            (PathBuf::from("/nonexistent/county.gdb"), Some("Parcels".to_string()))
        );
        assert_eq!(first("parcels.parquet").unwrap(), "parquet");
        assert_eq!(first("parcels.geoparquet").unwrap(), "parquet");
        assert_eq!(first("parcels.shp.zip").unwrap(), "zip");
        assert_eq!(first("parcels.fgb").unwrap(), "fgb");
        assert_eq!(first("towns.geojsonl").unwrap(), "geojsonl");
        assert_eq!(first("towns.geojsons").unwrap(), "geojsonl");
        let err = first("parcels.kml").unwrap_err();
        assert!(matches!(err, Error::Format { .. }));
        assert!(first("no_extension").is_err());
    }

    /// The content decides over the extension: a `.json` that is Esri JSON, a `.geojson` of one feature a
    /// line, a zip named `.dat`; a file that is no layer says what it looks like, whatever its extension.
    #[test]
    fn format_by_content() {
        let dir = std::env::temp_dir().join(format!("lakeshore-content-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            reader_for(&path).map(|r| r.extensions()[0]).map_err(|e| e.to_string())
        };
        let esri = br#"{"geometryType": "esriGeometryPoint", "features": []}"#;
        assert_eq!(first("layer.json", esri), Ok("esrijson"));
        assert_eq!(first("layer.geojson", esri), Ok("esrijson"));
        let lines =
            b"{\"type\": \"Feature\", \"properties\": {}, \"geometry\": null}\n{\"type\": \"Feature\"}\n";
        assert_eq!(first("layer.geojson", lines), Ok("geojsonl"));
        assert_eq!(first("layer.dat", b"PK\x03\x04"), Ok("zip"));
        assert_eq!(first("layer.json", br#"{"type": "FeatureCollection", "features": []}"#), Ok("geojson"));
        let page = first("parcels.shp", b"<html><body>Not found</body></html>").unwrap_err();
        assert!(page.contains("parcels.shp: not a layer: it looks like an HTML page"), "{page}");
        // Unrecognised bytes go to the extension's reader, which says what is wrong with them.
        assert_eq!(first("parcels.shp", b"\x01\x02"), Ok("shp"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn read_layer_rejects_unknown_extension_without_touching_the_file() {
        let err = read_layer(Path::new("/nonexistent/parcels.kml"), &ReadOptions::default()).unwrap_err();
        assert!(err.to_string().contains("unsupported layer format"), "{err}");
    }

    #[test]
    fn select_fields_is_case_insensitive_and_keeps_file_order() {
        let found = vec!["PIN".to_string(), "Owner".to_string(), "ACRES".to_string()];
        let keep = vec!["acres".to_string(), "pin".to_string()];
        assert_eq!(select_fields(Path::new("p.shp"), &found, Some(&keep)).unwrap(), vec![0, 2]);
        assert_eq!(select_fields(Path::new("p.shp"), &found, None).unwrap(), vec![0, 1, 2]);
    }

    #[test]
    fn select_fields_lists_fields_found_when_one_is_missing() {
        let found = vec!["PIN".to_string(), "OWNER".to_string()];
        let keep = vec!["pin".to_string(), "SWIS".to_string()];
        let err = select_fields(Path::new("p.shp"), &found, Some(&keep)).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Format { .. }));
        assert!(text.contains("no field named SWIS"), "{text}");
        assert!(text.contains("fields found: PIN, OWNER"), "{text}");
    }

    #[test]
    fn a_kept_field_of_two_columns_of_one_name_is_refused() {
        // The SBL column renamed in the GIS to the name of the one beside it: the ids could come from either.
        let found = ["SWIS", "PRINT_KEY", "print_key", "OWNER"].map(String::from);
        let keep = ["SWIS", "PRINT_KEY"].map(String::from);
        let text = select_fields(Path::new("p.dbf"), &found, Some(&keep)).unwrap_err().to_string();
        assert!(text.starts_with("p.dbf: fields 2 and 3 are both named 'PRINT_KEY'"), "{text}");
        assert!(text.contains("the run reads PRINT_KEY from one of them"), "{text}");
        // A field of one name twice that the run does not read is no one's concern.
        let keep = ["SWIS", "OWNER"].map(String::from);
        assert_eq!(select_fields(Path::new("p.dbf"), &found, Some(&keep)).unwrap(), vec![0, 3]);
    }

    #[test]
    fn check_geometry_accepts_good_shapes() {
        let square = polygon![(x: 0., y: 0.), (x: 0., y: 1.), (x: 1., y: 1.), (x: 1., y: 0.), (x: 0., y: 0.)];
        assert_eq!(check_geometry(&Geometry::Polygon(square)), Ok(()));
        assert_eq!(check_geometry(&Geometry::Point(point!(x: 1.0, y: 2.0))), Ok(()));
        let line = line_string![(x: 0., y: 0.), (x: 1., y: 1.)];
        assert_eq!(check_geometry(&Geometry::LineString(line)), Ok(()));
    }

    #[test]
    fn check_geometry_rejects_empty_nan_and_short_rings() {
        let empty = check_geometry(&Geometry::MultiPolygon(MultiPolygon::new(vec![]))).unwrap_err();
        assert_eq!(empty.reason, GeometryError::Empty);

        let nan = check_geometry(&Geometry::Point(point!(x: f64::NAN, y: 2.0))).unwrap_err();
        assert_eq!(nan.reason, GeometryError::NonFinite);

        let inf_ring = polygon![(x: 0., y: 0.), (x: 0., y: f64::INFINITY), (x: 1., y: 1.), (x: 0., y: 0.)];
        assert_eq!(
            check_geometry(&Geometry::Polygon(inf_ring)).unwrap_err().reason,
            GeometryError::NonFinite
        );

        // Two distinct points closed to three: not a ring.
        let sliver = polygon![(x: 0., y: 0.), (x: 1., y: 1.), (x: 0., y: 0.)];
        let short = check_geometry(&Geometry::Polygon(sliver)).unwrap_err();
        assert_eq!(short.reason, GeometryError::ShortRing { points: 3 });

        let lonely = check_geometry(&Geometry::LineString(line_string![(x: 0., y: 0.)])).unwrap_err();
        assert_eq!(lonely.reason, GeometryError::ShortLine);
    }

    #[test]
    fn unusable_problem_names_record_and_fix() {
        let p = Unusable::new(GeometryError::Empty, FIX_EMPTY).problem(Path::new("p.shp"), 7);
        assert_eq!(p.location, Location::Record(7));
        assert_eq!(p.message, format!("empty geometry: {FIX_EMPTY}"));
    }
}
