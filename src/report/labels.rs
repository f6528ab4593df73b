//! Mailing labels for the year's notices (`labels.html`): one label per letter (per owner mailing address) on Avery 5160 sheets (US Letter,
//! 3 × 10 labels of 2⅝ × 1 in), positioned with CSS in inches for a browser to print at 100 %.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::formats::write::write_atomic;
use crate::model::error::{Error, Result};
use crate::report::letters::{escape_html, NO_OWNER};
use crate::report::notices::{city_line, Notices};

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

impl LabelSheet {
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
  .label {{ position: absolute; width: {w}in; height: {h}in; box-sizing: border-box; padding: 0.14in 0.18in; overflow: hidden; }}
  .label div {{ white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }}
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
    ));
    for (i, letter) in notices.batch.letters.iter().enumerate() {
        let at = sheet.position(i);
        if i % sheet.per_sheet() == 0 {
            if i > 0 {
                buffer.push_str("</div>\n");
            }
            buffer.push_str(&format!("<div class=\"sheet\" id=\"sheet-{}\">\n", at.sheet + 1));
        }
        buffer.push_str(&format!(
            "<div class=\"label\" style=\"left: {}in; top: {}in\">",
            at.left_in, at.top_in
        ));
        for line in [
            letter.owner.clone().unwrap_or_else(|| NO_OWNER.to_string()),
            letter.street.clone(),
            city_line(letter.city.as_deref(), letter.state.as_deref(), letter.zip.as_deref()),
        ] {
            buffer.push_str("<div>");
            escape_html(&line, &mut buffer);
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
}
