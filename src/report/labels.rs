//! Mailing labels for the year's notices (`labels.html`): one label per letter (per owner mailing address) on Avery 5160 sheets (US Letter,
//! 3 × 10 labels of 2⅝ × 1 in), positioned with CSS in inches for a browser to print at 100 %. A line too
//! long for a label wraps at its spaces, and the type shrinks from 10 pt down to 6 pt until the lines fit
//! ([`LabelSheet::fit`]): nothing is cut short.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::model::error::{Error, Result};
use crate::report::letters::{escape_html, NO_OWNER};
use crate::report::notices::{city_line, Notices};
use crate::write::write_atomic;

/// A sheet of mailing labels: US Letter, labels in a grid, sizes in inches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelSheet {
    /// Labels across.
    pub columns: usize,
    /// Labels down.
    pub rows: usize,
    /// Width of a label.
    pub width_in: f64,
    /// Height of a label.
    pub height_in: f64,
    /// From the top edge of the sheet to the first row.
    pub top_margin_in: f64,
    /// From the left edge of the sheet to the first column.
    pub side_margin_in: f64,
    /// Between columns.
    pub column_gap_in: f64,
    /// Between rows.
    pub row_gap_in: f64,
}

/// Avery 5160 (and its equivalents 5260, 8160...): 30 address labels, 3 across and 10 down, each 2 5/8 in
/// by 1 in, on US Letter.
pub const AVERY_5160: LabelSheet = LabelSheet {
    columns: 3,
    rows: 10,
    width_in: 2.625,
    height_in: 1.0,
    top_margin_in: 0.5,
    side_margin_in: 0.1875,
    column_gap_in: 0.125,
    row_gap_in: 0.0,
};

/// Where a label goes: its sheet (0-based) and its top-left corner on the sheet, in inches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelPosition {
    /// The sheet, from 0.
    pub sheet: usize,
    /// From the sheet's left edge.
    pub left_in: f64,
    /// From the sheet's top edge.
    pub top_in: f64,
}

/// The room inside a label for its text: the label less its padding on each side, in inches.
pub const LABEL_PADDING_IN: (f64, f64) = (0.18, 0.14);

/// The type sizes a label may shrink to, points, largest first.
pub const LABEL_SIZES_PT: &[f64] = &[10.0, 9.0, 8.0, 7.0, 6.0];

/// The line height, as a multiple of the type size.
const LINE_HEIGHT: f64 = 1.25;

/// The width of a character on average, as a multiple of the type size: generous for Arial's capitals
/// (owners' names are often all capitals), so that a line estimated to fit does fit.
const CHAR_WIDTH: f64 = 0.66;

/// How a label's lines fit: the type size and the lines wrapped to the label's width.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelFit {
    /// The type size, points.
    pub size_pt: f64,
    /// The lines as printed: each given line, wrapped at spaces (or, a word longer than a line, within it).
    pub lines: Vec<String>,
}

/// `line` wrapped into lines of at most `width` characters: at spaces, and a word longer than a line cut
/// into pieces of `width` characters. No character is dropped but the spaces lines break at.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in line.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        let used = current.chars().count();
        if used > 0 && used + 1 + word.len() <= width {
            current.push(' ');
            current.extend(&word);
            continue;
        }
        if used > 0 {
            out.push(std::mem::take(&mut current));
        }
        while word.len() > width {
            out.push(word.drain(..width).collect());
        }
        current.extend(&word);
    }
    if !current.is_empty() || out.is_empty() {
        out.push(current);
    }
    out
}

impl LabelSheet {
    /// How `lines` fit on a label of this sheet: at the largest of [`LABEL_SIZES_PT`] at which, wrapped to
    /// the label's width, they fit its height; at the smallest, wrapped, when none does (every character is
    /// still printed, the last lines running past the label's foot rather than cut).
    pub fn fit(&self, lines: &[String]) -> LabelFit {
        let (width_pt, height_pt) = (
            (self.width_in - 2.0 * LABEL_PADDING_IN.0) * 72.0,
            (self.height_in - 2.0 * LABEL_PADDING_IN.1) * 72.0,
        );
        let at = |size_pt: f64| {
            let chars = (width_pt / (size_pt * CHAR_WIDTH)).floor() as usize;
            let wrapped: Vec<String> = lines.iter().flat_map(|l| wrap(l, chars)).collect();
            let rows = (height_pt / (size_pt * LINE_HEIGHT)).floor() as usize;
            (LabelFit { size_pt, lines: wrapped.clone() }, wrapped.len() <= rows)
        };
        let mut last = None;
        for &size in LABEL_SIZES_PT {
            let (fit, fits) = at(size);
            if fits {
                return fit;
            }
            last = Some(fit);
        }
        last.unwrap_or_else(|| LabelFit { size_pt: LABEL_SIZES_PT[0], lines: lines.to_vec() })
    }

    /// Labels per sheet.
    pub fn per_sheet(&self) -> usize {
        self.columns * self.rows
    }

    /// The position of label `i` (from 0), filling each sheet row by row.
    pub fn position(&self, i: usize) -> LabelPosition {
        let on_sheet = i % self.per_sheet();
        let (row, column) = (on_sheet / self.columns, on_sheet % self.columns);
        LabelPosition {
            sheet: i / self.per_sheet(),
            left_in: self.side_margin_in + column as f64 * (self.width_in + self.column_gap_in),
            top_in: self.top_margin_in + row as f64 * (self.height_in + self.row_gap_in),
        }
    }
}

/// Writes the mailing labels of `notices` (one per letter, in letter order) on `sheet`s to `out`.
pub fn render_labels(notices: &Notices, sheet: &LabelSheet, out: &mut dyn Write) -> std::io::Result<()> {
    let mut buffer = String::new();
    buffer.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    escape_html(&notices.rules().jurisdiction.name, &mut buffer);
    buffer.push_str(&format!(": mailing labels for the {} notices</title>\n", notices.year()));
    buffer.push_str(&format!(
        "<style>
  @page {{ size: Letter; margin: 0; }}
  html, body {{ margin: 0; padding: 0; }}
  body {{ font: 10pt/1.25 \"Liberation Sans\", Arial, Helvetica, sans-serif; color: #000; }}
  .sheet {{ position: relative; width: 8.5in; height: 11in; overflow: hidden; page-break-after: always; break-after: page; }}
  .sheet:last-of-type {{ page-break-after: auto; break-after: auto; }}
  .label {{ position: absolute; width: {w}in; height: {h}in; box-sizing: border-box; padding: {py}in {px}in; line-height: {lh}; }}
  .label div {{ white-space: nowrap; }}
  @media screen {{
    body {{ background: #ccc; }}
    .sheet {{ background: #fff; margin: 0 auto 0.25in; }}
    .label {{ outline: 1px dashed #bbb; }}
  }}
</style>
</head>
<body>
",
        w = sheet.width_in,
        h = sheet.height_in,
        px = LABEL_PADDING_IN.0,
        py = LABEL_PADDING_IN.1,
        lh = LINE_HEIGHT,
    ));
    for (i, letter) in notices.batch.letters.iter().enumerate() {
        let at = sheet.position(i);
        if i % sheet.per_sheet() == 0 {
            if i > 0 {
                buffer.push_str("</div>\n");
            }
            buffer.push_str(&format!("<div class=\"sheet\" id=\"sheet-{}\">\n", at.sheet + 1));
        }
        let fit = sheet.fit(&[
            letter.owner.clone().unwrap_or_else(|| NO_OWNER.to_string()),
            letter.street.clone(),
            city_line(letter.city.as_deref(), letter.state.as_deref(), letter.zip.as_deref()),
        ]);
        buffer.push_str(&format!(
            "<div class=\"label\" style=\"left: {}in; top: {}in; font-size: {}pt\">",
            at.left_in, at.top_in, fit.size_pt
        ));
        for line in &fit.lines {
            buffer.push_str("<div>");
            escape_html(line, &mut buffer);
            buffer.push_str("</div>");
        }
        buffer.push_str("</div>\n");
        out.write_all(buffer.as_bytes())?;
        buffer.clear();
    }
    if notices.letter_count() > 0 {
        buffer.push_str("</div>\n");
    }
    buffer.push_str("</body>\n</html>\n");
    out.write_all(buffer.as_bytes())
}

/// Writes `<dir>/labels.html`: the mailing labels of `notices` on Avery 5160 sheets; returns its path.
pub fn write_labels(notices: &Notices, dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join("labels.html");
    write_atomic(&path, |out| render_labels(notices, &AVERY_5160, out))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avery_5160_geometry() {
        let s = AVERY_5160;
        assert_eq!(s.per_sheet(), 30);
        // The labels and gaps fill the 8.5 x 11 in sheet exactly, with equal margins on both sides.
        let across = 2.0 * s.side_margin_in + 3.0 * s.width_in + 2.0 * s.column_gap_in;
        assert_eq!(across, 8.5);
        assert_eq!(2.0 * s.top_margin_in + 10.0 * s.height_in, 11.0);
        let at = |i| {
            let p = s.position(i);
            (p.sheet, p.left_in, p.top_in)
        };
        assert_eq!(at(0), (0, 0.1875, 0.5));
        assert_eq!(at(1), (0, 2.9375, 0.5));
        assert_eq!(at(2), (0, 5.6875, 0.5));
        assert_eq!(at(3), (0, 0.1875, 1.5));
        assert_eq!(at(29), (0, 5.6875, 9.5));
        assert_eq!(at(30), (1, 0.1875, 0.5));
        assert_eq!(at(61), (2, 2.9375, 0.5));
        // The last label ends where the bottom margin begins, the last column where the side margin does.
        assert_eq!(at(29).2 + s.height_in, 11.0 - s.top_margin_in);
        assert_eq!(at(29).1 + s.width_in, 8.5 - s.side_margin_in);
    }

    fn lines(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_within_words_too_long() {
        assert_eq!(wrap("ABCDEFGHIJ KLMNOPQRST UVWXYZ", 24), ["ABCDEFGHIJ KLMNOPQRST", "UVWXYZ"]);
        assert_eq!(wrap("ABCDEFGHIJKL MN", 5), ["ABCDE", "FGHIJ", "KL MN"]);
        assert_eq!(wrap("", 5), [""]);
    }

    #[test]
    fn a_short_label_keeps_its_size_and_lines() {
        // Inside the padding a 5160 label is 2.265 in (163.08 pt) by 0.72 in (51.84 pt); at 10 pt a line
        // holds 163.08 / 6.6 = 24 characters and the label 51.84 / 12.5 = 4 lines.
        let short = lines(&["OKONJO JOHN", "12 N Lake St", "Auburn, NY 13021"]);
        assert_eq!(AVERY_5160.fit(&short), LabelFit { size_pt: 10.0, lines: short.clone() });
        // 28 characters wrap at 24 into two lines: four lines still fit at 10 pt.
        let wrapped =
            AVERY_5160.fit(&lines(&["ABCDEFGHIJ KLMNOPQRST UVWXYZ", "1 Main St", "Auburn, NY 13021"]));
        assert_eq!(wrapped.size_pt, 10.0);
        assert_eq!(wrapped.lines, ["ABCDEFGHIJ KLMNOPQRST", "UVWXYZ", "1 Main St", "Auburn, NY 13021"]);
    }

    #[test]
    fn a_long_owner_and_street_shrink_and_wrap_never_cut() {
        let owner = "FITZWILLIAM-SANTISTEVAN BARTHOLOMEW & MARGARETHE REVOCABLE TRUST"; // 63 characters
        let street = "12345 West Lake Road Extension Apt 4B"; // 37 characters
        let fit = AVERY_5160.fit(&lines(&[owner, street, "Moravia, NY 13118"]));
        // 10 and 9 pt hold 24 and 27 characters a line and 4 lines: too few. 8 pt holds
        // 163.08 / 5.28 = 30 characters and 51.84 / 10 = 5 lines: the owner takes 3 lines (words of 23, 21
        // and 17 characters), the street 2 (30, 6), the city line 1: six lines, too many. 7 pt holds
        // 163.08 / 4.62 = 35 characters and 51.84 / 8.75 = 5 lines: owner 2 (35, 27), street 2 (34, 2),
        // city 1: five lines, which fit.
        assert_eq!(fit.size_pt, 7.0);
        assert_eq!(
            fit.lines,
            [
                "FITZWILLIAM-SANTISTEVAN BARTHOLOMEW",
                "& MARGARETHE REVOCABLE TRUST",
                "12345 West Lake Road Extension Apt",
                "4B",
                "Moravia, NY 13118",
            ]
        );
        // Every word is printed, none cut with an ellipsis.
        assert_eq!(fit.lines.join(" "), format!("{owner} {street} Moravia, NY 13118"));
    }
}
