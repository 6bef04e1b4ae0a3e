//! Iometer's results file (`results.csv`) written from diskmeter results: per step a
//! `'Results` line, Iometer 1.1.0's column header and an `ALL` row, then a `MANAGER` row
//! per manager and a `WORKER` row per worker, as `ManagerList::SaveResults` writes them.
//!
//! Columns diskmeter measures are filled (IOPS, MiB/s and MB/s, response times in ms, errors,
//! bytes and IO counts, starting sector, maximum size, queue depth, and the connection
//! columns of Iometer's connection-rate test where a worker ran it: connections per second,
//! their mean and maximum time, the count and the transactions per connection); the others
//! are left empty, never made up: transactions (network), the raw timer-tick columns,
//! CPU and interrupt figures (Iometer's are system-wide; diskmeter's CPU is its own) and the
//! latency bins (Iometer's bin edges are not diskmeter's).

use crate::schema::{JobResult, RunResult};
use diskmeter_jobfile::iometer::icf::Icf;
use diskmeter_jobfile::iometer::icf_run::IcfStep;
use std::fmt::Write;

/// Iometer 1.1.0's results header (`ManagerList::SaveResults`), after `'Results`.
pub const IOMETER_CSV_HEADER: &str = "'Target Type,Target Name,Access Specification Name,# Managers,\
# Workers,# Disks,IOps,Read IOps,Write IOps,MiBps (Binary),Read MiBps (Binary),Write MiBps (Binary),\
MBps (Decimal),Read MBps (Decimal),Write MBps (Decimal),Transactions per Second,Connections per Second,\
Average Response Time,Average Read Response Time,Average Write Response Time,Average Transaction Time,\
Average Connection Time,Maximum Response Time,Maximum Read Response Time,Maximum Write Response Time,\
Maximum Transaction Time,Maximum Connection Time,Errors,Read Errors,Write Errors,Bytes Read,Bytes Written,\
Read I/Os,Write I/Os,Connections,Transactions per Connection,Total Raw Read Response Time,\
Total Raw Write Response Time,Total Raw Transaction Time,Total Raw Connection Time,\
Maximum Raw Read Response Time,Maximum Raw Write Response Time,Maximum Raw Transaction Time,\
Maximum Raw Connection Time,Total Raw Run Time,Starting Sector,Maximum Size,Queue Depth,\
% CPU Utilization,% User Time,% Privileged Time,% DPC Time,% Interrupt Time,Processor Speed,\
Interrupts per Second,CPU Effectiveness,Packets/Second,Packet Errors,Segments Retransmitted/Second,\
0 to 50 uS,50 to 100 uS,100 to 200 uS,200 to 500 uS,0.5 to 1 mS,1 to 2 mS,2 to 5 mS,5 to 10 mS,\
10 to 15 mS,15 to 20 mS,20 to 30 mS,30 to 50 mS,50 to 100 mS,100 to 200 mS,200 to 500 mS,0.5 to 1 S,\
1 to 2 s,2 to 4.7 s,4.7 to 5 s,5 to 10 s, >= 10 s";

/// A worker of a step: its name, settings and its jobs in the step's result.
#[derive(Debug, Clone)]
pub struct IometerCsvWorker {
    /// The worker's name.
    pub name: String,
    /// The access specification it ran.
    pub spec: String,
    /// Targets it ran on.
    pub targets: usize,
    /// Outstanding IOs per target.
    pub queue_depth: u32,
    /// Starting sector.
    pub starting_sector: u64,
    /// Maximum size, sectors (0: whole target).
    pub max_size_sectors: u64,
    /// Indices of its jobs in the step's [`RunResult::jobs`].
    pub jobs: std::ops::Range<usize>,
}

/// A manager of a step and its active workers.
#[derive(Debug, Clone)]
pub struct IometerCsvManager {
    /// The manager's name.
    pub name: String,
    /// Its workers that ran in the step.
    pub workers: Vec<IometerCsvWorker>,
}

/// One step: the access specification name all workers ran (or Iometer's blank for mixed),
/// its managers and its measured result.
#[derive(Debug, Clone)]
pub struct IometerCsvStep<'a> {
    /// The spec all workers ran.
    pub spec: String,
    /// Managers with workers active in the step.
    pub managers: Vec<IometerCsvManager>,
    /// The step's result.
    pub result: &'a RunResult,
}

/// Figures summed over jobs.
#[derive(Default)]
struct Sum {
    read_iops: f64,
    write_iops: f64,
    read_bps: f64,
    write_bps: f64,
    read_ios: u64,
    write_ios: u64,
    read_bytes: u64,
    write_bytes: u64,
    read_lat_sum_ns: f64,
    write_lat_sum_ns: f64,
    read_max_ns: u64,
    write_max_ns: u64,
    read_errors: u64,
    write_errors: u64,
    /// Jobs that tested the connection rate, and their connections.
    connection_jobs: usize,
    connections_per_s: f64,
    connections: u64,
    connection_total_ns: u64,
    connection_max_ns: u64,
    /// Transactions per connection of the jobs that tested it, when all say the same.
    transactions_per_connection: Option<Option<u32>>,
}

impl Sum {
    fn add(&mut self, job: &JobResult) {
        let per_s = |count: u64, runtime_ns: u64| {
            if runtime_ns == 0 {
                0.0
            } else {
                count as f64 * 1e9 / runtime_ns as f64
            }
        };
        let runtime = job.runtime_ns;
        self.read_iops += per_s(job.read.ios, runtime);
        self.write_iops += per_s(job.write.ios, runtime);
        self.read_bps += per_s(job.read.bytes, runtime);
        self.write_bps += per_s(job.write.bytes, runtime);
        self.read_ios += job.read.ios;
        self.write_ios += job.write.ios;
        self.read_bytes += job.read.bytes;
        self.write_bytes += job.write.bytes;
        self.read_lat_sum_ns += job.read.lat.mean_ns * job.read.lat.count as f64;
        self.write_lat_sum_ns += job.write.lat.mean_ns * job.write.lat.count as f64;
        self.read_max_ns = self.read_max_ns.max(job.read.lat.max_ns);
        self.write_max_ns = self.write_max_ns.max(job.write.lat.max_ns);
        self.read_errors += job.read.errors;
        self.write_errors += job.write.errors;
        if let Some(c) = &job.connections {
            self.connection_jobs += 1;
            self.connections_per_s += c.per_second;
            self.connections += c.count;
            self.connection_total_ns += c.total_ns;
            self.connection_max_ns = self.connection_max_ns.max(c.max_ns);
            let every = Some(c.transactions_per_connection);
            self.transactions_per_connection = match self.transactions_per_connection {
                None => Some(every),
                Some(seen) if seen == every => Some(every),
                Some(_) => Some(None),
            };
        }
    }

    /// A connection figure, or empty where no job tested the connection rate.
    fn connection_figure(&self, value: f64) -> String {
        if self.connection_jobs == 0 {
            String::new()
        } else {
            format!("{value:.6}")
        }
    }

    /// Iometer's `Connections` and `Transactions per Connection` columns (empty: not tested,
    /// or workers with different counts, Iometer's ambiguous value).
    fn connection_counts(&self) -> String {
        if self.connection_jobs == 0 {
            return ",".into();
        }
        let every = self
            .transactions_per_connection
            .flatten()
            .map_or(String::new(), |n| n.to_string());
        format!("{},{every}", self.connections)
    }

    /// The columns from `IOps` to `Write I/Os`, as Iometer writes them (6 decimals).
    fn columns(&self) -> String {
        let ms = |sum_ns: f64, count: u64| {
            if count == 0 {
                0.0
            } else {
                sum_ns / count as f64 / 1e6
            }
        };
        let ios = self.read_ios + self.write_ios;
        let mib = 1024.0 * 1024.0;
        let numbers = [
            self.read_iops + self.write_iops,
            self.read_iops,
            self.write_iops,
            (self.read_bps + self.write_bps) / mib,
            self.read_bps / mib,
            self.write_bps / mib,
            (self.read_bps + self.write_bps) / 1e6,
            self.read_bps / 1e6,
            self.write_bps / 1e6,
        ];
        let mut out: Vec<String> = numbers.iter().map(|n| format!("{n:.6}")).collect();
        // Transactions per second: a network figure.
        out.push(String::new());
        out.push(self.connection_figure(self.connections_per_s));
        let connection_mean_ms = if self.connections == 0 {
            0.0
        } else {
            self.connection_total_ns as f64 / self.connections as f64 / 1e6
        };
        out.extend(
            [
                ms(self.read_lat_sum_ns + self.write_lat_sum_ns, ios),
                ms(self.read_lat_sum_ns, self.read_ios),
                ms(self.write_lat_sum_ns, self.write_ios),
            ]
            .map(|n| format!("{n:.6}")),
        );
        out.push(String::new());
        out.push(self.connection_figure(connection_mean_ms));
        out.extend(
            [
                self.read_max_ns.max(self.write_max_ns),
                self.read_max_ns,
                self.write_max_ns,
            ]
            .map(|ns| format!("{:.6}", ns as f64 / 1e6)),
        );
        out.push(String::new());
        out.push(self.connection_figure(self.connection_max_ns as f64 / 1e6));
        out.extend(
            [
                self.read_errors + self.write_errors,
                self.read_errors,
                self.write_errors,
                self.read_bytes,
                self.write_bytes,
                self.read_ios,
                self.write_ios,
            ]
            .map(|n| n.to_string()),
        );
        out.join(",")
    }
}

/// A setting shared by all `workers`, or empty (Iometer's ambiguous value).
fn common<T: PartialEq + ToString>(
    workers: &[&IometerCsvWorker],
    get: impl Fn(&IometerCsvWorker) -> T,
) -> String {
    match workers.first() {
        Some(first) if workers.iter().all(|w| get(w) == get(first)) => get(first).to_string(),
        _ => String::new(),
    }
}

fn row(
    out: &mut String,
    kind: &str,
    name: &str,
    spec: &str,
    counts: [String; 3],
    workers: &[&IometerCsvWorker],
    result: &RunResult,
) {
    let mut sum = Sum::default();
    for worker in workers {
        for job in worker.jobs.clone().filter_map(|i| result.jobs.get(i)) {
            sum.add(job);
        }
    }
    let [managers, worker_count, disks] = counts;
    let _ = write!(
        out,
        "{kind},{name},{spec},{managers},{worker_count},{disks},{}",
        sum.columns()
    );
    let _ = write!(out, ",{}", sum.connection_counts());
    // 9 raw timer-tick columns.
    out.push_str(&",".repeat(9));
    let _ = write!(
        out,
        ",{},{},{}",
        common(workers, |w| w.starting_sector),
        common(workers, |w| w.max_size_sectors),
        common(workers, |w| w.queue_depth)
    );
    // CPU (5), processor speed, interrupts, CPU effectiveness, network (3), bins (21).
    out.push_str(&",".repeat(5 + 3 + 3 + 21));
    out.push('\n');
}

/// Iometer's results file for these steps, headed by the test description.
pub fn render_iometer_csv(description: &str, steps: &[IometerCsvStep<'_>]) -> String {
    let mut out = format!(
        "'Test Description\n{description}\n'Version\ndiskmeter {} (Iometer 1.1.0 columns)\n",
        env!("CARGO_PKG_VERSION")
    );
    for step in steps {
        out.push_str("'Results\n");
        out.push_str(IOMETER_CSV_HEADER);
        out.push('\n');
        let all: Vec<&IometerCsvWorker> = step.managers.iter().flat_map(|m| &m.workers).collect();
        let disks =
            |ws: &[&IometerCsvWorker]| ws.iter().map(|w| w.targets).sum::<usize>().to_string();
        row(
            &mut out,
            "ALL",
            "All",
            &step.spec,
            [
                step.managers.len().to_string(),
                all.len().to_string(),
                disks(&all),
            ],
            &all,
            step.result,
        );
        for manager in &step.managers {
            let workers: Vec<&IometerCsvWorker> = manager.workers.iter().collect();
            row(
                &mut out,
                "MANAGER",
                &manager.name,
                &step.spec,
                [String::new(), workers.len().to_string(), disks(&workers)],
                &workers,
                step.result,
            );
            for worker in &workers {
                row(
                    &mut out,
                    "WORKER",
                    &worker.name,
                    &worker.spec,
                    [String::new(), String::new(), worker.targets.to_string()],
                    &[worker],
                    step.result,
                );
            }
        }
    }
    out
}

impl<'a> IometerCsvStep<'a> {
    /// The CSV writer's view of the steps of an `.icf` file that ran (`results[i]` is
    /// `steps[i]`'s): managers with their active workers.
    pub fn of_icf_steps(
        icf: &Icf,
        steps: &[IcfStep],
        results: &'a [RunResult],
    ) -> Vec<IometerCsvStep<'a>> {
        steps
            .iter()
            .zip(results)
            .map(|(step, result)| {
                let mut managers: Vec<(usize, IometerCsvManager)> = Vec::new();
                for worker in &step.workers {
                    let manager = &icf.managers[worker.manager];
                    let settings = &manager.workers[worker.worker];
                    let row = IometerCsvWorker {
                        name: settings.name.clone(),
                        spec: worker.spec.clone(),
                        targets: worker.targets,
                        queue_depth: worker.queue_depth,
                        starting_sector: settings.starting_sector,
                        max_size_sectors: settings.max_size_sectors,
                        jobs: worker.jobs.clone(),
                    };
                    match managers.iter_mut().find(|(m, _)| *m == worker.manager) {
                        Some((_, m)) => m.workers.push(row),
                        None => managers.push((
                            worker.manager,
                            IometerCsvManager {
                                name: manager.name_or_id(),
                                workers: vec![row],
                            },
                        )),
                    }
                }
                IometerCsvStep {
                    // Iometer leaves the spec name empty when workers ran different ones.
                    spec: step.spec.clone().unwrap_or_default(),
                    managers: managers.into_iter().map(|(_, m)| m).collect(),
                    result,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_has_iometer_1_1_0_s_columns() {
        let columns: Vec<&str> = IOMETER_CSV_HEADER.split(',').collect();
        assert_eq!(columns.len(), 80);
        assert_eq!(columns[6], "IOps");
        assert_eq!(columns[45], "Starting Sector");
        assert_eq!(columns[47], "Queue Depth");
        assert_eq!(columns[79], " >= 10 s");
    }
}
