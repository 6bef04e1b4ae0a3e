//! Test support, never part of the product: a FUSE filesystem that serves one file, `disk`,
//! from memory and fails the reads or writes touching chosen byte ranges with EIO, as a disk
//! with bad sectors does. A loop device over that file is a block device that returns EIO
//! from the kernel's real IO path (loop -> FUSE -> this server), which the machines we test
//! on offer no other way to get (no device-mapper, no null_blk, no fault-injection debugfs).
//!
//! The process that calls [`mount`] serves the filesystem from a thread of its own (fuser's
//! background session) and unmounts it when the [`Mounted`] handle is dropped. As root,
//! fuser mounts with mount(2) itself: no libfuse and no fusermount binary are needed.
//! `tests/parallel/faults.rs` uses it; only the root package's tests depend on this crate.

#![forbid(unsafe_code)]

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo,
    LockOwner, MountOption, OpenFlags, ReplyAttr, ReplyData, ReplyEmpty, ReplyEntry, ReplyOpen,
    ReplyWrite, Request, WriteFlags,
};
use std::ffi::OsStr;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

/// The name of the one file the filesystem serves.
pub const FILE_NAME: &str = "disk";

/// The inode of the file (the root folder is [`INodeNo::ROOT`]).
const FILE_INODE: INodeNo = INodeNo(2);

/// How long the kernel may cache names and attributes: they never change.
const TTL: Duration = Duration::from_secs(60);

/// Which IOs fail: any read or write that touches one of its ranges (byte offsets in the
/// file) fails whole with EIO, as a read or write of a bad sector does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    reads: Vec<Range<u64>>,
    writes: Vec<Range<u64>>,
}

impl Faults {
    /// Reads that touch `range` fail too.
    pub fn fail_reads(mut self, range: Range<u64>) -> Faults {
        self.reads.push(range);
        self
    }

    /// Writes that touch `range` fail too.
    pub fn fail_writes(mut self, range: Range<u64>) -> Faults {
        self.writes.push(range);
        self
    }

    fn hits(ranges: &[Range<u64>], offset: u64, len: u64) -> bool {
        let end = offset.saturating_add(len);
        ranges.iter().any(|r| offset < r.end && r.start < end)
    }
}

/// What the filesystem has served so far, so a test can tell when the run under test has
/// reached its IO (for example, its first write) without timing anything.
#[derive(Debug, Default)]
pub struct Activity {
    reads: AtomicU64,
    writes: AtomicU64,
    failed: AtomicU64,
}

impl Activity {
    /// Reads served (failed ones not counted).
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// Writes served (failed ones not counted).
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    /// Reads and writes answered with EIO.
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }
}

/// The filesystem: the file's bytes, its faults and its counters.
struct FaultFs {
    data: Mutex<Vec<u8>>,
    faults: Faults,
    activity: Arc<Activity>,
}

impl FaultFs {
    fn file_attr(&self, size: u64) -> FileAttr {
        attr(FILE_INODE, FileType::RegularFile, 0o600, size)
    }

    fn size(&self) -> u64 {
        self.data.lock().map_or(0, |d| d.len() as u64)
    }

    fn fail(&self) -> Errno {
        self.activity.failed.fetch_add(1, Ordering::Relaxed);
        Errno::EIO
    }
}

fn attr(ino: INodeNo, kind: FileType, perm: u16, size: u64) -> FileAttr {
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind,
        perm,
        nlink: if kind == FileType::Directory { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

impl Filesystem for FaultFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent == INodeNo::ROOT && name == FILE_NAME {
            reply.entry(&TTL, &self.file_attr(self.size()), Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match ino {
            INodeNo::ROOT => reply.attr(&TTL, &attr(ino, FileType::Directory, 0o755, 0)),
            FILE_INODE => reply.attr(&TTL, &self.file_attr(self.size())),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // Every read and write comes to the server, none is served or held by the page
        // cache: a failed write must fail the IO that made it, not a later writeback.
        reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if Faults::hits(&self.faults.reads, offset, u64::from(size)) {
            return reply.error(self.fail());
        }
        let Ok(data) = self.data.lock() else {
            return reply.error(Errno::EIO);
        };
        let start = (offset as usize).min(data.len());
        let end = start.saturating_add(size as usize).min(data.len());
        self.activity.reads.fetch_add(1, Ordering::Relaxed);
        reply.data(&data[start..end]);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        bytes: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        if Faults::hits(&self.faults.writes, offset, bytes.len() as u64) {
            return reply.error(self.fail());
        }
        let Ok(mut data) = self.data.lock() else {
            return reply.error(Errno::EIO);
        };
        // The file has the size of a disk: a write past its end fails as one past a disk's.
        let start = offset as usize;
        let end = start.saturating_add(bytes.len());
        let Some(target) = data.get_mut(start..end) else {
            return reply.error(Errno::ENOSPC);
        };
        target.copy_from_slice(bytes);
        self.activity.writes.fetch_add(1, Ordering::Relaxed);
        reply.written(bytes.len() as u32);
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }
}

/// A mounted filesystem; dropping it unmounts it (lazily: a loop device still holding the
/// file keeps the connection until it lets go).
pub struct Mounted {
    mountpoint: PathBuf,
    activity: Arc<Activity>,
    // Dropping the session unmounts; it is never joined, so a drop cannot wait for the
    // kernel to let go of the connection.
    _session: fuser::BackgroundSession,
}

impl Mounted {
    /// The file the filesystem serves.
    pub fn file(&self) -> PathBuf {
        self.mountpoint.join(FILE_NAME)
    }

    /// The folder it is mounted on.
    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    /// What it has served so far.
    pub fn activity(&self) -> &Activity {
        &self.activity
    }
}

/// Mounts a filesystem at `mountpoint` (an existing, empty folder) serving a zero-filled file
/// of `size_bytes` whose IOs fail as `faults` says. Needs root (mount(2)) and /dev/fuse.
pub fn mount(mountpoint: &Path, size_bytes: u64, faults: Faults) -> std::io::Result<Mounted> {
    let activity = Arc::new(Activity::default());
    let fs = FaultFs {
        data: Mutex::new(vec![0; size_bytes as usize]),
        faults,
        activity: activity.clone(),
    };
    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName("diskmeter-faultfs".to_string()),
        MountOption::NoExec,
        MountOption::NoSuid,
    ];
    let session = fuser::spawn_mount(fs, mountpoint, &config)?;
    Ok(Mounted {
        mountpoint: mountpoint.to_path_buf(),
        activity,
        _session: session,
    })
}

#[cfg(test)]
mod tests {
    use super::Faults;

    #[test]
    fn an_io_fails_when_it_touches_a_range() {
        let ranges = [4096..8192, 1 << 20..2 << 20];
        assert!(Faults::hits(&ranges, 4096, 512));
        assert!(Faults::hits(&ranges, 0, 4097), "overlaps the start");
        assert!(Faults::hits(&ranges, 8191, 4096), "overlaps the end");
        assert!(
            !Faults::hits(&ranges, 0, 4096),
            "ends where the range starts"
        );
        assert!(
            !Faults::hits(&ranges, 8192, 4096),
            "starts where the range ends"
        );
    }
}
