//! fio's `zonemode=zbd` on targets that are not zoned devices: emulated zones whose writes go
//! to write pointers, compared with fio 3.33's own iologs on a regular file, and fio's zbd
//! example files run with fio's job and group structure (on scratch files instead of their
//! /dev targets).

use crate::common;

use common::{fio_command, fio_json, require_tool, TestDir};
use std::collections::BTreeMap;
use std::path::Path;

const ZONE: u64 = 1 << 20;
const BS: u64 = 64 << 10;

/// The (offset, length) of each write an iolog (fio's v3 format, both tools write it) holds.
fn writes(log: &Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(log)
        .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.len() == 5 && fields[2] == "write")
                .then(|| (fields[3].parse().unwrap(), fields[4].parse().unwrap()))
        })
        .collect()
}

/// Checks fio's zone rules on a list of writes: each lands at its zone's write pointer, and
/// no more than `open_limit` zones are open (written, not yet full) at once.
fn follows_write_pointers(writes: &[(u64, u64)], open_limit: usize) {
    let mut pointers: BTreeMap<u64, u64> = BTreeMap::new();
    for &(offset, len) in writes {
        let zone = offset / ZONE;
        let pointer = pointers.entry(zone).or_insert(0);
        assert_eq!(
            offset,
            zone * ZONE + *pointer,
            "write at {offset}: not at the pointer"
        );
        *pointer += len;
        let open = pointers.values().filter(|&&p| p < ZONE).count();
        assert!(
            open <= open_limit,
            "{open} zones open after the write at {offset}"
        );
    }
}

fn zone_args(rw: &str, log: &str) -> Vec<String> {
    [
        "--name=zbd",
        "--filename=target",
        "--ioengine=psync",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--bs=64k",
        "--size=8m",
        "--max_open_zones=2",
        "--io_size=2m",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--rw={rw}"), format!("--write_iolog={log}")])
    .collect()
}

#[test]
fn emulated_zones_on_a_file_take_writes_at_their_write_pointers_as_fio_does() {
    let test = "emulated_zones_on_a_file_take_writes_at_their_write_pointers_as_fio_does";
    let dir = TestDir::new();
    let Some(mut fio) = fio_command(test, dir.path()) else {
        return;
    };
    std::fs::write(dir.path().join("target"), vec![0u8; 8 << 20]).unwrap();
    for rw in ["write", "randwrite"] {
        let fio_log = format!("fio-{rw}.log");
        let dm_log = format!("diskmeter-{rw}.log");
        fio_json(fio.args(zone_args(rw, &fio_log)));
        fio = fio_command(test, dir.path()).unwrap();
        let mut args = zone_args(rw, &dm_log);
        args.push("--allow-destroy".to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        dir.run_json(&args);
        let (from_fio, from_diskmeter) = (
            writes(&dir.path().join(&fio_log)),
            writes(&dir.path().join(&dm_log)),
        );
        assert_eq!(
            from_fio.len(),
            (2 * ZONE / BS) as usize,
            "{rw}: fio's writes"
        );
        if rw == "write" {
            // Sequential writes on empty zones: the same offsets, one after the other.
            assert_eq!(from_diskmeter, from_fio);
        } else {
            // Random writes: fio's random numbers are its own, the rules are the same.
            assert_eq!(from_diskmeter.len(), from_fio.len());
            follows_write_pointers(&from_fio, 2);
            follows_write_pointers(&from_diskmeter, 2);
        }
    }
}

#[test]
fn fios_zbd_examples_run_with_fios_structure_on_scratch_files() {
    let test = "fios_zbd_examples_run_with_fios_structure_on_scratch_files";
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .take(3)
        .map(|base| base.join("shared/corpus/fio-examples"))
        .find(|dir| dir.join("zbd-rand-write.fio").is_file());
    let Some(corpus) = corpus else {
        // The corpus lives outside the repository, as for tests/parallel/corpus.rs.
        eprintln!("SKIP {test}: no fio examples at ../shared/corpus/fio-examples");
        return;
    };
    if !require_tool(test, "fio") || !require_tool(test, "python3") {
        return;
    }
    let dir = TestDir::new();
    let examples = [
        "zbd-rand-write.fio",
        "zbd-rand-write-zone-reset-gc.fio",
        "zbd-rand-write-trim-gc.fio",
        "zbd-seq-read.fio",
    ];
    for name in examples {
        std::fs::copy(corpus.join(name), dir.path().join(name)).unwrap();
    }
    // Zones of 256 MiB need regions of whole zones: sizes are cut to 1 GiB, not 16 MiB.
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/corpus-fio"))
        .args(["--json", "--scratch-devices", "--size", "1g", "--corpus"])
        .arg(dir.path())
        .arg("--diskmeter")
        .arg(common::binary())
        .output()
        .expect("bench/corpus-fio");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    for file in report["files"].as_array().unwrap() {
        assert_eq!(
            file["status"], "pass",
            "{}: {}",
            file["file"], file["reason"]
        );
    }
    assert_eq!(report["passed"], examples.len());
}
