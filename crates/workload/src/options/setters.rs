//! The store (`set_*`) and print (`show_*`) functions the option table points at.
//!
//! A setter checks only that a value fits its field (a `u32` count, a whole percentage);
//! whether the job as a whole makes sense is [`crate::validate`]'s business, so jobs built in
//! code get the same checks. A shower prints the value so that applying it again gives the
//! same job, which `describe` relies on.

use super::value::{Pair, Value};
use crate::{BlockSizeSpread, EngineKind, JobSpec, PerDirection, SyncMode};
use diskmeter_units::{format_cpu_list, format_size_suffix, format_time_suffix, KbBase};
use std::path::PathBuf;

/// fio's `FIO_IO_U_LIST_MAX_LEN`: the most percentiles `percentile_list` may hold.
pub(crate) const MAX_PERCENTILES: usize = 20;

// ---- value extraction -------------------------------------------------------------------

/// The reason returned when the table pairs an option with a setter of another kind; the
/// per-option tests make sure no row does.
pub(super) fn mismatch(value: &Value) -> String {
    format!("internal error: unexpected value {value:?} for this option")
}

pub(super) fn flag(value: Value) -> Result<bool, String> {
    match value {
        Value::Flag(flag) => Ok(flag),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn number(value: Value) -> Result<u64, String> {
    match value {
        Value::Number(number) => Ok(number),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn count(value: Value) -> Result<u32, String> {
    let number = number(value)?;
    u32::try_from(number).map_err(|_| format!("must be at most {}", u32::MAX))
}

fn nanos(value: Value) -> Result<u64, String> {
    match value {
        Value::Nanos(ns) => Ok(ns),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn text(value: Value) -> Result<String, String> {
    match value {
        Value::Text(text) => Ok(text),
        other => Err(mismatch(&other)),
    }
}

fn choice(value: Value) -> Result<&'static str, String> {
    match value {
        Value::Choice(choice) => Ok(choice),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn pair(value: Value) -> Result<Pair, String> {
    match value {
        Value::Pair(pair) => Ok(pair),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn whole_percent(value: Value) -> Result<u8, String> {
    match value {
        Value::Percent(percent) if percent.fract() == 0.0 && (0.0..=100.0).contains(&percent) => {
            Ok(percent as u8)
        }
        Value::Percent(_) => Err("must be a whole percentage from 0 to 100".to_string()),
        other => Err(mismatch(&other)),
    }
}

// ---- paths ------------------------------------------------------------------------------

/// Splits fio's ':'-separated path list; `\:` stands for a ':' inside a path.
fn split_paths(list: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                current.push(':');
            }
            ':' => paths.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    paths.push(current);
    paths
}

/// Writes a path for a ':'-separated list, escaping its own ':' as fio expects.
fn escape_path(path: &std::path::Path) -> String {
    path.to_string_lossy().replace(':', "\\:")
}

// ---- setters and showers, in table order -------------------------------------------------

pub(crate) fn set_name(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let name = text(value)?;
    if name.trim().is_empty() {
        return Err("a job name can't be empty".to_string());
    }
    spec.name = name;
    Ok(())
}

pub(crate) fn show_name(spec: &JobSpec) -> Option<String> {
    Some(spec.name.clone())
}

pub(crate) fn set_kb_base(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let choice = choice(value)?;
    spec.kb_base = KbBase::parse(choice).ok_or_else(|| "use 1024 or 1000".to_string())?;
    Ok(())
}

pub(crate) fn show_kb_base(spec: &JobSpec) -> Option<String> {
    Some(spec.kb_base.as_str().to_string())
}

pub(crate) fn set_filename(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let list = text(value)?;
    let paths = split_paths(&list);
    if paths.iter().any(|path| path.is_empty()) {
        return Err("a file name is empty (filename takes paths separated by ':')".to_string());
    }
    spec.filenames = paths.into_iter().map(PathBuf::from).collect();
    Ok(())
}

pub(crate) fn show_filename(spec: &JobSpec) -> Option<String> {
    if spec.filenames.is_empty() {
        return None;
    }
    let paths: Vec<String> = spec.filenames.iter().map(|p| escape_path(p)).collect();
    Some(paths.join(":"))
}

pub(crate) fn set_directory(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let paths = split_paths(&text(value)?);
    match paths.as_slice() {
        [path] if !path.is_empty() => {
            spec.directory = Some(PathBuf::from(path));
            Ok(())
        }
        [_] => Err("the directory can't be empty".to_string()),
        _ => Err(
            "give one directory (fio's ':'-separated list of several is not supported; \
                  write '\\:' for a ':' in the name)"
                .to_string(),
        ),
    }
}

pub(crate) fn show_directory(spec: &JobSpec) -> Option<String> {
    spec.directory.as_deref().map(escape_path)
}

pub(crate) fn set_nrfiles(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.nrfiles = count(value)?;
    Ok(())
}

pub(crate) fn show_nrfiles(spec: &JobSpec) -> Option<String> {
    Some(spec.nrfiles.to_string())
}

/// fio accepts 1 to 100 % for `size` and 0 to 100 % for `offset`.
fn share(value: f64, min: f64) -> Result<f64, String> {
    if value < min {
        return Err(format!("a percentage here must be from {min} to 100"));
    }
    Ok(value)
}

pub(crate) fn set_size(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    match value {
        Value::Percent(p) => {
            spec.size_percent = Some(share(p, 1.0)?);
            spec.size_bytes = None;
        }
        other => {
            spec.size_bytes = Some(number(other)?);
            spec.size_percent = None;
        }
    }
    Ok(())
}

pub(crate) fn show_size(spec: &JobSpec) -> Option<String> {
    match spec.size_percent {
        Some(p) => Some(format!("{p}%")),
        None => spec
            .size_bytes
            .map(|bytes| format_size_suffix(bytes, spec.kb_base)),
    }
}

pub(crate) fn set_io_size(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.io_size_bytes = Some(number(value)?);
    Ok(())
}

pub(crate) fn show_io_size(spec: &JobSpec) -> Option<String> {
    spec.io_size_bytes
        .map(|bytes| format_size_suffix(bytes, spec.kb_base))
}

pub(crate) fn set_offset(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    match value {
        Value::Percent(p) => {
            spec.offset_percent = Some(share(p, 0.0)?);
            spec.offset_bytes = 0;
        }
        other => {
            spec.offset_bytes = number(other)?;
            spec.offset_percent = None;
        }
    }
    Ok(())
}

pub(crate) fn show_offset(spec: &JobSpec) -> Option<String> {
    Some(match spec.offset_percent {
        Some(p) => format!("{p}%"),
        None => format_size_suffix(spec.offset_bytes, spec.kb_base),
    })
}

pub(crate) fn set_offset_increment(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.offset_increment_bytes = number(value)?;
    Ok(())
}

pub(crate) fn show_offset_increment(spec: &JobSpec) -> Option<String> {
    Some(format_size_suffix(
        spec.offset_increment_bytes,
        spec.kb_base,
    ))
}

pub(crate) fn set_rwmixread(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.rwmixread = whole_percent(value)?;
    Ok(())
}

pub(crate) fn set_rwmixwrite(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.rwmixread = 100 - whole_percent(value)?.min(100);
    Ok(())
}

pub(crate) fn set_percentage_random(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.percentage_random = whole_percent(value)?;
    Ok(())
}

pub(crate) fn show_percentage_random(spec: &JobSpec) -> Option<String> {
    Some(spec.percentage_random.to_string())
}

pub(crate) fn show_rwmixread(spec: &JobSpec) -> Option<String> {
    Some(spec.rwmixread.to_string())
}

pub(crate) fn set_bs(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let pair = pair(value)?;
    // Like fio, a later bs replaces an earlier bsrange or bssplit for that direction.
    if let Some(read) = pair.read {
        spec.bs_bytes.read = read;
        spec.bs_spread.read = BlockSizeSpread::Fixed;
    }
    if let Some(write) = pair.write {
        spec.bs_bytes.write = write;
        spec.bs_spread.write = BlockSizeSpread::Fixed;
    }
    Ok(())
}

pub(crate) fn show_bs(spec: &JobSpec) -> Option<String> {
    let size = |bytes| format_size_suffix(bytes, spec.kb_base);
    let bs = PerDirection {
        read: Some(spec.bs_bytes.read),
        write: Some(spec.bs_bytes.write),
    };
    Some(show_pair(bs, size))
}

pub(crate) fn set_iodepth(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.iodepth = count(value)?;
    Ok(())
}

pub(crate) fn show_iodepth(spec: &JobSpec) -> Option<String> {
    Some(spec.iodepth.to_string())
}

pub(crate) fn set_iodepth_batch_submit(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.iodepth_batch_submit = count(value)?;
    Ok(())
}

pub(crate) fn show_iodepth_batch_submit(spec: &JobSpec) -> Option<String> {
    Some(spec.iodepth_batch_submit.to_string())
}

pub(crate) fn set_iodepth_batch_complete_min(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), String> {
    spec.iodepth_batch_complete_min = count(value)?;
    Ok(())
}

pub(crate) fn show_iodepth_batch_complete_min(spec: &JobSpec) -> Option<String> {
    Some(spec.iodepth_batch_complete_min.to_string())
}

pub(crate) fn set_numjobs(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.numjobs = count(value)?;
    Ok(())
}

pub(crate) fn show_numjobs(spec: &JobSpec) -> Option<String> {
    Some(spec.numjobs.to_string())
}

pub(crate) fn set_runtime(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    // fio: runtime=0 means no limit.
    let ns = nanos(value)?;
    spec.runtime_ns = (ns > 0).then_some(ns);
    Ok(())
}

pub(crate) fn show_runtime(spec: &JobSpec) -> Option<String> {
    spec.runtime_ns.map(format_time_suffix)
}

pub(crate) fn set_time_based(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.time_based = flag(value)?;
    Ok(())
}

pub(crate) fn show_time_based(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.time_based))
}

pub(crate) fn set_ramp_time(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.ramp_time_ns = nanos(value)?;
    Ok(())
}

pub(crate) fn show_ramp_time(spec: &JobSpec) -> Option<String> {
    Some(format_time_suffix(spec.ramp_time_ns))
}

pub(crate) fn set_loops(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.loops = count(value)?;
    Ok(())
}

pub(crate) fn show_loops(spec: &JobSpec) -> Option<String> {
    Some(spec.loops.to_string())
}

pub(crate) fn set_direct(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.direct = flag(value)?;
    Ok(())
}

pub(crate) fn set_buffered(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.direct = !flag(value)?;
    Ok(())
}

pub(crate) fn show_direct(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.direct))
}

pub(crate) fn set_ioengine(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let choice = choice(value)?;
    spec.ioengine = EngineKind::parse(choice).ok_or_else(|| mismatch(&Value::Choice(choice)))?;
    Ok(())
}

pub(crate) fn show_ioengine(spec: &JobSpec) -> Option<String> {
    Some(spec.ioengine.as_str().to_string())
}

/// Stores a rate pair; fio reads 0 as "no cap".
pub(super) fn set_cap(target: &mut PerDirection<Option<u64>>, pair: Pair) {
    if let Some(read) = pair.read {
        target.read = (read > 0).then_some(read);
    }
    if let Some(write) = pair.write {
        target.write = (write > 0).then_some(write);
    }
}

pub(crate) fn set_rate(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    set_cap(&mut spec.rate_bytes_per_sec, pair(value)?);
    Ok(())
}

pub(crate) fn show_rate(spec: &JobSpec) -> Option<String> {
    let size = |bytes| format_size_suffix(bytes, spec.kb_base);
    show_cap(spec.rate_bytes_per_sec, size)
}

pub(crate) fn set_rate_iops(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    set_cap(&mut spec.rate_iops, pair(value)?);
    Ok(())
}

pub(crate) fn show_rate_iops(spec: &JobSpec) -> Option<String> {
    show_cap(spec.rate_iops, |iops: u64| iops.to_string())
}

pub(crate) fn set_group_reporting(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.group_reporting = flag(value)?;
    Ok(())
}

pub(crate) fn show_group_reporting(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.group_reporting))
}

pub(crate) fn set_randseed(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.randseed = number(value)?;
    Ok(())
}

pub(crate) fn show_randseed(spec: &JobSpec) -> Option<String> {
    Some(spec.randseed.to_string())
}

pub(crate) fn set_startdelay(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.startdelay_ns = nanos(value)?;
    Ok(())
}

pub(crate) fn show_startdelay(spec: &JobSpec) -> Option<String> {
    Some(format_time_suffix(spec.startdelay_ns))
}

pub(crate) fn set_randrepeat(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.randrepeat = flag(value)?;
    Ok(())
}

pub(crate) fn show_randrepeat(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.randrepeat))
}

pub(crate) fn set_invalidate(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.invalidate = flag(value)?;
    Ok(())
}

pub(crate) fn show_invalidate(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.invalidate))
}

pub(crate) fn set_sync(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let choice = choice(value)?;
    spec.sync = SyncMode::parse(choice).ok_or_else(|| mismatch(&Value::Choice(choice)))?;
    Ok(())
}

pub(crate) fn show_sync(spec: &JobSpec) -> Option<String> {
    Some(spec.sync.as_str().to_string())
}

/// Options that state what diskmeter always does (`thread`: workers are threads;
/// `refill_buffers`: every write is made unique anyway): the value is checked, nothing changes.
pub(crate) fn set_always_so(_spec: &mut JobSpec, value: Value) -> Result<(), String> {
    flag(value).map(|_| ())
}

pub(crate) fn set_rate_process(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.rate_poisson = choice(value)? == "poisson";
    Ok(())
}

pub(crate) fn show_rate_process(spec: &JobSpec) -> Option<String> {
    Some(
        if spec.rate_poisson {
            "poisson"
        } else {
            "linear"
        }
        .to_string(),
    )
}

pub(crate) fn set_clat_percentiles(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.clat_percentiles = flag(value)?;
    Ok(())
}

pub(crate) fn show_clat_percentiles(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.clat_percentiles))
}

pub(crate) fn set_lat_percentiles(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.lat_percentiles = flag(value)?;
    Ok(())
}

pub(crate) fn show_lat_percentiles(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.lat_percentiles))
}

pub(crate) fn set_stonewall(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.stonewall = flag(value)?;
    Ok(())
}

pub(crate) fn show_stonewall(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.stonewall))
}

pub(crate) fn set_new_group(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.new_group = flag(value)?;
    Ok(())
}

pub(crate) fn show_new_group(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.new_group))
}

pub(crate) fn set_norandommap(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.norandommap = flag(value)?;
    Ok(())
}

pub(crate) fn show_norandommap(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.norandommap))
}

pub(crate) fn set_unlink(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.unlink = flag(value)?;
    Ok(())
}

pub(crate) fn show_unlink(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.unlink))
}

pub(crate) fn set_fixedbufs(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.fixedbufs = flag(value)?;
    Ok(())
}

pub(crate) fn show_fixedbufs(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.fixedbufs))
}

pub(crate) fn set_registerfiles(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.registerfiles = flag(value)?;
    Ok(())
}

pub(crate) fn show_registerfiles(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.registerfiles))
}

pub(crate) fn set_cpus_allowed(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    match value {
        Value::Cpus(cpus) => {
            spec.cpus_allowed = Some(cpus);
            Ok(())
        }
        other => Err(mismatch(&other)),
    }
}

pub(crate) fn show_cpus_allowed(spec: &JobSpec) -> Option<String> {
    spec.cpus_allowed.as_deref().map(format_cpu_list)
}

pub(crate) fn set_zero_buffers(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    spec.zero_buffers = flag(value)?;
    Ok(())
}

pub(crate) fn show_zero_buffers(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.zero_buffers))
}

pub(crate) fn set_percentile_list(spec: &mut JobSpec, value: Value) -> Result<(), String> {
    let list = match value {
        Value::Floats(list) => list,
        other => return Err(mismatch(&other)),
    };
    if list.len() > MAX_PERCENTILES {
        return Err(format!(
            "at most {MAX_PERCENTILES} percentiles (fio's limit); {} given",
            list.len()
        ));
    }
    if let Some(bad) = list.iter().find(|p| !(0.0..=100.0).contains(*p)) {
        return Err(format!(
            "{bad} is not a percentile; use values from 0 to 100"
        ));
    }
    spec.percentile_list = list;
    Ok(())
}

pub(crate) fn show_percentile_list(spec: &JobSpec) -> Option<String> {
    let items: Vec<String> = spec.percentile_list.iter().map(f64::to_string).collect();
    Some(items.join(":"))
}

// ---- printing helpers ----------------------------------------------------------------------

pub(super) fn show_flag(flag: bool) -> String {
    if flag { "1" } else { "0" }.to_string()
}

/// `v` when both directions agree, else `r,w`; a missing side prints as `0`.
pub(super) fn show_pair(pair: PerDirection<Option<u64>>, format: impl Fn(u64) -> String) -> String {
    let side = |value: Option<u64>| value.map_or_else(|| "0".to_string(), &format);
    if pair.read == pair.write {
        side(pair.read)
    } else {
        format!("{},{}", side(pair.read), side(pair.write))
    }
}

/// A cap pair, or `None` when neither direction is capped.
pub(super) fn show_cap(
    cap: PerDirection<Option<u64>>,
    format: impl Fn(u64) -> String,
) -> Option<String> {
    if cap.read.is_none() && cap.write.is_none() {
        return None;
    }
    Some(show_pair(cap, format))
}
