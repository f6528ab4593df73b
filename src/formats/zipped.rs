//! Zipped shapefiles: `parcels.zip` or `parcels.shp.zip` holding one shapefile, and one shapefile of several
//! in a zip named after a colon (`county.zip:parcels.shp`, or `county.zip:parcels`). A zip of a File
//! Geodatabase (`Parcels.gdb.zip`, its `.gdb` folder inside) is read by the geodatabase reader
//! (`filegdb::Folder`), its feature class named after the colon (`Parcels.gdb.zip:Parcels`, or
//! `county.zip:county.gdb/Parcels` when the zip holds several geodatabases).
//!
//! The zip is never unpacked to disk: the shapefile's members (`.shp`, `.shx`, `.dbf`, `.prj`, `.cpg`, in the
//! same folder of the zip with the same name, in any case) are inflated into memory within the bounds of
//! [`limits`], each member checked against its declared size and compression ratio before and while it is
//! inflated, and the shapefile reader reads them there as it reads files (`shapefile::files`). Messages name a
//! member as `county.zip:parcels.dbf`.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::blocks::LayerBlocks;
use super::filegdb::{self, Folder};
use super::shapefile::files::Files;
use super::shapefile::PARTS;
use super::{LayerAt, LayerReader, ReadOptions};
use crate::crs::layer::Layer;
use crate::model::error::{Error, Problem, Result};

/// The bounds a zip is read within (README "Limits"); past one the zip is refused, naming the bound.
pub mod limits {
    /// Bytes of one member once inflated: a shapefile's `.shp` and `.dbf` are at most 2 GiB by the format.
    pub const MAX_MEMBER_BYTES: u64 = 2 << 30;
    /// Inflated bytes per compressed byte of a member over [`RATIO_FROM`] bytes: a `.dbf` of blank text
    /// columns inflates some 100 times, a zip bomb a thousand.
    pub const MAX_RATIO: u64 = 400;
    /// Members this small are inflated whatever their ratio.
    pub const RATIO_FROM: u64 = 1 << 20;
}

use limits::{MAX_MEMBER_BYTES, MAX_RATIO, RATIO_FROM};

/// The zipped-shapefile format: the shapefile inflated into memory and read there, a block at a time.
pub(super) struct Zipped;

impl LayerReader for Zipped {
    fn extensions(&self) -> &'static [&'static str] {
        &["zip"]
    }

    fn field_names(&self, layer: &LayerAt<'_>) -> Result<Vec<String>> {
        match held(layer)? {
            Held::Shapefile(files) => super::shapefile::field_names_of(&files),
            Held::Geodatabase(folder, class) => filegdb::field_names_in(&folder, class.as_deref()),
        }
    }

    fn read(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<(Layer, Vec<Problem>)> {
        match held(layer)? {
            Held::Shapefile(files) => super::shapefile::read_files(&files, layer.path, options),
            Held::Geodatabase(folder, class) => {
                filegdb::read_in(folder, class.as_deref(), layer.path, options)
            }
        }
    }

    fn open_blocks(&self, layer: &LayerAt<'_>, options: &ReadOptions) -> Result<LayerBlocks> {
        match held(layer)? {
            Held::Shapefile(files) => super::shapefile::open_blocks(&files, layer.path, options),
            Held::Geodatabase(folder, class) => {
                filegdb::open_blocks_in(folder, class.as_deref(), layer.path, options)
            }
        }
    }
}

/// The layer a zip holds: a shapefile's files, or a File Geodatabase's folder and the feature class named.
enum Held {
    Shapefile(Files),
    Geodatabase(Folder, Option<String>),
}

/// What `layer` names in its zip: a shapefile when the zip holds one, or one is named; else the feature
/// class named of the File Geodatabase the zip holds (or of the one named, `county.gdb/Parcels`).
fn held(layer: &LayerAt<'_>) -> Result<Held> {
    let zip = open(layer.file)?;
    let all = names(&zip);
    let gdbs = gdb_folders(&all);
    let shps = shp_members(&all);
    let member = layer.member.map(|m| m.replace('\\', "/"));
    let shapefile_named = member.as_deref().is_some_and(|m| named_shapefile(&shps, m).is_some());
    if gdbs.is_empty() || shapefile_named || (member.is_none() && !shps.is_empty()) {
        return files(layer, zip, &all).map(Held::Shapefile);
    }
    // `county.gdb/Parcels` (or the whole path of the folder in the zip) names the geodatabase, then the class.
    let named = member.as_deref().and_then(|m| {
        gdbs.iter().find_map(|g| {
            let folder = g.trim_end_matches('/');
            [folder, file_name(folder)].into_iter().find_map(|f| match strip_prefix_ci(m, f)? {
                "" => Some((g.clone(), None)),
                rest => {
                    rest.strip_prefix('/').filter(|c| !c.is_empty()).map(|c| (g.clone(), Some(c.to_string())))
                }
            })
        })
    });
    let (gdb, class) = match (named, gdbs.as_slice()) {
        (Some(named), _) => named,
        (None, [one]) => (one.clone(), member),
        (None, several) => {
            let listed: Vec<&str> = several.iter().map(|g| g.trim_end_matches('/')).collect();
            return Err(Error::format(
                layer.file,
                format!(
                    "holds {} File Geodatabases ({}): name the feature class after a colon with its \
                     geodatabase, as in {}:{}/NAME",
                    several.len(),
                    listed.join(", "),
                    layer.file.display(),
                    file_name(listed[0])
                ),
            ));
        }
    };
    Ok(Held::Geodatabase(Folder::zipped(layer.file, zip, &gdb, &all), class))
}

/// The names (in the zip) of the shapefiles a zip holds, in the zip's order: what `init` lists.
pub fn shapefiles(zip: &Path) -> Result<Vec<String>> {
    Ok(shp_members(&names(&open(zip)?)))
}

/// The File Geodatabase folders a zip holds (each its path in the zip, ending in `/`), in the zip's order:
/// the folders named `*.gdb` that hold a catalog, `a00000001.gdbtable`.
fn gdb_folders(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| !n.starts_with("__MACOSX/"))
        .filter_map(|n| {
            let (folder, file) = n.rsplit_once('/')?;
            let gdb = extension(folder) == "gdb" && file.eq_ignore_ascii_case("a00000001.gdbtable");
            gdb.then(|| format!("{folder}/"))
        })
        .collect()
}

/// The feature classes of the File Geodatabases a zip holds, each as the zip names it to the readers
/// (`NAME`, or `county.gdb/NAME` when the zip holds several): what `init` lists.
pub fn feature_classes(zip: &Path) -> Result<Vec<String>> {
    let all = names(&open(zip)?);
    let gdbs = gdb_folders(&all);
    let mut classes = Vec::new();
    for gdb in &gdbs {
        for class in filegdb::names_in(&Folder::zipped(zip, open(zip)?, gdb, &all))? {
            let folder = file_name(gdb.trim_end_matches('/'));
            classes.push(if gdbs.len() == 1 { class } else { format!("{folder}/{class}") });
        }
    }
    Ok(classes)
}

/// A zip opened for reading its members.
pub(super) type ZipArchive = zip::ZipArchive<BufReader<File>>;

/// The zip at `path`, opened.
fn open(path: &Path) -> Result<ZipArchive> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    zip::ZipArchive::new(BufReader::new(file)).map_err(|e| {
        Error::format(
            path,
            format!("not a readable zip ({e}): zip the shapefile's files again, or give them unzipped"),
        )
    })
}

/// Every member's name, in the zip's order, with `/` separators.
fn names(zip: &ZipArchive) -> Vec<String> {
    zip.file_names().map(|n| n.replace('\\', "/")).collect()
}

/// The `.shp` members of `names`, leaving out the resource forks macOS adds (`__MACOSX/`, `._parcels.shp`).
fn shp_members(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| !n.starts_with("__MACOSX/") && !file_name(n).starts_with("._"))
        .filter(|n| extension(n) == "shp")
        .cloned()
        .collect()
}

/// The last part of a member's name.
fn file_name(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// A member's extension, in lower case.
fn extension(name: &str) -> String {
    file_name(name).rsplit_once('.').map_or(String::new(), |(_, e)| e.to_ascii_lowercase())
}

/// A member's name without its extension, in lower case: its folder and stem.
fn stem(name: &str) -> String {
    let dot = name.rfind('.').filter(|&d| d > name.rfind('/').map_or(0, |s| s + 1));
    dot.map_or(name, |d| &name[..d]).to_ascii_lowercase()
}

/// `text` past `prefix`, when it starts with it in any case.
fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.get(..prefix.len()).filter(|head| head.eq_ignore_ascii_case(prefix)).map(|_| &text[prefix.len()..])
}

/// The shapefile of `shps` that `wanted` (with `/` separators) names: by its path in the zip or its file
/// name, in any case, with or without `.shp`.
fn named_shapefile<'a>(shps: &'a [String], wanted: &str) -> Option<&'a String> {
    let with_ext = if extension(wanted).is_empty() { format!("{wanted}.shp") } else { wanted.to_string() };
    shps.iter().find(|n| n.eq_ignore_ascii_case(&with_ext) || file_name(n).eq_ignore_ascii_case(&with_ext))
}

/// The shapefile `layer` names in its zip (opened as `zip`, its members `all`), inflated into memory.
fn files(layer: &LayerAt<'_>, mut zip: ZipArchive, all: &[String]) -> Result<Files> {
    let path = layer.file;
    let shps = shp_members(all);
    let listed = || {
        if shps.is_empty() {
            "none".to_string()
        } else {
            shps.join(", ")
        }
    };
    let chosen = match layer.member {
        Some(wanted) => {
            let wanted = wanted.replace('\\', "/");
            let chosen = named_shapefile(&shps, &wanted).cloned().ok_or_else(|| {
                Error::format(
                    path,
                    format!("holds no shapefile '{wanted}' (its shapefiles: {}): name one of them", listed()),
                )
            })?;
            // Named by its file name alone, a shapefile of that name in two folders of the zip is either.
            let alike: Vec<&String> =
                shps.iter().filter(|n| file_name(n).eq_ignore_ascii_case(file_name(&chosen))).collect();
            if alike.len() > 1
                && !alike.iter().any(|n| {
                    n.eq_ignore_ascii_case(&wanted) || n.eq_ignore_ascii_case(&format!("{wanted}.shp"))
                })
            {
                let listed: Vec<&str> = alike.iter().map(|n| n.as_str()).collect();
                return Err(Error::format(
                    path,
                    format!(
                        "holds {} shapefiles named '{}' ({}): name one by its path in the zip, as in {}:{}",
                        alike.len(),
                        file_name(&chosen),
                        listed.join(", "),
                        path.display(),
                        listed[0]
                    ),
                ));
            }
            chosen
        }
        None => match shps.as_slice() {
            [one] => one.clone(),
            [] => {
                let held: Vec<&str> = all.iter().take(10).map(String::as_str).collect();
                return Err(Error::format(
                    path,
                    format!(
                        "holds no shapefile (.shp) but {}: zip a shapefile's .shp, .shx, .dbf and .prj together, \
                         or give the layer unzipped",
                        if held.is_empty() { "nothing".to_string() } else { held.join(", ") }
                    ),
                ));
            }
            several => {
                return Err(Error::format(
                    path,
                    format!(
                        "holds {} shapefiles ({}): name one after a colon, as in {}:{}",
                        several.len(),
                        listed(),
                        path.display(),
                        several[0]
                    ),
                ))
            }
        },
    };
    let shown = PathBuf::from(format!("{}:{chosen}", path.display()));
    let stem = stem(&chosen);
    let mut members = Vec::new();
    for (i, name) in all.iter().enumerate() {
        let ext = extension(name);
        if !PARTS.contains(&ext.as_str()) || self::stem(name) != stem {
            continue;
        }
        // The same part twice (a zip may hold one name twice): which is the layer's cannot be told.
        if members.iter().any(|(e, _)| *e == ext) {
            return Err(Error::format(
                path,
                format!(
                    "holds {name} twice (or two .{ext} files of {chosen}): zip the layer's files again, once each"
                ),
            ));
        }
        let bytes = inflate(&shown.with_extension(&ext), &mut zip, i)?;
        members.push((ext, bytes));
    }
    Ok(Files::Memory { shp: shown, members: Arc::new(members) })
}

/// Member `index` of `zip` (messages name it `shown`), inflated within [`limits`].
pub(super) fn inflate(shown: &Path, zip: &mut ZipArchive, index: usize) -> Result<Arc<[u8]>> {
    let unreadable = |e: &dyn std::fmt::Display| {
        Error::format(shown, format!("cannot be read from the zip ({e}): zip the layer's files again"))
    };
    let member = zip.by_index(index).map_err(|e| unreadable(&e))?;
    let (size, packed) = (member.size(), member.compressed_size());
    let refuse = |what: String| {
        Error::format(
            shown,
            format!(
                "{what}, past what this reader takes (README, \"Limits\"); no GIS writes such a \
                 layer: unzip it and check its files, or export the layer again"
            ),
        )
    };
    if size > MAX_MEMBER_BYTES {
        return Err(refuse(format!("declares {size} bytes unzipped, more than {MAX_MEMBER_BYTES}")));
    }
    if size > RATIO_FROM && size / packed.max(1) > MAX_RATIO {
        return Err(refuse(format!(
            "declares {size} bytes unzipped from {packed}, a ratio over {MAX_RATIO} to 1"
        )));
    }
    // Inflated up to one byte past its declared size, so that a member that inflates further is caught; the
    // buffer grows with what comes, never to a size only declared.
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(RATIO_FROM)).unwrap_or(0));
    let read = member.take(size + 1).read_to_end(&mut bytes).map_err(|e| unreadable(&e))?;
    if read as u64 != size {
        return Err(Error::format(
            shown,
            format!(
                "inflates to {}{read} bytes where the zip declares {size}: the zip is damaged; zip the \
                 layer's files again",
                if read as u64 > size { "more than " } else { "" }
            ),
        ));
    }
    Ok(bytes.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip at `path` of `members` (name, bytes), deflated.
    fn zip(path: &Path, members: &[(&str, Vec<u8>)]) {
        let mut writer = zip::ZipWriter::new(File::create(path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        for (name, bytes) in members {
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap();
    }

    /// The sample's parcels shapefile as zip members, each named `folder` + `parcels.EXT`.
    fn parcels(folder: &str) -> Vec<(String, Vec<u8>)> {
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
        PARTS
            .iter()
            .map(|ext| {
                (
                    format!("{folder}parcels.{ext}"),
                    std::fs::read(sample.join(format!("parcels.{ext}"))).unwrap(),
                )
            })
            .collect()
    }

    fn scratch(label: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lakeshore-zipped-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn read(path: &Path) -> Result<(Layer, Vec<Problem>)> {
        crate::formats::read_layer(path, &ReadOptions::default())
    }

    /// A zip of the sample's parcels reads as the shapefile itself: every record, field and problem, and
    /// messages name the zip's member.
    #[test]
    fn a_zipped_shapefile_reads_as_the_shapefile() {
        let dir = scratch("same");
        let shp = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/parcels.shp");
        let (layer, problems) = read(&shp).unwrap();
        let members = parcels("");
        let members: Vec<(&str, Vec<u8>)> = members.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        zip(&dir.join("parcels.shp.zip"), &members);
        let (zipped, zipped_problems) = read(&dir.join("parcels.shp.zip")).unwrap();
        assert_eq!(format!("{:?}", zipped.features), format!("{:?}", layer.features));
        assert_eq!((zipped.fields, zipped.crs), (layer.fields, layer.crs));
        assert_eq!(zipped_problems.len(), problems.len());
        // Beside another shapefile, in a folder of the zip: named after a colon, with or without .shp.
        let mut more = parcels("county/");
        more.push(("county/towns.shp".into(), Vec::new()));
        let more: Vec<(&str, Vec<u8>)> = more.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        zip(&dir.join("county.zip"), &more);
        let err = read(&dir.join("county.zip")).unwrap_err().to_string();
        assert!(err.contains("holds 2 shapefiles (county/parcels.shp, county/towns.shp): name one"), "{err}");
        for name in ["county.zip:parcels.shp", "county.zip:PARCELS", "county.zip:county/parcels.shp"] {
            let (named, _) = read(&dir.join(name)).unwrap();
            assert_eq!(named.features.len(), layer.features.len(), "{name}");
        }
        let err = read(&dir.join("county.zip:lakes.shp")).unwrap_err().to_string();
        assert!(err.contains("holds no shapefile 'lakes.shp'"), "{err}");
        assert_eq!(shapefiles(&dir.join("county.zip")).unwrap(), ["county/parcels.shp", "county/towns.shp"]);
        // The damaged towns.shp (empty) is named as a member of the zip.
        let err = read(&dir.join("county.zip:towns.shp")).unwrap_err().to_string();
        assert!(err.contains("county.zip:county/towns.shx: not found"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Two shapefiles of one name in two folders of a zip (two years' parcels): named by the file name alone,
    /// either could be meant, so the run stops listing both; named by its path, each is read. A zip holding
    /// one member twice is refused.
    #[test]
    fn a_shapefile_named_ambiguously_in_its_zip_is_refused() {
        let dir = scratch("ambiguous");
        let mut members = parcels("2025/");
        members.extend(parcels("2023/"));
        let members: Vec<(&str, Vec<u8>)> = members.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        zip(&dir.join("county.zip"), &members);
        for name in ["county.zip:parcels.shp", "county.zip:parcels"] {
            let err = read(&dir.join(name)).unwrap_err().to_string();
            assert!(
                err.contains("holds 2 shapefiles named 'parcels.shp' (2025/parcels.shp, 2023/parcels.shp)")
                    && err.contains("county.zip:2025/parcels.shp"),
                "{err}"
            );
        }
        for name in ["county.zip:2025/parcels.shp", "county.zip:2023/parcels"] {
            assert!(read(&dir.join(name)).is_ok(), "{name}");
        }
        let err = read(&dir.join("county.zip")).unwrap_err().to_string();
        assert!(
            err.contains("name one after a colon, as in") && err.contains("county.zip:2025/parcels.shp"),
            "{err}"
        );
        // The .dbf twice, under names that differ only in case (a zip may even hold one name twice).
        let mut twice = parcels("");
        assert!(twice[2].0.ends_with(".dbf"));
        twice.push(("PARCELS.DBF".to_string(), twice[2].1.clone()));
        let twice: Vec<(&str, Vec<u8>)> = twice.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        zip(&dir.join("twice.zip"), &twice);
        let err = read(&dir.join("twice.zip")).unwrap_err().to_string();
        assert!(err.contains("holds PARCELS.DBF twice (or two .dbf files of parcels.shp)"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A member that inflates far beyond its compressed size (a `.dbf` of 64 MiB of blanks, about a thousand
    /// to one) is refused before it is inflated, naming the member and the bound; a zip of no shapefile
    /// says what it holds.
    #[test]
    fn members_past_the_bounds_are_refused_naming_them() {
        let dir = scratch("bounds");
        let mut members = parcels("");
        members[2].1 = vec![b' '; 64 << 20];
        let members: Vec<(&str, Vec<u8>)> = members.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        zip(&dir.join("bomb.zip"), &members);
        let err = read(&dir.join("bomb.zip")).unwrap_err().to_string();
        assert!(err.contains("bomb.zip:parcels.dbf: declares 67108864 bytes unzipped from"), "{err}");
        assert!(err.contains(&format!("a ratio over {MAX_RATIO} to 1")), "{err}");
        zip(&dir.join("notes.zip"), &[("README.txt", b"hello".to_vec())]);
        let err = read(&dir.join("notes.zip")).unwrap_err().to_string();
        assert!(err.contains("holds no shapefile (.shp) but README.txt"), "{err}");
        std::fs::write(dir.join("cut.zip"), b"PK\x03\x04 and nothing after").unwrap();
        let err = read(&dir.join("cut.zip")).unwrap_err().to_string();
        assert!(err.contains("not a readable zip"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn geodatabases_are_the_gdb_folders_that_hold_a_catalog() {
        let names: Vec<String> = [
            "a/Parcels.gdb/a00000001.gdbtable",
            "a/Parcels.gdb/a00000009.gdbtable",
            "Roads.GDB/A00000001.GDBTABLE",
            "Empty.gdb/gdb",
            "__MACOSX/x.gdb/a00000001.gdbtable",
            "notes.gdb.txt",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(gdb_folders(&names), ["a/Parcels.gdb/", "Roads.GDB/"]);
    }

    #[test]
    fn members_are_told_by_folder_stem_and_extension() {
        assert_eq!(extension("a/Parcels.SHP"), "shp");
        assert_eq!(stem("a/Parcels.SHP"), "a/parcels");
        assert_eq!(stem("a.b/parcels"), "a.b/parcels");
        assert_eq!(file_name("a/b/parcels.dbf"), "parcels.dbf");
        let names: Vec<String> = ["__MACOSX/._p.shp", "._p.shp", "p.shp", "q/R.Shp", "p.dbf"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(shp_members(&names), ["p.shp", "q/R.Shp"]);
    }
}
