//! The suites and their steps, with the parameters of their sources:
//! - CrystalDiskMark 8's profiles (`quick` = its default set, `nvme` = its NVMe SSD set,
//!   `peak` = Peak Performance, `realworld` = Real World Performance);
//! - the DigitalOcean volume guide's five tests (`cloud`);
//! - the Azure "design for high performance" and "run disk benchmarks" scenarios
//!   (`max-*`, `warmup`) and the DiskSpd study's 4 x 4 matrix (`matrix`), as in
//!   shared/reference/workloads.md sections 2 and 3.

use crate::Layout;
use crate::{JobShape, StepSpec};

/// A suite as `diskmeter suite --list` shows it.
pub struct SuiteInfo {
    /// The name users type.
    pub name: &'static str,
    /// One line on what it is for and where its parameters come from.
    pub description: &'static str,
    /// How its results are laid out.
    pub layout: Layout,
    /// Whether `--auto-stop` applies (not to suites that run for a time, like `warmup`).
    pub auto_stop: bool,
    /// What the suite has to do with the host's read cache.
    pub cache: CacheRole,
    pub(crate) steps: fn() -> Vec<StepSpec>,
}

impl SuiteInfo {
    /// Each step as `name: rw bs QDn x jobs [, ...]`, for `--list`.
    pub fn step_lines(&self) -> Vec<String> {
        (self.steps)()
            .iter()
            .map(|step| {
                let jobs: Vec<String> = step
                    .jobs
                    .iter()
                    .map(|j| {
                        format!(
                            "{} {} QD{} x{}{}",
                            j.rw,
                            j.bs,
                            j.iodepth,
                            j.numjobs,
                            if j.capped_writer {
                                " (--write-cap)"
                            } else {
                                ""
                            }
                        )
                    })
                    .collect();
                format!(
                    "{}: {} (up to {} s)",
                    step.name,
                    jobs.join(" + "),
                    step.runtime_s
                )
            })
            .collect()
    }
}

/// What a suite has to do with the host's read cache (the Azure guide's ReadOnly-cached
/// disks, which serve reads from the host's cache only once it has been warmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheRole {
    /// Nothing: its figures do not depend on a warm cache.
    None,
    /// It warms the read target's cache (`warmup`): its file is kept and recorded as warm.
    Warms,
    /// Its published figures read from a warm host cache (`max-read-iops` and the other
    /// max-* suites that read): a cold target gives lower figures.
    ReadsCached,
}

/// Every suite, in `--list` order.
pub static SUITES: &[SuiteInfo] = &[
    SuiteInfo {
        name: "quick",
        description: "CrystalDiskMark's default set: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write each",
        layout: Layout::ReadWriteRows,
        auto_stop: true,
        cache: CacheRole::None,
        steps: quick,
    },
    SuiteInfo {
        name: "nvme",
        description: "CrystalDiskMark's NVMe SSD set: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1",
        layout: Layout::ReadWriteRows,
        auto_stop: true,
        cache: CacheRole::None,
        steps: nvme,
    },
    SuiteInfo {
        name: "peak",
        description: "CrystalDiskMark's Peak Performance profile: SEQ1M Q8T1, RND4K Q32T16",
        layout: Layout::ReadWriteRows,
        auto_stop: true,
        cache: CacheRole::None,
        steps: peak,
    },
    SuiteInfo {
        name: "realworld",
        description: "CrystalDiskMark's Real World Performance profile: SEQ1M Q1T1, RND4K Q1T1",
        layout: Layout::ReadWriteRows,
        auto_stop: true,
        cache: CacheRole::None,
        steps: realworld,
    },
    SuiteInfo {
        name: "cloud",
        description: "The DigitalOcean volume guide's five tests (bandwidth, random read and write, read and write latency); --expect do-standard prints its figures beside",
        layout: Layout::Steps,
        auto_stop: true,
        cache: CacheRole::None,
        steps: cloud,
    },
    SuiteInfo {
        name: "max-write-iops",
        description: "Azure: random 8K writes, 4 jobs at QD 256 (DS14: 50,000 IOPS on a 10-disk uncached stripe)",
        layout: Layout::Steps,
        auto_stop: true,
        cache: CacheRole::None,
        steps: max_write_iops,
    },
    SuiteInfo {
        name: "max-read-iops",
        description: "Azure: random 8K reads, 4 jobs at QD 256 (DS14: 64,000+ IOPS from a ReadOnly-cached disk)",
        layout: Layout::Steps,
        auto_stop: true,
        cache: CacheRole::ReadsCached,
        steps: max_read_iops,
    },
    SuiteInfo {
        name: "max-mixed-iops",
        description: "Azure: 4 random 4K readers + 4 random 4K writers at QD 128; --write-cap splits a write IOPS cap over the writers (4 x 12,500)",
        layout: Layout::Steps,
        auto_stop: true,
        cache: CacheRole::ReadsCached,
        steps: max_mixed_iops,
    },
    SuiteInfo {
        name: "max-throughput",
        description: "Azure: 64K reads, then 64K writes, 4 jobs at QD 128 each",
        layout: Layout::Steps,
        auto_stop: true,
        cache: CacheRole::ReadsCached,
        steps: max_throughput,
    },
    SuiteInfo {
        name: "max-mixed-throughput",
        description: "Azure: 4 64K readers + 4 64K writers at QD 128 together (DS14: 1,000 MiB/s combined)",
        layout: Layout::Steps,
        auto_stop: true,
        cache: CacheRole::ReadsCached,
        steps: max_mixed_throughput,
    },
    SuiteInfo {
        name: "warmup",
        description: "Azure cache warm-up: 1M random writes (cache init) then 1M random reads, 3 workers at QD 128, 2 hours each by default (--runtime)",
        layout: Layout::Steps,
        auto_stop: false,
        cache: CacheRole::Warms,
        steps: warmup,
    },
    SuiteInfo {
        name: "matrix",
        description: "The DiskSpd study's matrix: 4K, 8K, 64K, 256K x sequential read, sequential write, random read, random write (MiB/s and IOPS per cell)",
        layout: Layout::Matrix,
        auto_stop: true,
        cache: CacheRole::None,
        steps: matrix,
    },
];

/// The names of every suite.
pub fn suite_names() -> impl Iterator<Item = &'static str> {
    SUITES.iter().map(|s| s.name)
}

/// The suites whose published figures read from a warm cache (the ones `--warmup` warms
/// for).
pub fn cached_read_suites() -> Vec<&'static str> {
    SUITES
        .iter()
        .filter(|s| s.cache == CacheRole::ReadsCached)
        .map(|s| s.name)
        .collect()
}

/// CrystalDiskMark's "SEQ1M Q8T1"-style test: both directions, one step each.
fn cdm(label: &str, random: bool, bs: &'static str, qd: u32, threads: u32) -> Vec<StepSpec> {
    [
        ("read", "read", "randread"),
        ("write", "write", "randwrite"),
    ]
    .into_iter()
    .map(|(column, seq, rnd)| StepSpec {
        name: format!("{label} {column}"),
        row: label.to_string(),
        column: column.to_string(),
        jobs: vec![JobShape::new(
            if random { rnd } else { seq },
            bs,
            qd,
            threads,
        )],
        runtime_s: 30,
    })
    .collect()
}

fn quick() -> Vec<StepSpec> {
    [
        cdm("SEQ1M Q8T1", false, "1m", 8, 1),
        cdm("SEQ1M Q1T1", false, "1m", 1, 1),
        cdm("RND4K Q32T1", true, "4k", 32, 1),
        cdm("RND4K Q1T1", true, "4k", 1, 1),
    ]
    .concat()
}

fn nvme() -> Vec<StepSpec> {
    [
        cdm("SEQ1M Q8T1", false, "1m", 8, 1),
        cdm("SEQ128K Q32T1", false, "128k", 32, 1),
        cdm("RND4K Q32T16", true, "4k", 32, 16),
        cdm("RND4K Q1T1", true, "4k", 1, 1),
    ]
    .concat()
}

fn peak() -> Vec<StepSpec> {
    [
        cdm("SEQ1M Q8T1", false, "1m", 8, 1),
        cdm("RND4K Q32T16", true, "4k", 32, 16),
    ]
    .concat()
}

fn realworld() -> Vec<StepSpec> {
    [
        cdm("SEQ1M Q1T1", false, "1m", 1, 1),
        cdm("RND4K Q1T1", true, "4k", 1, 1),
    ]
    .concat()
}

fn single(name: &str, column: &str, jobs: Vec<JobShape>, runtime_s: u64) -> StepSpec {
    StepSpec {
        name: name.to_string(),
        row: name.to_string(),
        column: column.to_string(),
        jobs,
        runtime_s,
    }
}

fn cloud() -> Vec<StepSpec> {
    vec![
        single(
            "bandwidth",
            "write",
            vec![JobShape::new("randwrite", "1m", 32, 1)],
            120,
        ),
        single(
            "random read",
            "read",
            vec![JobShape::new("randread", "4k", 128, 1)],
            120,
        ),
        single(
            "random write",
            "write",
            vec![JobShape::new("randwrite", "4k", 128, 1)],
            120,
        ),
        single(
            "read latency",
            "read",
            vec![JobShape::new("randread", "4k", 1, 1)],
            120,
        ),
        single(
            "write latency",
            "write",
            vec![JobShape::new("randwrite", "4k", 1, 1)],
            120,
        ),
    ]
}

fn max_write_iops() -> Vec<StepSpec> {
    vec![single(
        "max write IOPS",
        "write",
        vec![JobShape::new("randwrite", "8k", 256, 4).capped()],
        30,
    )]
}

fn max_read_iops() -> Vec<StepSpec> {
    vec![single(
        "max read IOPS",
        "read",
        vec![JobShape::new("randread", "8k", 256, 4)],
        30,
    )]
}

fn max_mixed_iops() -> Vec<StepSpec> {
    vec![single(
        "max mixed IOPS",
        "mixed",
        vec![
            JobShape::new("randread", "4k", 128, 4),
            JobShape::new("randwrite", "4k", 128, 4).capped(),
        ],
        30,
    )]
}

fn max_throughput() -> Vec<StepSpec> {
    vec![
        single(
            "max read throughput",
            "read",
            vec![JobShape::new("randread", "64k", 128, 4)],
            30,
        ),
        single(
            "max write throughput",
            "write",
            vec![JobShape::new("randwrite", "64k", 128, 4).capped()],
            30,
        ),
    ]
}

fn max_mixed_throughput() -> Vec<StepSpec> {
    vec![single(
        "max mixed throughput",
        "mixed",
        vec![
            JobShape::new("randread", "64k", 128, 4),
            JobShape::new("randwrite", "64k", 128, 4).capped(),
        ],
        30,
    )]
}

fn warmup() -> Vec<StepSpec> {
    vec![
        single(
            "cache init",
            "write",
            vec![JobShape::new("randwrite", "1m", 128, 3)],
            7200,
        ),
        single(
            "cache warm-up",
            "read",
            vec![JobShape::new("randread", "1m", 128, 3)],
            7200,
        ),
    ]
}

fn matrix() -> Vec<StepSpec> {
    let mut steps = Vec::new();
    for (row, bs) in [("4K", "4k"), ("8K", "8k"), ("64K", "64k"), ("256K", "256k")] {
        for (column, rw) in [
            ("seq read", "read"),
            ("seq write", "write"),
            ("random read", "randread"),
            ("random write", "randwrite"),
        ] {
            steps.push(StepSpec {
                name: format!("{row} {column}"),
                row: row.to_string(),
                column: column.to_string(),
                jobs: vec![JobShape::new(rw, bs, 32, 1)],
                runtime_s: 30,
            });
        }
    }
    steps
}
