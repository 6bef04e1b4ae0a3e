//! One planning request as the command line gives it (`diskmeter plan`): which of the three
//! modes it asks for (optimise, IO sizes, evaluate), checked and answered here so the CLI
//! only parses the flags and renders the [`Answer`].

use crate::burst::Load;
use crate::catalog::Catalog;
use crate::demand::Demand;
use crate::model::{Configuration, HostCache};
use crate::optimise::{optimise, Optimisation, SearchSpace};
use crate::planner::{
    evaluate_over, io_size_table, parse_disks, parse_io_sizes, Evaluation, IoSizeRow,
};
use crate::possible::{not_possible, NotPossible};
use crate::PlanError;
use serde::Serialize;

/// The request's texts, as typed (`--vm`, `--disks`, ...).
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    /// `--vm`: a VM size.
    pub vm: Option<&'a str>,
    /// `--disks`: `4xP30`.
    pub disks: Option<&'a str>,
    /// `--cache`: None, ReadOnly or ReadWrite (ReadOnly when not given).
    pub cache: Option<&'a str>,
    /// `--optimize`: the goal (only `cost`).
    pub optimize: Option<&'a str>,
    /// Whether a requirement was given (`--require` or `--from-capture`).
    pub required: bool,
    /// `--family`: comma-separated VM families.
    pub family: Option<&'a str>,
    /// `--top`: configurations shown of each kind when optimising.
    pub top: usize,
    /// `--io-sizes`: the sizes (empty: the default ones).
    pub io_sizes: Option<&'a str>,
    /// `--cloud`: comma-separated clouds to search.
    pub cloud: Option<&'a str>,
    /// `--duration`: how long the requirement lasts, for the burst buckets.
    pub duration: Option<&'a str>,
    /// A capture's load for the burst buckets.
    pub load: Option<&'a Load>,
}

/// The IO-size view of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IoSizes {
    /// `Standard_DS13 + 4 x P30 (cache ReadOnly)`.
    pub configuration: String,
    /// Whether the configuration can be built at all.
    pub possible: bool,
    /// Why it cannot be built; empty when it can.
    pub not_possible: Vec<NotPossible>,
    /// One row per IO size.
    pub rows: Vec<IoSizeRow>,
}

/// The answer to a [`Request`]: serialised as the answer inside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// `--optimize cost`: the configurations that meet the requirement.
    Optimisation(Box<Optimisation>),
    /// `--io-sizes`: the caps of the configuration by IO size.
    IoSizes(IoSizes),
    /// The configuration evaluated against the demand.
    Evaluation(Box<Evaluation>),
}

impl Answer {
    /// Whether a requirement was missed: nothing meets it, the configuration cannot be
    /// built (a requirement missed, in every mode) or does not meet it.
    pub fn missed(&self) -> bool {
        match self {
            Answer::Optimisation(o) => {
                o.priced.is_empty() && o.unpriced.is_empty() && o.unbounded.is_empty()
            }
            Answer::IoSizes(view) => !view.possible,
            Answer::Evaluation(e) => !e.possible || e.meets == Some(false),
        }
    }
}

/// Answers `request` for `demand` from `catalog`.
pub fn answer(catalog: &Catalog, demand: &Demand, request: &Request) -> Result<Answer, PlanError> {
    let cache = match request.cache {
        Some(text) => Some(HostCache::parse(text).ok_or_else(|| PlanError::Cache(text.into()))?),
        None => None,
    };
    // `--duration` plays the typed requirement; a capture brings its own load.
    let lasting = match (request.duration, request.load) {
        (Some(_), Some(_)) => {
            return Err(PlanError::Duration(
                "with --from-capture: a capture \
            brings its own load"
                    .to_string(),
            ))
        }
        (Some(text), None) => Some(Load::lasting(demand, text)?),
        (None, _) => None,
    };
    let request = &Request {
        load: lasting.as_ref().or(request.load),
        ..request.clone()
    };
    let vm = request.vm.map(|name| catalog.vm(name)).transpose()?;
    let disks = request
        .disks
        .map(|text| parse_disks(catalog, text))
        .transpose()?;

    if let Some(goal) = request.optimize {
        if !goal.eq_ignore_ascii_case("cost") {
            return Err(PlanError::Goal(goal.to_string()));
        }
        if !request.required {
            return Err(PlanError::OptimiseNeedsRequirement);
        }
        let list = |text: Option<&str>| -> Vec<String> {
            text.unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect()
        };
        let space = SearchSpace {
            families: list(request.family),
            clouds: list(request.cloud),
            vm: vm.map(|v| v.id.clone()),
            disk: disks.map(|(d, _)| d.id.clone()),
            cache,
        };
        let mut answer = optimise(catalog, demand, &space, request.load)?;
        answer.priced.truncate(request.top);
        answer.unpriced.truncate(request.top);
        answer.unbounded.truncate(request.top);
        answer.ran_dry.truncate(request.top);
        return Ok(Answer::Optimisation(Box::new(answer)));
    }
    if request.family.is_some() || request.cloud.is_some() {
        return Err(PlanError::FamilyWithoutOptimise);
    }
    let Some((disk, disk_count)) = disks else {
        return Err(PlanError::NoDisks);
    };
    let cache = cache.unwrap_or(HostCache::ReadOnly);
    // A scaled or provisioned type is sized for the demand (or, without one, at its largest).
    let volume = disk.is_formula().then(|| {
        crate::optimise::size_for_demand(vm, disk, disk_count, cache, demand)
            .unwrap_or_else(|| crate::sizing::largest(disk))
    });
    let config = Configuration {
        vm,
        disk: volume.as_ref().unwrap_or(disk),
        disk_count,
        cache,
    };
    if let Some(list) = request.io_sizes {
        let sizes = parse_io_sizes(list)?;
        let not_possible = not_possible(&config);
        return Ok(Answer::IoSizes(IoSizes {
            configuration: config.describe(),
            possible: not_possible.is_empty(),
            not_possible,
            rows: io_size_table(&config, &sizes),
        }));
    }
    Ok(Answer::Evaluation(Box::new(evaluate_over(
        catalog,
        &config,
        demand,
        request.load,
    )?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(request: &Request) -> Result<Answer, PlanError> {
        answer(
            &Catalog::builtin_slice(crate::catalog::Slice::Guides),
            &Demand::default(),
            request,
        )
    }

    #[test]
    fn each_mode_needs_what_it_works_on() {
        let optimise = Request {
            optimize: Some("cost"),
            ..Request::default()
        };
        assert_eq!(
            answered(&optimise).unwrap_err(),
            PlanError::OptimiseNeedsRequirement
        );
        let family = Request {
            family: Some("DS"),
            ..Request::default()
        };
        assert_eq!(
            answered(&family).unwrap_err(),
            PlanError::FamilyWithoutOptimise
        );
        assert_eq!(
            answered(&Request::default()).unwrap_err(),
            PlanError::NoDisks
        );
    }

    #[test]
    fn io_sizes_of_a_configuration_that_can_be_built_miss_nothing() {
        let request = Request {
            disks: Some("1xP30"),
            io_sizes: Some("8k,1m"),
            ..Request::default()
        };
        let Answer::IoSizes(view) = answered(&request).unwrap() else {
            panic!("not the IO-size view");
        };
        assert_eq!(view.rows.len(), 2);
        assert!(view.possible);
        assert!(!Answer::IoSizes(view).missed());
    }
}
