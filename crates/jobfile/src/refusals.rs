//! Why a real fio option cannot apply in diskmeter, when there is a specific reason: it
//! belongs to an engine diskmeter lacks, to zoned block devices, to a fio built with other
//! libraries, to fio releases newer than 3.33 (the one diskmeter follows), or it cannot apply
//! to jobs that run as threads of one process. The engine table is data
//! (`fio_engine_options.txt`, from `fio --enghelp=ENGINE`).

use thiserror::Error;

/// fio 3.33's engine options (see the file's header).
const ENGINE_OPTIONS: &str = include_str!("fio_engine_options.txt");

/// The engines diskmeter runs, as fio names them (the synchronous ones run as psync, posixaio
/// as io_uring).
pub const DISKMETER_ENGINES: &str =
    "io_uring, libaio, psync, sync, vsync, pvsync, pvsync2, posixaio, null";

/// Engines of fio 3.33 that need libraries or systems Debian's fio is built without, beyond
/// those in the engine table.
const LIBRARY_ENGINES: &[&str] = &[
    "libzbc",
    "ime_psync",
    "ime_psyncv",
    "ime_aio",
    "solarisaio",
    "guasi",
    "pmemblk",
    "dev-dax",
    "libpmem",
    "libhipfile",
];

/// Options of fio releases after 3.33 (or values, below), which fio 3.33 refuses too.
const NEWER_FIO_OPTIONS: &[&str] = &[
    "verify_write_sequence",
    "steadystate_check_interval",
    "random_sequence_stride",
    "num_range",
    "write_mode",
    "fdp",
    "fdp_pli",
    "fdp_pli_select",
    "dataplacement",
    "plids",
    "plid_select",
    "pi_act",
    "pi_chk",
    "apptag",
    "apptag_mask",
    "md_per_io_size",
    "sprandom",
    "spr_op",
    "spr_num_regions",
    "rocm_io",
    "thinkcycles",
    "log_issue_time",
];

/// Options fio 3.33 has retired (`FIO_OPT_DEPRECATED` in its options.c): its parser
/// refuses them ("failed parsing").
const RETIRED_REFUSED: &[&str] = &["percentage_sequential", "rwmixcycle"];

/// Options fio 3.33 has retired but still accepts (`FIO_OPT_SOFT_DEPRECATED`): it prints
/// "Option NAME is deprecated" and does nothing with them.
const RETIRED_IGNORED: &[&str] = &["verifysort", "verifysort_nr", "flow_watermark"];

/// Options of fio builds with libraries Debian's fio 3.33 lacks, and the library.
const LIBRARY_OPTIONS: &[(&str, &str)] = &[
    ("gpu_dev_id", "CUDA"),
    (
        "log_compression",
        "zlib (diskmeter writes its logs uncompressed)",
    ),
    (
        "log_compression_cpus",
        "zlib (diskmeter writes its logs uncompressed)",
    ),
    (
        "log_store_compressed",
        "zlib (diskmeter writes its logs uncompressed)",
    ),
];

/// The specific reason an option cannot apply.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    /// An option of engines diskmeter does not have.
    #[error(
        "an option of fio's {} engine{}, which diskmeter does not have{} (its engines: {})",
        engines.join("/"),
        if engines.len() > 1 { "s" } else { "" },
        if *needs_library { " (a fio built with other libraries)" } else { "" },
        DISKMETER_ENGINES
    )]
    EngineOption {
        /// The engines the option belongs to.
        engines: Vec<String>,
        /// Whether they all need libraries Debian's fio is built without.
        needs_library: bool,
    },

    /// An option of an engine diskmeter has, which it does not implement yet.
    #[error("an option of fio's {engine} engine that diskmeter's {engine} does not implement")]
    EngineOptionMissing {
        /// The engine.
        engine: String,
    },

    /// `ioengine=` an engine diskmeter does not have.
    #[error(
        "fio's {engine} engine{} is not one diskmeter has (its engines: {})",
        if *needs_library { " (a fio built with other libraries)" } else { "" },
        DISKMETER_ENGINES
    )]
    Engine {
        /// The engine as written.
        engine: String,
        /// Whether it needs libraries Debian's fio is built without.
        needs_library: bool,
    },

    /// An option of a fio build with another library.
    #[error("an option of fio builds with {library}")]
    Library {
        /// The library.
        library: &'static str,
    },

    /// An option (or value) of a fio release after 3.33.
    #[error(
        "an option of fio releases after 3.33 (fio 3.33, which diskmeter follows, refuses it too)"
    )]
    NewerFio,

    /// An option fio 3.33 has retired and refuses.
    #[error("fio has retired it (fio 3.33 refuses it too)")]
    Retired,

    /// An option fio 3.33 has retired and ignores with a note; diskmeter skips it likewise,
    /// whatever `--ignore-unsupported` says.
    #[error("fio has retired it and ignores it, and so does diskmeter")]
    RetiredIgnored,

    /// `uid` / `gid`: fio switches each job's process to that user.
    #[error(
        "diskmeter runs every job as a thread of one process, which cannot switch user per job; \
         run diskmeter as that user instead"
    )]
    PerJobUser,

    /// A general fio option diskmeter does not carry out, with why (see [`NOT_CARRIED_OUT`]).
    #[error("{reason}")]
    NotCarriedOut {
        /// Why, and what to do instead.
        reason: &'static str,
    },

    /// fio's built-in `profile`s generate their own jobs.
    #[error("fio's built-in profiles (tiobench, act) generate jobs of their own; write the jobs in the file")]
    Profile,
}

/// Each `ENGINE: OPTION ...` line of the table, with whether the engine needs a library.
fn engine_lines() -> impl Iterator<Item = (&'static str, bool, Vec<&'static str>)> {
    ENGINE_OPTIONS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|line| {
            let (engine, options) = line.split_once(':')?;
            let (engine, needs_library) = match engine.strip_suffix('*') {
                Some(engine) => (engine, true),
                None => (engine, false),
            };
            Some((
                engine.trim(),
                needs_library,
                options.split_whitespace().collect(),
            ))
        })
}

/// The engines diskmeter has, by fio's names (for the table, whose `sync` options are none).
fn diskmeter_has(engine: &str) -> bool {
    DISKMETER_ENGINES.split(", ").any(|e| e == engine)
}

/// Whether fio 3.33 has an engine of this name.
pub fn is_fio_engine(engine: &str) -> bool {
    engine_lines().any(|(e, _, _)| e == engine)
        || LIBRARY_ENGINES.contains(&engine)
        || [
            "sync",
            "psync",
            "vsync",
            "pvsync",
            "null",
            "posixaio",
            "mmap",
            "splice",
            "falloc",
            "ftruncate",
            "filecreate",
            "filestat",
            "filedelete",
            "e4defrag",
            "dircreate",
            "dirstat",
            "dirdelete",
        ]
        .contains(&engine)
}

/// The reason `ioengine=ENGINE` cannot apply, for an fio engine diskmeter does not have.
pub fn engine_refusal(engine: &str) -> Option<Refusal> {
    let engine = engine.split(':').next().unwrap_or(engine).trim();
    if diskmeter_has(engine) || !is_fio_engine(engine) {
        return None;
    }
    let needs_library = LIBRARY_ENGINES.contains(&engine)
        || engine_lines().any(|(e, library, _)| e == engine && library);
    Some(Refusal::Engine {
        engine: engine.to_string(),
        needs_library,
    })
}

/// The reason a value diskmeter refused for an option it has is one of fio's that cannot
/// apply (`ioengine=xnvme`, values of fio releases after 3.33).
pub fn value_refusal(name: &str, value: &str) -> Option<Refusal> {
    let value = value.trim();
    match name {
        "ioengine" => engine_refusal(value),
        "random_distribution" if value.starts_with("sequence") => Some(Refusal::NewerFio),
        "steadystate" | "ss" if value.starts_with("lat") => Some(Refusal::NewerFio),
        _ => None,
    }
}

/// General fio options diskmeter does not carry out, each with its reason.
const NOT_CARRIED_OUT: &[(&str, &str)] = &[
    (
        "atomic",
        "atomic writes (O_ATOMIC) are not issued by diskmeter's engines",
    ),
    (
        "block_error_percentiles",
        "diskmeter keeps no per-block map of trim errors to report percentiles from",
    ),
    (
        "cgroup",
        "fio moves each job into its own blkio cgroup; diskmeter's jobs are threads of one \
         process, so one job cannot be moved alone (--throttle-iops/--throttle-bw or --emulate \
         put the whole run under a cgroup limit)",
    ),
    (
        "cgroup_weight",
        "fio moves each job into its own blkio cgroup; diskmeter's jobs are threads of one \
         process, so one job cannot be weighted alone",
    ),
    (
        "cgroup_nodelete",
        "diskmeter makes no per-job cgroup for fio to keep (see cgroup)",
    ),
    (
        "ioscheduler",
        "switching the device's IO scheduler is a system-wide change diskmeter does not make; \
         write /sys/block/DEV/queue/scheduler before the run",
    ),
    (
        "log_alternate_epoch",
        "diskmeter's logs count time from the run's start or, with log_unix_epoch, the Unix \
         epoch; another clock's epoch is not offered",
    ),
    (
        "log_alternate_epoch_clock_id",
        "diskmeter's logs count time from the run's start or, with log_unix_epoch, the Unix \
         epoch; another clock's epoch is not offered",
    ),
    (
        "merge_blktrace_file",
        "diskmeter replays fio iologs (read_iolog), not merged blktrace files",
    ),
    (
        "merge_blktrace_iters",
        "diskmeter replays fio iologs (read_iolog), not merged blktrace files",
    ),
    (
        "merge_blktrace_scalars",
        "diskmeter replays fio iologs (read_iolog), not merged blktrace files",
    ),
    (
        "slat_percentiles",
        "fio-json's submission-latency percentile lists are not produced by diskmeter",
    ),
    (
        "write_barrier",
        "barrier writes are not issued by diskmeter's engines; fsync=N or fdatasync=N flush \
         every N writes",
    ),
    (
        "write_hint",
        "write lifetime hints (F_SET_RW_HINT) are not set by diskmeter",
    ),
];

/// The reason the fio option `name` cannot apply in diskmeter, when there is a specific one;
/// `None` leaves the generic "not supported". No reason depends on the value any more
/// (`zonemode=zbd` was the last); it stays in the signature for its callers.
pub fn refusal(name: &str, _value: Option<&str>) -> Option<Refusal> {
    if NEWER_FIO_OPTIONS.contains(&name) {
        return Some(Refusal::NewerFio);
    }
    if RETIRED_REFUSED.contains(&name) {
        return Some(Refusal::Retired);
    }
    if RETIRED_IGNORED.contains(&name) {
        return Some(Refusal::RetiredIgnored);
    }
    if let Some((_, library)) = LIBRARY_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Some(Refusal::Library { library });
    }
    match name {
        "uid" | "gid" => return Some(Refusal::PerJobUser),
        "profile" => return Some(Refusal::Profile),
        _ => {}
    }
    if let Some((_, reason)) = NOT_CARRIED_OUT.iter().find(|(n, _)| *n == name) {
        return Some(Refusal::NotCarriedOut { reason });
    }
    let owners: Vec<(&str, bool)> = engine_lines()
        .filter(|(_, _, options)| options.contains(&name))
        .map(|(engine, library, _)| (engine, library))
        .collect();
    if owners.is_empty() {
        return None;
    }
    if let Some((engine, _)) = owners.iter().find(|(engine, _)| diskmeter_has(engine)) {
        return Some(Refusal::EngineOptionMissing {
            engine: engine.to_string(),
        });
    }
    Some(Refusal::EngineOption {
        needs_library: owners.iter().all(|(_, library)| *library),
        engines: owners.iter().map(|(e, _)| e.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_options_not_carried_out_say_why() {
        for (name, _) in NOT_CARRIED_OUT {
            let text = refusal(name, None).unwrap().to_string();
            assert!(!text.contains("not supported"), "{name}: {text}");
        }
        assert!(refusal("ioscheduler", None)
            .unwrap()
            .to_string()
            .contains("/sys/block/DEV/queue/scheduler"));
    }

    #[test]
    fn engine_options_name_their_engines() {
        let text = refusal("hostname", None).unwrap().to_string();
        assert!(
            text.contains("net/netsplice/rdma/libhdfs engines"),
            "{text}"
        );
        let text = refusal("libblkio_driver", None).unwrap().to_string();
        assert!(
            text.contains("libblkio engine") && text.contains("other libraries"),
            "{text}"
        );
        assert_eq!(
            refusal("userspace_reap", None),
            Some(Refusal::EngineOptionMissing {
                engine: "libaio".into()
            })
        );
    }

    #[test]
    fn newer_library_and_per_process_options_say_why() {
        // zonemode=zbd runs on emulated zones: neither it nor its options are refused here.
        assert_eq!(refusal("zonemode", Some("zbd")), None);
        assert_eq!(value_refusal("zonemode", "zbd"), None);
        assert_eq!(refusal("max_open_zones", Some("4")), None);
        assert_eq!(refusal("num_range", Some("8")), Some(Refusal::NewerFio));
        assert_eq!(refusal("rwmixcycle", Some("5")), Some(Refusal::Retired));
        assert_eq!(
            refusal("verifysort", Some("1")),
            Some(Refusal::RetiredIgnored)
        );
        assert!(matches!(
            refusal("log_compression", None),
            Some(Refusal::Library { .. })
        ));
        assert_eq!(refusal("uid", Some("0")), Some(Refusal::PerJobUser));
        assert_eq!(refusal("bs", Some("4k")), None);
        assert_eq!(
            value_refusal("random_distribution", "sequence:2,0,1"),
            Some(Refusal::NewerFio)
        );
        assert_eq!(
            value_refusal("steadystate", "lat:5%"),
            Some(Refusal::NewerFio)
        );
        assert_eq!(value_refusal("steadystate", "iops:5%"), None);
    }

    #[test]
    fn engines_diskmeter_lacks_are_named_with_the_reason() {
        assert_eq!(engine_refusal("libaio"), None);
        assert_eq!(engine_refusal("nosuchengine"), None);
        let text = engine_refusal("xnvme").unwrap().to_string();
        assert!(
            text.contains("xnvme engine (a fio built with other libraries)"),
            "{text}"
        );
        let text = engine_refusal("sg").unwrap().to_string();
        assert!(
            text.starts_with("fio's sg engine is not one diskmeter has"),
            "{text}"
        );
    }
}
