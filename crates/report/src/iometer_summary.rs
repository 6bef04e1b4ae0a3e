//! The summary table `diskmeter iometer` prints after its runs, in the guides' layout: one
//! line per access specification with its read, write and combined IOPS and MiB/s, mean and
//! p99 latency, and a line of the sum for specifications run together.

use crate::{render_terminal, RunResult, StepFigures};
use diskmeter_jobfile::iometer::{steps_of, Scenario};
use diskmeter_units::MIB_F64;
use std::fmt::Write;

/// The guides' results table: one line per specification with its read, write and
/// combined figures, and for rows run together a line of their sum.
///
/// `rows` are the scenario rows that ran; the rows run together as step g (see
/// [`steps_of`]) have the result `results[g]` (job k of it is the step's row k).
pub fn iometer_summary(rows: &[Scenario], results: &[RunResult]) -> String {
    let groups = steps_of(rows);
    let mut out = String::from("Iometer summary (all workers of a specification together)\n");
    let _ = writeln!(
        out,
        "{:>3}  {:<20} {:<24} {:>10} {:>10} {:>11} {:>10} {:>11} {:>10} {:>12} {:>12}",
        "#",
        "specification",
        "target",
        "read IOPS",
        "write IOPS",
        "IOPS",
        "read MiB/s",
        "write MiB/s",
        "MiB/s",
        "mean lat ms",
        "p99 lat ms"
    );
    for (group, result) in groups.iter().zip(results) {
        let mut sum = StepFigures::default();
        for (position, &index) in group.iter().enumerate() {
            let Some(job) = result.jobs.get(position) else {
                continue;
            };
            let figures = StepFigures::of_job(job);
            let p99 = [&job.read.lat, &job.write.lat]
                .iter()
                .filter_map(|l| l.percentile(99.0))
                .max();
            let (name, target) = (&rows[index].spec.name, &rows[index].target);
            let _ = writeln!(
                out,
                "{:>3}  {:<20} {:<24} {} {:>12} {:>12}",
                index + 1,
                name,
                target,
                columns(&figures),
                format!("{:.3}", figures.lat_mean_ns() / 1e6),
                p99.map_or("-".to_string(), |ns| format!("{:.3}", ns as f64 / 1e6))
            );
            sum.add(&figures);
        }
        if group.len() > 1 {
            let _ = writeln!(
                out,
                "{:>3}  {:<20} {:<24} {} {:>12} {:>12}",
                "",
                "together",
                "",
                columns(&sum),
                format!("{:.3}", sum.lat_mean_ns() / 1e6),
                "-"
            );
        }
    }
    let _ = writeln!(
        out,
        "p99 is the larger of the read and write p99 (mixed specifications); \
         rows run together (together = ...) are summed on a line of their own."
    );
    out
}

/// A row's read, write and combined IOPS and MiB/s, in the summary's columns.
fn columns(f: &StepFigures) -> String {
    format!(
        "{:>10.0} {:>10.0} {:>11.0} {:>10.2} {:>11.2} {:>10.2}",
        f.read_iops,
        f.write_iops,
        f.read_iops + f.write_iops,
        f.read_bytes_per_sec / MIB_F64,
        f.write_bytes_per_sec / MIB_F64,
        (f.read_bytes_per_sec + f.write_bytes_per_sec) / MIB_F64
    )
}

/// The results of an iometer run's steps: a JSON list of diskmeter results (`json`), or
/// each step's terminal report followed by an empty line.
pub fn iometer_results(results: &[RunResult], json: bool) -> Result<String, serde_json::Error> {
    Ok(if json {
        serde_json::to_string_pretty(results)? + "\n"
    } else {
        results
            .iter()
            .map(|result| render_terminal(result) + "\n")
            .collect()
    })
}
