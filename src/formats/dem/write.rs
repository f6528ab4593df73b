//! GeoTIFF DEMs out, through the `tiff` crate: the sample county's DEM and the rasters the tests make.
//! Classic TIFF or BigTIFF, striped (uncompressed, LZW or Deflate) or tiled (uncompressed), north up, with
//! the GeoKeys of an EPSG CRS, the vertical unit and datum when given, and GDAL's nodata tag.

use std::io::{Seek, Write};

use tiff::encoder::{colortype, Compression, DeflateLevel, TiffEncoder, TiffKind};
use tiff::tags::Tag;

use super::VerticalUnit;

/// The elevations of a DEM to write, in one of the sample types DEMs use.
#[derive(Debug, Clone, Copy)]
pub enum Samples<'a> {
    /// 16-bit signed integers.
    I16(&'a [i16]),
    /// 32-bit signed integers.
    I32(&'a [i32]),
    /// 32-bit floats.
    F32(&'a [f32]),
    /// 64-bit floats.
    F64(&'a [f64]),
}

/// How the pixels are laid out in the file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// Strips of this many rows, uncompressed.
    Strips(u32),
    /// Strips of one row each, LZW-compressed.
    Lzw,
    /// Strips of one row each, Deflate-compressed.
    Deflate,
    /// Tiles of this width and height (multiples of 16), uncompressed.
    Tiles(u32, u32),
}

/// A north-up DEM to write.
#[derive(Debug, Clone)]
pub struct GeoTiffSpec<'a> {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The values, row after row from the north.
    pub samples: Samples<'a>,
    /// The map coordinates of the north-west corner of the first pixel.
    pub origin: [f64; 2],
    /// The pixel's width and height, map units.
    pub pixel: [f64; 2],
    /// The EPSG code of the projected CRS.
    pub epsg: u16,
    /// The nodata value, written as GDAL does.
    pub nodata: Option<f64>,
    /// The unit of the values, written as `VerticalUnitsGeoKey`.
    pub vertical_unit: Option<VerticalUnit>,
    /// The EPSG code of the vertical CRS, written as `VerticalCSTypeGeoKey`.
    pub vertical_cs: Option<u16>,
    /// The layout.
    pub layout: Layout,
}

impl Samples<'_> {
    /// How many values there are.
    fn len(&self) -> usize {
        match self {
            Samples::I16(v) => v.len(),
            Samples::I32(v) => v.len(),
            Samples::F32(v) => v.len(),
            Samples::F64(v) => v.len(),
        }
    }
}

/// Writes `spec` as a GeoTIFF (classic TIFF, offsets of 32 bits) to `out`.
pub fn write_geotiff<W: Write + Seek>(out: W, spec: &GeoTiffSpec) -> tiff::TiffResult<()> {
    write_with(TiffEncoder::new(out)?, spec)
}

/// Writes `spec` as a BigTIFF GeoTIFF (offsets of 64 bits, as GDAL writes a DEM over 4 GiB) to `out`.
pub fn write_big_geotiff<W: Write + Seek>(out: W, spec: &GeoTiffSpec) -> tiff::TiffResult<()> {
    write_with(TiffEncoder::new_big(out)?, spec)
}

fn write_with<W: Write + Seek, K: TiffKind>(
    encoder: TiffEncoder<W, K>,
    spec: &GeoTiffSpec,
) -> tiff::TiffResult<()> {
    // A TIFF holds at least one pixel, every pixel a value, and tiles of sides a multiple of 16.
    let pixels = u64::from(spec.width) * u64::from(spec.height);
    let refuse = |message: String| Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, message).into());
    if pixels == 0 || spec.samples.len() as u64 != pixels {
        return refuse(format!(
            "a DEM of {} x {} pixels needs {pixels} values, not {}, and at least one pixel",
            spec.width,
            spec.height,
            spec.samples.len()
        ));
    }
    match spec.layout {
        Layout::Tiles(tw, th) if tw == 0 || th == 0 || tw % 16 != 0 || th % 16 != 0 => {
            return refuse(format!("tiles of {tw} x {th} pixels: a tile's sides are multiples of 16"));
        }
        Layout::Strips(0) => return refuse("strips of 0 rows: a strip holds at least one".into()),
        _ => {}
    }
    let compression = match spec.layout {
        Layout::Lzw => Compression::Lzw,
        Layout::Deflate => Compression::Deflate(DeflateLevel::Balanced),
        _ => Compression::Uncompressed,
    };
    let mut encoder = encoder.with_compression(compression);
    let mut keys: Vec<u16> = vec![1, 1, 0, 0];
    let mut key = |k: u16, v: u16| keys.extend([k, 0, 1, v]);
    key(1024, 1); // GTModelTypeGeoKey: projected
    key(1025, 1); // GTRasterTypeGeoKey: PixelIsArea
    key(3072, spec.epsg);
    if let Some(cs) = spec.vertical_cs {
        key(4096, cs);
    }
    if let Some(unit) = spec.vertical_unit {
        key(
            4099,
            match unit {
                VerticalUnit::Metre => 9001,
                VerticalUnit::Foot => 9002,
                VerticalUnit::UsSurveyFoot => 9003,
            },
        );
    }
    keys[3] = ((keys.len() - 4) / 4) as u16;
    let scale = [spec.pixel[0], spec.pixel[1], 0.0];
    let tie = [0.0, 0.0, 0.0, spec.origin[0], spec.origin[1], 0.0];
    let nodata = spec.nodata.map(|n| format!("{n}"));
    let (w, h) = (spec.width, spec.height);
    macro_rules! geo_tags {
        ($dir:expr) => {{
            $dir.write_tag(Tag::ModelPixelScaleTag, &scale[..])?;
            $dir.write_tag(Tag::ModelTiepointTag, &tie[..])?;
            $dir.write_tag(Tag::GeoKeyDirectoryTag, &keys[..])?;
            if let Some(n) = &nodata {
                $dir.write_tag(Tag::GdalNodata, n.as_str())?;
            }
        }};
    }
    macro_rules! image {
        ($color:ty, $values:expr) => {{
            if let Layout::Tiles(tw, th) = spec.layout {
                let mut dir = encoder.image_directory()?;
                let (across, down) = (w.div_ceil(tw), h.div_ceil(th));
                let (mut offsets, mut counts) = (Vec::new(), Vec::new());
                for ty in 0..down {
                    for tx in 0..across {
                        // A tile past the image's edge is padded, as the TIFF specification asks.
                        let mut tile = vec![Default::default(); (tw * th) as usize];
                        for r in 0..th {
                            for c in 0..tw {
                                let (x, y) = (tx * tw + c, ty * th + r);
                                if x < w && y < h {
                                    tile[(r * tw + c) as usize] = $values[(y * w + x) as usize];
                                }
                            }
                        }
                        offsets.push(dir.write_data(&tile[..])? as u32);
                        counts.push((tile.len() * std::mem::size_of_val(&tile[0])) as u32);
                    }
                }
                let bits = (8 * std::mem::size_of_val(&$values[0])) as u16;
                dir.write_tag(Tag::ImageWidth, w)?;
                dir.write_tag(Tag::ImageLength, h)?;
                dir.write_tag(Tag::BitsPerSample, bits)?;
                dir.write_tag(Tag::Compression, 1u16)?;
                dir.write_tag(Tag::PhotometricInterpretation, 1u16)?;
                dir.write_tag(Tag::SamplesPerPixel, 1u16)?;
                dir.write_tag(
                    Tag::SampleFormat,
                    <$color as colortype::ColorType>::SAMPLE_FORMAT[0].to_u16(),
                )?;
                dir.write_tag(Tag::TileWidth, tw)?;
                dir.write_tag(Tag::TileLength, th)?;
                dir.write_tag(Tag::TileOffsets, &offsets[..])?;
                dir.write_tag(Tag::TileByteCounts, &counts[..])?;
                geo_tags!(dir);
                dir.finish()?;
            } else {
                let mut image = encoder.new_image::<$color>(w, h)?;
                if let Layout::Strips(rows) = spec.layout {
                    image.rows_per_strip(rows)?;
                } else {
                    image.rows_per_strip(1)?;
                }
                geo_tags!(image.encoder());
                image.write_data($values)?;
            }
        }};
    }
    match spec.samples {
        Samples::I16(v) => image!(colortype::GrayI16, v),
        Samples::I32(v) => image!(colortype::GrayI32, v),
        Samples::F32(v) => image!(colortype::Gray32Float, v),
        Samples::F64(v) => image!(colortype::Gray64Float, v),
    }
    Ok(())
}
