//! Elevation rasters (DEMs) in: a GeoTIFF, classic or BigTIFF (striped or tiled; 8-, 16- or 32-bit
//! integers, 32- or 64-bit floats; uncompressed, LZW, Deflate or ZSTD), or an ESRI ASCII grid (`.asc`), read a
//! window at a time.
//!
//! [`Dem::open`] reads only the header: size, where the pixels lie (GeoTIFF tie point and pixel scale, or a
//! model transformation, else a world file beside the TIFF; the ASCII grid's corner and cell size), the CRS
//! (GeoTIFF GeoKeys, else a `.prj` beside the file or the SRS of a GDAL `.aux.xml`), the nodata value (GDAL's
//! tag, the ASCII header or the `.aux.xml`), and the vertical unit and datum where the file states them
//! (GeoKeys `VerticalUnitsGeoKey` and `VerticalCSTypeGeoKey`, the `.aux.xml` band's `UnitType`). [`Dem::read`]
//! then reads one window, decoding only the strips or tiles that meet it, so a county DEM of several gigabytes
//! is never held whole. A file that cannot be used — no georeferencing, several bands, JPEG compression (lossy
//! 8-bit: an image, not an elevation model), a tag or a tile or strip too large to decode, a window larger
//! than [`MAX_WINDOW_PIXELS`] — is an [`Error`] saying what to do; nothing here panics on a damaged or hostile
//! file.

mod ascii;
mod geotiff;
mod ifd;
pub mod sampler;
mod world;
pub mod write;

use std::path::{Path, PathBuf};

use self::sampler::Blocks;
use crate::crs::Crs;
use crate::model::error::{Error, Result};

/// The most pixels one window may hold (4 bytes each): a window of a county-wide DEM at a foot a pixel
/// around a lake of several miles, and no more.
pub const MAX_WINDOW_PIXELS: usize = 64 * 1024 * 1024;

/// A unit of elevation values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VerticalUnit {
    /// Metres.
    Metre,
    /// International feet (0.3048 m).
    Foot,
    /// US survey feet (1200/3937 m).
    UsSurveyFoot,
}

impl VerticalUnit {
    /// Metres per unit.
    pub fn to_metre(self) -> f64 {
        match self {
            VerticalUnit::Metre => 1.0,
            VerticalUnit::Foot => 0.3048,
            VerticalUnit::UsSurveyFoot => 1200.0 / 3937.0,
        }
    }

    /// The unit named by text as configurations and `.aux.xml` files spell it (`m`, `metre`, `ft`, `foot`,
    /// `us-ft`, `US survey foot`, ...), case aside.
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim().to_ascii_lowercase().replace(['_', '-'], " ");
        match t.as_str() {
            "m" | "metre" | "meter" | "metres" | "meters" => Some(VerticalUnit::Metre),
            "ft" | "foot" | "feet" | "international foot" | "intl ft" => Some(VerticalUnit::Foot),
            "us ft" | "ftus" | "us survey foot" | "us survey feet" | "foot us" | "us foot" => {
                Some(VerticalUnit::UsSurveyFoot)
            }
            _ => None,
        }
    }

    /// The unit of an EPSG unit code (GeoTIFF `VerticalUnitsGeoKey`).
    fn from_epsg(code: u16) -> Option<Self> {
        match code {
            9001 => Some(VerticalUnit::Metre),
            9002 => Some(VerticalUnit::Foot),
            9003 => Some(VerticalUnit::UsSurveyFoot),
            _ => None,
        }
    }

    /// Its name in messages and outputs.
    pub fn name(self) -> &'static str {
        match self {
            VerticalUnit::Metre => "m",
            VerticalUnit::Foot => "ft",
            VerticalUnit::UsSurveyFoot => "US survey ft",
        }
    }
}

/// The name of a vertical datum given by its EPSG code (GeoTIFF `VerticalCSTypeGeoKey` or
/// `VerticalDatumGeoKey`): the usual North American ones by name, others as `EPSG:n`.
fn datum_name(code: u16) -> String {
    match code {
        5103 | 5703 | 6360 | 8228 => "NAVD88".into(),
        5102 | 5702 => "NGVD29".into(),
        _ => format!("EPSG:{code}"),
    }
}

/// A rectangle of pixels: columns `col..col + cols`, rows `row..row + rows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First column.
    pub col: usize,
    /// First row.
    pub row: usize,
    /// Columns.
    pub cols: usize,
    /// Rows.
    pub rows: usize,
}

impl Window {
    /// Its number of pixels.
    pub fn pixels(&self) -> usize {
        self.cols.saturating_mul(self.rows)
    }
}

/// What the reader of one format knows of an open file.
#[derive(Debug, Clone)]
enum Source {
    Tiff(geotiff::TiffLayout),
    Ascii(ascii::AsciiLayout),
}

/// An elevation raster, opened: its header read, its pixels not.
#[derive(Debug, Clone)]
pub struct Dem {
    /// The file.
    pub path: PathBuf,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The CRS of its pixels' positions.
    pub crs: Crs,
    /// `[x0, dx_col, dx_row, y0, dy_col, dy_row]`: the centre of the pixel at column `c`, row `r` is at
    /// `x = x0 + c·dx_col + r·dx_row`, `y = y0 + c·dy_col + r·dy_row` (as [`crate::geom::contour::Grid`]).
    pub transform: [f64; 6],
    /// Values equal to this are no data (NaN always is).
    pub nodata: Option<f64>,
    /// The unit of its values, when the file says.
    pub vertical_unit: Option<VerticalUnit>,
    /// Its vertical datum, when the file says (`NAVD88`, `NGVD29`, `EPSG:n`).
    pub vertical_datum: Option<String>,
    source: Source,
}

impl Dem {
    /// Opens the DEM at `path` (`.tif`/`.tiff` or `.asc`), reading its header alone.
    pub fn open(path: &Path) -> Result<Dem> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let mut dem =
            match ext.as_str() {
                "tif" | "tiff" | "gtiff" => geotiff::open(path)?,
                "asc" => ascii::open(path)?,
                _ => return Err(Error::format(
                    path,
                    "not a DEM format lakeshore reads: give a GeoTIFF (.tif) or an ESRI ASCII grid (.asc)",
                )),
            };
        let aux = sidecar(path, ".aux.xml");
        if let Some(text) = aux.as_deref() {
            let aux = pam(text);
            dem.vertical_unit = dem.vertical_unit.or(aux.unit);
            dem.nodata = dem.nodata.or(aux.nodata);
            dem.vertical_datum = dem.vertical_datum.or(aux.datum);
        }
        if !dem.transform.iter().all(|v| v.is_finite())
            || (dem.transform[1] * dem.transform[5] - dem.transform[2] * dem.transform[4]) == 0.0
        {
            return Err(Error::format(
                path,
                "the DEM's pixel size or position is not usable (zero or not a number); check its \
                 georeferencing (ModelPixelScale and ModelTiepoint, or the grid's cellsize)",
            ));
        }
        Ok(dem)
    }

    /// The fractional (column, row) of map point `p` (the DEM's CRS), pixel centres at whole numbers: the
    /// inverse of [`Dem::transform`].
    pub fn to_grid(&self, p: [f64; 2]) -> [f64; 2] {
        let t = &self.transform;
        let det = t[1] * t[5] - t[2] * t[4];
        let (dx, dy) = (p[0] - t[0], p[1] - t[3]);
        [(t[5] * dx - t[2] * dy) / det, (-t[4] * dx + t[1] * dy) / det]
    }

    /// The window of pixels whose centres lie within the rectangle `min`–`max` (map coordinates, the DEM's
    /// CRS), grown by one pixel so that lines crossing its edge are found; `None` when the rectangle misses
    /// the raster.
    pub fn window(&self, min: [f64; 2], max: [f64; 2]) -> Option<Window> {
        let corners = [[min[0], min[1]], [max[0], min[1]], [max[0], max[1]], [min[0], max[1]]];
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for c in corners {
            let g = self.to_grid(c);
            lo = [lo[0].min(g[0]), lo[1].min(g[1])];
            hi = [hi[0].max(g[0]), hi[1].max(g[1])];
        }
        let clamp = |v: f64, n: usize| v.clamp(0.0, n as f64 - 1.0);
        let (w, h) = (self.width, self.height);
        if hi[0] < 0.0 || hi[1] < 0.0 || lo[0] > (w as f64 - 1.0) || lo[1] > (h as f64 - 1.0) {
            return None;
        }
        let (c0, r0) = (clamp(lo[0].floor() - 1.0, w) as usize, clamp(lo[1].floor() - 1.0, h) as usize);
        let (c1, r1) = (clamp(hi[0].ceil() + 1.0, w) as usize, clamp(hi[1].ceil() + 1.0, h) as usize);
        Some(Window { col: c0, row: r0, cols: c1 - c0 + 1, rows: r1 - r0 + 1 })
    }

    /// The whole raster as a window.
    pub fn whole(&self) -> Window {
        Window { col: 0, row: 0, cols: self.width, rows: self.height }
    }

    /// The values of `window`, row after row, NaN where there is no data; an error for a window larger than
    /// [`MAX_WINDOW_PIXELS`] or a file that cannot be decoded there.
    pub fn read(&self, window: Window) -> Result<Vec<f32>> {
        if window.pixels() > MAX_WINDOW_PIXELS {
            return Err(Error::format(
                &self.path,
                format!(
                    "a window of {} × {} pixels is more than the {MAX_WINDOW_PIXELS} lakeshore reads at once; \
                     give a DEM clipped to the lakes or resampled to a coarser pixel",
                    window.cols, window.rows
                ),
            ));
        }
        if window.col + window.cols > self.width || window.row + window.rows > self.height {
            return Err(Error::format(&self.path, "a window outside the raster was asked for"));
        }
        let mut values = match &self.source {
            Source::Tiff(layout) => geotiff::read(&self.path, layout, window)?,
            Source::Ascii(layout) => ascii::read(&self.path, layout, window)?,
        };
        if let Some(nodata) = self.nodata {
            let nodata = nodata as f32;
            values.iter_mut().filter(|v| **v == nodata).for_each(|v| *v = f32::NAN);
        }
        Ok(values)
    }

    /// The transform of a window: [`Self::transform`] moved to the window's first pixel.
    pub fn window_transform(&self, window: Window) -> [f64; 6] {
        let t = self.transform;
        let (c, r) = (window.col as f64, window.row as f64);
        [t[0] + c * t[1] + r * t[2], t[1], t[2], t[3] + c * t[4] + r * t[5], t[4], t[5]]
    }

    /// The value at map point `p` (the DEM's CRS) by bilinear interpolation of the four pixel centres
    /// around it; `None` outside the raster or where one of them has no data. Sampling many points,
    /// [`Dem::sample_with`] keeps the blocks it reads.
    pub fn sample(&self, p: [f64; 2]) -> Result<Option<f64>> {
        self.sample_with(p, &mut Blocks::default())
    }
}

/// The text of the file beside `path` named by adding `suffix` to its name, or by replacing its
/// extension with `suffix` (`.prj`), when there is one.
fn sidecar(path: &Path, suffix: &str) -> Option<String> {
    let mut added = path.as_os_str().to_owned();
    added.push(suffix);
    let replaced = path.with_extension(suffix.trim_start_matches('.'));
    [PathBuf::from(added), replaced].iter().find_map(|p| std::fs::read_to_string(p).ok())
}

/// The CRS of a DEM from a `.prj` beside it or the `SRS` of its `.aux.xml`, or an error saying to add one.
fn sidecar_crs(path: &Path, why: &str) -> Result<Crs> {
    if let Some(text) = sidecar(path, ".prj") {
        return Crs::parse_from(path.with_extension("prj"), &text);
    }
    if let Some(srs) = sidecar(path, ".aux.xml").as_deref().and_then(|t| element(t, "SRS")) {
        return Crs::parse_from(path, &unescape(&srs));
    }
    Err(Error::crs(
        path,
        format!("{why}; put a .prj with the DEM's CRS beside it (the CRS as WKT, or EPSG:nnnn)"),
    ))
}

/// What a GDAL `.aux.xml` (PAM) says of the first band.
#[derive(Debug, Default, PartialEq)]
struct Pam {
    unit: Option<VerticalUnit>,
    nodata: Option<f64>,
    datum: Option<String>,
}

fn pam(text: &str) -> Pam {
    let unit = element(text, "UnitType").and_then(|u| VerticalUnit::parse(&u));
    let nodata = element(text, "NoDataValue").and_then(|n| n.trim().parse::<f64>().ok());
    // A compound CRS's vertical part names its datum: VERT_CS["NAVD88 height", ...].
    let datum = element(text, "SRS").and_then(|srs| {
        let srs = unescape(&srs);
        let at = srs.find("VERT_CS[\"").or_else(|| srs.find("VERTCRS[\""))?;
        let rest = &srs[at..];
        let name = rest.split('"').nth(1)?;
        Some(if name.contains("NAVD88") || name.contains("NAVD 88") {
            "NAVD88".to_string()
        } else if name.contains("NGVD29") || name.contains("NGVD 29") {
            "NGVD29".to_string()
        } else {
            name.to_string()
        })
    });
    Pam { unit, nodata, datum }
}

/// The text of the first `<name ...>text</name>` element.
fn element(text: &str, name: &str) -> Option<String> {
    let open = format!("<{name}");
    let mut from = 0;
    while let Some(at) = text[from..].find(&open) {
        let start = from + at + open.len();
        let rest = &text[start..];
        // `<SRS>` and `<SRS dataAxisToSRSAxisMapping=...>`, not `<SRSName>`.
        if rest.starts_with('>') || rest.starts_with(' ') {
            let body = &rest[rest.find('>')? + 1..];
            let end = body.find(&format!("</{name}>"))?;
            return Some(body[..end].to_string());
        }
        from = start;
    }
    None
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests;
