//! Output files handed to the disk as they are written. An output set is forced to disk at its commit point
//! ([`super::set`]); left to itself, the kernel holds a county's schedule (hundreds of megabytes) in memory
//! until then, and the run waits at the end for all of it to reach the disk. [`Writeback`] asks the kernel to
//! start writing each stretch of [`STRETCH`] bytes as soon as it is written (Linux `sync_file_range` with
//! `SYNC_FILE_RANGE_WRITE`, which starts the writes and does not wait for them), so that the disk works
//! beside the run and forcing the file to disk waits for the last stretch only.
//!
//! It is a hint and changes no byte: an error from it is left to the forcing to disk, which reports any
//! error of the writes themselves. Elsewhere than on Linux it does nothing.

use std::fs::File;
use std::io::Write;

/// Bytes written between two hints: large enough that the hints cost nothing, small enough that the last
/// stretch is quickly forced to disk.
const STRETCH: u64 = 16 << 20;

/// A file whose writes are handed to the disk a stretch at a time.
pub(super) struct Writeback {
    file: File,
    /// Bytes written to the file.
    written: u64,
    /// Bytes already handed to the disk.
    handed: u64,
}

impl Writeback {
    /// `file`, written from its start.
    pub(super) fn new(file: File) -> Self {
        Writeback { file, written: 0, handed: 0 }
    }
}

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.handed >= STRETCH {
            start_writing(&self.file, self.handed, self.written - self.handed);
            self.handed = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to the disk, without waiting.
#[cfg(target_os = "linux")]
fn start_writing(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else { return };
    // SAFETY: sync_file_range takes an open descriptor, a range and flags, and touches no memory of ours.
    // Its result is a hint's: the forcing to disk at the commit point reports any error of the writes.
    unsafe { libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE) };
}

/// Elsewhere the file reaches the disk when it is forced there.
#[cfg(not(target_os = "linux"))]
fn start_writing(_: &File, _: u64, _: u64) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn every_byte_written_reaches_the_file_across_stretches() {
        let path = crate::scratch::root().join("writeback.bin");
        // Two stretches and a part: pieces of a prime length, so the hints fall inside pieces.
        let piece: Vec<u8> = (0..7919u32).map(|i| (i % 251) as u8).collect();
        let total = (2 * STRETCH + 12345) as usize;
        let mut out = Writeback::new(File::create(&path).unwrap());
        let mut expected = Vec::with_capacity(total);
        while expected.len() < total {
            let take = piece.len().min(total - expected.len());
            out.write_all(&piece[..take]).unwrap();
            expected.extend_from_slice(&piece[..take]);
        }
        out.flush().unwrap();
        assert_eq!(out.written, total as u64);
        // The hints were given for the whole stretches written.
        assert!(out.handed >= 2 * STRETCH && out.handed <= out.written);
        drop(out);
        let mut read = Vec::new();
        File::open(&path).unwrap().read_to_end(&mut read).unwrap();
        assert!(read == expected, "the file differs from what was written");
    }
}
