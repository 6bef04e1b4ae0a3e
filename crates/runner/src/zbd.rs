//! fio's `zonemode=zbd` on targets that are not zoned block devices: the target is cut into
//! zones of `zonesize` (from the file's start, as fio 3.33 `zbd.c` does for files and
//! non-zoned devices), each with a write pointer, and every write goes to a write pointer.
//!
//! What follows fio's rules:
//! - a write lands at the write pointer of the zone its offset falls in (a sequential job's
//!   offsets are the write pointers already, a random job writes zones in place);
//! - a zone is full (finished, no longer open) once its capacity is written, and a write
//!   that would not fit moves on to the next zone with room;
//! - at most `max_open_zones` / `job_max_open_zones` zones are open; a write to another zone
//!   goes to an open one instead;
//! - past `zone_reset_threshold` of the zones' bytes written, `zone_reset_frequency` of the
//!   writes reset their zone first; a trim resets the zones it covers;
//! - without `read_beyond_wp`, reads stay below the write pointer, in the zone or the next
//!   one with data.
//!
//! - a job that only trims at random, on files of its own, ends when no zone holds data
//!   (fio's `zbd_adjust_block` for `DDIR_TRIM`: "eof"); emulated zones start empty, so
//!   `rw=randtrim` alone does no IO, as in fio 3.33.
//!
//! Where diskmeter differs: the open-zone limits and write pointers are each job's own (fio
//! shares them over the jobs on a target), and when every zone is full a write resets its
//! zone rather than ending the job.
//!
//! A real zoned block device is refused by [`check_targets`] with its reason.

use crate::error::RunError;
use crate::offsets::FileRegion;
use crate::prepare::TargetPlan;
use crate::safety::TargetKind;
use diskmeter_workload::control::ZbdZones;
use diskmeter_workload::JobSpec;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What an IO does to the zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ZoneOp {
    /// Reads stay below the write pointer (unless `read_beyond_wp`).
    Read,
    /// Writes go to a write pointer.
    Write,
    /// Trims reset the zones they cover.
    Trim,
}

/// The zones of one file region: the first whole zone and each zone's written bytes.
struct FileZones {
    /// The start of the first whole zone inside the region, bytes from the file's start.
    first_start_bytes: u64,
    /// Bytes written in each zone (its write pointer, relative to the zone's start).
    written_bytes: Vec<u64>,
}

/// A job's emulated zones over its files, with their write pointers and open zones.
pub(crate) struct EmulatedZones {
    zone_bytes: u64,
    capacity_bytes: u64,
    files: Vec<FileZones>,
    /// Open zones as (file, zone), oldest first.
    open: Vec<(u32, usize)>,
    open_limit: usize,
    reset_threshold: f64,
    reset_frequency: f64,
    read_beyond_wp: bool,
    /// Bytes below the write pointers over all zones, and the zones' capacity in all.
    written_total_bytes: u64,
    capacity_total_bytes: u64,
    /// A xorshift state for the reset draws (seeded from the job's seed).
    rng: u64,
    /// The job only trims, at random (`rw=randtrim`): it ends when no zone holds data.
    random_trims_only: bool,
}

impl EmulatedZones {
    /// Zones over `regions` (one per file, in the worker's file order), all empty: fio
    /// starts emulated zones empty.
    pub(crate) fn new(zones: ZbdZones, regions: &[FileRegion], seed: u64) -> EmulatedZones {
        let zone_bytes = zones.size_bytes.max(1);
        let files: Vec<FileZones> = regions
            .iter()
            .map(|r| {
                let first = r.start_bytes.div_ceil(zone_bytes);
                let end = (r.start_bytes + r.len_bytes) / zone_bytes;
                FileZones {
                    first_start_bytes: first * zone_bytes,
                    written_bytes: vec![0; end.saturating_sub(first) as usize],
                }
            })
            .collect();
        let zone_count: usize = files.iter().map(|f| f.written_bytes.len()).sum();
        EmulatedZones {
            zone_bytes,
            capacity_bytes: zones.capacity_bytes().max(1),
            files,
            open: Vec::new(),
            open_limit: zones.open_limit() as usize,
            reset_threshold: zones.options.zone_reset_threshold,
            reset_frequency: zones.options.zone_reset_frequency,
            read_beyond_wp: zones.options.read_beyond_wp,
            written_total_bytes: 0,
            capacity_total_bytes: zone_count as u64 * zones.capacity_bytes(),
            rng: seed | 1,
            random_trims_only: false,
        }
    }

    /// Marks the job as trimming only, at random (fio's `rw=randtrim`): see [`Self::ended`].
    pub(crate) fn with_random_trims_only(mut self, on: bool) -> EmulatedZones {
        self.random_trims_only = on;
        self
    }

    /// True when the job can do no more IO: it only trims at random and no zone holds data
    /// (fio finds no non-empty zone to trim and ends the file, `zbd_find_zone`).
    #[inline]
    pub(crate) fn ended(&self) -> bool {
        self.random_trims_only && self.written_total_bytes == 0
    }

    /// The offset an IO of `len_bytes` chosen at `offset_bytes` of `file` goes to under the
    /// zones' rules, with the write pointers moved on.
    pub(crate) fn place(
        &mut self,
        op: ZoneOp,
        file: u32,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> u64 {
        let Some(zone) = self.zone_of(file, offset_bytes) else {
            return offset_bytes;
        };
        match op {
            ZoneOp::Trim => {
                let last = self
                    .zone_of(file, offset_bytes + len_bytes.max(1) - 1)
                    .unwrap_or(zone);
                for z in zone..=last {
                    self.reset(file, z);
                }
                offset_bytes
            }
            ZoneOp::Read => self.place_read(file, zone, offset_bytes, len_bytes),
            ZoneOp::Write => self.place_write(file, zone, len_bytes),
        }
    }

    /// The zone index of `offset_bytes` in `file`, if it is in a whole zone of the region.
    fn zone_of(&self, file: u32, offset_bytes: u64) -> Option<usize> {
        let zones = self.files.get(file as usize)?;
        let zone = offset_bytes.checked_sub(zones.first_start_bytes)? / self.zone_bytes;
        (zone < zones.written_bytes.len() as u64).then_some(zone as usize)
    }

    fn start_of(&self, file: u32, zone: usize) -> u64 {
        self.files[file as usize].first_start_bytes + zone as u64 * self.zone_bytes
    }

    fn written(&self, file: u32, zone: usize) -> u64 {
        self.files[file as usize].written_bytes[zone]
    }

    fn reset(&mut self, file: u32, zone: usize) {
        let written = std::mem::take(&mut self.files[file as usize].written_bytes[zone]);
        self.written_total_bytes -= written;
        self.open.retain(|&open| open != (file, zone));
    }

    fn draw(&mut self) -> f64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 11) as f64 / (1u64 << 53) as f64
    }

    fn place_write(&mut self, file: u32, mut zone: usize, len_bytes: u64) -> u64 {
        let is_open = |zones: &Self, zone: usize| zones.open.contains(&(file, zone));
        if self.open_limit > 0 && self.open.len() >= self.open_limit && !is_open(self, zone) {
            // fio: a write to a zone that cannot be opened goes to an open one.
            let pick = (self.draw() * self.open.len() as f64) as usize;
            let (open_file, open_zone) = self.open[pick.min(self.open.len() - 1)];
            return self.write_at(open_file, open_zone, len_bytes);
        }
        if self.reset_frequency > 0.0
            && self.written_total_bytes as f64
                >= self.reset_threshold * self.capacity_total_bytes as f64
            && self.draw() < self.reset_frequency
        {
            self.reset(file, zone);
        }
        let zones = self.files[file as usize].written_bytes.len();
        let fits = |z: &Self, zone: usize| z.written(file, zone) + len_bytes <= z.capacity_bytes;
        if !fits(self, zone) {
            // The zone is full: the next one with room that may be opened.
            let can_open = |z: &Self, zone: usize| {
                z.open_limit == 0 || z.open.len() < z.open_limit || z.open.contains(&(file, zone))
            };
            match (1..zones)
                .map(|step| (zone + step) % zones)
                .find(|&z| fits(self, z) && can_open(self, z))
            {
                Some(next) => zone = next,
                // Every zone is full: fio ends the job; diskmeter resets the zone and goes on.
                None => self.reset(file, zone),
            }
        }
        self.write_at(file, zone, len_bytes)
    }

    /// Writes `len_bytes` at the write pointer of `zone` (it is open until full).
    fn write_at(&mut self, file: u32, zone: usize, len_bytes: u64) -> u64 {
        if self.written(file, zone) + len_bytes > self.capacity_bytes {
            self.reset(file, zone);
        }
        let offset = self.start_of(file, zone) + self.written(file, zone);
        let written = &mut self.files[file as usize].written_bytes[zone];
        *written += len_bytes;
        let full = *written + len_bytes > self.capacity_bytes;
        self.written_total_bytes += len_bytes;
        let open = self.open.contains(&(file, zone));
        if full {
            // A full zone is finished: it no longer counts against the open limit.
            self.open.retain(|&o| o != (file, zone));
        } else if !open {
            self.open.push((file, zone));
        }
        offset
    }

    fn place_read(&mut self, file: u32, zone: usize, offset_bytes: u64, len_bytes: u64) -> u64 {
        if self.read_beyond_wp {
            return offset_bytes;
        }
        let zones = self.files[file as usize].written_bytes.len();
        let Some(zone_with_data) = (0..zones)
            .map(|step| (zone + step) % zones)
            .find(|&z| self.written(file, z) >= len_bytes)
        else {
            // Nothing written yet: the read goes where it was drawn.
            return offset_bytes;
        };
        let start = self.start_of(file, zone_with_data);
        let blocks = self.written(file, zone_with_data) / len_bytes.max(1);
        let within = (offset_bytes.saturating_sub(self.start_of(file, zone)) / len_bytes.max(1))
            % blocks.max(1);
        start + within * len_bytes
    }
}

/// With `zonemode=zbd`, refuses a target that is a zoned block device (diskmeter emulates
/// zones, it does not drive a device's own), and a region smaller than one zone.
pub(crate) fn check_targets(
    job: &JobSpec,
    targets: &[usize],
    all: &[TargetPlan],
) -> Result<(), RunError> {
    let Some(zones) = job.control.zbd_zones() else {
        return Ok(());
    };
    for &index in targets {
        let target = &all[index];
        let fail = |message: String| RunError::Job {
            job: job.name.clone(),
            message: format!("zonemode=zbd: {}: {message}", target.path.display()),
        };
        if target.kind == TargetKind::BlockDevice {
            if let Some(model) = zoned_model(&target.path) {
                return Err(fail(format!(
                    "a zoned block device ({model}); diskmeter emulates zones on files and \
                     non-zoned devices but does not drive a device's own zones (write \
                     pointers, zone resets, open-zone limits)"
                )));
            }
        }
        if target.kind != TargetKind::Virtual {
            let start = target.region_start_bytes.div_ceil(zones.size_bytes);
            let end = (target.region_start_bytes + target.region_len_bytes) / zones.size_bytes;
            if end <= start {
                return Err(fail(format!(
                    "the region ({} bytes from {}) holds no whole zone of zonesize={}",
                    target.region_len_bytes, target.region_start_bytes, zones.size_bytes
                )));
            }
        }
    }
    Ok(())
}

/// The zoned model of the block device at `path` (`host-managed`, `host-aware`), from
/// `/sys/dev/block/MAJ:MIN/queue/zoned` (a partition's is its disk's); `None` when not zoned.
pub(crate) fn zoned_model(path: &Path) -> Option<String> {
    let rdev = std::fs::metadata(path).ok()?.rdev();
    let sys = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    let sys = Path::new(&sys);
    let model = [sys.join("queue/zoned"), sys.join("../queue/zoned")]
        .into_iter()
        .find_map(|p| std::fs::read_to_string(p).ok())?;
    let model = model.trim();
    (model != "none" && !model.is_empty()).then(|| model.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_workload::control::ZbdOptions;

    fn zones(options: ZbdOptions) -> EmulatedZones {
        let zbd = ZbdZones {
            size_bytes: 1 << 20,
            options,
        };
        let region = FileRegion {
            start_bytes: 0,
            len_bytes: 4 << 20,
        };
        EmulatedZones::new(zbd, &[region], 7)
    }

    #[test]
    fn random_writes_land_at_their_zones_write_pointers() {
        let mut z = zones(ZbdOptions::default());
        let k = 64 << 10;
        assert_eq!(z.place(ZoneOp::Write, 0, 3 << 20 | 12345, k), 3 << 20);
        assert_eq!(
            z.place(ZoneOp::Write, 0, 3 << 20 | 999_999, k),
            (3 << 20) + k
        );
        assert_eq!(z.place(ZoneOp::Write, 0, 5000, k), 0);
        assert_eq!(z.place(ZoneOp::Write, 0, 0, k), k);
    }

    #[test]
    fn the_open_zone_limit_sends_writes_to_open_zones() {
        let mut z = zones(ZbdOptions {
            max_open_zones: 2,
            ..ZbdOptions::default()
        });
        let k = 64 << 10;
        z.place(ZoneOp::Write, 0, 0, k);
        z.place(ZoneOp::Write, 0, 2 << 20, k);
        let third = z.place(ZoneOp::Write, 0, 3 << 20, k);
        assert!(third == k || third == (2 << 20) + k, "{third}");
    }

    #[test]
    fn a_full_zone_moves_writes_on_and_a_trim_resets_it() {
        let mut z = zones(ZbdOptions::default());
        let half = 512 << 10;
        assert_eq!(z.place(ZoneOp::Write, 0, 0, half), 0);
        assert_eq!(z.place(ZoneOp::Write, 0, 0, half), half);
        assert_eq!(z.place(ZoneOp::Write, 0, 0, half), 1 << 20);
        z.place(ZoneOp::Trim, 0, 0, 1 << 20);
        assert_eq!(z.place(ZoneOp::Write, 0, 0, half), 0);
    }

    #[test]
    fn a_random_trim_only_job_ends_when_no_zone_holds_data() {
        // Emulated zones start empty: fio 3.33's rw=randtrim finds no zone to trim.
        let z = zones(ZbdOptions::default()).with_random_trims_only(true);
        assert!(z.ended());
        let mut z = zones(ZbdOptions::default()).with_random_trims_only(true);
        z.place(ZoneOp::Write, 0, 0, 64 << 10);
        assert!(!z.ended(), "a zone holds data");
        z.place(ZoneOp::Trim, 0, 0, 1 << 20);
        assert!(z.ended());
        assert!(!zones(ZbdOptions::default()).ended(), "other jobs go on");
    }

    #[test]
    fn reads_stay_below_the_write_pointer_unless_allowed() {
        let mut z = zones(ZbdOptions::default());
        let k = 64 << 10;
        z.place(ZoneOp::Write, 0, 1 << 20, k);
        z.place(ZoneOp::Write, 0, 1 << 20, k);
        for drawn in [0, 1 << 20, (1 << 20) + 5 * k, 3 << 20] {
            let read = z.place(ZoneOp::Read, 0, drawn, k);
            assert!(
                (1 << 20..(1 << 20) + 2 * k).contains(&read),
                "{drawn} -> {read}"
            );
        }
        let mut beyond = zones(ZbdOptions {
            read_beyond_wp: true,
            ..ZbdOptions::default()
        });
        assert_eq!(beyond.place(ZoneOp::Read, 0, 3 << 20, k), 3 << 20);
    }
}
