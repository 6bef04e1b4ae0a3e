//! fio job files: the text format (sections, comments, `include`, variables) and its
//! resolution into jobs with fio 3.x's inheritance rules.
//!
//! The rules, each checked against fio 3.33 (tests/jobfile.rs compares with `fio --showcmd`):
//! * `[name]` starts a section; `[global]` holds defaults for the jobs *after* it, and a later
//!   `[global]` changes the defaults of the jobs after that one only. Sections with the same
//!   name are separate jobs.
//! * `key=value` sets an option; a bare `key` is a flag (`time_based`). Blanks around keys and
//!   values are ignored.
//! * `;` and `#` start a comment, also after an option (`rw=read ; sequential`), as in fio.
//! * `include FILE` inserts FILE's lines at that point (relative to the including file's
//!   folder).
//! * `${VAR}` is replaced by the environment variable VAR; an unset variable is an error (fio
//!   fails to parse the option). `$ncpus`, `$pagesize` and `$mb_memory` are built in.
//! * Options given on the command line before the job files are defaults that the files'
//!   `[global]` sections override, as fio does.
//!
//! Parsing is pure: files and variables come through [`Sources`], so no IO happens here.

use crate::{refusals, JobFileError, JobFileProblem};
use diskmeter_workload::{
    apply_option, find_option, nearest, suggest_option, JobSpec, OptionError,
};
use thiserror::Error;

/// fio's option names (see the file), for telling "not supported" from "unknown".
const FIO_OPTION_NAMES: &str = include_str!("fio_option_names.txt");

/// How deep `include` may nest before it is taken for a loop.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// Why [`Sources::include`] could not give a file.
#[derive(Debug, Error)]
pub enum IncludeError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file as resolved (relative to the including file's folder).
        path: String,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The sources hold no such file (sources other than a file system).
    #[error("no such file")]
    NotFound,
}

/// Why a `$` variable in a value cannot be expanded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExpandError {
    /// `${` with no `}`.
    #[error("'{value}': ${{ without a closing }}")]
    Unclosed {
        /// The value as written.
        value: String,
    },
    /// `${VAR}` of an unset environment variable (fio fails to parse the option too).
    #[error("environment variable {name} is not set (used as ${{{name}}})")]
    Unset {
        /// The variable's name.
        name: String,
    },
    /// fio's `$(...)` arithmetic.
    #[error("'{value}': fio's $(...) arithmetic is not supported; write the number")]
    Arithmetic {
        /// The value as written.
        value: String,
    },
    /// A `$name` that is not one of fio's built-ins.
    #[error(
        "'{value}': unknown variable ${name}; fio's are $ncpus, $pagesize and $mb_memory, and \
         ${{VAR}} reads the environment"
    )]
    UnknownBuiltin {
        /// The value as written.
        value: String,
        /// The name after `$`.
        name: String,
    },
}

/// Where job files and variables come from.
pub trait Sources {
    /// The text of `path` as named in an `include` of `from` (the including file's name).
    /// Returns the resolved name (for messages) and the text.
    fn include(&self, from: &str, path: &str) -> Result<(String, String), IncludeError>;
    /// An environment variable.
    fn var(&self, name: &str) -> Option<String>;
    /// fio's `$ncpus`, `$pagesize` and `$mb_memory`.
    fn builtin(&self, name: &str) -> Option<u64>;
}

/// Where a line came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file as named (the command line's path, or the include's resolved path).
    pub file: String,
    /// 1-based line number.
    pub line: usize,
}

/// One `key[=value]` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionLine {
    /// The option name as written (trimmed).
    pub key: String,
    /// The value after variable expansion; `None` for a bare flag.
    pub value: Option<String>,
    /// Where it was written.
    pub at: Location,
}

/// A `[section]` and its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets.
    pub name: String,
    /// Where the header is.
    pub at: Location,
    /// Its options in order.
    pub options: Vec<OptionLine>,
}

impl Section {
    /// `[global]`.
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// Parses one job file (and what it includes) into sections. Every problem is collected.
pub fn parse(
    file: &str,
    text: &str,
    sources: &dyn Sources,
) -> Result<Vec<Section>, Vec<JobFileError>> {
    let mut parser = Parser {
        sections: Vec::new(),
        errors: Vec::new(),
        sources,
    };
    parser.lines(file, text, 0);
    if parser.errors.is_empty() {
        Ok(parser.sections)
    } else {
        Err(parser.errors)
    }
}

struct Parser<'s> {
    sections: Vec<Section>,
    errors: Vec<JobFileError>,
    sources: &'s dyn Sources,
}

impl Parser<'_> {
    fn lines(&mut self, file: &str, text: &str, depth: usize) {
        for (i, raw) in text.lines().enumerate() {
            let at = Location {
                file: file.to_string(),
                line: i + 1,
            };
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                match rest.strip_suffix(']').map(str::trim) {
                    Some(name) if !name.is_empty() => self.sections.push(Section {
                        name: name.to_string(),
                        at,
                        options: Vec::new(),
                    }),
                    _ => self.error(at, None, JobFileProblem::SectionHeader),
                }
                continue;
            }
            if let Some(path) = include_target(line) {
                if depth >= MAX_INCLUDE_DEPTH {
                    self.error(
                        at,
                        None,
                        JobFileProblem::IncludeTooDeep {
                            path: path.to_string(),
                        },
                    );
                    continue;
                }
                match self.sources.include(file, path) {
                    Ok((name, text)) => self.lines(&name, &text, depth + 1),
                    Err(source) => self.error(
                        at,
                        None,
                        JobFileProblem::Include {
                            path: path.to_string(),
                            source,
                        },
                    ),
                }
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (line, None),
            };
            if key.is_empty() {
                self.error(at, None, JobFileProblem::NoKey);
                continue;
            }
            let value = match value.map(|v| expand(v, self.sources)).transpose() {
                Ok(v) => v,
                Err(problem) => {
                    self.error(at, Some(key), problem.into());
                    continue;
                }
            };
            let option = OptionLine {
                key: key.to_string(),
                value,
                at: at.clone(),
            };
            match self.sections.last_mut() {
                Some(section) => section.options.push(option),
                None => self.error(at, Some(key), JobFileProblem::OutsideSection),
            }
        }
    }

    fn error(&mut self, at: Location, option: Option<&str>, problem: JobFileProblem) {
        self.errors.push(JobFileError {
            file: at.file,
            line: at.line,
            option: option.map(str::to_string),
            problem,
        });
    }
}

/// The line without its comment: from the first `;` or `#` on, as fio strips them.
fn strip_comment(line: &str) -> &str {
    match line.find([';', '#']) {
        Some(i) => &line[..i],
        None => line,
    }
}

/// `include FILE` -> `FILE`.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let path = rest.trim();
    (!path.is_empty() && !path.contains('=')).then_some(path)
}

/// The variables of `filename_format`, kept as written for the planner to replace.
const FILENAME_FORMAT_VARIABLES: &[&str] = &["jobname", "jobnum", "filenum", "clientuid"];

/// Expands `${VAR}` and fio's built-in `$ncpus`, `$pagesize`, `$mb_memory`; keeps
/// `filename_format`'s `$jobname`, `$jobnum`, `$filenum` and `$clientuid`.
fn expand(value: &str, sources: &dyn Sources) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').ok_or_else(|| ExpandError::Unclosed {
                value: value.to_string(),
            })?;
            let name = &body[..end];
            let var = sources.var(name).ok_or_else(|| ExpandError::Unset {
                name: name.to_string(),
            })?;
            out.push_str(&var);
            rest = &body[end + 1..];
            continue;
        }
        if after.starts_with('(') {
            return Err(ExpandError::Arithmetic {
                value: value.to_string(),
            });
        }
        let name_len = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        let name = &after[..name_len];
        // filename_format's own variables are replaced per file when the job is planned.
        if FILENAME_FORMAT_VARIABLES.contains(&name) {
            out.push('$');
            out.push_str(name);
            rest = &after[name_len..];
            continue;
        }
        match sources.builtin(name) {
            Some(n) => out.push_str(&n.to_string()),
            None => {
                return Err(ExpandError::UnknownBuiltin {
                    value: value.to_string(),
                    name: name.to_string(),
                })
            }
        }
        rest = &after[name_len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// What to do with fio options diskmeter does not implement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unsupported {
    /// An error (exit 2), the default: never silently ignore an option.
    #[default]
    Refuse,
    /// A warning, and the option is skipped (`--ignore-unsupported`).
    Warn,
}

/// The jobs of parsed sections, starting from `defaults` (the command line's options).
///
/// Returns the jobs and the warnings (skipped unsupported options), or every error.
pub fn resolve(
    sections: &[Section],
    defaults: &JobSpec,
    unsupported: Unsupported,
) -> Result<(Vec<JobSpec>, Vec<JobFileError>), Vec<JobFileError>> {
    let mut globals = defaults.clone();
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for section in sections {
        let mut job = JobSpec {
            name: section.name.clone(),
            ..globals.clone()
        };
        for option in &section.options {
            let Err(error) = apply_option(&mut job, &option.key, option.value.as_deref()) else {
                continue;
            };
            let located = locate(option, error, unsupported);
            match (located.unsupported(), unsupported) {
                (true, Unsupported::Warn) => warnings.push(located),
                _ => errors.push(located),
            }
        }
        if section.is_global() {
            let name = std::mem::take(&mut globals.name);
            globals = JobSpec { name, ..job };
        } else {
            jobs.push(job);
        }
    }
    if errors.is_empty() {
        Ok((jobs, warnings))
    } else {
        Err(errors)
    }
}

fn locate(option: &OptionLine, error: OptionError, policy: Unsupported) -> JobFileError {
    let skipped = policy == Unsupported::Warn;
    let value = option.value.as_deref();
    let refused = |name: String, reason| JobFileProblem::Refused {
        name,
        reason,
        skipped,
    };
    let problem = match error {
        OptionError::Unknown { name, .. } => match refusals::refusal(&name, value) {
            Some(reason) => refused(name, reason),
            None if is_fio_option(&name) => JobFileProblem::Unsupported { name, skipped },
            None => {
                let suggestion =
                    suggest_option(&name).or_else(|| nearest(&name, fio_option_names()));
                JobFileProblem::UnknownOption { name, suggestion }
            }
        },
        other => match value.and_then(|v| refusals::value_refusal(&option.key, v)) {
            Some(reason) => refused(option.key.clone(), reason),
            None => JobFileProblem::Option(other),
        },
    };
    JobFileError {
        file: option.at.file.clone(),
        line: option.at.line,
        option: Some(option.key.clone()),
        problem,
    }
}

fn fio_option_names() -> impl Iterator<Item = &'static str> {
    FIO_OPTION_NAMES
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Whether fio knows `name` (and diskmeter does not, or it would have been applied).
pub fn is_fio_option(name: &str) -> bool {
    find_option(name).is_none() && fio_option_names().any(|n| n == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Job files and variables held in memory.
    #[derive(Default)]
    pub(crate) struct Memory {
        pub files: HashMap<String, String>,
        pub vars: HashMap<String, String>,
    }

    impl Sources for Memory {
        fn include(&self, _from: &str, path: &str) -> Result<(String, String), IncludeError> {
            self.files
                .get(path)
                .map(|t| (path.to_string(), t.clone()))
                .ok_or(IncludeError::NotFound)
        }
        fn var(&self, name: &str) -> Option<String> {
            self.vars.get(name).cloned()
        }
        fn builtin(&self, name: &str) -> Option<u64> {
            match name {
                "ncpus" => Some(2),
                "pagesize" => Some(4096),
                "mb_memory" => Some(24_000),
                _ => None,
            }
        }
    }

    fn jobs(text: &str) -> Vec<JobSpec> {
        let sections = parse("t.fio", text, &Memory::default()).unwrap();
        resolve(&sections, &JobSpec::default(), Unsupported::Refuse)
            .unwrap()
            .0
    }

    #[test]
    fn globals_reach_only_the_jobs_after_them_and_duplicates_are_separate_jobs() {
        let j = jobs("[global]\nbs=4k\n[a]\n[global]\nbs=16k\n[b]\n[b]\niodepth=8\n");
        let names: Vec<&str> = j.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "b"]);
        assert_eq!(j[0].bs_bytes.read, 4096);
        assert_eq!(j[1].bs_bytes.read, 16384);
        assert_eq!((j[1].iodepth, j[2].iodepth), (1, 8));
    }

    #[test]
    fn comments_flags_blanks_and_variables() {
        let mut m = Memory::default();
        m.vars.insert("SIZE".into(), "2m".into());
        let text = "# top\n; also\n[global]\n  rw = read ; trailing\nsize=${SIZE} # hash\niodepth=$ncpus\n[j]\ntime_based\nruntime=1\n";
        let sections = parse("t.fio", text, &m).unwrap();
        let (j, _) = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap();
        assert_eq!(j.len(), 1);
        assert_eq!(j[0].size_bytes, Some(2 << 20));
        assert_eq!(j[0].iodepth, 2);
        assert!(j[0].time_based);
        let line = &sections[0].options[0];
        assert_eq!(
            (line.key.as_str(), line.value.as_deref(), line.at.line),
            ("rw", Some("read"), 4)
        );
    }

    #[test]
    fn include_inserts_lines_in_place() {
        let mut m = Memory::default();
        m.files.insert("inc.fio".into(), "bs=8k\n".into());
        let sections = parse("t.fio", "[global]\ninclude inc.fio\n[a]\n", &m).unwrap();
        assert_eq!(sections[0].options[0].at.file, "inc.fio");
        let (j, _) = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap();
        assert_eq!(j[0].bs_bytes.read, 8192);
        m.files
            .insert("loop.fio".into(), "include loop.fio\n".into());
        let e = parse("t.fio", "include loop.fio\n", &m).unwrap_err();
        assert!(e[0].to_string().contains("a loop?"), "{}", e[0]);
    }

    #[test]
    fn errors_name_file_line_and_option() {
        let m = Memory::default();
        let e = parse("t.fio", "[a]\nsize=${NOPE}\nbs=$nope\n[\nrw=read\n", &m).unwrap_err();
        let text: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert!(
            text[0].starts_with("t.fio:2: size: environment variable NOPE is not set"),
            "{text:?}"
        );
        assert!(text[1].starts_with("t.fio:3: bs:"), "{text:?}");
        assert!(text[2].starts_with("t.fio:4:"), "{text:?}");
        let e = parse("t.fio", "rw=read\n", &m).unwrap_err();
        assert!(
            e[0].to_string().contains("outside any [section]"),
            "{}",
            e[0]
        );

        let sections = parse(
            "t.fio",
            "[a]\niodpeth=4\ncgroup_weight=100\nblah=1\nbs=4q\n",
            &m,
        )
        .unwrap();
        let e = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap_err();
        let text: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(text.len(), 4, "{text:?}");
        assert!(
            text[0].starts_with(
                "t.fio:2: iodpeth: unknown option 'iodpeth' (did you mean 'iodepth'?)"
            ),
            "{text:?}"
        );
        assert!(
            text[1].starts_with("t.fio:3: cgroup_weight: fio option 'cgroup_weight' cannot apply"),
            "{text:?}"
        );
        assert!(text[2].contains("unknown option 'blah'"), "{text:?}");
        assert!(text[3].starts_with("t.fio:5: bs: bs=4q:"), "{text:?}");
    }

    #[test]
    fn options_that_cannot_apply_are_refused_with_their_reason() {
        let m = Memory::default();
        let text = "[a]\nioengine=xnvme\ngpu_dev_id=0\nhostname=h\nnum_range=8\nuid=0\n";
        let sections = parse("t.fio", text, &m).unwrap();
        let e = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap_err();
        let text: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(text.len(), 5, "{text:?}");
        assert!(
            text[0].starts_with(
                "t.fio:2: ioengine: fio option 'ioengine' cannot apply in \
                 diskmeter: fio's xnvme engine (a fio built with other libraries) is not one \
                 diskmeter has"
            ),
            "{text:?}"
        );
        assert!(text[1].starts_with("t.fio:3: gpu_dev_id:") && text[1].contains("CUDA"));
        assert!(
            text[2].contains("net/netsplice/rdma/libhdfs engines"),
            "{text:?}"
        );
        assert!(text[3].contains("fio releases after 3.33"), "{text:?}");
        assert!(text[4].contains("thread of one process"), "{text:?}");
        let (_, warnings) = resolve(&sections[..], &JobSpec::default(), Unsupported::Warn)
            .map(|(jobs, w)| (jobs, w.len()))
            .unwrap();
        assert_eq!(warnings, 5);
    }

    #[test]
    fn ignore_unsupported_turns_only_unsupported_options_into_warnings() {
        let m = Memory::default();
        let sections = parse("t.fio", "[a]\ncgroup_weight=100\ngpu_dev_id=0\nbs=8k\n", &m).unwrap();
        let (j, warnings) = resolve(&sections, &JobSpec::default(), Unsupported::Warn).unwrap();
        assert_eq!(j[0].bs_bytes.read, 8192);
        assert_eq!(warnings.len(), 2);
        let sections = parse("t.fio", "[a]\nbssplt=4k/100\n", &m).unwrap();
        let e = resolve(&sections, &JobSpec::default(), Unsupported::Warn).unwrap_err();
        assert!(
            e[0].to_string().contains("did you mean 'bssplit'"),
            "{}",
            e[0]
        );
    }

    #[test]
    fn command_line_defaults_are_overridden_by_the_files_globals() {
        let m = Memory::default();
        let defaults = JobSpec {
            iodepth: 2,
            bs_bytes: diskmeter_workload::PerDirection::both(8192),
            ..JobSpec::default()
        };
        let sections = parse("t.fio", "[global]\nbs=4k\n[a]\n", &m).unwrap();
        let (j, _) = resolve(&sections, &defaults, Unsupported::Refuse).unwrap();
        assert_eq!((j[0].bs_bytes.read, j[0].iodepth), (4096, 2));
    }
}
