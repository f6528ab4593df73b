//! The `lakeshore` command: parse the flags, run the library, map the outcome to an exit code
//! (0 clean, 2 when bad records were reported, 1 when the run could not finish). A panic, which is a bug,
//! prints what happened, the command line to reproduce it and a request to report it, and exits with 101.
//! SIGINT and SIGTERM (Ctrl-C on Windows) stop the run at its next safe point (see
//! [`lakeshore::model::stop`]): one line says so, and the exit code is 130 or 143.

mod cli;

use std::process::ExitCode;

use clap::Parser;
use lakeshore::model::stop::{self, Signal};

fn main() -> ExitCode {
    keep_freed_memory();
    stop_on_signals();
    std::panic::set_hook(Box::new(report_panic));
    // The fault-injection hook of the tests (see `lakeshore::write::FAULT_ENV`) can also ask for a panic.
    if std::env::var(lakeshore::write::FAULT_ENV).is_ok_and(|f| f == "panic") {
        panic!("panic injected through {}", lakeshore::write::FAULT_ENV);
    }
    // clap exits with 2 on a bad flag; here 2 means "done, with bad records reported", so a command line that
    // cannot run exits with 1 like any other error. Help and version go to stdout and exit 0.
    let args = match cli::Args::try_parse() {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::from(e.use_stderr()));
        }
    };
    let outcome = cli::run(args);
    if let Some(signal) = stop::requested() {
        return stopped(signal, &outcome);
    }
    match outcome {
        Ok(code) => code,
        Err(e) => {
            // The message may quote input text; its control characters (a terminal's escapes) are not sent.
            eprintln!("lakeshore: error: {}", lakeshore::model::controls::for_terminal(&told(&e)));
            ExitCode::from(1)
        }
    }
}

/// SIGINT and SIGTERM (Ctrl-C on Windows) ask the run to stop: their handlers only store which came in the
/// run's stop flag ([`stop::flag`]), which the run reads at its safe points. A signal that comes again does
/// the same, no more: `timeout` and a terminal's Ctrl-C can send one signal twice at once, and the second must
/// not end the run before the first is answered (SIGKILL is there for a run that must end now).
fn stop_on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for (number, signal) in [(SIGINT, Signal::Interrupt), (SIGTERM, Signal::Terminate)] {
        // Without a handler the signal ends the run as it always could: the output folder stays safe.
        drop(signal_hook::flag::register_usize(number, stop::flag(), signal.value()));
    }
}

/// The end of a run `signal` stopped, which came to `outcome`: one line on stderr saying so and what became of
/// the outputs, and the signal's exit code.
fn stopped(signal: Signal, outcome: &anyhow::Result<ExitCode>) -> ExitCode {
    let before_publishing = |e: &anyhow::Error| {
        e.chain().any(|c| matches!(c.downcast_ref(), Some(lakeshore::model::error::Error::Stopped(_))))
    };
    let what = match outcome {
        Ok(_) => "its outputs were put in place first".to_string(),
        Err(e) if before_publishing(e) => {
            "nothing was published, and the output folder keeps its previous set".to_string()
        }
        Err(e) => format!("error: {}", lakeshore::model::controls::for_terminal(&told(e))),
    };
    eprintln!("lakeshore: stopped by {}: {what}", signal.name());
    ExitCode::from(signal.exit_code())
}

/// An error as a person reads it: each message of the chain, joined by ": ", down to the first
/// [`lakeshore::model::error::Error`]. That one's message already says all there is to say (the file, what is wrong,
/// the text of the library error behind it, what to do); its sources are there for programs to match on.
fn told(e: &anyhow::Error) -> String {
    let mut told = Vec::new();
    for cause in e.chain() {
        told.push(cause.to_string());
        if cause.is::<lakeshore::model::error::Error>() {
            break;
        }
    }
    told.join(": ")
}

/// The panic hook: the message and where, the command line quoted for a shell, and a one-line request to
/// report it; a backtrace only when `RUST_BACKTRACE` asks for one. The exit code stays 101.
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    eprintln!("lakeshore: internal error: {info}");
    eprintln!("lakeshore: command: {}", lakeshore::write::set::command_line(&args));
    if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
        eprintln!("{}", std::backtrace::Backtrace::force_capture());
    }
    eprintln!(
        "lakeshore: this is a bug in lakeshore, not in your data: please report it with the command above and, \
         if you can, the input files"
    );
}

// Parcels are millions of small allocations (ids, names, rings); mimalloc hands them out and takes them
// back several times faster than the system allocator, on both cores at once.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the 16th entry of `mi_option_e` in `mimalloc.h`, in versions 2 and 3),
/// which `libmimalloc-sys` does not name.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc to keep the memory a run frees for the run's next allocations instead of handing it back
/// to the kernel after 10 ms. A schedule frees and allocates a block of rows at a time; returned memory comes
/// back as fresh pages the kernel must zero, 2 MiB at a time where transparent huge pages are on. At 1M
/// parcels that was 6,000 to 15,000 page faults and up to 0.8 s of kernel time; kept, about 1,000 faults,
/// and the peak is the same, since a block's memory is reused by the next. The process is short-lived, so
/// memory it keeps is returned when it exits.
fn keep_freed_memory() {
    // SAFETY: `mi_option_set` takes an option index and a value and only stores the value in mimalloc's
    // option table; -1 is the documented "never purge".
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}
