//! fio's data verification options (`verify` and its family): what a written block carries and when it is read back and checked.
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_verify.rs`. The
//! block layout, the checksums and the classification of failures are the `diskmeter-verify`
//! crate's; this module holds the job's settings, fio's defaults for them, the rules that
//! tie them to the rest of the job ([`validate_verify`]) and which verify phase a job runs
//! ([`VerifyOptions::phase`]). Meanings are fio's HOWTO, "Verification".

use diskmeter_units::MAX_CPU;
use diskmeter_verify::{VerifyKind, VerifyPattern, VerifySetup};
use serde::{Deserialize, Serialize};

use crate::{BlockSizeSpread, Direction, JobSpec};

/// How a job verifies the data it writes (fio `verify=`, `do_verify`, `verify_*`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyOptions {
    /// `verify=`: the kind of check; `None` is fio's `verify=0` (no verification). A
    /// `verify_pattern` with no `verify` means `verify=pattern`, as in fio.
    pub kind: Option<VerifyKind>,
    /// `verify=` was given (also as `0`): then a `verify_pattern` does not imply
    /// `verify=pattern` (fio's `str_verify_pattern_cb` checks `fio_option_is_set(verify)`).
    pub kind_given: bool,
    /// `do_verify`: read back and check after the write phase (fio default 1; only
    /// meaningful with `verify`).
    pub do_verify: bool,
    /// `verify_only`: do not run the workload, only check what an earlier run of it wrote.
    pub verify_only: bool,
    /// `verify_pattern`: what data blocks hold instead of seeded pseudo-random bytes.
    pub pattern: Option<VerifyPattern>,
    /// `verify_interval` in bytes: a header every this many bytes; `None` = the block size.
    pub interval_bytes: Option<u32>,
    /// `verify_offset` in bytes: where the header sits in each interval; `None` = 0.
    pub header_offset_bytes: Option<u32>,
    /// `verify_fatal`: stop the job at its first verify failure.
    pub fatal: bool,
    /// `verify_dump`: write the expected and found contents of a failed block to files.
    pub dump: bool,
    /// `verify_async`: fio's count of offload threads for checking (0 = inline).
    pub async_threads: u32,
    /// `verify_async_cpus`: CPUs for those threads.
    pub async_cpus: Option<Vec<usize>>,
    /// `verify_backlog`: check after every this many blocks written instead of at the end.
    pub backlog_blocks: Option<u64>,
    /// `verify_backlog_batch`: how many blocks each backlog check reads back (default: the
    /// backlog).
    pub backlog_batch_blocks: Option<u64>,
    /// `verify_state_save`: save how far the write phase got when the job stops early (fio
    /// default 1).
    pub state_save: bool,
    /// `verify_state_load`: verify only up to what a saved state says was written.
    pub state_load: bool,
    /// `experimental_verify`: fio's verification that re-derives offsets instead of logging
    /// them.
    pub experimental: bool,
    /// `trim_verify_zero`: trimmed blocks must read back as zeros (fio default 1; used with
    /// `trim_percentage`).
    pub trim_verify_zero: bool,
}

impl Default for VerifyOptions {
    /// The options' defaults, as [`crate::JobSpec::default`] has them (from the option rows).
    fn default() -> Self {
        crate::JobSpec::default().verify
    }
}

impl VerifyOptions {
    /// The option fields hold placeholders, which [`crate::JobSpec::default`] replaces with
    /// the rows' defaults (as for `JobSpec::blank`).
    pub(crate) fn blank() -> Self {
        VerifyOptions {
            kind: None,
            kind_given: false,
            do_verify: false,
            verify_only: false,
            pattern: None,
            interval_bytes: None,
            header_offset_bytes: None,
            fatal: false,
            dump: false,
            async_threads: 0,
            async_cpus: None,
            backlog_blocks: None,
            backlog_batch_blocks: None,
            state_save: false,
            state_load: false,
            experimental: false,
            trim_verify_zero: false,
        }
    }
}

/// When a job checks data, as fio decides it from `verify`, `rw`, `do_verify`, `verify_only`
/// and `verify_backlog`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyPhase {
    /// No checking (no `verify`, or a writing job with `do_verify=0`; the
    /// blocks are still written with headers when a kind is set).
    None,
    /// Write everything, then read it all back and check it (fio's default).
    AfterWrite,
    /// Check while writing: after every `every_blocks` written, read back `batch_blocks`.
    Backlog {
        /// `verify_backlog`.
        every_blocks: u64,
        /// `verify_backlog_batch` (defaults to `verify_backlog`).
        batch_blocks: u64,
    },
    /// Do not write: read what is there and check it, with the job's seed, at any generation
    /// (`verify_only`, or a job that only reads: fio "will assume that it should verify a
    /// previously written file").
    Existing,
}

impl VerifyOptions {
    /// The kind in force: `verify=`, else `pattern` when `verify_pattern` is set and
    /// `verify` is not (fio sets verify=pattern then; an explicit `verify=0` keeps it off),
    /// else none.
    pub fn effective_kind(&self) -> Option<VerifyKind> {
        if self.kind_given {
            return self.kind;
        }
        self.kind
            .or_else(|| self.pattern.as_ref().map(|_| VerifyKind::Pattern))
    }

    /// The block layout for `diskmeter-verify`, or `None` when the job does not verify.
    pub fn setup(&self) -> Option<VerifySetup> {
        Some(VerifySetup {
            kind: self.effective_kind()?,
            interval_bytes: self.interval_bytes,
            header_offset_bytes: self.header_offset_bytes.unwrap_or(0),
            pattern: self.pattern.clone(),
        })
    }

    /// The verifier for this job's layout, `None` when the job does not verify; the error is
    /// what [`crate::validate`] reports for the same job.
    pub fn verifier(
        &self,
    ) -> Result<Option<diskmeter_verify::Verifier>, diskmeter_verify::VerifyError> {
        self.setup()
            .map(diskmeter_verify::Verifier::new)
            .transpose()
    }

    /// Which verify phase a job runs; `writes` is whether its `rw` issues writes.
    pub fn phase(&self, writes: bool) -> VerifyPhase {
        match self.effective_kind() {
            // verify=null reads back as any kind does and checks nothing (fio's HOWTO: "Only
            // pretend to verify"; fio 3.33 reads every block back).
            None => VerifyPhase::None,
            Some(_) if self.verify_only || !writes => VerifyPhase::Existing,
            Some(_) if !self.do_verify => VerifyPhase::None,
            Some(_) => match self.backlog_blocks {
                Some(every) if every > 0 => VerifyPhase::Backlog {
                    every_blocks: every,
                    batch_blocks: self.backlog_batch_blocks.unwrap_or(every),
                },
                _ => VerifyPhase::AfterWrite,
            },
        }
    }
}

/// One line for each place where diskmeter's reading of the job's verify options differs
/// from fio's (without the job's name; the caller adds it), empty when they mean the same.
pub fn reading_notes(spec: &JobSpec) -> Vec<String> {
    let options = &spec.verify;
    let mut notes = Vec::new();
    match options.effective_kind() {
        None | Some(VerifyKind::Null) => {}
        Some(VerifyKind::Pattern) => {}
        Some(kind) => notes.push(format!(
            "verify={kind}: blocks carry diskmeter's verify header, not fio's: fio cannot check \
             data diskmeter wrote, nor diskmeter data fio wrote"
        )),
    }
    if options.effective_kind() == Some(VerifyKind::Meta) {
        notes.push(
            "verify=meta: diskmeter checks the header only (offset, generation, seed), not the data"
                .to_string(),
        );
    }
    notes
}

/// The rules that tie the verify options to the rest of the job: the header fits each
/// interval, intervals divide every block size written, `verify=pattern` has a pattern, and
/// `verify_only` is not time-based (fio's HOWTO: "does not support workloads with the
/// time_based option set").
pub(crate) fn validate_verify(spec: &JobSpec, fail: &mut impl FnMut(&'static str, String)) {
    let options = &spec.verify;
    if let Some(cpus) = &options.async_cpus {
        if cpus.is_empty() {
            fail(
                "verify_async_cpus",
                "lists no CPU; leave it unset to allow any".to_string(),
            );
        } else if cpus.iter().any(|&cpu| cpu > MAX_CPU) {
            fail(
                "verify_async_cpus",
                format!("CPU numbers go up to {MAX_CPU}"),
            );
        }
    }
    let Some(setup) = options.setup() else {
        return;
    };
    let verifier = match diskmeter_verify::Verifier::new(setup) {
        Ok(verifier) => verifier,
        Err(error) => {
            let option = match error {
                diskmeter_verify::VerifyError::PatternKindWithoutPattern => "verify",
                diskmeter_verify::VerifyError::IntervalTooShort { .. }
                    if options.interval_bytes.is_none() =>
                {
                    "verify_offset"
                }
                _ => "verify_interval",
            };
            fail(option, error.to_string());
            return;
        }
    };
    if options.verify_only && spec.time_based {
        fail(
            "verify_only",
            "verify_only checks what one pass of the job wrote; it does not work with \
             time_based (as in fio): drop time_based"
                .to_string(),
        );
    }
    // Blocks that are written (or, for a job that only reads, checked) must hold the layout.
    let direction = if spec.rw.writes() {
        Direction::Write
    } else {
        Direction::Read
    };
    let bs = spec.bs_bytes.get(direction);
    let sizes: Vec<u64> = match spec.bs_spread.get_ref(direction) {
        BlockSizeSpread::Fixed => vec![bs],
        BlockSizeSpread::Range {
            min_bytes,
            max_bytes,
        } => vec![*min_bytes, *max_bytes],
        BlockSizeSpread::Split(shares) => shares.iter().map(|share| share.bytes).collect(),
    };
    for size in sizes.into_iter().filter(|size| *size > 0) {
        if let Err(error) = verifier.check_block_len(size) {
            let option = if options.interval_bytes.is_some() {
                "verify_interval"
            } else if options.header_offset_bytes.is_some() {
                "verify_offset"
            } else {
                "verify"
            };
            fail(option, format!("with block size {size} bytes: {error}"));
            return;
        }
    }
}
