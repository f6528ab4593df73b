//! The systems layer: which field names each system's parcel, and each parcel's system by position.

use std::path::Path;

use geo::{Geometry, Point};

use super::{find_field, geometry_kind, FieldChoice};
use crate::classify::fields::FieldNames;
use crate::classify::System;
use crate::crs::layer::{Feature, Value};
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

/// The fields of the systems layer: the parcel id, the bottom elevation when one is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemFields {
    /// The field naming each system's parcel.
    pub parcel: String,
    /// The absorption field's bottom elevation, feet.
    pub bottom: Option<String>,
    /// Which of them the config named.
    pub configured: [bool; 2],
}

impl SystemFields {
    /// Which field was taken for what, for `-v`.
    pub fn choices(&self) -> Vec<FieldChoice> {
        vec![
            FieldChoice {
                role: "parcel id",
                fields: vec![self.parcel.clone()],
                configured: self.configured[0],
            },
            FieldChoice {
                role: "bottom elevation",
                fields: self.bottom.iter().cloned().collect(),
                configured: self.configured[1],
            },
        ]
    }
}

/// Field names of the systems layer: named in the config (`[fields] system_parcel`, `system_bottom`) or
/// detected (the parcel-id names of [`whole_id_fields`] that hold a whole id, [`BOTTOM`]). No parcel-id field is
/// an error listing the fields there are.
pub fn system_fields(fields: &[String], overrides: &FieldNames, path: &Path) -> Result<SystemFields> {
    let ids: Vec<&str> = whole_id_fields().collect();
    let parcel = overrides.system_parcel.clone().or_else(|| find_field(fields, &ids)).ok_or_else(|| {
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
    let configured = [overrides.system_parcel.is_some(), overrides.system_bottom.is_some()];
    Ok(SystemFields { parcel, bottom, configured })
}

/// Each parcel's system, by position. Kept compactly: many parcels of a county have none (public sewer,
/// vacant land), and each one without costs 4 bytes here instead of a whole empty entry.
#[derive(Debug, Default)]
pub struct Systems {
    /// For each position, 1 + the index of its system in `list`, or 0 for none; empty when no parcel has
    /// one (a run without a systems layer).
    of: Vec<u32>,
    list: Vec<System>,
    /// The record number in the systems layer of each entry of `list`.
    records: Vec<usize>,
}

impl Systems {
    /// The system of the parcel at `position`.
    pub fn get(&self, position: usize) -> Option<System> {
        match self.of.get(position).copied() {
            None | Some(0) => None,
            Some(i) => Some(self.list[i as usize - 1]),
        }
    }

    /// The record number, in the systems layer, of the system of the parcel at `position`.
    pub fn record(&self, position: usize) -> Option<usize> {
        match self.of.get(position).copied() {
            None | Some(0) => None,
            Some(i) => self.records.get(i as usize - 1).copied(),
        }
    }
}

/// The systems layer joined to the parcels, its features taken a block at a time in record order: a
/// system for an unknown parcel, a second system for a parcel, or a system that is not a point is reported
/// and left out of classification (the parcel is still scheduled, from its polygon).
pub struct SystemJoin<'a> {
    path: &'a Path,
    parcel_field: &'a str,
    /// The field positions of the parcel id and the bottom elevation, looked up once.
    id_at: Option<usize>,
    bottom_at: Option<usize>,
    position: Position<'a>,
    systems: Systems,
    problems: Vec<Problem>,
    ids: IdTally,
}

impl<'a> SystemJoin<'a> {
    /// A join of the systems layer at `path`, whose fields are `fields`, to `parcels` parcels whose positions
    /// `position` finds by id.
    pub fn new(
        path: &'a Path,
        fields: &[String],
        parcel_field: &'a str,
        bottom_field: Option<&str>,
        (parcels, position): (usize, Position<'a>),
    ) -> Self {
        let index = |name: &str| fields.iter().position(|f| f == name);
        SystemJoin {
            path,
            parcel_field,
            id_at: index(parcel_field),
            bottom_at: bottom_field.and_then(index),
            position,
            systems: Systems { of: vec![0; parcels], list: Vec::new(), records: Vec::new() },
            problems: Vec::new(),
            ids: IdTally::default(),
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

    /// Each parcel's system, the problems found, and how many systems' parcel ids found their parcel.
    pub fn finish(self) -> (Systems, Vec<Problem>, IdTally) {
        (self.systems, self.problems, self.ids)
    }

    /// Joins one feature; a problem when it cannot be.
    fn join(&mut self, feature: &Feature) -> Result<(), Problem> {
        let parcel_field = self.parcel_field;
        let problem = |message: String| Problem::new(self.path, feature.location(), message);
        let Some(id) = self.id_at.and_then(|i| feature.values.get(i)).and_then(Value::as_text) else {
            return Err(problem(format!("system has no {parcel_field}; fill it in")));
        };
        let at_parcel = (self.position)(&id);
        self.ids.count(&id, at_parcel.is_some());
        let Some(at_parcel) = at_parcel else {
            return Err(problem(format!(
                "system names parcel {id}, which is not in the parcels layer; fix the id"
            )));
        };
        let location: Point<f64> = match &feature.geometry {
            Ok(Geometry::Point(p)) => *p,
            Ok(Geometry::MultiPoint(mp)) if mp.0.len() == 1 => mp.0[0],
            Ok(other) => {
                return Err(problem(format!("system is a {}, not a point; fix it", geometry_kind(other))));
            }
            Err(_) => return Ok(()), // reported by the reader
        };
        let bottom_ft = match self.bottom_at.and_then(|i| feature.values.get(i)) {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_f64().filter(|x| x.is_finite()) {
                Some(x) => Some(x),
                None => {
                    // The system still counts, without a bottom elevation.
                    self.problems.push(problem(format!(
                        "bottom elevation {:?} is not a number of feet; fix it",
                        v.as_text().unwrap_or_default()
                    )));
                    None
                }
            },
        };
        let slot = &mut self.systems.of[at_parcel];
        if *slot != 0 {
            return Err(problem(format!(
                "a second system for parcel {id}; only the first is used, remove or merge the others"
            )));
        }
        self.systems.list.push(System { location, bottom_ft });
        self.systems.records.push(feature.record);
        *slot = u32::try_from(self.systems.list.len()).unwrap_or(u32::MAX);
        Ok(())
    }
}
