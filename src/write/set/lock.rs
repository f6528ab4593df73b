//! The lock of an output folder: an exclusive lock (`flock`; `LockFileEx` on Windows) on `.lakeshore.lock`,
//! whose file says who holds it (process id, start time, command line). The operating system lets go of it
//! when the process ends, however it ends; a second run does not wait: it says who holds the lock and stops.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{command_line, told, LOCK, OUT_FIX};
use crate::model::error::{Error, Result};

/// The exclusive lock of an output folder, held while the file is open; the file is removed when the lock
/// is let go.
pub(super) struct Lock {
    _held: FileLock,
}

impl Lock {
    /// Takes the lock of `dir` for `command`, or fails naming the run that holds it.
    pub(super) fn take(dir: &Path, command: &[String]) -> Result<Lock> {
        FileLock::take_with(&dir.join(LOCK), command, OUT_FIX, |holder| {
            Error::format(
                dir,
                format!(
                    "another lakeshore run is writing into this folder ({holder}): wait for it to finish, or give \
                     another --out"
                ),
            )
        })
        .map(|held| Lock { _held: held })
    }
}

/// An exclusive advisory lock on a file that says who holds it (process id, start time, command line), held
/// while the value lives; the file is removed when the lock is let go. The lock of an output folder, and of
/// the program store.
pub struct FileLock {
    path: PathBuf,
    _file: File,
}

impl FileLock {
    /// Takes the lock of the file `path` for `command`, or fails with `busy` (what the holder does), naming the
    /// run that holds it; a lock file that cannot be made is an error saying `fix` (what to give instead).
    pub fn take(path: &Path, command: &[String], busy: &str, fix: &str) -> Result<FileLock> {
        Self::take_with(path, command, fix, |holder| {
            Error::format(path, format!("{busy} ({holder}): wait for it to finish"))
        })
    }

    /// [`FileLock::take`], the error when another run holds the lock made by `busy` from who holds it.
    fn take_with(
        path: &Path,
        command: &[String],
        fix: &str,
        busy: impl Fn(&str) -> Error,
    ) -> Result<FileLock> {
        loop {
            let mut file = open_lock_file(path, fix)?;
            if !try_lock(&file).map_err(|e| Error::io(path, e))? {
                return Err(busy(&holder_of(&mut file)));
            }
            // A run that let the lock go removed the file: a lock on the file it removed is no lock.
            if !same_file(&file, path) {
                continue;
            }
            let started = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC");
            let holder = format!(
                "pid {}, started {started}, command: {}\n",
                std::process::id(),
                command_line(command)
            );
            file.set_len(0)
                .and_then(|()| file.write_all(holder.as_bytes()))
                .map_err(|e| Error::io(path, e))?;
            return Ok(FileLock { path: path.to_path_buf(), _file: file });
        }
    }
}

/// Who holds the lock of `file`, as the holder wrote it (its first [`HOLDER_BYTES`] bytes). The holder writes
/// its line just after taking the lock, so a line not yet whole is read again, for up to two seconds, before
/// the run says it does not know.
fn holder_of(file: &mut File) -> String {
    const TRIES: u32 = 200;
    for _ in 0..TRIES {
        let mut said = Vec::new();
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| Read::by_ref(file).take(HOLDER_BYTES).read_to_end(&mut said));
        if read.is_ok() && (said.ends_with(b"\n") || said.len() as u64 == HOLDER_BYTES) {
            let said = String::from_utf8_lossy(&said);
            return crate::model::controls::without_controls(said.trim()).0.into_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "which one has not yet been written".to_string()
}

/// How much of the holder's line is read: a long command line is cut there.
const HOLDER_BYTES: u64 = 4096;

impl Drop for FileLock {
    fn drop(&mut self) {
        // Removed while still held; the lock goes with the file's closing, after this.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Opens the lock file, made if need be; a link planted in its place is not followed. An error says `fix`.
pub(super) fn open_lock_file(path: &Path, fix: &str) -> Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc_eloop()) {
            let told = "a link stands where the lock file goes: remove it and run again";
            return Error::io(path, std::io::Error::other(told));
        }
        told(path, e, fix)
    })
}

/// The error number of a link met where `O_NOFOLLOW` forbids one.
fn libc_eloop() -> i32 {
    #[cfg(unix)]
    return libc::ELOOP;
    #[cfg(not(unix))]
    return -1;
}

/// Takes the exclusive lock of `file` without waiting: `false` when another process holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock only reads the descriptor, which `file` keeps open for the call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Takes the exclusive lock of `file` without waiting: `false` when another process holds it. Windows locks
/// are mandatory, so the lock is on one byte far past the end of the file (as SQLite's are), never on the
/// holder's line, which the next run reads to say who holds it.
#[cfg(windows)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Foundation::ERROR_LOCK_VIOLATION;
    use windows_sys::Win32::Storage::FileSystem::{
        LockFileEx, LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY,
    };
    use windows_sys::Win32::System::IO::OVERLAPPED;
    let mut at = OVERLAPPED::default();
    // Byte 2^62: a lock file never grows there.
    at.Anonymous.Anonymous.OffsetHigh = 1 << 30;
    let flags = LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY;
    // SAFETY: the handle is `file`'s, open for the call, and `at` lives through it; a lock asked to fail at
    // once never completes later, so nothing writes to `at` after the call.
    if unsafe { LockFileEx(file.as_raw_handle(), flags, 0, 1, 0, &mut at) } != 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(ERROR_LOCK_VIOLATION as i32) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Where the system has neither `flock` nor `LockFileEx`, no lock is taken.
#[cfg(not(any(unix, windows)))]
fn try_lock(_: &File) -> std::io::Result<bool> {
    Ok(true)
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_holder_is_read_from_the_start_of_its_line_without_controls() {
        let dir = crate::scratch::root().join("set-holder");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut file = open_lock_file(&dir.join(LOCK), "").unwrap();
        file.write_all(b"pid 7, started 2027-01-15 09:00:00 UTC, command: lakeshore \x1b[2Jschedule\n")
            .unwrap();
        assert_eq!(
            holder_of(&mut file),
            "pid 7, started 2027-01-15 09:00:00 UTC, command: lakeshore \u{fffd}[2Jschedule"
        );
        // A command line longer than what is read is cut, not waited on, even inside a character.
        let long =
            format!("pid 8, started 2027-01-15 09:00:00 UTC, command: lakeshore {}\n", "é".repeat(4096));
        file.set_len(0).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.write_all(long.as_bytes()).unwrap();
        let holder = holder_of(&mut file);
        assert!(
            holder.starts_with("pid 8, started 2027-01-15 09:00:00 UTC, command: lakeshore éé"),
            "{holder}"
        );
        assert_eq!(holder.len(), 4096 - 1 + "\u{fffd}".len(), "the first 4096 bytes, the cut 'é' replaced");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
