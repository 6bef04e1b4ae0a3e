//! fio's `lockfile`: workers sharing a file take turns submitting IO to it. `exclusive` lets
//! one submission at a time reach the file, `readwrite` lets reads go together and a write
//! alone.
//!
//! fio takes the file's lock before an IO is handed to the engine and drops it once the
//! engine has taken it (for a synchronous engine such as psync, once the IO is done). Here
//! an engine wrapper does the same around `commit`, the call that hands a batch to the
//! kernel (and, for psync, does the IO): it locks every file of the batch, in one global
//! order so two workers never wait for each other, and unlocks when `commit` returns. The
//! wrapper exists only when the job asks for locking, so the IO loop of other jobs is
//! unchanged.

use diskmeter_engine::{Capabilities, EngineError, IoCompletion, IoEngine, IoOp, IoUnit};
use diskmeter_workload::files::LockFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock, Weak};

/// One lock per path for the whole process: every worker of every job on the same file
/// finds the same lock (entries go when no worker holds them).
fn lock_for(path: &Path) -> Arc<RwLock<()>> {
    static LOCKS: Mutex<Option<HashMap<PathBuf, Weak<RwLock<()>>>>> = Mutex::new(None);
    let mut table = LOCKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let table = table.get_or_insert_with(HashMap::new);
    table.retain(|_, lock| lock.strong_count() > 0);
    if let Some(lock) = table.get(path).and_then(Weak::upgrade) {
        return lock;
    }
    let lock = Arc::new(RwLock::new(()));
    table.insert(path.to_path_buf(), Arc::downgrade(&lock));
    lock
}

/// An engine whose `commit` holds the locks of the files in its batch.
pub struct LockingEngine {
    inner: Box<dyn IoEngine>,
    mode: LockFile,
    /// The lock of each of the worker's files (by the engine's file index).
    locks: Vec<Arc<RwLock<()>>>,
    /// (file, writes) of the units queued since the last commit.
    pending: Vec<(u32, bool)>,
}

impl LockingEngine {
    /// Wraps a worker's engine when its job asks for `lockfile`, with the locks of its
    /// `targets`' paths; otherwise returns the engine as it is.
    pub fn for_job(
        inner: Box<dyn IoEngine>,
        job: &diskmeter_workload::JobSpec,
        targets: &[(std::os::fd::RawFd, &crate::prepare::TargetPlan)],
    ) -> Box<dyn IoEngine> {
        let paths = targets.iter().map(|(_, t)| t.path.as_path());
        LockingEngine::wrap(inner, job.files.lockfile, paths)
    }

    /// Wraps `inner` when `mode` asks for locking; otherwise returns it as it is.
    pub fn wrap<'p>(
        inner: Box<dyn IoEngine>,
        mode: LockFile,
        paths: impl Iterator<Item = &'p Path>,
    ) -> Box<dyn IoEngine> {
        if mode == LockFile::None {
            return inner;
        }
        Box::new(LockingEngine {
            inner,
            mode,
            locks: paths.map(lock_for).collect(),
            pending: Vec::new(),
        })
    }
}

/// A held lock of either kind.
enum Held<'a> {
    // The guards are only held, never read.
    #[allow(dead_code)]
    Read(std::sync::RwLockReadGuard<'a, ()>),
    #[allow(dead_code)]
    Write(std::sync::RwLockWriteGuard<'a, ()>),
}

impl IoEngine for LockingEngine {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError> {
        let writes = !matches!(unit.op, IoOp::Read);
        self.inner.queue(unit)?;
        self.pending.push((unit.file, writes));
        Ok(())
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        // Each lock once, exclusive if any unit on it writes (or the mode is exclusive),
        // in address order: every worker takes them in the same order.
        let mut wanted: Vec<(usize, bool)> = Vec::with_capacity(self.pending.len());
        for &(file, writes) in &self.pending {
            let exclusive = writes || self.mode == LockFile::Exclusive;
            let Some(lock) = self.locks.get(file as usize) else {
                continue;
            };
            let key = Arc::as_ptr(lock) as usize;
            match wanted.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 |= exclusive,
                None => wanted.push((key, exclusive)),
            }
        }
        wanted.sort_unstable();
        let locks = &self.locks;
        let held: Vec<Held<'_>> = wanted
            .iter()
            .filter_map(|&(key, exclusive)| {
                let lock = locks.iter().find(|l| Arc::as_ptr(l) as usize == key)?;
                // A poisoned lock only means another worker panicked; the file is still there.
                Some(if exclusive {
                    Held::Write(lock.write().unwrap_or_else(|p| p.into_inner()))
                } else {
                    Held::Read(lock.read().unwrap_or_else(|p| p.into_inner()))
                })
            })
            .collect();
        let submitted = self.inner.commit();
        drop(held);
        self.pending.clear();
        submitted
    }

    fn getevents(&mut self, min: usize, out: &mut Vec<IoCompletion>) -> Result<usize, EngineError> {
        self.inner.getevents(min, out)
    }

    fn buffer_mut(&mut self, slot: u32) -> &mut [u8] {
        self.inner.buffer_mut(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_on_one_path_share_its_lock() {
        let a = lock_for(Path::new("/tmp/diskmeter-lock-test-a"));
        let b = lock_for(Path::new("/tmp/diskmeter-lock-test-a"));
        let c = lock_for(Path::new("/tmp/diskmeter-lock-test-c"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
    }

    use std::sync::atomic::{AtomicUsize, Ordering};

    /// An engine whose `commit` counts how many commits run at once on its file.
    struct Overlap {
        active: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
    }

    impl IoEngine for Overlap {
        fn name(&self) -> &'static str {
            "overlap"
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                synchronous: true,
                ..diskmeter_engine::capabilities_of(diskmeter_engine::EngineChoice::Psync)
            }
        }
        fn queue(&mut self, _unit: IoUnit) -> Result<(), EngineError> {
            Ok(())
        }
        fn commit(&mut self) -> Result<usize, EngineError> {
            let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(2));
            self.active.fetch_sub(1, Ordering::SeqCst);
            Ok(1)
        }
        fn getevents(&mut self, _: usize, _: &mut Vec<IoCompletion>) -> Result<usize, EngineError> {
            Ok(0)
        }
        fn buffer_mut(&mut self, _slot: u32) -> &mut [u8] {
            &mut []
        }
    }

    /// The most commits that ran at once when 4 workers each committed `op` 10 times on
    /// one file under `mode`.
    fn most_at_once(mode: LockFile, op: IoOp, path: &str) -> usize {
        let (active, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        // All four start together, so unlocked commits do overlap.
        let start = Arc::new(std::sync::Barrier::new(4));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let inner = Box::new(Overlap {
                    active: Arc::clone(&active),
                    most: Arc::clone(&most),
                });
                let mut engine = LockingEngine::wrap(inner, mode, [Path::new(path)].into_iter());
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    for slot in 0..10 {
                        let unit = IoUnit {
                            op,
                            file: 0,
                            offset_bytes: 0,
                            len_bytes: 4096,
                            slot,
                        };
                        engine.queue(unit).unwrap();
                        engine.commit().unwrap();
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        most.load(Ordering::SeqCst)
    }

    #[test]
    fn exclusive_lets_one_commit_at_a_time_reach_the_file() {
        assert_eq!(
            most_at_once(LockFile::Exclusive, IoOp::Read, "/tmp/dm-lock-ex"),
            1
        );
    }

    #[test]
    fn readwrite_lets_reads_overlap_and_writes_go_alone() {
        assert_eq!(
            most_at_once(LockFile::ReadWrite, IoOp::Write, "/tmp/dm-lock-rw-w"),
            1
        );
        assert!(most_at_once(LockFile::ReadWrite, IoOp::Read, "/tmp/dm-lock-rw-r") > 1);
        assert!(most_at_once(LockFile::None, IoOp::Write, "/tmp/dm-lock-none") > 1);
    }

    #[test]
    fn an_exclusive_lock_keeps_a_second_commit_waiting() {
        let lock = lock_for(Path::new("/tmp/diskmeter-lock-test-x"));
        let guard = lock.write().unwrap();
        let other = Arc::clone(&lock);
        let waiter = std::thread::spawn(move || other.try_write().is_err());
        assert!(waiter.join().unwrap());
        drop(guard);
        assert!(lock.try_write().is_ok());
    }
}
