//! A job as one rank of a run across hosts runs it: `$rank`, `$nranks` and `$hostname` in
//! its paths, and its share of a file split by `offset_increment`.
//!
//! The names are replaced in `filename`, `directory`, `filename_format` and `write_iolog`,
//! only in a run that has ranks (`--mpi`, `--rank`): a single-host run keeps them as written,
//! as fio keeps a `$` it does not know. `$$` before one of the three names stands for a `$`
//! (`$$rank` gives the text `$rank`); any other `$` is kept, so fio's own `$jobname`,
//! `$jobnum` and `$filenum` in `filename_format` still reach the planner.
//!
//! `offset_increment` counts jobs across ranks: fio starts clone `k` of a job at
//! `offset + k x offset_increment`; with ranks, clone `k` of rank `r` is job number
//! `r x numjobs + k`, so the ranks' regions follow each other without overlap when
//! `offset_increment` is at least `size`.

use crate::JobSpec;
use std::path::{Path, PathBuf};

/// Where a rank stands: what `$rank`, `$nranks` and `$hostname` stand for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankPlace {
    /// This rank, 0-based.
    pub rank: u32,
    /// How many ranks the run has.
    pub ranks: u32,
    /// The name of this rank's machine.
    pub hostname: String,
}

/// The names a rank's paths may use, longest first is not needed: none is a prefix of
/// another once the `$` is counted (`$rank` is not a prefix of `$nranks`).
const NAMES: [&str; 3] = ["rank", "nranks", "hostname"];

impl RankPlace {
    /// `job` as this rank runs it: its paths with the names replaced and, when it splits a
    /// file by `offset_increment`, its offset moved past the regions of the ranks before it.
    pub fn job(&self, job: &JobSpec) -> JobSpec {
        let mut job = job.clone();
        job.filenames = job.filenames.iter().map(|p| self.path(p)).collect();
        job.directory = job.directory.as_deref().map(|p| self.path(p));
        job.files.filename_format = job.files.filename_format.as_deref().map(|f| self.text(f));
        job.iolog.write_iolog = job.iolog.write_iolog.as_deref().map(|p| self.path(p));
        if job.offset_increment_bytes > 0 {
            let jobs_before = u64::from(self.rank).saturating_mul(u64::from(job.numjobs.max(1)));
            job.offset_bytes = job
                .offset_bytes
                .saturating_add(job.offset_increment_bytes.saturating_mul(jobs_before));
        }
        job
    }

    /// `path` with the names replaced (a path that is not UTF-8 is kept as it is).
    pub fn path(&self, path: &Path) -> PathBuf {
        match path.to_str() {
            Some(text) => PathBuf::from(self.text(text)),
            None => path.to_path_buf(),
        }
    }

    /// `text` with `$rank`, `$nranks` and `$hostname` replaced and `$$NAME` made `$NAME`.
    pub fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(name) = after.strip_prefix('$').and_then(name_at) {
                // `$$NAME`: the escape, a literal `$NAME`.
                out.push('$');
                out.push_str(name);
                rest = &after[1 + name.len()..];
            } else if let Some(name) = name_at(after) {
                out.push_str(&self.value(name));
                rest = &after[name.len()..];
            } else {
                out.push('$');
                rest = after;
            }
        }
        out.push_str(rest);
        out
    }

    fn value(&self, name: &str) -> String {
        match name {
            "rank" => self.rank.to_string(),
            "nranks" => self.ranks.to_string(),
            _ => self.hostname.clone(),
        }
    }
}

/// The name `text` starts with, if it is one of [`NAMES`] (and not the start of a longer
/// word: `$ranking` is not `$rank` followed by `ing`).
fn name_at(text: &str) -> Option<&'static str> {
    NAMES.into_iter().find(|name| {
        text.starts_with(name)
            && !text[name.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(rank: u32) -> RankPlace {
        RankPlace {
            rank,
            ranks: 4,
            hostname: "node7".to_string(),
        }
    }

    #[test]
    fn names_are_replaced_and_the_escape_keeps_them() {
        let p = place(2);
        assert_eq!(
            p.text("/d/f.$rank.of.$nranks@$hostname"),
            "/d/f.2.of.4@node7"
        );
        assert_eq!(p.text("a$$rank-$rank"), "a$rank-2");
        assert_eq!(
            p.text("$jobname.$jobnum.$filenum.$rank"),
            "$jobname.$jobnum.$filenum.2"
        );
        assert_eq!(p.text("$ranking $$ $"), "$ranking $$ $");
        assert_eq!(p.text("x$rank_y"), "x$rank_y");
    }

    #[test]
    fn offset_increment_counts_jobs_across_ranks() {
        let mut job = JobSpec::newcomer_default();
        job.numjobs = 2;
        job.offset_bytes = 4096;
        job.offset_increment_bytes = 1 << 20;
        job.filenames = vec![PathBuf::from("/t/shared.$nranks")];
        let ranked = place(3).job(&job);
        // Rank 3's first clone is job number 6.
        assert_eq!(ranked.offset_bytes, 4096 + 6 * (1 << 20));
        assert_eq!(ranked.filenames, vec![PathBuf::from("/t/shared.4")]);
        job.offset_increment_bytes = 0;
        assert_eq!(place(3).job(&job).offset_bytes, 4096);
    }
}
