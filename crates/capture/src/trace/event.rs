//! One line of tracefs's text output (`trace_pipe`) for the block tracepoints this tracer
//! enables, parsed without allocating.
//!
//! The kernel prints each event as `TASK-PID [CPU] FLAGS SECONDS.MICROS: EVENT: FIELDS`, with
//! the fields of `block_rq_issue` as `MAJ,MIN RWBS BYTES (CMD) SECTOR + NR_SECTORS [IOPRIO]
//! [COMM]` and those of `block_rq_complete` as `MAJ,MIN RWBS (CMD) SECTOR + NR_SECTORS [IOPRIO]
//! [ERROR]` (the `print fmt` in `events/block/*/format`; the ioprio field appeared in Linux 6.x
//! and is skipped when present). Overruns show as `CPU:N [LOST COUNT EVENTS]`, and a write to
//! the instance's `trace_marker` as a `tracing_mark_write: TEXT` event, which the session
//! uses to mark the start and the end of the traced window in the ring's own clock.

/// The direction of a request, from the `rwbs` letters (`R`, `W`, `D` discard, `E` secure
/// erase, `F` flush/FUA, `N` none; `A`, `S`, `M` are ahead/sync/meta flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A read.
    Read,
    /// A write.
    Write,
    /// A discard or secure erase (replayed as fio's `trim`).
    Discard,
    /// A flush of the device's write cache (`REQ_OP_FLUSH`, `FF` or `F`): the request the
    /// block layer's flush machinery sends for an empty preflush (an fsync of a block
    /// device), for a write's preflush and for a FUA write on a device without FUA. These
    /// are what `/proc/diskstats` counts as flushes (`blk_account_io_flush`); a write that
    /// carries FUA to a device that takes it (`WFS`) is a write there, and here.
    Flush,
    /// Anything else: a driver-private request (`N`).
    Other,
}

impl Direction {
    /// The direction `rwbs` names. `D` and `E` are checked first: a discard carries no `W`
    /// but may carry `S`; a preflush write is `FWS` and a FUA write `WFS`, so `F` decides
    /// only when no data direction is named (the kernel's `blk_fill_rwbs` writes `F` for
    /// `REQ_PREFLUSH`, then the operation's letter, `F` for `REQ_OP_FLUSH`, then `F` for
    /// `REQ_FUA`).
    pub fn from_rwbs(rwbs: &str) -> Direction {
        if rwbs.contains(['D', 'E']) {
            Direction::Discard
        } else if rwbs.contains('W') {
            Direction::Write
        } else if rwbs.contains('R') {
            Direction::Read
        } else if rwbs.contains('F') {
            Direction::Flush
        } else {
            Direction::Other
        }
    }
}

/// What happened to the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind<'a> {
    /// `block_rq_issue`: the request went to the driver. `command` is the task that was
    /// running (the event's own `comm` field, recorded with the event).
    Issue {
        /// Bytes the request carries.
        bytes: u64,
        /// The task that was running when the request was issued.
        command: &'a str,
    },
    /// `block_rq_complete`: the driver finished `sectors` of the request (a partial
    /// completion finishes fewer sectors than were issued).
    Complete {
        /// The errno the request completed with, 0 on success.
        error: i32,
    },
}

/// A block request event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEvent<'a> {
    /// The id of the task that was running (for an issue, the issuer).
    pub pid: u32,
    /// The ring's timestamp (the instance's `trace_clock`), ns; the text gives whole µs.
    pub timestamp_ns: u64,
    /// Device major number.
    pub major: u32,
    /// Device minor number.
    pub minor: u32,
    /// Read, write, discard or other.
    pub direction: Direction,
    /// First 512-byte sector.
    pub sector: u64,
    /// 512-byte sectors issued or completed.
    pub sectors: u64,
    /// Issue or completion.
    pub kind: EventKind<'a>,
}

/// What one line of `trace_pipe` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceLine<'a> {
    /// A block request event.
    Block(BlockEvent<'a>),
    /// The kernel overwrote this many events before they were read.
    Lost(u64),
    /// A `trace_marker` write: its timestamp (ns) and text.
    Marker {
        /// Timestamp, ns, in the ring's clock.
        timestamp_ns: u64,
        /// What was written.
        text: &'a str,
    },
    /// An event this tracer did not ask for (empty lines included).
    Other,
}

/// Parses one line (without its newline); `None` when the line is a block event or a marker
/// that does not have the expected shape, which the caller counts as a lost event.
pub fn parse_line(line: &str) -> Option<TraceLine<'_>> {
    if let Some(rest) = line.strip_prefix("CPU:") {
        let count = rest.split_once("[LOST ")?.1.split_once(' ')?.0;
        return Some(TraceLine::Lost(count.parse().ok()?));
    }
    let Some((head, name, fields)) = split_event(line) else {
        return Some(TraceLine::Other);
    };
    let issue = match name {
        "block_rq_issue" => true,
        "block_rq_complete" => false,
        "tracing_mark_write" => {
            return Some(TraceLine::Marker {
                timestamp_ns: parse_head(head)?.1,
                text: fields.trim_end(),
            })
        }
        _ => return Some(TraceLine::Other),
    };
    let (pid, timestamp_ns) = parse_head(head)?;
    // `7,0 R 65536 (` | `) 31616 + 128 be,0,4 [fio]`: the command bytes between the
    // parentheses may hold spaces, so the fields are cut around them.
    let (before, after) = fields.split_once(" (")?;
    let after = &after[after.find(") ")? + 2..];
    let mut words = before.split_ascii_whitespace();
    let (major, minor) = words.next()?.split_once(',')?;
    let direction = Direction::from_rwbs(words.next()?);
    let bytes = if issue {
        Some(words.next()?.parse::<u64>().ok()?)
    } else {
        None
    };
    let mut words = after.split_ascii_whitespace();
    let sector = words.next()?.parse().ok()?;
    if words.next()? != "+" {
        return None;
    }
    let sectors = words.next()?.parse().ok()?;
    // The last field, in brackets: the issuer's comm (which may hold spaces) or the error.
    let open = after.rfind(" [")?;
    let last = after[open + 2..].strip_suffix(']')?;
    let kind = match bytes {
        Some(bytes) => EventKind::Issue {
            bytes,
            command: last,
        },
        None => EventKind::Complete {
            error: last.parse().ok()?,
        },
    };
    Some(TraceLine::Block(BlockEvent {
        pid,
        timestamp_ns,
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
        direction,
        sector,
        sectors,
        kind,
    }))
}

/// Splits `HEAD: NAME: FIELDS` at the event name (the first `: ` followed by a word and `: `
/// after the timestamp); `None` for lines that are no event.
fn split_event(line: &str) -> Option<(&str, &str, &str)> {
    // The task's comm may hold ": ", so the split starts after the `[CPU]` field.
    let cpu_end = line.find("] ")?;
    let ts_end = cpu_end + line[cpu_end..].find(": ")?;
    let rest = &line[ts_end + 2..];
    let (name, fields) = rest.split_once(": ")?;
    Some((&line[..ts_end], name, fields))
}

/// The pid and the timestamp (ns) of `TASK-PID [CPU] FLAGS SECONDS.MICROS`.
fn parse_head(head: &str) -> Option<(u32, u64)> {
    let bracket = head.rfind(" [")?;
    let pid = head[..bracket]
        .trim_end()
        .rsplit_once('-')?
        .1
        .parse()
        .ok()?;
    let stamp = head.rsplit_once(' ')?.1;
    Some((pid, parse_timestamp_ns(stamp)?))
}

/// `9140.581873` (seconds, a dot, a fraction of up to 9 digits) as ns.
fn parse_timestamp_ns(stamp: &str) -> Option<u64> {
    let (secs, frac) = stamp.split_once('.')?;
    if frac.is_empty() || frac.len() > 9 {
        return None;
    }
    let scale = 10u64.pow(9 - frac.len() as u32);
    let secs: u64 = secs.parse().ok()?;
    let frac: u64 = frac.parse().ok()?;
    Some(secs * 1_000_000_000 + frac * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_issue_line_gives_the_issuer_the_size_and_the_place() {
        let line = "             fio-5699    [001] .....  9140.581873: block_rq_issue: 7,0 WS 65536 () 388112 + 128 be,0,4 [fio]";
        let Some(TraceLine::Block(event)) = parse_line(line) else {
            panic!("not parsed: {line}");
        };
        assert_eq!(
            event,
            BlockEvent {
                pid: 5699,
                timestamp_ns: 9_140_581_873_000,
                major: 7,
                minor: 0,
                direction: Direction::Write,
                sector: 388_112,
                sectors: 128,
                kind: EventKind::Issue {
                    bytes: 65536,
                    command: "fio"
                },
            }
        );
    }

    #[test]
    fn a_completion_line_gives_the_error_and_the_place() {
        let line = "     ksoftirqd/1-22      [001] ..s..  9140.583211: block_rq_complete: 7,0 R () 31616 + 128 be,0,4 [0]";
        let Some(TraceLine::Block(event)) = parse_line(line) else {
            panic!("not parsed");
        };
        assert_eq!(event.pid, 22);
        assert_eq!(event.direction, Direction::Read);
        assert_eq!((event.sector, event.sectors), (31616, 128));
        assert_eq!(event.kind, EventKind::Complete { error: 0 });
    }

    #[test]
    fn lines_of_older_kernels_without_ioprio_parse_too() {
        let line = "          <idle>-0       [000] d.h1.   412.000001: block_rq_complete: 259,0 WFS () 100 + 8 [-5]";
        let Some(TraceLine::Block(event)) = parse_line(line) else {
            panic!("not parsed");
        };
        assert_eq!((event.major, event.minor, event.pid), (259, 0, 0));
        assert_eq!(event.kind, EventKind::Complete { error: -5 });
        let line =
            "  kworker/u4:2-77 [003] .... 5.5: block_rq_issue: 8,16 R 4096 () 8 + 8 [kworker/u4:2]";
        let Some(TraceLine::Block(event)) = parse_line(line) else {
            panic!("not parsed");
        };
        assert_eq!(event.timestamp_ns, 5_500_000_000);
        assert_eq!(
            event.kind,
            EventKind::Issue {
                bytes: 4096,
                command: "kworker/u4:2"
            }
        );
    }

    #[test]
    fn commands_with_spaces_and_dashes_keep_their_pid_and_name() {
        let line = "  Web Content-my-app-4242 [000] ..... 10.000002: block_rq_issue: 8,0 RA 8192 (28 00 ) 16 + 16 be,0,4 [Web Content]";
        let Some(TraceLine::Block(event)) = parse_line(line) else {
            panic!("not parsed");
        };
        assert_eq!(event.pid, 4242);
        assert_eq!(event.sector, 16);
        assert_eq!(
            event.kind,
            EventKind::Issue {
                bytes: 8192,
                command: "Web Content"
            }
        );
    }

    #[test]
    fn rwbs_letters_name_the_direction() {
        assert_eq!(Direction::from_rwbs("R"), Direction::Read);
        assert_eq!(Direction::from_rwbs("RA"), Direction::Read);
        assert_eq!(Direction::from_rwbs("WS"), Direction::Write);
        assert_eq!(Direction::from_rwbs("FWFS"), Direction::Write);
        assert_eq!(Direction::from_rwbs("DS"), Direction::Discard);
        assert_eq!(Direction::from_rwbs("FF"), Direction::Flush);
        assert_eq!(Direction::from_rwbs("F"), Direction::Flush);
        assert_eq!(Direction::from_rwbs("WFS"), Direction::Write);
        assert_eq!(Direction::from_rwbs("N"), Direction::Other);
    }

    #[test]
    fn lost_and_marker_lines_are_recognised() {
        assert_eq!(
            parse_line("CPU:1 [LOST 1234 EVENTS]"),
            Some(TraceLine::Lost(1234))
        );
        let line =
            "        diskmeter-900     [000] .....   77.000100: tracing_mark_write: diskmeter-end";
        assert_eq!(
            parse_line(line),
            Some(TraceLine::Marker {
                timestamp_ns: 77_000_100_000,
                text: "diskmeter-end"
            })
        );
    }

    #[test]
    fn other_events_are_skipped_and_broken_block_lines_refused() {
        let sched = "  bash-1 [000] ..... 1.000000: sched_switch: prev_comm=bash";
        assert_eq!(parse_line(sched), Some(TraceLine::Other));
        assert_eq!(parse_line(""), Some(TraceLine::Other));
        let cut = "  fio-1 [000] ..... 1.000000: block_rq_issue: 7,0 R 4096 () 8 +";
        assert_eq!(parse_line(cut), None);
        let bad_stamp = "  fio-1 [000] ..... 1.x: block_rq_issue: 7,0 R 4096 () 8 + 8 [fio]";
        assert_eq!(parse_line(bad_stamp), None);
    }
}
