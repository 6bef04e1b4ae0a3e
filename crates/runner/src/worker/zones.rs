//! fio's `zonemode=strided`: IO stays in one zone of `zonerange` bytes at the same place in
//! every file until `zonesize` bytes have been issued there, then the zone moves on by
//! `zonerange + zoneskip`, back to the region's start once it passes the end (fio's
//! `disk-zone-profile` example samples a disk this way).
//!
//! Also fio's `rw_sequencer=identical` ([`Identical`]): with `rw=randread:N`, each random
//! offset is used N times.
//!
//! The zone is the offset generator's whole world: on each move the worker builds a new
//! generator over the zone, so sequential IO starts at the zone's start and a random map
//! covers the zone, as fio resets its file position and map per zone. Offsets stay inside
//! the shortest file's region, so every file has every zone.

use super::placement::offsets_for_regions;
use super::Worker;
use crate::clock::Clock;
use crate::offsets::{FileRegion, OffsetGenerator};
use diskmeter_engine::IoEngine;
use diskmeter_workload::control::StridedZones;

/// Where the worker's zone is and how far it has got.
pub(super) struct Zones {
    range_bytes: u64,
    size_bytes: u64,
    step_bytes: u64,
    /// The targets' whole regions.
    regions: Vec<FileRegion>,
    /// The shortest region: zones start below it.
    span_bytes: u64,
    /// The zone's start, relative to each region's start.
    base_bytes: u64,
    /// Bytes issued in this zone.
    done_bytes: u64,
}

impl Zones {
    /// The zones of `zones` over `regions`, starting at the first.
    pub(super) fn new(zones: StridedZones, regions: Vec<FileRegion>) -> Zones {
        let span_bytes = regions.iter().map(|r| r.len_bytes).min().unwrap_or(0);
        let range_bytes = zones.effective_range_bytes().max(1);
        Zones {
            range_bytes,
            size_bytes: zones.size_bytes.max(1),
            step_bytes: range_bytes + zones.skip_bytes,
            regions,
            span_bytes,
            base_bytes: 0,
            done_bytes: 0,
        }
    }

    /// The regions of the current zone, one per file.
    pub(super) fn zone_regions(&self) -> Vec<FileRegion> {
        let len = self
            .range_bytes
            .min(self.span_bytes - self.base_bytes.min(self.span_bytes));
        self.regions
            .iter()
            .map(|r| FileRegion {
                start_bytes: r.start_bytes + self.base_bytes,
                len_bytes: len.max(1),
            })
            .collect()
    }

    /// Counts an issued IO; true when the zone is done and the next one starts.
    fn issued(&mut self, len_bytes: u64) -> bool {
        self.done_bytes += len_bytes;
        if self.done_bytes < self.size_bytes {
            return false;
        }
        self.done_bytes = 0;
        self.base_bytes += self.step_bytes;
        if self.base_bytes >= self.span_bytes {
            self.base_bytes = 0;
        }
        true
    }
}

/// fio `rw_sequencer=identical`: each offset the generator gives is used `every` times.
pub(super) struct Identical {
    every: u64,
    used: u64,
    last: (u32, u64),
}

impl Identical {
    /// Repeats of each offset (`rw=rand...:N`).
    pub(super) fn new(every: u64) -> Identical {
        Identical {
            every: every.max(1),
            used: 0,
            last: (0, 0),
        }
    }

    /// The next offset: the last one again, or a new one from `offsets` every `every` IOs.
    pub(super) fn next(
        &mut self,
        offsets: &mut OffsetGenerator,
        direction: usize,
        len_bytes: u64,
        align_bytes: u64,
    ) -> (u32, u64) {
        if self.used.is_multiple_of(self.every) {
            self.last = offsets.next(direction, len_bytes, align_bytes);
        }
        self.used += 1;
        self.last
    }
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// Counts an IO of `len_bytes` in the zone; moves to the next zone once it is done.
    #[cold]
    pub(super) fn zone_issued(&mut self, len_bytes: u64) {
        let Some(zones) = self.zones.as_mut() else {
            return;
        };
        if zones.issued(len_bytes) {
            let regions = zones.zone_regions();
            self.offsets = offsets_for_regions(self.ctx, &self.shape, &regions);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(len_bytes: u64) -> FileRegion {
        FileRegion {
            start_bytes: 0,
            len_bytes,
        }
    }

    #[test]
    fn zones_step_by_range_and_skip_and_wrap_like_fios_strided_mode() {
        // fio --zonemode=strided --zonesize=512k --zonerange=1m --zoneskip=1m --size=8m:
        // 512k at 0, 2m, 4m, 6m, then 0 again.
        let mut zones = Zones::new(
            StridedZones {
                range_bytes: 1 << 20,
                size_bytes: 512 << 10,
                skip_bytes: 1 << 20,
            },
            vec![region(8 << 20)],
        );
        let mut starts = vec![zones.zone_regions()[0].start_bytes];
        for _ in 0..4 {
            assert!(!zones.issued(256 << 10));
            assert!(zones.issued(256 << 10));
            starts.push(zones.zone_regions()[0].start_bytes);
        }
        assert_eq!(starts, [0, 2 << 20, 4 << 20, 6 << 20, 0]);
        assert_eq!(zones.zone_regions()[0].len_bytes, 1 << 20);
    }

    #[test]
    fn a_zone_without_a_range_is_zonesize_long() {
        let zones = Zones::new(
            StridedZones {
                range_bytes: 0,
                size_bytes: 256 << 20,
                skip_bytes: 2 << 30,
            },
            vec![region(8 << 30)],
        );
        assert_eq!(zones.zone_regions()[0].len_bytes, 256 << 20);
        assert_eq!(zones.step_bytes, (256 << 20) + (2 << 30));
    }
}
