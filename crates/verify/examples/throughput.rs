//! Fill and check throughput of each verify kind on one core, in memory (no IO): how much of
//! a write+verify run's CPU the verify work itself takes.
//!
//! `cargo run --release -p diskmeter-verify --example throughput [block_bytes] [total_MiB]`.
//! Timings on a shared machine are indicative only; compare kinds within one run.

use diskmeter_verify::{Stamp, Verifier, VerifyKind, VerifyPattern, VerifySetup, ALL_KINDS};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let block: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(128 * 1024);
    let total_mib: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(512);
    let blocks = total_mib * 1024 * 1024 / block;
    let mut buffer = vec![0u8; block];
    println!("block {block} bytes, {total_mib} MiB per measurement");
    println!(
        "{:<10} {:>12} {:>12}",
        "verify", "fill MiB/s", "check MiB/s"
    );
    for kind in ALL_KINDS {
        let pattern =
            (*kind == VerifyKind::Pattern).then(|| VerifyPattern::parse("0xdeadbeef").unwrap());
        let verifier = Verifier::new(VerifySetup {
            kind: *kind,
            interval_bytes: None,
            header_offset_bytes: 0,
            pattern,
        })
        .unwrap();
        let stamp = |index: usize| Stamp {
            offset: (index * block) as u64,
            generation: 1,
            seed: 42,
            job: 0,
        };
        let start = Instant::now();
        for index in 0..blocks {
            verifier.fill(&mut buffer, &stamp(index));
        }
        let fill = start.elapsed().as_secs_f64();
        verifier.fill(&mut buffer, &stamp(0));
        let start = Instant::now();
        let mut bad = 0;
        for _ in 0..blocks {
            bad += usize::from(verifier.check(&buffer, &stamp(0)).is_err());
        }
        let check = start.elapsed().as_secs_f64();
        let mib = total_mib as f64;
        println!(
            "{:<10} {:>12.0} {:>12.0}{}",
            kind.name(),
            mib / fill,
            mib / check,
            if bad > 0 { " (failures!)" } else { "" }
        );
    }
}
