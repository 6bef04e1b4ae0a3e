//! fio's log files of a worker (`write_bw_log`, `write_iops_log`, `write_lat_log`,
//! `write_hist_log`): their names, and opening them into a recorder before the run.
//!
//! Names are fio 3.x's: `PREFIX_bw.N.log`, `PREFIX_iops.N.log`, and `PREFIX_lat.N.log`,
//! `PREFIX_clat.N.log`, `PREFIX_slat.N.log` for the latency logs, `PREFIX_clat_hist.N.log`
//! for the histogram log, where N is the worker's
//! number in the whole run counted from 1 (fio's thread number: jobs in order, each job's
//! clones one after another) and an empty prefix means the job's name. With
//! `per_job_logs=0` the `.N` is left out and every worker with that prefix appends to the
//! one file, which is not truncated first (fio does the same, across runs too).
//!
//! The files are created when the run starts, so a folder that does not exist stops the run
//! before anything is measured; the lines are written when the worker's stonewall phase has
//! ended (see `diskmeter_stats::IoLogRecorder`).

use crate::RunError;
use diskmeter_stats::{IoLogRecorder, LogFormat, LogKind};
use diskmeter_workload::JobSpec;
use serde::Serialize;
use std::fs::OpenOptions;
use std::io::BufWriter;
use std::path::PathBuf;

/// One log file a worker writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogFile {
    /// What the file logs.
    pub kind: LogKind,
    /// Where, relative to the current folder unless the prefix is absolute (as in fio).
    pub path: PathBuf,
    /// Shared by workers (`per_job_logs=0`): appended to, never truncated.
    pub append: bool,
}

/// The log files of worker `worker_number` (1-based, over the whole run) of `job`.
pub fn log_files(job: &JobSpec, worker_number: usize) -> Vec<LogFile> {
    let asked = [
        (&job.write_bw_log, &[LogKind::Bw][..]),
        (&job.write_iops_log, &[LogKind::Iops][..]),
        (
            &job.write_lat_log,
            &[LogKind::Lat, LogKind::Clat, LogKind::Slat][..],
        ),
        (&job.system.write_hist_log, &[LogKind::ClatHist][..]),
    ];
    let mut files = Vec::new();
    for (prefix, kinds) in asked {
        let Some(prefix) = prefix else { continue };
        let prefix = if prefix.is_empty() { &job.name } else { prefix };
        for &kind in kinds {
            let name = if job.per_job_logs {
                format!("{prefix}_{}.{worker_number}.log", kind.suffix())
            } else {
                format!("{prefix}_{}.log", kind.suffix())
            };
            files.push(LogFile {
                kind,
                path: PathBuf::from(name),
                append: !job.per_job_logs,
            });
        }
    }
    files
}

/// Creates (or opens for appending) `files` and returns a recorder writing to them; `None`
/// when there are none, so workers without logs pay nothing.
pub fn open_recorder(job: &JobSpec, files: &[LogFile]) -> Result<Option<IoLogRecorder>, RunError> {
    if files.is_empty() {
        return Ok(None);
    }
    let format = LogFormat {
        max_value: job.system.log_max_value,
        unix_epoch: job.system.log_unix_epoch,
        log_prio: job.system.log_prio,
        ioprio: crate::placement::ioprio_value(job),
    };
    let mut recorder =
        IoLogRecorder::new(u64::from(job.log_avg_msec), job.log_offset).with_format(format);
    for file in files {
        let mut options = OpenOptions::new();
        if file.append {
            options.append(true).create(true);
        } else {
            options.write(true).create(true).truncate(true);
        }
        let opened = options.open(&file.path).map_err(|e| RunError::Target {
            path: file.path.clone(),
            message: format!("cannot create the log file: {e}"),
        })?;
        let label = file.path.display().to_string();
        let sink = Box::new(BufWriter::new(opened));
        if file.kind == LogKind::ClatHist {
            recorder.add_hist_log(
                label,
                sink,
                u64::from(job.system.log_hist_msec),
                job.system.log_hist_coarseness,
            );
        } else {
            recorder.add_log(file.kind, label, sink);
        }
    }
    Ok(Some(recorder))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(job: &JobSpec, worker_number: usize) -> Vec<String> {
        log_files(job, worker_number)
            .iter()
            .map(|f| f.path.display().to_string())
            .collect()
    }

    #[test]
    fn names_are_fios() {
        let job = JobSpec {
            name: "seq".to_string(),
            write_bw_log: Some("x".to_string()),
            write_iops_log: Some(String::new()),
            write_lat_log: Some("out/lat".to_string()),
            ..JobSpec::default()
        };
        assert_eq!(
            names(&job, 3),
            [
                "x_bw.3.log",
                "seq_iops.3.log",
                "out/lat_lat.3.log",
                "out/lat_clat.3.log",
                "out/lat_slat.3.log"
            ]
        );
        assert!(log_files(&JobSpec::default(), 1).is_empty());
    }

    #[test]
    fn shared_logs_have_no_number_and_append() {
        let job = JobSpec {
            write_bw_log: Some("x".to_string()),
            per_job_logs: false,
            ..JobSpec::default()
        };
        let files = log_files(&job, 2);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, PathBuf::from("x_bw.log"));
        assert!(files[0].append);
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let job = JobSpec {
            write_lat_log: Some(dir.path().join("no/such/x").display().to_string()),
            ..JobSpec::default()
        };
        let error = open_recorder(&job, &log_files(&job, 1)).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("no/such/x_lat.1.log"), "{text}");
        assert!(text.contains("cannot create the log file"), "{text}");
    }

    #[test]
    fn files_are_created_truncated_or_appended() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("x").display().to_string();
        let mut job = JobSpec {
            write_iops_log: Some(prefix),
            ..JobSpec::default()
        };
        let own = dir.path().join("x_iops.1.log");
        std::fs::write(&own, "old\n").unwrap();
        let recorder = open_recorder(&job, &log_files(&job, 1)).unwrap().unwrap();
        recorder.finish(0).unwrap();
        assert_eq!(std::fs::read_to_string(&own).unwrap(), "");
        job.per_job_logs = false;
        let shared = dir.path().join("x_iops.log");
        std::fs::write(&shared, "old\n").unwrap();
        let recorder = open_recorder(&job, &log_files(&job, 1)).unwrap().unwrap();
        recorder.finish(0).unwrap();
        assert_eq!(std::fs::read_to_string(&shared).unwrap(), "old\n");
    }
}
