//! fio's `write_iolog`: every IO a worker issues, as a version 3 log, written through a fixed
//! buffer as the run goes.

use crate::RunError;
use diskmeter_engine::IoOp;
use diskmeter_iolog::{FileAction, IoKind, IologWriter};
use diskmeter_workload::JobSpec;
use std::fs::File;

/// Records what one worker issues.
pub struct IoRecorder {
    writer: IologWriter<File>,
    job_name: String,
    /// The worker's targets, by index.
    files: Vec<String>,
    /// The worker's clock when it started: timestamps count from here.
    start_ns: u64,
}

impl IoRecorder {
    /// Creates the job's `write_iolog` (replacing an older one) with the version 3 header;
    /// `target_names` are the worker's targets in order.
    pub fn create(job: &JobSpec, target_names: &[String]) -> Result<Option<IoRecorder>, RunError> {
        let Some(path) = job.iolog.write_iolog.as_deref() else {
            return Ok(None);
        };
        let writer = IologWriter::create(path).map_err(|source| RunError::Iolog {
            job: job.name.clone(),
            source,
        })?;
        Ok(Some(IoRecorder {
            writer,
            job_name: job.name.clone(),
            files: target_names.to_vec(),
            start_ns: 0,
        }))
    }

    /// The worker's clock started at `start_ns`: the files are added and opened then, as fio
    /// logs them.
    pub fn start(&mut self, start_ns: u64) -> Result<(), RunError> {
        self.start_ns = start_ns;
        for action in [FileAction::Add, FileAction::Open] {
            for index in 0..self.files.len() {
                self.writer
                    .file_action(0, &self.files[index], action)
                    .map_err(|source| self.error(source))?;
            }
        }
        Ok(())
    }

    /// One IO handed to the engine at `now_ns`.
    #[inline]
    pub fn record(
        &mut self,
        now_ns: u64,
        op: IoOp,
        file: u32,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<(), RunError> {
        let kind = match op {
            IoOp::Read => IoKind::Read,
            IoOp::Write => IoKind::Write,
            IoOp::Fsync => IoKind::Sync,
            IoOp::Trim => IoKind::Trim,
            // fio's iolog has no sync_file_range action; datasync is the nearest.
            IoOp::Fdatasync | IoOp::SyncFileRange(_) => IoKind::Datasync,
        };
        let name = self.files.get(file as usize).map_or("", String::as_str);
        self.writer
            .io(
                now_ns.saturating_sub(self.start_ns),
                name,
                kind,
                offset_bytes,
                len_bytes,
            )
            .map_err(|source| self.error(source))
    }

    /// The worker is done at `now_ns`: the files are closed and the log flushed.
    pub fn finish(mut self, now_ns: u64) -> Result<(), RunError> {
        let at = now_ns.saturating_sub(self.start_ns);
        for index in 0..self.files.len() {
            self.writer
                .file_action(at, &self.files[index], FileAction::Close)
                .map_err(|source| self.error(source))?;
        }
        let job_name = self.job_name;
        self.writer
            .finish()
            .map(drop)
            .map_err(|source| RunError::Iolog {
                job: job_name,
                source,
            })
    }

    fn error(&self, source: diskmeter_iolog::IologError) -> RunError {
        RunError::Iolog {
            job: self.job_name.clone(),
            source,
        }
    }
}
