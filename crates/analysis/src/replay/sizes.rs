//! Sizes and rates: the level's rates as fio's whole IOPS (or a byte rate at the mean size
//! of a size split), the IOPS that also carry the level's MiB/s, and the IO sizes as
//! `bssplit` from a trace or `bs` from the counters' mean request sizes.

use super::job::Builder;
use super::{ReplayRequest, BSSPLIT_MAX, SECTOR_BYTES};
use diskmeter_units::{format_size_suffix, KbBase};

/// The IOPS that carry both a direction's level of IOs per second and its level of throughput
/// at the capture's mean size: the p90 of the MiB/s is often a little above the p90 of the
/// IOPS times the mean size (busy seconds carry bigger IOs), and a replay paced below it could
/// never show the level's MiB/s to `check --capture ID --level L`. Says so in `notes` when the
/// throughput sets the rate.
pub(super) fn covering_rate(
    what: &str,
    iops: f64,
    bytes_per_sec: Option<f64>,
    mean_bytes: Option<f64>,
    notes: &mut Vec<String>,
) -> f64 {
    let (Some(bytes), Some(size)) = (bytes_per_sec, mean_bytes.filter(|s| *s > 0.0)) else {
        return iops;
    };
    let by_bytes = bytes / size;
    if !by_bytes.is_finite() || by_bytes <= iops * 1.001 {
        return iops;
    }
    notes.push(format!(
        "{what}: {by_bytes:.1}/s, the level's {:.2} MiB/s at the mean size of {size:.0} bytes, \
         more than its {iops:.1}/s (busy seconds carried bigger IOs), so the replay carries \
         both the level's IOPS and its MiB/s",
        bytes / (1u64 << 20) as f64
    ));
    by_bytes
}

/// A level's rate as fio's whole IOPS, rounded up: a replay checked against its own level
/// (`check --capture ID --level L`) can then reach it (a p90 of 1,400.4 paced at 1,400 could
/// not); a direction that did any IO keeps at least 1.
pub(super) fn round_rate(iops: f64) -> u64 {
    if iops <= 0.0 {
        0
    } else {
        (iops.ceil() as u64).max(1)
    }
}

/// The rate of each direction at the level: `rate_iops=R,W`, except when a direction's IO
/// sizes are a split of several sizes: then `rate=` (bytes per second) at each direction's
/// mean size. fio turns `rate_iops` into bytes at the direction's *smallest* size (backend.c,
/// `__setup_rate`), so with 8k/60:64k/40 it would run well under the level, and it refuses
/// `rate` and `rate_iops` together; a byte rate at the mean size runs the level's IOPS in fio
/// and in diskmeter alike (which paces each IO by its own size).
pub(super) fn rates(iops: [u64; 2], split_means: Option<[(f64, bool); 2]>, out: &mut Builder) {
    let value = |pair: [u64; 2]| match (iops[0] > 0, iops[1] > 0) {
        (true, true) => format!("{},{}", pair[0], pair[1]),
        (true, false) => pair[0].to_string(),
        // One value sets both directions; only writes happen.
        _ => pair[1].to_string(),
    };
    let means = match split_means {
        Some(means) if (0..2).any(|d| iops[d] > 0 && means[d].1) => means,
        _ => {
            out.push("rate_iops", value(iops));
            return;
        }
    };
    let bytes = [0, 1].map(|d| (iops[d] as f64 * means[d].0).ceil() as u64);
    out.push("rate", value(bytes));
    for (d, name) in ["reads", "writes"].iter().enumerate() {
        if iops[d] > 0 {
            out.note(format!(
                "{name}: rate {} bytes/s = {} IOPS x mean size {:.0} bytes (a size split: fio \
                 paces rate_iops at the smallest size, so a byte rate keeps fio and diskmeter \
                 at the level's IOPS)",
                bytes[d], iops[d], means[d].0
            ));
        }
    }
}

/// `bssplit` from the traced sizes, else `bs` from the counters' mean request sizes. With a
/// `bssplit`, returns each direction's mean size and whether it has more than one size.
pub(super) fn sizes(
    request: &ReplayRequest,
    reads: bool,
    writes: bool,
    out: &mut Builder,
) -> Option<[(f64, bool); 2]> {
    let traced = request.trace.as_ref().map(|trace| {
        (
            split(&trace.read_sizes, out, "read"),
            split(&trace.write_sizes, out, "write"),
        )
    });
    if let Some((read_split, write_split)) = traced {
        let wanted_known = (!reads || read_split.is_some()) && (!writes || write_split.is_some());
        if wanted_known {
            let means = [&read_split, &write_split].map(|s| {
                s.as_ref()
                    .map_or((0.0, false), |s| (mean_bytes(s), s.len() > 1))
            });
            let show = |s: Option<Vec<(u64, u64)>>| s.map(|s| show_split(&s)).unwrap_or_default();
            let value = match (reads, writes) {
                (true, true) => format!("{},{}", show(read_split), show(write_split)),
                (true, false) => show(read_split),
                _ => show(write_split),
            };
            out.push("bssplit", value);
            out.note("IO sizes: the traced size distribution per direction".to_string());
            return Some(means);
        }
        out.note(
            "IO sizes: the trace saw no sizes for a direction the level has IO in; \
             using the counters' mean request sizes"
                .to_string(),
        );
    }
    let level = &request.level;
    let mean = |bytes: Option<f64>| -> u64 {
        let bytes = bytes
            .filter(|b| b.is_finite() && *b > 0.0)
            .unwrap_or(4096.0);
        // Whole sectors, at least one and at most as many as a u64 of bytes holds (a
        // damaged capture's mean size can be any number).
        ((bytes / SECTOR_BYTES as f64).round() as u64).clamp(1, u64::MAX / SECTOR_BYTES)
            * SECTOR_BYTES
    };
    let read_bs = mean(level.read_request_bytes);
    let write_bs = mean(level.write_request_bytes);
    let show = |b: u64| format_size_suffix(b, KbBase::Binary);
    out.push(
        "bs",
        match (reads, writes) {
            (true, true) => format!("{},{}", show(read_bs), show(write_bs)),
            (true, false) => show(read_bs),
            _ => show(write_bs),
        },
    );
    out.note(format!(
        "IO sizes: the counters' mean request sizes over the capture (rareq-sz, wareq-sz) \
         rounded to {SECTOR_BYTES}-byte sectors; a counter capture does not know their \
         spread (capture --trace measures it)"
    ));
    None
}

/// The mean size of a split of (bytes, percent) entries.
pub(super) fn mean_bytes(split: &[(u64, u64)]) -> f64 {
    split
        .iter()
        .map(|(b, p)| *b as f64 * *p as f64)
        .sum::<f64>()
        / 100.0
}

/// A split as fio writes it: `8k/60:64k/40`.
pub(super) fn show_split(split: &[(u64, u64)]) -> String {
    split
        .iter()
        .map(|(bytes, p)| format!("{}/{p}", format_size_suffix(*bytes, KbBase::Binary)))
        .collect::<Vec<_>>()
        .join(":")
}

/// One direction's `bssplit` list as (bytes, percent): whole percents of the IOs (largest
/// remainders, so they add up to 100), most frequent first, at most [`BSSPLIT_MAX`] sizes;
/// `None` with no IOs.
pub(super) fn split(
    sizes: &[(u64, u64)],
    out: &mut Builder,
    direction: &str,
) -> Option<Vec<(u64, u64)>> {
    let mut sizes: Vec<(u64, u64)> = sizes
        .iter()
        .copied()
        .filter(|(bytes, ios)| *bytes > 0 && *ios > 0)
        .collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total = crate::wide_sum(sizes.iter().map(|(_, ios)| *ios));
    if total == 0 {
        return None;
    }
    let exact: Vec<f64> = sizes
        .iter()
        .map(|(_, ios)| *ios as f64 * 100.0 / total as f64)
        .collect();
    let mut percents: Vec<u64> = exact.iter().map(|p| p.floor() as u64).collect();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    let missing = 100 - percents.iter().sum::<u64>();
    for &i in order.iter().take(missing as usize) {
        percents[i] += 1;
    }
    let mut kept: Vec<(u64, u64)> = sizes
        .iter()
        .zip(&percents)
        .filter(|(_, p)| **p > 0)
        .map(|((bytes, _), p)| (*bytes, *p))
        .collect();
    let dropped = sizes.len() - kept.len();
    if kept.len() > BSSPLIT_MAX {
        let cut: u64 = kept[BSSPLIT_MAX..].iter().map(|(_, p)| p).sum();
        kept.truncate(BSSPLIT_MAX);
        kept[0].1 += cut;
        out.note(format!(
            "{direction} sizes: only the {BSSPLIT_MAX} most frequent kept (fio's BSSPLIT_MAX); \
             the rest ({cut} %) go to the most frequent"
        ));
    }
    if dropped > 0 {
        out.note(format!(
            "{direction} sizes: {dropped} size(s) under half a percent of the IOs left out"
        ));
    }
    Some(kept)
}
