//! fio's file and buffer options through the real binary, each checked against what fio 3.33
//! does with the same job where fio can show it: the names `filename_format` gives, the order
//! `file_service_type` and `openfiles` serve files in (both write an iolog), the bytes
//! `buffer_pattern` writes, the share of duplicate blocks `dedupe_percentage` gives, and how
//! `fallocate`/`overwrite` lay a file out. The rest (`allow_file_create`, `file_append`,
//! `lockfile`, `opendir`, `create_only`) are checked on their own.

use crate::common;

use common::{fio_command, real_io, TestDir};
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Writes `text` as `job.fio` in `dir` and runs it with fio there; `false` when fio is missing.
fn run_fio(test: &str, dir: &Path, text: &str) -> bool {
    std::fs::write(dir.join("job.fio"), text).unwrap();
    let Some(mut fio) = fio_command(test, dir) else {
        return false;
    };
    common::fio_json(fio.arg("job.fio"));
    true
}

/// Writes `text` as `job.fio` in `dir` and runs it with diskmeter there; asserts success.
fn run_diskmeter(dir: &TestDir, text: &str) {
    std::fs::write(dir.path().join("job.fio"), text).unwrap();
    let out = dir.run(&["job.fio"]).output().unwrap();
    assert!(
        out.status.success(),
        "diskmeter failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The (file name, offset) of every write of an iolog, fio's v3 format, in order.
fn writes_in_iolog(path: &Path) -> Vec<(String, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, name, "write", offset, _] => Some((
                    name.rsplit('/').next().unwrap().to_string(),
                    offset.parse().unwrap(),
                )),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn filename_format_names_files_as_fio_does() {
    let _io = real_io();
    let job =
        "[global]\nioengine=psync\nsize=8k\nbs=4k\nrw=write\nnrfiles=2\nnumjobs=2\nunlink=0\n\
               [alpha]\nfilename_format=f.$jobname.$jobnum.$filenum\n\
               [beta]\nfilename_format=g-$clientuid-$jobnum\n\
               [gamma]\n\
               [delta]\nfilename_format=shared.$filenum\n";
    let (ours, fios) = (TestDir::new(), TestDir::new());
    run_diskmeter(&ours, job);
    let expected: Vec<String> = [
        "f.alpha.0.0",
        "f.alpha.0.1",
        "f.alpha.1.0",
        "f.alpha.1.1",
        "g--0",
        "g--1",
        "gamma.0.0",
        "gamma.0.1",
        "gamma.1.0",
        "gamma.1.1",
        "job.fio",
        "shared.0",
        "shared.1",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(ours.files(), expected);
    if run_fio("filename_format_names_files_as_fio_does", fios.path(), job) {
        assert_eq!(ours.files(), fios.files());
    }
}

#[test]
fn file_service_type_and_openfiles_serve_files_in_fios_order() {
    let _io = real_io();
    let job = "[global]\nioengine=psync\nrw=write\nbs=4k\nunlink=0\n\
               [rr2]\nsize=32k\nnrfiles=2\nfile_service_type=roundrobin:2\nwrite_iolog=rr2.log\n\
               [seq]\nsize=32k\nnrfiles=2\nfile_service_type=sequential\nwrite_iolog=seq.log\n\
               [open2]\nsize=32k\nnrfiles=4\nopenfiles=2\nwrite_iolog=open2.log\n";
    let (ours, fios) = (TestDir::new(), TestDir::new());
    run_diskmeter(&ours, job);
    let files = |log: &str| -> Vec<String> {
        writes_in_iolog(&ours.path().join(log))
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    };
    assert_eq!(
        files("rr2.log"),
        ["rr2.0.0", "rr2.0.0", "rr2.0.1", "rr2.0.1", "rr2.0.0", "rr2.0.0", "rr2.0.1", "rr2.0.1"]
    );
    assert_eq!(
        files("seq.log"),
        ["seq.0.0", "seq.0.0", "seq.0.0", "seq.0.0", "seq.0.1", "seq.0.1", "seq.0.1", "seq.0.1"]
    );
    // Two files in service until each has had its 8 KiB, then the next two.
    assert_eq!(
        files("open2.log"),
        [
            "open2.0.0",
            "open2.0.1",
            "open2.0.0",
            "open2.0.1",
            "open2.0.2",
            "open2.0.3",
            "open2.0.2",
            "open2.0.3"
        ]
    );
    if run_fio(
        "file_service_type_and_openfiles_serve_files_in_fios_order",
        fios.path(),
        job,
    ) {
        for log in ["rr2.log", "seq.log", "open2.log"] {
            assert_eq!(
                writes_in_iolog(&ours.path().join(log)),
                writes_in_iolog(&fios.path().join(log)),
                "{log}"
            );
        }
    }
}

#[test]
fn buffer_pattern_writes_the_bytes_fio_writes() {
    let _io = real_io();
    for pattern in ["\"abcd\"", "0x55AA", "-12", "300", "\"ab\"0x01"] {
        let job = format!(
            "[p]\nioengine=psync\nfilename=p\nsize=16k\nbs=4k\nrw=write\nunlink=0\n\
             scramble_buffers=0\nbuffer_pattern={pattern}\n"
        );
        let (ours, fios) = (TestDir::new(), TestDir::new());
        run_diskmeter(&ours, &job);
        let written = std::fs::read(ours.path().join("p")).unwrap();
        assert_eq!(written.len(), 16384);
        if run_fio(
            "buffer_pattern_writes_the_bytes_fio_writes",
            fios.path(),
            &job,
        ) {
            let fio_wrote = std::fs::read(fios.path().join("p")).unwrap();
            assert!(written == fio_wrote, "buffer_pattern={pattern}");
        }
    }
}

#[test]
fn scramble_buffers_stamps_each_write_unless_turned_off() {
    let _io = real_io();
    let dir = TestDir::new();
    run_diskmeter(
        &dir,
        "[p]\nioengine=psync\nfilename=p\nsize=16k\nbs=4k\nrw=write\nunlink=0\nbuffer_pattern=0xaa\n",
    );
    let written = std::fs::read(dir.path().join("p")).unwrap();
    let blocks: HashSet<&[u8]> = written.chunks(4096).collect();
    assert_eq!(blocks.len(), 4, "every write differs");
    assert!(written.iter().filter(|&&b| b == 0xaa).count() > written.len() * 9 / 10);
}

/// Distinct 4 KiB blocks of a file.
fn distinct_blocks(path: &Path) -> usize {
    let data = std::fs::read(path).unwrap();
    data.chunks(4096).collect::<HashSet<_>>().len()
}

#[test]
fn dedupe_percentage_gives_about_fios_share_of_duplicate_blocks() {
    let _io = real_io();
    let job = "[d]\nioengine=psync\nfilename=d\nsize=4m\nbs=4k\nrw=write\nunlink=0\n\
               dedupe_percentage=75\n";
    let (ours, fios) = (TestDir::new(), TestDir::new());
    run_diskmeter(&ours, job);
    // 1,024 writes, a quarter unique: about 256 distinct blocks.
    let distinct = distinct_blocks(&ours.path().join("d"));
    assert!(
        (200..=320).contains(&distinct),
        "{distinct} distinct blocks"
    );
    if run_fio(
        "dedupe_percentage_gives_about_fios_share_of_duplicate_blocks",
        fios.path(),
        job,
    ) {
        let fio_distinct = distinct_blocks(&fios.path().join("d"));
        assert!(
            distinct.abs_diff(fio_distinct) <= 80,
            "diskmeter {distinct}, fio {fio_distinct} distinct blocks"
        );
    }
}

/// (apparent size, allocated bytes) of `path`.
fn sizes(path: &Path) -> (u64, u64) {
    let meta = std::fs::metadata(path).unwrap();
    (meta.len(), meta.blocks() * 512)
}

#[test]
fn fallocate_and_overwrite_lay_files_out_as_fio_does() {
    let _io = real_io();
    // create_only: the layout alone, as fio leaves it.
    let job = "[global]\nioengine=psync\nrw=write\nbs=4k\nsize=1m\nunlink=0\ncreate_only=1\n\
               overwrite=0\n\
               [native]\nfallocate=native\n\
               [truncate]\nfallocate=truncate\n\
               [none]\nfallocate=none\n\
               [keep]\nfallocate=keep\n\
               [posix]\nfallocate=posix\n\
               [written]\noverwrite=1\nfallocate=none\n\
               [read]\nrw=read\nfallocate=none\n";
    let (ours, fios) = (TestDir::new(), TestDir::new());
    run_diskmeter(&ours, job);
    let ours_of = |name: &str| sizes(&ours.path().join(format!("{name}.0.0")));
    assert_eq!(ours_of("native"), (1 << 20, 1 << 20));
    assert_eq!(ours_of("truncate"), (1 << 20, 0));
    // fio leaves these at size 0: the job's writes extend the file.
    assert_eq!(ours_of("none"), (0, 0));
    // The blocks reserved with FALLOC_FL_KEEP_SIZE, the size unchanged.
    assert_eq!(ours_of("keep"), (0, 1 << 20));
    assert_eq!(ours_of("posix"), (1 << 20, 1 << 20));
    // Written fully: overwrite=1, or a job that reads.
    assert_eq!(ours_of("written"), (1 << 20, 1 << 20));
    assert_eq!(ours_of("read"), (1 << 20, 1 << 20));
    if run_fio(
        "fallocate_and_overwrite_lay_files_out_as_fio_does",
        fios.path(),
        job,
    ) {
        for name in [
            "native", "truncate", "none", "keep", "posix", "written", "read",
        ] {
            let file = format!("{name}.0.0");
            assert_eq!(
                ours_of(name),
                sizes(&fios.path().join(&file)),
                "fallocate={name}"
            );
        }
    }
}

#[test]
fn create_only_lays_out_and_does_no_io() {
    let dir = TestDir::new();
    let json = dir.run_json(&[
        "--name=c",
        "--ioengine=psync",
        "--rw=randread",
        "--size=64k",
        "--create_only=1",
        "--unlink=0",
    ]);
    assert_eq!(
        std::fs::metadata(dir.path().join("c.0.0")).unwrap().len(),
        65536
    );
    assert_eq!(json["jobs"][0]["read"]["ios"], 0);
    assert_eq!(json["jobs"][0]["write"]["ios"], 0);
}

#[test]
fn allow_file_create_0_refuses_a_missing_file_naming_it() {
    let dir = TestDir::new();
    let out = dir
        .run(&[
            "--name=a",
            "--ioengine=psync",
            "--size=64k",
            "--filename=missing",
            "--allow_file_create=0",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing") && err.contains("allow_file_create=0"),
        "{err}"
    );
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn file_append_writes_after_a_users_data_only_with_allow_destroy() {
    let _io = real_io();
    let dir = TestDir::new();
    let users = vec![7u8; 8192];
    std::fs::write(dir.path().join("log"), &users).unwrap();
    let args = [
        "--name=a",
        "--ioengine=psync",
        "--rw=write",
        "--bs=4k",
        "--size=16k",
        "--filename=log",
        "--file_append=1",
    ];
    let refused = dir.run(&args).output().unwrap();
    assert!(!refused.status.success());
    assert_eq!(std::fs::read(dir.path().join("log")).unwrap(), users);
    let out = dir.run(&args).arg("--allow-destroy").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = std::fs::read(dir.path().join("log")).unwrap();
    assert_eq!(after.len(), 8192 + 16384);
    assert_eq!(&after[..8192], &users[..], "the user's data is untouched");
}

#[test]
fn lockfile_jobs_sharing_a_file_all_finish_their_io() {
    let _io = real_io();
    let dir = TestDir::new();
    for mode in ["exclusive", "readwrite"] {
        let json = dir.run_json(&[
            "--ioengine=psync",
            "--filename=shared",
            "--size=256k",
            "--bs=4k",
            "--rw=randrw",
            "--numjobs=3",
            &format!("--lockfile={mode}"),
            "--name=l",
        ]);
        // 3 clones x 64 IOs of 4 KiB each, none lost to the locking.
        let ios: u64 = json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|clone| ["read", "write"].map(|d| clone[d]["ios"].as_u64().unwrap()))
            .sum();
        assert_eq!(ios, 3 * 64, "{mode}");
    }
}

#[test]
fn opendir_takes_every_file_below_the_folder() {
    let dir = TestDir::new();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("sub")).unwrap();
    for name in ["a", "b", "sub/c"] {
        std::fs::write(data.join(name), vec![1u8; 65536]).unwrap();
    }
    let out = dir
        .run(&["--name=o", "--rw=read", "--opendir=data", "--dry-run"])
        .output()
        .unwrap();
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["data/a", "data/b", "data/sub/c"] {
        assert!(plan.contains(name), "{name} missing from\n{plan}");
    }
}

#[test]
fn the_files_job_files_run_for_real() {
    let _io = real_io();
    let jobs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jobs");
    for name in ["layout", "buffers", "locking"] {
        let dir = TestDir::new();
        let file = jobs.join(format!("options-files-{name}.fio"));
        let out = dir
            .run(&[file.to_str().unwrap()])
            .env("DM_DIR", dir.path())
            .env("DM_SIZE", "4m")
            .env("DM_RUNTIME", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The sync count of the first job of fio-3.x JSON.
fn syncs_in(json: &serde_json::Value) -> u64 {
    json["jobs"][0]["sync"]["lat_ns"]["N"].as_u64().unwrap()
}

#[test]
fn sync_file_range_syncs_every_n_writes_as_fio_counts_them() {
    let _io = real_io();
    for engine in ["psync", "io_uring", "libaio"] {
        let dir = TestDir::new();
        let args = [
            "--name=s".to_string(),
            format!("--ioengine={engine}"),
            "--filename=s".to_string(),
            "--size=64k".to_string(),
            "--bs=4k".to_string(),
            "--rw=write".to_string(),
            "--sync_file_range=wait_before,write:4".to_string(),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dir
            .run(&args)
            .arg("--output-format=fio-json")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // 16 writes, a sync after every 4th but the last (the job ends there): 3, as fio.
        assert_eq!(syncs_in(&ours), 3, "{engine}");
        assert_eq!(ours["jobs"][0]["error"], 0, "{engine}");
        if engine == "psync" {
            let fios = TestDir::new();
            if let Some(mut fio) = fio_command(
                "sync_file_range_syncs_every_n_writes_as_fio_counts_them",
                fios.path(),
            ) {
                let theirs = common::fio_json(fio.args(&args));
                assert_eq!(syncs_in(&ours), syncs_in(&theirs));
            }
        }
    }
}
