//! A scratch folder per fuzzing process, for readers that take a path.

use std::path::PathBuf;

/// `name` in this process's scratch folder, after writing `bytes` to it.
pub fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lakeshore-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}
