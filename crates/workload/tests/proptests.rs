//! Property tests: option parsing never panics whatever the input, a refused option leaves
//! the job unchanged, validation never panics, and `describe` reads back to the same job.

use diskmeter_workload::*;
use proptest::collection::{btree_set, vec};
use proptest::option;
use proptest::prelude::*;
use std::path::PathBuf;

/// Option names: mostly real ones (so values reach the parsers), sometimes anything.
fn option_name() -> impl Strategy<Value = String> {
    let known: Vec<String> = OPTIONS
        .iter()
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

/// Jobs whose every field is something the options can express.
fn expressible_job() -> impl Strategy<Value = JobSpec> {
    let identity = (
        "[a-z0-9-]{1,12}".prop_filter("global is a section", |name| name != "global"),
        vec(path(), 0..3),
        option::of(path()),
        any::<u32>(),
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
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        0u8..=100,
    );
    let timing = (
        option::of(1u64..),
        any::<bool>(),
        any::<u64>(),
        any::<u32>(),
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

    #[test]
    fn describe_reads_back_to_the_same_job(spec in expressible_job()) {
        let options: Vec<(String, Option<String>)> = describe(&spec)
            .into_iter()
            .map(|(name, value)| (name, Some(value)))
            .collect();
        let jobs = jobs_from_options(&options);
        prop_assert_eq!(jobs, Ok(vec![spec]));
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
