//! GeoTIFF DEMs, classic or BigTIFF: the header (size, strips or tiles, GeoKeys or a world file beside the
//! file, GDAL's nodata) and windows read strip by strip or tile by tile through the `tiff` crate, within
//! bounds on what one strip, tile or tag may take ([`super::ifd`] checks the tags before the crate reads them).

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use tiff::decoder::{ChunkType, Decoder, DecodingResult, Limits};
use tiff::tags::Tag;
use tiff::ColorType;

use super::{datum_name, ifd, sidecar_crs, world, Dem, Source, VerticalUnit, Window};
use crate::crs::Crs;
use crate::model::error::{Error, Result};

/// How the pixels of an open GeoTIFF are stored.
#[derive(Debug, Clone)]
pub(super) struct TiffLayout {
    tiled: bool,
    chunk_width: usize,
    chunk_height: usize,
}

/// The bounds on one strip or tile decoded (64 MiB) and one tag's values (32 MiB: the offsets of a
/// county-wide tiled DEM): a damaged or hostile file is refused rather than allowed to take the memory.
/// The crate reads the tags before these apply, so [`ifd::check`] holds them to the same bound first.
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.decoding_buffer_size = 64 * 1024 * 1024;
    limits.intermediate_buffer_size = 64 * 1024 * 1024;
    limits.ifd_value_size = ifd::MAX_TAG_BYTES as usize;
    limits
}

fn decoder(path: &Path) -> Result<Decoder<BufReader<File>>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    Decoder::new(BufReader::new(file)).map(|d| d.with_limits(limits())).map_err(|e| unusable(path, e))
}

fn unusable(path: &Path, e: tiff::TiffError) -> Error {
    Error::format(
        path,
        format!("not a usable GeoTIFF ({e}); check the file, or export the DEM again as GeoTIFF"),
    )
}

/// GeoKey values by key: the shorts, and the texts kept in the GeoTIFF's ASCII parameters.
struct GeoKeys {
    shorts: Vec<(u16, u16)>,
    texts: Vec<(u16, String)>,
}

impl GeoKeys {
    fn read(decoder: &mut Decoder<BufReader<File>>) -> GeoKeys {
        let dir = decoder
            .find_tag(Tag::GeoKeyDirectoryTag)
            .ok()
            .flatten()
            .and_then(|v| v.into_u16_vec().ok())
            .unwrap_or_default();
        let ascii = decoder
            .find_tag(Tag::GeoAsciiParamsTag)
            .ok()
            .flatten()
            .and_then(|v| v.into_string().ok())
            .unwrap_or_default();
        let count = dir.get(3).copied().unwrap_or(0) as usize;
        let entries = dir.get(4..).unwrap_or_default().chunks_exact(4).take(count);
        let mut keys = GeoKeys { shorts: Vec::new(), texts: Vec::new() };
        for e in entries {
            match e[1] {
                // Location 0: the value is the short itself.
                0 => keys.shorts.push((e[0], e[3])),
                // In the ASCII parameters: `count` characters from offset `value` (a text ends in `|`).
                34737 => {
                    let (at, n) = (e[3] as usize, e[2] as usize);
                    if let Some(text) = ascii.get(at..(at + n).min(ascii.len())) {
                        keys.texts.push((e[0], text.trim_end_matches(['|', '\0']).to_string()));
                    }
                }
                // Doubles, which no key read here needs.
                _ => {}
            }
        }
        keys
    }

    fn short(&self, key: u16) -> Option<u16> {
        self.shorts.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The CRS as WKT that ArcGIS writes into a user-defined CRS's citation (`ESRI PE String = PROJCS[...]`).
    fn esri_wkt(&self) -> Option<&str> {
        self.texts.iter().find_map(|(_, text)| {
            let at = text.find("ESRI PE String = ")?;
            Some(text[at + "ESRI PE String = ".len()..].split('|').next().unwrap_or_default())
        })
    }
}

const MODEL_TYPE: u16 = 1024;
const RASTER_TYPE: u16 = 1025;
const GEOGRAPHIC_TYPE: u16 = 2048;
const PROJECTED_TYPE: u16 = 3072;
const VERTICAL_CS_TYPE: u16 = 4096;
const VERTICAL_DATUM: u16 = 4098;
const VERTICAL_UNITS: u16 = 4099;
const USER_DEFINED: u16 = 32767;

pub(super) fn open(path: &Path) -> Result<Dem> {
    ifd::check(path)?;
    let mut d = decoder(path)?;
    let (width, height) = d.dimensions().map_err(|e| unusable(path, e))?;
    match d.colortype().map_err(|e| unusable(path, e))? {
        ColorType::Gray(_) => {}
        other => {
            return Err(Error::format(
                path,
                format!(
                    "the GeoTIFF holds {other:?} pixels, not one band of elevations; give a single-band DEM"
                ),
            ))
        }
    }
    let f64s = |d: &mut Decoder<BufReader<File>>, tag| -> Vec<f64> {
        d.find_tag(tag).ok().flatten().and_then(|v| v.into_f64_vec().ok()).unwrap_or_default()
    };
    let scale = f64s(&mut d, Tag::ModelPixelScaleTag);
    let tie = f64s(&mut d, Tag::ModelTiepointTag);
    let matrix = f64s(&mut d, Tag::ModelTransformationTag);
    let keys = GeoKeys::read(&mut d);
    // PixelIsArea (1, the default) places the tie point at a pixel's corner, PixelIsPoint (2) at its centre.
    let half = if keys.short(RASTER_TYPE) == Some(2) { 0.0 } else { 0.5 };
    let transform = if matrix.len() >= 8 {
        let m = &matrix;
        [m[3] + half * (m[0] + m[1]), m[0], m[1], m[7] + half * (m[4] + m[5]), m[4], m[5]]
    } else if scale.len() >= 2 && tie.len() >= 6 {
        let (i, j, x, y, sx, sy) = (tie[0], tie[1], tie[3], tie[4], scale[0], scale[1]);
        [x + (half - i) * sx, sx, 0.0, y - (half - j) * sy, 0.0, -sy]
    } else if let Some(transform) = world::transform(path)? {
        transform
    } else {
        return Err(Error::format(
            path,
            "the TIFF has no georeferencing (no ModelPixelScale and ModelTiepoint, nor ModelTransformation, \
             nor a world file .tfw beside it); export the DEM as a GeoTIFF, or put its world file beside it",
        ));
    };
    let epsg = |code: Option<u16>| code.filter(|&c| c != 0 && c != USER_DEFINED);
    let code = epsg(keys.short(PROJECTED_TYPE))
        .or_else(|| epsg(keys.short(GEOGRAPHIC_TYPE)).filter(|_| keys.short(MODEL_TYPE) != Some(1)));
    let crs = match (code, keys.esri_wkt()) {
        (Some(code), _) => Crs::parse_from(path, &format!("EPSG:{code}"))?,
        (None, Some(wkt)) => Crs::parse_from(path, wkt)?,
        (None, None) => sidecar_crs(path, "the GeoTIFF's GeoKeys give no EPSG code for its CRS")?,
    };
    let vertical_cs = epsg(keys.short(VERTICAL_CS_TYPE));
    let vertical_unit = keys.short(VERTICAL_UNITS).and_then(VerticalUnit::from_epsg).or(match vertical_cs {
        // Vertical CRSs whose unit is part of their definition.
        Some(5702 | 6360) => Some(VerticalUnit::UsSurveyFoot),
        Some(8228) => Some(VerticalUnit::Foot),
        Some(5703) => Some(VerticalUnit::Metre),
        _ => None,
    });
    let vertical_datum = vertical_cs.or(epsg(keys.short(VERTICAL_DATUM))).map(datum_name);
    let nodata = d
        .find_tag(Tag::GdalNodata)
        .ok()
        .flatten()
        .and_then(|v| v.into_string().ok())
        .and_then(|t| t.trim_matches(|c: char| c == '\0' || c.is_whitespace()).parse::<f64>().ok())
        .filter(|v| !v.is_nan());
    let (chunk_width, chunk_height) = match d.get_chunk_type() {
        ChunkType::Strip => {
            let rows = d.find_tag_unsigned::<u32>(Tag::RowsPerStrip).ok().flatten().unwrap_or(height);
            (width, rows.clamp(1, height.max(1)))
        }
        ChunkType::Tile => {
            let w = d.find_tag_unsigned::<u32>(Tag::TileWidth).ok().flatten().unwrap_or(0);
            let h = d.find_tag_unsigned::<u32>(Tag::TileLength).ok().flatten().unwrap_or(0);
            (w, h)
        }
    };
    if chunk_width == 0 || chunk_height == 0 || width == 0 || height == 0 {
        return Err(Error::format(path, "the GeoTIFF has no pixels or a tile of no size; check the file"));
    }
    Ok(Dem {
        path: path.to_path_buf(),
        width: width as usize,
        height: height as usize,
        crs,
        transform,
        nodata,
        vertical_unit,
        vertical_datum,
        source: Source::Tiff(TiffLayout {
            tiled: d.get_chunk_type() == ChunkType::Tile,
            chunk_width: chunk_width as usize,
            chunk_height: chunk_height as usize,
        }),
    })
}

fn to_f32(result: DecodingResult) -> Vec<f32> {
    match result {
        DecodingResult::U8(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::U16(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::U32(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::U64(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::I8(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::I16(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::I32(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::I64(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::F16(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::F32(v) => v,
        DecodingResult::F64(v) => v.into_iter().map(|x| x as f32).collect(),
    }
}

/// The window's values, decoding each strip or tile that meets it once.
pub(super) fn read(path: &Path, layout: &TiffLayout, window: Window) -> Result<Vec<f32>> {
    let mut d = decoder(path)?;
    let (width, height) = d.dimensions().map_err(|e| unusable(path, e))?;
    let (width, height) = (width as usize, height as usize);
    let (cw, ch) = (layout.chunk_width, layout.chunk_height);
    let across = if layout.tiled { width.div_ceil(cw) } else { 1 };
    let mut out = vec![f32::NAN; window.pixels()];
    let (col_end, row_end) = (window.col + window.cols, window.row + window.rows);
    for ty in window.row / ch..row_end.div_ceil(ch) {
        for tx in window.col / cw.max(1)..col_end.div_ceil(cw) {
            let tx = if layout.tiled { tx } else { 0 };
            let index = u32::try_from(ty * across + tx).map_err(|_| {
                Error::format(path, "more strips or tiles than a TIFF can hold; check the file")
            })?;
            let (x0, y0) = (tx * cw, ty * ch);
            let data_w = cw.min(width - x0);
            let data_h = ch.min(height - y0);
            let values = to_f32(d.read_chunk(index).map_err(|e| unusable(path, e))?);
            if values.len() < data_w * data_h {
                return Err(Error::format(
                    path,
                    format!("strip or tile {index} holds fewer values than its size; the file is damaged"),
                ));
            }
            // Rows of the chunk as decoded: a tile keeps its full width, a strip the image's.
            let stride = values.len() / data_h;
            for r in y0.max(window.row)..(y0 + data_h).min(row_end) {
                for c in x0.max(window.col)..(x0 + data_w).min(col_end) {
                    out[(r - window.row) * window.cols + (c - window.col)] =
                        values[(r - y0) * stride + (c - x0)];
                }
            }
            if !layout.tiled {
                break;
            }
        }
    }
    Ok(out)
}
