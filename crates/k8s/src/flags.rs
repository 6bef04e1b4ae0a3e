//! `diskmeter k8s manifest`'s flags as the user typed them, read into [`Params`]: the start
//! (`--start-at` or `--start-in` from now), the volume's size, where the results go and the
//! default name from the jobs' names. The command line's parsing itself is the CLI's.

use crate::{default_name, parse_rfc3339, ManifestError, Params, ResultsPlace};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use diskmeter_workload::JobSpec;
use std::time::{Duration, SystemTime};

/// The flags, as text where the user gave text.
#[derive(Debug, Clone, Default)]
pub struct ManifestFlags {
    /// `--pods`.
    pub pods: u32,
    /// `--image`.
    pub image: String,
    /// `--storage-class`.
    pub storage_class: String,
    /// `--volume-size` (k = 1024).
    pub volume_size: String,
    /// `--k8s-name` (default: from the jobs' names).
    pub k8s_name: Option<String>,
    /// `--namespace`.
    pub namespace: Option<String>,
    /// `--start-in` (fio's time rules: seconds by default, `m` = minutes).
    pub start_in: String,
    /// `--start-at`, RFC 3339 UTC; wins over `--start-in`.
    pub start_at: Option<String>,
    /// `--results-claim`.
    pub results_claim: Option<String>,
    /// `--keep-results`, without a claim.
    pub keep_results: String,
    /// `--cpu`.
    pub cpu: String,
    /// `--memory`.
    pub memory: String,
}

impl ManifestFlags {
    /// The parameters of a manifest running `jobs`, written at `now`; a flag that does not
    /// read is named in the error.
    pub fn params(self, jobs: &[JobSpec], now: SystemTime) -> Result<Params, ManifestError> {
        let start_at = match &self.start_at {
            Some(time) => parse_rfc3339(time)?,
            None => now + duration("start-in", &self.start_in)?,
        };
        let volume_size_bytes =
            parse_size(&self.volume_size, KbBase::Binary).map_err(|e| ManifestError::Flag {
                flag: "volume-size",
                reason: e.to_string(),
            })?;
        let results = match self.results_claim {
            Some(claim) => ResultsPlace::Claim(claim),
            None => ResultsPlace::InPod {
                keep_seconds: duration("keep-results", &self.keep_results)?.as_secs(),
            },
        };
        let name = self.k8s_name.unwrap_or_else(|| {
            let mut names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
            names.dedup();
            default_name(&names)
        });
        Ok(Params {
            name,
            namespace: self.namespace,
            pods: self.pods,
            image: self.image,
            storage_class: self.storage_class,
            volume_size_bytes,
            cpu: self.cpu,
            memory: self.memory,
            start_at,
            results,
        })
    }
}

/// A time flag (fio's rules: seconds by default, `m` = minutes), as a duration.
fn duration(flag: &'static str, text: &str) -> Result<Duration, ManifestError> {
    parse_time_ns(text, TimeUnit::Seconds)
        .map(Duration::from_nanos)
        .map_err(|e| ManifestError::Flag {
            flag,
            reason: e.to_string(),
        })
}
