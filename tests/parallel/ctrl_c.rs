//! Ctrl-C at a random moment of `run`, `suite` and `sweep`: whatever the moment, the results
//! measured so far are printed and saved in the history (marked partial), the test files are
//! removed, and the exit code is the same (1) every time.
//!
//! The moments are random on purpose (the seed is printed, to replay a failure with
//! `DISKMETER_TEST_SEED`): layout, the middle of a step, between two steps, the last
//! moments of a run.

use crate::common;

use common::TestDir;
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Interrupts per command; each is a new random moment.
const TRIALS: usize = 3;

/// A small xorshift generator: the moments need no more than that, and a printed seed.
struct Moments(u64);

impl Moments {
    fn new(test: &str) -> Moments {
        let seed = std::env::var("DISKMETER_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
                    | 1
            });
        eprintln!("{test}: DISKMETER_TEST_SEED={seed}");
        Moments(seed)
    }

    /// A moment uniformly in [0, `within`).
    fn next(&mut self, within: Duration) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        within.mul_f64((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// What one interrupted command left behind.
struct Interrupted {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    at: Duration,
}

/// Starts `diskmeter ARGS` in `dir`, sends SIGINT `moment` after its handler is installed,
/// and collects what it printed.
fn interrupt(dir: &Path, args: &[&str], moment: Duration) -> Interrupted {
    let child = common::process()
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskmeter");
    let started = Instant::now();
    while !common::catches_sigint(child.id()) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "diskmeter never installed its SIGINT handler"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(moment);
    // SAFETY: sends a signal to our own child, which has not been waited for.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let output = child.wait_with_output().expect("wait for diskmeter");
    Interrupted {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        at: moment,
    }
}

/// The runs the history at `db` holds.
fn saved_runs(db: &Path) -> Vec<Value> {
    if !db.exists() {
        return Vec::new();
    }
    let output = common::process()
        .args(["history", "--format", "json", "--db"])
        .arg(db)
        .output()
        .expect("diskmeter history");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice::<Value>(&output.stdout)
        .expect("history JSON")
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The checks every interrupted command must pass; `measured` says how many steps' results
/// its output shows.
fn check(what: &str, run: &Interrupted, measured: usize, db: &Path, work: &TestDir) {
    let context = format!(
        "{what}, SIGINT {:?} after the handler was installed\nstderr:\n{}\nstdout:\n{}",
        run.at, run.stderr, run.stdout
    );
    assert_eq!(run.code, Some(1), "exit code: {context}");
    assert!(run.stderr.contains("interrupted"), "{context}");
    assert!(
        work.files().is_empty(),
        "files left: {:?}; {context}",
        work.files()
    );
    let runs = saved_runs(db);
    if measured == 0 {
        assert!(
            run.stderr.contains("nothing was measured"),
            "no results printed: {context}"
        );
        assert!(runs.is_empty(), "nothing measured, but saved: {context}");
    } else {
        assert_eq!(runs.len(), 1, "saved runs: {runs:?}; {context}");
        assert_eq!(runs[0]["steps"], measured as u64, "{context}");
        assert_eq!(runs[0]["partial"], true, "{context}");
    }
}

/// Runs `diskmeter ARGS --quiet --output-format=json --db DB` [`TRIALS`] times in new
/// folders, each interrupted at a random moment within `within` of its handler being
/// installed, and [`check`]s each; `measured` reads from the JSON output how many steps'
/// results it shows (an empty output shows none).
fn interrupt_trials(what: &str, args: &[&str], within: Duration, measured: fn(&Value) -> usize) {
    let mut moments = Moments::new(what);
    for trial in 0..TRIALS {
        let (work, history) = (TestDir::new(), TestDir::new());
        let db = history.path().join("history.db");
        let mut all = args.to_vec();
        all.extend([
            "--quiet",
            "--output-format=json",
            "--db",
            db.to_str().unwrap(),
        ]);
        let run = interrupt(work.path(), &all, moments.next(within));
        let shown = if run.stdout.trim().is_empty() {
            0
        } else {
            let v: Value = serde_json::from_str(&run.stdout)
                .unwrap_or_else(|e| panic!("{what}, trial {trial}: stdout is not JSON: {e}"));
            measured(&v)
        };
        check(&format!("{what}, trial {trial}"), &run, shown, &db, &work);
    }
}

#[test]
fn ctrl_c_at_a_random_moment_of_a_run_keeps_what_was_measured() {
    let args = [
        "run",
        "--name=c",
        "--rw=randrw",
        "--bs=4k",
        "--size=16m",
        "--direct=1",
        "--runtime=2",
        "--time_based",
    ];
    interrupt_trials("run", &args, Duration::from_secs(2), |v| {
        assert_eq!(v["meta"]["partial"], true, "{v}");
        1
    });
}

#[test]
fn ctrl_c_at_a_random_moment_of_a_suite_keeps_the_finished_steps() {
    let args = [
        "suite",
        "quick",
        ".",
        "--size=16m",
        "--runtime=1",
        "--no-auto-stop",
    ];
    // Eight steps of a second: the moment falls anywhere in the first six.
    interrupt_trials("suite", &args, Duration::from_secs(6), |v| {
        let steps = v["steps"].as_array().expect("steps").len();
        assert!(steps < 8, "the suite was not cut short");
        steps
    });
}

#[test]
fn ctrl_c_at_a_random_moment_of_a_sweep_keeps_the_finished_points() {
    let args = [
        "sweep",
        ".",
        "--qd=1,4,16",
        "--bs=4k,64k",
        "--point-time=400ms",
        "--ramp=0",
        "--size=16m",
        "--charts=none",
    ];
    // Six points of 0.4 s.
    interrupt_trials("sweep", &args, Duration::from_millis(2200), |v| {
        let points: usize = v["sweeps"]
            .as_array()
            .expect("sweeps")
            .iter()
            .map(|s| {
                // The point the interrupt cut short is saved too, listed apart (issue 27).
                let count = |key: &str| s[key].as_array().map_or(0, Vec::len);
                count("points") + count("partial_points")
            })
            .sum();
        assert!(points < 6, "the sweep was not cut short");
        points
    });
}

#[test]
fn ctrl_c_at_a_random_moment_of_a_curve_keeps_the_finished_points() {
    // The curve's steps are chosen as it goes (issue 31): the maximum, then four shares of
    // 0.4 s, under a service time so the shares are paced below a rate the file can give.
    let args = [
        "sweep",
        ".",
        "--curve",
        "--curve-shares=25,50,75,100",
        "--qd=4",
        "--throttle-latency=1ms",
        "--point-time=400ms",
        "--ramp=0",
        "--size=16m",
        "--charts=none",
    ];
    interrupt_trials("curve", &args, Duration::from_millis(1800), |v| {
        let points = v["curve"]["points"].as_array().expect("points").len();
        assert!(points < 5, "the curve was not cut short");
        points
    });
}

#[test]
fn a_suite_killed_mid_way_keeps_its_finished_steps_in_the_history() {
    let (work, history) = (TestDir::new(), TestDir::new());
    let db = history.path().join("history.db");
    let mut child = common::process()
        .current_dir(work.path())
        .args([
            "suite",
            "quick",
            ".",
            "--quiet",
            "--size=16m",
            "--runtime=1",
        ])
        .args(["--no-auto-stop", "--db"])
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start diskmeter");
    let started = Instant::now();
    // Kill it (no chance to clean up or finish the run) once two steps are saved.
    let saved = loop {
        let runs = saved_runs(&db);
        if runs.first().is_some_and(|r| r["steps"].as_u64() >= Some(2)) {
            child.kill().expect("SIGKILL diskmeter");
            break runs;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "two steps never reached the history"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = child.wait();
    let runs = saved_runs(&db);
    assert_eq!(runs.len(), 1, "{runs:?}");
    let steps = runs[0]["steps"].as_u64().unwrap();
    assert!(
        (2..8).contains(&steps),
        "{runs:?} (seen before the kill: {saved:?})"
    );
    assert_eq!(runs[0]["unfinished"], true, "{runs:?}");
    assert_eq!(runs[0]["partial"], true, "{runs:?}");
}
