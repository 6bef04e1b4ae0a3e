//! `/proc/diskstats`: one line per block device (whole disks and partitions) with the
//! kernel's cumulative IO counters, in the three layouts kernels have written
//! (Documentation/admin-guide/iostats.rst): 14 fields (up to 4.18), 18 with discards (4.19)
//! and 20 with flushes (5.5). The layout sysstat's iostat reads (`read_diskstats_stat_work`
//! in iostat.c) is the one followed here, field for field and with the same widths.

use crate::CaptureError;
use std::path::Path;

/// The kernel's cumulative counters for one device, as /proc/diskstats prints them.
///
/// Counts and sectors are `unsigned long` in the kernel (64 bits here); times and the
/// in-flight count are printed as `unsigned int`, so they wrap at 2^32 and are kept as
/// `u32` so that a difference across the wrap still comes out right (as in sysstat).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskCounters {
    /// Reads completed.
    pub read_ios: u64,
    /// Reads merged with a neighbour before reaching the device.
    pub read_merges: u64,
    /// 512-byte sectors read.
    pub read_sectors: u64,
    /// Milliseconds spent by all reads (from issue to completion, summed over requests).
    pub read_ticks_ms: u32,
    /// Writes completed.
    pub write_ios: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// Milliseconds spent by all writes.
    pub write_ticks_ms: u32,
    /// Requests in flight at the moment of reading.
    pub in_flight: u32,
    /// Milliseconds the device had at least one request in flight (`io_ticks`).
    pub busy_ms: u32,
    /// Weighted milliseconds: in-flight requests x time (`time_in_queue`).
    pub queue_ms: u32,
    /// Discards completed (0 before 4.19).
    pub discard_ios: u64,
    /// Discards merged.
    pub discard_merges: u64,
    /// Sectors discarded.
    pub discard_sectors: u64,
    /// Milliseconds spent by all discards.
    pub discard_ticks_ms: u32,
    /// Flush requests completed (0 before 5.5).
    pub flush_ios: u64,
    /// Milliseconds spent by all flushes.
    pub flush_ticks_ms: u32,
}

impl DiskCounters {
    /// Whether the device has completed any request since boot (iostat's test for listing a
    /// device when none is named).
    pub fn has_activity(&self) -> bool {
        self.read_ios + self.write_ios + self.discard_ios + self.flush_ios > 0
    }
}

/// One line of /proc/diskstats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskLine {
    /// Major device number.
    pub major: u32,
    /// Minor device number.
    pub minor: u32,
    /// Kernel name (`vda`, `vda1`, `loop3`, `dm-0`).
    pub name: String,
    /// Its counters.
    pub counters: DiskCounters,
}

/// Parses the text of /proc/diskstats (`path` names it in errors).
///
/// Lines of 7 fields (partitions on kernels before 2.6.25, without extended statistics) are
/// skipped, as `iostat -x` skips them; any other layout than 14, 18 or 20 fields, or more
/// (fields a future kernel may append are ignored), is an error naming the line.
pub fn parse_diskstats(text: &str, path: &Path) -> Result<Vec<DiskLine>, CaptureError> {
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() || fields.len() == 7 {
            continue;
        }
        let error = |reason: String| CaptureError::Format {
            path: path.to_path_buf(),
            line: index + 1,
            reason,
        };
        if fields.len() < 14 {
            return Err(error(format!(
                "{} fields; a kernel writes 14, 18 or 20",
                fields.len()
            )));
        }
        let number = |at: usize| -> Result<u64, CaptureError> {
            fields[at].parse::<u64>().map_err(|_| {
                error(format!(
                    "field {} ('{}') is not a whole number",
                    at + 1,
                    fields[at]
                ))
            })
        };
        // Printed as `unsigned int`: keep the low 32 bits, as sysstat's `%u` does.
        let ticks = |at: usize| number(at).map(|n| n as u32);
        let counters = DiskCounters {
            read_ios: number(3)?,
            read_merges: number(4)?,
            read_sectors: number(5)?,
            read_ticks_ms: ticks(6)?,
            write_ios: number(7)?,
            write_merges: number(8)?,
            write_sectors: number(9)?,
            write_ticks_ms: ticks(10)?,
            in_flight: ticks(11)?,
            busy_ms: ticks(12)?,
            queue_ms: ticks(13)?,
            discard_ios: if fields.len() >= 18 { number(14)? } else { 0 },
            discard_merges: if fields.len() >= 18 { number(15)? } else { 0 },
            discard_sectors: if fields.len() >= 18 { number(16)? } else { 0 },
            discard_ticks_ms: if fields.len() >= 18 { ticks(17)? } else { 0 },
            flush_ios: if fields.len() >= 20 { number(18)? } else { 0 },
            flush_ticks_ms: if fields.len() >= 20 { ticks(19)? } else { 0 },
        };
        lines.push(DiskLine {
            major: number(0)? as u32,
            minor: number(1)? as u32,
            name: fields[2].to_string(),
            counters,
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<DiskLine> {
        parse_diskstats(text, Path::new("/proc/diskstats")).unwrap()
    }

    #[test]
    fn a_4_18_kernel_line_has_14_fields_and_no_discards_or_flushes() {
        let lines = parse("   8       0 sda 1200 30 96000 4500 800 20 64000 3000 2 5000 7600\n");
        let c = lines[0].counters;
        assert_eq!((lines[0].major, lines[0].minor), (8, 0));
        assert_eq!(lines[0].name, "sda");
        assert_eq!(
            (c.read_ios, c.read_merges, c.read_sectors),
            (1200, 30, 96000)
        );
        assert_eq!(
            (c.write_ios, c.write_sectors, c.write_ticks_ms),
            (800, 64000, 3000)
        );
        assert_eq!((c.in_flight, c.busy_ms, c.queue_ms), (2, 5000, 7600));
        assert_eq!((c.discard_ios, c.flush_ios), (0, 0));
    }

    #[test]
    fn a_4_19_kernel_line_has_18_fields_with_discards() {
        let lines = parse(" 259 0 nvme0n1 1 2 3 4 5 6 7 8 0 9 10 11 12 13 14\n");
        let c = lines[0].counters;
        assert_eq!(
            (
                c.discard_ios,
                c.discard_merges,
                c.discard_sectors,
                c.discard_ticks_ms
            ),
            (11, 12, 13, 14)
        );
        assert_eq!(c.flush_ios, 0);
    }

    #[test]
    fn a_5_5_kernel_line_has_20_fields_with_flushes() {
        let text = " 254 0 vda 52762416 465647 3486269002 48502183 33068085 765009 \
                    2587723904 20685188 0 1941616 69315823 286649 71 298823096 72097 374013 56352\n";
        let c = parse(text)[0].counters;
        assert_eq!(c.read_ios, 52_762_416);
        assert_eq!(c.read_sectors, 3_486_269_002);
        assert_eq!(c.queue_ms, 69_315_823);
        assert_eq!((c.discard_ios, c.discard_sectors), (286_649, 298_823_096));
        assert_eq!((c.flush_ios, c.flush_ticks_ms), (374_013, 56_352));
    }

    #[test]
    fn times_keep_the_low_32_bits_as_the_kernel_prints_them() {
        let c = parse("8 0 sda 1 0 8 4294967297 0 0 0 0 0 0 0\n")[0].counters;
        assert_eq!(c.read_ticks_ms, 1);
    }

    #[test]
    fn old_partition_lines_without_extended_statistics_are_skipped() {
        let lines = parse("3 1 hda1 100 800 20 160\n3 0 hda 1 0 8 4 0 0 0 0 0 4 4\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].name, "hda");
    }

    #[test]
    fn a_damaged_line_is_an_error_naming_the_file_line_and_field() {
        let error = parse_diskstats(
            "8 0 sda 1 0 8 4 0 0 0 0 0 4 4\n8 1 sda1 1 x 8 4 0 0 0 0 0 4 4\n",
            Path::new("/proc/diskstats"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "/proc/diskstats: line 2: field 5 ('x') is not a whole number"
        );
        let short = parse_diskstats("8 0 sda 1 2 3\n", Path::new("/p/diskstats"))
            .unwrap_err()
            .to_string();
        assert!(short.contains("line 1: 6 fields"), "{short}");
    }

    #[test]
    fn activity_counts_every_kind_of_request() {
        let mut c = DiskCounters::default();
        assert!(!c.has_activity());
        c.flush_ios = 1;
        assert!(c.has_activity());
    }
}
