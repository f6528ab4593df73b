//! Prints what binary outputs hold (GeoPackage tables and rows, GeoParquet metadata and rows, PNG pixels), so
//! that two builds' outputs can be compared by content rather than by bytes:
//!
//! ```text
//! cargo run --example read_back -- out/schedule.gpkg
//! ```
//!
//! `tests/golden/outputs/capture.sh` digests this text for every `.gpkg`, `.parquet` and `.png` output.

#[path = "../tests/it/read_back.rs"]
mod read_back;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for arg in std::env::args().skip(1) {
        match read_back::read_back(Path::new(&arg)) {
            Some(Ok(text)) => {
                if std::io::stdout().write_all(text.as_bytes()).is_err() {
                    return ExitCode::FAILURE;
                }
            }
            Some(Err(e)) => {
                eprintln!("read_back: {e}");
                code = ExitCode::FAILURE;
            }
            None => {
                eprintln!("read_back: {arg}: not a .gpkg, .parquet or .png file; compare its bytes");
                code = ExitCode::FAILURE;
            }
        }
    }
    code
}
