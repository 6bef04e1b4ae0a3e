//! What an `.icf` file runs, as Iometer runs it: the steps of the test and each step's jobs.
//!
//! Order (Iometer's `CGalileoView`): the access specifications are the outer loop — at the
//! i-th position of their assigned lists all workers run together — and the cycling of the
//! test type is the inner loop, each cycling step a step of the run. A worker becomes a job
//! on its active targets (round robin over them, as Iometer's worker spreads its IOs), with
//! `iodepth` = outstanding IOs × targets (Iometer's count is per target). An access
//! specification's lines of one shape (same reads, random, delay, burst and align) are one
//! job with `bssplit` by `% of size`; lines of different shapes are a job each, held to their
//! `% of size` ratio with `flow` and sharing the worker's outstanding IOs by the same ratio.

use super::icf::{Icf, IcfSpec, SpecLine, TestType};
use diskmeter_workload::{apply_option_exact, JobSpec};
use thiserror::Error;

/// Why an `.icf` file cannot run here.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{file}: {problem}")]
pub struct IcfRunError {
    /// The file as named.
    pub file: String,
    /// What, where and why.
    pub problem: String,
}

/// A target as resolved by the caller: the path to use and whether it is a folder (which
/// gets Iometer's test file `iobw.tst`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedTarget {
    /// File, block device or folder.
    pub path: String,
    /// A folder.
    pub is_dir: bool,
}

/// Settings of the run that the file does not give.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Measured time per step, ns (`--time`); `None`: the file's run time.
    pub run_time_ns: Option<u64>,
    /// Ramp per step, ns (`--ramp`); `None`: the file's ramp up time.
    pub ramp_ns: Option<u64>,
    /// Size of `iobw.tst` in a folder target when the worker gives no maximum disk size.
    pub file_size_bytes: u64,
}

/// One worker in a step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepWorker {
    /// Manager index in [`Icf::managers`].
    pub manager: usize,
    /// Worker index in that manager's workers.
    pub worker: usize,
    /// The access specification it runs.
    pub spec: String,
    /// Targets active.
    pub targets: usize,
    /// Outstanding IOs per target.
    pub queue_depth: u32,
    /// Its jobs in the step's job list (several for a mixed specification).
    pub jobs: std::ops::Range<usize>,
}

/// A step of the test.
#[derive(Debug, Clone)]
pub struct IcfStep {
    /// `SPEC qd=N workers=W targets=T`.
    pub name: String,
    /// The access specification all workers run; `None` when they run different ones.
    pub spec: Option<String>,
    /// The workers active.
    pub workers: Vec<StepWorker>,
    /// The jobs, worker after worker.
    pub jobs: Vec<JobSpec>,
}

/// Distinct target names of the file's disk workers, in the order they first appear.
pub fn target_names(icf: &Icf) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for worker in icf.managers.iter().flat_map(|m| &m.workers) {
        for target in &worker.targets {
            if !names.contains(target) {
                names.push(target.clone());
            }
        }
    }
    names
}

/// The short form of a target name that `--target-map` matches: `C:` for `C: "NTFS"`,
/// `PHYSICALDRIVE:1` for itself, `1:` for `1: "XENSRC PVDISK 2.0"`.
pub fn target_key(name: &str) -> &str {
    name.split([' ', '"']).next().unwrap_or(name)
}

/// A worker's setting in one step: (manager, worker, targets active, outstanding IOs).
type Active = Vec<(usize, usize, usize, u32)>;

/// The steps of the test, specification position outer and cycling inner.
pub fn steps(
    file: &str,
    icf: &Icf,
    settings: &RunSettings,
    resolve: &dyn Fn(&str) -> Option<ResolvedTarget>,
) -> Result<Vec<IcfStep>, IcfRunError> {
    let fail = |problem: String| IcfRunError {
        file: file.to_string(),
        problem,
    };
    let positions = icf
        .managers
        .iter()
        .flat_map(|m| &m.workers)
        .map(|w| w.specs.len())
        .max()
        .unwrap_or(0);
    let run_time_ns = settings
        .run_time_ns
        .unwrap_or(icf.setup.run_time_s.saturating_mul(1_000_000_000));
    if run_time_ns == 0 {
        return Err(fail(
            "'TEST SETUP 'Run Time is 0 (Iometer runs until stopped): give --time".into(),
        ));
    }
    let ramp_ns = settings
        .ramp_ns
        .unwrap_or(icf.setup.ramp_up_s.saturating_mul(1_000_000_000));
    let mut out = Vec::new();
    for position in 0..positions {
        // Workers that can run at this position: a disk worker with targets and a spec
        // other than Iometer's Idle.
        let mut eligible: Vec<(usize, usize, usize, u32)> = Vec::new();
        for (m, manager) in icf.managers.iter().enumerate() {
            for (w, worker) in manager.workers.iter().enumerate() {
                let Some(spec) = worker.specs.get(position) else {
                    continue;
                };
                if spec.eq_ignore_ascii_case("Idle") || worker.targets.is_empty() {
                    continue;
                }
                if !worker.is_disk() {
                    return Err(fail(format!(
                        "line {}: worker '{}' is a {} worker: network workers cannot run here (diskmeter measures storage)",
                        worker.line, worker.name, worker.kind
                    )));
                }
                eligible.push((m, w, worker.targets.len(), worker.queue_depth));
            }
        }
        if eligible.is_empty() {
            continue;
        }
        for active in cycle(icf, &eligible) {
            out.push(step(
                file,
                icf,
                position,
                &active,
                settings,
                run_time_ns,
                ramp_ns,
                resolve,
            )?);
        }
    }
    if out.is_empty() {
        let assigned = icf
            .managers
            .iter()
            .flat_map(|m| &m.workers)
            .any(|w| !w.specs.is_empty());
        if !assigned && !icf.specs.is_empty() {
            return Err(fail(library_listing(icf)));
        }
        return Err(fail(
            "no worker has both an assigned access specification and a target: nothing to run"
                .into(),
        ));
    }
    Ok(out)
}

/// What to say of an access specification library (a file whose workers have no
/// specification assigned, as Iometer saves its list alone): how to run some, and the list.
fn library_listing(icf: &Icf) -> String {
    let mut text = format!(
        "an access specification library ({} specifications, none assigned to a worker): \
         run some with --spec NAME (repeatable), e.g. --spec '{}'. Its specifications:",
        icf.specs.len(),
        icf.specs[0].name
    );
    for spec in &icf.specs {
        text.push_str(&format!("\n  {}: {}", spec.name, spec_summary(spec)));
    }
    text
}

/// A specification in a few words: `8 KiB, 67 % read, 100 % random`; several lines as
/// sizes with their shares in `bssplit`'s form (`512/10:4k/60:64k/30`), and the read and
/// random shares as a range where the lines differ.
fn spec_summary(spec: &IcfSpec) -> String {
    let lines = &spec.lines;
    let sizes = match lines.as_slice() {
        [one] => diskmeter_units::format_bytes_binary(one.size_bytes),
        _ => lines
            .iter()
            .map(|l| {
                format!(
                    "{}/{}",
                    diskmeter_units::format_size_suffix(
                        l.size_bytes,
                        diskmeter_units::KbBase::Binary
                    ),
                    l.of_size_percent
                )
            })
            .collect::<Vec<_>>()
            .join(":"),
    };
    let range = |get: fn(&SpecLine) -> u8| {
        let low = lines.iter().map(get).min().unwrap_or(0);
        let high = lines.iter().map(get).max().unwrap_or(0);
        if low == high {
            format!("{low} %")
        } else {
            format!("{low}-{high} %")
        }
    };
    format!(
        "{sizes}, {} read, {} random",
        range(|l| l.read_percent),
        range(|l| l.random_percent)
    )
}

/// Every setting of the eligible workers the test type goes through, in order.
fn cycle(icf: &Icf, eligible: &[(usize, usize, usize, u32)]) -> Vec<Active> {
    let setup = &icf.setup;
    let all = |depth: Option<u32>| -> Active {
        eligible
            .iter()
            .map(|&(m, w, n, qd)| (m, w, n, depth.unwrap_or(qd)))
            .collect()
    };
    let total = |a: &Active| a.iter().map(|x| x.2).sum::<usize>();
    // Targets per worker cycled: stops when a step adds no target.
    let by_targets = |pick: &dyn Fn(usize) -> Active| -> Vec<Active> {
        let mut out: Vec<Active> = Vec::new();
        let (mut count, mut exponent) = (setup.target_cycling.start, 1);
        loop {
            let active = pick(count as usize);
            if total(&active) <= out.last().map_or(0, total) || out.len() >= 1000 {
                return out;
            }
            out.push(active);
            count = setup.target_cycling.next(count, exponent);
            exponent += 1;
        }
    };
    let per_worker = |workers: Option<usize>, targets: usize| -> Active {
        let mut taken = vec![0usize; icf.managers.len()];
        eligible
            .iter()
            .filter(|&&(m, ..)| {
                taken[m] += 1;
                workers.is_none_or(|n| taken[m] <= n)
            })
            .map(|&(m, w, n, qd)| (m, w, n.min(targets), qd))
            .collect()
    };
    // Targets handed out down the workers, `per_manager` or across all managers.
    let handed_out = |targets: usize, per_manager: bool| -> Active {
        let mut remaining = vec![targets; icf.managers.len()];
        let mut shared = targets;
        eligible
            .iter()
            .filter_map(|&(m, w, n, qd)| {
                let left = if per_manager {
                    &mut remaining[m]
                } else {
                    &mut shared
                };
                let take = n.min(*left);
                *left -= take;
                (take > 0).then_some((m, w, take, qd))
            })
            .collect()
    };
    let depths = setup.queue_cycling.depths();
    match setup.test_type {
        TestType::Normal => vec![all(None)],
        TestType::CycleTargets => by_targets(&|t| per_worker(None, t)),
        TestType::IncrementTargetsParallel => by_targets(&|t| handed_out(t, true)),
        TestType::IncrementTargetsSerial => by_targets(&|t| handed_out(t, false)),
        TestType::CycleWorkers | TestType::CycleWorkersAndTargets => {
            let mut out: Vec<Active> = Vec::new();
            let (mut count, mut exponent) = (setup.worker_cycling.start, 1);
            let mut last_workers = 0;
            loop {
                let workers = per_worker(Some(count as usize), usize::MAX);
                if workers.len() <= last_workers || out.len() >= 1000 {
                    return out;
                }
                last_workers = workers.len();
                if setup.test_type == TestType::CycleWorkers {
                    out.push(workers);
                } else {
                    out.extend(by_targets(&|t| per_worker(Some(count as usize), t)));
                }
                count = setup.worker_cycling.next(count, exponent);
                exponent += 1;
            }
        }
        TestType::CycleOutstandingIos => depths.iter().map(|&d| all(Some(d))).collect(),
        TestType::CycleOutstandingIosAndTargets => by_targets(&|t| per_worker(None, t))
            .into_iter()
            .flat_map(|active| {
                depths
                    .iter()
                    .map(move |&d| {
                        active
                            .iter()
                            .map(|&(m, w, n, _)| (m, w, n, d))
                            .collect::<Active>()
                    })
                    .collect::<Vec<_>>()
            })
            .collect(),
    }
}

#[allow(clippy::too_many_arguments)]
fn step(
    file: &str,
    icf: &Icf,
    position: usize,
    active: &Active,
    settings: &RunSettings,
    run_time_ns: u64,
    ramp_ns: u64,
    resolve: &dyn Fn(&str) -> Option<ResolvedTarget>,
) -> Result<IcfStep, IcfRunError> {
    let fail = |problem: String| IcfRunError {
        file: file.to_string(),
        problem,
    };
    let mut jobs = Vec::new();
    let mut workers = Vec::new();
    for (index, &(m, w, targets, qd)) in active.iter().enumerate() {
        let manager = &icf.managers[m];
        let worker = &manager.workers[w];
        let spec_name = &worker.specs[position];
        let spec = icf.specs.iter().find(|s| s.name.eq_ignore_ascii_case(spec_name)).ok_or_else(|| {
            fail(format!(
                "line {}: worker '{}' is assigned access specification '{spec_name}', which 'ACCESS SPECIFICATIONS does not define",
                worker.line, worker.name
            ))
        })?;
        let mut paths = Vec::new();
        let mut any_dir = false;
        for name in &worker.targets[..targets] {
            let target = resolve(name).ok_or_else(|| {
                fail(format!(
                    "target '{name}' of worker '{}' is not mapped",
                    worker.name
                ))
            })?;
            any_dir |= target.is_dir;
            let path = if target.is_dir {
                format!("{}/iobw.tst", target.path.trim_end_matches('/'))
            } else {
                target.path
            };
            paths.push(path.replace(':', "\\:"));
        }
        let start = jobs.len();
        let base = WorkerJob {
            name: format!("{}/{}", manager.name_or_id(), worker.name),
            filename: paths.join(":"),
            size_bytes: match worker.max_size_sectors {
                0 if any_dir => Some(settings.file_size_bytes),
                0 => None,
                sectors => Some(sectors.saturating_mul(512)),
            },
            offset_bytes: worker.starting_sector.saturating_mul(512),
            seed: worker.fixed_seed,
            run_time_ns,
            ramp_ns,
            flow_id: index + 1,
        };
        let at = |e: String| {
            fail(format!(
                "access specification '{}' (line {}): {e}",
                spec.name, spec.line
            ))
        };
        // Iometer's connection-rate test: each target closed and opened again every N
        // transactions. 0 would open and close without IO, which measures no storage.
        let connections = match (worker.connection_rate, worker.transactions_per_connection) {
            (false, _) => None,
            (true, 0) => {
                return Err(fail(format!(
                    "line {}: worker '{}' tests the connection rate with 0 transactions per connection (opens and closes its targets with no IO): give 1 or more",
                    worker.line, worker.name
                )))
            }
            (true, n) => Some(n),
        };
        for (share, lines) in shapes(spec) {
            let depth = if share == 100 {
                (qd as u64).saturating_mul(targets as u64)
            } else {
                ((qd as u64)
                    .saturating_mul(targets as u64)
                    .saturating_mul(share as u64)
                    .saturating_add(50)
                    / 100)
                    .max(1)
            };
            let mut job = base
                .job(&lines, depth, (share < 100).then_some(share))
                .map_err(at)?;
            job.control.transactions_per_connection = connections;
            jobs.push(job);
        }
        workers.push(StepWorker {
            manager: m,
            worker: w,
            spec: spec.name.clone(),
            targets,
            queue_depth: qd,
            jobs: start..jobs.len(),
        });
    }
    let spec = match workers.first() {
        Some(first) if workers.iter().all(|w| w.spec == first.spec) => Some(first.spec.clone()),
        _ => None,
    };
    let depths: Vec<u32> = workers.iter().map(|w| w.queue_depth).collect();
    let depth = match depths.first() {
        Some(d) if depths.iter().all(|x| x == d) => d.to_string(),
        _ => "mixed".into(),
    };
    Ok(IcfStep {
        name: format!(
            "{} qd={depth} workers={} targets={}",
            spec.as_deref().unwrap_or("mixed"),
            workers.len(),
            workers.iter().map(|w| w.targets).sum::<usize>()
        ),
        spec,
        workers,
        jobs,
    })
}

impl super::icf::IcfManager {
    /// The manager's name, or `manager ID` when the file leaves it empty.
    pub fn name_or_id(&self) -> String {
        if self.name.is_empty() {
            format!("manager {}", self.id)
        } else {
            self.name.clone()
        }
    }
}

/// The spec's lines grouped by shape (all but size and share alike): each group's share, in
/// percent, and its lines.
fn shapes(spec: &IcfSpec) -> Vec<(u8, Vec<SpecLine>)> {
    let mut groups: Vec<(u8, Vec<SpecLine>)> = Vec::new();
    let shape = |l: &SpecLine| {
        (
            l.read_percent,
            l.random_percent,
            l.delay_ms,
            l.burst,
            l.align_bytes,
            l.reply_bytes,
        )
    };
    for line in spec.lines.iter().filter(|l| l.of_size_percent > 0) {
        match groups.iter_mut().find(|(_, g)| shape(&g[0]) == shape(line)) {
            Some((share, group)) => {
                *share += line.of_size_percent;
                group.push(*line);
            }
            None => groups.push((line.of_size_percent, vec![*line])),
        }
    }
    groups
}

/// What a worker's jobs share.
struct WorkerJob {
    name: String,
    filename: String,
    size_bytes: Option<u64>,
    offset_bytes: u64,
    seed: Option<u64>,
    run_time_ns: u64,
    ramp_ns: u64,
    flow_id: usize,
}

impl WorkerJob {
    /// The job for `lines` (one shape), `depth` IOs in flight, held at `flow` percent of the
    /// worker's IOs when the worker has several jobs.
    fn job(&self, lines: &[SpecLine], depth: u64, flow: Option<u8>) -> Result<JobSpec, String> {
        let first = lines[0];
        if first.reply_bytes > 0 {
            return Err(format!(
                "reply {} bytes is a network transaction: diskmeter measures storage",
                first.reply_bytes
            ));
        }
        if let Some(line) = lines.iter().find(|l| l.size_bytes == 0) {
            return Err(format!(
                "a line of size 0 ({}% of size)",
                line.of_size_percent
            ));
        }
        let rw = crate::rw_for(first.random_percent > 0, first.read_percent);
        let mut options: Vec<(&str, String)> = vec![
            (
                "name",
                match flow {
                    // A job per line shape: named by its share, so the report tells them apart.
                    Some(share) => format!("{} ({share}%)", self.name),
                    None => self.name.clone(),
                },
            ),
            ("filename", self.filename.clone()),
            ("rw", rw.into()),
            ("iodepth", depth.to_string()),
            ("runtime", format!("{}ns", self.run_time_ns)),
            ("ramp_time", format!("{}ns", self.ramp_ns)),
            ("time_based", "1".into()),
            ("direct", "1".into()),
        ];
        let total: u64 = lines.iter().map(|l| u64::from(l.of_size_percent)).sum();
        if lines.len() == 1 {
            options.push(("bs", first.size_bytes.to_string()));
        } else {
            // Shares of this group, scaled to 100 (bssplit's rule).
            let mut parts: Vec<String> = Vec::new();
            let mut given = 0;
            for (i, l) in lines.iter().enumerate() {
                let share = if i + 1 == lines.len() {
                    100 - given
                } else {
                    u64::from(l.of_size_percent) * 100 / total
                };
                given += share;
                parts.push(format!("{}/{}", l.size_bytes, share));
            }
            options.push(("bssplit", parts.join(":")));
            if first.random_percent > 0 {
                // Iometer never cuts a transfer short; fio's random map would, with sizes
                // that vary.
                options.push(("norandommap", "1".into()));
            }
        }
        if rw == "rw" || rw == "randrw" {
            options.push(("rwmixread", first.read_percent.to_string()));
        }
        if (1..100).contains(&first.random_percent) {
            options.push(("percentage_random", first.random_percent.to_string()));
        }
        if first.delay_ms > 0 {
            options.push(("thinktime", format!("{}ms", first.delay_ms)));
            options.push(("thinktime_blocks", first.burst.max(1).to_string()));
        }
        if first.align_bytes > 0 {
            options.push(("blockalign", first.align_bytes.to_string()));
        }
        if let Some(size) = self.size_bytes {
            options.push(("size", size.to_string()));
        }
        if self.offset_bytes > 0 {
            options.push(("offset", self.offset_bytes.to_string()));
        }
        if let Some(seed) = self.seed {
            options.push(("randseed", seed.to_string()));
        }
        if let Some(share) = flow {
            options.push(("flow", share.to_string()));
            options.push(("flow_id", self.flow_id.to_string()));
        }
        let mut job = JobSpec::default();
        for (name, value) in options {
            apply_option_exact(&mut job, name, Some(&value)).map_err(|e| e.to_string())?;
        }
        Ok(job)
    }
}
