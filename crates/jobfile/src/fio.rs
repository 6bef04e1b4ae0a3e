//! fio job files: the text format (sections, comments, `include`, variables) and its
//! resolution into jobs with fio 3.x's inheritance rules.
//!
//! The rules, each checked against fio 3.33 (tests/parallel/jobfile.rs compares with `fio --showcmd`):
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

pub mod files;

use crate::{refusals, JobFileError, JobFileProblem};
use diskmeter_workload::given::TypedOptions;
use diskmeter_workload::{apply_option, find_option, nearest, JobSpec, OptionError};
use thiserror::Error;

/// fio's option names (see the file), for telling "not supported" from "unknown".
const FIO_OPTION_NAMES: &str = include_str!("fio_option_names.txt");

/// How deep `include` may nest before it is taken for a loop.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// How many `include`s one job file may read in all, nested ones counted. A file that
/// includes another several times, which includes another several times, multiplies the
/// lines to read at every level: the cap keeps the parse linear in what was written.
pub const MAX_INCLUDES: usize = 256;

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
        reading: vec![file.to_string()],
        includes: 0,
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
    /// The files being read, outermost first: an include of one of them is a loop.
    reading: Vec<String>,
    /// `include`s read so far, for [`MAX_INCLUDES`].
    includes: usize,
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
                if self.includes >= MAX_INCLUDES {
                    self.error(
                        at,
                        None,
                        JobFileProblem::TooManyIncludes {
                            path: path.to_string(),
                        },
                    );
                    continue;
                }
                self.includes += 1;
                match self.sources.include(file, path) {
                    Ok((name, _)) if self.reading.contains(&name) => {
                        let chain = self.reading.join(" -> ");
                        self.error(
                            at,
                            None,
                            JobFileProblem::IncludeLoop {
                                path: path.to_string(),
                                chain: format!("{chain} -> {name}"),
                            },
                        )
                    }
                    Ok((name, text)) => {
                        self.reading.push(name.clone());
                        self.lines(&name, &text, depth + 1);
                        self.reading.pop();
                    }
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
        // fio sorts a section's options by priority before reading them (`sort_options`,
        // parse.c, from `fio_options_parse`): `kb_base` (priority 1) applies to the whole
        // section wherever it stands. (On the command line fio reads options in order.)
        let (kb_base, others): (Vec<&OptionLine>, Vec<&OptionLine>) = section
            .options
            .iter()
            .partition(|option| option.key == "kb_base");
        for option in kb_base.into_iter().chain(others) {
            let readings = job.compat.value_readings.len();
            let Err(error) = apply_option(&mut job, &option.key, option.value.as_deref()) else {
                // A value fio reads other than written was read as fio reads it: a warning
                // now, and a `--dry-run` note that says where.
                for note in &mut job.compat.value_readings[readings..] {
                    let located = JobFileError {
                        file: option.at.file.clone(),
                        line: option.at.line,
                        option: None,
                        problem: JobFileProblem::ReadAsFio {
                            note: std::mem::take(note),
                        },
                    };
                    *note = located.to_string();
                    warnings.push(located);
                }
                continue;
            };
            let located = locate(option, error, unsupported);
            if located.skipped() {
                warnings.push(located);
            } else {
                errors.push(located);
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

/// The options of `sections` as fio lists them in its JSON (see
/// [`diskmeter_workload::given`]): those of every `[global]` section in order, and each job's
/// own, one list per job in the order [`resolve`] returns the jobs. Section names are not
/// listed, nor flags written without a value.
pub fn given_options(sections: &[Section]) -> (TypedOptions, Vec<TypedOptions>) {
    let mut global = Vec::new();
    let mut jobs = Vec::new();
    for section in sections {
        let listed = section
            .options
            .iter()
            .filter_map(|o| diskmeter_workload::given::listed(&o.key, o.value.as_deref()));
        if section.is_global() {
            global.extend(listed);
        } else {
            jobs.push(listed.collect());
        }
    }
    (global, jobs)
}

fn locate(option: &OptionLine, error: OptionError, policy: Unsupported) -> JobFileError {
    let skipped = policy == Unsupported::Warn;
    let value = option.value.as_deref();
    let refused = |name: String, reason| JobFileProblem::Refused {
        name,
        // fio itself ignores a soft-deprecated option, so it is never an error.
        skipped: skipped || reason == refusals::Refusal::RetiredIgnored,
        reason,
    };
    let problem = match error {
        OptionError::Unknown { name, suggestion } => match refusals::refusal(&name, value) {
            Some(reason) => refused(name, reason),
            None if is_fio_option(&name) => JobFileProblem::Unsupported { name, skipped },
            None => {
                // apply_option already looked for the nearest of diskmeter's names.
                let suggestion = suggestion.or_else(|| nearest(&name, fio_option_names()));
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
mod tests;
