//! Printing HTML to PDF through headless Chromium (`lakeshore notices --pdf`): the letters and the label
//! sheet are HTML laid out for US Letter paper; Chromium's own print engine turns them into PDF, with its
//! page breaks (a letter's address block is never split, a long letter repeats its head on every page).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::model::error::{Error, Result};

/// The names a Chromium binary goes by on `PATH`, in the order they are tried.
pub const CHROMIUM_NAMES: &[&str] =
    &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// The flags every headless run takes: no sandbox (it cannot start as root with one), no GPU, and no
/// network of its own (no QUIC, background requests, component updates or sync).
pub const HEADLESS_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The Chromium binary: the `CHROMIUM` environment variable when set, else the first of
/// [`CHROMIUM_NAMES`] on `PATH`; `None` when there is none.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    CHROMIUM_NAMES
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Prints `html` to the PDF file `pdf` with `chromium`, written to a temporary name beside it and renamed
/// when complete. Chromium gets a fresh profile folder, removed afterwards.
pub fn print_to_pdf(chromium: &Path, html: &Path, pdf: &Path) -> Result<()> {
    let html = std::path::absolute(html).map_err(|e| Error::io(html, e))?;
    let temp = pdf.with_extension("pdf.part");
    let profile = pdf.with_extension("chromium-profile");
    let output = Command::new(chromium)
        .args(HEADLESS_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--no-pdf-header-footer", "--print-to-pdf-no-header"])
        .arg(format!("--print-to-pdf={}", temp.display()))
        .arg(format!("file://{}", html.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let _ = std::fs::remove_dir_all(&profile);
    let output = output.map_err(|e| {
        Error::Config(format!("cannot start {}: {e}; install Chromium or set CHROMIUM", chromium.display()))
    })?;
    let printed = std::fs::metadata(&temp).is_ok_and(|m| m.len() > 0);
    if !output.status.success() || !printed {
        let _ = std::fs::remove_file(&temp);
        let said = String::from_utf8_lossy(&output.stderr);
        let last = said.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        return Err(Error::Config(format!(
            "{} could not print {} to PDF ({}: {last}); open the HTML in a browser and print it",
            chromium.display(),
            html.display(),
            output.status
        )));
    }
    std::fs::rename(&temp, pdf).map_err(|e| Error::io(pdf, e))
}
