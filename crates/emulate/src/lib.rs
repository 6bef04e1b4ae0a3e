//! Emulated cloud disk tiers on any Linux box: a loop device doing direct IO on a backing
//! file, under a cgroup that caps its IOPS and bandwidth per direction (cgroup v1
//! `blkio.throttle.*`, or v2 `io.max`, whichever the host has). Processes that join the
//! cgroup see the device as a throttled volume: 5,000 IOPS / 200 MiB/s for an Azure P30.
//! An emulation can hold several such disks (a VM's stripe), each capped on its own by the
//! one cgroup: cgroup rules are per device, so a VM-level cap *across* the disks is the
//! in-engine throttle's job (`--throttle-iops`), not the cgroup's.
//!
//! Every emulation is recorded in a state folder (`/run/diskmeter/emulate`), so `list` and
//! `destroy` find it again, and ephemeral ones (`diskmeter run --emulate ...`) whose process
//! died are swept away by the next create. Needs root; without it the error says so.
//!
//! A disk may burst (a credit bucket, `burst`): the cgroup's caps are then its baseline and
//! a controller thread of the process that holds the emulation (`controller`) raises them to
//! the burst rate while the bucket holds credits.

#![forbid(unsafe_code)]

mod burst;
mod cgroup;
mod controller;
mod hint;
mod profile;
mod request;
pub mod stripe;

pub use burst::{burst_for, tier_burst, Bucket, Burst, BURST_FLAGS};
pub use cgroup::CgroupKind;
pub use controller::{BurstController, PERIOD_NS};
pub use hint::throttle_flags_hint;
pub use profile::{profile_burst, profile_caps, profiles, Caps, GivenCaps};
pub use request::{CreateRequest, CAP_FLAGS};

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use thiserror::Error;

/// Where emulations are recorded.
pub const STATE_DIR: &str = "/run/diskmeter/emulate";

/// Why an emulation could not be made, found or removed.
#[derive(Debug, Error)]
pub enum EmulateError {
    /// Not root.
    #[error(
        "emulating a disk needs root (loop devices and cgroups); without root, the in-engine \
         throttle caps a run on any file or device instead: --throttle-iops N and \
         --throttle-bw RATE on run, suite or sweep"
    )]
    NotRoot,
    /// A profile name the catalog does not know.
    #[error("unknown profile '{0}' (diskmeter emulate profiles lists them)")]
    UnknownProfile(String),
    /// No cgroup IO controller to throttle with.
    #[error("no cgroup IO throttle here: neither cgroup v1 blkio nor v2 io is available")]
    NoCgroup,
    /// A file, folder or cgroup step failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done ("cannot create cgroup ...").
        what: String,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// losetup refused.
    #[error("{what}: {stderr}")]
    Losetup {
        /// What was being done.
        what: String,
        /// What losetup said.
        stderr: String,
    },
    /// The record of the emulation could not be encoded.
    #[error("cannot record the emulation: {0}")]
    Record(#[source] serde_json::Error),
    /// A name with other characters than letters, digits, '-' and '_'.
    #[error("'{0}': use letters, digits, '-' and '_'")]
    BadName(String),
    /// An emulation of that name exists already.
    #[error("an emulation named '{0}' exists (diskmeter emulate destroy {0} removes it)")]
    Exists(String),
    /// No emulation has that name.
    #[error("no emulation named '{0}'")]
    NoSuchEmulation(String),
    /// A size or cap that does not parse (`--iops`, `--size`, ...).
    #[error("--{flag}: {problem}")]
    Value {
        /// The flag's name.
        flag: String,
        /// Why its value is wrong.
        problem: diskmeter_units::UnitError,
    },
    /// Neither a profile nor a cap was given.
    #[error("give --profile or at least one cap (--iops, --bw, ...)")]
    NoCaps,
    /// A burst setting that makes no sense (no baseline, not above it, no time).
    #[error("--{flag}: {problem}")]
    Burst {
        /// The flag's name.
        flag: String,
        /// Why it is wrong.
        problem: String,
    },
    /// A disk count outside 1 to [`MAX_DISKS`].
    #[error("{0} disks: an emulation makes 1 to {MAX_DISKS}")]
    DiskCount(u32),
}

fn system(what: impl Into<String>, source: std::io::Error) -> EmulateError {
    EmulateError::Io {
        what: what.into(),
        source,
    }
}

fn losetup_refused(what: impl Into<String>, stderr: &[u8]) -> EmulateError {
    EmulateError::Losetup {
        what: what.into(),
        stderr: String::from_utf8_lossy(stderr).trim().to_string(),
    }
}

/// What to emulate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmulationSpec {
    /// Name of the emulation (`p30`); also names its cgroup and backing file.
    pub name: String,
    /// Size of the emulated disk, bytes.
    pub size_bytes: u64,
    /// The caps.
    pub caps: Caps,
    /// Folder of the backing file (a filesystem with direct IO: not tmpfs).
    pub dir: PathBuf,
    /// The process whose exit ends it (`run --emulate`); `None` = until `destroy`.
    pub owner_pid: Option<u32>,
    /// How many disks of these caps and this size (each capped on its own).
    #[serde(default = "one_disk")]
    pub disks: u32,
    /// The credit bucket of each disk, over the caps (its baselines); `None` = fixed caps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Burst>,
}

fn one_disk() -> u32 {
    1
}

/// The most disks one emulation makes.
pub const MAX_DISKS: u32 = 64;

/// One emulated disk: a loop device and the file behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmulatedDisk {
    /// The loop device, e.g. /dev/loop4.
    pub device: PathBuf,
    /// The backing file.
    pub backing: PathBuf,
}

/// A live emulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Emulation {
    /// What was asked for.
    pub spec: EmulationSpec,
    /// The loop device, e.g. /dev/loop3.
    pub device: PathBuf,
    /// The backing file.
    pub backing: PathBuf,
    /// The cgroup folder.
    pub cgroup: PathBuf,
    /// Which cgroup interface throttles it.
    pub kind: CgroupKind,
    /// The disks after the first of a multi-disk emulation (`emulate create --disks N`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_disks: Vec<EmulatedDisk>,
}

impl Emulation {
    /// Every disk, the first one first.
    pub fn disks(&self) -> Vec<EmulatedDisk> {
        let first = EmulatedDisk {
            device: self.device.clone(),
            backing: self.backing.clone(),
        };
        std::iter::once(first)
            .chain(self.more_disks.iter().cloned())
            .collect()
    }
}

/// Whether the process runs with root's effective uid (loop devices and cgroups need it).
fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn state_file(name: &str) -> PathBuf {
    Path::new(STATE_DIR).join(format!("{name}.json"))
}

/// Creates the emulation: per disk a backing file (written out, so writes do not pay for
/// block allocation) and a loop device with direct IO; one cgroup with every disk's caps;
/// records it. A failure part-way removes what was made.
pub fn create(spec: &EmulationSpec) -> Result<Emulation, EmulateError> {
    if !is_root() {
        return Err(EmulateError::NotRoot);
    }
    sweep_orphans();
    if !spec
        .name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        || spec.name.is_empty()
    {
        return Err(EmulateError::BadName(spec.name.clone()));
    }
    if state_file(&spec.name).exists() {
        return Err(EmulateError::Exists(spec.name.clone()));
    }
    if !(1..=MAX_DISKS).contains(&spec.disks) {
        return Err(EmulateError::DiskCount(spec.disks));
    }
    let kind = cgroup::available().ok_or(EmulateError::NoCgroup)?;
    let mut emulation = Emulation {
        spec: spec.clone(),
        cgroup: cgroup::path(kind, &spec.name),
        device: PathBuf::new(),
        backing: PathBuf::new(),
        kind,
        more_disks: Vec::new(),
    };
    // Absolute, so `destroy` finds the files from any folder.
    let dir = spec.dir.canonicalize().unwrap_or_else(|_| spec.dir.clone());
    for disk in 0..spec.disks {
        // The first disk keeps the single-disk name, so older records still match.
        let backing = dir.join(match disk {
            0 => format!(".diskmeter-emulate-{}.img", spec.name),
            n => format!(".diskmeter-emulate-{}-{}.img", spec.name, n + 1),
        });
        let made = write_backing(&backing, spec.size_bytes).and_then(|_| {
            losetup(&backing).inspect_err(|_| {
                let _ = std::fs::remove_file(&backing);
            })
        });
        let device = match made {
            Ok(device) => device,
            Err(e) => {
                let _ = destroy(&emulation);
                return Err(e);
            }
        };
        if disk == 0 {
            (emulation.device, emulation.backing) = (device, backing);
        } else {
            emulation.more_disks.push(EmulatedDisk { device, backing });
        }
    }
    // Recorded before the cgroup is made, so a failure below is still cleaned up by destroy.
    let recorded = record(&emulation);
    let made = recorded.and_then(|_| cgroup::create(&emulation));
    if let Err(error) = made {
        let _ = destroy(&emulation);
        return Err(error);
    }
    Ok(emulation)
}

fn write_backing(path: &Path, size_bytes: u64) -> Result<(), EmulateError> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| system(format!("cannot create {}", path.display()), e))?;
    let chunk = vec![0u8; 1 << 20];
    let mut left = size_bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        if let Err(e) = file.write_all(&chunk[..n]) {
            let _ = std::fs::remove_file(path);
            return Err(system(format!("cannot write {}", path.display()), e));
        }
        left -= n as u64;
    }
    file.sync_all()
        .map_err(|e| system(format!("cannot flush {}", path.display()), e))
}

fn losetup(backing: &Path) -> Result<PathBuf, EmulateError> {
    let out = Command::new("losetup")
        .args(["--find", "--show", "--direct-io=on"])
        .arg(backing)
        .output()
        .map_err(|e| system("cannot run losetup (util-linux)", e))?;
    if !out.status.success() {
        return Err(losetup_refused("losetup refused", &out.stderr));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn record(emulation: &Emulation) -> Result<(), EmulateError> {
    std::fs::create_dir_all(STATE_DIR)
        .map_err(|e| system(format!("cannot create {STATE_DIR}"), e))?;
    let text = serde_json::to_string_pretty(emulation).map_err(EmulateError::Record)?;
    std::fs::write(state_file(&emulation.spec.name), text)
        .map_err(|e| system("cannot record the emulation", e))
}

/// Removes everything the emulation made: cgroup (its processes moved out first), loop
/// device, backing file, record. Goes on past failures and reports the first.
pub fn destroy(emulation: &Emulation) -> Result<(), EmulateError> {
    let mut first: Option<EmulateError> = None;
    let mut note = |r: Result<(), EmulateError>| {
        if let Err(e) = r {
            first.get_or_insert(e);
        }
    };
    note(cgroup::remove(emulation));
    for disk in emulation.disks() {
        // An emulation that failed part-way has an empty path where a disk never came.
        if disk.device.as_os_str().is_empty() {
            continue;
        }
        if disk.device.exists() && loop_backs(&disk.device, &disk.backing) {
            let out = Command::new("losetup").arg("-d").arg(&disk.device).output();
            note(match out {
                Ok(o) if o.status.success() => Ok(()),
                Ok(o) => Err(losetup_refused(
                    format!("cannot detach {}", disk.device.display()),
                    &o.stderr,
                )),
                Err(e) => Err(system("cannot run losetup", e)),
            });
        }
        if disk.backing.exists() {
            note(
                std::fs::remove_file(&disk.backing)
                    .map_err(|e| system(format!("cannot remove {}", disk.backing.display()), e)),
            );
        }
    }
    let _ = std::fs::remove_file(state_file(&emulation.spec.name));
    match first {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// True when loop device `device` is attached to `backing` (so destroy never detaches a
/// loop device that was reused for something else).
fn loop_backs(device: &Path, backing: &Path) -> bool {
    let name = device.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(name) = name else { return false };
    std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
        .map(|b| Path::new(b.trim()) == backing.canonicalize().unwrap_or(backing.to_path_buf()))
        .unwrap_or(false)
}

/// Every recorded emulation.
pub fn list() -> Vec<Emulation> {
    let Ok(entries) = std::fs::read_dir(STATE_DIR) else {
        return Vec::new();
    };
    let mut all: Vec<Emulation> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|text| serde_json::from_str(&text).ok())
        .collect();
    all.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
    all
}

/// The recorded emulation `name`.
pub fn find(name: &str) -> Result<Emulation, EmulateError> {
    list()
        .into_iter()
        .find(|e| e.spec.name == name)
        .ok_or_else(|| EmulateError::NoSuchEmulation(name.to_string()))
}

/// Removes ephemeral emulations whose owner process is gone (a run killed before it could
/// clean up).
fn sweep_orphans() {
    for emulation in list() {
        if let Some(pid) = emulation.spec.owner_pid {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = destroy(&emulation);
            }
        }
    }
}

/// Moves this process (all its threads) into the emulation's cgroup, so its IO is throttled.
pub fn enter(emulation: &Emulation) -> Result<(), EmulateError> {
    cgroup::enter(emulation, std::process::id())
}

/// Moves this process into emulation `name`'s cgroup and replaces it with `program` (`emulate
/// exec`), so the program and every thread and child it starts is throttled. Returns only on
/// failure, with why.
pub fn exec(name: &str, program: &str, args: &[String]) -> EmulateError {
    if let Err(error) = find(name).and_then(|e| enter(&e)) {
        return error;
    }
    let error = std::os::unix::process::CommandExt::exec(Command::new(program).args(args));
    system(format!("cannot run {program}"), error)
}

/// An emulation that lives as long as this value: destroyed on drop (the end of a run,
/// an error, Ctrl-C).
pub struct EphemeralEmulation(pub Emulation);

impl Drop for EphemeralEmulation {
    fn drop(&mut self) {
        let _ = cgroup::leave(&self.0, std::process::id());
        let _ = destroy(&self.0);
    }
}
