//! The integration tests that may run beside anything, with libtest's threads: pure
//! checks, null-engine runs, refusals before any IO, parsers, the history's SQLite, the
//! browsers, and real IO whose figures no test judges (a file's bytes, an exit code, a
//! log's columns). scripts/test runs this binary beside the crates' own tests and before
//! tests/alone, never beside it: several of its modules write to the
//! disk (SIGKILLed runs, loop devices, hundreds of history saves), which would move a
//! measured figure there.
//!
//! A module here asserts no measured rate, latency or cap; one that does belongs in
//! tests/alone.

#[path = "../common/mod.rs"]
mod common;
#[path = "../seed/mod.rs"]
mod seed;

mod architecture;
mod browser_helper;
mod capture_options;
mod completions_man;
mod concurrent_writers;
mod corpus;
mod crash;
mod ctrl_c;
mod curve;
mod dashboard;
mod diskspd;
mod diskspd_corpus;
mod diskspd_xml;
mod doc_commands;
mod faults;
mod faults_history;
mod files_options;
mod help;
mod hist_log;
mod icf;
mod intended_latency;
mod interrupts;
mod iolog_round_trip;
mod iometer;
mod jobfile;
mod jobfile_reading;
mod k8s;
mod live;
mod memory_guard;
mod memory_scale;
mod merge;
mod mpi;
mod output;
mod partial_data;
mod plan;
mod plan_clouds;
mod report;
mod requirements;
mod safety;
mod safety_matrix;
mod system_options;
mod trim_errors;
mod verify;
mod visual;
mod zbd;

/// The suite stays two binaries: a file directly in tests/ or another tests/*/main.rs would
/// be a test binary of its own, built and linked apart and run by nobody's rules.
#[test]
fn every_test_file_is_a_module_of_parallel_or_alone() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut strays = Vec::new();
    for entry in std::fs::read_dir(&tests).expect("read tests/") {
        let path = entry.expect("an entry of tests/").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let binary = path.join("main.rs").is_file();
        if (path.is_file() && name.ends_with(".rs"))
            || (binary && !["parallel", "alone"].contains(&name.as_ref()))
        {
            strays.push(name.into_owned());
        }
    }
    assert!(
        strays.is_empty(),
        "not in a binary of tests/*/main.rs: {strays:?}"
    );
}
