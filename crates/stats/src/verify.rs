//! What the read-back verification of written data found (fio's `verify` family): blocks and
//! bytes checked, the time spent checking, and the mismatches, the first few of them kept
//! with their offset, kind, expected and found values.
//!
//! The runner fills it after each verify read; merging adds workers of a job or a group.
//! The mismatch kinds come from the verify crate as words (`flipped_bits`, `torn`,
//! `lost_write`, `misdirected`, `bad_header`, `short_read`): this crate holds numbers and
//! words only and depends on no checker.

/// How many mismatches are kept with their details; the rest are only counted.
pub const MAX_KEPT_VERIFY_FAILURES: usize = 64;

/// One block that did not read back as it was written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VerifyFailure {
    /// The file or device the block was read from.
    pub path: String,
    /// Where the block starts in that file, bytes.
    pub offset_bytes: u64,
    /// The block's length, bytes.
    pub len_bytes: u64,
    /// Where in the file the damage is, bytes: the first differing byte of flipped bits or
    /// corrupt data, the first foreign sector of a torn write, else the start of the failed
    /// interval (a lost, misdirected or unwritten one is wrong as a whole).
    #[serde(default)]
    pub damage_offset_bytes: u64,
    /// What went wrong, as the checker classified it (`flipped_bits`, `torn`, `lost_write`,
    /// `misdirected`, `bad_header`, `short_read`, ...).
    pub kind: String,
    /// What the block should have held where it differs (a header field, a checksum, or
    /// the bytes of the first difference), as the checker printed it.
    pub expected: String,
    /// What was read there instead.
    pub found: String,
}

/// Read-back verification counts of one worker, or several merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyStats {
    /// Blocks read back and checked.
    pub blocks: u64,
    /// Bytes read back and checked.
    pub bytes: u64,
    /// Blocks that did not match what was written.
    pub errors: u64,
    /// Time spent reading back and checking, ns (the verify phase and backlog passes); the
    /// longest worker's when merged, as workers verify side by side.
    pub runtime_ns: u64,
    /// The first [`MAX_KEPT_VERIFY_FAILURES`] mismatches, in the order they were found.
    pub failures: Vec<VerifyFailure>,
}

impl VerifyStats {
    /// Counts one checked block of `len_bytes`; `failure` when it did not match.
    pub fn record(&mut self, len_bytes: u64, failure: Option<VerifyFailure>) {
        self.blocks += 1;
        self.bytes += len_bytes;
        if let Some(failure) = failure {
            self.errors += 1;
            if self.failures.len() < MAX_KEPT_VERIFY_FAILURES {
                self.failures.push(failure);
            }
        }
    }

    /// Adds `other`: counts add, the runtime is the longer one, failures are kept up to the
    /// cap in worker order.
    pub fn merge(&mut self, other: &VerifyStats) {
        self.blocks += other.blocks;
        self.bytes += other.bytes;
        self.errors += other.errors;
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
        let room = MAX_KEPT_VERIFY_FAILURES.saturating_sub(self.failures.len());
        self.failures
            .extend(other.failures.iter().take(room).cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(offset_bytes: u64) -> VerifyFailure {
        VerifyFailure {
            path: "/dev/loop0".into(),
            offset_bytes,
            len_bytes: 4096,
            damage_offset_bytes: offset_bytes,
            kind: "flipped_bits".into(),
            expected: "crc32c 0x1".into(),
            found: "crc32c 0x2".into(),
        }
    }

    #[test]
    fn merging_adds_counts_and_keeps_failures_in_worker_order() {
        let mut a = VerifyStats::default();
        a.record(4096, None);
        a.record(4096, Some(failure(0)));
        a.runtime_ns = 5;
        let mut b = VerifyStats::default();
        b.record(8192, Some(failure(8192)));
        b.runtime_ns = 7;
        a.merge(&b);
        assert_eq!(
            (a.blocks, a.bytes, a.errors, a.runtime_ns),
            (3, 16384, 2, 7)
        );
        let offsets: Vec<u64> = a.failures.iter().map(|f| f.offset_bytes).collect();
        assert_eq!(offsets, [0, 8192]);
    }

    #[test]
    fn only_the_first_failures_are_kept_but_all_are_counted() {
        let mut stats = VerifyStats::default();
        for k in 0..(MAX_KEPT_VERIFY_FAILURES as u64 + 10) {
            stats.record(512, Some(failure(k * 512)));
        }
        assert_eq!(stats.errors, MAX_KEPT_VERIFY_FAILURES as u64 + 10);
        assert_eq!(stats.failures.len(), MAX_KEPT_VERIFY_FAILURES);
    }
}
