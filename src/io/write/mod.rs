//! Writers: tables to CSV, GeoJSON, Parquet and GeoPackage, each file written atomically.
//!
//! A file is written to a temporary name in the target folder and renamed over the target only when
//! complete, so a reader never sees half a schedule and a failed run leaves the previous file in place.
//! Files are not forced to disk (no fsync): that guards against power loss, not against readers, and costs
//! seconds on a schedule of a million rows.

mod csv;
mod geojson;
pub mod gpkg;
mod parquet;

pub use self::csv::write_csv;
pub use self::geojson::write_geojson;
pub use self::gpkg::write_gpkg;
pub use self::parquet::write_parquet;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `path` atomically: `fill` writes into a temporary file beside it, which then replaces `path`.
pub fn write_atomic(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        fill(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// The temporary name beside `path` that a file is written under before it is renamed to `path`.
fn temp_path(path: &Path) -> std::path::PathBuf {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.join(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = std::env::temp_dir().join(format!("lakeshore-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("schedule.csv");
        write_atomic(&path, |w| w.write_all(b"old\n")).unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("schedule.csv")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
