//! Safe wrappers for the few system calls the upper layers need that std does not offer:
//! block-device ioctls, per-thread CPU usage, CPU affinity, timer slack and the monotonic
//! clock, and the one `is_block_device` test of a path. Living here keeps every other crate
//! `#![forbid(unsafe_code)]`.

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::FileTypeExt;
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
    /// How long the one-off calibration measures the TSC rate. With both ends read to within
    /// [`MAX_PAIRING_WIDTH_NS`] the rate error is at most 2 us / 20 ms = 1e-4 (0.3 ms over a
    /// 3 s run), and typically ~1e-6 (pairings ~60 ns wide).
    const CALIBRATE_NS: u64 = 20_000_000;
    /// Pairings tried at each end of the window; the narrowest is kept.
    const PAIRING_TRIES: usize = 64;
    /// A pairing wider than this was interrupted (the thread preempted, or the vCPU stopped
    /// by the host, between its reads) and cannot place the TSC reading in time.
    pub(super) const MAX_PAIRING_WIDTH_NS: u64 = 2_000;
    /// Whole calibrations tried before falling back to CLOCK_MONOTONIC.
    const CALIBRATE_TRIES: usize = 5;

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

        /// Nanoseconds per tick.
        #[cfg(test)]
        pub(super) fn ns_per_tick(&self) -> f64 {
            self.mult as f64 / (1u64 << SHIFT) as f64
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
        CLOCK
            .get_or_init(|| usable().then(calibrate).flatten())
            .as_ref()
    }

    /// The kernel keeps time with the TSC only after checking it is synchronised across
    /// CPUs; constant_tsc + nonstop_tsc say its rate never changes.
    pub(super) fn usable() -> bool {
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

    /// A TSC reading placed on the CLOCK_MONOTONIC time line: read between two clock reads,
    /// so it happened somewhere in `[ns - width/2, ns + width/2]`.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub(super) struct Pairing {
        pub(super) tsc: u64,
        /// Midpoint of the two clock reads.
        pub(super) ns: u64,
        /// Time between the two clock reads.
        pub(super) width_ns: u64,
    }

    fn pairing() -> Pairing {
        let before = super::clock_monotonic_ns();
        let tsc = read();
        let after = super::clock_monotonic_ns();
        Pairing {
            tsc,
            ns: before + (after - before) / 2,
            width_ns: after - before,
        }
    }

    /// The narrowest of [`PAIRING_TRIES`] pairings. Reading the TSC and the clock one after
    /// the other is not enough: a thread preempted between the two reads pairs a tick count
    /// with a time milliseconds later, and on a busy host that happens at the end of a
    /// 20 ms spin more often than not (the spin's last turn is the one after the preemption).
    /// The clock had then run 15-50 % fast (runs: 3 s lasting 2.5 s; the test under CPU hogs: 50 %).
    pub(super) fn narrowest_pairing() -> Pairing {
        (0..PAIRING_TRIES)
            .map(|_| pairing())
            .min_by_key(|p| p.width_ns)
            .unwrap_or_else(pairing)
    }

    /// The clock through two pairings: None if either is too wide to trust or the TSC did
    /// not move forward.
    pub(super) fn clock_from(start: Pairing, end: Pairing) -> Option<TscClock> {
        if start.width_ns > MAX_PAIRING_WIDTH_NS || end.width_ns > MAX_PAIRING_WIDTH_NS {
            return None;
        }
        let ticks = end.tsc.checked_sub(start.tsc).filter(|&t| t > 0)?;
        let ns = end.ns.checked_sub(start.ns).filter(|&n| n > 0)?;
        let mult = ((u128::from(ns) << SHIFT) / u128::from(ticks)) as u64;
        Some(TscClock {
            base_tsc: end.tsc,
            base_ns: end.ns,
            mult,
        })
    }

    /// Measures the TSC rate over [`CALIBRATE_NS`] between two narrow pairings; the thread
    /// sleeps in between (only the ends count). None (CLOCK_MONOTONIC is used instead) if no
    /// narrow pairing could be had in a few tries.
    pub(super) fn calibrate() -> Option<TscClock> {
        (0..CALIBRATE_TRIES).find_map(|_| {
            let start = narrowest_pairing();
            std::thread::sleep(std::time::Duration::from_nanos(CALIBRATE_NS));
            clock_from(start, narrowest_pairing())
        })
    }
}

/// Whether `path` is a block device (false if it cannot be stat'ed).
pub fn is_block_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// Skips the calling test (which must then return) with `reason` on stderr; under CI
/// (`CI=true`), where every test must run, fails it instead (as tests/common's `skip`).
#[cfg(test)]
pub(crate) fn skip_test(reason: &str) {
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(
        !in_ci,
        "cannot run: {reason}; CI (CI=true) runs every test, none may skip"
    );
    eprintln!("SKIP: {reason}");
}

/// Sets the calling thread's NUMA memory policy (`set_mempolicy(2)`): `mode` is one of the
/// kernel's MPOL_* values (0 default, 1 preferred, 2 bind, 3 interleave, 4 local) and `nodes`
/// the node numbers of its mask (empty for default and local). Memory the thread allocates
/// afterwards follows it.
pub fn set_thread_mempolicy(mode: i32, nodes: &[usize]) -> io::Result<()> {
    const BITS: usize = 64;
    let words = nodes.iter().max().map_or(1, |&n| n / BITS + 1);
    let mut mask = vec![0u64; words];
    for &node in nodes {
        mask[node / BITS] |= 1 << (node % BITS);
    }
    let (mask_ptr, max_node) = if nodes.is_empty() {
        (std::ptr::null(), 0)
    } else {
        // The kernel reads max_node - 1 bits; one more than the bits given.
        (mask.as_ptr(), (words * BITS + 1) as libc::c_ulong)
    };
    // SAFETY: set_mempolicy reads at most max_node - 1 bits from mask_ptr, which points at
    // `words` u64s (or is null with max_node 0); it writes no memory.
    let rc = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, mask_ptr, max_node) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sets the calling thread's nice value (Linux keeps one per thread).
pub fn set_thread_nice(nice: i32) -> io::Result<()> {
    // SAFETY: gettid takes no arguments and cannot fail.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    // SAFETY: setpriority takes its arguments by value and touches no memory.
    let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sets the calling thread's IO priority (`ioprio_set(2)`, IOPRIO_WHO_PROCESS of itself):
/// `class` 0 none, 1 realtime, 2 best effort, 3 idle; `level` 0 (highest) to 7.
pub fn set_thread_ioprio(class: u8, level: u8) -> io::Result<()> {
    const IOPRIO_WHO_PROCESS: libc::c_int = 1;
    let value = (libc::c_int::from(class) << 13) | libc::c_int::from(level);
    // SAFETY: ioprio_set takes three integers by value (who 0 = the calling thread) and
    // touches no memory.
    let rc = unsafe { libc::syscall(libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Memory pinned with mlock(2) (fio's `lockmem`), so the rest of the system has that much
/// less to cache with; released when dropped.
#[derive(Debug)]
pub struct LockedMemory {
    base: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is owned exclusively and never read or written after `lock_memory`.
unsafe impl Send for LockedMemory {}

impl LockedMemory {
    /// Bytes pinned.
    pub fn len_bytes(&self) -> usize {
        self.len
    }
}

/// Maps `bytes` of anonymous memory and pins it (mlock faults every page in). Fails with the
/// kernel's error, typically ENOMEM or EPERM past RLIMIT_MEMLOCK.
pub fn lock_memory(bytes: usize) -> io::Result<LockedMemory> {
    // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes.max(1),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let memory = LockedMemory {
        base,
        len: bytes.max(1),
    };
    // SAFETY: the range is exactly the mapping made above.
    if unsafe { libc::mlock(memory.base, memory.len) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(memory)
}

impl Drop for LockedMemory {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` are the mapping made in `lock_memory`, unmapped exactly once
        // (munmap also unlocks it).
        unsafe { libc::munmap(self.base, self.len) };
    }
}

/// Opens `path` again with the access mode and status flags (O_DIRECT, O_SYNC, ...) of the
/// open descriptor `fd`: a new open file description, the open half of a connection in
/// Iometer's connection-rate test. `O_CLOEXEC` as every file diskmeter opens.
pub fn reopen_like(fd: std::os::fd::RawFd, path: &Path) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: F_GETFL reads the flags of a descriptor and touches no memory; an invalid
    // `fd` gives EBADF.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // Creating flags are not status flags (F_GETFL never returns them): nothing is created.
    let flags = (flags & !(libc::O_CREAT | libc::O_EXCL | libc::O_TRUNC)) | libc::O_CLOEXEC;
    // SAFETY: `path` is a NUL-terminated string that lives across the call; no mode is
    // read without O_CREAT.
    let new = unsafe { libc::open(path.as_ptr(), flags) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` was just returned by open(2) and nothing else owns it.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(new) })
}

/// Puts the open file of `new` in the place of descriptor `fd` (dup3(2)): the file `fd`
/// referred to is closed, the close half of a connection, and `fd` (the number the engine
/// uses) now refers to the new open file. `new` itself is then closed; the file stays open
/// through `fd`.
pub fn replace_descriptor(new: std::os::fd::OwnedFd, fd: std::os::fd::RawFd) -> io::Result<()> {
    // SAFETY: dup3 touches no memory; `new` is a live descriptor we own and `fd` one the
    // caller keeps open for as long as it uses it, so closing what `fd` referred to and
    // putting `new`'s file there affects only descriptors of this worker's targets.
    let rc = unsafe { libc::dup3(new.as_raw_fd(), fd, libc::O_CLOEXEC) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
#[path = "sys_tests.rs"]
mod tests;
