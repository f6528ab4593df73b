//! The integration tests, one crate (one link) with a module per area.

mod bad_input;
mod buffer;
mod buffer_vs_geos;
mod cli;
mod common;
mod config_mistakes;
mod crs_backends;
mod dem;
mod floors;
mod geoparquet;
mod golden_obligations;
mod golden_sample;
mod gpkg;
mod identical_outputs;
mod ids_and_fields;
mod index_vs_brute_force;
mod init_survey;
mod law_readings;
mod law_terms;
mod layer_checks;
mod letters_render;
mod map_browser;
mod map_command;
mod map_render;
mod mutation;
mod notices;
mod ny_county;
mod one_story;
mod output_set;
mod outputs;
mod planted;
mod publish_faults;
mod qgis_style;
// Used by the digests, which the `proj` backend's run leaves out.
#[cfg(not(feature = "proj"))]
mod read_back;
mod real_data;
mod record_files;
mod safe_outputs;
mod scope_and_timeline;
mod scratch;
mod shared_reference;
mod spreadsheets;
mod streaming;
mod workbook_limits;
mod workload;
