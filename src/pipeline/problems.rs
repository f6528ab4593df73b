//! The problems of a run, kept in bounded memory: four megabytes of them in memory, the rest spilled to a
//! scratch file as sorted runs, and read back merged, in order and each once, when `problems.csv` is
//! written. A county whose every parcel is bad so takes the memory of a clean one.
//!
//! Problems come from every stage in any order (the readers, the blocks of parcels, the record files, the
//! writers); they are told in the order of [`Problem`] (file, location, message) with repeats dropped, as a
//! sort of them all would give.

use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::model::error::{Error, Location, Problem, Result};

/// The problems of a run: added in any order, read back sorted and each once ([`Problems::sorted`]).
#[derive(Debug)]
pub struct Problems {
    /// Problems not yet spilled.
    held: Vec<Problem>,
    /// About how many bytes `held` takes.
    held_bytes: usize,
    /// How many bytes of problems are held before they are spilled.
    budget: usize,
    /// The scratch file of the spilled runs, made at the first spill.
    spill: Option<Spill>,
    /// How many problems were added (repeats included).
    added: usize,
    /// The first error of writing the scratch file, told when the problems are read: its kind and text.
    failed: Option<(std::io::ErrorKind, String)>,
    /// How many problems there are, each once, since last counted ([`NOT_COUNTED`] after a push).
    counted: AtomicUsize,
}

/// What [`Problems::counted`] holds when the problems were not counted since the last was added.
const NOT_COUNTED: usize = usize::MAX;

/// The scratch file of spilled runs: each run a sorted stretch of the file, from `runs[i]` to the next.
#[derive(Debug)]
struct Spill {
    path: PathBuf,
    out: BufWriter<File>,
    /// Where each run starts; the last ends at `end`.
    runs: Vec<u64>,
    end: u64,
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The bytes of problems held in memory before they are spilled.
const BUDGET: usize = 4 << 20;

impl Default for Problems {
    fn default() -> Self {
        Problems::with_budget(BUDGET)
    }
}

impl Problems {
    /// No problems yet.
    pub fn new() -> Self {
        Problems::default()
    }

    /// No problems yet, about `bytes` of them held in memory before they are spilled (the tests spill often).
    pub fn with_budget(bytes: usize) -> Self {
        let counted = AtomicUsize::new(0);
        Problems {
            held: Vec::new(),
            held_bytes: 0,
            budget: bytes,
            spill: None,
            added: 0,
            failed: None,
            counted,
        }
    }

    /// Adds a problem.
    pub fn push(&mut self, problem: Problem) {
        self.held_bytes += held_size(&problem);
        self.held.push(problem);
        self.added += 1;
        *self.counted.get_mut() = NOT_COUNTED;
        if self.held_bytes >= self.budget {
            if let Err(e) = self.spill_held() {
                self.failed.get_or_insert((e.kind(), e.to_string()));
            }
        }
    }

    /// Whether no problem was added.
    pub fn is_empty(&self) -> bool {
        self.added == 0
    }

    /// How many problems were added, repeats included.
    pub fn added(&self) -> usize {
        self.added
    }

    /// Writes the held problems, sorted, as a run of the scratch file.
    fn spill_held(&mut self) -> std::io::Result<()> {
        Problem::sort_unique(&mut self.held);
        let spill = match &mut self.spill {
            Some(spill) => spill,
            None => self.spill.insert(Spill::create().map_err(std::io::Error::other)?),
        };
        spill.runs.push(spill.end);
        let mut previous: Option<&Path> = None;
        let mut bytes = Vec::new();
        for problem in &self.held {
            bytes.clear();
            encode(problem, previous, &mut bytes);
            previous = Some(&problem.path);
            spill.out.write_all(&bytes)?;
            spill.end += bytes.len() as u64;
        }
        // Flushed, so that the runs can be read back through a shared reference.
        spill.out.flush()?;
        self.held.clear();
        self.held_bytes = 0;
        Ok(())
    }

    /// Calls `each` with every problem, in order, each once; stops at its first error.
    pub fn sorted(&self, each: &mut dyn FnMut(Problem) -> Result<()>) -> Result<()> {
        let scratch = || self.spill.as_ref().map_or_else(std::env::temp_dir, |s| s.path.clone());
        if let Some((kind, text)) = &self.failed {
            let told = format!("cannot set problems aside in a scratch file: {text}");
            return Err(Error::io(scratch(), std::io::Error::new(*kind, told)));
        }
        // The held problems are one more run, in memory, put in order in a copy (a few megabytes).
        let mut held = self.held.clone();
        Problem::sort_unique(&mut held);
        let Some(spill) = &self.spill else {
            return held.into_iter().try_for_each(each);
        };
        let ends = spill.runs.iter().skip(1).copied().chain([spill.end]);
        let mut runs: Vec<SpilledRun> = Vec::with_capacity(spill.runs.len());
        for (start, end) in spill.runs.iter().copied().zip(ends) {
            runs.push(SpilledRun::open(&spill.path, start, end).map_err(|e| Error::io(&spill.path, e))?);
        }
        let mut held = held.into_iter();
        let mut heap = BinaryHeap::new();
        for (i, run) in runs.iter_mut().enumerate() {
            if let Some(problem) = run.next().map_err(|e| Error::io(&spill.path, e))? {
                heap.push(std::cmp::Reverse((problem, i)));
            }
        }
        let memory = runs.len();
        heap.extend(held.next().map(|p| std::cmp::Reverse((p, memory))));
        let mut last: Option<Problem> = None;
        while let Some(std::cmp::Reverse((problem, i))) = heap.pop() {
            let next = match runs.get_mut(i) {
                Some(run) => run.next().map_err(|e| Error::io(&spill.path, e))?,
                None => held.next(),
            };
            heap.extend(next.map(|p| std::cmp::Reverse((p, i))));
            if last.as_ref() != Some(&problem) {
                if let Some(told) = last.replace(problem) {
                    each(told)?;
                }
            }
        }
        last.map_or(Ok(()), each)
    }

    /// How many problems there are, each counted once (a pass over the spilled ones, unless counted since
    /// the last was added).
    pub fn count(&self) -> Result<usize> {
        match self.counted.load(Ordering::Relaxed) {
            NOT_COUNTED => {}
            n => return Ok(n),
        }
        let mut n = 0;
        self.sorted(&mut |_| {
            n += 1;
            Ok(())
        })?;
        self.counted.store(n, Ordering::Relaxed);
        Ok(n)
    }

    /// Adds every problem of `other`.
    pub fn append(&mut self, other: Problems) -> Result<()> {
        other.sorted(&mut |p| {
            self.push(p);
            Ok(())
        })
    }

    /// Every problem, in order, each once: all in memory, for a run known to have few (the tests).
    pub fn to_vec(&self) -> Result<Vec<Problem>> {
        let mut all = Vec::new();
        self.sorted(&mut |p| {
            all.push(p);
            Ok(())
        })?;
        Ok(all)
    }
}

impl Extend<Problem> for Problems {
    fn extend<I: IntoIterator<Item = Problem>>(&mut self, problems: I) {
        problems.into_iter().for_each(|p| self.push(p));
    }
}

impl From<Vec<Problem>> for Problems {
    fn from(problems: Vec<Problem>) -> Self {
        let mut all = Problems::new();
        all.extend(problems);
        all
    }
}

/// About how many bytes a problem takes in memory.
fn held_size(problem: &Problem) -> usize {
    let field = match &problem.location {
        Location::Field(name) => name.len(),
        _ => 0,
    };
    std::mem::size_of::<Problem>() + problem.path.as_os_str().len() + problem.message.len() + field
}

impl Spill {
    /// A new scratch file in the system's temporary folder.
    fn create() -> Result<Self> {
        let beside = std::env::temp_dir().join("lakeshore-problems");
        let (path, file) = crate::write::create_temp(&beside, "spill")?;
        Ok(Spill { path, out: BufWriter::with_capacity(1 << 16, file), runs: Vec::new(), end: 0 })
    }
}

/// A spilled run being read back.
struct SpilledRun {
    bytes: std::io::Take<BufReader<File>>,
    path: PathBuf,
}

impl SpilledRun {
    /// The run from `start` to `end` of the scratch file at `path`.
    fn open(path: &Path, start: u64, end: u64) -> std::io::Result<Self> {
        let mut file = File::open(path)?;
        file.seek(SeekFrom::Start(start))?;
        Ok(SpilledRun {
            bytes: BufReader::with_capacity(1 << 15, file).take(end - start),
            path: PathBuf::new(),
        })
    }

    /// The run's next problem, `None` at its end.
    fn next(&mut self) -> std::io::Result<Option<Problem>> {
        if self.bytes.limit() == 0 {
            return Ok(None);
        }
        let same_path = self.u32()?;
        if same_path != SAME_PATH {
            self.path = path_of(self.text(same_path)?);
        }
        let location = match self.u8()? {
            0 => Location::UnnumberedRecord,
            1 => {
                let len = self.u32()?;
                Location::Field(String::from_utf8_lossy(&self.text(len)?).into_owned())
            }
            2 => Location::Fields,
            3 => Location::Line(self.u64()? as usize),
            4 => Location::Record(self.u64()? as usize),
            5 => Location::RecordWithId(self.u64()? as usize, self.u64()? as i64),
            6 => Location::Row(self.u64()? as usize),
            _ => Location::WholeFile,
        };
        let len = self.u32()?;
        let message = String::from_utf8_lossy(&self.text(len)?).into_owned();
        Ok(Some(Problem { path: self.path.clone(), location, message }))
    }

    fn text(&mut self, len: u32) -> std::io::Result<Vec<u8>> {
        let mut bytes = vec![0; len as usize];
        self.bytes.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    fn u8(&mut self) -> std::io::Result<u8> {
        Ok(self.text(1)?[0])
    }

    fn u32(&mut self) -> std::io::Result<u32> {
        let mut b = [0; 4];
        self.bytes.read_exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> std::io::Result<u64> {
        let mut b = [0; 8];
        self.bytes.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

/// The length written for a problem's path when it is the path of the problem before it in its run.
const SAME_PATH: u32 = u32::MAX;

/// Appends `problem` to `out`: its path (or [`SAME_PATH`] when it is `previous`), location and message.
fn encode(problem: &Problem, previous: Option<&Path>, out: &mut Vec<u8>) {
    let text = |out: &mut Vec<u8>, bytes: &[u8]| {
        // A text longer than 4 GiB is cut (no problem's path or message comes near).
        let len = u32::try_from(bytes.len()).unwrap_or(SAME_PATH - 1);
        out.extend(len.to_le_bytes());
        out.extend(&bytes[..len as usize]);
    };
    match previous == Some(problem.path.as_path()) {
        true => out.extend(SAME_PATH.to_le_bytes()),
        false => text(out, &path_bytes(&problem.path)),
    }
    let number = |out: &mut Vec<u8>, tag: u8, n: u64| {
        out.push(tag);
        out.extend(n.to_le_bytes());
    };
    match &problem.location {
        Location::UnnumberedRecord => out.push(0),
        Location::Field(name) => {
            out.push(1);
            text(out, name.as_bytes());
        }
        Location::Fields => out.push(2),
        Location::Line(n) => number(out, 3, *n as u64),
        Location::Record(n) => number(out, 4, *n as u64),
        Location::RecordWithId(n, id) => {
            number(out, 5, *n as u64);
            out.extend(id.to_le_bytes());
        }
        Location::Row(n) => number(out, 6, *n as u64),
        Location::WholeFile => out.push(7),
    }
    text(out, problem.message.as_bytes());
}

/// A path's bytes as written to the scratch file.
#[cfg(unix)]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

/// A path's bytes as written to the scratch file.
#[cfg(not(unix))]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    match path.to_string_lossy() {
        std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
    }
}

/// The path whose bytes [`path_bytes`] wrote.
#[cfg(unix)]
fn path_of(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

/// The path whose bytes [`path_bytes`] wrote.
#[cfg(not(unix))]
fn path_of(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Problems of every kind of location, some repeated, in a scrambled order.
    fn scrambled() -> Vec<Problem> {
        let locations = [
            Location::UnnumberedRecord,
            Location::Field("SEWER".into()),
            Location::Fields,
            Location::Line(7),
            Location::Record(12),
            Location::RecordWithId(3, -1),
            Location::Row(3),
            Location::WholeFile,
        ];
        let mut all = Vec::new();
        for i in 0..2000usize {
            let file = ["b.csv", "a.shp", "c d/é.xlsx:Log"][i % 3];
            let location = match &locations[i % locations.len()] {
                Location::Record(_) => Location::Record(i * 7919 % 1000),
                other => other.clone(),
            };
            // One problem in five is the same as one before it.
            let n = if i % 5 == 4 { i - 1 } else { i };
            all.push(Problem::new(file, location, format!("problem {}", n % 50)));
        }
        all
    }

    #[test]
    fn problems_come_back_sorted_and_once_however_they_were_spilled() {
        let all = scrambled();
        let mut expected = all.clone();
        expected.sort();
        expected.dedup();
        // From never spilling to spilling a problem at a time.
        for budget in [usize::MAX, 1 << 16, 4096, 1] {
            let mut problems = Problems::with_budget(budget);
            problems.extend(all.iter().cloned());
            assert_eq!(problems.added(), all.len());
            assert_eq!(problems.spill.is_some(), budget != usize::MAX, "budget {budget}");
            assert_eq!(problems.count().unwrap(), expected.len(), "budget {budget}");
            assert_eq!(problems.to_vec().unwrap(), expected, "budget {budget}");
            // More can be added after a read, and a read again gives them all.
            problems.push(Problem::new("0.shp", Location::WholeFile, "first of all"));
            assert_eq!(problems.count().unwrap(), expected.len() + 1, "counted again after a push");
            let again = problems.to_vec().unwrap();
            assert_eq!((again.len(), again[0].message.as_str()), (expected.len() + 1, "first of all"));
        }
    }

    #[test]
    fn the_scratch_file_goes_with_the_problems() {
        let mut problems = Problems::with_budget(1);
        problems.push(Problem::new("a.shp", Location::Record(1), "bad"));
        let path = problems.spill.as_ref().map(|s| s.path.clone()).expect("spilled");
        assert!(path.exists());
        drop(problems);
        assert!(!path.exists());
    }
}
