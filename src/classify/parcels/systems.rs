//! The systems layer: which field names what, and the register of systems it makes (each system with the
//! parcel or parcels it serves, and each parcel's systems by position).

use std::path::Path;

use geo::{BoundingRect, Geometry, Intersects, MultiPolygon, Point, Rect};

use super::{find_field, geometry_kind, FieldChoice};
use crate::classify::fields::FieldNames;
use crate::classify::System;
use crate::crs::layer::{Feature, Value};
use crate::geom::index::PointGrid;
use crate::model::error::{Error, Problem, Result};
use crate::model::id::whole_id_fields;
use crate::records::tally::{IdTally, Position};

/// Where the absorption field's bottom elevation (feet) is looked for, in order.
pub const BOTTOM: &[&str] = &[
    "BOTTOM_FT",
    "BOTTOM_ELEV",
    "BOTTOM_EL",
    "BOTTOM_ELEVATION",
    "BOT_ELEV",
    "BOT_EL_FT",
    "ABS_BOTTOM",
    "FIELD_BOTTOM",
    "BOTTOM",
    "ELEV_FT",
    "ELEVATION_FT",
    "ELEV",
    "ELEVATION",
];

/// Where the system's own id is looked for, in order.
pub const SYSTEM_ID: &[&str] =
    &["SYSTEM_ID", "SYS_ID", "SYSTEMID", "OWTS_ID", "SEPTIC_ID", "SSTS_ID", "SYSTEM_NO", "SYS_NO"];

/// Where a second parcel the system serves is looked for, in order (a system shared by two lots).
pub const SECOND_PARCEL: &[&str] =
    &["PARCEL_ID_2", "PARCEL_ID2", "SECOND_PARCEL", "ALSO_SERVES", "SERVES_2", "SERVES2", "PARCEL2", "SBL_2"];

/// The fields of the systems layer: the parcel it serves, and when found its own id, a second parcel it
/// serves and its bottom elevation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemFields {
    /// The field naming the parcel each system serves.
    pub parcel: String,
    /// The absorption field's bottom elevation, feet.
    pub bottom: Option<String>,
    /// The system's own id.
    pub id: Option<String>,
    /// A second parcel the system serves.
    pub second: Option<String>,
    /// Which of them (parcel, bottom, id, second) the config named.
    pub configured: [bool; 4],
}

impl SystemFields {
    /// Which field was taken for what, for `-v`.
    pub fn choices(&self) -> Vec<FieldChoice> {
        let roles = ["parcel id", "bottom elevation", "system id", "second parcel"];
        let fields = [Some(&self.parcel), self.bottom.as_ref(), self.id.as_ref(), self.second.as_ref()];
        roles
            .into_iter()
            .zip(fields)
            .zip(self.configured)
            .map(|((role, field), configured)| FieldChoice {
                role,
                fields: field.cloned().into_iter().collect(),
                configured,
            })
            .collect()
    }

    /// The fields to read from the layer.
    pub fn keep(&self) -> Vec<String> {
        std::iter::once(&self.parcel)
            .chain(&self.bottom)
            .chain(&self.id)
            .chain(&self.second)
            .cloned()
            .collect()
    }
}

/// Field names of the systems layer: named in the config (`[fields] system_parcel`, `system_bottom`,
/// `system_id`, `system_parcel_2`) or detected (the parcel-id names of [`whole_id_fields`] that hold a whole
/// id, [`BOTTOM`], `SYSTEM_ID`, `SECOND_PARCEL`). No parcel-id field is an error listing the fields there
/// are.
pub fn system_fields(fields: &[String], overrides: &FieldNames, path: &Path) -> Result<SystemFields> {
    let ids: Vec<&str> = whole_id_fields().collect();
    let parcel = overrides.system_parcel.clone().or_else(|| find_field(fields, &ids)).ok_or_else(|| {
        // A layer of no field at all (a GeoJSON of no feature) has no systems to join: that is what to tell.
        if fields.is_empty() {
            return Error::format(
                path,
                "the systems layer has no fields (no features, or features without properties): it is empty or \
                 not the systems layer; export it again with its features, or leave it out of the config",
            );
        }
        Error::format(
            path,
            format!(
                "cannot tell which field holds the parcel id of each system (looked for {}); fields found: {}; \
                 set [fields] system_parcel = \"FIELD\" or --field system_parcel=FIELD",
                ids.join(", "),
                fields.join(", ")
            ),
        )
    })?;
    let bottom = overrides.system_bottom.clone().or_else(|| find_field(fields, BOTTOM));
    let id = overrides.system_id.clone().or_else(|| find_field(fields, SYSTEM_ID));
    let second = overrides.system_parcel_2.clone().or_else(|| find_field(fields, SECOND_PARCEL));
    let configured = [
        overrides.system_parcel.is_some(),
        overrides.system_bottom.is_some(),
        overrides.system_id.is_some(),
        overrides.system_parcel_2.is_some(),
    ];
    Ok(SystemFields { parcel, bottom, id, second, configured })
}

/// The marker of "no second parcel" in [`Registered`].
const NONE: u32 = u32::MAX;

/// One system of the register: where it lies, its absorption field's bottom, the parcel(s) it serves and
/// its record in the systems layer. Kept small (40 bytes): a county's register holds a system for most of
/// its parcels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Registered {
    /// Where it lies, in the working CRS.
    pub location: Point<f64>,
    /// The bottom elevation, feet; NaN when not surveyed.
    bottom: f64,
    /// The position of the parcel it serves.
    serves: u32,
    /// The position of a second parcel it serves, or [`NONE`].
    also: u32,
    /// Its record number in the systems layer.
    record: u32,
    /// Its place, from 1, among the systems serving the same parcel first, in record order: what names a
    /// system in a layer without ids (`054289-191.00-1-4/2`).
    ordinal: u16,
}

impl Registered {
    /// The absorption field's bottom elevation, feet, when surveyed.
    pub fn bottom_ft(&self) -> Option<f64> {
        (!self.bottom.is_nan()).then_some(self.bottom)
    }

    /// The position of the parcel it serves (the systems layer's parcel field).
    pub fn serves(&self) -> usize {
        self.serves as usize
    }

    /// The position of a second parcel it serves, when the register names one.
    pub fn also_serves(&self) -> Option<usize> {
        (self.also != NONE).then_some(self.also as usize)
    }

    /// Whether it serves the parcel at `position`.
    pub fn serves_parcel(&self, position: usize) -> bool {
        self.serves() == position || self.also_serves() == Some(position)
    }

    /// Its record number in the systems layer.
    pub fn record(&self) -> usize {
        self.record as usize
    }

    /// Its location and bottom, as classification takes them.
    pub fn system(&self) -> System {
        System { location: self.location, bottom_ft: self.bottom_ft() }
    }
}

/// The register of systems: every system of the systems layer, with the parcels it serves, and for each
/// parcel the systems that serve it (a lot may have two; a system may serve two lots). Kept compactly: a
/// parcel with no system costs 4 bytes, and the ids are kept only when the layer has them.
#[derive(Debug, Default)]
pub struct Systems {
    /// Every system, in order of the parcel it serves, then of record.
    list: Vec<Registered>,
    /// Each system's id, as the layer writes it; empty when the layer has no id field.
    ids: Vec<Box<str>>,
    /// For each position, where its systems start in `refs`, and after the last the length of `refs`;
    /// empty when no parcel has one (a run without a systems layer).
    starts: Vec<u32>,
    /// The systems of each parcel, by index into `list`, a parcel's in order of index.
    refs: Vec<u32>,
    /// The systems' points indexed, built the first time a lot asks which lie on it.
    points: std::sync::OnceLock<PointGrid>,
}

impl Systems {
    /// The indexes of the systems that serve the parcel at `position`, in order.
    pub fn of(&self, position: usize) -> &[u32] {
        match (self.starts.get(position), self.starts.get(position + 1)) {
            (Some(&a), Some(&b)) => &self.refs[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The system at `index` of the register.
    pub fn get(&self, index: u32) -> &Registered {
        &self.list[index as usize]
    }

    /// How many systems the register holds.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether the register is empty.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The id of the system at `index`: the layer's, or for a layer without ids the id of the parcel it
    /// serves first (`served`) and its place among that parcel's systems (`054289-191.00-1-4/2`), the same
    /// whatever the file's format or name.
    pub fn id(&self, index: u32, served: &str) -> std::borrow::Cow<'_, str> {
        match self.ids.get(index as usize) {
            Some(id) => std::borrow::Cow::Borrowed(id),
            None => std::borrow::Cow::Owned(format!("{served}/{}", self.get(index).ordinal)),
        }
    }

    /// The id of the system at `index` as the layer writes it, when the layer has ids: what records and
    /// events name it by.
    pub fn own_id(&self, index: u32) -> Option<&str> {
        self.ids.get(index as usize).map(|id| &**id)
    }

    /// Whether the point of a system of the register lies on `shape` (inside it or on its edge).
    pub fn any_on(&self, shape: &MultiPolygon<f64>) -> bool {
        self.on(shape, |_| true).next().is_some()
    }

    /// The indexes of the systems whose points lie on `shape` (inside it or on its edge) among those
    /// `wanted` takes: a point in the shape's box is offered to `wanted` before it is tested against the
    /// shape.
    pub fn on<'s>(
        &'s self,
        shape: &'s MultiPolygon<f64>,
        wanted: impl Fn(u32) -> bool + 's,
    ) -> impl Iterator<Item = u32> + 's {
        let in_box = shape.bounding_rect().map(|rect| self.in_box(rect));
        in_box
            .into_iter()
            .flatten()
            .filter(move |&(index, _)| wanted(index))
            .filter(move |(_, point)| shape.intersects(point))
            .map(|(index, _)| index)
    }

    /// The index and point of each system whose point lies in `rect`, edges included. A point without
    /// finite coordinates lies in no box.
    pub fn in_box(&self, rect: Rect<f64>) -> impl Iterator<Item = (u32, Point<f64>)> + '_ {
        let at = |index: u32| {
            let p = self.list[index as usize].location;
            [p.x(), p.y()]
        };
        let len = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        let grid = self.points.get_or_init(|| PointGrid::new(len, at));
        let (lo, hi) = (rect.min(), rect.max());
        grid.in_box([lo.x, lo.y], [hi.x, hi.y], at)
            .map(move |index| (index, self.list[index as usize].location))
    }
}

/// The systems layer joined to the parcels, its features taken a block at a time in record order: a
/// system for an unknown parcel, a system that is not a point, or a second system with an id already taken
/// is reported and left out of the register (the parcel is still scheduled). A second served parcel that is
/// not in the parcels layer is reported, and the system serves its first parcel only.
pub struct SystemJoin<'a> {
    path: &'a Path,
    fields: &'a SystemFields,
    /// The field positions of the parcel id, the bottom elevation, the system id and the second parcel,
    /// looked up once.
    at: [Option<usize>; 4],
    position: Position<'a>,
    list: Vec<Registered>,
    ids: Vec<Box<str>>,
    taken: rustc_hash::FxHashSet<Box<str>>,
    parcels: usize,
    problems: Vec<Problem>,
    tally: IdTally,
}

impl<'a> SystemJoin<'a> {
    /// A join of the systems layer at `path`, whose fields are `fields` and whose roles `names` names, to
    /// `parcels` parcels whose positions `position` finds by id.
    pub fn new(
        path: &'a Path,
        fields: &[String],
        names: &'a SystemFields,
        (parcels, position): (usize, Position<'a>),
    ) -> Self {
        let index = |name: Option<&String>| name.and_then(|name| fields.iter().position(|f| f == name));
        SystemJoin {
            path,
            fields: names,
            at: [
                index(Some(&names.parcel)),
                index(names.bottom.as_ref()),
                index(names.id.as_ref()),
                index(names.second.as_ref()),
            ],
            position,
            list: Vec::new(),
            ids: Vec::new(),
            taken: rustc_hash::FxHashSet::default(),
            parcels,
            problems: Vec::new(),
            tally: IdTally::default(),
        }
    }

    /// Joins the next features of the layer.
    pub fn add(&mut self, features: &[Feature]) {
        for feature in features {
            if let Err(problem) = self.join(feature) {
                self.problems.push(problem);
            }
        }
    }

    /// The register, the problems found, and how many systems' parcel ids found their parcel.
    pub fn finish(self) -> (Systems, Vec<Problem>, IdTally) {
        let SystemJoin { mut list, ids, parcels, problems, tally, at, .. } = self;
        // Each parcel's systems, by counting (no sort): how many serve each parcel, then each system in
        // record order into its parcels' places.
        let served = |s: &Registered| {
            let also = (s.also != NONE && s.also != s.serves).then_some(s.also);
            std::iter::once(s.serves).chain(also).map(|p| p as usize)
        };
        let mut starts = Vec::new();
        let mut refs = Vec::new();
        if !list.is_empty() {
            starts = vec![0u32; parcels + 1];
            for s in &list {
                served(s).for_each(|p| starts[p + 1] += 1);
            }
            for i in 0..parcels {
                starts[i + 1] += starts[i];
            }
            let mut next: Vec<u32> = starts[..parcels].to_vec();
            refs = vec![0u32; starts[parcels] as usize];
            for (i, s) in list.iter().enumerate() {
                for p in served(s) {
                    refs[next[p] as usize] = u32::try_from(i).unwrap_or(u32::MAX);
                    next[p] += 1;
                }
            }
            // Each system's place among those serving the same parcel first, in record order.
            for p in 0..parcels {
                let mut ordinal = 0u16;
                for k in starts[p]..starts[p + 1] {
                    let system = &mut list[refs[k as usize] as usize];
                    if system.serves as usize == p {
                        ordinal = ordinal.saturating_add(1);
                        system.ordinal = ordinal;
                    }
                }
            }
        }
        let ids = if at[2].is_some() { ids } else { Vec::new() };
        (Systems { list, ids, starts, refs, points: std::sync::OnceLock::new() }, problems, tally)
    }

    /// The text of field `k` of a feature, when filled in.
    fn text(&self, feature: &Feature, k: usize) -> Option<String> {
        self.at[k]
            .and_then(|i| feature.values.get(i))
            .and_then(Value::as_text)
            .filter(|t| !t.trim().is_empty())
    }

    /// Joins one feature; a problem when it cannot be.
    fn join(&mut self, feature: &Feature) -> Result<(), Problem> {
        let parcel_field = &self.fields.parcel;
        let problem = |message: String| Problem::new(self.path, feature.location(), message);
        let Some(id) = self.text(feature, 0) else {
            return Err(problem(format!("system has no {parcel_field}; fill it in")));
        };
        let at = (self.position)(&id);
        let serves = crate::records::tally::found(at);
        self.tally.count(&id, serves.is_some());
        let Some(serves) = serves else {
            return Err(problem(match at {
                Some(crate::records::tally::AMBIGUOUS) => {
                    format!("system: {}", crate::records::tally::not_found(&id, at))
                }
                _ => format!(
                    "system names parcel {}, which is not in the parcels layer; fix the id",
                    crate::model::id::shown(&id)
                ),
            }));
        };
        let location: Point<f64> = match &feature.geometry {
            Ok(Geometry::Point(p)) => *p,
            Ok(Geometry::MultiPoint(mp)) if mp.0.len() == 1 => mp.0[0],
            Ok(other) => {
                return Err(problem(format!("system is a {}, not a point; fix it", geometry_kind(other))));
            }
            Err(_) => return Ok(()), // reported by the reader
        };
        let system_id = match self.at[2] {
            None => None,
            Some(_) => {
                let Some(own) = self.text(feature, 2) else {
                    let field = self.fields.id.as_deref().unwrap_or("system id");
                    return Err(problem(format!(
                        "system of parcel {id} has no {field}; fill it in (records and events name systems by it)"
                    )));
                };
                let own = own.trim().to_string().into_boxed_str();
                if !self.taken.insert(own.clone()) {
                    return Err(problem(format!(
                        "system id {own} is used twice; only the first is kept: give each system its own id"
                    )));
                }
                Some(own)
            }
        };
        let also = match self.text(feature, 3) {
            None => NONE,
            Some(second) => match crate::records::tally::found((self.position)(&second)) {
                Some(p) => u32::try_from(p).unwrap_or(NONE),
                None => {
                    self.problems.push(problem(format!(
                        "system of parcel {id} also names parcel {second}, which is not in the parcels layer; \
                         it is taken to serve {id} alone: fix the second parcel's id"
                    )));
                    NONE
                }
            },
        };
        let bottom = match self.at[1].and_then(|i| feature.values.get(i)) {
            None | Some(Value::Null) => f64::NAN,
            Some(v) => match v.as_f64().filter(|x| x.is_finite()) {
                Some(x) => x,
                None => {
                    // The system still counts, without a bottom elevation.
                    self.problems.push(problem(format!(
                        "bottom elevation {:?} is not a number of feet; fix it",
                        v.as_text().unwrap_or_default()
                    )));
                    f64::NAN
                }
            },
        };
        let serves = u32::try_from(serves).unwrap_or(NONE);
        let record = u32::try_from(feature.record).unwrap_or(u32::MAX);
        self.list.push(Registered { location, bottom, serves, also, record, ordinal: 0 });
        self.ids.extend(system_id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crs::layer::Feature;

    const FIELDS: [&str; 4] = ["PARCEL_ID", "BOTTOM_FT", "SYSTEM_ID", "PARCEL_ID_2"];

    /// A system point at (x, 0) of record `record`, serving `parcel` (and `second`), with `id`.
    fn feature(record: usize, parcel: &str, id: Option<&str>, second: Option<&str>, x: f64) -> Feature {
        let text = |t: Option<&str>| t.map_or(Value::Null, |t| Value::Text(t.into()));
        Feature {
            record,
            fid: None,
            geometry: Ok(Geometry::Point(Point::new(x, 0.0))),
            values: vec![text(Some(parcel)), Value::Number(730.5), text(id), text(second)],
        }
    }

    /// Joins `features` to the parcels A (position 0), B (1) and C (2).
    fn join(features: &[Feature]) -> (Systems, Vec<Problem>) {
        let fields: Vec<String> = FIELDS.iter().map(|f| f.to_string()).collect();
        let names =
            system_fields(&fields, &FieldNames::default(), Path::new("systems.geojson")).expect("fields");
        assert_eq!(
            (names.id.as_deref(), names.second.as_deref()),
            (Some("SYSTEM_ID"), Some("PARCEL_ID_2")),
            "detected"
        );
        let position = |id: &str| ["A", "B", "C"].iter().position(|p| *p == id);
        let mut join = SystemJoin::new(Path::new("systems.geojson"), &fields, &names, (3, &position));
        join.add(features);
        let (systems, problems, _) = join.finish();
        (systems, problems)
    }

    /// Art. V §IV.A: "All wastewater treatment systems must have a completed inspection report": a lot may
    /// hold two systems and a system may serve two lots, so the register keeps every one. Parcel A has two
    /// systems (records 1 and 3); record 2 serves B and C; record 4 repeats the id S-1 and is reported, not
    /// kept; record 5 names a second parcel that does not exist: it is reported and serves C alone.
    #[test]
    fn the_register_keeps_every_system_with_the_parcels_it_serves() {
        let (systems, problems) = join(&[
            feature(1, "A", Some("S-1"), None, 10.0),
            feature(2, "B", Some("S-2"), Some("C"), 20.0),
            feature(3, "A", Some("S-3"), None, 30.0),
            feature(4, "B", Some("S-1"), None, 40.0),
            feature(5, "C", Some("S-5"), Some("Z"), 50.0),
        ]);
        assert_eq!(systems.len(), 4);
        let ids = |position: usize| -> Vec<String> {
            systems.of(position).iter().map(|&i| systems.id(i, "unused").into_owned()).collect()
        };
        assert_eq!(ids(0), ["S-1", "S-3"]);
        assert_eq!(ids(1), ["S-2"]);
        assert_eq!(ids(2), ["S-2", "S-5"]);
        let shared = systems.get(systems.of(1)[0]);
        assert_eq!((shared.serves(), shared.also_serves(), shared.bottom_ft()), (1, Some(2), Some(730.5)));
        assert_eq!(systems.own_id(systems.of(0)[1]), Some("S-3"));
        let told: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(told.len(), 2, "{told:?}");
        assert!(told[0].contains("record 4") && told[0].contains("S-1 is used twice"), "{told:?}");
        assert!(told[1].contains("record 5") && told[1].contains("parcel Z"), "{told:?}");
    }

    /// A layer without ids names each system by the parcel it serves first and its place among that
    /// parcel's systems, in record order: the same whatever the file is called.
    #[test]
    fn a_system_without_an_id_is_named_by_its_parcel_and_place() {
        let fields: Vec<String> = ["PARCEL_ID"].iter().map(|f| f.to_string()).collect();
        let names = system_fields(&fields, &FieldNames::default(), Path::new("s.shp")).expect("fields");
        let position = |id: &str| ["A", "B"].iter().position(|p| *p == id);
        let mut join = SystemJoin::new(Path::new("s.shp"), &fields, &names, (2, &position));
        let point = |record: usize, parcel: &str| Feature {
            record,
            fid: None,
            geometry: Ok(Geometry::Point(Point::new(0.0, 0.0))),
            values: vec![Value::Text(parcel.into())],
        };
        join.add(&[point(1, "B"), point(2, "A"), point(3, "B")]);
        let (systems, problems, _) = join.finish();
        assert!(problems.is_empty());
        let named: Vec<String> = (0..2)
            .flat_map(|p| systems.of(p).iter().map(move |&i| (p, i)))
            .map(|(p, i)| systems.id(i, ["A", "B"][p]).into_owned())
            .collect();
        assert_eq!(named, ["A/1", "B/1", "B/2"]);
        assert_eq!(systems.own_id(0), None);
    }
}
