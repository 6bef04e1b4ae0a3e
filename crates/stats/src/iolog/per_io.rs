//! One line per IO (`log_avg_msec=0`): the value each log writes for a completed IO, as fio's
//! stat.c does without averaging.

use super::write::Entry;
use super::{CompletedIo, LogKind};

/// The line `io` gives in a log of `kind` at `now_ms`: latencies in ns, bandwidth as bytes x
/// 10^6 / clat (fio's `add_bw_sample`, 0 for a zero clat), IOPS 1; the IO's size and offset
/// in their columns. None for a slat log of an IO without a submission latency.
#[inline]
pub(super) fn entry(kind: LogKind, io: &CompletedIo, now_ms: u64) -> Option<Entry> {
    let value = match kind {
        LogKind::Bw => (u128::from(io.bytes) * 1_000_000)
            .checked_div(u128::from(io.clat_ns))
            .map_or(0, saturate),
        LogKind::Iops => 1,
        LogKind::Lat | LogKind::Clat | LogKind::Slat | LogKind::ClatHist => kind.latency_ns(io)?,
    };
    Some(Entry {
        time_ms: now_ms,
        value,
        offset_bytes: io.offset_bytes,
        bs_bytes: io.bytes.min(u64::from(u32::MAX)) as u32,
        direction: io.direction.index() as u8,
    })
}

/// `value` as a u64, capped (only absurd values could exceed it).
pub(super) fn saturate(value: u128) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}
