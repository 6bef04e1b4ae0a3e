//! Merging the results of several ranks (hosts) of one step into one aggregate result,
//! exactly: [`merge_ranks`]. Pure: no IO, no clock.
//!
//! What is merged how (docs/guide/7-scale-out.md, "Merging results from several hosts", says it for
//! users):
//! - the job list is each rank's (they must match: [`workload`]), each job's counters summed
//!   and its latency histograms merged exactly, so its summaries and percentiles are those
//!   of all the ranks' IOs together ([`job`]);
//! - rates are fio's `group_reporting` rates for clones: a direction's bytes and IOs over the
//!   longest rank's runtime; `scale_out` adds IOR's aggregate rates (total over the time
//!   from the earliest start to the latest end) and the sums of the ranks' own rates
//!   ([`figures`]);
//! - `meta`: the earliest start, the latest finish, partial if any rank was, every rank's
//!   notes (once; prefixed with the rank when not every rank has it), no rank.
//!
//! A merge of one result is that result with `ranks` and `scale_out` added.

mod figures;
mod files;
mod job;
mod workload;

pub use files::{merge_files, MergeFilesError, Steps};
pub use workload::HOST_SPECIFIC_OPTIONS;

use thiserror::Error;

use crate::histograms::DecodeError;
use crate::input::RunMeta;
use crate::schema::RunResult;

/// Why results could not be merged. Every variant names the rank (and, through
/// [`MergeError::inputs`], which inputs) it is about.
#[derive(Debug, Error)]
pub enum MergeError {
    /// No result was given.
    #[error("nothing to merge: give at least one result")]
    Empty,
    /// An input is itself a merge; merging merges would count their ranks' order wrong.
    #[error("{rank} is already a merge of {ranks} ranks: merge the ranks' own results instead")]
    AlreadyMerged {
        /// The input's position.
        input: usize,
        /// "rank N (host)".
        rank: String,
        /// Ranks it merged.
        ranks: u32,
    },
    /// Two inputs say they are the same rank.
    #[error("rank {rank} is given twice (inputs {} and {})", first + 1, second + 1)]
    DuplicateRank {
        /// The rank.
        rank: u32,
        /// Position of its first input.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// The inputs say the run had more ranks than were given.
    #[error("the run had {ranks} ranks, but rank(s) {} are missing", list(missing))]
    MissingRanks {
        /// The ranks not given.
        missing: Vec<u32>,
        /// How many ranks the inputs say the run had.
        ranks: u32,
    },
    /// The inputs disagree on how many ranks the run had.
    #[error("{rank} is of a run of {ranks} ranks, but {first} of a run of {first_ranks}")]
    RankCountDiffers {
        /// The input's position.
        input: usize,
        /// "rank N (host)".
        rank: String,
        /// Its rank count.
        ranks: u32,
        /// "rank N (host)" of the first input.
        first: String,
        /// The first input's rank count.
        first_ranks: u32,
    },
    /// A result without histograms cannot be merged exactly.
    #[error("{rank}: job {job} has no latency histograms (a result of a diskmeter before result schema 4, or of another tool): its percentiles cannot be merged exactly")]
    NoHistograms {
        /// The input's position.
        input: usize,
        /// "rank N (host)".
        rank: String,
        /// The job.
        job: String,
    },
    /// A histogram is damaged.
    #[error("{rank}: job {job}: the {what} histogram is damaged: {source}")]
    BadHistogram {
        /// The input's position.
        input: usize,
        /// "rank N (host)".
        rank: String,
        /// The job.
        job: String,
        /// Which histogram ("read clat").
        what: String,
        /// Why it does not decode.
        source: DecodeError,
    },
    /// A rank ran another list of jobs.
    #[error("{rank} ran other jobs than {first}: {detail}")]
    JobsDiffer {
        /// The input's position.
        input: usize,
        /// "rank N (host)".
        rank: String,
        /// "rank N (host)" of the first input.
        first: String,
        /// What differs.
        detail: String,
    },
    /// A job option differs between ranks (and is not one that may: [`HOST_SPECIFIC_OPTIONS`]).
    #[error("the workloads differ: {0}")]
    OptionDiffers(Box<OptionDifference>),
}

/// Where two ranks' workloads differ: a job's option with both values.
#[derive(Debug, Error)]
#[error("job {job}: {option}={value} in {rank} but {option}={first_value} in {first}")]
pub struct OptionDifference {
    /// The input's position.
    pub input: usize,
    /// "rank N (host)".
    pub rank: String,
    /// "rank N (host)" of the first input.
    pub first: String,
    /// The job.
    pub job: String,
    /// The option.
    pub option: String,
    /// Its value in this rank ("(not set)" when the rank has fio's default).
    pub value: String,
    /// Its value in the first rank.
    pub first_value: String,
}

fn list(ranks: &[u32]) -> String {
    ranks
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl MergeError {
    /// The positions (in the list given to [`merge_ranks`]) of the inputs the error is
    /// about, so that a caller can name their files.
    pub fn inputs(&self) -> Vec<usize> {
        match self {
            MergeError::Empty | MergeError::MissingRanks { .. } => Vec::new(),
            MergeError::DuplicateRank { first, second, .. } => vec![*first, *second],
            MergeError::AlreadyMerged { input, .. }
            | MergeError::RankCountDiffers { input, .. }
            | MergeError::NoHistograms { input, .. }
            | MergeError::BadHistogram { input, .. }
            | MergeError::JobsDiffer { input, .. } => vec![*input],
            MergeError::OptionDiffers(difference) => vec![difference.input],
        }
    }
}

/// One input in rank order: its rank, its position in the input and its label.
#[derive(Debug, Clone)]
pub(crate) struct Rank {
    /// The rank.
    pub(crate) rank: u32,
    /// Its position among the inputs.
    pub(crate) input: usize,
    /// "rank N (host)".
    pub(crate) label: String,
}

/// Merges the results of the ranks of one step into the aggregate result (see the module
/// documentation): `jobs[]` and `groups[]` merged exactly, `ranks[]` the inputs in rank
/// order, `scale_out` the aggregate figures.
///
/// Rank order is `meta.rank` when every input has one (a rank given twice or missing is
/// refused), else the order given. Refused: an empty list, an input that is itself a merge,
/// results whose workloads differ (naming the rank, the job and the option with both
/// values) and results without histograms.
pub fn merge_ranks(results: Vec<RunResult>) -> Result<RunResult, MergeError> {
    if results.is_empty() {
        return Err(MergeError::Empty);
    }
    let order = rank_order(&results)?;
    let mut ranked: Vec<Option<RunResult>> = results.into_iter().map(Some).collect();
    let inputs: Vec<RunResult> = order
        .iter()
        .map(|r| ranked[r.input].take().expect("each input once"))
        .collect();
    for (rank, result) in order.iter().zip(&inputs) {
        if let Some(scale_out) = &result.scale_out {
            return Err(MergeError::AlreadyMerged {
                input: rank.input,
                rank: rank.label.clone(),
                ranks: scale_out.ranks,
            });
        }
    }
    workload::check_same_workload(&order, &inputs)?;
    let (jobs, groups) = if inputs.len() == 1 {
        // A merge of one is that result: nothing to add up, and its figures stay its own.
        job::require_histograms(&order[0], &inputs[0])?;
        (inputs[0].jobs.clone(), inputs[0].groups.clone())
    } else {
        let mut jobs = Vec::with_capacity(inputs[0].jobs.len());
        for position in 0..inputs[0].jobs.len() {
            let parts: Vec<_> = order
                .iter()
                .zip(&inputs)
                .map(|(rank, result)| (rank, &result.jobs[position]))
                .collect();
            jobs.push(job::merge_job(&parts)?);
        }
        let groups = crate::build::groups_of(&mut jobs);
        (jobs, groups)
    };
    let scale_out = figures::scale_out(&order, &inputs);
    Ok(RunResult {
        schema_version: crate::SCHEMA_VERSION,
        meta: merged_meta(&order, &inputs),
        jobs,
        groups,
        global_options: inputs
            .first()
            .map(|first| first.global_options.clone())
            .unwrap_or_default(),
        ranks: inputs,
        scale_out: Some(scale_out),
    })
}

/// The inputs in rank order: by `meta.rank` when every input has one, else as given.
fn rank_order(results: &[RunResult]) -> Result<Vec<Rank>, MergeError> {
    let label = |rank: u32, result: &RunResult| format!("rank {rank} ({})", result.meta.hostname);
    if results.iter().any(|r| r.meta.rank.is_none()) {
        return Ok(results
            .iter()
            .enumerate()
            .map(|(input, result)| Rank {
                rank: input as u32,
                input,
                label: label(input as u32, result),
            })
            .collect());
    }
    let ranks_of = |r: &RunResult| r.meta.rank.map_or(0, |info| info.ranks);
    let first_ranks = ranks_of(&results[0]);
    if first_ranks as usize > results.len() {
        // Fewer inputs than ranks: some are missing, whatever the rest says. Named before a
        // table of `ranks` entries is made (the count is the input's, and may be absurd);
        // the first ten missing are enough to name.
        let given: std::collections::HashSet<u32> = results
            .iter()
            .filter_map(|r| r.meta.rank)
            .map(|i| i.rank)
            .collect();
        let missing = (0..first_ranks)
            .filter(|r| !given.contains(r))
            .take(10)
            .collect();
        return Err(MergeError::MissingRanks {
            missing,
            ranks: first_ranks,
        });
    }
    let mut by_rank: Vec<Option<usize>> = vec![None; first_ranks as usize];
    for (input, result) in results.iter().enumerate() {
        let info = result.meta.rank.expect("checked above");
        let count_differs = || MergeError::RankCountDiffers {
            input,
            rank: label(info.rank, result),
            ranks: info.ranks,
            first: label(results[0].meta.rank.map_or(0, |i| i.rank), &results[0]),
            first_ranks,
        };
        if info.ranks != first_ranks {
            return Err(count_differs());
        }
        // A rank past the count is as wrong as a count that differs.
        let Some(slot) = by_rank.get_mut(info.rank as usize) else {
            return Err(count_differs());
        };
        if let Some(first) = *slot {
            return Err(MergeError::DuplicateRank {
                rank: info.rank,
                first,
                second: input,
            });
        }
        *slot = Some(input);
    }
    let missing: Vec<u32> = (0..first_ranks)
        .filter(|&r| by_rank[r as usize].is_none())
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::MissingRanks {
            missing,
            ranks: first_ranks,
        });
    }
    Ok(by_rank
        .into_iter()
        .enumerate()
        .map(|(rank, input)| {
            let input = input.expect("no rank missing");
            Rank {
                rank: rank as u32,
                input,
                label: label(rank as u32, &results[input]),
            }
        })
        .collect())
}

/// The aggregate's `meta` (see the module documentation).
fn merged_meta(order: &[Rank], inputs: &[RunResult]) -> RunMeta {
    let metas: Vec<&RunMeta> = inputs.iter().map(|r| &r.meta).collect();
    let first = metas[0];
    let mut hosts: Vec<&str> = Vec::new();
    for meta in &metas {
        if !hosts.contains(&meta.hostname.as_str()) {
            hosts.push(&meta.hostname);
        }
    }
    let hostname = match hosts.len() {
        0..=4 => hosts.join(","),
        n => format!("{},{} and {} more hosts", hosts[0], hosts[1], n - 2),
    };
    let mut notes: Vec<String> = Vec::new();
    for (rank, meta) in order.iter().zip(&metas) {
        for note in &meta.notes {
            let everywhere = metas.iter().all(|m| m.notes.contains(note));
            let text = if everywhere || inputs.len() == 1 {
                note.clone()
            } else {
                format!("rank {}: {note}", rank.rank)
            };
            if !notes.contains(&text) {
                notes.push(text);
            }
        }
    }
    let mut versions: Vec<&str> = metas.iter().map(|m| m.diskmeter_version.as_str()).collect();
    versions.sort_unstable();
    versions.dedup();
    if versions.len() > 1 {
        notes.push(format!(
            "the ranks ran different diskmeter versions: {}",
            versions.join(", ")
        ));
    }
    let phases = metas
        .iter()
        .map(|m| m.phase_starts_unix_ns.len())
        .max()
        .unwrap_or(0);
    RunMeta {
        diskmeter_version: first.diskmeter_version.clone(),
        started_unix_ms: metas.iter().map(|m| m.started_unix_ms).min().unwrap_or(0),
        finished_unix_ms: metas.iter().map(|m| m.finished_unix_ms).max().unwrap_or(0),
        partial: metas.iter().any(|m| m.partial),
        hostname,
        notes,
        phase_starts_unix_ns: (0..phases)
            .filter_map(|p| {
                metas
                    .iter()
                    .filter_map(|m| m.phase_starts_unix_ns.get(p).copied())
                    .min()
            })
            .collect(),
        io_finished_unix_ns: metas
            .iter()
            .map(|m| m.io_finished_unix_ns)
            .max()
            .unwrap_or(0),
        rank: None,
    }
}
