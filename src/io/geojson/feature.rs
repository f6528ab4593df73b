//! One element of the `features` array, read from its bytes: its `type`, its `properties` (only the kept
//! ones turned into values) and its geometry, checked.
//!
//! Features are read on several threads at once, so a feature does not learn the slots of property names the
//! reader meets for the first time: it hands them back in [`Parsed::new`], and the reader gives them slots in
//! file order.

use geo::{Coord, Geometry};
use rustc_hash::FxHashMap;

use super::geometry::{self, Bad};
use super::json::{Check, Cursor, Parse};
use super::FIX_GEOMETRY;
use crate::io::{check_geometry, Unusable};
use crate::layer::Value;

/// Features are elements of the `features` array of the top-level object.
pub(super) const DEPTH: usize = 2;

/// A feature as read, before it gets its record number.
#[derive(Debug)]
pub(super) struct Parsed {
    /// The geometry, or why it is unusable.
    pub geometry: Result<Geometry<f64>, Unusable>,
    /// The values of the properties whose slots were known, by slot.
    pub values: Vec<Value>,
    /// Properties not named before, in order: the name and the value (`None` when the field is not kept).
    pub new: Vec<(String, Option<Value>)>,
}

/// The property names met so far, and where each one's values go.
#[derive(Debug, Default)]
pub(super) struct Names {
    /// The slot in [`crate::layer::Feature::values`] of each name (its UTF-8 bytes), `None` for names not
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

/// Reads the feature in `bytes`, which start at file offset `base`; `scratch` is working room for positions.
pub(super) fn read(bytes: &[u8], base: u64, names: &Names, scratch: &mut Vec<Coord>) -> Parse<Parsed> {
    let mut cur = Cursor::new(bytes, base, DEPTH);
    cur.object("invalid type: expected a GeoJSON Feature object")?;
    let mut is_feature = false;
    let mut geometry = Err(Bad::Missing);
    let mut values = vec![Value::Null; names.kept];
    let mut new = Vec::new();
    let mut first = true;
    while let Some(key) = cur.key(&mut first)? {
        match &*key {
            b"type" if cur.peek() == Some(b'"') => is_feature = cur.string()? == "Feature",
            b"type" => {
                cur.skip(Check::Full)?;
                is_feature = false;
            }
            b"geometry" => geometry = geometry::read(&mut cur, scratch)?,
            b"properties" => properties(&mut cur, names, &mut values, &mut new)?,
            _ => cur.skip(Check::Syntax)?,
        }
    }
    cur.end("expected `,` or `]`")?;
    let geometry = if is_feature {
        geometry.map_err(|bad| match bad {
            Bad::Missing => Unusable::new("no geometry", "add one or delete the feature"),
            Bad::Unreadable(why) => Unusable::new(format!("unreadable geometry ({why})"), FIX_GEOMETRY),
            Bad::ShortPosition => Unusable::new("a position with fewer than 2 coordinates", FIX_GEOMETRY),
        })
    } else {
        Err(Unusable::new("not a GeoJSON Feature (its type is not \"Feature\")", FIX_GEOMETRY))
    };
    let geometry = geometry.and_then(|g| check_geometry(&g).map(|()| g));
    Ok(Parsed { geometry, values, new })
}

/// A feature's `properties`: an object, whose kept values are stored, or `null`.
fn properties(
    cur: &mut Cursor,
    names: &Names,
    values: &mut [Value],
    new: &mut Vec<(String, Option<Value>)>,
) -> Parse<()> {
    match cur.peek() {
        Some(b'n') => return cur.null_or_bool().map(drop),
        _ => cur.object("invalid type: expected a properties object or null")?,
    }
    let mut first = true;
    while let Some(name) = cur.key(&mut first)? {
        match names.slot(&name) {
            Some(Some(slot)) => values[slot] = value(cur)?,
            Some(None) => cur.skip(Check::Full)?,
            None => {
                let name = String::from_utf8_lossy(&name).into_owned();
                let value = if names.keeps(&name) {
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
