//! lakeshore
#![warn(missing_docs)]

pub mod crs;
pub mod error;
pub mod io;
pub mod layer;
