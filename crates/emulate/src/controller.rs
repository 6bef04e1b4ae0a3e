//! The burst controller of an emulation: the kernel's IO throttles (blkio v1, io.max v2) have
//! no credit bucket, so a thread of diskmeter's plays one per disk. Every 100 ms it reads the
//! IO each loop device did (`/sys/block/loopN/stat`, which counts the same under v1 and v2),
//! spends the bucket's credits by it (`crate::burst::Bucket`) and, when the allowed rate
//! changes, rewrites the disk's cgroup rule: the burst rate while credits remain, then the
//! baseline. It lives as long as its [`BurstController`] value: dropping it stops and joins
//! the thread (before the emulation is destroyed, so it never writes to a removed cgroup).

use crate::burst::Bucket;
use crate::{cgroup, system, Caps, EmulateError, Emulation};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the controller reads the IO done and rewrites the throttle.
pub const PERIOD_NS: u64 = 100_000_000;

/// One disk under the controller: its device number, where its counters are, its buckets.
struct Disk {
    id: String,
    stat: PathBuf,
    iops: Option<Bucket>,
    bytes: Option<Bucket>,
    /// (IOs, bytes) done so far, from the device's counters.
    done: (u64, u64),
    /// The caps last written.
    written: Caps,
}

/// The running controller of an emulation with a burst; stops when dropped.
pub struct BurstController {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl BurstController {
    /// Starts the controller of `emulation`, `None` when it has no burst. The buckets start
    /// full and the burst caps are written before this returns, so IO that follows bursts.
    pub fn start(emulation: &Emulation) -> Result<Option<BurstController>, EmulateError> {
        let Some(burst) = emulation.spec.burst else {
            return Ok(None);
        };
        let caps = emulation.spec.caps;
        let full =
            |b: Option<(u64, u64, u64)>| b.map(|(base, up, size)| Bucket::full(base, up, size));
        let mut disks = Vec::new();
        for disk in emulation.disks() {
            let name = disk
                .device
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let stat = Path::new("/sys/block").join(&name).join("stat");
            let mut d = Disk {
                id: cgroup::device_id(&disk.device)?,
                done: read_stat(&stat)?,
                stat,
                iops: full(burst.iops_bucket(&caps)),
                bytes: full(burst.bytes_bucket(&caps)),
                written: caps,
            };
            d.write(emulation, d.allowed(&caps))?;
            disks.push(d);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, emulation) = (stop.clone(), emulation.clone());
        let thread = std::thread::Builder::new()
            .name("burst-controller".into())
            .spawn(move || control(&emulation, &mut disks, &flag))
            .map_err(|e| system("cannot start the burst controller", e))?;
        Ok(Some(BurstController {
            stop,
            thread: Some(thread),
        }))
    }
}

impl Drop for BurstController {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The controller's loop: ticks at fixed times (no drift from the work in each tick) until
/// stopped; a disk whose counters or cgroup vanish ends it (the emulation is going away).
fn control(emulation: &Emulation, disks: &mut [Disk], stop: &AtomicBool) {
    let start = Instant::now();
    let mut last = start;
    for tick in 1u32.. {
        let due = start + Duration::from_nanos(PERIOD_NS) * tick;
        while !stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now >= due {
                break;
            }
            std::thread::sleep((due - now).min(Duration::from_millis(20)));
        }
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        let elapsed_ns = u64::try_from((now - last).as_nanos()).unwrap_or(u64::MAX);
        last = now;
        for disk in disks.iter_mut() {
            if disk.tick(emulation, elapsed_ns).is_err() {
                return;
            }
        }
    }
}

impl Disk {
    /// Spends the IO done since the last tick and writes the caps the buckets now allow.
    fn tick(&mut self, emulation: &Emulation, elapsed_ns: u64) -> Result<(), EmulateError> {
        let done = read_stat(&self.stat)?;
        let ios = done.0.saturating_sub(self.done.0);
        let bytes = done.1.saturating_sub(self.done.1);
        self.done = done;
        if let Some(bucket) = &mut self.iops {
            bucket.spend(ios, elapsed_ns);
        }
        if let Some(bucket) = &mut self.bytes {
            bucket.spend(bytes, elapsed_ns);
        }
        let allowed = self.allowed(&emulation.spec.caps);
        // A rewrite restarts the kernel's throttle slice: an unchanged cap is left alone.
        if allowed != self.written {
            self.write(emulation, allowed)?;
        }
        Ok(())
    }

    /// The emulation's `caps` raised by what the buckets allow over the next period (each
    /// direction's cap by the same amount above the baseline).
    fn allowed(&self, caps: &Caps) -> Caps {
        let raise = |cap: Option<u64>, bucket: &Option<Bucket>| match bucket {
            Some(b) => cap.map(|c| c + (b.rate(PERIOD_NS) - b.baseline)),
            None => cap,
        };
        Caps {
            read_iops: raise(caps.read_iops, &self.iops),
            write_iops: raise(caps.write_iops, &self.iops),
            read_bytes_per_sec: raise(caps.read_bytes_per_sec, &self.bytes),
            write_bytes_per_sec: raise(caps.write_bytes_per_sec, &self.bytes),
        }
    }

    fn write(&mut self, emulation: &Emulation, caps: Caps) -> Result<(), EmulateError> {
        cgroup::limit_device(emulation, &self.id, &caps)?;
        self.written = caps;
        Ok(())
    }
}

/// (IOs, bytes) a block device completed, reads and writes together, from its `stat`
/// (fields 1 and 5 are IOs, 3 and 7 sectors of 512 bytes).
fn read_stat(path: &Path) -> Result<(u64, u64), EmulateError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| system(format!("cannot read {}", path.display()), e))?;
    Ok(parse_stat(&text))
}

fn parse_stat(text: &str) -> (u64, u64) {
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    (field(0) + field(4), (field(2) + field(6)) * 512)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_device_stat_gives_ios_and_bytes() {
        let stat = "    1200        3    9600      40      300        0     2400      10        0      50      50";
        assert_eq!(parse_stat(stat), (1500, (9600 + 2400) * 512));
    }
}
