//! Iometer access specifications: `diskmeter iometer --spec ...` (with `--time`, `--ramp`,
//! `--size`) and scenario tables (`--table FILE`, TOML), up to the jobs each step would run,
//! validated as `--dry-run` validates them.
//!
//! An input is a request (saved as JSON): the specs and options, a table's text, or an
//! Iometer configuration file's text (`--icf`). Promise checked: a table's or an .icf file's
//! error names the file first, and no message is empty.

use crate::gen::Gen;
use crate::{refused, Target, Verdict};
use diskmeter_jobfile::iometer::icf_run::{self, ResolvedTarget, RunSettings};
use diskmeter_jobfile::iometer::{self, icf, Scenario, DEFAULT_FILE_SIZE};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use diskmeter_workload::{describe, validate};
use serde::{Deserialize, Serialize};

/// The table file's name in messages.
const TABLE_FILE: &str = "scenarios.toml";

/// The .icf file's name in messages.
const ICF_FILE: &str = "config.icf";

/// One `diskmeter iometer` invocation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Request {
    /// `--spec` values.
    #[serde(default)]
    pub specs: Vec<String>,
    /// `--table FILE`'s text (when given, the specs are not used, as the CLI's conflict).
    #[serde(default)]
    pub table: Option<String>,
    /// `--time`.
    #[serde(default)]
    pub time: String,
    /// `--ramp`.
    #[serde(default)]
    pub ramp: String,
    /// `--size`.
    #[serde(default)]
    pub size: Option<String>,
    /// `--workers` (clap keeps it at 1 or more).
    #[serde(default)]
    pub workers: u32,
    /// `--qd` (clap keeps it at 1 or more).
    #[serde(default)]
    pub qd: u32,
    /// The target is a folder.
    #[serde(default)]
    pub target_is_dir: bool,
    /// `--icf FILE`'s text (when given, it alone is used).
    #[serde(default)]
    pub icf: Option<String>,
}

/// The Iometer target.
pub struct Iometer;

impl Iometer {
    /// The target.
    pub fn new() -> Iometer {
        Iometer
    }
}

impl Default for Iometer {
    fn default() -> Self {
        Iometer::new()
    }
}

/// Names, sizes and shares that make a spec.
const SPEC_TOKENS: &[&str] = &[
    "RandomWrites_8K",
    "RandomReads_8K",
    "RandomWrites_64K",
    "RandomReads_64K",
    "RandomWrites_1MB",
    "RandomReads_1MB",
    "randomreads_8k",
    "OLTP",
    ":",
    ",",
    "%",
    "8k",
    "100",
    "0",
    "70",
];

fn spec(g: &mut Gen) -> String {
    let text = match g.below(6) {
        0 => g.pick(&SPEC_TOKENS[..8]).to_string(),
        1 => format!("{}:{}", g.word(4), g.size()),
        2 => format!(
            "{}:{},{},{}",
            g.pick(&["OLTP", "", " ", "a:b", "x"]),
            g.size(),
            g.percent_text(),
            g.percent_text()
        ),
        _ => format!(
            "{}:{},{},{}",
            g.pick(&["OLTP", "DB_8K", "x"]),
            g.size_small(),
            g.range(0, 100),
            g.range(0, 100)
        ),
    };
    if g.one_in(4) {
        crate::mutate::mutate(g, &text, SPEC_TOKENS, &[], 3)
    } else {
        text
    }
}

/// A number up to `max` (sometimes one past it), or now and then an edge number.
fn small_or_edge(g: &mut Gen, max: u64) -> String {
    if g.one_in(6) {
        g.number()
    } else {
        g.range(0, max + 1).to_string()
    }
}

fn table(g: &mut Gen) -> String {
    let mut out = String::new();
    for _ in 0..g.count(4) {
        out.push_str("[[spec]]\n");
        let fields = [
            format!(
                "name = \"{}\"",
                g.pick(&["OLTP", "", "RandomReads_8K", "é"])
            ),
            format!("size = \"{}\"", g.size_small()),
            format!("random = {}", small_or_edge(g, 100)),
            format!("read = {}", small_or_edge(g, 100)),
        ];
        for field in fields {
            if !g.one_in(12) {
                out.push_str(&field);
                out.push('\n');
            }
        }
    }
    for _ in 0..g.count(6) {
        out.push_str("[[scenario]]\n");
        let fields = [
            format!("target = \"{}\"", g.pick(&["/mnt/a", "", "b", "\\\\"])),
            format!("spec = \"{}\"", spec(g).replace(['"', '\\'], "")),
            format!("duration = \"{}{}\"", g.range(0, 100), g.time_suffix()),
            format!("ramp = \"{}\"", g.time()),
            format!("workers = {}", small_or_edge(g, 64)),
            format!("qd = {}", small_or_edge(g, 256)),
            format!("size = \"{}\"", g.size()),
            format!("together = \"{}\"", g.pick(&["a", "b", ""])),
            "colour = \"red\"".to_string(),
        ];
        for (i, field) in fields.into_iter().enumerate() {
            let optional = i >= 3;
            let left_out = (optional && g.one_in(2)) || g.one_in(20);
            if !left_out {
                out.push_str(&field);
                out.push('\n');
            }
        }
    }
    if g.one_in(3) {
        out = crate::mutate::mutate(
            g,
            &out,
            &["[[", "]]", "=", "\"", "\n", "[spec]", "1e9"],
            &[],
            4,
        );
    }
    out
}

/// An .icf file: Iometer's sections with generated numbers, names and test types, now and
/// then mutated.
fn icf_text(g: &mut Gen) -> String {
    let step = |g: &mut Gen| g.pick(&["LINEAR", "EXPONENTIAL", "2", ""]).to_string();
    let mut out = format!(
        "Version {}\n'TEST SETUP ====\n'Test Description\n\t{}\n'Run Time\n'\thours minutes seconds\n\t0 0 {}\n\
         'Ramp Up Time (s)\n\t{}\n'Default Disk Workers to Spawn\n\t{}\n'Disk Cycling\n'\tstart step step type\n\t{} {} {}\n\
         'Queue Depth Cycling\n'\tstart end step step type\n\t{} {} {} {}\n'Test Type\n\t{}\n'END test setup\n\
         'ACCESS SPECIFICATIONS ====\n",
        g.pick(&["1.1.0", "2006.07.27", "2004.07.30", ""]),
        g.word(4),
        small_or_edge(g, 3),
        small_or_edge(g, 2),
        g.pick(&["NUMBER_OF_CPUS", "1", "0", "x"]),
        small_or_edge(g, 3),
        small_or_edge(g, 3),
        step(g),
        small_or_edge(g, 4),
        small_or_edge(g, 64),
        small_or_edge(g, 4),
        step(g),
        g.pick(&["NORMAL", "CYCLE_TARGETS", "CYCLE_WORKERS", "INCREMENT_TARGETS_PARALLEL", "INCREMENT_TARGETS_SERIAL", "CYCLE_WORKERS_AND_TARGETS", "CYCLE_OUTSTANDING_IOS", "CYCLE_OUTSTANDING_IOS_AND_TARGETS", "7", "BOGUS"]),
    );
    let specs = ["A", "B"];
    for name in specs {
        out += &format!("'Access specification name,default assignment\n\t{name},{}\n'size,% of size,% reads,% random,delay,burst,align,reply\n", g.pick(&["NONE", "ALL"]));
        let lines = g.count(3).max(1);
        for i in 0..lines {
            let share = if i + 1 == lines {
                100 - 100 / lines as u64 * i as u64
            } else {
                100 / lines as u64
            };
            out += &format!(
                "\t{},{},{},{},{},{},{},{}\n",
                g.pick(&["512", "4096", "65536", "0", "1048576"]),
                share,
                small_or_edge(g, 100),
                small_or_edge(g, 100),
                g.pick(&["0", "0", "5"]),
                g.pick(&["1", "0", "8"]),
                g.pick(&["0", "0", "4096", "3"]),
                g.pick(&["0", "0", "0", "64"])
            );
        }
    }
    out += "'END access specifications\n'MANAGER LIST ====\n'Manager ID, manager name\n\t1,host\n'Manager network address\n\t\n";
    for w in 0..g.count(3) {
        out += &format!(
            "'Worker\n\tWorker {w}\n'Worker type\n\t{}\n'Default target settings for worker\n\
             'Number of outstanding IOs,test connection rate,transactions per connection\n\t{},{},1\n\
             'Disk maximum size,starting sector\n\t{},{}\n'End default target settings for worker\n'Assigned access specs\n",
            g.pick(&["DISK", "DISK", "NETWORK,TCP"]),
            small_or_edge(g, 64),
            g.pick(&["DISABLED", "DISABLED", "ENABLED"]),
            g.pick(&["0", "2048", "1"]),
            g.pick(&["0", "8", "1"]),
        );
        for _ in 0..g.count(3) {
            out += &format!("\t{}\n", g.pick(&["A", "B", "Idle", "C"]));
        }
        out += "'End assigned access specs\n'Target assignments\n";
        for _ in 0..g.count(2) {
            out += &format!(
                "'Target\n\t{}\n'Target type\n\tDISK\n'End target\n",
                g.pick(&["C: \"NTFS\"", "PHYSICALDRIVE:1", "/dev/sdb"])
            );
        }
        out += "'End target assignments\n'End worker\n";
    }
    out += "'End manager\n'END manager list\n";
    if g.one_in(3) {
        out = crate::mutate::mutate(
            g,
            &out,
            &["'", "\n", ",", "'End", "\t", "99999999999"],
            &[],
            4,
        );
    }
    out
}

/// `diskmeter iometer --icf config.icf --dry-run`, every target mapped to one path.
fn check_icf(request: &Request, text: &str) -> Verdict {
    let file = match icf::parse_icf(ICF_FILE, text) {
        Ok(file) => file,
        Err(error) => {
            let message = error.to_string();
            return if message.starts_with(ICF_FILE) {
                refused(message)
            } else {
                Verdict::Broken(format!("an .icf error does not name the file: {message}"))
            };
        }
    };
    let settings = RunSettings {
        run_time_ns: None,
        ramp_ns: None,
        file_size_bytes: 16 << 20,
    };
    let resolve = |_: &str| {
        Some(ResolvedTarget {
            path: "/mnt/data".into(),
            is_dir: request.target_is_dir,
        })
    };
    let steps = match icf_run::steps(ICF_FILE, &file, &settings, &resolve) {
        Ok(steps) => steps,
        Err(error) => return refused(error.to_string()),
    };
    for step in &steps {
        for job in &step.jobs {
            if let Some(problem) = validate(job).first() {
                return refused(problem.to_string());
            }
            let _ = describe(job);
        }
        let planned = crate::dryrun::plan(&step.jobs);
        if !matches!(planned, Verdict::Accepted) {
            return planned;
        }
    }
    Verdict::Accepted
}

impl Target for Iometer {
    fn name(&self) -> &'static str {
        "iometer"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        let request = Request {
            specs: (0..g.count(5).max(usize::from(!g.one_in(20))))
                .map(|_| spec(g))
                .collect(),
            table: g.one_in(3).then(|| table(g)),
            time: if g.one_in(2) { "30s".into() } else { g.time() },
            ramp: if g.one_in(2) { "0".into() } else { g.time() },
            size: g.one_in(3).then(|| g.size()),
            workers: match g.below(8) {
                0 => g.range(1, u64::from(u32::MAX)) as u32,
                1..=3 => 3,
                _ => g.range(1, 64) as u32,
            },
            qd: match g.below(8) {
                0 => g.range(1, u64::from(u32::MAX)) as u32,
                1..=3 => 128,
                _ => g.range(1, 1024) as u32,
            },
            target_is_dir: g.one_in(2),
            icf: None,
        };
        let request = if g.one_in(4) {
            Request {
                icf: Some(icf_text(g)),
                ..request
            }
        } else {
            request
        };
        serde_json::to_vec_pretty(&request).unwrap_or_default()
    }

    fn check(&self, input: &[u8]) -> Verdict {
        let request: Request = match serde_json::from_slice(input) {
            Ok(request) => request,
            // A bare table replays too.
            Err(_) => Request {
                table: Some(String::from_utf8_lossy(input).into_owned()),
                ..Request::default()
            },
        };
        check_request(&request)
    }
}

/// `diskmeter iometer ... --dry-run`, short of looking at the target.
pub fn check_request(request: &Request) -> Verdict {
    if let Some(text) = &request.icf {
        return check_icf(request, text);
    }
    let rows = match scenarios(request) {
        Ok(rows) => rows,
        Err(verdict) => return verdict,
    };
    let mut first_problem = None;
    let mut steps = Vec::new();
    for group in iometer::steps_of(&rows) {
        let jobs = match iometer::step_jobs(&rows, &group, |_| request.target_is_dir) {
            Ok(jobs) => jobs,
            Err(error) => return refused(error.to_string()),
        };
        for job in &jobs {
            for problem in validate(job) {
                first_problem.get_or_insert_with(|| problem.to_string());
            }
            let _ = describe(job);
        }
        steps.push(jobs);
    }
    if let Some(problem) = first_problem {
        return refused(problem);
    }
    // Each step is planned on its own, as the session plans it before running it.
    for jobs in &steps {
        let planned = crate::dryrun::plan(jobs);
        if !matches!(planned, Verdict::Accepted) {
            return planned;
        }
    }
    Verdict::Accepted
}

/// The rows of a request, as the CLI reads them.
fn scenarios(request: &Request) -> Result<Vec<Scenario>, Verdict> {
    if let Some(text) = &request.table {
        return iometer::parse_table(TABLE_FILE, text).map_err(|error| {
            let message = error.to_string();
            if message.starts_with(TABLE_FILE) {
                refused(message)
            } else {
                Verdict::Broken(format!(
                    "a table's error does not name the table: {message}"
                ))
            }
        });
    }
    if request.specs.is_empty() {
        return Err(refused("give at least one --spec".to_string()));
    }
    let time =
        |text: &str| parse_time_ns(text, TimeUnit::Seconds).map_err(|e| refused(e.to_string()));
    let file_size_bytes = match &request.size {
        Some(text) => parse_size(text, KbBase::Binary).map_err(|e| refused(e.to_string()))?,
        None => DEFAULT_FILE_SIZE,
    };
    let known = iometer::builtin_specs();
    request
        .specs
        .iter()
        .map(|text| {
            Ok(Scenario {
                target: "/mnt/data".to_string(),
                spec: iometer::parse_spec(text, &known).map_err(|e| refused(e.to_string()))?,
                duration_ns: time(&request.time)?,
                ramp_ns: time(&request.ramp)?,
                workers: request.workers.max(1),
                queue_depth: request.qd.max(1),
                file_size_bytes,
                together: None,
            })
        })
        .collect()
}
