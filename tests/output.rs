//! What a user sees: the human summary, diskmeter's JSON, fio-compatible JSON (same key tree
//! as real fio's), `--output`, `--dry-run`, `--help`, and clear usage errors with exit code 2.

mod common;

use common::{require_tool, TestDir};
use predicates::str::contains;
use serde_json::Value;
use std::collections::BTreeSet;

const ACCEPTANCE: &[&str] = &[
    "--name=t",
    "--rw=randread",
    "--bs=4k",
    "--iodepth=32",
    "--size=64m",
    "--runtime=1",
    "--time_based",
    "--direct=1",
];

#[test]
fn the_summary_shows_iops_bandwidth_and_the_percentile_table() {
    let t = TestDir::new();
    let out = t
        .run(ACCEPTANCE)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for needle in [
        "read: IOPS=",
        "MiB/s",
        "MB/s",
        "clat percentiles",
        "1.00th",
        "50.00th",
        "99.00th",
        "99.90th",
        "99.95th",
        "99.99th",
        "lat (",
        "cpu",
        "IO depths",
        "Run status group 0",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert!(t.files().is_empty(), "the test file is removed");
}

#[test]
fn fio_json_parses_and_has_fio_keys() {
    let t = TestDir::new();
    let out = t
        .run(ACCEPTANCE)
        .arg("--output-format=fio-json")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("pure JSON on stdout");
    assert!(v["fio version"].as_str().unwrap().starts_with("diskmeter"));
    for key in ["timestamp", "time", "jobs"] {
        assert!(v.get(key).is_some(), "{key}");
    }
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "t");
    assert_eq!(job["groupid"], 0);
    assert_eq!(job["error"], 0);
    let read = &job["read"];
    for key in [
        "io_bytes",
        "io_kbytes",
        "bw_bytes",
        "bw",
        "iops",
        "runtime",
        "total_ios",
        "short_ios",
        "drop_ios",
        "bw_min",
        "bw_max",
        "bw_mean",
        "bw_dev",
        "bw_samples",
        "iops_min",
        "iops_max",
        "iops_mean",
        "iops_stddev",
        "iops_samples",
    ] {
        assert!(read.get(key).is_some(), "read.{key}");
    }
    for lat in ["slat_ns", "clat_ns", "lat_ns"] {
        for key in ["min", "max", "mean", "stddev", "N"] {
            assert!(read[lat].get(key).is_some(), "read.{lat}.{key}");
        }
    }
    assert!(read["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap() > 0);
    let ios = read["total_ios"].as_u64().unwrap();
    assert!(ios > 0);
    assert_eq!(read["io_bytes"].as_u64().unwrap(), ios * 4096);
    assert_eq!(
        read["bw"].as_u64().unwrap(),
        read["bw_bytes"].as_u64().unwrap() / 1024
    );
    for key in [
        "usr_cpu",
        "sys_cpu",
        "ctx",
        "iodepth_level",
        "latency_us",
        "latency_ms",
        "job options",
    ] {
        assert!(job.get(key).is_some(), "{key}");
    }
    assert_eq!(job["job options"]["rw"], "randread");
}

/// Every key path of a JSON value, with array elements folded into `[]`.
fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let path = format!("{prefix}/{k}");
                out.insert(path.clone());
                // Option lists differ with the options given; their presence is enough.
                if k != "job options" && k != "global options" {
                    key_paths(child, &path, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn fio_json_has_the_key_tree_of_real_fio() {
    if !require_tool("fio_json_has_the_key_tree_of_real_fio", "fio") {
        return;
    }
    let t = TestDir::new();
    let job = [
        "--name=t",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=64m",
    ];
    let fio = std::process::Command::new("fio")
        .current_dir(t.path())
        .args(job)
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(fio.status.success());
    let fio: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let ours = t
        .run(&job)
        .arg("--output-format=fio-json")
        .output()
        .unwrap();
    assert!(ours.status.success());
    let ours: Value = serde_json::from_slice(&ours.stdout).unwrap();
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&fio, "", &mut a);
    key_paths(&ours, "", &mut b);
    // fio lists per-disk utilisation; diskmeter does not measure it yet (an empty list).
    a.retain(|p| !p.starts_with("/disk_util[]"));
    let missing: Vec<_> = a.difference(&b).collect();
    assert!(
        missing.is_empty(),
        "keys fio has and diskmeter lacks: {missing:?}"
    );
}

#[test]
fn json_goes_to_stdout_alone_and_notes_to_stderr() {
    let t = TestDir::new();
    // Not `t.run`: that adds --quiet, which silences the notes this test is about. psync with
    // iodepth=4 draws a note (one IO in flight per worker).
    let out = assert_cmd::Command::cargo_bin("diskmeter")
        .unwrap()
        .current_dir(t.path())
        .args([
            "run",
            "--name=j",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--ioengine=psync",
            "--iodepth=4",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is pure JSON");
    assert_eq!(v["jobs"][0]["read"]["ios"].as_u64(), Some(256));
    let note = "the psync engine keeps 1 IO in flight per worker; iodepth=4 has no effect";
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("diskmeter: note: job j: {note}")),
        "the note is not on stderr: {stderr}"
    );
    // The JSON carries it too, as data (meta.notes), not as a line in the way of a parser.
    assert!(
        v["meta"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains(note)),
        "{}",
        v["meta"]
    );
}

#[test]
fn output_writes_the_results_to_a_file() {
    let t = TestDir::new();
    let target = t.path().join("results.json");
    t.run(&[
        "--name=o",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--output-format=json",
    ])
    .arg(format!("--output={}", target.display()))
    .assert()
    .success()
    .stdout("");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["jobs"][0]["name"], "o");
}

#[test]
fn the_default_job_is_4k_random_reads_at_qd32_on_1g_for_10s() {
    let t = TestDir::new();
    t.run(&["--dry-run"])
        .assert()
        .success()
        .stdout(contains("rw=randread"))
        .stdout(contains("iodepth=32"))
        .stdout(contains("size=1g"))
        .stdout(contains("runtime=10s"))
        .stdout(contains("direct=1"))
        .stdout(contains("diskmeter-default.0.0"));
    assert!(t.files().is_empty(), "a dry run creates nothing");
}

#[test]
fn dry_run_shows_globals_applied_to_each_job() {
    let t = TestDir::new();
    let out = t
        .run(&[
            "--bs=64k",
            "--size=4m",
            "--name=a",
            "--rw=read",
            "--name=b",
            "--rw=write",
            "--bs=8k",
            "--dry-run",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let a = &text[text.find("[a]").unwrap()..text.find("[b]").unwrap()];
    let b = &text[text.find("[b]").unwrap()..];
    assert!(a.contains("bs=64k") && a.contains("rw=read"), "{a}");
    assert!(b.contains("bs=8k") && b.contains("rw=write"), "{b}");
}

#[test]
fn help_explains_every_option_with_unit_and_default() {
    let out = assert_cmd::Command::cargo_bin("diskmeter")
        .unwrap()
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let listed = common::help_options(&help);
    for option in diskmeter_option_names() {
        let text = listed
            .get(option)
            .unwrap_or_else(|| panic!("--help lacks --{option}"));
        assert!(
            text.contains("[default: ") || text.contains("unset"),
            "--{option} does not say its default: {text:?}"
        );
    }
    assert!(
        help.contains("[default: 1]") && help.contains("[unit: "),
        "{help}"
    );
}

fn diskmeter_option_names() -> Vec<&'static str> {
    vec![
        "name",
        "filename",
        "directory",
        "size",
        "io_size",
        "offset",
        "rw",
        "rwmixread",
        "bs",
        "iodepth",
        "numjobs",
        "runtime",
        "time_based",
        "ramp_time",
        "loops",
        "direct",
        "ioengine",
        "rate",
        "rate_iops",
        "group_reporting",
        "randseed",
        "norandommap",
    ]
}

#[test]
fn usage_errors_are_clear_and_exit_2() {
    let t = TestDir::new();
    t.run(&["--name=x", "--iodpeth=4"])
        .assert()
        .code(2)
        .stderr(contains("iodepth"));
    t.run(&["--name=x", "--bs=4q", "--size=1m"])
        .assert()
        .code(2)
        .stderr(contains("bs"))
        .stderr(contains("4q"));
    t.run(&["--name=x", "--time_based", "--size=1m"])
        .assert()
        .code(2)
        .stderr(contains("runtime"));
    t.run(&["--name=x", "--rw=randread"])
        .assert()
        .code(2)
        .stderr(contains("--size"));
    t.run(&["--name=x", "--rw=sideways", "--size=1m"])
        .assert()
        .code(2)
        .stderr(contains("rw"));
    assert!(t.files().is_empty());
}

/// `"global options"` (absent, or a map) and each job's `"job options"` of a fio JSON document.
fn typed_options(doc: &Value) -> (Option<Value>, Vec<Value>) {
    let jobs = doc["jobs"].as_array().expect("jobs[]");
    (
        doc.get("global options").cloned(),
        jobs.iter().map(|j| j["job options"].clone()).collect(),
    )
}

/// Issue 28: fio-json's "job options" and "global options" hold what was typed, key for key
/// as fio 3.33 prints them for the same input: a plain command line, a job file with a
/// [global] section (options before it on the command line, an include, a valueless flag)
/// and a job file without one.
#[test]
fn fio_json_job_and_global_options_are_fios_for_the_same_input() {
    let test = "fio_json_job_and_global_options_are_fios_for_the_same_input";
    let t = TestDir::new();
    std::fs::write(
        t.path().join("with-global.fio"),
        "[global]\nioengine=null\nsize=1m ; a comment\ninclude common.inc\n\n\
         [a]\nreadwrite=read\nbs=4k\nnumjobs=2\n\n[b]\nstonewall\nrw=write\n",
    )
    .unwrap();
    std::fs::write(t.path().join("common.inc"), "iodepth=2\n").unwrap();
    std::fs::write(
        t.path().join("no-global.fio"),
        "[c]\nioengine=null\nsize=1m\nrw=randread\n",
    )
    .unwrap();
    let cases: [&[&str]; 4] = [
        &[
            "--name=x",
            "--ioengine=null",
            "--rw=randread",
            "--size=1m",
            "--numjobs=1",
            "--runtime=1",
        ],
        &["--runtime=1", "with-global.fio"],
        &["no-global.fio"],
        // An alias, a flag with and without a value, a group reported as one job (its first
        // member's options) and an option given twice.
        &[
            "--name=y",
            "--ioengine=null",
            "--readwrite=read",
            "--size=1m",
            "--stonewall",
            "--group_reporting=1",
            "--numjobs=2",
            "--bs=4k",
            "--bs=8k",
        ],
    ];
    for args in cases {
        let Some(mut fio) = common::fio_command(test, t.path()) else {
            return;
        };
        let fio = common::fio_json(fio.args(args));
        let ours = t
            .run(args)
            .arg("--output-format=fio-json")
            .output()
            .unwrap();
        assert!(
            ours.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&ours.stderr)
        );
        let ours: Value = serde_json::from_slice(&ours.stdout).unwrap();
        assert_eq!(typed_options(&ours), typed_options(&fio), "{args:?}");
        // In the order typed, as fio (serde_json keeps a document's key order here).
        let keys = |doc: &Value| -> Vec<Vec<String>> {
            let (global, jobs) = typed_options(doc);
            global
                .into_iter()
                .chain(jobs)
                .map(|o| o.as_object().unwrap().keys().cloned().collect())
                .collect()
        };
        assert_eq!(keys(&ours), keys(&fio), "{args:?}");
    }
}

/// Issue 28: fio's own `fio_jsonplus_clat2csv` reads diskmeter's json+ (and validates its
/// CSV against the bins), and the percentiles it computes from the bins are diskmeter's own
/// within one fio bin: the bins are diskmeter's exact histogram in fio's buckets.
#[test]
fn fio_jsonplus_clat2csv_reads_json_plus_and_agrees_on_percentiles() {
    let test = "fio_jsonplus_clat2csv_reads_json_plus_and_agrees_on_percentiles";
    if !require_tool(test, "fio_jsonplus_clat2csv") {
        return;
    }
    use diskmeter_report::fio_bins::plat_index;
    let t = TestDir::new();
    let out = t
        .run(&[
            "--name=p",
            "--ioengine=null",
            "--rw=randrw",
            "--size=64m",
            "--lat_percentiles=1",
            "--output-format=json+",
            "--output=plus.json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("plus.json")).unwrap())
            .unwrap();
    let csv_for = |extra: &[&str]| {
        // Debian's Python, which has python3-six (the script imports it).
        let out = std::process::Command::new("/usr/bin/python3")
            .current_dir(t.path())
            .args(["/usr/bin/fio_jsonplus_clat2csv", "plus.json", "plus.csv"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fio_jsonplus_clat2csv {extra:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    csv_for(&[]);
    assert!(csv_for(&["--validate"]).contains("plus_job0.csv validated"));
    let csv = std::fs::read_to_string(t.path().join("plus_job0.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').map(str::trim).collect();
    let rows: Vec<Vec<&str>> = lines
        .map(|l| l.split(',').map(str::trim).collect())
        .collect();
    let mut compared = 0;
    for direction in ["read", "write"] {
        for lat in ["clat_ns", "lat_ns"] {
            let object = &doc["jobs"][0][direction][lat];
            let bins = object["bins"].as_object().expect("json+ bins");
            let binned: u64 = bins.values().map(|v| v.as_u64().unwrap()).sum();
            assert_eq!(binned, object["N"].as_u64().unwrap(), "{direction} {lat}");
            let column = header
                .iter()
                .position(|h| *h == format!("{direction}_{lat}_percentile"))
                .unwrap();
            for (percent, ours) in object["percentile"].as_object().unwrap() {
                let fraction: f64 = percent.parse::<f64>().unwrap() / 100.0;
                let ours = ours.as_u64().unwrap();
                // The script's percentile of a bin is the share of IOs at or below it: the
                // first bin whose share reaches the percentile holds it.
                let theirs: u64 = rows
                    .iter()
                    .find(|r| {
                        r[column]
                            .parse::<f64>()
                            .is_ok_and(|f| f >= fraction - 1e-12)
                    })
                    .map(|r| r[0].parse().unwrap())
                    .unwrap();
                let (a, b) = (plat_index(ours), plat_index(theirs));
                assert!(
                    a.abs_diff(b) <= 1,
                    "{direction} {lat} p{percent}: diskmeter {ours} ns (fio bin {a}), \
                     fio_jsonplus_clat2csv {theirs} ns (fio bin {b})"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(
        compared,
        4 * 17,
        "fio's 17 default percentiles, 4 latency tables"
    );
}

/// Issue 28: `--output-format=terse` gives fio's terse v3 line (as many fields as fio's for
/// the same job, the same leading fields, the size-based amount of work in the same field),
/// `--terse-version=5` fio's v5 line; a comma list prints each format once, in fio's order.
#[test]
fn terse_lines_have_fios_fields_and_lists_print_in_fios_order() {
    let test = "terse_lines_have_fios_fields_and_lists_print_in_fios_order";
    if !require_tool(test, "fio") {
        return;
    }
    let t = TestDir::new();
    let job = [
        "--name=t",
        "--ioengine=null",
        "--rw=randrw",
        "--size=16m",
        "--description=a terse job",
    ];
    for version in ["3", "5"] {
        let terse = format!("--terse-version={version}");
        let fio = std::process::Command::new("fio")
            .current_dir(t.path())
            .args(job)
            .args(["--output-format=terse", &terse])
            .output()
            .unwrap();
        assert!(fio.status.success());
        let fio = String::from_utf8(fio.stdout).unwrap();
        let ours = t
            .run(&job)
            .args(["--output-format=terse", &terse])
            .output()
            .unwrap();
        assert!(ours.status.success());
        let ours = String::from_utf8(ours.stdout).unwrap();
        let fields = |s: &str| -> Vec<String> {
            let line = s.lines().find(|l| l.starts_with(version)).unwrap();
            line.split(';').map(str::to_string).collect()
        };
        let (fio, ours) = (fields(&fio), fields(&ours));
        assert_eq!(ours.len(), fio.len(), "v{version}: {ours:?}\n{fio:?}");
        assert_eq!(ours[0], version);
        assert!(ours[1].starts_with("diskmeter-"));
        assert_eq!(ours[2..5], fio[2..5], "jobname, groupid, error");
        // KiB read plus KiB written: 16 MiB in all, as fio. A direction has 41 fields in
        // v3 and 47 in v5 (bandwidth samples, IOPS statistics); reads start at field 5.
        let write_kb = if version == "3" { 5 + 41 } else { 5 + 47 };
        let kib = |f: &[String]| f[5].parse::<u64>().unwrap() + f[write_kb].parse::<u64>().unwrap();
        assert_eq!(kib(&ours), 16 * 1024);
        assert_eq!(kib(&fio), 16 * 1024);
        assert_eq!(ours.last(), Some(&"a terse job".to_string()));
    }
    // fio prints a list as terse, JSON, normal whatever the order given.
    let out = t
        .run(&job)
        .arg("--output-format=normal,fio-json,terse")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let terse_at = text.find("3;diskmeter-").unwrap();
    let json_at = text.find("{\n").unwrap();
    let normal_at = text.find("Run status group 0").unwrap();
    assert!(terse_at < json_at && json_at < normal_at, "{text}");
}

/// Issue 28: a public consumer of fio's JSON draws diskmeter's fio-json. PyPI's fio-plot
/// (pinned in scripts/test) picks its input files by `rw`, `iodepth`, `numjobs` and `bs` in
/// "job options" (plus "global options") and charts IOPS and latency per queue depth; it
/// runs headless with matplotlib's Agg backend.
#[test]
fn fio_plot_draws_diskmeters_fio_json() {
    let test = "fio_plot_draws_diskmeters_fio_json";
    if !require_tool(test, "fio-plot") {
        return;
    }
    let t = TestDir::new();
    std::fs::create_dir(t.path().join("results")).unwrap();
    for depth in ["1", "2"] {
        let out = t
            .run(&[
                "--ioengine=null",
                "--name=plot",
                "--rw=randread",
                "--bs=4k",
                &format!("--iodepth={depth}"),
                "--numjobs=1",
                "--size=16m",
                "--output-format=fio-json",
                &format!("--output=results/randread-{depth}-1.json"),
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = std::process::Command::new("fio-plot")
        .current_dir(t.path())
        .env("MPLBACKEND", "Agg")
        .args(["-i", "results", "-T", "diskmeter", "-l", "-r", "randread"])
        .args(["-d", "1", "2", "-n", "1"])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "fio-plot failed: {said}");
    let png = t
        .files()
        .into_iter()
        .find(|f| f.starts_with("diskmeter") && f.ends_with(".png"))
        .unwrap_or_else(|| panic!("fio-plot drew no PNG: {said}"));
    let decoder = png::Decoder::new(std::fs::File::open(t.path().join(&png)).unwrap());
    let reader = decoder.read_info().expect("a PNG");
    let info = reader.info();
    assert!(
        info.width >= 800 && info.height >= 400,
        "{}x{}",
        info.width,
        info.height
    );
}
