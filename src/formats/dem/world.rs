//! World files: the georeferencing of a TIFF without GeoTIFF tags, in a text file beside it (`dem.tfw`,
//! `dem.tifw` or `dem.wld`): six numbers, one a line — A, D, B, E, C, F — such that the centre of the pixel
//! at column `c`, row `r` is at `x = A·c + B·r + C`, `y = D·c + E·r + F`. C and F are the centre of the
//! upper-left pixel, not its corner; B and D rotate the grid.

use std::path::{Path, PathBuf};

use crate::model::error::{Error, Result};

/// The world file beside `image`, as GDAL looks for one: the first and last letters of its extension and
/// `w` (`.tfw`), its extension and `w` (`.tifw`), then `.wld`, each in lower and upper case.
fn find(image: &Path) -> Option<PathBuf> {
    let ext = image.extension()?.to_str()?.to_ascii_lowercase();
    let (first, last) = (ext.chars().next()?, ext.chars().last()?);
    [format!("{first}{last}w"), format!("{ext}w"), "wld".to_string()]
        .into_iter()
        .flat_map(|e| [e.clone(), e.to_ascii_uppercase()])
        .map(|e| image.with_extension(e))
        .find(|p| p.is_file())
}

/// The transform (as [`super::Dem::transform`]) from the world file beside `image`, `None` when there is
/// none, an error naming the world file when it is not six numbers.
pub(super) fn transform(image: &Path) -> Result<Option<[f64; 6]>> {
    let Some(path) = find(image) else { return Ok(None) };
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let numbers: Vec<f64> =
        text.split_whitespace().map_while(|w| w.parse::<f64>().ok()).filter(|v| v.is_finite()).collect();
    let words = text.split_whitespace().count();
    if numbers.len() != 6 || words != 6 {
        return Err(Error::format(
            &path,
            "not a world file: it should hold six numbers, one a line (pixel width A, rotations D and B, \
             pixel height E, then the x and y of the upper-left pixel's centre C and F); write it again",
        ));
    }
    let [a, d, b, e, c, f] = [numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5]];
    Ok(Some([c, a, b, f, d, e]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_world_file_gives_the_centre_of_the_first_pixel_and_the_steps() {
        let dir = crate::scratch::root().join("world");
        std::fs::create_dir_all(&dir).unwrap();
        let image = dir.join("dem.tif");
        assert_eq!(transform(&image).unwrap(), None);
        std::fs::write(dir.join("dem.wld"), "2\n0.5\n-0.25\n-3\n100.5\n200.5\n").unwrap();
        assert_eq!(transform(&image).unwrap(), Some([100.5, 2.0, -0.25, 200.5, 0.5, -3.0]));
        // `.tfw` comes before `.wld`.
        std::fs::write(dir.join("dem.tfw"), "10\n0\n0\n-10\n1005\n4995\n").unwrap();
        assert_eq!(transform(&image).unwrap(), Some([1005.0, 10.0, 0.0, 4995.0, 0.0, -10.0]));
        std::fs::write(dir.join("dem.tfw"), "10\n0\n0\n-10\n1005\n").unwrap();
        let err = transform(&image).unwrap_err().to_string();
        assert!(err.contains("dem.tfw") && err.contains("six numbers"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
