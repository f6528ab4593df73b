//! The ground where the law asks for an elevation (Art. V §X): a system in a flood zone without a surveyed
//! absorption-field bottom is screened from the DEM's ground at its point, which `Ground::at` gives when the
//! law asks (`law::flood`).

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use geo::{Geometry, Point};

use crate::crs::Reprojector;
use crate::formats::dem::sampler::Blocks;
use crate::formats::dem::{Dem, VerticalUnit};
use crate::model::error::{Error, Result};
use crate::pipeline::config::Config;

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
}
