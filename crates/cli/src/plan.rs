//! `diskmeter plan`: evaluate a VM + disks configuration against a workload, find the cheapest
//! one that meets a requirement, or tabulate caps by IO size. The model is in diskmeter-plan.

use crate::{write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::requirements::{capture_demand, parse_utc_offset, Level, WindowSet};
use diskmeter_plan::burst::{Load, LoadPoint};
use diskmeter_plan::catalog::Slice;
use diskmeter_plan::{Catalog, Demand, Request};
use diskmeter_units::{parse_time_ns, TimeUnit};
use diskmeter_views::plan as text;
use serde::Serialize;

// `--catalog` and `--format`, shared by `plan` and `catalog` (no `///`: clap would take it for
// the command's about).
#[derive(Args)]
pub(crate) struct CatalogArgs {
    /// The built-in catalog: current (what Azure, AWS, Google Cloud and DigitalOcean sell
    /// today, every figure cited) or guides (the guides' 2019 Azure and DigitalOcean figures,
    /// for their worked examples)
    #[arg(long, value_name = "NAME", value_parser = ["current", "guides"])]
    #[arg(default_value = "current")]
    builtin_catalog: String,
    /// A TOML catalog file that adds or overrides disk tiers and VM sizes (repeatable; format in
    /// docs/guide/4-plan.md)
    #[arg(long, value_name = "FILE")]
    catalog: Vec<String>,
    /// text (for people) or json (every figure, for scripts)
    #[arg(long, value_names = crate::NO_NAME, value_parser = ["text", "json"])]
    #[arg(default_value = "text")]
    format: String,
}

impl CatalogArgs {
    /// The built-in catalog plus every `--catalog FILE` (a file that cannot be read or
    /// parsed is the user's input: a usage error).
    pub(crate) fn load(&self) -> Result<Catalog, UsageError> {
        let slice = Slice::parse(&self.builtin_catalog).unwrap_or_default();
        let mut catalog = Catalog::builtin_slice(slice);
        for path in &self.catalog {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read catalog {path}: {e}")))?;
            catalog
                .add_file(path, &text)
                .map_err(|e| UsageError(e.to_string()))?;
        }
        Ok(catalog)
    }

    /// Prints `value` as JSON or `text` as is, to stdout or `output`.
    pub(crate) fn emit<T: Serialize>(
        &self,
        output: Option<&String>,
        value: &T,
        text: String,
    ) -> anyhow::Result<()> {
        let out = if self.format == "json" {
            serde_json::to_string_pretty(value)? + "\n"
        } else {
            text
        };
        Ok(write_output(output, &out)?)
    }
}

// `plan`'s options before `--device`.
#[derive(Args)]
struct PlanArgs {
    /// VM size, e.g. Standard_DS13 (the Standard_ prefix is optional)
    #[arg(long, value_name = "SIZE")]
    vm: Option<String>,
    /// Data disks, striped: 4xP30, P30 (one), 32xStandard-1TB
    #[arg(long, value_name = "NxTIER")]
    disks: Option<String>,
    /// Host cache of the data disks: None, ReadOnly (Azure's default for data disks) or
    /// ReadWrite [default: ReadOnly]
    #[arg(long, value_name = "MODE")]
    cache: Option<String>,
    /// What the application needs: iops=16000,bs=8k,read=70%,cache-hit=0.8 (keys above)
    #[arg(long, visible_alias = "require", value_name = "KEY=VALUE,...")]
    workload: Option<String>,
    /// Search the catalog for configurations that meet --require; GOAL: cost
    #[arg(long, visible_alias = "optimise", value_name = "GOAL")]
    optimize: Option<String>,
    /// With --optimize: only these VM families, e.g. Dsv5,m7i
    #[arg(long, value_name = "LIST")]
    family: Option<String>,
    /// With --optimize: only these clouds: azure, aws, gcp, digitalocean
    #[arg(long, value_name = "LIST")]
    cloud: Option<String>,
    /// How long the requirement lasts (e.g. 90m): plays it through the disks' and VM's burst
    /// credit buckets, so a bursting configuration meets it only if its credits last
    #[arg(long, value_name = "TIME")]
    duration: Option<String>,
    /// With --optimize: show this many configurations of each kind
    #[arg(long, value_name = "N", default_value = "10")]
    top: usize,
    /// IO-size view: IOPS and MiB/s of the configuration at each size (default 4k..1m)
    #[arg(long, value_name = "SIZES", num_args = 0..=1, default_missing_value = "")]
    io_sizes: Option<String>,
    /// Take the demand from a saved capture's requirements checklist (an id, or 'last')
    #[arg(long, value_name = "ID")]
    from_capture: Option<String>,
    /// With --from-capture: the checklist column the rates are read at: p50, p90, p99, max or
    /// mean [default: p99]
    #[arg(long, value_name = "LEVEL")]
    level: Option<String>,
    /// Headroom for growth: multiplies IOPS, MiB/s and queue depth, e.g. 30%
    #[arg(long, value_name = "PERCENT")]
    growth: Option<String>,
}

// `plan`'s options between `--device` and `--db`.
#[derive(Args)]
struct WindowArgs {
    /// With --from-capture: plan for one time-of-day window of the capture (UTC unless
    /// --utc-offset)
    #[arg(long, value_name = "NAME=HH:MM-HH:MM")]
    window: Option<String>,
    /// The clock --window is on, as an offset from UTC
    #[arg(long, value_name = "+HH:MM", default_value = "+00:00")]
    utc_offset: String,
}

// `plan`'s options after `--db`.
#[derive(Args)]
struct TailArgs {
    #[command(flatten)]
    catalog: CatalogArgs,
    /// Write the answer to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    output: Option<String>,
}

/// The `plan` subcommand's definition.
pub fn command() -> Command {
    let plan = Command::new("plan")
        .about("Plan VM + disk configurations against published limits and prices, and name the bottleneck")
        .long_about(
            "Plan storage from published limits: which caps an IO counts against (host cache, \
             VM uncached, disks), the binding limit, headroom, monthly cost and its components, \
             queue depth and stripe advice, and the documents every figure comes from. The \
             built-in catalog is what Azure, AWS, Google Cloud and DigitalOcean sell today \
             (--builtin-catalog guides: the guides' 2019 figures). Three modes:\n\n\
             Optimise:  diskmeter plan --require iops=16000,bs=8k,read=70%,latency=1ms \
             --optimize cost [--cloud azure,aws] [--family Dsv5,m7i]\n\
             Evaluate:  diskmeter plan --vm Standard_D8s_v5 --disks 4xP30 --cache ReadOnly \
             --workload iops=16000,bs=8k,read=70%,cache-hit=0.8\n\
             IO sizes:  diskmeter plan --disks 1xP30 --io-sizes [8k,32k,64k,1m]\n\n\
             Scaled and provisioned disk types (gp3, io2, Premium SSD v2, pd-ssd, Hyperdisk) \
             are sized for the demand: the optimiser chooses the number of disks, each one's \
             size and the IOPS and MiB/s bought with it at the least cost. Latency: a per-IO \
             bound (latency=, or a traced capture's device latency) excludes disk types whose \
             published latency class lies above it; a counter-only capture's await is shown \
             and judges nothing; without a bound the answer says latency was not judged. \
             Bursts: with --duration (a typed requirement) or --from-capture (the capture's \
             intervals), the load is played through the disks' and the VM's burst credit \
             buckets; a configuration whose sustained caps fall short meets the demand only \
             if its credits last, and the answer says when a bucket empties. Configurations \
             without a price, or with an unpublished cap on their path, are listed apart and \
             never ranked cheapest.\n\n\
             From a capture: diskmeter plan --from-capture last --level p99 --growth 30% \
             --optimize cost: the requirements checklist of a capture (diskmeter requirements) \
             at that level is the demand: IOPS, MiB/s, queue depth and latency at the level, \
             read share, IO sizes and (traced) random share as the capture's IO-weighted \
             means; --growth multiplies the rates and the queue depth; --workload keys \
             replace the capture's figures (add cache-hit=, which a capture cannot know). The \
             plan lists which figures came from the capture. The random share changes no \
             predicted rate (the published caps count every IO whatever its offset); mostly \
             sequential IO gets the 256 KiB stripe advice.\n\n\
             Workload / requirement keys: iops (count, k = 1,000), mibps (MiB/s), bs (fio size; \
             bs=4k,64k for read,write), read= or write= (share of IOs, default 100 % reads), \
             cache-hit (share of reads served by the host cache), local (share of IOs to the \
             VM's local SSD), latency (a per-IO bound, default unit ms), qd, capacity (fio \
             size). Every share \
             reads the same way: N% is a percentage; a bare number from 0 to 1 is a fraction \
             and above 1 (up to 100) a percentage, so 50%, 50 and 0.5 all mean half (write \
             0.5% for half a percent); below 0 or above 100 % is an error. \
             iops and mibps are separate peaks: IOPS are checked at bs, bandwidth against the \
             bandwidth caps. random= (share of random IOs) is shown and picks the stripe \
             advice.\n\n\
             Figures come from the catalog (`diskmeter catalog list`); a missing figure is \
             reported, never assumed. A configuration the catalog's published figures rule out (more \
             data disks than the VM size takes, a premium disk on a size without premium \
             storage) is \"not possible\", with the reason. Exit codes: 0 the demand is met (or \
             nothing was required); 1 it is not met, the configuration is not possible, or \
             nothing meets it; 2 usage error.",
        );
    let plan = PlanArgs::augment_args(plan).arg(crate::requirements::device_arg());
    TailArgs::augment_args(WindowArgs::augment_args(plan).arg(crate::args::db_arg()))
}

/// Runs `diskmeter plan`: exit 1 when the demand is not met or the configuration is not
/// possible (a requirement missed).
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = PlanArgs::from_arg_matches(matches)?;
    let tail = TailArgs::from_arg_matches(matches)?;
    let catalog = tail.catalog.load()?;
    let (demand, load) = demand(&args, &WindowArgs::from_arg_matches(matches)?, matches)?;
    let request = Request {
        vm: args.vm.as_deref(),
        disks: args.disks.as_deref(),
        cache: args.cache.as_deref(),
        optimize: args.optimize.as_deref(),
        required: args.workload.is_some() || args.from_capture.is_some(),
        family: args.family.as_deref(),
        top: args.top,
        io_sizes: args.io_sizes.as_deref(),
        cloud: args.cloud.as_deref(),
        load: load.as_ref(),
    };
    let answer = diskmeter_plan::answer(&catalog, &demand, &request)
        .map_err(|e| UsageError(e.to_string()))?;
    let text = text::answer(&answer);
    tail.catalog.emit(tail.output.as_ref(), &answer, text)?;
    Ok(if answer.missed() {
        Status::Failure
    } else {
        Status::Success
    })
}

/// The demand: a capture's checklist at `--level` (if `--from-capture`), then the
/// `--workload` keys over it, then `--growth`; and the load for the burst buckets: the
/// capture's intervals (times the growth), or the required IOPS for `--duration`.
fn demand(
    args: &PlanArgs,
    window: &WindowArgs,
    matches: &ArgMatches,
) -> anyhow::Result<(Demand, Option<Load>)> {
    let given = [
        ("level", args.level.is_some()),
        ("window", window.window.is_some()),
        ("device", matches.contains_id("device")),
    ];
    if let (None, Some((name, _))) = (&args.from_capture, given.iter().find(|(_, on)| *on)) {
        let only = format!("--{name} only applies with --from-capture");
        return Err(UsageError(only).into());
    }
    let (demand, series) = match &args.from_capture {
        Some(id_text) => {
            let (demand, series) = from_capture(id_text, args, window, matches)?;
            (demand, Some(series))
        }
        None => (Demand::default(), None),
    };
    let adjusted = demand.adjusted(args.workload.as_deref(), args.growth.as_deref());
    let demand = adjusted.map_err(|e| UsageError(e.to_string()))?;
    let load = match (&args.duration, series) {
        (Some(_), Some(_)) => {
            let both = "--duration plays a typed requirement; a capture brings its own load";
            return Err(UsageError(both.to_string()).into());
        }
        (Some(text), None) => {
            let ns = parse_time_ns(text, TimeUnit::Seconds)
                .map_err(|e| UsageError(format!("--duration: {e}")))?;
            let Some(iops) = demand.iops.filter(|_| ns > 0) else {
                let need = "--duration needs a positive time and an iops= requirement";
                return Err(UsageError(need.to_string()).into());
            };
            Some(Load::constant(iops, ns as f64 / 1e9))
        }
        (None, Some(mut load)) => {
            let growth = demand.growth_fraction.unwrap_or(0.0);
            for point in &mut load.points {
                point.iops *= 1.0 + growth;
            }
            if growth > 0.0 {
                load.origin += &format!(" x {} growth", 1.0 + growth);
            }
            Some(load)
        }
        (None, None) => None,
    };
    Ok((demand, load))
}

/// The demand of capture `id_text`'s checklist at `--level`, in `--window` if one is given.
fn from_capture(
    id_text: &str,
    args: &PlanArgs,
    window: &WindowArgs,
    matches: &ArgMatches,
) -> anyhow::Result<(Demand, Load)> {
    let level = args.level.as_deref().unwrap_or("p99").parse::<Level>();
    let level = level.map_err(|e| UsageError(format!("--level: {e}")))?;
    let offset = parse_utc_offset(&window.utc_offset)
        .map_err(|e| UsageError(format!("--utc-offset: {e}")))?;
    let windows = WindowSet::parse(window.window.as_deref().unwrap_or(""), offset)
        .map_err(|e| UsageError(format!("--window: {e}")))?;
    if windows.windows.len() > 1 {
        return Err(UsageError("--window: plan takes one window".to_string()).into());
    }
    let store = diskmeter_history::open_for_reading(crate::requirements::db(matches))?;
    let devices = crate::requirements::devices(matches);
    let loaded = crate::requirements::load_requirements(&store, id_text, devices, windows.clone())?;
    let demand = capture_demand(&loaded.requirements, loaded.summary.id, level)
        .map_err(|e| UsageError(e.to_string()))?;
    let id = loaded.summary.id;
    let points: Vec<LoadPoint> = (loaded.requirements.load.iter())
        .filter(|i| {
            windows.windows.is_empty() || windows.matching(i.start_unix_ms).next().is_some()
        })
        .map(|i| LoadPoint {
            seconds: i.seconds,
            iops: i.iops,
        })
        .collect();
    let seconds: f64 = points.iter().map(|p| p.seconds).sum();
    let origin = format!(
        "capture {id}: {} intervals ({})",
        points.len(),
        diskmeter_plan::burst::minutes(seconds)
    );
    Ok((demand, Load { origin, points }))
}
