//! Every command of README.md and docs/GUIDE.md runs (issue 27, item 7): this runner reads
//! their code blocks, runs each command with the real binary against a history it builds
//! first, and checks each one's exit code (and, for the error examples, its message), so the
//! docs and the tool cannot drift apart.
//!
//! **What is a command.** In `sh`/`bash` blocks every line; in unlabelled and `text` blocks
//! the lines that start with a program (`diskmeter `, `mpirun`, `for`, ... see
//! [`rules::PROGRAMS`]) and the `$ ` lines, whose following lines (up to the next `$ `) are the
//! message it must print on stderr. A line ending in `\` goes on on the next; a `for` loop
//! runs to its `done`; a `#` after a blank starts a comment. Each command runs as `bash -c`
//! would run it (`a; b`, `a | b`, `> file`), in a folder of its own, with `diskmeter` on
//! PATH and the history in that folder (XDG_DATA_HOME). An `export` sets its variables for
//! the commands after it in the same file.
//!
//! **Test scale**, the same rule for every command (and written in the README's Tests
//! paragraph):
//! - device paths (`/dev/sdX`, `/dev/nvme1n1`, ...) become 64 MiB loop devices in memory as
//!   root (a 64 MiB file otherwise); mount paths (`/mnt/...`, `/data/`, `/shared/`) and
//!   system folders (`/etc/...`, `/usr/local/...`, `~`) become folders in the test's folder;
//!   a captured device's name (`--device nvme0n1`) is the fixture's capture device;
//! - sizes above 64 MiB become 64 MiB (`--size`, DiskSpd's `-c`, `DM_SIZE=`), and a replay's
//!   or an Iometer run's file is 64 MiB; a run's or a replay's runtime becomes 500 ms
//!   (`--runtime`, `DM_RUNTIME=`; DiskSpd's `-d1`, its least, with no warm-up or cool-down: `-W0 -C0`);
//!   a capture lasts 1 s at 1 s intervals, a paced application running on the captured
//!   device meanwhile (one without `--duration` stands for one stopped with Ctrl-C); the
//!   steps of a suite and of an Iometer run take 300 ms each (`--runtime 300ms`,
//!   `--warmup-runtime 300ms`, Iometer's `--time 300ms`: options users have too), a sweep's
//!   points 300 to 500 ms with no ramp (`--point-time 300ms --point-max 500ms --ramp 0`);
//! - the files the docs name (`job.fio`, `peak.xml`, `test.icf`, `bad.fio`, `mine.toml`,
//!   `host*.json`, ...) are made by the fixture, with what the docs' messages say they hold;
//! - `diskmeter serve` starts on a free port (`--port 0`), answers one page, and is stopped;
//! - `cargo run --release -- ARGS` runs as `diskmeter ARGS` (the binary under test);
//!   `./scripts/test` is the suite this runs in (covered by CI itself, not re-run);
//! - commands that start ranks on other hosts (`mpirun`, `srun`, `ssh` in a loop) run
//!   their diskmeter command here as rank 0 of N (`--rank`, `--ranks`) with `--dry-run`;
//!   `kubectl`, the hour-long soak and the fuzz build are marked illustrative (at most 10 %
//!   of the commands may be);
//! - ids: the docs' run ids stand for runs of the right kind, by where they stand: after
//!   `requirements`, `replay`, `--from-capture`, `--capture`, the fixture's capture (a traced
//!   capture of a paced application as root); after `check N --expect PROFILE`, the newest
//!   run of that profile's suite (run at test scale first if there is none); after `chart N`
//!   with `--kind suite-...` or `--step`, the newest `quick` suite; any other id is a run:
//!   the first distinct one in the docs is the fixture's run A, the second run B. `last` is
//!   left as it is: the newest of the fixture's history (run B; the capture) and of what
//!   the block's commands before it saved.
//! - each code block runs in order in its own copy of the fixture's folder and history, two
//!   blocks at a time.
//!
//! **Rules.** [`rules::RULES`] gives each command, by pattern, what to expect (an exit code) or why
//! it is not run; a command no rule covers fails the test with the line to add. Commands
//! that need root (`sudo`, `--trace`, `emulate`, a capture) are counted as skipped without
//! it, and fail under CI (which runs as root). The test prints its counts: run,
//! illustrative, covered by CI, skipped, total.
//!
//! **Layout.** This file holds the tests; the folder `doc_commands/` the parts: `extract`
//! (the commands of a doc), `rules` (what each is expected to do), `fixture` (the history
//! and files they work on), `rewrite` (a command at test scale) and `run` (a block run).

use crate::common;
#[path = "doc_commands/extract.rs"]
mod extract;
#[path = "doc_commands/fixture.rs"]
mod fixture;
#[path = "doc_commands/rewrite.rs"]
mod rewrite;
#[path = "doc_commands/rules.rs"]
mod rules;
#[path = "doc_commands/run.rs"]
mod run;

use common::{is_root, TestDir};
use extract::{extract, DocCommand};
use fixture::Fixture;
use rewrite::{plan_ids, replace_rooted};
use rules::{glob, rule, DOCS, RULES};
use run::{run_block, Outcome, WORKERS};
use std::path::Path;
use std::time::Instant;

#[test]
fn every_command_of_the_readme_and_the_guide_runs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut commands = Vec::new();
    for doc in DOCS {
        let text = std::fs::read_to_string(repo.join(doc)).expect("the doc");
        commands.extend(extract(doc, &text));
    }
    assert!(commands.len() > 50, "too few commands found: {commands:#?}");
    // Every command has a rule before anything runs.
    let uncovered: Vec<String> = commands
        .iter()
        .filter(|c| rule(&c.text).is_none())
        .map(|c| {
            format!(
                "{}: `{}`: no rule covers it; add (\"PATTERN\", Action::Run(Exit::Code(0))) (or \
                 Illustrative(\"why\")) to RULES in tests/doc_commands/rules.rs",
                c.place, c.text
            )
        })
        .collect();
    assert!(uncovered.is_empty(), "{}", uncovered.join("\n"));
    // A rule no command uses any more is left from an edit of the docs: said, not failed (the
    // docs change under several hands; the lead prunes).
    for (pattern, _) in RULES {
        if !commands.iter().any(|c| glob(pattern, &c.text)) {
            eprintln!("note: no command of the docs matches the rule {pattern:?}");
        }
    }

    let started = Instant::now();
    let test_dir = if is_root() {
        TestDir::in_memory()
    } else {
        TestDir::new()
    };
    let (run_ids, suites) = plan_ids(&commands);
    let template = Fixture::new(&test_dir, &run_ids, &suites);
    eprintln!("fixture built in {:.1} s", started.elapsed().as_secs_f64());
    // The blocks, in the docs' order; each runs in order, in its own copy of the template,
    // two at a time.
    let mut blocks: Vec<Vec<&DocCommand>> = Vec::new();
    let mut last_key = None;
    for command in &commands {
        let key = (command.place.split(':').next().unwrap(), command.block);
        if last_key != Some(key) {
            blocks.push(Vec::new());
            last_key = Some(key);
        }
        blocks.last_mut().unwrap().push(command);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let outcomes = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(block) = blocks.get(index) else {
                    break;
                };
                let mut chain = template.chain(index);
                let outcome = run_block(&mut chain, block);
                drop(chain);
                outcomes.lock().unwrap().push((index, outcome));
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|(index, _)| *index);
    let mut all = Outcome::default();
    for (_, outcome) in outcomes {
        eprint!("{}", outcome.log);
        all.ran += outcome.ran;
        all.illustrative += outcome.illustrative;
        all.by_ci += outcome.by_ci;
        all.skipped += outcome.skipped;
        all.failures.extend(outcome.failures);
    }
    let total = commands.len();
    let Outcome {
        ran,
        illustrative,
        by_ci,
        skipped,
        ..
    } = all;
    eprintln!(
        "doc commands: {ran} run, {illustrative} illustrative, {by_ci} covered by CI, {skipped} \
         skipped (not root), {total} total, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(ran + illustrative + by_ci + skipped, total);
    assert!(all.failures.is_empty(), "{}", all.failures.join("\n\n"));
    assert!(
        illustrative * 10 <= total,
        "{illustrative} of {total} commands are illustrative: at most 10 % may be"
    );
}

#[test]
fn the_extractor_reads_blocks_as_a_shell_would() {
    let doc = "text\n```sh\n# a comment\ndiskmeter run --a \\\n    --b   # why\nx; y | z\n```\n\
               ```\nsome output\ndiskmeter show 1\ndiskmeter: an error line\n\
               for r in 0 1; do\n  ssh node$r diskmeter run x &\ndone; wait\n```\n\
               ```text\n$ diskmeter run bad\ndiskmeter: bad: why\n$ diskmeter other\nline\n```\n";
    let extracted = extract("d.md", doc);
    assert_eq!(
        extracted.iter().map(|c| c.block).collect::<Vec<_>>(),
        vec![1, 1, 2, 2, 3, 3]
    );
    let commands: Vec<(String, Option<Vec<String>>)> = extracted
        .into_iter()
        .map(|c| (c.text, c.expected))
        .collect();
    assert_eq!(
        commands,
        vec![
            ("diskmeter run --a --b".to_string(), None),
            ("x; y | z".to_string(), None),
            ("diskmeter show 1".to_string(), None),
            (
                "for r in 0 1; do\nssh node$r diskmeter run x &\ndone; wait".to_string(),
                None
            ),
            (
                "diskmeter run bad".to_string(),
                Some(vec!["diskmeter: bad: why".to_string()])
            ),
            (
                "diskmeter other".to_string(),
                Some(vec!["line".to_string()])
            ),
        ]
    );
    assert!(glob(
        "diskmeter check *--expect *",
        "diskmeter check 20 --expect x"
    ));
    assert!(!glob("diskmeter check *--expect *", "diskmeter check 20"));
    assert!(glob("diskmeter man*", "diskmeter man | man -l -"));
    assert_eq!(
        replace_rooted("--filename=/data/own.$rank /mnt/data/x", "/data/", "D/"),
        "--filename=D/own.$rank /mnt/data/x"
    );
}
