//! A lean load loop straight on the engine API, to measure an engine's IOPS and CPU cost
//! per IO without the runner: `cargo run --release -p diskmeter-engine --example engine_bench
//! -- engine=io_uring qd=32 bs=4096 secs=10 file=/work/bench.dat size=1g rw=randread`.
//!
//! Options (key=value): engine (io_uring|libaio|psync|null), qd, bs, secs, file, size (bytes
//! or with k/m/g), rw (randread|randwrite), fixed=1 (fixed buffers), regfiles=1,
//! combined=1 (one `commit_and_getevents` per batch instead of commit + getevents),
//! submit_each=1 (commit after every refill, like fio's iodepth_batch_submit=1).
//! The file is laid out with written data first if it is shorter than `size`.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;

use diskmeter_engine::sys::{monotonic_ns, thread_cpu_usage};
use diskmeter_engine::{open_engine, BufferFill, EngineChoice, EngineConfig, IoOp, IoUnit};

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last() {
        Some('k' | 'K') => (&s[..s.len() - 1], 1 << 10),
        Some('m' | 'M') => (&s[..s.len() - 1], 1 << 20),
        Some('g' | 'G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("size") * mult
}

fn main() {
    let args: HashMap<String, String> = std::env::args()
        .skip(1)
        .filter_map(|a| {
            a.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let get = |k: &str, d: &str| args.get(k).cloned().unwrap_or_else(|| d.to_string());
    let choice = match get("engine", "io_uring").as_str() {
        "io_uring" => EngineChoice::IoUring,
        "libaio" => EngineChoice::Libaio,
        "psync" => EngineChoice::Psync,
        "null" => EngineChoice::Null,
        other => panic!("unknown engine {other}"),
    };
    let qd: u32 = get("qd", "32").parse().unwrap();
    let bs: u32 = parse_size(&get("bs", "4096")) as u32;
    let secs: f64 = get("secs", "5").parse().unwrap();
    let size = parse_size(&get("size", "1g"));
    let path = get("file", "/work/diskmeter-bench.dat");
    let op = if get("rw", "randread") == "randwrite" {
        IoOp::Write
    } else {
        IoOp::Read
    };
    let combined = get("combined", "0") == "1";
    // fio's default iodepth_batch_submit=1: hand each refill to the kernel at once.
    let submit_each = get("submit_each", "0") == "1";

    let file = if choice == EngineChoice::Null {
        None
    } else {
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if len < size {
            eprintln!("laying out {path} ({size} bytes)");
            let mut f = std::fs::File::create(&path).unwrap();
            let chunk: Vec<u8> = (0..1 << 20)
                .map(|i: u32| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect();
            for _ in 0..size.div_ceil(1 << 20) {
                f.write_all(&chunk).unwrap();
            }
            f.sync_all().unwrap();
        }
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap();
        Some(f)
    };
    let config = EngineConfig {
        choice,
        iodepth: qd,
        buffer_len_bytes: bs as usize,
        buffer_align_bytes: 4096,
        fds: file.iter().map(|f| f.as_raw_fd()).collect(),
        fixed_buffers: get("fixed", "0") == "1",
        register_files: get("regfiles", "0") == "1",
        fill: BufferFill::Random,
        seed: 1,
        tuning: Default::default(),
    };
    let mut engine = open_engine(&config).expect("engine");
    let blocks = (size / u64::from(bs)).max(1);
    let mut rng: u64 = 0x243F_6A88_85A3_08D3;
    let mut next_offset = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % blocks) * u64::from(bs)
    };
    let unit = |slot, offset_bytes| IoUnit {
        op,
        file: 0,
        offset_bytes,
        len_bytes: bs,
        slot,
    };

    for slot in 0..qd {
        engine.queue(unit(slot, next_offset())).unwrap();
    }
    let mut events = Vec::with_capacity(qd as usize);
    let (mut ios, mut errors) = (0u64, 0u64);
    let cpu0 = thread_cpu_usage();
    let t0 = monotonic_ns();
    let end = t0 + (secs * 1e9) as u64;
    loop {
        events.clear();
        if combined {
            engine.commit_and_getevents(1, &mut events).unwrap();
        } else {
            engine.commit().unwrap();
            engine.getevents(1, &mut events).unwrap();
        }
        ios += events.len() as u64;
        errors += events.iter().filter(|c| c.result != i64::from(bs)).count() as u64;
        // Check the clock once per batch, as a runner would per completion batch.
        if monotonic_ns() >= end {
            break;
        }
        for c in &events {
            engine.queue(unit(c.slot, next_offset())).unwrap();
            if submit_each {
                engine.commit().unwrap();
            }
        }
    }
    let elapsed_ns = monotonic_ns() - t0;
    let cpu = thread_cpu_usage().since(&cpu0);
    drop(engine);
    let secs = elapsed_ns as f64 / 1e9;
    println!(
        "engine={} qd={qd} bs={bs} combined={combined} fixed={} ios={ios} errors={errors} \
         iops={:.0} cpu_user_s={:.3} cpu_sys_s={:.3} cpu_util={:.1}% cpu_ns_per_io={:.0} \
         vol_ctx={} invol_ctx={}",
        diskmeter_engine::engine_name(choice),
        config.fixed_buffers,
        ios as f64 / secs,
        cpu.user_ns as f64 / 1e9,
        cpu.sys_ns as f64 / 1e9,
        100.0 * cpu.total_ns() as f64 / elapsed_ns as f64,
        cpu.total_ns() as f64 / ios.max(1) as f64,
        cpu.voluntary_ctx_switches,
        cpu.involuntary_ctx_switches,
    );
}
