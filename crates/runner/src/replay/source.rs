//! The replay as the worker sees it: the next logged IO, where it goes and when it is
//! intended, read from the log one entry at a time.

use super::scan::{open_log, replayed_kind, replayed_offset};
use crate::RunError;
use diskmeter_engine::IoOp;
use diskmeter_iolog::{IoAction, IoKind, IologReader};
use diskmeter_workload::{Direction, JobSpec};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;

/// What a replayed entry asks the engine for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayOp {
    /// A read or a write.
    Transfer(Direction),
    /// An fsync or fdatasync of the file.
    Sync(IoOp),
    /// A trim of the range.
    Trim,
}

/// One IO of the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayIo {
    /// What to do.
    pub op: ReplayOp,
    /// Index of the worker's target.
    pub file: u32,
    /// Where, after `replay_scale` and `replay_align`.
    pub offset_bytes: u64,
    /// How much.
    pub len_bytes: u64,
    /// When it is intended on the worker's clock; `None` = as soon as a slot is free
    /// (`replay_no_stall`, and version 2 IOs after the first one past a `wait`).
    pub intended_ns: Option<u64>,
}

/// Reads a job's `read_iolog` during the run and says what is next.
pub struct ReplaySource {
    reader: IologReader<BufReader<File>>,
    job_name: String,
    /// Log file name -> target index; empty when every IO goes to `replay_redirect`.
    files: HashMap<String, u32>,
    redirected: bool,
    no_stall: bool,
    time_scale_percent: u64,
    job: JobSpec,
    /// The worker's clock when the replay started.
    start_ns: u64,
    /// The first timestamp of a version 3 log: intended times count from it.
    first_timestamp_ns: Option<u64>,
    /// A version 2 `wait`: the next IO is intended then.
    wait_until_ns: Option<u64>,
    next: Option<ReplayIo>,
    /// The log has been read to its end.
    exhausted: bool,
}

impl ReplaySource {
    /// Opens the job's log; `target_names` are the worker's targets in order (the planned
    /// job's `filename`s: the log's files, or the redirect).
    pub fn open(job: &JobSpec, target_names: &[String]) -> Result<Option<ReplaySource>, RunError> {
        let Some(path) = job.iolog.read_iolog.as_deref() else {
            return Ok(None);
        };
        let reader = open_log(job, path)?;
        let redirected = job.iolog.replay_redirect.is_some();
        let files = if redirected {
            HashMap::new()
        } else {
            target_names
                .iter()
                .enumerate()
                .map(|(i, name)| (name.clone(), i as u32))
                .collect()
        };
        Ok(Some(ReplaySource {
            reader,
            job_name: job.name.clone(),
            files,
            redirected,
            no_stall: job.iolog.replay_no_stall,
            time_scale_percent: u64::from(job.iolog.replay_time_scale_percent.max(1)),
            job: job.clone(),
            start_ns: 0,
            first_timestamp_ns: None,
            wait_until_ns: None,
            next: None,
            exhausted: false,
        }))
    }

    /// True when IOs have intended times (not `replay_no_stall`).
    pub fn timed(&self) -> bool {
        !self.no_stall
    }

    /// The replay starts now: intended times count from `start_ns`.
    pub fn start(&mut self, start_ns: u64) {
        self.start_ns = start_ns;
    }

    /// True once every logged IO has been handed out.
    pub fn finished(&self) -> bool {
        self.exhausted && self.next.is_none()
    }

    /// The next IO without taking it; `None` at the end of the log.
    pub fn peek(&mut self) -> Result<Option<&ReplayIo>, RunError> {
        if self.next.is_none() && !self.exhausted {
            self.next = self.read_next()?;
            self.exhausted = self.next.is_none();
        }
        Ok(self.next.as_ref())
    }

    /// Takes the IO [`ReplaySource::peek`] showed.
    pub fn take(&mut self) -> Option<ReplayIo> {
        self.next.take()
    }

    /// The log time `since_first_ns` on the worker's clock, scaled by `replay_time_scale`.
    fn on_clock(&self, since_first_ns: u64) -> u64 {
        let scaled = if self.time_scale_percent == 100 {
            since_first_ns
        } else {
            (u128::from(since_first_ns) * 100 / u128::from(self.time_scale_percent)) as u64
        };
        self.start_ns.saturating_add(scaled)
    }

    fn read_next(&mut self) -> Result<Option<ReplayIo>, RunError> {
        loop {
            let entry = self.reader.next_entry().map_err(|source| RunError::Iolog {
                job: self.job_name.clone(),
                source,
            })?;
            let Some(entry) = entry else {
                return Ok(None);
            };
            let intended_ns = match entry.timestamp_ns {
                Some(ts) => {
                    let first = *self.first_timestamp_ns.get_or_insert(ts);
                    Some(self.on_clock(ts.saturating_sub(first)))
                }
                None => None,
            };
            let (kind, offset_bytes, length_bytes) = match entry.action {
                IoAction::File(_) => continue,
                IoAction::Wait { since_start_ms } => {
                    // fio: the next IO waits until this many ms since the job started.
                    let at = self.on_clock(since_start_ms.saturating_mul(1_000_000));
                    self.wait_until_ns = Some(at);
                    continue;
                }
                IoAction::Io {
                    kind,
                    offset_bytes,
                    length_bytes,
                } => (kind, offset_bytes, length_bytes),
            };
            let Some(kind) = replayed_kind(self.job.iolog.replay_skip, kind) else {
                continue;
            };
            let file = if self.redirected {
                0
            } else {
                *self.files.get(&entry.file).ok_or_else(|| RunError::Job {
                    job: self.job_name.clone(),
                    message: format!(
                        "{}:{}: {} was not in the log when the run was planned (did the log change?)",
                        self.reader.log_name(),
                        entry.line,
                        entry.file
                    ),
                })?
            };
            let op = match kind {
                IoKind::Read => ReplayOp::Transfer(Direction::Read),
                IoKind::Write => ReplayOp::Transfer(Direction::Write),
                IoKind::Sync => ReplayOp::Sync(IoOp::Fsync),
                IoKind::Datasync => ReplayOp::Sync(IoOp::Fdatasync),
                IoKind::Trim => ReplayOp::Trim,
            };
            let intended_ns = if self.no_stall {
                None
            } else {
                intended_ns.or_else(|| self.wait_until_ns.take())
            };
            return Ok(Some(ReplayIo {
                op,
                file,
                offset_bytes: replayed_offset(&self.job, offset_bytes),
                len_bytes: length_bytes,
                intended_ns,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str, edit: impl FnOnce(&mut JobSpec)) -> (tempfile::TempDir, ReplaySource) {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("app.log");
        std::fs::write(&log, text).unwrap();
        let mut job = JobSpec::default();
        job.iolog.read_iolog = Some(log);
        edit(&mut job);
        let names = ["/a".to_string(), "/b".to_string()];
        let source = ReplaySource::open(&job, &names).unwrap().unwrap();
        (dir, source)
    }

    fn all(source: &mut ReplaySource) -> Vec<ReplayIo> {
        let mut ios = Vec::new();
        while source.peek().unwrap().is_some() {
            ios.push(source.take().unwrap());
        }
        assert!(source.finished());
        ios
    }

    const V3: &str = "fio version 3 iolog\n\
                      500 /a add\n\
                      1000 /a read 4096 4096\n\
                      3000 /b write 0 8192\n\
                      3500 /a datasync 0 0\n\
                      5000 /a read 0 4096\n";

    #[test]
    fn version_3_ios_are_intended_at_their_timestamp_after_the_first() {
        let (_dir, mut source) = source(V3, |_| {});
        source.start(1_000_000_000);
        let ios = all(&mut source);
        let at: Vec<_> = ios.iter().map(|io| io.intended_ns).collect();
        // The first line (500 µs) is the replay's start.
        assert_eq!(
            at,
            [
                Some(1_000_500_000),
                Some(1_002_500_000),
                Some(1_003_000_000),
                Some(1_004_500_000)
            ]
        );
        assert_eq!(ios[1].op, ReplayOp::Transfer(Direction::Write));
        assert_eq!(ios[1].file, 1);
        assert_eq!(ios[2].op, ReplayOp::Sync(IoOp::Fdatasync));
        assert_eq!((ios[3].offset_bytes, ios[3].len_bytes), (0, 4096));
    }

    #[test]
    fn time_scale_200_replays_twice_as_fast_and_no_stall_ignores_time() {
        let (_dir, mut source2) = source(V3, |job| job.iolog.replay_time_scale_percent = 200);
        let at: Vec<_> = all(&mut source2).iter().map(|io| io.intended_ns).collect();
        assert_eq!(at[3], Some(2_250_000));
        let (_dir, mut fast) = source(V3, |job| job.iolog.replay_no_stall = true);
        assert!(all(&mut fast).iter().all(|io| io.intended_ns.is_none()));
    }

    #[test]
    fn a_version_2_wait_times_the_io_after_it() {
        let log = "fio version 2 iolog\n/a add\n/a read 0 4096\n/a wait 1500 0\n\
                   /a read 4096 4096\n/a read 8192 4096\n";
        let (_dir, mut source) = source(log, |_| {});
        source.start(10);
        let at: Vec<_> = all(&mut source).iter().map(|io| io.intended_ns).collect();
        assert_eq!(at, [None, Some(1_500_000_010), None]);
    }

    #[test]
    fn redirect_sends_every_file_to_the_one_target() {
        let (_dir, mut source) = source(V3, |job| {
            job.iolog.replay_redirect = Some("/dev/null".into());
        });
        assert!(all(&mut source).iter().all(|io| io.file == 0));
    }
}
