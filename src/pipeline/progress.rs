//! How far a run has got and what it cost: the progress a display shows, and each stage's wall time and peak
//! memory for `-v`.

/// How far a run has got, for a progress display: the current stage, and parcels done out of a total while
/// classifying. The library only counts; the binary decides whether and how to show it.
#[derive(Debug, Default)]
pub struct Progress {
    stage: std::sync::Mutex<&'static str>,
    done: std::sync::atomic::AtomicUsize,
    total: std::sync::atomic::AtomicUsize,
}

impl Progress {
    pub(super) fn start(&self, stage: &'static str, total: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Ok(mut s) = self.stage.lock() {
            *s = stage;
        }
        self.done.store(0, Relaxed);
        self.total.store(total, Relaxed);
    }

    pub(super) fn advance(&self) {
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The current stage, parcels done and the stage's total (0 when it is not counted).
    pub fn snapshot(&self) -> (&'static str, usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let stage = self.stage.lock().map(|s| *s).unwrap_or("");
        (stage, self.done.load(Relaxed), self.total.load(Relaxed))
    }
}

/// One stage of a run: its name, its wall time, and the process's peak resident memory when it ended.
#[derive(Debug, Clone, Copy)]
pub struct Lap {
    /// What the stage did.
    pub stage: &'static str,
    /// Its wall time.
    pub time: std::time::Duration,
    /// The peak resident set size so far, in bytes (`VmHWM`; `None` where the system does not say).
    pub peak_bytes: Option<u64>,
}

/// The process's peak resident set size so far, from `/proc/self/status` (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Records the wall time of consecutive stages.
pub(super) struct Stopwatch {
    last: std::time::Instant,
    pub(super) laps: Vec<Lap>,
}

impl Stopwatch {
    pub(super) fn new() -> Self {
        Stopwatch { last: std::time::Instant::now(), laps: Vec::new() }
    }

    pub(super) fn lap(&mut self, stage: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push(Lap { stage, time: now - self.last, peak_bytes: peak_rss_bytes() });
        self.last = now;
    }
}
