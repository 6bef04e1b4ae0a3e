//! `diskmeter plan`: evaluate a VM + disks configuration against a workload, find the cheapest
//! one that meets a requirement, or tabulate caps by IO size. The model is in diskmeter-plan.

use crate::{write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_orchestrator::RehearseRequest;
use diskmeter_plan::burst::Load;
use diskmeter_plan::catalog::Slice;
use diskmeter_plan::{rehearsal, Catalog, Demand, Request};
use diskmeter_views::plan as text;
use diskmeter_views::requirements::{plan_input, PlanFlags};
use serde::Serialize;

// `--catalog` and `--format`, shared by `plan` and `catalog` (no `///`: clap would take it for
// the command's about).
#[derive(Args)]
pub(crate) struct CatalogArgs {
    /// The built-in catalog: current (what the clouds sell today) or guides (the guides' 2019
    /// figures, for their worked examples)
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
        let mut catalog =
            Catalog::builtin_slice(Slice::parse(&self.builtin_catalog).unwrap_or_default());
        for path in &self.catalog {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read catalog {path}: {e}")))?;
            let added = catalog.add_file(path, &text);
            added.map_err(|e| UsageError(e.to_string()))?;
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
    /// How long the requirement lasts (90m): bursting configurations meet it only if their
    /// credits last
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
    /// Build the configuration from emulated disks (root; else the in-engine cap alone), run
    /// the requirement's workload on it, and print predicted against measured per path
    #[arg(long)]
    rehearse: bool,
    /// With --rehearse: each emulated disk's size
    #[arg(long, value_name = "SIZE", default_value = "1g", requires = "rehearse")]
    rehearse_size: String,
    /// With --rehearse: the measured runtime, after a ramp of a fifth of it (1-5 s)
    #[arg(
        long,
        value_name = "TIME",
        default_value = "20s",
        requires = "rehearse"
    )]
    rehearse_time: String,
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
        .long_about(text::LONG_ABOUT);
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
        duration: args.duration.as_deref(),
        load: load.as_ref(),
    };
    let answer = diskmeter_plan::answer(&catalog, &demand, &request)
        .map_err(|e| UsageError(e.to_string()))?;
    let plan_text = text::answer(&answer);
    let (capture, level) = (args.from_capture.as_deref(), args.level.as_deref());
    let db = crate::requirements::db(matches);
    let saved = diskmeter_views::linked::save_plan(db, capture, level, &plan_text, &answer)?;
    if !args.rehearse {
        tail.catalog
            .emit(tail.output.as_ref(), &answer, plan_text)?;
        eprint!("{saved}");
        return Ok(Status::failure_if(answer.missed()));
    }
    let usage = |e: diskmeter_plan::PlanError| UsageError(e.to_string());
    let (size, time) = (&args.rehearse_size, &args.rehearse_time);
    let prepared = rehearsal::prepare(&catalog, &demand, &answer, &request, size, time);
    let (setup, disk_bytes, runtime) = prepared.map_err(usage)?;
    let asked = RehearseRequest::new(setup, disk_bytes, runtime, args.from_capture.as_deref());
    let done = diskmeter_orchestrator::rehearse(&asked)?;
    let both = serde_json::json!({ "plan": answer, "rehearsal": done });
    let text = plan_text + &diskmeter_views::rehearse::text(&done);
    tail.catalog.emit(tail.output.as_ref(), &both, text)?;
    eprint!("{saved}");
    let differs = done.comparison.agreement == rehearsal::Agreement::Differs;
    Ok(Status::failure_if(answer.missed() || differs))
}

/// The demand: a capture's checklist at `--level` (if `--from-capture`), then the
/// `--workload` keys over it, then `--growth`; and the capture's load (times the growth).
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
    let (demand, load) = match &args.from_capture {
        Some(id_text) => {
            let store = diskmeter_history::open_for_reading(crate::requirements::db(matches))?;
            let flags = PlanFlags {
                level: args.level.as_deref().unwrap_or("p99"),
                window: window.window.as_deref().unwrap_or(""),
                utc_offset: &window.utc_offset,
            };
            let devices = crate::requirements::devices(matches);
            let (demand, load) = plan_input(&store, id_text, devices, &flags)
                .map_err(crate::requirements::input_is_usage)?;
            (demand, Some(load))
        }
        None => (Demand::default(), None),
    };
    let adjusted = demand.adjusted(args.workload.as_deref(), args.growth.as_deref());
    let demand = adjusted.map_err(|e| UsageError(e.to_string()))?;
    let load = load.map(|load| load.grown(demand.growth_fraction.unwrap_or(0.0)));
    Ok((demand, load))
}
