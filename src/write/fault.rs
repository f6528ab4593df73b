//! The fault-injection hook of the crash-safety tests: the environment variable [`FAULT_ENV`]
//! (`LAKESHORE_FAULT`), read once, inert unless set. It lets a test kill the run, fail a file-system call or
//! send the run a signal at a named point of its output set's life, without a debugger or a full disk:
//!
//! | value | what happens |
//! |---|---|
//! | `abort-after-bytes=N` | the process aborts (as a kill ends it) once N bytes of output were written, counted over every file written through [`super::AtomicFile`] |
//! | `kill-before:POINT`, `kill-after:POINT` | the process aborts just before, or just after, POINT |
//! | `POINT:ENOSPC`, `POINT:EIO` | the call at POINT fails with "no space left on device" or "input/output error", each time it is tried |
//! | `raise-before:POINT:SIGINT`, `raise-before:POINT:SIGTERM` | the process sends itself the signal just before POINT, once |
//! | `panic` | the binary panics before it reads its flags |
//!
//! The points, in the order a run meets them (see [`super::set`]): `open` (the output folder's lock taken and
//! an interrupted publish finished, before the staging folder is made), `sync` (each staged file forced to
//! disk), `manifest` (`run.json`, written and forced to disk, renamed into the staging folder), `commit` (the
//! commit marker, written and forced to disk, renamed into the staging folder: the commit point), `unlink`
//! (the old `run.json` removed), `rename:K` (the K-th file of the marker renamed into place, 1-based,
//! `run.json` last) and `cleanup` (the staging folder removed). A run that issues notices meets two more, in
//! the program store: `store-pending` (the batch recorded pending, before its transaction commits, after
//! the run's work and before its files are written) and `store-issued` (the batch marked issued, after the set is in place).
//!
//! Unset, each point costs one load of a value read once.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The environment variable of the fault-injection hook.
pub const FAULT_ENV: &str = "LAKESHORE_FAULT";

/// The fault [`FAULT_ENV`] asks for.
#[derive(Debug, PartialEq, Eq)]
enum Fault {
    AbortAfterBytes(u64),
    Kill { before: bool, point: String },
    Fail { point: String, no_space: bool },
    Raise { point: String, terminate: bool },
}

impl Fault {
    /// The fault `text` names; `None` for none (or one this build does not know).
    fn parse(text: &str) -> Option<Fault> {
        let text = text.trim();
        if let Some(n) = text.strip_prefix("abort-after-bytes=") {
            return n.trim().parse().ok().map(Fault::AbortAfterBytes);
        }
        if let Some(point) = text.strip_prefix("kill-before:") {
            return Some(Fault::Kill { before: true, point: point.to_string() });
        }
        if let Some(point) = text.strip_prefix("kill-after:") {
            return Some(Fault::Kill { before: false, point: point.to_string() });
        }
        if let Some(rest) = text.strip_prefix("raise-before:") {
            let (point, signal) = rest.rsplit_once(':')?;
            let terminate = match signal {
                "SIGINT" => false,
                "SIGTERM" => true,
                _ => return None,
            };
            return Some(Fault::Raise { point: point.to_string(), terminate });
        }
        let (point, error) = text.rsplit_once(':')?;
        let no_space = match error {
            "ENOSPC" => true,
            "EIO" => false,
            _ => return None,
        };
        Some(Fault::Fail { point: point.to_string(), no_space })
    }
}

/// The fault of this process, read once.
fn fault() -> Option<&'static Fault> {
    static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
    FAULT.get_or_init(|| Fault::parse(&std::env::var(FAULT_ENV).ok()?)).as_ref()
}

/// Runs `call`, the file-system call at `point`, with the fault [`FAULT_ENV`] asks for there.
pub fn at<T>(point: &str, call: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    match fault() {
        Some(Fault::Kill { before: true, point: p }) if p == point => std::process::abort(),
        Some(Fault::Fail { point: p, no_space }) if p == point => {
            let error = match no_space {
                true => std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on device"),
                false => std::io::Error::other("input/output error"),
            };
            return Err(std::io::Error::new(error.kind(), format!("{error} (injected through {FAULT_ENV})")));
        }
        Some(Fault::Raise { point: p, terminate }) if p == point => raise(*terminate),
        _ => {}
    }
    let done = call()?;
    if matches!(fault(), Some(Fault::Kill { before: false, point: p }) if p == point) {
        std::process::abort();
    }
    Ok(done)
}

/// Sends this process SIGTERM (`terminate`) or SIGINT, as `kill` would; once, however many files pass the
/// point.
fn raise(terminate: bool) {
    static RAISED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if RAISED.swap(true, Ordering::SeqCst) {
        return;
    }
    let signal = if terminate { libc::SIGTERM } else { libc::SIGINT };
    // SAFETY: raise takes a signal number and runs the handler installed for it (or its default action).
    unsafe { libc::raise(signal) };
}

/// A file (or a writer of one) that obeys `abort-after-bytes`.
pub(super) struct Faulty<W>(pub(super) W);

/// Bytes written to every output file so far, for `abort-after-bytes`.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

impl<W: Write> Write for Faulty<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(Fault::AbortAfterBytes(limit)) = fault() {
            let before = WRITTEN.fetch_add(buf.len() as u64, Ordering::SeqCst);
            if before + buf.len() as u64 > *limit {
                // Write what fits, as a kill mid-write would leave it, and die.
                let fits = limit.saturating_sub(before) as usize;
                let _ = self.0.write_all(&buf[..fits.min(buf.len())]);
                std::process::abort();
            }
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_is_read_from_its_text_and_others_are_none() {
        let kill = |before, point: &str| Some(Fault::Kill { before, point: point.into() });
        assert_eq!(Fault::parse("kill-after:commit"), kill(false, "commit"));
        assert_eq!(Fault::parse("kill-before:rename:3"), kill(true, "rename:3"));
        assert_eq!(
            Fault::parse("rename:3:ENOSPC"),
            Some(Fault::Fail { point: "rename:3".into(), no_space: true })
        );
        assert_eq!(Fault::parse("unlink:EIO"), Some(Fault::Fail { point: "unlink".into(), no_space: false }));
        assert_eq!(
            Fault::parse("raise-before:commit:SIGTERM"),
            Some(Fault::Raise { point: "commit".into(), terminate: true })
        );
        assert_eq!(Fault::parse("abort-after-bytes=12"), Some(Fault::AbortAfterBytes(12)));
        for none in ["", "panic", "rename:3:EPERM", "raise-before:commit:SIGHUP", "abort-after-bytes=x"] {
            assert_eq!(Fault::parse(none), None, "{none}");
        }
    }
}
