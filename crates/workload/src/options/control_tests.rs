//! Tests of the control options (one per option or family, as in `tests.rs`).

use super::tests::{refused, with};
use crate::control::{
    ExitWhat, Flow, LatencyTarget, Sequencer, StridedZones, SubmitMode, ThinkTrigger,
};
use crate::{describe, PerDirection};

fn described(job: &crate::JobSpec, name: &str) -> Option<String> {
    describe(job)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

#[test]
fn thinktime_family_reads_microseconds_like_fio() {
    let job = with(&[
        ("thinktime", Some("2000")),
        ("thinktime_spin", Some("1ms")),
        ("thinktime_blocks", Some("8")),
        ("thinktime_blocks_type", Some("issue")),
        ("thinktime_iotime", Some("9")),
        ("rate_ignore_thinktime", None),
    ]);
    let c = &job.control;
    assert_eq!(c.thinktime_ns, 2_000_000);
    assert_eq!(c.thinktime_spin_ns, 1_000_000);
    assert_eq!(c.thinktime_blocks, 8);
    assert_eq!(c.thinktime_blocks_type, ThinkTrigger::Issue);
    assert_eq!(c.thinktime_iotime_ns, 9_000_000_000);
    assert!(c.rate_ignore_thinktime);
    assert_eq!(described(&job, "thinktime").as_deref(), Some("2ms"));
    assert_eq!(
        with(&[("thinktime_blocks", Some("0"))])
            .control
            .thinktime_blocks,
        1
    );
    assert!(refused("thinktime_blocks_type", Some("issued")).contains("did you mean 'issue'"));
}

#[test]
fn number_ios_counts_with_fio_suffixes() {
    assert_eq!(with(&[("number_ios", Some("1k"))]).control.number_ios, 1024);
    assert_eq!(described(&with(&[]), "number_ios"), None);
    assert_eq!(with(&[("flow", Some("0"))]).control.flow(), None);
    assert_eq!(
        with(&[("latency_window", Some("1s"))])
            .control
            .latency_search(),
        None
    );
}

#[test]
fn latency_target_family() {
    let job = with(&[
        ("latency_target", Some("500000")),
        ("latency_window", Some("5000000")),
        ("latency_percentile", Some("99.9")),
    ]);
    assert_eq!(
        job.control.latency_search(),
        Some(LatencyTarget {
            target_ns: 500_000_000,
            window_ns: 5_000_000_000,
            percentile: 99.9,
            keep_running: false,
        })
    );
    assert_eq!(described(&job, "latency_target").as_deref(), Some("500ms"));
    assert!(refused("latency_percentile", Some("101")).contains("percentage"));
}

#[test]
fn flow_family() {
    let job = with(&[
        ("flow", Some("8")),
        ("flow_id", Some("2")),
        ("flow_sleep", Some("1000")),
    ]);
    assert_eq!(
        job.control.flow(),
        Some(Flow {
            weight: 8,
            id: 2,
            sleep_ns: 1_000_000
        })
    );
    assert!(refused("flow", Some("1001")).contains("1000"));
}

#[test]
fn wait_for_and_exitall() {
    let job = with(&[
        ("wait_for", Some("writers")),
        ("exitall", None),
        ("exit_what", Some("stonewall")),
        ("exitall_on_error", Some("1")),
    ]);
    assert_eq!(job.control.wait_for.as_deref(), Some("writers"));
    assert!(job.control.exitall && job.control.exitall_on_error);
    assert_eq!(job.control.exit_what, ExitWhat::Stonewall);
    assert_eq!(
        with(&[("exit_what", Some("all"))]).control.exit_what,
        ExitWhat::All
    );
}

#[test]
fn io_submit_mode_offload_is_accepted() {
    let job = with(&[("io_submit_mode", Some("offload"))]);
    assert_eq!(job.control.io_submit_mode, SubmitMode::Offload);
    assert_eq!(
        described(&job, "io_submit_mode").as_deref(),
        Some("offload")
    );
}

#[test]
fn rate_iops_min_per_direction() {
    let job = with(&[("rate_iops_min", Some("100,50"))]);
    assert_eq!(
        job.control.rate_iops_min,
        PerDirection {
            read: Some(100),
            write: Some(50)
        }
    );
}

#[test]
fn strided_zones() {
    let job = with(&[
        ("zonemode", Some("strided")),
        ("zonesize", Some("256m")),
        ("zoneskip", Some("2g")),
    ]);
    let zones = job.control.strided_zones().unwrap();
    assert_eq!(
        zones,
        StridedZones {
            range_bytes: 0,
            size_bytes: 256 << 20,
            skip_bytes: 2 << 30
        }
    );
    assert_eq!(zones.effective_range_bytes(), 256 << 20);
    assert_eq!(described(&job, "zonesize").as_deref(), Some("256m"));
}

#[test]
fn zbd_zones_with_their_limits_resets_and_sizes_in_zones() {
    let job = with(&[
        ("zonemode", Some("zbd")),
        ("zonesize", Some("256m")),
        ("zbd_max_open_zones", Some("32")),
        ("job_max_open_zones", Some("8")),
        ("zone_reset_threshold", Some("0.7")),
        ("zone_reset_frequency", Some("0.125")),
        ("read_beyond_wp", Some("1")),
        ("size", Some("8z")),
        ("offset", Some("524z")),
        ("io_size", Some("2z")),
    ]);
    let zones = job.control.zbd_zones().unwrap();
    assert_eq!(zones.size_bytes, 256 << 20);
    assert_eq!(zones.capacity_bytes(), 256 << 20);
    assert_eq!(zones.open_limit(), 8);
    assert_eq!(zones.options.zone_reset_threshold, 0.7);
    assert_eq!(zones.options.zone_reset_frequency, 0.125);
    assert!(zones.options.read_beyond_wp);
    assert_eq!(job.size_bytes, Some(8 * (256 << 20)));
    assert_eq!(job.offset_bytes, 524 * (256 << 20));
    assert_eq!(job.io_size_bytes, Some(2 * (256 << 20)));
    assert_eq!(described(&job, "zonemode").as_deref(), Some("zbd"));
    // A size in zones needs the zone size first; fractions are shares.
    assert!(refused("size", Some("8z")).contains("zonesize"));
    assert!(refused("zone_reset_threshold", Some("1.5")).contains("0 to 1"));
    assert!(refused("max_open_zones", Some("5000")).contains("4096"));
}

#[test]
fn queue_refinements() {
    let job = with(&[
        ("rw_sequencer", Some("identical")),
        ("iodepth_low", Some("4")),
        ("iodepth_batch_complete_max", Some("16")),
        ("serialize_overlap", Some("1")),
        ("offset_align", Some("64k")),
        ("allrandrepeat", Some("1")),
        ("max_latency", Some("250")),
        ("unlink_each_loop", Some("1")),
    ]);
    let c = &job.control;
    assert_eq!(c.rw_sequencer, Sequencer::Identical);
    assert_eq!(
        (c.iodepth_low, c.iodepth_batch_complete_max),
        (Some(4), Some(16))
    );
    assert!(c.serialize_overlap && c.allrandrepeat && c.unlink_each_loop);
    assert_eq!(c.offset_align_bytes, 65536);
    assert_eq!(c.max_latency_ns, Some(250_000));
}
