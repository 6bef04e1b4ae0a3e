//! Named suites: the scenarios the cloud guides and CrystalDiskMark users run by name
//! ("max write IOPS", "the 4x4 matrix", "quick"), as steps of ordinary diskmeter jobs.
//!
//! Pure data: a suite is built from its name and the user's [`SuiteOptions`] into
//! [`Step`]s of [`JobSpec`]s; the CLI runs each step, and `diskmeter_views::suite::table`
//! turns the results into the suite's table ([`Layout`] says how). A sweep's grid of points
//! and their jobs is here too ([`sweep`]), and its IOPS-latency curve ([`curve`]). Nothing here touches a file or a device.

#![forbid(unsafe_code)]

mod catalog;
pub mod curve;
pub mod expect;
pub mod sweep;

pub use catalog::{cached_read_suites, suite_names, CacheRole, SuiteInfo, SUITES};

use diskmeter_workload::{apply_option_exact, AutoStop, Direction, JobSpec};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a suite cannot be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SuiteError {
    /// No suite has this name.
    #[error(
        "no suite named '{name}'{} (diskmeter suite --list shows them)",
        suggestion.map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default()
    )]
    Unknown {
        /// The name given.
        name: String,
        /// The nearest suite name, when the name looks like a misspelling of one.
        suggestion: Option<&'static str>,
    },
    /// An override was refused by the option it sets.
    #[error(transparent)]
    Override(#[from] diskmeter_workload::OptionError),
    /// A warm-up was asked before a suite that does not read from a cached volume.
    #[error(
        "--warmup warms the read target before a suite that reads from a cached volume \
         ({}); `diskmeter suite warmup TARGET` warms on its own",
        cached_read_suites().join(", ")
    )]
    WarmupNotCached,
}

/// The user's choices that shape every step.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteOptions {
    /// Where IO goes: a file (created and removed by diskmeter) or a block device.
    pub target: PathBuf,
    /// Reads go here instead (the guides read from a cached volume).
    pub read_target: Option<PathBuf>,
    /// Writes go here instead (the guides write to an uncached stripe).
    pub write_target: Option<PathBuf>,
    /// Region per target, bytes; `None` = the device's size (devices only).
    pub size_bytes: Option<u64>,
    /// Total write IOPS cap, split evenly over the writers (the guides' 4 x 12,500).
    pub write_cap_iops: Option<u64>,
    /// fio options applied to every job of every step, in order (`runtime`, `iodepth`,
    /// `numjobs`, `bs`, ...), as the user wrote them.
    pub overrides: Vec<(String, String)>,
    /// The IO engine (io_uring unless the user chose another; `null` for tests).
    pub ioengine: String,
    /// End each step once its per-second IOPS and bandwidth are steady (within 2 % of their
    /// mean over 5 s) and their means known to +-1.5 % ([`AutoStop::suite_step`]), its
    /// runtime being the maximum; suites that exist to run for a time (`warmup`) ignore it.
    pub auto_stop: bool,
}

impl SuiteOptions {
    /// Options for `target` with nothing overridden.
    pub fn new(target: impl Into<PathBuf>) -> Self {
        SuiteOptions {
            target: target.into(),
            read_target: None,
            write_target: None,
            size_bytes: None,
            write_cap_iops: None,
            overrides: Vec::new(),
            ioengine: "io_uring".to_string(),
            auto_stop: true,
        }
    }

    /// The options on an emulated disk: `device` is the target, whole unless the user
    /// `sized` the region.
    pub fn on_emulated(&mut self, device: &Path, sized: bool) {
        self.target = device.to_path_buf();
        if !sized {
            self.size_bytes = None;
        }
    }

    /// Every file the steps use: the target, and the read and write targets when given.
    pub fn files(&self) -> Vec<PathBuf> {
        let others = [&self.read_target, &self.write_target];
        std::iter::once(self.target.clone())
            .chain(others.into_iter().flatten().cloned())
            .collect()
    }

    fn target_for(&self, direction: Direction) -> &PathBuf {
        match direction {
            Direction::Read => self.read_target.as_ref().unwrap_or(&self.target),
            Direction::Write => self.write_target.as_ref().unwrap_or(&self.target),
        }
    }
}

/// One step of a suite: one run of one or more jobs side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Name used in tables, history and `--dry-run` (`SEQ1M Q8T1 read`).
    pub name: String,
    /// The table row this step belongs to (`SEQ1M Q8T1`, `4K`).
    pub row: String,
    /// The table column (`read`, `write`, `seq read`, ...).
    pub column: String,
    /// The jobs, run together.
    pub jobs: Vec<JobSpec>,
    /// The step's default maximum runtime before overrides, seconds.
    pub runtime_s: u64,
}

/// How a suite's table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One row per test, read and write side by side (CrystalDiskMark).
    ReadWriteRows,
    /// IO size rows x pattern columns, "MiB/s / IOPS" per cell (the DiskSpd study).
    Matrix,
    /// One row per step, reads and writes in their own columns.
    Steps,
}

/// A suite ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// The suite's name.
    pub name: String,
    /// What it is for, one line.
    pub description: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// How its results are laid out.
    pub layout: Layout,
    /// What it has to do with the host's read cache.
    pub cache: CacheRole,
    /// The file its reads go to (the read target, else the target).
    pub read_file: PathBuf,
}

/// What one job of a step does, before targets and overrides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct JobShape {
    pub rw: &'static str,
    pub bs: &'static str,
    pub iodepth: u32,
    pub numjobs: u32,
    /// This job's writers share the user's write cap.
    pub capped_writer: bool,
}

impl JobShape {
    pub(crate) const fn new(
        rw: &'static str,
        bs: &'static str,
        iodepth: u32,
        numjobs: u32,
    ) -> Self {
        JobShape {
            rw,
            bs,
            iodepth,
            numjobs,
            capped_writer: false,
        }
    }

    pub(crate) const fn capped(self) -> Self {
        JobShape {
            capped_writer: true,
            ..self
        }
    }
}

/// Builds suite `name` for `options`.
pub fn build(name: &str, options: &SuiteOptions) -> Result<Suite, SuiteError> {
    let info = SUITES
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| SuiteError::Unknown {
            name: name.to_string(),
            suggestion: diskmeter_workload::nearest(name, suite_names()),
        })?;
    let mut steps = Vec::new();
    for spec in (info.steps)() {
        let writers: u32 = spec
            .jobs
            .iter()
            .filter(|j| j.capped_writer)
            .map(|j| j.numjobs)
            .sum();
        let mut jobs = Vec::new();
        for (index, shape) in spec.jobs.iter().enumerate() {
            let job = job_of(info.name, &spec, index, shape, writers, options)?;
            jobs.push(if options.auto_stop && info.auto_stop {
                let max = job.runtime_ns.unwrap_or(spec.runtime_s * 1_000_000_000);
                job.with_auto_stop(AutoStop::suite_step(max))
            } else {
                job
            });
        }
        steps.push(Step {
            name: spec.name.clone(),
            row: spec.row.clone(),
            column: spec.column.clone(),
            jobs,
            runtime_s: spec.runtime_s,
        });
    }
    Ok(Suite {
        name: info.name.to_string(),
        description: info.description.to_string(),
        steps,
        layout: info.layout,
        cache: info.cache,
        read_file: options.target_for(Direction::Read).clone(),
    })
}

/// The warm-up that `suite --warmup` runs before `suite` (built with `options`), which must
/// read from a cached volume: the warm-up suite on its read file, with the same size and
/// engine, each step for `runtime` when given (else the guide's 2 hours).
pub fn warmup_for(
    suite: &Suite,
    options: &SuiteOptions,
    runtime: Option<&str>,
) -> Result<(Suite, SuiteOptions), SuiteError> {
    if suite.cache != CacheRole::ReadsCached {
        return Err(SuiteError::WarmupNotCached);
    }
    let mut warm = SuiteOptions::new(&suite.read_file);
    warm.size_bytes = options.size_bytes;
    warm.ioengine = options.ioengine.clone();
    if let Some(runtime) = runtime {
        warm.overrides
            .push(("runtime".to_string(), runtime.to_string()));
    }
    Ok((build("warmup", &warm)?, warm))
}

/// A step as the catalog describes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepSpec {
    pub name: String,
    pub row: String,
    pub column: String,
    pub jobs: Vec<JobShape>,
    pub runtime_s: u64,
}

fn job_of(
    suite: &str,
    step: &StepSpec,
    index: usize,
    shape: &JobShape,
    writers: u32,
    options: &SuiteOptions,
) -> Result<JobSpec, SuiteError> {
    let writes = shape.rw.contains("write");
    let target = options.target_for(if writes {
        Direction::Write
    } else {
        Direction::Read
    });
    let slug: String = step
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut set: Vec<(String, String)> = vec![
        ("name".into(), format!("{suite}-{slug}-{index}")),
        (
            "filename".into(),
            target.display().to_string().replace(':', "\\:"),
        ),
        ("rw".into(), shape.rw.into()),
        ("bs".into(), shape.bs.into()),
        ("iodepth".into(), shape.iodepth.to_string()),
        ("numjobs".into(), shape.numjobs.to_string()),
        ("ioengine".into(), options.ioengine.clone()),
        ("direct".into(), "1".into()),
        ("runtime".into(), format!("{}s", step.runtime_s)),
        ("time_based".into(), "1".into()),
        ("group_reporting".into(), "1".into()),
        // The suite lays the file out once for all its steps and removes it at the end.
        ("unlink".into(), "0".into()),
    ];
    if options.ioengine == "null" {
        set.retain(|(name, _)| name != "direct");
    }
    if let Some(size) = options.size_bytes {
        set.push(("size".into(), size.to_string()));
    }
    if shape.capped_writer {
        if let Some(cap) = options.write_cap_iops {
            let each = (cap / u64::from(writers.max(1))).max(1);
            set.push(("rate_iops".into(), format!(",{each}")));
        }
    }
    set.extend(options.overrides.iter().cloned());
    let mut job = JobSpec::default();
    for (name, value) in &set {
        apply_option_exact(&mut job, name, Some(value)).map_err(SuiteError::Override)?;
    }
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_workload::RwMode;

    #[test]
    fn every_suite_builds_and_validates() {
        for info in SUITES {
            let suite = build(info.name, &SuiteOptions::new("t.dat")).unwrap();
            assert!(!suite.steps.is_empty(), "{}", info.name);
            for step in &suite.steps {
                for job in &step.jobs {
                    assert_eq!(diskmeter_workload::validate(job), vec![], "{}", step.name);
                }
            }
        }
    }

    #[test]
    fn quick_is_crystaldiskmarks_default_set() {
        let suite = build("quick", &SuiteOptions::new("t.dat")).unwrap();
        let names: Vec<&str> = suite.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SEQ1M Q8T1 read",
                "SEQ1M Q8T1 write",
                "SEQ1M Q1T1 read",
                "SEQ1M Q1T1 write",
                "RND4K Q32T1 read",
                "RND4K Q32T1 write",
                "RND4K Q1T1 read",
                "RND4K Q1T1 write",
            ]
        );
        let rnd = &suite.steps[4].jobs[0];
        assert_eq!(
            (rnd.rw, rnd.bs_bytes.read, rnd.iodepth, rnd.numjobs),
            (RwMode::RandRead, 4096, 32, 1)
        );
        assert!(rnd.direct && rnd.time_based);
        assert_eq!(rnd.steadystate.duration_ns, 5_000_000_000);
        assert_eq!(rnd.steadystate.precision_percent, Some(1.5));
        assert_eq!(rnd.runtime_ns, Some(30_000_000_000), "the step's maximum");
        let mut fixed = SuiteOptions::new("t.dat");
        fixed.auto_stop = false;
        let suite = build("quick", &fixed).unwrap();
        assert_eq!(suite.steps[4].jobs[0].steadystate.duration_ns, 0);
        let warmup = build("warmup", &SuiteOptions::new("t.dat")).unwrap();
        assert_eq!(
            warmup.steps[0].jobs[0].steadystate.duration_ns, 0,
            "warm-up runs for its time"
        );
    }

    #[test]
    fn the_mixed_scenario_splits_the_write_cap_and_the_targets() {
        let mut options = SuiteOptions::new("t.dat");
        options.read_target = Some("/mnt/cached/r.dat".into());
        options.write_target = Some("/mnt/stripe/w.dat".into());
        options.write_cap_iops = Some(50_000);
        let suite = build("max-mixed-iops", &options).unwrap();
        let jobs = &suite.steps[0].jobs;
        let reader = jobs.iter().find(|j| j.rw == RwMode::RandRead).unwrap();
        let writer = jobs.iter().find(|j| j.rw == RwMode::RandWrite).unwrap();
        assert_eq!(reader.filenames, vec![PathBuf::from("/mnt/cached/r.dat")]);
        assert_eq!(writer.filenames, vec![PathBuf::from("/mnt/stripe/w.dat")]);
        assert_eq!((reader.numjobs, writer.numjobs), (4, 4));
        // 4 x 12,500 = 50,000, as the guide's DS14 file.
        assert_eq!(writer.rate_iops.write, Some(12_500));
        assert_eq!(reader.rate_iops.read, None);
    }

    #[test]
    fn overrides_reach_every_job_and_bad_ones_are_refused() {
        let mut options = SuiteOptions::new("t.dat");
        options.overrides = vec![
            ("runtime".into(), "3".into()),
            ("iodepth".into(), "4".into()),
        ];
        let suite = build("matrix", &options).unwrap();
        assert_eq!(suite.steps.len(), 16);
        for job in suite.steps.iter().flat_map(|s| &s.jobs) {
            assert_eq!((job.runtime_ns, job.iodepth), (Some(3_000_000_000), 4));
        }
        options.overrides = vec![("bs".into(), "4q".into())];
        assert!(matches!(
            build("quick", &options),
            Err(SuiteError::Override(_))
        ));
        assert!(build("quik", &options)
            .unwrap_err()
            .to_string()
            .contains("did you mean 'quick'"));
    }
}
