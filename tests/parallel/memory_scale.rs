//! Memory that scales with the work, not the jobs (issue 33): a 1,024-job null run completes
//! inside a 2 GiB memory cgroup, and the kernel's OOM killer never fires there. Before the
//! issue each worker held ~7 MB of histograms from its start, so this run needed ~7 GB and
//! was killed; it now peaks near 130 MiB (bench/RESULTS.md, "Memory per job").
//!
//! The run is size-bound (16 MiB of 4 KiB reads per job, ~4 s on a busy 2-core VM) rather
//! than time-bound: a 1 s time-based run of 1,024 threads took 5-48 s there to stop, as each
//! thread needs a turn on a CPU to see its time is up. A cgroup's charge is the group's own,
//! so the figure does not depend on what runs beside the test.

use crate::common;

use common::{require_root, TestDir};
use std::path::PathBuf;

const LIMIT_BYTES: u64 = 2 << 30;

/// A fresh memory cgroup with a limit, removed when dropped (after its process exited).
struct MemoryCgroup {
    path: PathBuf,
    /// cgroup v1 names its files differently from v2.
    v1: bool,
}

impl MemoryCgroup {
    /// `None` when the machine has no memory controller this test can use.
    fn new(name: &str, limit_bytes: u64) -> Option<MemoryCgroup> {
        let (root, v1) =
            if std::path::Path::new("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists() {
                ("/sys/fs/cgroup/memory", true)
            } else if std::fs::read_to_string("/sys/fs/cgroup/cgroup.subtree_control")
                .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"))
            {
                ("/sys/fs/cgroup", false)
            } else {
                return None;
            };
        let path = PathBuf::from(root).join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir(&path).expect("create the memory cgroup");
        let group = MemoryCgroup { path, v1 };
        let limit = if v1 {
            "memory.limit_in_bytes"
        } else {
            "memory.max"
        };
        group.write(limit, &limit_bytes.to_string());
        Some(group)
    }

    fn write(&self, file: &str, value: &str) {
        std::fs::write(self.path.join(file), value)
            .unwrap_or_else(|e| panic!("write {value} to {}/{file}: {e}", self.path.display()));
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.path.join(file))
            .unwrap_or_else(|e| panic!("read {}/{file}: {e}", self.path.display()))
    }

    /// A shell command line that runs `command` inside the group.
    fn wrap(&self, command: &str) -> String {
        format!(
            "echo $$ > '{}/cgroup.procs' && exec {command}",
            self.path.display()
        )
    }

    /// Processes the OOM killer ended in the group.
    fn oom_kills(&self) -> u64 {
        let file = if self.v1 {
            "memory.oom_control"
        } else {
            "memory.events"
        };
        self.read(file)
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .map_or(0, |n| n.trim().parse().expect("an oom_kill count"))
    }

    /// The group's peak charge, bytes, where the kernel keeps one.
    fn peak_bytes(&self) -> Option<u64> {
        let file = if self.v1 {
            "memory.max_usage_in_bytes"
        } else {
            "memory.peak"
        };
        std::fs::read_to_string(self.path.join(file))
            .ok()
            .and_then(|t| t.trim().parse().ok())
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // The process was waited for, so the group is empty; the kernel may still be
        // uncharging it for a moment.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("could not remove {}", self.path.display());
    }
}

#[test]
fn issue_33_a_1024_job_null_run_completes_under_a_2_gib_memory_cgroup() {
    let test = "issue_33_a_1024_job_null_run_completes_under_a_2_gib_memory_cgroup";
    if !require_root(test) {
        return;
    }
    let Some(group) = MemoryCgroup::new("diskmeter-test-memory", LIMIT_BYTES) else {
        common::skip(
            test,
            "no memory cgroup controller (v1 or v2) to limit the run",
        );
        return;
    };
    let dir = TestDir::new();
    let run = format!(
        "'{}' run --no-save --name=t --ioengine=null --rw=read --iodepth=32 --bs=4k \
         --size=16m --numjobs=1024 --output-format=json",
        common::binary().display()
    );
    let out = std::process::Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg(group.wrap(&run))
        .output()
        .expect("run diskmeter");
    let peak = group.peak_bytes();
    assert_eq!(
        group.oom_kills(),
        0,
        "the OOM killer fired (peak {peak:?} bytes)"
    );
    assert!(
        out.status.success(),
        "exit {:?}, peak {peak:?} bytes: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON result");
    let jobs = result["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 1024);
    assert!(
        jobs.iter().all(|j| j["read"]["ios"] == 4096),
        "every job read its 16 MiB"
    );
    eprintln!("1,024 null jobs peaked at {peak:?} bytes in the cgroup");
}
