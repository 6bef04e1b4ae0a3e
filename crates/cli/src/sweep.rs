//! `diskmeter sweep [TARGET]`: a grid of short runs over queue depth x block size (x pattern
//! x jobs), the analysis of what the curves show, a table and charts.

use crate::args;
use crate::run::{execute_jobs, Executed, RunFlags};
use crate::save::{save_to_history, StepToSave};
use crate::{write_output, EXIT_FAILURE, EXIT_USAGE};
use clap::{Arg, ArgMatches, Command};
use diskmeter_analysis::{analyse, summary_lines, Analysis, SweepPoint};
use diskmeter_report::{RunInput, RunResult};
use diskmeter_units::{format_size_suffix, format_thousands, parse_size, KbBase};
use diskmeter_workload::{apply_option, AutoStop, JobSpec};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

const DEFAULT_QD: &str = "1,2,4,8,16,32,64,128";
const DEFAULT_BS: &str = "4k,16k,64k,256k,1m";
const SWEEP_FILE: &str = "diskmeter-sweep.dat";

/// The `sweep` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("sweep")
        .about("Sweep queue depth x block size and infer the device's IOPS cap, bandwidth cap and crossover")
        .long_about(
            "Runs a grid of short runs (direct IO) over --qd x --bs (x --rw x --numjobs), then \
             says what the curves show: the IOPS and bandwidth ceilings (only where curves \
             flatten and block sizes agree), the crossover block size, what limits each size, \
             the queue-depth knee, QD1 latency, Little's law at every point, the throttling \
             signature and the nearest published tiers. Writes a table, a summary and charts \
             (SVG and PNG: IOPS vs QD, MiB/s vs block size, latency vs QD) into --charts DIR. \
             Each point ends once it is steady (--point-time auto: 200 ms samples, the last \
             second's within 5 % of their mean and the mean known to +-3 %, at most \
             --point-max), or runs a fixed --point-time. The default grid (8 x 5 points, a \
             0.5 s ramp and at most 3 s each) takes 1 to 2.5 minutes. \
             TARGET as for `diskmeter suite` (default ./diskmeter-sweep.dat, 1 GiB).\n\n\
             Exit codes: 0 ok; 1 a point failed or the sweep was interrupted; 2 usage error.",
        )
        .arg(Arg::new("target").value_name("TARGET").help("File, folder or block device"))
        .arg(Arg::new("qd").long("qd").value_name("LIST").default_value(DEFAULT_QD).help("Queue depths (IOs in flight per job)"))
        .arg(Arg::new("bs").long("bs").value_name("LIST").default_value(DEFAULT_BS).help("Block sizes"))
        .arg(Arg::new("rw").long("rw").value_name("LIST").default_value("randread").help("Patterns: randread, randwrite, read, write, randrw:70 (70 % reads)"))
        .arg(Arg::new("numjobs").long("numjobs").value_name("LIST").default_value("1").help("Jobs per point"))
        .arg(Arg::new("point-time").long("point-time").value_name("TIME").default_value("auto").help("Measured time per point: auto (until steady, at most --point-max) or a fixed time"))
        .arg(Arg::new("point-max").long("point-max").value_name("TIME").default_value("3s").help("Longest measured time of an auto-stopped point"))
        .arg(Arg::new("ramp").long("ramp").value_name("TIME").default_value("500ms").help("Unmeasured warm-up per point"))
        .arg(Arg::new("size").long("size").value_name("SIZE").help("Test file size or device region (default 1g for files)"))
        .arg(Arg::new("ioengine").long("ioengine").value_name("ENGINE").default_value("io_uring").help("IO engine"))
        .arg(Arg::new("charts").long("charts").value_name("DIR").help("Folder for the charts (default: diskmeter-sweep-<time> here); 'none' for no charts"))
        .arg(Arg::new("emulate").long("emulate").value_name("PROFILE").help("Sweep an emulated disk of this profile (root), made for the sweep and removed at the end"))
        .arg(Arg::new("emulate-size").long("emulate-size").value_name("SIZE").default_value("1g").requires("emulate").help("Size of the --emulate disk"))
        .arg(Arg::new("output-format").long("output-format").value_name("FORMAT").value_parser(["normal", "json"]).default_value("normal").help("normal: table and summary; json: points and analysis"));
    args::add_run_flags(command)
}

/// One point of the grid.
#[derive(Debug, Clone)]
struct Point {
    rw: String,
    bs: String,
    qd: u32,
    numjobs: u32,
}

fn list(matches: &ArgMatches, name: &str) -> Vec<String> {
    matches
        .get_one::<String>(name)
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The job of one point.
fn job_of(
    point: &Point,
    target: &Path,
    size: Option<u64>,
    matches: &ArgMatches,
) -> Result<JobSpec, String> {
    let (rw, mix) = match point.rw.split_once(':') {
        Some(("randrw", mix)) => ("randrw".to_string(), Some(mix.to_string())),
        _ => (point.rw.clone(), None),
    };
    let engine = matches
        .get_one::<String>("ioengine")
        .cloned()
        .unwrap_or_default();
    let point_time = matches
        .get_one::<String>("point-time")
        .cloned()
        .unwrap_or_default();
    let auto_stop = point_time == "auto";
    let runtime = if auto_stop {
        matches
            .get_one::<String>("point-max")
            .cloned()
            .unwrap_or_default()
    } else {
        point_time
    };
    let mut options: Vec<(&str, String)> = vec![
        (
            "name",
            format!(
                "sweep-{}-{}-qd{}-j{}",
                point.rw.replace(':', ""),
                point.bs,
                point.qd,
                point.numjobs
            ),
        ),
        ("filename", target.display().to_string().replace(':', "\\:")),
        ("rw", rw),
        ("bs", point.bs.clone()),
        ("iodepth", point.qd.to_string()),
        ("numjobs", point.numjobs.to_string()),
        ("group_reporting", "1".into()),
        ("ioengine", engine.clone()),
        ("runtime", runtime),
        (
            "ramp_time",
            matches
                .get_one::<String>("ramp")
                .cloned()
                .unwrap_or_default(),
        ),
        ("time_based", "1".into()),
        ("unlink", "0".into()),
    ];
    if engine != "null" {
        options.push(("direct", "1".into()));
    }
    if let Some(mix) = mix {
        options.push(("rwmixread", mix));
    }
    if let Some(size) = size {
        options.push(("size", size.to_string()));
    }
    let mut job = JobSpec::default();
    for (name, value) in options {
        apply_option(&mut job, name, Some(&value)).map_err(|e| e.to_string())?;
    }
    if auto_stop {
        let max = job.runtime_ns.unwrap_or_default();
        job = job.with_auto_stop(AutoStop::sweep_point(max));
    }
    Ok(job)
}

/// How the points of an auto-stopped sweep ended.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub(crate) struct AutoStopSummary {
    /// Points run.
    pub points: usize,
    /// Points that ended because they were steady (the rest ran --point-max).
    pub steady: usize,
    /// Measured time of all points, ns (ramps excluded).
    pub measured_ns: u64,
}

impl AutoStopSummary {
    fn of<'a>(results: impl Iterator<Item = &'a RunResult>) -> Option<AutoStopSummary> {
        let mut summary = AutoStopSummary::default();
        for result in results {
            let watched: Vec<_> = result
                .jobs
                .iter()
                .filter_map(|job| job.steady_state.as_ref().map(|ss| (job, ss)))
                .collect();
            if watched.is_empty() {
                return None;
            }
            summary.points += 1;
            summary.steady += usize::from(watched.iter().all(|(_, ss)| ss.attained));
            summary.measured_ns += watched
                .iter()
                .map(|(job, _)| job.runtime_ns)
                .max()
                .unwrap_or(0);
        }
        (summary.points > 0).then_some(summary)
    }
}

/// The figures of one point's result, summed over its jobs.
fn sweep_point(result: &RunResult, bs_bytes: u64, qd: u32) -> SweepPoint {
    let (mut iops, mut bytes, mut lat_weighted, mut p99, mut ios) = (0.0, 0.0, 0.0, 0.0f64, 0u64);
    for job in &result.jobs {
        for d in [&job.read, &job.write] {
            iops += d.iops;
            bytes += d.bw_bytes_per_sec;
            lat_weighted += d.lat.mean_ns * d.ios as f64;
            ios += d.ios;
            if let Some(p) = d.lat.percentiles.iter().find(|p| p.percent == 99.0) {
                p99 = p99.max(p.value_ns as f64);
            }
        }
    }
    SweepPoint {
        bs_bytes,
        qd,
        iops,
        bytes_per_sec: bytes,
        lat_mean_ns: if ios > 0 {
            lat_weighted / ios as f64
        } else {
            0.0
        },
        lat_p99_ns: p99,
    }
}

/// Runs the `sweep` subcommand.
pub fn main(matches: &ArgMatches) -> i32 {
    let mut flags = args::run_flags(matches);
    let quiet = flags.quiet;
    let qds: Result<Vec<u32>, _> = list(matches, "qd")
        .iter()
        .map(|q| q.parse::<u32>())
        .collect();
    let Ok(qds) = qds.map_err(|e| eprintln!("diskmeter: --qd: {e}")) else {
        return EXIT_USAGE;
    };
    let jobs_list: Result<Vec<u32>, _> = list(matches, "numjobs")
        .iter()
        .map(|q| q.parse::<u32>())
        .collect();
    let Ok(jobs_list) = jobs_list.map_err(|e| eprintln!("diskmeter: --numjobs: {e}")) else {
        return EXIT_USAGE;
    };
    let mut block_sizes = Vec::new();
    for bs in list(matches, "bs") {
        match parse_size(&bs, KbBase::Binary) {
            Ok(bytes) => block_sizes.push((bs, bytes)),
            Err(e) => {
                eprintln!("diskmeter: --bs {bs}: {e}");
                return EXIT_USAGE;
            }
        }
    }
    let patterns = list(matches, "rw");
    let target = match matches.get_one::<String>("target") {
        None => PathBuf::from(SWEEP_FILE),
        Some(p) if Path::new(p).is_dir() => Path::new(p).join(SWEEP_FILE),
        Some(p) => PathBuf::from(p),
    };
    let _emulation = match matches.get_one::<String>("emulate") {
        Some(profile) if !flags.dry_run => {
            let size = matches
                .get_one::<String>("emulate-size")
                .map_or("1g", String::as_str);
            match crate::emulate::start_ephemeral(profile, size) {
                Ok(guard) => Some(guard),
                Err(code) => return code,
            }
        }
        _ => None,
    };
    let target = _emulation.as_ref().map_or(target, |g| g.0.device.clone());
    let is_device = std::fs::metadata(&target)
        .map(|m| std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()))
        .unwrap_or(false);
    let size = match matches.get_one::<String>("size") {
        Some(text) => match parse_size(text, KbBase::Binary) {
            Ok(size) => Some(size),
            Err(e) => {
                eprintln!("diskmeter: --size: {e}");
                return EXIT_USAGE;
            }
        },
        None if is_device => None,
        None => Some(1 << 30),
    };
    let mut grid = Vec::new();
    for rw in &patterns {
        for numjobs in &jobs_list {
            for (bs, _) in &block_sizes {
                for qd in &qds {
                    grid.push(Point {
                        rw: rw.clone(),
                        bs: bs.clone(),
                        qd: *qd,
                        numjobs: *numjobs,
                    });
                }
            }
        }
    }
    let mut jobs = Vec::new();
    for point in &grid {
        match job_of(point, &target, size, matches) {
            Ok(job) => jobs.push(job),
            Err(e) => {
                eprintln!("diskmeter: {e}");
                return EXIT_USAGE;
            }
        }
    }
    if flags.dry_run {
        for (i, (point, job)) in grid.iter().zip(&jobs).enumerate() {
            let options: Vec<String> = diskmeter_workload::describe(job)
                .into_iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            println!(
                "point {}/{}: {} {} QD{} x{}: {}",
                i + 1,
                grid.len(),
                point.rw,
                point.bs,
                point.qd,
                point.numjobs,
                options.join(" ")
            );
        }
        return 0;
    }
    let created = !target.exists();
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(grid.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} points ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    flags.quiet = true;
    let mut results: Vec<(Point, u64, RunInput, RunResult)> = Vec::new();
    let mut failed = false;
    let mut partial = false;
    for (point, job) in grid.iter().zip(&jobs) {
        if let Some(bar) = &bar {
            bar.set_message(format!("{} {} QD{}", point.rw, point.bs, point.qd));
        }
        match execute_jobs(std::slice::from_ref(job), &flags) {
            Ok(Some(Executed {
                input,
                failed: f,
                partial: p,
            })) => {
                let result = RunResult::build(input.clone());
                let bytes = block_sizes
                    .iter()
                    .find(|(b, _)| *b == point.bs)
                    .map_or(0, |(_, v)| *v);
                results.push((point.clone(), bytes, input, result));
                failed |= f;
                partial |= p;
                if f || p {
                    break;
                }
            }
            Ok(None) => {}
            Err(code) => {
                remove_file(created, &target, &flags);
                return code;
            }
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    remove_file(created, &target, &flags);
    let groups: Vec<(String, Vec<SweepPoint>)> = patterns
        .iter()
        .map(|rw| {
            let points = results
                .iter()
                .filter(|(p, ..)| &p.rw == rw)
                .map(|(p, bytes, _, r)| sweep_point(r, *bytes, p.qd * p.numjobs))
                .collect();
            (rw.clone(), points)
        })
        .collect();
    let charts_dir = charts_folder(matches.get_one::<String>("charts"));
    let json = matches
        .get_one::<String>("output-format")
        .map(String::as_str)
        == Some("json");
    let auto_stop = AutoStopSummary::of(results.iter().map(|(.., result)| result));
    let text = analyse_and_render(
        &groups,
        &target.display().to_string(),
        charts_dir,
        json,
        auto_stop,
    );
    if let Err(error) = write_output(matches.get_one::<String>("output"), &text) {
        eprintln!("diskmeter: {error}");
        return EXIT_FAILURE;
    }
    let steps: Vec<StepToSave> = results
        .iter()
        .map(|(point, _, input, result)| StepToSave {
            name: step_name(point),
            result: result.clone(),
            input,
        })
        .collect();
    let name = patterns.join(",");
    if let Err(code) = save_to_history("sweep", &name, &target, steps, &flags) {
        return code;
    }
    if partial {
        eprintln!("diskmeter: interrupted: the results above are partial");
    }
    if failed || partial {
        EXIT_FAILURE
    } else {
        0
    }
}

/// `--charts DIR`: the folder for the charts, `None` for 'none'; by default a new
/// diskmeter-sweep-<unix time> folder here.
pub(crate) fn charts_folder(given: Option<&String>) -> Option<PathBuf> {
    match given.map(String::as_str) {
        Some("none") => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(PathBuf::from(format!(
            "diskmeter-sweep-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        ))),
    }
}

/// Analyses each pattern's points, writes the charts into `charts_dir` and renders the
/// tables and summaries (or the JSON document), with how auto-stopped points ended when
/// known: shared by `sweep` and `analyze`.
pub(crate) fn analyse_and_render(
    groups: &[(String, Vec<SweepPoint>)],
    target: &str,
    charts_dir: Option<PathBuf>,
    json: bool,
    auto_stop: Option<AutoStopSummary>,
) -> String {
    let catalog = diskmeter_plan::Catalog::builtin();
    let analyses: Vec<(&String, &Vec<SweepPoint>, Analysis)> = groups
        .iter()
        .map(|(rw, points)| (rw, points, analyse(points, &catalog.disks)))
        .collect();
    let mut chart_files = Vec::new();
    if let Some(dir) = &charts_dir {
        for (rw, points, _) in &analyses {
            let folder = if analyses.len() > 1 {
                dir.join(rw.replace(':', ""))
            } else {
                dir.clone()
            };
            if let Err(e) = std::fs::create_dir_all(&folder) {
                eprintln!("diskmeter: cannot create {}: {e}", folder.display());
                continue;
            }
            match diskmeter_charts::write_charts(&folder, &format!("{rw} on {target}"), points) {
                Ok(files) => chart_files.extend(files),
                Err(e) => eprintln!("diskmeter: {e}"),
            }
        }
    }
    if json {
        let doc = serde_json::json!({
            "target": target,
            "sweeps": analyses.iter().map(|(rw, points, a)| serde_json::json!({
                "rw": rw, "points": points, "analysis": a, "summary": summary_lines(a),
            })).collect::<Vec<_>>(),
            "charts": chart_files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "auto_stop": auto_stop,
        });
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut text = String::new();
    for (rw, points, analysis) in &analyses {
        text.push_str(&render(rw, target, points, analysis));
    }
    if let Some(a) = auto_stop {
        let _ = writeln!(
            text,
            "auto-stop: {} of {} points steady before their maximum; {:.1} s measured in all \
             ({:.2} s a point)",
            a.steady,
            a.points,
            a.measured_ns as f64 / 1e9,
            a.measured_ns as f64 / 1e9 / a.points as f64
        );
    }
    for file in &chart_files {
        let _ = writeln!(text, "chart: {}", file.display());
    }
    text
}

/// A sweep's points rebuilt from its steps in the history, grouped by pattern; the step
/// names are [`step_name`]'s.
pub(crate) fn points_from_steps(
    steps: &[diskmeter_history::StoredStep],
) -> Result<Vec<(String, Vec<SweepPoint>)>, String> {
    let mut groups: Vec<(String, Vec<SweepPoint>)> = Vec::new();
    for step in steps {
        let parts: Vec<&str> = step.name.split(' ').collect();
        let parsed = match parts.as_slice() {
            [rw, bs, qd, jobs] => (|| {
                let bs_bytes = parse_size(bs, KbBase::Binary).ok()?;
                let qd: u32 = qd.strip_prefix("QD")?.parse().ok()?;
                let jobs: u32 = jobs.strip_prefix('x')?.parse().ok()?;
                Some((rw.to_string(), bs_bytes, qd * jobs))
            })(),
            _ => None,
        };
        let Some((rw, bs_bytes, qd)) = parsed else {
            return Err(format!(
                "step '{}' is not a sweep point (analyze takes runs saved by diskmeter sweep)",
                step.name
            ));
        };
        let point = sweep_point(&step.result, bs_bytes, qd);
        match groups.iter_mut().find(|(r, _)| *r == rw) {
            Some((_, points)) => points.push(point),
            None => groups.push((rw, vec![point])),
        }
    }
    Ok(groups)
}

/// A point's step name in the history: "randread 4k QD32 x1" (pattern first: `analyze`
/// groups the steps by it).
fn step_name(point: &Point) -> String {
    format!(
        "{} {} QD{} x{}",
        point.rw, point.bs, point.qd, point.numjobs
    )
}

fn remove_file(created: bool, target: &Path, flags: &RunFlags) {
    if created && !flags.keep && target.is_file() {
        let _ = std::fs::remove_file(target);
    }
}

fn render(rw: &str, target: &str, points: &[SweepPoint], analysis: &Analysis) -> String {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::ASCII_MARKDOWN)
        .set_header(vec![
            "bs", "QD", "IOPS", "MiB/s", "mean lat", "p99 lat", "limit",
        ]);
    for p in points {
        let limit = analysis
            .block_sizes
            .iter()
            .find(|f| f.bs_bytes == p.bs_bytes)
            .map(|f| format!("{:?}", f.limit).to_lowercase())
            .unwrap_or_default();
        table.add_row(vec![
            format_size_suffix(p.bs_bytes, KbBase::Binary),
            p.qd.to_string(),
            format_thousands(p.iops.round() as u64),
            format!("{:.1}", p.bytes_per_sec / (1u64 << 20) as f64),
            format!("{:.3} ms", p.lat_mean_ns / 1e6),
            format!("{:.3} ms", p.lat_p99_ns / 1e6),
            limit,
        ]);
    }
    let mut text = format!("sweep {rw} on {target}\n\n{table}\n\n");
    for line in summary_lines(analysis) {
        let _ = writeln!(text, "  {line}");
    }
    text.push('\n');
    text
}
