//! The ground where the law asks for an elevation (Art. V §X): a system in a flood zone without a surveyed
//! absorption-field bottom is screened from the DEM's ground at its point ([`crate::rules::RuleSet::flood_screening`]).

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use geo::{Geometry, Point};

use crate::classify::Parcel;
use crate::crs::Reprojector;
use crate::formats::dem::sampler::Blocks;
use crate::formats::dem::{Dem, VerticalUnit};
use crate::model::error::{Error, Result};
use crate::model::facts::{Facts, FloodVerdict};
use crate::pipeline::config::Config;
use crate::rules::RuleSet;

/// The unit of the DEM's values: the file's, else the config's `[dem] vertical_unit`; an error without
/// either.
pub(crate) fn vertical_unit(dem: &Dem, config: &Config) -> Result<VerticalUnit> {
    dem.vertical_unit.or(config.dem_unit).ok_or_else(|| {
        Error::format(
            &dem.path,
            "the DEM does not say the unit of its elevations; set [dem] vertical_unit = \"ft\" (or \"m\", \
             \"us-ft\") in the config",
        )
    })
}

/// The DEM opened for sampling the ground at points of the working CRS.
#[derive(Debug)]
pub(crate) struct Ground {
    dem: Dem,
    to_dem: Reprojector,
    unit: VerticalUnit,
    /// The blocks of the DEM read last: the systems of a county come town by town, so neighbours share them.
    blocks: Mutex<Blocks>,
}

impl Ground {
    /// Opens the DEM at `path` for `config`'s working CRS; its unit is the file's, else the config's.
    pub(crate) fn open(path: &Path, config: &Config) -> Result<Ground> {
        let dem = Dem::open(path)?;
        let unit = vertical_unit(&dem, config)?;
        let to_dem = Reprojector::new(&config.crs, &dem.crs)
            .map_err(|e| Error::crs(path, format!("cannot reproject into the DEM's CRS: {e}")))?;
        Ok(Ground { dem, to_dem, unit, blocks: Mutex::default() })
    }

    /// The ground at `p` (working CRS), US survey feet; `None` outside the DEM or where it has no data.
    pub(crate) fn at(&self, p: Point<f64>) -> Option<f64> {
        let Ok(Geometry::Point(q)) = self.to_dem.transform(&Geometry::Point(p)) else { return None };
        let mut blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        let v = self.dem.sample_with([q.x(), q.y()], &mut blocks).ok().flatten()?;
        Some(match self.unit {
            VerticalUnit::Metre => v / VerticalUnit::UsSurveyFoot.to_metre(),
            VerticalUnit::Foot | VerticalUnit::UsSurveyFoot => v,
        })
    }

    /// Screens the §X elevation of `parcel`'s system when its verdict is unknown for want of a surveyed
    /// bottom: the ground at the system point less the rule set's trench depth.
    pub(crate) fn screen(&self, rules: &RuleSet, parcel: &Parcel, facts: &mut Facts) {
        let (Some(flood), Some(system)) = (facts.flood.as_mut(), parcel.system.as_ref()) else { return };
        if flood.verdict != FloodVerdict::Unknown || system.bottom_ft.is_some() {
            return;
        }
        if let Some(ground_ft) = self.at(system.location) {
            flood.screening = rules.flood_screening(ground_ft, flood.required_bottom_ft);
        }
    }
}
