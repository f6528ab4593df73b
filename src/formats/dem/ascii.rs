//! ESRI ASCII grids (`.asc`): a header of `ncols`, `nrows`, `xllcorner`/`xllcenter`, `yllcorner`/`yllcenter`,
//! `cellsize` and `NODATA_value`, then the values row by row from the north. A window is read by streaming
//! the values up to its last row, keeping only its own.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::{sidecar_crs, Dem, Source, Window};
use crate::model::error::{Error, Result};

/// Where an open grid's values start.
#[derive(Debug, Clone)]
pub(super) struct AsciiLayout {
    data_offset: u64,
    width: usize,
}

pub(super) fn open(path: &Path) -> Result<Dem> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut header = std::collections::BTreeMap::<String, String>::new();
    let mut offset = 0u64;
    let mut line = String::new();
    loop {
        line.clear();
        // A header line is short; a longer one is data (or not a grid at all).
        let n = (&mut reader).take(512).read_line(&mut line).map_err(|e| Error::io(path, e))?;
        let mut words = line.split_whitespace();
        let (Some(key), Some(value)) = (words.next(), words.next()) else { break };
        if key.parse::<f64>().is_ok() {
            break;
        }
        header.insert(key.to_ascii_lowercase(), value.to_string());
        offset += n as u64;
        if n == 0 {
            break;
        }
    }
    let number = |key: &str| header.get(key).and_then(|v| v.parse::<f64>().ok());
    let missing = |key: &str| {
        Error::format(
            path,
            format!("an ESRI ASCII grid needs a '{key}' header line; check the file's header"),
        )
    };
    let count = |key: &str| -> Result<usize> {
        let n = number(key).ok_or_else(|| missing(key))?;
        if n >= 1.0 && n.fract() == 0.0 && n <= u32::MAX as f64 {
            Ok(n as usize)
        } else {
            Err(Error::format(path, format!("'{key}' is {n}: give a whole number of at least 1")))
        }
    };
    let (width, height) = (count("ncols")?, count("nrows")?);
    let cell = number("cellsize").ok_or_else(|| missing("cellsize"))?;
    let (x, x_centre) = match (number("xllcorner"), number("xllcenter")) {
        (Some(x), _) => (x, false),
        (None, Some(x)) => (x, true),
        _ => return Err(missing("xllcorner")),
    };
    let (y, y_centre) = match (number("yllcorner"), number("yllcenter")) {
        (Some(y), _) => (y, false),
        (None, Some(y)) => (y, true),
        _ => return Err(missing("yllcorner")),
    };
    if !cell.is_finite() || cell <= 0.0 {
        return Err(Error::format(path, format!("cellsize is {cell}: give a positive size")));
    }
    let x0 = if x_centre { x } else { x + cell / 2.0 };
    let y_south = if y_centre { y } else { y + cell / 2.0 };
    let transform = [x0, cell, 0.0, y_south + (height as f64 - 1.0) * cell, 0.0, -cell];
    Ok(Dem {
        path: path.to_path_buf(),
        width,
        height,
        crs: sidecar_crs(path, "an ESRI ASCII grid does not hold its CRS")?,
        transform,
        nodata: number("nodata_value"),
        vertical_unit: None,
        vertical_datum: None,
        source: Source::Ascii(AsciiLayout { data_offset: offset, width }),
    })
}

pub(super) fn read(path: &Path, layout: &AsciiLayout, window: Window) -> Result<Vec<f32>> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    file.seek(SeekFrom::Start(layout.data_offset)).map_err(|e| Error::io(path, e))?;
    let reader = BufReader::new(file);
    let mut out = vec![f32::NAN; window.pixels()];
    let end = (window.row + window.rows) * layout.width;
    let mut k = 0usize;
    for (line_no, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        for word in line.split_whitespace() {
            let (r, c) = (k / layout.width, k % layout.width);
            if r >= window.row && c >= window.col && c < window.col + window.cols {
                let v: f32 = word.parse().map_err(|_| {
                    Error::format(
                        path,
                        format!(
                            "'{word}' in data line {} is not a number; fix the grid's values",
                            line_no + 1
                        ),
                    )
                })?;
                out[(r - window.row) * window.cols + (c - window.col)] = v;
            }
            k += 1;
            if k >= end {
                return Ok(out);
            }
        }
    }
    Err(Error::format(
        path,
        format!(
            "the grid ends after {k} values, fewer than its header's ncols × nrows; the file is cut short"
        ),
    ))
}
