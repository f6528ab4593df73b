//! The integration tests, one crate (one link) with a module per area.

mod bad_input;
mod buffer;
mod cli;
mod common;
mod crs_backends;
mod floors;
mod geoparquet;
mod golden_obligations;
mod golden_sample;
mod gpkg;
mod identical_outputs;
mod index_vs_brute_force;
mod law_readings;
mod letters_render;
mod map_browser;
mod map_command;
mod map_render;
mod mutation;
mod notices;
mod ny_county;
mod outputs;
mod qgis_style;
mod real_data;
mod record_files;
mod safe_outputs;
mod workload;
