//! Every engine passes the same tests on real files: reads, writes, a 70/30 random mix
//! within 1 % of the asked mix, four clones (separately and group-reported), and
//! rate_iops=1000 holding 1000 +- 2 %.

use crate::common;

use common::TestDir;
use serde_json::Value;

fn direction<'a>(v: &'a Value, job: usize, dir: &str) -> &'a Value {
    &v["jobs"][job][dir]
}

fn ios(v: &Value, job: usize, dir: &str) -> u64 {
    direction(v, job, dir)["ios"].as_u64().expect("ios")
}

fn engine_arg(engine: &str) -> String {
    format!("--ioengine={engine}")
}

/// Direct IO where the engine does IO (the null engine ignores it).
fn job(engine: &str, rw: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "--name=t".into(),
        format!("--rw={rw}"),
        "--bs=4k".into(),
        "--direct=1".into(),
        "--iodepth=8".into(),
        engine_arg(engine),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run(t: &TestDir, args: &[String]) -> Value {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    t.run_json(&refs)
}

fn reads_every_block(engine: &str) {
    let t = TestDir::new();
    let v = run(&t, &job(engine, "randread", &["--size=4m"]));
    assert_eq!(ios(&v, 0, "read"), 1024, "{engine}: 4 MiB / 4 KiB");
    assert_eq!(ios(&v, 0, "write"), 0);
    assert_eq!(direction(&v, 0, "read")["bytes"].as_u64(), Some(4 << 20));
    let lat = &direction(&v, 0, "read")["lat"];
    assert_eq!(lat["count"].as_u64(), Some(1024));
    assert!(lat["min_ns"].as_u64().unwrap() > 0);
    assert!(t.files().is_empty(), "{engine}: the test file is removed");
}

fn writes(engine: &str) {
    let t = TestDir::new();
    let v = run(&t, &job(engine, "write", &["--size=4m"]));
    assert_eq!(ios(&v, 0, "write"), 1024, "{engine}");
    assert_eq!(ios(&v, 0, "read"), 0);
}

fn mix_70_30(engine: &str) {
    let t = TestDir::new();
    let v = run(
        &t,
        &job(engine, "randrw", &["--rwmixread=70", "--size=16m"]),
    );
    let (r, w) = (ios(&v, 0, "read") as f64, ios(&v, 0, "write") as f64);
    assert_eq!(r + w, 4096.0, "{engine}");
    let share = r / (r + w);
    assert!((share - 0.70).abs() <= 0.01, "{engine}: read share {share}");
}

fn four_clones(engine: &str) {
    let t = TestDir::new();
    let v = run(&t, &job(engine, "randread", &["--size=2m", "--numjobs=4"]));
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4, "{engine}: one entry per clone");
    for j in 0..4 {
        assert_eq!(ios(&v, j, "read"), 512, "{engine} clone {j}");
    }
    let v = run(
        &t,
        &job(
            engine,
            "randread",
            &["--size=2m", "--numjobs=4", "--group_reporting"],
        ),
    );
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1, "{engine}: merged");
    assert_eq!(ios(&v, 0, "read"), 2048);
    assert_eq!(v["jobs"][0]["workers"].as_u64(), Some(4));
    assert!(t.files().is_empty());
}

fn rate_iops_holds(engine: &str) {
    let t = TestDir::new();
    let v = run(
        &t,
        &job(
            engine,
            "randread",
            &[
                "--size=16m",
                "--rate_iops=1000",
                "--runtime=2",
                "--time_based",
            ],
        ),
    );
    let iops = direction(&v, 0, "read")["iops"].as_f64().unwrap();
    assert!((iops - 1000.0).abs() <= 20.0, "{engine}: {iops} IOPS");
    let intended = &direction(&v, 0, "read")["lat_intended"];
    assert!(
        intended["count"].as_u64().unwrap() > 0,
        "{engine}: latency from intended time recorded"
    );
}

macro_rules! engine_tests {
    ($($module:ident => $engine:literal),*) => {$(
        mod $module {
            #[test] fn reads_every_block() { super::reads_every_block($engine) }
            #[test] fn writes() { super::writes($engine) }
            #[test] fn mix_70_30_within_one_percent() { super::mix_70_30($engine) }
            #[test] fn four_clones() { super::four_clones($engine) }
            #[test] fn rate_iops_1000_holds() { super::rate_iops_holds($engine) }
        }
    )*};
}

engine_tests!(io_uring => "io_uring", libaio => "libaio", psync => "psync", null => "null");
