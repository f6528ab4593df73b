use std::io::Cursor;

use tiff::encoder::{colortype, TiffEncoder};
use tiff::tags::Tag;

use super::write::{write_big_geotiff, write_geotiff, GeoTiffSpec, Layout, Samples};
use super::*;

fn temp(name: &str) -> PathBuf {
    let dir = crate::scratch::root().join(format!("dem-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Value at (col, row) = 1000·row + col: every pixel tells where it is.
fn ramp(w: u32, h: u32) -> Vec<f32> {
    (0..w * h).map(|i| (1000 * (i / w) + i % w) as f32).collect()
}

fn spec(samples: Samples<'_>, w: u32, h: u32, layout: Layout) -> GeoTiffSpec<'_> {
    GeoTiffSpec {
        width: w,
        height: h,
        samples,
        origin: [1000.0, 5000.0],
        pixel: [10.0, 10.0],
        epsg: 2261,
        nodata: None,
        vertical_unit: None,
        vertical_cs: None,
        layout,
    }
}

fn write(name: &str, spec: &GeoTiffSpec) -> PathBuf {
    let path = temp(name);
    let mut bytes = Cursor::new(Vec::new());
    write_geotiff(&mut bytes, spec).unwrap();
    std::fs::write(&path, bytes.into_inner()).unwrap();
    path
}

fn expect_ramp(dem: &Dem, window: Window) {
    let values = dem.read(window).unwrap();
    for r in 0..window.rows {
        for c in 0..window.cols {
            let expected = (1000 * (window.row + r) + window.col + c) as f32;
            assert_eq!(values[r * window.cols + c], expected, "at {c}, {r} of {window:?}");
        }
    }
}

#[test]
fn striped_tiled_and_compressed_files_give_the_same_windows() {
    let (w, h) = (50, 37);
    let v = ramp(w, h);
    let i32s: Vec<i32> = v.iter().map(|&x| x as i32).collect();
    let files = [
        write("strips.tif", &spec(Samples::F32(&v), w, h, Layout::Strips(5))),
        write("lzw.tif", &spec(Samples::F32(&v), w, h, Layout::Lzw)),
        write("deflate.tif", &spec(Samples::F32(&v), w, h, Layout::Deflate)),
        write("tiles.tif", &spec(Samples::F32(&v), w, h, Layout::Tiles(16, 16))),
        write("tiles-i32.tif", &spec(Samples::I32(&i32s), w, h, Layout::Tiles(32, 16))),
    ];
    for path in &files {
        let dem = Dem::open(path).unwrap();
        assert_eq!((dem.width, dem.height), (50, 37));
        assert_eq!(dem.crs.epsg(), Some(2261));
        // Pixel centres: the first at (1005, 4995), 10 a pixel east and south.
        assert_eq!(dem.transform, [1005.0, 10.0, 0.0, 4995.0, 0.0, -10.0]);
        expect_ramp(&dem, dem.whole());
        // Windows across tile and strip edges, and at the raster's last row and column.
        for window in [
            Window { col: 3, row: 4, cols: 20, rows: 15 },
            Window { col: 15, row: 15, cols: 2, rows: 2 },
            Window { col: 40, row: 30, cols: 10, rows: 7 },
        ] {
            expect_ramp(&dem, window);
        }
    }
}

#[test]
fn sixteen_bit_values_nodata_and_the_vertical_unit_are_read() {
    let v: Vec<i16> = vec![100, 101, -9999, 103, 104, 105];
    let mut s = spec(Samples::I16(&v), 3, 2, Layout::Strips(1));
    s.nodata = Some(-9999.0);
    s.vertical_unit = Some(VerticalUnit::Metre);
    s.vertical_cs = Some(5703);
    let dem = Dem::open(&write("i16.tif", &s)).unwrap();
    assert_eq!(dem.nodata, Some(-9999.0));
    assert_eq!(dem.vertical_unit, Some(VerticalUnit::Metre));
    assert_eq!(dem.vertical_datum.as_deref(), Some("NAVD88"));
    let values = dem.read(dem.whole()).unwrap();
    assert_eq!(&values[..2], &[100.0, 101.0]);
    assert!(values[2].is_nan());
    assert_eq!(&values[3..], &[103.0, 104.0, 105.0]);
}

#[test]
fn the_window_of_a_rectangle_holds_its_pixels_and_one_more() {
    let v = ramp(50, 37);
    let dem = Dem::open(&write("window.tif", &spec(Samples::F32(&v), 50, 37, Layout::Strips(8)))).unwrap();
    // x 1100–1200 holds the centres of columns 10–19 (1105 ... 1195); y 4700–4800 rows 20–29.
    let w = dem.window([1100.0, 4700.0], [1200.0, 4800.0]).unwrap();
    assert_eq!(w, Window { col: 8, row: 18, cols: 14, rows: 14 });
    assert_eq!(dem.window([0.0, 0.0], [10.0, 10.0]), None);
    // Bilinear between centres: (1010, 4990) is halfway between columns 0 and 1, rows 0 and 1.
    assert_eq!(dem.sample([1010.0, 4990.0]).unwrap(), Some(500.5));
}

#[test]
fn an_ascii_grid_reads_its_header_its_prj_and_windows() {
    let path = temp("grid.asc");
    let text = "ncols 4\nnrows 3\nxllcorner 100\nyllcorner 200\ncellsize 2\nNODATA_value -9999\n\
                1 2 3 4\n5 -9999 7 8\n9 10 11 12\n";
    std::fs::write(&path, text).unwrap();
    assert!(Dem::open(&path).unwrap_err().to_string().contains(".prj"));
    std::fs::write(path.with_extension("prj"), "EPSG:2261").unwrap();
    let dem = Dem::open(&path).unwrap();
    // The first row is the north one: its centres at y = 200 + 3·2 − 1 = 205.
    assert_eq!(dem.transform, [101.0, 2.0, 0.0, 205.0, 0.0, -2.0]);
    let values = dem.read(Window { col: 1, row: 1, cols: 3, rows: 2 }).unwrap();
    assert!(values[0].is_nan());
    assert_eq!(&values[1..], &[7.0, 8.0, 10.0, 11.0, 12.0]);
    std::fs::write(&path, "ncols 4\nnrows 3\nxllcorner 100\nyllcorner 200\ncellsize 2\n1 2 3 4\n").unwrap();
    let err = Dem::open(&path).unwrap().read(Window { col: 0, row: 0, cols: 4, rows: 3 }).unwrap_err();
    assert!(err.to_string().contains("cut short"), "{err}");
}

#[test]
fn an_aux_xml_gives_the_unit_and_nodata() {
    let text = r#"<PAMDataset><SRS dataAxisToSRSAxisMapping="1,2">COMPD_CS[&quot;x&quot;,VERT_CS[&quot;NAVD88 height (ftUS)&quot;]]</SRS>
      <PAMRasterBand band="1"><NoDataValue>-3.4e38</NoDataValue><UnitType>US survey foot</UnitType></PAMRasterBand></PAMDataset>"#;
    assert_eq!(
        pam(text),
        Pam { unit: Some(VerticalUnit::UsSurveyFoot), nodata: Some(-3.4e38), datum: Some("NAVD88".into()) }
    );
    assert_eq!(pam("<PAMDataset></PAMDataset>"), Pam::default());
}

/// A little-endian classic TIFF header and one IFD of the given (tag, type, count, value) entries.
fn tiff_bytes(entries: &[(u16, u16, u32, u32)], tail: &[u8]) -> Vec<u8> {
    let mut b = vec![b'I', b'I', 42, 0, 8, 0, 0, 0];
    b.extend((entries.len() as u16).to_le_bytes());
    for &(tag, ty, count, value) in entries {
        b.extend(tag.to_le_bytes());
        b.extend(ty.to_le_bytes());
        b.extend(count.to_le_bytes());
        b.extend(value.to_le_bytes());
    }
    b.extend(0u32.to_le_bytes());
    b.extend(tail);
    b
}

#[test]
fn damaged_and_hostile_tiffs_are_refused_with_a_message() {
    const SHORT: u16 = 3;
    const LONG: u16 = 4;
    let georef = |path: &Path| {
        // The .prj stands in for GeoKeys, so what fails is the pixels, not the CRS.
        std::fs::write(path.with_extension("prj"), "EPSG:2261").unwrap();
    };
    // After the IFD: the pixel scale (3 doubles) and the tie point (6), then the pixels.
    let params_at = 8 + 2 + 12 * 12 + 4;
    let data_at = params_at + 9 * 8;
    let params: Vec<u8> =
        [1.0f64, 1.0, 0.0, 0.0, 0.0, 0.0, 1000.0, 1000.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let with_params = |data: &[u8]| [params.as_slice(), data].concat();
    let base = |w: u32, h: u32, rows: u32, offset: u32, count: u32, compression: u32| {
        vec![
            (256, LONG, 1, w),
            (257, LONG, 1, h),
            (258, SHORT, 1, 32),
            (259, SHORT, 1, compression),
            (262, SHORT, 1, 1),
            (273, LONG, 1, offset),
            (277, SHORT, 1, 1),
            (278, LONG, 1, rows),
            (279, LONG, 1, count),
            (339, SHORT, 1, 3),
            (33550, 12, 3, params_at as u32),
            (33922, 12, 6, params_at as u32 + 24),
        ]
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("not-a-tiff.tif", b"GIF89a not a tiff at all".to_vec()),
        ("truncated.tif", tiff_bytes(&base(4, 4, 4, data_at as u32, 64, 1), &with_params(&[0; 10]))),
        ("bad-offset.tif", tiff_bytes(&base(4, 4, 4, 0x7fff_ffff, 64, 1), &with_params(&[0; 64]))),
        // 2³² − 1 columns in one strip of every row: the strip alone would be 16 GiB.
        (
            "huge.tif",
            tiff_bytes(&base(u32::MAX, u32::MAX, u32::MAX, data_at as u32, 64, 1), &with_params(&[0; 64])),
        ),
    ];
    // A Deflate bomb: 1 MiB of zeros compressed into about 1 KiB, in a strip that should hold 64 bytes.
    let bomb = {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![0u8; 1 << 20]).unwrap();
        z.finish().unwrap()
    };
    let mut cases = cases;
    // Strip offsets claiming three billion entries (12 GB of offsets), and 64 of them lying past the end.
    let mut billions = base(4, 4, 1, data_at as u32, 64, 1);
    billions[5] = (273, LONG, 3_000_000_000, data_at as u32);
    cases.push(("billions.tif", tiff_bytes(&billions, &with_params(&[0; 64]))));
    let mut past_end = base(4, 4, 1, data_at as u32, 64, 1);
    past_end[5] = (273, LONG, 64, data_at as u32 + 64);
    cases.push(("offsets-past-end.tif", tiff_bytes(&past_end, &with_params(&[0; 64]))));
    cases.push((
        "bomb.tif",
        tiff_bytes(&base(4, 4, 4, data_at as u32, bomb.len() as u32, 8), &with_params(&bomb)),
    ));
    for (name, bytes) in cases {
        let path = temp(name);
        std::fs::write(&path, &bytes).unwrap();
        georef(&path);
        let outcome = Dem::open(&path).and_then(|dem| {
            let window = Window { col: 0, row: 0, cols: dem.width.min(4), rows: dem.height.min(4) };
            dem.read(window)
        });
        match (name, outcome) {
            ("bomb.tif", Ok(values)) => {
                assert_eq!(values, vec![0.0; 16], "{name}: only the strip's 64 bytes")
            }
            (_, Ok(values)) => panic!("{name} was read: {values:?}"),
            (_, Err(e)) => {
                let text = e.to_string();
                assert!(!text.ends_with('.') && text.contains(name), "{name}: {text}");
                match name {
                    "billions.tif" => assert!(
                        text.contains("StripOffsets (273) claims 3000000000 values (12000000000 bytes)"),
                        "{text}"
                    ),
                    "bad-offset.tif" | "truncated.tif" => assert!(
                        text.contains("strip or tile 0 of 1 lies past the end of the file (64 bytes at"),
                        "{text}"
                    ),
                    "offsets-past-end.tif" => assert!(
                        text.contains(
                            "values of StripOffsets (273) lie past the end of the file (256 bytes at"
                        ),
                        "{text}"
                    ),
                    _ => {}
                }
            }
        }
    }
}

/// A ramp of `w` × `h` 32-bit floats as a plain TIFF, without GeoTIFF tags.
fn plain_tiff(name: &str, w: u32, h: u32) -> PathBuf {
    let path = temp(name);
    let mut bytes = Cursor::new(Vec::new());
    TiffEncoder::new(&mut bytes).unwrap().write_image::<colortype::Gray32Float>(w, h, &ramp(w, h)).unwrap();
    std::fs::write(&path, bytes.into_inner()).unwrap();
    path
}

#[test]
fn a_tiff_without_geokeys_is_placed_by_its_world_file() {
    let path = plain_tiff("world.tif", 4, 3);
    let err = Dem::open(&path).unwrap_err().to_string();
    assert!(err.contains("world.tif") && err.contains("world file .tfw"), "{err}");
    std::fs::write(path.with_extension("prj"), "EPSG:2261").unwrap();
    // North up: 10 ft pixels, the centre of the upper-left one at (1005, 4995).
    std::fs::write(path.with_extension("tfw"), "10.0\n0.0\n0.0\n-10.0\n1005.0\n4995.0\n").unwrap();
    let dem = Dem::open(&path).unwrap();
    assert_eq!(dem.crs.epsg(), Some(2261));
    assert_eq!(dem.transform, [1005.0, 10.0, 0.0, 4995.0, 0.0, -10.0]);
    expect_ramp(&dem, dem.whole());
    // The centre of column 2, row 1 is at (1025, 4985); (1030, 4980) is halfway to column 3 and row 2:
    // 1000·1.5 + 2.5.
    assert_eq!(dem.sample([1025.0, 4985.0]).unwrap(), Some(1002.0));
    assert_eq!(dem.sample([1030.0, 4980.0]).unwrap(), Some(1502.5));

    // Rotated: A = 8, D = 6, B = 6, E = −8 (10 ft pixels turned by atan(6/8), about 36.87°), the first
    // centre at (500, 900). Column 2, row 1: x = 8·2 + 6·1 + 500 = 522, y = 6·2 − 8·1 + 900 = 904.
    std::fs::write(path.with_extension("tfw"), "8\n6\n6\n-8\n500\n900\n").unwrap();
    let dem = Dem::open(&path).unwrap();
    assert_eq!(dem.transform, [500.0, 8.0, 6.0, 900.0, 6.0, -8.0]);
    let near = |got: Option<f64>, want: f64| {
        assert!(got.is_some_and(|v| (v - want).abs() < 1e-9), "{got:?}, expected {want}")
    };
    near(dem.sample([522.0, 904.0]).unwrap(), 1002.0);
    // Column 1.5, row 0.5: x = 8·1.5 + 6·0.5 + 500 = 515, y = 6·1.5 − 8·0.5 + 900 = 905; 500 + 1.5.
    near(dem.sample([515.0, 905.0]).unwrap(), 501.5);
    // (490, 900) is column −0.8, row 0.6: off the raster, though inside the bounds of the unrotated grid's
    // rows.
    assert_eq!(dem.sample([490.0, 900.0]).unwrap(), None);

    // GeoTIFF tags come before a world file beside the file.
    let v = ramp(4, 3);
    let tagged = write("tagged.tif", &spec(Samples::F32(&v), 4, 3, Layout::Strips(1)));
    std::fs::write(tagged.with_extension("tfw"), "8\n6\n6\n-8\n500\n900\n").unwrap();
    assert_eq!(Dem::open(&tagged).unwrap().transform, [1005.0, 10.0, 0.0, 4995.0, 0.0, -10.0]);
}

#[test]
fn a_bigtiff_reads_as_the_classic_tiff_does() {
    let (w, h) = (50, 37);
    let v = ramp(w, h);
    for (name, layout) in [
        ("big-strips.tif", Layout::Strips(5)),
        ("big-deflate.tif", Layout::Deflate),
        ("big-tiles.tif", Layout::Tiles(16, 16)),
    ] {
        let path = temp(name);
        let mut bytes = Cursor::new(Vec::new());
        write_big_geotiff(&mut bytes, &spec(Samples::F32(&v), w, h, layout)).unwrap();
        let bytes = bytes.into_inner();
        // "II", then 43: a BigTIFF, not the classic 42.
        assert_eq!(&bytes[..4], b"II\x2b\x00", "{name}");
        std::fs::write(&path, bytes).unwrap();
        let dem = Dem::open(&path).unwrap();
        assert_eq!((dem.width, dem.height), (50, 37));
        assert_eq!(dem.crs.epsg(), Some(2261));
        assert_eq!(dem.transform, [1005.0, 10.0, 0.0, 4995.0, 0.0, -10.0]);
        expect_ramp(&dem, dem.whole());
        expect_ramp(&dem, Window { col: 3, row: 4, cols: 20, rows: 15 });
    }
}

/// A GeoTIFF of `w` × `h` pixels placed as [`spec`] places them, its strips (`rows` rows each) written as
/// given, already compressed with `compression`.
#[allow(clippy::too_many_arguments)]
fn hand_tiff(
    name: &str,
    (w, h, rows): (u32, u32, u32),
    compression: u16,
    photometric: u16,
    (samples, bits, format): (u16, u16, u16),
    strips: &[Vec<u8>],
) -> PathBuf {
    let path = temp(name);
    let mut bytes = Cursor::new(Vec::new());
    {
        let mut encoder = TiffEncoder::new(&mut bytes).unwrap();
        let mut dir = encoder.image_directory().unwrap();
        let offsets: Vec<u32> = strips.iter().map(|s| dir.write_data(&s[..]).unwrap() as u32).collect();
        let counts: Vec<u32> = strips.iter().map(|s| s.len() as u32).collect();
        dir.write_tag(Tag::ImageWidth, w).unwrap();
        dir.write_tag(Tag::ImageLength, h).unwrap();
        dir.write_tag(Tag::BitsPerSample, &vec![bits; samples as usize][..]).unwrap();
        dir.write_tag(Tag::Compression, compression).unwrap();
        dir.write_tag(Tag::PhotometricInterpretation, photometric).unwrap();
        dir.write_tag(Tag::StripOffsets, &offsets[..]).unwrap();
        dir.write_tag(Tag::SamplesPerPixel, samples).unwrap();
        dir.write_tag(Tag::RowsPerStrip, rows).unwrap();
        dir.write_tag(Tag::StripByteCounts, &counts[..]).unwrap();
        dir.write_tag(Tag::SampleFormat, &vec![format; samples as usize][..]).unwrap();
        dir.write_tag(Tag::ModelPixelScaleTag, &[10.0, 10.0, 0.0][..]).unwrap();
        dir.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, 1000.0, 5000.0, 0.0][..]).unwrap();
        dir.write_tag(Tag::GeoKeyDirectoryTag, &[1u16, 1, 0, 1, 3072, 0, 1, 2261][..]).unwrap();
        dir.finish().unwrap();
    }
    std::fs::write(&path, bytes.into_inner()).unwrap();
    path
}

#[test]
fn a_zstd_compressed_dem_is_read() {
    // The tiff crate's encoder writes no ZSTD, so the strips are compressed here: 8 rows each, the last 5.
    let (w, h) = (50u32, 37u32);
    let v = ramp(w, h);
    let strips: Vec<Vec<u8>> = v
        .chunks((w * 8) as usize)
        .map(|rows| {
            let raw: Vec<u8> = rows.iter().flat_map(|x| x.to_le_bytes()).collect();
            zstd::encode_all(&raw[..], 3).unwrap()
        })
        .collect();
    assert_eq!(strips.len(), 5);
    let path = hand_tiff("zstd.tif", (w, h, 8), 50000, 1, (1, 32, 3), &strips);
    let dem = Dem::open(&path).unwrap();
    assert_eq!(dem.transform, [1005.0, 10.0, 0.0, 4995.0, 0.0, -10.0]);
    expect_ramp(&dem, dem.whole());
    expect_ramp(&dem, Window { col: 3, row: 6, cols: 20, rows: 15 });
}

#[test]
fn a_jpeg_compressed_tiff_is_refused_saying_how_to_export_the_dem() {
    // Three 8-bit samples a pixel, YCbCr, compression 7: a photograph's TIFF; the strip is never read.
    let jpeg = vec![0xff, 0xd8, 0xff, 0xd9];
    for (name, compression) in [("jpeg.tif", 7), ("old-jpeg.tif", 6)] {
        let path = hand_tiff(name, (4, 4, 4), compression, 6, (3, 8, 1), std::slice::from_ref(&jpeg));
        let err = Dem::open(&path).unwrap_err().to_string();
        assert!(err.contains(name), "{err}");
        assert!(err.contains("JPEG-compressed"), "{err}");
        assert!(err.ends_with("export the DEM with LZW, Deflate or ZSTD compression"), "{err}");
    }
    // Another compression lakeshore does not read (LERC, 34887) is named by its number.
    let path = hand_tiff("lerc.tif", (4, 4, 4), 34887, 1, (1, 32, 3), &[vec![0; 64]]);
    let err = Dem::open(&path).unwrap_err().to_string();
    assert!(err.contains("lerc.tif") && err.contains("(method 34887)"), "{err}");
}

/// Sampling many points through kept blocks gives the plane the ramp is (value 1000 · row + column, which
/// bilinear interpolation reproduces exactly) on both sides of every block edge, after more blocks than are
/// kept have been read, and nothing off the raster.
#[test]
fn points_sampled_through_kept_blocks_lie_on_the_ramp() {
    let (w, h) = (1100, 1100);
    let v = ramp(w, h);
    let dem = Dem::open(&write("blocks.tif", &spec(Samples::F32(&v), w, h, Layout::Tiles(64, 64)))).unwrap();
    let mut blocks = crate::formats::dem::sampler::Blocks::default();
    // Column c's centre is at x = 1005 + 10 c, row r's at y = 4995 − 10 r.
    let at = |c: f64, r: f64| [1005.0 + 10.0 * c, 4995.0 - 10.0 * r];
    let edges =
        [0.0, 0.25, 255.5, 255.99, 256.0, 256.5, 511.75, 512.0, 767.5, 1023.9, 1024.0, 1098.5, 1099.0];
    for round in 0..2 {
        for &r in &edges {
            for &c in edges.iter().rev() {
                let want = 1000.0 * r + c;
                let got = dem.sample_with(at(c, r), &mut blocks).unwrap().unwrap();
                assert!(
                    (got - want).abs() < 1e-6,
                    "round {round}, column {c}, row {r}: {got} against {want}"
                );
            }
        }
    }
    assert_eq!(dem.sample_with(at(-0.01, 5.0), &mut blocks).unwrap(), None);
    assert_eq!(dem.sample_with(at(5.0, 1099.01), &mut blocks).unwrap(), None);
    assert_eq!(dem.sample_with([f64::NAN, 4000.0], &mut blocks).unwrap(), None);
}

#[test]
fn a_dem_that_cannot_be_written_is_an_error_not_a_panic() {
    let values = ramp(32, 32);
    let refused = |samples, w, h, layout| {
        let spec = spec(samples, w, h, layout);
        let result = write_geotiff(Cursor::new(Vec::new()), &spec);
        result.expect_err("the spec is refused").to_string()
    };
    let none = refused(Samples::F32(&[]), 0, 0, Layout::Tiles(16, 16));
    assert!(none.contains("0 x 0 pixels needs 0 values"), "{none}");
    let short = refused(Samples::F32(&values[..100]), 32, 32, Layout::Deflate);
    assert!(short.contains("needs 1024 values, not 100"), "{short}");
    let tiles = refused(Samples::F32(&values), 32, 32, Layout::Tiles(0, 16));
    assert!(tiles.contains("tiles of 0 x 16 pixels"), "{tiles}");
    let strips = refused(Samples::F32(&values), 32, 32, Layout::Strips(0));
    assert!(strips.contains("strips of 0 rows"), "{strips}");
    // The same values written whole are accepted.
    write_geotiff(Cursor::new(Vec::new()), &spec(Samples::F32(&values), 32, 32, Layout::Tiles(16, 16)))
        .unwrap();
}
