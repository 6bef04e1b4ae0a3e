//! Backwards IO (`rw=read:-8k`), the IO-error policy (`continue_on_error`, `ignore_error`)
//! with its error counts, and trim IO (`rw=trim`, `randtrim`, `trimwrite`): punched holes
//! in files, BLKDISCARD on a loop device, and the `trim` statistics in every output.

mod common;

use common::{fio_command, real_io, require_root, require_tool, LoopDevice, TestDir};
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
