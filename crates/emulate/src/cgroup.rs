//! The cgroup that throttles an emulated disk: v1 `blkio.throttle.{read,write}_{iops,bps}_device`
//! or v2 `io.max` (`riops`, `wiops`, `rbps`, `wbps`), per device `MAJ:MIN`: one rule per
//! disk of the emulation, each disk capped on its own (neither interface has a rule that
//! spans devices).

use crate::{system, EmulateError, Emulation};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which cgroup interface throttles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CgroupKind {
    /// cgroup v1, blkio controller.
    V1Blkio,
    /// cgroup v2, io controller.
    V2Io,
}

const V1_ROOT: &str = "/sys/fs/cgroup/blkio";
const V2_ROOT: &str = "/sys/fs/cgroup";

/// The interface this host offers, v1 blkio first (where it is mounted it owns the
/// controller, and v2's io is then unavailable).
pub(crate) fn available() -> Option<CgroupKind> {
    if Path::new(V1_ROOT)
        .join("blkio.throttle.read_iops_device")
        .exists()
    {
        return Some(CgroupKind::V1Blkio);
    }
    let controllers =
        std::fs::read_to_string(Path::new(V2_ROOT).join("cgroup.controllers")).unwrap_or_default();
    controllers
        .split_whitespace()
        .any(|c| c == "io")
        .then_some(CgroupKind::V2Io)
}

fn root(kind: CgroupKind) -> &'static Path {
    Path::new(match kind {
        CgroupKind::V1Blkio => V1_ROOT,
        CgroupKind::V2Io => V2_ROOT,
    })
}

/// The cgroup folder of emulation `name`.
pub(crate) fn path(kind: CgroupKind, name: &str) -> PathBuf {
    root(kind).join(format!("diskmeter-emulate-{name}"))
}

/// `MAJ:MIN` of a block device, from sysfs.
pub(crate) fn device_id(device: &Path) -> Result<String, EmulateError> {
    let name = device
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    std::fs::read_to_string(format!("/sys/class/block/{name}/dev"))
        .map(|s| s.trim().to_string())
        .map_err(|e| {
            system(
                format!("cannot find the device number of {}", device.display()),
                e,
            )
        })
}

fn write(path: &Path, text: &str) -> Result<(), EmulateError> {
    std::fs::write(path, text)
        .map_err(|e| system(format!("cannot write '{text}' to {}", path.display()), e))
}

pub(crate) fn create(emulation: &Emulation) -> Result<(), EmulateError> {
    let dir = &emulation.cgroup;
    std::fs::create_dir_all(dir)
        .map_err(|e| system(format!("cannot create cgroup {}", dir.display()), e))?;
    for disk in emulation.disks() {
        limit_device(emulation, &device_id(&disk.device)?, &emulation.spec.caps)?;
    }
    Ok(())
}

/// Writes `caps` for one device into the emulation's cgroup (each write adds or replaces
/// that device's rule and leaves the others); the burst controller rewrites them.
pub(crate) fn limit_device(
    emulation: &Emulation,
    id: &str,
    caps: &crate::Caps,
) -> Result<(), EmulateError> {
    let dir = &emulation.cgroup;
    match emulation.kind {
        CgroupKind::V1Blkio => {
            for (file, value) in [
                ("read_iops_device", caps.read_iops),
                ("write_iops_device", caps.write_iops),
                ("read_bps_device", caps.read_bytes_per_sec),
                ("write_bps_device", caps.write_bytes_per_sec),
            ] {
                if let Some(value) = value {
                    write(
                        &dir.join(format!("blkio.throttle.{file}")),
                        &format!("{id} {value}"),
                    )?;
                }
            }
        }
        CgroupKind::V2Io => {
            let control = root(CgroupKind::V2Io).join("cgroup.subtree_control");
            let enabled = std::fs::read_to_string(&control).unwrap_or_default();
            if !enabled.split_whitespace().any(|c| c == "io") {
                write(&control, "+io")?;
            }
            let limit = |key: &str, value: Option<u64>| {
                format!(
                    "{key}={}",
                    value.map_or("max".to_string(), |v| v.to_string())
                )
            };
            write(
                &dir.join("io.max"),
                &format!(
                    "{id} {} {} {} {}",
                    limit("riops", caps.read_iops),
                    limit("wiops", caps.write_iops),
                    limit("rbps", caps.read_bytes_per_sec),
                    limit("wbps", caps.write_bytes_per_sec)
                ),
            )?;
        }
    }
    Ok(())
}

pub(crate) fn enter(emulation: &Emulation, pid: u32) -> Result<(), EmulateError> {
    write(&emulation.cgroup.join("cgroup.procs"), &pid.to_string())
}

pub(crate) fn leave(emulation: &Emulation, pid: u32) -> Result<(), EmulateError> {
    write(&root(emulation.kind).join("cgroup.procs"), &pid.to_string())
}

/// Moves any process still inside to the root cgroup, then removes the folder.
pub(crate) fn remove(emulation: &Emulation) -> Result<(), EmulateError> {
    let dir = &emulation.cgroup;
    if !dir.exists() {
        return Ok(());
    }
    let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    for pid in procs.split_whitespace() {
        let _ = std::fs::write(root(emulation.kind).join("cgroup.procs"), pid);
    }
    std::fs::remove_dir(dir)
        .map_err(|e| system(format!("cannot remove cgroup {}", dir.display()), e))
}
