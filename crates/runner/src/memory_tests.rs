//! The memory guard on plans of null-engine jobs (no IO, no files): what it counts per
//! worker and phase, and the line it refuses with.

use super::*;
use crate::test_jobs::job;
use crate::{resolve, PlanOptions};
use diskmeter_units::{GIB, MIB};

fn plan(jobs: &[&[(&str, &str)]]) -> RunPlan {
    let jobs: Vec<_> = jobs
        .iter()
        .map(|options| {
            let mut all = vec![("ioengine", "null"), ("size", "1m")];
            all.extend_from_slice(options);
            job(&all)
        })
        .collect();
    resolve(&jobs, &PlanOptions::default()).unwrap()
}

#[test]
fn a_worker_needs_iodepth_slots_of_its_largest_block() {
    let p = plan(&[&[
        ("name", "big"),
        ("rw", "randrw"),
        ("bs", "4k,1m"),
        ("iodepth", "64"),
        ("numjobs", "3"),
    ]]);
    let phases = buffer_needs(&p);
    assert_eq!(phases.len(), 1);
    let [need] = phases[0].as_slice() else {
        panic!("{phases:?}")
    };
    assert_eq!((need.iodepth, need.block_bytes, need.workers), (64, MIB, 3));
    // 64 MiB of slots per worker, plus the slack that starts them on a huge page.
    assert_eq!(need.bytes, 3 * (64 * MIB + 2 * MIB - 4096));
}

#[test]
fn bssplit_and_bsrange_count_their_largest_size_in_the_directions_the_job_issues() {
    let p = plan(&[
        &[
            ("name", "split"),
            ("rw", "randread"),
            ("bssplit", "4k/50:256k/50,1m/100"),
        ],
        &[
            ("name", "range"),
            ("rw", "write"),
            ("bsrange", "4k-16k,8k-128k"),
        ],
    ]);
    let sizes: Vec<(String, u64)> = buffer_needs(&p)[0]
        .iter()
        .map(|j| (j.job.clone(), j.block_bytes))
        .collect();
    assert_eq!(
        sizes,
        vec![("split".into(), 256 << 10), ("range".into(), 128 << 10)]
    );
}

#[test]
fn jobs_that_run_together_add_up_and_stonewalled_phases_do_not() {
    let a: &[(&str, &str)] = &[("name", "a"), ("bs", "4m"), ("iodepth", "256")];
    let b: &[(&str, &str)] = &[("name", "b"), ("bs", "4m"), ("iodepth", "256")];
    let b_after: &[(&str, &str)] = &[
        ("name", "b"),
        ("bs", "4m"),
        ("iodepth", "256"),
        ("stonewall", "1"),
    ];
    // About 1 GiB each.
    let together = plan(&[a, b]);
    let error = check_memory(&together, 3 * GIB / 2).unwrap_err();
    assert_eq!(error.jobs.len(), 2);
    assert!(error.needed_bytes > 2 * GIB, "{error:?}");
    let one_after_the_other = plan(&[a, b_after]);
    assert_eq!(buffer_needs(&one_after_the_other).len(), 2);
    check_memory(&one_after_the_other, 3 * GIB / 2).unwrap();
}

#[test]
fn the_refusal_gives_both_figures_and_the_factors() {
    let p = plan(&[&[
        ("name", "big"),
        ("bs", "4m"),
        ("iodepth", "4096"),
        ("numjobs", "3"),
    ]]);
    let error = check_memory(&p, 22 * GIB + GIB / 10).unwrap_err();
    assert_eq!(
        error.to_string(),
        "job big: its IO buffers need 48.0 GiB (iodepth 4096 x bs 4 MiB x numjobs 3), more \
         than the 22.1 GiB available (MemAvailable); lower iodepth, bs or numjobs"
    );
    check_memory(&p, 49 * GIB).unwrap();
}

#[test]
fn several_jobs_and_lockmem_are_named_in_the_refusal() {
    let p = plan(&[
        &[
            ("name", "r"),
            ("bs", "64k"),
            ("iodepth", "128"),
            ("numjobs", "4"),
        ],
        &[
            ("name", "w"),
            ("bs", "6k"),
            ("iodepth", "2"),
            ("lockmem", "1g"),
        ],
    ]);
    let text = check_memory(&p, GIB).unwrap_err().to_string();
    assert!(
        text.starts_with(
            "jobs r, w, which run at the same time: their IO buffers need 1.04 GiB (r: \
             iodepth 128 x bs 64 KiB x numjobs 4; w: iodepth 2 x bs 6 KiB x numjobs 1, and \
             lockmem 1 GiB x 1), more than the 1.00 GiB available"
        ),
        "{text}"
    );
}

#[test]
fn figures_that_overflow_are_refused_not_wrapped() {
    let p = plan(&[&[
        ("name", "huge"),
        ("bs", "1t"),
        ("iodepth", "65536"),
        ("numjobs", "1000"),
    ]]);
    let error = check_memory(&p, 64 * GIB).unwrap_err();
    assert_eq!(error.needed_bytes, u64::MAX);
}

#[test]
fn mem_available_is_read_in_kib() {
    let meminfo = "MemTotal:       24560000 kB\nMemFree:         6000000 kB\n\
                   MemAvailable:   23163412 kB\nBuffers:          100000 kB\n";
    assert_eq!(parse_mem_available(meminfo), Some(23_163_412 * 1024));
    assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    assert!(available_memory_bytes().is_some_and(|b| b > 0));
}
