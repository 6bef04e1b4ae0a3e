//! Safe wrappers for the few system calls the upper layers need that std does not offer:
//! block-device ioctls, per-thread CPU usage, CPU affinity, fallocate, the monotonic clock,
//! device numbers and the online CPU count. Living here keeps every other crate
//! `#![forbid(unsafe_code)]`.

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// BLKGETSIZE64 = _IOR(0x12, 114, size_t); not exported by the libc crate.
const BLKGETSIZE64: libc::Ioctl = 0x8008_1272;

/// Size in bytes of the block device open as `fd`.
pub fn block_device_size_bytes(fd: impl AsFd) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 to the pointer; `fd` is a live descriptor.
    let rc = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), BLKGETSIZE64, &mut size) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}

/// Logical block size (the smallest O_DIRECT unit) of the block device open as `fd`.
pub fn logical_block_size(fd: impl AsFd) -> io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int to the pointer; `fd` is a live descriptor.
    let rc = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), libc::BLKSSZGET, &mut size) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    u32::try_from(size).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// Physical block size of the block device open as `fd`.
pub fn physical_block_size(fd: impl AsFd) -> io::Result<u32> {
    let mut size: libc::c_uint = 0;
    // SAFETY: BLKPBSZGET writes one unsigned int to the pointer; `fd` is a live descriptor.
    let rc = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), libc::BLKPBSZGET, &mut size) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}

/// CPU time and context switches of one thread, as `getrusage(RUSAGE_THREAD)` counts them
/// (the kernel reports times with microsecond resolution).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadCpuUsage {
    /// Time in user mode, nanoseconds.
    pub user_ns: u64,
    /// Time in the kernel on the thread's behalf, nanoseconds.
    pub sys_ns: u64,
    /// Times the thread blocked (waited for IO, slept).
    pub voluntary_ctx_switches: u64,
    /// Times the thread was preempted.
    pub involuntary_ctx_switches: u64,
}

impl ThreadCpuUsage {
    /// What was used between `earlier` and `self` (saturating, so a reordered pair gives 0).
    pub fn since(&self, earlier: &ThreadCpuUsage) -> ThreadCpuUsage {
        ThreadCpuUsage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            voluntary_ctx_switches: self
                .voluntary_ctx_switches
                .saturating_sub(earlier.voluntary_ctx_switches),
            involuntary_ctx_switches: self
                .involuntary_ctx_switches
                .saturating_sub(earlier.involuntary_ctx_switches),
        }
    }

    /// User plus system time, nanoseconds.
    pub fn total_ns(&self) -> u64 {
        self.user_ns + self.sys_ns
    }
}

/// CPU usage of the calling thread so far.
pub fn thread_cpu_usage() -> ThreadCpuUsage {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given; RUSAGE_THREAD cannot fail with a valid
    // pointer, and on failure the zeroed struct is returned.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    ThreadCpuUsage {
        user_ns: ns(ru.ru_utime),
        sys_ns: ns(ru.ru_stime),
        voluntary_ctx_switches: ru.ru_nvcsw as u64,
        involuntary_ctx_switches: ru.ru_nivcsw as u64,
    }
}

/// Pins the calling thread to `cpus` (indices as in /proc/cpuinfo). An empty list or an
/// index beyond the kernel's cpu_set_t is EINVAL.
pub fn set_thread_affinity(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    if cpus.is_empty() || cpus.iter().any(|&c| c >= max) {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    for &cpu in cpus {
        // SAFETY: `cpu` is below the set's bit count (checked above), so the write is in it.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; `set` is a valid cpu_set_t of the size passed.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sets the calling thread's timer slack to `slack_ns` (the kernel's default is 50 us), so a
/// rate-limited worker's sleeps end when asked instead of up to 50 us late.
pub fn set_timer_slack_ns(slack_ns: u64) -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes one unsigned long by value and touches no memory.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns as libc::c_ulong, 0, 0, 0) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Allocates `len` bytes at `offset` of the file open as `fd` (mode 0: extends the size),
/// so a laid-out test file has real extents. EOPNOTSUPP on filesystems without it.
pub fn fallocate(fd: impl AsFd, offset: u64, len: u64) -> io::Result<()> {
    let too_big = || io::Error::from_raw_os_error(libc::EFBIG);
    let offset = libc::off_t::try_from(offset).map_err(|_| too_big())?;
    let len = libc::off_t::try_from(len).map_err(|_| too_big())?;
    loop {
        // SAFETY: plain system call on a live descriptor; no memory is passed.
        let rc = unsafe { libc::fallocate(fd.as_fd().as_raw_fd(), 0, offset, len) };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINTR) {
            return Err(err);
        }
    }
}

/// The runner's clock, in nanoseconds on the CLOCK_MONOTONIC time line.
///
/// Three reads per IO make this the hottest call of a null-engine run: through the vDSO,
/// CLOCK_MONOTONIC costs ~24 ns on our 2-vCPU guests, a raw `rdtsc` ~10 ns. So where the
/// kernel itself keeps time with an invariant TSC (its clocksource is `tsc`, and the CPU
/// has constant_tsc and nonstop_tsc), the TSC is read and scaled by a rate measured once
/// against CLOCK_MONOTONIC, the way fio's default `clocksource=cpu` works. Elsewhere this
/// is CLOCK_MONOTONIC through the vDSO. Either way it is unaffected by wall-clock changes.
#[inline]
pub fn monotonic_ns() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(clock) = tsc::clock() {
        return clock.now_ns();
    }
    clock_monotonic_ns()
}

/// CLOCK_MONOTONIC in nanoseconds through the vDSO (no system call).
#[inline]
pub fn clock_monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The TSC clock behind [`monotonic_ns`] on x86_64.
#[cfg(target_arch = "x86_64")]
mod tsc {
    use std::sync::OnceLock;

    /// Fixed-point shift of the ns-per-tick factor.
    const SHIFT: u32 = 32;
    /// How long the one-off calibration measures the TSC rate: a 20 ms window keeps the
    /// rate error near 1e-5 (a few microseconds over a 4 s run).
    const CALIBRATE_NS: u64 = 20_000_000;

    /// TSC ticks mapped onto CLOCK_MONOTONIC nanoseconds.
    pub(super) struct TscClock {
        base_tsc: u64,
        base_ns: u64,
        /// Nanoseconds per tick << SHIFT.
        mult: u64,
    }

    impl TscClock {
        #[inline]
        pub(super) fn now_ns(&self) -> u64 {
            let ticks = read().wrapping_sub(self.base_tsc);
            self.base_ns + ((u128::from(ticks) * u128::from(self.mult)) >> SHIFT) as u64
        }
    }

    #[inline]
    fn read() -> u64 {
        // SAFETY: rdtsc only reads the time-stamp counter; every x86_64 CPU has it.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    /// The calibrated clock, or None where the TSC is not a trustworthy clock.
    #[inline]
    pub(super) fn clock() -> Option<&'static TscClock> {
        static CLOCK: OnceLock<Option<TscClock>> = OnceLock::new();
        CLOCK.get_or_init(calibrate).as_ref()
    }

    /// The kernel keeps time with the TSC only after checking it is synchronised across
    /// CPUs; constant_tsc + nonstop_tsc say its rate never changes.
    fn usable() -> bool {
        let source = std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .unwrap_or_default();
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let flags = cpuinfo
            .lines()
            .find(|l| l.starts_with("flags"))
            .unwrap_or_default();
        let has = |f: &str| flags.split_whitespace().any(|w| w == f);
        source.trim() == "tsc" && has("constant_tsc") && has("nonstop_tsc")
    }

    fn calibrate() -> Option<TscClock> {
        if !usable() {
            return None;
        }
        let (t0, n0) = (read(), super::clock_monotonic_ns());
        let (mut t1, mut n1) = (t0, n0);
        while n1 - n0 < CALIBRATE_NS {
            std::hint::spin_loop();
            (t1, n1) = (read(), super::clock_monotonic_ns());
        }
        let ticks = t1.checked_sub(t0).filter(|&t| t > 0)?;
        let mult = ((u128::from(n1 - n0) << SHIFT) / u128::from(ticks)) as u64;
        Some(TscClock {
            base_tsc: t1,
            base_ns: n1,
            mult,
        })
    }
}

/// Whether `path` is a block device (false if it cannot be stat'ed).
pub fn is_block_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// (major, minor) of the block device at `path`, or of the device holding the file at
/// `path`; None if it cannot be stat'ed. Used to find the /proc/diskstats line to sample.
pub fn device_numbers(path: &Path) -> Option<(u32, u32)> {
    let meta = std::fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    Some((libc::major(dev), libc::minor(dev)))
}

/// CPUs currently online (at least 1).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf only reads system configuration.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_moves_forward() {
        let a = monotonic_ns();
        let b = monotonic_ns();
        assert!(a > 0 && b >= a);
    }

    /// The TSC clock (where used) must agree with CLOCK_MONOTONIC over a run's length.
    #[test]
    fn clock_tracks_clock_monotonic() {
        let (a, ma) = (monotonic_ns(), clock_monotonic_ns());
        std::thread::sleep(std::time::Duration::from_millis(200));
        let (b, mb) = (monotonic_ns(), clock_monotonic_ns());
        let drift = (b - a).abs_diff(mb - ma);
        assert!(drift < 200_000, "drift {drift} ns over 200 ms");
        assert!(a.abs_diff(ma) < 1_000_000, "offset {} ns", a.abs_diff(ma));
    }

    #[test]
    fn cpu_usage_grows_with_work() {
        let before = thread_cpu_usage();
        let start = monotonic_ns();
        let mut x = 0u64;
        while monotonic_ns() - start < 30_000_000 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let used = thread_cpu_usage().since(&before);
        assert!(used.total_ns() >= 10_000_000, "{used:?}");
    }

    #[test]
    fn affinity_to_cpu0_and_back() {
        set_thread_affinity(&[0]).unwrap();
        let all: Vec<usize> = (0..online_cpus()).collect();
        set_thread_affinity(&all).unwrap();
        assert!(set_thread_affinity(&[]).is_err());
        assert!(set_thread_affinity(&[1 << 20]).is_err());
    }

    #[test]
    fn file_device_numbers_and_fallocate() {
        let file = tempfile::NamedTempFile::new_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        assert!(!is_block_device(file.path()));
        assert!(device_numbers(file.path()).is_some());
        assert!(device_numbers(Path::new("/no/such/file")).is_none());
        match fallocate(file.as_file(), 0, 1 << 20) {
            Ok(()) => assert_eq!(file.as_file().metadata().unwrap().len(), 1 << 20),
            Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EOPNOTSUPP)),
        }
        // A regular file is not a block device: the ioctls refuse it.
        assert!(block_device_size_bytes(file.as_file()).is_err());
        assert!(online_cpus() >= 1);
    }

    /// Needs a block device to open; skips with a reason when none is readable.
    #[test]
    fn block_device_ioctls() {
        let Some(path) = ["/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/loop0"]
            .into_iter()
            .map(Path::new)
            .find(|p| is_block_device(p) && std::fs::File::open(p).is_ok())
        else {
            eprintln!("skipped: no readable block device");
            return;
        };
        let dev = std::fs::File::open(path).unwrap();
        let lbs = logical_block_size(&dev).unwrap();
        let pbs = physical_block_size(&dev).unwrap();
        assert!(
            lbs.is_power_of_two() && lbs >= 512 && pbs >= lbs,
            "{lbs} {pbs}"
        );
        // An unattached loop device has size 0; a real disk has more.
        let _ = block_device_size_bytes(&dev).unwrap();
        assert!(device_numbers(path).is_some());
    }
}
