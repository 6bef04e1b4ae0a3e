//! The plan's targets: one entry per file and region, found again when another job or file
//! names the same one.

use super::*;
use crate::test_jobs::job;

fn in_folder(dir: &std::path::Path) -> PlanOptions {
    PlanOptions {
        default_directory: Some(dir.to_path_buf()),
        ..PlanOptions::default()
    }
}

#[test]
fn thousands_of_files_in_many_jobs_are_planned_each_once_without_searching_the_list() {
    // fio's filecreate example is 16 jobs of 31,250 files: looking each file up in the whole
    // list of targets took hours (found by fuzzing). The same shape, smaller.
    let dir = tempfile::tempdir().unwrap();
    let jobs: Vec<JobSpec> = (0..8)
        .map(|j| {
            job(&[
                ("name", &format!("t{j}")),
                ("nrfiles", "2500"),
                ("filesize", "4k"),
                ("ioengine", "psync"),
            ])
        })
        .collect();
    let plan = resolve(&jobs, &in_folder(dir.path())).unwrap();
    assert_eq!(plan.targets.len(), 20_000);
    assert_eq!(plan.workers.len(), 8);
    assert!(plan.workers.iter().all(|w| w.targets.len() == 2500));
}

#[test]
fn a_run_of_more_workers_or_files_than_a_run_may_have_is_refused_before_planning() {
    // Each job is within its rows' limits; the run as a whole is not. Refused before a
    // worker or a file is planned, naming the job that crosses the line.
    let dir = tempfile::tempdir().unwrap();
    let clones = |name: &str, numjobs: &str, nrfiles: &str| {
        job(&[
            ("name", name),
            ("numjobs", numjobs),
            ("nrfiles", nrfiles),
            ("filesize", "4k"),
            ("ioengine", "null"),
        ])
    };
    let workers = resolve(
        &[clones("a", "4096", "1"), clones("b", "1", "1")],
        &in_folder(dir.path()),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        workers,
        "job b: the run's jobs make 4097 workers (numjobs) up to this one; a run has at most \
         4096, as fio runs at most 4,096 jobs in all"
    );
    let files = resolve(&[clones("c", "4096", "1000000")], &in_folder(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(
        files.starts_with("job c: the run's jobs name 4096000000 files (numjobs x nrfiles)"),
        "{files}"
    );
}

#[test]
fn jobs_naming_the_same_file_share_its_entry_or_add_their_region() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared.dat").display().to_string();
    let same = |name: &str, offset: &str| {
        job(&[
            ("name", name),
            ("filename", &file),
            ("size", "1m"),
            ("offset", offset),
            ("ioengine", "psync"),
        ])
    };
    let plan = resolve(&[same("a", "0"), same("b", "0")], &in_folder(dir.path())).unwrap();
    assert_eq!(plan.targets.len(), 1);
    assert_eq!(plan.workers[0].targets, plan.workers[1].targets);
    let plan = resolve(&[same("a", "0"), same("b", "1m")], &in_folder(dir.path())).unwrap();
    assert_eq!(plan.targets.len(), 2, "another region of the same file");
    assert_eq!(
        plan.targets[0].file_size_bytes,
        2 << 20,
        "laid out to the furthest end"
    );
}

#[test]
fn an_offset_and_size_that_end_past_2_64_bytes_are_refused_not_an_overflow() {
    // DiskSpd's -f18446744073709551615 -t4 -T4K: the fourth thread's region started 12 KiB
    // in and ran 2^64 - 1 bytes on (found by fuzzing; a panic in a debug build, a wrapped
    // file size in release).
    let dir = tempfile::tempdir().unwrap();
    for engine in ["psync", "null"] {
        let far = job(&[
            ("name", "far"),
            ("size", "18446744073709551615"),
            ("offset", "4k"),
            ("ioengine", engine),
        ]);
        let error = resolve(&[far], &in_folder(dir.path())).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("ends past the largest file or device"),
            "{engine}: {error}"
        );
    }
}

/// The bytes one null-engine job plans to do, from its options.
fn planned_io_bytes(options: &[(&str, &str)]) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec![("name", "j"), ("ioengine", "null")];
    all.extend_from_slice(options);
    let plan = resolve(&[job(&all)], &in_folder(dir.path())).unwrap();
    plan.workers[0].io_limit_bytes.unwrap()
}

#[test]
fn issue_28_a_size_that_is_not_whole_blocks_does_the_whole_blocks_inside_it_as_fio() {
    // fio 3.33 on the null engine (filesetup.c setup_files, backend.c do_io): 244 blocks of
    // 4 KiB in 1,000,000 bytes, each pass of `loops`, each file of `nrfiles` on its own.
    let cases: &[(&[(&str, &str)], u64)] = &[
        (
            &[("size", "1000000"), ("bs", "4k"), ("rw", "write")],
            999_424,
        ),
        (
            &[("size", "1000000"), ("bs", "4k"), ("rw", "randwrite")],
            999_424,
        ),
        (
            &[("size", "1000000"), ("bs", "4k"), ("offset", "1000")],
            999_424,
        ),
        (
            &[("size", "1000000"), ("bs", "4k"), ("loops", "3")],
            3 * 999_424,
        ),
        // 4 MiB in 3 files of 1,398,101 bytes: 85 blocks of 16 KiB each.
        (
            &[
                ("size", "4m"),
                ("bs", "16k"),
                ("nrfiles", "3"),
                ("rw", "randwrite"),
            ],
            3 * 85 * 16_384,
        ),
        // The smallest size of a range is the block.
        (
            &[("size", "1000000"), ("bsrange", "4k-16k"), ("rw", "write")],
            999_424,
        ),
        // io_size is a byte count, not a region: fio does it as given.
        (
            &[("size", "10m"), ("io_size", "1000000"), ("bs", "4k")],
            1_000_000,
        ),
        // Random writes without a random map are not bounded by the blocks.
        (
            &[
                ("size", "1000000"),
                ("bs", "4k"),
                ("rw", "randwrite"),
                ("norandommap", "1"),
            ],
            1_000_000,
        ),
        // With filesize, size says how much IO, but no more than the files hold.
        (&[("size", "4m"), ("filesize", "2m"), ("bs", "4k")], 2 << 20),
    ];
    for (options, bytes) in cases {
        assert_eq!(planned_io_bytes(options), *bytes, "{options:?}");
    }
}

#[test]
fn issue_28_a_clone_whose_files_are_all_taken_does_no_io_as_fio() {
    // fio 3.33 (filesetup.c add_file): numjobs=2 with filename_format=shared.$filenum, the
    // first clone writes shared.0 and the second does no IO; with $jobnum each has its own.
    let dir = tempfile::tempdir().unwrap();
    let clones = |name: &str, format: &str| {
        job(&[
            ("name", name),
            ("ioengine", "null"),
            ("size", "64k"),
            ("numjobs", "2"),
            ("filename_format", format),
        ])
    };
    let plan = resolve(
        &[clones("a", "shared.$filenum"), clones("b", "own.$jobnum")],
        &in_folder(dir.path()),
    )
    .unwrap();
    let limits: Vec<Option<u64>> = plan.workers.iter().map(|w| w.io_limit_bytes).collect();
    assert_eq!(limits, [Some(65_536), Some(0), Some(65_536), Some(65_536)]);
    assert!(
        plan.notes
            .iter()
            .any(|n| n.starts_with("job a clone 1: every file it names")),
        "{:?}",
        plan.notes
    );
}
