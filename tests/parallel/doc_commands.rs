//! Every command of README.md and of the guide runs (issue 27, item 7): this runner reads the
//! code blocks of the README, docs/GUIDE.md and every page of docs/guide/ (listed from the
//! folder: a page added there is read, and the test fails if one was not), runs each command
//! with the real binary against a history it builds first, and checks each one's exit code
//! (and, for the error examples, its message), so the docs and the tool cannot drift apart.
//! Beside it, `links` checks that the docs hold together (issue 29): every relative link
//! resolves, every page of the guide is in its index and starts with its table of contents,
//! and the README's layout names every crate.
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
//!   (`--runtime`, `DM_RUNTIME=`; DiskSpd's `-d1`, its least, with no warm-up or cool-down: `-W0 -C0`)
//!   and a plan's rehearsal 2 s (`--rehearse-time`, its least);
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
//! (the commands of a doc), `rules` (what each is expected to do and which docs are read),
//! `fixture` (the history and files they work on), `rewrite` (a command at test scale), `run`
//! (a block run) and `links` (the links, contents and layout checks).

use crate::common;
#[path = "doc_commands/extract.rs"]
mod extract;
#[path = "doc_commands/fixture.rs"]
mod fixture;
#[path = "doc_commands/links.rs"]
mod links;
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
use rules::{docs, glob, rule, RULES};
use run::{run_block, Outcome, WORKERS};
use std::path::Path;
use std::time::Instant;

#[test]
fn every_command_of_the_readme_and_the_guide_runs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut commands = Vec::new();
    let docs = docs(repo);
    for doc in &docs {
        let text = std::fs::read_to_string(repo.join(doc)).expect("the doc");
        commands.extend(extract(doc, &text));
    }
    // Every page of the guide is read (a list kept by hand would miss the next one).
    for page in links::markdown_files(repo) {
        let page = page.display().to_string();
        if page.starts_with("docs/guide/") {
            assert!(
                docs.contains(&page),
                "{page} is a page of the guide, but not read"
            );
        }
    }
    assert!(commands.len() > 50, "too few commands found: {commands:#?}");
    // Every command has a rule before anything runs.
    let uncovered: Vec<String> = commands
        .iter()
        .filter(|c| rule(&c.text).is_none())
        .map(|c| {
            format!(
                "{}: `{}`: no rule covers it; add (\"PATTERN\", Action::Run(Exit::Code(0))) (or \
                 Illustrative(\"why\")) to RULES in tests/parallel/doc_commands/rules.rs",
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

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = links::markdown_files(repo);
    assert!(files.len() > 10, "too few docs found: {files:?}");
    let broken: Vec<String> = files
        .iter()
        .flat_map(|file| links::broken_links(repo, file))
        .collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_guide_is_in_its_index_and_starts_with_its_contents() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let index = std::fs::read_to_string(repo.join("docs/GUIDE.md")).expect("docs/GUIDE.md");
    let mut problems = Vec::new();
    let pages: Vec<String> = docs(repo)
        .into_iter()
        .filter(|doc| doc.starts_with("docs/guide/"))
        .collect();
    assert!(pages.len() >= 8, "too few pages: {pages:?}");
    for page in &pages {
        let name = page.trim_start_matches("docs/");
        if !index.contains(&format!("]({name})")) {
            problems.push(format!("docs/GUIDE.md does not link {name}"));
        }
        let text = std::fs::read_to_string(repo.join(page)).expect("the page");
        problems.extend(links::contents_problems(page, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        index.lines().count() < 60,
        "docs/GUIDE.md is the index: one line per page, the text on the pages"
    );
}

#[test]
fn the_readme_layout_has_a_line_for_every_crate() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).expect("README.md");
    let missing = links::crates_missing_from_layout(repo, &readme);
    assert!(
        missing.is_empty(),
        "README.md's Layout section has no line \"- `NAME`: what it owns\" for {missing:?}"
    );
}

#[test]
fn the_link_checker_finds_a_missing_file_and_a_missing_heading() {
    let dir = TestDir::new();
    let repo = dir.path();
    std::fs::create_dir_all(repo.join("docs/guide")).unwrap();
    std::fs::write(
        repo.join("docs/guide/a.md"),
        "# A\n\n## Memory\n\n## Memory\n\n### `--trace` (root)\n\n\
         [ok](#memory-1) [ok](b.md#b) [ok](#--trace-root) `[code](nowhere.md)`\n\
         [gone](c.md) [no heading](b.md#nothing) ![img](../missing.png)\n\
         ```\n[in a block](nowhere.md)\n```\n",
    )
    .unwrap();
    std::fs::write(repo.join("docs/guide/b.md"), "# B\n").unwrap();
    let broken = links::broken_links(repo, Path::new("docs/guide/a.md"));
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].contains("c.md does not exist"), "{broken:#?}");
    assert!(
        broken[1].contains("no heading whose anchor is #nothing"),
        "{broken:#?}"
    );
    assert!(
        broken[2].contains("missing.png does not exist"),
        "{broken:#?}"
    );
    assert_eq!(
        links::slug("Tracing block IO (`capture --trace`)"),
        "tracing-block-io-capture---trace"
    );
}
