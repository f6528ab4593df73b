//! The in-memory form of a GIS layer: features with a geometry and the attribute values the pipeline kept.
//!
//! The readers produce a [`Layer`] in the file's own CRS; [`crate::crs::Reprojector`] turns it into a
//! [`Projected`] layer in the working CRS, the only form classification accepts. A layer holds its [`Crs`], so
//! it stands on the floor of the CRSs, beside the reprojector that consumes and produces layers.

use std::path::PathBuf;

use geo::Geometry;

use crate::crs::Crs;

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
pub type GeometryError = String;

/// One record of a layer.
#[derive(Debug, Clone)]
pub struct Feature {
    /// 1-based record number in the file (the `.shp` record number, or the GeoJSON feature's position).
    pub record: usize,
    /// The geometry, or why it is unusable (empty, NaN coordinates, null shape, unreadable).
    pub geometry: Result<Geometry<f64>, GeometryError>,
    /// Attribute values, one per entry of [`Layer::fields`], in that order.
    pub values: Vec<Value>,
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
