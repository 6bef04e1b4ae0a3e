//! fio iologs (versions 2 and 3): the streaming reader on its own, read through buffers of
//! every size so lines cross buffer boundaries, then what `read_iolog=LOG` does when a job is
//! planned and run: the runner's scan of the log with the job's `replay_*` options, the
//! planned job, and the replay source handing out every IO (without doing it).
//!
//! An input is the job's replay options and the log (saved as `key=value` lines, a line
//! `--- log ---`, then the log's bytes as they are). Promises checked: the reader's errors
//! start with `LOG:LINE: ` for a line the log has, and no message is empty.

use crate::gen::Gen;
use crate::options::Options;
use crate::{refused, Target, Verdict};
use diskmeter_iolog::{IologError, IologReader, MAX_LINE_BYTES};
use diskmeter_runner::replay::{describe, plan_job, ReplaySource};
use diskmeter_workload::{apply_option, validate, JobSpec};
use std::io::BufReader;
use std::path::PathBuf;

/// The line between a saved input's options and its log.
const SEPARATOR: &[u8] = b"--- log ---\n";

/// The name the reader is given in the first pass.
const LOG_NAME: &str = "app.log";

/// The replay options a log's job can have.
const REPLAY_OPTIONS: &[&str] = &[
    "replay_scale",
    "replay_align",
    "replay_time_scale",
    "replay_skip",
    "replay_no_stall",
    "replay_redirect",
    "read_iolog_chunked",
    "iodepth",
];

/// The iolog target. Logs are written to a folder of its own for the runner to read.
pub struct Iologs {
    folder: PathBuf,
    options: Options,
}

impl Iologs {
    /// The target, with its folder for logs under the system's temporary folder.
    pub fn new() -> Iologs {
        let folder =
            std::env::temp_dir().join(format!("diskmeter-fuzz-iolog-{}", std::process::id()));
        Iologs {
            folder,
            options: Options::new(std::iter::empty()),
        }
    }

    fn log(&self, g: &mut Gen) -> Vec<u8> {
        let v3 = g.percent(60);
        let mut out = Vec::new();
        match g.below(20) {
            0 => out.extend_from_slice(b"fio version 1 iolog\n"),
            1 => out.extend_from_slice(g.odd().as_bytes()),
            2 => {}
            _ if v3 => out.extend_from_slice(b"fio version 3 iolog\n"),
            _ => out.extend_from_slice(b"fio version 2 iolog\n"),
        }
        let files = ["/dev/sdb", "/tmp/f", "data", "/tmp/g", "data2", "é", "a b"];
        let mut time = 0u64;
        for _ in 0..g.count(60) {
            let file = *g.pick(&files);
            let mut words: Vec<String> = Vec::new();
            if v3 && !g.one_in(30) {
                time += g.range(0, 2000);
                words.push(if g.one_in(10) {
                    g.number()
                } else {
                    time.to_string()
                });
            }
            words.push(file.to_string());
            match g.below(10) {
                0 => words.push(g.pick(&["add", "open", "close", "remove"]).to_string()),
                1 => {
                    words.push("wait".into());
                    words.push(g.number());
                    words.push("0".into());
                }
                _ => {
                    let action = g.pick(&["read", "write", "trim", "sync", "datasync", "fly"]);
                    words.push(action.to_string());
                    words.push(if g.one_in(4) {
                        g.number()
                    } else {
                        (g.range(0, 1 << 20) * 512).to_string()
                    });
                    words.push(if g.one_in(4) {
                        g.number()
                    } else {
                        (512u64 << g.below(12)).to_string()
                    });
                }
            }
            if g.one_in(20) {
                words.truncate(g.below(words.len() + 1));
            }
            let sep = if g.one_in(10) { "\t" } else { " " };
            out.extend_from_slice(words.join(sep).as_bytes());
            out.extend_from_slice(if g.one_in(10) { b"\r\n" } else { b"\n" });
        }
        match g.below(24) {
            0 => {
                // A line at the reader's limit, just under, or just over it.
                let len = MAX_LINE_BYTES - 2 + g.below(4);
                out.extend(std::iter::repeat_n(b'x', len));
                if g.one_in(2) {
                    out.push(b'\n');
                }
            }
            1 => out.extend_from_slice(&[0xff, 0xfe, b'\n', 0xc3]),
            2 => {
                let at = g.below(out.len() + 1);
                out.truncate(at);
            }
            3 if !out.is_empty() => {
                for _ in 0..g.range(1, 8) {
                    let at = g.below(out.len());
                    out[at] ^= 1 << g.below(8);
                }
            }
            _ => {}
        }
        out
    }
}

/// A value a replay option takes.
fn replay_value(g: &mut Gen, name: &str) -> String {
    match name {
        "replay_scale" => g.range(0, 16).to_string(),
        "replay_align" => format!("{}", 1u64 << g.below(20)),
        "replay_time_scale" => g.range(1, 1000).to_string(),
        "replay_skip" => g
            .word_of(&["read", "write", "trim", "sync", "read,write", "x"])
            .to_string(),
        "replay_no_stall" | "read_iolog_chunked" => g.word_of(&["0", "1"]).to_string(),
        "replay_redirect" => g.word_of(&["/dev/null", "data", "a:b"]).to_string(),
        _ => g.range(1, 64).to_string(),
    }
}

impl Default for Iologs {
    fn default() -> Self {
        Iologs::new()
    }
}

impl Drop for Iologs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

impl Target for Iologs {
    fn name(&self) -> &'static str {
        "iolog"
    }

    fn extension(&self) -> &'static str {
        "log"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..g.count(4) {
            let name = *g.pick(REPLAY_OPTIONS);
            let value = if g.one_in(4) {
                self.options.value(g, name).replace('\n', " ")
            } else {
                replay_value(g, name)
            };
            out.extend_from_slice(format!("{name}={value}\n").as_bytes());
        }
        out.extend_from_slice(SEPARATOR);
        out.extend(self.log(g));
        out
    }

    fn check(&self, input: &[u8]) -> Verdict {
        // A saved input without the separator is a log alone.
        let (options, log) = match input.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
            Some(at) => (&input[..at], &input[at + SEPARATOR.len()..]),
            None => (&b""[..], input),
        };
        if let Verdict::Broken(why) = read_all(log) {
            return Verdict::Broken(why);
        }
        self.replay(&String::from_utf8_lossy(options), log)
    }
}

/// The reader alone, through a buffer whose size comes from the log, so buffer refills fall
/// inside lines, numbers and the header.
fn read_all(log: &[u8]) -> Verdict {
    let capacity = 1 + log.len() % 61;
    let lines = log.split(|&b| b == b'\n').count();
    let result = IologReader::new(BufReader::with_capacity(capacity, log), LOG_NAME)
        .and_then(|reader| reader.take(lines + 1).collect::<Result<Vec<_>, _>>());
    let error = match result {
        Ok(_) => return Verdict::Accepted,
        Err(error) => error,
    };
    let line = match &error {
        IologError::BadHeader { .. } => 1,
        IologError::BadLine { line, .. } | IologError::LineTooLong { line, .. } => *line as usize,
        _ => return Verdict::Broken(format!("an error no text can cause: {error}")),
    };
    let message = error.to_string();
    if line == 0 || line > lines || !message.starts_with(&format!("{LOG_NAME}:{line}: ")) {
        return Verdict::Broken(format!(
            "does not name a line of the log ({lines} lines): {message}"
        ));
    }
    refused(message)
}

impl Iologs {
    /// `read_iolog=LOG` with `options`: the runner's plan of the job and its replay source.
    fn replay(&self, options: &str, log: &[u8]) -> Verdict {
        if std::fs::create_dir_all(&self.folder).is_err() {
            return Verdict::Accepted;
        }
        let path = self
            .folder
            .join(format!("{:?}.log", std::thread::current().id()).replace(['(', ')'], ""));
        if std::fs::write(&path, log).is_err() {
            return Verdict::Accepted;
        }
        let mut job = JobSpec {
            name: "replay".to_string(),
            ..JobSpec::default()
        };
        let path_text = path.display().to_string();
        let given = options
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(k, v)| (k.to_string(), Some(v.to_string())));
        for (name, value) in given.chain([("read_iolog".to_string(), Some(path_text))]) {
            if let Err(e) = apply_option(&mut job, &name, value.as_deref()) {
                return refused(e.to_string());
            }
        }
        let (planned, scan) = match plan_job(&job) {
            Ok(planned) => planned,
            Err(e) => return refused(e.to_string()),
        };
        if let Some(scan) = &scan {
            let _ = describe(&job, scan);
        }
        let _ = validate(&planned);
        let names: Vec<String> = planned
            .filenames
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let mut source = match ReplaySource::open(&planned, &names) {
            Ok(Some(source)) => source,
            Ok(None) => return Verdict::Accepted,
            Err(e) => return refused(e.to_string()),
        };
        source.start(1_000_000);
        // Every line gives at most one IO; the bound keeps a broken source from looping.
        for _ in 0..=log.split(|&b| b == b'\n').count() {
            match source.peek() {
                Ok(Some(_)) => {
                    source.take();
                }
                Ok(None) => return Verdict::Accepted,
                Err(e) => return refused(e.to_string()),
            }
        }
        if source.finished() {
            Verdict::Accepted
        } else {
            Verdict::Broken("the replay source gave more IOs than the log has lines".to_string())
        }
    }
}
