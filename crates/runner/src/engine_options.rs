//! fio's engine options of io_uring and libaio (`sqthread_poll`, `sqthread_poll_cpu`,
//! `hipri`, `nonvectored`, `uncached`, `nowait`, `force_async`, `userspace_reap`): what the
//! engine is told ([`tuning`]) and the checks made when the run is planned, so a job that
//! cannot work stops before any IO with the reason ([`check_job`], [`check_targets`]).
//!
//! fio reads an engine's options only once that engine is loaded, so an io_uring option in
//! a psync job is an unknown option to fio; diskmeter says which engine the option is of.
//! `hipri` polls for completions, which the kernel does only for O_DIRECT IO to a device
//! with poll queues (`/sys/block/DEV/queue/io_poll` = 1; NVMe gets them from its
//! `poll_queues` module parameter); elsewhere fio's IOs fail with EOPNOTSUPP one by one,
//! diskmeter refuses the job and names the device.

use crate::prepare::TargetPlan;
use crate::safety::TargetKind;
use crate::RunError;
use diskmeter_engine::EngineTuning;
use diskmeter_workload::{EngineKind, JobSpec};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The engine options of `job` as the engine takes them.
pub(crate) fn tuning(job: &JobSpec) -> EngineTuning {
    let system = &job.system;
    EngineTuning {
        sqthread_poll: system.sqthread_poll,
        sqthread_poll_cpu: system.sqthread_poll_cpu,
        hipri: system.hipri,
        vectored: system.nonvectored == 0,
        nowait: system.nowait,
        force_async_every: system.force_async,
        userspace_reap: system.userspace_reap,
        per_io_priority: system.cmdprio.is_set(),
    }
}

/// The engine options `job` sets, each with the engines it belongs to.
fn options_set(job: &JobSpec) -> Vec<(&'static str, &'static [EngineKind])> {
    const URING: &[EngineKind] = &[EngineKind::IoUring];
    const BOTH: &[EngineKind] = &[EngineKind::IoUring, EngineKind::Libaio];
    const AIO: &[EngineKind] = &[EngineKind::Libaio];
    let system = &job.system;
    let mut set = Vec::new();
    let mut add = |on: bool, name, engines| {
        if on {
            set.push((name, engines));
        }
    };
    add(system.sqthread_poll, "sqthread_poll", URING);
    add(
        system.sqthread_poll_cpu.is_some(),
        "sqthread_poll_cpu",
        URING,
    );
    add(system.hipri, "hipri", URING);
    add(system.nonvectored != -1, "nonvectored", URING);
    add(system.force_async > 0, "force_async", URING);
    add(system.nowait, "nowait", BOTH);
    add(system.userspace_reap, "userspace_reap", AIO);
    add(
        system.cmdprio.percentage.is_some(),
        "cmdprio_percentage",
        BOTH,
    );
    add(system.cmdprio.bssplit.is_some(), "cmdprio_bssplit", BOTH);
    set
}

/// Refuses engine options of another engine than the job's, and `hipri` without O_DIRECT.
pub(crate) fn check_job(job: &JobSpec) -> Result<(), RunError> {
    let refuse = |message: String| RunError::Job {
        job: job.name.clone(),
        message,
    };
    for (option, engines) in options_set(job) {
        if !engines.contains(&job.ioengine) {
            let names: Vec<&str> = engines.iter().map(|e| e.as_str()).collect();
            return Err(refuse(format!(
                "{option} is an option of the {} engine, and this job's ioengine is {} (fio \
                 does not know the option without that engine either)",
                names.join(" and "),
                job.ioengine.as_str()
            )));
        }
    }
    if job.system.cmdprio.percentage.is_some() && job.system.cmdprio.bssplit.is_some() {
        return Err(refuse(
            "cmdprio_percentage and cmdprio_bssplit both say which IOs get a priority: give \
             one (fio refuses both too)"
                .to_string(),
        ));
    }
    if job.system.hipri && !job.direct {
        return Err(refuse(
            "hipri=1 polls for completions, which the kernel does only for O_DIRECT IO: set \
             direct=1"
                .to_string(),
        ));
    }
    Ok(())
}

/// With `hipri`, refuses targets whose device cannot poll, naming it.
pub(crate) fn check_targets(
    job: &JobSpec,
    targets: &[usize],
    all: &[TargetPlan],
) -> Result<(), RunError> {
    if !job.system.hipri {
        return Ok(());
    }
    for &index in targets {
        let target = &all[index];
        if target.kind == TargetKind::Virtual {
            continue;
        }
        if let Err(reason) = can_poll(&target.path, target.kind) {
            return Err(RunError::Job {
                job: job.name.clone(),
                message: format!("hipri=1: {}: {reason}", target.path.display()),
            });
        }
    }
    Ok(())
}

/// Whether the block device under `path` has poll queues; the reason when not.
fn can_poll(path: &Path, kind: TargetKind) -> Result<(), String> {
    // A file that does not exist yet will be created in its folder, on that folder's device.
    let probe: PathBuf = if path.exists() {
        path.to_path_buf()
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let meta = std::fs::metadata(&probe).map_err(|e| format!("cannot look at it ({e})"))?;
    let dev = if kind == TargetKind::BlockDevice {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    if major == 0 || !sys.exists() {
        return Err(
            "its file system is not on a block device (tmpfs, overlay, ...), so there is \
             nothing to poll"
                .to_string(),
        );
    }
    // A partition has no queue of its own: its disk's is one folder up.
    let queue = [sys.join("queue"), sys.join("../queue")]
        .into_iter()
        .find(|q| q.exists())
        .ok_or_else(|| format!("{} has no queue folder", sys.display()))?;
    let device = std::fs::canonicalize(&queue)
        .ok()
        .and_then(|q| {
            q.parent()
                .and_then(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| format!("{major}:{minor}"));
    let io_poll = std::fs::read_to_string(queue.join("io_poll")).unwrap_or_default();
    if io_poll.trim() == "1" {
        Ok(())
    } else {
        Err(format!(
            "its device {device} has no poll queues (/sys/block/{device}/queue/io_poll is \
             {}); NVMe gets them from the nvme module's poll_queues parameter, and other \
             devices (virtio, loop, SCSI) cannot poll; leave hipri out",
            if io_poll.trim().is_empty() {
                "missing"
            } else {
                io_poll.trim()
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(options: &[(&str, &str)]) -> JobSpec {
        JobSpec {
            name: "j".to_string(),
            ..crate::test_jobs::job(options)
        }
    }

    #[test]
    fn an_option_of_another_engine_is_refused_naming_both() {
        let error = check_job(&job(&[("ioengine", "psync"), ("sqthread_poll", "1")]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("sqthread_poll is an option of the io_uring engine, and this job's ioengine is psync"),
            "{error}"
        );
        let error = check_job(&job(&[("ioengine", "io_uring"), ("userspace_reap", "1")]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("of the libaio engine"), "{error}");
        assert!(check_job(&job(&[("ioengine", "libaio"), ("nowait", "1")])).is_ok());
    }

    #[test]
    fn hipri_needs_direct_io() {
        let error = check_job(&job(&[("ioengine", "io_uring"), ("hipri", "1")]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("set direct=1"), "{error}");
    }

    #[test]
    fn a_folder_on_a_device_without_poll_queues_is_refused_naming_the_device() {
        // This machine's disks (virtio, loop) have no poll queues; the reason names one.
        let dir = tempfile::tempdir().unwrap();
        match can_poll(&dir.path().join("data"), TargetKind::File) {
            Ok(()) => eprintln!("this machine's disk polls: nothing to check"),
            Err(reason) => assert!(
                reason.contains("has no poll queues") || reason.contains("not on a block device"),
                "{reason}"
            ),
        }
    }
}
