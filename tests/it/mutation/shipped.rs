//! The mutation test's layers in the formats counties ship them (a zipped shapefile, a zipped File
//! Geodatabase, FlatGeobuf, a GeoJSON sequence, Esri JSON), each read in place of the sample's own: made here
//! ([`shipped_layers`]: a zip of the parcels here, the others with GDAL as `formats_as_shipped` and `filegdb`
//! do), damaged by the mutation test, and given hostile sizes of their own ([`hostile_shipped`]).

use std::path::Path;
use std::process::Command;

use super::{copy_county, lines, run, zip_members, Boundaries, Case, End, HANG, PEAK};
use crate::common;

/// Layers in the formats counties ship them, each read in place of the sample's own: the file, the config's
/// layer it stands for, how to find its record boundaries.
pub(super) const SHIPPED: &[(&str, &str, Boundaries)] = &[
    (PARCELS_ZIP, "parcels", zip_members),
    (PARCELS_GDB_ZIP, "parcels", zip_members),
    (PARCELS_FGB, "parcels", fgb_features),
    ("towns.geojsonl", "towns", lines),
    ("shoreline.json", "shoreline", esri_features),
];

/// The sample's parcels zipped here, file by file; a case damaging it reads the parcels from it.
const PARCELS_ZIP: &str = "parcels.zip";
/// The sample's parcels as a File Geodatabase GDAL writes (`county.gdb`, feature class `Parcels`), zipped.
const PARCELS_GDB_ZIP: &str = "parcels.gdb.zip";
/// The sample's parcels as GDAL writes FlatGeobuf, with its spatial index (node size 16).
const PARCELS_FGB: &str = "parcels.fgb";

/// Writes the [`SHIPPED`] layers into `dir` and returns the files written: the zip always, the others when
/// the writers' Python (GDAL) is there (and a failure without it in CI).
pub(super) fn shipped_layers(dir: &Path) -> Vec<&'static str> {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(dir.join(PARCELS_ZIP)).unwrap());
    let deflated =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
        zip.start_file(format!("parcels.{ext}"), deflated).unwrap();
        std::io::Write::write_all(&mut zip, &std::fs::read(sample.join(format!("parcels.{ext}"))).unwrap())
            .unwrap();
    }
    zip.finish().unwrap();
    let Some(python) = crate::geoparquet::writers_python("mutation of the shipped formats") else {
        return vec![PARCELS_ZIP];
    };
    let written = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/writers/county_formats.py"))
        .arg(&sample)
        .arg(dir)
        .output()
        .unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let gdb = crate::filegdb::written_by_gdal("mutation of the zipped geodatabase").expect("GDAL is there");
    crate::filegdb::zip_gdbs(&gdb, &dir.join(PARCELS_GDB_ZIP), "", &["county.gdb"]);
    let _ = std::fs::remove_dir_all(&gdb);
    SHIPPED.iter().map(|&(file, _, _)| file).collect()
}

/// Makes the county in `dir` read its `layer` from `file`.
pub(super) fn use_layer(dir: &Path, layer: &str, file: &str) {
    let config = std::fs::read_to_string(dir.join("county.toml")).unwrap();
    let config: Vec<String> = config
        .lines()
        .map(|line| match line.split_once(" = ") {
            Some((key, _)) if key.trim() == layer => format!("{layer} = \"{file}\""),
            _ => line.to_string(),
        })
        .collect();
    std::fs::write(dir.join("county.toml"), config.join("\n")).unwrap();
}

/// The size of a packed Hilbert R-tree of `items` and nodes of `node`, by the FlatGeobuf specification's
/// formula: every level's nodes, each 40 bytes.
fn rtree_bytes(items: usize, node: usize) -> usize {
    let (mut n, mut nodes) = (items, items);
    loop {
        n = n.div_ceil(node);
        nodes += n;
        if n <= 1 {
            return nodes * 40;
        }
    }
}

/// Start of the header, the index and each feature of a FlatGeobuf of the sample's 73 parcels with an index
/// of node size 16: the header's size follows the 8 magic bytes, each feature's size opens it.
fn fgb_features(bytes: &[u8]) -> Vec<usize> {
    let u32_at =
        |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize);
    let Some(header) = u32_at(8) else { return vec![0] };
    let index = 12 + header;
    let mut out = vec![8, 12, index];
    let mut at = index + rtree_bytes(73, 16);
    while let Some(size) = u32_at(at) {
        out.push(at);
        at += 4 + size;
    }
    out
}

/// Start of each feature of an Esri JSON FeatureSet written on one line: each `{"attributes"`.
fn esri_features(bytes: &[u8]) -> Vec<usize> {
    let mark = b"{\"attributes\"";
    let starts = bytes.windows(mark.len()).enumerate().filter(|(_, w)| w == mark).map(|(i, _)| i);
    std::iter::once(0).chain(starts).collect()
}

/// Hostile versions of a shipped layer, each a named case and the refusal it must meet: sizes a crafted file
/// would declare to make the reader allocate or inflate more than the file holds.
pub(super) fn hostile_shipped(file: &'static str, original: &[u8]) -> Vec<(Case, &'static str)> {
    let mut cases = Vec::new();
    let mut push =
        |what: &str, bytes: Vec<u8>, refusal| cases.push((Case { file, what: what.into(), bytes }, refusal));
    let u32_at = |bytes: &[u8], at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    match file {
        PARCELS_ZIP => {
            // The .dbf declared 3 GiB unzipped in the central directory (its entry: the sizes at 20 and 24,
            // the name at 46).
            let mut bytes = original.to_vec();
            let entry = (0..bytes.len() - 4)
                .find(|&i| bytes[i..i + 4] == *b"PK\x01\x02" && bytes[i + 46..].starts_with(b"parcels.dbf"))
                .unwrap();
            bytes[entry + 24..entry + 28].copy_from_slice(&0xC000_0000u32.to_le_bytes());
            push(
                "the .dbf declaring 3 GiB",
                bytes,
                "parcels.zip:parcels.dbf: declares 3221225472 bytes unzipped",
            );
            // A .dbf of 256 MiB of blanks in a few hundred KiB: a thousand to one. Written a MiB at a time, so
            // that this process's own peak, which the child's measure carries, stays small.
            let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
            let mut bomb = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            let deflated = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(true);
            for ext in ["shp", "shx", "dbf", "prj"] {
                bomb.start_file(format!("parcels.{ext}"), deflated).unwrap();
                if ext == "dbf" {
                    let blanks = vec![b' '; 1 << 20];
                    (0..256).for_each(|_| std::io::Write::write_all(&mut bomb, &blanks).unwrap());
                } else {
                    let member = std::fs::read(sample.join(format!("parcels.{ext}"))).unwrap();
                    std::io::Write::write_all(&mut bomb, &member).unwrap();
                }
            }
            let bytes = bomb.finish().unwrap().into_inner();
            push(
                "a .dbf inflating a thousand to one",
                bytes,
                "parcels.zip:parcels.dbf: declares 268435456 bytes unzipped from",
            );
        }
        PARCELS_GDB_ZIP => {
            // The feature class's table declared 3 GiB unzipped in the central directory.
            let name = b"county.gdb/a00000009.gdbtable";
            let mut bytes = original.to_vec();
            let entry = (0..bytes.len() - 4)
                .find(|&i| bytes[i..i + 4] == *b"PK\x01\x02" && bytes[i + 46..].starts_with(name))
                .unwrap();
            bytes[entry + 24..entry + 28].copy_from_slice(&0xC000_0000u32.to_le_bytes());
            push(
                "the table declaring 3 GiB",
                bytes,
                "parcels.gdb.zip:county.gdb/a00000009.gdbtable: declares 3221225472 bytes unzipped",
            );
        }
        PARCELS_FGB => {
            let header = u32_at(original, 8);
            let mut bytes = original.to_vec();
            bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
            push("a header of 4 GiB", bytes, "parcels.fgb: its header claims 4294967295 bytes");
            // The feature count, 73 as a u64 in the header.
            let count = (12..12 + header).find(|&i| original[i..i + 8] == 73u64.to_le_bytes()).unwrap();
            let mut bytes = original.to_vec();
            bytes[count..count + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
            push("2^40 features", bytes, "parcels.fgb: its header declares 1099511627776 features");
            let first = 12 + header + rtree_bytes(73, 16);
            let mut bytes = original.to_vec();
            bytes[first..first + 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
            push("a first feature of 2 GiB", bytes, "parcels.fgb: feature 1 claims 2147483647 bytes");
        }
        _ => {}
    }
    cases
}

/// The layer of the config the shipped `file` stands for, if it is one.
pub(super) fn shipped(file: &str) -> Option<&'static str> {
    SHIPPED.iter().find(|&&(f, _, _)| f == file).map(|&(_, layer, _)| layer)
}

/// The hostile shipped layers of the mutation test alone, so that a plain `cargo test` runs them: each run
/// stops (exit 1) within [`HANG`] and [`PEAK`], naming the file and the size it refuses.
#[test]
fn hostile_shipped_layers_are_refused_within_bounds() {
    let scratch = common::fresh_dir("mutation-hostile-shipped");
    let shipped_dir = scratch.join("shipped");
    std::fs::create_dir_all(&shipped_dir).unwrap();
    let mut n = 0;
    for file in shipped_layers(&shipped_dir) {
        let original = std::fs::read(shipped_dir.join(file)).unwrap();
        for (case, refusal) in hostile_shipped(file, &original) {
            let dir = scratch.join(format!("case-{n}"));
            n += 1;
            std::fs::create_dir_all(&dir).unwrap();
            copy_county(&dir);
            std::fs::write(dir.join(case.file), &case.bytes).unwrap();
            use_layer(&dir, shipped(case.file).unwrap(), case.file);
            match run(&dir) {
                End::Hung => panic!("{}: still running after {HANG:?}", case.what),
                End::Exited { peak, .. } if peak > PEAK => panic!("{}: {} MiB", case.what, peak >> 20),
                End::Exited { code, stderr, .. } => {
                    assert_eq!(code, Some(1), "{}: {stderr}", case.what);
                    assert!(stderr.contains(refusal), "{}: {stderr}", case.what);
                }
            }
        }
    }
    assert!(n >= 2, "the zip's cases at least");
    assert!(n == 2 || n >= 6, "with GDAL, the zipped geodatabase's and FlatGeobuf's cases too: {n}");
    let _ = std::fs::remove_dir_all(&scratch);
}
