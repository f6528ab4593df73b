//! The `lakeshore` command: parse the flags, run the library, map the outcome to an exit code
//! (0 clean, 2 when bad records were reported, 1 when the run could not finish).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("lakeshore: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

// Parcels are millions of small allocations (ids, names, rings); mimalloc hands them out and takes them
// back several times faster than the system allocator, on both cores at once.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
