//! DiskSpd's command-line switches (DiskSpd 2.x and its Linux port) read into one time span
//! whose targets share the switches. Each switch is honoured, accepted with a note (it
//! changes nothing measured here), or refused naming the switch and the reason.

use super::error::{DiskSpdError, DiskSpdProblem};
use super::model::{
    Access, Distribution, OutputForm, TargetParams, Throughput, TimeSpan, WriteBuffers,
};
use super::Env;

/// Dashes documents put where a `-` was typed: en dash, em dash, hyphen, minus sign.
const TYPOGRAPHIC_DASHES: [char; 4] = ['\u{2013}', '\u{2014}', '\u{2010}', '\u{2212}'];

/// What the command line gave besides the time span: the profile-level settings, and an
/// `-X` file if any (then the span is only overrides).
pub(crate) struct CommandLine {
    /// The time span the switches describe.
    pub span: TimeSpan,
    /// The target parameters the switches set (shared by every target).
    pub template: TargetParams,
    /// The targets, as given.
    pub paths: Vec<String>,
    /// `-R`.
    pub output: OutputForm,
    /// `-Rp`.
    pub profile_only: bool,
    /// Notes for the user.
    pub notes: Vec<String>,
    /// `-X`: (the argument that named it, the file).
    pub xml: Option<(String, String)>,
    /// The workload switches given (refused alongside `-X`), as given.
    pub workload_switches: Vec<String>,
    /// Switches given that `-X` takes as overrides (`-d`, `-W`, `-C`, `-z`): letter and value.
    pub overrides: Vec<char>,
}

/// Reads the arguments (without the program name).
pub(crate) fn read(args: &[String], env: &Env) -> Result<CommandLine, DiskSpdError> {
    let mut c = CommandLine {
        span: TimeSpan::default(),
        template: TargetParams::new(""),
        paths: Vec::new(),
        output: OutputForm::Text,
        profile_only: false,
        notes: Vec::new(),
        xml: None,
        workload_switches: Vec::new(),
        overrides: Vec::new(),
    };
    let t = &mut c.template;
    // Sizes in `b` (blocks) need the final -b, so sized switches are read after the rest.
    let mut sized: Vec<(&str, char, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let bad = |problem: DiskSpdProblem| DiskSpdError {
            switch: arg.to_string(),
            problem,
        };
        if arg.trim().is_empty() {
            return Err(bad(DiskSpdProblem::EmptyTarget));
        }
        if arg.starts_with('#') {
            return Err(bad(DiskSpdProblem::DiskNumber));
        }
        let body = match arg.strip_prefix(TYPOGRAPHIC_DASHES) {
            Some(body) if !body.is_empty() => {
                c.notes.push(format!(
                    "{arg}: a typographic dash, read as -{body} (documents turn '-' into dashes)"
                ));
                body
            }
            // Only `-` starts a switch: DiskSpd's `/b8K` form would be a path here.
            _ => match arg.strip_prefix('-').filter(|b| !b.is_empty()) {
                Some(body) => body,
                None => {
                    if is_windows_drive(arg) && !(env.path_exists)(arg) {
                        return Err(bad(DiskSpdProblem::WindowsDrive));
                    }
                    c.paths.push(arg.to_string());
                    continue;
                }
            },
        };
        let (switch, value) = body.split_at(body.chars().next().map_or(0, char::len_utf8));
        if "bcBfTotFwrsShgZlIijOapN".contains(switch) && !switch.is_empty() {
            c.workload_switches.push(arg.to_string());
        }
        let mut note = |text: &str| c.notes.push(format!("{arg}: {text}"));
        match switch {
            "f" if !value.is_empty() && value.chars().all(|ch| "rstp".contains(ch)) => {
                for hint in value.chars() {
                    match hint {
                        'r' => t.random_access_hint = true,
                        's' => t.sequential_scan_hint = true,
                        't' => {
                            t.temporary_file_hint = true;
                            note("the temporary-file hint has no Linux counterpart; accepted");
                        }
                        _ => note("a Windows file-open hint with no Linux counterpart; accepted"),
                    }
                }
            }
            "b" | "c" | "f" | "T" => {
                sized.push((arg, switch.chars().next().unwrap_or('b'), value.to_string()))
            }
            "B" => match value.split_once(':') {
                Some((base, length)) => {
                    sized.push((arg, 'B', base.to_string()));
                    sized.push((arg, 'L', length.to_string()));
                }
                None => sized.push((arg, 'B', value.to_string())),
            },
            "o" => t.outstanding = count(value, arg)?,
            "O" => c.span.requests_per_thread = Some(count(value, arg)?),
            "t" => {
                t.threads_per_file = count(value, arg)?;
                c.span.thread_count = 0;
            }
            "F" => c.span.thread_count = count(value, arg)?,
            "d" => {
                c.span.duration_s = number(value, arg, 1)?;
                c.overrides.push('d');
            }
            "W" => {
                c.span.warmup_s = number(value, arg, 0)?;
                c.overrides.push('W');
            }
            "C" => {
                c.span.cooldown_s = number(value, arg, 0)?;
                c.overrides.push('C');
            }
            // DiskSpd: "-w and -w0 are equivalent".
            "w" if value.is_empty() => t.write_percent = 0,
            "w" => t.write_percent = percent(value, arg, "write")?,
            "r" => {
                if let Some(pct) = value.strip_prefix('s') {
                    t.access = Access::Mixed(percent(pct, arg, "random")?);
                } else if let Some(dist) = value.strip_prefix('d') {
                    t.distribution = Some(distribution(dist, arg)?);
                } else {
                    if !value.is_empty() {
                        sized.push((arg, 'r', value.to_string()));
                    }
                    t.access = Access::Random;
                }
            }
            "s" => {
                let value = match value.strip_prefix('i') {
                    Some(rest) => {
                        t.interlocked = true;
                        rest
                    }
                    None => value,
                };
                if !value.is_empty() {
                    sized.push((arg, 's', value.to_string()));
                }
                t.access = Access::Sequential;
            }
            "S" | "h" => {
                let flags = if switch == "h" { "h" } else { value };
                for flag in if flags.is_empty() {
                    "u".chars()
                } else {
                    flags.chars()
                } {
                    match flag {
                        // `d` is DiskSpd for Linux's O_DIRECT.
                        'u' | 'd' => t.software_cache_disabled = true,
                        'w' => t.write_through = true,
                        'h' => {
                            t.software_cache_disabled = true;
                            t.write_through = true;
                        }
                        // DiskSpd for Linux's O_SYNC.
                        's' => t.sync_writes = true,
                        'b' => t.software_cache_disabled = false,
                        'r' => note(
                            "remote (SMB) caching is Windows'; local files here use the page \
                             cache as with -Sb",
                        ),
                        'm' => return Err(bad(DiskSpdProblem::MemoryMapped)),
                        _ => return Err(bad(DiskSpdProblem::CachingMode)),
                    }
                }
            }
            "L" => {
                c.span.measure_latency = true;
                c.overrides.push('L');
            }
            "D" => {
                let ms = if value.is_empty() {
                    1000
                } else {
                    number(value, arg, 1)?
                };
                c.span.iops_interval_ms = Some(ms);
                c.overrides.push('D');
            }
            "R" => {
                let form = match value.strip_prefix('p') {
                    Some(rest) => {
                        c.profile_only = true;
                        rest
                    }
                    None => value,
                };
                let form = if form.is_empty() {
                    let next = args.get(i).map(String::as_str).unwrap_or("");
                    i += 1;
                    next
                } else {
                    form
                };
                c.overrides.push('R');
                c.output = match form.to_ascii_lowercase().as_str() {
                    "text" => OutputForm::Text,
                    "xml" => OutputForm::Xml,
                    _ => return Err(bad(DiskSpdProblem::OutputForm)),
                };
            }
            "g" => {
                let (digits, iops) = match value.strip_suffix('i') {
                    Some(d) => (d, true),
                    None => (value, false),
                };
                let n = number(digits, arg, 1)?;
                t.throughput = Some(if iops {
                    Throughput::Iops(n)
                } else {
                    Throughput::BytesPerMs(n)
                });
            }
            "Z" => match value {
                // `z` is DiskSpd for Linux's spelling of -Z.
                "" | "z" => t.write_buffers = WriteBuffers::Zero,
                // Per-IO random content is what diskmeter writes anyway; `s` (Linux port):
                // a buffer per thread, which diskmeter's workers have anyway.
                "r" | "rs" => t.write_buffers = WriteBuffers::PerIoRandom,
                "s" => t.write_buffers = WriteBuffers::Default,
                size if size.contains(',') => return Err(bad(DiskSpdProblem::BufferFromFile)),
                size => sized.push((arg, 'Z', size.to_string())),
            },
            "z" => {
                c.span.random_seed = Some(if value.is_empty() {
                    note("a seed from the clock");
                    env.clock_seed
                } else {
                    number(value, arg, 0)?
                });
                c.overrides.push('z');
            }
            "i" => t.burst_size = Some(count(value, arg)?),
            "j" => t.think_time_ms = Some(count(value, arg)?),
            "I" => {
                t.io_priority = match value {
                    "1" | "2" | "3" => value.parse().unwrap_or(3),
                    _ => return Err(bad(DiskSpdProblem::Priority)),
                }
            }
            "l" => {
                t.large_pages = true;
                note(
                    "buffers are not on explicit large pages; diskmeter's buffers use \
                     transparent huge pages where the kernel gives them",
                );
            }
            "P" => {
                if !value.is_empty() {
                    number(value, arg, 1)?;
                }
                note("no progress dots; diskmeter shows its own progress unless --quiet");
            }
            "v" => note("verbose output is DiskSpd's; diskmeter's report is the same"),
            "n" => c.span.affinity_disabled = true,
            "a" => affinity(value, arg, &mut c.span, &mut c.notes)?,
            "e" => note("ETW tracing is Windows-only; nothing it changes is measured here"),
            "x" => note("completions are io_uring's here, whatever the Windows completion model"),
            ":" => note("DiskSpd's experimental flags change nothing here"),
            "X" => {
                let file = if value.is_empty() {
                    let next = args.get(i).cloned().unwrap_or_default();
                    i += 1;
                    next
                } else {
                    value.to_string()
                };
                if file.is_empty() {
                    return Err(bad(DiskSpdProblem::NoProfile));
                }
                c.xml = Some((arg.to_string(), file));
            }
            "p" => return Err(bad(DiskSpdProblem::ParallelSameOffset)),
            "N" => return Err(bad(DiskSpdProblem::MemoryMapped)),
            // -ye only sets an event for other DiskSpd processes: there is nothing to run.
            "y" if value.starts_with('e') => return Err(bad(DiskSpdProblem::Events)),
            "y" if value.len() > 1 && value.starts_with(['s', 'r', 'f', 'p']) => note(
                "Windows named events: none is signalled or waited for here (the run starts \
                 at once and runs its -d; --start-at starts runs together)",
            ),
            "y" => return Err(bad(DiskSpdProblem::UnknownSwitch)),
            "?" => return Err(bad(DiskSpdProblem::Help)),
            _ => return Err(bad(DiskSpdProblem::UnknownSwitch)),
        }
    }
    sizes(&mut c.template, &sized)?;
    if c.span.affinity_disabled && !c.span.affinity_cpus.is_empty() {
        return Err(DiskSpdError {
            switch: "-n".to_string(),
            problem: DiskSpdProblem::AffinityConflict,
        });
    }
    if c.span.affinity_disabled {
        c.notes.push(
            "-n: threads are not pinned to CPUs here unless -a says so; nothing to switch off"
                .to_string(),
        );
    }
    Ok(c)
}

/// Reads the sized switches once the block size is known.
fn sizes(t: &mut TargetParams, sized: &[(&str, char, String)]) -> Result<(), DiskSpdError> {
    // Block size first, so `b` sizes of the others use it.
    if let Some((arg, _, value)) = sized.iter().rev().find(|(_, s, _)| *s == 'b') {
        t.block_size_bytes = size(value, arg, None)?;
        if t.block_size_bytes == 0 {
            return Err(DiskSpdError {
                switch: arg.to_string(),
                problem: DiskSpdProblem::ZeroBlockSize,
            });
        }
    }
    for (arg, switch, value) in sized {
        let bytes = size(value, arg, Some(t.block_size_bytes))?;
        let refuse = |problem: DiskSpdProblem| DiskSpdError {
            switch: arg.to_string(),
            problem,
        };
        match switch {
            'c' => t.create_size_bytes = Some(bytes),
            'B' => t.base_offset_bytes = bytes,
            'L' => t.max_size_bytes = Some(t.base_offset_bytes.saturating_add(bytes)),
            'f' => t.max_size_bytes = Some(bytes),
            'r' if bytes == 0 => return Err(refuse(DiskSpdProblem::ZeroAlignment)),
            'r' => t.random_align_bytes = Some(bytes),
            's' if bytes == 0 => return Err(refuse(DiskSpdProblem::ZeroAlignment)),
            's' => t.sequential_stride_bytes = Some(bytes),
            'T' => t.thread_stride_bytes = bytes,
            'Z' => t.write_buffers = WriteBuffers::RandomSource { size_bytes: bytes },
            _ => {}
        }
    }
    // DiskSpd's defaults stated: kept as defaults, so a profile written back reads the same.
    if t.random_align_bytes == Some(t.block_size_bytes) {
        t.random_align_bytes = None;
    }
    if t.sequential_stride_bytes == Some(t.block_size_bytes) {
        t.sequential_stride_bytes = None;
    }
    Ok(())
}

/// `-a`: `-ag` (DiskSpd's default spread), `-a0,1,2`, `-ag0,0,1,2` (group 0's CPUs).
fn affinity(
    value: &str,
    arg: &str,
    span: &mut TimeSpan,
    notes: &mut Vec<String>,
) -> Result<(), DiskSpdError> {
    let bad = |problem: DiskSpdProblem| DiskSpdError {
        switch: arg.to_string(),
        problem,
    };
    if value == "g" {
        notes.push(format!(
            "{arg}: threads are spread over the CPUs by the kernel here (no processor groups)"
        ));
        return Ok(());
    }
    let mut group = 0u64;
    for item in value.split(',').filter(|s| !s.is_empty()) {
        if let Some(g) = item.strip_prefix('g') {
            group = number(g, arg, 0)?;
            continue;
        }
        if group > 0 {
            return Err(bad(DiskSpdProblem::ProcessorGroup));
        }
        let cpu = number(item, arg, 0)?;
        span.affinity_cpus.push(u32::try_from(cpu).map_err(|_| {
            bad(DiskSpdProblem::TooLarge {
                text: item.to_string(),
                max: u64::from(u32::MAX),
            })
        })?);
    }
    if span.affinity_cpus.is_empty() && value != "g" {
        return Err(bad(DiskSpdProblem::NotANumber {
            text: value.to_string(),
            min: 0,
        }));
    }
    Ok(())
}

/// `pct90/10:0/10` or `abs90/10G:0/10G`, completed as DiskSpd completes it: IO left over goes
/// to the rest of the target.
fn distribution(text: &str, arg: &str) -> Result<Distribution, DiskSpdError> {
    let bad = |why: String| DiskSpdError {
        switch: arg.to_string(),
        problem: DiskSpdProblem::Distribution { why },
    };
    let (absolute, list) = match (text.strip_prefix("pct"), text.strip_prefix("abs")) {
        (Some(list), _) => (false, list),
        (_, Some(list)) => (true, list),
        _ => return Err(bad("the distributions are pct and abs".to_string())),
    };
    let mut ranges = Vec::new();
    for entry in list.split(':') {
        let (io, span) = entry
            .split_once('/')
            .ok_or_else(|| bad(format!("'{entry}' is not IO%/span")))?;
        let io = io
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(|| bad(format!("'{io}' is not an IO percentage")))?;
        let span = if absolute {
            size(span, arg, None)?
        } else {
            span.parse::<u64>()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .ok_or_else(|| bad(format!("'{span}' is not a target percentage 1-100")))?
        };
        if span == 0 {
            return Err(bad("a range of zero bytes".to_string()));
        }
        ranges.push((io, span));
    }
    complete(Distribution { absolute, ranges }).map_err(bad)
}

/// Adds DiskSpd's implicit last range and checks the sums (IO at most 100 %; percent spans
/// exactly 100 % once completed); the error says why.
pub(crate) fn complete(mut d: Distribution) -> Result<Distribution, String> {
    let io: u32 = d.ranges.iter().map(|r| u32::from(r.0)).sum();
    if io > 100 {
        return Err(format!("the IO percentages add up to {io}, more than 100"));
    }
    let span: u64 = d.ranges.iter().map(|r| r.1).sum();
    if io < 100 {
        if !d.absolute && span >= 100 {
            return Err(format!("the target is covered with {}% IO left", 100 - io));
        }
        let rest = if d.absolute { 0 } else { 100 - span };
        d.ranges.push(((100 - io) as u8, rest));
    } else if !d.absolute && span != 100 {
        return Err(format!("the target percentages add up to {span}, not 100"));
    }
    Ok(d)
}

/// `X:` or `X:\path` / `X:/path`: a Windows drive.
fn is_windows_drive(arg: &str) -> bool {
    let bytes = arg.as_bytes();
    bytes.len() >= 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes.len() == 2 || matches!(bytes[2], b'\\' | b'/'))
}

/// A percentage 0-100 for `arg`.
fn percent(text: &str, arg: &str, what: &'static str) -> Result<u8, DiskSpdError> {
    let pct = number(text, arg, 0)?;
    if pct > 100 {
        return Err(DiskSpdError {
            switch: arg.to_string(),
            problem: DiskSpdProblem::PercentAbove100 { what },
        });
    }
    Ok(pct as u8)
}

/// A whole number for `arg`, at least `min`.
pub(crate) fn number(text: &str, arg: &str, min: u64) -> Result<u64, DiskSpdError> {
    match text.parse::<u64>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(DiskSpdError {
            switch: arg.to_string(),
            problem: DiskSpdProblem::NotANumber {
                text: text.to_string(),
                min,
            },
        }),
    }
}

/// A count of threads or IOs for `arg`: at least 1, and held in 32 bits.
pub(crate) fn count(text: &str, arg: &str) -> Result<u32, DiskSpdError> {
    let n = number(text, arg, 1)?;
    u32::try_from(n).map_err(|_| DiskSpdError {
        switch: arg.to_string(),
        problem: DiskSpdProblem::TooLarge {
            text: text.to_string(),
            max: u64::from(u32::MAX),
        },
    })
}

/// DiskSpd's size: `4096`, `8K`, `1G`, `2T`, or `16b` (blocks of `block`).
fn size(text: &str, arg: &str, block: Option<u64>) -> Result<u64, DiskSpdError> {
    let bad = || DiskSpdError {
        switch: arg.to_string(),
        problem: DiskSpdProblem::NotASize {
            text: text.to_string(),
        },
    };
    let t = text.trim();
    let (digits, scale) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        Some('T' | 't') => (&t[..t.len() - 1], 1 << 40),
        Some('b') => (&t[..t.len() - 1], block.ok_or_else(bad)?),
        _ => (t, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(bad)
}
