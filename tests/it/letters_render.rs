//! The letters of the SYNTHETIC sample county (year 2027, as of 2027-01-15) as a browser renders them:
//! a screenshot of the first letter at US Letter size (816 × 1056 px at 96 dpi) shows the letterhead and
//! text, and printing to PDF gives one page per letter.
//!
//! Needs Chromium (`chromium`, `chromium-browser` or `google-chrome` on PATH, or the `CHROMIUM` environment
//! variable naming the binary) and, for the PDF, `pdftotext` (poppler-utils). Without them each test says it
//! was skipped and passes, unless the `CI` environment variable is set: then it fails.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use chrono::NaiveDate;
use lakeshore::pipeline::config::{Config, ConfigFile};
use lakeshore::pipeline::run_schedule;
use lakeshore::report::labels::write_labels;
use lakeshore::report::letters::{write_letters, Template, BUILTIN_TEMPLATE};
use lakeshore::report::notices::notices;
use lakeshore::report::print::{print_to_pdf, HEADLESS_FLAGS};
use lakeshore::report::{write_table, OutputFormat};

/// US Letter at 96 CSS pixels per inch.
const PAGE_PX: (u32, u32) = (816, 1056);

/// One letter as the mail-merge table lists it: its number, the owners of its rows and its address lines.
struct Mailed {
    number: String,
    owners: Vec<String>,
    street: String,
}

/// Writes the sample's letters (from `template`) and labels for 2027 into a fresh folder; returns the
/// letters file and the letters as `notices.csv` lists them, in order.
fn sample_letters(label: &str, template: &Template) -> (PathBuf, Vec<Mailed>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample/county.toml");
    let as_of: NaiveDate = "2027-01-15".parse().unwrap();
    let config = Config::new(ConfigFile::load(&path).unwrap(), as_of).unwrap();
    let run = run_schedule(&config).unwrap();
    let (obligations, _, _) = run.obligations(as_of);
    let list = notices(&run, &obligations, 2027, as_of);
    assert!(list.letter_count() > 1, "the sample has letters for 2027");
    let dir = common::fresh_dir(label);
    let file = write_letters(&list, template, &dir, as_of).unwrap();
    write_labels(&list, &dir).unwrap();
    write_table(&list, &dir, "notices", &[OutputFormat::Csv], &config.crs).unwrap();
    let (_, rows) = common::read_rows(&dir.join("notices.csv")).unwrap();
    let mut mailed: Vec<Mailed> = Vec::new();
    for row in rows {
        let number = row["letter"].clone();
        match mailed.last_mut() {
            Some(last) if last.number == number => last.owners.push(row["owner"].to_uppercase()),
            _ => mailed.push(Mailed {
                number,
                owners: vec![row["owner"].to_uppercase()],
                street: row["address"].to_uppercase(),
            }),
        }
    }
    (file, mailed)
}

/// Runs headless Chromium on `page` with `args`, with its own profile folder, and waits for it to finish
/// (headless screenshots and prints exit by themselves once the page is drawn).
fn run_chromium(chromium: &Path, page: &Path, args: &[String]) {
    let profile = page.with_file_name(format!("profile-{}", args.len()));
    let status = Command::new(chromium)
        .args(HEADLESS_FLAGS)
        .arg("--hide-scrollbars")
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
    let Some(chromium) = common::chromium_or_skip("the_first_letter_shows_its_letterhead_and_text") else {
        return;
    };
    let (letters, _) = sample_letters("letters-screenshot", &Template::builtin().unwrap());
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

/// The text of each page of `pdf` (pdftotext separates pages by form feeds).
fn pdf_text_pages(pdftotext: &Path, pdf: &Path) -> Vec<String> {
    let out = Command::new(pdftotext).arg("-layout").arg(pdf).arg("-").output().unwrap();
    assert!(out.status.success(), "pdftotext {} failed", pdf.display());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut pages: Vec<String> = text.split('\u{c}').map(str::to_string).collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}

/// Prints the letters and labels of `template` to PDF; returns the letters as `notices.csv` lists them and
/// the text of each page of letters.pdf and labels.pdf.
fn printed(label: &str, template: &Template) -> Option<(Vec<Mailed>, Vec<String>, Vec<String>)> {
    let chromium = common::chromium_or_skip(label)?;
    let pdftotext = common::tool_or_skip(label, "pdftotext", "poppler-utils")?;
    let (letters, mailed) = sample_letters(label, template);
    let mut pages = Vec::new();
    for name in ["letters", "labels"] {
        let html = letters.with_file_name(format!("{name}.html"));
        let pdf = html.with_extension("pdf");
        print_to_pdf(&chromium, &html, &pdf).unwrap();
        let bytes = std::fs::read(&pdf).unwrap();
        assert!(bytes.starts_with(b"%PDF"), "{} is not a PDF", pdf.display());
        let text = pdf_text_pages(&pdftotext, &pdf);
        assert_eq!(pdf_pages(&bytes), text.len(), "pdftotext and the page objects of {name}.pdf disagree");
        pages.push(text);
    }
    let labels = pages.pop().unwrap();
    Some((mailed, pages.pop().unwrap(), labels))
}

#[test]
fn printing_gives_one_page_per_letter_and_a_label_sheet_per_thirty() {
    let Some((mailed, letters, labels)) =
        printed("printing_gives_one_page_per_letter", &Template::builtin().unwrap())
    else {
        return;
    };
    // The sample's letters list at most a few items: each fits one page.
    assert_eq!(letters.len(), mailed.len(), "one page per letter: a letter ran over a page, or a blank page");
    for (page, letter) in letters.iter().zip(&mailed) {
        assert!(page.contains(&format!("Notice {} for 2027", letter.number)), "{page}");
        assert!(
            letter.owners.iter().any(|o| page.contains(o.as_str())),
            "{:?} not on its page",
            letter.owners
        );
        assert!(page.contains(&letter.street), "{} not on its page", letter.street);
    }
    assert_eq!(labels.len(), mailed.len().div_ceil(30), "30 labels a sheet");
}

#[test]
fn a_long_letter_runs_onto_more_pages_with_the_owner_on_each_and_the_address_whole() {
    // The built-in template with every item made 4 inches tall: a letter of two or more items cannot fit
    // one page.
    let tall = BUILTIN_TEMPLATE.replace("</style>", ".item > td { height: 4in; }\n</style>");
    let template = Template::parse(&tall, Path::new("tall.html")).unwrap();
    let Some((mailed, pages, _)) = printed("a_long_letter_runs_onto_more_pages", &template) else { return };
    assert!(pages.len() > mailed.len(), "{} pages for {} letters", pages.len(), mailed.len());
    // Every page carries the head of its letter: the notice number and the owner's name.
    let mut at = 0;
    for letter in &mailed {
        let head = format!("Notice {} ·", letter.number);
        let own: Vec<&String> = pages[at..].iter().take_while(|p| p.contains(&head)).collect();
        assert!(!own.is_empty(), "no page of letter {} at page {}", letter.number, at + 1);
        for page in &own {
            assert!(
                letter.owners.iter().any(|o| page.contains(o.as_str())),
                "{:?} missing: {page}",
                letter.owners
            );
        }
        // The address block stands whole on the letter's first page.
        assert!(own[0].contains(&letter.street), "{} not on the first page: {}", letter.street, own[0]);
        // Two items of 4 in, with the letterhead and address, cannot share one 9.8 in high page.
        if letter.owners.len() >= 2 {
            assert!(own.len() >= 2, "letter {} of {} items on one page", letter.number, letter.owners.len());
        }
        at += own.len();
    }
    assert_eq!(at, pages.len(), "pages that belong to no letter");
    assert!(mailed.iter().any(|m| m.owners.len() >= 2), "the sample has a letter of two or more items");
}

#[test]
fn pdf_pages_are_counted_without_the_page_tree() {
    let pdf = b"<< /Type /Pages /Kids [3 0 R 4 0 R] >> << /Type /Page >> <</Type/Page/Parent 2 0 R>>";
    assert_eq!(pdf_pages(pdf), 2);
}

#[test]
fn notices_pdf_writes_the_letters_and_labels_as_pdf() {
    if common::chromium_or_skip("notices_pdf_writes_the_letters_and_labels_as_pdf").is_none() {
        return;
    }
    let dir = common::fresh_dir("notices-pdf");
    let status = Command::new(env!("CARGO_BIN_EXE_lakeshore"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["notices", "--config", "data/sample/county.toml", "--as-of", "2027-01-15", "--year", "2027"])
        .args(["--pdf", "-q", "--out"])
        .arg(&dir)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // The sample has bad records on purpose (exit 2); a file that stopped the run would be 1.
    assert!(matches!(status.code(), Some(0 | 2)), "{status}");
    for name in ["letters.pdf", "labels.pdf"] {
        let pdf = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(pdf.starts_with(b"%PDF") && pdf_pages(&pdf) > 0, "{name} is not a PDF with pages");
    }
    assert!(dir.join("cannot_mail.csv").is_file());
}
