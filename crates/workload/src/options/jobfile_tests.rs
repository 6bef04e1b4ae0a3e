//! Tests of the job-file rows (`rows_jobfile.rs`), the aliases fio accepts, the engines that
//! run as another, and the notes that say where diskmeter's reading differs from fio's.

use super::tests::{refused, with};
use crate::{fio_reading_notes, EngineKind, JobSpec};

#[test]
fn description_is_kept_and_printed_back() {
    let job = with(&[("description", Some("Emulation of Iometer's file server"))]);
    assert_eq!(
        job.description.as_deref(),
        Some("Emulation of Iometer's file server")
    );
    assert!(crate::describe(&job).contains(&(
        "description".to_string(),
        "Emulation of Iometer's file server".to_string()
    )));
}

#[test]
fn fios_aliases_are_accepted() {
    let job = with(&[
        ("ratemin", Some("1m")),
        ("ratecycle", Some("500")),
        ("nr_files", Some("4")),
        ("fileoffset", Some("1m")),
        ("disable_bw", Some("1")),
    ]);
    assert_eq!(job.rate_min_bytes_per_sec.read, Some(1 << 20));
    assert_eq!(job.rate_cycle_ns, 500_000_000);
    assert_eq!((job.nrfiles, job.offset_bytes), (4, 1 << 20));
    assert_eq!(job.compat.disable[3], Some(true));
}

#[test]
fn random_generator_is_accepted_and_noted() {
    assert_eq!(
        with(&[("random_generator", Some("tausworthe"))]),
        JobSpec::default()
    );
    let job = with(&[("random_generator", Some("lfsr"))]);
    let notes = fio_reading_notes(&job);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("random_generator=lfsr: offsets come from diskmeter's generator"));
    assert!(refused("random_generator", Some("mt19937")).contains("use one of tausworthe"));
}

#[test]
fn reporting_and_clock_options_are_accepted_and_noted_where_they_differ() {
    let job = with(&[
        ("gtod_reduce", None),
        ("disable_slat", Some("1")),
        ("clocksource", Some("cpu")),
        ("stats", Some("0")),
        ("unified_rw_reporting", Some("mixed")),
        ("unit_base", Some("8")),
        ("significant_figures", Some("6")),
        ("bwavgtime", Some("1000")),
        ("iopsavgtime", Some("1000")),
        ("disk_util", Some("0")),
        ("unique_filename", Some("0")),
        ("gtod_cpu", Some("1")),
    ]);
    let notes = fio_reading_notes(&job).join("\n");
    for expected in [
        "gtod_reduce, disable_slat: fio would not measure",
        "clocksource=cpu",
        "stats=0",
        "unified_rw_reporting=mixed",
        "unit_base=8",
        "gtod_cpu",
    ] {
        assert!(notes.contains(expected), "{expected}: {notes}");
    }
    assert!(refused("significant_figures", Some("11")).contains("10"));
    // fio's defaults written out change nothing and note nothing.
    let defaults = with(&[
        ("gtod_reduce", Some("0")),
        ("stats", Some("1")),
        ("unified_rw_reporting", Some("none")),
        ("bwavgtime", Some("500")),
    ]);
    assert_eq!(defaults, JobSpec::default());
    assert!(fio_reading_notes(&defaults).is_empty());
}

#[test]
fn threads_is_read_and_ignored_as_fio_does() {
    let job = with(&[("threads", Some("1"))]);
    assert_eq!(job.numjobs, 1);
    assert!(fio_reading_notes(&job)[0].contains("threads=1 has no effect"));
}

#[test]
fn engines_that_run_as_another_say_so() {
    let job = with(&[("ioengine", Some("posixaio"))]);
    assert_eq!(job.ioengine, EngineKind::IoUring);
    assert!(fio_reading_notes(&job)[0].contains("ioengine=posixaio runs as io_uring"));
    let job = with(&[("ioengine", Some("vsync"))]);
    assert_eq!(job.ioengine, EngineKind::Psync);
    assert!(fio_reading_notes(&job)[0].contains("ioengine=vsync runs as psync"));
    // psync's other names were always psync: nothing to say.
    assert!(fio_reading_notes(&with(&[("ioengine", Some("sync"))])).is_empty());
    // A later ioengine replaces the earlier one's note.
    let job = with(&[("ioengine", Some("posixaio")), ("ioengine", Some("libaio"))]);
    assert!(fio_reading_notes(&job).is_empty());
}

#[test]
fn job_files_start_from_fios_defaults() {
    let fio = JobSpec::fio_job_file_default();
    assert_eq!(fio.ioengine, EngineKind::Psync);
    assert!(!fio.unlink);
    assert_eq!(
        JobSpec {
            ioengine: EngineKind::IoUring,
            unlink: true,
            ..fio
        },
        JobSpec::default()
    );
}
