//! Plain data every floor shares, importing nothing of the crate above it: errors and the problems a run
//! reports ([`error`]), messages for mistakes in TOML ([`diagnose`]), ISO date text ([`date`]), the output
//! table every writer takes ([`table`]) and the control characters no output carries ([`controls`]), what
//! classification found about a parcel ([`facts`]), the parcel id ([`id`]) and a signal's request to stop
//! the run ([`stop`]).

pub mod controls;
pub mod date;
pub mod diagnose;
pub mod error;
pub mod facts;
pub mod id;
pub mod stop;
pub mod table;
