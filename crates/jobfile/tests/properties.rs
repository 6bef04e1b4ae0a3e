//! Parser properties (issue 3): random job files never panic, and resolve -> print -> parse
//! gives the same jobs.

use diskmeter_jobfile::fio::{parse, resolve, IncludeError, Sources, Unsupported};
use diskmeter_workload::{describe, JobSpec};
use proptest::prelude::*;

struct NoFiles;

impl Sources for NoFiles {
    fn include(&self, _from: &str, _path: &str) -> Result<(String, String), IncludeError> {
        Err(IncludeError::NotFound)
    }
    fn var(&self, name: &str) -> Option<String> {
        (name == "SIZE").then(|| "4m".to_string())
    }
    fn builtin(&self, name: &str) -> Option<u64> {
        (name == "ncpus").then_some(2)
    }
}

/// Valid options, so generated files resolve.
const GOOD: &[(&str, &[&str])] = &[
    (
        "rw",
        &["read", "write", "randread", "randwrite", "randrw", "rw"],
    ),
    ("bs", &["4k", "8k", "64k", "4k,64k", "1m"]),
    ("iodepth", &["1", "8", "32", "$ncpus"]),
    ("size", &["1m", "${SIZE}", "1g"]),
    ("numjobs", &["1", "2", "4"]),
    ("rwmixread", &["70", "30"]),
    ("ioengine", &["null", "psync", "io_uring", "libaio"]),
    ("direct", &["0", "1"]),
    ("runtime", &["1", "10s", "2m"]),
    ("time_based", &[""]),
    ("rate_iops", &["100", "1000,500"]),
    ("kb_base", &["1000", "1024"]),
    ("group_reporting", &[""]),
    ("norandommap", &[""]),
    ("rw", &["write:4k", "randread:8", "randrw:16"]),
    ("bsrange", &["4k-64k", "1k-4k,8k-16k"]),
    ("bssplit", &["4k/10:64k/90", "4k/50:8k/,64k/", "2k/:4k/"]),
    ("blockalign", &["512", "4k,8k"]),
    (
        "random_distribution",
        &["zipf:1.2", "pareto:0.2:0.5", "normal:5", "random"],
    ),
    ("fsync", &["0", "32"]),
    ("fdatasync", &["8"]),
    ("end_fsync", &["1"]),
    ("rate_min", &["1m", "1m,2m"]),
    ("filesize", &["1m", "1m-4m"]),
    ("buffer_compress_percentage", &["50"]),
    ("write_lat_log", &["lat", ""]),
    ("log_avg_msec", &["100"]),
];

fn option() -> impl Strategy<Value = String> {
    (0..GOOD.len(), 0usize..8).prop_map(|(i, j)| {
        let (key, values) = GOOD[i];
        match values[j % values.len()] {
            "" => key.to_string(),
            v => format!("{key}={v}"),
        }
    })
}

fn section() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("global".to_string()), "[a-z][a-z0-9_]{0,6}"],
        prop::collection::vec(option(), 0..6),
    )
        .prop_map(|(name, options)| format!("[{name}]\n{}\n", options.join("\n")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_text_never_panics(text in "(\\PC|\n|\\[|\\]|=|;|#|\\$|\\{|\\})*") {
        if let Ok(sections) = parse("r.fio", &text, &NoFiles) {
            let _ = resolve(&sections, &JobSpec::default(), Unsupported::Refuse);
            let _ = resolve(&sections, &JobSpec::default(), Unsupported::Warn);
        }
    }

    #[test]
    fn resolve_print_parse_gives_the_same_jobs(sections in prop::collection::vec(section(), 1..5)) {
        let text = sections.concat();
        let parsed = parse("r.fio", &text, &NoFiles).unwrap();
        let (jobs, _) = resolve(&parsed, &JobSpec::default(), Unsupported::Refuse).unwrap();
        let printed: String = jobs
            .iter()
            .map(|job| {
                let options: Vec<String> = describe(job)
                    .into_iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                format!("[{}]\n{}\n", job.name, options.join("\n"))
            })
            .collect();
        let reparsed = parse("printed.fio", &printed, &NoFiles).unwrap();
        let (again, _) = resolve(&reparsed, &JobSpec::default(), Unsupported::Refuse).unwrap();
        prop_assert_eq!(again, jobs, "printed as:\n{}", printed);
    }
}
