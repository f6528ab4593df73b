//! One folder for the files of a test process, shared by the integration tests (`mod scratch` of
//! `tests/it/main.rs`) and the library's unit tests (included by path from `src/lib.rs`).

/// The folder this test process keeps its files in: `lakeshore-tests-PID` in Cargo's folder for the files of
/// integration tests (`CARGO_TARGET_TMPDIR`, inside the target folder), or in the system's temp folder for
/// the library's own tests, which Cargo gives no such folder. The first call removes the folders
/// of earlier test processes that have ended, so the tests never leave more behind than their last run's,
/// however they ended, and never fill the system's temp folder.
pub fn root() -> &'static std::path::Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        const PREFIX: &str = "lakeshore-tests-";
        let parent =
            option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, std::path::PathBuf::from);
        for entry in std::fs::read_dir(&parent).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let pid = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !running(pid)) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let root = parent.join(format!("{PREFIX}{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
        root
    })
}

/// Whether process `pid` is running (signal 0 checks without sending anything; EPERM means it runs as
/// another user).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM) }
}

/// Without a way to ask, every process is taken to be running, and nothing is removed.
#[cfg(not(unix))]
fn running(_: u32) -> bool {
    true
}
