//! # lakeshore
//!
//! Turns a county's GIS layers into a legally correct septic-inspection schedule for lakeshore watersheds.
//!
//! The pipeline runs in one direction, each stage a plain function of the one before:
//!
//! ```text
//! read layers (io) ─► reproject (crs) ─► index (index) ─► classify each parcel (classify)
//!     ─► apply the jurisdiction's rules (rules) ─► due dates and status (schedule) ─► write (report, io::write)
//! ```
//!
//! ```no_run
//! use lakeshore::config::{Config, ConfigFile};
//! use lakeshore::report::{write_schedule, OutputFormat};
//!
//! # fn main() -> lakeshore::error::Result<()> {
//! let file = ConfigFile::load("data/sample/county.toml".as_ref())?;
//! let as_of = chrono::NaiveDate::from_ymd_opt(2027, 1, 15).unwrap();
//! let config = Config::new(file, as_of)?;
//! let run = lakeshore::pipeline::run_schedule(&config)?;
//! // Every input parcel is in run.rows exactly once; bad records are in run.problems.
//! write_schedule(&run, "out".as_ref(), &[OutputFormat::Csv, OutputFormat::GeoJson], &config.crs)?;
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

pub mod buffer;
pub mod calendar;
pub mod classify;
pub mod config;
pub mod crs;
pub mod date;
pub mod diagnose;
pub mod error;
pub mod facts;
pub mod id;
pub mod index;
pub mod init;
pub mod io;
pub mod layer;
pub mod map;
pub mod obligations;
pub mod parcels;
pub mod permit;
pub mod pipeline;
pub mod planar;
pub mod reference;
pub mod report;
pub mod rules;
pub mod schedule;
pub mod table;
pub mod validity;
