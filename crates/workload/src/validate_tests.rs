//! Tests of [`super::validate`]: one per rule, each with the message a user would read.

use super::*;
use crate::{JobSpec, PerDirection, RwMode};

fn messages(spec: &JobSpec) -> Vec<String> {
    validate(spec).iter().map(ToString::to_string).collect()
}

fn job() -> JobSpec {
    JobSpec {
        name: "t".to_string(),
        ..JobSpec::default()
    }
}

#[test]
fn defaults_and_the_newcomer_job_are_valid() {
    assert_eq!(messages(&JobSpec::default()), Vec::<String>::new());
    assert_eq!(messages(&JobSpec::newcomer_default()), Vec::<String>::new());
}

/// The largest iodepth, as the option's table row says.
fn max_iodepth() -> u32 {
    match crate::limits_of("iodepth").map(|limits| limits.range) {
        Some(crate::Range::Int { max: Some(max), .. }) => u32::try_from(max).unwrap(),
        other => panic!("iodepth's row has no ceiling: {other:?}"),
    }
}

#[test]
fn iodepth_range() {
    let max_iodepth = max_iodepth();
    for iodepth in [0, max_iodepth + 1] {
        let spec = JobSpec { iodepth, ..job() };
        assert_eq!(
            messages(&spec),
            [format!(
                "job 't': iodepth={iodepth}: must be between 1 and 65536"
            )]
        );
    }
    let spec = JobSpec {
        iodepth: max_iodepth,
        ..job()
    };
    assert!(validate(&spec).is_empty());
}

#[test]
fn block_size_zero_and_direct_alignment() {
    let spec = JobSpec {
        bs_bytes: PerDirection::both(0),
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': bs=0: the read block size must be at least 1 byte"]
    );
    let spec = JobSpec {
        rw: RwMode::RandRw,
        direct: true,
        bs_bytes: PerDirection {
            read: 4096,
            write: 1000,
        },
        ..job()
    };
    assert_eq!(
        messages(&spec),
        [
            "job 't': bs=4k,1000: the write block size 1000 is not a multiple of 512, which \
          direct=1 needs (e.g. 4k)"
        ]
    );
    // Buffered IO takes any size, and a direction the job never issues is not checked.
    let spec = JobSpec {
        bs_bytes: PerDirection::both(1000),
        ..job()
    };
    assert!(validate(&spec).is_empty());
    let spec = JobSpec {
        direct: true,
        bs_bytes: PerDirection {
            read: 4096,
            write: 1,
        },
        ..job()
    };
    assert!(validate(&spec).is_empty());
}

#[test]
fn counts_must_be_positive() {
    let spec = JobSpec {
        numjobs: 0,
        nrfiles: 0,
        loops: 0,
        ..job()
    };
    assert_eq!(
        messages(&spec),
        [
            "job 't': nrfiles=0: must be between 1 and 1000000 (diskmeter plans every file \
             before the run starts)",
            "job 't': numjobs=0: must be between 1 and 4096 (fio runs at most 4,096 jobs in all)",
            "job 't': loops=0: must be at least 1",
        ]
    );
    // A job built in code meets the rows' upper limits too.
    let spec = JobSpec {
        numjobs: 4097,
        nrfiles: 1_000_001,
        ..job()
    };
    assert_eq!(messages(&spec).len(), 2, "{:?}", messages(&spec));
}

#[test]
fn rwmixread_at_most_100() {
    let spec = JobSpec {
        rwmixread: 101,
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': rwmixread=101: must be between 0 and 100"]
    );
}

#[test]
fn zero_sizes_are_invalid() {
    let spec = JobSpec {
        size_bytes: Some(0),
        io_size_bytes: Some(0),
        ..job()
    };
    let found = messages(&spec);
    assert_eq!(found.len(), 2);
    assert!(found[0].starts_with("job 't': size=0: must be more than 0 bytes"));
    assert!(found[1].starts_with("job 't': io_size=0: must be more than 0 bytes"));
}

#[test]
fn offset_alignment_and_overflow() {
    let spec = JobSpec {
        direct: true,
        offset_bytes: 100,
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': offset=100: direct=1 needs an offset that is a multiple of 512 bytes"]
    );
    let spec = JobSpec {
        offset_bytes: u64::MAX,
        size_bytes: Some(1),
        ..job()
    };
    assert!(messages(&spec)[0].contains("offset plus size"));
}

#[test]
fn time_based_needs_runtime() {
    let spec = JobSpec {
        time_based: true,
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': time_based=1: time_based needs runtime (how long to keep going, e.g. runtime=60)"]
    );
    let spec = JobSpec {
        runtime_ns: Some(0),
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': runtime=0s: 0 means no limit in fio; leave runtime unset instead"]
    );
}

#[test]
fn ramp_time_without_runtime_is_fine_for_size_based_jobs() {
    let spec = JobSpec {
        ramp_time_ns: 5_000_000_000,
        size_bytes: Some(1 << 20),
        ..job()
    };
    assert!(validate(&spec).is_empty());
}

#[test]
fn rate_and_rate_iops_for_one_direction_conflict() {
    let spec = JobSpec {
        rw: RwMode::RandRw,
        rate_bytes_per_sec: PerDirection {
            read: None,
            write: Some(1 << 20),
        },
        rate_iops: PerDirection {
            read: Some(100),
            write: Some(100),
        },
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': rate_iops=100: writes are capped by both rate and rate_iops; keep one of them"]
    );
    let spec = JobSpec {
        rate_iops: PerDirection {
            read: Some(0),
            write: None,
        },
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': rate_iops=0,0: a read cap of 0 means no cap; leave it unset"]
    );
}

#[test]
fn io_uring_options_need_io_uring() {
    let spec = JobSpec {
        fixedbufs: true,
        ioengine: EngineKind::Psync,
        ..job()
    };
    assert_eq!(
        messages(&spec),
        [
            "job 't': fixedbufs=1: fixedbufs is an io_uring option; use ioengine=io_uring or drop \
          it (ioengine is psync)"
        ]
    );
    let spec = JobSpec {
        registerfiles: true,
        fixedbufs: true,
        ..job()
    };
    assert!(validate(&spec).is_empty());
}

#[test]
fn cpu_and_percentile_lists() {
    let spec = JobSpec {
        cpus_allowed: Some(Vec::new()),
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': cpus_allowed=: lists no CPU; leave it unset to allow any"]
    );
    let spec = JobSpec {
        percentile_list: Vec::new(),
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': percentile_list=: lists no percentile"]
    );
    let spec = JobSpec {
        percentile_list: vec![50.0, 101.0],
        ..job()
    };
    assert_eq!(
        messages(&spec),
        ["job 't': percentile_list=50:101: every percentile must be between 0 and 100"]
    );
    let spec = JobSpec {
        percentile_list: vec![f64::NAN],
        ..job()
    };
    assert_eq!(validate(&spec).len(), 1);
    let spec = JobSpec {
        percentile_list: vec![1.0; 21],
        ..job()
    };
    assert_eq!(validate(&spec).len(), 1);
}

#[test]
fn empty_name_is_reported() {
    let spec = JobSpec {
        name: " ".to_string(),
        ..JobSpec::default()
    };
    assert_eq!(messages(&spec), ["job ' ': name= : a job needs a name"]);
}

#[test]
fn every_problem_is_listed_at_once() {
    let spec = JobSpec {
        iodepth: 0,
        numjobs: 0,
        time_based: true,
        ..job()
    };
    assert_eq!(validate(&spec).len(), 3);
}
