//! `diskmeter merge FILE...`: the JSON results of several hosts (ranks) of one run merged
//! exactly into the aggregate (`diskmeter_report::merge::merge_ranks`), rendered in the usual
//! formats (`diskmeter_report::output_format::render_steps`). Here only reading the files
//! and naming them in errors.

use crate::{write_output, Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_report::merge::{merge_ranks, MergeError};
use diskmeter_report::output_format::render_steps;
use diskmeter_report::{ReportError, RunResult};
use serde_json::Value;

/// The `merge` subcommand.
pub fn command() -> Command {
    Command::new("merge")
        .about("Merge the JSON results of several hosts (ranks) of one run exactly")
        .long_about(
            "Merges diskmeter JSON results (`--output-format json` of `run`, one file per \
             host or rank: an MPI run's ranks, a Kubernetes Indexed Job's pods, hosts run by \
             hand) into the aggregate, exactly: counters are summed and the latency \
             histograms every result carries are merged, so the percentiles are those of \
             all the ranks' IOs together, not an average of percentiles. Rates are fio's \
             group_reporting rates (bytes over the longest rank's runtime); the scale-out \
             figures add IOR's aggregate bandwidth and IOPS (total over the time from the \
             earliest start to the latest end) beside the sum of the ranks' own rates, and \
             each stonewall phase's start skew between the ranks.\n\n\
             Rank order is each result's rank (`run --rank`, MPI) when every file has one, \
             else the order of the files. The results must be of the same workload: the \
             same jobs with the same options, except where each host's files are \
             (filename, directory, filename_format), its offset in a shared file, its CPUs \
             and memory nodes, its log paths and its pre/post commands. Results of a \
             diskmeter before result schema 4 carry no histograms and are refused. Files \
             of several steps (a suite's `--output-format json`, `diskmeter export`) are \
             merged step by step.\n\n\
             The merged run is not saved in the history.\n\n\
             Exit codes: 0 ok; 1 a rank failed or was interrupted (the aggregate is still \
             written); 2 a file cannot be read or the results cannot be merged.",
        )
        .arg(
            Arg::new("files")
                .value_name("FILE")
                .num_args(1..)
                .required(true)
                .action(ArgAction::Append)
                .help("diskmeter JSON results, one per host or rank"),
        )
        .arg(
            Arg::new("output-format")
                .long("output-format")
                .value_name("FORMAT[,FORMAT...]")
                .value_parser(crate::formats::list_parser(crate::formats::RESULT_FORMATS))
                .default_value("normal")
                .help("normal (aggregate, per-rank table, scale-out figures), json (diskmeter's schema with ranks[] and scale_out), fio-json (fio 3.x JSON of the aggregate jobs), json+ (fio's json+: fio-json with the latency bins) or terse (fio's semicolon lines); or a comma-separated list, printed in fio's order (terse, fio-json/json+, json, normal)"),
        )
        .arg(crate::formats::terse_version_arg())
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .help("Write to FILE instead of stdout"),
        )
}

/// One file's steps: a single result is one unnamed step.
struct FileSteps {
    names: Vec<String>,
    results: Vec<RunResult>,
}

/// Reads one file: a result, or a document of steps (`{"steps": [{"name", "result"}]}`, as
/// a suite's JSON and `diskmeter export` write them).
fn read_file(path: &str) -> anyhow::Result<FileSteps> {
    let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{path}: {e}")))?;
    let refused = |why: String| UsageError(format!("{path}: {why}"));
    match diskmeter_report::upgrade_json(&text) {
        Ok(result) => Ok(FileSteps {
            names: vec![String::new()],
            results: vec![result],
        }),
        Err(ReportError::NotAResult) => {
            let doc: Value = serde_json::from_str(&text).map_err(|e| refused(e.to_string()))?;
            let steps = doc.get("steps").and_then(Value::as_array).ok_or_else(|| {
                refused(
                    "not a diskmeter result: it has no schema_version, and no steps[] of \
                     results (a suite's or an export's)"
                        .into(),
                )
            })?;
            let mut out = FileSteps {
                names: Vec::new(),
                results: Vec::new(),
            };
            for (index, step) in steps.iter().enumerate() {
                let name = step.get("name").and_then(Value::as_str).unwrap_or_default();
                let result = step
                    .get("result")
                    .ok_or_else(|| refused(format!("step {} has no result", index + 1)))?;
                let result = diskmeter_report::upgrade_json(&result.to_string())
                    .map_err(|e| refused(format!("step {} ({name}): {e}", index + 1)))?;
                out.names.push(name.to_string());
                out.results.push(result);
            }
            if out.results.is_empty() {
                return Err(refused("it holds no steps".into()).into());
            }
            Ok(out)
        }
        Err(error) => Err(refused(error.to_string()).into()),
    }
}

/// Runs `diskmeter merge`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let files: Vec<String> = matches
        .get_many::<String>("files")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let mut read = Vec::with_capacity(files.len());
    for path in &files {
        read.push(read_file(path)?);
    }
    let steps = read[0].results.len();
    let names = read[0].names.clone();
    if let Some((path, other)) = files
        .iter()
        .zip(&read)
        .find(|(_, f)| f.results.len() != steps)
    {
        return Err(UsageError(format!(
            "{path} holds {} step(s) but {} holds {steps}: merge results of the same command",
            other.results.len(),
            files[0]
        ))
        .into());
    }
    let mut per_step: Vec<Vec<RunResult>> = (0..steps).map(|_| Vec::new()).collect();
    for file in read {
        for (step, result) in file.results.into_iter().enumerate() {
            per_step[step].push(result);
        }
    }
    let mut merged = Vec::with_capacity(steps);
    for (step, results) in per_step.into_iter().enumerate() {
        let result = merge_ranks(results).map_err(|error| refused(&error, &files));
        let result = if steps > 1 {
            result.with_context(|| format!("step {} ({})", step + 1, names[step]))?
        } else {
            result?
        };
        merged.push(result);
    }
    let text = render(matches, &names, &merged)?;
    write_output(matches.get_one::<String>("output"), &text)?;
    let failed = merged
        .iter()
        .any(|r| r.meta.partial || r.jobs.iter().any(|j| j.error.is_some()));
    Ok(if failed {
        Status::Failure
    } else {
        Status::Success
    })
}

/// A merge refused: the library's reason and the files it is about.
fn refused(error: &MergeError, files: &[String]) -> UsageError {
    let named: Vec<String> = error
        .inputs()
        .iter()
        .filter_map(|&i| files.get(i).map(|f| format!("input {} is {f}", i + 1)))
        .collect();
    if named.is_empty() {
        UsageError(format!("cannot merge: {error}"))
    } else {
        UsageError(format!("cannot merge: {error} ({})", named.join(", ")))
    }
}

/// The merged steps in the formats asked.
fn render(matches: &ArgMatches, names: &[String], merged: &[RunResult]) -> anyhow::Result<String> {
    let terse = crate::formats::terse_version(matches);
    let parts = crate::formats::formats_of(matches, "output-format")
        .into_iter()
        .map(|format| render_steps(format, names, merged, terse))
        .collect::<Result<Vec<String>, _>>()?;
    Ok(crate::formats::join(parts))
}
