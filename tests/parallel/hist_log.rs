//! fio's completion-latency histogram log (`write_hist_log`, `log_hist_msec`,
//! `log_hist_coarseness`): diskmeter writes the file fio writes for the same job (name,
//! columns, directions), and fio's own reader, `fiologparser_hist.py` from Debian's fio
//! package, reads it and gives the run's own percentiles within the log's bucket error.

use crate::common;

use assert_cmd::Command;
use common::{require_tool, skip, TestDir};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where Debian's fio package puts fio's histogram-log reader (gzipped).
const PARSER_GZ: &str = "/usr/share/doc/fio/fiologparser_hist.py.gz";
/// Debian's Python, which has python3-pandas and python3-numpy (the reader imports them);
/// a `python3` earlier on PATH may be another installation without them.
const DEBIAN_PYTHON: &str = "/usr/bin/python3";

/// fio 3.x's bins at coarseness 0 (29 groups of 64).
const FIO_BINS: usize = 1856;

/// The reader, unpacked into `dir`; `None` (with a SKIP line) where the fio package or
/// pandas is missing.
fn parser(test: &str, dir: &Path) -> Option<PathBuf> {
    if !require_tool(test, "gzip") {
        return None;
    }
    if !Path::new(PARSER_GZ).exists() {
        skip(
            test,
            &format!("{PARSER_GZ} is missing (Debian's fio package ships it)"),
        );
        return None;
    }
    let pandas = std::process::Command::new(DEBIAN_PYTHON)
        .args(["-c", "import pandas, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !pandas {
        skip(
            test,
            "fiologparser_hist.py needs python3-pandas (scripts/test installs it as root)",
        );
        return None;
    }
    let mut text = String::new();
    std::process::Command::new("gzip")
        .args(["-dc", PARSER_GZ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run gzip")
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .expect("read the reader");
    let path = dir.join("fiologparser_hist.py");
    std::fs::write(&path, text).unwrap();
    Some(path)
}

/// The latencies, ns, that log column `column` holds at `coarseness`: `[lower, upper)`
/// (fio's bins: one per ns below 128, then 64 per power of two).
fn column_bounds(column: usize, coarseness: u32) -> (f64, f64) {
    let bin_bounds = |bin: usize| -> (u64, u64) {
        let bin = bin as u64;
        if bin < 128 {
            return (bin, bin + 1);
        }
        let dropped = (bin >> 6) - 1;
        let width = 1u64 << dropped;
        let lower = (1u64 << (dropped + 6)) + (bin % 64) * width;
        (lower, lower + width)
    };
    let stride = 1usize << coarseness;
    let first = column * stride;
    (
        bin_bounds(first).0 as f64,
        bin_bounds(first + stride - 1).1 as f64,
    )
}

/// The column of the log at `coarseness` holding `ns`.
fn column_of(ns: f64, coarseness: u32) -> usize {
    (0..FIO_BINS >> coarseness)
        .find(|&c| column_bounds(c, coarseness).1 > ns)
        .unwrap_or((FIO_BINS >> coarseness) - 1)
}

/// The job of both tools: null-engine random reads for a second, a histogram line every
/// 100 ms.
fn job(coarseness: u32) -> Vec<String> {
    [
        "--name=h",
        "--ioengine=null",
        "--size=64m",
        "--rw=randread",
        "--iodepth=4",
        "--write_hist_log=h",
        "--log_hist_msec=100",
        "--time_based",
        "--runtime=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--log_hist_coarseness={coarseness}")])
    .collect()
}

/// (time, direction, block size, number of bins) of each line of a histogram log.
fn lines(path: &Path) -> Vec<(u64, u64, u64, usize, u64)> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            let columns: Vec<u64> = line
                .split(", ")
                .map(|c| c.parse().unwrap_or_else(|_| panic!("{line:?}")))
                .collect();
            let ios = columns[3..].iter().sum();
            (columns[0], columns[1], columns[2], columns.len() - 3, ios)
        })
        .collect()
}

#[test]
fn histogram_log_has_fios_name_and_columns() {
    let (ours, theirs) = (TestDir::new(), TestDir::new());
    if !require_tool("histogram_log_has_fios_name_and_columns", "fio") {
        return;
    }
    let job = job(2);
    let args: Vec<&str> = job.iter().map(String::as_str).collect();
    let out = Command::new("fio")
        .current_dir(theirs.path())
        .arg("--output=/dev/null")
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = ours.run_json(&args);
    assert_eq!(theirs.files(), ["h_clat_hist.1.log"]);
    assert!(ours.files().contains(&"h_clat_hist.1.log".to_string()));
    let (dm, fio) = (
        lines(&ours.path().join("h_clat_hist.1.log")),
        lines(&theirs.path().join("h_clat_hist.1.log")),
    );
    assert!(!fio.is_empty() && !dm.is_empty());
    for (time, direction, bs, bins, _) in dm.iter().chain(&fio) {
        assert_eq!(*bins, FIO_BINS >> 2, "1856 bins summed 4 at a time");
        assert_eq!((*direction, *bs), (0, 4096));
        assert!(*time <= 1100, "time {time} ms");
    }
    // A line per 100 ms window: fio drops the last, partial one, diskmeter writes it.
    assert!(
        dm.len().abs_diff(fio.len()) <= 2,
        "{} vs {}",
        dm.len(),
        fio.len()
    );
    let logged: u64 = dm.iter().map(|l| l.4).sum();
    assert_eq!(
        logged,
        run["jobs"][0]["read"]["ios"].as_u64().unwrap(),
        "every measured IO is in the log"
    );
}

/// The reader's percentiles over the whole run against the run's own (from its HDR
/// histogram, within 0.1 %): the reader interpolates between bucket midpoints, so its value
/// lies in the log's bucket holding the run's percentile or in a neighbour of it.
fn parser_matches_run(test: &str, coarseness: u32) {
    let dir = TestDir::new();
    let Some(parser) = parser(test, dir.path()) else {
        return;
    };
    let job = job(coarseness);
    let args: Vec<&str> = job.iter().map(String::as_str).collect();
    let run = dir.run_json(&args);
    let read = &run["jobs"][0]["read"];
    let out = std::process::Command::new(DEBIAN_PYTHON)
        .arg(&parser)
        .args(["--noweight", "--interval=100000", "--percentiles=50:90:99"])
        .arg(dir.path().join("h_clat_hist.1.log"))
        .output()
        .expect("run fiologparser_hist.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // end-time, samples, min, avg, median, 50%, 90%, 99%, max
    let row: Vec<f64> = stdout
        .lines()
        .nth(1)
        .unwrap_or_else(|| panic!("no statistics line: {stdout}"))
        .split(", ")
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(
        row[1] as u64,
        read["ios"].as_u64().unwrap(),
        "samples: {stdout}"
    );
    for (percent, from_log) in [(50.0, row[5]), (90.0, row[6]), (99.0, row[7])] {
        let own = read["clat"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["percent"].as_f64() == Some(percent))
            .unwrap()["value_ns"]
            .as_f64()
            .unwrap();
        let column = column_of(own, coarseness);
        let lower = column_bounds(column.saturating_sub(1), coarseness).0;
        let upper = column_bounds(column + 1, coarseness).1;
        assert!(
            from_log >= lower * 0.999 && from_log <= upper * 1.001,
            "p{percent}: the log gives {from_log} ns, the run {own} ns (buckets {lower}..{upper})"
        );
    }
}

#[test]
fn fios_parser_reads_the_finest_log_with_the_runs_percentiles() {
    parser_matches_run(
        "fios_parser_reads_the_finest_log_with_the_runs_percentiles",
        0,
    );
}

#[test]
fn fios_parser_reads_a_coarse_log_with_the_runs_percentiles() {
    parser_matches_run(
        "fios_parser_reads_a_coarse_log_with_the_runs_percentiles",
        4,
    );
}
