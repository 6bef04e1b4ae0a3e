//! `diskmeter emulate list|profiles` on the terminal: one tab-separated line per emulated
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
            "{}\t{}\t{}\t{} IOPS r / {} IOPS w, {} r / {} w{}\t{}",
            e.spec.name,
            join(|d| &d.device),
            format_bytes_binary(e.spec.size_bytes),
            cap(caps.read_iops),
            cap(caps.write_iops),
            rate(caps.read_bytes_per_sec),
            rate(caps.write_bytes_per_sec),
            if disks.len() > 1 { " per disk" } else { "" },
            join(|d| &d.backing)
        );
    }
    out
}

/// One line per profile of `catalog`: id, name, IOPS and MiB/s.
pub fn profiles(catalog: &Catalog) -> String {
    let mut out = String::new();
    for (id, name, iops, mibps) in diskmeter_emulate::profiles(catalog) {
        let _ = writeln!(
            out,
            "{id}\t{name}\t{} IOPS\t{} MiB/s",
            iops.map_or("-".into(), |v| v.to_string()),
            mibps.map_or("-".into(), |v| v.to_string())
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
