//! The texts of the command line's help: the examples every command's `-h` opens with
//! ([`examples_block`]), the one-line summary of each heading `-h` leaves out
//! ([`summary`]), the headings the shared flags are listed under, and the long descriptions
//! of the top level, `run` and `diskspd` (kept here so the CLI stays thin).
//!
//! `-h` shows a command's examples, then its common options one by one (those without a
//! heading), then a line per heading; `--help` shows every option with its unit and default
//! under its heading. The job options' headings are the workload crate's [`Category`].

mod examples;

pub use examples::Example;

use diskmeter_workload::Category;

/// The help layout of every command: what it is (one line), its examples, then usage and
/// options (clap's default puts the examples before the one line).
pub const TEMPLATE: &str =
    "{about-with-newline}\n{before-help}{usage-heading} {usage}\n\n{all-args}{after-help}";

/// The heading of the output and history flags; the job options of [`Category::Output`]
/// (fio's reporting options) are listed under it too.
pub const OUTPUT: &str = Category::Output.heading();
/// The heading of the flags that allow what is refused by default, and of `--dry-run`.
pub const SAFETY: &str = "Safety and dry run";
/// The heading of the in-engine throttle and the emulated disks.
pub const THROTTLE: &str = "Throttles and emulated disks";
/// The heading of the flags of a run across hosts, listed last.
pub const SCALE_OUT: &str = "Scale-out (MPI, ranks)";

/// The width examples and summaries are laid out in, so that an 80-column terminal shows
/// them as written (clap wraps at the terminal's width, at most 100): a longer example is
/// continued on the next line with the shell's `\`, indented.
const WIDTH: usize = 78;

/// The examples of the command at `path` (`diskmeter emulate create`); empty when it has none.
pub fn examples(path: &str) -> &'static [Example] {
    examples::EXAMPLES
        .iter()
        .find(|(at, _)| *at == path)
        .map_or(&[], |(_, list)| list)
}

/// Every command path that has examples, for the test that each still parses.
pub fn example_paths() -> impl Iterator<Item = &'static str> {
    examples::EXAMPLES.iter().map(|(path, _)| *path)
}

/// The words of an example's command line, as a shell splits it (examples use no quoting).
pub fn example_words(command: &str) -> Vec<&str> {
    command.split_whitespace().collect()
}

/// "Examples:" and each example as a `# what it does` line over its command line; `None` for
/// a command with none.
pub fn examples_block(path: &str) -> Option<String> {
    let list = examples(path);
    if list.is_empty() {
        return None;
    }
    let mut text = String::from("Examples:");
    for (what, command) in list {
        text.push_str(&format!("\n  # {what}\n"));
        let mut line = String::from(" ");
        for word in example_words(command) {
            if line.len() > 2 && line.len() + 1 + word.len() > WIDTH {
                text.push_str(&line);
                text.push_str(" \\\n   ");
                line = String::new();
            }
            line.push(' ');
            line.push_str(word);
        }
        text.push_str(&line);
    }
    Some(text)
}

/// The one-line summaries of the options `-h` leaves out: per heading, as many of its
/// options' names as the line holds, in order (a long name that does not fit is passed over
/// for shorter ones after it), then how many more `--help` lists.
pub fn summary(path: &str, headings: &[(String, Vec<String>)]) -> String {
    let mut text = format!("More options, by heading ({path} --help describes each):");
    for (heading, names) in headings {
        let mut line = format!("\n  {heading}:");
        // Room for " ... (+NN)" unless every name fits.
        let all = names.iter().map(|name| 3 + name.len()).sum::<usize>();
        let room = if line.len() + all <= WIDTH + 1 {
            WIDTH + 1
        } else {
            WIDTH - 10
        };
        let mut left = 0;
        for name in names {
            if line.len() + 3 + name.len() <= room {
                line.push_str(&format!(" --{name}"));
            } else {
                left += 1;
            }
        }
        if left > 0 {
            line.push_str(&format!(" ... (+{left})"));
        }
        text.push_str(&line);
    }
    text
}

/// The line `--help` ends with when `-h` summarises options: where the short form is.
pub fn short_form(path: &str) -> String {
    format!("{path} -h shows the examples and the common options alone.")
}

/// `diskmeter --help`'s description: what each group of commands is for.
pub const DISKMETER_ABOUT: &str = "diskmeter measures what storage can really do: IOPS, bandwidth and latency \
             (HDR histograms, 0.1 % precision) with CPU cost, using io_uring, libaio, psync \
             or a null engine. `diskmeter run` takes fio's option names and fio job files; \
             `diskmeter diskspd` and `diskmeter iometer` run DiskSpd command lines and Iometer \
             access specifications as they are.\n\n\
             With no options `diskmeter run` runs 4 KiB random reads at queue depth 32 on a \
             1 GiB file in the current folder for 10 seconds (direct IO), then removes the file.\n\n\
             `diskmeter plan` predicts what a VM + disks configuration delivers from published \
             limits and prices, names the binding limit and finds the cheapest configuration \
             that meets a requirement; `diskmeter catalog` shows the figures it uses.\n\n\
             `diskmeter capture` watches the disks an application uses with iostat -x's \
             columns and saves the series, the requirements a plan starts from.\n\n\
             `diskmeter requirements` turns a capture of an application's IO into the guides' \
             requirements checklist (p50/p90/p99/max/mean), `plan --from-capture` provisions \
             for it and `diskmeter check` judges a saved result against it, explicit \
             requirements or a guide's published figures.\n\n\
             `diskmeter report` writes saved runs as one self-contained HTML file, `diskmeter \
             chart` any of its charts as PNG or SVG, and `diskmeter serve` a local, read-only \
             dashboard over the history with runs in progress drawn live.\n\n\
             `diskmeter k8s manifest` writes a Kubernetes Indexed Job that runs the jobs on \
             many pods at once, one rank each, for `diskmeter merge` to put together.\n\n\
             `diskmeter merge` merges the JSON results of several hosts of one run exactly \
             (histograms, not averaged percentiles), with IOR's aggregate bandwidth.\n\n\
             Exit codes: 0 ok; 1 a run failed, was interrupted or a requirement was missed; \
             2 usage error.";

/// `diskmeter run --help`'s description: jobs from options, the default job, safety, exit codes.
pub const RUN_ABOUT: &str =
    "Run IO jobs given with fio's option names, as `--option=value` or `--option value`. \
             Options before the first --name apply to every job; each --name starts a new job. \
             With no job options, runs the default job: 4 KiB random reads, iodepth 32, \
             a 1 GiB file in the current folder, 10 seconds, direct IO.\n\n\
             Files diskmeter creates are removed at the end unless --keep (or unlink=0); \
             those of a diskmeter that was killed are removed by the next run. Writing to an \
             existing file diskmeter did not create, or to a block device that is mounted or \
             holds a partition table or a filesystem signature, is refused unless \
             --allow-destroy; a job whose IO buffers would not fit in the memory available is \
             refused too.\n\n\
             Exit codes: 0 ok; 1 the run failed, was refused or was interrupted, or the history \
             could not take it (the run is then kept in a spool file and saved at the next \
             run); 2 usage error.";

/// `diskmeter diskspd --help`'s description: what is honoured, accepted with a note or refused.
pub const DISKSPD_ABOUT: &str = "Runs a DiskSpd command line unchanged, or an XML profile (-X profile.xml, with \
             targets after it for template paths *1, *2 ...), and prints DiskSpd's report \
             (-Rxml for its XML, whose <Profile> can be fed back with -X; -Rp prints the \
             profile without running). DiskSpd's switches are single-dash (-b8K -o32 ...); \
             diskmeter's own options (--allow-destroy, --keep, --quiet, --output, --dry-run) go \
             before them. Every switch of DiskSpd 2.x and its Linux port is taken: honoured \
             (-rdpct/-rdabs as zoned distributions, -O, -i/-j, -a, -I, -fr/-fs, -D<ms> as the \
             series' interval and DiskSpd's IopsStdDev ...), accepted \
             with a note on stderr when it changes nothing measured here (-n, -e, -Sr, -v, -P, \
             -l, -x, -ag), or refused with the reason (-Sm, -N, -p, -ye, -Z<size>,<file>, #N \
             disk numbers, X:\\ drives that do not exist here). Typographic dashes (–b8K) read \
             as '-'. Each time span of a profile is a step of the run. docs/guide/2-job-files.md lists \
             every switch and profile element and what diskmeter does with it.\n\n\
             Exit codes: 0 ok; 1 the run failed or was interrupted; 2 usage error.";

/// `diskmeter iometer --help`'s description: access specifications, scenario tables, .icf files.
pub const IOMETER_ABOUT: &str = "Runs Iometer access specifications one after another: each becomes a job with that \
             request size, read share and random share, --workers workers with --qd IOs each, \
             direct IO, for --time. The guides' names resolve (RandomWrites_8K, RandomReads_8K, \
             RandomWrites_64K, RandomReads_64K, RandomWrites_1MB, RandomReads_1MB). A folder \
             target gets Iometer's test file iobw.tst (--size, default 1 GiB; the guides use \
             200 GB). --table FILE runs a TOML scenario table instead (format in \
             docs/guide/2-job-files.md).\n\n--icf FILE runs an Iometer configuration file (.icf, Iometer 2004.07.30 to \
             1.1.0) as Iometer would: its access specifications in their assigned order, each \
             step of its test type's cycling (queue depth, workers, targets) a step of the run, \
             every worker a job with its outstanding IOs, maximum disk size and starting sector; \
             run time and ramp from the file unless --time/--ramp are given. The file's targets \
             (C: \"NTFS\", PHYSICALDRIVE:1) are mapped with --target-map 'C:=/mnt/data' or given \
             as TARGETs in the order they first appear. --csv FILE writes Iometer's results CSV.\n\nExit codes: 0 ok; 1 a run failed or was interrupted; 2 usage error.";

/// `diskmeter k8s manifest --help`'s description: the Indexed Job, its pods' steps, their results.
pub const K8S_MANIFEST_ABOUT: &str =
    "Write the Kubernetes manifest of one run across pods: a ConfigMap holding the \
             job file and an Indexed Job (completions = parallelism = --pods, no retries: a \
             pod run again would measure a different run). The jobs are given as to \
             `diskmeter run` (fio options or job files) and checked here; the ConfigMap holds \
             them as diskmeter resolved them, their test files in each pod's own volume (a \
             generic ephemeral volume of --storage-class and --volume-size, mounted at /data), \
             so every pod runs the same workload.\n\n\
             Pod INDEX runs `diskmeter run --rank INDEX --ranks N --start-at TIME`: it lays out \
             its files, waits until TIME (from --start-in or --start-at, the same for every \
             pod), runs, and writes /results/NAME-rank-INDEX.json. With --results-claim the \
             results land on that ReadWriteMany claim; otherwise each pod keeps its result \
             for --keep-results (it is Ready once the result is written) to be read with \
             `kubectl exec` or `kubectl cp`. Then `diskmeter merge results/*.json` gives the \
             aggregate. The manifest opens with these steps, with its names filled in.\n\n\
             The image must have `diskmeter` on its PATH, and `sh` unless --results-claim. \
             The pods run as user 1000 with no privileges (the restricted Pod Security \
             Standard): O_DIRECT on a file system needs nothing more.\n\n\
             Exit codes: 0 written; 2 usage error (a bad job, a name Kubernetes refuses, a \
             start that has passed).";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_example_goes_on_after_a_backslash_within_the_width() {
        let block = examples_block("diskmeter k8s manifest").unwrap();
        assert!(block.starts_with("Examples:\n  # "), "{block}");
        for line in block.lines() {
            assert!(line.len() <= WIDTH + 2, "{line:?}");
        }
        assert!(block.contains(" \\\n    --"), "{block}");
        assert!(examples_block("diskmeter nothing").is_none());
    }

    #[test]
    fn a_summary_line_names_what_fits_and_counts_the_rest() {
        let names: Vec<String> = (0..30).map(|i| format!("option_{i}")).collect();
        let text = summary(
            "diskmeter run",
            &[("Files".into(), names), ("Few".into(), vec!["a".into()])],
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("diskmeter run --help"), "{text}");
        assert!(
            lines[1].starts_with("  Files: --option_0 --option_1") && lines[1].ends_with(')'),
            "{text}"
        );
        assert!(lines[1].len() <= WIDTH, "{text}");
        assert_eq!(lines[2], "  Few: --a");
    }

    #[test]
    fn every_example_path_is_a_command_path() {
        for path in example_paths() {
            assert!(
                path == "diskmeter" || path.starts_with("diskmeter "),
                "{path}"
            );
            assert!((1..=5).contains(&examples(path).len()), "{path}");
        }
    }
}
