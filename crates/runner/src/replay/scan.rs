//! Planning a replay: one streaming pass over the log, and the job it becomes.

use crate::RunError;
use diskmeter_iolog::{IoAction, IoKind, IologEntry, IologReader};
use diskmeter_workload::{BlockSizeSpread, Direction, JobSpec, PerDirection, ReplaySkip, RwMode};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// What planning needs to know about a log, after `replay_skip`, `replay_scale` and
/// `replay_align`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogScan {
    /// The files the log names, in the order it first names them.
    pub files: Vec<String>,
    /// How far into each file of `files` the replayed IO reaches, bytes.
    pub end_bytes: Vec<u64>,
    /// Replayed reads and writes.
    pub ios: PerDirection<u64>,
    /// Replayed syncs (fsync and fdatasync).
    pub syncs: u64,
    /// Replayed trims.
    pub trims: u64,
    /// The largest replayed IO per direction, bytes.
    pub max_len_bytes: PerDirection<u64>,
    /// First and last timestamp of a version 3 log, ns.
    pub span_ns: Option<(u64, u64)>,
}

/// Opens the log at `path` for reading as a stream.
pub(crate) fn open_log(
    job: &JobSpec,
    path: &Path,
) -> Result<IologReader<BufReader<File>>, RunError> {
    let iolog_error = |source| RunError::Iolog {
        job: job.name.clone(),
        source,
    };
    let file = File::open(path).map_err(|source| {
        iolog_error(diskmeter_iolog::IologError::Io {
            log: path.display().to_string(),
            source,
        })
    })?;
    IologReader::new(
        BufReader::with_capacity(256 * 1024, file),
        path.display().to_string(),
    )
    .map_err(iolog_error)
}

/// What the replay does with one logged IO action: `None` when `replay_skip` leaves it out.
pub(crate) fn replayed_kind(skip: ReplaySkip, kind: IoKind) -> Option<IoKind> {
    let skipped = match kind {
        IoKind::Read => skip.read,
        IoKind::Write => skip.write,
        IoKind::Trim => skip.trim,
        IoKind::Sync | IoKind::Datasync => skip.sync,
    };
    (!skipped).then_some(kind)
}

/// A logged offset as replayed: divided by `replay_scale`, rounded down to `replay_align`.
pub(crate) fn replayed_offset(job: &JobSpec, offset_bytes: u64) -> u64 {
    let options = &job.iolog;
    let scaled = match options.replay_scale {
        0 | 1 => offset_bytes,
        scale => offset_bytes / scale,
    };
    match options.replay_align_bytes {
        0 => scaled,
        align => scaled & !(align - 1),
    }
}

/// Reads the job's `read_iolog` once, start to end, holding one line at a time.
pub fn scan(job: &JobSpec) -> Result<LogScan, RunError> {
    let Some(path) = job.iolog.read_iolog.as_deref() else {
        return Ok(LogScan::default());
    };
    let mut reader = open_log(job, path)?;
    let mut scan = LogScan::default();
    let log = path.display().to_string();
    while let Some(entry) = reader.next_entry().map_err(|source| RunError::Iolog {
        job: job.name.clone(),
        source,
    })? {
        scan.note(job, &log, &entry)?;
    }
    if scan.ios.read + scan.ios.write + scan.syncs == 0 {
        return Err(RunError::Job {
            job: job.name.clone(),
            message: format!("{log}: the log has no IO to replay"),
        });
    }
    Ok(scan)
}

impl LogScan {
    fn note(&mut self, job: &JobSpec, log: &str, entry: &IologEntry) -> Result<(), RunError> {
        if let Some(ts) = entry.timestamp_ns {
            self.span_ns = Some(match self.span_ns {
                None => (ts, ts),
                Some((first, last)) => (first, last.max(ts)),
            });
        }
        let file = match self.files.iter().position(|f| *f == entry.file) {
            Some(index) => index,
            None => {
                self.files.push(entry.file.clone());
                self.end_bytes.push(0);
                self.files.len() - 1
            }
        };
        let IoAction::Io {
            kind,
            offset_bytes,
            length_bytes,
        } = entry.action
        else {
            return Ok(());
        };
        let Some(kind) = replayed_kind(job.iolog.replay_skip, kind) else {
            return Ok(());
        };
        let direction = match kind {
            IoKind::Read => Direction::Read,
            IoKind::Write => Direction::Write,
            IoKind::Sync | IoKind::Datasync => {
                self.syncs += 1;
                return Ok(());
            }
            // A trim changes data like a write (the job opens its targets for writing);
            // its length is checked below with the writes'.
            IoKind::Trim => Direction::Write,
        };
        if length_bytes == 0 || length_bytes > u64::from(u32::MAX) {
            return Err(RunError::Job {
                job: job.name.clone(),
                message: format!(
                    "{log}:{}: a {} of {length_bytes} bytes cannot be replayed",
                    entry.line,
                    direction.as_str()
                ),
            });
        }
        let end = replayed_offset(job, offset_bytes).saturating_add(length_bytes);
        self.end_bytes[file] = self.end_bytes[file].max(end);
        if kind == IoKind::Trim {
            // Trims need no buffer: they count apart and leave the block sizes alone.
            self.trims += 1;
            return Ok(());
        }
        *self.ios.get_mut(direction) += 1;
        let max = self.max_len_bytes.get_mut(direction);
        *max = (*max).max(length_bytes);
        Ok(())
    }
}

/// The job a replay runs: its targets are the log's files (or `replay_redirect`), its
/// directions and block sizes the log's, its region the whole of each file. A job without
/// `read_iolog` comes back unchanged.
pub fn plan_job(job: &JobSpec) -> Result<(JobSpec, Option<LogScan>), RunError> {
    if job.iolog.read_iolog.is_none() {
        return Ok((job.clone(), None));
    }
    let scan = scan(job)?;
    let mut planned = job.clone();
    planned.filenames = match &job.iolog.replay_redirect {
        Some(target) => vec![target.clone()],
        None => scan.files.iter().map(PathBuf::from).collect(),
    };
    planned.rw = match (scan.ios.read > 0, scan.ios.write + scan.trims > 0) {
        (true, true) => RwMode::ReadWrite,
        (false, true) => RwMode::Write,
        _ => RwMode::Read,
    };
    // The engine's buffers hold the largest IO; a direction the log lacks borrows the other's.
    let largest = scan
        .max_len_bytes
        .read
        .max(scan.max_len_bytes.write)
        .max(512);
    let size_of = |d: Direction| match scan.max_len_bytes.get(d) {
        0 => largest,
        n => n,
    };
    planned.bs_bytes = PerDirection {
        read: size_of(Direction::Read),
        write: size_of(Direction::Write),
    };
    planned.bs_spread = PerDirection {
        read: BlockSizeSpread::Fixed,
        write: BlockSizeSpread::Fixed,
    };
    planned.offset_bytes = 0;
    planned.offset_percent = None;
    planned.size_percent = None;
    planned.io_size_bytes = None;
    planned.time_based = false;
    // A file that does not exist yet is created as long as the log reaches into it (every
    // file as long as the farthest, since `size` is shared evenly); an existing file or device
    // is used whole.
    let reach = scan.end_bytes.iter().copied().max().unwrap_or(0);
    let missing = planned.filenames.iter().any(|path| !path.exists());
    planned.size_bytes = missing.then(|| reach.saturating_mul(planned.filenames.len() as u64));
    planned.filesize_bytes = None;
    Ok((planned, Some(scan)))
}

/// Refuses a replay whose IO reaches past the end of a target (a device, or an existing
/// file smaller than the log needs): the IO would fail or read nothing mid-run.
pub fn check_reach(
    job: &JobSpec,
    scan: &LogScan,
    worker_targets: &[usize],
    targets: &[crate::prepare::TargetPlan],
) -> Result<(), RunError> {
    let redirected = job.iolog.replay_redirect.is_some();
    for (position, &index) in worker_targets.iter().enumerate() {
        let target = &targets[index];
        let reach = if redirected {
            scan.end_bytes.iter().copied().max().unwrap_or(0)
        } else {
            scan.end_bytes.get(position).copied().unwrap_or(0)
        };
        let end = target.region_start_bytes + target.region_len_bytes;
        if target.kind != crate::safety::TargetKind::Virtual && reach > end {
            return Err(RunError::Target {
                path: target.path.clone(),
                message: format!(
                    "the replayed log reaches byte {reach}, past its end at {end} bytes \
                     (replay_scale divides the log's offsets)"
                ),
            });
        }
    }
    Ok(())
}

/// The plan's note about a replay: what it will issue, over how much log time.
pub fn describe(job: &JobSpec, scan: &LogScan) -> String {
    let log = job
        .iolog
        .read_iolog
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let timing = match (job.iolog.replay_no_stall, scan.span_ns) {
        (true, _) => "as fast as possible (replay_no_stall)".to_string(),
        (false, Some((first, last))) => format!(
            "over {:.3} s of log time at {}% speed",
            (last - first) as f64 / 1e9,
            job.iolog.replay_time_scale_percent
        ),
        (false, None) => "paced by its waits (version 2)".to_string(),
    };
    format!(
        "job {}: replaying {} reads, {} writes and {} syncs from {log} {timing}",
        job.name, scan.ios.read, scan.ios.write, scan.syncs
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job_with_log(text: &str) -> (tempfile::TempDir, JobSpec) {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("app.log");
        std::fs::write(&log, text).unwrap();
        let mut job = JobSpec::default();
        job.iolog.read_iolog = Some(log);
        (dir, job)
    }

    #[test]
    fn a_scan_finds_files_directions_sizes_and_reach() {
        let (_dir, job) = job_with_log(
            "fio version 3 iolog\n\
             0 /a add\n\
             0 /b add\n\
             10 /a read 8192 4096\n\
             20 /b write 0 65536\n\
             30 /a sync 0 0\n\
             40 /a read 0 512\n",
        );
        let scan = scan(&job).unwrap();
        assert_eq!(scan.files, ["/a", "/b"]);
        assert_eq!(scan.end_bytes, [12288, 65536]);
        assert_eq!(scan.ios, PerDirection { read: 2, write: 1 });
        assert_eq!(scan.syncs, 1);
        assert_eq!(
            scan.max_len_bytes,
            PerDirection {
                read: 4096,
                write: 65536
            }
        );
        assert_eq!(scan.span_ns, Some((0, 40_000)));
    }

    #[test]
    fn skip_scale_and_align_apply_before_planning() {
        let (_dir, mut job) =
            job_with_log("fio version 2 iolog\n/a add\n/a write 0 4096\n/a read 1000000 4096\n");
        job.iolog.replay_skip.write = true;
        job.iolog.replay_scale = 10;
        job.iolog.replay_align_bytes = 4096;
        let scan = scan(&job).unwrap();
        assert_eq!(scan.ios, PerDirection { read: 1, write: 0 });
        // 1000000 / 10 = 100000, down to 4096's multiple 98304, plus the length.
        assert_eq!(scan.end_bytes, [98304 + 4096]);
    }

    #[test]
    fn trims_are_replayed_as_data_changes_unless_skipped() {
        let (_dir, mut job) =
            job_with_log("fio version 3 iolog\n1 /a read 0 4096\n2 /a trim 8192 65536\n");
        let scanned = scan(&job).unwrap();
        assert_eq!(
            (scanned.ios.read, scanned.ios.write, scanned.trims),
            (1, 0, 1)
        );
        assert_eq!(scanned.end_bytes, [8192 + 65536]);
        let (planned, _) = plan_job(&job).unwrap();
        assert_eq!(
            planned.rw,
            RwMode::ReadWrite,
            "a trim opens the file for writing"
        );
        job.iolog.replay_skip.trim = true;
        let scanned = scan(&job).unwrap();
        assert_eq!((scanned.ios.read, scanned.trims), (1, 0));
    }

    #[test]
    fn a_log_with_nothing_to_replay_is_an_error() {
        let (_dir, job) = job_with_log("fio version 3 iolog\n1 /a add\n");
        assert!(scan(&job)
            .unwrap_err()
            .to_string()
            .contains("no IO to replay"));
    }

    #[test]
    fn the_planned_job_runs_on_the_logs_files_or_the_redirect() {
        let (dir, mut job) = job_with_log(
            "fio version 3 iolog\n1 /nonexistent/a read 0 4096\n2 /nonexistent/a write 8192 8192\n",
        );
        let (planned, _) = plan_job(&job).unwrap();
        assert_eq!(planned.filenames, [PathBuf::from("/nonexistent/a")]);
        assert_eq!(planned.rw, RwMode::ReadWrite);
        assert_eq!(
            planned.bs_bytes,
            PerDirection {
                read: 4096,
                write: 8192
            }
        );
        assert_eq!(planned.size_bytes, Some(16384));
        let target = dir.path().join("target");
        std::fs::write(&target, vec![0u8; 65536]).unwrap();
        job.iolog.replay_redirect = Some(target.clone());
        let (planned, _) = plan_job(&job).unwrap();
        assert_eq!(planned.filenames, [target]);
        assert_eq!(planned.size_bytes, None, "an existing target is used whole");
    }
}
