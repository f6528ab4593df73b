//! # lakeshore
//!
//! Turns a county's GIS layers into a legally correct septic-inspection schedule for lakeshore watersheds.
//!
//! The pipeline runs in one direction, each stage a plain function of the one before:
//!
//! ```text
//! read layers (formats) ─► reproject (crs) ─► index (geom::index) ─► classify each parcel (classify)
//!     ─► coverage, tier, due dates, status, permit, duties under the rule set (law, rules)
//!     ─► one run, block by block (pipeline) ─► tables, notices, maps (report, write)
//! ```
//!
//! ```no_run
//! use lakeshore::pipeline::config::{Config, ConfigFile};
//! use lakeshore::report::{write_schedule, OutputFormat};
//!
//! # fn main() -> lakeshore::model::error::Result<()> {
//! let file = ConfigFile::load("data/sample/county.toml".as_ref())?;
//! let as_of = chrono::NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
//! let config = Config::new(file, as_of)?;
//! let run = lakeshore::pipeline::run_schedule(&config)?;
//! // Every input parcel is in run.rows exactly once; bad records are in run.problems.
//! write_schedule(&run, "out".as_ref(), &[OutputFormat::Csv, OutputFormat::GeoJson], &config.crs)?;
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

pub mod model;

pub mod geom;
pub mod rules;

pub mod crs;

pub mod formats;

pub mod write;

pub mod records;

pub mod classify;
pub mod law;

pub mod pipeline;
pub mod program;
pub mod report;

/// The one folder of a test process's files, shared with the integration tests.
#[cfg(test)]
#[path = "../tests/it/scratch.rs"]
mod scratch;
