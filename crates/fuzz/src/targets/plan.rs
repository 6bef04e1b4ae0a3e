//! The planner's arguments and catalog files: `diskmeter plan` (`--vm`, `--disks`, `--cache`,
//! `--workload`/`--require`, `--growth`, `--optimize`, `--family`, `--io-sizes`, and the
//! `--level`, `--window` and `--utc-offset` of `--from-capture`) and `diskmeter catalog
//! list|show --catalog FILE`, up to the text and JSON they print.
//!
//! An input is a request (saved as JSON) with the catalog files' texts. Promises checked: a
//! catalog file's error names the file (`catalog FILE: `), and no message is empty.

use crate::gen::Gen;
use crate::seeds::SeedFile;
use crate::{refused, Target, Verdict};
use diskmeter_analysis::requirements::{parse_utc_offset, Level, WindowSet};
use diskmeter_plan::{
    parse_disks, parse_growth, Catalog, Configuration, Demand, HostCache, PlanError, SearchSpace,
};
use diskmeter_units::{parse_size, KbBase};
use diskmeter_views::plan as text;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One `diskmeter plan` (or `catalog`) invocation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Request {
    /// `--catalog FILE`s: (name, text).
    #[serde(default)]
    pub catalogs: Vec<(String, String)>,
    /// `--vm`.
    #[serde(default)]
    pub vm: Option<String>,
    /// `--disks`.
    #[serde(default)]
    pub disks: Option<String>,
    /// `--cache`.
    #[serde(default)]
    pub cache: Option<String>,
    /// `--workload` / `--require`.
    #[serde(default)]
    pub workload: Option<String>,
    /// `--growth`.
    #[serde(default)]
    pub growth: Option<String>,
    /// `--optimize cost` (with `--family`).
    #[serde(default)]
    pub optimize: Option<String>,
    /// `--family`.
    #[serde(default)]
    pub family: Option<String>,
    /// `--io-sizes`.
    #[serde(default)]
    pub io_sizes: Option<String>,
    /// `--level`.
    #[serde(default)]
    pub level: Option<String>,
    /// `--window`.
    #[serde(default)]
    pub window: Option<String>,
    /// `--utc-offset`.
    #[serde(default)]
    pub utc_offset: Option<String>,
    /// `catalog show ID`.
    #[serde(default)]
    pub show: Option<String>,
}

/// The planner target.
pub struct Planner {
    seeds: Vec<SeedFile>,
    seed_texts: Vec<String>,
}

impl Planner {
    /// The target, mutating the built-in catalog files `seeds`.
    pub fn new(seeds: Vec<SeedFile>) -> Planner {
        Planner {
            seed_texts: seeds.iter().map(|s| s.text.clone()).collect(),
            seeds,
        }
    }

    fn catalog_text(&self, g: &mut Gen) -> String {
        if !self.seeds.is_empty() && g.one_in(3) {
            let seed = g.pick(&self.seeds);
            return crate::mutate::mutate(g, &seed.text, CATALOG_TOKENS, &self.seed_texts, 6);
        }
        let mut out = String::new();
        for _ in 0..g.count(5) {
            let disk = g.one_in(2);
            out.push_str(if disk { "[[disk]]\n" } else { "[[vm]]\n" });
            let fields: &[&str] = if disk { DISK_FIELDS } else { VM_FIELDS };
            for field in fields {
                // Every field now and then left out: some are optional, some not.
                if g.one_in(25) {
                    continue;
                }
                out.push_str(&format!("{field} = {}\n", toml_value(g, field)));
            }
        }
        if g.one_in(3) {
            out = crate::mutate::mutate(g, &out, CATALOG_TOKENS, &self.seed_texts, 3);
        }
        out
    }
}

const DISK_FIELDS: &[&str] = &[
    "id",
    "aliases",
    "name",
    "cloud",
    "premium",
    "size_gib",
    "iops",
    "mibps",
    "price_usd_month",
    "source",
    "date",
    "notes",
];

const VM_FIELDS: &[&str] = &[
    "id",
    "aliases",
    "family",
    "cloud",
    "premium_storage",
    "cores",
    "memory_gib",
    "local_ssd_gib",
    "max_data_disks",
    "max_stripe_disks",
    "uncached_iops",
    "uncached_mibps",
    "cache_iops",
    "cache_mibps",
    "cache_iops_per_core",
    "cache_mibps_per_core",
    "cache_size_gib",
    "price_usd_month",
    "source",
    "date",
    "notes",
];

const CATALOG_TOKENS: &[&str] = &[
    "[[disk]]",
    "[[vm]]",
    "=",
    "\"",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "4294967295",
    "0",
    "-1",
    "true",
    "[]",
    "id = \"P30\"",
    "cloud = \"azure\"",
    "\n",
];

fn toml_value(g: &mut Gen, field: &str) -> String {
    let text = |s: &str| format!("\"{}\"", s.replace(['"', '\\'], ""));
    match field {
        "id" => text(g.word_of(&[
            "P30",
            "Standard_DS13",
            "X1",
            "X2",
            "standard-1tb",
            "ds14v2",
            "",
        ])),
        "aliases" => format!("[{}]", text(g.word_of(&["S30", "P30", "", "DS13"]))),
        "cloud" => text(g.word_of(&["azure", "digitalocean", "aws", ""])),
        "premium" | "premium_storage" => {
            if g.one_in(20) {
                "1".to_string()
            } else {
                g.pick(&["true", "false"]).to_string()
            }
        }
        "cores" | "max_data_disks" | "max_stripe_disks" => match g.below(8) {
            0 => g.number(),
            1 => u32::MAX.to_string(),
            2 => g.range(1, 100_000).to_string(),
            _ => g.range(1, 128).to_string(),
        },
        "name" | "family" | "source" | "date" | "notes" => text(g.word_of(&["DS", "GS", "x", ""])),
        _ => match g.below(10) {
            0 => g
                .pick(&["nan", "inf", "-inf", "0.0", "-1.0", "1e308"])
                .to_string(),
            1 => g.number(),
            2 => format!("{}.5", g.range(0, 100_000)),
            _ => g.range(1, 100_000).to_string(),
        },
    }
}

fn workload(g: &mut Gen) -> String {
    let keys = [
        "iops",
        "mibps",
        "bs",
        "read",
        "write",
        "cache-hit",
        "cache_hit",
        "hit",
        "local",
        "latency",
        "qd",
        "iodepth",
        "capacity",
        "size",
        "random",
        "x",
        "",
    ];
    let pairs: Vec<String> = (0..g.count(8).max(1))
        .map(|_| {
            let key = *g.pick(&keys);
            let value = match key {
                "bs" => format!("{},{}", g.size(), g.size()),
                "iops" | "mibps" => format!("{}{}", g.float(), g.pick(&["", "k", "m", "K"])),
                "latency" => g.time(),
                "capacity" | "size" => g.size(),
                _ => g.percent_text(),
            };
            format!("{key}={value}")
        })
        .collect();
    let text = pairs.join(if g.one_in(10) { " , " } else { "," });
    if g.one_in(5) {
        crate::mutate::mutate(g, &text, &["=", ",", "%", "k"], &[], 3)
    } else {
        text
    }
}

fn odd_or(g: &mut Gen, usual: &[&str]) -> String {
    let usual = g.pick(usual).to_string();
    if g.one_in(10) {
        crate::mutate::mutate(g, &usual, &[":", "-", "+", "=", ","], &[], 2)
    } else {
        usual
    }
}

impl Target for Planner {
    fn name(&self) -> &'static str {
        "plan"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        let request = Request {
            catalogs: (0..g.count(2))
                .map(|i| (format!("extra{i}.toml"), self.catalog_text(g)))
                .collect(),
            vm: g.one_in(2).then(|| {
                odd_or(
                    g,
                    &[
                        "Standard_DS13",
                        "DS14",
                        "standard_ds14_v2",
                        "GS5",
                        "D8ds_v4",
                        "X1",
                    ],
                )
            }),
            disks: (!g.one_in(3)).then(|| match g.below(3) {
                0 => format!("{}x{}", g.number(), g.pick(&["P30", "P10", "X1", ""])),
                1 => odd_or(
                    g,
                    &[
                        "4xP30",
                        "P30",
                        "32xStandard-1TB",
                        "1025xP30",
                        "0xP30",
                        "2*P30",
                    ],
                ),
                _ => format!(
                    "{}{}",
                    g.range(0, 40),
                    g.pick(&["xP30", "XP20", "x", "xP30,P20"])
                ),
            }),
            cache: g
                .one_in(3)
                .then(|| odd_or(g, &["None", "ReadOnly", "ReadWrite", "readonly"])),
            workload: g
                .one_in(4)
                .then(|| workload(g))
                .or_else(|| g.one_in(3).then(|| workload(g))),
            growth: g.one_in(4).then(|| {
                if g.one_in(3) {
                    g.percent_text()
                } else {
                    format!("{}%", g.range(0, 300))
                }
            }),
            optimize: g.one_in(6).then(|| odd_or(g, &["cost", "COST", "speed"])),
            family: g.one_in(8).then(|| odd_or(g, &["DS,GS", "", ",", "ds"])),
            io_sizes: g.one_in(5).then(|| {
                (0..g.count(6))
                    .map(|_| g.size())
                    .collect::<Vec<_>>()
                    .join(",")
            }),
            level: g
                .one_in(4)
                .then(|| odd_or(g, &["p50", "p90", "p99", "max", "mean", "avg"])),
            window: g.one_in(4).then(|| {
                odd_or(
                    g,
                    &[
                        "normal=09:00-18:00",
                        "peak=12:00-13:00,night=22:00-06:00",
                        "a=0-24",
                    ],
                )
            }),
            utc_offset: g.one_in(4).then(|| {
                odd_or(
                    g,
                    &["+00:00", "-05:30", "+0100", "Z", "UTC", "+14:00", "-9"],
                )
            }),
            show: g
                .one_in(6)
                .then(|| odd_or(g, &["P30", "Standard_DS14", "nope"])),
        };
        serde_json::to_vec_pretty(&request).unwrap_or_default()
    }

    fn check(&self, input: &[u8]) -> Verdict {
        match serde_json::from_slice::<Request>(input) {
            Ok(request) => check_request(&request),
            // A bare catalog file replays too.
            Err(_) => check_request(&Request {
                catalogs: vec![("catalog.toml".into(), String::from_utf8_lossy(input).into())],
                ..Request::default()
            }),
        }
    }
}

/// The built-in catalog, parsed once.
/// The guides' slice: the planner's parsing and answers are the same on either slice, and a
/// search of the current one (515 VM sizes) takes half a second in a debug build, a thousand
/// times the fuzzer's budget per input; `bench/plan-speed` times the current one.
fn builtin() -> &'static Catalog {
    static BUILTIN: OnceLock<Catalog> = OnceLock::new();
    BUILTIN.get_or_init(|| Catalog::builtin_slice(diskmeter_plan::catalog::Slice::Guides))
}

/// `diskmeter catalog list|show` and `diskmeter plan` on a request, up to their output.
pub fn check_request(request: &Request) -> Verdict {
    let err = |e: PlanError| refused(e.to_string());
    // `--from-capture`'s arguments are read before the capture is.
    if let Some(level) = &request.level {
        if let Err(e) = level.parse::<Level>() {
            return refused(format!("--level: {e}"));
        }
    }
    let offset = match parse_utc_offset(request.utc_offset.as_deref().unwrap_or("+00:00")) {
        Ok(offset) => offset,
        Err(e) => return refused(format!("--utc-offset: {e}")),
    };
    if let Err(e) = WindowSet::parse(request.window.as_deref().unwrap_or(""), offset) {
        return refused(format!("--window: {e}"));
    }
    let mut catalog = builtin().clone();
    for (name, text) in &request.catalogs {
        if let Err(e) = catalog.add_file(name, text) {
            let message = e.to_string();
            if !message.starts_with(&format!("catalog {name}: ")) {
                return Verdict::Broken(format!("a catalog error without its file: {message}"));
            }
            return refused(message);
        }
    }
    let _ = diskmeter_views::catalog::catalog_list(&catalog);
    let _ = serde_json::to_string(&catalog);
    if let Some(id) = &request.show {
        if let Ok(disk) = catalog.disk(id) {
            let _ = diskmeter_views::catalog::disk_entry(&catalog, disk);
        } else if let Ok(vm) = catalog.vm(id) {
            let _ = diskmeter_views::catalog::vm_entry(&catalog, vm);
        }
    }
    let mut demand = Demand::default();
    if let Some(text) = &request.workload {
        demand = match Demand::parse_onto(demand, text) {
            Ok(demand) => demand,
            Err(e) => return refused(format!("--workload: {e}")),
        };
    }
    if let Some(text) = &request.growth {
        match parse_growth(text) {
            Ok(growth) => demand = demand.grown(growth),
            Err(e) => return refused(format!("--growth: {e}")),
        }
    }
    let _ = text::describe_demand(&demand);
    let cache = match request.cache.as_deref().map(HostCache::parse) {
        Some(None) => return err(PlanError::Cache(request.cache.clone().unwrap_or_default())),
        Some(Some(cache)) => Some(cache),
        None => None,
    };
    let vm = match request
        .vm
        .as_deref()
        .map(|name| catalog.vm(name))
        .transpose()
    {
        Ok(vm) => vm,
        Err(e) => return err(e),
    };
    let disks = match request
        .disks
        .as_deref()
        .map(|t| parse_disks(&catalog, t))
        .transpose()
    {
        Ok(disks) => disks,
        Err(e) => return err(e),
    };
    if let Some(goal) = &request.optimize {
        if !goal.eq_ignore_ascii_case("cost") {
            return err(PlanError::Goal(goal.clone()));
        }
        let space = SearchSpace {
            families: request
                .family
                .as_deref()
                .map(|f| {
                    f.split(',')
                        .map(str::to_string)
                        .filter(|f| !f.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            clouds: Vec::new(),
            vm: vm.map(|v| v.id.clone()),
            disk: disks.map(|(d, _)| d.id.clone()),
            cache,
        };
        return match diskmeter_plan::optimise(&catalog, &demand, &space, None) {
            Ok(answer) => {
                let _ = text::optimisation(&answer);
                let _ = serde_json::to_string(&answer);
                Verdict::Accepted
            }
            Err(e) => err(e),
        };
    }
    let Some((disk, disk_count)) = disks else {
        return refused("give --disks (e.g. --disks 4xP30) or --optimize cost".to_string());
    };
    let config = Configuration {
        vm,
        disk,
        disk_count,
        cache: cache.unwrap_or(HostCache::ReadOnly),
    };
    if let Some(list) = &request.io_sizes {
        let sizes = match io_sizes(list) {
            Ok(sizes) => sizes,
            Err(message) => return refused(message),
        };
        let rows = diskmeter_plan::io_size_table(&config, &sizes);
        let not_possible = diskmeter_plan::not_possible(&config);
        let _ = text::io_sizes(&config.describe(), &rows, &not_possible);
        let _ = serde_json::to_string(&rows);
        return Verdict::Accepted;
    }
    match diskmeter_plan::evaluate(&catalog, &config, &demand) {
        Ok(evaluation) => {
            let _ = text::evaluation(&evaluation);
            let _ = serde_json::to_string(&evaluation);
            Verdict::Accepted
        }
        Err(e) => err(e),
    }
}

/// `--io-sizes` as the CLI reads it.
fn io_sizes(list: &str) -> Result<Vec<u64>, String> {
    if list.trim().is_empty() {
        return Ok(diskmeter_plan::DEFAULT_IO_SIZES.to_vec());
    }
    list.split(',')
        .map(|s| match parse_size(s, KbBase::Binary) {
            Ok(0) => Err(format!("--io-sizes: '{s}' must be more than 0")),
            Ok(n) => Ok(n),
            Err(e) => Err(format!("--io-sizes: {e}")),
        })
        .collect()
}
