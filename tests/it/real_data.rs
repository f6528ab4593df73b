//! The library on real, independently labelled data in `../shared/data/real/` (see the README of each folder):
//!
//! - the USGS StreamStats Owasco Lake watershed and 38 water-quality sampling sites labelled by their
//!   monitoring group (watershed classification, shapefile and GeoJSON readers, WGS 84 → EPSG:2261);
//! - the City of Vernonia (Oregon) FEMA flood zones and the city's list of 287 structures with their zone
//!   (floodplain classification, zone-name normalisation);
//! - the EPA outline of Little Sodus Bay (distances from the shoreline, checked against hand geometry).
//!
//! Expected values come from the data's own labels, the checks recorded in the READMEs (done with shapely by
//! the person who assembled the data) or geometry computed by hand here, never from running this code.
//! A test whose data folder is absent prints that it is skipped and passes, except in CI (the environment
//! variable `CI` set), where the data folder is present: there its absence fails the test.

use std::path::{Path, PathBuf};

use geo::{Geometry, LineString, MultiPolygon, Point, Polygon};
use lakeshore::classify::{AreaLayer, DistanceIndex, FloodZone, Floodplain, Parcel, System};
use lakeshore::crs::layer::Layer;
use lakeshore::crs::{Crs, Reprojector};
use lakeshore::formats::{read_layer, ReadOptions};
use lakeshore::geom::index::AreaIndex;

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/real");

/// The path of `relative` under the real-data folder, or `None` (with a message) when it is absent outside
/// CI; in CI its absence fails the test.
pub(crate) fn data(relative: &str) -> Option<PathBuf> {
    let path = Path::new(REAL).join(relative);
    if path.exists() {
        Some(path)
    } else {
        crate::common::skip_unless_ci(relative, &format!("{} not found", path.display()));
        None
    }
}

/// Reads a layer and reprojects it into `working`; the readers and the reprojection must report nothing.
pub(crate) fn projected(path: &Path, working: &Crs) -> Layer {
    let (layer, problems) = read_layer(path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
    let reprojector =
        Reprojector::new(&layer.crs, working).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (layer, problems) = reprojector.project_layer(layer);
    assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
    layer.into_inner()
}

fn polygons(geometry: &Geometry<f64>) -> Option<MultiPolygon<f64>> {
    match geometry {
        Geometry::Polygon(p) => Some(MultiPolygon(vec![p.clone()])),
        Geometry::MultiPolygon(mp) => Some(mp.clone()),
        _ => None,
    }
}

/// The polygon features of a layer, with the text of `name_field` (if given).
fn areas(layer: &Layer, name_field: Option<&str>) -> Vec<(MultiPolygon<f64>, Option<String>)> {
    let field = name_field
        .map(|n| layer.field_index(n).unwrap_or_else(|| panic!("no field {n}: {:?}", layer.fields)));
    layer
        .features
        .iter()
        .filter_map(|f| {
            let shape = polygons(f.geometry.as_ref().expect("readers reported no bad geometry"))?;
            Some((shape, field.and_then(|i| f.values[i].as_text())))
        })
        .collect()
}

/// The points of a layer (Point or single-point MultiPoint features).
fn points(layer: &Layer) -> Vec<[f64; 2]> {
    layer
        .features
        .iter()
        .filter_map(|f| match f.geometry.as_ref().ok()? {
            Geometry::Point(p) => Some([p.x(), p.y()]),
            Geometry::MultiPoint(mp) if mp.0.len() == 1 => Some([mp.0[0].x(), mp.0[0].y()]),
            _ => None,
        })
        .collect()
}

/// Longitude/latitude (WGS 84) to the working CRS.
fn project_lon_lat(to: &Reprojector, lon: f64, lat: f64) -> [f64; 2] {
    match to.transform(&Geometry::Point(Point::new(lon, lat))) {
        Ok(Geometry::Point(p)) => [p.x(), p.y()],
        other => panic!("cannot project {lon} {lat}: {other:?}"),
    }
}

use crate::common::csv_records;

/// A CSV file's header (trimmed, BOM removed) and its non-blank records.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut records = csv_records(&text).into_iter();
    let header = records.next().unwrap_or_default().iter().map(|h| h.trim().to_string()).collect();
    // Spacer rows (",,,,,,,") and empty lines carry no site.
    let rows = records.filter(|r| r.iter().any(|f| !f.trim().is_empty())).collect();
    (header, rows)
}

fn column(header: &[String], name: &str, path: &Path) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("{}: no column {name:?} in {header:?}", path.display()))
}

fn number(text: &str, what: &str) -> f64 {
    text.trim().parse().unwrap_or_else(|_| panic!("{what}: {text:?} is not a number"))
}

// ---------------------------------------------------------------------------------------------------------
// Owasco Lake watershed

const WATERSHED: &str = "owasco-watershed-streamstats";
const SITES: &str = "owasco-monitoring-sites";

/// A sampling site with its label: inside the Owasco Lake watershed or not.
struct Site {
    name: String,
    lon: f64,
    lat: f64,
    inside: bool,
}

/// The 31 DEC sites (label from `Group`: Owasco inside; Seneca and Skaneateles outside) and the 7 OWLA
/// tributary sites (all inside, per the monitoring-sites README).
fn sites(dir: &Path) -> Vec<Site> {
    let dec = dir.join("dec_finger_lakes_advanced_monitoring_sites.csv");
    let (header, rows) = read_csv(&dec);
    let (id, group, lat, lon) = (
        column(&header, "Location ID", &dec),
        column(&header, "Group", &dec),
        column(&header, "Latitude", &dec),
        column(&header, "Longitude", &dec),
    );
    let mut sites = Vec::new();
    let mut groups = std::collections::BTreeMap::<String, usize>::new();
    for row in &rows {
        let g = row[group].trim().to_string();
        let inside = match g.as_str() {
            "Owasco" => true,
            "Seneca" | "Skaneateles" => false,
            other => panic!("{}: unknown group {other:?}", dec.display()),
        };
        *groups.entry(g).or_default() += 1;
        let name = row[id].trim().to_string();
        sites.push(Site { lon: number(&row[lon], &name), lat: number(&row[lat], &name), name, inside });
    }
    let want: std::collections::BTreeMap<String, usize> =
        [("Owasco", 13), ("Seneca", 8), ("Skaneateles", 10)]
            .into_iter()
            .map(|(g, n)| (g.to_string(), n))
            .collect();
    assert_eq!(groups, want, "DEC sites per group (README: Owasco 13, Skaneateles 10, Seneca 8)");

    let owla = dir.join("owla_tributary_sites_2022.csv");
    let (header, rows) = read_csv(&owla);
    let (number_col, name_col, lat, lon) = (
        column(&header, "OWLA Site Number", &owla),
        column(&header, "Site Name", &owla),
        column(&header, "Lat", &owla),
        column(&header, "Long", &owla),
    );
    let before = sites.len();
    for row in rows.iter().filter(|r| !r[number_col].trim().is_empty()) {
        let name = format!("{} {}", row[number_col].trim(), row[name_col].trim());
        sites.push(Site { lon: number(&row[lon], &name), lat: number(&row[lat], &name), name, inside: true });
    }
    assert_eq!(sites.len() - before, 7, "OWLA sites (README: 7)");
    sites
}

/// The Owasco Lake watershed of the shapefile, projected to EPSG:2261 and indexed.
fn owasco_watershed(shp: &Path, working: &Crs) -> AreaLayer {
    let layer = projected(shp, working);
    assert_eq!(layer.crs, *working);
    let shapes = areas(&layer, None);
    assert_eq!(shapes.len(), 1, "{}: one drainage-area polygon", shp.display());
    AreaLayer::new(shapes.iter().map(|(shape, name)| (&shape.0[..], name.as_deref())))
}

/// Classifies every site against `watershed`; returns (agreeing, total) and the disagreements.
fn classify_sites(
    watershed: &AreaLayer,
    sites: &[Site],
    to_working: &Reprojector,
) -> (usize, Vec<String>, Vec<bool>) {
    let mut verdicts = Vec::new();
    let mut wrong = Vec::new();
    for site in sites {
        let inside = watershed.at(project_lon_lat(to_working, site.lon, site.lat)).is_some();
        if inside != site.inside {
            wrong.push(format!(
                "{} ({}, {}): labelled inside={}, classified inside={inside}",
                site.name, site.lon, site.lat, site.inside
            ));
        }
        verdicts.push(inside);
    }
    (sites.len() - wrong.len(), wrong, verdicts)
}

/// The 38 labelled sampling sites are classified inside/outside the Owasco Lake watershed (shapefile with a
/// WGS 84 `.prj`, reprojected to EPSG:2261) exactly as labelled: 38/38, as the README's shapely check found.
/// The GeoJSON copy of the same watershed gives the same verdict for every site.
#[test]
fn owasco_sites_classified_as_labelled() {
    let (Some(ws), Some(site_dir)) = (data(WATERSHED), data(SITES)) else { return };
    let working = Crs::parse("EPSG:2261").unwrap();
    let to_working = Reprojector::new(&Crs::wgs84(), &working).unwrap();
    let sites = sites(&site_dir);
    assert_eq!(sites.len(), 38);

    let shp = ws.join("Owasco_Lake_DA_SS/globalwatershed.shp");
    let from_shp = owasco_watershed(&shp, &working);
    let (agree, wrong, shp_verdicts) = classify_sites(&from_shp, &sites, &to_working);
    println!("Owasco watershed (shapefile): {agree}/{} sites agree with their labels", sites.len());
    assert!(wrong.is_empty(), "{} disagreement(s):\n{}", wrong.len(), wrong.join("\n"));
    assert_eq!(agree, 38);

    let geojson = ws.join("Owasco_Lake_DA_SS/Owasco_Lake_DA_SS.geojson");
    let layer = projected(&geojson, &working);
    let shapes = areas(&layer, None);
    assert_eq!(shapes.len(), 1, "the GeoJSON holds one drainage-area polygon (and the pour point)");
    let from_geojson = AreaLayer::new(shapes.iter().map(|(shape, name)| (&shape.0[..], name.as_deref())));
    let (agree, wrong, geojson_verdicts) = classify_sites(&from_geojson, &sites, &to_working);
    println!("Owasco watershed (GeoJSON): {agree}/{} sites agree with their labels", sites.len());
    assert!(wrong.is_empty(), "{} disagreement(s):\n{}", wrong.len(), wrong.join("\n"));
    let differ: Vec<&str> = sites
        .iter()
        .zip(shp_verdicts.iter().zip(&geojson_verdicts))
        .filter(|(_, (a, b))| a != b)
        .map(|(s, _)| s.name.as_str())
        .collect();
    assert!(differ.is_empty(), "shapefile and GeoJSON disagree on {differ:?}");
}

/// The pour points of the five sub-basins (tributary sampling points) lie inside the whole Owasco Lake
/// watershed, as the README says every sub-basin does.
#[test]
fn sub_basin_pour_points_inside_owasco_watershed() {
    let Some(ws) = data(WATERSHED) else { return };
    let working = Crs::parse("EPSG:2261").unwrap();
    let whole = owasco_watershed(&ws.join("Owasco_Lake_DA_SS/globalwatershed.shp"), &working);
    let basins = [
        "USGS_gauge_04235299_DA_shapefile_SS",
        "07-OWLI-0.1_DA_shapefile_SS",
        "OWLA-166_DA_shapefile_SS",
        "OWLA-101_DA_shapefile_SS",
        "Inlet_Walpole_Road",
    ];
    let mut inside = 0;
    for basin in basins {
        let layer = projected(&ws.join(basin).join("globalwatershedpoint.shp"), &working);
        let pts = points(&layer);
        assert_eq!(pts.len(), 1, "{basin}: one pour point");
        assert!(
            whole.at(pts[0]).is_some(),
            "{basin}: pour point {:?} (EPSG:2261) outside Owasco_Lake_DA_SS",
            pts[0]
        );
        inside += 1;
    }
    println!("sub-basin pour points inside the Owasco Lake watershed: {inside}/{}", basins.len());
}

// ---------------------------------------------------------------------------------------------------------
// Vernonia floodplain

const VERNONIA: &str = "vernonia-or-floodplain";

/// One spelling for the zone names of both files: upper case, no parentheses, "REGULATORY FLOODWAY" as
/// "FLOODWAY" ("X (Shaded)" = "X Shaded", "AE (Regulatory Floodway)" = "AE Floodway").
fn normalise_zone(zone: &str) -> String {
    let upper = zone.to_ascii_uppercase().replace(['(', ')'], " ").replace("REGULATORY FLOODWAY", "FLOODWAY");
    upper.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The city's label is a special flood hazard area: AE and the AE floodway are, X shaded (0.2 %) is not.
fn label_is_sfha(normalised: &str) -> bool {
    match normalised {
        "AE" | "AE FLOODWAY" | "A" => true,
        "X SHADED" => false,
        other => panic!("unexpected structure label {other:?}"),
    }
}

/// The 287 Vernonia structures against the FEMA flood zones, in EPSG:2992 (Oregon Lambert, international
/// feet):
///
/// (a) in a special flood hazard area or not, from `Floodplain::check` on each structure as a system point,
///     against the city's label. Expected 275/287, derived by hand from the README's breakdown of the 18 zone
///     disagreements: of those, 9 AE→X shaded, 2 floodway→X shaded and the AE structure in no zone change
///     the SFHA verdict (12); 3 floodway→AE, 2 AE→floodway and the X-shaded structure in no zone do not.
/// (b) exact zone, after normalising spellings, from an `AreaLayer` over all zones (X shaded included):
///     269/287, the README's point-in-polygon result.
#[test]
fn vernonia_structures_in_flood_zones() {
    let Some(dir) = data(VERNONIA) else { return };
    let working = Crs::parse("EPSG:2992").expect("EPSG:2992 must be known");
    working.require_feet().expect("EPSG:2992 is in international feet");

    let zones_layer = projected(&dir.join("flood-hazard_flood-zones.geojson"), &working);
    let zones = areas(&zones_layer, Some("zone"));
    assert_eq!(zones.len(), 49, "README: 49 zone features");
    let structures_layer =
        projected(&dir.join("floodplain-management_floodplain-structures.geojson"), &working);
    let label_field = structures_layer.field_index("flood_zone").expect("flood_zone attribute");
    let structures: Vec<([f64; 2], String)> = structures_layer
        .features
        .iter()
        .map(|f| {
            let p = match f.geometry.as_ref() {
                Ok(Geometry::Point(p)) => [p.x(), p.y()],
                other => panic!("structure record {} is not a point: {other:?}", f.record),
            };
            (p, normalise_zone(&f.values[label_field].as_text().unwrap_or_default()))
        })
        .collect();
    assert_eq!(structures.len(), 287, "README: 287 structures");

    // (a) SFHA yes/no through the floodplain predicate.
    let flood_zones: Vec<FloodZone> = zones
        .iter()
        .map(|(_, zone)| FloodZone::from_nfhl(zone.as_deref().unwrap_or(""), None, None, None))
        .collect();
    let floodplain = Floodplain::new(
        zones.iter().zip(&flood_zones).map(|((shape, _), zone)| (&shape.0[..], zone)),
        &DistanceIndex::new(std::iter::empty(), 0.0),
        0.0,
    );
    let mut sfha_agree = 0;
    let mut sfha_wrong = Vec::new();
    for (i, (p, label)) in structures.iter().enumerate() {
        let parcel = Parcel {
            shape: MultiPolygon(vec![]),
            town_attribute: None,
            sewer_code: None,
            swis: None,
            system: Some(System { location: Point::new(p[0], p[1]), bottom_ft: None }),
            lot: None,
        };
        let found = floodplain.zones_at(&parcel);
        let in_sfha = found.is_some();
        if in_sfha == label_is_sfha(label) {
            sfha_agree += 1;
        } else {
            sfha_wrong.push(format!(
                "structure {}: label {label}, found {:?}",
                i + 1,
                found.map(|f| f.zones)
            ));
        }
    }

    // (b) exact zone through an area layer over every zone.
    let names: Vec<Option<String>> = zones.iter().map(|(_, z)| z.as_deref().map(normalise_zone)).collect();
    let all = AreaLayer::new(zones.iter().zip(&names).map(|((s, _), name)| (&s.0[..], name.as_deref())));
    let every = AreaIndex::new(zones.iter().enumerate().map(|(i, (s, _))| (&s.0[..], i as u32)));
    let mut exact = 0;
    let mut in_no_zone = 0;
    let mut overlapping = 0;
    let mut confusion = std::collections::BTreeMap::<(String, String), usize>::new();
    for (p, label) in &structures {
        let found = all.at(*p).and_then(|i| all.name(i)).map_or("none".to_string(), |n| n.to_string());
        let hits = every.containing(*p);
        let kinds: std::collections::BTreeSet<_> = hits.iter().map(|&i| names[i as usize].clone()).collect();
        if kinds.len() > 1 {
            overlapping += 1;
        }
        if found == "none" {
            in_no_zone += 1;
        }
        if &found == label {
            exact += 1;
        } else {
            *confusion.entry((label.clone(), found)).or_default() += 1;
        }
    }
    println!("Vernonia: SFHA yes/no agreement {sfha_agree}/287; exact zone agreement {exact}/287");
    println!(
        "Vernonia: {in_no_zone} structure(s) in no zone; {overlapping} in zones of different kinds at once"
    );
    for ((label, found), n) in &confusion {
        println!("  labelled {label:<12} found {found:<12} {n}");
    }
    assert_eq!(in_no_zone, 2, "README: 2 structures fall in no zone polygon");
    assert_eq!(exact, 269, "README: 269/287 agree exactly; disagreements: {confusion:?}");
    assert_eq!(sfha_agree, 275, "expected 275/287 SFHA agreement; disagreements:\n{}", sfha_wrong.join("\n"));
}

// ---------------------------------------------------------------------------------------------------------
// Little Sodus Bay

const BAY: &str = "lake-ontario-ny-bays-spsurvey/little_sodus_bay_wgs84.geojson";

/// Distance from `p` to the segment a–b, by hand.
fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len_2 = dx * dx + dy * dy;
    let t =
        if len_2 == 0.0 { 0.0 } else { (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len_2).clamp(0.0, 1.0) };
    ((a[0] + t * dx - p[0]).powi(2) + (a[1] + t * dy - p[1]).powi(2)).sqrt()
}

fn ring_edges(ring: &LineString<f64>) -> impl Iterator<Item = ([f64; 2], [f64; 2])> + '_ {
    ring.0.windows(2).map(|w| ([w[0].x, w[0].y], [w[1].x, w[1].y]))
}

/// Whether `p` is inside the ring, by ray casting.
fn in_ring(p: [f64; 2], ring: &LineString<f64>) -> bool {
    ring_edges(ring).fold(false, |inside, (a, b)| {
        let crosses =
            (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
        inside != crosses
    })
}

fn in_polygon(p: [f64; 2], polygon: &Polygon<f64>) -> bool {
    in_ring(p, polygon.exterior()) && !polygon.interiors().iter().any(|hole| in_ring(p, hole))
}

/// Twice the signed area of a closed ring (positive when counter-clockwise).
fn signed_area_2(ring: &LineString<f64>) -> f64 {
    ring_edges(ring).map(|(a, b)| a[0] * b[1] - b[0] * a[1]).sum()
}

/// The Little Sodus Bay outline as a shoreline (radius 1 000 ft, EPSG:2261): a point on a vertex of the
/// boundary is 0 ft from it, a point in the middle of the bay (in the water) is 0 ft, and a point 300 ft out
/// from the middle of a boundary edge, perpendicular, is 300 ± 0.5 ft (the edge being checked by hand to be
/// the nearest part of the outline).
#[test]
fn little_sodus_bay_distances() {
    let Some(path) = data(BAY) else { return };
    let working = Crs::parse("EPSG:2261").unwrap();
    let layer = projected(&path, &working);
    assert_eq!(layer.features.len(), 1);
    let geometry = layer.features[0].geometry.clone().expect("the bay's geometry");
    let bay = polygons(&geometry).expect("the bay is a polygon");
    let shore = DistanceIndex::new([(&geometry, "Little Sodus Bay")], 1_000.0);
    let outline = &bay.0[0];
    let rings: Vec<&LineString<f64>> =
        bay.0.iter().flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors())).collect();
    let nearest_by_hand = |p: [f64; 2]| {
        rings
            .iter()
            .flat_map(|r| ring_edges(r))
            .map(|(a, b)| segment_distance(p, a, b))
            .fold(f64::INFINITY, f64::min)
    };

    // A vertex of the outline, half-way round it.
    let vertex = outline.exterior().0[outline.exterior().0.len() / 2];
    let d = shore.distance_from_point([vertex.x, vertex.y]);
    println!("Little Sodus Bay: vertex ({:.1}, {:.1}) → {d:?} ft", vertex.x, vertex.y);
    assert!(
        d.is_some_and(|d| d.abs() < 1e-6),
        "a boundary vertex must be 0 ft from the shoreline, got {d:?}"
    );

    // Mid-bay (README: -76.709 43.325 is inside).
    let to_working = Reprojector::new(&Crs::wgs84(), &working).unwrap();
    let water = project_lon_lat(&to_working, -76.709, 43.325);
    assert!(bay.0.iter().any(|p| in_polygon(water, p)), "mid-bay point not inside the outline by hand");
    let d = shore.distance_from_point(water);
    println!(
        "Little Sodus Bay: mid-bay point → {d:?} ft (hand: {:.1} ft to the nearest shore)",
        nearest_by_hand(water)
    );
    assert_eq!(d, Some(0.0), "a point in the water is 0 ft from the shoreline");

    // 300 ft outward from the middle of an edge, starting half-way round the outline and taking the first
    // edge (at least 100 ft long) whose offset point lies outside the bay with that edge as the nearest.
    let ring = outline.exterior();
    let counter_clockwise = signed_area_2(ring) > 0.0;
    let edges: Vec<([f64; 2], [f64; 2])> = ring_edges(ring).collect();
    let start = edges.len() / 2;
    let (q, edge) = (0..edges.len())
        .map(|k| (start + k) % edges.len())
        .find_map(|e| {
            let (a, b) = edges[e];
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = (dx * dx + dy * dy).sqrt();
            if len < 100.0 {
                return None;
            }
            // The water is on the left of a counter-clockwise ring: outward is to the right.
            let (nx, ny) = if counter_clockwise { (dy / len, -dx / len) } else { (-dy / len, dx / len) };
            let q = [(a[0] + b[0]) / 2.0 + 300.0 * nx, (a[1] + b[1]) / 2.0 + 300.0 * ny];
            let outside = !bay.0.iter().any(|p| in_polygon(q, p));
            (outside && (nearest_by_hand(q) - 300.0).abs() < 1e-6).then_some((q, e))
        })
        .expect("some edge of the outline has a clear 300 ft offset");
    let d = shore.distance_from_point(q);
    println!("Little Sodus Bay: 300 ft out from edge {edge} → {d:?} ft");
    assert!(d.is_some_and(|d| (d - 300.0).abs() <= 0.5), "expected 300 ± 0.5 ft, got {d:?}");
}
