//! fio's placement, priority, engine and exec options (issue 15, "system"): CPU sets split
//! between clones, NUMA nodes checked against the machine, priorities applied to the
//! workers, io_uring's and libaio's own options, and exec_prerun/exec_postrun only with
//! `--allow-exec`.

mod common;

use common::TestDir;

/// stdout and stderr of `diskmeter run --quiet ARGS` in a new folder, and its exit code.
fn run(args: &[&str]) -> (String, i32) {
    let dir = TestDir::new();
    let out = dir.run(args).output().expect("run diskmeter");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, out.status.code().unwrap_or(-1))
}

#[test]
fn split_gives_each_clone_its_own_cpu() {
    let (text, code) = run(&[
        "--name=s",
        "--ioengine=null",
        "--size=1m",
        "--numjobs=3",
        "--cpus_allowed=0-1",
        "--cpus_allowed_policy=split",
        "--dry-run",
    ]);
    assert_eq!(code, 0, "{text}");
    let cpus: Vec<&str> = text.lines().filter(|l| l.contains("on CPUs")).collect();
    assert_eq!(
        cpus,
        ["  #   on CPUs 0", "  #   on CPUs 1", "  #   on CPUs 0"],
        "{text}"
    );
}

#[test]
fn a_numa_node_the_machine_lacks_stops_the_run_naming_it() {
    for option in ["--numa_cpu_nodes=0,63", "--numa_mem_policy=interleave:0,63"] {
        let (text, code) = run(&["--name=n", "--ioengine=null", "--size=1m", option]);
        assert_ne!(code, 0, "{text}");
        assert!(
            text.contains("NUMA node 63 does not exist on this machine"),
            "{text}"
        );
    }
}

#[test]
fn placement_and_priorities_apply_to_the_workers() {
    let (text, code) = run(&[
        "--name=p",
        "--ioengine=null",
        "--size=4m",
        "--numjobs=2",
        "--cpumask=0x1",
        "--numa_cpu_nodes=0",
        "--numa_mem_policy=bind:0",
        "--nice=5",
        "--prioclass=2",
        "--prio=6",
    ]);
    assert_eq!(code, 0, "{text}");
}
