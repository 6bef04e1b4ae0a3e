//! Tests of the control rules (`control.rs`): each rule on a manual timeline.

use super::*;
use crate::test_jobs::job;

fn controls(options: &[(&str, &str)], depth: u32) -> Box<Controls> {
    let mut c = Controls::for_job(&job(options), depth, None).expect("some rule is set");
    c.start(0);
    c
}

#[test]
fn a_job_without_control_options_has_no_controls() {
    assert!(Controls::for_job(&JobSpec::default(), 32, None).is_none());
}

#[test]
fn the_latency_search_doubles_while_windows_meet_the_target_then_settles() {
    let mut c = controls(
        &[
            ("latency_target", "1ms"),
            ("latency_window", "10ms"),
            ("latency_percentile", "99"),
        ],
        8,
    );
    let mut depths = Vec::new();
    for window in 1..=6u64 {
        assert!(c.completed(window * 10_000_000 - 1, 100_000));
        c.tick(window * 10_000_000);
        depths.push(c.latency_depth().unwrap());
    }
    assert_eq!(depths, [2, 4, 8, 8, 8, 8]);
    assert!(c.done());
    assert_eq!(c.gate(70_000_000, 0), Gate::Done);
}

#[test]
fn a_missed_window_bisects_down_to_the_deepest_depth_that_met_it() {
    let mut c = controls(
        &[
            ("latency_target", "1ms"),
            ("latency_window", "10ms"),
            ("latency_percentile", "90"),
        ],
        64,
    );
    let mut now = 0;
    let mut window = |c: &mut Controls, lat_ns: u64| {
        now += 10_000_000;
        assert!(c.completed(now - 1, lat_ns));
        c.tick(now);
        c.latency_depth().unwrap()
    };
    assert_eq!(window(&mut c, 10), 2);
    assert_eq!(window(&mut c, 10), 4);
    // 4 misses: back halfway to 2 (the last depth that met it) = 3.
    assert_eq!(window(&mut c, 5_000_000), 3);
    assert_eq!(window(&mut c, 10), 3);
    assert_eq!(c.gate(now, 3), Gate::Full);
    assert_eq!(c.gate(now, 2), Gate::Go);
}

#[test]
fn a_full_percentile_target_missed_at_depth_one_gives_up_as_fio_does() {
    let mut c = controls(&[("latency_target", "1ms")], 8);
    assert!(!c.completed(5, 2_000_000));
}

#[test]
fn think_time_counted_at_completion_stalls_after_the_blocks_complete() {
    let mut c = controls(&[("thinktime", "1ms"), ("thinktime_blocks", "2")], 8);
    assert_eq!(c.gate(0, 0), Gate::Go);
    c.issued(0, true);
    assert_eq!(c.gate(0, 1), Gate::Go);
    c.issued(0, true);
    // Two issued: no more until both complete and the stall has passed.
    assert_eq!(c.gate(10, 2), Gate::Full);
    assert!(c.completed(100, 100));
    assert!(c.completed(200, 200));
    assert_eq!(c.gate(300, 0), Gate::WaitUntil(1_000_200));
    assert_eq!(c.gate(1_000_200, 0), Gate::Go);
}

#[test]
fn think_time_counted_at_issue_stalls_with_ios_in_flight() {
    let mut c = controls(
        &[
            ("thinktime", "1ms"),
            ("thinktime_blocks", "2"),
            ("thinktime_blocks_type", "issue"),
        ],
        8,
    );
    c.issued(0, true);
    c.issued(5, true);
    assert_eq!(c.gate(6, 2), Gate::WaitUntil(1_000_005));
    assert_eq!(c.take_new_stall_ns(), 1_000_000);
    assert_eq!(c.gate(1_000_005, 2), Gate::Go);
}

#[test]
fn number_ios_counts_measured_ios_only() {
    let mut c = controls(&[("number_ios", "2")], 8);
    c.issued(0, false);
    c.issued(1, true);
    assert!(!c.done());
    c.issued(2, true);
    assert!(c.done());
    assert_eq!(c.gate(3, 0), Gate::Done);
}

#[test]
fn a_flow_member_ahead_of_its_share_waits() {
    let group = Arc::new(FlowGroup::new());
    let heavy_job = job(&[("flow", "3"), ("flow_sleep", "100")]);
    let light_job = job(&[("flow", "1")]);
    let mut heavy = Controls::for_job(&heavy_job, 1, Some(Arc::clone(&group))).unwrap();
    let mut light = Controls::for_job(&light_job, 1, Some(Arc::clone(&group))).unwrap();
    let _heavy_member = FlowMembership::join(&heavy_job, Some(&group)).unwrap();
    let light_member = FlowMembership::join(&light_job, Some(&group)).unwrap();
    heavy.start(0);
    light.start(0);
    let mut done = [0u32; 2];
    for now in 0..400 {
        for (k, member) in [&mut heavy, &mut light].into_iter().enumerate() {
            if member.gate(now, 0) == Gate::Go {
                member.issued(now, true);
                done[k] += 1;
            }
        }
    }
    let ratio = f64::from(done[0]) / f64::from(done[1]);
    assert!((ratio - 3.0).abs() < 0.05, "{done:?}");
    drop(light_member);
    // Alone in the group, the heavy job is never held back.
    for now in 400..410 {
        assert_eq!(heavy.gate(now, 0), Gate::Go);
        heavy.issued(now, true);
    }
}

#[test]
fn iodepth_low_lets_a_full_queue_drain_before_refilling() {
    let mut c = controls(&[("iodepth_low", "2")], 8);
    assert_eq!(c.gate(0, 7), Gate::Go);
    assert_eq!(c.gate(0, 8), Gate::Full);
    assert_eq!(c.gate(0, 5), Gate::Full);
    assert_eq!(c.gate(0, 2), Gate::Go);
    assert_eq!(c.gate(0, 3), Gate::Go);
}
