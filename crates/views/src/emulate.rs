//! `diskmeter emulate list|profiles|create` on the terminal (and `emulate`'s long help): one tab-separated line per emulated
//! disk set or profile, for people and `cut`.

use diskmeter_emulate::{EmulatedDisk, Emulation};
use diskmeter_plan::Catalog;
use diskmeter_units::format_bytes_binary;
use std::fmt::Write;
use std::path::Path;

/// One line per emulation: name, devices, size, caps (per disk when it has several) and
/// backing files.
pub fn emulations(list: &[Emulation]) -> String {
    let mut out = String::new();
    for e in list {
        let disks = e.disks();
        let join = |path: fn(&EmulatedDisk) -> &Path| {
            let paths: Vec<String> = disks
                .iter()
                .map(|d| path(d).display().to_string())
                .collect();
            paths.join(",")
        };
        let caps = &e.spec.caps;
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{} IOPS r / {} IOPS w, {} r / {} w{}\t{}{}",
            e.spec.name,
            join(|d| &d.device),
            format_bytes_binary(e.spec.size_bytes),
            cap(caps.read_iops),
            cap(caps.write_iops),
            rate(caps.read_bytes_per_sec),
            rate(caps.write_bytes_per_sec),
            if disks.len() > 1 { " per disk" } else { "" },
            join(|d| &d.backing),
            bucket(e)
        );
    }
    out
}

/// One line per profile of `catalog`: id, name, IOPS and MiB/s, and the credit bucket of a
/// bursting one.
pub fn profiles(catalog: &Catalog) -> String {
    let mut out = String::new();
    for (id, name, iops, mibps) in diskmeter_emulate::profiles(catalog) {
        let bucket = diskmeter_emulate::profile_caps(&id, catalog)
            .and_then(|(_, caps)| Ok((caps, diskmeter_emulate::profile_burst(&id, catalog)?)))
            .ok()
            .and_then(|(caps, burst)| Some(format!("\t{}", burst?.describe(&caps))));
        let _ = writeln!(
            out,
            "{id}\t{name}\t{} IOPS\t{} MiB/s{}",
            iops.map_or("-".into(), |v| v.to_string()),
            mibps.map_or("-".into(), |v| v.to_string()),
            bucket.unwrap_or_default()
        );
    }
    out
}

fn cap(value: Option<u64>) -> String {
    value.map_or("uncapped".to_string(), |v| v.to_string())
}

fn rate(value: Option<u64>) -> String {
    value.map_or("uncapped".to_string(), |v| {
        format!("{}/s", format_bytes_binary(v))
    })
}

/// `emulate`'s long help.
pub const ABOUT: &str = "Emulates a throttled cloud disk on this machine: a loop device doing \
    direct IO on a backing file, under a cgroup (v1 blkio or v2 io.max) that caps its IOPS and \
    bandwidth, from a profile of the catalog (azure-p30 = 5,000 IOPS / 200 MiB/s, azure-p10, \
    do-volume, ...) or given caps. Processes in the cgroup see a throttled volume; `diskmeter \
    run|suite|sweep --emulate PROFILE` makes one for the run and puts its workers in it, and \
    `diskmeter emulate exec NAME -- COMMAND` runs any command (diskmeter, fio) in an existing \
    one's cgroup. `create --disks N` makes N disks, each capped on its own (a VM's stripe); \
    cgroup rules are per device, so a VM-level cap across the disks is the in-engine \
    throttle's: add --throttle-iops / --throttle-bw to the run.\n\n\
    A bursting tier (azure-p10: 500 IOPS bursting to 3,500 for 30 minutes) or --burst-iops / \
    --burst-bw / --burst-time give each disk a credit bucket: its caps are the baseline, the \
    bucket starts full, holds (burst - baseline) x time credits, refills at the baseline, and \
    while it holds credits a controller of diskmeter's raises the cgroup's caps to the burst \
    rate (it rewrites them every 100 ms from the IO the disk did). The controller lives in the \
    process that holds the emulation: `run --emulate`, or `create --foreground`, which keeps \
    the emulation until Ctrl-C or SIGTERM and then removes it; a plain `create` keeps the \
    baseline caps only. Needs root; without it, --throttle-iops, --throttle-bw and \
    --throttle-burst-* on run, suite or sweep cap a run on any file instead.\n\n\
    Exit codes: 0 ok; 1 a system step failed; 2 usage error.";

/// The devices of a new emulation, one a line (what `emulate create` prints).
pub fn devices(emulation: &Emulation) -> String {
    let lines: Vec<String> = emulation
        .disks()
        .iter()
        .map(|d| format!("{}\n", d.device.display()))
        .collect();
    lines.concat()
}

/// The credit bucket of an emulation, for `list`: "\tbursts to 3,500 IOPS for 30 min
/// (bucket 5,400,000 IOs), ...", empty without one.
fn bucket(e: &Emulation) -> String {
    e.spec
        .burst
        .map_or(String::new(), |b| format!("\t{}", b.describe(&e.spec.caps)))
}
