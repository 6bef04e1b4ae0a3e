//! fio job files: the text (sections, options, comments, `include`, `${VAR}` and fio's
//! built-in variables), the options before the files on the command line, and what
//! `diskmeter run FILE --dry-run` does with the jobs short of touching a file: resolve them
//! with fio's inheritance rules, validate each, describe it and note where fio reads it
//! differently.
//!
//! An input is a bundle (saved as JSON): the main file, the files it may include, the
//! environment, and the command-line options. Promises checked: every error names a file of
//! the bundle and a line that file has, as `FILE:LINE: `; no message is empty.

use crate::gen::Gen;
use crate::options::Options;
use crate::seeds::SeedFile;
use crate::{refused, Target, Verdict};
use diskmeter_jobfile::fio::{self, IncludeError, Sources, Unsupported};
use diskmeter_jobfile::JobFileError;
use diskmeter_workload::{describe, fio_reading_notes, jobs_from_options_over, validate, JobSpec};
use serde::{Deserialize, Serialize};

/// One input: a job file, what it can include, its environment and command line.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Bundle {
    /// The job file's name, as given on the command line.
    pub file: String,
    /// Its text.
    pub text: String,
    /// Files an `include` can name: (name as written, text).
    #[serde(default)]
    pub includes: Vec<(String, String)>,
    /// Environment variables: (name, value).
    #[serde(default)]
    pub vars: Vec<(String, String)>,
    /// Options given before the job files: (name, value).
    #[serde(default)]
    pub defaults: Vec<(String, Option<String>)>,
    /// `--ignore-unsupported`.
    #[serde(default)]
    pub ignore_unsupported: bool,
}

impl Bundle {
    /// A saved input: a JSON bundle, or else a job file's bare text.
    pub fn decode(input: &[u8]) -> Bundle {
        let text = String::from_utf8_lossy(input);
        serde_json::from_str(&text).unwrap_or_else(|_| Bundle {
            file: "job.fio".to_string(),
            text: text.into_owned(),
            ..Bundle::default()
        })
    }

    /// The text of the bundle's file `name` (the main file or an include).
    fn text_of(&self, name: &str) -> Option<&str> {
        if name == self.file {
            return Some(&self.text);
        }
        self.includes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }
}

/// The bundle's files and variables, with fio's built-ins as this machine's might be.
impl Sources for Bundle {
    fn include(&self, _from: &str, path: &str) -> Result<(String, String), IncludeError> {
        self.includes
            .iter()
            .find(|(name, _)| name == path)
            .map(|(name, text)| (name.clone(), text.clone()))
            .ok_or(IncludeError::NotFound)
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    fn builtin(&self, name: &str) -> Option<u64> {
        match name {
            "ncpus" => Some(2),
            "pagesize" => Some(4096),
            "mb_memory" => Some(23_000),
            _ => None,
        }
    }
}

/// The job-file target.
pub struct JobFiles {
    seeds: Vec<SeedFile>,
    seed_texts: Vec<String>,
    options: Options,
    dictionary: Vec<&'static str>,
}

/// Tokens of the job-file grammar, inserted by mutations.
const GRAMMAR_TOKENS: &[&str] = &[
    "[global]",
    "[",
    "]",
    "=",
    "include ",
    "include",
    "${",
    "}",
    "$ncpus",
    "$pagesize",
    "$mb_memory",
    "$(1+1)",
    "$jobnum",
    "$filenum",
    "$jobname",
    "${DM_SIZE}",
    "${UNSET}",
    ";",
    "#",
    "\n",
    "\r\n",
    " ",
    "\t",
    ",",
    ":",
    "/",
    "-",
    "%",
    "\\:",
];

impl JobFiles {
    /// The target, mutating `seeds` (job files and their includes).
    pub fn new(seeds: Vec<SeedFile>) -> JobFiles {
        let options = Options::new(seeds.iter().map(|s| s.text.as_str()));
        let mut dictionary: Vec<&'static str> = options.names.clone();
        dictionary.extend(GRAMMAR_TOKENS);
        JobFiles {
            seed_texts: seeds.iter().map(|s| s.text.clone()).collect(),
            seeds,
            options,
            dictionary,
        }
    }

    fn bundle(&self, g: &mut Gen) -> Bundle {
        let mut bundle = Bundle {
            file: "job.fio".to_string(),
            ..Bundle::default()
        };
        let include_names: Vec<String> = (0..g.count(4)).map(|i| format!("inc{i}.fio")).collect();
        bundle.vars = (0..g.count(4))
            .map(|_| {
                let name = g
                    .pick(&["DM_SIZE", "DM_DIR", "SIZE", "X", "", "A B"])
                    .to_string();
                let value = match g.below(3) {
                    0 => {
                        let option = self.options.name(g);
                        self.options.value(g, &option)
                    }
                    1 => crate::options::any_value(g),
                    _ => g.size(),
                };
                (name, value)
            })
            .collect();
        let from_seed = !self.seeds.is_empty() && g.percent(55);
        if from_seed {
            let seed = g.pick(&self.seeds);
            bundle.file = seed.name.clone();
            bundle.text = if g.one_in(10) {
                seed.text.clone()
            } else {
                crate::mutate::mutate(g, &seed.text, &self.dictionary, &self.seed_texts, 8)
            };
            // The seeds' includes (and any other seed) can be named by their file names.
            for other in &self.seeds {
                if other.name.ends_with(".inc") || g.one_in(40) {
                    bundle
                        .includes
                        .push((other.name.clone(), other.text.clone()));
                }
            }
        } else {
            bundle.text = self.grammar_file(g, &include_names, true);
        }
        for name in &include_names {
            let sections = g.one_in(2);
            let text = self.grammar_file(g, &include_names, sections);
            bundle.includes.push((name.clone(), text));
        }
        if g.one_in(8) {
            // An include that includes itself, or the main file, more than once.
            let target = if g.one_in(2) {
                bundle.file.clone()
            } else {
                "bomb.fio".to_string()
            };
            let line = format!("include {target}\n");
            bundle
                .includes
                .push(("bomb.fio".into(), line.repeat(g.range(1, 6) as usize)));
            bundle.text.push_str("\ninclude bomb.fio\n");
        }
        let defaults = if g.one_in(4) { g.count(3) } else { 0 };
        bundle.defaults = (0..defaults)
            .map(|_| {
                let name = self.options.name(g);
                let value = (!g.one_in(6)).then(|| self.options.value(g, &name));
                (name, value)
            })
            .filter(|(name, _)| name != "name")
            .collect();
        bundle.ignore_unsupported = g.one_in(3);
        bundle
    }

    /// A job file from the grammar; `sections` false gives an include's bare option lines.
    fn grammar_file(&self, g: &mut Gen, includes: &[String], sections: bool) -> String {
        let mut lines: Vec<String> = Vec::new();
        if g.one_in(4) {
            lines.push(format!("; {}", g.word(12)));
        }
        let jobs = if sections { g.count(30) } else { 0 };
        if !sections || g.one_in(2) {
            if sections {
                lines.push(self.header(g, "global"));
            }
            self.option_lines(g, includes, &mut lines);
        }
        for _ in 0..jobs {
            let name = match g.below(6) {
                0 => "global".to_string(),
                1 => g.odd().to_string(),
                _ => {
                    let len = g.range(1, 10) as usize;
                    g.word(len)
                }
            };
            lines.push(self.header(g, &name));
            self.option_lines(g, includes, &mut lines);
        }
        let newline = if g.one_in(10) { "\r\n" } else { "\n" };
        let mut text = lines.join(newline);
        if !g.one_in(5) {
            text.push_str(newline);
        }
        text
    }

    fn header(&self, g: &mut Gen, name: &str) -> String {
        match g.below(40) {
            0 => format!("[{name}"),
            1 => "[]".to_string(),
            2..=5 => format!("[ {name} ]"),
            6..=9 => format!("[{name}] ; comment"),
            _ => format!("[{name}]"),
        }
    }

    fn option_lines(&self, g: &mut Gen, includes: &[String], lines: &mut Vec<String>) {
        for _ in 0..g.count(12) {
            let line = match g.below(24) {
                0 if !includes.is_empty() => format!("include {}", g.pick(includes)),
                1 => format!("include {}", g.word(6)),
                2 => String::new(),
                3 => format!("# {}", g.odd()),
                _ => self.option_line(g),
            };
            lines.push(line);
        }
    }

    fn option_line(&self, g: &mut Gen) -> String {
        let name = self.options.name(g);
        if g.one_in(8) {
            return name;
        }
        let mut value = self.options.value(g, &name);
        match g.below(16) {
            0 => value = format!("${{{}}}", g.pick(&["DM_SIZE", "SIZE", "X", "UNSET", ""])),
            1 => value.push_str(g.word_of(&[
                "$ncpus",
                "$pagesize",
                "$mb_memory",
                "$nope",
                "$",
                "${",
            ])),
            2 => value = format!("$(({value}))"),
            3 => value.push_str(" ; comment"),
            _ => {}
        }
        let eq = g.word_of(&["=", "=", "=", " = ", "= ", " ="]);
        format!("{name}{eq}{value}")
    }
}

impl Target for JobFiles {
    fn name(&self) -> &'static str {
        "jobfile"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        serde_json::to_vec_pretty(&self.bundle(g)).unwrap_or_default()
    }

    fn check(&self, input: &[u8]) -> Verdict {
        check_bundle(&Bundle::decode(input))
    }
}

/// `diskmeter run [OPTIONS] FILE --dry-run` on a bundle, short of planning the targets.
pub fn check_bundle(bundle: &Bundle) -> Verdict {
    let base = JobSpec::fio_job_file_default();
    let defaults = match jobs_from_options_over(&base, &bundle.defaults) {
        Ok(jobs) => jobs.into_iter().next().unwrap_or(base),
        Err(errors) => return refused(errors.first().map(ToString::to_string).unwrap_or_default()),
    };
    let sections = match fio::parse(&bundle.file, &bundle.text, bundle) {
        Ok(sections) => sections,
        Err(errors) => return located(bundle, &errors),
    };
    let policy = if bundle.ignore_unsupported {
        Unsupported::Warn
    } else {
        Unsupported::Refuse
    };
    let (jobs, warnings) = match fio::resolve(&sections, &defaults, policy) {
        Ok(resolved) => resolved,
        Err(errors) => return located(bundle, &errors),
    };
    if let Verdict::Broken(why) = located(bundle, &warnings) {
        return Verdict::Broken(format!("a warning: {why}"));
    }
    if jobs.is_empty() {
        return refused(format!("{}: no jobs (only [global] sections)", bundle.file));
    }
    let mut first_problem = None;
    for job in &jobs {
        for problem in validate(job) {
            if problem.message.trim().is_empty() || problem.option.is_empty() {
                return Verdict::Broken(format!(
                    "a validation error without its reason: {problem}"
                ));
            }
            first_problem.get_or_insert_with(|| problem.to_string());
        }
        // What --dry-run prints: the job as options, fio's readings, the files it names.
        let _ = describe(job);
        let _ = fio_reading_notes(job);
        for file in 0..job.nrfiles.clamp(1, 4) {
            let _ = job.files.file_name(&job.name, 0, file);
        }
    }
    match first_problem {
        Some(problem) => refused(problem),
        None => crate::dryrun::plan(&jobs),
    }
}

/// Refused with the first error when every error names a file of the bundle and one of its
/// lines (`FILE:LINE: `); broken otherwise. Accepted for no errors.
fn located(bundle: &Bundle, errors: &[JobFileError]) -> Verdict {
    // Lines per file, counted once: a file can have thousands of errors.
    let mut line_counts: Vec<(&str, usize)> = Vec::new();
    for error in errors {
        let message = error.to_string();
        let lines = match line_counts.iter().find(|(file, _)| *file == error.file) {
            Some(&(_, lines)) => lines,
            None => {
                let Some(text) = bundle.text_of(&error.file) else {
                    return Verdict::Broken(format!("names a file the bundle lacks: {message}"));
                };
                line_counts.push((&error.file, text.lines().count()));
                text.lines().count()
            }
        };
        if error.line == 0 || error.line > lines {
            return Verdict::Broken(format!(
                "names line {} of {} ({lines} lines): {message}",
                error.line, error.file
            ));
        }
        let prefix = format!("{}:{}: ", error.file, error.line);
        let rest = message.strip_prefix(&prefix).unwrap_or("");
        if rest.trim().is_empty() {
            return Verdict::Broken(format!("no 'FILE:LINE: why' message: {message:?}"));
        }
        if let Some(option) = &error.option {
            if !rest.starts_with(&format!("{option}: ")) {
                return Verdict::Broken(format!("does not name its option {option:?}: {message}"));
            }
        }
    }
    match errors.first() {
        Some(error) => refused(error.to_string()),
        None => Verdict::Accepted,
    }
}
