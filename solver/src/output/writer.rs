//! The run's output off the critical path: a writer thread takes frames (the fields of one
//! output time) from a bounded queue, writes each file (compressed in parallel, atomically) and
//! then lists it in the `.pvd`, while the time loop steps on. The queue holds at most `depth`
//! frames besides the one being written, so memory stays bounded and a slow disk slows the run
//! instead of losing frames. [`FrameWriter::finish`] waits for every frame; the first error of
//! the thread (naming the file) stops it, and the next `submit` or `finish` returns it. A file
//! is listed in the `.pvd` only once it is complete, so an interrupted run's series opens.

use super::pvd::Series;
use super::vtk_xml::VtkOptions;
use crate::error::{Result, SolverError};
use crate::framework::field::{Field, Geometry};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// One output: the file's path without extension, its time, its fields.
pub struct Frame {
    pub stem: PathBuf,
    pub time: f64,
    pub fields: Arc<Vec<Field>>,
}

/// What the writer thread did.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriterStats {
    pub frames: usize,
    /// Seconds the thread spent encoding and writing (overlapped with the run's steps).
    pub busy_seconds: f64,
    pub bytes: u64,
}

/// What the time loop sends the writer thread.
enum Message {
    Frame(Frame),
    /// Answer on this channel once every frame sent before is written and listed.
    Flush(SyncSender<()>),
}

pub struct FrameWriter {
    tx: Option<SyncSender<Message>>,
    handle: Option<JoinHandle<Result<WriterStats>>>,
}

impl FrameWriter {
    /// Start the thread; it appends to `series` (already reopened on a restart).
    pub fn spawn(mut series: Series, geometry: Geometry, opts: VtkOptions, depth: usize) -> FrameWriter {
        let (tx, rx) = sync_channel::<Message>(depth);
        let handle = std::thread::Builder::new()
            .name("vtk-writer".into())
            .spawn(move || {
                let mut stats = WriterStats::default();
                for message in rx {
                    let frame = match message {
                        Message::Frame(frame) => frame,
                        Message::Flush(done) => {
                            let _ = done.send(());
                            continue;
                        }
                    };
                    let t = Instant::now();
                    let file = super::write_fields_with(&frame.stem, &geometry, &frame.fields, opts)?;
                    let path = frame.stem.with_file_name(&file);
                    stats.bytes += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                    series.add(frame.time, &file)?;
                    stats.frames += 1;
                    stats.busy_seconds += t.elapsed().as_secs_f64();
                }
                Ok(stats)
            })
            .expect("cannot start the output writer thread");
        FrameWriter {
            tx: Some(tx),
            handle: Some(handle),
        }
    }

    /// Queue a frame; blocks while the queue is full. If the thread has stopped on an error,
    /// that error.
    pub fn submit(&mut self, frame: Frame) -> Result<()> {
        self.send(Message::Frame(frame))
    }

    /// Wait until every frame queued so far is written and listed in the `.pvd` (the thread
    /// goes on); its first error if it stopped on one.
    pub fn flush(&mut self) -> Result<()> {
        let (done, wait) = sync_channel(1);
        self.send(Message::Flush(done))?;
        if wait.recv().is_ok() {
            return Ok(());
        }
        self.join()?;
        Err(SolverError::Other("internal: the output writer stopped".into()))
    }

    fn send(&mut self, message: Message) -> Result<()> {
        let sent = match &self.tx {
            Some(tx) => tx.send(message).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        self.join()?;
        Err(SolverError::Other("internal: the output writer stopped".into()))
    }

    /// Wait for every queued frame to be written; the thread's totals or its first error.
    pub fn finish(mut self) -> Result<WriterStats> {
        self.join()
    }

    fn join(&mut self) -> Result<WriterStats> {
        self.tx = None; // closes the queue: the thread ends after the frames it holds
        match self.handle.take() {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err(SolverError::Other("the output writer thread panicked".into()))),
            None => Ok(WriterStats::default()),
        }
    }
}

impl Drop for FrameWriter {
    /// A run that stops on an error still writes the frames it queued (the last good output).
    fn drop(&mut self) {
        let _ = self.join();
    }
}
