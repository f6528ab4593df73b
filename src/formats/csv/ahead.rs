//! [`ReadAhead`]: a CSV file's records parsed on a thread of their own, a few batches ahead of the one who
//! takes them, so that splitting a large file into fields and the work done on each row share the cores.

use std::io::BufRead;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::thread::JoinHandle;

use super::{CsvReader, Record};

/// Records in a batch.
const BATCH: usize = 1024;

/// Batches parsed and waiting, at most.
const WAITING: usize = 2;

/// One batch: its records (the first `filled` of them read), or the input's error.
type Batch = std::io::Result<(Vec<Record>, usize)>;

/// A [`CsvReader`] run on a thread of its own, handing out the same records in the same order.
///
/// The records travel in batches whose memory comes back to the reading thread once taken, so a file of
/// millions of rows costs a few thousand records' memory, as one reader does. An error of the input is
/// handed out where it happened; a reading thread that stopped otherwise is an error, never an early end.
///
/// ```
/// use lakeshore::formats::csv::{CsvReader, ReadAhead, Record};
/// let text: String = (0..5000).map(|i| format!("{i},\"line\nbreak\"\n")).collect();
/// let mut ahead = ReadAhead::new(CsvReader::new(std::io::Cursor::new(text.into_bytes())));
/// let mut record = Record::default();
/// let mut lines = Vec::new();
/// while ahead.read(&mut record).unwrap() {
///     lines.push(record.line());
/// }
/// assert_eq!((lines.len(), lines[4999]), (5000, 9999));
/// ```
pub struct ReadAhead {
    batches: Receiver<Batch>,
    spent: SyncSender<Vec<Record>>,
    /// The batch being handed out, and how many of its records were read and handed.
    batch: Vec<Record>,
    filled: usize,
    handed: usize,
    thread: Option<JoinHandle<()>>,
    /// The separator of the file.
    separator: u8,
}

impl ReadAhead {
    /// The records of `reader`, read on a thread of their own.
    pub fn new<R: BufRead + Send + 'static>(mut reader: CsvReader<R>) -> Self {
        let separator = reader.separator();
        let (send, batches) = sync_channel::<Batch>(WAITING);
        let (spent, recycled) = sync_channel::<Vec<Record>>(WAITING + 2);
        let thread = std::thread::spawn(move || loop {
            let mut batch = match recycled.try_recv() {
                Ok(batch) => batch,
                Err(TryRecvError::Empty) => vec![Record::default(); BATCH],
                Err(TryRecvError::Disconnected) => return,
            };
            let mut filled = 0;
            let read = loop {
                match batch.get_mut(filled).map(|record| reader.read(record)) {
                    None | Some(Ok(false)) => break Ok(()),
                    Some(Ok(true)) => filled += 1,
                    Some(Err(e)) => break Err(e),
                }
            };
            let end = filled < batch.len();
            // The records read before an error are handed out before it, as one reader would.
            if send.send(Ok((batch, filled))).is_err() {
                return;
            }
            if let Err(e) = read {
                let _ = send.send(Err(e));
                return;
            }
            if end {
                return;
            }
        });
        ReadAhead { batches, spent, batch: Vec::new(), filled: 0, handed: 0, thread: Some(thread), separator }
    }

    /// The byte between fields.
    pub fn separator(&self) -> u8 {
        self.separator
    }

    /// The next record into `record` (its memory going back to the reading thread); `false` after the last.
    pub fn read(&mut self, record: &mut Record) -> std::io::Result<bool> {
        if self.handed == self.filled && !self.next_batch()? {
            return Ok(false);
        }
        std::mem::swap(record, &mut self.batch[self.handed]);
        self.handed += 1;
        Ok(true)
    }

    /// Takes the next batch; `false` when the reading thread has finished the input.
    fn next_batch(&mut self) -> std::io::Result<bool> {
        if !self.batch.is_empty() {
            // The reading thread may have stopped; the batch's memory is then simply dropped.
            let _ = self.spent.try_send(std::mem::take(&mut self.batch));
        }
        (self.filled, self.handed) = (0, 0);
        loop {
            match self.batches.recv() {
                Ok(Ok((batch, filled))) => {
                    (self.batch, self.filled) = (batch, filled);
                    if filled > 0 {
                        return Ok(true);
                    }
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return self.finished(),
            }
        }
    }

    /// The reading thread has sent its last batch: whether it ended as it should.
    fn finished(&mut self) -> std::io::Result<bool> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Err(_)) => Err(std::io::Error::other("the thread reading the file stopped before its end")),
            _ => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor, Read};
    use std::sync::mpsc::{channel, Sender};

    use super::*;

    /// Every record of `reader`, as one reader on this thread reads them.
    fn all(mut reader: CsvReader<impl BufRead>) -> Vec<Record> {
        let mut records = Vec::new();
        let mut record = Record::default();
        while reader.read(&mut record).unwrap() {
            records.push(record.clone());
        }
        records
    }

    /// A file of several batches, with records over two lines, damage and a partial last batch.
    fn text() -> Vec<u8> {
        let mut text = String::from("id;note\n");
        for i in 0..(3 * BATCH + 17) {
            match i % 500 {
                7 => text.push_str(&format!("{i};\"two\r\nlines\"\n")),
                8 => text.push_str(&format!("{i};st\"ray\n")),
                9 => text.push('\n'),
                _ => text.push_str(&format!("{i};n{i}\n")),
            }
        }
        text.into_bytes()
    }

    #[test]
    fn records_come_as_one_reader_reads_them() {
        let expected = all(CsvReader::sniffing(Cursor::new(text())).unwrap());
        assert_eq!(expected.len(), 3 * BATCH + 18 - 7, "the blank lines are skipped");
        let mut ahead = ReadAhead::new(CsvReader::sniffing(Cursor::new(text())).unwrap());
        assert_eq!(ahead.separator(), b';');
        let mut got = Vec::new();
        let mut record = Record::default();
        while ahead.read(&mut record).unwrap() {
            got.push(record.clone());
        }
        assert!(got == expected, "{} records, {} expected", got.len(), expected.len());
        assert!(!ahead.read(&mut record).unwrap(), "the end stays the end");
        // A file of exactly one batch, and an empty one.
        let exact: String = (0..BATCH).map(|i| format!("{i}\n")).collect();
        let mut ahead = ReadAhead::new(CsvReader::new(Cursor::new(exact.into_bytes())));
        let mut n = 0;
        while ahead.read(&mut record).unwrap() {
            n += 1;
        }
        assert_eq!(n, BATCH);
        assert!(!ReadAhead::new(CsvReader::new(Cursor::new(Vec::new()))).read(&mut record).unwrap());
    }

    /// Bytes that fail after `good` of them, and that say on `dropped` when the reading thread lets them go.
    struct Failing {
        bytes: Cursor<Vec<u8>>,
        dropped: Option<Sender<()>>,
    }

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let room = buf.len().min(64);
            match self.bytes.read(&mut buf[..room])? {
                0 => Err(std::io::Error::other("disk gone")),
                n => Ok(n),
            }
        }
    }

    impl Drop for Failing {
        fn drop(&mut self) {
            if let Some(dropped) = self.dropped.take() {
                let _ = dropped.send(());
            }
        }
    }

    #[test]
    fn an_error_of_the_input_comes_after_the_records_before_it() {
        let good: String = (0..(BATCH + 10)).map(|i| format!("{i}\n")).collect();
        let input = Failing { bytes: Cursor::new(good.into_bytes()), dropped: None };
        let mut ahead = ReadAhead::new(CsvReader::new(BufReader::with_capacity(64, input)));
        let mut record = Record::default();
        let mut n = 0;
        let err = loop {
            match ahead.read(&mut record) {
                Ok(true) => n += 1,
                Ok(false) => panic!("the input's error was taken for its end after {n} records"),
                Err(e) => break e,
            }
        };
        assert_eq!((n, err.to_string()), (BATCH + 10, "disk gone".to_string()));
    }

    /// A reader let go before the end stops its thread, which lets the input go: the test would hang if not.
    #[test]
    fn a_reader_let_go_early_stops_its_thread() {
        let (dropped, told) = channel();
        let input = Failing { bytes: Cursor::new(text()), dropped: Some(dropped) };
        let mut ahead = ReadAhead::new(CsvReader::new(BufReader::new(input)));
        let mut record = Record::default();
        assert!(ahead.read(&mut record).unwrap());
        drop(ahead);
        told.recv().unwrap();
    }
}
