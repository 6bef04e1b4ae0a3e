//! Real DiskSpd command lines as users have them (issue 19): every line of
//! `tests/data/diskspd/command-lines.tsv` (public scripts, DiskSpd's manual and wiki, VM Fleet,
//! the Linux port; see the README beside it) dry-runs through `diskmeter diskspd` with its
//! targets replaced by scratch files. Issue 19's acceptance: at least 95 % are accepted, every
//! refusal names the switch and why, and no line makes diskmeter panic. The test prints the
//! refusals grouped by switch, which is the figure the README quotes.

use crate::common;

use common::TestDir;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The share of corpus lines that must dry-run: issue 19's acceptance.
const REQUIRED_ACCEPTANCE: f64 = 0.95;

/// Scratch targets are sparse files this large, so that no line is refused only because the
/// stand-in is smaller than the disk or file it replaces (`-B5g`, `-f10g`, `-c496G`).
const SCRATCH_TARGET_BYTES: u64 = 1 << 40;

/// Threads running the dry runs: each takes a few milliseconds, so a handful keeps the test
/// well under a second or two on the CI's two cores.
const RUNNERS: usize = 4;

/// One command line of the corpus.
struct CorpusLine {
    /// Its line number in command-lines.tsv (the header is line 1).
    line_number: usize,
    /// Where it was found (a URL).
    source: String,
    /// The arguments after the program name, as the source wrote them.
    command: String,
}

/// What `diskmeter diskspd --dry-run` did with one line.
struct Outcome {
    line: CorpusLine,
    /// The arguments given to diskmeter (targets replaced).
    args: Vec<String>,
    /// The exit code (None when killed by a signal).
    exit_code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Outcome {
    fn accepted(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// The first non-empty line diskmeter wrote to stderr: its refusal.
    fn refusal(&self) -> &str {
        self.stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("(nothing on stderr)")
    }

    fn panicked(&self) -> bool {
        self.exit_code == Some(101)
            || self.stderr.contains("panicked")
            || self.stdout.contains("panicked")
    }
}

fn corpus_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/diskspd/command-lines.tsv")
}

/// The corpus, checked for its header and four columns a line.
fn corpus() -> Vec<CorpusLine> {
    let path = corpus_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().expect("a header line");
    assert_eq!(
        header, "source\tkind\tsubstituted\tcommand",
        "{path:?}: header"
    );
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(index, l)| {
            let columns: Vec<&str> = l.split('\t').collect();
            assert_eq!(columns.len(), 4, "{path:?} line {}: {l}", index + 1);
            assert!(
                ["script", "docs", "blog", "qa"].contains(&columns[1])
                    && ["yes", "no"].contains(&columns[2]),
                "{path:?} line {}: kind or substituted: {l}",
                index + 1
            );
            CorpusLine {
                line_number: index + 1,
                source: columns[0].to_string(),
                command: columns[3].to_string(),
            }
        })
        .collect()
}

/// Splits a command line as cmd or PowerShell would pass it on, kept simple: whitespace
/// separates arguments and double quotes group (and are removed).
fn split_like_a_shell(command: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    args.push(std::mem::take(&mut current));
                    any = false;
                }
            }
            c => {
                current.push(c);
                any = true;
            }
        }
    }
    if any {
        args.push(current);
    }
    args
}

/// The dashes documents put where DiskSpd's `-` belongs (en dash, em dash, figure dash, minus).
const TYPOGRAPHIC_DASHES: [char; 4] = ['\u{2013}', '\u{2014}', '\u{2012}', '\u{2212}'];

/// The argument with a typographic dash in front read as `-`.
fn with_plain_dash(arg: &str) -> String {
    match arg.chars().next() {
        Some(c) if TYPOGRAPHIC_DASHES.contains(&c) => format!("-{}", &arg[c.len_utf8()..]),
        _ => arg.to_string(),
    }
}

/// Whether DiskSpd reads the argument as a switch rather than a target. DiskSpd takes `-` and
/// `/` as switch prefixes and never takes a switch's value as a separate argument, so every
/// other argument is a target (a path, `#<disk>`, `<letter>:`, or a profile's `*<n>`). A `/`
/// with a further `/` is a Linux path (`/dev/sdc1`, from DiskSpd's Linux port), not a switch.
fn is_switch(arg: &str) -> bool {
    let arg = with_plain_dash(arg);
    arg.starts_with('-') || (arg.starts_with('/') && !arg[1..].contains('/'))
}

/// A template profile for a line's `-X<path>`, derived from VM Fleet's Peak profile: its empty
/// durations filled (1 s, no warm-up or cool-down) and one template target `*1`..`*n` for each
/// target the line names, as DiskSpd substitutes them in order.
fn profile_for(targets: usize) -> String {
    let peak = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/diskspd/profiles/vmfleet-peak.xml"),
    )
    .expect("VM Fleet's Peak profile");
    let peak = peak
        .replace("<Duration></Duration>", "<Duration>1</Duration>")
        .replace("<Warmup></Warmup>", "<Warmup>0</Warmup>")
        .replace("<Cooldown></Cooldown>", "<Cooldown>0</Cooldown>");
    let start = peak.find("        <Target>").expect("a Target");
    let end = peak.find("</Target>").expect("a Target's end") + "</Target>\n".len();
    let target = &peak[start..end];
    let targets: String = (1..=targets.max(1))
        .map(|n| target.replace("<Path>*1</Path>", &format!("<Path>*{n}</Path>")))
        .collect();
    format!("{}{targets}{}", &peak[..start], &peak[end..])
}

/// The line's arguments with every target replaced by a scratch file in `dir` (the same target
/// by the same file) and a `-X` profile by [`profile_for`]'s.
fn with_scratch_targets(line: &CorpusLine, dir: &Path) -> Vec<String> {
    let args = split_like_a_shell(&line.command);
    let mut scratch: HashMap<String, String> = HashMap::new();
    let targets = args.iter().filter(|a| !is_switch(a)).count();
    args.iter()
        .map(|arg| {
            if !is_switch(arg) {
                let next = scratch.len() + 1;
                let name = scratch
                    .entry(arg.clone())
                    .or_insert_with(|| format!("l{}-t{next}.dat", line.line_number))
                    .clone();
                let file = std::fs::File::create(dir.join(&name)).expect("scratch target");
                // A file system that caps a file's size below 1 TiB gets the largest of these
                // it takes.
                [SCRATCH_TARGET_BYTES, 64 << 30, 1 << 30]
                    .iter()
                    .find(|&&bytes| file.set_len(bytes).is_ok())
                    .expect("a sparse scratch target");
                name
            } else if let Some(profile) = with_plain_dash(arg).strip_prefix("-X") {
                if profile.is_empty() {
                    return arg.clone();
                }
                let name = format!("l{}-profile.xml", line.line_number);
                std::fs::write(dir.join(&name), profile_for(targets)).expect("scratch profile");
                // Keep the source's own spelling of the switch (a typographic dash too).
                format!("{}{name}", &arg[..arg.len() - profile.len()])
            } else {
                arg.clone()
            }
        })
        .collect()
}

fn dry_run(line: CorpusLine, dir: &Path) -> Outcome {
    let args = with_scratch_targets(&line, dir);
    let out = common::process()
        .current_dir(dir)
        .arg("diskspd")
        .arg("--dry-run")
        .args(&args)
        .output()
        .expect("run diskmeter");
    Outcome {
        line,
        args,
        exit_code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The switch of a DiskSpd argument: the dash and its letters up to the value (`-rdpct90/10`
/// is `-rdpct`, `-Suw` stays `-Suw`, `-b8K` is `-b`, `-XC:\p.xml` is `-X`, `-eDISK_IO` is `-e`).
fn switch_name(arg: &str) -> String {
    let arg = with_plain_dash(arg);
    let body = &arg[1..];
    let letters: String = match body.chars().next() {
        // Switches whose letters run on: cache modes, distributions, write buffers, events.
        Some('S') | Some('Z') | Some('a') | Some('N') | Some('x') => body
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect(),
        // Named events: the letter after -y says which (-ys, -yf, -yr, -yp, -ye).
        Some('y') => body.chars().take(2).collect(),
        Some('r') if body.starts_with("rd") => body
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect(),
        Some('r') if body.starts_with("rs") => "rs".to_string(),
        Some('R') if body.starts_with("Rp") => "Rp".to_string(),
        Some(c) => c.to_string(),
        None => String::new(),
    };
    format!("-{letters}")
}

/// The text with typographic dashes read as `-`.
fn normalized_dashes(text: &str) -> String {
    text.chars()
        .map(|c| {
            if TYPOGRAPHIC_DASHES.contains(&c) {
                '-'
            } else {
                c
            }
        })
        .collect()
}

/// Which of the line's switches the refusal names, if any: a refusal must say which switch it
/// refuses. A message about a target ("does not exist") names no switch even when the target
/// looks like one.
fn switch_named(outcome: &Outcome) -> Option<String> {
    let normalized = normalized_dashes(outcome.refusal());
    if ["does not exist", "no such file", "No such file"]
        .iter()
        .any(|target_failure| normalized.contains(target_failure))
    {
        return None;
    }
    // The refused switch comes first; a switch named later is advice ("use at least -b").
    outcome
        .args
        .iter()
        .filter(|a| is_switch(a))
        .filter_map(|arg| {
            let switch = switch_name(arg);
            if switch.len() < 2 {
                return None;
            }
            // The whole argument ("-si4K"), or the switch as a word of its own: "-S" must not
            // match inside "-Suw".
            let arg = with_plain_dash(arg);
            let whole = normalized
                .match_indices(arg.as_str())
                .find(|(at, _)| {
                    let after = normalized[at + arg.len()..].chars().next();
                    !after.is_some_and(|c| c.is_alphanumeric())
                })
                .map(|(at, _)| at);
            let word = normalized.match_indices(switch.as_str()).find(|(at, _)| {
                let before = normalized[..*at].chars().next_back();
                let after = normalized[at + switch.len()..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric())
                    && (switch.len() > 2 || !after.is_some_and(|c| c.is_ascii_alphabetic()))
            });
            let at = whole.into_iter().chain(word.map(|(at, _)| at)).min()?;
            Some((at, switch))
        })
        .min()
        .map(|(_, switch)| switch)
}

/// Whether the refusal gives a reason rather than a generic failure: what follows the named
/// switch is more than "not supported" or a parser's "unknown switch".
fn gives_a_reason(message: &str, switch: &str) -> bool {
    let after_switch = message
        .find(switch)
        .map(|at| &message[at + switch.len()..])
        .unwrap_or(message);
    // Past the rest of the switch's argument ("-O4: ..." names "-O").
    let reason = after_switch
        .split_once(':')
        .map_or(after_switch, |(_, reason)| reason)
        .trim()
        .trim_end_matches('.')
        .to_lowercase();
    let generic = [
        "not supported",
        "not supported by diskmeter",
        "unsupported",
        "unsupported switch",
        "invalid switch",
    ];
    let parser_did_not_know_it = ["unknown", "unrecognized", "unexpected argument"]
        .iter()
        .any(|g| reason.starts_with(g));
    reason.split_whitespace().count() >= 3
        && !generic.contains(&reason.as_str())
        && !parser_did_not_know_it
}

fn run_corpus() -> Vec<Outcome> {
    let dir = TestDir::new();
    let lines = corpus();
    let mut chunks: Vec<Vec<CorpusLine>> = (0..RUNNERS).map(|_| Vec::new()).collect();
    for (i, line) in lines.into_iter().enumerate() {
        chunks[i % RUNNERS].push(line);
    }
    let mut outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let runners: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let dir = dir.path();
                scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|line| dry_run(line, dir))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        runners
            .into_iter()
            .flat_map(|r| r.join().expect("a runner"))
            .collect()
    });
    outcomes.sort_by_key(|o| o.line.line_number);
    outcomes
}

/// The refusals grouped by the switch they name, one line each: the corpus report.
fn refusal_report(outcomes: &[Outcome]) -> String {
    let mut by_switch: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
    for outcome in outcomes.iter().filter(|o| !o.accepted()) {
        let key = switch_named(outcome).unwrap_or_else(|| "(no switch named)".to_string());
        by_switch.entry(key).or_default().push(outcome);
    }
    let mut report = String::new();
    for (switch, refused) in &by_switch {
        report += &format!("{switch}: {} line(s)\n", refused.len());
        for outcome in refused {
            report += &format!(
                "  line {:>3} exit {:?}: {}\n      {}\n      ({})\n",
                outcome.line.line_number,
                outcome.exit_code,
                outcome.refusal(),
                outcome.line.command,
                outcome.line.source
            );
        }
    }
    report
}

#[test]
fn real_diskspd_command_lines_dry_run_or_are_refused_naming_the_switch_and_why() {
    let outcomes = run_corpus();
    let total = outcomes.len();
    let accepted = outcomes.iter().filter(|o| o.accepted()).count();
    let report = refusal_report(&outcomes);
    let summary = format!(
        "DiskSpd corpus: {accepted} of {total} accepted ({:.1} %)",
        accepted as f64 * 100.0 / total as f64
    );
    eprintln!("{summary}\n{report}");
    assert!(total >= 150, "the corpus has {total} lines");

    // (c) No line makes diskmeter panic.
    let panics: Vec<String> = outcomes
        .iter()
        .filter(|o| o.panicked())
        .map(|o| {
            format!(
                "line {}: {}\n{}",
                o.line.line_number, o.line.command, o.stderr
            )
        })
        .collect();
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));

    // (b) Every refusal names one of the line's switches and says why.
    let unexplained: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.accepted())
        .filter(|o| match switch_named(o) {
            Some(switch) => !gives_a_reason(&normalized_dashes(o.refusal()), &switch),
            None => true,
        })
        .map(|o| {
            format!(
                "line {}: {}\n  {}",
                o.line.line_number,
                o.line.command,
                o.refusal()
            )
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "{summary}; refusals that name no switch or give no reason:\n{}",
        unexplained.join("\n")
    );

    // (a) At least 95 % are accepted.
    assert!(
        accepted as f64 >= REQUIRED_ACCEPTANCE * total as f64,
        "{summary}, {:.0} % required; refusals by switch:\n{report}",
        REQUIRED_ACCEPTANCE * 100.0
    );
}

#[test]
fn the_shell_split_and_the_target_rule_read_lines_as_diskspd_does() {
    assert_eq!(
        split_like_a_shell(r#"-b512K -h  -d300 "D:\my file.vbk""#),
        ["-b512K", "-h", "-d300", r"D:\my file.vbk"]
    );
    assert!(is_switch("-Suw") && is_switch("\u{2013}b8K") && is_switch("/?"));
    assert!(!is_switch("/dev/sdc1") && !is_switch("#1") && !is_switch("*1"));
    assert!(!is_switch(r"C:\run\testfile1.dat") && !is_switch("E:"));
    assert_eq!(switch_name("-rdpct90/10:0/10"), "-rdpct");
    assert_eq!(switch_name("\u{2013}Suw"), "-Suw");
    assert_eq!(switch_name("-b8K"), "-b");
    assert_eq!(switch_name(r"-XC:\run\profile.xml"), "-X");
    let profile = profile_for(2);
    assert!(profile.contains("<Path>*1</Path>") && profile.contains("<Path>*2</Path>"));
    assert!(profile.contains("<Duration>1</Duration>"));
    roxmltree::Document::parse(&profile).expect("well-formed");
    let with = |m| gives_a_reason(m, "-O");
    assert!(!with("diskmeter: diskspd -O4: not supported by diskmeter"));
    assert!(!with("diskmeter: diskspd -O4: unknown switch"));
    assert!(with(
        "diskmeter: diskspd -O4: outstanding IOs per thread need -F"
    ));
}
