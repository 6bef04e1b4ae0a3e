//! The `'TEST SETUP`, `'ACCESS SPECIFICATIONS` and `'MANAGER LIST` sections of an `.icf` file.
//!
//! The manager list is read line by line, as Iometer's `Worker::LoadConfig` reads it: its
//! keys (`'Default target settings for worker`, `'Number of outstanding IOs,...`) follow
//! each other, so they cannot be taken as a key and its column headings.

use super::icf::{
    fields, has_prefix, number, starts_with_ci, Cycling, IcfError, IcfManager, IcfSpec, IcfWorker,
    Lines, QueueCycling, SpecLine, StepType, TestSetup, TestType, WorkerCount,
};

fn value_fields(value: &str) -> Vec<&str> {
    fields(value)
}

/// Reads the access specifications up to `'END access specifications`.
pub(super) fn read_specs(lines: &mut Lines<'_>) -> Result<Vec<IcfSpec>, IcfError> {
    let mut specs = Vec::new();
    loop {
        let (line, key) = lines.line()?;
        if has_prefix(key, "'END access specifications") {
            return Ok(specs);
        }
        if !key.eq_ignore_ascii_case("'Access specification name,default assignment") {
            return Err(lines.error(line, Some(key.trim_start_matches('\'')), "expected 'Access specification name,default assignment or 'END access specifications"));
        }
        let (name_line, value) = lines.value_line().ok_or_else(|| {
            lines.error(
                line,
                Some("Access specification name"),
                "the name line is missing",
            )
        })?;
        let (name, assignment) = match value.rsplit_once(',') {
            Some((name, assignment)) => (name.trim(), assignment.trim()),
            None => (value, "NONE"),
        };
        if name.is_empty() {
            return Err(lines.error(
                name_line,
                Some("Access specification name"),
                "the name is empty",
            ));
        }
        let (heading_line, heading) = lines.line()?;
        if !heading.starts_with('\'') {
            return Err(lines.error(
                heading_line,
                Some(name),
                "expected the 'size,% of size,% reads,% random,delay,burst,align,reply heading",
            ));
        }
        let mut spec_lines = Vec::new();
        while let Some((n, text)) = lines.value_line() {
            if text.is_empty() {
                continue;
            }
            spec_lines.push(spec_line(lines, n, name, text)?);
        }
        let total: u32 = spec_lines
            .iter()
            .map(|l| u32::from(l.of_size_percent))
            .sum();
        if total != 100 {
            return Err(lines.error(
                name_line,
                Some(name),
                format!("the lines' % of size add up to {total}, not 100"),
            ));
        }
        specs.push(IcfSpec {
            name: name.to_string(),
            default_assignment: assignment.to_string(),
            lines: spec_lines,
            line: name_line,
        });
    }
}

fn spec_line(lines: &Lines<'_>, line: usize, spec: &str, text: &str) -> Result<SpecLine, IcfError> {
    let f = value_fields(text);
    if f.len() != 8 {
        return Err(lines.error(
            line,
            Some(spec),
            format!(
            "a line is size,% of size,% reads,% random,delay,burst,align,reply: 8 fields, found {}",
            f.len()
        ),
        ));
    }
    let percent = |i: usize, field: &str| -> Result<u8, IcfError> {
        let n: u8 = lines.number(line, &format!("{spec}: {field}"), f.get(i))?;
        if n > 100 {
            return Err(lines.error(
                line,
                Some(&format!("{spec}: {field}")),
                format!("{n} is more than 100"),
            ));
        }
        Ok(n)
    };
    let at = |field: &str| format!("{spec}: {field}");
    Ok(SpecLine {
        size_bytes: lines.number(line, &at("size"), f.first())?,
        of_size_percent: percent(1, "% of size")?,
        read_percent: percent(2, "% reads")?,
        random_percent: percent(3, "% random")?,
        delay_ms: lines.number(line, &at("delay"), f.get(4))?,
        burst: lines.number(line, &at("burst"), f.get(5))?,
        align_bytes: lines.number(line, &at("align"), f.get(6))?,
        reply_bytes: lines.number(line, &at("reply"), f.get(7))?,
    })
}

/// Reads the managers up to `'END manager list`.
pub(super) fn read_managers(lines: &mut Lines<'_>) -> Result<Vec<IcfManager>, IcfError> {
    let mut managers = Vec::new();
    loop {
        let (line, key) = lines.line()?;
        if has_prefix(key, "'END manager list") {
            return Ok(managers);
        }
        if !key.eq_ignore_ascii_case("'Manager ID, manager name") {
            return Err(lines.error(
                line,
                Some(key.trim_start_matches('\'')),
                "expected 'Manager ID, manager name or 'END manager list",
            ));
        }
        let (id_line, value) = lines.value_line().unwrap_or((line, ""));
        let (id, name) = value.split_once(',').unwrap_or((value, ""));
        let id = lines.number(id_line, "Manager ID", Some(&id.trim()))?;
        let mut manager = IcfManager {
            id,
            name: name.trim().to_string(),
            address: String::new(),
            workers: Vec::new(),
        };
        loop {
            let (line, key) = lines.line()?;
            if key.eq_ignore_ascii_case("'End manager") {
                break;
            } else if key.eq_ignore_ascii_case("'Manager network address") {
                manager.address = lines.value_line().map_or("", |v| v.1).to_string();
            } else if key.eq_ignore_ascii_case("'Worker") {
                let name = lines.value_line().map_or("", |v| v.1).to_string();
                manager.workers.push(read_worker(lines, line, name)?);
            } else {
                return Err(lines.error(
                    line,
                    Some(key.trim_start_matches('\'')),
                    "expected 'Worker or 'End manager",
                ));
            }
        }
        managers.push(manager);
    }
}

fn read_worker<'a>(lines: &mut Lines<'a>, at: usize, name: String) -> Result<IcfWorker, IcfError> {
    let mut worker = IcfWorker::iometer_default(name, at);
    fn value<'a>(lines: &mut Lines<'a>) -> &'a str {
        lines.value_line().map_or("", |v| v.1)
    }
    loop {
        let (line, key) = lines.line()?;
        if key.eq_ignore_ascii_case("'End worker") {
            return Ok(worker);
        } else if key.eq_ignore_ascii_case("'Worker type") {
            worker.kind = value_fields(value(lines)).join(",");
        } else if key.eq_ignore_ascii_case("'Default target settings for worker") {
            read_defaults(lines, &mut worker)?;
        } else if key.eq_ignore_ascii_case("'Assigned access specs") {
            loop {
                let (_, spec) = lines.line()?;
                if spec.eq_ignore_ascii_case("'End assigned access specs") {
                    break;
                }
                worker.specs.push(spec.to_string());
            }
        } else if key.eq_ignore_ascii_case("'Target assignments") {
            loop {
                let (line, key) = lines.line()?;
                if key.eq_ignore_ascii_case("'End target assignments") {
                    break;
                } else if key.eq_ignore_ascii_case("'Target") {
                    worker.targets.push(value(lines).to_string());
                } else if key.eq_ignore_ascii_case("'Target type") {
                    let kind = value(lines);
                    if !kind.eq_ignore_ascii_case("DISK") {
                        return Err(lines.error(
                            line,
                            Some(&format!("{}: Target type", worker.name)),
                            format!(
                            "a {kind} target (network) cannot run here: diskmeter measures storage"
                        ),
                        ));
                    }
                } else if !(key.eq_ignore_ascii_case("'End target")
                    || key.eq_ignore_ascii_case("'Target manager ID, manager name"))
                {
                    return Err(lines.error(
                        line,
                        Some(key.trim_start_matches('\'')),
                        "expected 'Target, 'Target type or 'End target assignments",
                    ));
                } else if key.eq_ignore_ascii_case("'Target manager ID, manager name") {
                    value(lines);
                }
            }
        } else {
            return Err(lines.error(
                line,
                Some(key.trim_start_matches('\'')),
                format!("not a field of 'Worker {}", worker.name),
            ));
        }
    }
}

fn read_defaults(lines: &mut Lines<'_>, worker: &mut IcfWorker) -> Result<(), IcfError> {
    loop {
        let (line, key) = lines.line()?;
        let field = key.trim_start_matches('\'');
        if key.eq_ignore_ascii_case("'End default target settings for worker") {
            return Ok(());
        }
        let text = lines.value_line().map_or("", |v| v.1);
        let f = value_fields(text);
        let enabled = |i: usize, what: &str| -> Result<bool, IcfError> {
            match f.get(i).copied().unwrap_or("") {
                t if t.eq_ignore_ascii_case("ENABLED") => Ok(true),
                t if t.eq_ignore_ascii_case("DISABLED") => Ok(false),
                t => Err(lines.error(
                    line,
                    Some(what),
                    format!("expected ENABLED or DISABLED, found '{t}'"),
                )),
            }
        };
        if has_prefix(key, "'Number of outstanding IOs") {
            worker.queue_depth = lines.number(line, "Number of outstanding IOs", f.first())?;
            worker.connection_rate = enabled(1, "test connection rate")?;
            worker.transactions_per_connection =
                lines.number(line, "transactions per connection", f.get(2))?;
            if f.len() > 3 && enabled(3, "use fixed seed")? {
                worker.fixed_seed = Some(lines.number(line, "fixed seed value", f.get(4))?);
            }
        } else if has_prefix(key, "'Disk maximum size,starting sector") {
            worker.max_size_sectors = lines.number(line, "Disk maximum size", f.first())?;
            worker.starting_sector = lines.number(line, "starting sector", f.get(1))?;
            if f.len() > 2 {
                worker.data_pattern = Some(lines.number(line, "Data pattern", f.get(2))?);
            }
        } else if key.eq_ignore_ascii_case("'Local network interface")
            || key.eq_ignore_ascii_case("'VI outstanding IOs")
        {
            // Network workers' settings; such a worker is refused when it would run.
        } else {
            return Err(lines.error(
                line,
                Some(field),
                format!("not a default target setting of worker {}", worker.name),
            ));
        }
    }
}

fn step_type(
    lines: &Lines<'_>,
    line: usize,
    field: &str,
    text: Option<&&str>,
) -> Result<StepType, IcfError> {
    match text.copied().unwrap_or("") {
        t if t.eq_ignore_ascii_case("LINEAR") || t == "0" => Ok(StepType::Linear),
        t if t.eq_ignore_ascii_case("EXPONENTIAL") || t == "1" => Ok(StepType::Exponential),
        t => Err(lines.error(
            line,
            Some(field),
            format!("step type '{t}' is neither LINEAR nor EXPONENTIAL"),
        )),
    }
}

fn worker_count(
    lines: &Lines<'_>,
    line: usize,
    field: &str,
    value: &str,
) -> Result<WorkerCount, IcfError> {
    let token = fields(value).first().copied().unwrap_or("");
    if token.eq_ignore_ascii_case("NUMBER_OF_CPUS") {
        return Ok(WorkerCount::NumberOfCpus);
    }
    number(lines, line, field, Some(&token)).map(WorkerCount::Count)
}

/// Reads the test setup up to `'END test setup`.
pub(super) fn read_setup(lines: &mut Lines<'_>, setup: &mut TestSetup) -> Result<(), IcfError> {
    loop {
        let (line, key, value) = lines.pair()?;
        let f = fields(value);
        let key_name = key.trim_start_matches('\'');
        let cycling = |lines: &Lines<'_>| -> Result<Cycling, IcfError> {
            Ok(Cycling {
                start: number(lines, line, key_name, f.first())?,
                step: number(lines, line, key_name, f.get(1))?,
                step_type: step_type(lines, line, key_name, f.get(2))?,
            })
        };
        if starts_with_ci(key, "'END test setup") {
            return Ok(());
        } else if key.eq_ignore_ascii_case("'Test Description") {
            setup.description = value.to_string();
        } else if key.eq_ignore_ascii_case("'Run Time") {
            let [h, m, s] = [0, 1, 2]
                .map(|i| number::<u64>(lines, line, "Run Time (hours minutes seconds)", f.get(i)));
            setup.run_time_s = h?
                .saturating_mul(3600)
                .saturating_add(m?.saturating_mul(60))
                .saturating_add(s?);
        } else if starts_with_ci(key, "'Ramp Up Time") {
            setup.ramp_up_s = number(lines, line, key_name, f.first())?;
        } else if key.eq_ignore_ascii_case("'Default Disk Workers to Spawn") {
            setup.disk_workers = worker_count(lines, line, key_name, value)?;
        } else if key.eq_ignore_ascii_case("'Default Workers to Spawn") {
            // Before 1998.10.08 this was the only count and 0 meant one per CPU.
            setup.disk_workers = match worker_count(lines, line, key_name, value)? {
                WorkerCount::Count(0) => WorkerCount::NumberOfCpus,
                other => other,
            };
        } else if key.eq_ignore_ascii_case("'Default Network Workers to Spawn") {
            setup.network_workers = worker_count(lines, line, key_name, value)?;
        } else if key.eq_ignore_ascii_case("'Record Results") {
            setup.record_results = value.to_string();
        } else if key.eq_ignore_ascii_case("'Worker Cycling") {
            setup.worker_cycling = cycling(lines)?;
        } else if key.eq_ignore_ascii_case("'Disk Cycling")
            || key.eq_ignore_ascii_case("'Target Cycling")
        {
            setup.target_cycling = cycling(lines)?;
        } else if key.eq_ignore_ascii_case("'Queue Depth Cycling") {
            setup.queue_cycling = QueueCycling {
                cycle: Cycling {
                    start: number(lines, line, key_name, f.first())?,
                    step: number(lines, line, key_name, f.get(2))?,
                    step_type: step_type(lines, line, key_name, f.get(3))?,
                },
                end: number(lines, line, key_name, f.get(1))?,
            };
        } else if key.eq_ignore_ascii_case("'Test Type") {
            let name = f.first().copied().unwrap_or("");
            setup.test_type = TestType::NAMES
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, t)| *t)
                .or_else(|| {
                    name.parse::<usize>()
                        .ok()
                        .and_then(|i| TestType::NAMES.get(i).map(|(_, t)| *t))
                })
                .ok_or_else(|| {
                    lines.error(
                        line,
                        Some("Test Type"),
                        format!(
                            "unknown test type '{name}'; Iometer's are {}",
                            TestType::NAMES.map(|(n, _)| n).join(", ")
                        ),
                    )
                })?;
        } else {
            return Err(lines.error(
                line,
                Some(key_name),
                "not a field of 'TEST SETUP (Iometer refuses it too)",
            ));
        }
    }
}
