//! Backwards IO (`rw=read:-8k`), the IO-error policy (`continue_on_error`, `ignore_error`)
//! with its error counts, and trim IO (`rw=trim`, `randtrim`, `trimwrite`): punched holes
//! in files, BLKDISCARD on a loop device, and the `trim` statistics in every output.

use crate::common;

use common::{fio_command, real_io, require_root, sh, TestDir};
use std::path::Path;

/// The (op, offset, length) lines of an iolog (fio's v2/v3 text), in order.
fn iolog_ios(path: &Path) -> Vec<(String, u64, u64)> {
    let text = std::fs::read_to_string(path).expect("read the iolog");
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // v3: time file op offset len; v2: file op offset len.
            let op_at = fields
                .iter()
                .position(|f| matches!(*f, "read" | "write" | "trim"))?;
            Some((
                fields[op_at].to_string(),
                fields.get(op_at + 1)?.parse().ok()?,
                fields.get(op_at + 2)?.parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn a_negative_skip_reads_backwards_at_fios_offsets() {
    let _io = real_io();
    let t = TestDir::new();
    let job = "[backwards-read]\nbs=4k\nrw=read:-8k\nfilename=data\nsize=64k\nioengine=psync\n";
    std::fs::write(t.path().join("data"), vec![7u8; 64 << 10]).unwrap();
    std::fs::write(
        t.path().join("back.fio"),
        format!("{job}write_iolog=dm.log\n"),
    )
    .unwrap();
    t.run(&["back.fio"]).assert().success();
    let ours = iolog_ios(&t.path().join("dm.log"));
    // 0, then from the end backwards: 56k, 52k, ..., 4k, 0 (fio's order).
    let mut expected = vec![0u64];
    expected.extend((0..15).rev().map(|k| k * 4096));
    let offsets: Vec<u64> = ours.iter().map(|io| io.1).collect();
    assert_eq!(offsets, expected);
    if let Some(mut fio) = fio_command("a_negative_skip_reads_backwards_at_fios_offsets", t.path())
    {
        std::fs::write(
            t.path().join("fio.fio"),
            format!("{job}write_iolog=fio.log\n"),
        )
        .unwrap();
        common::fio_json(fio.arg("fio.fio"));
        assert_eq!(ours, iolog_ios(&t.path().join("fio.log")));
    }
}

/// The job's direction object in diskmeter's JSON (`read`, `write`, `trim`).
fn ours<'a>(v: &'a serde_json::Value, direction: &str) -> &'a serde_json::Value {
    &v["jobs"][0][direction]
}

/// Allocated 512-byte blocks of a file (its st_blocks).
fn allocated_blocks(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).expect("stat").blocks()
}

/// Writes `mib` MiB of non-zero data to `path` and flushes it, so every block is allocated.
fn written_file(path: &Path, mib: usize) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).unwrap();
    file.write_all(&vec![0x5au8; mib << 20]).unwrap();
    file.sync_all().unwrap();
}

#[test]
fn a_trim_job_punches_holes_in_a_file_and_reports_trims_as_fio_does() {
    let _io = real_io();
    let t = TestDir::new();
    let data = t.path().join("data");
    written_file(&data, 4);
    let before = allocated_blocks(&data);
    let v = t.run_json(&[
        "--name=punch",
        "--filename=data",
        "--allow-destroy",
        "--rw=trim",
        "--bs=64k",
        "--size=2m",
        "--ioengine=psync",
    ]);
    let trim = ours(&v, "trim");
    assert_eq!(
        (trim["ios"].as_u64(), trim["bytes"].as_u64()),
        (Some(32), Some(2 << 20))
    );
    assert_eq!(
        trim["slat"]["count"], 0,
        "trims are synchronous: no submission latency"
    );
    assert_eq!(trim["clat"]["count"], 32);
    assert_eq!(ours(&v, "write")["ios"], 0, "a trim is not a write");
    let after = allocated_blocks(&data);
    // 2 MiB of the 4 MiB are holes now (4096 sectors), the length unchanged.
    assert!(after + 4096 <= before + 64, "st_blocks {before} -> {after}");
    assert_eq!(std::fs::metadata(&data).unwrap().len(), 4 << 20);
    assert_eq!(std::fs::read(&data).unwrap()[..65536], vec![0u8; 65536]);

    // The fio-compatible document fills fio's "trim" object.
    let out = t
        .run(&[
            "--name=punch",
            "--filename=data",
            "--allow-destroy",
            "--rw=randtrim",
            "--bs=4k",
            "--size=1m",
            "--iodepth=4",
            "--ioengine=io_uring",
            "--output-format=fio-json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fio: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trim = &fio["jobs"][0]["trim"];
    assert_eq!(
        (trim["total_ios"].as_u64(), trim["io_bytes"].as_u64()),
        (Some(256), Some(1 << 20))
    );
    assert_eq!(trim["slat_ns"]["N"], 0);
    assert_eq!(trim["lat_ns"]["N"], 256);
    assert_eq!(fio["jobs"][0]["write"]["total_ios"], 0);
}

#[test]
fn trims_discard_a_loop_device_like_fios_trims() {
    if !require_root("trims_discard_a_loop_device_like_fios_trims") {
        return;
    }
    let _io = real_io();
    let t = TestDir::new();
    let backing = t.path().join("backing");
    written_file(&backing, 8);
    let dev = sh(&format!("losetup -f --show {}", backing.display()));
    let detach = LoopGuard(dev.clone());
    let before = allocated_blocks(&backing);
    let job = |engine: &str| {
        vec![
            "--name=discard".to_string(),
            format!("--filename={dev}"),
            "--rw=trim".to_string(),
            "--bs=64k".to_string(),
            "--size=4m".to_string(),
            format!("--ioengine={engine}"),
            "--iodepth=4".to_string(),
        ]
    };
    let args = job("libaio");
    let mut ours_args: Vec<&str> = args.iter().map(String::as_str).collect();
    ours_args.push("--allow-destroy");
    let v = t.run_json(&ours_args);
    let trim = ours(&v, "trim");
    assert_eq!(
        (trim["ios"].as_u64(), trim["bytes"].as_u64()),
        (Some(64), Some(4 << 20))
    );
    assert_eq!(trim["errors"], 0);
    sh("sync");
    // The loop driver passes BLKDISCARD on as a punched hole in its backing file.
    let after = allocated_blocks(&backing);
    assert!(
        after + 8192 <= before + 128,
        "backing st_blocks {before} -> {after}"
    );
    if let Some(mut fio) = fio_command("trims_discard_a_loop_device_like_fios_trims", t.path()) {
        let fio = common::fio_json(fio.args(&args));
        let theirs = &fio["jobs"][0]["trim"];
        assert_eq!(theirs["total_ios"], trim["ios"]);
        assert_eq!(theirs["io_bytes"], trim["bytes"]);
        assert_eq!(theirs["slat_ns"]["N"], 0, "fio trims synchronously too");
    }
    drop(detach);
}

/// Detaches a loop device made with `losetup -f --show` when dropped.
struct LoopGuard(String);

impl Drop for LoopGuard {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.0])
            .status();
    }
}

#[test]
fn trimwrite_trims_each_block_just_before_writing_it() {
    let t = TestDir::new();
    let v = t.run_json(&[
        "--name=tw",
        "--rw=trimwrite",
        "--bs=4k",
        "--size=256k",
        "--iodepth=8",
        "--ioengine=io_uring",
        "--write_iolog=tw.log",
    ]);
    // As fio: size counts the writes; each has its trim.
    assert_eq!(ours(&v, "write")["ios"], 64);
    assert_eq!(ours(&v, "trim")["ios"], 64);
    let ios = iolog_ios(&t.path().join("tw.log"));
    assert_eq!(ios.len(), 128);
    for (k, pair) in ios.chunks(2).enumerate() {
        assert_eq!(
            pair[0],
            ("trim".to_string(), k as u64 * 4096, 4096),
            "{pair:?}"
        );
        assert_eq!(
            pair[1],
            ("write".to_string(), k as u64 * 4096, 4096),
            "{pair:?}"
        );
    }
}

/// A tmpfs of 1 MiB mounted in the test folder, unmounted on drop.
struct SmallFs(std::path::PathBuf);

impl SmallFs {
    fn new(t: &TestDir) -> SmallFs {
        let at = t.path().join("small");
        std::fs::create_dir_all(&at).unwrap();
        sh(&format!("mount -t tmpfs -o size=1m none {}", at.display()));
        SmallFs(at)
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn continue_on_error_counts_the_errors_it_goes_on_after_as_fio_does() {
    if !require_root("continue_on_error_counts_the_errors_it_goes_on_after_as_fio_does") {
        return;
    }
    let t = TestDir::new();
    let fs = SmallFs::new(&t);
    // A 4 MiB sparse file on a 1 MiB filesystem: the 17th 64 KiB write finds it full.
    let job = [
        "--name=full",
        "--filename=f",
        "--rw=write",
        "--bs=64k",
        "--size=4m",
        "--ioengine=psync",
        "--continue_on_error=write",
        "--ignore_error=,ENOSPC",
    ];
    let sparse = || {
        let _ = std::fs::remove_file(fs.0.join("f"));
        std::fs::File::create(fs.0.join("f"))
            .unwrap()
            .set_len(4 << 20)
            .unwrap();
    };
    sparse();
    let out = t
        .run(&job)
        .args(["--allow-destroy", "--output-format=fio-json"])
        .current_dir(&fs.0)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "went on: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = &v["jobs"][0];
    assert_eq!(ours["total_err"], 48);
    assert_eq!(ours["first_error"], 28);
    assert_eq!(ours["error"], 28);
    assert_eq!(ours["write"]["io_bytes"], 1 << 20);
    assert_eq!(
        ours["write"]["total_ios"], 64,
        "fio counts the failed IOs as issued"
    );
    if let Some(mut fio) = fio_command(
        "continue_on_error_counts_the_errors_it_goes_on_after_as_fio_does",
        &fs.0,
    ) {
        sparse();
        let theirs = common::fio_json(fio.args(job));
        let theirs = &theirs["jobs"][0];
        for key in ["total_err", "first_error", "error"] {
            assert_eq!(ours[key], theirs[key], "{key}");
        }
        for key in ["io_bytes", "total_ios"] {
            assert_eq!(ours["write"][key], theirs["write"][key], "write.{key}");
        }
    }

    // Without the policy the first ENOSPC ends the job, and is counted as the one error.
    sparse();
    let out = t
        .run(&job[..6])
        .args(["--allow-destroy", "--output-format=json", "--error_dump=1"])
        .current_dir(&fs.0)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = &v["jobs"][0]["io_errors"];
    assert_eq!(errors["total"], 1);
    assert_eq!(errors["first_errno"], 28);
    assert_eq!(errors["continue_on_error"], false);
    assert_eq!(errors["dump"][0]["offset_bytes"], 1 << 20);
    assert_eq!(errors["dump"][0]["continued"], false);
}

#[test]
fn an_error_outside_the_ignore_list_still_ends_the_job() {
    if !require_root("an_error_outside_the_ignore_list_still_ends_the_job") {
        return;
    }
    let t = TestDir::new();
    let fs = SmallFs::new(&t);
    std::fs::File::create(fs.0.join("f"))
        .unwrap()
        .set_len(4 << 20)
        .unwrap();
    // continue_on_error=all goes on after EIO and EILSEQ only (fio's default list).
    t.run(&[
        "--name=full",
        "--filename=f",
        "--rw=write",
        "--bs=64k",
        "--size=4m",
        "--ioengine=psync",
        "--continue_on_error=all",
        "--allow-destroy",
    ])
    .current_dir(&fs.0)
    .assert()
    .code(1)
    .stderr(predicates::str::contains("No space left on device"));
}

#[test]
fn trims_and_error_counts_are_kept_in_the_history() {
    let t = TestDir::new();
    let data = t.path().join("history");
    let diskmeter = |args: &[&str]| {
        let out = common::command()
            .current_dir(t.path())
            .env("XDG_DATA_HOME", &data)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    diskmeter(&[
        "run",
        "--quiet",
        "--name=kept",
        "--ioengine=null",
        "--rw=randtrimwrite",
        "--bs=4k",
        "--size=1m",
        "--continue_on_error=io",
    ]);
    let stored: serde_json::Value =
        serde_json::from_str(&diskmeter(&["export", "1", "--format=json"])).unwrap();
    let job = &stored["steps"][0]["result"]["jobs"][0];
    assert_eq!(job["trim"]["ios"], 256);
    assert_eq!(job["write"]["ios"], 256);
    assert_eq!(job["io_errors"]["total"], 0);
    assert_eq!(job["io_errors"]["continue_on_error"], true);
    let fio: serde_json::Value =
        serde_json::from_str(&diskmeter(&["export", "1", "--format=fio-json"])).unwrap();
    let fio = if fio.is_array() { &fio[0] } else { &fio };
    assert_eq!(fio["jobs"][0]["trim"]["total_ios"], 256);
    assert_eq!(fio["jobs"][0]["total_err"], 0);
    let shown = diskmeter(&["show", "1", "--full"]);
    assert!(shown.contains("trim: IOPS="), "{shown}");
}

/// fio trims a share of the blocks of its verify log (`trim_percentage` is a child of
/// `verify`): a job that verifies trims them, and its check finds them zeroed
/// (`trim_verify_zero`); a job that does not verify trims nothing, as fio.
#[test]
fn trim_backlog_trims_its_share_of_the_written_blocks_of_a_verifying_job() {
    let _io = real_io();
    let t = TestDir::new();
    let job = [
        "--name=backlog",
        "--filename=data",
        "--unlink=0",
        "--rw=write",
        "--bs=64k",
        "--size=8m",
        "--ioengine=psync",
        "--trim_percentage=50",
        "--trim_backlog=8",
    ];
    let unverified = t.run_json(&job);
    assert_eq!(ours(&unverified, "write")["ios"], 128);
    let trims = ours(&unverified, "trim")["ios"].as_u64().unwrap_or(0);
    assert_eq!(trims, 0, "no verify, no trims, as fio");
    let v = t.run_json(&[&job[..], &["--verify=crc32c"]].concat());
    let writes = ours(&v, "write")["ios"].as_u64().unwrap();
    let trims = ours(&v, "trim")["ios"].as_u64().unwrap();
    assert_eq!(writes, 128, "trims do not count towards size");
    assert!((40..=88).contains(&trims), "about half of 128: {trims}");
    // Every written block read back: the trimmed ones as zeros.
    let verify = &v["jobs"][0]["verify"];
    assert_eq!(verify["blocks"], 128, "{verify}");
    assert_eq!(verify["errors"], 0, "{verify}");
    // Every trimmed 64 KiB block is a hole now.
    let data = t.path().join("data");
    sh(&format!("sync {}", data.display()));
    let kept = allocated_blocks(&data);
    let expected = (writes - trims) * 128;
    assert!(
        kept.abs_diff(expected) <= 128,
        "{kept} sectors allocated, {expected} expected after {trims} trims"
    );
}

#[test]
fn a_logged_trim_is_replayed_as_a_trim() {
    let _io = real_io();
    let t = TestDir::new();
    t.run(&[
        "--name=rec",
        "--filename=data",
        "--unlink=0",
        "--rw=randtrimwrite",
        "--bs=8k",
        "--size=512k",
        "--ioengine=psync",
        "--write_iolog=rec.log",
    ])
    .assert()
    .success();
    let logged = iolog_ios(&t.path().join("rec.log"));
    assert_eq!(logged.iter().filter(|io| io.0 == "trim").count(), 64);
    let v = t.run_json(&[
        "--name=again",
        "--read_iolog=rec.log",
        "--allow-destroy",
        "--ioengine=io_uring",
        "--iodepth=4",
    ]);
    assert_eq!(ours(&v, "trim")["ios"], 64);
    assert_eq!(ours(&v, "write")["ios"], 64);
    assert_eq!(ours(&v, "trim")["bytes"], 512 << 10);
}

#[test]
fn trims_take_fios_block_size_from_bs() {
    let t = TestDir::new();
    for bs in ["16k", "4k,8k", "4k,8k,32k", ",,16k"] {
        let job = ["--name=sizes", "--rw=trim", "--ioengine=null", "--size=1m"];
        let bs_arg = format!("--bs={bs}");
        let mut args = job.to_vec();
        args.push(&bs_arg);
        let v = t.run_json(&args);
        let trims = ours(&v, "trim")["ios"].as_u64().unwrap();
        if let Some(mut fio) = fio_command("trims_take_fios_block_size_from_bs", t.path()) {
            let theirs = common::fio_json(fio.args(&args));
            assert_eq!(theirs["jobs"][0]["trim"]["total_ios"], trims, "bs={bs}");
        }
        let expected = match bs {
            "16k" | ",,16k" => 64,
            "4k,8k" => 128,
            _ => 32,
        };
        assert_eq!(trims, expected, "bs={bs}");
    }
}
