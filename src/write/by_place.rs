//! A text file (CSV, GeoJSON) written from blocks of rows that arrive in any order, each row with its place
//! in the file.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::model::controls::Cleaned;
use crate::model::error::{Error, Result};
use crate::model::table::Table;
use crate::write::sink::{too_many, Order, Place, Sink};
use crate::write::{create_temp, AtomicFile, Staged};

/// How a text format writes one row of a table as its line. The writers are generic over the table, so that
/// a schedule row's cells are rendered without a dynamic call each when the table's type is known.
pub(crate) enum LineFormat {
    /// A CSV line.
    Csv,
    /// A GeoJSON feature.
    GeoJson(Box<super::geojson::FeatureLines>),
}

impl LineFormat {
    /// Appends row `row` of `table`, its line end or separator included.
    fn push_line<T: Table + ?Sized>(&self, out: &mut String, table: &T, row: usize) {
        match self {
            LineFormat::Csv => super::csv::push_row(out, table, row),
            LineFormat::GeoJson(features) => features.push_line(out, table, row),
        }
    }

    /// Appends row `row` of `block`, as [`LineFormat::push_line`], a CSV line checked whole for control
    /// characters ([`super::csv::push_cleaned_row`]); a GeoJSON feature escapes some of them, so it is
    /// rendered through the block.
    fn push_cleaned_line<T: Table + ?Sized>(&self, out: &mut String, block: &Cleaned<'_, T>, row: usize) {
        match self {
            LineFormat::Csv => super::csv::push_cleaned_row(out, block, row),
            LineFormat::GeoJson(features) => features.push_line(out, block, row),
        }
    }
}

/// A text file whose rows arrive in blocks in any order, each row with its place in the file: a header, the
/// lines in order of place, and a footer.
///
/// Each block's lines are rendered on all cores and put in order of place. A block that continues the file
/// (its places follow the last one written, with no gap) goes straight into the output; a parcels layer
/// sorted by id sends every block that way. Once a block comes out of order, it and every block after it are
/// appended to a scratch file beside the output as sorted runs; memory keeps only each place's run and
/// length (8 bytes a place). The rest of the file is then written in order of place, a stretch of it at a
/// time, each stretch read from each run in one piece: a merge of sorted runs, every byte read once. A place
/// is one row of the schedule ([`TextByPlace::add`]), or all the lines of one parcel, none or several, for the
/// obligations ([`TextByPlace::add_places`]).
///
/// A format whose lines are joined by a separator (GeoJSON's `,` between features) renders each line with
/// the separator before it, and the file drops it from the first line written.
pub struct TextByPlace {
    out: AtomicFile,
    lines: LineFormat,
    /// Bytes still to drop from the start of the first line written.
    skip: usize,
    footer: &'static [u8],
    order: Order,
    scratch: Option<Scratch>,
    /// Where each block's lines went: the byte offset of its run in the scratch file, or `None` when they
    /// went straight into the output.
    runs: Vec<Option<u64>>,
    /// For each place in the file: the length of its lines.
    lens: Vec<u32>,
}

/// The scratch file of the blocks that came out of order.
struct Scratch {
    path: PathBuf,
    lines: BufWriter<File>,
    written: u64,
}

impl TextByPlace {
    /// A text file at `path` of `places` places, started under its temporary name with `header`; each line
    /// rendered by `lines`, the first `skip` bytes of the first line dropped, and `footer` at the end.
    pub(crate) fn create(
        path: &Path,
        header: &[u8],
        lines: LineFormat,
        skip: usize,
        footer: &'static [u8],
        places: usize,
    ) -> Result<Self> {
        let mut out = AtomicFile::create(path)?;
        out.write_all(header).map_err(|e| Error::io(path, e))?;
        Ok(TextByPlace {
            out,
            lines,
            skip,
            footer,
            order: Order::new(places),
            scratch: None,
            runs: Vec::new(),
            lens: vec![0; places],
        })
    }

    /// Renders every row of `table`; row `i` goes to place `place(i)` in the file, one row to a place.
    pub fn add<T: Table>(&mut self, table: &T, place: Place<'_>) -> Result<()> {
        let filled: Vec<usize> = (0..table.len()).map(place).collect();
        self.add_places(table, place, &filled)
    }

    /// Renders every row of `table` into the places `filled`: row `i` goes to place `place(i)`, which must
    /// be one of them, after the rows of `table` before it that go to the same place. A place so holds any
    /// number of lines, none included; each place is filled by one call, which fills it whole.
    pub fn add_places<T: Table + ?Sized>(
        &mut self,
        table: &T,
        place: Place<'_>,
        filled: &[usize],
    ) -> Result<()> {
        self.add_rendered(table.len(), place, filled, |lines, out, row| lines.push_line(out, table, row))
    }

    /// [`TextByPlace::add_places`] for a block [`Cleaned`] of control characters: a format that puts the
    /// characters of text cells into its line as they are (CSV) renders the line from the table the block
    /// cleans and checks the whole line once, and goes through the block cell by cell only for a line that
    /// holds one.
    pub fn add_cleaned<T: Table + ?Sized>(
        &mut self,
        block: &Cleaned<'_, T>,
        place: Place<'_>,
        filled: &[usize],
    ) -> Result<()> {
        self.add_rendered(block.len(), place, filled, |lines, out, row| {
            lines.push_cleaned_line(out, block, row)
        })
    }

    /// Renders `rows` rows by `render` (row `i` appended to a string by the file's line format) into the
    /// places `filled`, as [`TextByPlace::add_places`] says.
    fn add_rendered(
        &mut self,
        rows: usize,
        place: Place<'_>,
        filled: &[usize],
        render: impl Fn(&LineFormat, &mut String, usize) + Sync,
    ) -> Result<()> {
        const PIECE: usize = 4096;
        let path = self.out.path().to_path_buf();
        let claim = self.order.claim(&path, filled)?;
        let lines = &self.lines;
        let pieces: Vec<RenderedPiece> = (0..rows)
            .step_by(PIECE)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|start| {
                let mut out = String::with_capacity(PIECE * 320);
                let mut spans = Vec::with_capacity(PIECE);
                for row in start..(start + PIECE).min(rows) {
                    let from = out.len();
                    render(lines, &mut out, row);
                    spans.push((place(row), from, out.len()));
                }
                (out, spans)
            })
            .collect();
        let mut order: Vec<(usize, usize, usize, usize)> = pieces
            .iter()
            .enumerate()
            .flat_map(|(piece, (_, lines))| lines.iter().map(move |&(at, from, to)| (at, piece, from, to)))
            .collect();
        // By place, and within a place in the order of the table's rows.
        order.par_sort_unstable_by_key(|&(at, piece, from, _)| (at, piece, from));
        let mut into: Box<dyn Write + '_> = if claim.continues {
            self.runs.push(None);
            Box::new(Skipping { out: &mut self.out, skip: &mut self.skip })
        } else {
            let scratch = match self.scratch.take() {
                Some(scratch) => scratch,
                None => Scratch::create(&path)?,
            };
            let scratch = self.scratch.insert(scratch);
            self.runs.push(Some(scratch.written));
            Box::new(scratch)
        };
        for (at, piece, from, to) in order {
            let line = &pieces[piece].0.as_bytes()[from..to];
            self.order.check(&path, claim, at)?;
            let len = u32::try_from(line.len()).map_err(|_| Error::io(&path, too_many()))?;
            let slot = &mut self.lens[at];
            *slot = slot.checked_add(len).ok_or_else(|| Error::io(&path, too_many()))?;
            into.write_all(line).map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }

    /// Writes the file: the lines of the blocks that came out of order, in order of place, after those
    /// already written, and the footer; it then replaces its path. A place no row went to is a bug in the
    /// caller, and an error rather than a short file.
    pub fn write(self) -> Result<()> {
        self.close_in_stretches_of(STRETCH)?.commit()
    }

    /// Completes the file under its temporary name, the blocks that came out of order merged in stretches of
    /// about `bytes` bytes.
    ///
    /// Every place's length is known by now, so so is where each stretch of places (a few MiB of lines)
    /// starts in every run. A few stretches at a time are gathered on all cores, each with one read per run,
    /// and appended in order while the next few are gathered: one file is written by one thread, as the file
    /// system serialises writes to it.
    fn close_in_stretches_of(mut self, bytes: u64) -> Result<Staged> {
        let path = self.out.path().to_path_buf();
        self.order.check_complete(&path)?;
        let stretches = self.stretches(bytes).map_err(|e| Error::io(&path, e))?;
        if let Some(scratch) = &mut self.scratch {
            scratch.lines.flush().map_err(|e| Error::io(&scratch.path, e))?;
            let (order, lens) = (&self.order, &self.lens);
            let gather = |group: &[Stretch]| -> Result<Vec<Vec<u8>>> {
                let texts = group.par_iter().map(|stretch| stretch.gather(&scratch.path, order, lens));
                texts.collect::<std::io::Result<_>>().map_err(|e| Error::io(&scratch.path, e))
            };
            let mut out = Skipping { out: &mut self.out, skip: &mut self.skip };
            let mut groups = stretches.chunks(2 * rayon::current_num_threads());
            let mut next = groups.next().map(gather);
            // Each group is written while the next is gathered.
            while let Some(texts) = next.take().transpose()? {
                let (gathered, written) = rayon::join(
                    || groups.next().map(gather),
                    || texts.iter().try_for_each(|text| out.write_all(text)),
                );
                written.map_err(|e| Error::io(&path, e))?;
                next = gathered;
            }
        }
        self.out.write_all(self.footer).map_err(|e| Error::io(&path, e))?;
        self.out.close()
    }

    /// The places not yet written, cut into stretches of about `size` bytes.
    fn stretches(&self, size: u64) -> std::io::Result<Vec<Stretch>> {
        let mut cursors: Vec<u64> = self.runs.iter().map(|start| start.unwrap_or(u64::MAX)).collect();
        let mut stretches = Vec::new();
        let (mut current, mut held): (Option<Stretch>, u64) = (None, 0);
        for place in self.order.through()..self.order.len() {
            let (run, len) = (self.order.block_of(place).unwrap_or(u32::MAX), self.lens[place]);
            let stretch = current.get_or_insert_with(|| Stretch {
                places: place..place,
                runs: cursors.iter().map(|&start| (start, 0)).collect(),
            });
            let Some(bytes) = stretch
                .runs
                .get_mut(run as usize)
                .filter(|(start, _)| *start != u64::MAX)
                .map(|(_, bytes)| bytes)
            else {
                let never = format!("row {} of the file was never rendered", place + 1);
                return Err(std::io::Error::other(never));
            };
            *bytes += u64::from(len);
            cursors[run as usize] += u64::from(len);
            stretch.places.end = place + 1;
            held += u64::from(len);
            if held >= size {
                stretches.extend(current.take());
                held = 0;
            }
        }
        stretches.extend(current);
        Ok(stretches)
    }
}

impl Sink for TextByPlace {
    fn add(&mut self, block: &dyn Table, place: Place<'_>, filled: &[usize]) -> Result<()> {
        self.add_places(block, place, filled)
    }

    fn finish(self: Box<Self>) -> Result<Staged> {
        self.close_in_stretches_of(STRETCH)
    }
}

/// The output file, dropping the first `skip` bytes written to it (the separator before the first line).
struct Skipping<'a> {
    out: &'a mut AtomicFile,
    skip: &'a mut usize,
}

impl Write for Skipping<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let dropped = (*self.skip).min(buf.len());
        *self.skip -= dropped;
        if dropped == buf.len() {
            return Ok(buf.len());
        }
        self.out.write(&buf[dropped..]).map(|n| n + dropped)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The bytes of lines a stretch of the merged file holds, about.
const STRETCH: u64 = 4 << 20;

/// Consecutive places of a [`TextByPlace`], gathered together: where each run's lines for them start in the
/// scratch file and how many bytes they take (a run's lines for consecutive places are consecutive).
struct Stretch {
    places: std::ops::Range<usize>,
    runs: Vec<(u64, u64)>,
}

impl Stretch {
    /// The stretch's lines in order of place, read from the scratch file at `lines` (opened for the stretch:
    /// stretches are read on several threads at once).
    fn gather(&self, lines: &Path, order: &Order, lens: &[u32]) -> std::io::Result<Vec<u8>> {
        let mut lines = File::open(lines)?;
        let mut read: Vec<(Vec<u8>, usize)> = Vec::with_capacity(self.runs.len());
        // A run that went straight into the output has no lines here: its byte count is 0.
        for &(start, bytes) in &self.runs {
            let mut text = vec![0; bytes as usize];
            if !text.is_empty() {
                lines.seek(SeekFrom::Start(start))?;
                lines.read_exact(&mut text)?;
            }
            read.push((text, 0));
        }
        let mut out = Vec::with_capacity(read.iter().map(|(text, _)| text.len()).sum());
        for place in self.places.clone() {
            let (run, len) = (order.block_of(place).unwrap_or(u32::MAX), lens[place]);
            let Some((text, from)) = read.get_mut(run as usize) else { continue };
            out.extend_from_slice(&text[*from..*from + len as usize]);
            *from += len as usize;
        }
        Ok(out)
    }
}

impl Scratch {
    /// The scratch file beside the output `path`.
    fn create(path: &Path) -> Result<Self> {
        let (path, file) = create_temp(path, "lines")?;
        Ok(Scratch { path, lines: BufWriter::with_capacity(1 << 20, file), written: 0 })
    }
}

impl Write for Scratch {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.lines.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.lines.flush()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Lines rendered together: their text, and each line's place in the file and its span in the text.
type RenderedPiece = (String, Vec<(usize, usize, usize)>);

#[cfg(test)]
mod tests {
    use geo::MultiPolygon;

    use super::*;
    use crate::model::table::{Cell, Kind};

    /// Two columns: a name, and a note that needs quoting.
    struct Names(&'static [(&'static str, &'static str)]);

    impl Table for Names {
        fn columns(&self) -> &[(&'static str, Kind)] {
            &[("name", Kind::Text), ("note", Kind::Text)]
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn cell(&self, row: usize, column: usize) -> Cell<'_> {
            let (name, note) = self.0[row];
            Cell::Text([name, note][column].into())
        }
        fn geometry(&self, _: usize) -> Option<&MultiPolygon<f64>> {
            None
        }
    }

    fn dir(label: &str) -> PathBuf {
        let dir = crate::scratch::root().join(format!("by-place-{label}"));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn blocks_in_any_order_make_the_file_in_order_of_place() {
        let dir = dir("order");
        let path = dir.join("out.csv");
        let mut csv = TextByPlace::csv(&path, Names(&[]).columns(), 5).unwrap();
        // Places 4, 1 and 3 in the first block, 0 and 2 in the second.
        csv.add(&Names(&[("e", "five"), ("b", "two, with a comma"), ("d", "four")]), &|i| [4, 1, 3][i])
            .unwrap();
        csv.add(&Names(&[("a", "one"), ("c", "three \"quoted\"")]), &|i| [0, 2][i]).unwrap();
        csv.write().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "name,note\na,one\nb,\"two, with a comma\"\nc,\"three \"\"quoted\"\"\"\nd,four\ne,five\n"
        );
        let left: Vec<_> =
            std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("out.csv")], "the scratch file is removed");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The names of the files in `dir`, sorted.
    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn blocks_that_continue_the_file_go_straight_into_it() {
        let dir = dir("straight");
        let path = dir.join("out.csv");
        let mut csv = TextByPlace::csv(&path, Names(&[]).columns(), 5).unwrap();
        // Places 1 and 0, then 2 to 4 in another order: each block starts where the file stands.
        csv.add(&Names(&[("b", "two"), ("a", "one")]), &|i| [1, 0][i]).unwrap();
        csv.add(&Names(&[("e", "five"), ("c", "three"), ("d", "four")]), &|i| [4, 2, 3][i]).unwrap();
        let scratch = files(&dir).into_iter().filter(|n| n.contains(".lines-")).count();
        assert_eq!(scratch, 0, "no scratch file is made: {:?}", files(&dir));
        csv.write().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "name,note\na,one\nb,two\nc,three\nd,four\ne,five\n"
        );
        assert_eq!(files(&dir), ["out.csv"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_block_out_of_order_sends_it_and_the_rest_through_the_scratch_file() {
        // Every way of cutting the merge into stretches, down to a line each, gives the same file.
        for stretch in [1, 7, 12, 1 << 20] {
            let dir = dir(&format!("mixed-{stretch}"));
            let path = dir.join("out.csv");
            let mut csv = TextByPlace::csv(&path, Names(&[]).columns(), 7).unwrap();
            // Places 0 and 1 continue the file; 5 and 3 leave a gap, and so go to the scratch file with all
            // that follows, even 2 and 4, which would have continued it; 6 comes last.
            csv.add(&Names(&[("a", "one"), ("b", "two")]), &|i| i).unwrap();
            csv.add(&Names(&[("f", "six"), ("d", "four, quoted")]), &|i| [5, 3][i]).unwrap();
            assert_eq!(files(&dir).iter().filter(|n| n.contains(".lines-")).count(), 1);
            csv.add(&Names(&[("c", "three"), ("e", "five")]), &|i| [2, 4][i]).unwrap();
            csv.add(&Names(&[("g", "seven")]), &|_| 6).unwrap();
            csv.close_in_stretches_of(stretch).unwrap().commit().unwrap();
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                "name,note\na,one\nb,two\nc,three\nd,\"four, quoted\"\ne,five\nf,six\ng,seven\n",
                "stretches of {stretch} bytes"
            );
            assert_eq!(files(&dir), ["out.csv"], "the scratch and temporary files are gone");
            std::fs::remove_dir_all(&dir).ok();
        }
    }

    #[test]
    fn a_place_holds_its_lines_in_the_order_of_the_table_or_none() {
        let dir = dir("grouped");
        let path = dir.join("out.csv");
        let mut csv = TextByPlace::csv(&path, Names(&[]).columns(), 4).unwrap();
        // Place 2 gets three lines, place 0 none; place 3 one, place 1 two, in another block.
        let first = Names(&[("c1", "x"), ("c2", "y"), ("c3", "z")]);
        csv.add_places(&first, &|_| 2, &[0, 2]).unwrap();
        let second = Names(&[("d", "w"), ("b1", "u"), ("b2", "v")]);
        csv.add_places(&second, &|i| [3, 1, 1][i], &[3, 1]).unwrap();
        // A place filled already, or a line sent to a place not filled, is refused.
        assert!(csv.add_places(&Names(&[]), &|_| 0, &[2]).is_err());
        assert!(csv.add_places(&Names(&[("e", "")]), &|_| 0, &[]).is_err());
        csv.write().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "name,note\nb1,u\nb2,v\nc1,x\nc2,y\nc3,z\nd,w\n");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_place_no_row_went_to_is_an_error_not_a_short_file() {
        let dir = dir("gap");
        let path = dir.join("out.csv");
        let mut csv = TextByPlace::csv(&path, Names(&[]).columns(), 3).unwrap();
        csv.add(&Names(&[("a", "one"), ("c", "three")]), &|i| [0, 2][i]).unwrap();
        let error = csv.write().expect_err("place 1 was never filled");
        assert!(error.to_string().contains("row 2 of the file was never rendered"), "{error}");
        assert!(!path.exists(), "no partial file is left under the output's name");
        let left = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(left, 0, "neither a temporary nor a scratch file is left");
        std::fs::remove_dir_all(&dir).ok();
    }
}
