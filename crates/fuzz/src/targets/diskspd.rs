//! DiskSpd command lines: `diskmeter diskspd SWITCHES... TARGETS...` up to the jobs it would
//! run, validated and described as `--dry-run` shows them.
//!
//! An input is the argument list (saved as a JSON array of strings). Promise checked: an
//! error reads `diskspd SWITCH: why`, SWITCH being an argument as given (or `TARGET` when
//! none was given), so the user sees which of their switches is wrong.

use crate::gen::Gen;
use crate::{refused, Target, Verdict};
use diskmeter_jobfile::diskspd;
use diskmeter_workload::{describe, fio_reading_notes, validate};

/// The DiskSpd target.
pub struct DiskSpd {
    examples: Vec<Vec<String>>,
}

/// Command lines from DiskSpd's documentation and the guides, mutated by the generator.
const EXAMPLES: &[&str] = &[
    "-c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh -L testfile.dat",
    "-c200G -w0 -b8K -F4 -r -o128 -W7200 -d30 -Sh -L testfile.dat",
    "-t2 -o8 -w30 -rs60 -b4K -d5 -W0 a.dat b.dat",
    "-F3 -o8 -s a.dat b.dat",
    "-b4K -r512 -C3 -d5 t",
    "-b4K -si16K -t4 -T4K t",
    "-b16K -c100b -g50i -B2b t",
    "-g1024 t",
    "-Rxml -d60 -W10 -b64K -o32 -t8 -Suw -D -L f",
    "-R xml t",
    "-Z1M -z42 -f10G -B1G -w50 -r4K t",
    "-t4 -o32 -r -b8k -g1500i -w30 -rdpct95/5:4/10 -B5g -Z10m t",
    "-r -rdabs90/10G:0/10G:5/20G -F2 -O16 a b",
    "-c1g -b8k -t2 -o2 -r -w5 -i100 -j100 -I2 -a0,1 -fr t",
    "\u{2013}b8K \u{2013}d30 \u{2013}o4 -n -e -Sr -v -l -x -ag -P100 -ysGo t",
    "-c1M -L -D50 -w50 -Sd -Zrs -xp -B12K:64K -si4K -b8K t",
];

/// Switches that take a size (`8K`, `1G`, `16b`).
const SIZED: &[&str] = &["b", "c", "B", "f", "T", "r", "s", "si", "Z"];
/// Switches that take a count or a number of seconds.
const COUNTED: &[&str] = &[
    "o", "O", "t", "F", "d", "W", "C", "g", "z", "D", "i", "j", "I", "P",
];
/// Switches that take a percentage.
const PERCENT: &[&str] = &["w", "rs"];
/// Switches that take no value, or a word.
const WORDS: &[&str] = &[
    "Sh",
    "Su",
    "Sw",
    "Sb",
    "Suw",
    "S",
    "h",
    "L",
    "D",
    "Rxml",
    "Rtext",
    "Rpxml",
    "R",
    "Zr",
    "r",
    "s",
    "l",
    "P",
    "v",
    "n",
    "e",
    "x",
    "ag",
    "Sr",
    "Sd",
    "Ss",
    "Zs",
    "Zrs",
    "Zz",
    "fr",
    "fs",
    "ft",
    "rdpct90/10",
    "rdabs50/1G:10/1G",
    "a0,1",
    "ysEv",
    "\u{2013}b4K",
];
/// Switches DiskSpd has that diskmeter refuses, and some it does not have.
const REFUSED: &[&str] = &[
    "Sm", "a", "ag1,0", "X", "Xp.xml", "p", "N", "ye", "y", "q", "", "-", "é", "Z1M,f", "rdx", "?",
];
/// Every switch letter, for mutations.
const SWITCHES: &[&str] = &[
    "b", "c", "B", "f", "T", "o", "t", "F", "d", "W", "C", "w", "r", "rs", "s", "si", "S", "g",
    "Z", "z", "L", "D", "R", "K", "M", "G", "i", "x",
];

impl DiskSpd {
    /// The target.
    pub fn new() -> DiskSpd {
        DiskSpd {
            examples: EXAMPLES
                .iter()
                .map(|line| line.split_whitespace().map(str::to_string).collect())
                .collect(),
        }
    }

    fn args(&self, g: &mut Gen) -> Vec<String> {
        let mut args: Vec<String> = if g.percent(40) {
            g.pick(&self.examples).clone()
        } else {
            Vec::new()
        };
        for _ in 0..g.count(10) {
            let at = g.below(args.len() + 1);
            args.insert(at, switch(g));
        }
        for _ in 0..g.count(3) {
            match g.below(6) {
                0 if !args.is_empty() => {
                    let at = g.below(args.len());
                    args.remove(at);
                }
                1 if !args.is_empty() => {
                    let at = g.below(args.len());
                    let arg = args[at].clone();
                    args[at] = crate::mutate::mutate(g, &arg, SWITCHES, &[], 3);
                }
                2 => args.push(target(g)),
                3 if !args.is_empty() => {
                    let at = g.below(args.len());
                    args.insert(at, args[at].clone());
                }
                _ => {}
            }
        }
        if g.percent(80) && !args.iter().any(|a| !a.starts_with('-')) {
            args.push(target(g));
        }
        args
    }
}

impl Default for DiskSpd {
    fn default() -> Self {
        DiskSpd::new()
    }
}

/// One switch with a value of the shape it takes (mostly), at the edges (often), or odd.
fn switch(g: &mut Gen) -> String {
    let edge = g.one_in(4);
    let (letter, value) = match g.below(20) {
        0..=6 => {
            let letter = *g.pick(SIZED);
            let value = if edge {
                format!(
                    "{}{}",
                    g.number(),
                    g.pick(&["K", "M", "G", "T", "b", "", "k", "x"])
                )
            } else {
                format!(
                    "{}{}",
                    1u64 << g.below(14),
                    g.pick(&["K", "M", "", "b", "G"])
                )
            };
            (letter, value)
        }
        7..=12 => {
            let letter = *g.pick(COUNTED);
            let value = if edge {
                g.number()
            } else {
                g.range(0, 130).to_string()
            };
            let suffix = if letter == "g" && g.one_in(2) {
                "i"
            } else {
                ""
            };
            (letter, format!("{value}{suffix}"))
        }
        13 | 14 => {
            let letter = *g.pick(PERCENT);
            let value = if edge {
                g.number()
            } else {
                g.range(0, 101).to_string()
            };
            (letter, value)
        }
        15..=17 => (*g.pick(WORDS), String::new()),
        18 => (*g.pick(REFUSED), String::new()),
        _ => (*g.pick(SWITCHES), g.odd().to_string()),
    };
    let dash = if g.one_in(40) { "/" } else { "-" };
    format!("{dash}{letter}{value}")
}

fn target(g: &mut Gen) -> String {
    match g.below(8) {
        0 => "#1".to_string(),
        1 => "C:\\test.dat".to_string(),
        2 => "a:b".to_string(),
        3 => g.odd().to_string(),
        4 => "/dev/sdb".to_string(),
        _ => format!("t{}.dat", g.below(4)),
    }
}

impl Target for DiskSpd {
    fn name(&self) -> &'static str {
        "diskspd"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        serde_json::to_vec(&self.args(g)).unwrap_or_default()
    }

    fn check(&self, input: &[u8]) -> Verdict {
        // A saved input is a JSON list; a bare command line (words) replays too.
        let args: Vec<String> = serde_json::from_slice(input).unwrap_or_else(|_| {
            String::from_utf8_lossy(input)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        });
        check_args(&args)
    }
}

/// `diskmeter diskspd ARGS --dry-run`, short of planning the targets.
pub fn check_args(args: &[String]) -> Verdict {
    let profile = match diskspd::parse(args) {
        Ok(profile) => profile,
        Err(error) => {
            let message = error.to_string();
            let named = error.switch == "TARGET" || args.contains(&error.switch);
            if !named || !message.starts_with(&format!("diskspd {}: ", error.switch)) {
                return Verdict::Broken(format!(
                    "the error does not name a switch the user gave: {message}"
                ));
            }
            return refused(message);
        }
    };
    let mut first_problem = None;
    let jobs = profile.jobs();
    for job in &jobs {
        for problem in validate(job) {
            first_problem.get_or_insert_with(|| problem.to_string());
        }
        let _ = describe(job);
        let _ = fio_reading_notes(job);
    }
    match first_problem {
        Some(problem) => refused(problem),
        None => crate::dryrun::plan(&jobs),
    }
}
