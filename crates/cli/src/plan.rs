//! `diskmeter plan`: evaluate a VM + disks configuration against a workload, find the cheapest
//! one that meets a requirement, or tabulate caps by IO size. The model is in diskmeter-plan.

use crate::{write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::requirements::{demand_from, parse_utc_offset, Level, WindowSet};
use diskmeter_plan::{text, Catalog, Configuration, Demand, HostCache, PlanError, SearchSpace};
use serde::Serialize;

/// The `catalog` option shared by `plan` and `catalog`.
pub(crate) fn catalog_arg() -> Arg {
    Arg::new("catalog")
        .long("catalog")
        .value_name("FILE")
        .action(ArgAction::Append)
        .help("A TOML catalog file that adds or overrides disk tiers and VM sizes (repeatable; format in docs/guide/4-plan.md)")
}

/// The `format` option shared by `plan` and `catalog`.
pub(crate) fn format_arg() -> Arg {
    Arg::new("format")
        .long("format")
        .value_parser(["text", "json"])
        .default_value("text")
        .help("text (for people) or json (every figure, for scripts)")
}

/// The `plan` subcommand's definition.
pub fn command() -> Command {
    Command::new("plan")
        .about("Plan VM + disk configurations against published limits and prices, and name the bottleneck")
        .long_about(
            "Plan storage from published limits: which caps an IO counts against (host cache, \
             VM uncached, disks), the binding limit, headroom, monthly cost, queue depth and \
             stripe advice. Three modes:\n\n\
             Evaluate:  diskmeter plan --vm Standard_DS13 --disks 4xP30 --cache ReadOnly \
             --workload iops=16000,bs=8k,read=70%,cache-hit=0.8\n\
             Optimise:  diskmeter plan --require iops=16000,mibps=200,bs=8k --optimize cost \
             [--family DS,GS]\n\
             IO sizes:  diskmeter plan --disks 1xP30 --io-sizes [8k,32k,64k,1m]\n\n\
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
             VM's local SSD), latency (default unit ms), qd, capacity (fio size). Every share \
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
        )
        .arg(
            Arg::new("vm")
                .long("vm")
                .value_name("SIZE")
                .help("VM size, e.g. Standard_DS13 (the Standard_ prefix is optional)"),
        )
        .arg(
            Arg::new("disks")
                .long("disks")
                .value_name("NxTIER")
                .help("Data disks, striped: 4xP30, P30 (one), 32xStandard-1TB"),
        )
        .arg(
            Arg::new("cache")
                .long("cache")
                .value_name("MODE")
                .help("Host cache of the data disks: None, ReadOnly (Azure's default for data disks) or ReadWrite [default: ReadOnly]"),
        )
        .arg(
            Arg::new("workload")
                .long("workload")
                .visible_alias("require")
                .value_name("KEY=VALUE,...")
                .help("What the application needs: iops=16000,bs=8k,read=70%,cache-hit=0.8 (keys above)"),
        )
        .arg(
            Arg::new("optimize")
                .long("optimize")
                .visible_alias("optimise")
                .value_name("GOAL")
                .help("Search the catalog for configurations that meet --require; GOAL: cost"),
        )
        .arg(
            Arg::new("family")
                .long("family")
                .value_name("LIST")
                .help("With --optimize: only these VM families, e.g. DS,GS"),
        )
        .arg(
            Arg::new("top")
                .long("top")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .default_value("10")
                .help("With --optimize: show this many configurations of each kind"),
        )
        .arg(
            Arg::new("io-sizes")
                .long("io-sizes")
                .value_name("SIZES")
                .num_args(0..=1)
                .default_missing_value("")
                .help("IO-size view: IOPS and MiB/s of the configuration at each size (default 4k..1m)"),
        )
        .arg(
            Arg::new("from-capture")
                .long("from-capture")
                .value_name("ID")
                .help("Take the demand from a saved capture's requirements checklist (an id, or 'last')"),
        )
        .arg(
            Arg::new("level")
                .long("level")
                .value_name("LEVEL")
                .help("With --from-capture: the checklist column the rates are read at: p50, p90, p99, max or mean [default: p99]"),
        )
        .arg(
            Arg::new("growth")
                .long("growth")
                .value_name("PERCENT")
                .help("Headroom for growth: multiplies IOPS, MiB/s and queue depth, e.g. 30%"),
        )
        .arg(crate::requirements::device_arg())
        .arg(
            Arg::new("window")
                .long("window")
                .value_name("NAME=HH:MM-HH:MM")
                .help("With --from-capture: plan for one time-of-day window of the capture (UTC unless --utc-offset)"),
        )
        .arg(
            Arg::new("utc-offset")
                .long("utc-offset")
                .value_name("+HH:MM")
                .default_value("+00:00")
                .help("The clock --window is on, as an offset from UTC"),
        )
        .arg(crate::args::db_arg())
        .arg(catalog_arg())
        .arg(format_arg())
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .help("Write the answer to FILE instead of stdout"),
        )
}

/// Loads the built-in catalog plus every `--catalog FILE` (a file that cannot be read or
/// parsed is the user's input: a usage error).
pub(crate) fn load_catalog(matches: &ArgMatches) -> Result<Catalog, UsageError> {
    let mut catalog = Catalog::builtin();
    for path in matches.get_many::<String>("catalog").into_iter().flatten() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError(format!("cannot read catalog {path}: {e}")))?;
        catalog
            .add_file(path, &text)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    Ok(catalog)
}

/// Prints `value` as JSON or `text` as is, to stdout or `--output`.
pub(crate) fn emit<T: Serialize>(
    matches: &ArgMatches,
    value: &T,
    text: String,
) -> anyhow::Result<()> {
    let json = matches.get_one::<String>("format").map(String::as_str) == Some("json");
    let out = if json {
        serde_json::to_string_pretty(value)? + "\n"
    } else {
        text
    };
    let path = matches.try_get_one::<String>("output").ok().flatten();
    Ok(write_output(path, &out)?)
}

/// Runs `diskmeter plan`: exit 1 when the demand is not met or the configuration is not
/// possible (a requirement missed).
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    plan(matches)
}

fn plan(matches: &ArgMatches) -> anyhow::Result<Status> {
    let catalog = load_catalog(matches)?;
    let err = |e: PlanError| UsageError(e.to_string());
    let missed = |missed: bool| {
        if missed {
            Status::Failure
        } else {
            Status::Success
        }
    };
    let demand = demand(matches)?;
    let cache = match matches.get_one::<String>("cache") {
        Some(text) => {
            Some(HostCache::parse(text).ok_or_else(|| err(PlanError::Cache(text.clone())))?)
        }
        None => None,
    };
    let vm = matches
        .get_one::<String>("vm")
        .map(|name| catalog.vm(name))
        .transpose()
        .map_err(err)?;
    let disks = matches
        .get_one::<String>("disks")
        .map(|text| diskmeter_plan::parse_disks(&catalog, text))
        .transpose()
        .map_err(err)?;

    if let Some(goal) = matches.get_one::<String>("optimize") {
        if !goal.eq_ignore_ascii_case("cost") {
            return Err(err(PlanError::Goal(goal.clone())).into());
        }
        if matches.get_one::<String>("workload").is_none()
            && matches.get_one::<String>("from-capture").is_none()
        {
            return Err(UsageError(
                "--optimize needs --require (e.g. --require iops=16000,bs=8k) or --from-capture"
                    .to_string(),
            )
            .into());
        }
        let space = SearchSpace {
            families: matches
                .get_one::<String>("family")
                .map(|f| {
                    f.split(',')
                        .map(str::to_string)
                        .filter(|f| !f.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            vm: vm.map(|v| v.id.clone()),
            disk: disks.map(|(d, _)| d.id.clone()),
            cache,
        };
        let mut answer = diskmeter_plan::optimise(&catalog, &demand, &space)
            .map_err(|e| anyhow::Error::new(err(e)))?;
        let top = *matches.get_one::<usize>("top").unwrap_or(&10);
        answer.priced.truncate(top);
        answer.unpriced.truncate(top);
        let found = !(answer.priced.is_empty() && answer.unpriced.is_empty());
        emit(matches, &answer, text::optimisation(&answer))?;
        return Ok(missed(!found));
    }
    if matches.contains_id("family") {
        return Err(UsageError("--family only applies with --optimize".to_string()).into());
    }

    let Some((disk, disk_count)) = disks else {
        return Err(UsageError(
            "give --disks (e.g. --disks 4xP30) to evaluate a configuration, or --require ... \
             --optimize cost to search for one"
                .to_string(),
        )
        .into());
    };
    let config = Configuration {
        vm,
        disk,
        disk_count,
        cache: cache.unwrap_or(HostCache::ReadOnly),
    };

    if let Some(list) = matches.get_one::<String>("io-sizes") {
        let sizes = diskmeter_plan::parse_io_sizes(list).map_err(err)?;
        let rows = diskmeter_plan::io_size_table(&config, &sizes);
        let not_possible = diskmeter_plan::not_possible(&config);
        #[derive(Serialize)]
        struct IoSizeView<'a> {
            configuration: String,
            possible: bool,
            not_possible: &'a [diskmeter_plan::NotPossible],
            rows: &'a [diskmeter_plan::IoSizeRow],
        }
        let view = IoSizeView {
            configuration: config.describe(),
            possible: not_possible.is_empty(),
            not_possible: &not_possible,
            rows: &rows,
        };
        emit(
            matches,
            &view,
            text::io_sizes(&config.describe(), &rows, &not_possible),
        )?;
        // A configuration that cannot be built is a requirement missed, as in the evaluation.
        return Ok(missed(!not_possible.is_empty()));
    }

    let evaluation = diskmeter_plan::evaluate(&catalog, &config, &demand).map_err(err)?;
    emit(matches, &evaluation, text::evaluation(&evaluation))?;
    // Not possible (with its reasons) or not met: exit 1.
    Ok(missed(
        !evaluation.possible || evaluation.meets == Some(false),
    ))
}

/// The demand: a capture's checklist at `--level` (if `--from-capture`), then the
/// `--workload` keys over it, then `--growth`.
fn demand(matches: &ArgMatches) -> anyhow::Result<Demand> {
    let capture = matches.get_one::<String>("from-capture");
    for only_with_capture in ["level", "window", "device"] {
        if capture.is_none() && matches.contains_id(only_with_capture) {
            return Err(UsageError(format!(
                "--{only_with_capture} only applies with --from-capture"
            ))
            .into());
        }
    }
    let mut demand = match capture {
        Some(id_text) => {
            let level: Level = matches
                .get_one::<String>("level")
                .map_or("p99", String::as_str)
                .parse()
                .map_err(|e| UsageError(format!("--level: {e}")))?;
            let offset_text = matches
                .get_one::<String>("utc-offset")
                .map_or("+00:00", String::as_str);
            let offset = parse_utc_offset(offset_text)
                .map_err(|e| UsageError(format!("--utc-offset: {e}")))?;
            let window_text = matches
                .get_one::<String>("window")
                .map_or("", String::as_str);
            let windows = WindowSet::parse(window_text, offset)
                .map_err(|e| UsageError(format!("--window: {e}")))?;
            if windows.windows.len() > 1 {
                return Err(UsageError("--window: plan takes one window".to_string()).into());
            }
            let store = diskmeter_history::open_for_reading(crate::requirements::db(matches))?;
            let loaded = crate::requirements::load_requirements(
                &store,
                id_text,
                crate::requirements::devices(matches),
                windows,
            )?;
            let (checklist, source) = match loaded.requirements.windows.first() {
                Some(w) => (
                    &w.checklist,
                    format!("capture {} window {}", loaded.summary.id, w.window.name),
                ),
                None => (
                    &loaded.requirements.whole,
                    format!("capture {}", loaded.summary.id),
                ),
            };
            if checklist.intervals == 0 {
                return Err(UsageError(format!("{source} has no intervals")).into());
            }
            demand_from(checklist, level, &source)
        }
        None => Demand::default(),
    };
    if let Some(text) = matches.get_one::<String>("workload") {
        demand =
            Demand::parse_onto(demand, text).map_err(|e| UsageError(format!("--workload: {e}")))?;
    }
    if let Some(text) = matches.get_one::<String>("growth") {
        let growth =
            diskmeter_plan::parse_growth(text).map_err(|e| UsageError(format!("--growth: {e}")))?;
        demand = demand.grown(growth);
    }
    Ok(demand)
}
