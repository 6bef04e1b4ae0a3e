//! What the command line changes in an `.icf` file's workers before it runs: Iometer's
//! default workers when the file has none (sized by `--workers`/`--qd`), and access
//! specifications picked from the file's library by name (`--spec`).

use super::icf::{Icf, IcfError, IcfManager, IcfWorker, WorkerCount};

/// When the manager list has no workers, gives the first manager (made if there is none)
/// Iometer's default disk workers: `'Default Disk Workers to Spawn` of them (`cpus` for
/// NUMBER_OF_CPUS), each with the specifications whose default assignment is ALL or DISK,
/// on `targets`.
pub fn spawn_default_workers(icf: &mut Icf, cpus: u32, targets: &[String]) {
    if icf.managers.iter().any(|m| !m.workers.is_empty()) {
        return;
    }
    let count = match icf.setup.disk_workers {
        WorkerCount::Count(n) => n,
        WorkerCount::NumberOfCpus => cpus.max(1),
    };
    let specs: Vec<String> = icf
        .specs
        .iter()
        .filter(|s| {
            ["ALL", "DISK"]
                .iter()
                .any(|a| s.default_assignment.eq_ignore_ascii_case(a))
        })
        .map(|s| s.name.clone())
        .collect();
    if icf.managers.is_empty() {
        icf.managers.push(IcfManager {
            id: 1,
            name: "local".into(),
            address: String::new(),
            workers: Vec::new(),
        });
    }
    icf.managers[0].workers = (1..=count)
        .map(|i| IcfWorker {
            specs: specs.clone(),
            targets: targets.to_vec(),
            ..IcfWorker::iometer_default(format!("Worker {i}"), 0)
        })
        .collect();
}

/// Runs the access specifications `names` of the file's library on every disk worker in
/// place of the ones the file assigns: a library saved on its own (Iometer's "Save" on the
/// access specifications list writes only that section, every default assignment NONE) is
/// run this way. A name the library lacks is refused with the library's names.
pub fn assign_library_specs(file: &str, icf: &mut Icf, names: &[String]) -> Result<(), IcfError> {
    let mut chosen = Vec::with_capacity(names.len());
    for name in names {
        let found = icf
            .specs
            .iter()
            .find(|s| s.name == *name)
            .or_else(|| icf.specs.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
            .ok_or_else(|| IcfError {
                file: file.to_string(),
                line: 1,
                section: "'ACCESS SPECIFICATIONS",
                field: Some(name.clone()),
                problem: format!(
                    "no such access specification in the file; its library: {}",
                    icf.specs
                        .iter()
                        .map(|s| format!("'{}'", s.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
        chosen.push(found.name.clone());
    }
    for worker in icf.managers.iter_mut().flat_map(|m| m.workers.iter_mut()) {
        if worker.is_disk() {
            worker.specs = chosen.clone();
        }
    }
    Ok(())
}

/// Sets the workers Iometer would spawn by default (see [`spawn_default_workers`]) to
/// `count` workers of `queue_depth` outstanding IOs each, where given: `false` when the file
/// has workers of its own, whose settings stand.
pub fn size_default_workers(icf: &mut Icf, count: Option<u32>, queue_depth: Option<u32>) -> bool {
    let spawned = icf
        .managers
        .iter()
        .flat_map(|m| m.workers.iter())
        .all(|w| w.line == 0);
    if !spawned {
        return false;
    }
    if let Some(manager) = icf.managers.first_mut() {
        if let (Some(count), Some(template)) = (count, manager.workers.first().cloned()) {
            manager.workers = (1..=count.max(1))
                .map(|i| IcfWorker {
                    name: format!("Worker {i}"),
                    ..template.clone()
                })
                .collect();
        }
        if let Some(depth) = queue_depth {
            for worker in &mut manager.workers {
                worker.queue_depth = depth.max(1);
            }
        }
    }
    true
}
