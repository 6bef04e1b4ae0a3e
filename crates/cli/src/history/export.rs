//! `diskmeter export`: a saved run as diskmeter's JSON, fio-compatible JSON or CSV.

use super::{finish, load, open, output_arg, run_id_arg};
use crate::args::db_arg;
use crate::Status;
use clap::{Arg, ArgMatches, Command};
use diskmeter_history::StoredRun;
use std::fmt::Write;

/// The `export` subcommand.
pub fn export_command() -> Command {
    Command::new("export")
        .about("Export a saved run as JSON, fio-compatible JSON or CSV")
        .long_about(
            "Exports a saved run. json: the run, its host facts and every step's full result \
             (diskmeter's schema). fio-json: fio 3.x's JSON for each step (one document for a \
             one-step run, else an array of them in step order); json+: the same with fio's \
             latency bins; terse: fio's semicolon lines (version 3), one per job of every \
             step. csv: one row per step, job and direction with IOPS, bandwidth and latency \
             percentiles. A comma-separated list prints each, terse first (fio's order).",
        )
        .arg(run_id_arg("id", "The run's id, or 'last'"))
        .arg(db_arg())
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT[,FORMAT...]")
                .value_parser(crate::formats::list_parser(&[
                    "json", "fio-json", "json+", "terse", "csv",
                ]))
                .default_value("json")
                .help("json, fio-json, json+, terse or csv, or a comma-separated list"),
        )
        .arg(output_arg())
}

/// Runs `diskmeter export`.
pub fn export_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let store = open(matches)?;
    let run = load(&store, matches, "id", None)?;
    use crate::formats::OutputFormat;
    let results: Vec<&diskmeter_report::RunResult> = run.steps.iter().map(|s| &s.result).collect();
    let mut parts = Vec::new();
    for format in crate::formats::formats_of(matches, "format") {
        parts.push(match format {
            OutputFormat::Csv => csv(&run),
            OutputFormat::Json | OutputFormat::Normal => serde_json::to_string_pretty(&run)? + "\n",
            fio => crate::formats::render_fio(fio, &results, diskmeter_report::TerseVersion::V3)?
                .unwrap_or_default(),
        });
    }
    finish(matches, &crate::formats::join(parts))
}

/// The CSV columns, one row per step, reported job and direction that did IO.
const CSV_HEADER: &str = "run_id,step,job,direction,ios,bytes,runtime_ns,iops,bw_bytes_per_sec,lat_mean_ns,lat_stddev_ns,lat_min_ns,lat_max_ns,clat_p50_ns,clat_p90_ns,clat_p99_ns,clat_p99_9_ns,clat_p99_99_ns";

fn csv(run: &StoredRun) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for step in &run.steps {
        for job in &step.result.jobs {
            for (label, d) in [("read", &job.read), ("write", &job.write)] {
                if d.ios == 0 {
                    continue;
                }
                let p = |percent: f64| {
                    d.clat
                        .percentiles
                        .iter()
                        .find(|x| (x.percent - percent).abs() < 1e-9)
                        .map_or(String::new(), |x| x.value_ns.to_string())
                };
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{:.3},{:.3},{:.1},{:.1},{},{},{},{},{},{},{}",
                    run.summary.id,
                    csv_field(&step.name),
                    csv_field(&job.name),
                    label,
                    d.ios,
                    d.bytes,
                    d.runtime_ns,
                    d.iops,
                    d.bw_bytes_per_sec,
                    d.lat.mean_ns,
                    d.lat.stddev_ns,
                    d.lat.min_ns,
                    d.lat.max_ns,
                    p(50.0),
                    p(90.0),
                    p(99.0),
                    p(99.9),
                    p(99.99)
                );
            }
        }
    }
    out
}

/// RFC 4180 quoting when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("SEQ1M Q8T1 read"), "SEQ1M Q8T1 read");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
