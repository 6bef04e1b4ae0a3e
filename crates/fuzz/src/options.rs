//! fio options as a generator sees them: every name diskmeter's option table and fio know,
//! and values shaped by each option's kind and range, by what the seed files write for it,
//! and by the structured values some options take (`bssplit`, `random_distribution`, ...).
//! Shared by the job-file target (lines `key=value`) and the others that feed job options
//! (the replay options of an iolog's job).

use crate::gen::Gen;
use diskmeter_workload::{all_options, OptionKind, Range};
use std::collections::BTreeMap;

/// fio's own option names, as the job-file front-end tells "not supported" from "unknown".
const FIO_OPTION_NAMES: &str = include_str!("../../jobfile/src/fio_option_names.txt");

/// Option names and the values seen for them.
pub struct Options {
    /// Every name diskmeter's table knows (names and aliases).
    pub names: Vec<&'static str>,
    /// fio's names (some diskmeter lacks).
    pub fio_names: Vec<&'static str>,
    /// Values the seed files give each option, by name.
    pub seen: BTreeMap<String, Vec<String>>,
}

impl Options {
    /// The table's names, fio's names, and the values `seed_texts` write.
    pub fn new<'a>(seed_texts: impl IntoIterator<Item = &'a str>) -> Options {
        let names = all_options()
            .flat_map(|def| std::iter::once(def.name).chain(def.aliases.iter().copied()))
            .collect();
        let fio_names = FIO_OPTION_NAMES
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for text in seed_texts {
            for line in text.lines() {
                let line = line.split([';', '#']).next().unwrap_or("").trim();
                if let Some((key, value)) = line.split_once('=') {
                    let values = seen.entry(key.trim().to_string()).or_default();
                    let value = value.trim().to_string();
                    if !values.contains(&value) {
                        values.push(value);
                    }
                }
            }
        }
        Options {
            names,
            fio_names,
            seen,
        }
    }

    /// An option name: mostly diskmeter's, sometimes fio's, a typo or garbage.
    pub fn name(&self, g: &mut Gen) -> String {
        match g.below(24) {
            0..=18 => g.pick(&self.names).to_string(),
            19 | 20 => g.pick(&self.fio_names).to_string(),
            21 => {
                let name = g.pick(&self.names).to_string();
                typo(g, name)
            }
            22 => {
                let len = g.range(1, 24) as usize;
                g.word(len)
            }
            _ => match g.below(4) {
                0 => g.long(),
                1 => format!("{}{}", g.pick(&self.names), g.odd()),
                2 => g.pick(&self.names).to_uppercase(),
                _ => String::new(),
            },
        }
    }

    /// A value for option `name`: one the seeds write or one of its kind that it takes
    /// (most often, so that a file's other lines get read too), or one at the edges of its
    /// kind and range, or odd text.
    pub fn value(&self, g: &mut Gen, name: &str) -> String {
        let def = all_options().find(|d| d.name == name || d.aliases.contains(&name));
        if g.percent(40) {
            if let Some(values) = self.seen.get(name).filter(|v| !v.is_empty()) {
                let value = g.pick(values).clone();
                return if g.one_in(4) {
                    self.tweak(g, &value)
                } else {
                    value
                };
            }
        }
        if let Some(def) = def.filter(|_| g.percent(40)) {
            return plausible(g, def.kind, def.limits.map(|l| l.range));
        }
        if let Some(value) = structured(g, name) {
            return value;
        }
        match def {
            Some(def) if !g.one_in(10) => {
                let value = by_kind(g, def.kind);
                match def.limits.map(|l| l.range) {
                    Some(range) if g.one_in(3) => edge_of(g, range),
                    _ => value,
                }
            }
            _ => any_value(g),
        }
    }

    /// A value slightly wrong: a number changed, a suffix added, odd text inserted.
    fn tweak(&self, g: &mut Gen, value: &str) -> String {
        match g.below(4) {
            0 => format!("{value}{}", g.size_suffix()),
            1 => format!("{value}{}", g.odd()),
            2 => crate::mutate::mutate(g, value, &[",", ":", "/", "-", "%"], &[], 2),
            _ => value.replace(|c: char| c.is_ascii_digit(), &g.number()),
        }
    }
}

/// `name` with one character changed, dropped or doubled.
fn typo(g: &mut Gen, name: String) -> String {
    let mut chars: Vec<char> = name.chars().collect();
    if chars.is_empty() {
        return name;
    }
    let at = g.below(chars.len());
    match g.below(3) {
        0 => {
            chars.remove(at);
        }
        1 => chars.insert(at, chars[at]),
        _ => chars[at] = char::from(g.range(u64::from(b'a'), u64::from(b'z')) as u8),
    }
    chars.into_iter().collect()
}

/// A value of the kind that its option most likely takes.
fn plausible(g: &mut Gen, kind: OptionKind, range: Option<Range>) -> String {
    let small = |g: &mut Gen| -> u64 {
        match range {
            Some(Range::Int { min, max }) => {
                let top = max
                    .unwrap_or(min.saturating_add(64))
                    .min(min.saturating_add(64));
                g.range(min, top)
            }
            _ => g.range(0, 64),
        }
    };
    match kind {
        OptionKind::Flag => g.pick(&["1", "0", ""]).to_string(),
        OptionKind::Size => g.size_small(),
        OptionKind::SizeOrPercent => {
            if g.one_in(3) {
                format!("{}%", g.range(1, 100))
            } else {
                g.size_small()
            }
        }
        OptionKind::SizePair => match g.below(3) {
            0 => format!("{},{}", g.size_small(), g.size_small()),
            _ => g.size_small(),
        },
        OptionKind::IntPair => match g.below(3) {
            0 => format!("{},{}", g.range(1, 5000), g.range(1, 5000)),
            _ => g.range(1, 5000).to_string(),
        },
        OptionKind::Time | OptionKind::TimeMicros => {
            format!("{}{}", g.range(1, 60), g.pick(&["", "s", "ms", "us", "m"]))
        }
        OptionKind::Int => small(g).to_string(),
        OptionKind::Str | OptionKind::OptionalStr => {
            let len = g.range(1, 8) as usize;
            format!("f{}", g.word(len))
        }
        OptionKind::Choice(words) if !words.is_empty() => g.pick(words).to_string(),
        OptionKind::Choice(_) => String::new(),
        OptionKind::Percent => g.range(0, 100).to_string(),
        OptionKind::CpuList => format!("0-{}", g.range(0, 3)),
        OptionKind::FloatList => g
            .pick(&["50:99", "99.9", "1:5:10:50:90:99:99.99"])
            .to_string(),
    }
}

/// A value of any shape.
pub fn any_value(g: &mut Gen) -> String {
    match g.below(10) {
        0 => g.number(),
        1 => g.float(),
        2 => g.size(),
        3 => g.time(),
        4 => g.percent_text(),
        5 => g.odd().to_string(),
        6 => g.long(),
        7 => String::new(),
        8 => {
            let len = g.range(1, 12) as usize;
            g.word(len)
        }
        _ => format!("{},{}", g.size_small(), g.size_small()),
    }
}

/// A value of the option's kind, right or nearly.
fn by_kind(g: &mut Gen, kind: OptionKind) -> String {
    match kind {
        OptionKind::Flag => g
            .pick(&["", "0", "1", "2", "-1", "true", "false", "yes", "on", "01"])
            .to_string(),
        OptionKind::Size => g.size(),
        OptionKind::SizeOrPercent => {
            if g.one_in(2) {
                g.percent_text()
            } else {
                g.size()
            }
        }
        OptionKind::SizePair => pair(g, Gen::size),
        OptionKind::IntPair => pair(g, Gen::number),
        OptionKind::Time | OptionKind::TimeMicros => g.time(),
        OptionKind::Int => {
            if g.one_in(4) {
                format!("{}{}", g.number(), g.size_suffix())
            } else {
                g.number()
            }
        }
        OptionKind::Str | OptionKind::OptionalStr => path_like(g),
        OptionKind::Choice(words) => choice(g, words),
        OptionKind::Percent => g.percent_text(),
        OptionKind::CpuList => cpu_list(g),
        OptionKind::FloatList => {
            let items = g.count(40).max(1);
            (0..items).map(|_| g.float()).collect::<Vec<_>>().join(":")
        }
    }
}

/// `a`, `a,b`, `,b`, `a,`, `a,b,c`.
fn pair(g: &mut Gen, one: fn(&mut Gen) -> String) -> String {
    match g.below(6) {
        0 => format!("{},{}", one(g), one(g)),
        1 => format!(",{}", one(g)),
        2 => format!("{},", one(g)),
        3 => format!("{},{},{}", one(g), one(g), one(g)),
        _ => one(g),
    }
}

fn choice(g: &mut Gen, words: &[&str]) -> String {
    let word = if words.is_empty() {
        "x".to_string()
    } else {
        g.pick(words).to_string()
    };
    match g.below(8) {
        0 => format!("{word}:{}", g.size()),
        1 => word.to_uppercase(),
        2 => typo(g, word),
        3 => format!("{word},{}", g.pick(words)),
        _ => word,
    }
}

fn path_like(g: &mut Gen) -> String {
    match g.below(10) {
        0 => "/dev/null".into(),
        1 => "a\\:b:c".into(),
        2 => format!("data.$jobnum.$filenum{}", g.odd()),
        3 => "$jobname.$clientuid".into(),
        4 => ":::".into(),
        5 => "\\".into(),
        6 => g.long(),
        7 => String::new(),
        _ => {
            let len = g.range(1, 12) as usize;
            format!("f{}", g.word(len))
        }
    }
}

fn cpu_list(g: &mut Gen) -> String {
    let items = g.count(8).max(1);
    (0..items)
        .map(|_| match g.below(5) {
            0 => format!("{}-{}", g.number(), g.number()),
            1 => g.number(),
            2 => format!("{}-{}", g.range(0, 64), g.range(0, 64)),
            3 => g.odd().to_string(),
            _ => g.range(0, 64).to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A value at or just past an end of `range`.
fn edge_of(g: &mut Gen, range: Range) -> String {
    match range {
        Range::Int { min, max } => {
            let max = max.unwrap_or(u64::from(u32::MAX));
            g.pick(&[
                min.saturating_sub(1),
                min,
                max,
                max.saturating_add(1),
                max.saturating_mul(2),
            ])
            .to_string()
        }
        Range::Percent { min, max, .. } => g
            .pick(&[min - 1.0, min, max, max + 0.5, max + 1.0, min + 0.5])
            .to_string(),
        Range::TimeAtLeast { min_ns } => format!("{}ns", min_ns.saturating_sub(g.range(0, 1))),
        Range::List { max_items, max, .. } => (0..max_items + g.below(3))
            .map(|_| format!("{}", max + g.below(2) as f64))
            .collect::<Vec<_>>()
            .join(":"),
    }
}

/// Values of options with a syntax of their own.
fn structured(g: &mut Gen, name: &str) -> Option<String> {
    if !g.one_in(2) {
        return None;
    }
    let split = |g: &mut Gen| -> String {
        let items = g.count(12).max(1);
        (0..items)
            .map(|_| match g.below(4) {
                0 => format!("{}/", g.size_small()),
                1 => format!("{}/{}", g.size(), g.percent_text()),
                _ => format!("{}/{}", g.size_small(), g.range(0, 101)),
            })
            .collect::<Vec<_>>()
            .join(":")
    };
    Some(match name {
        "bssplit" | "cmdprio_bssplit" => {
            let mut value = split(g);
            if g.one_in(3) {
                value = format!("{value},{}", split(g));
            }
            value
        }
        "random_distribution" => {
            let kind = *g.pick(&[
                "zipf",
                "pareto",
                "normal",
                "zoned",
                "zoned_abs",
                "random",
                "gauss",
            ]);
            match kind {
                "zoned" | "zoned_abs" => format!("{kind}:{}", split(g)),
                _ => format!("{kind}:{}", g.float()),
            }
        }
        "rw" | "readwrite" => format!(
            "{}{}",
            g.pick(&[
                "read",
                "write",
                "randrw",
                "rw",
                "randread",
                "trimwrite",
                "randtrim"
            ]),
            if g.one_in(2) {
                format!(":{}", g.size())
            } else {
                String::new()
            }
        ),
        "steadystate" | "ss" => format!(
            "{}:{}",
            g.pick(&["iops", "bw", "iops_slope", "bw_slope", "lat", "x"]),
            g.percent_text()
        ),
        "verify_pattern" | "buffer_pattern" => match g.below(5) {
            0 => format!("0x{}", "de".repeat(g.range(0, 600) as usize)),
            1 => format!("\"{}\"", g.word(8)),
            2 => "%o".into(),
            3 => format!("0x{}", g.word(5)),
            _ => g.number(),
        },
        "ignore_error" => format!(",{}:{}", g.pick(&["ENOSPC", "EIO", "5", "x"]), g.number()),
        "filename" => path_like(g),
        "bsrange" | "bs" => format!("{}-{}", g.size(), g.size()),
        _ => return None,
    })
}
