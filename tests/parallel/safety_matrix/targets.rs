//! The targets every front-end is run against, made once per test binary and shared by its
//! tests (a refusal leaves them as they were, and each test shows that it did): 8 MiB loop
//! devices holding each kind of data, one of them mounted, plus a user's file and symlinks
//! to a device and to the file. The devices are attached with partition scanning, so where
//! the kernel reads MBR and GPT tables (not the test VM's: it is built without them) the
//! refusal also counts the partitions it made. Before any test uses them, blkid(8) must name what
//! each device holds, so a fixture that drifted from its format fails here instead of
//! passing for the wrong reason. Everything is undone when the test process exits.

use super::images;
use crate::common::{require_root, require_tool, sh};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Each device's size: small enough to make and compare in milliseconds, large enough for
/// ext4, a GPT and an md superblock.
const DEVICE_BYTES: usize = 8 << 20;

/// One target of the matrix.
pub struct Target {
    /// Its row in the matrix ("LVM physical volume").
    pub kind: &'static str,
    /// What a command is given.
    pub path: PathBuf,
    /// What a refusal names: the device a symlink to a device points to, else `path`.
    pub named: PathBuf,
    /// Phrases the refusal's reason must contain.
    pub reasons: Vec<String>,
    /// What the refusal must offer instead of `--allow-destroy` (issue 32).
    pub alternative: String,
    /// A block device or a symlink to one (not a file).
    pub device: bool,
    /// The bytes that must never change: the device, or the file.
    checked: PathBuf,
    before: Vec<u8>,
}

impl Target {
    /// How its bytes differ from when it was made, if they do.
    pub fn changed(&self) -> Option<String> {
        let now = match std::fs::read(&self.checked) {
            Ok(now) => now,
            Err(e) => return Some(format!("cannot read {}: {e}", self.checked.display())),
        };
        if now == self.before {
            return None;
        }
        let first = now
            .iter()
            .zip(&self.before)
            .position(|(a, b)| a != b)
            .unwrap_or(now.len().min(self.before.len()));
        let differing = now.iter().zip(&self.before).filter(|(a, b)| a != b).count();
        Some(format!(
            "{} changed: {differing} bytes differ, the first at offset {first}",
            self.checked.display()
        ))
    }
}

/// Every target, in the matrix's row order.
pub struct Targets {
    /// The rows.
    pub all: Vec<Target>,
}

impl Targets {
    /// The row of `kind`.
    pub fn get(&self, kind: &str) -> &Target {
        self.all
            .iter()
            .find(|t| t.kind == kind)
            .unwrap_or_else(|| panic!("no target {kind}"))
    }
}

/// The rows every front-end's reads are tried on: a device that is in use and a user's file.
pub const READ_ROWS: [&str; 2] = [MOUNTED, USER_FILE];
/// The row of the mounted device.
pub const MOUNTED: &str = "mounted ext4";
/// The row of the user's file.
pub const USER_FILE: &str = "existing user file";

/// The shared targets, made on first use; `None` (the test skips, see `common::skip`)
/// without root.
pub fn shared(test: &str) -> Option<&'static Targets> {
    if !require_root(test) || !require_tool(test, "mkfs.ext4") {
        return None;
    }
    static TARGETS: OnceLock<Targets> = OnceLock::new();
    Some(TARGETS.get_or_init(make))
}

/// What to undo at exit: mount points, then loop devices, then the folder.
#[derive(Default)]
struct Made {
    mounts: Vec<PathBuf>,
    loops: Vec<String>,
    dir: Option<PathBuf>,
}

static MADE: Mutex<Made> = Mutex::new(Made {
    mounts: Vec::new(),
    loops: Vec::new(),
    dir: None,
});

extern "C" fn undo() {
    let made = std::mem::take(&mut *MADE.lock().unwrap_or_else(|e| e.into_inner()));
    for mount in &made.mounts {
        let _ = std::process::Command::new("umount").arg(mount).status();
    }
    for device in &made.loops {
        let _ = std::process::Command::new("losetup")
            .args(["-d", device])
            .status();
    }
    if let Some(dir) = made.dir {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn made() -> std::sync::MutexGuard<'static, Made> {
    MADE.lock().unwrap_or_else(|e| e.into_inner())
}

fn make() -> Targets {
    let dir = std::env::temp_dir().join(format!("diskmeter-safety-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the targets' folder");
    made().dir = Some(dir.clone());
    // SAFETY: registers a plain function with no captured state to run at exit.
    unsafe {
        libc::atexit(undo);
    }
    let ext4 = |name: &str| {
        let backing = dir.join(name);
        std::fs::write(&backing, images::blank(DEVICE_BYTES)).expect("write the image");
        sh(&format!("mkfs.ext4 -q -F {}", backing.display()));
        backing
    };
    let mut all = Vec::new();
    let mounted = attach(&ext4("mounted.img"));
    let mount_point = dir.join("mnt");
    std::fs::create_dir_all(&mount_point).expect("create the mount point");
    // Read-only: a read-write ext4 keeps writing its journal and inode tables for a while
    // after mounting, and the device must hold still for its bytes to be compared.
    sh(&format!("mount -o ro {mounted} {}", mount_point.display()));
    made().mounts.push(mount_point.clone());
    all.push(device(
        MOUNTED,
        &mounted,
        "TYPE=ext4",
        &[
            &format!("it is mounted (on {})", mount_point.display()),
            "ext2/3/4",
        ],
        &format!(
            "use a file on its filesystem instead: --filename={}",
            mount_point.join("diskmeter.dat").display()
        ),
    ));
    let image = |name: &str, bytes: Vec<u8>| {
        let backing = dir.join(name);
        std::fs::write(&backing, bytes).expect("write the image");
        attach(&backing)
    };
    let on_partitions = "use a file on the filesystem of one of its partitions instead";
    let rows: [(&str, String, &str, &[&str], &str); 7] = [
        (
            "MBR partition table",
            image("mbr.img", images::mbr(DEVICE_BYTES)),
            "PTTYPE=dos",
            &["(MBR signature)"],
            on_partitions,
        ),
        (
            "GPT partition table",
            image("gpt.img", images::gpt(DEVICE_BYTES)),
            "PTTYPE=gpt",
            &["a GPT partition table"],
            on_partitions,
        ),
        (
            "ext4 filesystem",
            attach(&ext4("ext4.img")),
            "TYPE=ext4",
            &["an ext2/3/4 filesystem"],
            "mount it and use a file on its filesystem instead (--filename=MOUNTPOINT/diskmeter.dat)",
        ),
        (
            "LVM physical volume",
            image("lvm.img", images::lvm2_label(DEVICE_BYTES)),
            "TYPE=LVM2_member",
            &["an LVM physical volume"],
            "use a file on the filesystem of one of its volume group's logical volumes instead",
        ),
        (
            "md RAID member",
            image("md.img", images::md_v1_2(DEVICE_BYTES)),
            "TYPE=linux_raid_member",
            &["an MD RAID member superblock"],
            "use a file on the filesystem of its RAID array instead",
        ),
        (
            "LUKS2 volume",
            image("luks.img", images::luks2(DEVICE_BYTES)),
            "TYPE=crypto_LUKS",
            &["a LUKS encrypted volume"],
            "use a file on the filesystem inside the opened volume instead",
        ),
        (
            "swap area",
            image("swap.img", images::swap(DEVICE_BYTES)),
            "TYPE=swap",
            &["a swap area"],
            "use a file on a mounted filesystem instead (--filename=DIR/diskmeter.dat), or a \
             device that holds no data",
        ),
    ];
    for (kind, dev, blkid, reasons, alternative) in rows {
        all.push(device(kind, &dev, blkid, reasons, alternative));
    }
    // A user's file and a symlink to it: a new file beside them is diskmeter's to make.
    let new_file = format!(
        "name a file that does not exist yet instead (diskmeter creates its own test file and \
         removes it after the run): --filename={}",
        dir.join("diskmeter.dat").display()
    );
    let file = dir.join("precious.db");
    let contents: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    std::fs::write(&file, &contents).expect("write the user's file");
    all.push(Target {
        kind: USER_FILE,
        path: file.clone(),
        named: file.clone(),
        reasons: vec!["is an existing file that diskmeter did not create".into()],
        alternative: new_file.clone(),
        device: false,
        checked: file.clone(),
        before: contents.clone(),
    });
    let lvm = all
        .iter()
        .find(|t| t.kind == "LVM physical volume")
        .map(|t| {
            let alternative = t.alternative.clone();
            (
                t.path.clone(),
                t.reasons.clone(),
                t.before.clone(),
                alternative,
            )
        })
        .expect("the LVM row");
    let device_link = dir.join("disk-by-id-link");
    std::os::unix::fs::symlink(&lvm.0, &device_link).expect("symlink to the device");
    all.push(Target {
        kind: "symlink to a device",
        path: device_link,
        named: lvm.0.clone(),
        reasons: lvm.1,
        alternative: lvm.3,
        device: true,
        checked: lvm.0,
        before: lvm.2,
    });
    let file_link = dir.join("link.db");
    std::os::unix::fs::symlink(&file, &file_link).expect("symlink to the file");
    all.push(Target {
        kind: "symlink to a user file",
        path: file_link.clone(),
        named: file_link,
        reasons: vec!["is a symlink to an existing file".into()],
        alternative: new_file,
        device: false,
        checked: file,
        before: contents,
    });
    Targets { all }
}

/// Attaches `backing` as a loop device that the kernel scans for partitions.
fn attach(backing: &Path) -> String {
    let device = sh(&format!("losetup -f --show -P {}", backing.display()));
    made().loops.push(device.clone());
    device
}

/// The row of a device: blkid must find `blkid_says` on it; its refusal offers
/// `alternative`; its bytes are kept to compare.
fn device(
    kind: &'static str,
    dev: &str,
    blkid_says: &str,
    reasons: &[&str],
    alternative: &str,
) -> Target {
    let found = sh(&format!("blkid -p -o export {dev} || true"));
    assert!(
        found.lines().any(|line| line == blkid_says),
        "the {kind} fixture on {dev} is not what blkid calls {blkid_says}: {found}"
    );
    let mut reasons: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
    let name = dev.trim_start_matches("/dev/");
    let partitions = std::fs::read_dir(format!("/sys/block/{name}"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(name))
                .count()
        })
        .unwrap_or(0);
    if partitions > 0 {
        reasons.push(format!("it has {partitions} partition(s)"));
    }
    Target {
        kind,
        path: PathBuf::from(dev),
        named: PathBuf::from(dev),
        reasons,
        alternative: alternative.to_string(),
        device: true,
        checked: PathBuf::from(dev),
        before: std::fs::read(dev).expect("read the device"),
    }
}
