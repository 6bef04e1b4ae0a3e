//! The memory guard (issue 17): a job whose IO buffers (iodepth x its largest block size x
//! numjobs, summed over the jobs that run at once) need more than the machine's
//! MemAvailable is refused before any file is laid out, with one line giving both figures
//! and exit code 1, whichever front-end it came from; the same job with a small queue runs;
//! `--dry-run` shows the refusal as a note. The refused runs are started under a virtual
//! memory limit, so a guard that let one through fails its allocation instead of pushing
//! the test machine out of memory.

use crate::common;

use common::TestDir;

/// 4096 slots of 4 MiB: 16 GiB (and a huge page of slack) per worker.
const SLOT_MIB: u64 = 4;
const IODEPTH: u64 = 4096;

/// Workers enough for their buffers to need twice the memory available now.
fn workers_beyond_memory() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").expect("read /proc/meminfo");
    let available_kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .expect("MemAvailable in /proc/meminfo");
    let per_worker_kib = IODEPTH * SLOT_MIB * 1024;
    (2 * available_kib).div_ceil(per_worker_kib).max(1)
}

/// `diskmeter ARGS` in `dir` under an 8 GiB address-space limit (`ulimit -v`).
fn limited(dir: &TestDir, args: &[String]) -> std::process::Output {
    let binary = common::binary();
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    std::process::Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!(
            "ulimit -v 8388608 && exec '{}' {}",
            binary.display(),
            quoted.join(" ")
        ))
        .output()
        .expect("run diskmeter")
}

fn job(iodepth: u64, numjobs: u64) -> Vec<String> {
    [
        "run",
        "--no-save",
        "--name=big",
        "--filename=big.dat",
        "--size=4m",
        &format!("--bs={SLOT_MIB}m"),
        &format!("--iodepth={iodepth}"),
        &format!("--numjobs={numjobs}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The guard's line, as the job's factors make it.
fn expected_start(name: &str, numjobs: u64) -> String {
    format!(
        "diskmeter: job {name}: its IO buffers need {:.1} GiB (iodepth {IODEPTH} x bs \
         {SLOT_MIB} MiB x numjobs {numjobs}), more than the ",
        (numjobs * (IODEPTH * SLOT_MIB + 2)) as f64 / 1024.0
    )
}

#[test]
fn a_job_whose_buffers_exceed_the_memory_available_is_refused_before_layout() {
    let dir = TestDir::new();
    let numjobs = workers_beyond_memory();
    let out = limited(&dir, &job(IODEPTH, numjobs));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("IO buffers need"))
        .unwrap_or_else(|| panic!("no refusal: {stderr}"));
    assert!(
        line.starts_with(&expected_start("big", numjobs))
            && line.contains(" GiB available (MemAvailable); lower iodepth, bs or numjobs"),
        "{line}"
    );
    assert!(dir.files().is_empty(), "laid out: {:?}", dir.files());
    // The same job with 4 IOs in flight needs 54 MiB, and runs.
    let out = limited(&dir, &job(4, numjobs.min(3)));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_dry_run_notes_what_the_guard_would_refuse() {
    let dir = TestDir::new();
    let numjobs = workers_beyond_memory();
    let mut args = job(IODEPTH, numjobs);
    args.push("--dry-run".into());
    let out = limited(&dir, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let note = format!(
        "# note: {}",
        &expected_start("big", numjobs)["diskmeter: ".len()..]
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with(&note) && l.ends_with("; a run would be refused")),
        "{stdout}"
    );
}

#[test]
fn suites_and_diskspd_are_guarded_by_the_same_check() {
    let dir = TestDir::new();
    let numjobs = workers_beyond_memory().to_string();
    let suite = [
        "suite",
        "--no-save",
        "quick",
        "s.dat",
        "--size",
        "4m",
        "--bs",
        "4m",
        "--iodepth",
        "4096",
        "--numjobs",
        &numjobs,
        "--runtime",
        "1",
    ];
    let diskspd = [
        "diskspd",
        "--no-save",
        "-o4096",
        "-b4M",
        &format!("-t{numjobs}"),
        "-c4M",
        "-d1",
        "-W0",
        "d.dat",
    ];
    for args in [&suite[..], &diskspd[..]] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = limited(&dir, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "its IO buffers need {:.1} GiB (iodepth 4096 x bs 4 MiB x numjobs {numjobs})",
                (numjobs.parse::<u64>().unwrap() * (IODEPTH * SLOT_MIB + 2)) as f64 / 1024.0
            )),
            "{args:?}: {stderr}"
        );
        assert!(dir.files().is_empty(), "laid out: {:?}", dir.files());
    }
}
