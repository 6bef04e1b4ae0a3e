//! `diskmeter capture`'s live forms (JSON entries, the whole document, the text view) on a
//! made-up interval, without sampling.

use super::{json, live};
use diskmeter_capture::host::HostFacts;
use diskmeter_capture::iostat::{AvgCpu, IostatDevice};
use diskmeter_capture::procfs::MemInfo;
use diskmeter_capture::sampler::Interval;

fn interval() -> Interval {
    Interval {
        start_unix_ms: 1_795_000_000_000,
        elapsed_secs: 2.0,
        devices: vec![IostatDevice {
            device: "loop3".into(),
            reads_per_sec: 1400.0,
            writes_per_sec: 600.0,
            read_kib_per_sec: 11_200.0,
            write_kib_per_sec: 9_600.0,
            read_request_kib: 8.0,
            write_request_kib: 16.0,
            util_percent: 35.126,
            ..IostatDevice::default()
        }],
        cpu: AvgCpu {
            user: 10.0,
            idle: 90.0,
            ..AvgCpu::default()
        },
        memory: MemInfo {
            total_bytes: 4 << 30,
            available_bytes: 3 << 30,
            cached_bytes: 1 << 30,
        },
        io_pressure_percent: None,
    }
}

#[test]
fn a_json_entry_carries_iostat_s_keys_in_iostat_s_order() {
    let entry: serde_json::Value =
        serde_json::from_str(&json::statistics_entry(&interval())).unwrap();
    assert_eq!(entry["timestamp"], "2026-11-18T11:06:40+0000");
    assert_eq!(entry["avg-cpu"]["user"], 10.0);
    assert_eq!(entry["avg-cpu"]["idle"], 90.0);
    let disk = &entry["disk"][0];
    assert_eq!(disk["disk_device"], "loop3");
    assert_eq!(disk["r/s"], 1400.0);
    assert_eq!(disk["wkB/s"], 9600.0);
    assert_eq!(disk["rareq-sz"], 8.0);
    assert_eq!(disk["util"], 35.13);
    assert_eq!(entry["memory"]["used_kB"], 1 << 20);
    assert!(entry["io-pressure"].is_null());
    let text = json::statistics_entry(&interval());
    let keys = [
        "\"disk_device\"",
        "\"r/s\"",
        "\"w/s\"",
        "\"d/s\"",
        "\"f/s\"",
        "\"rkB/s\"",
        "\"wkB/s\"",
        "\"dkB/s\"",
        "\"rrqm/s\"",
        "\"wrqm/s\"",
        "\"drqm/s\"",
        "\"rrqm\"",
        "\"wrqm\"",
        "\"drqm\"",
        "\"r_await\"",
        "\"w_await\"",
        "\"d_await\"",
        "\"f_await\"",
        "\"rareq-sz\"",
        "\"wareq-sz\"",
        "\"dareq-sz\"",
        "\"aqu-sz\"",
        "\"util\"",
    ];
    let positions: Vec<usize> = keys.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
}

#[test]
fn the_whole_json_document_parses_with_any_number_of_entries() {
    for entries in [0, 1, 3] {
        let mut writer = json::JsonWriter::new(HostFacts::read());
        let mut text = writer.header(&[]);
        for _ in 0..entries {
            text.push_str(&writer.statistics(&interval()));
        }
        text.push_str(&writer.footer());
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let host = &doc["sysstat"]["hosts"][0];
        assert_eq!(host["statistics"].as_array().unwrap().len(), entries);
        assert!(host["number-of-cpus"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn the_text_view_shows_iostat_s_columns_per_device() {
    let view = live::LiveView::new();
    let text = view.interval(&interval());
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Device"))
        .collect();
    let headings: Vec<&str> = table[0].split_whitespace().collect();
    assert_eq!(
        headings,
        [
            "Device", "r/s", "w/s", "rMB/s", "wMB/s", "r_await", "w_await", "aqu-sz", "rareq-sz",
            "wareq-sz", "%util"
        ]
    );
    let row: Vec<&str> = table[1].split_whitespace().collect();
    assert_eq!(
        row,
        [
            "loop3", "1400.00", "600.00", "10.94", "9.38", "0.00", "0.00", "0.00", "8.00", "16.00",
            "35.13"
        ]
    );
    assert!(text.contains("IO pressure: not available"), "{text}");
}
