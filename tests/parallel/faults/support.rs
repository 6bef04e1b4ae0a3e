//! The fault matrix's tools: small filesystems to fill or mount read-only, a block device
//! whose IOs fail or that vanishes (a loop device over a file of `crates/faultfs`), the
//! multi-step commands the faults hit in their second step, and readers of the history they
//! leave.

use crate::common::{diskmeter, ok, sh, LoopDevice, TestDir};
use diskmeter_faultfs::{Faults, Mounted};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The unprivileged user that runs diskmeter where root would bypass file modes.
pub const NOBODY: u32 = 65534;

/// A memory filesystem (tmpfs, ramfs) mounted in the test folder, unmounted on drop.
pub struct MemoryFs(pub PathBuf);

impl MemoryFs {
    /// `mount -t FSTYPE -o OPTIONS` on the folder FSTYPE in `t`.
    pub fn new(t: &TestDir, fstype: &str, options: &str) -> MemoryFs {
        let at = t.path().join(fstype);
        std::fs::create_dir_all(&at).unwrap();
        sh(&format!(
            "mount -t {fstype} -o {options} none {}",
            at.display()
        ));
        MemoryFs(at)
    }
}

impl Drop for MemoryFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A fresh ext4 of `mib` MiB on a loop device, mounted read-write at `t/NAME`; unmounted
/// and detached on drop.
pub fn small_ext4(t: &TestDir, name: &str, mib: u64) -> (LoopDevice, PathBuf) {
    let mut device = LoopDevice::new(t.path(), &format!("{name}.img"), mib);
    sh(&format!("mkfs.ext4 -q -F {}", device.dev));
    let at = t.path().join(name);
    device.mount(&at);
    (device, at)
}

/// True when the kernel offers FUSE (/dev/fuse); otherwise skips the test (see
/// [`crate::common::skip`]).
pub fn require_fuse(test: &str) -> bool {
    let fuse = Path::new("/dev/fuse").exists();
    if !fuse {
        crate::common::skip(
            test,
            "no /dev/fuse: the kernel has no FUSE (the faulty device needs it)",
        );
    }
    fuse
}

/// A block device over a file that `crates/faultfs` serves from memory, failing the IOs its
/// [`Faults`] name with EIO; the device is detached and the filesystem unmounted on drop.
pub struct FaultDevice {
    /// The loop device, e.g. /dev/loop3.
    pub dev: String,
    fs: Option<Mounted>,
    fusectl: PathBuf,
}

impl FaultDevice {
    /// A `mib` MiB device in `t` (zero-filled: no signature, so writes need no
    /// `--allow-destroy`).
    pub fn new(t: &TestDir, mib: u64, faults: Faults) -> FaultDevice {
        let at = t.path().join("faultfs");
        std::fs::create_dir_all(&at).unwrap();
        let fs = diskmeter_faultfs::mount(&at, mib << 20, faults)
            .unwrap_or_else(|e| panic!("mount the FUSE filesystem at {}: {e}", at.display()));
        // The loop driver does the IO of the device on the file; the file's IOs reach the
        // server whatever the loop's caching, as faultfs opens it for direct IO.
        let dev = sh(&format!("losetup -f --show {}", fs.file().display()));
        FaultDevice {
            dev,
            fs: Some(fs),
            fusectl: t.path().join("fusectl"),
        }
    }

    /// The writes the device has done so far (those that did not fail).
    pub fn writes(&self) -> u64 {
        self.fs.as_ref().map_or(0, |fs| fs.activity().writes())
    }

    /// The device vanishes under whoever has it open: it is detached (`losetup -d`, which on
    /// a device in use only takes effect when the last user closes it) and what backs it
    /// dies (the FUSE connection is aborted through fusectl, as when its server is killed),
    /// so every IO from then on fails.
    pub fn vanish(&mut self) {
        sh(&format!("losetup -d {}", self.dev));
        let fs = self.fs.as_ref().expect("mounted");
        let dev = std::os::unix::fs::MetadataExt::dev(&std::fs::metadata(fs.mountpoint()).unwrap());
        // fusectl names a connection by its kernel device number; FUSE's major is 0, so
        // that is the minor, which the user-space encoding splits around the major.
        let connection = (dev & 0xff) | ((dev >> 12) & !0xff);
        std::fs::create_dir_all(&self.fusectl).unwrap();
        sh(&format!("mount -t fusectl none {}", self.fusectl.display()));
        let aborted = std::fs::write(self.fusectl.join(connection.to_string()).join("abort"), "1");
        sh(&format!("umount {}", self.fusectl.display()));
        aborted.expect("abort the FUSE connection");
    }
}

impl Drop for FaultDevice {
    fn drop(&mut self) {
        // The device first: the filesystem is only let go once nothing holds its file.
        let _ = Command::new("losetup").args(["-d", &self.dev]).output();
        drop(self.fs.take());
    }
}

/// Polls `condition` every 10 ms until it holds (true), for at most a minute (false).
pub fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !condition() {
        if start.elapsed() > Duration::from_secs(60) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// `diskmeter suite realworld` saving into `db`: step 1 reads `read` (SEQ1M Q1T1 for 1 s),
/// step 2 writes `write`, then two more steps; 4 MiB unless `size` says otherwise.
pub fn suite(dir: &Path, read: &Path, write: &Path, db: &Path, extra: &[&str]) -> Command {
    let mut cmd = crate::common::process();
    cmd.current_dir(dir)
        .args(["suite", "realworld", "--quiet", "--runtime=1"])
        .arg(format!("--read-target={}", read.display()))
        .arg(format!("--write-target={}", write.display()))
        .arg(format!("--db={}", db.display()))
        .args(extra);
    if !extra.iter().any(|a| a.starts_with("--size")) {
        cmd.arg("--size=4m");
    }
    cmd
}

/// `diskmeter ARGS --db DB --format json` as JSON.
fn history_json(db: &Path, args: &[&str]) -> Value {
    let db = format!("--db={}", db.display());
    let args = [args, &[&db, "--format=json"]].concat();
    serde_json::from_str(&ok(diskmeter(".", &args))).unwrap()
}

/// The one run in `db`, as `history` lists it and `show` shows it; it must be closed
/// (not left unfinished) and hold `steps` steps.
pub fn the_saved_run(db: &Path, steps: usize) -> (Value, Value) {
    let runs = history_json(db, &["history"]);
    let runs = runs.as_array().expect("a list of runs");
    assert_eq!(runs.len(), 1, "one run: {runs:#?}");
    let run = runs[0].clone();
    assert_eq!(run["unfinished"], false, "the run was closed: {run:#}");
    let shown = history_json(db, &["show", &run["id"].to_string()]);
    assert_eq!(run["steps"], steps, "{run:#}");
    assert_eq!(shown["steps"].as_array().unwrap().len(), steps, "{shown:#}");
    (run, shown)
}

/// The error a saved step's job carries (`null` when it ran clean).
pub fn job_error(shown: &Value, step: usize, job: usize) -> &Value {
    &shown["steps"][step]["result"]["jobs"][job]["error"]
}

/// Whether a test folder or filesystem holds nothing but `keep` (and ext4's lost+found).
pub fn holds_only(dir: &Path, keep: &[&str]) -> bool {
    std::fs::read_dir(dir).unwrap().all(|e| {
        let name = e.unwrap().file_name();
        let name = name.to_string_lossy();
        name == "lost+found" || keep.contains(&name.as_ref())
    })
}

/// Whether process `pid` holds `path` open for direct IO, as a worker does (the layout
/// writes through the page cache).
pub fn open_for_direct_io(pid: u32, path: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        let fdinfo = format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy());
        std::fs::read_link(fd.path()).is_ok_and(|p| p == path)
            && std::fs::read_to_string(fdinfo).is_ok_and(|info| {
                info.lines()
                    .find_map(|l| l.strip_prefix("flags:"))
                    .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                    .is_some_and(|flags| flags & libc::O_DIRECT as u32 != 0)
            })
    })
}

/// `command` run as [`NOBODY`] (`setpriv`), for the faults that root, who bypasses file
/// modes, would never meet.
pub fn as_nobody(command: &Command) -> Command {
    let mut wrapped = Command::new("setpriv");
    wrapped
        .arg(format!("--reuid={NOBODY}"))
        .arg(format!("--regid={NOBODY}"))
        .args(["--clear-groups", "--"])
        .arg(command.get_program())
        .args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped
}
