//! The tiled form of the interactive map, for a state: the parcels are written, a block at a time as the
//! run streams them, into tiles beside the page rather than into it, and the page adds the tiles its view
//! needs. A page opened from disk (`file://`) cannot `fetch()` a file, so each tile is a script,
//! `map_tile_Z_X_Y.js` beside `map.html`, that hands its parcels to the page's global `lakeshoreTile(z, x, y,
//! texts, parcels)`; the page knows which tiles exist, and their parcels per class, from the [`TileIndex`] it
//! carries. A tile is named after its page ([`tile_prefix`]), so two maps in one folder keep their own tiles,
//! and the tiles an earlier map of the same name left are found by [`stale_tiles`].
//!
//! Tiles are those of the Web Mercator grid (the grid of every slippy map) at [`TILE_ZOOM`] 14, where a
//! tile is about 2.4 km wide at 40° north (1.8 km at 45°): a dense town holds a few thousand parcels in one,
//! a view at zoom [`PARCEL_ZOOM`] loads a dozen or two. A parcel goes to the one tile its centroid
//! falls in, so it is written once; its record is the single page's ([`super::html`]), its texts indexes
//! into the table of the segment of the tile it is written in.
//!
//! Memory stays bounded by a block: [`TileWriter`] keeps each tile's records as bytes, with the table of their
//! texts, and when they pass [`BUFFER_LIMIT`] in all appends each tile's as one segment (one call of
//! `lakeshoreTile`, its own text table) to a hidden scratch file per tile in the staging folder; at the end
//! each tile's script is its scratch file's segments and the last.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use geo::Centroid;
use serde_json::{json, Value};

use super::html::{push_parcel, HtmlParcel, Strings, PARCEL_FIELDS};
use super::ParcelClass;
use crate::model::controls::without_controls;
use crate::model::error::{Error, Result};
use crate::write::FolderWriter;

/// The zoom of the tile grid (see the module docs).
pub const TILE_ZOOM: u8 = 14;

/// The page draws parcels from this zoom in (a view of a dozen or two tiles); farther out, each tile as a
/// square coloured by its commonest class.
pub const PARCEL_ZOOM: u8 = 14;

/// `--tiles auto` tiles a map of more parcels than this: a county's map (the largest in New York State,
/// Suffolk, has about 600,000 parcels, most of them a few hundred thousand) opens as one page up to here.
pub const TILES_ABOVE: usize = 250_000;

/// The bytes of tile records held in memory before they are appended to the tiles' scratch files.
pub const BUFFER_LIMIT: usize = 64 << 20;

/// What follows the page's stem in the names of its tiles; `Z_X_Y.js` follows it.
pub const TILE_INFIX: &str = "_tile_";

/// The start of the names of the tiles of the page `page`: its file stem and [`TILE_INFIX`] for a page named
/// `.html` (`map.html`'s are `map_tile_`), its whole name and the infix for any other (`map.htm`'s are
/// `map.htm_tile_`), so that two pages in one folder never share a tile's name.
pub fn tile_prefix(page: &Path) -> String {
    let name = |p: Option<&std::ffi::OsStr>| p.map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let head = match page.extension().is_some_and(|e| e == "html") {
        true => name(page.file_stem()),
        false => name(page.file_name()),
    };
    format!("{head}{TILE_INFIX}")
}

/// The tile `(x, y)` of the Web Mercator grid at `zoom` that the point at longitude `lon` and latitude `lat`
/// (degrees) falls in; latitudes beyond the grid's ±85.0511° fall in its first or last row.
pub fn tile_of(lon: f64, lat: f64, zoom: u8) -> (u32, u32) {
    let n = f64::from(1u32 << zoom);
    let lat = lat.clamp(-85.051_128_779_8, 85.051_128_779_8).to_radians();
    let x = (lon + 180.0) / 360.0 * n;
    let y = (1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n;
    let last = n - 1.0;
    (x.floor().clamp(0.0, last) as u32, y.floor().clamp(0.0, last) as u32)
}

/// The name of the script of tile `(x, y)` at `zoom`, its name starting with `prefix` ([`tile_prefix`]).
pub fn tile_file(prefix: &str, zoom: u8, (x, y): (u32, u32)) -> String {
    format!("{prefix}{zoom}_{x}_{y}.js")
}

/// The tiles in the folder `dir` of the page whose tiles' names start with `prefix` that are not among
/// `kept` (file names): those an earlier map of the same name wrote where the new one has none (a map of
/// one town over a map of the county, or a single page over a tiled one). Only names a tile of that page can
/// have count (`prefix`, then `Z_X_Y.js` in digits); a folder that cannot be read has none.
pub fn stale_tiles(dir: &Path, prefix: &str, kept: &BTreeSet<String>) -> Vec<PathBuf> {
    let is_tile = |name: &str| {
        let Some(rest) = name.strip_prefix(prefix).and_then(|n| n.strip_suffix(".js")) else { return false };
        let parts: Vec<&str> = rest.split('_').collect();
        parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let Ok(entries) = std::fs::read_dir(crate::write::folder(dir)) else { return Vec::new() };
    let mut stale: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| is_tile(name) && !kept.contains(name))
        .map(|name| dir.join(name))
        .collect();
    stale.sort();
    stale
}

/// One tile of the index: where it is and how many parcels of each class it holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexedTile {
    /// Column and row at [`TILE_ZOOM`].
    pub at: (u32, u32),
    /// Its parcels.
    pub parcels: u64,
    /// Its parcels per class on a tier map, by [`ParcelClass::ALL`] index.
    pub by_tier: Vec<u64>,
    /// Its parcels per class on a status map.
    pub by_status: Vec<u64>,
}

/// What the page knows of the tiles: every tile written, and the choices of its filters over the whole map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TileIndex {
    /// The start of the tiles' file names ([`tile_prefix`]).
    pub prefix: String,
    /// The tiles, by column then row.
    pub tiles: Vec<IndexedTile>,
    /// For the town, tier, status and notice-stage filters: every value the parcels hold, sorted.
    pub choices: BTreeMap<&'static str, BTreeSet<String>>,
}

impl TileIndex {
    /// The index as the page's script reads it (`D.tiles`).
    pub fn to_json(&self) -> Value {
        let tiles: Vec<Value> =
            self.tiles.iter().map(|t| json!([t.at.0, t.at.1, t.parcels, t.by_tier, t.by_status])).collect();
        json!({
            "zoom": TILE_ZOOM,
            "parcelZoom": PARCEL_ZOOM,
            "prefix": self.prefix,
            "total": self.tiles.iter().map(|t| t.parcels).sum::<u64>(),
            "list": tiles,
            "choices": self.choices,
        })
    }
}

/// The fields whose values the filters offer.
const CHOICES: [&str; 4] = ["town", "tier", "status", "notice_stage"];

/// One tile being written: the segment of its records not yet in its scratch file (the records and the
/// table of their texts), and its counts.
#[derive(Debug, Default)]
struct Tile {
    buffer: Vec<u8>,
    strings: Strings,
    records: usize,
    scratch: bool,
    index: IndexedTile,
}

impl Tile {
    /// Writes the segment to `out` as one call of the page's `lakeshoreTile(z, x, y, texts, records)`, one
    /// line, and starts the next.
    fn write_segment(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.records == 0 {
            return Ok(());
        }
        let (x, y) = self.index.at;
        write!(out, "lakeshoreTile({TILE_ZOOM},{x},{y},")?;
        let texts: Vec<std::borrow::Cow<'_, str>> =
            self.strings.texts().iter().map(|t| without_controls(t).0).collect();
        serde_json::to_writer(&mut *out, &texts)?;
        out.write_all(b",[")?;
        out.write_all(&self.buffer)?;
        out.write_all(b"]);\n")?;
        (self.buffer, self.strings, self.records) = (Vec::new(), Strings::default(), 0);
        Ok(())
    }
}

/// Writes parcels into the tiles they fall in, in the folder `dir` (see the module docs).
#[derive(Debug)]
pub struct TileWriter {
    dir: PathBuf,
    prefix: String,
    tiles: BTreeMap<(u32, u32), Tile>,
    buffered: usize,
    limit: usize,
    choices: BTreeMap<&'static str, BTreeSet<String>>,
}

impl TileWriter {
    /// A writer of tiles into `dir`, their names starting with `prefix` ([`tile_prefix`]), holding at most
    /// about `limit` bytes of records ([`BUFFER_LIMIT`]).
    pub fn new(dir: &Path, prefix: &str, limit: usize) -> Self {
        TileWriter {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            tiles: BTreeMap::new(),
            buffered: 0,
            limit,
            choices: BTreeMap::new(),
        }
    }

    /// Writes `parcel` (in WGS 84) into the tile of its centroid; a parcel without area is not written.
    pub fn add(&mut self, parcel: &HtmlParcel) -> Result<()> {
        let Some(centre) = parcel.shape.centroid() else { return Ok(()) };
        let at = tile_of(centre.x(), centre.y(), TILE_ZOOM);
        let tile = self.tiles.entry(at).or_default();
        if tile.index.parcels == 0 {
            tile.index.at = at;
            tile.index.by_tier = vec![0; ParcelClass::ALL.len()];
            tile.index.by_status = vec![0; ParcelClass::ALL.len()];
        }
        let before = tile.buffer.len() + tile.strings.bytes();
        if tile.records > 0 {
            tile.buffer.push(b',');
        }
        push_parcel(&mut tile.buffer, parcel, &mut tile.strings);
        tile.records += 1;
        tile.index.parcels += 1;
        tile.index.by_tier[parcel.tier_class as usize] += 1;
        tile.index.by_status[parcel.status_class as usize] += 1;
        self.buffered += tile.buffer.len() + tile.strings.bytes() - before;
        for name in CHOICES {
            let Some(k) = PARCEL_FIELDS.iter().position(|f| *f == name) else { continue };
            let value = &parcel.fields[k];
            let seen = self.choices.entry(name).or_default();
            if !value.is_empty() && !seen.contains(value) {
                seen.insert(value.clone());
            }
        }
        if self.buffered > self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// The hidden scratch file of tile `at`.
    fn scratch(&self, at: (u32, u32)) -> PathBuf {
        self.dir.join(format!(".{}.part", tile_file(&self.prefix, TILE_ZOOM, at)))
    }

    /// Appends every tile's segment to its scratch file.
    fn spill(&mut self) -> Result<()> {
        let paths: Vec<((u32, u32), PathBuf)> = self.tiles.keys().map(|&at| (at, self.scratch(at))).collect();
        for (at, path) in paths {
            let Some(tile) = self.tiles.get_mut(&at).filter(|t| t.records > 0) else { continue };
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| Error::io(&path, e))?;
            let mut file = std::io::BufWriter::with_capacity(256 << 10, file);
            tile.write_segment(&mut file).and_then(|()| file.flush()).map_err(|e| Error::io(&path, e))?;
            tile.scratch = true;
        }
        self.buffered = 0;
        Ok(())
    }

    /// Writes each tile's script (its scratch file's segments, then the last) and removes the scratch files;
    /// returns the index and the scripts' paths.
    pub fn finish(mut self) -> Result<(TileIndex, Vec<PathBuf>)> {
        let tiles = std::mem::take(&mut self.tiles);
        let mut written = Vec::with_capacity(tiles.len());
        let mut index = TileIndex {
            prefix: self.prefix.clone(),
            tiles: Vec::with_capacity(tiles.len()),
            choices: self.choices.clone(),
        };
        // Thousands of files in one folder: it is looked through for the temporaries of killed runs once.
        let folder = FolderWriter::new(&self.dir);
        for (at, mut tile) in tiles {
            let scratch = self.scratch(at);
            let path = folder.write_atomic(&tile_file(&self.prefix, TILE_ZOOM, at), |w| {
                if tile.scratch {
                    let mut part = std::fs::File::open(&scratch)?;
                    std::io::copy(&mut part, w)?;
                }
                tile.write_segment(w)
            })?;
            if tile.scratch {
                std::fs::remove_file(&scratch).map_err(|e| Error::io(&scratch, e))?;
            }
            written.push(path);
            index.tiles.push(tile.index);
        }
        Ok((index, written))
    }
}

/// The page's template made a tiled page: the single page's decoding of its parcels becomes a function
/// (`decodeLoaded`) that each tile's parcels go through as it comes, the page's arrays of parcels made of
/// the tiles' as they come and go, and the tiles' script
/// (`data/templates/map_tiles.js`) runs at the end of the page's, in its scope, the page marked ready once the
/// first view's tiles are drawn.
pub fn tiled_template(template: &str) -> String {
    /// The page's script for the tiles.
    const TILES_JS: &str = include_str!("../../../data/templates/map_tiles.js");
    let edits = [
        ("  var N = D.parcels.length;\n", "  function decodeLoaded() {\n  var N = D.parcels.length;\n"),
        (
            "    parcelRing[N] = k;\n  })();\n",
            "    parcelRing[N] = k;\n  })();\n  return [N, X, Y, ringStart, parcelRing, box];\n  }\n  \
             var none = decodeLoaded(), N = none[0], X = none[1], Y = none[2], ringStart = none[3],\n    \
             parcelRing = none[4], box = none[5];\n",
        ),
        (
            "  requestAnimationFrame(function () {\n    document.body",
            "/*{{tiles_js}}*/  tilesReady(function () {\n    document.body",
        ),
    ];
    let mut page = template.to_string();
    for (from, to) in edits {
        debug_assert_eq!(page.matches(from).count(), 1, "the map template has {from:?} once");
        page = page.replacen(from, to, 1);
    }
    page.replacen("/*{{tiles_js}}*/", TILES_JS, 1)
}

#[cfg(test)]
mod tests;
