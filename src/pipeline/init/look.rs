//! Looking at the files of a county folder: each layer with all its fields, its geometry kind, record count,
//! CRS and extent in longitude/latitude; each record file (a CSV, each sheet of a workbook) with its header,
//! row count and first rows.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use geo::{BoundingRect, Geometry, Point};

use super::contents::date_column;
use super::{Found, Shape, Survey, Table};
use crate::crs::{Crs, CrsDef, Reprojector};
use crate::formats::csv::{CsvReader, Record};
use crate::formats::{field_names, filegdb, gpkg, read_layer, sheet, zipped, ReadOptions};
use crate::model::error::{Error, Result};
use crate::records::columns::SAMPLE_ROWS;

/// Looks at every file of `dir` (not its subfolders), in name order, into `survey.found` and
/// `survey.unreadable`. The files an earlier lakeshore run wrote there (named in its `run.json`: a
/// `schedule.geojson` is a layer of parcels too) are passed over, and a note says so.
pub fn look_at_folder(dir: &Path, survey: &mut Survey) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let outputs = earlier_outputs(dir);
    let (passed, paths): (Vec<PathBuf>, Vec<PathBuf>) = paths
        .into_iter()
        .partition(|p| p.file_name().is_some_and(|n| outputs.iter().any(|o| o.as_str() == n)));
    if !passed.is_empty() {
        let names: Vec<String> = passed.iter().map(|p| super::name(p)).collect();
        survey.notes.push(format!(
            "passed over the outputs of an earlier lakeshore run in the folder (named in its {}): {}",
            crate::write::set::MANIFEST,
            names.join(", ")
        ));
    }
    for path in paths {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        let stem = path.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default();
        let looked: Result<Vec<Found>> = match ext.as_str() {
            "shp" | "geojson" | "json" | "parquet" | "geoparquet" | "fgb" | "geojsonl" | "geojsons"
            | "geojsonseq" => look_at_layer(&path, stem).map(|f| vec![f]),
            "gpkg" | "gdb" => match container_layers(&ext, &path) {
                // A layer is told by its own name: the file's ("county.gpkg") names every layer in it. A layer
                // that cannot be read leaves the others usable.
                Ok(names) => {
                    for layer in names {
                        let path = member(&path, &layer);
                        match look_at_layer(&path, layer.to_lowercase()) {
                            Ok(found) => survey.found.push(found),
                            Err(e) => survey.unreadable.push((path, e.to_string())),
                        }
                    }
                    continue;
                }
                Err(e) => Err(e),
            },
            "zip" => look_at_zip(&path, survey),
            "csv" => look_at_table(&path, stem).map(|f| vec![f]),
            "tif" | "tiff" | "asc" => look_at_dem(&path, stem).map(|f| vec![f]),
            "xlsx" | "xlsm" | "xlsb" | "xls" | "ods" => look_at_workbook(&path, &stem),
            _ => continue,
        };
        match looked {
            Ok(found) => survey.found.extend(found),
            Err(e) => survey.unreadable.push((path, e.to_string())),
        }
    }
    Ok(())
}

/// The names of the files the `run.json` of `dir` lists, and `run.json` itself (none without one, or one that
/// does not read).
fn earlier_outputs(dir: &Path) -> Vec<String> {
    let Some(mut names) = crate::write::set::manifest_names(dir) else { return Vec::new() };
    names.push(crate::write::set::MANIFEST.to_string());
    names
}

/// The layers of a GeoPackage (`gpkg`) or the feature classes of a File Geodatabase (`gdb`).
fn container_layers(ext: &str, path: &Path) -> Result<Vec<String>> {
    match ext {
        "gdb" => filegdb::layer_names(path),
        _ => gpkg::layer_names(path),
    }
}

/// Each shapefile of the zip at `path`, told by its own name: the zip itself when it holds one (the readers
/// read it when no member is named), else `FILE.zip:NAME.shp`; and each feature class of a File Geodatabase
/// in the zip, as `FILE.zip:NAME`. A layer that cannot be read leaves the others usable; a zip of none is
/// passed over, and a note says so.
fn look_at_zip(path: &Path, survey: &mut Survey) -> Result<Vec<Found>> {
    let shapefiles = zipped::shapefiles(path)?;
    let classes = zipped::feature_classes(path)?;
    if shapefiles.is_empty() && classes.is_empty() {
        survey.notes.push(format!(
            "{} holds no shapefile or File Geodatabase, so nothing in it was looked at: unzip it into the \
             folder if it holds layers",
            super::name(path)
        ));
    }
    for class in classes {
        let layer = member(path, &class);
        let words = class.rsplit('/').next().unwrap_or(&class).to_lowercase();
        match look_at_layer(&layer, words) {
            Ok(found) => survey.found.push(found),
            Err(e) => survey.unreadable.push((layer, e.to_string())),
        }
    }
    let alone = shapefiles.len() == 1;
    for shp in shapefiles {
        let name = shp.rsplit('/').next().unwrap_or(&shp);
        let words = name.rsplit_once('.').map_or(name, |(stem, _)| stem).to_lowercase();
        let layer = if alone { path.to_path_buf() } else { member(path, name) };
        match look_at_layer(&layer, words) {
            Ok(found) => survey.found.push(found),
            Err(e) => survey.unreadable.push((layer, e.to_string())),
        }
    }
    Ok(Vec::new())
}

/// Opens the elevation raster at `path` (its header alone): a DEM for the mean-high-water line.
fn look_at_dem(path: &Path, words: String) -> Result<Found> {
    let dem = crate::formats::dem::Dem::open(path)?;
    Ok(Found {
        path: path.to_path_buf(),
        words,
        shape: Shape::Raster,
        records: dem.width.saturating_mul(dem.height),
        crs: Some(dem.crs.short_name()),
        feet_crs: None,
        fields: Vec::new(),
        late_fields: Vec::new(),
        extent: None,
        modified: modified(path),
        table: None,
        values: Vec::new(),
    })
}

/// Each field of the layer at `path` with the values of its first features as text, empty when null.
fn first_values(path: &Path) -> Result<Vec<(String, Vec<String>)>> {
    let mut blocks = crate::formats::blocks::LayerBlocks::open(path, &ReadOptions::default())?;
    let fields = blocks.fields().to_vec();
    let (features, _) = blocks.next_block(SAMPLE_ROWS)?;
    let text = |f: &crate::crs::layer::Feature, i: usize| f.values.get(i).and_then(|v| v.as_text());
    Ok(fields
        .into_iter()
        .enumerate()
        .map(|(i, field)| (field, features.iter().map(|f| text(f, i).unwrap_or_default()).collect()))
        .collect())
}

/// `FILE.gpkg:LAYER` (or `FILE.gdb:NAME`, `FILE.xlsx:SHEET`).
fn member(file: &Path, name: &str) -> PathBuf {
    let mut text = file.as_os_str().to_owned();
    text.push(":");
    text.push(name);
    PathBuf::from(text)
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    let (file, _) = crate::formats::split_member(path);
    std::fs::metadata(file).and_then(|m| m.modified()).ok()
}

/// Reads the layer at `path`: its geometries, and the fields of every feature.
///
/// A layer of declared fields (a shapefile, GeoPackage, GeoParquet, FlatGeobuf) has its values left unread; a
/// GeoJSON feature (in a collection or a sequence) has its own properties, so they are read from every
/// feature.
pub fn look_at_layer(path: &Path, words: String) -> Result<Found> {
    let first = field_names(path)?;
    let (file, _) = crate::formats::split_member(path);
    let ext = file.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    let per_feature = matches!(ext.as_str(), "geojson" | "json" | "geojsonl" | "geojsons" | "geojsonseq");
    let keep = if per_feature { None } else { Some(Vec::new()) };
    let (mut layer, _) = read_layer(path, &ReadOptions { assume_crs: None, keep })?;
    if !per_feature {
        layer.fields = first.clone();
    }
    let (mut polygons, mut lines) = (0, 0);
    let mut bounds: Option<geo::Rect<f64>> = None;
    for geometry in layer.features.iter().filter_map(|f| f.geometry.as_ref().ok()) {
        match geometry {
            Geometry::Polygon(_) | Geometry::MultiPolygon(_) | Geometry::Rect(_) | Geometry::Triangle(_) => {
                polygons += 1
            }
            Geometry::LineString(_) | Geometry::MultiLineString(_) | Geometry::Line(_) => lines += 1,
            _ => {}
        }
        if let Some(r) = geometry.bounding_rect() {
            bounds = Some(match bounds {
                None => r,
                Some(b) => geo::Rect::new(
                    (b.min().x.min(r.min().x), b.min().y.min(r.min().y)),
                    (b.max().x.max(r.max().x), b.max().y.max(r.max().y)),
                ),
            });
        }
    }
    let shape = match (polygons > 0, lines > 0) {
        (true, true) => Shape::Mixed,
        (true, false) => Shape::Polygons,
        (false, true) => Shape::Lines,
        _ => Shape::Points,
    };
    let feet_crs = layer.crs.require_feet().ok().map(|_| match &layer.crs.def {
        CrsDef::Epsg(code) => format!("EPSG:{code}"),
        CrsDef::Proj4(text) | CrsDef::Wkt(text) => text.clone(),
    });
    let late_fields = layer.fields.iter().filter(|f| !first.contains(f)).cloned().collect();
    Ok(Found {
        path: path.to_path_buf(),
        words,
        shape,
        records: layer.features.len(),
        crs: Some(layer.crs.short_name()),
        feet_crs,
        extent: bounds.and_then(|b| lonlat_extent(&layer.crs, b)),
        fields: layer.fields,
        late_fields,
        modified: modified(path),
        table: None,
        values: first_values(path).unwrap_or_default(),
    })
}

/// The box `b` (in `crs`) in longitude/latitude, from its corners and the middles of its sides.
fn lonlat_extent(crs: &Crs, b: geo::Rect<f64>) -> Option<[f64; 4]> {
    let to = Reprojector::new(crs, &Crs::wgs84()).ok()?;
    let (x0, y0, x1, y1) = (b.min().x, b.min().y, b.max().x, b.max().y);
    let (xm, ym) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let mut out = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for (x, y) in [(x0, y0), (x0, y1), (x1, y0), (x1, y1), (xm, y0), (xm, y1), (x0, ym), (x1, ym)] {
        let Ok(Geometry::Point(p)) = to.transform(&Geometry::Point(Point::new(x, y))) else { return None };
        out = [out[0].min(p.x()), out[1].min(p.y()), out[2].max(p.x()), out[3].max(p.y())];
    }
    Some(out)
}

/// A record file from its rows, the header first.
fn table(path: &Path, words: String, header: Option<Record>, records: usize, rows: Vec<Record>) -> Found {
    let fields: Vec<String> =
        header.map_or_else(Vec::new, |h| h.fields().map(|f| f.trim().to_string()).collect());
    let date = date_column(&fields, &rows);
    Found {
        path: path.to_path_buf(),
        words,
        shape: Shape::Table,
        records,
        crs: None,
        feet_crs: None,
        fields,
        late_fields: Vec::new(),
        extent: None,
        modified: modified(path),
        table: Some(Table { rows, id: None, date }),
        values: Vec::new(),
    }
}

/// Reads a CSV file's header (its separator sniffed, as the record readers do), counts its records and keeps
/// the first [`SAMPLE_ROWS`].
pub fn look_at_table(path: &Path, words: String) -> Result<Found> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = CsvReader::sniffing(BufReader::new(file)).map_err(|e| Error::io(path, e))?;
    let mut header = Record::default();
    if !reader.read(&mut header).map_err(|e| Error::io(path, e))? {
        return Ok(table(path, words, None, 0, Vec::new()));
    }
    let (mut rows, mut records, mut record) = (Vec::new(), 0, Record::default());
    while reader.read(&mut record).map_err(|e| Error::io(path, e))? {
        if record.fields().all(|f| f.trim().is_empty()) {
            continue;
        }
        records += 1;
        if rows.len() < SAMPLE_ROWS {
            rows.push(record.clone());
        }
    }
    Ok(table(path, words, Some(header), records, rows))
}

/// Each sheet of a workbook that holds records (a cover note of a header alone is passed over): the file
/// itself when that is its first sheet alone, which the readers read when no sheet is named; else
/// `FILE.xlsx:SHEET`.
fn look_at_workbook(path: &Path, stem: &str) -> Result<Vec<Found>> {
    let mut sheets = Vec::new();
    for (n, name) in sheet::sheet_names(path)?.into_iter().enumerate() {
        let mut rows = sheet::read_sheet(path, Some(&name))?;
        if rows.len() < 2 {
            continue;
        }
        let Some(header) = rows.next() else { continue };
        let records = rows.len();
        let rows: Vec<_> = rows.take(SAMPLE_ROWS).collect();
        sheets.push((n, name, header, records, rows));
    }
    let alone = sheets.len() == 1;
    Ok(sheets
        .into_iter()
        .map(|(n, name, header, records, rows)| match alone && n == 0 {
            true => table(path, stem.to_string(), Some(header), records, rows),
            false => {
                let words = format!("{stem} {}", name.to_lowercase());
                table(&member(path, &name), words, Some(header), records, rows)
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log exported with semicolons, as a spreadsheet set to a European locale writes it: its header is
    /// three columns, as the record readers read it, and its rows are counted, the blank line not.
    #[test]
    fn a_semicolon_log_is_surveyed_by_its_columns() {
        let dir = crate::scratch::root().join("init-semicolon");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("inspections.csv");
        std::fs::write(&path, "parcel_id;inspection_date;result\n054689-128.05-1-1;2025-06-12;pass\n\n052089-123.45-1-2;2018-04-04;pass\n").unwrap();
        let found = look_at_table(&path, "inspections".into()).unwrap();
        assert_eq!(found.fields, ["parcel_id", "inspection_date", "result"]);
        assert_eq!(found.records, 2);
        std::fs::remove_dir_all(&dir).ok();
    }
}
