//! The bounded tables a device's aggregation counts in: where each stream's last IO ended,
//! how many IOs had each size, which processes issued them, and how many IOs each region of
//! the device took. Each has a fixed capacity, so the tracer's memory does not grow with the
//! IO rate or the capture's duration; what does not fit is counted, never dropped silently.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::{HotSet, ProcessShare, SizeShare};

use super::event::Direction;

/// A multiplicative hasher for the tables' integer keys (sectors, pids, sizes). The
/// standard SipHash guards maps fed by untrusted input at several times the cost; these
/// keys come from the kernel, and hashing was a tenth of the reader's time with SipHash.
#[derive(Debug, Default, Clone, Copy)]
pub struct IntHasher(u64);

impl IntHasher {
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        // The multiply leaves its entropy in the high bits; the table indexes by the low.
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_ne_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }
}

/// A map with [`IntHasher`].
pub type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

/// Where the previous IO of each stream (issuing pid + direction) ended, to tell sequential
/// IO (starting there) from random IO.
#[derive(Debug)]
pub struct StreamTable {
    next_sector: IntMap<(u32, Direction), (u64, u64)>,
    capacity: usize,
    clock: u64,
}

impl StreamTable {
    /// A table of at most `capacity` streams; when full, the least recently used half goes
    /// (a forgotten stream's next IO counts as random, as a new stream's first IO does).
    pub fn new(capacity: usize) -> StreamTable {
        StreamTable {
            next_sector: IntMap::with_capacity_and_hasher(capacity.min(1024), Default::default()),
            capacity: capacity.max(2),
            clock: 0,
        }
    }

    /// Records an IO of `sectors` at `sector`; true when it starts where the stream's
    /// previous IO ended.
    pub fn is_sequential(
        &mut self,
        pid: u32,
        direction: Direction,
        sector: u64,
        sectors: u64,
    ) -> bool {
        self.clock += 1;
        let end = sector + sectors;
        if let Some(entry) = self.next_sector.get_mut(&(pid, direction)) {
            let sequential = entry.0 == sector;
            *entry = (end, self.clock);
            return sequential;
        }
        if self.next_sector.len() >= self.capacity {
            self.forget_older_half();
        }
        self.next_sector.insert((pid, direction), (end, self.clock));
        false
    }

    fn forget_older_half(&mut self) {
        let mut used: Vec<u64> = self.next_sector.values().map(|&(_, at)| at).collect();
        let middle = used.len() / 2;
        let (_, &mut cutoff, _) = used.select_nth_unstable(middle);
        self.next_sector.retain(|_, &mut (_, at)| at > cutoff);
    }

    /// Streams remembered now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.next_sector.len()
    }
}

/// IOs per size, for at most a fixed number of distinct sizes; IOs of further sizes are
/// counted together as `other_ios`.
#[derive(Debug)]
pub struct SizeTable {
    ios_by_size: IntMap<u64, u64>,
    capacity: usize,
    /// IOs whose size did not fit in the table.
    pub other_ios: u64,
}

impl SizeTable {
    /// A table of at most `capacity` distinct sizes.
    pub fn new(capacity: usize) -> SizeTable {
        SizeTable {
            ios_by_size: IntMap::default(),
            capacity,
            other_ios: 0,
        }
    }

    /// Counts one IO of `bytes`.
    pub fn record(&mut self, bytes: u64) {
        if let Some(ios) = self.ios_by_size.get_mut(&bytes) {
            *ios += 1;
        } else if self.ios_by_size.len() < self.capacity {
            self.ios_by_size.insert(bytes, 1);
        } else {
            self.other_ios += 1;
        }
    }

    /// The sizes, most IOs first (ties: smaller size first).
    pub fn shares(&self) -> Vec<SizeShare> {
        let mut shares: Vec<SizeShare> = self
            .ios_by_size
            .iter()
            .map(|(&bytes, &ios)| SizeShare { bytes, ios })
            .collect();
        shares.sort_by(|a, b| b.ios.cmp(&a.ios).then(a.bytes.cmp(&b.bytes)));
        shares
    }
}

/// IOs and bytes per issuing process, for at most a fixed number of processes; IOs of
/// further processes are counted together.
#[derive(Debug)]
pub struct ProcessTable {
    slot_by_pid: IntMap<u32, usize>,
    processes: Vec<ProcessShare>,
    capacity: usize,
    /// IOs of processes that did not fit in the table.
    pub other_ios: u64,
    /// Bytes of those IOs.
    pub other_bytes: u64,
}

/// The slot of a process in a [`ProcessTable`], carried by an IO in flight.
pub type ProcessSlot = u32;

/// The slot of the processes that did not fit.
pub const OTHER_PROCESSES: ProcessSlot = ProcessSlot::MAX;

impl ProcessTable {
    /// A table of at most `capacity` processes.
    pub fn new(capacity: usize) -> ProcessTable {
        ProcessTable {
            slot_by_pid: IntMap::default(),
            processes: Vec::new(),
            capacity,
            other_ios: 0,
            other_bytes: 0,
        }
    }

    /// The slot of `pid` (named `command` now: a pid reused by another program takes the
    /// newer name), or [`OTHER_PROCESSES`] when the table is full.
    pub fn slot(&mut self, pid: u32, command: &str) -> ProcessSlot {
        if let Some(&slot) = self.slot_by_pid.get(&pid) {
            let process = &mut self.processes[slot];
            if process.command != command {
                process.command.clear();
                process.command.push_str(command);
            }
            return slot as ProcessSlot;
        }
        if self.processes.len() >= self.capacity {
            return OTHER_PROCESSES;
        }
        let slot = self.processes.len();
        self.processes.push(ProcessShare {
            command: command.to_string(),
            pid,
            ios: 0,
            bytes: 0,
        });
        self.slot_by_pid.insert(pid, slot);
        slot as ProcessSlot
    }

    /// Counts one IO of `bytes` for the process in `slot`.
    pub fn record(&mut self, slot: ProcessSlot, bytes: u64) {
        match self.processes.get_mut(slot as usize) {
            Some(process) => {
                process.ios += 1;
                process.bytes += bytes;
            }
            None => {
                self.other_ios += 1;
                self.other_bytes += bytes;
            }
        }
    }

    /// The `top` processes with the most IOs (ties: lower pid first).
    pub fn top(&self, top: usize) -> Vec<ProcessShare> {
        let mut all: Vec<&ProcessShare> = self.processes.iter().filter(|p| p.ios > 0).collect();
        all.sort_by(|a, b| b.ios.cmp(&a.ios).then(a.pid.cmp(&b.pid)));
        all.into_iter().take(top).cloned().collect()
    }

    /// IOs and bytes of the processes that are not in the `top`.
    pub fn beyond_top(&self, top: usize) -> (u64, u64) {
        let shown = self.top(top);
        let all_ios: u64 = self.processes.iter().map(|p| p.ios).sum::<u64>() + self.other_ios;
        let all_bytes: u64 = self.processes.iter().map(|p| p.bytes).sum::<u64>() + self.other_bytes;
        (
            all_ios - shown.iter().map(|p| p.ios).sum::<u64>(),
            all_bytes - shown.iter().map(|p| p.bytes).sum::<u64>(),
        )
    }
}

/// IOs per region of the device (an IO counts in the region of its first byte), in a fixed
/// number of regions: the region size is the smallest power of two, at least
/// [`MIN_REGION_BYTES`], that covers the device in `max_regions`, and doubles (merging
/// neighbours) if an IO lands beyond that, so large devices get coarser regions, not more.
#[derive(Debug)]
pub struct RegionCounter {
    ios: Vec<u64>,
    region_shift: u32,
    max_regions: usize,
}

/// The finest region: 64 KiB, so a small device still has a meaningful hot set.
pub const MIN_REGION_BYTES: u64 = 64 * 1024;

impl RegionCounter {
    /// Regions for a device of `device_bytes` (unknown: start fine and coarsen as IO lands).
    pub fn new(device_bytes: Option<u64>, max_regions: usize) -> RegionCounter {
        let max_regions = max_regions.max(1);
        let mut region_shift = MIN_REGION_BYTES.trailing_zeros();
        if let Some(bytes) = device_bytes {
            while bytes.div_ceil(1 << region_shift) > max_regions as u64 {
                region_shift += 1;
            }
        }
        RegionCounter {
            ios: Vec::new(),
            region_shift,
            max_regions,
        }
    }

    /// Region size now, bytes.
    pub fn region_bytes(&self) -> u64 {
        1 << self.region_shift
    }

    /// Counts one IO starting at byte `offset`.
    pub fn record(&mut self, offset: u64) {
        let mut index = (offset >> self.region_shift) as usize;
        while index >= self.max_regions {
            self.coarsen();
            index = (offset >> self.region_shift) as usize;
        }
        if index >= self.ios.len() {
            self.ios.resize(index + 1, 0);
        }
        self.ios[index] += 1;
    }

    fn coarsen(&mut self) {
        let merged: Vec<u64> = self.ios.chunks(2).map(|pair| pair.iter().sum()).collect();
        self.ios = merged;
        self.region_shift += 1;
    }

    /// The working set and its skew: touched bytes, and the share of them (and of the
    /// device, when its size is known) that took 80 % of the IOs.
    pub fn hot_set(&self, device_bytes: Option<u64>) -> HotSet {
        let mut touched: Vec<u64> = self.ios.iter().copied().filter(|&n| n > 0).collect();
        let region_bytes = self.region_bytes();
        let total: u64 = touched.iter().sum();
        if total == 0 {
            return HotSet {
                region_bytes,
                ..HotSet::default()
            };
        }
        touched.sort_unstable_by(|a, b| b.cmp(a));
        // The fewest regions whose IOs reach 80 % of all: the busiest first.
        let target = total as f64 * 0.8;
        let mut sum = 0u64;
        let mut hot_regions = 0u64;
        for &n in &touched {
            sum += n;
            hot_regions += 1;
            if sum as f64 >= target {
                break;
            }
        }
        let working_set_bytes = touched.len() as u64 * region_bytes;
        HotSet {
            region_bytes,
            working_set_bytes: device_bytes.map_or(working_set_bytes, |d| working_set_bytes.min(d)),
            share_for_80_percent_of_ios: hot_regions as f64 / touched.len() as f64,
            device_share_for_80_percent_of_ios: device_bytes
                .filter(|&d| d > 0)
                .map(|d| ((hot_regions * region_bytes) as f64 / d as f64).min(1.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_sectors_spread_over_the_low_bits_a_table_indexes_by() {
        use std::hash::BuildHasher;
        let build = BuildHasherDefault::<IntHasher>::default();
        // 4,096 sectors 64 KiB apart: the low 12 bits of their hashes take most values.
        let buckets: std::collections::HashSet<u64> = (0..4096u64)
            .map(|i| build.hash_one((i * 128, Direction::Read, 0u32)) & 0xfff)
            .collect();
        assert!(
            buckets.len() > 2048,
            "{} of 4096 buckets used",
            buckets.len()
        );
    }

    #[test]
    fn an_io_that_starts_where_the_streams_last_ended_is_sequential() {
        let mut streams = StreamTable::new(16);
        assert!(
            !streams.is_sequential(1, Direction::Read, 0, 8),
            "a stream's first IO"
        );
        assert!(streams.is_sequential(1, Direction::Read, 8, 8));
        // Another direction or another process is another stream.
        assert!(!streams.is_sequential(1, Direction::Write, 16, 8));
        assert!(!streams.is_sequential(2, Direction::Read, 16, 8));
        assert!(streams.is_sequential(1, Direction::Read, 16, 8));
        assert!(!streams.is_sequential(1, Direction::Read, 100, 8), "a jump");
    }

    #[test]
    fn the_stream_table_stays_bounded_and_keeps_recent_streams() {
        let mut streams = StreamTable::new(100);
        for pid in 0..10_000 {
            streams.is_sequential(pid, Direction::Read, 0, 8);
            streams.is_sequential(7, Direction::Read, pid as u64 * 8, 8);
            assert!(streams.len() <= 100);
        }
        assert!(
            streams.is_sequential(7, Direction::Read, 80_000, 8),
            "pid 7 stays"
        );
    }

    #[test]
    fn sizes_beyond_the_tables_capacity_are_counted_as_other() {
        let mut sizes = SizeTable::new(2);
        for bytes in [8192, 65536, 8192, 4096, 8192] {
            sizes.record(bytes);
        }
        assert_eq!(
            sizes.shares(),
            vec![
                SizeShare {
                    bytes: 8192,
                    ios: 3
                },
                SizeShare {
                    bytes: 65536,
                    ios: 1
                }
            ]
        );
        assert_eq!(sizes.other_ios, 1);
    }

    #[test]
    fn processes_are_ranked_by_ios_and_the_rest_is_summed() {
        let mut table = ProcessTable::new(2);
        let fio = table.slot(10, "fio");
        let db = table.slot(20, "postgres");
        let late = table.slot(30, "late");
        assert_eq!(late, OTHER_PROCESSES);
        for _ in 0..3 {
            table.record(db, 8192);
        }
        table.record(fio, 4096);
        table.record(late, 512);
        let top = table.top(1);
        assert_eq!(
            (top[0].command.as_str(), top[0].ios, top[0].bytes),
            ("postgres", 3, 24576)
        );
        assert_eq!(table.beyond_top(1), (2, 4608));
        assert_eq!(
            table.slot(20, "postgres: wal"),
            db,
            "a renamed pid keeps its slot"
        );
        assert_eq!(table.top(1)[0].command, "postgres: wal");
    }

    #[test]
    fn regions_grow_with_the_device_and_count_where_ios_start() {
        let small = RegionCounter::new(Some(256 << 20), 1 << 16);
        assert_eq!(small.region_bytes(), MIN_REGION_BYTES);
        let large = RegionCounter::new(Some(1 << 40), 1 << 16);
        assert_eq!(large.region_bytes(), 16 << 20);
        let mut unknown = RegionCounter::new(None, 4);
        unknown.record(0);
        unknown.record(5 * MIN_REGION_BYTES);
        assert_eq!(unknown.region_bytes(), 2 * MIN_REGION_BYTES);
        assert_eq!(unknown.ios, vec![1, 0, 1]);
    }

    #[test]
    fn the_hot_set_is_the_busiest_regions_that_take_80_percent() {
        // 10 regions touched on a 100-region device; 2 of them take 80 of 100 IOs.
        let region = MIN_REGION_BYTES;
        let mut regions = RegionCounter::new(Some(100 * region), 1000);
        for _ in 0..40 {
            regions.record(0);
            regions.record(region);
        }
        for r in 2..12 {
            regions.record(r * region);
            regions.record(r * region + 1);
        }
        let hot = regions.hot_set(Some(100 * region));
        assert_eq!(hot.working_set_bytes, 12 * region);
        assert_eq!(hot.share_for_80_percent_of_ios, 2.0 / 12.0);
        assert_eq!(hot.device_share_for_80_percent_of_ios, Some(0.02));
    }
}
