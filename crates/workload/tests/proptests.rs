//! Property tests: option parsing never panics whatever the input, a refused option leaves
//! the job unchanged, validation never panics, and `describe` reads back to the same job.

use diskmeter_workload::*;
use proptest::collection::{btree_set, vec};
use proptest::option;
use proptest::prelude::*;
use std::path::PathBuf;

/// Option names: mostly real ones (so values reach the parsers), sometimes anything.
fn option_name() -> impl Strategy<Value = String> {
    let known: Vec<String> = all_options()
        .flat_map(|def| std::iter::once(def.name).chain(def.aliases.iter().copied()))
        .map(str::to_string)
        .collect();
    prop_oneof![4 => proptest::sample::select(known), 1 => ".{0,12}"]
}

/// Values: unit-shaped text most of the time, arbitrary text otherwise, sometimes none.
fn option_value() -> impl Strategy<Value = Option<String>> {
    option::of(prop_oneof![
        3 => "[-0-9xXa-fA-F.,:%]{0,8}[kKmMgGtTpPiIbBsSuUnNdDhH%]{0,3}[,:0-9a-z]{0,6}",
        1 => ".{0,16}",
    ])
}

fn per_direction<T: std::fmt::Debug + Clone + 'static>(
    inner: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = PerDirection<T>> {
    (inner.clone(), inner).prop_map(|(read, write)| PerDirection { read, write })
}

fn path() -> impl Strategy<Value = PathBuf> {
    "[a-zA-Z0-9/._:-]{1,12}".prop_map(PathBuf::from)
}

/// A block-size spread the options print and read back unchanged (shares already whole and
/// adding up to 100).
fn spread() -> impl Strategy<Value = BlockSizeSpread> {
    prop_oneof![
        Just(BlockSizeSpread::Fixed),
        (1u64..1 << 20, 1u64..1 << 20)
            .prop_filter("two sizes", |(a, b)| a != b)
            .prop_map(|(a, b)| BlockSizeSpread::Range {
                min_bytes: a.min(b),
                max_bytes: a.max(b),
            }),
        vec((1u64..1 << 20, 1u32..50), 1..5).prop_map(|entries| {
            let mut left = 100.0;
            let mut shares: Vec<BlockSizeShare> = entries
                .iter()
                .map(|&(bytes, percent)| {
                    let percent = f64::from(percent).min(left);
                    left -= percent;
                    BlockSizeShare { bytes, percent }
                })
                .collect();
            if let Some(last) = shares.last_mut() {
                last.percent += left;
            }
            BlockSizeSpread::Split(shares)
        }),
    ]
}

fn distribution() -> impl Strategy<Value = RandomDistribution> {
    let center = option::of((0u32..=100).prop_map(|c| f64::from(c) / 100.0));
    prop_oneof![
        Just(RandomDistribution::Uniform),
        (
            (1u32..400).prop_filter("1.0 is refused", |t| *t != 100),
            center.clone()
        )
            .prop_map(|(t, center)| RandomDistribution::Zipf {
                theta: f64::from(t) / 100.0,
                center,
            }),
        (1u32..100, center.clone()).prop_map(|(h, center)| RandomDistribution::Pareto {
            h: f64::from(h) / 100.0,
            center,
        }),
        (0u32..=100, 0u32..=100).prop_map(|(d, c)| RandomDistribution::Normal {
            deviation_percent: f64::from(d),
            center: f64::from(c) / 100.0,
        }),
    ]
}

/// Steady-state settings the options print and read back unchanged (byte-rate limits whole,
/// `iops_bw` with a percentage only).
fn steady_state() -> impl Strategy<Value = SteadyState> {
    let criterion = proptest::sample::select(diskmeter_workload::steady::STEADY_CRITERIA.to_vec());
    (
        criterion,
        any::<bool>(),
        0.0f64..1e9,
        0u64..1 << 50,
        any::<u64>(),
        any::<u64>(),
        // steadystate_sample's row: at least 100ms.
        100_000_000u64..,
        option::of(0.01f64..=100.0),
    )
        .prop_map(
            |(
                criterion,
                percent,
                value,
                bytes,
                duration_ns,
                ramp_ns,
                sample_ns,
                precision_percent,
            )| SteadyState {
                criterion,
                limit: if percent || criterion == SteadyCriterion::IopsBw {
                    SteadyLimit::Percent(value)
                } else if criterion.judges_bw() {
                    SteadyLimit::Absolute(bytes as f64)
                } else {
                    SteadyLimit::Absolute(value)
                },
                duration_ns,
                ramp_ns,
                sample_ns,
                precision_percent,
            },
        )
}

/// Jobs whose every field is something the options can express (within the ranges of their
/// table rows), the pattern options too.
fn expressible_job() -> impl Strategy<Value = JobSpec> {
    let extra = (
        (spread(), spread()).prop_map(|(read, write)| PerDirection { read, write }),
        0u64..64,
        distribution(),
        (0u32..64, 0u32..64),
        per_direction(option::of(1u64..)),
        1u64..10_000,
        option::of((1u64..1 << 40, 1u64..1 << 40)),
        any::<[bool; 5]>(),
        option::of(0u8..=100),
        0u64..1 << 20,
        per_direction(option::of(1u64..1 << 30)),
    );
    (basic_job(), extra, steady_state()).prop_map(
        |(
            mut job,
            (
                spread,
                modifier,
                random_distribution,
                (fsync_every, fdatasync_every),
                rate_min,
                rate_cycle_ms,
                filesize,
                switches,
                compress,
                chunk,
                blockalign,
            ),
            steadystate,
        )| {
            let mut spread = spread;
            if matches!(spread.read, BlockSizeSpread::Split(_))
                && matches!(spread.write, BlockSizeSpread::Range { .. })
            {
                // The one mix describe cannot print back (see show_spreads).
                spread.write = BlockSizeSpread::Fixed;
            }
            for direction in Direction::BOTH {
                let mut spread = spread.get_ref(direction).clone();
                let (min, max) = spread.bounds(0);
                if min == max && min > 0 {
                    spread = BlockSizeSpread::Fixed;
                }
                if spread != BlockSizeSpread::Fixed {
                    *job.bs_bytes.get_mut(direction) = spread.bounds(0).0;
                }
                *job.bs_spread.get_mut(direction) = spread;
            }
            job.rw_offset_modifier = modifier as i64;
            job.random_distribution = random_distribution;
            job.fsync_every = fsync_every;
            job.fdatasync_every = fdatasync_every;
            job.rate_min_bytes_per_sec = rate_min;
            job.rate_cycle_ns = rate_cycle_ms * 1_000_000;
            job.filesize_bytes = filesize.map(|(a, b)| (a.min(b), a.max(b)));
            job.end_fsync = switches[0];
            job.create_on_open = switches[1];
            job.fill_device = switches[2];
            job.allow_mounted_write = switches[3];
            job.blocksize_unaligned = switches[4];
            job.buffer_compress_percentage = compress;
            job.buffer_compress_chunk_bytes = chunk;
            job.blockalign_bytes = blockalign;
            job.steadystate = steadystate;
            job
        },
    )
}

/// The basic fields (those of the first option table).
fn basic_job() -> impl Strategy<Value = JobSpec> {
    let identity = (
        "[a-z0-9-]{1,12}".prop_filter("global is a section", |name| name != "global"),
        vec(path(), 0..3),
        option::of(path()),
        // nrfiles within its row's limits.
        1u32..=1_000_000,
        prop_oneof![Just(KbBase::Binary), Just(KbBase::Decimal)],
    );
    let region = (
        option::of(any::<u64>()),
        option::of(any::<u64>()),
        any::<u64>(),
        per_direction(any::<u64>()),
    );
    let pattern = (
        prop_oneof![
            Just(RwMode::Read),
            Just(RwMode::Write),
            Just(RwMode::ReadWrite),
            Just(RwMode::RandRead),
            Just(RwMode::RandWrite),
            Just(RwMode::RandRw),
        ],
        0u8..=100,
        // iodepth, numjobs and the other counts within their rows' limits.
        1u32..=65_536,
        any::<u32>(),
        any::<u32>(),
        1u32..=4096,
        0u8..=100,
    );
    let timing = (
        option::of(1u64..),
        any::<bool>(),
        any::<u64>(),
        1u32..,
        per_direction(option::of(1u64..)),
        per_direction(option::of(1u64..)),
    );
    let flags = (
        any::<bool>(),
        prop_oneof![
            Just(EngineKind::IoUring),
            Just(EngineKind::Libaio),
            Just(EngineKind::Psync),
            Just(EngineKind::Null),
        ],
        any::<[bool; 10]>(),
        any::<u64>(),
        option::of(btree_set(0usize..=diskmeter_units::MAX_CPU, 1..8)),
        vec(0.0f64..=100.0, 1..=20),
    );
    let logs = (
        option::of("[a-zA-Z0-9/._-]{0,10}"),
        option::of("[a-zA-Z0-9/._-]{0,10}"),
        option::of("[a-zA-Z0-9/._-]{0,10}"),
        any::<u32>(),
        any::<[bool; 2]>(),
    );
    (identity, region, pattern, timing, flags, logs).prop_map(
        |(
            (name, filenames, directory, nrfiles, kb_base),
            (size_bytes, io_size_bytes, offset_bytes, bs_bytes),
            (
                rw,
                rwmixread,
                iodepth,
                iodepth_batch_submit,
                iodepth_batch_complete_min,
                numjobs,
                percentage_random,
            ),
            (runtime_ns, time_based, ramp_time_ns, loops, rate_iops, rate_bytes_per_sec),
            (direct, ioengine, switches, randseed, cpus, percentile_list),
            (write_bw_log, write_iops_log, write_lat_log, log_avg_msec, log_switches),
        )| JobSpec {
            name,
            filenames,
            directory,
            nrfiles,
            size_bytes,
            io_size_bytes,
            offset_bytes,
            rw,
            rwmixread,
            bs_bytes,
            iodepth,
            iodepth_batch_submit,
            iodepth_batch_complete_min,
            numjobs,
            runtime_ns,
            time_based,
            ramp_time_ns,
            loops,
            direct,
            ioengine,
            rate_iops,
            rate_bytes_per_sec,
            group_reporting: switches[0],
            stonewall: switches[6],
            startdelay_ns: 0,
            randrepeat: true,
            invalidate: switches[8],
            sync: diskmeter_workload::SyncMode::None,
            rate_poisson: switches[9],
            offset_increment_bytes: randseed % 3 * 4096,
            size_percent: None,
            offset_percent: None,
            clat_percentiles: !switches[2],
            lat_percentiles: switches[3],
            new_group: switches[7],
            randseed,
            norandommap: switches[1],
            percentage_random,
            unlink: switches[2],
            fixedbufs: switches[3],
            registerfiles: switches[4],
            cpus_allowed: cpus.map(|set| set.into_iter().collect()),
            zero_buffers: switches[5],
            percentile_list,
            kb_base,
            write_bw_log,
            write_iops_log,
            write_lat_log,
            log_avg_msec,
            log_offset: log_switches[0],
            per_job_logs: log_switches[1],
            ..JobSpec::default()
        },
    )
}

proptest! {
    #[test]
    fn jobs_from_options_never_panics(options in vec((option_name(), option_value()), 0..24)) {
        match jobs_from_options(&options) {
            Ok(jobs) => {
                prop_assert_eq!(jobs.is_empty(), options.is_empty());
                for job in &jobs {
                    let _ = validate(job);
                    let _ = describe(job);
                }
            }
            Err(errors) => prop_assert!(!errors.is_empty()),
        }
    }

    #[test]
    fn a_refused_option_changes_nothing(name in option_name(), value in option_value()) {
        let mut spec = JobSpec::newcomer_default();
        let before = spec.clone();
        if let Err(error) = apply_option(&mut spec, &name, value.as_deref()) {
            prop_assert_eq!(&spec, &before);
            prop_assert!(!error.to_string().is_empty());
        }
    }

    /// describe writes diskmeter's exact forms (`1500ns`, which fio would read as 1500 us),
    /// so they are read back with diskmeter's strict reading.
    #[test]
    fn describe_reads_back_to_the_same_job(spec in expressible_job()) {
        let mut job = JobSpec::default();
        for (name, value) in describe(&spec) {
            if name == "name" {
                job.name = value;
            } else {
                let applied = apply_option_exact(&mut job, &name, Some(&value));
                prop_assert!(applied.is_ok(), "{name}={value}: {applied:?}");
            }
        }
        prop_assert_eq!(job, spec);
    }

    #[test]
    fn validate_never_panics(spec in expressible_job(), rwmix in any::<u8>(), nan in any::<bool>()) {
        let mut spec = spec;
        spec.rwmixread = rwmix;
        if nan {
            spec.percentile_list.push(f64::NAN);
        }
        for error in validate(&spec) {
            let prefix = format!("job '{}': ", spec.name);
            prop_assert!(error.to_string().starts_with(&prefix));
        }
    }
}
