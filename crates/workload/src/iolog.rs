//! fio's iolog options of a job: replaying a trace (`read_iolog` and the `replay_*` options)
//! and recording the IOs a job issues (`write_iolog`). The format itself is the
//! `diskmeter-iolog` crate's; here is only what the job asks for.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A job's iolog options (fio's "I/O replay" section).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct IologOptions {
    /// Replay the IOs of this fio iolog (version 2 or 3) instead of generating them
    /// (fio `read_iolog`).
    pub read_iolog: Option<PathBuf>,
    /// Write the IOs the job issues to this file as a version 3 iolog (fio `write_iolog`).
    pub write_iolog: Option<PathBuf>,
    /// Replay as fast as possible in the log's order, ignoring its times (fio
    /// `replay_no_stall`).
    pub replay_no_stall: bool,
    /// Replay every IO onto this file or device instead of the one the log names (fio
    /// `replay_redirect`).
    pub replay_redirect: Option<PathBuf>,
    /// Round each logged offset down to a multiple of this power of two, bytes; 0 = as
    /// logged (fio `replay_align`).
    pub replay_align_bytes: u64,
    /// Divide each logged offset by this; 0 and 1 = as logged (fio `replay_scale`).
    pub replay_scale: u64,
    /// Replay at this percentage of the log's IO rate: 200 = twice as fast (fio
    /// `replay_time_scale`).
    pub replay_time_scale_percent: u32,
    /// Logged actions not replayed (fio `replay_skip`).
    pub replay_skip: ReplaySkip,
}

impl Default for IologOptions {
    /// The options' defaults, as [`crate::JobSpec::default`] has them (from the option rows).
    fn default() -> Self {
        crate::JobSpec::default().iolog
    }
}

impl IologOptions {
    /// The option fields hold placeholders, which [`crate::JobSpec::default`] replaces with
    /// the rows' defaults (as for `JobSpec::blank`).
    pub(crate) fn blank() -> Self {
        IologOptions {
            read_iolog: None,
            write_iolog: None,
            replay_no_stall: false,
            replay_redirect: None,
            replay_align_bytes: 0,
            replay_scale: 0,
            replay_time_scale_percent: 0,
            replay_skip: Default::default(),
        }
    }
}

/// Which logged actions a replay leaves out (fio `replay_skip=read,write,trim,sync`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySkip {
    /// Leave out reads.
    pub read: bool,
    /// Leave out writes.
    pub write: bool,
    /// Leave out trims.
    pub trim: bool,
    /// Leave out syncs (fio skips `sync` but not `datasync`; diskmeter skips both, since
    /// both are the flush fio's help calls it).
    pub sync: bool,
}

/// A word in `replay_skip` that is not one of [`ReplaySkip::WORDS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown replay_skip word {0:?}")]
pub struct UnknownSkipWord(pub String);

impl ReplaySkip {
    /// The words `replay_skip` takes.
    pub const WORDS: &'static [&'static str] = &["read", "write", "trim", "sync"];

    /// Parses fio's comma-separated list.
    pub fn parse(text: &str) -> Result<ReplaySkip, UnknownSkipWord> {
        let mut skip = ReplaySkip::default();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "read" => skip.read = true,
                "write" => skip.write = true,
                "trim" => skip.trim = true,
                // fio's cmdhelp says "flush"; its parser reads "sync".
                "sync" | "flush" => skip.sync = true,
                other => return Err(UnknownSkipWord(other.to_string())),
            }
        }
        Ok(skip)
    }

    /// The list as fio writes it, `None` when nothing is skipped.
    pub fn show(self) -> Option<String> {
        let words: Vec<&str> = [
            (self.read, "read"),
            (self.write, "write"),
            (self.trim, "trim"),
            (self.sync, "sync"),
        ]
        .into_iter()
        .filter_map(|(on, word)| on.then_some(word))
        .collect();
        (!words.is_empty()).then(|| words.join(","))
    }
}

/// The rules of several options together, reported through `fail(option, message)` like the
/// rest of [`crate::validate`].
pub(crate) fn validate_iolog(spec: &crate::JobSpec, fail: &mut impl FnMut(&'static str, String)) {
    let options = &spec.iolog;
    if options.read_iolog.as_deref() == Some(std::path::Path::new("-")) {
        fail(
            "read_iolog",
            "reading the log from stdin ('-') is not supported: diskmeter reads it twice \
             (to plan the run, then to replay it); give a file"
                .to_string(),
        );
    }
    if options.read_iolog.is_some() {
        let rated = [spec.rate_iops.read, spec.rate_iops.write]
            .into_iter()
            .chain([spec.rate_bytes_per_sec.read, spec.rate_bytes_per_sec.write])
            .any(|cap| cap.is_some());
        if rated {
            fail(
                "read_iolog",
                "a replay's rate is the log's; drop rate/rate_iops (replay_time_scale scales it)"
                    .to_string(),
            );
        }
        if options.read_iolog == options.write_iolog {
            fail(
                "write_iolog",
                "is the log being replayed; write the new log to another file".to_string(),
            );
        }
    } else if options.replay_redirect.is_some() {
        fail(
            "replay_redirect",
            "only applies with read_iolog".to_string(),
        );
    }
    if options.write_iolog.is_some() && spec.numjobs > 1 {
        fail(
            "write_iolog",
            "every clone of numjobs would write the same file; give each job its own log"
                .to_string(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_skip_reads_fios_list() {
        let skip = ReplaySkip::parse("write, trim").unwrap();
        assert_eq!(
            skip,
            ReplaySkip {
                write: true,
                trim: true,
                ..ReplaySkip::default()
            }
        );
        assert_eq!(skip.show().as_deref(), Some("write,trim"));
        assert!(ReplaySkip::parse("flush").unwrap().sync);
        assert_eq!(
            ReplaySkip::parse("erase"),
            Err(UnknownSkipWord("erase".to_string()))
        );
        assert_eq!(ReplaySkip::default().show(), None);
    }

    fn problems(options: &[(&str, &str)]) -> Vec<String> {
        let mut spec = crate::JobSpec::default();
        for (name, value) in options {
            crate::apply_option(&mut spec, name, Some(value)).unwrap();
        }
        crate::validate(&spec)
            .into_iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn a_replay_takes_its_rate_from_the_log() {
        let found = problems(&[("read_iolog", "a.log"), ("rate_iops", "100")]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("a replay's rate is the log's"),
            "{found:?}"
        );
    }

    #[test]
    fn a_replay_does_not_overwrite_its_own_log() {
        let found = problems(&[("read_iolog", "a.log"), ("write_iolog", "a.log")]);
        assert!(found[0].contains("is the log being replayed"), "{found:?}");
    }

    #[test]
    fn clones_cannot_share_one_written_log() {
        let found = problems(&[("write_iolog", "a.log"), ("numjobs", "2")]);
        assert!(found[0].contains("every clone of numjobs"), "{found:?}");
        assert!(problems(&[("write_iolog", "a.log")]).is_empty());
    }

    #[test]
    fn a_log_on_stdin_is_refused() {
        let found = problems(&[("read_iolog", "-")]);
        assert!(
            found[0].contains("from stdin ('-') is not supported"),
            "{found:?}"
        );
    }

    #[test]
    fn redirect_needs_a_replay() {
        let found = problems(&[("replay_redirect", "/dev/null")]);
        assert!(
            found[0].contains("only applies with read_iolog"),
            "{found:?}"
        );
    }
}
