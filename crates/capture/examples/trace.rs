//! Traces block devices for a while and prints their profiles as JSON, with what the trace
//! cost: the driver of bench/trace-cost until `diskmeter capture --trace` exists.
//!
//! `cargo run --release -p diskmeter-capture --example trace -- SECONDS DEVICE... [--iolog FILE]
//! [--text]` (root; `--text` reads the kernel's text `trace_pipe` instead of the binary pages). Stops early on Ctrl-C or SIGTERM. Prints one JSON object:
//! `{"profiles": [...], "cost": {"reader_cpu_ns": N, "events": N, "ios": N}}`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use diskmeter_capture::trace::{TraceOptions, TraceSession, TraceSource, TraceTarget};

fn main() {
    if let Err(e) = run() {
        eprintln!("trace: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: trace SECONDS DEVICE... [--iolog FILE] [--text]";
    let seconds: f64 = args.next().ok_or(usage)?.parse()?;
    let mut options = TraceOptions::default();
    let mut targets = Vec::new();
    while let Some(arg) = args.next() {
        if arg == "--text" {
            options.source = TraceSource::Text;
        } else if arg == "--iolog" {
            options.iolog_path = Some(PathBuf::from(args.next().ok_or(usage)?));
        } else {
            targets.push(TraceTarget::from_name(&arg)?);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let session = TraceSession::start(&targets, &options)?;
    // Ready: the bench starts its workload when it sees this line.
    eprintln!(
        "tracing {} in {}",
        targets
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        session
            .instance_path()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    );
    let began = Instant::now();
    while began.elapsed().as_secs_f64() < seconds && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (profiles, cost) = session.finish_with_cost()?;
    let json = serde_json::json!({
        "profiles": profiles,
        "cost": {
            "reader_cpu_ns": cost.reader_cpu_ns,
            "events": cost.events,
            "ios": cost.ios,
        },
    });
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}
