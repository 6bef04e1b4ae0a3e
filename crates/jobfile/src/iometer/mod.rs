//! Iometer access specifications (name, request size, % random, % read) and the guides'
//! scenario tables, as diskmeter jobs.
//!
//! An access specification `NAME:SIZE,RANDOM%,READ%` becomes a job with `bs=SIZE`, a mixed
//! read/write pattern with `rwmixread=READ%`, and `percentage_random=RANDOM%` (all random:
//! `randrw`; none: sequential `rw`). The guides' names resolve to their built-in definitions
//! (`RandomWrites_8K` is 8 KiB, 100 % random, 0 % read). A scenario table (TOML) lists what
//! to run in order: target, spec, duration, workers and queue depth per row.
//!
//! Iometer itself runs against a test file `iobw.tst` in the target volume's root; a target
//! that is a folder gets that file (laid out at `size`, default 1 GiB here; the guides use
//! 200 GB), a file or block device is used as it is.
//!
//! Iometer's own configuration files (`.icf`) are read by [`icf`] and run by [`icf_run`].

pub mod icf;
pub mod icf_request;
pub mod icf_run;
mod icf_sections;
pub mod icf_targets;
pub mod icf_workers;
pub mod steps;

use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit, UnitError};
use diskmeter_workload::{apply_option_exact, JobSpec, OptionError};
use serde::Deserialize;
use thiserror::Error;

/// A problem with an access specification or a scenario table: where, and why.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{what}: {problem}")]
pub struct IometerError {
    /// The spec, row or field at fault.
    pub what: String,
    /// Why.
    #[source]
    pub problem: IometerProblem,
}

/// Why an access specification or a scenario table cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum IometerProblem {
    /// A name that is neither defined here nor built in.
    #[error(
        "unknown access specification; define it as NAME:SIZE,RANDOM%,READ% or use one of {}",
        known.join(", ")
    )]
    UnknownSpec {
        /// The names known.
        known: Vec<String>,
    },

    /// Not `NAME:SIZE,RANDOM%,READ%`.
    #[error("expected NAME:SIZE,RANDOM%,READ% (e.g. OLTP_8K:8k,100,70)")]
    SpecShape,

    /// `:SIZE,...` with no name.
    #[error("the specification needs a name before ':'")]
    SpecName,

    /// A request size of 0.
    #[error("the request size must be more than 0")]
    ZeroSize,

    /// A size or time the units parser refused.
    #[error(transparent)]
    Unit(#[from] UnitError),

    /// A percentage field that is not a whole number from 0 to 100.
    #[error("{field} '{text}' must be a whole number from 0 to 100")]
    Percent {
        /// `RANDOM%` or `READ%`.
        field: &'static str,
        /// The field as given.
        text: String,
    },

    /// The TOML does not parse (the parser's message gives the line).
    #[error("{}", .0.to_string().trim_end())]
    Toml(#[source] Box<toml::de::Error>),

    /// A table without scenarios.
    #[error("no [[scenario]] rows")]
    NoScenarios,

    /// `workers = 0` or `qd = 0`.
    #[error("workers and qd must be 1 or more")]
    ZeroWorkers,

    /// The spec a scenario names is wrong.
    #[error(transparent)]
    Spec(Box<IometerError>),

    /// Rows that run together were given different times (they start and end together, as
    /// Iometer's workers of one test do).
    #[error("rows run together (together = \"{group}\") must have the same duration and ramp as its first row")]
    TogetherTimes {
        /// The `together` value.
        group: String,
    },

    /// A job option refused the value the spec maps onto.
    #[error(transparent)]
    Option(#[from] OptionError),
}

fn err(what: impl Into<String>, problem: impl Into<IometerProblem>) -> IometerError {
    IometerError {
        what: what.into(),
        problem: problem.into(),
    }
}

/// An access specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessSpec {
    /// Its name.
    pub name: String,
    /// Request size, bytes.
    pub size_bytes: u64,
    /// Share of requests at random offsets, percent.
    pub random_percent: u8,
    /// Share of reads, percent.
    pub read_percent: u8,
}

/// The access specifications of the Azure benchmarking guide (reference, section 2).
pub fn builtin_specs() -> Vec<AccessSpec> {
    let spec = |name: &str, size_bytes: u64, read_percent: u8| AccessSpec {
        name: name.to_string(),
        size_bytes,
        random_percent: 100,
        read_percent,
    };
    vec![
        spec("RandomWrites_8K", 8 << 10, 0),
        spec("RandomReads_8K", 8 << 10, 100),
        spec("RandomWrites_64K", 64 << 10, 0),
        spec("RandomReads_64K", 64 << 10, 100),
        spec("RandomWrites_1MB", 1 << 20, 0),
        spec("RandomReads_1MB", 1 << 20, 100),
    ]
}

/// Reads `NAME:SIZE,RANDOM%,READ%`, or a name alone that `known` defines.
pub fn parse_spec(text: &str, known: &[AccessSpec]) -> Result<AccessSpec, IometerError> {
    let text = text.trim();
    let Some((name, fields)) = text.split_once(':') else {
        return known
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(text))
            .cloned()
            .ok_or_else(|| {
                err(
                    text,
                    IometerProblem::UnknownSpec {
                        known: known.iter().map(|s| s.name.clone()).collect(),
                    },
                )
            });
    };
    let parts: Vec<&str> = fields.split(',').map(str::trim).collect();
    let [size, random, read] = parts.as_slice() else {
        return Err(err(text, IometerProblem::SpecShape));
    };
    if name.trim().is_empty() {
        return Err(err(text, IometerProblem::SpecName));
    }
    Ok(AccessSpec {
        name: name.trim().to_string(),
        size_bytes: size_of(size, text)?,
        random_percent: percent(random, text, "RANDOM%")?,
        read_percent: percent(read, text, "READ%")?,
    })
}

fn size_of(text: &str, what: &str) -> Result<u64, IometerError> {
    match parse_size(text, KbBase::Binary) {
        Ok(0) => Err(err(what, IometerProblem::ZeroSize)),
        Ok(n) => Ok(n),
        Err(e) => Err(err(what, e)),
    }
}

fn percent(text: &str, what: &str, field: &'static str) -> Result<u8, IometerError> {
    match text.trim_end_matches('%').parse::<u8>() {
        Ok(n) if n <= 100 => Ok(n),
        _ => Err(err(
            what,
            IometerProblem::Percent {
                field,
                text: text.to_string(),
            },
        )),
    }
}

/// One row of a scenario: a spec on a target for a time, with workers and queue depth.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The target: a folder (gets `iobw.tst`), a file or a block device.
    pub target: String,
    /// The access specification.
    pub spec: AccessSpec,
    /// Measured time, ns.
    pub duration_ns: u64,
    /// Ramp-up time, ns.
    pub ramp_ns: u64,
    /// Workers on the target (the guides: 3 or more).
    pub workers: u32,
    /// Outstanding IOs per worker (the guides: 128).
    pub queue_depth: u32,
    /// Test file size when the target is a folder.
    pub file_size_bytes: u64,
    /// Rows with the same name here run at the same time (the guides' CacheReads and
    /// NoCacheWrites volumes together); `None`: the row runs alone.
    pub together: Option<String>,
}

/// Which rows run at the same time: one list of row indices per step, in the order of each
/// step's first row. Rows without `together` are steps of their own.
pub fn steps_of(rows: &[Scenario]) -> Vec<Vec<usize>> {
    let mut steps: Vec<Vec<usize>> = Vec::new();
    let mut groups: Vec<(&str, usize)> = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        match row.together.as_deref() {
            Some(name) => match groups.iter().find(|(g, _)| *g == name) {
                Some(&(_, step)) => steps[step].push(index),
                None => {
                    groups.push((name, steps.len()));
                    steps.push(vec![index]);
                }
            },
            None => steps.push(vec![index]),
        }
    }
    steps
}

/// The jobs of one step (`rows` at the indices `step` gives, see [`steps_of`]): each row's
/// job, reported on its own (`new_group`) when rows run together. `is_dir` says whether a
/// target is a folder.
pub fn step_jobs(
    rows: &[Scenario],
    step: &[usize],
    is_dir: impl Fn(&str) -> bool,
) -> Result<Vec<JobSpec>, IometerError> {
    step.iter()
        .enumerate()
        .map(|(position, &index)| {
            let row = &rows[index];
            let mut job = row.job(index, is_dir(&row.target))?;
            if position > 0 {
                apply_option_exact(&mut job, "new_group", None)
                    .map_err(|e| err(format!("scenario {}", index + 1), e))?;
            }
            Ok(job)
        })
        .collect()
}

/// Default size of `iobw.tst` when the target is a folder.
pub const DEFAULT_FILE_SIZE: u64 = 1 << 30;

impl Scenario {
    /// The diskmeter job for this row. `target_is_dir` says whether the target is a folder.
    pub fn job(&self, index: usize, target_is_dir: bool) -> Result<JobSpec, IometerError> {
        let s = &self.spec;
        let rw = crate::rw_for(s.random_percent > 0, s.read_percent);
        let filename = if target_is_dir {
            format!("{}/iobw.tst", self.target.trim_end_matches('/'))
        } else {
            self.target.clone()
        };
        let mut options = vec![
            ("name", format!("{}-{}", index + 1, s.name)),
            ("filename", filename.replace(':', "\\:")),
            ("rw", rw.to_string()),
            ("bs", s.size_bytes.to_string()),
            ("numjobs", self.workers.to_string()),
            ("iodepth", self.queue_depth.to_string()),
            ("runtime", format!("{}ns", self.duration_ns)),
            ("ramp_time", format!("{}ns", self.ramp_ns)),
            ("time_based", "1".to_string()),
            ("direct", "1".to_string()),
            ("group_reporting", "1".to_string()),
        ];
        if rw == "rw" || rw == "randrw" {
            options.push(("rwmixread", s.read_percent.to_string()));
        }
        if (1..100).contains(&s.random_percent) {
            options.push(("percentage_random", s.random_percent.to_string()));
        }
        if target_is_dir {
            options.push(("size", self.file_size_bytes.to_string()));
        }
        let mut job = JobSpec::default();
        for (name, value) in options {
            apply_option_exact(&mut job, name, Some(&value))
                .map_err(|e| err(format!("scenario {}", index + 1), e))?;
        }
        Ok(job)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    #[serde(default)]
    spec: Vec<SpecRow>,
    #[serde(default)]
    scenario: Vec<ScenarioRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecRow {
    name: String,
    size: String,
    random: u8,
    read: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioRow {
    target: String,
    spec: String,
    duration: String,
    #[serde(default)]
    ramp: Option<String>,
    #[serde(default = "default_workers")]
    workers: u32,
    #[serde(default = "default_qd")]
    qd: u32,
    #[serde(default)]
    size: Option<String>,
    #[serde(default)]
    together: Option<String>,
}

fn default_workers() -> u32 {
    3
}

fn default_qd() -> u32 {
    128
}

/// Reads a scenario table (TOML): optional `[[spec]]` rows (name, size, random, read) that
/// add to the built-in specifications, and `[[scenario]]` rows (target, spec, duration, and
/// optionally ramp, workers = 3, qd = 128, size of `iobw.tst`, and `together`: rows with the
/// same `together` run at the same time), run in order.
pub fn parse_table(file: &str, text: &str) -> Result<Vec<Scenario>, IometerError> {
    let table: TableFile =
        toml::from_str(text).map_err(|e| err(file, IometerProblem::Toml(Box::new(e))))?;
    let mut known = builtin_specs();
    for row in table.spec {
        let spec = parse_spec(
            &format!("{}:{},{},{}", row.name, row.size, row.random, row.read),
            &[],
        )
        .map_err(|e| err(format!("{file}: [[spec]] {}", row.name), e.problem))?;
        known.retain(|s| !s.name.eq_ignore_ascii_case(&spec.name));
        known.push(spec);
    }
    if table.scenario.is_empty() {
        return Err(err(file, IometerProblem::NoScenarios));
    }
    table
        .scenario
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let at = format!("{file}: scenario {}", i + 1);
            let time = |text: &str| parse_time_ns(text, TimeUnit::Seconds).map_err(|e| err(&at, e));
            if row.workers == 0 || row.qd == 0 {
                return Err(err(&at, IometerProblem::ZeroWorkers));
            }
            Ok(Scenario {
                target: row.target,
                spec: parse_spec(&row.spec, &known)
                    .map_err(|e| err(&at, IometerProblem::Spec(Box::new(e))))?,
                duration_ns: time(&row.duration)?,
                ramp_ns: row.ramp.as_deref().map(time).transpose()?.unwrap_or(0),
                workers: row.workers,
                queue_depth: row.qd,
                file_size_bytes: row
                    .size
                    .as_deref()
                    .map(|s| size_of(s, &at))
                    .transpose()?
                    .unwrap_or(DEFAULT_FILE_SIZE),
                together: row.together,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|rows| same_times_together(file, rows))
}

/// Refuses rows run together whose duration or ramp differs from their first row's.
fn same_times_together(file: &str, rows: Vec<Scenario>) -> Result<Vec<Scenario>, IometerError> {
    for step in steps_of(&rows) {
        let first = &rows[step[0]];
        for &index in &step[1..] {
            let row = &rows[index];
            if (row.duration_ns, row.ramp_ns) != (first.duration_ns, first.ramp_ns) {
                return Err(err(
                    format!("{file}: scenario {}", index + 1),
                    IometerProblem::TogetherTimes {
                        group: row.together.clone().unwrap_or_default(),
                    },
                ));
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_workload::RwMode;

    #[test]
    fn the_guides_names_resolve() {
        let known = builtin_specs();
        let s = parse_spec("RandomWrites_8K", &known).unwrap();
        assert_eq!(
            (s.size_bytes, s.random_percent, s.read_percent),
            (8192, 100, 0)
        );
        let s = parse_spec("randomreads_1mb", &known).unwrap();
        assert_eq!((s.size_bytes, s.read_percent), (1 << 20, 100));
        assert!(parse_spec("Nope", &known)
            .unwrap_err()
            .to_string()
            .contains("RandomReads_64K"));
    }

    #[test]
    fn specs_map_to_jobs() {
        let spec = parse_spec("OLTP:8k,60,70", &[]).unwrap();
        let row = Scenario {
            target: "/mnt/data".into(),
            spec,
            duration_ns: 30_000_000_000,
            ramp_ns: 0,
            workers: 3,
            queue_depth: 128,
            file_size_bytes: 1 << 30,
            together: None,
        };
        let job = row.job(0, true).unwrap();
        assert_eq!(job.rw, RwMode::RandRw);
        assert_eq!((job.rwmixread, job.percentage_random), (70, 60));
        assert_eq!((job.numjobs, job.iodepth), (3, 128));
        assert_eq!(job.filenames, vec!["/mnt/data/iobw.tst".to_string()]);
        assert_eq!(job.size_bytes, Some(1 << 30));
        assert!(job.direct && job.group_reporting);
        let seq = Scenario {
            spec: parse_spec("SeqRead:64k,0,100", &[]).unwrap(),
            ..row
        };
        assert_eq!(seq.job(1, false).unwrap().rw, RwMode::Read);
    }

    #[test]
    fn rows_together_share_a_step_and_their_times() {
        let table = |second_duration: &str| {
            format!(
                "[[scenario]]\ntarget = \"/c\"\nspec = \"RandomReads_8K\"\nduration = \"30s\"\ntogether = \"guide\"\n\
                 [[scenario]]\ntarget = \"/x\"\nspec = \"RandomReads_64K\"\nduration = \"30s\"\n\
                 [[scenario]]\ntarget = \"/n\"\nspec = \"RandomWrites_8K\"\nduration = \"{second_duration}\"\ntogether = \"guide\"\n"
            )
        };
        let rows = parse_table("t.toml", &table("30s")).unwrap();
        assert_eq!(steps_of(&rows), vec![vec![0, 2], vec![1]]);
        let jobs = step_jobs(&rows, &[0, 2], |_| false).unwrap();
        assert_eq!(jobs.len(), 2);
        assert!(
            !jobs[0].new_group && jobs[1].new_group,
            "the second row is reported on its own"
        );
        let err = parse_table("t.toml", &table("10s"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("t.toml: scenario 3"), "{err}");
        assert!(err.contains("same duration and ramp"), "{err}");
    }

    #[test]
    fn bad_specs_and_tables_say_what_is_wrong() {
        for (text, needle) in [
            ("X:8k,100", "expected NAME:SIZE,RANDOM%,READ%"),
            ("X:8q,100,0", "X:8q,100,0:"),
            ("X:8k,101,0", "RANDOM%"),
            ("X:0,100,0", "more than 0"),
            (":8k,1,1", "needs a name"),
        ] {
            let e = parse_spec(text, &[]).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        let e = parse_table(
            "t.toml",
            "[[scenario]]\ntarget='.'\nspec='RandomReads_8K'\nduration='1x'\n",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("t.toml: scenario 1:"), "{e}");
        let e = parse_table("t.toml", "").unwrap_err();
        assert!(e.to_string().contains("no [[scenario]] rows"), "{e}");
        let e = parse_table("t.toml", "[[scenario]]\ntarget='.'\n").unwrap_err();
        assert!(e.to_string().starts_with("t.toml:"), "{e}");
    }

    #[test]
    fn tables_define_specs_and_defaults() {
        let rows = parse_table(
            "t.toml",
            r#"
[[spec]]
name = "Mixed_16K"
size = "16k"
random = 100
read = 70

[[scenario]]
target = "/mnt/a"
spec = "RandomWrites_8K"
duration = "30s"

[[scenario]]
target = "/mnt/b"
spec = "Mixed_16K"
duration = "2m"
ramp = "5s"
workers = 4
qd = 64
size = "10g"
"#,
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].workers, rows[0].queue_depth), (3, 128));
        assert_eq!(rows[1].spec.read_percent, 70);
        assert_eq!(rows[1].duration_ns, 120_000_000_000);
        assert_eq!(rows[1].file_size_bytes, 10 << 30);
    }
}

#[cfg(test)]
mod icf_tests;
