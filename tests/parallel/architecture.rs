//! The workspace keeps its shape: the rules of STYLE.md that a reading of the sources can
//! check, checked on every test run so a change that breaks one fails CI.
//!
//! - One orchestrator: only it runs steps (`diskmeter_runner::execute`), installs the stop
//!   signal's handlers and saves runs in the history.
//! - Errors keep their type: no `Result<_, String>` in a library's public functions, no
//!   `process::exit` and no printing outside the binary's crates.
//! - `unsafe` only in the engine; every other crate forbids it.
//! - No source file over 600 lines.
//! - No unused dependency: every crate a Cargo.toml names is used by that crate's code (the
//!   check cargo-machete makes, without installing it).
//! - A thin CLI: `crates/cli` depends only on the crates it names (parsing, rendering, the
//!   product crates it calls), and only the orchestrator starts workers, samplers, tracers
//!   and the stop signal; the CLI's line count is printed (issue 29: at most 4,000).
//! - Test support (`crates/faultfs`) is a dependency of the root package's tests only.

use std::path::{Path, PathBuf};

/// The longest a source file may grow.
const MAX_LINES: usize = 600;

/// Files that are data (one row per option) and may be longer: none since the option
/// table's rows are grouped by topic (issue 29).
const DATA_FILES: &[&str] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The workspace's crates: (folder name, folder).
fn crates() -> Vec<(String, PathBuf)> {
    let mut crates: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(_, p)| p.join("Cargo.toml").exists())
        .collect();
    crates.sort();
    crates
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The source without comments (line comments and doc comments), so prose that names a
/// function does not count as a call.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Files of `crates/` (sources, not tests) whose code contains `needle`.
fn files_calling(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (_, dir) in crates() {
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            if code_of(&text).contains(needle) {
                found.push(relative(&file));
            }
        }
    }
    found
}

#[test]
fn only_the_orchestrator_runs_steps() {
    assert_eq!(
        files_calling("diskmeter_runner::execute("),
        ["crates/orchestrator/src/session.rs"]
    );
}

#[test]
fn the_stop_signal_is_installed_in_one_place() {
    assert_eq!(
        files_calling("signal_hook::"),
        ["crates/orchestrator/src/signals.rs"]
    );
}

#[test]
fn only_the_orchestrator_saves_runs_in_the_history() {
    let mut writers = Vec::new();
    for call in [
        ".save(&",
        ".begin_run(",
        ".begin_run_with_step(",
        ".append_step(",
        ".finish_run(",
    ] {
        // Unit-test modules of their own (`tests.rs`, `*_tests.rs`) may save fixtures.
        writers.extend(files_calling(call).into_iter().filter(|f| {
            !f.starts_with("crates/history/")
                && !f.ends_with("/tests.rs")
                && !f.ends_with("_tests.rs")
        }));
    }
    writers.dedup();
    assert_eq!(writers, ["crates/orchestrator/src/history.rs"]);
}

#[test]
fn the_cli_reaches_the_runner_only_through_the_orchestrator() {
    let manifest = std::fs::read_to_string(root().join("crates/cli/Cargo.toml")).unwrap();
    for engine_side in ["diskmeter-runner", "diskmeter-engine"] {
        assert!(
            !manifest.contains(engine_side),
            "crates/cli depends on {engine_side}"
        );
    }
}

#[test]
fn no_library_exits_or_prints() {
    let mut offenders = Vec::new();
    for (name, dir) in crates() {
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            // Unit tests may print why they skip; only the code before them counts, and a
            // unit-test module of its own (`tests.rs`, `*_tests.rs`) is all test.
            let name_of_file = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name_of_file == "tests.rs" || name_of_file.ends_with("_tests.rs") {
                continue;
            }
            let code = code_of(text.split("#[cfg(test)]").next().unwrap_or(""));
            if code.contains("process::exit") {
                offenders.push(format!("{}: process::exit", relative(&file)));
            }
            let prints = ["println!", "eprintln!", "print!(", "eprint!("];
            if name != "cli" && prints.iter().any(|p| code.contains(p)) {
                offenders.push(format!("{}: prints", relative(&file)));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

/// The signatures of the public functions of a file, each on one line.
fn public_signatures(text: &str) -> Vec<String> {
    let code = code_of(text);
    let mut signatures = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub fn ") {
        let tail = &rest[at..];
        let end = tail.find(['{', ';']).unwrap_or(tail.len());
        signatures.push(tail[..end].split_whitespace().collect::<Vec<_>>().join(" "));
        rest = &tail[end..];
    }
    signatures
}

#[test]
fn no_library_returns_errors_as_text() {
    let mut offenders = Vec::new();
    for (name, dir) in crates() {
        if name == "cli" {
            continue;
        }
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for signature in public_signatures(&text) {
                let returns = signature.split("->").nth(1).unwrap_or("");
                if returns.contains("Result<") && returns.contains(", String>") {
                    offenders.push(format!("{}: {signature}", relative(&file)));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn unsafe_code_is_forbidden_outside_the_engine() {
    let mut missing = Vec::new();
    for (name, dir) in crates() {
        if name == "engine" {
            continue;
        }
        let lib = dir.join("src/lib.rs");
        let text = std::fs::read_to_string(&lib).unwrap_or_default();
        if !text.contains("#![forbid(unsafe_code)]") {
            missing.push(relative(&lib));
        }
    }
    let main = std::fs::read_to_string(root().join("src/main.rs")).unwrap();
    if !main.contains("#![forbid(unsafe_code)]") {
        missing.push("src/main.rs".to_string());
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut long = Vec::new();
    let mut files = rust_files(&root().join("src"));
    for (_, dir) in crates() {
        files.extend(rust_files(&dir));
    }
    files.extend(rust_files(&root().join("tests")));
    for file in files {
        let lines = std::fs::read_to_string(&file)
            .unwrap_or_default()
            .lines()
            .count();
        let name = relative(&file);
        if lines > MAX_LINES && !DATA_FILES.contains(&name.as_str()) {
            long.push(format!("{name}: {lines} lines"));
        }
    }
    assert!(long.is_empty(), "{long:#?}");
}

#[test]
fn test_support_stays_out_of_the_product() {
    // crates/faultfs (a FUSE server for the fault tests) is for the root package's tests
    // only: no product crate may depend on it, not even for its own tests.
    let mut users = Vec::new();
    for (name, dir) in crates() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if name != "faultfs" && manifest.contains("diskmeter-faultfs") {
            users.push(name);
        }
    }
    let root_manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    if dependencies(&root_manifest, "dependencies").contains(&"diskmeter-faultfs".to_string()) {
        users.push("diskmeter (root)".to_string());
    }
    assert!(users.is_empty(), "depend on diskmeter-faultfs: {users:?}");
}

/// The dependency names of one table (`[dependencies]`, `[dev-dependencies]`) of a manifest.
fn dependencies(manifest: &str, table: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == format!("[{table}]");
            continue;
        }
        if inside {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim().trim_end_matches(".workspace").trim();
                if !name.is_empty() && !name.starts_with('#') {
                    names.push(name.to_string());
                }
            }
        }
    }
    names
}

/// Whether the code under `dirs` names the crate `name` (as `name::`, `use name` or `name!`).
fn uses_crate(dirs: &[PathBuf], name: &str) -> bool {
    let ident = name.replace('-', "_");
    dirs.iter().flat_map(|d| rust_files(d)).any(|file| {
        let code = code_of(&std::fs::read_to_string(&file).unwrap_or_default());
        code.contains(&format!("{ident}::"))
            || code.contains(&format!("use {ident}"))
            || code.contains(&format!("extern crate {ident}"))
    })
}

#[test]
fn every_dependency_is_used() {
    let mut packages: Vec<(String, PathBuf)> = crates();
    packages.push(("diskmeter (root)".to_string(), root()));
    let mut unused = Vec::new();
    for (name, dir) in packages {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        let src = vec![dir.join("src")];
        let all = vec![
            dir.join("src"),
            dir.join("tests"),
            dir.join("benches"),
            dir.join("examples"),
        ];
        for dependency in dependencies(&manifest, "dependencies") {
            if !uses_crate(&src, &dependency) {
                unused.push(format!("{name}: {dependency}"));
            }
        }
        for dependency in dependencies(&manifest, "dev-dependencies") {
            if !uses_crate(&all, &dependency) {
                unused.push(format!("{name}: {dependency} (dev)"));
            }
        }
    }
    assert!(unused.is_empty(), "unused dependencies: {unused:#?}");
}

/// What `crates/cli` may depend on: the argument parser and its generators, error and
/// serialisation glue, the terminal's progress bar and table, and the product crates whose
/// functions a command calls. A crate that runs IO, computes statistics or talks to SQLite
/// (`diskmeter-runner`, `diskmeter-engine`, `diskmeter-stats`, `rusqlite`, ...) is reached
/// through the crate that owns the concept, never from the CLI.
const CLI_DEPENDENCIES: &[&str] = &[
    // Parsing the command line, its completions and man page.
    "clap",
    "clap_complete",
    "clap_mangen",
    // Errors at the edge, JSON out.
    "anyhow",
    "thiserror",
    "serde",
    "serde_json",
    // Rendering on the terminal: the live bar.
    "indicatif",
    // The product crates a command calls.
    "diskmeter-units",
    "diskmeter-workload",
    "diskmeter-jobfile",
    "diskmeter-orchestrator",
    "diskmeter-history",
    "diskmeter-capture",
    "diskmeter-analysis",
    "diskmeter-plan",
    "diskmeter-suites",
    "diskmeter-emulate",
    "diskmeter-k8s",
    "diskmeter-cluster",
    "diskmeter-report",
    "diskmeter-views",
    "diskmeter-charts",
    "diskmeter-html",
    "diskmeter-dashboard",
];

/// Lines of `crates/cli` (sources and their unit tests): issue 29 brings it to 4,000 at
/// most, with every command it had.
const CLI_MAX_LINES: usize = 4_000;

#[test]
fn the_cli_parses_builds_steps_and_renders() {
    let manifest = std::fs::read_to_string(root().join("crates/cli/Cargo.toml")).unwrap();
    let others: Vec<String> = dependencies(&manifest, "dependencies")
        .into_iter()
        .filter(|d| !CLI_DEPENDENCIES.contains(&d.as_str()))
        .collect();
    assert!(
        others.is_empty(),
        "crates/cli depends on {others:?}: logic belongs in the crate that owns it"
    );
    // Only the orchestrator starts what measures: the workers, the counter sampler of
    // /proc/diskstats, the block tracer, the stop signal. Each is named as the code calls
    // it, with the module a file must name for the call to be that one (the runner has
    // samplers of offsets of its own); the crate that defines it is left out.
    for (call, module, defined_in) in [
        (
            "diskmeter_runner::execute(",
            "diskmeter_runner",
            "crates/runner/",
        ),
        (
            "Sampler::new(",
            "diskmeter_capture::sampler",
            "crates/capture/",
        ),
        (
            "TraceSession::start(",
            "diskmeter_capture::trace",
            "crates/capture/",
        ),
        ("stop_flag(", "signals", "crates/orchestrator/"),
    ] {
        let callers: Vec<String> = files_calling(call)
            .into_iter()
            .filter(|f| !f.starts_with(defined_in) && !f.starts_with("crates/orchestrator/"))
            .filter(|f| {
                let text = std::fs::read_to_string(root().join(f)).unwrap_or_default();
                code_of(&text).contains(module)
            })
            .collect();
        assert!(
            callers.is_empty(),
            "{call} outside the orchestrator: {callers:?}"
        );
    }
    let lines: usize = rust_files(&root().join("crates/cli/src"))
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .count()
        })
        .sum();
    println!("crates/cli: {lines} lines (at most {CLI_MAX_LINES})");
    assert!(
        lines <= CLI_MAX_LINES,
        "crates/cli has {lines} lines, more than {CLI_MAX_LINES}: what decides, computes or \
         renders belongs in the crate that owns it (the CLI parses, builds steps and renders)"
    );
}

/// Every `.rs` file of the product and its tests: `src/`, `tests/` and each crate (its
/// `src/`, `tests/` and benches).
fn every_rust_file() -> Vec<PathBuf> {
    let mut files = rust_files(&root().join("src"));
    files.extend(rust_files(&root().join("tests")));
    for (_, dir) in crates() {
        files.extend(rust_files(&dir));
    }
    files
}

/// Product code of `file`: comments dropped, and nothing from the first `#[cfg(test)]` on;
/// empty for a test file (`tests/`, `*tests.rs`), whose fixtures are not parsers.
fn product_code(file: &Path) -> String {
    let name = relative(file);
    if name.starts_with("tests/") || name.contains("/tests/") || name.ends_with("tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(file).unwrap_or_default();
    code_of(text.split("#[cfg(test)]").next().unwrap_or(""))
}

/// Issue 29: one home per concept. The terminal table crate (comfy-table) is used by the
/// one table renderer only; /proc/meminfo is parsed by the capture crate's procfs module
/// only; KIB, MIB and GIB are defined in crates/units only (every other file, tests
/// included, uses `diskmeter_units::{KIB, MIB, GIB, *_F64}`).
#[test]
fn each_concept_has_one_home() {
    const TABLE_HOME: &str = "crates/views/src/text.rs";
    const PROCFS_HOME: &str = "crates/capture/src/procfs/";
    const UNITS_HOME: &str = "crates/units/src/constants.rs";
    let meminfo_needles = [
        "\"/proc/meminfo\"",
        "\"meminfo\"",
        "\"MemTotal\"",
        "\"MemTotal:\"",
        "\"MemAvailable\"",
        "\"MemAvailable:\"",
    ];
    let mut strays = Vec::new();
    for file in every_rust_file() {
        let name = relative(&file);
        let product = product_code(&file);
        if product.contains("comfy_table") && name != TABLE_HOME {
            strays.push(format!("{name}: comfy_table outside {TABLE_HOME}"));
        }
        if meminfo_needles.iter().any(|n| product.contains(n)) && !name.starts_with(PROCFS_HOME) {
            strays.push(format!("{name}: reads /proc/meminfo outside {PROCFS_HOME}"));
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap_or_default());
        for unit in ["KIB", "MIB", "GIB"] {
            if code.contains(&format!("const {unit}:")) && name != UNITS_HOME {
                strays.push(format!("{name}: const {unit} outside {UNITS_HOME}"));
            }
        }
    }
    for (crate_name, dir) in crates() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if dependencies(&manifest, "dependencies")
            .iter()
            .any(|d| d == "comfy-table")
            && crate_name != "views"
        {
            strays.push(format!(
                "crates/{crate_name}/Cargo.toml: depends on comfy-table"
            ));
        }
    }
    assert!(strays.is_empty(), "{strays:#?}");
}
