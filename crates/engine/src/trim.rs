//! Trims ([`crate::IoOp::Trim`]): `BLKDISCARD` on a block device, a punched hole
//! (`fallocate(PUNCH_HOLE | KEEP_SIZE)`) in a regular file, as fio's `os_trim` does on Linux
//! for devices (fio 3.33 refuses trims on files with ENOTTY; newer fio punches holes too).
//!
//! Every engine trims synchronously, as fio's libaio and io_uring engines do: neither
//! interface has a discard for block devices, so the call happens where the unit is queued
//! (psync: committed) and its completion is handed back by the next `getevents`.

use std::os::fd::RawFd;

use crate::slots::neg_errno;

/// BLKDISCARD = _IO(0x12, 119); not exported by the libc crate.
const BLKDISCARD: libc::Ioctl = 0x1277;

/// How each of an engine's descriptors is trimmed, found once when the engine is built.
#[derive(Debug, Clone)]
pub(crate) struct Trimmer {
    /// Per file index: true for a block device (discard), false for anything else (punch).
    block_device: Vec<bool>,
}

impl Trimmer {
    /// Looks at each descriptor once (an `fstat`); a bad descriptor counts as a file, so
    /// trimming it fails with the kernel's EBADF.
    pub(crate) fn new(fds: &[RawFd]) -> Trimmer {
        let block_device = fds
            .iter()
            .map(|&fd| {
                // SAFETY: fstat writes one `struct stat` into the zeroed value; an invalid
                // descriptor only makes it fail.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                let rc = unsafe { libc::fstat(fd, &mut st) };
                rc == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFBLK
            })
            .collect();
        Trimmer { block_device }
    }

    /// Trims `len` bytes at `offset` of file `file`: the length on success, else a negated
    /// errno, as a completion reports it.
    pub(crate) fn trim(&self, fd: RawFd, file: u32, offset: u64, len: u32) -> i64 {
        let block = self
            .block_device
            .get(file as usize)
            .copied()
            .unwrap_or(false);
        loop {
            let rc = if block {
                let range: [u64; 2] = [offset, u64::from(len)];
                // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer, which
                // points at `range` for the whole call.
                unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) }
            } else {
                let Ok(off) = libc::off_t::try_from(offset) else {
                    return -i64::from(libc::EINVAL);
                };
                // SAFETY: a plain system call on a descriptor; a bad one fails with EBADF.
                unsafe {
                    libc::fallocate(
                        fd,
                        libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                        off,
                        libc::off_t::from(len),
                    )
                }
            };
            if rc >= 0 {
                return i64::from(len);
            }
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EINTR) {
                return neg_errno(&err);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_trimmed_file_range_becomes_a_hole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&vec![0xa5u8; 1 << 20]).unwrap();
        file.sync_all().unwrap();
        let before = file.metadata().unwrap().blocks();
        let trimmer = Trimmer::new(&[file.as_raw_fd()]);
        assert_eq!(trimmer.trim(file.as_raw_fd(), 0, 0, 512 << 10), 512 << 10);
        let after = file.metadata().unwrap();
        assert_eq!(after.len(), 1 << 20, "KEEP_SIZE: the length stays");
        assert!(
            after.blocks() <= before / 2 + 8,
            "{before} -> {}",
            after.blocks()
        );
        assert_eq!(std::fs::read(&path).unwrap()[..4096], [0u8; 4096]);
    }

    /// Writes, then trims half the blocks and writes the rest again in one batch with every
    /// engine: trims done at queue time and IO in the kernel complete together, a reap that
    /// waits for all of them returns (none is waited for twice), and the trimmed blocks read
    /// back as zeros.
    #[test]
    fn every_engine_trims_beside_ring_io() {
        use crate::{open_engine, BufferFill, EngineChoice, EngineConfig, IoOp, IoUnit};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        for choice in [
            EngineChoice::Psync,
            EngineChoice::IoUring,
            EngineChoice::Libaio,
            EngineChoice::Null,
        ] {
            let mut file = std::fs::File::create(&path).unwrap();
            file.write_all(&vec![0xa5u8; 8 * 4096]).unwrap();
            file.sync_all().unwrap();
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .unwrap();
            let depth = if choice == EngineChoice::Psync { 1 } else { 8 };
            let config = EngineConfig {
                choice,
                iodepth: depth,
                buffer_len_bytes: 4096,
                buffer_align_bytes: 4096,
                fds: vec![file.as_raw_fd()],
                fixed_buffers: false,
                register_files: false,
                fill: BufferFill::Random,
                seed: 1,
                tuning: Default::default(),
            };
            let mut engine = match open_engine(&config) {
                Ok(engine) => engine,
                Err(error) => {
                    crate::sys::skip_test(&format!("{choice:?}: {error}"));
                    continue;
                }
            };
            let mut done = Vec::new();
            for block in 0..8u32 {
                let op = if block % 2 == 0 {
                    IoOp::Trim
                } else {
                    IoOp::Write
                };
                // A trim longer than a buffer slot is fine: it moves no data. (It reaches
                // into the next block, which is written after it.)
                let len_bytes = if op == IoOp::Trim { 8192 } else { 4096 };
                let slot = block % depth;
                engine
                    .queue(IoUnit {
                        op,
                        file: 0,
                        offset_bytes: u64::from(block) * 4096,
                        len_bytes,
                        slot,
                    })
                    .unwrap();
                if depth == 1 || slot == depth - 1 {
                    let want = (slot + 1) as usize;
                    let (_, got) = engine.commit_and_getevents(want, &mut done).unwrap();
                    assert!(got >= 1, "{choice:?}");
                    while done.len() < (block + 1) as usize {
                        engine.getevents(1, &mut done).unwrap();
                    }
                }
            }
            assert_eq!(done.len(), 8, "{choice:?}");
            let mut results: Vec<i64> = done.iter().map(|c| c.result).collect();
            results.sort_unstable();
            assert_eq!(
                results,
                [4096, 4096, 4096, 4096, 8192, 8192, 8192, 8192],
                "{choice:?}"
            );
            if choice != EngineChoice::Null {
                let data = std::fs::read(&path).unwrap();
                for block in (0..8).step_by(2) {
                    let range = block * 4096..(block + 1) * 4096;
                    assert!(
                        data[range].iter().all(|&b| b == 0),
                        "{choice:?} block {block}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_bad_descriptor_fails_with_ebadf() {
        let trimmer = Trimmer::new(&[-1]);
        assert_eq!(trimmer.trim(-1, 0, 0, 4096), -i64::from(libc::EBADF));
    }
}
