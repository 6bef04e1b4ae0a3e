//! The binary path: the per-CPU `trace_pipe_raw` files hand over the ring buffer's pages as
//! the kernel wrote them, so reading costs a copy instead of the kernel formatting every
//! event as text. A page is a header (`events/header_page`: a timestamp, then `commit`, the
//! bytes of data and two "events were lost" flags) followed by entries, each a 32-bit word
//! of `type_len` (5 bits) and `time_delta` (27 bits) (`events/header_event`): type 29 is
//! padding, 30 extends the next delta, 31 sets an absolute time, 0 carries its length in the
//! next word, and 1..=28 are records of `type_len` x 4 bytes. A record starts with the
//! event's id (`common_type`); its fields sit where the event's `format` file says.
//!
//! This is the layout libtraceevent's kbuffer decodes; it is read here from the kernel's own
//! description files, so field moves between kernel versions are followed.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use super::event::Direction;
use super::TraceError;

/// The page layout and the positions of the fields this tracer reads.
#[derive(Debug, Clone)]
pub struct RawLayout {
    /// Bytes of one ring-buffer page as `trace_pipe_raw` returns it.
    pub page_bytes: usize,
    commit: Field,
    data_offset: usize,
    issue: EventFields,
    complete: EventFields,
    print_id: u16,
    print_buf: usize,
    pid: Field,
}

/// Where one event's fields are in its record.
#[derive(Debug, Clone)]
struct EventFields {
    id: u16,
    dev: Field,
    sector: Field,
    nr_sector: Field,
    rwbs: Field,
    /// `bytes` on issue, `error` on completion.
    size_or_error: Field,
    /// The issuer's comm (issue only).
    comm: Option<Field>,
}

/// A field's offset and size, bytes.
#[derive(Debug, Clone, Copy)]
struct Field {
    offset: usize,
    size: usize,
}

/// What a record says, owned (the reader orders records of all CPUs by time before it
/// counts them, so they outlive the page they came from).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent {
    /// Ring timestamp, ns.
    pub timestamp_ns: u64,
    /// Task running when the event was recorded.
    pub pid: u32,
    /// What it is.
    pub kind: RawKind,
}

/// A decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawKind {
    /// A block request issued or completed.
    Block {
        /// Major device number.
        major: u32,
        /// Minor device number.
        minor: u32,
        /// From `rwbs`.
        direction: Direction,
        /// First sector.
        sector: u64,
        /// Sectors.
        sectors: u64,
        /// Issue: bytes and comm; completion: `None`.
        issue: Option<(u64, [u8; 16])>,
        /// Completion's errno.
        error: i32,
    },
    /// A `trace_marker` write: true for the start marker, false for the end marker.
    Marker(bool),
}

/// `commit`'s flag bits: events were lost before this page; their count is stored.
const COMMIT_MASK: u64 = (1 << 27) - 1;
/// Entry types of `events/header_event`.
const TYPE_PADDING: u32 = 29;
const TYPE_TIME_EXTEND: u32 = 30;
const TYPE_TIME_STAMP: u32 = 31;

impl RawLayout {
    /// Reads the layout from tracefs at `root` (event formats, page header) and the
    /// instance's sub-buffer size.
    pub fn load(root: &Path, instance: &Path) -> Result<RawLayout, TraceError> {
        let read = |path: &Path| {
            read_whole(path).map_err(|source| TraceError::Tracefs {
                action: "read",
                path: path.to_path_buf(),
                source,
            })
        };
        let events = root.join("events");
        let header = read(&events.join("header_page"))?;
        let issue = read(&events.join("block/block_rq_issue/format"))?;
        let complete = read(&events.join("block/block_rq_complete/format"))?;
        let print = read(&events.join("ftrace/print/format"))?;
        let page_bytes = fs::read_to_string(instance.join("buffer_subbuf_size_kb"))
            .ok()
            .and_then(|kb| kb.trim().parse::<usize>().ok())
            .map_or(4096, |kb| kb * 1024);
        RawLayout::parse(&header, &issue, &complete, &print, page_bytes).ok_or_else(|| {
            TraceError::Tracefs {
                action: "understand the record layout in",
                path: events.join("block"),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "a field this tracer reads is missing",
                ),
            }
        })
    }

    /// The layout from the text of `header_page` and the three events' `format` files.
    pub fn parse(
        header_page: &str,
        issue: &str,
        complete: &str,
        print: &str,
        page_bytes: usize,
    ) -> Option<RawLayout> {
        let header = fields(header_page);
        let (issue_id, issue_fields) = (event_id(issue)?, fields(issue));
        let (complete_id, complete_fields) = (event_id(complete)?, fields(complete));
        let block = |id: u16, f: &HashMap<String, Field>, size_or_error: &str, comm: bool| {
            Some(EventFields {
                id,
                dev: *f.get("dev")?,
                sector: *f.get("sector")?,
                nr_sector: *f.get("nr_sector")?,
                rwbs: *f.get("rwbs")?,
                size_or_error: *f.get(size_or_error)?,
                comm: if comm { Some(*f.get("comm")?) } else { None },
            })
        };
        Some(RawLayout {
            page_bytes,
            commit: *header.get("commit")?,
            data_offset: header.get("data")?.offset,
            issue: block(issue_id, &issue_fields, "bytes", true)?,
            complete: block(complete_id, &complete_fields, "error", false)?,
            print_id: event_id(print)?,
            print_buf: fields(print).get("buf")?.offset,
            pid: *issue_fields.get("common_pid")?,
        })
    }

    /// Decodes one page into `out`; returns the records it could not read (cut short, or
    /// an id of an event this tracer did not enable), which the caller counts as lost.
    pub fn decode_page(&self, page: &[u8], out: &mut Vec<RawEvent>) -> u64 {
        let Some(commit) = read_uint(page, self.commit) else {
            return 1;
        };
        let mut time = read_uint(page, Field { offset: 0, size: 8 }).unwrap_or(0);
        let end = (self.data_offset + (commit & COMMIT_MASK) as usize).min(page.len());
        let mut at = self.data_offset;
        let mut unreadable = 0;
        while at + 4 <= end {
            let word = u32_at(page, at);
            let (type_len, delta) = (word & 0x1f, u64::from(word >> 5));
            let array = (at + 8 <= end).then(|| u32_at(page, at + 4));
            match type_len {
                TYPE_PADDING if delta == 0 => break,
                TYPE_PADDING => {
                    time += delta;
                    let Some(length) = array else { break };
                    at += 4 + length as usize;
                }
                TYPE_TIME_EXTEND => {
                    time += (u64::from(array.unwrap_or(0)) << 27) + delta;
                    at += 8;
                }
                TYPE_TIME_STAMP => {
                    time = (u64::from(array.unwrap_or(0)) << 27) + delta;
                    at += 8;
                }
                _ => {
                    time += delta;
                    let (start, length) = if type_len == 0 {
                        let Some(length) = array else { break };
                        (
                            at + 8,
                            (length as usize).saturating_sub(4).next_multiple_of(4),
                        )
                    } else {
                        (at + 4, type_len as usize * 4)
                    };
                    match page.get(start..start + length) {
                        Some(record) => match self.record(record, time) {
                            Some(event) => out.push(event),
                            None => unreadable += 1,
                        },
                        None => {
                            unreadable += 1;
                            break;
                        }
                    }
                    at = start + length;
                }
            }
        }
        unreadable
    }

    /// One record, or `None` when it is not one of this tracer's events or is cut short.
    fn record(&self, record: &[u8], timestamp_ns: u64) -> Option<RawEvent> {
        let id = read_uint(record, Field { offset: 0, size: 2 })? as u16;
        let pid = read_uint(record, self.pid)? as u32;
        if id == self.print_id {
            let text = record.get(self.print_buf..)?;
            let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
            let text = std::str::from_utf8(text).ok()?.trim_end();
            let kind = match text {
                super::reader::START_MARKER => RawKind::Marker(true),
                super::reader::END_MARKER => RawKind::Marker(false),
                _ => return None,
            };
            return Some(RawEvent {
                timestamp_ns,
                pid,
                kind,
            });
        }
        let fields = if id == self.issue.id {
            &self.issue
        } else if id == self.complete.id {
            &self.complete
        } else {
            return None;
        };
        let dev = read_uint(record, fields.dev)?;
        let rwbs = record.get(fields.rwbs.offset..fields.rwbs.offset + fields.rwbs.size)?;
        let rwbs = &rwbs[..rwbs.iter().position(|&b| b == 0).unwrap_or(rwbs.len())];
        let size_or_error = read_uint(record, fields.size_or_error)?;
        let issue = match fields.comm {
            Some(comm) => {
                let bytes = record.get(comm.offset..comm.offset + comm.size.min(16))?;
                let mut name = [0u8; 16];
                name[..bytes.len()].copy_from_slice(bytes);
                Some((size_or_error, name))
            }
            None => None,
        };
        Some(RawEvent {
            timestamp_ns,
            pid,
            kind: RawKind::Block {
                major: (dev >> 20) as u32,
                minor: (dev & 0xf_ffff) as u32,
                direction: Direction::from_rwbs(std::str::from_utf8(rwbs).ok()?),
                sector: read_uint(record, fields.sector)?,
                sectors: read_uint(record, fields.nr_sector)?,
                issue,
                error: size_or_error as u32 as i32,
            },
        })
    }
}

/// A tracefs description file, read in large reads: `header_page` answers only the first
/// read of a small one (std's `read_to_string` starts with a 32-byte probe) with its text.
fn read_whole(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = fs::File::open(path)?;
    let mut text = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut chunk)? {
            0 => break,
            n => text.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8(text).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// The text of a NUL-padded comm.
pub fn comm_str(comm: &[u8; 16]) -> &str {
    let len = comm.iter().position(|&b| b == 0).unwrap_or(comm.len());
    std::str::from_utf8(&comm[..len]).unwrap_or("?")
}

fn u32_at(page: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(page[at..at + 4].try_into().expect("4 bytes"))
}

/// An unsigned little- or big-endian (the machine's) integer of 1, 2, 4 or 8 bytes.
fn read_uint(bytes: &[u8], field: Field) -> Option<u64> {
    let b = bytes.get(field.offset..field.offset + field.size)?;
    Some(match field.size {
        1 => u64::from(b[0]),
        2 => u64::from(u16::from_ne_bytes(b.try_into().ok()?)),
        4 => u64::from(u32::from_ne_bytes(b.try_into().ok()?)),
        8 => u64::from_ne_bytes(b.try_into().ok()?),
        _ => return None,
    })
}

/// The `ID:` line of a `format` file.
fn event_id(format: &str) -> Option<u16> {
    format
        .lines()
        .find_map(|line| line.strip_prefix("ID:"))?
        .trim()
        .parse()
        .ok()
}

/// `field:TYPE NAME[N];\toffset:O;\tsize:S;` lines by NAME (the first of a name wins:
/// `header_page` lists `commit` before the `overwrite` bits that share its bytes).
fn fields(format: &str) -> HashMap<String, Field> {
    let mut out = HashMap::new();
    for line in format.lines() {
        let mut parts = line.trim().split(';');
        let Some(decl) = parts.next().and_then(|d| d.trim().strip_prefix("field:")) else {
            continue;
        };
        let name = decl.rsplit(' ').next().unwrap_or("");
        let name = name.split('[').next().unwrap_or("").to_string();
        let mut offset = None;
        let mut size = None;
        for part in parts {
            if let Some(v) = part.trim().strip_prefix("offset:") {
                offset = v.parse().ok();
            } else if let Some(v) = part.trim().strip_prefix("size:") {
                size = v.parse().ok();
            }
        }
        if let (Some(offset), Some(size), false) = (offset, size, name.is_empty()) {
            out.entry(name).or_insert(Field { offset, size });
        }
    }
    out
}

#[cfg(test)]
#[path = "raw_tests.rs"]
mod tests;
