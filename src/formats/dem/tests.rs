use std::io::Cursor;

use super::write::{write_geotiff, GeoTiffSpec, Layout, Samples};
use super::*;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lakeshore-dem-{}-{name}", std::process::id()));
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
            }
        }
    }
}
