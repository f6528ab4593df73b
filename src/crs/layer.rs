//! The in-memory form of a GIS layer: features with a geometry and the attribute values the pipeline kept.
//!
//! The readers produce a [`Layer`] in the file's own CRS; [`crate::crs::Reprojector`] turns it into a
//! [`Projected`] layer in the working CRS, the only form classification accepts. A layer holds its [`Crs`], so
//! it stands on the floor of the CRSs, beside the reprojector that consumes and produces layers.

use std::path::PathBuf;

use geo::{Geometry, Rect};

use crate::crs::Crs;
use crate::model::error::Location;

/// One attribute value, as read from a `.dbf` field or a GeoJSON property.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Absent, empty or JSON `null`.
    Null,
    /// Text (trimmed of the padding `.dbf` files carry).
    Text(Box<str>),
    /// Any number.
    Number(f64),
    /// A boolean (`.dbf` logical field or JSON `true`/`false`).
    Bool(bool),
}

impl Value {
    /// The value as text, if it is not null: numbers print without a trailing `.0` when whole.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Null => None,
            Value::Text(s) => Some(s.to_string()),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Some(format!("{}", *n as i64)),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
        }
    }

    /// The value as a number: numbers, and text that parses as one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

/// Why a record's geometry could not be used. The record itself is kept.
///
/// The readers find the first kinds (a shape that is missing, empty, unreadable or malformed), reprojection
/// and the screen of the working CRS the last ones (a vertex that cannot be reprojected or lies out of place).
/// The text is what the problems and the schedule's reasons say.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeometryError {
    /// A geometry with no coordinates.
    #[error("empty geometry")]
    Empty,
    /// A coordinate that is NaN or infinite, as a reader found it.
    #[error("non-finite coordinate (NaN or infinity)")]
    NonFinite,
    /// A line of fewer than 2 points.
    #[error("line with fewer than 2 points")]
    ShortLine,
    /// A polygon ring of fewer than 4 points.
    #[error("polygon ring with {points} points (a ring needs at least 4, the first repeated as the last)")]
    ShortRing {
        /// The points the ring has.
        points: usize,
    },
    /// A shapefile record of the null shape type.
    #[error("null shape (the record has no geometry)")]
    NullShape,
    /// A shapefile multipatch, a 3-D surface.
    #[error("multipatch shape (a 3-D surface)")]
    Multipatch,
    /// A shapefile record whose shape does not parse.
    #[error("unreadable shape ({0})")]
    UnreadableShape(String),
    /// A table row (GeoPackage, GeoParquet) whose geometry is null.
    #[error("null geometry (the row has no shape)")]
    NullRow,
    /// A GeoPackage geometry blob that does not parse.
    #[error("unreadable geometry blob ({0})")]
    UnreadableBlob(String),
    /// A GeoPackage geometry column holding something other than a blob.
    #[error("the geometry column holds no blob")]
    NotABlob,
    /// A GeoParquet WKB value that does not parse.
    #[error("unreadable WKB ({0})")]
    UnreadableWkb(String),
    /// A GeoJSON feature with no geometry.
    #[error("no geometry")]
    NoGeometry,
    /// A GeoJSON geometry that does not parse.
    #[error("unreadable geometry ({0})")]
    UnreadableGeoJson(String),
    /// A GeoJSON position of fewer than 2 coordinates.
    #[error("a position with fewer than 2 coordinates")]
    ShortPosition,
    /// A member of a GeoJSON `features` array whose type is not `Feature`.
    #[error("not a GeoJSON Feature (its type is not \"Feature\")")]
    NotAFeature,
    /// A GeoJSON feature whose geometry was not read.
    #[error("geometry not read")]
    NotRead,
    /// A geometry of a WGS 84 layer outside longitude/latitude range by `span` (`x min..max, y min..max`).
    #[error("coordinates outside longitude/latitude range ({span})")]
    OutsideLonLat {
        /// The geometry's bounds.
        span: String,
    },
    /// A vertex the reprojection from `from` to `to` fails on, for `reason`.
    #[error(
        "vertex ({x}, {y}) cannot be reprojected from {from} to {to}: {reason}; check the layer's CRS (its .prj \
         or GeoJSON crs) or pass --assume-crs"
    )]
    Unprojectable {
        /// The vertex's x, in the layer's CRS.
        x: f64,
        /// The vertex's y.
        y: f64,
        /// The layer's CRS, by its short name.
        from: String,
        /// The working CRS, by its short name.
        to: String,
        /// Why the vertex fails.
        reason: String,
    },
    /// A vertex in the working CRS that is NaN or infinite.
    #[error("vertex ({x}, {y}) is not a finite number; the feature is not used: fix the vertex")]
    NotFiniteVertex {
        /// The vertex's x.
        x: f64,
        /// The vertex's y.
        y: f64,
    },
    /// A vertex outside the working CRS's area of use.
    #[error(
        "vertex ({x:.0}, {y:.0}) in {crs} lies outside the CRS's area of use (x {:.0} to {:.0}, y {:.0} to \
         {:.0}); the feature is not used: fix the vertex, or check the layer's CRS",
        .area.min().x,
        .area.max().x,
        .area.min().y,
        .area.max().y
    )]
    OutsideAreaOfUse {
        /// The vertex's x, in the working CRS.
        x: f64,
        /// The vertex's y.
        y: f64,
        /// The working CRS, by its short name.
        crs: String,
        /// The area of use, in the working CRS.
        area: Rect<f64>,
    },
    /// A vertex more than `margin` outside the middle of its layer.
    #[error(
        "vertex ({x:.0}, {y:.0}) in {crs} lies more than {margin:.0} ft outside the middle of its layer (x {:.0} \
         to {:.0}, y {:.0} to {:.0}); the feature is not used: fix the vertex",
        .middle.min().x,
        .middle.max().x,
        .middle.min().y,
        .middle.max().y
    )]
    FarFromLayer {
        /// The vertex's x, in the working CRS.
        x: f64,
        /// The vertex's y.
        y: f64,
        /// The working CRS, by its short name.
        crs: String,
        /// How far outside the middle a vertex may lie, in the working CRS's units.
        margin: f64,
        /// The middle of the layer.
        middle: Rect<f64>,
    },
}

/// One record of a layer.
#[derive(Debug, Clone)]
pub struct Feature {
    /// 1-based record number in the file (the `.shp` record number, or the GeoJSON feature's position).
    pub record: usize,
    /// The row's own id in a layer whose rows have one (a GeoPackage's `fid`), which problems show beside
    /// the record number.
    pub fid: Option<i64>,
    /// The geometry, or why it is unusable (empty, NaN coordinates, null shape, unreadable).
    pub geometry: Result<Geometry<f64>, GeometryError>,
    /// Attribute values, one per entry of [`Layer::fields`], in that order.
    pub values: Vec<Value>,
}

impl Feature {
    /// Where the feature is, as problems name it: `record 3`, or `record 3 (fid 0)`.
    pub fn location(&self) -> Location {
        Location::record(self.record, self.fid)
    }
}

/// A layer as read from a file: features in the file's own CRS.
#[derive(Debug, Clone)]
pub struct Layer {
    /// The file the layer came from (the `.shp` for a shapefile).
    pub path: PathBuf,
    /// The CRS the coordinates are in.
    pub crs: Crs,
    /// Names of the attribute fields kept, in the order of [`Feature::values`].
    pub fields: Vec<String>,
    /// The records, in file order.
    pub features: Vec<Feature>,
}

impl Layer {
    /// The index of the field called `name` (compared without regard to ASCII case).
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.eq_ignore_ascii_case(name))
    }
}

/// A value whose coordinates are in the working, feet-based projected CRS.
///
/// Only [`crate::crs::Reprojector`] makes one, so geometry code that takes a `Projected<_>` cannot be handed
/// longitude/latitude by mistake.
#[derive(Debug, Clone)]
pub struct Projected<T>(pub(crate) T);

impl<T> Projected<T> {
    /// The inner value.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// Takes the inner value out.
    pub fn into_inner(self) -> T {
        self.0
    }

    /// Wraps a value the caller asserts is already in the working CRS (tests and generators).
    pub fn assume_projected(value: T) -> Self {
        Projected(value)
    }
}
