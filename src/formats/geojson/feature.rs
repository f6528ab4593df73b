//! One element of the `features` array, read from its bytes: its `type`, its `properties` (only the kept
//! ones turned into values) and its geometry, checked.
//!
//! Features are read on several threads at once, so a feature does not learn the slots of property names the
//! reader meets for the first time: it hands them back in [`Parsed::new`], and the reader gives them slots in
//! file order.
//!
//! A pass over the file need not read all of a feature ([`Reading`]): the first pass of a layer read in
//! blocks checks everything as a whole read does, so that it fails where a whole read fails, but builds
//! nothing but the property names; the pass for the ids reads a few values and passes over the rest.

use std::ops::Range;

use geo::{Coord, Geometry};
use rustc_hash::FxHashMap;

use super::geometry::{self, Bad};
use super::json::{Check, Cursor, Parse};
use super::FIX_GEOMETRY;
use crate::crs::layer::{GeometryError, Value};
use crate::formats::{check_geometry, Unusable};

/// Features are elements of the `features` array of the top-level object.
pub(super) const DEPTH: usize = 2;

/// How a part of a feature (its geometry, its properties) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// Read into its value.
    Read,
    /// Checked as reading it would check it, nothing built (property names are still met).
    Check,
    /// Passed over: only its end is found. For bytes that a pass before has checked.
    Pass,
}

/// How much of a feature a pass reads. The rest of the feature (its `type`, foreign members) is always
/// checked as a whole read checks it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reading<'a> {
    /// How the geometry is read.
    pub geometry: Part,
    /// How the properties are read.
    pub properties: Part,
    /// With `properties` [`Part::Read`], the slots whose values are read; `None` reads every kept one.
    pub slots: Option<&'a [usize]>,
}

impl Reading<'_> {
    /// Everything: the geometry and the values of the kept properties.
    pub const WHOLE: Reading<'static> = Reading { geometry: Part::Read, properties: Part::Read, slots: None };

    /// Nothing built, everything checked as [`Reading::WHOLE`] checks it; property names met.
    pub const CHECK: Reading<'static> =
        Reading { geometry: Part::Check, properties: Part::Check, slots: None };

    /// Whether the value of the property in `slot` is read.
    fn reads(&self, slot: usize) -> bool {
        self.properties == Part::Read && self.slots.is_none_or(|slots| slots.contains(&slot))
    }
}

/// Properties not named before, in the order met: the name and the value (`None` when the field is not kept
/// or the reading does not read values).
pub(super) type NewNames = Vec<(String, Option<Value>)>;

/// A feature as read, before it gets its record number.
#[derive(Debug)]
pub(super) struct Parsed {
    /// The geometry, or why it is unusable; `None` when the reading did not read it.
    pub geometry: Option<Result<Geometry<f64>, Unusable>>,
    /// The values of the properties whose slots were known, by slot (every kept slot, those not read null),
    /// when the reading reads properties; empty otherwise.
    pub values: Vec<Value>,
    /// Properties not named before.
    pub new: NewNames,
    /// Where the feature's properties lie in its bytes.
    pub properties: Properties,
}

/// Where a feature's `properties` member lies in its bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum Properties {
    /// The feature has none.
    #[default]
    None,
    /// The value of its one `properties` member.
    At(Range<usize>),
    /// It has more than one `properties` member (their values all count, the last value of a name winning).
    Several,
}

/// The property names met so far, and where each one's values go.
#[derive(Debug, Default)]
pub(super) struct Names {
    /// The slot in [`crate::crs::layer::Feature::values`] of each name (its UTF-8 bytes), `None` for names not
    /// kept.
    slots: FxHashMap<Box<[u8]>, Option<usize>>,
    /// How many names are kept.
    kept: usize,
    /// The names to keep (compared without regard to ASCII case); `None` keeps all.
    keep: Option<Vec<String>>,
}

impl Names {
    /// No names yet; `keep` says which will be kept.
    pub fn new(keep: Option<&[String]>) -> Self {
        Names { keep: keep.map(<[String]>::to_vec), ..Names::default() }
    }

    /// Whether a property called `name` is kept.
    pub fn keeps(&self, name: &str) -> bool {
        self.keep.as_ref().is_none_or(|keep| keep.iter().any(|k| k.eq_ignore_ascii_case(name)))
    }

    /// The slot of a name met before (`Some(None)` when not kept), or `None` for a new name.
    pub fn slot(&self, name: &[u8]) -> Option<Option<usize>> {
        self.slots.get(name).copied()
    }

    /// Gives a new name the next slot if it is kept, and returns that slot.
    pub fn add(&mut self, name: &str) -> Option<usize> {
        let slot = self.keeps(name).then(|| {
            self.kept += 1;
            self.kept - 1
        });
        self.slots.insert(name.as_bytes().into(), slot);
        slot
    }
}

/// Reads the feature in `bytes`, which start at file offset `base`, as `reading` says; `scratch` is working
/// room for positions.
pub(super) fn read(
    bytes: &[u8],
    base: u64,
    names: &Names,
    reading: &Reading,
    scratch: &mut Vec<Coord>,
) -> Parse<Parsed> {
    let mut cur = Cursor::new(bytes, base, DEPTH);
    cur.object("invalid type: expected a GeoJSON Feature object")?;
    let mut is_feature = false;
    let mut geometry = Err(Bad::Missing);
    let mut values = match reading.properties {
        Part::Read => vec![Value::Null; names.kept],
        Part::Check | Part::Pass => Vec::new(),
    };
    let mut new = Vec::new();
    let mut at = Properties::None;
    let mut first = true;
    while let Some(key) = cur.key(&mut first)? {
        match &*key {
            b"type" if cur.peek() == Some(b'"') => is_feature = cur.string()? == "Feature",
            b"type" => {
                cur.skip(Check::Full)?;
                is_feature = false;
            }
            b"geometry" => match reading.geometry {
                Part::Read => geometry = geometry::read(&mut cur, scratch)?,
                Part::Check => cur.skip(Check::Full)?,
                Part::Pass => cur.pass()?,
            },
            b"properties" => {
                cur.peek(); // past the whitespace before the value
                let start = cur.pos();
                match reading.properties {
                    Part::Pass => cur.pass()?,
                    Part::Read | Part::Check => properties(&mut cur, names, reading, &mut values, &mut new)?,
                }
                at = match at {
                    Properties::None => Properties::At(start..cur.pos()),
                    Properties::At(_) | Properties::Several => Properties::Several,
                };
            }
            _ => cur.skip(Check::Syntax)?,
        }
    }
    cur.end("expected `,` or `]`")?;
    if reading.geometry != Part::Read {
        return Ok(Parsed { geometry: None, values, new, properties: at });
    }
    let geometry = if is_feature {
        geometry.map_err(|bad| match bad {
            Bad::Missing => Unusable::new(GeometryError::NoGeometry, "add one or delete the feature"),
            Bad::Unreadable(why) => Unusable::new(GeometryError::UnreadableGeoJson(why), FIX_GEOMETRY),
            Bad::ShortPosition => Unusable::new(GeometryError::ShortPosition, FIX_GEOMETRY),
        })
    } else {
        Err(Unusable::new(GeometryError::NotAFeature, FIX_GEOMETRY))
    };
    let geometry = geometry.and_then(|g| check_geometry(&g).map(|()| g));
    Ok(Parsed { geometry: Some(geometry), values, new, properties: at })
}

/// Reads the value of a feature's `properties` member, in `bytes` at file offset `base`, as `reading` says:
/// the values by slot, and the properties not named before.
pub(super) fn read_properties(
    bytes: &[u8],
    base: u64,
    names: &Names,
    reading: &Reading,
) -> Parse<(Vec<Value>, NewNames)> {
    let mut cur = Cursor::new(bytes, base, DEPTH + 1);
    let (mut values, mut new) = (vec![Value::Null; names.kept], Vec::new());
    properties(&mut cur, names, reading, &mut values, &mut new)?;
    cur.end("trailing characters")?;
    Ok((values, new))
}

/// A feature's `properties`: an object, whose kept values are stored as `reading` says, or `null`. Every
/// value not read is checked as reading it would check it.
fn properties(
    cur: &mut Cursor,
    names: &Names,
    reading: &Reading,
    values: &mut [Value],
    new: &mut NewNames,
) -> Parse<()> {
    match cur.peek() {
        Some(b'n') => return cur.null_or_bool().map(drop),
        _ => cur.object("invalid type: expected a properties object or null")?,
    }
    let mut first = true;
    while let Some(name) = cur.key(&mut first)? {
        match names.slot(&name) {
            Some(Some(slot)) if reading.reads(slot) => values[slot] = value(cur)?,
            Some(_) => cur.skip(Check::Full)?,
            None => {
                let name = String::from_utf8_lossy(&name).into_owned();
                let value = if reading.properties == Part::Read && names.keeps(&name) {
                    Some(value(cur)?)
                } else {
                    cur.skip(Check::Full).map(|()| None)?
                };
                new.push((name, value));
            }
        }
    }
    Ok(())
}

/// A property as a [`Value`]: strings trimmed (empty is null), arrays and objects as their compact JSON text
/// (objects with their keys sorted, as serde_json writes them).
fn value(cur: &mut Cursor) -> Parse<Value> {
    Ok(match cur.peek() {
        Some(b'"') => {
            let text = cur.string()?;
            match text.trim() {
                "" => Value::Null,
                trimmed => Value::Text(trimmed.into()),
            }
        }
        Some(b'-' | b'0'..=b'9') => Value::Number(cur.number()?),
        Some(b'[' | b'{') => {
            let start = cur.pos();
            cur.skip(Check::Full)?;
            let json: serde_json::Value = serde_json::from_slice(cur.since(start))
                .map_err(|e| cur.error_at(start, format!("unreadable property ({e})")))?;
            Value::Text(json.to_string().into())
        }
        _ => cur.null_or_bool()?.map_or(Value::Null, Value::Bool),
    })
}
