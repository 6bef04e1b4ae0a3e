//! Files of results merged step by step (`diskmeter merge FILE...`): each file's text is one
//! result or a document of steps (a suite's JSON, `diskmeter export`), the files must hold
//! the same steps, and every error names the files it is about. Pure: the caller reads them.

use super::{merge_ranks, MergeError};
use crate::schema::RunResult;
use crate::ReportError;
use serde_json::Value;
use thiserror::Error;

/// Why files could not be merged; each message names the file(s).
#[derive(Debug, Error)]
pub enum MergeFilesError {
    /// A file is not a result, nor a document of steps of results.
    #[error("{path}: {why}")]
    NotResults {
        /// The file as named.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// Two files hold different numbers of steps.
    #[error("{path} holds {steps} step(s) but {first} holds {first_steps}: merge results of the same command")]
    StepsDiffer {
        /// The file that differs.
        path: String,
        /// Its steps.
        steps: usize,
        /// The first file.
        first: String,
        /// Its steps.
        first_steps: usize,
    },
    /// The merge of a step was refused; `step` is "step N (NAME): " when there are several.
    #[error("{step}cannot merge: {error}{named}")]
    Refused {
        /// The step, when the files hold several.
        step: String,
        /// The library's reason.
        error: Box<MergeError>,
        /// " (input 1 is FILE, ...)": the files the reason is about.
        named: String,
    },
}

/// Named steps' results: a single result is one unnamed step.
#[derive(Debug, Clone, Default)]
pub struct Steps {
    /// The steps' names.
    pub names: Vec<String>,
    /// Their results.
    pub results: Vec<RunResult>,
}

impl Steps {
    /// Reads file `path`'s `text`: a result, or a document of steps
    /// (`{"steps": [{"name", "result"}]}`, as a suite's JSON and `diskmeter export` write them).
    pub fn parse(path: &str, text: &str) -> Result<Steps, MergeFilesError> {
        let refused = |why: String| MergeFilesError::NotResults {
            path: path.to_string(),
            why,
        };
        let doc = match crate::upgrade_json(text) {
            Ok(result) => return Ok(Steps::one(result)),
            Err(ReportError::NotAResult) => serde_json::from_str::<Value>(text),
            Err(error) => return Err(refused(error.to_string())),
        };
        let doc = doc.map_err(|e| refused(e.to_string()))?;
        let steps = doc.get("steps").and_then(Value::as_array).ok_or_else(|| {
            refused(
                "not a diskmeter result: it has no schema_version, and no steps[] of \
                 results (a suite's or an export's)"
                    .into(),
            )
        })?;
        let mut out = Steps::default();
        for (index, step) in steps.iter().enumerate() {
            let name = step.get("name").and_then(Value::as_str).unwrap_or_default();
            let result = step
                .get("result")
                .ok_or_else(|| refused(format!("step {} has no result", index + 1)))?;
            let result = crate::upgrade_json(&result.to_string())
                .map_err(|e| refused(format!("step {} ({name}): {e}", index + 1)))?;
            out.names.push(name.to_string());
            out.results.push(result);
        }
        if out.results.is_empty() {
            return Err(refused("it holds no steps".into()));
        }
        Ok(out)
    }

    fn one(result: RunResult) -> Steps {
        Steps {
            names: vec![String::new()],
            results: vec![result],
        }
    }

    /// Whether a step's run failed or was interrupted.
    pub fn failed(&self) -> bool {
        let failed = |r: &RunResult| r.meta.partial || r.jobs.iter().any(|j| j.error.is_some());
        self.results.iter().any(failed)
    }
}

/// Merges the files `paths` (non-empty), read as `read`, step by step with [`merge_ranks`].
pub fn merge_files(paths: &[String], read: Vec<Steps>) -> Result<Steps, MergeFilesError> {
    let steps = read[0].results.len();
    let names = read[0].names.clone();
    if let Some((path, other)) = paths
        .iter()
        .zip(&read)
        .find(|(_, f)| f.results.len() != steps)
    {
        return Err(MergeFilesError::StepsDiffer {
            path: path.clone(),
            steps: other.results.len(),
            first: paths[0].clone(),
            first_steps: steps,
        });
    }
    let mut per_step: Vec<Vec<RunResult>> = (0..steps).map(|_| Vec::new()).collect();
    for file in read {
        for (step, result) in file.results.into_iter().enumerate() {
            per_step[step].push(result);
        }
    }
    let mut merged = Vec::with_capacity(steps);
    for (step, results) in per_step.into_iter().enumerate() {
        merged.push(merge_ranks(results).map_err(|error| {
            let named: Vec<String> = error
                .inputs()
                .iter()
                .filter_map(|&i| paths.get(i).map(|f| format!("input {} is {f}", i + 1)))
                .collect();
            MergeFilesError::Refused {
                step: match steps {
                    1 => String::new(),
                    _ => format!("step {} ({}): ", step + 1, names[step]),
                },
                error: Box::new(error),
                named: match named.is_empty() {
                    true => String::new(),
                    false => format!(" ({})", named.join(", ")),
                },
            }
        })?);
    }
    Ok(Steps {
        names,
        results: merged,
    })
}
