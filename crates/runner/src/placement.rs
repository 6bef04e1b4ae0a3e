//! Where a worker runs and at what priority (fio's `cpus_allowed`, `cpumask`,
//! `cpus_allowed_policy`, `numa_cpu_nodes`, `numa_mem_policy`, `nice`, `prio`,
//! `prioclass`): resolved per worker when the run is planned, so a node the machine lacks
//! or a CPU set that ends up empty stops the run before any IO, and applied by the worker's
//! own thread before its engine allocates its buffers (so the memory policy covers them).
//!
//! The machine's NUMA nodes are read from `/sys/devices/system/node/nodeN/cpulist`; a
//! kernel without that folder has one node, 0, holding every CPU.

use crate::RunError;
use diskmeter_engine::sys;
use diskmeter_workload::system::{CpusAllowedPolicy, NodeList, NumaMemPolicy};
use diskmeter_workload::JobSpec;
use serde::Serialize;
use std::collections::BTreeMap;

/// The placement and priorities of one worker, as resolved from its job.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The CPUs the worker thread may run on; `None` = any.
    pub cpus: Option<Vec<usize>>,
    /// The memory policy: the kernel's MPOL_* mode and its nodes.
    pub mem_policy: Option<(i32, Vec<usize>)>,
    /// The thread's nice value; 0 leaves it.
    pub nice: i32,
    /// The thread's IO priority (class, level); `None` leaves it.
    pub ioprio: Option<(u8, u8)>,
}

impl Placement {
    /// True when nothing is set, so the worker makes no call at all.
    pub fn is_empty(&self) -> bool {
        *self == Placement::default()
    }
}

/// The machine's NUMA nodes and their CPUs.
fn machine_nodes() -> BTreeMap<usize, Vec<usize>> {
    let mut nodes = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir("/sys/devices/system/node") {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(number) = name.strip_prefix("node").and_then(|n| n.parse().ok()) else {
                continue;
            };
            let cpus = std::fs::read_to_string(entry.path().join("cpulist"))
                .ok()
                .and_then(|text| {
                    let text = text.trim();
                    // A node without CPUs (memory only) has an empty list.
                    if text.is_empty() {
                        Some(Vec::new())
                    } else {
                        diskmeter_units::parse_cpu_list(text).ok()
                    }
                })
                .unwrap_or_default();
            nodes.insert(number, cpus);
        }
    }
    if nodes.is_empty() {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        nodes.insert(0, (0..cpus).collect());
    }
    nodes
}

/// The nodes a list names, each checked against the machine's.
fn resolve_nodes(
    job: &JobSpec,
    option: &str,
    list: &NodeList,
    machine: &BTreeMap<usize, Vec<usize>>,
) -> Result<Vec<usize>, RunError> {
    match list {
        NodeList::All => Ok(machine.keys().copied().collect()),
        NodeList::Nodes(nodes) => {
            let missing: Vec<String> = nodes
                .iter()
                .filter(|n| !machine.contains_key(n))
                .map(|n| n.to_string())
                .collect();
            if missing.is_empty() {
                return Ok(nodes.clone());
            }
            let present: Vec<String> = machine.keys().map(|n| n.to_string()).collect();
            Err(RunError::Job {
                job: job.name.clone(),
                message: format!(
                    "{option}: NUMA node {} does not exist on this machine (it has node {})",
                    missing.join(", "),
                    present.join(", ")
                ),
            })
        }
    }
}

/// The placement of worker `worker_number` (from 1, over the whole run: fio's thread
/// number) of `job`.
pub fn for_worker(job: &JobSpec, worker_number: usize) -> Result<Placement, RunError> {
    let system = &job.system;
    let wants_numa = system.numa_cpu_nodes.is_some() || system.numa_mem_policy.is_some();
    let machine = if wants_numa {
        machine_nodes()
    } else {
        BTreeMap::new()
    };
    let mut cpus = job.cpus_allowed.clone();
    if let Some(list) = &system.numa_cpu_nodes {
        let nodes = resolve_nodes(job, "numa_cpu_nodes", list, &machine)?;
        let node_cpus: Vec<usize> = nodes.iter().flat_map(|n| machine[n].clone()).collect();
        // With cpus_allowed too, the worker runs on the CPUs both allow.
        cpus = Some(match cpus {
            Some(allowed) => allowed
                .into_iter()
                .filter(|c| node_cpus.contains(c))
                .collect(),
            None => node_cpus,
        });
    }
    if let Some(set) = &mut cpus {
        if set.is_empty() {
            return Err(RunError::Job {
                job: job.name.clone(),
                message: "cpus_allowed and numa_cpu_nodes leave no CPU to run on".to_string(),
            });
        }
        set.sort_unstable();
        set.dedup();
        if system.cpus_allowed_policy == CpusAllowedPolicy::Split {
            *set = vec![set[(worker_number - 1) % set.len()]];
        }
    }
    let mem_policy = match &system.numa_mem_policy {
        None => None,
        Some(NumaMemPolicy::Default) => Some((0, Vec::new())),
        Some(NumaMemPolicy::Local) => Some((4, Vec::new())),
        Some(NumaMemPolicy::Prefer(node)) => Some((
            1,
            resolve_nodes(
                job,
                "numa_mem_policy",
                &NodeList::Nodes(vec![*node]),
                &machine,
            )?,
        )),
        Some(NumaMemPolicy::Bind(list)) => {
            Some((2, resolve_nodes(job, "numa_mem_policy", list, &machine)?))
        }
        Some(NumaMemPolicy::Interleave(list)) => {
            Some((3, resolve_nodes(job, "numa_mem_policy", list, &machine)?))
        }
    };
    let ioprio = job_ioprio(job);
    Ok(Placement {
        cpus,
        mem_policy,
        nice: system.nice,
        ioprio,
    })
}

/// The job's IO priority (class, level) from `prioclass` and `prio`; `None` when neither
/// is set.
fn job_ioprio(job: &JobSpec) -> Option<(u8, u8)> {
    match (job.system.prioclass, job.system.prio) {
        (None, None) => None,
        // A level without a class is best effort's (the kernel's class for levels).
        (class, level) => Some((class.unwrap_or(2), level.unwrap_or(0))),
    }
}

/// The job's IO priority as the kernel's ioprio value (class << 13 | level), 0 when unset:
/// what fio's logs print with `log_prio`.
pub fn ioprio_value(job: &JobSpec) -> u16 {
    job_ioprio(job).map_or(0, |(class, level)| {
        (u16::from(class) << 13) | u16::from(level)
    })
}

/// Applies `placement` to the calling thread (the worker's); the error names the option
/// the kernel refused.
pub fn apply(placement: &Placement, job: &str) -> Result<(), RunError> {
    if placement.is_empty() {
        return Ok(());
    }
    let refused = |option: &'static str| {
        move |source: std::io::Error| RunError::Placement {
            job: job.to_string(),
            option,
            source,
        }
    };
    if let Some(cpus) = &placement.cpus {
        sys::set_thread_affinity(cpus).map_err(refused("cpus_allowed"))?;
    }
    if let Some((mode, nodes)) = &placement.mem_policy {
        sys::set_thread_mempolicy(*mode, nodes).map_err(refused("numa_mem_policy"))?;
    }
    if placement.nice != 0 {
        sys::set_thread_nice(placement.nice).map_err(refused("nice"))?;
    }
    if let Some((class, level)) = placement.ioprio {
        sys::set_thread_ioprio(class, level).map_err(refused("prio/prioclass"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(options: &[(&str, &str)]) -> JobSpec {
        JobSpec {
            name: "j".to_string(),
            ..crate::test_jobs::job(options)
        }
    }

    #[test]
    fn split_gives_each_worker_one_cpu_in_turn() {
        let job = job(&[("cpus_allowed", "0-1"), ("cpus_allowed_policy", "split")]);
        let cpus: Vec<_> = (1..=3)
            .map(|n| for_worker(&job, n).unwrap().cpus.unwrap())
            .collect();
        assert_eq!(cpus, [vec![0], vec![1], vec![0]]);
        let shared = self::job(&[("cpumask", "3")]);
        assert_eq!(for_worker(&shared, 2).unwrap().cpus, Some(vec![0, 1]));
    }

    #[test]
    fn a_node_the_machine_lacks_is_refused_naming_it() {
        let job = job(&[("numa_cpu_nodes", "0,7")]);
        let error = for_worker(&job, 1).unwrap_err().to_string();
        assert!(
            error.contains("numa_cpu_nodes: NUMA node 7 does not exist"),
            "{error}"
        );
        let job = self::job(&[("numa_mem_policy", "interleave:0-9")]);
        let error = for_worker(&job, 1).unwrap_err().to_string();
        assert!(error.contains("numa_mem_policy: NUMA node "), "{error}");
    }

    #[test]
    fn node_zero_exists_and_gives_its_cpus() {
        let job = job(&[("numa_cpu_nodes", "0"), ("numa_mem_policy", "bind:0")]);
        let placement = for_worker(&job, 1).unwrap();
        assert!(!placement.cpus.unwrap().is_empty());
        assert_eq!(placement.mem_policy, Some((2, vec![0])));
    }

    #[test]
    fn a_level_without_a_class_is_best_effort() {
        assert_eq!(
            for_worker(&job(&[("prio", "4")]), 1).unwrap().ioprio,
            Some((2, 4))
        );
        assert_eq!(
            for_worker(&job(&[("prioclass", "3")]), 1).unwrap().ioprio,
            Some((3, 0))
        );
        assert!(for_worker(&job(&[]), 1).unwrap().is_empty());
    }

    #[test]
    fn the_worker_thread_takes_its_placement() {
        let job = job(&[
            ("cpus_allowed", "0"),
            ("numa_mem_policy", "local"),
            ("nice", "5"),
            ("prioclass", "2"),
            ("prio", "6"),
        ]);
        let placement = for_worker(&job, 1).unwrap();
        std::thread::spawn(move || apply(&placement, "j"))
            .join()
            .unwrap()
            .unwrap();
    }
}
