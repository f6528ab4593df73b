//! A request to stop the run, made by a signal: SIGINT (Ctrl-C, on Windows too) or SIGTERM.
//!
//! The binary's signal handlers only store which signal came into [`flag`]; nothing else is done in a
//! handler. The run reads the flag at safe points ([`check`]: between blocks of rows, between the stages of a
//! command, and before the commit point of the output set's publishing) and stops there with
//! [`Error::Stopped`], which unwinds like any error: the staging folder of the output set is removed and the
//! folder keeps its previous set. Past the commit point nothing checks the flag: the publish is finished
//! first. The binary then says on stderr that the run was stopped and exits 130 (SIGINT) or 143 (SIGTERM).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::error::{Error, Result};

/// A signal that stops the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT: Ctrl-C at a terminal (on Windows, Ctrl-C or Ctrl-Break).
    Interrupt,
    /// SIGTERM: the polite request to end of `kill`, service managers and `timeout`.
    Terminate,
}

impl Signal {
    /// Its name, `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// The exit code of a run it stopped: 128 and the signal's number, as shells report a process the signal
    /// ended (SIGINT is 2 and SIGTERM 15 on every system, Windows' C runtime included).
    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
        }
    }

    /// The value [`flag`] holds once this signal came.
    pub fn value(self) -> usize {
        match self {
            Signal::Interrupt => 1,
            Signal::Terminate => 2,
        }
    }
}

/// Which signal asked the run to stop: 0 for none, else the [`Signal::value`] of the first.
static REQUESTED: AtomicUsize = AtomicUsize::new(0);

/// The flag a signal handler sets to its signal's [`Signal::value`]: a plain atomic store, the one thing a
/// handler may do.
pub fn flag() -> &'static AtomicUsize {
    &REQUESTED
}

/// Asks the run to stop as `signal` would.
pub fn request(signal: Signal) {
    REQUESTED.store(signal.value(), Ordering::SeqCst);
}

/// The signal that asked the run to stop, if one did.
pub fn requested() -> Option<Signal> {
    match REQUESTED.load(Ordering::SeqCst) {
        0 => None,
        1 => Some(Signal::Interrupt),
        _ => Some(Signal::Terminate),
    }
}

/// A safe point: [`Error::Stopped`] once a signal asked the run to stop.
pub fn check() -> Result<()> {
    match requested() {
        Some(signal) => Err(Error::Stopped(signal)),
        None => Ok(()),
    }
}
