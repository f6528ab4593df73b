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
    /// Enters `stage`, which counts `total` parcels (0 when it does not count).
    pub fn start(&self, stage: &'static str, total: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Ok(mut s) = self.stage.lock() {
            *s = stage;
        }
        self.done.store(0, Relaxed);
        self.total.store(total, Relaxed);
    }

    /// One more parcel of the stage done.
    pub fn advance(&self) {
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The current stage, parcels done and the stage's total (0 when it is not counted).
    pub fn snapshot(&self) -> (&'static str, usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let stage = self.stage.lock().map(|s| *s).unwrap_or("");
        (stage, self.done.load(Relaxed), self.total.load(Relaxed))
    }
}

/// One stage of a run: its name, its wall time, the processor time it took on all cores, and the process's
/// peak resident memory when it ended.
#[derive(Debug, Clone, Copy)]
pub struct Lap {
    /// What the stage did.
    pub stage: &'static str,
    /// Its wall time.
    pub time: std::time::Duration,
    /// The processor time of all the process's threads during the stage (user and system; `None` where the
    /// system does not say): twice the wall time when both cores were busy throughout.
    pub cpu: Option<std::time::Duration>,
    /// The peak resident set size so far, in bytes (`VmHWM`; `None` where the system does not say).
    pub peak_bytes: Option<u64>,
}

impl Lap {
    /// The lap of a stage that began at `started`, when the process had used `cpu_before` of processor time.
    pub fn since(
        stage: &'static str,
        started: std::time::Instant,
        cpu_before: Option<std::time::Duration>,
    ) -> Self {
        let cpu = cpu_time().zip(cpu_before).map(|(now, before)| now.saturating_sub(before));
        Lap { stage, time: started.elapsed(), cpu, peak_bytes: peak_rss_bytes() }
    }
}

/// The processor time the process has used so far on all its threads, user and system, from
/// `/proc/self/stat` (Linux; counted in the kernel's ticks of 1/100 s).
pub fn cpu_time() -> Option<std::time::Duration> {
    let ticks = stat_ticks(&std::fs::read_to_string("/proc/self/stat").ok()?)?;
    Some(std::time::Duration::from_millis(ticks * 10))
}

/// The user and system ticks of a `/proc/PID/stat` line.
fn stat_ticks(stat: &str) -> Option<u64> {
    // The command name may hold spaces and parentheses: the fields that follow come after its last ')'.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line; the first after ')' is field 3.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// The process's peak resident set size so far, from `/proc/self/status` (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Records the wall and processor time of consecutive stages.
#[derive(Debug)]
pub struct Stopwatch {
    last: std::time::Instant,
    last_cpu: Option<std::time::Duration>,
    /// The stages ended so far, in order.
    pub laps: Vec<Lap>,
}

impl Default for Stopwatch {
    fn default() -> Self {
        Stopwatch::new()
    }
}

impl Stopwatch {
    /// A stopwatch whose first stage starts now.
    pub fn new() -> Self {
        Stopwatch { last: std::time::Instant::now(), last_cpu: cpu_time(), laps: Vec::new() }
    }

    /// Ends the current stage as `stage`; the next one starts now.
    pub fn lap(&mut self, stage: &'static str) {
        let lap = Lap::since(stage, self.last, self.last_cpu);
        self.laps.push(lap);
        self.last = std::time::Instant::now();
        self.last_cpu = cpu_time();
    }
}

#[cfg(test)]
mod tests {
    use super::stat_ticks;

    #[test]
    fn processor_ticks_are_read_after_the_command_name() {
        // Fields 14 and 15 (utime 4321, stime 87) of a line whose command name holds ") (" and spaces.
        let line =
            "4242 (lake shore) (x) R 1 4242 4242 0 -1 4194560 900 0 0 0 4321 87 0 0 20 0 3 0 123 456 789";
        assert_eq!(stat_ticks(line), Some(4321 + 87));
        assert_eq!(stat_ticks("4242 (cut"), None);
        assert_eq!(stat_ticks("4242 (short) R 1 2"), None);
    }
}
