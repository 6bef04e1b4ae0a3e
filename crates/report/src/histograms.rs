//! A job's exact latency histograms as they travel in diskmeter's JSON: what lets results of
//! several hosts be merged exactly (`merge.rs`) rather than averaged from their percentiles.
//!
//! Each histogram is [`LatencyHistogram::to_bytes`] (a 61-byte header with the exact count,
//! min, max, sum and sum of squares, then HdrHistogram's V2 encoding) in standard base64
//! text. The text is kept as it is in the schema and decoded only when merged: a merge of
//! 1,000 ranks holds the inputs in `ranks[]`, and a decoded histogram (1 ns ..= 1 h at 3
//! digits) is a 260 KiB array, its encoding usually a few hundred bytes.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use diskmeter_stats::{DirectionStats, HistogramError, LatencyHistogram, WorkerStats};
use serde::{Deserialize, Serialize};

/// One latency histogram, encoded: base64 of [`LatencyHistogram::to_bytes`]; the empty
/// string stands for an empty histogram (and is left out of the JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EncodedHistogram(pub String);

/// Why an [`EncodedHistogram`] does not decode.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The text is not base64.
    #[error("not base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// The bytes are not a diskmeter histogram.
    #[error(transparent)]
    Histogram(#[from] HistogramError),
}

impl EncodedHistogram {
    /// Encodes `histogram` (an empty one as the empty string).
    pub fn encode(histogram: &LatencyHistogram) -> EncodedHistogram {
        if histogram.is_empty() {
            return EncodedHistogram::default();
        }
        // Serializing into memory cannot fail; an empty text (read back as an empty
        // histogram) is the honest fallback if it ever did, and merging then refuses it
        // by its count (see `merge.rs`).
        let bytes = histogram.to_bytes().unwrap_or_default();
        EncodedHistogram(STANDARD.encode(bytes))
    }

    /// True for the empty histogram.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The histogram.
    pub fn decode(&self) -> Result<LatencyHistogram, DecodeError> {
        if self.is_empty() {
            return Ok(LatencyHistogram::new());
        }
        Ok(LatencyHistogram::from_bytes(&STANDARD.decode(&self.0)?)?)
    }

    /// Adds this histogram to `target` (exact; decoded straight into it).
    pub fn merge_into(&self, target: &mut LatencyHistogram) -> Result<(), DecodeError> {
        if self.is_empty() {
            return Ok(());
        }
        Ok(target.merge_bytes(&STANDARD.decode(&self.0)?)?)
    }

    /// The raw bytes ([`LatencyHistogram::to_bytes`]); empty for the empty histogram.
    pub fn to_bytes(&self) -> Result<Vec<u8>, DecodeError> {
        Ok(STANDARD.decode(&self.0)?)
    }

    /// From raw bytes ([`LatencyHistogram::to_bytes`]).
    pub fn from_bytes(bytes: &[u8]) -> EncodedHistogram {
        EncodedHistogram(STANDARD.encode(bytes))
    }
}

/// The four latency histograms of one direction of a job.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectionHistograms {
    /// Submission latency.
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub slat: EncodedHistogram,
    /// Completion latency.
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub clat: EncodedHistogram,
    /// Total latency.
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub lat: EncodedHistogram,
    /// Latency from the intended issue time (rate-limited jobs).
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub lat_intended: EncodedHistogram,
}

/// Every latency histogram of a reported job, exact, so that results can be merged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobHistograms {
    /// Reads.
    #[serde(default)]
    pub read: DirectionHistograms,
    /// Writes.
    #[serde(default)]
    pub write: DirectionHistograms,
    /// Trims; absent when the job trimmed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirectionHistograms>,
    /// File syncs; empty when the job synced nothing.
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub sync: EncodedHistogram,
}

/// The kinds of a direction's histograms, in the order [`DirectionHistograms::kinds`] gives.
pub const HISTOGRAM_KINDS: [&str; 4] = ["slat", "clat", "lat", "lat_intended"];

impl DirectionHistograms {
    /// The encoded histograms of `stats`.
    pub fn of(stats: &DirectionStats) -> DirectionHistograms {
        DirectionHistograms {
            slat: EncodedHistogram::encode(&stats.slat),
            clat: EncodedHistogram::encode(&stats.clat),
            lat: EncodedHistogram::encode(&stats.lat),
            lat_intended: EncodedHistogram::encode(&stats.lat_intended),
        }
    }

    /// The four histograms with their kind's name ([`HISTOGRAM_KINDS`]).
    pub fn kinds(&self) -> [(&'static str, &EncodedHistogram); 4] {
        [
            ("slat", &self.slat),
            ("clat", &self.clat),
            ("lat", &self.lat),
            ("lat_intended", &self.lat_intended),
        ]
    }

    /// The histogram of kind `kind` ([`HISTOGRAM_KINDS`]), to fill.
    pub fn kind_mut(&mut self, kind: &str) -> Option<&mut EncodedHistogram> {
        match kind {
            "slat" => Some(&mut self.slat),
            "clat" => Some(&mut self.clat),
            "lat" => Some(&mut self.lat),
            "lat_intended" => Some(&mut self.lat_intended),
            _ => None,
        }
    }
}

impl JobHistograms {
    /// The encoded histograms of a reported job's (merged) statistics.
    pub fn of(stats: &WorkerStats) -> JobHistograms {
        let trimmed = stats.trim.ios + stats.trim.errors > 0;
        JobHistograms {
            read: DirectionHistograms::of(&stats.read),
            write: DirectionHistograms::of(&stats.write),
            trim: trimmed.then(|| DirectionHistograms::of(&stats.trim)),
            sync: EncodedHistogram::encode(&stats.sync),
        }
    }

    /// The directions with their names: `read`, `write` and, when present, `trim`.
    pub fn directions(&self) -> Vec<(&'static str, &DirectionHistograms)> {
        let mut out = vec![("read", &self.read), ("write", &self.write)];
        if let Some(trim) = &self.trim {
            out.push(("trim", trim));
        }
        out
    }

    /// The direction `name` (`read`, `write`, `trim`), to fill; a trim direction is made.
    pub fn direction_mut(&mut self, name: &str) -> Option<&mut DirectionHistograms> {
        match name {
            "read" => Some(&mut self.read),
            "write" => Some(&mut self.write),
            "trim" => Some(self.trim.get_or_insert_with(Default::default)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_histograms_round_trip_and_empty_is_empty_text() {
        let mut h = LatencyHistogram::new();
        for v in [10u64, 2_000, 30_000, 4_000_000] {
            h.record(v);
        }
        let text = EncodedHistogram::encode(&h);
        assert!(!text.is_empty());
        assert_eq!(text.decode().unwrap(), h);
        let empty = EncodedHistogram::encode(&LatencyHistogram::new());
        assert!(empty.is_empty());
        assert!(empty.decode().unwrap().is_empty());
        assert!(EncodedHistogram("not base64!".into()).decode().is_err());
    }
}
