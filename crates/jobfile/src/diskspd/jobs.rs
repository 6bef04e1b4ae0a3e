//! The jobs of a DiskSpd time span: one job per target (`-t`), or one job over every target
//! when each thread runs on all of them (`-F`) and the targets share their parameters; each
//! option built from the target's parameters and the time span's settings.

use super::error::DiskSpdProblem;
use super::model::{Access, Distribution, Throughput, TimeSpan, WriteBuffers};
use diskmeter_workload::{apply_option_exact, JobSpec, RandomDistribution, ZonesPastEnd};

/// An absolute zone that runs to the target's end (DiskSpd's "rest of the target"): larger
/// than any device, and cut at the region's end by the sampler (DiskSpd's rule for ranges
/// past the end: `ZonesPastEnd::Reweighted`).
const REST_OF_TARGET_BYTES: u64 = 1 << 60;

/// The jobs of `span`, named `diskspd-<first>`, `diskspd-<first + 1>` ...; an error names the
/// job option at fault (the caller maps it to the switch or element that gave it).
pub(crate) fn jobs_of(
    span: &TimeSpan,
    first: usize,
) -> Result<Vec<JobSpec>, (&'static str, DiskSpdProblem)> {
    let fixed = span.thread_count > 0;
    let shared = fixed
        && span
            .targets
            .windows(2)
            .all(|pair| pair[0].same_workload(&pair[1]));
    // Indexes of the targets each job runs.
    let groups: Vec<Vec<usize>> = if shared {
        vec![(0..span.targets.len()).collect()]
    } else {
        (0..span.targets.len()).map(|i| vec![i]).collect()
    };
    let mut jobs = Vec::new();
    for (index, group) in groups.iter().enumerate() {
        let t = &span.targets[group[0]];
        let count = group.len() as u64;
        let random = !matches!(t.access, Access::Sequential);
        let rw = crate::rw_for(random, 100 - t.write_percent.min(100));
        // fio's rw=read:N adds N bytes after each sequential IO: -s<stride>'s gap, negative for
        // a stride shorter than the block (IOs that overlap, as DiskSpd allows).
        let rw = match t.sequential_stride_bytes {
            Some(stride) if stride != t.block_size_bytes => format!(
                "{rw}:{}",
                i128::from(stride) - i128::from(t.block_size_bytes)
            ),
            _ => rw.to_string(),
        };
        let depth = match span.requests_per_thread {
            // -O: in flight per thread across its targets; a job per target when the
            // targets differ takes its share.
            Some(n) if shared || !fixed => u64::from(n),
            Some(n) => (u64::from(n) / span.targets.len() as u64).max(1),
            None => u64::from(t.outstanding) * count,
        };
        let threads = if fixed {
            span.thread_count
        } else {
            t.threads_per_file
        };
        let sync = if t.sync_writes {
            "sync"
        } else if t.write_through {
            "dsync"
        } else {
            "none"
        };
        let mut options: Vec<(&'static str, String)> = vec![
            ("name", format!("diskspd-{}", first + index)),
            (
                "filename",
                group
                    .iter()
                    .map(|&i| span.targets[i].path.replace(':', "\\:"))
                    .collect::<Vec<_>>()
                    .join(":"),
            ),
            ("rw", rw),
            ("bs", t.block_size_bytes.to_string()),
            ("iodepth", depth.to_string()),
            ("numjobs", threads.to_string()),
            ("runtime", format!("{}s", span.duration_s)),
            ("ramp_time", format!("{}s", span.warmup_s)),
            ("direct", u8::from(t.software_cache_disabled).to_string()),
            ("sync", sync.to_string()),
            ("ioengine", "io_uring".to_string()),
        ];
        if !matches!(t.write_percent, 0 | 100) {
            options.push(("rwmixwrite", t.write_percent.to_string()));
        }
        if let Access::Mixed(pct) = t.access {
            options.push(("percentage_random", pct.to_string()));
        }
        // -f and -c are where the region ends (DiskSpd: the smaller of the two, or of -f and
        // the target's size), fio's size a length from `offset`, split over a job's files.
        let region_end = match (t.max_size_bytes, t.create_size_bytes) {
            (Some(max), Some(create)) => Some(max.min(create)),
            (max, create) => max.or(create),
        };
        if let Some(end) = region_end {
            let size = end.saturating_sub(t.base_offset_bytes);
            let total = size.checked_mul(count).ok_or((
                "size",
                DiskSpdProblem::TooLarge {
                    text: size.to_string(),
                    max: u64::MAX / count,
                },
            ))?;
            options.push(("size", total.to_string()));
        }
        if t.base_offset_bytes > 0 {
            options.push(("offset", t.base_offset_bytes.to_string()));
        }
        if let Some(throughput) = t.throughput {
            // Per thread per target: the IOs of every target count, so the cap scales by
            // targets for -F; -g without `i` is bytes per millisecond.
            let (option, n, scale) = match throughput {
                Throughput::Iops(n) => ("rate_iops", n, count),
                Throughput::BytesPerMs(n) => ("rate", n, 1000 * count),
            };
            let rate = n.checked_mul(scale).ok_or_else(|| {
                (
                    option,
                    DiskSpdProblem::TooLarge {
                        text: n.to_string(),
                        max: u64::MAX / scale,
                    },
                )
            })?;
            options.push((option, rate.to_string()));
        }
        if t.write_buffers == WriteBuffers::Zero {
            options.push(("zero_buffers", "1".to_string()));
        }
        if let Some(seed) = span.random_seed {
            options.push(("randseed", seed.to_string()));
        }
        if let Some(align) = t.random_align_bytes.filter(|_| random) {
            options.push(("blockalign", align.to_string()));
        }
        if let Some(distribution) = t.distribution.as_ref().filter(|_| random) {
            options.push(("random_distribution", zoned(distribution)));
        }
        if t.thread_stride_bytes > 0 {
            options.push(("offset_increment", t.thread_stride_bytes.to_string()));
        }
        if let (Some(burst), Some(think_ms)) = (t.burst_size, t.think_time_ms) {
            options.push(("thinktime", format!("{think_ms}ms")));
            options.push(("thinktime_blocks", burst.to_string()));
        }
        match t.io_priority {
            // Very low: the idle class, served when the device has nothing else to do.
            1 => options.push(("prioclass", "3".to_string())),
            // Low: best effort at its lowest level.
            2 => {
                options.push(("prioclass", "2".to_string()));
                options.push(("prio", "7".to_string()));
            }
            _ => {}
        }
        if t.random_access_hint {
            options.push(("fadvise_hint", "random".to_string()));
        } else if t.sequential_scan_hint {
            options.push(("fadvise_hint", "sequential".to_string()));
        }
        if !span.affinity_cpus.is_empty() {
            let cpus: Vec<String> = span.affinity_cpus.iter().map(u32::to_string).collect();
            options.push(("cpus_allowed", cpus.join(",")));
            // DiskSpd assigns threads to the CPUs round-robin, one CPU each.
            options.push(("cpus_allowed_policy", "split".to_string()));
        }
        options.push(("time_based", "1".to_string()));
        let mut job = JobSpec::default();
        for (name, value) in options {
            apply_option_exact(&mut job, name, Some(&value)).map_err(|e| (name, e.into()))?;
        }
        job.cooldown_ns = span.cooldown_s.saturating_mul(1_000_000_000);
        job.shared_sequential = t.interlocked;
        // -f without -c: at most that much of a target that is there (-c makes it that size).
        job.size_capped_by_target = t.max_size_bytes.is_some() && t.create_size_bytes.is_none();
        if let RandomDistribution::ZonedAbs { past_end, .. } = &mut job.random_distribution {
            *past_end = ZonesPastEnd::Reweighted;
        }
        // -D<ms>: the series is sampled at DiskSpd's interval (its IopsStdDev buckets).
        if let Some(ms) = span.iops_interval_ms {
            job.series_interval_ms = u32::try_from(ms).unwrap_or(u32::MAX);
        }
        jobs.push(job);
    }
    Ok(jobs)
}

/// fio's `zoned:` / `zoned_abs:` form of a complete DiskSpd distribution.
fn zoned(distribution: &Distribution) -> String {
    let zones: Vec<String> = distribution
        .ranges
        .iter()
        .map(|&(io, span)| match (distribution.absolute, span) {
            (true, 0) => format!("{io}/{REST_OF_TARGET_BYTES}"),
            _ => format!("{io}/{span}"),
        })
        .collect();
    let kind = if distribution.absolute {
        "zoned_abs"
    } else {
        "zoned"
    };
    format!("{kind}:{}", zones.join(":"))
}
