//! The letters of the SYNTHETIC sample county (year 2027, as of 2027-01-15) as a browser renders them:
//! a screenshot of the first letter at US Letter size (816 × 1056 px at 96 dpi) shows the letterhead and
//! text, and printing to PDF gives one page per letter.
//!
//! Needs Chromium (`chromium`, `chromium-browser` or `google-chrome` on PATH, or the `CHROMIUM` environment
//! variable naming the binary). Without it each test says it was skipped and passes, so that `cargo test`
//! needs nothing but Rust, except in CI (the environment variable `CI` set), which installs Chromium: there
//! a missing Chromium fails the tests.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use chrono::NaiveDate;
use lakeshore::config::{Config, ConfigFile};
use lakeshore::obligations::collect;
use lakeshore::pipeline::run_schedule;
use lakeshore::report::letters::{write_letters, Template};
use lakeshore::report::notices::notices;

/// US Letter at 96 CSS pixels per inch.
const PAGE_PX: (u32, u32) = (816, 1056);

/// The Chromium binary, if there is one.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Chromium, or `None` after saying the test is skipped (outside CI; in CI a missing Chromium fails).
fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        common::skip_unless_ci(test, "no Chromium (install Debian package chromium, or set CHROMIUM)");
    }
    found
}

/// Writes the sample's letters for 2027 into a fresh folder; returns the file and the number of letters.
fn sample_letters(label: &str) -> (PathBuf, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let as_of: NaiveDate = "2027-01-15".parse().unwrap();
    let config = Config::new(ConfigFile::load(&path).unwrap(), as_of).unwrap();
    let run = run_schedule(&config).unwrap();
    let (obligations, _, _) = collect(&run, as_of);
    let list = notices(&run, &obligations, 2027);
    assert!(list.letter_count() > 1, "the sample has letters for 2027");
    let dir = common::fresh_dir(label);
    let file = write_letters(&list, &Template::builtin().unwrap(), &dir, as_of).unwrap();
    (file, list.letter_count())
}

/// Runs headless Chromium on `page` with `args`, with its own profile folder, and waits for it to finish
/// (headless screenshots and prints exit by themselves once the page is drawn).
fn run_chromium(chromium: &Path, page: &Path, args: &[String]) {
    let profile = page.with_file_name(format!("profile-{}", args.len()));
    let status = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
    let _ = std::fs::remove_dir_all(&profile);
    assert!(status.success(), "{} {args:?} failed: {status}", chromium.display());
}

/// An 8-bit image as (width, height, luminance of each pixel, row by row).
fn decode_luminance(png_path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(png_path).unwrap_or_else(|e| panic!("{}: {e}", png_path.display()));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let samples = info.color_type.samples();
    let pixels = buffer[..info.buffer_size()]
        .chunks(info.line_size)
        .flat_map(|line| line[..info.width as usize * samples].chunks(samples))
        .map(|p| match p {
            [gray] | [gray, _] => *gray,
            [r, g, b, ..] => ((u32::from(*r) * 299 + u32::from(*g) * 587 + u32::from(*b) * 114) / 1000) as u8,
            [] => 255,
        })
        .collect();
    (info.width, info.height, pixels)
}

/// Pixels darker than `below` in the box `x` × `y`.
fn dark(width: u32, pixels: &[u8], x: std::ops::Range<u32>, y: std::ops::Range<u32>, below: u8) -> usize {
    y.flat_map(|row| x.clone().map(move |col| (row * width + col) as usize))
        .filter(|&i| pixels[i] < below)
        .count()
}

#[test]
fn the_first_letter_shows_its_letterhead_and_text() {
    let Some(chromium) = chromium_or_skip("the_first_letter_shows_its_letterhead_and_text") else { return };
    let (letters, _) = sample_letters("letters-screenshot");
    let png_path = letters.with_file_name("letter.png");
    let (w, h) = PAGE_PX;
    run_chromium(
        &chromium,
        &letters,
        &[format!("--window-size={w},{h}"), format!("--screenshot={}", png_path.display())],
    );
    let (width, height, pixels) = decode_luminance(&png_path);
    assert_eq!((width, height), PAGE_PX, "the screenshot is one US Letter page");
    // The template pads a letter 0.6 in (58 px) from the top and 0.85 in (82 px) from the left on screen;
    // the agency's name is a 19 pt line (about 29 px) there.
    let letterhead = dark(width, &pixels, 82..420, 58..88, 110);
    assert!(letterhead > 400, "only {letterhead} dark pixels where the letterhead is");
    // Text area: inside the margins, below the letterhead.
    let text = dark(width, &pixels, 82..734, 140..1000, 200);
    assert!(text > 5_000, "only {text} non-white pixels in the text area: is the letter blank?");
    // And the margins stay white.
    let margin = dark(width, &pixels, 0..60, 0..height, 200);
    assert_eq!(margin, 0, "ink in the left margin");
}

/// The number of `/Type /Page` objects (not `/Type /Pages`) in a PDF.
fn pdf_pages(pdf: &[u8]) -> usize {
    let mut count = 0;
    let mut at = 0;
    while let Some(i) = pdf[at..].windows(5).position(|w| w == b"/Type").map(|i| at + i + 5) {
        let rest = &pdf[i..];
        let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let rest = &rest[skip..];
        if rest.starts_with(b"/Page") && rest.get(5) != Some(&b's') {
            count += 1;
        }
        at = i;
    }
    count
}

#[test]
fn printing_gives_one_page_per_letter() {
    let Some(chromium) = chromium_or_skip("printing_gives_one_page_per_letter") else { return };
    let (letters, count) = sample_letters("letters-pdf");
    let pdf_path = letters.with_file_name("letters.pdf");
    run_chromium(
        &chromium,
        &letters,
        &[
            format!("--print-to-pdf={}", pdf_path.display()),
            "--no-pdf-header-footer".into(),
            "--print-to-pdf-no-header".into(),
        ],
    );
    let pdf = std::fs::read(&pdf_path).unwrap_or_else(|e| panic!("{}: {e}", pdf_path.display()));
    assert!(pdf.starts_with(b"%PDF"), "{} is not a PDF", pdf_path.display());
    assert_eq!(pdf_pages(&pdf), count, "one page per letter: a letter ran over a page, or a blank page");
}
