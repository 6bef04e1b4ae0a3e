//! DiskSpd command lines (`diskspd -b8K -d30 -o128 -t4 -r -w30 -Sh -L -c1G file`) and XML
//! profiles (`diskspd -Xprofile.xml`) as diskmeter jobs.
//!
//! The model is DiskSpd's own (`model`): a profile of time spans, each with its settings and
//! targets, each target with its parameters. The command line (`switches`) fills one time
//! span whose targets share the switches; an XML profile (`xml`) may fill many. A time span
//! is one step of the run; its jobs come from its targets (`jobs`); `profile_xml` writes a
//! profile back in DiskSpd's schema (the `-Rxml` report's `<Profile>`, and `-Rp`).
//!
//! Switches follow DiskSpd's documentation (`diskspd /?` of DiskSpd 2.x, and the switches of
//! DiskSpd for Linux): a switch and its value are one argument (`-b8K`, `-o32`); sizes take
//! K, M, G, T (powers of 1024) or `b` (blocks of the `-b` size); times are seconds. Defaults
//! are DiskSpd's: `-b64K`, `-o2`, `-t1`, `-d10`, `-W5`, `-w0`, sequential, caching on.
//!
//! | DiskSpd | diskmeter job |
//! |---|---|
//! | `-t<n>` threads per target | one job per target, `numjobs=n`, `iodepth=o` |
//! | `-F<n>` threads in all, each on every target | one job over all targets (`a:b`), `numjobs=n`, `iodepth=o x targets` (`-O<n>`: `iodepth=n`) |
//! | `-o<n>` IOs per thread per target | `iodepth` |
//! | `-r[align]` / `-s[stride]` / `-rs<pct>` | random (`blockalign`) / sequential (`rw=read:gap`) / `percentage_random` |
//! | `-rdpct<io/pct:...>` / `-rdabs<io/size:...>` | `random_distribution=zoned:` / `zoned_abs:` with DiskSpd's implicit last range; `-rdabs` ranges past the end re-weighted (`ZonesPastEnd::Reweighted`) |
//! | `-si[stride]` | sequential, the threads of a target sharing one position |
//! | `-T<offset>` | thread `n` starts `n x offset` in (`offset_increment`) |
//! | `-C<s>` | the load runs `s` more seconds after `-d`, not measured |
//! | `-w<pct>` | `rw=randrw`/`rw` with `rwmixwrite`; `-w0` reads, `-w100` writes |
//! | `-S`, `-Su`, `-Sd` / `-Sw` / `-Sh` = `-Suw` / `-Ss` | `direct=1` / `sync=dsync` / both / `sync=sync` |
//! | `-d` / `-W` | `runtime` + `time_based` / `ramp_time` |
//! | `-c<size>` | the file is created at that size (`size`) |
//! | `-g<bytes/ms>` / `-g<n>i` | `rate` per thread (x1000 bytes/s) / `rate_iops` |
//! | `-B<offset>[:length]` / `-f<size>` | `offset` / region end at most (`size` = end - offset, `size_capped_by_target`: a target that ends sooner is used to its end) |
//! | `-i<n>` + `-j<ms>` | `thinktime=<ms>ms`, `thinktime_blocks=n` |
//! | `-I1` / `-I2` | `prioclass=3` (idle) / `prioclass=2` + `prio=7` |
//! | `-a#,#` | `cpus_allowed`, `cpus_allowed_policy=split` (round-robin) |
//! | `-fr` / `-fs` | `fadvise_hint=random` / `sequential` |
//! | `-Z` / `-Zr` / `-Z<size>` | zero buffers / random buffers (diskmeter's default) |
//! | `-z[seed]` | `randseed` |
//! | `-L` / `-D<ms>` / `-R text|xml` | latency percentiles / the series sampled every `ms` (`series_interval_ms`) / output form |
//!
//! Write-through (`-Sw`, part of `-Sh`) is DiskSpd's `FILE_FLAG_WRITE_THROUGH`: a write
//! completes only once it is on stable media. Its Linux counterpart is `O_DSYNC`, which makes
//! the kernel flush the drive's volatile cache (FUA or a cache flush) for every write.
//! Switches that change nothing measured here (`-n`, `-e`, `-Sr`, `-v`, `-P`, `-l`, `-x`,
//! `-ag`) are accepted with a note; those that would change the workload and cannot be
//! honoured (`-Sm`, `-N`, `-p`, `-y`, `-Z<size>,<file>`, `#N` disk numbers) are refused
//! with the reason. The guide's DiskSpd section lists every switch and profile element.

mod error;
mod jobs;
mod model;
mod profile_xml;
mod switches;
mod xml;

pub use error::{DiskSpdError, DiskSpdProblem};
pub use model::{
    Access, DiskSpdProfile, Distribution, OutputForm, TargetParams, Throughput, TimeSpan,
    WriteBuffers,
};
pub use profile_xml::profile_xml;

/// What parsing may ask of the system, given by the caller so the parser stays pure: whether
/// a Windows-looking path exists here, the text of an `-X` profile, and the seed plain `-z`
/// takes ("from the clock").
#[derive(Clone, Copy)]
pub struct Env {
    /// Whether a path exists (a target `D:\\data` is refused unless it does).
    pub path_exists: fn(&str) -> bool,
    /// Reads a profile's text; the error says why it could not.
    pub read_file: fn(&str) -> Result<String, String>,
    /// The seed for plain `-z`.
    pub clock_seed: u64,
}

impl Env {
    /// No file exists or can be read; plain `-z` seeds with 0.
    pub fn pure() -> Env {
        Env {
            path_exists: |_| false,
            read_file: |_| Err("profiles are not read here".to_string()),
            clock_seed: 0,
        }
    }
}

/// Parses DiskSpd's arguments (without the program name), reading nothing from the system.
pub fn parse(args: &[String]) -> Result<DiskSpdProfile, DiskSpdError> {
    parse_with(args, &Env::pure())
}

/// Parses DiskSpd's arguments, asking `env` for what the system knows (`-X` files).
pub fn parse_with(args: &[String], env: &Env) -> Result<DiskSpdProfile, DiskSpdError> {
    let line = switches::read(args, env)?;
    let mut notes = line.notes;
    let mut output = line.output;
    let xml_arg = line.xml.as_ref().map(|(arg, _)| arg.clone());
    let mut time_spans = match &line.xml {
        Some((arg, file)) => {
            if let Some(switch) = line.workload_switches.first() {
                return Err(DiskSpdError {
                    switch: switch.clone(),
                    problem: DiskSpdProblem::XmlWithSwitches,
                });
            }
            let text = (env.read_file)(file).map_err(|why| DiskSpdError {
                switch: arg.clone(),
                problem: DiskSpdProblem::CannotRead {
                    file: file.clone(),
                    why,
                },
            })?;
            let overridden: Vec<&'static str> = line
                .overrides
                .iter()
                .filter_map(|o| match o {
                    'd' => Some("Duration"),
                    'W' => Some("Warmup"),
                    'C' => Some("Cooldown"),
                    'z' => Some("RandSeed"),
                    _ => None,
                })
                .collect();
            let profile = xml::read(&text, arg, &line.paths, &overridden)?;
            notes.extend(profile.notes);
            if !line.overrides.contains(&'R') {
                output = profile.output.unwrap_or(output);
            }
            let mut spans = profile.time_spans;
            for span in &mut spans {
                for &o in &line.overrides {
                    match o {
                        'd' => span.duration_s = line.span.duration_s,
                        'W' => span.warmup_s = line.span.warmup_s,
                        'C' => span.cooldown_s = line.span.cooldown_s,
                        'z' => span.random_seed = line.span.random_seed,
                        'L' => span.measure_latency = true,
                        'D' => span.iops_interval_ms = line.span.iops_interval_ms,
                        _ => {}
                    }
                }
            }
            spans
        }
        None => {
            if line.paths.is_empty() {
                return Err(DiskSpdError {
                    switch: "TARGET".to_string(),
                    problem: DiskSpdProblem::NoTarget,
                });
            }
            let mut span = line.span;
            span.targets = line
                .paths
                .iter()
                .map(|path| TargetParams {
                    path: path.clone(),
                    ..line.template.clone()
                })
                .collect();
            vec![span]
        }
    };
    let mut first = 0;
    for span in &mut time_spans {
        let named = |option: &str| match &xml_arg {
            Some(arg) => arg.clone(),
            None => switch_of(option, args),
        };
        for t in &span.targets {
            if t.burst_size.is_some() != t.think_time_ms.is_some() {
                return Err(DiskSpdError {
                    switch: named("thinktime"),
                    problem: DiskSpdProblem::BurstWithoutThink,
                });
            }
            if t.distribution.is_some() && t.access == Access::Sequential {
                return Err(DiskSpdError {
                    switch: named("random_distribution"),
                    problem: DiskSpdProblem::DistributionSequential,
                });
            }
        }
        let differ = span
            .targets
            .windows(2)
            .any(|pair| !pair[0].same_workload(&pair[1]));
        if span.thread_count > 0 && differ {
            notes.push(format!(
                "ThreadCount {}: the targets' parameters differ, so each target gets {0} \
                 threads of its own (DiskSpd's threads each run every target)",
                span.thread_count
            ));
        }
        span.jobs = jobs::jobs_of(span, first).map_err(|(option, problem)| DiskSpdError {
            switch: named(option),
            problem,
        })?;
        first += span.jobs.len();
    }
    Ok(DiskSpdProfile {
        command_line: args.join(" "),
        time_spans,
        output,
        profile_only: line.profile_only,
        notes,
    })
}

/// The switches each job option comes from, for errors: the user wrote switches, not options.
const SWITCHES_OF_OPTIONS: &[(&str, &[&str])] = &[
    ("bs", &["b"]),
    ("iodepth", &["o", "O"]),
    ("numjobs", &["t", "F"]),
    ("runtime", &["d"]),
    ("ramp_time", &["W"]),
    ("rwmixwrite", &["w"]),
    ("percentage_random", &["rs"]),
    ("size", &["f", "c", "B"]),
    ("offset", &["B"]),
    ("rate", &["g"]),
    ("rate_iops", &["g"]),
    ("randseed", &["z"]),
    ("blockalign", &["r"]),
    ("random_distribution", &["rd"]),
    ("rw", &["s", "r", "w"]),
    ("offset_increment", &["T"]),
    ("direct", &["S", "h"]),
    ("sync", &["S", "h"]),
    ("thinktime", &["j", "i"]),
    ("thinktime_blocks", &["i"]),
    ("prioclass", &["I"]),
    ("prio", &["I"]),
    ("fadvise_hint", &["f"]),
    ("cpus_allowed", &["a"]),
    ("cpus_allowed_policy", &["a"]),
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
            let body = arg
                .strip_prefix('-')
                .or_else(|| arg.strip_prefix(['\u{2013}', '\u{2014}', '\u{2010}', '\u{2212}']))
                .unwrap_or("");
            switches.iter().any(|s| body.starts_with(s))
                && !(option == "blockalign" && (body.starts_with("rs") || body.starts_with("rd")))
                && !(option == "rw" && body.starts_with("rd"))
        })
        .cloned()
        .unwrap_or_else(|| "TARGET".to_string())
}

#[cfg(test)]
mod switch_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod xml_tests;
