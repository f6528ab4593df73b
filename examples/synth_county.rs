//! Generator of a SYNTHETIC Owasco-like county: the project's sample data and bench inputs.
//!
//! ```text
//! cargo run --example synth_county -- sample data/sample
//! cargo run --example synth_county -- sample-problems data/sample-problems
//! cargo run --release --example synth_county -- bench --parcels 100000 --out /tmp/bench
//! cargo run --release --example synth_county -- bench --parcels 100000 --out /tmp/bench-gj --parcels-format geojson
//! cargo run --release --example synth_county -- bench --parcels 1000000 --out /tmp/bench-dem --dem 10000
//! cargo run --release --example synth_county -- bench --parcels 1000000 --out /tmp/bench-bad --bad
//! cargo run --release --example synth_county -- bench --parcels 1000000 --out /tmp/bench-across --across 10
//! ```
//!
//! `sample` writes the hand-designed sample county (about seventy parcels, each one a case of the
//! law; see `data/sample/README.md` and `tests/golden/sample/expected.csv`). `sample-problems` writes the same
//! county with the mistakes real files hold (a bow-tie parcel, a duplicate id, bad record rows), each of which
//! lakeshore reports. `bench` writes a large
//! grid county for timing. Both are deterministic: the same arguments give the same bytes.
//!
//! The generator stands alone on purpose: it does not use the `lakeshore` library, so a bug in the
//! library cannot leak into the data the library is tested against. Geometry is designed in
//! EPSG:2261 (NY State Plane Central, US survey feet) and converted to WGS84 with `proj4rs` for the
//! layers that are published in longitude/latitude.

// A crate root resolves `mod x;` next to itself, so the submodules in `synth_county/` need a path.
#[path = "synth_county/bench.rs"]
mod bench;
#[path = "synth_county/dem.rs"]
mod dem;
#[path = "synth_county/feet.rs"]
mod feet;
#[path = "synth_county/parcels.rs"]
mod parcels;
#[path = "synth_county/problems.rs"]
mod problems;
#[path = "synth_county/records.rs"]
mod records;
#[path = "synth_county/sample.rs"]
mod sample;
#[path = "synth_county/write.rs"]
mod write;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Writes a synthetic county for lakeshore.
#[derive(Parser)]
#[command(about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Writes the hand-designed sample county (every case of the law) into DIR.
    Sample {
        /// Output folder, created if missing (the project keeps it in data/sample).
        dir: PathBuf,
    },
    /// Writes the sample county with deliberately bad records (each reported) into DIR.
    SampleProblems {
        /// Output folder, created if missing (the project keeps it in data/sample-problems).
        dir: PathBuf,
    },
    /// Writes a grid county of N parcels for benchmarking into DIR.
    Bench {
        /// Number of parcels to write.
        #[arg(long)]
        parcels: usize,
        /// Output folder, created if missing.
        #[arg(long)]
        out: PathBuf,
        /// Seed of the attribute generator (geometry does not depend on it).
        #[arg(long, default_value_t = 2027)]
        seed: u64,
        /// How the parcels layer is written (the other layers are always shapefiles).
        #[arg(long, value_enum, default_value_t = bench::ParcelsFormat::Shp)]
        parcels_format: bench::ParcelsFormat,
        /// Also write a DEM of this many pixels square over the county (`dem.tif`, whose 717.13 ft contour
        /// lies 40 ft outside the lake) and `county-dem.toml` reading it.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        dem: Option<u32>,
        /// Draw every parcel as a bow-tie (its ring crossing itself at its centre): each is reported in
        /// problems.csv and still scheduled from its shape, so the run is a clean county's with a problem a
        /// parcel.
        #[arg(long)]
        bad: bool,
        /// Put this many systems in a thousand on the lot across the road: the next row's parcel in the same
        /// column, which the same owner holds. Each such parcel waits in the run for the lot its system lies
        /// on, as a county's do.
        #[arg(long, default_value_t = 0)]
        across: u32,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Sample { dir } => sample::write_sample(&dir, false),
        Command::SampleProblems { dir } => sample::write_sample(&dir, true),
        Command::Bench { parcels, out, seed, parcels_format, dem, bad, across } => {
            bench::write_bench(parcels, &out, seed, parcels_format, dem, bad, across)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("synth_county: {err:#}");
            ExitCode::FAILURE
        }
    }
}
