//! Where each option is listed in `--help` and the docs: its [`Category`] (fio's own
//! groups of `fio --cmdhelp=all` and the HOWTO, folded into the few headings a user scans),
//! and the [`COMMON_OPTIONS`] that `-h` shows one by one.

use super::OptionDef;

/// The options `run -h` lists one by one, in this order: what a user types first (fio's
/// examples and every tutorial start with these). The rest are summarised by [`Category`].
pub const COMMON_OPTIONS: [&str; 7] =
    ["name", "rw", "bs", "iodepth", "size", "runtime", "filename"];

/// The heading an option is listed under; the order of the variants is `--help`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// fio's IO type, block size, IO depth, IO size, random and zone options: what the IO is.
    Workload,
    /// fio's filename, file and buffer options: what the IO goes to and its data.
    Files,
    /// fio's runtime, job-order and steady-state options: when a job starts and stops.
    Timing,
    /// fio's rate, think-time, latency-profiling and flow options: how fast IO is issued.
    Rates,
    /// fio's ioengine, sync, CPU and priority options: how IO is issued.
    Engine,
    /// fio's log and iolog options: what is written besides the results, and replays.
    Logs,
    /// fio's verify, trim and error-handling options.
    Verify,
    /// fio's statistics and reporting options; diskmeter's output and history flags join them.
    Output,
}

impl Category {
    /// Every category, in `--help`'s order.
    pub const ALL: [Category; 8] = [
        Category::Workload,
        Category::Files,
        Category::Timing,
        Category::Rates,
        Category::Engine,
        Category::Logs,
        Category::Verify,
        Category::Output,
    ];

    /// The heading in `--help` (and the one-line summaries of `-h`).
    pub const fn heading(self) -> &'static str {
        match self {
            Category::Workload => "Workload",
            Category::Files => "Files and buffers",
            Category::Timing => "Timing and job order",
            Category::Rates => "Rates and latency targets",
            Category::Engine => "IO engine and CPUs",
            Category::Logs => "Logs and replay",
            Category::Verify => "Verify, trim and errors",
            Category::Output => "Output and history",
        }
    }
}

impl OptionDef {
    /// Whether `-h` lists the option one by one ([`COMMON_OPTIONS`]).
    pub fn is_common(&self) -> bool {
        COMMON_OPTIONS.contains(&self.name)
    }

    /// The help line as `-h` prints it: the first clause of the help (up to its first "; " or
    /// ". ", an "e.g. " aside), then the unit and default; `--help` prints
    /// [`OptionDef::help_line`].
    pub fn short_help(&self) -> String {
        let help = self.help;
        let ends = help.match_indices("; ").chain(help.match_indices(". "));
        let cut = ends
            .map(|(at, _)| at)
            .filter(|at| !help[..*at].ends_with("e.g") && !help[..*at].ends_with("i.e"))
            .min()
            .unwrap_or(help.len());
        let mut text = help[..cut].to_string();
        if !self.unit.is_empty() {
            text.push_str(&format!(" [unit: {}]", self.unit));
        }
        if !self.default.is_empty() {
            text.push_str(&format!(" [default: {}]", self.default));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{all_options, find_option};

    #[test]
    fn the_common_options_exist_and_say_their_first_clause() {
        for name in COMMON_OPTIONS {
            let def = find_option(name).unwrap();
            assert!(
                def.is_common() && def.short_help().len() < def.help_line().len(),
                "{name}"
            );
        }
        assert_eq!(
            find_option("iodepth").unwrap().short_help(),
            "IOs kept in flight per worker [unit: IOs] [default: 1]"
        );
    }

    #[test]
    fn every_category_has_options() {
        for category in Category::ALL {
            assert!(
                all_options().any(|def| def.category == category),
                "{category:?}"
            );
        }
    }
}
