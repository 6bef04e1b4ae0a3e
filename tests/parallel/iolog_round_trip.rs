//! fio's iologs both ways (issue 15): an iolog written by fio replays under diskmeter with
//! the same IO count and bytes, and the iolog diskmeter writes while replaying it replays
//! under fio with the same IO count and bytes again. (tests/alone/replay.rs starts from a
//! diskmeter recording.)

use crate::common;

use common::{fio_command, fio_json, real_io, TestDir};
use std::path::Path;

/// (IOs, bytes) of the reads and writes of the version 3 iolog at `path`.
fn logged(path: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(path).expect("read the log");
    assert_eq!(text.lines().next(), Some("fio version 3 iolog"));
    text.lines()
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                [_, _, "read" | "write", _, length] => Some(length.parse::<u64>().unwrap()),
                _ => None,
            },
        )
        .fold((0, 0), |(ios, bytes), length| (ios + 1, bytes + length))
}

#[test]
fn an_iolog_written_by_fio_replays_under_diskmeter_and_back_under_fio() {
    let _turn = real_io();
    let dir = TestDir::new();
    let test = "an_iolog_written_by_fio_replays_under_diskmeter_and_back_under_fio";
    // fio records a mixed run of two block sizes on a file it lays out.
    let Some(mut fio) = fio_command(test, dir.path()) else {
        return;
    };
    fio_json(fio.args([
        "--name=app",
        "--filename=data",
        "--size=8m",
        "--ioengine=psync",
        "--rw=randrw",
        "--rwmixread=70",
        "--bssplit=4k/60:64k/40",
        "--io_size=12m",
        "--write_iolog=fio.log",
    ]));
    let (ios, bytes) = logged(&dir.path().join("fio.log"));
    assert!(ios > 100, "fio logged {ios} IOs");
    // diskmeter replays fio's log (the file is fio's, so writing to it needs the flag) and
    // records what it issued.
    let v = dir.run_json(&[
        "--name=replay",
        "--ioengine=psync",
        "--read_iolog=fio.log",
        "--write_iolog=diskmeter.log",
        "--allow-destroy",
    ]);
    let job = &v["jobs"][0];
    let field = |d: &str, f: &str| job[d][f].as_u64().unwrap();
    assert_eq!(field("read", "ios") + field("write", "ios"), ios);
    assert_eq!(field("read", "bytes") + field("write", "bytes"), bytes);
    assert_eq!(logged(&dir.path().join("diskmeter.log")), (ios, bytes));
    // fio replays diskmeter's log: the same IOs and bytes.
    let mut fio = fio_command(test, dir.path()).unwrap();
    let report = fio_json(fio.args(["--name=back", "--read_iolog=diskmeter.log"]));
    let job = &report["jobs"][0];
    let field = |d: &str, f: &str| job[d][f].as_u64().unwrap();
    assert_eq!(
        field("read", "total_ios") + field("write", "total_ios"),
        ios
    );
    assert_eq!(
        field("read", "io_bytes") + field("write", "io_bytes"),
        bytes
    );
}
