//! Never destroy data: what a target is, and whether diskmeter may write to it.
//!
//! Writing is refused, unless the user passes `--allow-destroy`, to a block device that is
//! mounted (itself or a partition), used by another device (holders), holds a partition table,
//! or carries a filesystem, RAID, LVM, LUKS or swap signature; and to an existing file that
//! diskmeter did not create. A symlink is followed and judged by what it points to.
//! Every check reads only; nothing here writes a byte.

use serde::Serialize;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

pub use crate::mounts::{mount_of, Mount};

/// The extended attribute diskmeter sets on files it creates, so a later run knows it may
/// rewrite or remove them.
pub const OWNER_XATTR: &str = "user.diskmeter";
/// The value of [`OWNER_XATTR`].
pub const OWNER_XATTR_VALUE: &[u8] = b"created-by-diskmeter";

/// What kind of thing a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A regular file (existing or to be created).
    File,
    /// A block device.
    BlockDevice,
    /// Nothing at all: the null engine does no IO.
    Virtual,
}

/// What a read-only look at a path found.
#[derive(Debug, Clone)]
pub struct TargetProbe {
    /// The path to open: the device a symlink points to, otherwise the path as given.
    pub path: PathBuf,
    /// File or device.
    pub kind: TargetKind,
    /// Current size in bytes; `None` when the file does not exist yet.
    pub existing_size_bytes: Option<u64>,
    /// The file carries diskmeter's ownership mark.
    pub created_by_diskmeter: bool,
    /// The path given was a symlink.
    pub via_symlink: bool,
}

/// Why a target could not be looked at.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The path cannot be read (permissions, a missing folder, ...).
    #[error("{}", describe_io_error(.0))]
    Unreadable(std::io::Error),
    /// The path is a symlink whose target cannot be reached.
    #[error("is a symlink that cannot be followed ({})", describe_io_error(.0))]
    BrokenSymlink(std::io::Error),
    /// The device's size cannot be read.
    #[error("cannot read the device size: {0}")]
    DeviceSize(std::io::Error),
    /// The path is a folder.
    #[error("is a folder; give it as --directory, or name a file inside it")]
    Folder,
    /// The path is a socket, a pipe, a character device or the like.
    #[error(
        "is neither a regular file nor a block device; name a file (diskmeter creates it) or \
         a block device instead"
    )]
    NotFileOrDevice,
}

/// Looks at `path` without writing.
pub fn probe_target(path: &Path) -> Result<TargetProbe, ProbeError> {
    let link = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(TargetProbe {
                path: path.to_path_buf(),
                kind: TargetKind::File,
                existing_size_bytes: None,
                created_by_diskmeter: false,
                via_symlink: false,
            })
        }
        Err(e) => return Err(ProbeError::Unreadable(e)),
    };
    let via_symlink = link.file_type().is_symlink();
    let meta = std::fs::metadata(path).map_err(|e| {
        if via_symlink {
            ProbeError::BrokenSymlink(e)
        } else {
            ProbeError::Unreadable(e)
        }
    })?;
    let file_type = meta.file_type();
    if file_type.is_block_device() {
        let real = std::fs::canonicalize(path).map_err(ProbeError::Unreadable)?;
        let file = File::open(&real).map_err(ProbeError::Unreadable)?;
        let size = diskmeter_engine::sys::block_device_size_bytes(&file)
            .map_err(ProbeError::DeviceSize)?;
        return Ok(TargetProbe {
            path: real,
            kind: TargetKind::BlockDevice,
            existing_size_bytes: Some(size),
            created_by_diskmeter: false,
            via_symlink,
        });
    }
    if file_type.is_dir() {
        return Err(ProbeError::Folder);
    }
    if !file_type.is_file() {
        return Err(ProbeError::NotFileOrDevice);
    }
    let created_by_diskmeter = !via_symlink && has_owner_mark(path);
    Ok(TargetProbe {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        existing_size_bytes: Some(meta.len()),
        created_by_diskmeter,
        via_symlink,
    })
}

/// True when the file at `path` carries diskmeter's ownership mark.
pub fn has_owner_mark(path: &Path) -> bool {
    File::open(path).is_ok_and(|file| carries_owner_mark(&file))
}

/// True when the open `file` carries diskmeter's ownership mark.
pub fn carries_owner_mark(file: &File) -> bool {
    let mut value = [0u8; 64];
    match rustix::fs::fgetxattr(file, OWNER_XATTR, &mut value[..]) {
        Ok(len) => &value[..len] == OWNER_XATTR_VALUE,
        Err(_) => false,
    }
}

/// Why diskmeter refuses to write to a target without `--allow-destroy`. Each refusal names
/// what to do instead, then the override and its price.
#[derive(Debug, thiserror::Error)]
pub enum WriteRefusal {
    /// An existing file that diskmeter did not create.
    #[error(
        "refusing to write: is {} that diskmeter did not create; writing would overwrite its \
         contents; name a file that does not exist yet instead (diskmeter creates its own test \
         file and removes it after the run): --filename={}{ALLOW_DESTROY}",
        if *via_symlink { "a symlink to an existing file" } else { "an existing file" },
        folder.join("diskmeter.dat").display()
    )]
    ExistingFile {
        /// The path given was a symlink to it.
        via_symlink: bool,
        /// The folder it is in, where a new file of diskmeter's could go.
        folder: PathBuf,
    },
    /// A block device that looks in use or holds data; every reason found.
    #[error(
        "refusing to write: {}; {}{ALLOW_DESTROY}",
        join_reasons(reasons),
        alternative(reasons, mount_point.as_deref())
    )]
    DeviceInUse {
        /// Every reason found.
        reasons: Vec<InUseReason>,
        /// Where it (or a partition) is mounted, also when `allow_mounted_write` lifted that
        /// reason: the file on its filesystem is still the way that destroys nothing.
        mount_point: Option<String>,
    },
}

/// How every refusal ends: the override and its price.
const ALLOW_DESTROY: &str = " (or pass --allow-destroy to write anyway; its data will be lost)";

fn join_reasons(reasons: &[InUseReason]) -> String {
    reasons
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// What to use instead of a device that holds data, for the strongest of its `reasons`: the
/// data's own filesystem where there is one (a file on it measures the same device without
/// destroying anything; mounted at `mount_point`), else where that filesystem would be.
pub fn alternative(reasons: &[InUseReason], mount_point: Option<&str>) -> String {
    let holds = |phrase: &str| {
        reasons
            .iter()
            .any(|r| matches!(r, InUseReason::Signature(s) if s.contains(phrase)))
    };
    let elsewhere = "use a file on a mounted filesystem instead (--filename=DIR/diskmeter.dat), \
                     or a device that holds no data";
    let mounted = reasons.iter().find_map(|r| match r {
        InUseReason::Mounted { mount_point } => Some(mount_point.as_str()),
        _ => None,
    });
    if let Some(mount_point) = mounted.or(mount_point) {
        let file = Path::new(mount_point).join("diskmeter.dat");
        return format!(
            "use a file on its filesystem instead: --filename={}",
            file.display()
        );
    }
    if let Some(holders) = reasons.iter().find_map(|r| match r {
        InUseReason::Holders(h) => Some(h),
        _ => None,
    }) {
        return format!(
            "use a file on the filesystem of /dev/{} instead (it is built on this device)",
            holders.join(", /dev/")
        );
    }
    if reasons.iter().any(|r| matches!(r, InUseReason::ActiveSwap)) {
        return format!("it is the system's swap: {elsewhere}");
    }
    if holds("filesystem") {
        "mount it and use a file on its filesystem instead (--filename=MOUNTPOINT/diskmeter.dat)"
            .to_string()
    } else if holds("partition table")
        || reasons
            .iter()
            .any(|r| matches!(r, InUseReason::Partitions(_)))
    {
        "use a file on the filesystem of one of its partitions instead \
         (--filename=MOUNTPOINT/diskmeter.dat), or a device that holds no data"
            .to_string()
    } else if holds("LVM") {
        "use a file on the filesystem of one of its volume group's logical volumes instead \
         (lvs lists them)"
            .to_string()
    } else if holds("RAID") {
        "use a file on the filesystem of its RAID array instead (/proc/mdstat lists the arrays)"
            .to_string()
    } else if holds("LUKS") {
        "use a file on the filesystem inside the opened volume instead (cryptsetup open; \
         --filename=MOUNTPOINT/diskmeter.dat)"
            .to_string()
    } else if reasons.iter().any(|r| {
        matches!(
            r,
            InUseReason::CannotInspect(_) | InUseReason::CannotRead(_)
        ) || matches!(r, InUseReason::Signature(s) if s.contains("could not be read"))
    }) {
        format!("run as a user who may read the device (root, or the disk group) to check it, or {elsewhere}")
    } else {
        elsewhere.to_string()
    }
}

/// One reason a block device looks like it holds data or is in use.
#[derive(Debug, thiserror::Error)]
pub enum InUseReason {
    /// Its metadata cannot be read.
    #[error("cannot inspect the device ({})", describe_io_error(.0))]
    CannotInspect(std::io::Error),
    /// It has partitions.
    #[error("it has {0} partition(s)")]
    Partitions(usize),
    /// It or one of its partitions is mounted.
    #[error("it is mounted (on {mount_point})")]
    Mounted {
        /// Where.
        mount_point: String,
    },
    /// Other devices are built on it (device-mapper, MD RAID, ...).
    #[error("it is in use by {}", .0.join(", "))]
    Holders(Vec<String>),
    /// It is an active swap device.
    #[error("it is an active swap device")]
    ActiveSwap,
    /// It carries an on-disk signature (see [`signatures`]).
    #[error("it holds {0}")]
    Signature(&'static str),
    /// It cannot be opened to look for signatures.
    #[error("cannot read the device to check for data ({})", describe_io_error(.0))]
    CannotRead(std::io::Error),
}

/// Refuses a write to `path` (already probed as `kind`) unless it is safe or `allow_destroy`.
/// `allow_mounted` (fio's `allow_mounted_write`) lifts only the "mounted" reason: a mounted
/// device still holds a filesystem signature, which takes `--allow-destroy`.
/// The refusal says why and how to override.
pub fn check_write_allowed(
    path: &Path,
    kind: TargetKind,
    existing_user_file: bool,
    via_symlink: bool,
    allow_destroy: bool,
    allow_mounted: bool,
) -> Result<(), WriteRefusal> {
    if allow_destroy {
        return Ok(());
    }
    match kind {
        TargetKind::Virtual => Ok(()),
        TargetKind::File if existing_user_file => Err(WriteRefusal::ExistingFile {
            via_symlink,
            folder: path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
        }),
        TargetKind::File => Ok(()),
        TargetKind::BlockDevice => {
            let (mounted, reasons): (Vec<InUseReason>, Vec<InUseReason>) =
                device_in_use_reasons(path)
                    .into_iter()
                    .partition(|reason| matches!(reason, InUseReason::Mounted { .. }));
            let mount_point = mounted.iter().find_map(|r| match r {
                InUseReason::Mounted { mount_point } => Some(mount_point.clone()),
                _ => None,
            });
            let reasons: Vec<InUseReason> = if allow_mounted {
                reasons
            } else {
                mounted.into_iter().chain(reasons).collect()
            };
            if reasons.is_empty() {
                Ok(())
            } else {
                Err(WriteRefusal::DeviceInUse {
                    reasons,
                    mount_point,
                })
            }
        }
    }
}

/// Every reason the block device at `path` looks like it holds data or is in use.
pub fn device_in_use_reasons(path: &Path) -> Vec<InUseReason> {
    let mut reasons = Vec::new();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return vec![InUseReason::CannotInspect(e)],
    };
    let rdev = meta.rdev();
    let (major, minor) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    let sys_dir = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let mut devices = vec![(major, minor)];
    for partition in partitions_of(&sys_dir) {
        devices.push(partition);
    }
    if devices.len() > 1 {
        reasons.push(InUseReason::Partitions(devices.len() - 1));
    }
    if let Some(mount_point) = mounted_devices(&devices) {
        reasons.push(InUseReason::Mounted { mount_point });
    }
    if let Ok(entries) = std::fs::read_dir(sys_dir.join("holders")) {
        let holders: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if !holders.is_empty() {
            reasons.push(InUseReason::Holders(holders));
        }
    }
    if is_active_swap(path) {
        reasons.push(InUseReason::ActiveSwap);
    }
    match File::open(path) {
        Ok(file) => {
            let size = diskmeter_engine::sys::block_device_size_bytes(&file).unwrap_or(0);
            reasons.extend(
                signatures(&file, size)
                    .into_iter()
                    .map(InUseReason::Signature),
            );
        }
        Err(e) => reasons.push(InUseReason::CannotRead(e)),
    }
    reasons
}

/// (major, minor) of each partition listed under a device's sysfs folder.
fn partitions_of(sys_dir: &Path) -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir(sys_dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("partition").exists())
        .filter_map(|e| std::fs::read_to_string(e.path().join("dev")).ok())
        .filter_map(|dev| parse_major_minor(dev.trim()))
        .collect()
}

pub(crate) fn parse_major_minor(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The mount point of the first of `devices` that is mounted, from /proc/self/mountinfo.
fn mounted_devices(devices: &[(u32, u32)]) -> Option<String> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines()
        .filter_map(crate::mounts::MountLine::parse)
        .find_map(|line| {
            devices
                .contains(&line.device)
                .then(|| line.mount.mount_point.display().to_string())
        })
}

fn is_active_swap(path: &Path) -> bool {
    let Ok(swaps) = std::fs::read_to_string("/proc/swaps") else {
        return false;
    };
    swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .any(|dev| std::fs::canonicalize(dev).ok().as_deref() == Some(path))
}

/// On-disk signatures found on a device of `size_bytes`, as human phrases.
pub fn signatures(device: &File, size_bytes: u64) -> Vec<&'static str> {
    let mut head = vec![0u8; 128 * 1024];
    let head_len = read_at_most(device, &mut head, 0);
    head.truncate(head_len);
    let mut found = Vec::new();
    if (head_len as u64) < size_bytes.min(128 * 1024) {
        // What cannot be read cannot be shown to be blank.
        found
            .push("sectors at its start that could not be read (so it cannot be checked for data)");
    }
    let at = |offset: usize, magic: &[u8]| head.get(offset..offset + magic.len()) == Some(magic);
    if at(510, &[0x55, 0xAA]) {
        found.push("a partition table or boot sector (MBR signature)");
    }
    if at(512, b"EFI PART") || at(4096, b"EFI PART") {
        found.push("a GPT partition table");
    }
    if at(1080, &[0x53, 0xEF]) {
        found.push("an ext2/3/4 filesystem");
    }
    if at(0, b"XFSB") {
        found.push("an XFS filesystem");
    }
    if at(65536 + 64, b"_BHRfS_M") {
        found.push("a btrfs filesystem");
    }
    // mkswap puts the magic in the last 10 bytes of the first page, whose size is the
    // machine's (4 KiB here, up to 64 KiB on some arm64 and ppc64 kernels).
    let swap = (12..=16).any(|shift| {
        let magic_at = (1usize << shift) - 10;
        at(magic_at, b"SWAPSPACE2") || at(magic_at, b"SWAP-SPACE")
    });
    if swap {
        found.push("a swap area");
    }
    if (0..4).any(|sector| at(sector * 512, b"LABELONE")) {
        found.push("an LVM physical volume");
    }
    // LUKS2 keeps a second copy of its header at one of these offsets (the LUKS2 on-disk
    // format, "Header"); with the first copy damaged the volume is still recoverable from
    // it, so it counts as data too.
    let luks2_copy = [16u64, 32, 64, 128, 256, 512, 1024, 2048, 4096]
        .into_iter()
        .map(|kib| kib << 10)
        .any(|offset| {
            let mut magic = [0u8; 6];
            read_at_most(device, &mut magic, offset) == 6 && &magic == b"SKUL\xba\xbe"
        });
    if at(0, b"LUKS\xba\xbe") || luks2_copy {
        found.push("a LUKS encrypted volume");
    }
    if at(32769, b"CD001") {
        found.push("an ISO 9660 filesystem");
    }
    if at(3, b"NTFS    ") {
        found.push("an NTFS filesystem");
    }
    if at(54, b"FAT1") || at(82, b"FAT32") {
        found.push("a FAT filesystem");
    }
    if at(1024, &[0x10, 0x20, 0xF5, 0xF2]) {
        found.push("an F2FS filesystem");
    }
    let md_magic = [0xfc, 0x4e, 0x2b, 0xa9];
    let mut md = at(0, &md_magic) || at(4096, &md_magic);
    for tail_offset in [
        size_bytes.saturating_sub(8192) & !4095,
        (size_bytes & !65535).saturating_sub(65536),
    ] {
        let mut magic = [0u8; 4];
        if tail_offset > 0
            && read_at_most(device, &mut magic, tail_offset) == 4
            && magic == md_magic
        {
            md = true;
        }
    }
    if md {
        found.push("an MD RAID member superblock");
    }
    found
}

fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> usize {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => done += n,
        }
    }
    done
}

/// One short phrase for an IO error (its errno name and text).
pub fn describe_io_error(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(code) => format!(
            "{} ({})",
            std::io::Error::from_raw_os_error(code),
            errno_name(code)
        ),
        None => error.to_string(),
    }
}

/// The symbolic name of the errnos users meet most.
pub fn errno_name(code: i32) -> &'static str {
    match code {
        1 => "EPERM",
        2 => "ENOENT",
        5 => "EIO",
        9 => "EBADF",
        11 => "EAGAIN",
        12 => "ENOMEM",
        13 => "EACCES",
        16 => "EBUSY",
        17 => "EEXIST",
        19 => "ENODEV",
        21 => "EISDIR",
        22 => "EINVAL",
        27 => "EFBIG",
        28 => "ENOSPC",
        30 => "EROFS",
        38 => "ENOSYS",
        95 => "EOPNOTSUPP",
        122 => "EDQUOT",
        _ => "errno",
    }
}

/// Reads a small text file under /sys or /proc; `None` when absent.
pub fn read_text(path: &Path) -> Option<String> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
    Some(text.trim().to_string())
}

#[cfg(test)]
#[path = "safety_tests.rs"]
mod tests;
