//! Test files: creating and fully writing them before a run, opening them for the workers,
//! and removing the ones diskmeter created; fio's `fallocate`, `overwrite`, `create_fsync`,
//! `fadvise_hint`, `pre_read` and `fsync_on_close` on them.
//!
//! A new file is preallocated with fallocate and then written end to end with incompressible
//! data, so reads touch the device (a sparse or unwritten extent reads back zeros without
//! any IO) and writes overwrite allocated blocks, as they would in a long-lived database
//! file. Files are marked with the `user.diskmeter` extended attribute so a later run can
//! re-use them (same size) or rewrite them (other size) without treating them as user data.

use crate::prepare::{FileContents, Preparation, RunPlan, TargetPlan};
use crate::safety::{carries_owner_mark, describe_io_error, OWNER_XATTR, OWNER_XATTR_VALUE};
use crate::space;
use crate::RunError;
use diskmeter_workload::files::{FadviseHint, Fallocate, FileOptions};
use diskmeter_workload::{JobSpec, SyncMode};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

const LAYOUT_CHUNK_BYTES: usize = 1 << 20;

/// Files this run created; removed by [`CreatedFiles::remove`] unless kept.
#[derive(Debug, Default)]
pub struct CreatedFiles {
    files: Vec<CreatedFile>,
}

/// A test file of this run: one it created or rewrote, or one of diskmeter's it re-uses.
#[derive(Debug)]
struct CreatedFile {
    path: PathBuf,
    /// Its jobs asked to remove it at the end (fio `unlink`).
    unlink: bool,
    /// Its layout did not finish (an error, an interrupt): it is removed even when kept,
    /// since a half-written file would read back zeros from its unwritten part, and a later
    /// run could take it for a laid-out one.
    incomplete: bool,
    /// Its device and inode when the run took it: a file removed while the run had it open
    /// (IO goes on on the open descriptor) and replaced by another at the same path is not
    /// the run's to remove.
    identity: Option<(u64, u64)>,
}

impl CreatedFiles {
    /// Removes every file whose layout did not finish, and, unless `keep`, every other file
    /// whose jobs did not ask to keep it; only while its path still names the file the run
    /// took. Returns the paths removed.
    pub fn remove(&mut self, keep: bool) -> Vec<PathBuf> {
        let mut removed = Vec::new();
        for file in self.files.drain(..) {
            let wanted = file.incomplete || (!keep && file.unlink);
            let same = file.identity.is_none() || identity_at(&file.path) == file.identity;
            if wanted && same && std::fs::remove_file(&file.path).is_ok() {
                removed.push(file.path);
            }
        }
        removed
    }

    /// Each file the run took (made, or found diskmeter's and re-used) with its device and
    /// inode when it took it, before any of the run's IO.
    pub fn identities(&self) -> Vec<(PathBuf, (u64, u64))> {
        self.files
            .iter()
            .filter_map(|file| Some((file.path.clone(), file.identity?)))
            .collect()
    }

    fn push(&mut self, path: &Path, unlink: bool, identity: Option<(u64, u64)>) {
        self.files.push(CreatedFile {
            path: path.to_path_buf(),
            unlink,
            incomplete: false,
            identity,
        });
    }
}

/// The device and inode of what `path` names now (not following a symlink); `None` when
/// nothing is there. What tells the file a run made from one put at its path since.
pub fn identity_at(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path).ok().map(|m| identity(&m))
}

/// The device and inode `metadata` describes.
fn identity(metadata: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (metadata.dev(), metadata.ino())
}

/// Creates or rewrites the plan's files that need it. Records each file it creates in
/// `created` so cleanup still finds it after an error; one whose layout failed or was
/// interrupted is marked incomplete, so cleanup removes it even when files are kept.
pub fn prepare_files(
    plan: &RunPlan,
    created: &mut CreatedFiles,
    stop: &std::sync::atomic::AtomicBool,
    mut progress: impl FnMut(&Path, u64, u64),
) -> Result<(), RunError> {
    // The figures before any writing: a layout that cannot fit is refused whole.
    check_room(plan)?;
    for target in &plan.targets {
        if !target.created_by_diskmeter {
            continue;
        }
        let unlink = unlinked_at_end(plan, target);
        if target.preparation == Preparation::UseExisting {
            // A rank of a run across hosts leaves a file it did not lay out to the rank that
            // did: removing it while the others still do IO on it would fail them (a
            // shared filesystem's other clients get ESTALE).
            let unlink = unlink && !plan.files_shared_by_ranks;
            created.push(&target.path, unlink, identity_at(&target.path));
        } else {
            let files = layout_options(plan, target);
            let before = created.files.len();
            let laid_out = lay_out(target, &files, created, unlink, stop, &mut progress);
            if laid_out.is_err() {
                // Whatever this layout created or truncated is ours and of no use.
                for file in &mut created.files[before..] {
                    file.incomplete = true;
                }
            }
            laid_out?;
        }
    }
    Ok(())
}

/// Whether each filesystem has room for the files `plan` lays out ([`space::check_room`]):
/// what [`prepare_files`] checks before it writes, and a dry run notes.
pub fn check_room(plan: &RunPlan) -> Result<(), space::SpaceShortfall> {
    let needs: Vec<(&TargetPlan, u64)> = plan
        .targets
        .iter()
        .map(|t| (t, space::layout_bytes(t, layout_options(plan, t).fallocate)))
        .collect();
    space::check_room(&needs)
}

/// The first job on the file says how it is laid out (fallocate, create_fsync).
fn layout_options(plan: &RunPlan, target: &TargetPlan) -> FileOptions {
    plan.workers
        .iter()
        .find(|w| {
            w.targets
                .iter()
                .any(|&t| plan.targets[t].path == target.path)
        })
        .map(|w| plan.jobs[w.job_index].files.clone())
        .unwrap_or_default()
}

/// Whether the run removes `target` at its end (unless files are kept): every job on it
/// asks fio's `unlink` (or `unlink_each_loop`, which diskmeter does at the job's end).
fn unlinked_at_end(plan: &RunPlan, target: &TargetPlan) -> bool {
    plan.workers
        .iter()
        .filter(|w| {
            w.targets
                .iter()
                .any(|&t| plan.targets[t].path == target.path)
        })
        .all(|w| {
            let job = &plan.jobs[w.job_index];
            job.unlink || job.control.unlink_each_loop
        })
}

/// The files a run of `plan` creates (or re-uses as its own) and removes at its end unless
/// files are kept: what a process that is killed would leave behind.
pub fn removed_at_end(plan: &RunPlan) -> Vec<PathBuf> {
    plan.targets
        .iter()
        .filter(|t| t.created_by_diskmeter && unlinked_at_end(plan, t))
        .map(|t| t.path.clone())
        .collect()
}

/// Removes the file at `path` if, and only if, it is a regular file carrying diskmeter's
/// ownership mark (a test file a killed diskmeter left behind); a symlink, a device, a fifo
/// or a file without the mark is never touched. `Ok(false)` when there was nothing of ours.
pub fn remove_if_ours(path: &Path) -> std::io::Result<bool> {
    use rustix::fs::OFlags;
    // Not followed, and not waited on (a fifo put in its place must not block the sweep).
    let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK;
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path);
    // Gone, a symlink (ELOOP), or a file that cannot be opened: not one to remove.
    let Ok(file) = opened else {
        return Ok(false);
    };
    if !file.metadata()?.file_type().is_file() || !carries_owner_mark(&file) {
        return Ok(false);
    }
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Sets diskmeter's mark on `file`. Best effort: a filesystem without user extended
/// attributes still runs, and only loses the re-use of the file and the sweep of a leftover.
fn mark(file: &File) {
    let _ = rustix::fs::fsetxattr(
        file,
        OWNER_XATTR,
        OWNER_XATTR_VALUE,
        rustix::fs::XattrFlags::empty(),
    );
}

/// Creates the new file `path` exclusively, already carrying diskmeter's mark when it gets
/// its name: it is made unnamed in its folder (O_TMPFILE), marked, then linked at `path`
/// (which fails, as an exclusive create does, if anything is there). A process killed in
/// between leaves no file; one killed after leaves a marked file, which the next run's sweep
/// of leftovers removes. (Created and then marked, a kill between the two left an empty file
/// without the mark, which the sweep may not touch and the next run refused to write.) Where
/// the filesystem has no O_TMPFILE, the file is created and then marked.
fn create_marked(path: &Path) -> std::io::Result<File> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let unnamed = OpenOptions::new()
        .write(true)
        .custom_flags(rustix::fs::OFlags::TMPFILE.bits() as i32)
        .open(folder);
    let file = match unnamed {
        Ok(file) => file,
        Err(e) if !tmpfile_unsupported(&e) => return Err(e),
        Err(_) => {
            let file = OpenOptions::new().write(true).create_new(true).open(path)?;
            mark(&file);
            return Ok(file);
        }
    };
    mark(&file);
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    rustix::fs::linkat(
        rustix::fs::CWD,
        format!("/proc/self/fd/{fd}"),
        rustix::fs::CWD,
        path,
        rustix::fs::AtFlags::SYMLINK_FOLLOW,
    )?;
    Ok(file)
}

/// Whether opening with O_TMPFILE failed because the filesystem (or kernel) has none:
/// EOPNOTSUPP, or EISDIR/EINVAL from kernels and filesystems that do not know the flag.
fn tmpfile_unsupported(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(code) if code == libc::EOPNOTSUPP || code == libc::EISDIR || code == libc::EINVAL
    )
}

/// Lays out one file (see the module's doc); `pub(crate)` for the space check's tests.
pub(crate) fn lay_out(
    target: &TargetPlan,
    files: &FileOptions,
    created: &mut CreatedFiles,
    unlink: bool,
    stop: &std::sync::atomic::AtomicBool,
    progress: &mut impl FnMut(&Path, u64, u64),
) -> Result<(), RunError> {
    let path = &target.path;
    // A filesystem that fills up during the layout ends it with the figures, as the check
    // before it would have.
    let needed_bytes = space::layout_bytes(target, files.fallocate);
    let fail = |what: &str, e: std::io::Error| {
        if e.raw_os_error() == Some(libc::ENOSPC) && needed_bytes > 0 {
            return RunError::NoSpace(space::filled_up(target, needed_bytes));
        }
        RunError::Target {
            path: path.clone(),
            message: format!("{what}: {}", describe_io_error(&e)),
        }
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(RunError::Target {
                path: path.clone(),
                message: format!("folder {} does not exist", parent.display()),
            });
        }
    }
    // A new file is created exclusively, and a file of ours is re-checked on the open
    // descriptor: whatever appeared at the path since the plan was made is never truncated.
    let mut file = if target.preparation == Preparation::Create {
        create_marked(path).map_err(|e| fail("cannot create the test file", e))?
    } else {
        let file = OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(path)
            .map_err(|e| fail("cannot open the test file", e))?;
        if !carries_owner_mark(&file) {
            return Err(RunError::Target {
                path: path.clone(),
                message: "changed since the run was planned: it no longer carries diskmeter's mark; not touching it".to_string(),
            });
        }
        file.set_len(0)
            .map_err(|e| fail("cannot truncate the test file", e))?;
        file
    };
    created.push(path, unlink, file.metadata().ok().map(|m| identity(&m)));
    // Marked first (again, for a re-used file): if the layout is interrupted, the next run
    // still knows the file is ours.
    mark(&file);
    let size = target.file_size_bytes;
    match target.contents {
        FileContents::Written => {}
        FileContents::Sparse => {
            return file
                .set_len(size)
                .map_err(|e| fail("cannot size the test file", e));
        }
        // fill_device: the job's writes grow the file until ENOSPC.
        FileContents::Empty => return Ok(()),
        // fio's overwrite=0 for a job that only writes: sized and reserved, not written.
        // As fio 3.33 leaves it: `none` and `keep` keep the size 0 (the job's writes extend
        // the file), `truncate` sizes it sparse, native and posix allocate it.
        FileContents::Reserved => {
            reserve(&file, files.fallocate, size)
                .map_err(|e| fail("cannot reserve space for the test file", e))?;
            if matches!(files.fallocate, Fallocate::Native | Fallocate::Posix) {
                // Where the filesystem has no fallocate, the size at least is right.
                let len = file.metadata().map(|m| m.len()).unwrap_or(0);
                if len < size {
                    file.set_len(size)
                        .map_err(|e| fail("cannot size the test file", e))?;
                }
            }
            return Ok(());
        }
    }
    reserve(&file, files.fallocate, size)
        .map_err(|e| fail("cannot reserve space for the test file", e))?;
    // Seeded by the path too, so the files of several clones differ (no deduplication).
    let path_hash = path
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(size ^ path_hash ^ 0x6a09_e667_f3bc_c908);
    let mut chunk = vec![0u8; LAYOUT_CHUNK_BYTES];
    let mut written = 0u64;
    while written < size {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let len = (size - written).min(LAYOUT_CHUNK_BYTES as u64) as usize;
        rng.fill_bytes(&mut chunk[..len]);
        file.write_all(&chunk[..len])
            .map_err(|e| fail("cannot write the test file", e))?;
        written += len as u64;
        if written.is_multiple_of(64 << 20) || written == size {
            progress(path, written, size);
        }
    }
    // fio's create_fsync (default on): the data is on the device before the clock starts.
    if files.create_fsync {
        file.sync_data()
            .map_err(|e| fail("cannot flush the test file", e))?;
    }
    drop_cache(&file);
    Ok(())
}

/// Reserves a new file's space as fio's `fallocate` says. A filesystem without fallocate is
/// not an error (fio ignores it too): the file is written or stays sparse.
fn reserve(file: &File, mode: Fallocate, size: u64) -> Result<(), std::io::Error> {
    use rustix::fs::FallocateFlags;
    let flags = match mode {
        Fallocate::None => return Ok(()),
        Fallocate::Truncate => return file.set_len(size),
        // posix_fallocate is fallocate where the filesystem has it; where it has not, glibc
        // writes zeros, which the layout's own writes do anyway.
        Fallocate::Native | Fallocate::Posix => FallocateFlags::empty(),
        Fallocate::Keep => FallocateFlags::KEEP_SIZE,
    };
    match rustix::fs::fallocate(file, flags, 0, size) {
        Ok(()) | Err(rustix::io::Errno::OPNOTSUPP) | Err(rustix::io::Errno::NOSYS) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// fio's `fadvise_hint` and `pre_read` on a freshly opened target, before the clock starts.
fn after_open(file: &File, target: &TargetPlan, job: &JobSpec) -> Result<(), RunError> {
    use rustix::fs::Advice;
    let advice = match job.files.fadvise_hint {
        FadviseHint::Off => None,
        FadviseHint::Random => Some(Advice::Random),
        FadviseHint::Sequential => Some(Advice::Sequential),
        FadviseHint::Pattern if job.rw.is_random() => Some(Advice::Random),
        FadviseHint::Pattern => Some(Advice::Sequential),
    };
    if let Some(advice) = advice {
        // A hint: a file type that takes none is not an error.
        let _ = rustix::fs::fadvise(file, 0, None, advice);
    }
    if job.files.pre_read {
        pre_read(target)?;
    }
    Ok(())
}

/// Reads the target's region through the page cache (fio's `pre_read`), on a descriptor of
/// its own so an O_DIRECT one is not needed.
fn pre_read(target: &TargetPlan) -> Result<(), RunError> {
    use std::io::{Read, Seek, SeekFrom};
    let fail = |e: std::io::Error| RunError::Target {
        path: target.path.clone(),
        message: format!("pre_read: {}", describe_io_error(&e)),
    };
    let mut file = File::open(&target.path).map_err(fail)?;
    file.seek(SeekFrom::Start(target.region_start_bytes))
        .map_err(fail)?;
    let mut chunk = vec![0u8; LAYOUT_CHUNK_BYTES];
    let mut left = target.region_len_bytes;
    while left > 0 {
        let want = left.min(LAYOUT_CHUNK_BYTES as u64) as usize;
        match file.read(&mut chunk[..want]).map_err(fail)? {
            0 => break,
            n => left -= n as u64,
        }
    }
    Ok(())
}

/// fio's `sync_file_range=FLAGS:N` as the (every N writes, op) pair of the worker's syncs;
/// N = 0 (off) when the job does not ask.
pub(crate) fn sync_file_range_every(job: &JobSpec) -> (u32, diskmeter_engine::IoOp) {
    job.files
        .sync_file_range
        .map_or((0, diskmeter_engine::IoOp::Fsync), |range| {
            (
                range.every,
                diskmeter_engine::IoOp::SyncFileRange(range.linux_flags()),
            )
        })
}

/// fio's `fsync_on_close`: fsync each file a job wrote when it is closed at the end of the
/// run (not timed or counted, unlike `end_fsync`). `worker_files` are in `plan.workers` order.
pub fn fsync_on_close(plan: &RunPlan, worker_files: &[Vec<File>]) {
    for (worker, files) in plan.workers.iter().zip(worker_files) {
        let job = &plan.jobs[worker.job_index];
        if job.files.fsync_on_close && job.rw.writes() {
            for file in files {
                let _ = file.sync_all();
            }
        }
    }
}

/// Drops the file's pages from the page cache (fio's `invalidate=1`), so buffered reads
/// start cold. Failure is harmless (a device without a cache, a filesystem that ignores it).
pub fn drop_cache(file: &File) {
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed);
}

/// Opens a target for a worker: read-only for read-only jobs, O_DIRECT, O_SYNC or O_DSYNC
/// when the job asks, and (buffered, `invalidate`) with the file's cached pages dropped.
pub fn open_target(target: &TargetPlan, job: &JobSpec) -> Result<File, RunError> {
    let (write, direct) = (crate::job_writes(job), job.direct);
    let mut options = OpenOptions::new();
    options.read(true).write(write);
    let mut flags = rustix::fs::OFlags::empty();
    if direct {
        flags |= rustix::fs::OFlags::DIRECT;
    }
    match job.sync {
        SyncMode::None => {}
        SyncMode::Sync => flags |= rustix::fs::OFlags::SYNC,
        // rustix spells DSYNC as O_SYNC on Linux; the kernel's own O_DSYNC is meant here.
        SyncMode::Dsync => flags |= rustix::fs::OFlags::from_bits_retain(libc::O_DSYNC as u32),
    }
    if !flags.is_empty() {
        options.custom_flags(flags.bits() as i32);
    }
    let file = options.open(&target.path).map_err(|e| {
        let message = if direct && e.raw_os_error() == Some(22) {
            space::direct_refused(&target.path)
        } else {
            format!("cannot open: {}", describe_io_error(&e))
        };
        RunError::Target {
            path: target.path.clone(),
            message,
        }
    })?;
    // fio: pre_read clears invalidate (dropping what was just read would undo it).
    if !direct && job.invalidate && !job.files.pre_read {
        drop_cache(&file);
    }
    after_open(&file, target, job)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::Preparation;
    use crate::safety::TargetKind;
    use std::os::fd::AsRawFd;

    /// The open flags the kernel holds for `file` (the `flags:` line of /proc/self/fdinfo).
    fn kernel_flags(file: &File) -> u32 {
        let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", file.as_raw_fd()))
            .expect("fdinfo");
        let octal = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .expect("flags line")
            .trim();
        u32::from_str_radix(octal, 8).expect("octal flags")
    }

    #[test]
    fn cleanup_removes_only_the_files_the_run_took_and_half_laid_out_ones_even_when_kept() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = ["ours", "replaced", "half"]
            .iter()
            .map(|name| dir.path().join(name))
            .collect();
        let take = |created: &mut CreatedFiles| {
            for path in &paths {
                std::fs::write(path, b"test file").unwrap();
                created.push(path, true, identity_at(path));
            }
            created.files[2].incomplete = true;
        };
        let mut kept = CreatedFiles::default();
        take(&mut kept);
        assert_eq!(
            kept.remove(true),
            [paths[2].clone()],
            "kept, but for the half one"
        );
        let mut created = CreatedFiles::default();
        take(&mut created);
        // Removed while the run had it open (so its inode is not reused), and a user's file
        // put at its path.
        let open = File::open(&paths[1]).unwrap();
        std::fs::remove_file(&paths[1]).unwrap();
        std::fs::write(&paths[1], b"the user's").unwrap();
        assert_eq!(created.remove(false), [paths[0].clone(), paths[2].clone()]);
        drop(open);
        assert_eq!(std::fs::read(&paths[1]).unwrap(), b"the user's");
    }

    #[test]
    fn sync_modes_reach_the_kernel_as_o_sync_and_o_dsync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        let target = TargetPlan {
            path,
            kind: TargetKind::File,
            region_start_bytes: 0,
            region_len_bytes: 4096,
            file_size_bytes: 4096,
            preparation: Preparation::UseExisting,
            contents: crate::prepare::FileContents::Written,
            created_by_diskmeter: false,
        };
        let (o_sync, o_dsync) = (libc::O_SYNC as u32, libc::O_DSYNC as u32);
        for (mode, want) in [
            (SyncMode::None, 0),
            (SyncMode::Dsync, o_dsync),
            (SyncMode::Sync, o_sync),
        ] {
            let job = JobSpec {
                rw: diskmeter_workload::RwMode::Write,
                sync: mode,
                ..JobSpec::default()
            };
            let file = open_target(&target, &job).unwrap();
            assert_eq!(kernel_flags(&file) & o_sync, want, "{mode:?}");
        }
    }
}
