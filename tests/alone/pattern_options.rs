//! The pattern, sync, file and buffer options of fio's job files, run for real: block sizes
//! from bssplit/bsrange (against fio's own mix where fio is installed), `rw=...:N`, skewed
//! distributions, fsync/fdatasync/end_fsync, rate_min, filesize, create_on_open,
//! buffer_compress_percentage, fill_device and allow_mounted_write.

use crate::common;

use common::{real_io, require_root, require_tool, sh, LoopDevice, TestDir};
use predicates::prelude::*;
use serde_json::Value;
use std::os::unix::fs::MetadataExt;

fn direction<'a>(v: &'a Value, dir: &str) -> &'a Value {
    &v["jobs"][0][dir]
}

/// fio's JSON for `args` run in `dir`; `None` only where fio is not installed (a failing fio
/// fails the test).
fn fio_json(test: &str, dir: &std::path::Path, args: &[&str]) -> Option<Value> {
    Some(common::fio_json(common::fio_command(test, dir)?.args(args)))
}

fn mean_block(ios: u64, bytes: u64) -> f64 {
    bytes as f64 / ios as f64
}

#[test]
fn bssplit_and_bsrange_issue_fios_size_mix() {
    let t = TestDir::new();
    let cases = [
        // 25 % x 4 KiB + 75 % x 64 KiB.
        ("--bssplit=4k/25:64k/75", 50_176.0),
        // Uniform over the multiples of 4 KiB from 4 to 16 KiB.
        ("--bsrange=4k-16k", 10_240.0),
    ];
    for (option, expected) in cases {
        let common = [
            "--name=mix",
            "--ioengine=null",
            "--size=1g",
            "--rw=randread",
            "--norandommap",
            "--io_size=256m",
            option,
        ];
        let v = t.run_json(&common);
        let read = direction(&v, "read");
        let dm = mean_block(
            read["ios"].as_u64().unwrap(),
            read["bytes"].as_u64().unwrap(),
        );
        assert!(
            (dm / expected - 1.0).abs() < 0.015,
            "{option}: mean {dm}, expected {expected}"
        );
        if let Some(fio) = fio_json("bssplit_and_bsrange_issue_fios_size_mix", t.path(), &common) {
            let r = &fio["jobs"][0]["read"];
            let fio_mean = mean_block(
                r["total_ios"].as_u64().unwrap(),
                r["io_bytes"].as_u64().unwrap(),
            );
            assert!(
                (dm / fio_mean - 1.0).abs() < 0.02,
                "{option}: diskmeter {dm}, fio {fio_mean}"
            );
        }
    }
}

#[test]
fn a_bssplit_per_direction_and_the_terminal_view() {
    let t = TestDir::new();
    // Without the random map, so no IO shrinks to a free run (as fio's would with the map on:
    // tests/alone/job_semantics.rs, split_sizes_shrink_on_the_random_map_as_in_fio).
    let v = t.run_json(&[
        "--name=dirs",
        "--ioengine=null",
        "--size=256m",
        "--rw=randrw",
        "--bssplit=4k/50:8k/50,64k/",
        "--io_size=64m",
        "--norandommap",
    ]);
    let write = direction(&v, "write");
    assert_eq!(
        write["bytes"].as_u64().unwrap(),
        write["ios"].as_u64().unwrap() * 65536
    );
    let read = direction(&v, "read");
    let mean = mean_block(
        read["ios"].as_u64().unwrap(),
        read["bytes"].as_u64().unwrap(),
    );
    assert!((mean / 6144.0 - 1.0).abs() < 0.03, "read mean {mean}");
    t.run(&[
        "--name=dirs",
        "--ioengine=null",
        "--size=16m",
        "--rw=randrw",
        "--bssplit=4k/50:8k/50,64k/",
    ])
    .arg("--output-format=normal")
    .assert()
    .success()
    .stdout(predicate::str::contains("bs=(R) 4k/50:8k/50, (W) 65536 B"));
}

#[test]
fn sequential_holes_cover_what_fio_covers() {
    let _turn = real_io();
    let t = TestDir::new();
    let args = [
        "--name=holes",
        "--filename=h.dat",
        "--size=1m",
        "--rw=write:4k",
        "--bs=4k",
    ];
    let v = t.run_json(&args);
    let dm = direction(&v, "write")["ios"].as_u64().unwrap();
    // io_size defaults to size, so with 4 KiB holes the job wraps once: 256 writes.
    assert_eq!(dm, 256);
    if let Some(fio) = fio_json("sequential_holes_cover_what_fio_covers", t.path(), &args) {
        assert_eq!(fio["jobs"][0]["write"]["total_ios"].as_u64().unwrap(), dm);
    }
}

#[test]
fn skewed_and_suffixed_random_jobs_run_on_real_files() {
    let _turn = real_io();
    let t = TestDir::new();
    for (rw, distribution) in [
        ("randread", "zipf:1.2"),
        ("randread", "pareto:0.2:0.5"),
        ("randrw", "normal:10"),
        ("randread:8", "random"),
    ] {
        let v = t.run_json(&[
            "--name=skew",
            "--filename=s.dat",
            "--size=4m",
            "--io_size=2m",
            &format!("--rw={rw}"),
            &format!("--random_distribution={distribution}"),
            "--keep",
        ]);
        let ios = direction(&v, "read")["ios"].as_u64().unwrap()
            + direction(&v, "write")["ios"].as_u64().unwrap();
        assert_eq!(ios, 512, "{rw} {distribution}");
    }
}

#[test]
fn fsync_every_n_writes_counts_like_fio_and_end_fsync_is_not_counted() {
    let _turn = real_io();
    let t = TestDir::new();
    for engine in ["psync", "libaio"] {
        let mut args = vec![
            "--name=s",
            "--filename=f.dat",
            "--size=256k",
            "--rw=write",
            "--bs=4k",
            "--fsync=4",
            "--end_fsync=1",
        ];
        let engine_arg = format!("--ioengine={engine}");
        args.push(&engine_arg);
        let v = t.run_json(&args);
        // 64 writes: a sync after every 4th, except after the last (the job is done then).
        assert_eq!(v["jobs"][0]["sync"]["count"], 15, "{engine}");
        assert_eq!(direction(&v, "write")["ios"], 64);
        args[1] = "--filename=fio.dat";
        if let Some(fio) = fio_json(
            "fsync_every_n_writes_counts_like_fio_and_end_fsync_is_not_counted",
            t.path(),
            &args,
        ) {
            assert_eq!(fio["jobs"][0]["sync"]["total_ios"], 15, "fio {engine}");
        }
    }
    // fdatasync on io_uring, in diskmeter's fio-json too.
    let out = t
        .run(&[
            "--name=d",
            "--filename=g.dat",
            "--size=256k",
            "--rw=write",
            "--iodepth=4",
            "--fdatasync=8",
        ])
        .arg("--output-format=fio-json")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"][0]["sync"]["total_ios"], 7);
    assert!(v["jobs"][0]["sync"]["lat_ns"]["mean"].as_f64().unwrap() > 0.0);
}

#[test]
fn rate_min_ends_a_job_that_falls_below_it() {
    let t = TestDir::new();
    t.run(&[
        "--name=slow",
        "--ioengine=null",
        "--size=1g",
        "--rw=read",
        "--rate=100k",
        "--rate_min=1m",
        "--rate_cycle=200",
        "--runtime=5",
        "--time_based",
    ])
    .assert()
    .failure()
    .stderr(predicate::str::contains("rate_min not met"));
    // A job that keeps its floor runs to the end.
    t.run_json(&[
        "--name=fast",
        "--ioengine=null",
        "--size=1g",
        "--rw=read",
        "--rate_min=1m",
        "--rate_cycle=200",
        "--runtime=1",
        "--time_based",
    ]);
}

#[test]
fn filesize_ranges_and_create_on_open() {
    let _turn = real_io();
    let t = TestDir::new();
    t.run_json(&[
        "--name=fs",
        "--nrfiles=4",
        "--filesize=1m-2m",
        "--bs=64k",
        "--rw=write",
        "--keep",
    ]);
    let sizes: Vec<u64> = (0..4)
        .map(|i| {
            std::fs::metadata(t.path().join(format!("fs.0.{i}")))
                .unwrap()
                .len()
        })
        .collect();
    for size in &sizes {
        assert!((1 << 20..=2 << 20).contains(size), "{sizes:?}");
        assert_eq!(size % 65536, 0, "{sizes:?}");
    }
    // create_on_open: the file is not written before the job, so a job that writes 1 MiB
    // of a 64 MiB file leaves about 1 MiB allocated.
    t.run_json(&[
        "--name=open",
        "--filesize=64m",
        "--io_size=1m",
        "--rw=write",
        "--bs=64k",
        "--create_on_open=1",
        "--keep",
    ]);
    let meta = std::fs::metadata(t.path().join("open.0.0")).unwrap();
    assert_eq!(meta.len(), 64 << 20);
    let allocated = meta.blocks() * 512;
    assert!(allocated <= 4 << 20, "{allocated} bytes allocated");
}

#[test]
fn compressible_buffers_compress_to_the_asked_share() {
    let _turn = real_io();
    if !require_tool("compressible_buffers", "gzip") {
        return;
    }
    let t = TestDir::new();
    t.run_json(&[
        "--name=c",
        "--filename=c.dat",
        "--size=4m",
        "--rw=write",
        "--bs=64k",
        "--buffer_compress_percentage=60",
        "--keep",
    ]);
    let compressed: u64 = sh(&format!(
        "gzip -c {} | wc -c",
        t.path().join("c.dat").display()
    ))
    .parse()
    .unwrap();
    let ratio = compressed as f64 / (4 << 20) as f64;
    // 60 % zeros: about 40 % remains (gzip adds a little for the random part).
    assert!((0.38..0.45).contains(&ratio), "compressed to {ratio}");
}

#[test]
fn fill_device_writes_until_the_filesystem_is_full() {
    let _turn = real_io();
    if !require_root("fill_device") {
        return;
    }
    let t = TestDir::new();
    let mount = t.path().join("small");
    std::fs::create_dir_all(&mount).unwrap();
    sh(&format!(
        "mount -t tmpfs -o size=8m tmpfs {}",
        mount.display()
    ));
    let run = t
        .run(&[
            "--name=fill",
            &format!("--directory={}", mount.display()),
            "--rw=write",
            "--bs=64k",
            "--fill_device=1",
        ])
        .arg("--output-format=json")
        .output()
        .unwrap();
    sh(&format!("umount {}", mount.display()));
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    let written = direction(&v, "write")["bytes"].as_u64().unwrap();
    assert!(
        ((7 << 20)..=(8 << 20)).contains(&written),
        "{written} bytes written to an 8 MiB filesystem"
    );
    assert_eq!(v["jobs"][0]["error"], Value::Null);
}

#[test]
fn allow_mounted_write_lifts_only_the_mounted_refusal() {
    if !require_root("allow_mounted_write") || !require_tool("allow_mounted_write", "mkfs.ext4") {
        return;
    }
    let t = TestDir::new();
    let mut device = LoopDevice::new(t.path(), "backing", 32);
    sh(&format!("mkfs.ext4 -q {}", device.dev));
    device.mount_read_only(&t.path().join("mnt"));
    let before = device.fingerprint();
    let args = [
        "--name=m".to_string(),
        format!("--filename={}", device.dev),
        "--rw=write".to_string(),
        "--size=1m".to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    t.run(&args)
        .assert()
        .failure()
        .stderr(predicate::str::contains("it is mounted"));
    let mut allowed = args.clone();
    allowed.push("--allow_mounted_write=1");
    t.run(&allowed)
        .assert()
        .failure()
        .stderr(predicate::str::contains("it is mounted").not())
        .stderr(predicate::str::contains("filesystem"))
        // Still mounted: the file on its filesystem is offered, not "mount it" (issue 32).
        .stderr(predicate::str::contains(format!(
            "use a file on its filesystem instead: --filename={}",
            t.path().join("mnt/diskmeter.dat").display()
        )))
        .stderr(predicate::str::contains("--allow-destroy"));
    assert_eq!(device.fingerprint(), before, "nothing was written");
}

/// Share of the IOs in a per-IO fio-format log (with `log_offset=1`) that went to the
/// hottest `top` share of the `blocks` blocks.
fn hot_share(log: &std::path::Path, blocks: usize, top: f64) -> f64 {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let mut hits = vec![0u64; blocks];
    let mut total = 0u64;
    for line in text.lines() {
        let offset: u64 = line.split(',').nth(4).unwrap().trim().parse().unwrap();
        hits[(offset / 4096) as usize] += 1;
        total += 1;
    }
    hits.sort_unstable_by(|a, b| b.cmp(a));
    let k = (blocks as f64 * top) as usize;
    hits[..k].iter().sum::<u64>() as f64 / total as f64
}

#[test]
fn skewed_distributions_concentrate_like_fios() {
    let t = TestDir::new();
    let blocks = 4096; // 16 MiB of 4 KiB blocks
    for (distribution, top, expected) in [
        // P(rank <= k) = zeta(k) / zeta(n) for Zipf; the 80/20 rule for Pareto 0.2.
        ("zipf:1.2", 0.01, zipf_share(41, blocks as u64, 1.2)),
        ("pareto:0.2", 0.2, 0.8),
        // Zoned: 80 % of the IOs on the first 20 % of the region, by construction.
        ("zoned:80/20:20/80", 0.2, 0.8),
    ] {
        let args = [
            "--name=skew",
            "--ioengine=null",
            "--size=16m",
            "--io_size=400m",
            "--rw=randread",
            "--bs=4k",
            &format!("--random_distribution={distribution}"),
            "--write_lat_log=dm",
            "--log_offset=1",
        ];
        t.run_json(&args);
        let dm = hot_share(&t.path().join("dm_lat.1.log"), blocks, top);
        assert!(
            (dm - expected).abs() < 0.03,
            "{distribution}: diskmeter {dm}, expected {expected}"
        );
        let mut fio_args = args.to_vec();
        fio_args[7] = "--write_lat_log=fio";
        if fio_json(
            "skewed_distributions_concentrate_like_fios",
            t.path(),
            &fio_args,
        )
        .is_some()
        {
            let fio = hot_share(&t.path().join("fio_lat.1.log"), blocks, top);
            assert!(
                (dm - fio).abs() < 0.04,
                "{distribution}: diskmeter {dm}, fio {fio}"
            );
        }
    }
}

fn zipf_share(k: u64, n: u64, theta: f64) -> f64 {
    let zeta = |n: u64| (1..=n).map(|i| (i as f64).powf(-theta)).sum::<f64>();
    zeta(k) / zeta(n)
}
