//! The job-file parser's tests: the text format, includes, variables, inheritance and the
//! errors' locations.

use super::*;
use std::collections::HashMap;

/// Job files and variables held in memory.
#[derive(Default)]
pub(crate) struct Memory {
    pub files: HashMap<String, String>,
    pub vars: HashMap<String, String>,
}

impl Sources for Memory {
    fn include(&self, _from: &str, path: &str) -> Result<(String, String), IncludeError> {
        self.files
            .get(path)
            .map(|t| (path.to_string(), t.clone()))
            .ok_or(IncludeError::NotFound)
    }
    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
    fn builtin(&self, name: &str) -> Option<u64> {
        match name {
            "ncpus" => Some(2),
            "pagesize" => Some(4096),
            "mb_memory" => Some(24_000),
            _ => None,
        }
    }
}

fn jobs(text: &str) -> Vec<JobSpec> {
    let sections = parse("t.fio", text, &Memory::default()).unwrap();
    resolve(&sections, &JobSpec::default(), Unsupported::Refuse)
        .unwrap()
        .0
}

#[test]
fn globals_reach_only_the_jobs_after_them_and_duplicates_are_separate_jobs() {
    let j = jobs("[global]\nbs=4k\n[a]\n[global]\nbs=16k\n[b]\n[b]\niodepth=8\n");
    let names: Vec<&str> = j.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "b"]);
    assert_eq!(j[0].bs_bytes.read, 4096);
    assert_eq!(j[1].bs_bytes.read, 16384);
    assert_eq!((j[1].iodepth, j[2].iodepth), (1, 8));
}

#[test]
fn comments_flags_blanks_and_variables() {
    let mut m = Memory::default();
    m.vars.insert("SIZE".into(), "2m".into());
    let text = "# top\n; also\n[global]\n  rw = read ; trailing\nsize=${SIZE} # hash\niodepth=$ncpus\n[j]\ntime_based\nruntime=1\n";
    let sections = parse("t.fio", text, &m).unwrap();
    let (j, _) = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap();
    assert_eq!(j.len(), 1);
    assert_eq!(j[0].size_bytes, Some(2 << 20));
    assert_eq!(j[0].iodepth, 2);
    assert!(j[0].time_based);
    let line = &sections[0].options[0];
    assert_eq!(
        (line.key.as_str(), line.value.as_deref(), line.at.line),
        ("rw", Some("read"), 4)
    );
}

#[test]
fn include_inserts_lines_in_place() {
    let mut m = Memory::default();
    m.files.insert("inc.fio".into(), "bs=8k\n".into());
    let sections = parse("t.fio", "[global]\ninclude inc.fio\n[a]\n", &m).unwrap();
    assert_eq!(sections[0].options[0].at.file, "inc.fio");
    let (j, _) = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap();
    assert_eq!(j[0].bs_bytes.read, 8192);
    m.files
        .insert("loop.fio".into(), "include loop.fio\n".into());
    let e = parse("t.fio", "include loop.fio\n", &m).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(
        e[0].to_string(),
        "loop.fio:1: include loop.fio: an include loop (t.fio -> loop.fio -> loop.fio)"
    );
}

#[test]
fn a_file_that_includes_itself_several_times_is_a_loop_not_a_hang() {
    // Each of the three lines read the file again: 3^16 reads before the depth limit.
    let mut m = Memory::default();
    m.files
        .insert("bomb.fio".into(), "include bomb.fio\n".repeat(3));
    let e = parse("t.fio", "[a]\ninclude bomb.fio\n", &m).unwrap_err();
    assert_eq!(e.len(), 3, "one error per line of the first read");
    assert!(e.iter().all(|e| e.to_string().contains("an include loop")));
}

#[test]
fn includes_that_multiply_stop_at_the_include_cap() {
    // No loop, but every level reads the next one four times: 4^5 = 1024 reads.
    let mut m = Memory::default();
    for level in 0..5 {
        m.files.insert(
            format!("l{level}.fio"),
            format!("include l{}.fio\n", level + 1).repeat(4),
        );
    }
    m.files.insert("l5.fio".into(), "bs=4k\n".into());
    let e = parse("t.fio", "[a]\ninclude l0.fio\n", &m).unwrap_err();
    assert!(
        e.iter()
            .all(|e| e.to_string().contains("more than 256 includes")),
        "{}",
        e[0]
    );
}

#[test]
fn errors_name_file_line_and_option() {
    let m = Memory::default();
    let e = parse("t.fio", "[a]\nsize=${NOPE}\nbs=$nope\n[\nrw=read\n", &m).unwrap_err();
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert!(
        text[0].starts_with("t.fio:2: size: environment variable NOPE is not set"),
        "{text:?}"
    );
    assert!(text[1].starts_with("t.fio:3: bs:"), "{text:?}");
    assert!(text[2].starts_with("t.fio:4:"), "{text:?}");
    let e = parse("t.fio", "rw=read\n", &m).unwrap_err();
    assert!(
        e[0].to_string().contains("outside any [section]"),
        "{}",
        e[0]
    );

    let sections = parse(
        "t.fio",
        "[a]\niodpeth=4\ncgroup_weight=100\nblah=1\nbs=-4\n",
        &m,
    )
    .unwrap();
    let e = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap_err();
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 4, "{text:?}");
    assert!(
        text[0].starts_with("t.fio:2: iodpeth: unknown option 'iodpeth' (did you mean 'iodepth'?)"),
        "{text:?}"
    );
    assert!(
        text[1].starts_with("t.fio:3: cgroup_weight: fio option 'cgroup_weight' cannot apply"),
        "{text:?}"
    );
    assert!(text[2].contains("unknown option 'blah'"), "{text:?}");
    assert!(text[3].starts_with("t.fio:5: bs: bs=-4:"), "{text:?}");
}

#[test]
fn options_that_cannot_apply_are_refused_with_their_reason() {
    let m = Memory::default();
    let text = "[a]\nioengine=xnvme\ngpu_dev_id=0\nhostname=h\nnum_range=8\nuid=0\n";
    let sections = parse("t.fio", text, &m).unwrap();
    let e = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap_err();
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 5, "{text:?}");
    assert!(
        text[0].starts_with(
            "t.fio:2: ioengine: fio option 'ioengine' cannot apply in \
             diskmeter: fio's xnvme engine (a fio built with other libraries) is not one \
             diskmeter has"
        ),
        "{text:?}"
    );
    assert!(text[1].starts_with("t.fio:3: gpu_dev_id:") && text[1].contains("CUDA"));
    assert!(
        text[2].contains("net/netsplice/rdma/libhdfs engines"),
        "{text:?}"
    );
    assert!(text[3].contains("fio releases after 3.33"), "{text:?}");
    assert!(text[4].contains("thread of one process"), "{text:?}");
    let (_, warnings) = resolve(&sections[..], &JobSpec::default(), Unsupported::Warn)
        .map(|(jobs, w)| (jobs, w.len()))
        .unwrap();
    assert_eq!(warnings, 5);
}

#[test]
fn ignore_unsupported_turns_only_unsupported_options_into_warnings() {
    let m = Memory::default();
    let sections = parse("t.fio", "[a]\ncgroup_weight=100\ngpu_dev_id=0\nbs=8k\n", &m).unwrap();
    let (j, warnings) = resolve(&sections, &JobSpec::default(), Unsupported::Warn).unwrap();
    assert_eq!(j[0].bs_bytes.read, 8192);
    assert_eq!(warnings.len(), 2);
    let sections = parse("t.fio", "[a]\nbssplt=4k/100\n", &m).unwrap();
    let e = resolve(&sections, &JobSpec::default(), Unsupported::Warn).unwrap_err();
    assert!(
        e[0].to_string().contains("did you mean 'bssplit'"),
        "{}",
        e[0]
    );
}

#[test]
fn command_line_defaults_are_overridden_by_the_files_globals() {
    let m = Memory::default();
    let defaults = JobSpec {
        iodepth: 2,
        bs_bytes: diskmeter_workload::PerDirection::both(8192),
        ..JobSpec::default()
    };
    let sections = parse("t.fio", "[global]\nbs=4k\n[a]\n", &m).unwrap();
    let (j, _) = resolve(&sections, &defaults, Unsupported::Refuse).unwrap();
    assert_eq!((j[0].bs_bytes.read, j[0].iodepth), (4096, 2));
}

#[test]
fn given_options_list_globals_and_each_jobs_own_options_as_fio_prints_them() {
    // fio 3.33 on this file prints "global options" {"ioengine": "null", "size": "1m",
    // "iodepth": "2"} and job options {"rw": "read", "bs": "4k"} and {"rw": "write"}.
    let text = "[global]\nioengine=null\nsize=1m ; comment\n[a]\nrw=read\nbs=4k\n\
                [global]\niodepth=2\n[b]\nstonewall\nreadwrite=write\n";
    let sections = parse("t.fio", text, &Memory::default()).unwrap();
    let (global, jobs) = given_options(&sections);
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        global,
        pairs(&[("ioengine", "null"), ("size", "1m"), ("iodepth", "2")])
    );
    assert_eq!(
        jobs,
        vec![
            pairs(&[("rw", "read"), ("bs", "4k")]),
            pairs(&[("rw", "write")])
        ]
    );
}

/// Issue 28: a value fio reads other than written is read as fio reads it, with a warning
/// naming file, line, option and value, and the same line in the job's `--dry-run` notes.
#[test]
fn values_fio_reads_other_than_written_are_warnings() {
    let m = Memory::default();
    let sections = parse("t.fio", "[global]\nruntime=30sec\n[a]\nbs=4kfoo\n[b]\n", &m).unwrap();
    let (jobs, warnings) = resolve(&sections, &JobSpec::default(), Unsupported::Refuse).unwrap();
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(
        text[0].starts_with("t.fio:2: runtime=30sec: read as fio 3.33 reads it, 30us ("),
        "{text:?}"
    );
    assert!(text[1].starts_with("t.fio:4: bs=4kfoo: read as fio 3.33 reads it, 4096 ("));
    assert_eq!(jobs[0].runtime_ns, Some(30_000));
    assert_eq!(jobs[0].bs_bytes.read, 4096);
    // Each job has the notes of the values it runs with, the global's included.
    assert_eq!(jobs[0].compat.value_readings, text);
    assert_eq!(jobs[1].compat.value_readings, text[..1]);
}
