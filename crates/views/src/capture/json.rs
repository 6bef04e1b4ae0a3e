//! `diskmeter capture --format json`: the document `iostat -x -o JSON` prints (sysstat 12.6),
//! key for key and in its order, written one statistics entry per interval as it is measured
//! (so a capture that runs for days prints as it goes and holds nothing):
//!
//! `{"sysstat": {"hosts": [{"nodename", "sysname", "release", "machine", "number-of-cpus",
//! "date", "statistics": [{"timestamp", "avg-cpu": {...}, "disk": [{"disk_device", "r/s",
//! ...}]}, ...]}]}}`.
//!
//! Numbers have two decimals, as iostat prints them. Beyond iostat's keys, which keep their
//! meaning, each entry has `"memory"` and `"io-pressure"`, and the host has
//! `"device-stacks"` (what each device sits on); tools that read iostat's keys are not
//! disturbed by them.

use diskmeter_capture::devices::StackLink;
use diskmeter_capture::host::HostFacts;
use diskmeter_capture::sampler::Interval;
use diskmeter_report::format::utc_timestamp;
use std::fmt::Write;

/// Writes the document piece by piece.
pub struct JsonWriter {
    /// The host the document describes.
    host: HostFacts,
    /// Whether a statistics entry was written (the next one needs a comma).
    wrote_entry: bool,
}

impl JsonWriter {
    /// A writer of the document describing `host`.
    pub fn new(host: HostFacts) -> JsonWriter {
        JsonWriter {
            host,
            wrote_entry: false,
        }
    }

    /// Everything before the first statistics entry.
    pub fn header(&self, stacks: &[StackLink]) -> String {
        let host = &self.host;
        let stamp = utc_timestamp(host.now_unix_ms);
        // iostat's "date" is %x in the C locale: MM/DD/YY.
        let date = format!("{}/{}/{}", &stamp[5..7], &stamp[8..10], &stamp[2..4]);
        let cpus = host.cpus;
        let stacks: Vec<String> = stacks.iter().map(|l| quote(&l.to_string())).collect();
        format!(
            "{{\"sysstat\": {{\n\t\"hosts\": [\n\t\t{{\n\
             \t\t\t\"nodename\": {},\n\t\t\t\"sysname\": {},\n\t\t\t\"release\": {},\n\
             \t\t\t\"machine\": {},\n\t\t\t\"number-of-cpus\": {cpus},\n\
             \t\t\t\"date\": {},\n\t\t\t\"device-stacks\": [{}],\n\
             \t\t\t\"statistics\": [\n",
            quote(&host.nodename),
            quote(&host.sysname),
            quote(&host.release),
            quote(&host.machine),
            quote(&date),
            stacks.join(", "),
        )
    }

    /// One interval's statistics entry.
    pub fn statistics(&mut self, interval: &Interval) -> String {
        let mut out = String::new();
        if self.wrote_entry {
            out.push_str(",\n");
        }
        self.wrote_entry = true;
        out.push_str(&statistics_entry(interval));
        out
    }

    /// Everything after the last entry.
    pub fn footer(&self) -> String {
        "\n\t\t\t]\n\t\t}\n\t]\n}}\n".to_string()
    }
}

/// `{"timestamp": ..., "avg-cpu": {...}, "disk": [...], "memory": {...}, "io-pressure": ...}`.
pub(crate) fn statistics_entry(interval: &Interval) -> String {
    let cpu = &interval.cpu;
    let stamp = utc_timestamp(interval.start_unix_ms);
    // iostat -t with S_TIME_FORMAT=ISO: %FT%T%z.
    let timestamp = format!("{}T{}+0000", &stamp[..10], &stamp[11..19]);
    let mut out = format!(
        "\t\t\t\t{{\n\t\t\t\t\t\"timestamp\": {},\n\
         \t\t\t\t\t\"avg-cpu\":  {{\"user\": {:.2}, \"nice\": {:.2}, \"system\": {:.2}, \
         \"iowait\": {:.2}, \"steal\": {:.2}, \"idle\": {:.2}}},\n\t\t\t\t\t\"disk\": [\n",
        quote(&timestamp),
        cpu.user,
        cpu.nice,
        cpu.system,
        cpu.iowait,
        cpu.steal,
        cpu.idle
    );
    let disks: Vec<String> = interval
        .devices
        .iter()
        .map(|d| {
            let columns = [
                ("r/s", d.reads_per_sec),
                ("w/s", d.writes_per_sec),
                ("d/s", d.discards_per_sec),
                ("f/s", d.flushes_per_sec),
                ("rkB/s", d.read_kib_per_sec),
                ("wkB/s", d.write_kib_per_sec),
                ("dkB/s", d.discard_kib_per_sec),
                ("rrqm/s", d.read_merges_per_sec),
                ("wrqm/s", d.write_merges_per_sec),
                ("drqm/s", d.discard_merges_per_sec),
                ("rrqm", d.read_merges_percent),
                ("wrqm", d.write_merges_percent),
                ("drqm", d.discard_merges_percent),
                ("r_await", d.read_await_ms),
                ("w_await", d.write_await_ms),
                ("d_await", d.discard_await_ms),
                ("f_await", d.flush_await_ms),
                ("rareq-sz", d.read_request_kib),
                ("wareq-sz", d.write_request_kib),
                ("dareq-sz", d.discard_request_kib),
                ("aqu-sz", d.queue_size),
                ("util", d.util_percent),
            ];
            let mut object = format!("\t\t\t\t\t\t{{\"disk_device\": {}", quote(&d.device));
            for (key, value) in columns {
                let _ = write!(object, ", \"{key}\": {value:.2}");
            }
            object.push('}');
            object
        })
        .collect();
    out.push_str(&disks.join(",\n"));
    let memory = &interval.memory;
    let kib = |bytes: u64| bytes / 1024;
    let _ = write!(
        out,
        "\n\t\t\t\t\t],\n\t\t\t\t\t\"memory\": {{\"total_kB\": {}, \"used_kB\": {}, \"cached_kB\": {}}},\n",
        kib(memory.total_bytes),
        kib(memory.total_bytes.saturating_sub(memory.available_bytes)),
        kib(memory.cached_bytes)
    );
    match interval.io_pressure_percent {
        Some((some, full)) => {
            let _ = write!(
                out,
                "\t\t\t\t\t\"io-pressure\": {{\"some\": {some:.2}, \"full\": {full:.2}}}\n\t\t\t\t}}"
            );
        }
        None => out.push_str("\t\t\t\t\t\"io-pressure\": null\n\t\t\t\t}"),
    }
    out
}

/// A JSON string literal.
fn quote(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}
