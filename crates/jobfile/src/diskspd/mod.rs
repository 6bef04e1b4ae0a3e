//! DiskSpd command lines (`diskspd -b8K -d30 -o128 -t4 -r -w30 -Sh -L -c1G file`) as
//! diskmeter jobs.
//!
//! Switches follow DiskSpd's documentation (Microsoft, "DiskSpd command line parameters"):
//! a switch and its value are one argument (`-b8K`, `-o32`); sizes take K, M, G, T (powers of
//! 1024) or `b` (blocks of the `-b` size); times are seconds. Defaults are DiskSpd's: `-b64K`,
//! `-o2`, `-t1`, `-d10`, `-W5`, `-w0`, sequential, software caching on.
//!
//! | DiskSpd | diskmeter job |
//! |---|---|
//! | `-t<n>` threads per target | one job per target, `numjobs=n`, `iodepth=o` |
//! | `-F<n>` threads in all, each on every target | one job over all targets (`a:b`), `numjobs=n`, `iodepth=o x targets` |
//! | `-o<n>` IOs per thread per target | `iodepth` |
//! | `-r[align]` / `-s[stride]` / `-rs<pct>` | random (`blockalign`) / sequential (`rw=read:gap`) / `percentage_random` |
//! | `-si[stride]` | sequential, the threads of a target sharing one position |
//! | `-T<offset>` | thread `n` starts `n x offset` in (`offset_increment`) |
//! | `-C<s>` | the load runs `s` more seconds after `-d`, not measured |
//! | `-w<pct>` | `rw=randrw`/`rw` with `rwmixwrite`; `-w0` reads, `-w100` writes |
//! | `-S`, `-Su` / `-Sw` / `-Sh` = `-Suw` | `direct=1` (`O_DIRECT`) / `sync=dsync` (`O_DSYNC`) / both |
//! | `-d` / `-W` | `runtime` + `time_based` / `ramp_time` |
//! | `-c<size>` | the file is created at that size (`size`) |
//! | `-g<bytes/ms>` / `-g<n>i` | `rate` per thread (x1000 bytes/s) / `rate_iops` |
//! | `-B<offset>` / `-f<size>` | `offset` / region `size` |
//! | `-Z` / `-Zr` / `-Z<size>` | zero buffers / random buffers (diskmeter's default) |
//! | `-z[seed]` | `randseed` |
//! | `-L` / `-D` / `-R text|xml` | latency percentiles / per-second series / output form |
//!
//! Write-through (`-Sw`, part of `-Sh`) is DiskSpd's `FILE_FLAG_WRITE_THROUGH`: a write
//! completes only once it is on stable media. Its Linux counterpart is `O_DSYNC`, which makes
//! the kernel flush the drive's volatile cache (FUA or a cache flush) for every write.
//! Switches that only make sense on Windows (`-e` ETW, `-x` completion routines, `-ag`
//! processor groups, `-n` NUMA/affinity groups, `#N` disk numbers, `-X` XML profiles) are
//! refused with the reason.

mod error;

pub use error::{DiskSpdError, DiskSpdProblem};

use diskmeter_workload::{apply_option, JobSpec};

/// DiskSpd's output forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputForm {
    /// The text report.
    #[default]
    Text,
    /// The XML document (`-Rxml`).
    Xml,
}

/// How IO moves through a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `-s`: sequential.
    Sequential,
    /// `-r`: random, aligned to the block size.
    Random,
    /// `-rs<pct>`: this share random, the rest sequential.
    Mixed(u8),
}

/// A parsed DiskSpd command line: the jobs to run and what the report prints.
#[derive(Debug, Clone, PartialEq)]
pub struct DiskSpdProfile {
    /// The arguments as given (for the report's "Command Line").
    pub command_line: String,
    /// The targets (files or block devices).
    pub targets: Vec<String>,
    /// `-b` block size, bytes.
    pub block_size_bytes: u64,
    /// `-o` IOs in flight per thread per target.
    pub outstanding: u32,
    /// `-t` threads per target, or `-F` threads in all.
    pub threads: u32,
    /// True for `-F` (every thread on every target).
    pub fixed_threads: bool,
    /// `-d` seconds measured.
    pub duration_s: u64,
    /// `-W` warm-up seconds.
    pub warmup_s: u64,
    /// `-w` write percentage.
    pub write_percent: u8,
    /// `-r`/`-s`/`-rs`.
    pub access: Access,
    /// `-S`/`-Su`/`-Sh`: O_DIRECT.
    pub software_cache_disabled: bool,
    /// `-Sh`/`-Sw`: write-through (`O_DSYNC`).
    pub write_through: bool,
    /// `-c` size to create, bytes.
    pub create_size_bytes: Option<u64>,
    /// `-L`.
    pub latency: bool,
    /// `-R`.
    pub output: OutputForm,
    /// `-g` cap per thread: (value, true for IOPS / false for bytes per ms).
    pub throttle: Option<(u64, bool)>,
    /// `-z` seed.
    pub seed: Option<u64>,
    /// `-Z`: write zeros.
    pub zero_buffers: bool,
    /// `-C` cool-down seconds: the load keeps running, unmeasured, after `-d`.
    pub cooldown_s: u64,
    /// `-r<align>`: random offsets on multiples of this (default: the block size).
    pub random_align_bytes: Option<u64>,
    /// `-s<stride>`: each sequential IO starts this far after the previous one.
    pub sequential_stride_bytes: Option<u64>,
    /// `-si`: the threads of a target share one sequential position.
    pub interlocked: bool,
    /// `-T<offset>`: thread `n` of a target starts `n x offset` into it.
    pub thread_stride_bytes: u64,
    /// The jobs that run the profile.
    pub jobs: Vec<JobSpec>,
}

/// Parses DiskSpd's arguments (without the program name).
pub fn parse(args: &[String]) -> Result<DiskSpdProfile, DiskSpdError> {
    let mut p = DiskSpdProfile {
        command_line: args.join(" "),
        targets: Vec::new(),
        block_size_bytes: 64 << 10,
        outstanding: 2,
        threads: 1,
        fixed_threads: false,
        duration_s: 10,
        warmup_s: 5,
        write_percent: 0,
        access: Access::Sequential,
        software_cache_disabled: false,
        write_through: false,
        create_size_bytes: None,
        latency: false,
        output: OutputForm::Text,
        throttle: None,
        seed: None,
        zero_buffers: false,
        cooldown_s: 0,
        random_align_bytes: None,
        sequential_stride_bytes: None,
        interlocked: false,
        thread_stride_bytes: 0,
        jobs: Vec::new(),
    };
    // Sizes in `b` (blocks) need the final -b, so sized switches are read after the rest.
    let mut sized: Vec<(&str, char, &str)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let bad = |problem: DiskSpdProblem| DiskSpdError {
            switch: arg.to_string(),
            problem,
        };
        if arg.starts_with('#') {
            return Err(bad(DiskSpdProblem::DiskNumber));
        }
        // Only `-` starts a switch: DiskSpd's `/b8K` form would be a path here.
        if arg.trim().is_empty() {
            return Err(bad(DiskSpdProblem::EmptyTarget));
        }
        let Some(body) = arg.strip_prefix('-').filter(|b| !b.is_empty()) else {
            p.targets.push(arg.to_string());
            continue;
        };
        let (switch, value) = body.split_at(body.chars().next().map_or(0, char::len_utf8));
        match switch {
            "b" | "c" | "B" | "f" | "T" => {
                sized.push((arg, switch.chars().next().unwrap_or('b'), value))
            }
            "o" => p.outstanding = count(value, arg)?,
            "t" => {
                p.threads = count(value, arg)?;
                p.fixed_threads = false;
            }
            "F" => {
                p.threads = count(value, arg)?;
                p.fixed_threads = true;
            }
            "d" => p.duration_s = number(value, arg, 1)?,
            "W" => p.warmup_s = number(value, arg, 0)?,
            "C" => p.cooldown_s = number(value, arg, 0)?,
            "w" => {
                let pct = number(value, arg, 0)?;
                if pct > 100 {
                    return Err(bad(DiskSpdProblem::PercentAbove100 { what: "write" }));
                }
                p.write_percent = pct as u8;
            }
            "r" => {
                if let Some(pct) = value.strip_prefix('s') {
                    let pct = number(pct, arg, 0)?;
                    if pct > 100 {
                        return Err(bad(DiskSpdProblem::PercentAbove100 { what: "random" }));
                    }
                    p.access = Access::Mixed(pct as u8);
                } else {
                    if !value.is_empty() {
                        sized.push((arg, 'r', value));
                    }
                    p.access = Access::Random;
                }
            }
            "s" => {
                let value = match value.strip_prefix('i') {
                    Some(rest) => {
                        p.interlocked = true;
                        rest
                    }
                    None => value,
                };
                if !value.is_empty() {
                    sized.push((arg, 's', value));
                }
                p.access = Access::Sequential;
            }
            "S" | "h" => {
                let flags = if switch == "h" { "h" } else { value };
                for flag in if flags.is_empty() {
                    "u".chars()
                } else {
                    flags.chars()
                } {
                    match flag {
                        'u' => p.software_cache_disabled = true,
                        'w' => p.write_through = true,
                        'h' => {
                            p.software_cache_disabled = true;
                            p.write_through = true;
                        }
                        'b' => p.software_cache_disabled = false,
                        'r' => return Err(bad(DiskSpdProblem::RemoteCaching)),
                        'm' => return Err(bad(DiskSpdProblem::MemoryMapped)),
                        _ => return Err(bad(DiskSpdProblem::CachingMode)),
                    }
                }
            }
            "L" => p.latency = true,
            "D" => {
                if !value.is_empty() && number(value, arg, 1)? != 1000 {
                    return Err(bad(DiskSpdProblem::SampleInterval));
                }
            }
            "R" => {
                let form = value.strip_prefix('p').unwrap_or(value);
                let form = if form.is_empty() {
                    let next = args.get(i).map(String::as_str).unwrap_or("");
                    i += 1;
                    next
                } else {
                    form
                };
                p.output = match form.to_ascii_lowercase().as_str() {
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
                p.throttle = Some((number(digits, arg, 1)?, iops));
            }
            "Z" => match value {
                "" => p.zero_buffers = true,
                // Per-IO random content and a random source buffer are what diskmeter
                // writes anyway (every write is scrambled).
                "r" => p.zero_buffers = false,
                size => sized.push((arg, 'Z', size)),
            },
            "z" => {
                p.seed = Some(if value.is_empty() {
                    0
                } else {
                    number(value, arg, 0)?
                })
            }
            "l" | "P" | "v" => {}
            "a" => return Err(bad(DiskSpdProblem::Affinity)),
            "n" => return Err(bad(DiskSpdProblem::Numa)),
            "e" => return Err(bad(DiskSpdProblem::Etw)),
            "x" => return Err(bad(DiskSpdProblem::CompletionRoutines)),
            "X" => return Err(bad(DiskSpdProblem::XmlProfile)),
            "p" | "i" | "j" | "I" | "N" | "y" | "O" => {
                return Err(bad(DiskSpdProblem::NotSupported))
            }
            _ => return Err(bad(DiskSpdProblem::UnknownSwitch)),
        }
    }
    // Block size first, so `b` sizes of the others use it.
    if let Some(&(arg, _, value)) = sized.iter().rev().find(|(_, s, _)| *s == 'b') {
        p.block_size_bytes = size(value, arg, None)?;
        if p.block_size_bytes == 0 {
            return Err(DiskSpdError {
                switch: arg.to_string(),
                problem: DiskSpdProblem::ZeroBlockSize,
            });
        }
    }
    let mut base_offset = None;
    let mut max_size = None;
    for &(arg, switch, value) in &sized {
        let bytes = size(value, arg, Some(p.block_size_bytes))?;
        let refuse = |problem: DiskSpdProblem| DiskSpdError {
            switch: arg.to_string(),
            problem,
        };
        match switch {
            'c' => p.create_size_bytes = Some(bytes),
            'B' => base_offset = Some(bytes),
            'f' => max_size = Some(bytes),
            'r' if bytes == 0 => return Err(refuse(DiskSpdProblem::ZeroAlignment)),
            'r' => p.random_align_bytes = Some(bytes),
            's' if bytes < p.block_size_bytes => {
                return Err(refuse(DiskSpdProblem::OverlappingStride))
            }
            's' => p.sequential_stride_bytes = Some(bytes),
            'T' => p.thread_stride_bytes = bytes,
            _ => {}
        }
    }
    if p.targets.is_empty() {
        return Err(DiskSpdError {
            switch: "TARGET".to_string(),
            problem: DiskSpdProblem::NoTarget,
        });
    }
    p.jobs = jobs_of(&p, base_offset, max_size).map_err(|(option, problem)| DiskSpdError {
        switch: switch_of(option, args),
        problem,
    })?;
    Ok(p)
}

/// The switches each job option comes from, for errors: the user wrote switches, not options.
const SWITCHES_OF_OPTIONS: &[(&str, &[&str])] = &[
    ("bs", &["b"]),
    ("iodepth", &["o"]),
    ("numjobs", &["t", "F"]),
    ("runtime", &["d"]),
    ("ramp_time", &["W"]),
    ("rwmixwrite", &["w"]),
    ("percentage_random", &["rs"]),
    ("size", &["f", "c"]),
    ("offset", &["B"]),
    ("rate", &["g"]),
    ("rate_iops", &["g"]),
    ("randseed", &["z"]),
    ("blockalign", &["r"]),
    ("rw", &["s", "r", "w"]),
    ("offset_increment", &["T"]),
    ("direct", &["S", "h"]),
    ("sync", &["S", "h"]),
];

/// The argument that set job option `option`: the last switch of those it comes from, or
/// `TARGET` (a target, or no switch: DiskSpd's default).
fn switch_of(option: &str, args: &[String]) -> String {
    let switches = SWITCHES_OF_OPTIONS
        .iter()
        .find(|(name, _)| *name == option)
        .map_or(&[][..], |(_, switches)| *switches);
    args.iter()
        .rev()
        .find(|arg| {
            let body = arg.strip_prefix('-').unwrap_or("");
            switches.iter().any(|s| body.starts_with(s))
                && !(option == "blockalign" && body.starts_with("rs"))
        })
        .cloned()
        .unwrap_or_else(|| "TARGET".to_string())
}

/// The jobs of a parsed profile; an error names the job option at fault.
fn jobs_of(
    p: &DiskSpdProfile,
    base_offset: Option<u64>,
    max_size: Option<u64>,
) -> Result<Vec<JobSpec>, (&'static str, DiskSpdProblem)> {
    let groups: Vec<Vec<String>> = if p.fixed_threads {
        vec![p.targets.clone()]
    } else {
        p.targets.iter().map(|t| vec![t.clone()]).collect()
    };
    let random = !matches!(p.access, Access::Sequential);
    let rw = match (random, p.write_percent) {
        (false, 0) => "read",
        (false, 100) => "write",
        (false, _) => "rw",
        (true, 0) => "randread",
        (true, 100) => "randwrite",
        (true, _) => "randrw",
    };
    let mut jobs = Vec::new();
    for (index, targets) in groups.iter().enumerate() {
        let mut job = JobSpec::default();
        let depth = u64::from(p.outstanding) * targets.len() as u64;
        let mut options: Vec<(&str, String)> = vec![
            ("name", format!("diskspd-{index}")),
            (
                "filename",
                targets
                    .iter()
                    .map(|t| t.replace(':', "\\:"))
                    .collect::<Vec<_>>()
                    .join(":"),
            ),
            ("rw", rw.to_string()),
            ("bs", p.block_size_bytes.to_string()),
            ("iodepth", depth.to_string()),
            ("numjobs", p.threads.to_string()),
            ("runtime", format!("{}s", p.duration_s)),
            ("ramp_time", format!("{}s", p.warmup_s)),
            ("direct", u8::from(p.software_cache_disabled).to_string()),
            (
                "sync",
                if p.write_through { "dsync" } else { "none" }.to_string(),
            ),
            ("ioengine", "io_uring".to_string()),
        ];
        if !matches!(p.write_percent, 0 | 100) {
            options.push(("rwmixwrite", p.write_percent.to_string()));
        }
        if let Access::Mixed(pct) = p.access {
            options.push(("percentage_random", pct.to_string()));
        }
        if let Some(size) = max_size.or(p.create_size_bytes) {
            options.push(("size", size.to_string()));
        }
        if let Some(offset) = base_offset {
            options.push(("offset", offset.to_string()));
        }
        if let Some((n, iops)) = p.throttle {
            // Per thread per target: -o... IOs of every target count, so the cap scales by
            // targets for -F; -g without `i` is bytes per millisecond.
            let (option, scale) = if iops {
                ("rate_iops", targets.len() as u64)
            } else {
                ("rate", 1000 * targets.len() as u64)
            };
            let rate = n.checked_mul(scale).ok_or_else(|| {
                (
                    option,
                    DiskSpdProblem::TooLarge {
                        text: n.to_string(),
                        max: u64::MAX / scale,
                    },
                )
            })?;
            options.push((option, rate.to_string()));
        }
        if p.zero_buffers {
            options.push(("zero_buffers", "1".to_string()));
        }
        if let Some(seed) = p.seed {
            options.push(("randseed", seed.to_string()));
        }
        if let Some(align) = p.random_align_bytes.filter(|_| random) {
            options.push(("blockalign", align.to_string()));
        }
        if let Some(stride) = p.sequential_stride_bytes {
            // fio's rw=read:N adds N bytes after each sequential IO: the stride's gap.
            let gap = stride - p.block_size_bytes;
            if let Some(entry) = options.iter_mut().find(|(name, _)| *name == "rw") {
                if gap > 0 {
                    entry.1 = format!("{rw}:{gap}");
                }
            }
        }
        if p.thread_stride_bytes > 0 {
            options.push(("offset_increment", p.thread_stride_bytes.to_string()));
        }
        options.push(("time_based", "1".to_string()));
        for (name, value) in options {
            apply_option(&mut job, name, Some(&value)).map_err(|e| (name, e.into()))?;
        }
        job.cooldown_ns = p.cooldown_s.saturating_mul(1_000_000_000);
        job.shared_sequential = p.interlocked;
        jobs.push(job);
    }
    Ok(jobs)
}

/// A whole number for `arg`, at least `min`.
fn number(text: &str, arg: &str, min: u64) -> Result<u64, DiskSpdError> {
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
fn count(text: &str, arg: &str) -> Result<u32, DiskSpdError> {
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

#[cfg(test)]
mod tests;
