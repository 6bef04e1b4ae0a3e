//! Room for the test files: before the layout writes a byte, the space its files need is
//! checked against the free space of each filesystem they go on (statvfs), and a layout that
//! runs out of space anyway (another writer filled the disk meanwhile) ends with the same
//! figures. Either way the refusal names what was needed, what was free, where, and what to
//! do instead ([`SpaceShortfall`]). A filesystem that refuses O_DIRECT is named the same way
//! ([`direct_refused`]).

use crate::prepare::{FileContents, Preparation, TargetPlan};
use crate::safety::{mount_of, Mount};
use diskmeter_units::{format_scaled, Precision, Scale};
use diskmeter_workload::files::Fallocate;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A layout that does not fit on its filesystem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: not enough space to lay out {}: {} needed, {} free on {}{}; use a smaller --size, \
     put the {} on a filesystem with room (--directory or --filename), or free space on {}",
    path.display(),
    if *files == 1 { "the test file".to_string() } else { format!("{files} test files") },
    scaled(*needed_bytes),
    scaled(*free_bytes),
    where_(mount),
    if *while_writing {
        " (it filled up while the layout was writing: another writer is using it)"
    } else {
        ""
    },
    if *files == 1 { "file" } else { "files" },
    mount.as_ref().map_or("it".to_string(), |m| m.mount_point.display().to_string()),
)]
pub struct SpaceShortfall {
    /// The (first) test file that does not fit.
    pub path: PathBuf,
    /// How many of the layout's files go on that filesystem.
    pub files: usize,
    /// The bytes the layout writes or reserves there.
    pub needed_bytes: u64,
    /// The bytes free to this user there (statvfs `f_bavail`, `f_bfree` for root), counting
    /// the space of diskmeter's own files the layout rewrites.
    pub free_bytes: u64,
    /// The filesystem, from /proc/self/mountinfo; `None` when it cannot be found.
    pub mount: Option<Mount>,
    /// The filesystem passed the check and filled up during the layout.
    pub while_writing: bool,
}

/// A byte count as the refusal prints it: three figures, `64.0 MiB`.
fn scaled(bytes: u64) -> String {
    format_scaled(bytes as f64, Scale::BinaryBytes, Precision::ThreeFigures)
}

fn where_(mount: &Option<Mount>) -> String {
    match mount {
        Some(m) => format!("{} ({})", m.mount_point.display(), m.fstype),
        None => "its filesystem".to_string(),
    }
}

/// The bytes laying out `target` writes or reserves on its filesystem, as `fallocate` says.
pub fn layout_bytes(target: &TargetPlan, fallocate: Fallocate) -> u64 {
    if !target.created_by_diskmeter || target.preparation == Preparation::UseExisting {
        return 0;
    }
    match target.contents {
        FileContents::Written => target.file_size_bytes,
        FileContents::Reserved => match fallocate {
            Fallocate::Native | Fallocate::Posix | Fallocate::Keep => target.file_size_bytes,
            Fallocate::None | Fallocate::Truncate => 0,
        },
        FileContents::Sparse | FileContents::Empty => 0,
    }
}

/// The folder a file goes in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The bytes free to the layout in the filesystem holding `folder`; `None` when statvfs
/// cannot tell (a missing folder: the layout names that itself) or the filesystem states no
/// size (ramfs and the like report 0 blocks in all: they grow until memory runs out).
pub fn free_bytes(folder: &Path) -> Option<u64> {
    let stat = rustix::fs::statvfs(folder).ok()?;
    // Root may write into the blocks a filesystem reserves (ext4's 5 %): its free space is
    // f_bfree, everyone else's f_bavail.
    let blocks = if rustix::process::geteuid().is_root() {
        stat.f_bfree
    } else {
        stat.f_bavail
    };
    (stat.f_blocks > 0).then(|| blocks.saturating_mul(stat.f_frsize))
}

/// The bytes a file of diskmeter's holds on disk now: the layout truncates it first, so they
/// count as free for it.
fn allocated_bytes(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).map_or(0, |m| m.blocks().saturating_mul(512))
}

/// Checks, before anything is written, that each filesystem has room for the layout of
/// `needs` (each target with the bytes its layout writes); the first that has not is the
/// refusal. A filesystem whose free space cannot be read is not checked here.
pub fn check_room(needs: &[(&TargetPlan, u64)]) -> Result<(), SpaceShortfall> {
    // Grouped by the device of each file's folder: files side by side share one figure.
    let mut groups: Vec<(u64, Vec<&TargetPlan>, u64, u64)> = Vec::new();
    for &(target, bytes) in needs.iter().filter(|(_, bytes)| *bytes > 0) {
        let folder = folder_of(&target.path);
        let Ok(meta) = std::fs::metadata(folder) else {
            continue;
        };
        let credit = if target.preparation == Preparation::Recreate {
            allocated_bytes(&target.path)
        } else {
            0
        };
        match groups.iter_mut().find(|g| g.0 == meta.dev()) {
            Some(group) => {
                group.1.push(target);
                group.2 += bytes;
                group.3 += credit;
            }
            None => groups.push((meta.dev(), vec![target], bytes, credit)),
        }
    }
    for (_, targets, needed_bytes, credit) in groups {
        let first = targets[0];
        let Some(free) = free_bytes(folder_of(&first.path)) else {
            continue;
        };
        let free_bytes = free.saturating_add(credit);
        if needed_bytes > free_bytes {
            return Err(SpaceShortfall {
                path: first.path.clone(),
                files: targets.len(),
                needed_bytes,
                free_bytes,
                mount: mount_of(folder_of(&first.path)),
                while_writing: false,
            });
        }
    }
    Ok(())
}

/// The refusal for a layout of `target` that hit ENOSPC after `check_room` let it start: the
/// free space now plus what the file already holds (the cleanup removes it) is what it had.
pub fn filled_up(target: &TargetPlan, needed_bytes: u64) -> SpaceShortfall {
    let folder = folder_of(&target.path);
    let free = free_bytes(folder).unwrap_or(0);
    SpaceShortfall {
        path: target.path.clone(),
        files: 1,
        needed_bytes,
        free_bytes: free.saturating_add(allocated_bytes(&target.path)),
        mount: mount_of(folder),
        while_writing: true,
    }
}

/// What to say when the filesystem holding `path` refuses O_DIRECT (EINVAL at open): which
/// filesystem, and the two ways on.
pub fn direct_refused(path: &Path) -> String {
    let filesystem = mount_of(folder_of(path)).map_or("the filesystem".to_string(), |m| {
        format!(
            "the filesystem ({} on {})",
            m.fstype,
            m.mount_point.display()
        )
    });
    format!(
        "{filesystem} refuses O_DIRECT (EINVAL); run with --direct=0 (buffered IO, through the \
         page cache), or put the file on a filesystem that supports O_DIRECT (ext4, XFS, \
         btrfs; tmpfs only from Linux 6.6)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_both_figures_the_place_and_what_to_do() {
        let shortfall = SpaceShortfall {
            path: PathBuf::from("/mnt/small/x.dat"),
            files: 1,
            needed_bytes: 64 << 20,
            free_bytes: 8_283_750,
            mount: Some(Mount {
                mount_point: PathBuf::from("/mnt/small"),
                fstype: "tmpfs".into(),
            }),
            while_writing: false,
        };
        assert_eq!(
            shortfall.to_string(),
            "/mnt/small/x.dat: not enough space to lay out the test file: 64.0 MiB needed, \
             7.90 MiB free on /mnt/small (tmpfs); use a smaller --size, put the file on a \
             filesystem with room (--directory or --filename), or free space on /mnt/small"
        );
    }

    #[test]
    fn several_files_and_a_filesystem_that_filled_up_say_so() {
        let shortfall = SpaceShortfall {
            path: PathBuf::from("a.0"),
            files: 4,
            needed_bytes: 4 << 30,
            free_bytes: 0,
            mount: None,
            while_writing: true,
        };
        let text = shortfall.to_string();
        assert!(text.contains("lay out 4 test files: 4.00 GiB needed, 0 B free on its filesystem (it filled up while the layout was writing"), "{text}");
        assert!(
            text.contains("put the files on a filesystem with room"),
            "{text}"
        );
    }

    /// A tmpfs of `size` mounted in a folder of its own; unmounted on drop, however the
    /// test ends.
    struct SmallTmpfs(tempfile::TempDir);

    impl SmallTmpfs {
        fn new(size: &str) -> Option<SmallTmpfs> {
            let dir = tempfile::tempdir().ok()?;
            let mounted = std::process::Command::new("mount")
                .args(["-t", "tmpfs", "-o", &format!("size={size}"), "none"])
                .arg(dir.path())
                .status()
                .is_ok_and(|s| s.success());
            mounted.then_some(SmallTmpfs(dir))
        }
    }

    impl Drop for SmallTmpfs {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount")
                .arg(self.0.path())
                .status();
        }
    }

    /// The filesystem fills up after the check let the layout start (another writer; here
    /// the check is left out): the write's ENOSPC ends the layout with the same figures.
    #[test]
    fn a_filesystem_that_fills_up_during_the_layout_gives_the_figures() {
        if !rustix::process::geteuid().is_root() {
            let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
            assert!(!ci, "needs root to mount a tmpfs; CI runs as root");
            eprintln!("skipped: needs root to mount a tmpfs");
            return;
        }
        let fs = SmallTmpfs::new("1m").expect("mount a 1 MiB tmpfs");
        let target = TargetPlan {
            path: fs.0.path().join("x.dat"),
            kind: crate::safety::TargetKind::File,
            region_start_bytes: 0,
            region_len_bytes: 4 << 20,
            file_size_bytes: 4 << 20,
            preparation: Preparation::Create,
            created_by_diskmeter: true,
            contents: FileContents::Written,
        };
        let files = diskmeter_workload::files::FileOptions {
            fallocate: Fallocate::None,
            ..Default::default()
        };
        let mut created = crate::layout::CreatedFiles::default();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let laid = crate::layout::lay_out(
            &target,
            &files,
            &mut created,
            true,
            &stop,
            &mut |_, _, _| {},
        );
        match laid {
            Err(crate::RunError::NoSpace(shortfall)) => {
                assert!(shortfall.while_writing);
                assert_eq!(shortfall.needed_bytes, 4 << 20);
                // The 1 MiB it had: what the half-written file holds counts as free.
                assert_eq!(shortfall.free_bytes, 1 << 20, "{shortfall}");
                let text = shortfall.to_string();
                assert!(
                    text.contains("4.00 MiB needed, 1.00 MiB free on "),
                    "{text}"
                );
                assert!(
                    text.contains("(tmpfs) (it filled up while the layout was writing"),
                    "{text}"
                );
            }
            other => panic!("not a shortfall: {other:?}"),
        }
        created.remove(false);
    }
}
