//! Per-IO tracing of chosen block devices through the kernel's block tracepoints
//! (`block:block_rq_issue`, `block:block_rq_complete` in tracefs), folded into one
//! [`TraceProfile`] per device: what counters cannot tell (size distribution, random share,
//! queue depth at issue, device latency, inter-arrival, hot set, issuing processes).
//!
//! How it works, and why this way:
//! - **A private instance.** [`TraceSession::start`] creates `instances/diskmeter-PID` in
//!   tracefs (mounting tracefs at /sys/kernel/tracing if neither it nor debugfs's copy is
//!   mounted) with its own ring buffer, `trace_clock` (`mono`, one clock for all CPUs, so an
//!   issue on one CPU and its completion on another give a true latency) and event filters
//!   on the devices' `dev_t`, so the kernel records only their events and nothing else using
//!   tracefs is touched. The instance is removed on [`TraceSession::finish`], on any error
//!   after it was made, and on drop (a caller that catches Ctrl-C and unwinds or drops the
//!   session leaves nothing behind; an instance of a process that was killed outright is
//!   removed by the next session).
//! - **Binary pages, read by one thread.** The reader drains every CPU's `trace_pipe_raw`
//!   (the ring buffer's pages as the kernel wrote them, decoded with the layout the kernel
//!   publishes in `events/header_page` and each event's `format`) and puts the records of
//!   all CPUs in time order before counting them. The text `trace_pipe`
//!   ([`TraceSource::Text`]) needs no decoder, but the kernel formats every event as text
//!   inside the reader's `read`: measured with bench/trace-cost, the text reader used about
//!   11 times the CPU per traced IO of the binary one (4.1 against 0.33-0.37 µs, most of it
//!   kernel time), so the binary source is the default and the text one a fallback. The
//!   text also only has whole microseconds ([`TEXT_TIMESTAMP_RESOLUTION_NS`]); the binary
//!   records have the ring's nanoseconds.
//! - **Bounded memory.** Nothing is kept per IO once it completed: an issued request waits
//!   in a bounded in-flight table, then is counted into fixed-size HDR histograms (3
//!   significant digits: 0.1 %) and bounded tables (streams, sizes, processes, device
//!   regions); see [`TraceOptions`] for the bounds.
//! - **Lost events are counted, never hidden.** The ring's per-CPU `overrun` and `dropped
//!   events`, lines that do not parse, issues never completed and completions never issued
//!   add up to [`TraceProfile::lost_events`], with the breakdown in
//!   [`crate::TraceDetails`]; [`TraceSession::lost_events_so_far`] shows them live.
//! - **The window.** The session writes markers into the instance's `trace_marker` when it
//!   starts and when [`TraceSession::finish`] is called, so the window is cut in the ring's
//!   own clock: IOs issued in it are counted; completions get [`END_GRACE`] after the end to
//!   arrive.
//! - **Optional iolog.** With [`TraceOptions::iolog_path`] the issued reads, writes,
//!   discards and flushes (as fio's `sync` action) are streamed as an fio iolog version 3 (timestamps relative to the start, one
//!   `/dev/NAME` file per device) through `diskmeter-iolog`'s writer, for `replay --exact`
//!   and fio's `read_iolog`.

mod aggregate;
mod event;
mod raw;
mod reader;
mod tables;
mod tracefs;

use std::fs::{self, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::TraceProfile;

use aggregate::{DeviceAggregator, Limits};
use reader::{Reader, ReaderOutput, Shared, Source, TracedDevice, END_MARKER, START_MARKER};
use tracefs::Instance;

pub use aggregate::RELATIVE_ERROR;

/// Resolution of the event timestamps of the text source, ns: it prints microseconds (the
/// raw source has the ring's nanoseconds).
pub const TEXT_TIMESTAMP_RESOLUTION_NS: u64 = 1_000;
/// How long the session waits after the window's end for completions of the IOs issued in
/// it; an IO slower than this counts as an unmatched issue.
pub const END_GRACE: Duration = Duration::from_millis(200);
/// How long the session waits for the reader to reach the end marker before it gives up
/// waiting (the marker was lost in an overrun, or the reader is far behind).
const END_MARKER_WAIT: Duration = Duration::from_secs(5);

/// A block device to trace: its kernel name and device number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceTarget {
    /// Kernel name (`vda`, `loop3`, `nvme0n1p1`), used in the profile and the iolog.
    pub name: String,
    /// Major device number.
    pub major: u32,
    /// Minor device number.
    pub minor: u32,
}

impl TraceTarget {
    /// The device named `name` (`loop3` or `/dev/loop3`), its numbers from
    /// `/sys/class/block/NAME/dev`.
    pub fn from_name(name: &str) -> Result<TraceTarget, TraceError> {
        let name = name.strip_prefix("/dev/").unwrap_or(name);
        let unknown = || TraceError::NoSuchDevice {
            name: name.to_string(),
        };
        let dev = fs::read_to_string(Path::new("/sys/class/block").join(name).join("dev"))
            .map_err(|_| unknown())?;
        let (major, minor) = dev.trim().split_once(':').ok_or_else(unknown)?;
        Ok(TraceTarget {
            name: name.to_string(),
            major: major.parse().map_err(|_| unknown())?,
            minor: minor.parse().map_err(|_| unknown())?,
        })
    }

    /// The kernel's `dev_t` as the tracepoints record it (`MKDEV`: major << 20 | minor).
    pub fn kernel_dev(&self) -> u64 {
        (u64::from(self.major) << 20) | u64::from(self.minor)
    }

    /// The device's folder in sysfs.
    fn sysfs(&self) -> PathBuf {
        PathBuf::from(format!("/sys/dev/block/{}:{}", self.major, self.minor))
    }
}

/// Where a target's requests appear: a partition's carry its disk's numbers and sectors
/// counted from the disk's start (the block layer remaps them before the request exists).
#[derive(Debug, Clone, Copy)]
struct Placement {
    disk: (u32, u32),
    first_sector: u64,
    end_sector: u64,
}

impl Placement {
    /// A whole disk is itself; a partition (sysfs has `partition`) is its parent's sectors
    /// `start .. start + size`.
    fn of(target: &TraceTarget) -> Placement {
        let sysfs = target.sysfs();
        let whole = Placement {
            disk: (target.major, target.minor),
            first_sector: 0,
            end_sector: u64::MAX,
        };
        if !sysfs.join("partition").exists() {
            return whole;
        }
        let parent = fs::canonicalize(&sysfs)
            .ok()
            .and_then(|p| p.parent().map(|p| p.join("dev")))
            .and_then(|dev| fs::read_to_string(dev).ok());
        let disk = parent.and_then(|d| {
            let (major, minor) = d.trim().split_once(':')?;
            Some((major.parse().ok()?, minor.parse().ok()?))
        });
        let start = read_u64s(&sysfs.join("start")).map(|v| v[0]);
        let size = read_u64s(&sysfs.join("size")).map(|v| v[0]);
        match (disk, start, size) {
            (Some(disk), Some(start), Some(size)) => Placement {
                disk,
                first_sector: start,
                end_sector: start + size,
            },
            _ => whole,
        }
    }

    /// The event filter that selects this target's requests.
    fn filter(&self) -> String {
        let dev = (u64::from(self.disk.0) << 20) | u64::from(self.disk.1);
        if self.end_sector == u64::MAX {
            format!("dev == {dev}")
        } else {
            format!(
                "(dev == {dev} && sector >= {} && sector < {})",
                self.first_sector, self.end_sector
            )
        }
    }
}

/// How the reader gets the events from the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TraceSource {
    /// The per-CPU binary `trace_pipe_raw` files: the kernel copies pages, the reader
    /// decodes them (ns timestamps). The default: it costs the least CPU per IO. Where the
    /// kernel's description of the records cannot be read, the text is used instead.
    #[default]
    Raw,
    /// The text `trace_pipe`: the kernel formats every event (µs timestamps).
    Text,
}

/// How to trace. The defaults bound the tracer at about 10 MiB of memory per device and a
/// 4 MiB ring buffer per CPU in the kernel.
#[derive(Debug, Clone)]
pub struct TraceOptions {
    /// Binary per-CPU pages (default) or the kernel's text.
    pub source: TraceSource,
    /// Write the traced IO as an fio iolog version 3 here.
    pub iolog_path: Option<PathBuf>,
    /// The instance's ring buffer per CPU, KiB. It must hold what the kernel records while
    /// the reader sleeps (10 ms) or is busy; an overrun is counted as lost events.
    pub buffer_kib_per_cpu: u64,
    /// Processes listed in the profile, most IOs first.
    pub top_processes: usize,
    /// Requests in flight remembered per device (beyond: unmatched issues).
    pub max_in_flight: usize,
    /// Streams (pid + direction) remembered per device for the sequential test.
    pub max_streams: usize,
    /// Distinct IO sizes counted per direction.
    pub max_sizes: usize,
    /// Processes counted per device.
    pub max_processes: usize,
    /// Regions of the device counted for the hot set (their size grows with the device).
    pub max_regions: usize,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            source: TraceSource::Raw,
            iolog_path: None,
            buffer_kib_per_cpu: 4096,
            top_processes: 10,
            max_in_flight: 65_536,
            max_streams: 4096,
            max_sizes: 256,
            max_processes: 4096,
            max_regions: 1 << 19,
        }
    }
}

/// What tracing cost, for the benchmark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceCost {
    /// CPU time of the reader thread, ns (`None` without `/proc/thread-self/schedstat`).
    pub reader_cpu_ns: Option<u64>,
    /// Block events read.
    pub events: u64,
    /// IOs counted, all devices.
    pub ios: u64,
}

/// Why tracing could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// No device was given.
    #[error("no device to trace")]
    NoDevices,
    /// Tracing writes to tracefs, which only root may.
    #[error("tracing block IO needs root (it enables kernel tracepoints in tracefs); run as root, or capture counters without --trace")]
    NotRoot,
    /// tracefs is not mounted and could not be.
    #[error("tracefs is not mounted (neither /sys/kernel/tracing nor /sys/kernel/debug/tracing) and mounting it at /sys/kernel/tracing failed: {reason}")]
    NoTracefs {
        /// What `mount` said.
        reason: String,
    },
    /// The kernel was built without the block tracepoints.
    #[error(
        "the kernel has no block tracepoints ({path} is missing; it needs CONFIG_BLK_DEV_IO_TRACE)"
    )]
    NoBlockTracepoints {
        /// The event folder looked for.
        path: PathBuf,
    },
    /// No block device has this name.
    #[error("no block device {name:?} (not in /sys/class/block)")]
    NoSuchDevice {
        /// The name given.
        name: String,
    },
    /// No block device has these numbers.
    #[error("no block device {major}:{minor} for {name:?} (not in /sys/dev/block)")]
    DeviceUnknown {
        /// The name given with the numbers.
        name: String,
        /// Major number.
        major: u32,
        /// Minor number.
        minor: u32,
    },
    /// A tracefs file could not be made, written or removed.
    #[error("cannot {action} {path}: {source}")]
    Tracefs {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Reading the events failed.
    #[error("reading the trace from {path} failed: {source}")]
    Read {
        /// The pipe.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Writing the iolog failed.
    #[error("writing the iolog failed: {0}")]
    Iolog(#[from] diskmeter_iolog::IologError),
    /// The reader thread panicked (a bug); the instance was still removed.
    #[error("the trace reader thread panicked")]
    ReaderPanicked,
}

/// A running trace of some block devices; [`TraceSession::finish`] gives their profiles.
/// Dropping it without finishing stops tracing and removes the tracefs instance.
#[derive(Debug)]
pub struct TraceSession {
    instance: Option<Instance>,
    reader: Option<JoinHandle<Result<ReaderOutput, TraceError>>>,
    shared: Arc<Shared>,
    targets: Vec<TraceTarget>,
}

impl TraceSession {
    /// Starts tracing `targets` (root only). Checks root, tracefs, the tracepoints and the
    /// devices before anything is created; any failure after the instance was created
    /// removes it.
    pub fn start(
        targets: &[TraceTarget],
        options: &TraceOptions,
    ) -> Result<TraceSession, TraceError> {
        if targets.is_empty() {
            return Err(TraceError::NoDevices);
        }
        if !rustix::process::geteuid().is_root() {
            return Err(TraceError::NotRoot);
        }
        for target in targets {
            if !target.sysfs().exists() {
                return Err(TraceError::DeviceUnknown {
                    name: target.name.clone(),
                    major: target.major,
                    minor: target.minor,
                });
            }
        }
        let root = tracefs::find_or_mount()?;
        for event in tracefs::EVENTS {
            let path = root.join("events").join(event);
            if !path.is_dir() {
                return Err(TraceError::NoBlockTracepoints { path });
            }
        }
        let instance = Instance::create(&root)?;
        instance.write("buffer_size_kb", &options.buffer_kib_per_cpu.to_string())?;
        // `mono` is CLOCK_MONOTONIC; `global` (all kernels with instances) is the fallback:
        // either is one clock for all CPUs, which the latency needs.
        if instance.write("trace_clock", "mono").is_err() {
            instance.write("trace_clock", "global")?;
        }
        let placements: Vec<Placement> = targets.iter().map(Placement::of).collect();
        let filter = placements
            .iter()
            .map(Placement::filter)
            .collect::<Vec<_>>()
            .join(" || ");
        for event in tracefs::EVENTS {
            instance.write(&format!("events/{event}/filter"), &filter)?;
        }
        let (source, timestamp_resolution_ns) = open_source(&root, &instance, options.source)?;
        instance.write("trace_marker", START_MARKER)?;
        let limits = Limits {
            in_flight: options.max_in_flight,
            streams: options.max_streams,
            sizes: options.max_sizes,
            processes: options.max_processes,
            top_processes: options.top_processes,
            regions: options.max_regions,
            timestamp_resolution_ns,
        };
        // Completions first: an IO issued between the two enables then shows as issued and
        // completed, or as one of the requests already in flight, never as a lost issue.
        for event in tracefs::EVENTS.iter().rev() {
            instance.write(&format!("events/{event}/enable"), "1")?;
        }
        let devices = targets
            .iter()
            .zip(&placements)
            .map(|(t, place)| {
                let sysfs = t.sysfs();
                let device_bytes = read_u64s(&sysfs.join("size")).map(|s| s[0] * 512);
                // Requests at the device before its events were on complete without a traced
                // issue; read after enabling, so none issued in between is missed.
                let preexisting = read_u64s(&sysfs.join("inflight")).map_or(0, |v| v.iter().sum());
                TracedDevice {
                    disk: place.disk,
                    first_sector: place.first_sector,
                    end_sector: place.end_sector,
                    name: t.name.clone(),
                    counters: DeviceAggregator::new(&t.name, device_bytes, preexisting, limits),
                }
            })
            .collect();
        let shared = Arc::new(Shared::default());
        let reader = Reader::new(
            source,
            devices,
            options.iolog_path.as_deref(),
            Arc::clone(&shared),
        )?;
        let reader = std::thread::Builder::new()
            .name("diskmeter-trace".into())
            .spawn(move || reader.run())
            .map_err(|source| TraceError::Tracefs {
                action: "start the reader thread for",
                path: instance.path().to_path_buf(),
                source,
            })?;
        Ok(TraceSession {
            instance: Some(instance),
            reader: Some(reader),
            shared,
            targets: targets.to_vec(),
        })
    }

    /// The tracefs instance folder (`.../instances/diskmeter-PID`).
    pub fn instance_path(&self) -> Option<&Path> {
        self.instance.as_ref().map(Instance::path)
    }

    /// Events lost so far, all devices: the ring's overruns and drops, plus unpaired and
    /// unreadable events the reader has seen (issues still in flight are not counted yet).
    pub fn lost_events_so_far(&self) -> u64 {
        let ring = self.instance.as_ref().map_or(0, Instance::ring_lost_events);
        ring + self.shared.lost_so_far.load(Ordering::Relaxed)
    }

    /// IOs completed and counted so far, all devices.
    pub fn ios_so_far(&self) -> u64 {
        self.shared.ios_so_far.load(Ordering::Relaxed)
    }

    /// Ends the window now, waits [`END_GRACE`] for its IOs to complete, stops tracing,
    /// removes the instance and returns one profile per target, in the targets' order.
    pub fn finish(self) -> Result<Vec<TraceProfile>, TraceError> {
        self.finish_with_cost().map(|(profiles, _)| profiles)
    }

    /// [`TraceSession::finish`], with what the trace cost.
    pub fn finish_with_cost(mut self) -> Result<(Vec<TraceProfile>, TraceCost), TraceError> {
        // The instance stays in the session until the reader has stopped, so an error here
        // still ends with the reader stopped and the instance removed (by drop).
        let marked = match &self.instance {
            Some(instance) => instance.write("trace_marker", END_MARKER),
            None => Err(TraceError::ReaderPanicked),
        };
        if marked.is_ok() {
            let waiting = Instant::now();
            while !self.shared.end_seen.load(Ordering::Acquire)
                && waiting.elapsed() < END_MARKER_WAIT
                && !self.reader.as_ref().is_some_and(JoinHandle::is_finished)
            {
                std::thread::sleep(reader::POLL_INTERVAL);
            }
            std::thread::sleep(END_GRACE);
        }
        let instance = self
            .instance
            .take()
            .expect("a running session has its instance");
        let output = self.stop_reader(&instance);
        let ring_lost = instance.ring_lost_events();
        instance.remove()?;
        marked?;
        let output = output?;
        let ring_lost = ring_lost.max(output.lost_in_text) + output.unreadable_events;
        let mut profiles = Vec::with_capacity(self.targets.len());
        let iolog = output.iolog_path.map(|p| p.display().to_string());
        for device in &output.devices {
            profiles.push(device.profile(ring_lost, iolog.clone()));
        }
        let cost = TraceCost {
            reader_cpu_ns: output.cpu_ns,
            events: output.events,
            ios: profiles.iter().map(|p| p.ios).sum(),
        };
        Ok((profiles, cost))
    }

    /// Turns tracing off, tells the reader to drain and stop, and waits for it.
    fn stop_reader(&mut self, instance: &Instance) -> Result<ReaderOutput, TraceError> {
        let _ = instance.write("tracing_on", "0");
        self.shared.stop.store(true, Ordering::Release);
        match self.reader.take() {
            Some(reader) => reader.join().map_err(|_| TraceError::ReaderPanicked)?,
            None => Err(TraceError::ReaderPanicked),
        }
    }
}

impl Drop for TraceSession {
    fn drop(&mut self) {
        if let Some(instance) = self.instance.take() {
            let _ = self.stop_reader(&instance);
            // Instance's own drop removes it.
        }
    }
}

/// Opens every CPU's `trace_pipe_raw`, or the instance's `trace_pipe`, non-blocking; with
/// the resolution of their timestamps, ns. A kernel whose record layout cannot be read gets
/// the text (the profile's `timestamp_resolution_ns` of 1,000 says so).
fn open_source(
    root: &Path,
    instance: &Instance,
    kind: TraceSource,
) -> Result<(Source, u64), TraceError> {
    let open = |path: PathBuf| {
        OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&path)
            .map(|file| (file, path.clone()))
            .map_err(|source| TraceError::Tracefs {
                action: "open",
                path,
                source,
            })
    };
    let layout = match kind {
        TraceSource::Raw => raw::RawLayout::load(root, instance.path()).ok(),
        TraceSource::Text => None,
    };
    let Some(layout) = layout else {
        let (file, path) = open(instance.path().join("trace_pipe"))?;
        return Ok((Source::Text(file, path), TEXT_TIMESTAMP_RESOLUTION_NS));
    };
    let per_cpu = instance.path().join("per_cpu");
    let entries = fs::read_dir(&per_cpu).map_err(|source| TraceError::Tracefs {
        action: "list",
        path: per_cpu.clone(),
        source,
    })?;
    let mut pipes = Vec::new();
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with("cpu") {
            pipes.push(open(entry.path().join("trace_pipe_raw"))?);
        }
    }
    Ok((Source::Raw(pipes, Box::new(layout)), 1))
}

/// The numbers in a sysfs file (`size`: one; `inflight`: reads and writes).
fn read_u64s(path: &Path) -> Option<Vec<u64>> {
    let text = fs::read_to_string(path).ok()?;
    let numbers: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (!numbers.is_empty()).then_some(numbers)
}

#[cfg(test)]
mod tests;
