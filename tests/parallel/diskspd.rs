//! `diskmeter diskspd` through the real binary (issue 3, DiskSpd part): the guides' command
//! lines at test scale, the write mix, and well-formed XML (its throttles, a measured rate, are
//! judged in tests/alone/diskspd_throttles.rs); issue 19:
//! notes for switches that change nothing here, refusals, and the new switches' mappings;
//! -D<ms>: the series sampled at that interval, IopsStdDev in the text and buckets in -Rxml.

use crate::common;

use common::diskspd::{command as diskspd, sum, xml};
use common::{real_io, TestDir};
use predicates::prelude::*;

#[test]
fn the_guides_command_lines_run_at_test_scale() {
    let _turn = real_io();
    let dir = TestDir::new();
    // D8ds_v4, 8K random writes: -c200G -W30 -d30 in the guide.
    diskspd(
        &dir,
        "-c32M -w100 -b8K -F4 -r -o128 -W1 -d2 -Sh -L testfile.dat",
    )
    .assert()
    .success()
    .stdout(predicate::str::contains("thread count:\t\t4"))
    .stdout(predicate::str::contains("performing write test"))
    .stdout(predicate::str::contains(
        "using random I/O (alignment: 8192)",
    ))
    .stdout(predicate::str::contains(
        "  %-ile |  Read (ms) | Write (ms) | Total (ms)",
    ))
    .stdout(predicate::str::contains("9-nines"));
    // D8ds_v4, 4K random reads: -c200G -W7200 -d30 in the guide.
    let doc = xml(
        &dir,
        "-c32M -w0 -b4K -F4 -r -o128 -W1 -d2 -Sh -L testfile.dat",
    );
    assert!(sum(&doc, "ReadCount") > 0);
    assert_eq!(sum(&doc, "WriteCount"), 0);
    assert_eq!(doc.matches("<Thread>").count(), 4);
    assert!(dir.files().is_empty(), "left files: {:?}", dir.files());
}

#[test]
fn write_percentage_holds_within_one_point() {
    let _turn = real_io();
    let dir = TestDir::new();
    let doc = xml(&dir, "-c16M -w30 -b4K -t1 -r -o8 -W0 -d1 -Sh t.dat");
    let (reads, writes) = (sum(&doc, "ReadCount"), sum(&doc, "WriteCount"));
    let share = writes as f64 / (reads + writes) as f64 * 100.0;
    assert!((share - 30.0).abs() <= 1.0, "{share}% writes");
}

#[test]
fn random_share_and_threads_reach_the_jobs() {
    let dir = TestDir::new();
    diskspd(&dir, "--dry-run -c16M -rs60 -t3 -o4 a.dat b.dat")
        .assert()
        .success()
        .stdout(predicate::str::contains("percentage_random=60"))
        .stdout(predicate::str::contains("[diskspd-0]"))
        .stdout(predicate::str::contains("[diskspd-1]"))
        .stdout(predicate::str::contains("numjobs=3"));
}

#[test]
fn switches_that_cannot_be_honoured_are_clear_errors() {
    let dir = TestDir::new();
    diskspd(&dir, "-Sm t.dat")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "diskspd -Sm: memory-mapped IO (-Sm, and its flush modes -N) is not supported",
        ));
    diskspd(&dir, "-b4K")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at least one target"));
    diskspd(&dir, "-b4K #2")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "diskspd #2: physical disk numbers",
        ));
    diskspd(&dir, "-b4K E:\\bench\\io.dat")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a Windows drive path"));
}

#[test]
fn switches_that_change_nothing_here_print_a_note_and_dry_run() {
    let dir = TestDir::new();
    diskspd(
        &dir,
        "--dry-run -c8M -n -e -Sr -v -l -x -b8K \u{2013}o4 -D100 t.dat",
    )
    .assert()
    .success()
    .stderr(predicate::str::contains("note: diskspd -n: "))
    .stderr(predicate::str::contains("note: diskspd -e: ETW tracing"))
    .stderr(predicate::str::contains("note: diskspd -Sr: "))
    .stderr(predicate::str::contains("note: diskspd -l: "))
    .stderr(predicate::str::contains("read as -o4"))
    .stdout(predicate::str::contains("iodepth=4"));
}

#[test]
fn distributions_bursts_priority_and_affinity_reach_the_jobs() {
    let dir = TestDir::new();
    diskspd(
        &dir,
        "--dry-run -c16M -b4K -r -rdpct90/10:0/10 -i8 -j2 -I1 -a0 -O8 -F1 a.dat",
    )
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "random_distribution=zoned:90/10:0/10:10/80",
    ))
    .stdout(predicate::str::contains("thinktime=2ms"))
    .stdout(predicate::str::contains("thinktime_blocks=8"))
    .stdout(predicate::str::contains("prioclass=3"))
    .stdout(predicate::str::contains("cpus_allowed=0"))
    .stdout(predicate::str::contains("iodepth=8"));
}

#[test]
fn cool_down_runs_after_the_measured_period_and_is_not_counted() {
    let _turn = real_io();
    let dir = TestDir::new();
    let started = std::time::Instant::now();
    let text = xml(&dir, "-c8M -b4K -o4 -r -d1 -W0 -C1 cool.dat");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(2),
        "the load ran on for the cool-down"
    );
    assert!(text.contains("<Cooldown>1</Cooldown>"), "{text}");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let seconds: f64 = doc
        .descendants()
        .find(|n| n.has_tag_name("TestTimeSeconds"))
        .and_then(|n| n.text()?.trim().parse().ok())
        .unwrap();
    assert!((0.9..1.2).contains(&seconds), "measured {seconds} s");
}

#[test]
fn alignment_stride_thread_stride_and_interlocked_sequential_run() {
    let _turn = real_io();
    let dir = TestDir::new();
    diskspd(&dir, "-c8M -b4K -r512 -o2 -d1 -W0 a.dat")
        .assert()
        .success()
        .stdout(predicate::str::contains("random I/O (alignment: 512)"));
    diskspd(&dir, "-c8M -b4K -s16K -t2 -T4K -o2 -d1 -W0 b.dat")
        .assert()
        .success()
        .stdout(predicate::str::contains("sequential I/O (stride: 16384)"));
    // -si: two threads on one sequential position, so no block is written twice and the
    // written blocks are one run from the start of the file. Threads of their own would
    // each start at block 0 and together cover half as many blocks as they wrote. The file
    // is zeros and DiskSpd's buffers random, so a written block is one that is not all
    // zeros; the throttle keeps the writes (~200) short of the file's 1,024 blocks, so the
    // position never wraps.
    let file = dir.path().join("c.dat");
    std::fs::write(&file, vec![0u8; 64 << 20]).unwrap();
    let out = diskspd(
        &dir,
        "--allow-destroy --throttle-iops=200 -Rxml -c64M -b64K -si -t2 -o1 -d1 -W0 -w100 -Sh c.dat",
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let writes = sum(&String::from_utf8(out.stdout).unwrap(), "WriteCount");
    let data = std::fs::read(&file).unwrap();
    let written: Vec<usize> = data
        .chunks(64 << 10)
        .enumerate()
        .filter(|(_, block)| block.iter().any(|&b| b != 0))
        .map(|(i, _)| i)
        .collect();
    // An IO still in flight when the time is up is written but not counted: one per thread.
    assert!(
        (writes..=writes + 2).contains(&(written.len() as u64)),
        "{writes} writes counted, {} blocks written",
        written.len()
    );
    assert!(writes > 20, "{writes} writes");
    assert_eq!(
        written.last().map(|&last| last + 1),
        Some(written.len()),
        "the written blocks are one run from the start"
    );
}

/// -f beyond an existing file's end and -rdabs ranges past it, as DiskSpd reads them
/// (issue 19, dsf); fio's zoned_abs past the end stays refused, as fio stops there.
#[test]
fn f_past_the_end_uses_the_file_and_rdabs_past_it_is_reweighted() {
    let dir = TestDir::new();
    std::fs::write(dir.path().join("t.dat"), vec![0u8; 1 << 20]).unwrap();
    diskspd(&dir, "--dry-run -d1 -b4K -f10G t.dat")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "t.dat (File, UseExisting): bytes 0..1048576",
        ))
        .stdout(predicate::str::contains("the file as it is"));
    // 90 % in 2 MiB (cut at 1 MiB), 10 % past the end: dropped, all IO in the first range.
    diskspd(&dir, "--dry-run -d1 -r -b4K -rdabs90/2M:10/1M t.dat")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "re-weighted, as DiskSpd does: 100.0% in 0..1048576",
        ));
    diskspd(&dir, "--dry-run -d1 -r -b4K -rdabs0/2M:100/1M t.dat")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("-rdabs").and(predicate::str::contains(
                "no range with IO starts inside the region",
            )),
        );
    std::fs::write(
        dir.path().join("z.fio"),
        "[z]\nfilename=t.dat\nrw=randread\nrandom_distribution=zoned_abs:60/512k:40/1m\n",
    )
    .unwrap();
    common::command()
        .current_dir(dir.path())
        .args(["run", "--dry-run", "z.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("zoned_abs sizes exceed file size"));
}

#[test]
fn d100_samples_every_100_ms_with_iops_stddev_in_text_and_buckets_in_xml() {
    let _turn = real_io();
    let dir = TestDir::new();
    let db = dir.path().join("h.db");
    let db = db.to_str().unwrap();
    let out = diskspd(
        &dir,
        &format!("--db {db} -c4M -b4K -r -o2 -W0 -d1 -D100 -L d.dat"),
    )
    .output()
    .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("gathering IOPS at intervals of 100ms"),
        "{text}"
    );
    for title in ["Total IO", "Read IO", "Write IO"] {
        let table = text.split(title).nth(1).unwrap();
        let head = table.lines().nth(1).unwrap();
        assert!(head.contains("| IopsStdDev |"), "{title}: {head}");
    }
    // The stored result: ~10 samples of 100 ms (the last may be cut short).
    let exported = common::ok(common::diskmeter(
        dir.path(),
        &["export", "last", "--format=json", "--db", db],
    ));
    let stored: serde_json::Value = serde_json::from_str(&exported).unwrap();
    let series = stored["steps"][0]["result"]["jobs"][0]["series"]
        .as_array()
        .unwrap()
        .clone();
    let whole = series.iter().filter(|s| s["duration_ms"] == 100).count();
    assert!((9..=11).contains(&whole), "{series:?}");
    assert!(series
        .iter()
        .all(|s| s["duration_ms"].as_u64().unwrap() <= 100));

    let doc = xml(&dir, "-c4M -b4K -r -o2 -W0 -d1 -D100 d.dat");
    let parsed = roxmltree::Document::parse(&doc).unwrap();
    let buckets: Vec<u64> = parsed
        .descendants()
        .filter(|n| n.has_tag_name("Bucket") && n.has_attribute("SampleMillisecond"))
        .filter(|n| {
            n.parent()
                .and_then(|p| p.parent())
                .is_some_and(|g| g.has_tag_name("TimeSpan"))
        })
        .map(|n| n.attribute("SampleMillisecond").unwrap().parse().unwrap())
        .collect();
    assert!((9..=11).contains(&buckets.len()), "{doc}");
    assert_eq!(buckets[..3], [100, 200, 300], "{doc}");
    assert!(
        doc.contains("<IopsStdDev>") && doc.contains("<ReadIopsStdDev>"),
        "{doc}"
    );
}
