//! fio job files through the real binary (issue 3, first part): the guides' files run
//! unchanged at test scale and hold their caps, later globals and command-line defaults mean
//! what they mean to fio, and errors name file, line and option. How every file in tests/jobs
//! reads, against fio's own reading, is in `tests/jobfile_reading.rs`.

mod common;
#[path = "jobfile/support.rs"]
mod support;

use assert_cmd::Command;
use common::{real_io, require_tool, TestDir};
use predicates::prelude::*;
use std::path::Path;
use support::{diskmeter, dry_run, jobs_dir, with_env};

#[test]
fn later_globals_match_fios_run() {
    if !require_tool("later_globals_match_fios_run", "fio") {
        return;
    }
    let dir = TestDir::new();
    let file = jobs_dir().join("semantics-globals.fio");
    let out = with_env(Command::new("fio"), dir.path())
        .arg("--output-format=json")
        .arg(&file)
        .output()
        .expect("fio");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let fio: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let fio_jobs: Vec<(String, u64)> = fio["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let r = &j["read"];
            let bs = r["io_bytes"].as_u64().unwrap() / r["total_ios"].as_u64().unwrap().max(1);
            (j["jobname"].as_str().unwrap().to_string(), bs)
        })
        .collect();
    let out = diskmeter(dir.path())
        .args(["run", "--quiet", "--output-format=json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dm: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dm_jobs: Vec<(String, u64)> = dm["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let r = &j["read"];
            let bs = r["bytes"].as_u64().unwrap() / r["ios"].as_u64().unwrap().max(1);
            (j["name"].as_str().unwrap().to_string(), bs)
        })
        .collect();
    assert_eq!(dm_jobs, fio_jobs);
    assert_eq!(
        fio_jobs.len(),
        4,
        "a, b, and b with numjobs=2: {fio_jobs:?}"
    );
}

#[test]
fn the_guides_files_run_unchanged_at_test_scale() {
    let _turn = real_io();
    let dir = TestDir::new();
    for (name, readers, writers) in [
        ("azure-ds14-max-write-iops.fio", 0, 4),
        ("azure-d8ds-v4-max-read-iops.fio", 4, 0),
        ("do-bandwidth.fio", 0, 1),
        ("do-read-latency.fio", 1, 0),
    ] {
        let out = diskmeter(dir.path())
            .args(["run", "--quiet", "--output-format=json"])
            .arg(jobs_dir().join(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let count = |dir: &str| {
            v["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| {
                    j["workers"].as_u64().unwrap_or(1)
                        * u64::from(j[dir]["ios"].as_u64().unwrap_or(0) > 0)
                })
                .sum::<u64>()
        };
        assert_eq!(
            (count("read"), count("write")),
            (readers, writers),
            "{name}"
        );
        // fio's unlink defaults to 0 in job files: the files stay, as after fio.
        let workers = (readers + writers) as usize;
        assert_eq!(dir.files().len(), workers, "{name}: {:?}", dir.files());
        for file in dir.files() {
            std::fs::remove_file(dir.path().join(file)).unwrap();
        }
    }
}

#[test]
fn job_file_errors_name_file_line_and_option() {
    let dir = TestDir::new();
    let bad = dir.path().join("bad.fio");
    std::fs::write(
        &bad,
        "[a]\nioengine=null\nsize=1m\niodpeth=4\ncgroup_weight=100\nbs=4q\n",
    )
    .unwrap();
    diskmeter(dir.path())
        .args(["run", "bad.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.fio:4: iodpeth: unknown option 'iodpeth' (did you mean 'iodepth'?)",
        ))
        .stderr(predicate::str::contains(
            "bad.fio:5: cgroup_weight: fio option 'cgroup_weight' cannot apply in diskmeter: fio \
             moves each job into its own blkio cgroup",
        ))
        .stderr(predicate::str::contains("bad.fio:6: bs: bs=4q:"))
        .stderr(predicate::str::contains("panicked").not());
    diskmeter(dir.path())
        .args(["run", "missing.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read job file missing.fio"));
    diskmeter(dir.path())
        .args(["run", "--name=x", "bad.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not both"));
    std::fs::write(&bad, "[a]\nioengine=null\nsize=1m\ncgroup_weight=100\n").unwrap();
    diskmeter(dir.path())
        .args(["run", "--quiet", "--ignore-unsupported", "bad.fio"])
        .assert()
        .success();
}

#[test]
fn command_line_options_are_defaults_the_files_global_overrides() {
    let dir = TestDir::new();
    std::fs::write(
        dir.path().join("j.fio"),
        "[global]\nbs=4k\n[a]\nioengine=null\nsize=1m\n",
    )
    .unwrap();
    let plan = dry_run(
        dir.path(),
        &["--bs=8k".into(), "--iodepth=2".into(), "j.fio".into()],
    );
    assert!(plan.contains("bs=4k"), "{plan}");
    assert!(plan.contains("iodepth=2"), "{plan}");
}

fn run_json(dir: &Path, file: &str) -> serde_json::Value {
    let out = diskmeter(dir)
        .args(["run", "--quiet", "--output-format=json"])
        .arg(jobs_dir().join(file))
        .env("DM_SIZE", "16m")
        .env("DM_RUNTIME", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// D8ds_v4 mixed: 4 readers flat out and 4 writers at 3,200 IOPS each (12,800 together).
/// On the test disk the readers can starve the writers (the device, not the limiter, then
/// sets the write rate), so the real run checks the structure and that the cap is never
/// exceeded, and the same file on the null engine checks that the cap is held within 2 %.
#[test]
fn the_d8ds_mixed_file_holds_its_write_cap_within_2_percent() {
    let _turn = real_io();
    let dir = TestDir::new();
    let v = run_json(dir.path(), "azure-d8ds-v4-max-mixed-iops.fio");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "group_reporting: one report for the group");
    assert_eq!(jobs[0]["workers"], 8);
    assert!(jobs[0]["read"]["ios"].as_u64().unwrap() > 0);
    let writes = jobs[0]["write"]["iops"].as_f64().unwrap();
    assert!(
        writes <= 12_800.0 * 1.02,
        "{writes} write IOPS over the cap"
    );

    let text = std::fs::read_to_string(jobs_dir().join("azure-d8ds-v4-max-mixed-iops.fio"))
        .unwrap()
        .replace("ioengine=libaio", "ioengine=null");
    std::fs::write(dir.path().join("null.fio"), text).unwrap();
    let out = diskmeter(dir.path())
        .args(["run", "--quiet", "--output-format=json", "null.fio"])
        .env("DM_SIZE", "16m")
        .env("DM_RUNTIME", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let writes = v["jobs"][0]["write"]["iops"].as_f64().unwrap();
    assert!(
        (writes - 12_800.0).abs() <= 0.02 * 12_800.0,
        "{writes} write IOPS"
    );
}

/// DS14 mixed: 4 readers and 4 writers, each writer capped at 12,500 IOPS (a cap the test
/// disk may not reach, so only the cap is checked).
#[test]
fn the_ds14_mixed_file_has_four_readers_and_four_capped_writers() {
    let _turn = real_io();
    let dir = TestDir::new();
    let v = run_json(dir.path(), "azure-ds14-max-mixed-iops.fio");
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["reader1", "reader2", "reader3", "reader4", "writer1", "writer2", "writer3", "writer4"]
    );
    for j in &jobs[4..] {
        assert_eq!(j["read"]["ios"], 0);
        assert!(j["write"]["iops"].as_f64().unwrap() <= 12_500.0 * 1.02);
    }
}

/// DigitalOcean's five command lines, as the guide types them (runtime and size scaled down).
#[test]
fn the_digitalocean_command_lines_run() {
    let _turn = real_io();
    let dir = TestDir::new();
    for (name, rw, bs, qd) in [
        ("bandwidth", "randwrite", "1m", "32"),
        ("randread", "randread", "4k", "128"),
        ("randwrite", "randwrite", "4k", "128"),
        ("read-latency", "randread", "4k", "1"),
        ("write-latency", "randwrite", "4k", "1"),
    ] {
        let out = diskmeter(dir.path())
            .args(["run", "--quiet", "--output-format=json"])
            .arg(format!("--name={name}"))
            .args([
                "--ioengine=libaio",
                "--direct=1",
                "--time_based",
                "--group_reporting",
            ])
            .arg(format!("--rw={rw}"))
            .arg(format!("--bs={bs}"))
            .arg(format!("--iodepth={qd}"))
            .args(["--runtime=1", "--size=16m", "--numjobs=1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let job = &v["jobs"][0];
        let dir_key = if rw.ends_with("read") {
            "read"
        } else {
            "write"
        };
        assert!(job[dir_key]["ios"].as_u64().unwrap() > 0, "{name}");
        assert_eq!(
            job["workload"]["iodepth"].as_u64().unwrap().to_string(),
            qd,
            "{name}"
        );
    }
    assert!(dir.files().is_empty());
}

/// Issue 15: a job file means what it means to fio. With no `ioengine` it runs on psync, so
/// `iodepth=32` is one IO at a time (the plan says so in one line), and its files stay
/// (unlink=0); the same options on the command line keep diskmeter's defaults.
#[test]
fn a_job_file_without_an_engine_runs_as_fio_runs_it() {
    let dir = TestDir::new();
    let plan = dry_run(
        dir.path(),
        &[jobs_dir()
            .join("semantics-fio-defaults.fio")
            .display()
            .to_string()],
    );
    assert!(plan.contains("ioengine=psync"), "{plan}");
    assert!(plan.contains("unlink=0"), "{plan}");
    assert!(
        plan.contains("# note: job psync-by-default: the psync engine keeps 1 IO in flight per worker; iodepth=32 has no effect"),
        "{plan}"
    );
    let command_line = dry_run(
        dir.path(),
        &[
            "--name=cli".into(),
            "--size=8m".into(),
            "--iodepth=32".into(),
        ],
    );
    assert!(command_line.contains("ioengine=io_uring"), "{command_line}");
    assert!(!command_line.contains("unlink=0"), "{command_line}");

    let v = run_json(dir.path(), "semantics-fio-defaults.fio");
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    let notes = v["meta"]["notes"].to_string();
    assert!(notes.contains("iodepth=32 has no effect"), "{notes}");
    assert_eq!(
        dir.files(),
        ["named-engine.0.0", "psync-by-default.0.0"],
        "fio's unlink=0 keeps the files"
    );
}

/// `description` is kept in the results as fio keeps it: fio's JSON has it as "desc" and in
/// "job options"; diskmeter's own JSON has it in the job's options (which the history keeps).
#[test]
fn description_is_kept_in_the_results_as_fio_keeps_it() {
    let dir = TestDir::new();
    let file = jobs_dir().join("options-jobfile-description.fio");
    let fio_json = |out: std::process::Output| -> serde_json::Value {
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        serde_json::from_str(&text[text.find('{').expect("JSON")..]).unwrap()
    };
    let dm = fio_json(
        diskmeter(dir.path())
            .args(["run", "--quiet", "--no-save", "--output-format=fio-json"])
            .arg(&file)
            .output()
            .unwrap(),
    );
    let descriptions = |v: &serde_json::Value| -> Vec<String> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["desc"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let expected = ["shared_by_every_job", "the_second_job's_own"];
    assert_eq!(descriptions(&dm), expected);
    // "job options" holds the job's own options and "global options" the [global] ones, as
    // fio lists them (issue 28).
    assert_eq!(dm["global options"]["description"], "shared_by_every_job");
    assert_eq!(dm["jobs"][0]["job options"].get("description"), None);
    assert_eq!(
        dm["jobs"][1]["job options"]["description"],
        "the_second_job's_own"
    );
    if require_tool("description_is_kept_in_the_results_as_fio_keeps_it", "fio") {
        let fio = fio_json(
            with_env(Command::new("fio"), dir.path())
                .arg("--output-format=json")
                .arg(&file)
                .output()
                .unwrap(),
        );
        assert_eq!(descriptions(&fio), expected);
        assert_eq!(fio["global options"], dm["global options"]);
    }
    let own = run_json(dir.path(), "options-jobfile-description.fio");
    let options = own["jobs"][1]["options"].to_string();
    assert!(options.contains("the_second_job's_own"), "{options}");
}

/// Letter-case spellings of a lower-case unit suffix: as written, upper case, and the way
/// people write units (`K`, `KB`, `Ki`, `KiB`: prefix upper, `i` lower, `b` upper); each once.
fn case_variants(lower: &str) -> Vec<String> {
    let usual: String = lower
        .chars()
        .map(|c| if c == 'i' { c } else { c.to_ascii_uppercase() })
        .collect();
    let mut out = vec![lower.to_string()];
    for spelling in [lower.to_ascii_uppercase(), usual] {
        if !out.contains(&spelling) {
            out.push(spelling);
        }
    }
    out
}

/// The block size for a `size=` of `number` and `suffix` in the generated table: the same
/// spelling for `k` and `m` (one IO of the whole size), one prefix down for `g` (`3GiB` ->
/// `3MiB`: 1,000 or 1,024 IOs, as the base is), so no buffer is larger than 10 MiB.
fn block_size_for(number: &str, suffix: &str) -> String {
    let mut chars = suffix.chars();
    let Some(prefix) = chars.next() else {
        return number.to_string();
    };
    match prefix {
        'g' => format!("{number}m{}", chars.as_str()),
        'G' => format!("{number}M{}", chars.as_str()),
        _ => format!("{number}{suffix}"),
    }
}

/// Issue 28, "fio's value syntax, exhaustively": a GENERATED table of values, one [section]
/// each in ONE job file, run by fio and by diskmeter on the null engine and compared job by
/// job where fio shows the parsed value:
/// * sizes: numbers x prefixes `k m g` x `""`/`b`/`i`/`ib` x letter case x `kb_base` 1024 and
///   1000 (written before or after the value: fio reads it first in a job file), plus `+`,
///   hex and bare forms, as `size=V` with `bs=V` (one prefix down for `g`): `io_bytes` is V
///   and `total_ios` shows the block size;
/// * counts: `number_ios` in the same spellings, through `total_ios`;
/// * ranges, lists and per-direction values holding one size X (`bsrange=X-X` and `X:X`,
///   `bssplit=X/100`, `X`, `X/100,4k/100`, `bs=X,4k`, `io_size`) with X in four spellings of
///   1 MiB under both `kb_base`, through `total_ios`;
/// * percentages: `size` and `offset` as shares of a file, through `io_bytes`;
/// * float lists: `percentile_list`, through the percentiles fio-json prints;
/// * short times: `runtime` with `time_based` in every suffix spelling and the bare default
///   unit (seconds), through the job's runtime. The values are 200 ms or 1 s and the bound
///   is loose (0.9x to 3x + 500 ms) on purpose: a misread unit is off by 60x or 1000x, and
///   the bound must not judge the machine's speed (hundreds of jobs share two cores here).
///
/// Forms diskmeter refuses (fio reads `1.5m` as 1 byte, `30sec` as 30 us) and times too long
/// to run (`2d`) are checked against fio's parse.c in `crates/units`.
#[test]
fn issue_28_generated_value_table_reads_as_fio_reads_it() {
    // Hundreds of jobs keep both cores busy for seconds: not beside this file's timed runs.
    let _turn = real_io();
    let dir = TestDir::new();
    let Some(mut fio) = common::fio_command("issue_28_generated_value_table", dir.path()) else {
        return;
    };
    let mut file = String::from("[global]\nioengine=null\nrw=read\nthread\n");
    let mut sections = 0;
    let mut section = |name: String, lines: &[String], kb_base: &str, kb_first: bool| {
        file.push_str(&format!("\n[{name}]\n"));
        if kb_first {
            file.push_str(&format!("kb_base={kb_base}\n"));
        }
        for line in lines {
            file.push_str(line);
            file.push('\n');
        }
        if !kb_first {
            file.push_str(&format!("kb_base={kb_base}\n"));
        }
        sections += 1;
    };
    for (base_index, kb_base) in ["1024", "1000"].into_iter().enumerate() {
        let mut n = 0;
        for number in ["1", "10"] {
            for prefix in ["k", "m", "g"] {
                for tail in ["", "b", "i", "ib"] {
                    for suffix in case_variants(&format!("{prefix}{tail}")) {
                        n += 1;
                        let size = format!("{number}{suffix}");
                        section(
                            format!("size-{kb_base}-{size}"),
                            &[
                                format!("size={size}"),
                                format!("bs={}", block_size_for(number, &suffix)),
                            ],
                            kb_base,
                            (n + base_index) % 2 == 0,
                        );
                        if prefix == "k" && number == "10" {
                            section(
                                format!("count-{kb_base}-{size}"),
                                &[
                                    "size=64m".to_string(),
                                    "bs=4k".to_string(),
                                    format!("number_ios={size}"),
                                ],
                                kb_base,
                                n % 2 == 0,
                            );
                        }
                    }
                }
            }
        }
        for (size, bs) in [
            ("+3k", "+3"),
            ("0x3000", "0xc"),
            ("0X3000", "0XC"),
            ("3072", "3"),
            ("3000", "3"),
            ("003k", "3"),
            ("3m", "3k"),
            ("3GiB", "3MiB"),
        ] {
            section(
                format!("size-{kb_base}-{size}"),
                &[format!("size={size}"), format!("bs={bs}")],
                kb_base,
                true,
            );
        }
    }
    // Ranges, lists and per-direction values: every shape holding one size X, spelled in
    // each unit form, so the IO count shows how X was read (10 IOs of X in a size of 10 X; 3
    // for `io_size` = 3 X).
    for kb_base in ["1024", "1000"] {
        for (number, suffix) in [("1", "Mi"), ("1", "MiB"), ("1", "m"), ("1024", "KiB")] {
            let x = format!("{number}{suffix}");
            let size = format!("size={}{suffix}", number.parse::<u64>().unwrap() * 10);
            for (shape, line) in [
                ("bsrange-dash", format!("bsrange={x}-{x}")),
                ("bsrange-colon", format!("bsrange={x}:{x}")),
                ("bssplit", format!("bssplit={x}/100")),
                ("bssplit-blank", format!("bssplit={x}")),
                ("bssplit-dirs", format!("bssplit={x}/100,4k/100")),
                ("bs-dirs", format!("bs={x},4k")),
                (
                    "io_size",
                    format!(
                        "bs={x}\nio_size={}{suffix}",
                        number.parse::<u64>().unwrap() * 3
                    ),
                ),
            ] {
                section(
                    format!("{shape}-{kb_base}-{x}"),
                    &[size.clone(), line],
                    kb_base,
                    shape.len() % 2 == 0,
                );
            }
        }
    }
    // Float lists: `percentile_list` in fio's `%lf` forms, through the percentiles printed.
    for (i, list) in ["1:50:99.5:99.99", "25.0:75", ".5:+99", "1e1:9.95E+1", "5"]
        .into_iter()
        .enumerate()
    {
        section(
            format!("percentiles-{i}"),
            &["size=64k".to_string(), format!("percentile_list={list}")],
            "1024",
            true,
        );
    }
    // Percentages: `size` and `offset` as a share of a 1 MiB file (read with psync: the null
    // engine has no file size to take a share of).
    std::fs::write(dir.path().join("share"), vec![0u8; 1 << 20]).unwrap();
    for size in ["1%", "10%", "25%", "50%", "100%"] {
        for offset in ["", "25%", "50%"] {
            let mut lines = vec![
                "ioengine=psync".to_string(),
                "filename=share".to_string(),
                "bs=4k".to_string(),
                format!("size={size}"),
            ];
            if !offset.is_empty() {
                lines.push(format!("offset={offset}"));
            }
            section(format!("share-{size}-at-{offset}"), &lines, "1024", true);
        }
    }
    for runtime in [
        "200ms",
        "200MS",
        "200Ms",
        "200msec",
        "200MSEC",
        "200000us",
        "200000US",
        "200000usec",
        "200000USEC",
        "+200ms",
        "1",
        "1s",
        "1S",
    ] {
        section(
            format!("time-{runtime}"),
            &[
                "size=64m".to_string(),
                "time_based".to_string(),
                format!("runtime={runtime}"),
            ],
            "1024",
            true,
        );
    }
    let path = dir.path().join("values.fio");
    std::fs::write(&path, &file).unwrap();

    let fio = common::fio_json(fio.arg(&path));
    let out = diskmeter(dir.path())
        .args(["run", "--quiet", "--no-save", "--output-format=fio-json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dm: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    type Seen = (u64, u64, u64, Vec<String>);
    let by_name = |doc: &serde_json::Value| -> std::collections::BTreeMap<String, Seen> {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let read = &j["read"];
                let percentiles = read["clat_ns"]["percentile"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    (
                        read["io_bytes"].as_u64().unwrap(),
                        read["total_ios"].as_u64().unwrap(),
                        j["job_runtime"].as_u64().unwrap(),
                        percentiles,
                    ),
                )
            })
            .collect()
    };
    let (fio, dm) = (by_name(&fio), by_name(&dm));
    assert_eq!(fio.len(), sections, "fio ran every section");
    assert_eq!(
        dm.keys().collect::<Vec<_>>(),
        fio.keys().collect::<Vec<_>>(),
        "the same jobs"
    );
    let mut differ = Vec::new();
    for (name, (fio_bytes, fio_ios, fio_ms, fio_percentiles)) in &fio {
        let (fio_bytes, fio_ios, fio_ms) = (*fio_bytes, *fio_ios, *fio_ms);
        let (dm_bytes, dm_ios, dm_ms, dm_percentiles) = &dm[name];
        let (dm_bytes, dm_ios, dm_ms) = (*dm_bytes, *dm_ios, *dm_ms);
        if name.starts_with("percentiles-") {
            if fio_percentiles != dm_percentiles || fio_percentiles.is_empty() {
                differ.push(format!(
                    "{name}: fio prints percentiles {fio_percentiles:?}, diskmeter \
                     {dm_percentiles:?}"
                ));
            }
        } else if let Some(value) = name.strip_prefix("time-") {
            let lower = value.to_ascii_lowercase();
            let expected_ms = if ["ms", "msec", "us", "usec"]
                .iter()
                .any(|u| lower.ends_with(u))
            {
                200
            } else {
                1000
            };
            let near = |ms: u64| ms * 10 >= expected_ms * 9 && ms <= expected_ms * 3 + 500;
            if !near(fio_ms) || !near(dm_ms) {
                differ.push(format!(
                    "{name}: fio ran {fio_ms} ms, diskmeter {dm_ms} ms, {expected_ms} ms meant"
                ));
            }
        } else if (fio_bytes, fio_ios) != (dm_bytes, dm_ios) || fio_ios == 0 {
            differ.push(format!(
                "{name}: fio {fio_bytes} bytes in {fio_ios} IOs, diskmeter {dm_bytes} in {dm_ios}"
            ));
        } else if ["bsrange", "bssplit", "bs-dirs"]
            .iter()
            .any(|shape| name.starts_with(shape))
            && fio_ios != 10
            || name.starts_with("io_size") && fio_ios != 3
        {
            differ.push(format!(
                "{name}: fio did {fio_ios} IOs, not the table's 10 (3 for io_size): the table \
                 no longer shows the value"
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {sections} values read differently:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // The issue's own case, so a change that breaks both tools alike is still seen.
    assert_eq!(fio["size-1024-1Mi"].0, 1 << 20);
    assert_eq!(fio["percentiles-3"].3, ["10.000000", "99.500000"]);
    assert_eq!(fio["size-1024-1MiB"].0, 1_000_000);
    eprintln!("{sections} generated values read as fio 3.33 reads them");
}

/// Issue 28: the forms fio accepts but reads other than written are refused, and each
/// refusal says what fio reads, checked against fio's own parser (`fio --debug=parse
/// --parse-only` prints every value it parsed: bytes for sizes, microseconds for times).
#[test]
fn issue_28_refused_values_name_what_fio_reads() {
    let dir = TestDir::new();
    let Some(mut fio) = common::fio_command("issue_28_refused_values", dir.path()) else {
        return;
    };
    // (option, value, fio's parsed value, what diskmeter's refusal says)
    let cases = [
        ("size", "1.5m", "1", "fio would read it as 1;"),
        (
            "bs",
            "4kfoo",
            "4096",
            "fio would read it as 4096, ignoring what follows 'k'",
        ),
        ("bs", "2MiBs", "2000000", "fio would read it as 2000000,"),
        ("size", "4 k", "4", "(fio would read it as 4)"),
        ("bs", "0x10k", "16", "fio would read it as 16, dropping 'k'"),
        ("runtime", "30sec", "30", "fio would read it as 30us"),
        ("thinktime", "10min", "10", "fio would read it as 10us"),
        ("runtime", "0x10", "16", "(here 16us)"),
        ("runtime", "1.5", "1000000", "fio would read it as 1s;"),
        ("ramp_time", "2.5ms", "2000000", "fio would read it as 2s;"),
        ("thinktime", "10µs", "10", "fio would read it as 10us"),
        ("runtime", "10µs", "10000000", "fio would read it as 10s"),
        ("runtime", "3msfoo", "3000", "fio would read it as 3ms"),
        ("startdelay", "5 ms", "5000000", "(fio would read it as 5s)"),
        // -1 - 50: fio's share-of-a-file marker, which its rwmixread takes as "all reads".
        (
            "rwmixread",
            "50%",
            "18446744073709551565",
            "write 50 without '%'",
        ),
    ];
    let mut file = String::from("[global]\nioengine=null\nsize=1m\n");
    for (i, (option, value, _, _)) in cases.iter().enumerate() {
        file.push_str(&format!("[case{i}]\n{option}={value}\n"));
    }
    std::fs::write(dir.path().join("all.fio"), &file).unwrap();
    let out = fio
        .args(["--debug=parse", "--parse-only", "all.fio"])
        .output()
        .expect("fio");
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    // "handle_option=NAME, ptr=VALUE" is followed by "ret=0, out=N" for the numeric types.
    let mut parsed = Vec::new();
    let mut current: Option<String> = None;
    for line in log.lines() {
        if let Some((_, option)) = line.split_once(" handle_option=") {
            current = Some(option.to_string());
        } else if let Some(at) = line.find("ret=0, out=") {
            if let Some(option) = current.take() {
                parsed.push((option, line[at + 11..].trim().to_string()));
            }
        }
    }
    for (i, (option, value, fio_value, says)) in cases.iter().enumerate() {
        let key = format!("{option}, ptr={value}");
        assert!(
            parsed.contains(&(key.clone(), fio_value.to_string())),
            "fio did not read {option}={value} as {fio_value}: {parsed:?}\n{log}"
        );
        let one = dir.path().join(format!("case{i}.fio"));
        std::fs::write(
            &one,
            format!("[case]\nioengine=null\nsize=1m\n{option}={value}\n"),
        )
        .unwrap();
        diskmeter(dir.path())
            .args(["run", "--dry-run"])
            .arg(&one)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("case{i}.fio:4: {option}")))
            .stderr(predicate::str::contains(*says));
    }
}
