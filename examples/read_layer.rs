//! Reads one layer with `lakeshore::formats::read_layer` and says how long it took: the reader alone, without
//! reprojection or the rest of the pipeline. `bench/README.md` times the GeoJSON reader with it.
//!
//!     cargo run --release --example read_layer -- FILE [FIELD ...]
//!
//! Fields named after the file are the only ones kept, as the pipeline keeps only the parcel fields it needs;
//! without any, every field is kept. Peak memory is the process's high-water mark (`VmHWM`), so it includes
//! the program itself.

use std::path::Path;
use std::time::Instant;

use lakeshore::formats::{read_layer, ReadOptions};

// The allocator of the `lakeshore` binary, so that the time is the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((file, fields)) = args.split_first() else {
        anyhow::bail!("usage: read_layer FILE [FIELD ...]");
    };
    let keep = (!fields.is_empty()).then(|| fields.to_vec());
    let start = Instant::now();
    let (layer, problems) = read_layer(Path::new(file), &ReadOptions { assume_crs: None, keep })?;
    let seconds = start.elapsed().as_secs_f64();
    let n = layer.features.len();
    println!(
        "{n} features, {} fields kept, {} problems, CRS {}: {seconds:.3} s, {:.0} features/s, peak {}",
        layer.fields.len(),
        problems.len(),
        layer.crs,
        n as f64 / seconds,
        peak_memory().unwrap_or_else(|| "unknown".into())
    );
    Ok(())
}

/// The process's peak resident set (`VmHWM` of `/proc/self/status`), where Linux gives it.
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some(format!("{} MiB", kib / 1024))
}
