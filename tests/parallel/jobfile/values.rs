//! Issue 28, "fio's value syntax, exhaustively": a generated table of values run by fio and
//! by diskmeter and compared job by job, and the forms fio reads other than written
//! (`runtime=30sec`), which diskmeter reads as fio does and warns about.

use super::support::diskmeter;
use crate::common::{self, real_io, TestDir};

/// Letter-case spellings of a lower-case unit suffix: as written, upper case, and the way
/// people write units (`K`, `KB`, `Ki`, `KiB`: prefix upper, `i` lower, `b` upper); each once.
fn case_variants(lower: &str) -> Vec<String> {
    let usual: String = lower
        .chars()
        .map(|c| if c == 'i' { c } else { c.to_ascii_uppercase() })
        .collect();
    let mut out = vec![lower.to_string()];
    for spelling in [lower.to_ascii_uppercase(), usual] {
        if !out.contains(&spelling) {
            out.push(spelling);
        }
    }
    out
}

/// The block size for a `size=` of `number` and `suffix` in the generated table: the same
/// spelling for `k` and `m` (one IO of the whole size), one prefix down for `g` (`3GiB` ->
/// `3MiB`: 1,000 or 1,024 IOs, as the base is), so no buffer is larger than 10 MiB.
fn block_size_for(number: &str, suffix: &str) -> String {
    let mut chars = suffix.chars();
    let Some(prefix) = chars.next() else {
        return number.to_string();
    };
    match prefix {
        'g' => format!("{number}m{}", chars.as_str()),
        'G' => format!("{number}M{}", chars.as_str()),
        _ => format!("{number}{suffix}"),
    }
}

/// Issue 28, "fio's value syntax, exhaustively": a GENERATED table of values, one [section]
/// each in ONE job file, run by fio and by diskmeter on the null engine and compared job by
/// job where fio shows the parsed value:
/// * sizes: numbers x prefixes `k m g` x `""`/`b`/`i`/`ib` x letter case x `kb_base` 1024 and
///   1000 (written before or after the value: fio reads it first in a job file), plus `+`,
///   hex and bare forms, as `size=V` with `bs=V` (one prefix down for `g`): `io_bytes` is V
///   and `total_ios` shows the block size;
/// * counts: `number_ios` in the same spellings, through `total_ios`;
/// * ranges, lists and per-direction values holding one size X (`bsrange=X-X` and `X:X`,
///   `bssplit=X/100`, `X`, `X/100,4k/100`, `bs=X,4k`, `io_size`) with X in four spellings of
///   1 MiB under both `kb_base`, through `total_ios`;
/// * percentages: `size` and `offset` as shares of a file, through `io_bytes`;
/// * float lists: `percentile_list`, through the percentiles fio-json prints;
/// * short times: `runtime` with `time_based` in every suffix spelling and the bare default
///   unit (seconds), through the job's runtime. The values are 200 ms or 1 s and the bound
///   is loose (0.9x to 3x + 500 ms) on purpose: a misread unit is off by 60x or 1000x, and
///   the bound must not judge the machine's speed (hundreds of jobs share two cores here).
///
/// * forms fio reads other than written, which diskmeter reads as fio does (with a warning,
///   checked in the next test): sizes and counts (`1.5m` is 1 byte, `4kfoo` 4 KiB, `0x10k`
///   16), a '%' on `rwmixread` (only reads), and times (`30sec` is 30 us, `1.5` 1 s).
///
/// Times too long to run (`2d`) are checked against fio's parse.c in `crates/units`.
#[test]
fn issue_28_generated_value_table_reads_as_fio_reads_it() {
    // Hundreds of jobs keep both cores busy for seconds: not beside this file's timed runs.
    let _turn = real_io();
    let dir = TestDir::new();
    let Some(mut fio) = common::fio_command("issue_28_generated_value_table", dir.path()) else {
        return;
    };
    let mut file = String::from("[global]\nioengine=null\nrw=read\nthread\n");
    let mut sections = 0;
    let mut section = |name: String, lines: &[String], kb_base: &str, kb_first: bool| {
        file.push_str(&format!("\n[{name}]\n"));
        if kb_first {
            file.push_str(&format!("kb_base={kb_base}\n"));
        }
        for line in lines {
            file.push_str(line);
            file.push('\n');
        }
        if !kb_first {
            file.push_str(&format!("kb_base={kb_base}\n"));
        }
        sections += 1;
    };
    for (base_index, kb_base) in ["1024", "1000"].into_iter().enumerate() {
        let mut n = 0;
        for number in ["1", "10"] {
            for prefix in ["k", "m", "g"] {
                for tail in ["", "b", "i", "ib"] {
                    for suffix in case_variants(&format!("{prefix}{tail}")) {
                        n += 1;
                        let size = format!("{number}{suffix}");
                        section(
                            format!("size-{kb_base}-{size}"),
                            &[
                                format!("size={size}"),
                                format!("bs={}", block_size_for(number, &suffix)),
                            ],
                            kb_base,
                            (n + base_index) % 2 == 0,
                        );
                        if prefix == "k" && number == "10" {
                            section(
                                format!("count-{kb_base}-{size}"),
                                &[
                                    "size=64m".to_string(),
                                    "bs=4k".to_string(),
                                    format!("number_ios={size}"),
                                ],
                                kb_base,
                                n % 2 == 0,
                            );
                        }
                    }
                }
            }
        }
        for (size, bs) in [
            ("+3k", "+3"),
            ("0x3000", "0xc"),
            ("0X3000", "0XC"),
            ("3072", "3"),
            ("3000", "3"),
            ("003k", "3"),
            ("3m", "3k"),
            ("3GiB", "3MiB"),
        ] {
            section(
                format!("size-{kb_base}-{size}"),
                &[format!("size={size}"), format!("bs={bs}")],
                kb_base,
                true,
            );
        }
    }
    // Ranges, lists and per-direction values: every shape holding one size X, spelled in
    // each unit form, so the IO count shows how X was read (10 IOs of X in a size of 10 X; 3
    // for `io_size` = 3 X).
    for kb_base in ["1024", "1000"] {
        for (number, suffix) in [("1", "Mi"), ("1", "MiB"), ("1", "m"), ("1024", "KiB")] {
            let x = format!("{number}{suffix}");
            let size = format!("size={}{suffix}", number.parse::<u64>().unwrap() * 10);
            for (shape, line) in [
                ("bsrange-dash", format!("bsrange={x}-{x}")),
                ("bsrange-colon", format!("bsrange={x}:{x}")),
                ("bssplit", format!("bssplit={x}/100")),
                ("bssplit-blank", format!("bssplit={x}")),
                ("bssplit-dirs", format!("bssplit={x}/100,4k/100")),
                ("bs-dirs", format!("bs={x},4k")),
                (
                    "io_size",
                    format!(
                        "bs={x}\nio_size={}{suffix}",
                        number.parse::<u64>().unwrap() * 3
                    ),
                ),
            ] {
                section(
                    format!("{shape}-{kb_base}-{x}"),
                    &[size.clone(), line],
                    kb_base,
                    shape.len() % 2 == 0,
                );
            }
        }
    }
    // Float lists: `percentile_list` in fio's `%lf` forms, through the percentiles printed.
    for (i, list) in ["1:50:99.5:99.99", "25.0:75", ".5:+99", "1e1:9.95E+1", "5"]
        .into_iter()
        .enumerate()
    {
        section(
            format!("percentiles-{i}"),
            &["size=64k".to_string(), format!("percentile_list={list}")],
            "1024",
            true,
        );
    }
    // Percentages: `size` and `offset` as a share of a 1 MiB file (read with psync: the null
    // engine has no file size to take a share of).
    std::fs::write(dir.path().join("share"), vec![0u8; 1 << 20]).unwrap();
    for size in ["1%", "10%", "25%", "50%", "100%"] {
        for offset in ["", "25%", "50%"] {
            let mut lines = vec![
                "ioengine=psync".to_string(),
                "filename=share".to_string(),
                "bs=4k".to_string(),
                format!("size={size}"),
            ];
            if !offset.is_empty() {
                lines.push(format!("offset={offset}"));
            }
            section(format!("share-{size}-at-{offset}"), &lines, "1024", true);
        }
    }
    for runtime in [
        "200ms",
        "200MS",
        "200Ms",
        "200msec",
        "200MSEC",
        "200000us",
        "200000US",
        "200000usec",
        "200000USEC",
        "+200ms",
        "1",
        "1s",
        "1S",
    ] {
        section(
            format!("time-{runtime}"),
            &[
                "size=64m".to_string(),
                "time_based".to_string(),
                format!("runtime={runtime}"),
            ],
            "1024",
            true,
        );
    }
    // Forms fio reads other than written: each as `size` (or `bs`, `number_ios`, `bssplit`)
    // with a block size that keeps the IO count small, through io_bytes and total_ios.
    for (i, lines) in [
        ["size=1.5m", "bs=1"],
        ["size=4kfoo", "bs=1k"],
        ["size=2MiBs", "bs=1000"],
        ["size=4 k", "bs=1"],
        ["size=0x10k", "bs=1"],
        ["size=4q", "bs=1"],
        ["size=3kk", "bs=1k"],
        ["size=10µ", "bs=1"],
        ["size=64k", "bs=4kfoo"],
        ["size=1k", "bs=1.5k"],
        ["size=10", "bssplit=1.5k/100"],
        ["size=64m", "bs=4k\nnumber_ios=3kx"],
        ["size=1m", "bs=4k\nrw=randrw\nrwmixread=50%"],
        ["size=1m", "bs=4k\nrw=randrw\nrwmixwrite=50%"],
    ]
    .iter()
    .enumerate()
    {
        let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        section(format!("misread-{i}"), &lines, "1024", true);
    }
    // Times fio reads other than written, with the run time fio's reading gives, ms.
    let misread_times = [
        ("30sec", 0),
        ("10min", 0),
        ("0x10", 0),
        ("7ns", 0),
        ("2hours", 0),
        ("3msfoo", 3),
        ("1.5", 1000),
        ("1.9s", 1000),
    ];
    for (i, (runtime, _)) in misread_times.iter().enumerate() {
        section(
            format!("misread-time-{i}"),
            &[
                "size=64m".to_string(),
                "time_based".to_string(),
                format!("runtime={runtime}"),
            ],
            "1024",
            true,
        );
    }
    let path = dir.path().join("values.fio");
    std::fs::write(&path, &file).unwrap();

    let fio = common::fio_json(fio.arg(&path));
    let dm: serde_json::Value = serde_json::from_str(&common::ok(
        diskmeter(dir.path())
            .args(["run", "--quiet", "--no-save", "--output-format=fio-json"])
            .arg(&path)
            .output()
            .unwrap(),
    ))
    .unwrap();
    type Seen = (u64, u64, u64, Vec<String>);
    let by_name = |doc: &serde_json::Value| -> std::collections::BTreeMap<String, Seen> {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let read = &j["read"];
                let percentiles = read["clat_ns"]["percentile"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    (
                        read["io_bytes"].as_u64().unwrap(),
                        read["total_ios"].as_u64().unwrap(),
                        j["job_runtime"].as_u64().unwrap(),
                        percentiles,
                    ),
                )
            })
            .collect()
    };
    let (fio, dm) = (by_name(&fio), by_name(&dm));
    assert_eq!(fio.len(), sections, "fio ran every section");
    assert_eq!(
        dm.keys().collect::<Vec<_>>(),
        fio.keys().collect::<Vec<_>>(),
        "the same jobs"
    );
    let mut differ = Vec::new();
    for (name, (fio_bytes, fio_ios, fio_ms, fio_percentiles)) in &fio {
        let (fio_bytes, fio_ios, fio_ms) = (*fio_bytes, *fio_ios, *fio_ms);
        let (dm_bytes, dm_ios, dm_ms, dm_percentiles) = &dm[name];
        let (dm_bytes, dm_ios, dm_ms) = (*dm_bytes, *dm_ios, *dm_ms);
        if name.starts_with("percentiles-") {
            if fio_percentiles != dm_percentiles || fio_percentiles.is_empty() {
                differ.push(format!(
                    "{name}: fio prints percentiles {fio_percentiles:?}, diskmeter \
                     {dm_percentiles:?}"
                ));
            }
        } else if let Some(index) = name.strip_prefix("misread-time-") {
            let (runtime, expected_ms) = misread_times[index.parse::<usize>().unwrap()];
            // Loose as below: a unit read as written (30 s, not 30 us) is far outside it.
            let near = |ms: u64| ms * 10 >= expected_ms * 9 && ms <= expected_ms * 3 + 500;
            if !near(fio_ms) || !near(dm_ms) {
                differ.push(format!(
                    "runtime={runtime}: fio ran {fio_ms} ms, diskmeter {dm_ms} ms, fio's reading \
                     is {expected_ms} ms"
                ));
            }
        } else if let Some(value) = name.strip_prefix("time-") {
            let lower = value.to_ascii_lowercase();
            let expected_ms = if ["ms", "msec", "us", "usec"]
                .iter()
                .any(|u| lower.ends_with(u))
            {
                200
            } else {
                1000
            };
            let near = |ms: u64| ms * 10 >= expected_ms * 9 && ms <= expected_ms * 3 + 500;
            if !near(fio_ms) || !near(dm_ms) {
                differ.push(format!(
                    "{name}: fio ran {fio_ms} ms, diskmeter {dm_ms} ms, {expected_ms} ms meant"
                ));
            }
        } else if (fio_bytes, fio_ios) != (dm_bytes, dm_ios) || fio_ios == 0 {
            differ.push(format!(
                "{name}: fio {fio_bytes} bytes in {fio_ios} IOs, diskmeter {dm_bytes} in {dm_ios}"
            ));
        } else if ["bsrange", "bssplit", "bs-dirs"]
            .iter()
            .any(|shape| name.starts_with(shape))
            && fio_ios != 10
            || name.starts_with("io_size") && fio_ios != 3
        {
            differ.push(format!(
                "{name}: fio did {fio_ios} IOs, not the table's 10 (3 for io_size): the table \
                 no longer shows the value"
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {sections} values read differently:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // The issue's own case, so a change that breaks both tools alike is still seen.
    assert_eq!(fio["size-1024-1Mi"].0, 1 << 20);
    assert_eq!(fio["percentiles-3"].3, ["10.000000", "99.500000"]);
    assert_eq!(fio["size-1024-1MiB"].0, 1_000_000);
    // fio's readings of forms written otherwise: 1.5m is 1 byte, 0x10k 16, 3kx IOs 3072,
    // rwmixread=50% all reads.
    assert_eq!(fio["misread-0"].0, 1);
    assert_eq!(fio["misread-4"].0, 16);
    assert_eq!(fio["misread-11"].1, 3072);
    assert_eq!(fio["misread-12"].0, 1 << 20);
    eprintln!("{sections} generated values read as fio 3.33 reads them");
}

/// Issue 28: the forms fio accepts but reads other than written give fio's value, each with
/// a warning naming file, line, option and value. fio's value comes from fio's own parser
/// (`fio --debug=parse --parse-only` prints every value it parsed: bytes for sizes,
/// microseconds for times); diskmeter's from its `--dry-run`, which prints each job's
/// options back. The forms short enough to run are also in the generated table above.
#[test]
fn issue_28_values_fio_reads_other_than_written_give_fios_value_with_a_warning() {
    let dir = TestDir::new();
    let Some(mut fio) = common::fio_command("issue_28_misread_values", dir.path()) else {
        return;
    };
    // (option, value, fio's parsed value or "" for fio's string options, diskmeter's option
    // as --dry-run prints it back, or "" where it is the default, which is not printed)
    let cases = [
        ("size", "1.5m", "1", "size=1"),
        ("bs", "4kfoo", "4096", "bs=4k"),
        ("bs", "2MiBs", "2000000", "bs=2000000"),
        ("size", "4 k", "4", "size=4"),
        ("bs", "0x10k", "16", "bs=16"),
        ("size", "4q", "4", "size=4"),
        ("size", "12.5%", "12", "size=12"),
        ("number_ios", "3kx", "3072", "number_ios=3072"),
        ("runtime", "30sec", "30", "runtime=30us"),
        ("thinktime", "10min", "10", "thinktime=10us"),
        ("runtime", "0x10", "16", "runtime=16us"),
        ("runtime", "1.5", "1000000", "runtime=1s"),
        ("ramp_time", "2.5ms", "2000000", "ramp_time=2s"),
        ("thinktime", "10µs", "10", "thinktime=10us"),
        ("runtime", "10µs", "10000000", "runtime=10s"),
        ("runtime", "3msfoo", "3000", "runtime=3ms"),
        ("startdelay", "5 ms", "5000000", "startdelay=5s"),
        ("thinktime", "7ns", "7", "thinktime=7us"),
        ("runtime", "2hours", "2", "runtime=2us"),
        // -1 - 50: fio's share-of-a-file marker, which its rwmixread takes as "all reads".
        ("rwmixread", "50%", "18446744073709551565", "rwmixread=100"),
        ("rwmixread", "33.3", "33", "rwmixread=33"),
        // Only random offsets under fio (measured): 100, the default, so not listed back.
        ("percentage_random", "30%", "18446744073709551585", ""),
        ("rw", "randread:4k", "", "rw=randread:4"),
        ("bssplit", "4k/12.5:8k/", "", "bssplit=4k/12:8k/88"),
    ];
    // Random IO, so `percentage_random` is listed back.
    let mut file = String::from("[global]\nioengine=null\nsize=1m\nrw=randread\n");
    for (i, (option, value, _, _)) in cases.iter().enumerate() {
        file.push_str(&format!("[case{i}]\n{option}={value}\n"));
    }
    std::fs::write(dir.path().join("all.fio"), &file).unwrap();
    let out = fio
        .args(["--debug=parse", "--parse-only", "all.fio"])
        .output()
        .expect("fio");
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    // "handle_option=NAME, ptr=VALUE" is followed by "ret=0, out=N" for the numeric types.
    let mut parsed = Vec::new();
    let mut current: Option<String> = None;
    for line in log.lines() {
        if let Some((_, option)) = line.split_once(" handle_option=") {
            current = Some(option.to_string());
        } else if let Some(at) = line.find("ret=0, out=") {
            if let Some(option) = current.take() {
                parsed.push((option, line[at + 11..].trim().to_string()));
            }
        }
    }
    let out = diskmeter(dir.path())
        .args(["run", "--dry-run", "all.fio"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    let plans: Vec<String> = format!("\n{stdout}")
        .split("\n[case")
        .skip(1)
        .map(str::to_string)
        .collect();
    assert_eq!(plans.len(), cases.len(), "{stdout}");
    for (i, (option, value, fio_value, shown)) in cases.iter().enumerate() {
        let key = format!("{option}, ptr={value}");
        assert!(
            fio_value.is_empty() || parsed.contains(&(key.clone(), fio_value.to_string())),
            "fio did not read {option}={value} as {fio_value}: {parsed:?}\n{log}"
        );
        let plan = &plans[i];
        let listed = |line: &str| match *shown {
            "" => line.trim().starts_with(&format!("{option}=")),
            shown => line.trim() == shown,
        };
        assert!(
            plan.lines().any(listed) != shown.is_empty(),
            "{option}={value}: diskmeter's job should list {shown:?}:\n{plan}"
        );
        // The warning, once, with file and line, on stderr and in the dry run's notes.
        let warning = format!("all.fio:{}: {option}={value}: ", 6 + 2 * i);
        let warned: Vec<&str> = stderr
            .lines()
            .filter_map(|line| line.strip_prefix("diskmeter: warning: "))
            .filter(|line| line.starts_with(&warning))
            .collect();
        assert!(
            warned.len() == 1 && warned[0].contains("read as fio 3.33 reads it"),
            "{warning}\n{stderr}"
        );
        assert!(
            stdout.contains(&format!("# note: job case{i}: {}", warned[0])),
            "{warning}\n{stdout}"
        );
    }
}
