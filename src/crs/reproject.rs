//! [`Reprojector`]: moving layers and geometries from one CRS to another, in parallel, never dropping a
//! record.
//!
//! A vertex that cannot be transformed (outside the projection's domain, NaN, infinite) turns its feature's
//! geometry into `Err(reason)` and adds a [`Problem`] naming the record; the other features go on.

use geo::{CoordsIter, Geometry};
use rayon::prelude::*;

use super::backend::{Active, Backend};
use super::{grid, same_crs, Crs};
use crate::crs::layer::{GeometryError, Layer, Projected};
use crate::model::error::{Problem, Result};

/// Interpolation on large layers stays within this distance of the exact transformation: far below the
/// accuracy of any parcel map, and small enough that the two backends still agree to 0.01 ft.
const TOLERANCE_METRES: f64 = 0.0003;

/// Transforms coordinates from one CRS to another.
pub struct Reprojector {
    from: Crs,
    to: Crs,
    /// `None` when both CRSs are the same: nothing to compute.
    backend: Option<Active>,
    /// The interpolation tolerance in target units.
    tolerance: f64,
}

impl std::fmt::Debug for Reprojector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reprojector")
            .field("from", &self.from.short_name())
            .field("to", &self.to.short_name())
            .field("identity", &self.is_identity())
            .finish()
    }
}

impl Reprojector {
    /// A transformation from `from` to `to`.
    ///
    /// When both describe the same CRS (same EPSG code, same PROJ string, or the same projection to 2 mm) the
    /// reprojector is the identity and costs nothing.
    pub fn new(from: &Crs, to: &Crs) -> Result<Self> {
        let tolerance = match to.linear_unit() {
            Ok(Some(unit)) => TOLERANCE_METRES / unit.to_metre(),
            // A degree of latitude is ~111 km; a degree of longitude is shorter, so this is conservative.
            Ok(None) => TOLERANCE_METRES / 111_320.0,
            Err(_) => 0.0,
        };
        let same = from == to || {
            let (a, b) = (from.to_proj_string(), to.to_proj_string());
            matches!((&a, &b), (Ok(a), Ok(b)) if a == b || same_crs(a, b))
        };
        let backend = if same { None } else { Some(Active::new(from, to)?) };
        Ok(Reprojector { from: from.clone(), to: to.clone(), backend, tolerance })
    }

    /// The source CRS.
    pub fn from(&self) -> &Crs {
        &self.from
    }

    /// The target CRS.
    pub fn to(&self) -> &Crs {
        &self.to
    }

    /// Whether the two CRSs are the same, so that reprojecting changes nothing.
    pub fn is_identity(&self) -> bool {
        self.backend.is_none()
    }

    /// Reprojects every feature of `layer`; a feature whose coordinates cannot be transformed keeps its
    /// record with a geometry error, and a [`Problem`] names it.
    ///
    /// The layer's coordinates are taken to be in [`Reprojector::from`] (build the reprojector from
    /// `layer.crs`); the result's `crs` is [`Reprojector::to`]. Features are processed in parallel.
    ///
    /// On layers of more than 20 000 vertices most vertices are interpolated on a grid of exact values,
    /// within 0.3 mm (0.001 ft) of the exact transformation; the private `grid` module explains how every
    /// cell is checked. [`Reprojector::transform`] is always exact.
    pub fn project_layer(&self, mut layer: Layer) -> (Projected<Layer>, Vec<Problem>) {
        layer.crs = self.to.clone();
        let Some(backend) = &self.backend else {
            return (Projected(layer), Vec::new());
        };
        let exact = |x: f64, y: f64| backend.transform_point(x, y);
        let grid = layer_grid(&layer, &exact, self.tolerance);
        let point = |x: f64, y: f64| match grid.as_ref().and_then(|g| g.interpolate(x, y)) {
            Some(p) => Ok(p),
            None => exact(x, y),
        };
        let path = layer.path.clone();
        let problems = layer
            .features
            .par_iter_mut()
            .filter_map(|feature| {
                let geometry = feature.geometry.as_mut().ok()?;
                let why = self.apply(geometry, &point).err()?;
                let problem = Problem::new(&path, feature.location(), why.to_string());
                feature.geometry = Err(why);
                Some(problem)
            })
            .collect();
        (Projected(layer), problems)
    }

    /// Transforms one geometry, exactly. A `Rect` or `Triangle` comes back as a `Polygon`, since its sides
    /// need not stay parallel to the axes.
    pub fn transform(&self, geometry: &Geometry<f64>) -> Result<Geometry<f64>, GeometryError> {
        let mut out = geometry.clone();
        if let Some(backend) = &self.backend {
            self.apply(&mut out, &|x, y| backend.transform_point(x, y))?;
        }
        Ok(out)
    }

    /// Transforms `geometry` in place with `point`, describing the first vertex that fails.
    fn apply(&self, geometry: &mut Geometry<f64>, point: &impl grid::PointFn) -> Result<(), GeometryError> {
        as_polygons(geometry);
        try_each_coord(geometry, &mut |c: &mut geo::Coord<f64>| {
            let failure = |reason: String| GeometryError::Unprojectable {
                x: c.x,
                y: c.y,
                from: self.from.short_name(),
                to: self.to.short_name(),
                reason,
            };
            if !(c.x.is_finite() && c.y.is_finite()) {
                return Err(failure("the coordinate is not a finite number".to_string()));
            }
            let (x, y) = point(c.x, c.y).map_err(failure)?;
            *c = geo::Coord { x, y };
            Ok(())
        })
    }
}

/// Calls `f` on every coordinate of `geometry` (after [`as_polygons`]), stopping at the first error.
///
/// `geo`'s `try_map_coords_in_place` cannot be used: its geometry-collection recursion borrows the closure
/// once more per level, which the compiler cannot instantiate. Here every level passes the same `&mut F`.
fn try_each_coord<F>(geometry: &mut Geometry<f64>, f: &mut F) -> Result<(), GeometryError>
where
    F: FnMut(&mut geo::Coord<f64>) -> Result<(), GeometryError>,
{
    fn ring<F>(line: &mut geo::LineString<f64>, f: &mut F) -> Result<(), GeometryError>
    where
        F: FnMut(&mut geo::Coord<f64>) -> Result<(), GeometryError>,
    {
        line.0.iter_mut().try_for_each(f)
    }
    fn polygon<F>(p: &mut geo::Polygon<f64>, f: &mut F) -> Result<(), GeometryError>
    where
        F: FnMut(&mut geo::Coord<f64>) -> Result<(), GeometryError>,
    {
        let mut exterior = Ok(());
        p.exterior_mut(|e| exterior = ring(e, f));
        exterior?;
        let mut interiors = Ok(());
        p.interiors_mut(|holes| interiors = holes.iter_mut().try_for_each(|h| ring(h, f)));
        interiors
    }
    match geometry {
        Geometry::Point(p) => f(&mut p.0),
        Geometry::Line(l) => f(&mut l.start).and_then(|()| f(&mut l.end)),
        Geometry::LineString(l) => ring(l, f),
        Geometry::Polygon(p) => polygon(p, f),
        Geometry::MultiPoint(m) => m.0.iter_mut().try_for_each(|p| f(&mut p.0)),
        Geometry::MultiLineString(m) => m.0.iter_mut().try_for_each(|l| ring(l, f)),
        Geometry::MultiPolygon(m) => m.0.iter_mut().try_for_each(|p| polygon(p, f)),
        Geometry::GeometryCollection(c) => c.0.iter_mut().try_for_each(|g| try_each_coord(g, f)),
        Geometry::Rect(_) | Geometry::Triangle(_) => {
            as_polygons(geometry);
            try_each_coord(geometry, f)
        }
    }
}

/// Replaces rectangles and triangles, recursively, by the polygons they stand for.
fn as_polygons(geometry: &mut Geometry<f64>) {
    match geometry {
        Geometry::Rect(r) => *geometry = Geometry::Polygon(r.to_polygon()),
        Geometry::Triangle(t) => *geometry = Geometry::Polygon(t.to_polygon()),
        Geometry::GeometryCollection(c) => c.0.iter_mut().for_each(as_polygons),
        _ => {}
    }
}

/// The interpolation grid for a layer, when it is large enough to pay for one.
///
/// The grid covers the central 99.8 % of the vertices of a sample of features in each direction (plus a
/// margin), so that a few stray coordinates (a vertex at latitude 91, a parcel digitised at 0, 0) do not
/// stretch it over half the globe; vertices outside it are transformed exactly.
fn layer_grid(layer: &Layer, exact: &impl grid::PointFn, tolerance: f64) -> Option<grid::InterpolationGrid> {
    let geometries = || layer.features.par_iter().filter_map(|f| f.geometry.as_ref().ok());
    let count: usize = geometries().map(|g| g.coords_count()).sum();
    if count < grid::MIN_VERTICES {
        return None;
    }
    let (xs, ys) = super::extent::sampled_coords(&layer.features)?;
    let range = |v: &[f64]| {
        let (lo, hi) = (v[v.len() / 1000], v[v.len() - 1 - v.len() / 1000]);
        let margin = (hi - lo) * 0.01;
        (lo - margin, hi + margin)
    };
    let ((x0, x1), (y0, y1)) = (range(&xs), range(&ys));
    grid::InterpolationGrid::build(exact, (x0, y0), (x1, y1), count, tolerance)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use geo::{coord, polygon, Coord, LineString, Point, Rect};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::crs::layer::{Feature, Value};
    use crate::crs::tests::{esri, renamed, ARCGIS_2261, WKT2_5070};
    use crate::model::error::Location;

    /// A point near Auburn, NY (north end of Owasco Lake), in WGS 84 degrees.
    const AUBURN: (f64, f64) = (-76.5663, 42.9317);

    /// Where `AUBURN` lands in each CRS, from pyproj 3.7.2 / PROJ 9.5.1:
    /// `Transformer.from_crs("EPSG:4326", f"EPSG:{code}", always_xy=True).transform(-76.5663, 42.9317)`.
    const ORACLE: &[(u32, f64, f64)] = &[
        (2261, 824769.888773, 1068183.742266),
        (26918, 372190.976947, 4754420.299515),
        (32618, 372190.976948, 4754420.299633),
        (3857, -8523321.527925, 5301581.661917),
        (2263, 296592.371903, 1017776.930718),
        (5070, 1566466.341820, 2375798.984674),
        (2265, 8299982.606264, -493624.933283),
        (6538, 90401.535759, 310219.028921),
    ];

    fn point(r: &Reprojector, x: f64, y: f64) -> (f64, f64) {
        match r.transform(&Geometry::Point(Point::new(x, y))) {
            Ok(Geometry::Point(p)) => (p.x(), p.y()),
            other => panic!("({x}, {y}) from {:?}: {other:?}", r),
        }
    }

    fn crs(text: &str) -> Crs {
        Crs::parse(text).unwrap()
    }

    #[test]
    fn the_natural_origin_maps_to_the_false_easting() {
        // EPSG:2261 is a transverse Mercator with lat_0 = 40, lon_0 = -76°35' and a false easting of
        // 820 208.333 US survey feet (249 999.9998984 m): at the origin the series vanish and
        // (x, y) = (FE, FN).
        let r = Reprojector::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
        let (x, y) = point(&r, -76.58333333333333, 40.0);
        assert!((x - 820208.333).abs() < 1e-6 && y.abs() < 1e-6, "({x}, {y})");
        // The ArcGIS .prj says 250 000 m exactly: 820 208.3333… ft.
        let r = Reprojector::new(&Crs::wgs84(), &crs(&renamed(ARCGIS_2261))).unwrap();
        let (x, _) = point(&r, -76.58333333333333, 40.0);
        assert!((x - 250_000.0 / 0.3048006096012192).abs() < 1e-6, "{x}");
    }

    #[test]
    fn agrees_with_proj_on_every_supported_projection() {
        for &(code, ex, ey) in ORACLE {
            let r = Reprojector::new(&Crs::wgs84(), &crs(&format!("EPSG:{code}"))).unwrap();
            let (x, y) = point(&r, AUBURN.0, AUBURN.1);
            assert!(
                (x - ex).abs() < 1e-3 && (y - ey).abs() < 1e-3,
                "EPSG:{code}: ({x}, {y}) vs ({ex}, {ey})"
            );
        }
        // The same through WKT whose names no table knows, i.e. through the parameter translation.
        for (code, wkt) in [
            (2263, renamed(esri(2263))),
            (5070, renamed(WKT2_5070).replace(r#",ID["EPSG",5070]"#, "")),
            (3857, renamed(esri(3857))),
            (2265, renamed(esri(2265))),
            (26918, renamed(esri(26918))),
        ] {
            let (_, ex, ey) = *ORACLE.iter().find(|o| o.0 == code).unwrap();
            let r = Reprojector::new(&Crs::wgs84(), &crs(&wkt)).unwrap();
            let (x, y) = point(&r, AUBURN.0, AUBURN.1);
            assert!(
                (x - ex).abs() < 2e-3 && (y - ey).abs() < 2e-3,
                "{code} via WKT: ({x}, {y}) vs ({ex}, {ey})"
            );
        }
    }

    #[test]
    fn projected_to_projected_and_back() {
        // pyproj 3.7.2: EPSG:26918 (372190.976947, 4754420.299515)
        //   → EPSG:2261 (824769.888774, 1068183.742266);
        // EPSG:2261 (800000, 1000000) → EPSG:4326 (-76.6585660548, 42.7445866033).
        let r = Reprojector::new(&crs("EPSG:26918"), &Crs::ny_central_ftus()).unwrap();
        let (x, y) = point(&r, 372190.976947, 4754420.299515);
        assert!((x - 824769.888774).abs() < 1e-3 && (y - 1068183.742266).abs() < 1e-3, "({x}, {y})");
        let back = Reprojector::new(&Crs::ny_central_ftus(), &Crs::wgs84()).unwrap();
        let (lon, lat) = point(&back, 800000.0, 1000000.0);
        assert!((lon + 76.6585660548).abs() < 1e-9 && (lat - 42.7445866033).abs() < 1e-9, "({lon}, {lat})");

        let there = Reprojector::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
        for i in 0..50 {
            let (x0, y0) = (600_000.0 + 10_000.0 * i as f64, 900_000.0 + 7_000.0 * i as f64);
            let (lon, lat) = point(&back, x0, y0);
            let (x, y) = point(&there, lon, lat);
            assert!((x - x0).abs() < 1e-6 && (y - y0).abs() < 1e-6, "({x0}, {y0}) came back as ({x}, {y})");
        }
    }

    #[test]
    fn same_crs_is_the_identity() {
        let ny = Crs::ny_central_ftus();
        assert!(Reprojector::new(&ny, &ny).unwrap().is_identity());
        assert!(Reprojector::new(&crs(ARCGIS_2261), &ny).unwrap().is_identity());
        assert!(Reprojector::new(&crs(&renamed(ARCGIS_2261)), &ny).unwrap().is_identity());
        // NAD83 and WGS 84 longitude/latitude are the same numbers without grid files.
        assert!(Reprojector::new(&crs(esri(4269)), &Crs::wgs84()).unwrap().is_identity());
        assert!(!Reprojector::new(&Crs::wgs84(), &ny).unwrap().is_identity());
    }

    fn layer(geometries: Vec<Result<Geometry<f64>, GeometryError>>) -> Layer {
        Layer {
            path: PathBuf::from("parcels.geojson"),
            crs: Crs::wgs84(),
            fields: vec!["id".into()],
            features: geometries
                .into_iter()
                .enumerate()
                .map(|(i, geometry)| Feature {
                    record: i + 1,
                    fid: None,
                    geometry,
                    values: vec![Value::Number(i as f64)],
                })
                .collect(),
        }
    }

    #[test]
    fn a_bad_vertex_costs_its_feature_its_geometry_and_nothing_else() {
        let r = Reprojector::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
        let good = polygon![(x: -76.5, y: 42.9), (x: -76.49, y: 42.9), (x: -76.49, y: 42.91)];
        let (projected, problems) = r.project_layer(layer(vec![
            Ok(good.clone().into()),
            Ok(Geometry::LineString(LineString::from(vec![(-76.5, 42.9), (-76.5, 95.0)]))),
            Err(GeometryError::NullShape),
            Ok(Geometry::Point(Point::new(f64::NAN, 42.9))),
            Ok(Geometry::Rect(Rect::new(coord! { x: -76.5, y: 42.9 }, coord! { x: -76.4, y: 43.0 }))),
        ]));
        let layer = projected.into_inner();
        assert_eq!(layer.crs, Crs::ny_central_ftus());
        assert_eq!(layer.features.len(), 5);
        assert!(layer.features[0].geometry.is_ok());
        let why = |i: usize| layer.features[i].geometry.as_ref().unwrap_err().to_string();
        assert!(
            why(1).starts_with("vertex (-76.5, 95) cannot be reprojected from EPSG:4326 to EPSG:2261"),
            "{}",
            why(1)
        );
        assert_eq!(layer.features[2].geometry, Err(GeometryError::NullShape));
        assert!(
            why(3).contains("the coordinate is not a finite number; check the layer's CRS"),
            "{}",
            why(3)
        );
        assert!(matches!(layer.features[4].geometry, Ok(Geometry::Polygon(_))), "a Rect becomes a Polygon");
        let records: Vec<&Location> = problems.iter().map(|p| &p.location).collect();
        assert_eq!(records, [&Location::Record(2), &Location::Record(4)]);
        assert!(problems[0].message.contains("--assume-crs"), "{}", problems[0].message);
        assert_eq!(problems[0].path, PathBuf::from("parcels.geojson"));
    }

    /// `n` small seeded random parcels (6–10 vertices, ~100–300 ft across) in WGS 84, centred within
    /// `half_size` degrees of a point near Auburn.
    fn random_parcels(n: usize, seed: u64, half_size: f64) -> Vec<Result<Geometry<f64>, GeometryError>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let cx = rng.random_range(-76.5 - half_size..-76.5 + half_size);
                let cy = rng.random_range(42.95 - half_size..42.95 + half_size);
                let k = rng.random_range(6..=10);
                let mut ring: Vec<Coord> = (0..k)
                    .map(|j| {
                        let a = j as f64 / k as f64 * std::f64::consts::TAU;
                        let r = rng.random_range(0.0003..0.0008);
                        coord! { x: cx + r * a.cos(), y: cy + r * a.sin() }
                    })
                    .collect();
                ring.push(ring[0]);
                Ok(Geometry::Polygon(geo::Polygon::new(LineString(ring), vec![])))
            })
            .collect()
    }

    #[test]
    fn large_layers_are_interpolated_within_the_tolerance() {
        let r = Reprojector::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
        // A town's worth of parcels, plus stray vertices that must neither stretch the grid nor be lost.
        let mut geometries = random_parcels(5_000, 7, 0.03);
        geometries.push(Ok(Geometry::Point(Point::new(-76.5, 91.0))));
        geometries.push(Ok(Geometry::Point(Point::new(0.0, 0.0))));
        let input = layer(geometries);
        let grid = layer_grid(&input, &|x, y| r.backend.as_ref().unwrap().transform_point(x, y), r.tolerance);
        let (cells, usable) = grid.expect("a grid for 45 000 vertices in a town").cells();
        assert!(usable > cells / 2, "{usable} of {cells} cells usable");

        let expected: Vec<_> =
            input.features.iter().map(|f| f.geometry.as_ref().map(|g| r.transform(g))).collect();
        let (projected, problems) = r.project_layer(input.clone());
        assert_eq!(problems.len(), 1, "{problems:?}");
        let mut worst: f64 = 0.0;
        for (feature, expected) in projected.get().features.iter().zip(expected) {
            match (&feature.geometry, expected) {
                (Ok(got), Ok(Ok(want))) => {
                    for (a, b) in got.coords_iter().zip(want.coords_iter()) {
                        worst = worst.max((a.x - b.x).abs()).max((a.y - b.y).abs());
                    }
                }
                (Err(_), Ok(Err(_))) => {}
                (got, want) => panic!("record {}: {got:?} vs {want:?}", feature.record),
            }
        }
        // 0.3 mm is 0.00098 ft; the grid really was used.
        assert!(worst < 0.001 && worst > 0.0, "worst difference {worst} ft");
    }

    /// Times the 1M-parcel case: `cargo test --release --lib -- --ignored --nocapture reproject_a_million`.
    #[test]
    #[ignore = "a benchmark; run with --release"]
    fn reproject_a_million_parcels() {
        let r = Reprojector::new(&Crs::wgs84(), &Crs::ny_central_ftus()).unwrap();
        let layer = layer(random_parcels(1_000_000, 1, 0.4));
        let vertices: usize =
            layer.features.iter().map(|f| f.geometry.as_ref().unwrap().coords_count()).sum();
        let mut best = std::time::Duration::MAX;
        for _ in 0..3 {
            let copy = layer.clone();
            let start = std::time::Instant::now();
            let (projected, problems) = r.project_layer(copy);
            best = best.min(start.elapsed());
            assert!(problems.is_empty());
            assert_eq!(projected.get().features.len(), 1_000_000);
        }
        // The exact path on a tenth of the layer, for comparison.
        let start = std::time::Instant::now();
        layer.features[..100_000].par_iter().for_each(|f| {
            r.transform(f.geometry.as_ref().unwrap()).unwrap();
        });
        let exact = start.elapsed() * 10;
        println!(
            "1M parcels, {vertices} vertices, {} threads: project_layer {best:?} (best of 3); \
             exact transformation of every vertex would take ~{exact:?}",
            rayon::current_num_threads()
        );
    }
}
