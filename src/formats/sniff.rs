//! A layer file's format told by its first bytes, not only its name: a zip, a GeoPackage, GeoParquet, a
//! FlatGeobuf, a shapefile; among JSON documents a GeoJSON FeatureCollection, a GeoJSON text sequence
//! (newline-delimited or RFC 8142, record separators first) and an Esri JSON FeatureSet; and, for a file
//! that is none of them, what it looks like (an HTML page a server answered with, KML, a PDF, a raster…).
//!
//! Only the first [`PREFIX`] bytes are read, and only what they show decides: a file whose start is not
//! recognised (a damaged one among them) is left to the reader its extension names, which says what is
//! wrong with it.

use std::io::Read;
use std::path::Path;

use super::LayerReader;

/// How much of a file is looked at.
const PREFIX: usize = 64 << 10;

/// What a file's first bytes show.
pub(super) enum Sniffed {
    /// A layer format read here.
    Reader(&'static dyn LayerReader),
    /// No layer format read here: what the file looks like and what to do.
    Other(String),
    /// Nothing recognised: its extension decides.
    Unknown,
}

/// The format of the file at `file` by its first bytes; [`Sniffed::Unknown`] when it cannot be read.
pub(super) fn sniff(file: &Path) -> Sniffed {
    let Ok(handle) = std::fs::File::open(file) else { return Sniffed::Unknown };
    let mut bytes = Vec::with_capacity(PREFIX);
    if handle.take(PREFIX as u64).read_to_end(&mut bytes).is_err() {
        return Sniffed::Unknown;
    }
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    sniff_bytes(&bytes, &ext)
}

/// [`sniff`] on a file's first bytes, `ext` its extension in lower case.
fn sniff_bytes(bytes: &[u8], ext: &str) -> Sniffed {
    let other = |what: &str| Sniffed::Other(what.to_string());
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") {
        return Sniffed::Reader(&super::zipped::Zipped);
    }
    if starts(b"SQLite format 3\0") {
        return Sniffed::Reader(&super::gpkg::GeoPackage);
    }
    if starts(b"PAR1") {
        return Sniffed::Reader(&super::geoparquet::GeoParquet);
    }
    if starts(b"fgb\x03") {
        return Sniffed::Reader(&super::flatgeobuf::FlatGeobuf);
    }
    if starts(&[0, 0, 0x27, 0x0a]) {
        return match ext {
            "shx" => {
                other("a shapefile's index (.shx): give its .shp, with the .shx, .dbf and .prj beside it")
            }
            _ => Sniffed::Reader(&super::shapefile::Shapefile),
        };
    }
    let binary: [(&[u8], &str); 8] = [
        (b"\x1f\x8b", "gzip-compressed data: uncompress it (gunzip) and give the file inside"),
        (b"%PDF", "a PDF document, not a layer: ask for the layer's GIS files"),
        (b"II*\0", "a TIFF raster: an elevation model goes in [layers] dem; a vector layer is needed here"),
        (b"MM\0*", "a TIFF raster: an elevation model goes in [layers] dem; a vector layer is needed here"),
        (
            b"II+\0",
            "a BigTIFF raster: an elevation model goes in [layers] dem; a vector layer is needed here",
        ),
        (b"Rar!", "a RAR archive: unpack it and give the shapefile or GeoPackage inside"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive: unpack it and give the shapefile or GeoPackage inside"),
        (
            b"\xd0\xcf\x11\xe0",
            "an old Office document (a .xls or .mdb), not a layer: export the layer from the GIS",
        ),
    ];
    if let Some((_, what)) = binary.iter().find(|(magic, _)| starts(magic)) {
        return other(what);
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    let text = &text[start..];
    match text.first() {
        Some(0x1e) => Sniffed::Reader(&super::geojson::GeoJsonSeq),
        Some(b'{') => json(text),
        Some(b'[') => other(
            "a JSON array, neither a GeoJSON FeatureCollection nor an Esri JSON FeatureSet: export the layer \
             as GeoJSON (or query an ArcGIS layer with f=json)",
        ),
        Some(b'<') => other(&markup(text)),
        Some(_) if delimited_text(text) => other(
            "a table of text (CSV), with no geometry: a layer needs shapes; export it from the GIS as a \
             GeoPackage, a shapefile or GeoJSON",
        ),
        _ => Sniffed::Unknown,
    }
}

/// What a document of markup is.
fn markup(text: &[u8]) -> String {
    let lower = String::from_utf8_lossy(&text[..text.len().min(4096)]).to_ascii_lowercase();
    if lower.contains("<html") || lower.contains("<!doctype html") {
        "an HTML page (a web server's answer, such as a login or error page), not the layer: download the \
         layer itself"
            .into()
    } else if lower.contains("<kml") {
        "KML, which lakeshore does not read: convert it to a GeoPackage or GeoJSON (ogr2ogr -f GPKG)".into()
    } else if lower.contains("gml") || lower.contains("<wfs:") {
        "GML (a WFS answer), which lakeshore does not read: ask the service for GeoJSON \
         (outputFormat=application/json) or convert it with ogr2ogr"
            .into()
    } else {
        "an XML document, not a layer lakeshore reads: export the layer as a GeoPackage, a shapefile or GeoJSON"
            .into()
    }
}

/// Whether `text` starts with a line of plain text cut by commas, semicolons or tabs, and no JSON.
fn delimited_text(text: &[u8]) -> bool {
    let line = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
    std::str::from_utf8(line).is_ok_and(|line| {
        !line.contains(['{', '}', ':']) && line.contains([',', ';', '\t']) && !line.contains('\0')
    })
}

/// What a JSON document that opens with `{` is: an Esri JSON FeatureSet by its top-level members (or its
/// first feature's `attributes`), a sequence when a second value follows the first, else GeoJSON.
fn json(text: &[u8]) -> Sniffed {
    let scan = Scan::of(text);
    if scan.closed_then_more {
        return Sniffed::Reader(&super::geojson::GeoJsonSeq);
    }
    let esri =
        ["geometryType", "spatialReference", "displayFieldName", "fieldAliases", "exceededTransferLimit"];
    let top_esri = scan.top.iter().any(|k| esri.contains(&k.as_str()));
    let attributes = scan.feature.iter().any(|k| k == "attributes");
    let properties = scan.feature.iter().any(|k| k == "properties");
    if scan.top_type.as_deref() == Some("Feature") && scan.closed {
        // One feature alone: a sequence of one.
        return Sniffed::Reader(&super::geojson::GeoJsonSeq);
    }
    if scan.top_type.is_none() && (top_esri || (attributes && !properties)) {
        return Sniffed::Reader(&super::esrijson::EsriJson);
    }
    Sniffed::Reader(&super::geojson::GeoJson)
}

/// What a walk over the first value of a JSON text found.
#[derive(Default)]
struct Scan {
    /// The members of the top-level object.
    top: Vec<String>,
    /// The string value of its `type` member.
    top_type: Option<String>,
    /// The members of the first object two levels further in (a feature of its `features`).
    feature: Vec<String>,
    /// Whether the first value ends within the text.
    closed: bool,
    /// Whether another value follows it.
    closed_then_more: bool,
}

impl Scan {
    /// Walks `text`, which starts with `{`, following strings and brackets only.
    fn of(text: &[u8]) -> Self {
        let mut scan = Scan::default();
        let mut depth = 0usize;
        let mut i = 0;
        // The last string read at each depth, which a `:` makes a member name; whether the next string is
        // the value of a top-level `type`.
        let mut last: Option<(usize, String)> = None;
        let mut type_value = false;
        let mut feature_done = false;
        while i < text.len() {
            match text[i] {
                b'"' => {
                    let Some(end) = string_end(text, i + 1) else { return scan };
                    let s = String::from_utf8_lossy(&text[i + 1..end]).into_owned();
                    if type_value {
                        scan.top_type = Some(s.clone());
                        type_value = false;
                    }
                    last = Some((depth, s));
                    i = end + 1;
                    continue;
                }
                b':' => {
                    if let Some((d, name)) = last.take() {
                        if d == 1 {
                            type_value = name == "type";
                            scan.top.push(name);
                        } else if d == 3 && !feature_done {
                            scan.feature.push(name);
                        }
                    }
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 2 && !scan.feature.is_empty() {
                        feature_done = true;
                    }
                    if depth == 0 {
                        scan.closed = true;
                        let rest = &text[i + 1..];
                        let next = rest.iter().find(|b| !b.is_ascii_whitespace());
                        scan.closed_then_more = matches!(next, Some(b'{' | 0x1e));
                        return scan;
                    }
                }
                b',' => type_value = false,
                _ => {}
            }
            i += 1;
        }
        scan
    }
}

/// The index of the quote that ends the string whose text starts at `from`.
fn string_end(text: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(bytes: &[u8]) -> String {
        match sniff_bytes(bytes, "json") {
            Sniffed::Reader(r) => r.extensions()[0].to_string(),
            Sniffed::Other(what) => what,
            Sniffed::Unknown => "unknown".into(),
        }
    }

    #[test]
    fn json_documents_are_told_apart_by_their_members() {
        let collection =
            br#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}}]}"#;
        assert_eq!(kind(collection), "geojson");
        // Pretty-printed: the first line is not a whole value.
        assert_eq!(kind(b"{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n"), "geojson");
        let esri = br#"{"displayFieldName": "", "geometryType": "esriGeometryPolygon", "features": []}"#;
        assert_eq!(kind(esri), "esrijson");
        // Without the top-level members, the first feature's attributes tell it.
        assert_eq!(
            kind(br#"{"features": [{"attributes": {"type": 1}, "geometry": {"x": 1, "y": 2}}]}"#),
            "esrijson"
        );
        assert_eq!(kind(br#"{"features": [{"properties": {"attributes": 1}}]}"#), "geojson");
        let lines = b"{\"type\": \"Feature\", \"properties\": {\"a\": \"}\"}}\n{\"type\": \"Feature\"}\n";
        assert_eq!(kind(lines), "geojsonl");
        assert_eq!(kind(b"\x1e{\"type\": \"Feature\"}\n\x1e{\"type\": \"Feature\"}\n"), "geojsonl");
        assert_eq!(kind(b"\xEF\xBB\xBF {\"type\": \"Feature\", \"geometry\": null}\n"), "geojsonl");
        // A property named type in a feature is not the top-level type.
        assert_eq!(
            kind(br#"{"features": [{"properties": {"type": "Feature"}}], "type": "FeatureCollection"}"#),
            "geojson"
        );
    }

    #[test]
    fn other_files_say_what_they_look_like() {
        assert!(kind(b"<!DOCTYPE html><html><body>Sign in</body></html>").starts_with("an HTML page"));
        assert!(
            kind(b"<?xml version=\"1.0\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\">").starts_with("KML")
        );
        assert!(kind(b"[1, 2]").starts_with("a JSON array"));
        assert!(kind(b"%PDF-1.7").starts_with("a PDF"));
        assert!(kind(b"SWIS,PRINT_KEY,OWNER\n054689,1.-1-1,Smith\n").starts_with("a table of text (CSV)"));
        assert_eq!(kind(b"PK\x03\x04rest"), "zip");
        assert_eq!(kind(b"\0\0\x27\x0a"), "shp");
        assert!(matches!(sniff_bytes(b"\0\0\x27\x0a", "shx"), Sniffed::Other(_)));
        assert_eq!(kind(b"garbage"), "unknown");
        assert_eq!(kind(b""), "unknown");
    }
}
