//! Setters and printers of the system rows (`rows_system.rs`): histogram logs, CPU and NUMA
//! placement, priorities, engine options and commands; same conventions as `setters.rs`.

use super::convert::{number, pair, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::system::cmdprio::{format_cmdprio_bssplit, parse_cmdprio_bssplit};
use crate::system::{
    format_mem_policy, format_node_list, parse_mem_policy, parse_node_list, SystemValueError,
};
use crate::JobSpec;

/// fio's `cpumask`: a bit mask of the CPUs `cpus_allowed` lists (bit N = CPU N); the two
/// options set the same CPUs, the later one wins (as in fio).
pub(crate) fn set_cpumask(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let mask = number(value)?;
    spec.cpus_allowed = Some((0..64).filter(|bit| mask & (1 << bit) != 0).collect());
    Ok(())
}

/// The mask is printed as the `cpus_allowed` it set.
pub(crate) fn show_cpumask(_: &JobSpec) -> Option<String> {
    None
}

pub(crate) fn set_numa_cpu_nodes(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.numa_cpu_nodes = Some(parse_node_list(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_numa_cpu_nodes(spec: &JobSpec) -> Option<String> {
    spec.system.numa_cpu_nodes.as_ref().map(format_node_list)
}

pub(crate) fn set_numa_mem_policy(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.numa_mem_policy = Some(parse_mem_policy(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_numa_mem_policy(spec: &JobSpec) -> Option<String> {
    spec.system.numa_mem_policy.as_ref().map(format_mem_policy)
}

pub(crate) fn set_nice(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let out_of_range = SystemValueError::Signed { min: -20, max: 19 };
    let nice: i32 = text(value)?
        .trim()
        .parse()
        .map_err(|_| out_of_range.clone())?;
    if !(-20..=19).contains(&nice) {
        return Err(out_of_range.into());
    }
    spec.system.nice = nice;
    Ok(())
}

pub(crate) fn show_nice(spec: &JobSpec) -> Option<String> {
    Some(spec.system.nice.to_string())
}

pub(crate) fn set_prio(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // The row's limits (0 to 7) are checked before this runs.
    spec.system.prio = Some(number(value)? as u8);
    Ok(())
}

pub(crate) fn show_prio(spec: &JobSpec) -> Option<String> {
    spec.system.prio.map(|p| p.to_string())
}

pub(crate) fn set_prioclass(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // The row's limits (0 to 3) are checked before this runs.
    spec.system.prioclass = Some(number(value)? as u8);
    Ok(())
}

pub(crate) fn show_prioclass(spec: &JobSpec) -> Option<String> {
    spec.system.prioclass.map(|p| p.to_string())
}

pub(crate) fn set_nonvectored(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let out_of_range = SystemValueError::Signed { min: -1, max: 1 };
    let value: i32 = text(value)?
        .trim()
        .parse()
        .map_err(|_| out_of_range.clone())?;
    if !(-1..=1).contains(&value) {
        return Err(out_of_range.into());
    }
    spec.system.nonvectored = value;
    Ok(())
}

pub(crate) fn show_nonvectored(spec: &JobSpec) -> Option<String> {
    Some(spec.system.nonvectored.to_string())
}

pub(crate) fn set_uncached(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    match number(value)? {
        0 => {
            spec.system.uncached = 0;
            Ok(())
        }
        _ => Err(SystemValueError::Uncached.into()),
    }
}

pub(crate) fn show_uncached(spec: &JobSpec) -> Option<String> {
    Some(spec.system.uncached.to_string())
}

pub(crate) fn set_log_compression(_: &mut JobSpec, _: Value) -> Result<(), InvalidValue> {
    Err(SystemValueError::LogCompression.into())
}

/// Nothing to print: the option is never stored.
pub(crate) fn show_log_compression(_: &JobSpec) -> Option<String> {
    None
}

/// A read,write pair of small numbers from `min` to `max`; a direction left out keeps
/// `current`'s value, a single value sets both (fio's pairs).
fn small_pair(value: Value, min: u64, max: u64, current: [u8; 2]) -> Result<[u8; 2], InvalidValue> {
    let pair = pair(value)?;
    let mut out = current;
    for (slot, given) in out.iter_mut().zip([pair.read, pair.write]) {
        if let Some(given) = given {
            if given < min || given > max {
                return Err(SystemValueError::PairOutside { min, max }.into());
            }
            *slot = given as u8;
        }
    }
    Ok(out)
}

/// Prints a pair as `read,write`, or one value when both are the same.
fn show_small_pair(pair: [u8; 2]) -> String {
    if pair[0] == pair[1] {
        pair[0].to_string()
    } else {
        format!("{},{}", pair[0], pair[1])
    }
}

pub(crate) fn set_cmdprio_percentage(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let current = spec.system.cmdprio.percentage.unwrap_or([0, 0]);
    spec.system.cmdprio.percentage = Some(small_pair(value, 0, 100, current)?);
    Ok(())
}

pub(crate) fn show_cmdprio_percentage(spec: &JobSpec) -> Option<String> {
    spec.system.cmdprio.percentage.map(show_small_pair)
}

pub(crate) fn set_cmdprio_class(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.cmdprio.class = small_pair(value, 1, 3, spec.system.cmdprio.class)?;
    Ok(())
}

pub(crate) fn show_cmdprio_class(spec: &JobSpec) -> Option<String> {
    Some(show_small_pair(spec.system.cmdprio.class))
}

pub(crate) fn set_cmdprio(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.cmdprio.level = small_pair(value, 0, 7, spec.system.cmdprio.level)?;
    Ok(())
}

pub(crate) fn show_cmdprio(spec: &JobSpec) -> Option<String> {
    Some(show_small_pair(spec.system.cmdprio.level))
}

pub(crate) fn set_cmdprio_bssplit(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let split =
        parse_cmdprio_bssplit(&text(value)?, spec.kb_base).map_err(SystemValueError::from)?;
    spec.system.cmdprio.bssplit = Some(split);
    Ok(())
}

pub(crate) fn show_cmdprio_bssplit(spec: &JobSpec) -> Option<String> {
    spec.system
        .cmdprio
        .bssplit
        .as_ref()
        .map(format_cmdprio_bssplit)
}
