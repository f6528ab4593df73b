//! Where a layer lies: its extent (a box, grown feature by feature) and the screen that makes a feature with
//! an impossible vertex unusable — a coordinate outside the working CRS's area of use, or one far outside the
//! rest of its layer (a vertex at x = 1e300, a digit too many).
//!
//! Both are one pass over the coordinates a layer has anyway, on all cores; nothing here is decided from a
//! single feature's neighbours, so a layer spanning a county (tens of miles) or a state is never screened
//! out, while a vertex hundreds of miles from the rest of its layer is.

use std::path::Path;

use geo::{coord, CoordsIter, Geometry, Rect};
use rayon::prelude::*;

use super::{proj_string, Crs, Reprojector};
use crate::crs::layer::{Feature, GeometryError};
use crate::model::error::Problem;

/// How far outside the middle of its layer a vertex may lie, at the least, in metres (about 190 miles):
/// farther than any county reaches from its own middle, nearer than a misplaced digit puts a vertex.
const FAR_METRES: f64 = 304_800.0;

/// How many times the span of the middle half of a layer's vertices a vertex may lie outside it.
const FAR_SPANS: f64 = 4.0;

/// The box around two boxes.
pub fn union(a: Rect<f64>, b: Rect<f64>) -> Rect<f64> {
    Rect::new(
        coord! { x: a.min().x.min(b.min().x), y: a.min().y.min(b.min().y) },
        coord! { x: a.max().x.max(b.max().x), y: a.max().y.max(b.max().y) },
    )
}

/// Whether two boxes share a point (touching counts).
pub fn intersects(a: &Rect<f64>, b: &Rect<f64>) -> bool {
    a.min().x <= b.max().x && b.min().x <= a.max().x && a.min().y <= b.max().y && b.min().y <= a.max().y
}

/// The box of the finite coordinates of `geometry`, if it has any.
pub fn extent_of(geometry: &Geometry<f64>) -> Option<Rect<f64>> {
    let mut finite = geometry.coords_iter().filter(|c| c.x.is_finite() && c.y.is_finite());
    let first = finite.next()?;
    let (mut lo, mut hi) = (first, first);
    for c in finite {
        (lo.x, lo.y, hi.x, hi.y) = (lo.x.min(c.x), lo.y.min(c.y), hi.x.max(c.x), hi.y.max(c.y));
    }
    Some(Rect::new(lo, hi))
}

/// The box of the usable geometries of `features`, if any has a finite coordinate.
pub fn extent_of_features(features: &[Feature]) -> Option<Rect<f64>> {
    features.par_iter().filter_map(|f| f.geometry.as_ref().ok().and_then(extent_of)).reduce_with(union)
}

/// Grows `extent` by `more`.
pub fn grow(extent: &mut Option<Rect<f64>>, more: Option<Rect<f64>>) {
    if let Some(more) = more {
        *extent = Some(extent.map_or(more, |e| union(e, more)));
    }
}

/// The area of use of a CRS as longitude and latitude bounds, in degrees: `(west, south, east, north)`.
///
/// The built-in EPSG table has no areas of use, so it is what the projection can stand for: a transverse
/// Mercator (State Plane, UTM) 20° either side of its central meridian, a Lambert conformal conic 40°, every
/// other projection the globe; latitudes to 84° and the globe for a geographic CRS. A coordinate outside it
/// is not a place the CRS describes, whatever the arithmetic returns.
pub fn area_of_use(crs: &Crs) -> Option<(f64, f64, f64, f64)> {
    let text = crs.to_proj_string().ok()?;
    if proj_string::is_geographic(&text) {
        return Some((-180.0, -90.0, 180.0, 90.0));
    }
    let lon_0 = match proj_string::get(&text, "proj") {
        Some("utm") => {
            let zone = proj_string::number(&text, "zone")?;
            -183.0 + 6.0 * zone
        }
        _ => proj_string::number(&text, "lon_0").unwrap_or(0.0),
    };
    let half = match proj_string::get(&text, "proj") {
        Some("tmerc" | "utm" | "etmerc") => 20.0,
        Some("lcc") => 40.0,
        _ => return Some((-180.0, -84.0, 180.0, 84.0)),
    };
    Some(((lon_0 - half).max(-180.0), -84.0, (lon_0 + half).min(180.0), 84.0))
}

/// The box in `crs`'s own coordinates around the points of its area of use that it can project (its
/// boundary and a grid inside, every degree), or `None` when it can project none.
fn area_box(crs: &Crs) -> Option<Rect<f64>> {
    let (west, south, east, north) = area_of_use(crs)?;
    let to = Reprojector::new(&Crs::wgs84(), crs).ok()?;
    let steps = 64;
    let mut extent = None;
    for i in 0..=steps {
        for j in 0..=steps {
            let lon = west + (east - west) * f64::from(i) / f64::from(steps);
            let lat = south + (north - south) * f64::from(j) / f64::from(steps);
            if let Ok(g) = to.transform(&Geometry::Point(geo::Point::new(lon, lat))) {
                grow(&mut extent, extent_of(&g));
            }
        }
    }
    extent
}

/// The finite x and y coordinates of every `stride`th feature, for about 16,384 features, each sorted; `None`
/// when there are none. A few stray coordinates then move a quantile by a few places, not a box by miles.
pub(super) fn sampled_coords(features: &[Feature]) -> Option<(Vec<f64>, Vec<f64>)> {
    const SAMPLE: usize = 1 << 14;
    let stride = features.len().div_ceil(SAMPLE).max(1);
    let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = features
        .iter()
        .step_by(stride)
        .filter_map(|f| f.geometry.as_ref().ok())
        .flat_map(|g| g.coords_iter())
        .filter(|c| c.x.is_finite() && c.y.is_finite())
        .map(|c| (c.x, c.y))
        .unzip();
    if xs.is_empty() {
        return None;
    }
    xs.sort_unstable_by(f64::total_cmp);
    ys.sort_unstable_by(f64::total_cmp);
    Some((xs, ys))
}

/// The middle of a layer: the box of the middle half of its vertices in each direction, from a sample of its
/// features.
fn middle(features: &[Feature]) -> Option<Rect<f64>> {
    let (xs, ys) = sampled_coords(features)?;
    let quartiles = |v: &[f64]| (v[v.len() / 4], v[(v.len() - 1) - v.len() / 4]);
    let ((x0, x1), (y0, y1)) = (quartiles(&xs), quartiles(&ys));
    Some(Rect::new(coord! { x: x0, y: y0 }, coord! { x: x1, y: y1 }))
}

/// The screen a layer's features pass after reprojection into the working CRS: a feature with a vertex
/// outside the working CRS's area of use, or far outside the middle of its layer, becomes unusable (its
/// geometry an `Err` with the reason) and is reported.
#[derive(Debug, Clone)]
pub struct Screen {
    working: String,
    /// The area of use in working coordinates.
    area: Option<Rect<f64>>,
    /// The middle of the layer and how far outside it a vertex may lie, once the first features are seen.
    middle: Option<(Rect<f64>, f64)>,
    /// [`FAR_METRES`] in working units.
    far: f64,
}

impl Screen {
    /// A screen for layers in `working`, the working CRS.
    pub fn new(working: &Crs) -> Screen {
        let unit = working.linear_unit().ok().flatten().map_or(1.0, |u| u.to_metre());
        Screen {
            working: working.short_name(),
            area: area_box(working),
            middle: None,
            far: FAR_METRES / unit,
        }
    }

    /// Screens `features` of the layer at `path`, in the working CRS, returning a problem for each one made
    /// unusable. The middle of the layer is taken from the first features screened: the whole layer when it
    /// is read whole, its first block when it is read in blocks (a county's parcels lie well within the
    /// reach of any block of them).
    pub fn screen(&mut self, path: &Path, features: &mut [Feature]) -> Vec<Problem> {
        if self.middle.is_none() {
            self.middle = middle(features).map(|m| {
                let span = m.width().max(m.height());
                (m, (FAR_SPANS * span).max(self.far))
            });
        }
        let this = &*self;
        features
            .par_iter_mut()
            .filter_map(|feature| {
                let geometry = feature.geometry.as_ref().ok()?;
                let why = this.reject(geometry)?;
                let problem = Problem::new(path, feature.location(), why.to_string());
                feature.geometry = Err(why);
                Some(problem)
            })
            .collect()
    }

    /// Why `geometry` cannot be used, if it cannot.
    fn reject(&self, geometry: &Geometry<f64>) -> Option<GeometryError> {
        let outside = |r: &Rect<f64>, c: &geo::Coord<f64>, margin: f64| {
            c.x < r.min().x - margin
                || c.x > r.max().x + margin
                || c.y < r.min().y - margin
                || c.y > r.max().y + margin
        };
        for c in geometry.coords_iter() {
            let (x, y) = (c.x, c.y);
            if !(x.is_finite() && y.is_finite()) {
                return Some(GeometryError::NotFiniteVertex { x, y });
            }
            if let Some(&area) = self.area.as_ref().filter(|a| outside(a, &c, 0.0)) {
                return Some(GeometryError::OutsideAreaOfUse { x, y, crs: self.working.clone(), area });
            }
            if let Some(&(middle, margin)) =
                self.middle.as_ref().filter(|(m, margin)| outside(m, &c, *margin))
            {
                return Some(GeometryError::FarFromLayer { x, y, crs: self.working.clone(), margin, middle });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use geo::{polygon, Point};

    use super::*;
    use crate::model::error::Location;

    fn feature(record: usize, geometry: Geometry<f64>) -> Feature {
        Feature { record, fid: None, geometry: Ok(geometry), values: Vec::new() }
    }

    /// A square parcel of 200 ft at (x, y), in EPSG:2261 feet near Auburn, NY.
    fn parcel(record: usize, x: f64, y: f64) -> Feature {
        let p =
            polygon![(x: x, y: y), (x: x + 200.0, y: y), (x: x + 200.0, y: y + 200.0), (x: x, y: y + 200.0)];
        feature(record, Geometry::Polygon(p))
    }

    /// A county of parcels 30 miles across (158,400 ft), with one parcel at each far corner.
    fn county() -> Vec<Feature> {
        let mut features: Vec<Feature> = (0..400)
            .map(|i| parcel(i + 1, 800_000.0 + f64::from(i as u32 % 20) * 300.0, 1_060_000.0))
            .collect();
        features.push(parcel(401, 800_000.0 - 80_000.0, 1_060_000.0 - 80_000.0));
        features.push(parcel(402, 800_000.0 + 78_400.0, 1_060_000.0 + 78_400.0));
        features
    }

    #[test]
    fn a_county_passes_whole() {
        let mut features = county();
        let problems = Screen::new(&Crs::ny_central_ftus()).screen(Path::new("p.shp"), &mut features);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(features.iter().all(|f| f.geometry.is_ok()));
    }

    #[test]
    fn a_vertex_at_1e300_or_1e7_ft_away_makes_its_feature_unusable() {
        for (far, words) in [(1e300, "area of use"), (1.0e7, "")] {
            let mut features = county();
            let Ok(Geometry::Polygon(p)) = &mut features[10].geometry else { unreachable!() };
            p.exterior_mut(|ring| ring.0[1].y += far);
            let mut screen = Screen::new(&Crs::ny_central_ftus());
            let problems = screen.screen(Path::new("p.shp"), &mut features);
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert_eq!(problems[0].location, Location::Record(11));
            assert!(problems[0].message.contains(words), "{}", problems[0].message);
            assert!(features[10].geometry.is_err());
            assert_eq!(features.iter().filter(|f| f.geometry.is_err()).count(), 1);
        }
    }

    #[test]
    fn a_vertex_far_from_its_layer_is_found_where_the_area_of_use_is_the_globe() {
        // EPSG:5070 (Albers, in metres) covers the globe here: only the distance from the layer tells.
        let crs = Crs::parse("EPSG:5070").unwrap();
        let mut features: Vec<Feature> = (0..50)
            .map(|i| feature(i + 1, Geometry::Point(Point::new(1.5e6 + f64::from(i as u32), 2.3e6))))
            .collect();
        features.push(feature(51, Geometry::Point(Point::new(1.5e6 + 3.0e6, 2.3e6))));
        let problems = Screen::new(&crs).screen(Path::new("s.geojson"), &mut features);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].message.contains("middle of its layer"), "{}", problems[0].message);
    }

    #[test]
    fn extents_grow_and_meet() {
        let a = Rect::new(coord! { x: 0.0, y: 0.0 }, coord! { x: 1.0, y: 1.0 });
        let b = Rect::new(coord! { x: 1.0, y: 1.0 }, coord! { x: 2.0, y: 3.0 });
        let c = Rect::new(coord! { x: 1.5, y: -2.0 }, coord! { x: 2.0, y: -1.0 });
        assert!(intersects(&a, &b) && !intersects(&a, &c) && !intersects(&b, &c));
        assert_eq!(union(a, c), Rect::new(coord! { x: 0.0, y: -2.0 }, coord! { x: 2.0, y: 1.0 }));
        let mut e = None;
        grow(&mut e, Some(a));
        grow(&mut e, None);
        grow(&mut e, Some(b));
        assert_eq!(e, Some(Rect::new(coord! { x: 0.0, y: 0.0 }, coord! { x: 2.0, y: 3.0 })));
    }
}
