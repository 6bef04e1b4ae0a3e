//! What paces and ends a job beyond its size and runtime: think time, IO counts, latency targets, flow, waiting for and ending other jobs, and submission modes.
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_control.rs`. The
//! meanings are fio's (HOWTO "I/O rate", "I/O latency", "Threads, processes and job
//! synchronization", "I/O type" for the zone options); where diskmeter runs one differently
//! the field's doc says how.

use crate::{JobSpec, PerDirection};
use serde::{Deserialize, Serialize};

/// A job's pacing and ending rules (fio `thinktime`, `number_ios`, `latency_target`, `flow`, `wait_for`, `exitall`, `io_submit_mode`, zone stepping).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ControlOptions {
    /// Stall after IOs, ns (fio `thinktime`; microseconds when written without a unit). 0 = none.
    pub thinktime_ns: u64,
    /// The first part of each stall is spent spinning on the CPU, ns (fio `thinktime_spin`).
    pub thinktime_spin_ns: u64,
    /// IOs between stalls (fio `thinktime_blocks`, 1).
    pub thinktime_blocks: u32,
    /// Whether `thinktime_blocks` counts completions or issues (fio `thinktime_blocks_type`).
    pub thinktime_blocks_type: ThinkTrigger,
    /// Stall after this much IO time instead, ns; with `thinktime_blocks`, whichever comes
    /// first (fio `thinktime_iotime`). 0 = by blocks only.
    pub thinktime_iotime_ns: u64,
    /// A rate-limited job does not catch up on the IOs its stalls delayed (fio
    /// `rate_ignore_thinktime`): its schedule restarts after each stall.
    pub rate_ignore_thinktime: bool,
    /// The job ends after this many IOs (reads and writes) of the measured period, if no
    /// other limit ended it first (fio `number_ios`). 0 = no limit.
    pub number_ios: u64,
    /// fio `latency_target`, ns: search for the deepest queue meeting it (0 = no search;
    /// [`ControlOptions::latency_search`] gathers the family).
    pub latency_target_ns: u64,
    /// fio `latency_window`, ns.
    pub latency_window_ns: u64,
    /// fio `latency_percentile`, percent (100).
    pub latency_percentile: f64,
    /// fio `latency_run`.
    pub latency_run: bool,
    /// fio `flow`: the job's weight in its flow group (0 = no flow control;
    /// [`ControlOptions::flow`] gathers the family).
    pub flow_weight: u32,
    /// fio `flow_id`.
    pub flow_id: u32,
    /// fio `flow_sleep`, ns (written in microseconds).
    pub flow_sleep_ns: u64,
    /// Start only once every worker of the named job has finished (fio `wait_for`).
    pub wait_for: Option<String>,
    /// When this job finishes, end others (fio `exitall`); which ones is `exit_what`.
    pub exitall: bool,
    /// Which jobs `exitall` ends (fio `exit_what`, default `group`).
    pub exit_what: ExitWhat,
    /// When this job fails, end every other job and start no later one (fio
    /// `exitall_on_error`); without it the others run on, as in fio.
    pub exitall_on_error: bool,
    /// fio `io_submit_mode`: accepted; see [`SubmitMode`].
    pub io_submit_mode: SubmitMode,
    /// The job fails if a direction completes fewer IOs per second than this over a
    /// `rate_cycle` (fio `rate_iops_min`).
    pub rate_iops_min: PerDirection<Option<u64>>,
    /// fio `zonemode=strided` (false = `none`); [`ControlOptions::strided_zones`] gathers
    /// the family.
    pub zonemode_strided: bool,
    /// fio `zonerange`, `zonesize`, `zoneskip` as written.
    pub zone: StridedZones,
    /// fio `zonemode=zbd`: zones of `zonesize` with write pointers, emulated on targets that
    /// are not zoned devices; [`ControlOptions::zbd_zones`] gathers the family.
    pub zonemode_zbd: bool,
    /// The options of `zonemode=zbd` as written.
    pub zbd: ZbdOptions,
    /// How the `rw=...:N` modifier of a random job changes offsets (fio `rw_sequencer`).
    pub rw_sequencer: Sequencer,
    /// Once the queue is full, let it drain to this many IOs before filling it again (fio
    /// `iodepth_low`); `None` = keep it full (fio's default, equal to `iodepth`).
    pub iodepth_low: Option<u32>,
    /// Most completions taken per reap (fio `iodepth_batch_complete_max`); accepted,
    /// diskmeter reaps what is ready up to `iodepth`.
    pub iodepth_batch_complete_max: Option<u32>,
    /// Do not issue an IO that overlaps one in flight until that one completes (fio
    /// `serialize_overlap`).
    pub serialize_overlap: bool,
    /// A percentage `offset` is rounded up to a multiple of this, bytes (fio
    /// `offset_align`); 0 = the smallest block size.
    pub offset_align_bytes: u64,
    /// Seed every generator predictably (fio `allrandrepeat`); diskmeter seeds all of them
    /// from `randseed` already.
    pub allrandrepeat: bool,
    /// The job fails with ETIMEDOUT when an IO takes longer than this, ns (fio `max_latency`).
    pub max_latency_ns: Option<u64>,
    /// Remove the job's files after each loop (fio `unlink_each_loop`).
    pub unlink_each_loop: bool,
    /// Iometer's connection-rate test ("Test Connection Rate", "Transactions per
    /// Connection"): each target is closed and opened again after this many IOs of its own,
    /// once those in flight have completed, and each connection (open, IOs, close) is timed.
    /// No fio option sets it: `.icf` files do. `None`: files stay open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transactions_per_connection: Option<u32>,
}

impl Default for ControlOptions {
    /// The options' defaults, as [`crate::JobSpec::default`] has them (from the option rows).
    fn default() -> Self {
        crate::JobSpec::default().control
    }
}

impl ControlOptions {
    /// The option fields hold placeholders, which [`crate::JobSpec::default`] replaces with
    /// the rows' defaults (as for `JobSpec::blank`).
    pub(crate) fn blank() -> Self {
        ControlOptions {
            thinktime_ns: 0,
            thinktime_spin_ns: 0,
            thinktime_blocks: 0,
            thinktime_blocks_type: Default::default(),
            thinktime_iotime_ns: 0,
            rate_ignore_thinktime: false,
            number_ios: 0,
            latency_target_ns: 0,
            latency_window_ns: 0,
            latency_percentile: 0.0,
            latency_run: false,
            flow_weight: 0,
            flow_id: 0,
            flow_sleep_ns: 0,
            wait_for: None,
            exitall: false,
            exit_what: Default::default(),
            exitall_on_error: false,
            io_submit_mode: Default::default(),
            rate_iops_min: Default::default(),
            zonemode_strided: false,
            zone: StridedZones::default(),
            zonemode_zbd: false,
            zbd: Default::default(),
            rw_sequencer: Default::default(),
            iodepth_low: None,
            iodepth_batch_complete_max: None,
            serialize_overlap: false,
            offset_align_bytes: 0,
            allrandrepeat: false,
            max_latency_ns: None,
            unlink_each_loop: false,
            transactions_per_connection: None,
        }
    }
}

/// fio `thinktime_blocks_type`: what `thinktime_blocks` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkTrigger {
    /// Completed IOs (fio's default): the queue drains before each stall.
    #[default]
    Complete,
    /// Issued IOs: the stall comes once the IOs are issued, in flight or not.
    Issue,
}

/// fio `latency_target`, `latency_window`, `latency_percentile`, `latency_run`: find the
/// deepest queue whose IOs meet the target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyTarget {
    /// The latency IOs must stay under, ns.
    pub target_ns: u64,
    /// How long each queue depth is tried, ns (fio `latency_window`).
    pub window_ns: u64,
    /// The share of IOs of a window that must meet the target, percent (fio
    /// `latency_percentile`, 100).
    pub percentile: f64,
    /// Keep adjusting the depth after the search instead of ending the job (fio `latency_run`).
    pub keep_running: bool,
}

/// fio `flow`, `flow_id`, `flow_sleep`: jobs of one flow group share the IO they do in the
/// ratio of their weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    /// The job's weight (fio `flow`, 0 to 1000).
    pub weight: u32,
    /// The group (fio `flow_id`, 0 = the global one).
    pub id: u32,
    /// How long a job ahead of its share waits before trying again, ns (fio `flow_sleep`,
    /// microseconds; 0 = diskmeter's short poll).
    pub sleep_ns: u64,
}

/// fio `exit_what`: what `exitall` ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExitWhat {
    /// The jobs of the finishing job's reporting group.
    #[default]
    Group,
    /// Every running job; the next stonewall phase then starts.
    Stonewall,
    /// Everything: running jobs end and later phases do not start.
    All,
}

impl ExitWhat {
    /// fio's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ExitWhat::Group => "group",
            ExitWhat::Stonewall => "stonewall",
            ExitWhat::All => "all",
        }
    }
}

/// fio `io_submit_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmitMode {
    /// The worker submits and reaps its own IO (fio's default).
    #[default]
    Inline,
    /// fio hands submission to a thread pool so a rate is kept at intended times whatever the
    /// device does. diskmeter's workers already issue at intended times and measure latency
    /// from them, so `offload` runs the same loop.
    Offload,
}

/// fio `zonemode=strided`: IO stays in one zone of `range_bytes` until `size_bytes` have been
/// transferred, then moves on `range_bytes + skip_bytes`, wrapping at the region's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StridedZones {
    /// The zone offsets are drawn from, bytes (fio `zonerange`; `zonesize` when 0).
    pub range_bytes: u64,
    /// Bytes transferred in a zone before the next (fio `zonesize`).
    pub size_bytes: u64,
    /// Bytes skipped after each zone (fio `zoneskip`).
    pub skip_bytes: u64,
}

impl StridedZones {
    /// The zone's range: `zonerange`, or `zonesize` when no range was given (fio's rule).
    pub fn effective_range_bytes(&self) -> u64 {
        if self.range_bytes == 0 {
            self.size_bytes
        } else {
            self.range_bytes
        }
    }
}

/// The options of fio's `zonemode=zbd` (fio 3.33's defaults: no limits, no resets, reads
/// stay below the write pointer).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ZbdOptions {
    /// Most zones open for writing at once over all jobs on a target (fio `max_open_zones`,
    /// 0 = no limit).
    pub max_open_zones: u32,
    /// Most zones open for writing at once by this job (fio `job_max_open_zones`, 0 = no
    /// limit).
    pub job_max_open_zones: u32,
    /// Ignore the device's zone limits (fio `ignore_zone_limits`); emulated zones have none.
    pub ignore_zone_limits: bool,
    /// Reset zones once this share of the region is written (fio `zone_reset_threshold`,
    /// 0 to 1).
    pub zone_reset_threshold: f64,
    /// The share of writes, past the threshold, that reset the zone written (fio
    /// `zone_reset_frequency`, 0 to 1; 0 = never).
    pub zone_reset_frequency: f64,
    /// Reads may pass a zone's write pointer (fio `read_beyond_wp`).
    pub read_beyond_wp: bool,
    /// Bytes of each zone that can be written (fio `zonecapacity`; 0 = the zone size).
    pub capacity_bytes: u64,
}

/// Emulated zones of `zonemode=zbd`: their size and options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ZbdZones {
    /// The zone size (fio `zonesize`), bytes.
    pub size_bytes: u64,
    /// The options.
    pub options: ZbdOptions,
}

impl ZbdZones {
    /// The writable bytes of a zone: `zonecapacity` when set and smaller, else the size.
    pub fn capacity_bytes(&self) -> u64 {
        match self.options.capacity_bytes {
            0 => self.size_bytes,
            cap => cap.min(self.size_bytes),
        }
    }

    /// The open-zone limit this job keeps (the smaller of the two set), 0 = none.
    pub fn open_limit(&self) -> u32 {
        let limits = [self.options.max_open_zones, self.options.job_max_open_zones];
        limits.into_iter().filter(|&n| n > 0).min().unwrap_or(0)
    }
}

/// fio `rw_sequencer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sequencer {
    /// `rw=randread:8`: a new random offset every 8 IOs, sequential between.
    #[default]
    Sequential,
    /// `rw=randread:8`: each random offset is used 8 times.
    Identical,
}

impl ControlOptions {
    /// True when some think time is set.
    pub fn thinks(&self) -> bool {
        self.thinktime_ns > 0
    }

    /// The latency-target search, when `latency_target` is set.
    pub fn latency_search(&self) -> Option<LatencyTarget> {
        (self.latency_target_ns > 0).then_some(LatencyTarget {
            target_ns: self.latency_target_ns,
            window_ns: self.latency_window_ns,
            percentile: self.latency_percentile,
            keep_running: self.latency_run,
        })
    }

    /// Flow control, when the job has a weight (fio: `flow=0` takes no part).
    pub fn flow(&self) -> Option<Flow> {
        (self.flow_weight > 0).then_some(Flow {
            weight: self.flow_weight,
            id: self.flow_id,
            sleep_ns: self.flow_sleep_ns,
        })
    }

    /// Strided zones, when `zonemode=strided` has a zone size.
    pub fn strided_zones(&self) -> Option<StridedZones> {
        (self.zonemode_strided && self.zone.size_bytes > 0).then_some(self.zone)
    }

    /// Emulated zones, when `zonemode=zbd` has a zone size.
    pub fn zbd_zones(&self) -> Option<ZbdZones> {
        (self.zonemode_zbd && self.zone.size_bytes > 0).then_some(ZbdZones {
            size_bytes: self.zone.size_bytes,
            options: self.zbd,
        })
    }
}

/// The rules of the control options (fio's `fixup_options` where it refuses a combination).
pub(crate) fn validate_control(spec: &JobSpec, fail: &mut impl FnMut(&'static str, String)) {
    let control = &spec.control;
    if !control.zonemode_strided && !control.zonemode_zbd && control.zone.size_bytes > 0 {
        fail(
            "zonesize",
            "zonesize needs zonemode=strided or zbd (fio refuses it with zonemode=none too)"
                .to_string(),
        );
    }
    if control.zonemode_zbd && control.zone.size_bytes == 0 {
        fail(
            "zonemode",
            "zonemode=zbd on a target that is not a zoned device needs a zonesize (the emulated \
             zones' size)"
                .to_string(),
        );
    }
    if control.zonemode_strided && control.zone.size_bytes == 0 {
        fail(
            "zonemode",
            "zonemode=strided needs a zonesize (the bytes done in each zone)".to_string(),
        );
    }
}
