//! fio's placement, priority, engine and exec options (issue 15, "system"): CPU sets split
//! between clones, NUMA nodes checked against the machine, priorities applied to the
//! workers, io_uring's and libaio's own options, and exec_prerun/exec_postrun only with
//! `--allow-exec`.

use crate::common;

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

/// Reads plus writes, and errors, of a JSON run's first job.
fn ios_and_errors(v: &serde_json::Value) -> (u64, u64) {
    let job = &v["jobs"][0];
    let get = |d: &str, f: &str| job[d][f].as_u64().unwrap();
    (
        get("read", "ios") + get("write", "ios"),
        get("read", "errors") + get("write", "errors"),
    )
}

/// The same 16 MiB of 4 KiB direct random IO under each engine option: every IO done, none
/// failed.
#[test]
fn engine_options_do_every_io() {
    let _turn = common::real_io();
    let dir = TestDir::new();
    let engine_options: [&[&str]; 5] = [
        &[
            "--ioengine=io_uring",
            "--sqthread_poll=1",
            "--sqthread_poll_cpu=0",
        ],
        &["--ioengine=io_uring", "--nonvectored=0", "--force_async=4"],
        &["--ioengine=io_uring", "--nowait=1", "--fixedbufs=1"],
        &["--ioengine=io_uring", "--nonvectored=1", "--uncached=0"],
        &["--ioengine=libaio", "--userspace_reap=1", "--nowait=1"],
    ];
    for options in engine_options {
        let mut args = vec![
            "--name=e",
            "--filename=data",
            "--size=8m",
            "--direct=1",
            "--rw=randrw",
            "--bs=4k",
            "--iodepth=8",
            "--io_size=16m",
        ];
        args.extend_from_slice(options);
        let v = dir.run_json(&args);
        assert_eq!(ios_and_errors(&v), (4096, 0), "{options:?}");
    }
}

#[test]
fn hipri_on_a_device_without_poll_queues_is_refused_naming_it() {
    let (text, code) = run(&[
        "--name=h",
        "--filename=data",
        "--size=1m",
        "--direct=1",
        "--ioengine=io_uring",
        "--hipri",
    ]);
    if code == 0 {
        eprintln!("this machine's disk has poll queues: nothing to refuse");
        return;
    }
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("hipri=1: data: "), "{text}");
    assert!(
        text.contains("has no poll queues") || text.contains("not on a block device"),
        "{text}"
    );
}

#[test]
fn an_engine_option_of_another_engine_is_refused_naming_the_engines() {
    let (text, code) = run(&[
        "--name=o",
        "--ioengine=psync",
        "--size=1m",
        "--sqthread_poll=1",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(
            "sqthread_poll is an option of the io_uring engine, and this job's ioengine is psync"
        ),
        "{text}"
    );
}

#[test]
fn uncached_is_refused_with_the_reason() {
    let (text, code) = run(&["--name=u", "--ioengine=io_uring", "--uncached=1"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("RWF_UNCACHED, a flag Linux never merged"),
        "{text}"
    );
}

#[test]
fn exec_prerun_and_postrun_are_refused_without_allow_exec() {
    let (text, code) = run(&[
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--exec_prerun=touch ran",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("exec_prerun runs a shell command from the job; diskmeter runs such commands only when asked: pass --allow-exec"),
        "{text}"
    );
}

#[test]
fn exec_prerun_and_postrun_run_with_allow_exec_and_keep_their_output() {
    let dir = TestDir::new();
    let v = dir.run_json(&[
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--exec_prerun=echo before; ls x.prerun.txt",
        "--exec_postrun=echo after >&2",
        "--allow-exec",
    ]);
    assert_eq!(v["jobs"][0]["read"]["ios"], 256);
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("x.prerun.txt"), "before\nx.prerun.txt\n");
    assert_eq!(read("x.postrun.txt"), "after\n");
    // A failing prerun ends the job before its IO, naming the command.
    let out = dir
        .run(&[
            "--name=y",
            "--ioengine=null",
            "--size=1m",
            "--exec_prerun=exit 3",
            "--allow-exec",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("exec_prerun `exit 3` failed (exit status: 3)"),
        "{text}"
    );
}

/// The first line of `dir/NAME` split into its columns.
fn first_line(dir: &std::path::Path, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    text.lines()
        .next()
        .unwrap_or_else(|| panic!("{name} is empty"))
        .split(", ")
        .map(str::to_string)
        .collect()
}

/// `log_prio` with a job priority, `log_unix_epoch` and `log_max_value`: the columns fio
/// writes for the same job (Unix ms; an averaged line's priority is `0x0000`, a line per IO
/// carries `0x4003`, best effort level 3).
#[test]
fn log_prio_unix_epoch_and_max_value_write_fios_columns() {
    let _turn = common::real_io();
    let (ours, theirs) = (TestDir::new(), TestDir::new());
    let job = [
        "--name=l",
        "--filename=data",
        "--size=1m",
        "--ioengine=libaio",
        "--rw=randread",
        "--write_lat_log=l",
        "--log_prio=1",
        "--prioclass=2",
        "--prio=3",
        "--log_unix_epoch=1",
        "--log_avg_msec=100",
        "--log_max_value=1",
    ];
    if !common::require_tool(
        "log_prio_unix_epoch_and_max_value_write_fios_columns",
        "fio",
    ) {
        return;
    }
    let out = std::process::Command::new("fio")
        .current_dir(theirs.path())
        .arg("--output=/dev/null")
        .args(job)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = ours.run_json(&job);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    for dir in [ours.path(), theirs.path()] {
        let line = first_line(dir, "l_clat.1.log");
        assert_eq!(line.len(), 5, "{line:?}");
        assert_eq!(line[4], "0x0000", "{}: {line:?}", dir.display());
        let time: u64 = line[0].parse().unwrap();
        assert!(now_ms - time < 600_000, "a Unix time in ms: {line:?}");
    }
    // One window: its line is the largest completion latency of the run.
    let line = first_line(ours.path(), "l_clat.1.log");
    assert_eq!(
        line[1].parse::<u64>().unwrap(),
        v["jobs"][0]["read"]["clat"]["max_ns"].as_u64().unwrap()
    );
    // A line per IO carries the job's priority.
    let job: Vec<&str> = job
        .iter()
        .copied()
        .filter(|o| !o.starts_with("--log_avg"))
        .collect();
    ours.run_json(&job);
    assert_eq!(first_line(ours.path(), "l_clat.1.log")[4], "0x4003");
}

#[test]
fn log_compression_is_refused_with_the_reason() {
    let (text, code) = run(&["--name=c", "--ioengine=null", "--log_compression=1m"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("only `fio --inflate-log` reads back"),
        "{text}"
    );
}

/// Per-IO priorities (fio's cmdprio examples, on a file): every IO done with io_uring and
/// libaio, the kernel taking the priorities in the IOs.
#[test]
fn cmdprio_percentage_and_bssplit_do_every_io() {
    let _turn = common::real_io();
    let dir = TestDir::new();
    let cmdprio: [&[&str]; 3] = [
        &[
            "--cmdprio_percentage=20",
            "--cmdprio_class=1",
            "--prioclass=3",
        ],
        &[
            "--bssplit=4k/40:64k/60,64k/100",
            "--cmdprio_bssplit=4k/100:64k/0,64k/0",
            "--cmdprio_class=1",
            "--cmdprio=0",
        ],
        &[
            "--bssplit=4k/40:64k/60,64k/100",
            "--cmdprio_bssplit=4k/25/1/1:4k/75/3/2:64k/0,64k/0",
            "--prioclass=2",
            "--prio=7",
        ],
    ];
    for engine in ["--ioengine=io_uring", "--ioengine=libaio"] {
        for options in cmdprio {
            let mut args = vec![
                "--name=p",
                "--filename=data",
                "--size=8m",
                "--direct=1",
                "--rw=randrw",
                "--iodepth=8",
                "--io_size=4m",
                engine,
            ];
            args.extend_from_slice(options);
            let v = dir.run_json(&args);
            let (ios, errors) = ios_and_errors(&v);
            assert!(
                ios > 0 && errors == 0,
                "{engine} {options:?}: {ios} IOs, {errors} errors"
            );
        }
    }
    let (text, code) = run(&[
        "--name=p",
        "--ioengine=io_uring",
        "--size=1m",
        "--cmdprio_percentage=10",
        "--cmdprio_bssplit=4k/10",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("give one"), "{text}");
}
