//! Iometer access specifications: `diskmeter iometer --spec ...` (with `--time`, `--ramp`,
//! `--size`) and scenario tables (`--table FILE`, TOML), up to the jobs each step would run,
//! validated as `--dry-run` validates them.
//!
//! An input is a request (saved as JSON): the specs and options, or a table's text. Promise
//! checked: a table's error names the table file first, and no message is empty.

use crate::gen::Gen;
use crate::{refused, Target, Verdict};
use diskmeter_jobfile::iometer::{self, Scenario, DEFAULT_FILE_SIZE};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use diskmeter_workload::{describe, validate};
use serde::{Deserialize, Serialize};

/// The table file's name in messages.
const TABLE_FILE: &str = "scenarios.toml";

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
