//! The streaming reader: one line in memory at a time, whatever the log's length.

use std::io::{BufRead, Read};

use crate::{FileAction, IoAction, IoKind, IologEntry, IologError, IologVersion};

/// The longest line the reader accepts. fio reads lines with a 4096-byte buffer and file names
/// of at most 256 bytes; the limit is generous beyond that and bounds what one line can cost.
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// Reads an iolog one entry at a time from any [`BufRead`] (a file, stdin, a pipe).
///
/// Memory is one line buffer of at most [`MAX_LINE_BYTES`] plus the entry handed out, so a log
/// of any size streams. Blank lines are skipped; any other line that is not an action of the
/// log's version is an error naming the log and the line (fio prints such lines and skips
/// them, which hides a truncated or foreign log).
#[derive(Debug)]
pub struct IologReader<R> {
    input: R,
    log: String,
    version: IologVersion,
    line: u64,
    buffer: Vec<u8>,
}

impl<R: BufRead> IologReader<R> {
    /// Reads and checks the header line. `log` names the source in errors (usually its path).
    pub fn new(mut input: R, log: impl Into<String>) -> Result<Self, IologError> {
        let log = log.into();
        let mut buffer = Vec::with_capacity(256);
        let read = read_bounded_line(&mut input, &mut buffer).map_err(|source| IologError::Io {
            log: log.clone(),
            source,
        })?;
        let text = String::from_utf8_lossy(&buffer);
        let header = text.trim_end_matches(['\n', '\r']);
        let version = if header == IologVersion::V2.header() {
            IologVersion::V2
        } else if header == IologVersion::V3.header() {
            IologVersion::V3
        } else {
            let found = if read == LineRead::TooLong {
                format!("{}...", header.chars().take(80).collect::<String>())
            } else {
                header.chars().take(80).collect()
            };
            return Err(IologError::BadHeader { log, found });
        };
        Ok(IologReader {
            input,
            log,
            version,
            line: 1,
            buffer,
        })
    }

    /// The log's version, from its header.
    pub fn version(&self) -> IologVersion {
        self.version
    }

    /// The name the reader was given for the log.
    pub fn log_name(&self) -> &str {
        &self.log
    }

    /// The next entry, `Ok(None)` at the end of the log.
    pub fn next_entry(&mut self) -> Result<Option<IologEntry>, IologError> {
        loop {
            self.line += 1;
            let read = read_bounded_line(&mut self.input, &mut self.buffer).map_err(|source| {
                IologError::Io {
                    log: self.log.clone(),
                    source,
                }
            })?;
            match read {
                LineRead::End => return Ok(None),
                LineRead::TooLong => {
                    return Err(IologError::LineTooLong {
                        log: self.log.clone(),
                        line: self.line,
                        limit_bytes: MAX_LINE_BYTES,
                    })
                }
                LineRead::Line => {}
            }
            let text = std::str::from_utf8(&self.buffer).map_err(|_| self.bad("not UTF-8 text"))?;
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            return self.parse(text).map(Some);
        }
    }

    fn parse(&self, text: &str) -> Result<IologEntry, IologError> {
        let mut words = text.split_ascii_whitespace();
        let timestamp_ns = match self.version {
            IologVersion::V2 => None,
            IologVersion::V3 => {
                let word = words.next().unwrap_or_default();
                let micros = self.number(word, "timestamp")?;
                Some(micros.checked_mul(1000).ok_or_else(|| {
                    self.bad(&format!("timestamp {word} µs overflows nanoseconds"))
                })?)
            }
        };
        let fields: Vec<&str> = words.collect();
        let (file, action) =
            match fields.as_slice() {
                [file, word] => {
                    let action = match *word {
                        "add" => FileAction::Add,
                        "open" => FileAction::Open,
                        "close" => FileAction::Close,
                        other => {
                            return Err(self
                                .bad(&format!("unknown file action {other:?} (add, open, close)")))
                        }
                    };
                    (*file, IoAction::File(action))
                }
                [file, word, offset, length] => {
                    let offset_bytes = self.number(offset, "offset")?;
                    let length_bytes = self.number(length, "length")?;
                    let action = if *word == "wait" {
                        if self.version == IologVersion::V3 {
                            return Err(self.bad(
                                "`wait` is not allowed in version 3 (timestamps replace it)",
                            ));
                        }
                        IoAction::Wait {
                            since_start_ms: offset_bytes,
                        }
                    } else {
                        let kind =
                            IoKind::parse(word).ok_or_else(|| {
                                self.bad(&format!(
                            "unknown IO action {word:?} (read, write, trim, sync, datasync{})",
                            if self.version == IologVersion::V2 { ", wait" } else { "" }
                        ))
                            })?;
                        IoAction::Io {
                            kind,
                            offset_bytes,
                            length_bytes,
                        }
                    };
                    (*file, action)
                }
                _ => {
                    let expected = match self.version {
                        IologVersion::V2 => "`FILE ACTION` or `FILE ACTION OFFSET LENGTH`",
                        IologVersion::V3 => {
                            "`TIMESTAMP FILE ACTION` or `TIMESTAMP FILE ACTION OFFSET LENGTH`"
                        }
                    };
                    return Err(self.bad(&format!("expected {expected}, found {text:?}")));
                }
            };
        Ok(IologEntry {
            line: self.line,
            timestamp_ns,
            file: file.to_string(),
            action,
        })
    }

    fn number(&self, word: &str, what: &str) -> Result<u64, IologError> {
        if word.is_empty() {
            return Err(self.bad(&format!("missing {what}")));
        }
        word.parse::<u64>().map_err(|_| {
            self.bad(&format!(
                "{what} {word:?} is not a whole non-negative number"
            ))
        })
    }

    fn bad(&self, reason: &str) -> IologError {
        IologError::BadLine {
            log: self.log.clone(),
            line: self.line,
            reason: reason.to_string(),
        }
    }
}

impl<R: BufRead> Iterator for IologReader<R> {
    type Item = Result<IologEntry, IologError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().transpose()
    }
}

#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    Line,
    TooLong,
    End,
}

/// Reads one line into `buffer` (cleared first), never more than [`MAX_LINE_BYTES`] of it; a
/// longer line is reported, not buffered.
fn read_bounded_line<R: BufRead>(input: &mut R, buffer: &mut Vec<u8>) -> std::io::Result<LineRead> {
    buffer.clear();
    let read = input
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buffer)?;
    if read == 0 {
        return Ok(LineRead::End);
    }
    if buffer.len() > MAX_LINE_BYTES && buffer.last() != Some(&b'\n') {
        return Ok(LineRead::TooLong);
    }
    Ok(LineRead::Line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &str) -> Result<Vec<IologEntry>, IologError> {
        IologReader::new(text.as_bytes(), "test.log")?.collect()
    }

    fn io(kind: IoKind, offset_bytes: u64, length_bytes: u64) -> IoAction {
        IoAction::Io {
            kind,
            offset_bytes,
            length_bytes,
        }
    }

    #[test]
    fn version_3_log_as_fio_writes_it() {
        let log = "fio version 3 iolog\n\
                   29 /tmp/f add\n\
                   218 /tmp/f open\n\
                   223 /tmp/f read 249856 4096\n\
                   1202 /tmp/f write 3104768 8192\n\
                   1300 /tmp/f trim 0 65536\n\
                   1400 /tmp/f sync 0 0\n\
                   1500 /tmp/f datasync 0 0\n\
                   1000190 /tmp/f close\n";
        let entries = read_all(log).unwrap();
        let actions: Vec<_> = entries.iter().map(|e| e.action).collect();
        assert_eq!(
            actions,
            vec![
                IoAction::File(FileAction::Add),
                IoAction::File(FileAction::Open),
                io(IoKind::Read, 249856, 4096),
                io(IoKind::Write, 3104768, 8192),
                io(IoKind::Trim, 0, 65536),
                io(IoKind::Sync, 0, 0),
                io(IoKind::Datasync, 0, 0),
                IoAction::File(FileAction::Close),
            ]
        );
        assert_eq!(
            entries[2].timestamp_ns,
            Some(223_000),
            "µs in the log, ns in the API"
        );
        assert_eq!(entries[7].timestamp_ns, Some(1_000_190_000));
        assert_eq!(entries[2].line, 4, "the header is line 1");
        assert!(entries.iter().all(|e| e.file == "/tmp/f"));
    }

    #[test]
    fn version_2_log_with_waits_and_several_files() {
        let log = "fio version 2 iolog\n\
                   /dev/sdb add\n\
                   /dev/sdc add\n\
                   /dev/sdb open\n\
                   /dev/sdc open\n\
                   /dev/sdb write 0 4096\n\
                   /dev/sdb wait 1500 0\n\
                   /dev/sdc read 4096 512\n\
                   /dev/sdb close\n";
        let mut reader = IologReader::new(log.as_bytes(), "v2.log").unwrap();
        assert_eq!(reader.version(), IologVersion::V2);
        let entries: Vec<_> = reader.by_ref().collect::<Result<_, _>>().unwrap();
        assert_eq!(entries.len(), 8);
        assert!(entries.iter().all(|e| e.timestamp_ns.is_none()));
        assert_eq!(
            entries[5].action,
            IoAction::Wait {
                since_start_ms: 1500
            }
        );
        assert_eq!(entries[6].file, "/dev/sdc");
        assert_eq!(entries[6].action, io(IoKind::Read, 4096, 512));
    }

    #[test]
    fn blank_lines_and_crlf_are_tolerated() {
        let log = "fio version 3 iolog\r\n\r\n5 f read 0 4096\r\n\n";
        let entries = read_all(log).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].line, 3);
    }

    #[test]
    fn a_log_without_a_header_is_refused() {
        let err = read_all("/tmp/f read 0 4096\n").unwrap_err();
        assert!(matches!(err, IologError::BadHeader { .. }));
        assert!(
            err.to_string().starts_with("test.log:1: not an fio iolog"),
            "{err}"
        );
        assert!(matches!(
            read_all("").unwrap_err(),
            IologError::BadHeader { .. }
        ));
        assert!(matches!(
            read_all("fio version 1 iolog\n").unwrap_err(),
            IologError::BadHeader { .. }
        ));
    }

    #[test]
    fn errors_name_the_log_and_the_line() {
        let err = read_all("fio version 3 iolog\n1 f add\n2 f fly 0 4096\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.log:3: unknown IO action \"fly\" (read, write, trim, sync, datasync)"
        );
        let err = read_all("fio version 2 iolog\nf read -5 4096\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.log:2: offset \"-5\" is not a whole non-negative number"
        );
        let err = read_all("fio version 3 iolog\nf read 0 4096\n").unwrap_err();
        assert!(
            err.to_string().starts_with("test.log:2: timestamp \"f\""),
            "{err}"
        );
        let err = read_all("fio version 3 iolog\n7 f read 0\n").unwrap_err();
        assert!(
            err.to_string().contains("expected `TIMESTAMP FILE ACTION"),
            "{err}"
        );
        let err = read_all("fio version 2 iolog\nf remove\n").unwrap_err();
        assert!(
            err.to_string().contains("unknown file action \"remove\""),
            "{err}"
        );
    }

    #[test]
    fn wait_is_refused_in_version_3() {
        let err = read_all("fio version 3 iolog\n10 f wait 100 0\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("`wait` is not allowed in version 3"),
            "{err}"
        );
    }

    #[test]
    fn an_overlong_line_is_an_error_not_an_allocation() {
        let log = format!(
            "fio version 2 iolog\nf read 0 4096\n{}\n",
            "x".repeat(1 << 20)
        );
        let err = read_all(&log).unwrap_err();
        assert!(
            matches!(err, IologError::LineTooLong { line: 3, .. }),
            "{err}"
        );
    }

    #[test]
    fn reading_streams_from_a_generator_of_any_length() {
        // A log produced on the fly: nothing but one line is ever held.
        struct Generated {
            next: u64,
            total: u64,
            pending: Vec<u8>,
        }
        impl std::io::Read for Generated {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if self.pending.is_empty() {
                    if self.next == self.total {
                        return Ok(0);
                    }
                    self.pending = if self.next == 0 {
                        b"fio version 3 iolog\n".to_vec()
                    } else {
                        format!("{} /f read {} 4096\n", self.next, self.next * 4096).into_bytes()
                    };
                    self.next += 1;
                }
                let n = out.len().min(self.pending.len());
                out[..n].copy_from_slice(&self.pending[..n]);
                self.pending.drain(..n);
                Ok(n)
            }
        }
        let source = Generated {
            next: 0,
            total: 200_001,
            pending: Vec::new(),
        };
        let reader = IologReader::new(std::io::BufReader::new(source), "generated").unwrap();
        let mut count = 0u64;
        for entry in reader {
            let entry = entry.unwrap();
            count += 1;
            assert_eq!(entry.action, io(IoKind::Read, count * 4096, 4096));
        }
        assert_eq!(count, 200_000);
    }
}
