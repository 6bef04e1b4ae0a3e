//! Helpers for integration tests: a temporary folder to run the real `diskmeter` binary in,
//! JSON output parsing, root and tool probes that print why a test is skipped (and fail it
//! under CI, see [`skip`]), fio runs whose failure fails the test, loop devices that are
//! detached when the test ends, and a cgroup (v1 or v2) that throttles a device; a headless
//! Chromium for the browser tests in [`browser`], and `diskmeter serve` in [`serve`].

#![allow(dead_code)]

pub mod browser;
pub mod diskspd;
mod jitter;
pub mod readable;
pub mod serve;
#[allow(unused_imports)] // only tests/alone judges floors against the host's share
pub use jitter::SchedulingJitter;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The results history every diskmeter this test process starts saves into: a folder of its
/// own (XDG_DATA_HOME, inherited by the children), removed when the process exits, so tests
/// never write into the user's history.
pub fn isolate_history() -> PathBuf {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home =
            std::env::temp_dir().join(format!("diskmeter-test-history-{}", std::process::id()));
        std::fs::create_dir_all(&home).expect("create the test history folder");
        std::env::set_var("XDG_DATA_HOME", &home);
        extern "C" fn remove_history() {
            let home =
                std::env::temp_dir().join(format!("diskmeter-test-history-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(home);
        }
        // SAFETY: registers a plain function with no captured state to run at exit.
        unsafe {
            libc::atexit(remove_history);
        }
        home
    })
    .clone()
}

/// The path of the `diskmeter` binary under test, for a test that hands it to another program
/// (a shell, `mpirun`, `timeout`, fio's scripts); the process's history is isolated first
/// ([`isolate_history`]), as for every helper below.
pub fn binary() -> PathBuf {
    isolate_history();
    assert_cmd::cargo::cargo_bin("diskmeter")
}

/// `diskmeter` as an assert_cmd command, in the test's folder (the package's, as cargo runs a
/// test): arguments, a folder and variables are the caller's to add.
pub fn command() -> Command {
    Command::new(binary())
}

/// [`command`] in `dir`.
pub fn command_in(dir: impl AsRef<Path>) -> Command {
    let mut command = command();
    command.current_dir(dir.as_ref());
    command
}

/// `diskmeter` as a std command, for a test that spawns it and signals, stops or reads it
/// while it runs (assert_cmd's command only runs to the end).
pub fn process() -> std::process::Command {
    std::process::Command::new(binary())
}

/// `diskmeter ARGS` in `dir`, with its whole output (for tests that check failures too).
pub fn diskmeter(dir: impl AsRef<Path>, args: &[&str]) -> std::process::Output {
    diskmeter_with_env(dir, &[], args)
}

/// [`diskmeter`] with the variables `env` set.
pub fn diskmeter_with_env(
    dir: impl AsRef<Path>,
    env: &[(&str, &str)],
    args: &[&str],
) -> std::process::Output {
    command_in(dir)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("run diskmeter")
}

/// [`diskmeter`] with `--db DB` after `args`: the history at `db` instead of the process's.
pub fn diskmeter_with_db(
    dir: impl AsRef<Path>,
    db: impl AsRef<Path>,
    args: &[&str],
) -> std::process::Output {
    command_in(dir)
        .args(args)
        .arg("--db")
        .arg(db.as_ref())
        .output()
        .expect("run diskmeter")
}

/// The stdout of a diskmeter that must have succeeded; otherwise the test fails with its
/// exit code, stderr and stdout.
pub fn ok(output: std::process::Output) -> String {
    assert!(
        output.status.success(),
        "failed ({:?}): {}\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Asserts the command failed (exit code 1) with one line on stderr that holds every one of
/// `needles` (the target and the cause) and no panic; returns the line.
pub fn one_line_failure(output: &std::process::Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "exit code; stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} missing from: {stderr}");
    }
    stderr.trim_end().to_string()
}

/// A temporary folder on the real disk (not tmpfs, so O_DIRECT works) that tests run in.
pub struct TestDir {
    dir: tempfile::TempDir,
}

impl TestDir {
    /// A new empty folder under the system temp folder (and the test process's own results
    /// history: see [`isolate_history`]).
    pub fn new() -> TestDir {
        TestDir::under(&std::env::temp_dir())
    }

    /// A new empty folder in memory (/dev/shm, tmpfs, which takes O_DIRECT on the test
    /// machines' kernel: docs of the test environment), for a test whose loop devices must
    /// not wait on the host disk: an ext4 journal commit under a loop device's backing file
    /// stalls its IO for hundreds of milliseconds now and then, which a rate judged second by
    /// second cannot absorb. Falls back to [`TestDir::new`] where there is no /dev/shm.
    pub fn in_memory() -> TestDir {
        let shm = Path::new("/dev/shm");
        if !shm.is_dir() {
            return TestDir::new();
        }
        TestDir::under(shm)
    }

    /// A new empty folder under `parent`, with the test process's own history.
    fn under(parent: &Path) -> TestDir {
        isolate_history();
        TestDir {
            dir: tempfile::Builder::new()
                .prefix("diskmeter-test-")
                .tempdir_in(parent)
                .unwrap_or_else(|e| panic!("create a temp folder in {}: {e}", parent.display())),
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `diskmeter run --quiet ARGS...` in this folder.
    pub fn run(&self, args: &[&str]) -> Command {
        let mut cmd = command_in(self.path());
        cmd.arg("run").arg("--quiet").args(args);
        cmd
    }

    /// Runs `diskmeter run --output-format=json ARGS...`, asserts success, returns the JSON.
    pub fn run_json(&self, args: &[&str]) -> serde_json::Value {
        let output = self
            .run(args)
            .arg("--output-format=json")
            .output()
            .expect("run diskmeter");
        assert!(
            output.status.success(),
            "diskmeter failed: {}\n{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        );
        serde_json::from_slice(&output.stdout).expect("stdout is pure JSON")
    }

    /// Names of the files in the folder, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.path())
            .expect("read the test folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

/// Whether this is a CI run: CI services set `CI=true` (any value but empty, `0` or `false`
/// counts). CI runs `scripts/test` as root, which installs every tool the tests need, so there
/// a missing requirement is a broken machine and [`skip`] fails the test instead.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Skips the calling test, which must then return: prints `SKIP test: reason` to stderr; under
/// CI ([`in_ci`]) fails the test with the reason instead, so nothing skips silently there.
pub fn skip(test: &str, reason: &str) {
    if in_ci() {
        panic!("{test} cannot run: {reason}; CI (CI=true) runs every test, none may skip");
    }
    eprintln!("SKIP {test}: {reason}");
}

/// True once process `pid` catches SIGINT: diskmeter installs its handler when its session
/// opens, and a signal before that would end the process the default way.
pub fn catches_sigint(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGINT - 1)) != 0)
}

/// Whether the test runs with root's effective uid.
pub fn is_root() -> bool {
    // SAFETY: geteuid takes no arguments, touches no memory and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// True when running as root; otherwise skips the test (see [`skip`]).
pub fn require_root(test: &str) -> bool {
    let root = is_root();
    if !root {
        skip(
            test,
            "needs root (loop devices, mounts, cgroups); CI runs as root",
        );
    }
    root
}

/// True when `tool` is on PATH; otherwise skips the test (see [`skip`]).
pub fn require_tool(test: &str, tool: &str) -> bool {
    let found = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        skip(
            test,
            &format!("`{tool}` is not installed (scripts/test installs it as root)"),
        );
    }
    found
}

/// `fio --output-format=json` to run in `dir` (add its options, then [`fio_json`]); `None`
/// where fio is not installed, the only reason a comparison with fio may skip (see [`skip`]).
pub fn fio_command(test: &str, dir: &Path) -> Option<std::process::Command> {
    if !require_tool(test, "fio") {
        return None;
    }
    let mut fio = std::process::Command::new("fio");
    fio.current_dir(dir).arg("--output-format=json");
    Some(fio)
}

/// Runs a [`fio_command`] and returns fio's JSON document; a fio that fails (exit status, or no
/// JSON) fails the test, since a comparison that quietly vanishes checks nothing.
pub fn fio_json(fio: &mut std::process::Command) -> serde_json::Value {
    let out = fio.output().expect("start fio");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{fio:?} failed ({}): {}\n{stdout}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // fio may print notes before the document; it starts at the first '{'.
    let start = stdout
        .find('{')
        .unwrap_or_else(|| panic!("{fio:?} printed no JSON: {stdout}"));
    serde_json::from_str(&stdout[start..])
        .unwrap_or_else(|e| panic!("{fio:?} printed JSON that does not parse ({e}): {stdout}"))
}

/// The long options a `--help` text lists, each with its help text (`direct` from
/// `      --direct[=<0|1>]` and the indented lines under it): whole names, so `--directory` is
/// not taken for `--direct`.
pub fn help_options(help: &str) -> std::collections::BTreeMap<String, String> {
    let mut options = std::collections::BTreeMap::new();
    let mut current: Option<String> = None;
    for line in help.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        // Options sit at 2 to 6 spaces (`  -q, --quiet`, `      --direct`), their text deeper.
        if trimmed.starts_with('-') && indent <= 6 {
            // `-q, --quiet`: the long name follows the short one.
            current = trimmed
                .split(", ")
                .last()
                .and_then(|long| long.strip_prefix("--"))
                .map(|long| {
                    let end = long
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                        .unwrap_or(long.len());
                    long[..end].to_string()
                });
            if let Some(name) = &current {
                options.insert(name.clone(), String::new());
            }
        } else if indent == 0 && !trimmed.is_empty() {
            // A heading ("Options:", "In-engine throttle ...:") ends the option.
            current = None;
        } else if trimmed.is_empty() || indent <= 6 {
            // Blank lines part the paragraphs of one option's text.
        } else if let Some(text) = current.as_ref().and_then(|name| options.get_mut(name)) {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(trimmed);
        }
    }
    options
}

/// Runs a shell command and asserts it succeeded; returns its stdout.
pub fn sh(command: &str) -> String {
    isolate_history();
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .output()
        .expect("run sh");
    assert!(
        output.status.success(),
        "`{command}` failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A loop device over a file in a test folder, detached (and unmounted) on drop.
pub struct LoopDevice {
    /// The device path, e.g. /dev/loop3.
    pub dev: String,
    backing: PathBuf,
    mount: Option<PathBuf>,
}

impl LoopDevice {
    /// A new loop device over a zero-filled file of `mib` MiB in `dir`.
    pub fn new(dir: &Path, name: &str, mib: u64) -> LoopDevice {
        let backing = dir.join(name);
        let file = std::fs::File::create(&backing).expect("create backing file");
        file.set_len(mib << 20).expect("size backing file");
        let dev = sh(&format!("losetup -f --show {}", backing.display()));
        LoopDevice {
            dev,
            backing,
            mount: None,
        }
    }

    /// Like [`LoopDevice::new`], with the loop driver doing direct IO on the backing file
    /// (no page cache between the device and the disk). The backing file is written out, so
    /// writes to the device do not pay for the filesystem allocating blocks under it.
    pub fn new_direct(dir: &Path, name: &str, mib: u64) -> LoopDevice {
        let backing = dir.join(name);
        sh(&format!(
            "dd if=/dev/zero of={} bs=1M count={mib} oflag=direct status=none",
            backing.display()
        ));
        let dev = sh(&format!(
            "losetup -f --show --direct-io=on {}",
            backing.display()
        ));
        LoopDevice {
            dev,
            backing,
            mount: None,
        }
    }

    /// Mounts the device's filesystem at `at`.
    pub fn mount(&mut self, at: &Path) {
        self.mount_with(at, "rw");
    }

    /// Mounts read-only: a read-write ext4 keeps writing its own device for a second or so
    /// after mounting (journal, lazy inode-table init), so only a read-only mount leaves a
    /// [`fingerprint`](Self::fingerprint) that nothing but the tool under test could change.
    pub fn mount_read_only(&mut self, at: &Path) {
        self.mount_with(at, "ro");
    }

    fn mount_with(&mut self, at: &Path, options: &str) {
        std::fs::create_dir_all(at).expect("create mount point");
        sh(&format!("mount -o {options} {} {}", self.dev, at.display()));
        self.mount = Some(at.to_path_buf());
    }

    /// A checksum of the whole device, to show nothing was written.
    pub fn fingerprint(&self) -> u64 {
        let data = std::fs::read(&self.dev).expect("read the device");
        data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        })
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if let Some(at) = &self.mount {
            let _ = std::process::Command::new("umount").arg(at).status();
        }
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// Tests of one binary that do heavy real IO take turns, so a rate cap or a throttle is
/// measured without a neighbour test competing for the disk.
static REAL_IO: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Waits for this test's turn at the disk, alone; the turn ends when the guard is dropped.
pub fn real_io() -> std::sync::RwLockWriteGuard<'static, ()> {
    REAL_IO.write().unwrap_or_else(|e| e.into_inner())
}

/// Waits for a turn at the disk that tests on throttled devices share with each other: a
/// device a cgroup holds to a cloud tier's caps (thousands of IOPS, hundreds of MiB/s) asks
/// a small part of what the disk under it does, so two such tests measure their caps side
/// by side as they would alone; a test with unthrottled IO ([`real_io`]) still runs alone.
/// A test whose throttled device lives in memory (no disk IO of a neighbour reaches it) at
/// caps low enough that a busy host's hiccups do not show through them (history's compare:
/// 250 IOPS, 50 MiB/s) takes no turn at all; one at hundreds of MiB/s still takes this one,
/// as its loop device's kernel threads copy every byte and a neighbour's unthrottled IO
/// starves them.
pub fn throttled_io() -> std::sync::RwLockReadGuard<'static, ()> {
    REAL_IO.read().unwrap_or_else(|e| e.into_inner())
}

/// A cgroup that throttles one block device to `iops` and `bytes_per_sec` in each direction,
/// like a cloud volume's tier, removed on drop: v1 `blkio.throttle.*_device` or v2 `io.max`,
/// whichever the host offers (v1 first: where blkio is mounted it owns the controller), as
/// crates/emulate does. Commands run inside it through [`BlkioThrottle::wrap`].
pub struct BlkioThrottle {
    dir: PathBuf,
}

/// Where cgroup v1's blkio controller is mounted.
const CGROUP_V1_BLKIO: &str = "/sys/fs/cgroup/blkio";
/// The cgroup v2 hierarchy's root.
const CGROUP_V2: &str = "/sys/fs/cgroup";

impl BlkioThrottle {
    /// A new cgroup `name` throttling `device` (a path such as /dev/loop3); `None` where
    /// neither cgroup v1 blkio nor the v2 io controller is available (skipped: see [`skip`]).
    pub fn new(name: &str, device: &str, iops: u64, bytes_per_sec: u64) -> Option<BlkioThrottle> {
        let device_name = Path::new(device)
            .file_name()
            .expect("a device path")
            .to_string_lossy()
            .into_owned();
        let id = std::fs::read_to_string(format!("/sys/class/block/{device_name}/dev"))
            .unwrap_or_else(|e| panic!("no device number for {device}: {e}"));
        let id = id.trim();
        let v1 = Path::new(CGROUP_V1_BLKIO);
        let v2 = Path::new(CGROUP_V2);
        let cgroup = format!("{name}-{}", std::process::id());
        if v1.join("blkio.throttle.read_iops_device").exists() {
            let dir = v1.join(cgroup);
            std::fs::create_dir_all(&dir).expect("create the cgroup");
            for (file, value) in [
                ("read_iops_device", iops),
                ("write_iops_device", iops),
                ("read_bps_device", bytes_per_sec),
                ("write_bps_device", bytes_per_sec),
            ] {
                write_cgroup(
                    &dir.join(format!("blkio.throttle.{file}")),
                    &format!("{id} {value}"),
                );
            }
            return Some(BlkioThrottle { dir });
        }
        let controllers =
            std::fs::read_to_string(v2.join("cgroup.controllers")).unwrap_or_default();
        if controllers.split_whitespace().any(|c| c == "io") {
            // A child of the root gets the io controller only once the root hands it down.
            let subtree = v2.join("cgroup.subtree_control");
            let enabled = std::fs::read_to_string(&subtree).unwrap_or_default();
            if !enabled.split_whitespace().any(|c| c == "io") {
                write_cgroup(&subtree, "+io");
            }
            let dir = v2.join(cgroup);
            std::fs::create_dir_all(&dir).expect("create the cgroup");
            write_cgroup(
                &dir.join("io.max"),
                &format!(
                    "{id} riops={iops} wiops={iops} rbps={bytes_per_sec} wbps={bytes_per_sec}"
                ),
            );
            return Some(BlkioThrottle { dir });
        }
        skip(
            &format!("the test throttling {device} ({name})"),
            "no cgroup throttles block devices here (neither v1 blkio nor the v2 io controller)",
        );
        None
    }

    /// A `sh -c` command line that moves the shell into the cgroup, then runs `command`.
    pub fn wrap(&self, command: &str) -> String {
        format!(
            "echo $$ > {}/cgroup.procs && exec {command}",
            self.dir.display()
        )
    }
}

fn write_cgroup(file: &Path, text: &str) {
    std::fs::write(file, text)
        .unwrap_or_else(|e| panic!("write '{text}' to {}: {e}", file.display()));
}

impl Drop for BlkioThrottle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

/// `diskmeter replay --db DB ARGS...` in `dir`.
pub fn replay(dir: &TestDir, db: &Path, args: &[&str]) -> Command {
    let mut cmd = command();
    cmd.current_dir(dir.path())
        .arg("replay")
        .arg("--db")
        .arg(db)
        .args(args);
    cmd
}
