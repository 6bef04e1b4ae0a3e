//! Issue 28: fio's output contracts, checked against fio and fio's consumers: "job options"
//! and "global options" as fio prints them, json+ read by `fio_jsonplus_clat2csv`, terse
//! lines with fio's fields, format lists in fio's order, and PyPI's fio-plot drawing
//! diskmeter's fio-json.

use crate::common::{self, require_tool, TestDir};
use serde_json::Value;

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
/// [global] section (options before it on the command line, an include, a valueless flag),
/// a job file without one, both files at once, and a command line with an alias, flags with
/// and without a value, a reported group and an option typed twice.
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
    let cases: [&[&str]; 5] = [
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
        // Several files: fio prints the last file's global options only (none here).
        &["--runtime=1", "with-global.fio", "no-global.fio"],
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
    common::ok(
        t.run(&[
            "--name=p",
            "--ioengine=null",
            "--rw=randrw",
            "--size=64m",
            "--lat_percentiles=1",
            "--output-format=json+",
            "--output=plus.json",
        ])
        .output()
        .unwrap(),
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("plus.json")).unwrap())
            .unwrap();
    let csv_for = |extra: &[&str]| {
        // Debian's Python, which has python3-six (the script imports it).
        common::ok(
            std::process::Command::new("/usr/bin/python3")
                .current_dir(t.path())
                .args(["/usr/bin/fio_jsonplus_clat2csv", "plus.json", "plus.csv"])
                .args(extra)
                .output()
                .unwrap(),
        )
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
        common::ok(
            t.run(&[
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
            .unwrap(),
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
