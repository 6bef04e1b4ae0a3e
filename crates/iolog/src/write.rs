//! The streaming writer of version 3 logs: entries go out through a fixed-size buffer as they
//! are written, so a log of any length costs the same memory.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::{FileAction, IoAction, IoKind, IologEntry, IologError, IologVersion};

/// Bytes buffered before the writer writes to its output.
const BUFFER_BYTES: usize = 64 * 1024;

/// Writes a version 3 log (`fio version 3 iolog`) that fio's `read_iolog` replays.
///
/// Timestamps are given in nanoseconds since the start of what is logged and written as whole
/// microseconds, fio's unit. The writer does not reorder: entries are written in call order,
/// which is the order a replay issues them.
#[derive(Debug)]
pub struct IologWriter<W: Write> {
    out: BufWriter<W>,
    log: String,
    entries: u64,
}

impl IologWriter<File> {
    /// Creates (or truncates) the file at `path` and writes the header. fio opens its
    /// `write_iolog` file for appending, which leaves two headers in a reused file; a log here
    /// always holds one run.
    pub fn create(path: &Path) -> Result<Self, IologError> {
        let log = path.display().to_string();
        let file = File::create(path).map_err(|source| IologError::Io {
            log: log.clone(),
            source,
        })?;
        IologWriter::new(file, log)
    }
}

impl<W: Write> IologWriter<W> {
    /// Starts a log on `out` by writing the header. `log` names it in errors.
    pub fn new(out: W, log: impl Into<String>) -> Result<Self, IologError> {
        let mut writer = IologWriter {
            out: BufWriter::with_capacity(BUFFER_BYTES, out),
            log: log.into(),
            entries: 0,
        };
        let header = IologVersion::V3.header();
        writeln!(writer.out, "{header}").map_err(|source| writer.io_error(source))?;
        Ok(writer)
    }

    /// Writes `TIMESTAMP FILE add|open|close`.
    pub fn file_action(
        &mut self,
        timestamp_ns: u64,
        file: &str,
        action: FileAction,
    ) -> Result<(), IologError> {
        self.check_name(file)?;
        let micros = timestamp_ns / 1000;
        writeln!(self.out, "{micros} {file} {}", action.as_str())
            .map_err(|source| self.io_error(source))?;
        self.entries += 1;
        Ok(())
    }

    /// Writes `TIMESTAMP FILE read|write|trim|sync|datasync OFFSET LENGTH`.
    pub fn io(
        &mut self,
        timestamp_ns: u64,
        file: &str,
        kind: IoKind,
        offset_bytes: u64,
        length_bytes: u64,
    ) -> Result<(), IologError> {
        self.check_name(file)?;
        let micros = timestamp_ns / 1000;
        writeln!(
            self.out,
            "{micros} {file} {} {offset_bytes} {length_bytes}",
            kind.as_str()
        )
        .map_err(|source| self.io_error(source))?;
        self.entries += 1;
        Ok(())
    }

    /// Writes an entry read from another log. A version 3 log has no `wait`, so a version 2
    /// wait becomes nothing (its time is carried by the timestamps the caller gives instead);
    /// an entry without a timestamp is written at `fallback_ns`.
    pub fn entry(&mut self, entry: &IologEntry, fallback_ns: u64) -> Result<(), IologError> {
        let at = entry.timestamp_ns.unwrap_or(fallback_ns);
        match entry.action {
            IoAction::File(action) => self.file_action(at, &entry.file, action),
            IoAction::Io {
                kind,
                offset_bytes,
                length_bytes,
            } => self.io(at, &entry.file, kind, offset_bytes, length_bytes),
            IoAction::Wait { .. } => Ok(()),
        }
    }

    /// Entries written so far (the header not counted).
    pub fn entries_written(&self) -> u64 {
        self.entries
    }

    /// Pushes buffered entries to the output (a reader of the file sees them after this).
    pub fn flush(&mut self) -> Result<(), IologError> {
        self.out.flush().map_err(|source| self.io_error(source))
    }

    /// Flushes and hands back the output.
    pub fn finish(self) -> Result<W, IologError> {
        let log = self.log;
        self.out.into_inner().map_err(|e| IologError::Io {
            log,
            source: e.into_error(),
        })
    }

    fn check_name(&self, file: &str) -> Result<(), IologError> {
        if file.is_empty() || file.chars().any(char::is_whitespace) {
            return Err(IologError::UnwritableFileName {
                log: self.log.clone(),
                file: file.to_string(),
            });
        }
        Ok(())
    }

    fn io_error(&self, source: std::io::Error) -> IologError {
        IologError::Io {
            log: self.log.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IologReader;

    #[test]
    fn writes_the_lines_fio_writes() {
        let mut writer = IologWriter::new(Vec::new(), "out.log").unwrap();
        writer
            .file_action(29_400, "/tmp/f", FileAction::Add)
            .unwrap();
        writer
            .file_action(218_000, "/tmp/f", FileAction::Open)
            .unwrap();
        writer
            .io(223_999, "/tmp/f", IoKind::Read, 249856, 4096)
            .unwrap();
        writer
            .io(1_202_000, "/tmp/f", IoKind::Write, 3104768, 8192)
            .unwrap();
        writer.io(1_300_000, "/tmp/f", IoKind::Sync, 0, 0).unwrap();
        writer
            .file_action(1_000_190_000, "/tmp/f", FileAction::Close)
            .unwrap();
        assert_eq!(writer.entries_written(), 6);
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "fio version 3 iolog\n\
             29 /tmp/f add\n\
             218 /tmp/f open\n\
             223 /tmp/f read 249856 4096\n\
             1202 /tmp/f write 3104768 8192\n\
             1300 /tmp/f sync 0 0\n\
             1000190 /tmp/f close\n"
        );
    }

    #[test]
    fn what_is_written_reads_back_the_same() {
        let mut writer = IologWriter::new(Vec::new(), "round.log").unwrap();
        writer
            .file_action(0, "/dev/loop3", FileAction::Add)
            .unwrap();
        for i in 0..1000u64 {
            let kind = if i % 3 == 0 {
                IoKind::Write
            } else {
                IoKind::Read
            };
            writer
                .io(i * 250_000, "/dev/loop3", kind, i * 8192, 8192)
                .unwrap();
        }
        let bytes = writer.finish().unwrap();
        let entries: Vec<_> = IologReader::new(bytes.as_slice(), "round.log")
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(entries.len(), 1001);
        assert_eq!(entries[1].timestamp_ns, Some(0));
        assert_eq!(entries[1000].timestamp_ns, Some(999 * 250_000));
        assert_eq!(
            entries[4].action,
            IoAction::Io {
                kind: IoKind::Write,
                offset_bytes: 3 * 8192,
                length_bytes: 8192
            }
        );
    }

    #[test]
    fn converting_version_2_drops_waits() {
        let v2 = "fio version 2 iolog\nf add\nf read 0 512\nf wait 20 0\nf read 512 512\n";
        let mut writer = IologWriter::new(Vec::new(), "v3.log").unwrap();
        for entry in IologReader::new(v2.as_bytes(), "v2.log").unwrap() {
            writer.entry(&entry.unwrap(), 7_000).unwrap();
        }
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "fio version 3 iolog\n7 f add\n7 f read 0 512\n7 f read 512 512\n"
        );
    }

    #[test]
    fn a_file_name_fio_cannot_read_back_is_refused() {
        let mut writer = IologWriter::new(Vec::new(), "out.log").unwrap();
        let err = writer
            .io(0, "/tmp/my file", IoKind::Read, 0, 4096)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "out.log: file name \"/tmp/my file\" contains whitespace or is empty; fio could not read it back"
        );
        assert!(writer.file_action(0, "", FileAction::Add).is_err());
    }
}
