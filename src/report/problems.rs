//! The problems of a run as a table (`problems.csv`): file, record, message, sorted, each once.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use geo::MultiPolygon;

use super::{OutputFormat, TableFiles};
use crate::crs::Crs;
use crate::model::error::{Problem, Result};
use crate::model::table::{Cell, Kind, Table};
use crate::pipeline::Problems;
use crate::write::commit_all;

/// Problems viewed as a [`Table`].
pub struct ProblemTable<'a>(pub &'a [Problem]);

const COLUMNS: &[(&str, Kind)] = &[("file", Kind::Text), ("record", Kind::Text), ("problem", Kind::Text)];

impl Table for ProblemTable<'_> {
    fn columns(&self) -> &[(&'static str, Kind)] {
        COLUMNS
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let p = &self.0[row];
        match column {
            0 => Cell::Text(p.path.to_string_lossy()),
            1 => Cell::Text(Cow::Owned(p.location.to_string())),
            _ => Cell::Text(Cow::Borrowed(&p.message)),
        }
    }

    fn geometry(&self, _: usize) -> Option<&MultiPolygon<f64>> {
        None
    }
}

/// What [`write_problems`] wrote.
pub struct Written {
    /// `problems.csv`.
    pub files: Vec<PathBuf>,
    /// How many problems it holds.
    pub count: usize,
    /// Its first `shown` problems, for the terminal.
    pub first: Vec<Problem>,
}

/// Problems written to `problems.csv` a block at a time.
const BLOCK: usize = 4096;

/// Writes `problems.csv` in `dir` from `problems`, read back in order a block at a time (never all in
/// memory), and keeps the first `shown` of them. The control characters the problems' text held are
/// cleaned as in every table, and not reported again.
pub fn write_problems(problems: &Problems, dir: &Path, crs: &Crs, shown: usize) -> Result<Written> {
    let count = problems.count()?;
    let formats = [OutputFormat::Csv];
    let mut files = TableFiles::new(dir, "problems", &formats, crs, COLUMNS, None)?;
    let (mut block, mut first, mut done) = (Vec::with_capacity(BLOCK.min(count)), Vec::new(), 0);
    let mut add = |block: &mut Vec<Problem>, files: &mut TableFiles| {
        let filled: Vec<usize> = (done..done + block.len()).collect();
        files.add(count, &ProblemTable(block), &|i| done + i, &filled)?;
        done += block.len();
        block.clear();
        Ok(())
    };
    problems.sorted(&mut |problem| {
        if first.len() < shown {
            first.push(problem.clone());
        }
        block.push(problem);
        match block.len() == BLOCK {
            true => add(&mut block, &mut files),
            false => Ok(()),
        }
    })?;
    add(&mut block, &mut files)?;
    let (staged, _) = files.finish()?;
    Ok(Written { files: commit_all(staged)?, count, first })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::error::Location;

    /// `problems.csv` written from problems spilled a few at a time is the file the whole sorted table gives,
    /// control characters cleaned the same way, repeats once; the first `shown` are the first in order.
    #[test]
    fn problems_spilled_write_the_file_the_whole_table_writes() {
        let dir = crate::scratch::root().join("problems-spilled");
        let _ = std::fs::remove_dir_all(&dir);
        let crs = Crs::parse("EPSG:2261").unwrap();
        let mut all: Vec<Problem> = (0..3 * BLOCK + 17)
            .map(|i| {
                let file = ["b.csv", "a.shp", "c.xlsx:Log"][i % 3];
                let message = format!("problem {}, with \"quotes\" and a bell \u{7} {}", i % 1000, i % 7);
                Problem::new(file, Location::Record(i * 7919 % 5000 + 1), message)
            })
            .collect();
        all.push(all[5].clone());
        let mut spilled = Problems::with_budget(10_000);
        spilled.extend(all.iter().cloned());
        let written = write_problems(&spilled, &dir.join("spilled"), &crs, 3).unwrap();

        let mut whole = all.clone();
        Problem::sort_unique(&mut whole);
        let formats = [OutputFormat::Csv];
        super::super::write_table(&ProblemTable(&whole), &dir.join("whole"), "problems", &formats, &crs)
            .unwrap();
        let read = |folder: &str| std::fs::read(dir.join(folder).join("problems.csv")).unwrap();
        assert!(read("spilled") == read("whole"), "the files differ (both in {})", dir.display());
        assert_eq!(written.files, [dir.join("spilled/problems.csv")]);
        assert_eq!((written.count, &written.first[..]), (whole.len(), &whole[..3]));
        assert_eq!(whole.len(), all.len() - 1, "the repeat is written once");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
