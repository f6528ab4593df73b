//! Times the buffer polygon of a layer's features two ways: `lakeshore::geom::buffer` (each part's offset
//! curve, one union) and `geo`'s `Buffer` (a shape per edge, unioned), which `lakeshore buffer` and `map`
//! used before. `bench/README.md` reports it on the bench county's 20,001-vertex lake.
//!
//!     cargo run --release --example buffer_polygon -- FILE DISTANCE
//!
//! The distance is in the layer's units (feet for the bench county). Prints each time, each polygon's area
//! and the area of their symmetric difference.

use std::path::Path;
use std::time::Instant;

use geo::{Area, BooleanOps, Buffer, Geometry, GeometryCollection};
use lakeshore::formats::{read_layer, ReadOptions};

// The allocator of the `lakeshore` binary, so that the time is the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, distance] = args.as_slice() else {
        anyhow::bail!("usage: buffer_polygon FILE DISTANCE");
    };
    let distance: f64 = distance.parse()?;
    let (layer, _) = read_layer(Path::new(file), &ReadOptions::default())?;
    let source: Vec<&Geometry<f64>> =
        layer.features.iter().filter_map(|f| f.geometry.as_ref().ok()).collect();
    let vertices: usize = source.iter().map(|g| geo::CoordsIter::coords_count(*g)).sum();
    let start = Instant::now();
    let ours = lakeshore::geom::buffer::buffer(source.iter().copied(), distance);
    let ours_s = start.elapsed().as_secs_f64();
    println!("{} features, {vertices} vertices, buffer {distance}", source.len());
    println!("lakeshore::geom::buffer: {ours_s:.3} s, area {:.0}", ours.unsigned_area());
    let start = Instant::now();
    let theirs = GeometryCollection(source.iter().map(|&g| g.clone()).collect()).buffer(distance);
    let theirs_s = start.elapsed().as_secs_f64();
    println!("geo::Buffer: {theirs_s:.3} s, area {:.0}", theirs.unsigned_area());
    println!("symmetric difference: {:.0}", ours.xor(&theirs).unsigned_area());
    Ok(())
}
