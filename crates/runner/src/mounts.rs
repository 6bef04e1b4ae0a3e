//! The mounted filesystems, from /proc/self/mountinfo: which filesystem a path is on (its
//! mount point and type, for refusals that name where to go instead), and the parsing the
//! mounted-device check of [`crate::safety`] shares.

use crate::safety::parse_major_minor;
use std::path::{Path, PathBuf};

/// A mounted filesystem: where, and of what type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Its mount point.
    pub mount_point: PathBuf,
    /// Its type as the kernel names it (`ext4`, `tmpfs`, ...).
    pub fstype: String,
}

/// One line of /proc/self/mountinfo (proc(5)): the device and the mount.
pub(crate) struct MountLine {
    pub(crate) device: (u32, u32),
    pub(crate) mount: Mount,
}

impl MountLine {
    /// `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw`: the third
    /// field is the device, the fifth the mount point, the first after `-` the type.
    pub(crate) fn parse(line: &str) -> Option<MountLine> {
        let mut fields = line.split_whitespace();
        let device = parse_major_minor(fields.nth(2)?)?;
        let mount_point = PathBuf::from(unescape_mount(fields.nth(1)?));
        let fstype = fields.skip_while(|f| *f != "-").nth(1)?.to_string();
        Some(MountLine {
            device,
            mount: Mount {
                mount_point,
                fstype,
            },
        })
    }
}

/// The kernel writes a space, tab, newline and backslash in a mount point as octal escapes.
fn unescape_mount(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 4);
        match code.and_then(|c| u8::from_str_radix(c, 8).ok()) {
            Some(byte) => {
                out.push(byte as char);
                rest = &rest[at + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The filesystem `path` is on: the mount whose mount point is the longest leading part of
/// its real path (the last such line: a later mount hides an earlier one at the same place).
/// The same source as the mounted-device check; `None` when it cannot be read.
pub fn mount_of(path: &Path) -> Option<Mount> {
    let real = std::fs::canonicalize(path).ok()?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines()
        .filter_map(MountLine::parse)
        .filter(|line| real.starts_with(&line.mount.mount_point))
        .fold(None::<Mount>, |best, line| match best {
            Some(b)
                if b.mount_point.components().count()
                    > line.mount.mount_point.components().count() =>
            {
                Some(b)
            }
            _ => Some(line.mount),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mountinfo_line_gives_the_device_the_mount_point_and_the_type() {
        let line = MountLine::parse(
            "36 35 98:0 / /mnt/my\\040disk rw,noatime master:1 - ext4 /dev/loop0 rw",
        )
        .expect("parsed");
        assert_eq!(line.device, (98, 0));
        assert_eq!(line.mount.mount_point, PathBuf::from("/mnt/my disk"));
        assert_eq!(line.mount.fstype, "ext4");
    }

    #[test]
    fn a_path_is_on_the_deepest_mount_that_holds_it() {
        let mount = mount_of(Path::new("/proc/self")).expect("mounted");
        assert_eq!(mount.mount_point, PathBuf::from("/proc"));
        assert_eq!(mount.fstype, "proc");
    }
}
