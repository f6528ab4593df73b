//! The lakefront predicates: distance from a parcel or system to the mean-high-water line, and whether a
//! parcel borders it.
//!
//! The mean-high-water line is the boundary of each lake polygon (islands included), or a line feature. It is
//! indexed piece by piece ([`crate::geom::index::LineIndex`]); a parcel is measured only against the pieces within
//! the search radius of it, with exact polygon-to-segment distances.
//!
//! The same [`DistanceIndex`] measures from watercourses and wetlands (Art. V §V.B.5) and from a buffer
//! report's source layer: named features, whose lines, polygon rings and points are measured exactly.

use geo::{Geometry, MultiPolygon};

use crate::geom::index::{push_pieces, AreaIndex, LineIndex};
use crate::geom::planar::polygons;
use crate::model::facts::{Name, NearestWater};

/// Named features indexed for exact distances within a search radius: the shorelines of the rule set's water
/// bodies, the watercourses, a buffer report's source. Lines and polygon rings are split into pieces, points
/// are pieces of no length, and a point or parcel inside a polygon is at distance 0.
#[derive(Debug)]
pub struct DistanceIndex {
    lines: LineIndex,
    lakes: AreaIndex,
    /// Water body name of each shoreline feature (the owner index of its pieces).
    names: Vec<Name>,
    radius_ft: f64,
}

impl DistanceIndex {
    /// Indexes named features: polygons (lakes; their rings are the mean-high-water line), lines and
    /// points. The features are borrowed: the index keeps their pieces, the lake polygons' small parts and
    /// the names, not the geometries. `radius_ft` bounds the search: distances up to it are exact, farther
    /// ones are reported as "beyond".
    pub fn new<'a>(features: impl IntoIterator<Item = (&'a Geometry<f64>, &'a str)>, radius_ft: f64) -> Self {
        let mut pieces = Vec::new();
        let mut lakes = Vec::new();
        let mut names = Vec::new();
        for (owner, (geometry, name)) in features.into_iter().enumerate() {
            let owner = owner as u32;
            add_lines(geometry, owner, &mut pieces);
            if let Some(parts) = polygons(geometry) {
                lakes.push((parts, owner));
            }
            names.push(Name::from(name));
        }
        DistanceIndex {
            lines: LineIndex::within(pieces, radius_ft),
            lakes: AreaIndex::new(lakes),
            names,
            radius_ft,
        }
    }

    /// How far out distances are measured exactly, feet.
    pub fn radius_ft(&self) -> f64 {
        self.radius_ft
    }

    /// Number of indexed shoreline pieces.
    pub fn pieces(&self) -> usize {
        self.lines.len()
    }

    /// The nearest mean-high-water line within the search radius of the parcel; distance 0 when the parcel
    /// overlaps a lake.
    pub fn nearest_to_parcel(&self, shape: &MultiPolygon<f64>) -> Option<NearestWater> {
        if let Some(&lake) = self.lakes.intersecting(shape).first() {
            return Some(NearestWater {
                water_body: self.names[lake as usize].clone(),
                parcel_distance_ft: 0.0,
            });
        }
        self.lines.nearest_to_area(shape, self.radius_ft).map(|hit| NearestWater {
            water_body: self.names[hit.owner as usize].clone(),
            parcel_distance_ft: hit.distance_ft,
        })
    }

    /// Distance from a line to the nearest indexed feature, if within the search radius (0 when it touches
    /// or crosses one, or runs into a lake).
    pub fn distance_from_line(&self, line: &geo::LineString<f64>) -> Option<f64> {
        if line.0.iter().any(|c| !self.lakes.containing([c.x, c.y]).is_empty()) {
            return Some(0.0);
        }
        line.lines()
            .filter_map(|l| {
                self.lines.nearest_to_segment([l.start.x, l.start.y], [l.end.x, l.end.y], self.radius_ft)
            })
            .map(|hit| hit.distance_ft)
            .min_by(f64::total_cmp)
    }

    /// Distance from a point (a system) to the nearest mean-high-water line, if within the search radius;
    /// 0 for a point in the water.
    pub fn distance_from_point(&self, p: [f64; 2]) -> Option<f64> {
        if !self.lakes.containing(p).is_empty() {
            return Some(0.0);
        }
        self.lines.nearest_to_point(p, self.radius_ft).map(|hit| hit.distance_ft)
    }
}

fn add_lines(geometry: &Geometry<f64>, owner: u32, pieces: &mut Vec<crate::geom::index::Segment>) {
    match geometry {
        Geometry::LineString(l) => push_pieces(l.0.iter().copied(), owner, pieces),
        Geometry::MultiLineString(ml) => {
            ml.0.iter().for_each(|l| push_pieces(l.0.iter().copied(), owner, pieces))
        }
        Geometry::Polygon(p) => std::iter::once(p.exterior())
            .chain(p.interiors())
            .for_each(|r| push_pieces(r.0.iter().copied(), owner, pieces)),
        Geometry::MultiPolygon(mp) => mp.0.iter().for_each(|p| {
            std::iter::once(p.exterior())
                .chain(p.interiors())
                .for_each(|r| push_pieces(r.0.iter().copied(), owner, pieces))
        }),
        Geometry::GeometryCollection(gc) => gc.0.iter().for_each(|g| add_lines(g, owner, pieces)),
        // A point is a piece of no length: wells, systems.
        Geometry::Point(p) => {
            pieces.push(crate::geom::index::Segment { a: [p.x(), p.y()], b: [p.x(), p.y()], owner })
        }
        Geometry::MultiPoint(mp) => mp.0.iter().for_each(|p| {
            pieces.push(crate::geom::index::Segment { a: [p.x(), p.y()], b: [p.x(), p.y()], owner })
        }),
        _ => {}
    }
}
