//! A job as fio would list it in its JSON "job options": name -> value strings.
//!
//! Used by `--dry-run` and the fio-compatible JSON. Values are written so that applying them
//! again (in order) rebuilds the same job: sizes with the largest exact suffix under the job's
//! `kb_base` (`4k`, `30g`), times with `s`/`ms`/`us`/`ns`, flags as `1`/`0`.

use crate::options::all_options;
use crate::JobSpec;

/// Options [`describe`] lists even at their defaults, because every reader wants them.
pub const ALWAYS_DESCRIBED: [&str; 5] = ["name", "rw", "bs", "iodepth", "ioengine"];

/// The job's options that differ from fio's defaults (plus [`ALWAYS_DESCRIBED`]), in
/// option-table order, as `(name, value)`.
///
/// `kb_base` comes before every size, so the list read back in order gives the same sizes.
pub fn describe(spec: &JobSpec) -> Vec<(String, String)> {
    describe_against(spec, &JobSpec::default())
}

/// The job's options that differ from `defaults` (plus [`ALWAYS_DESCRIBED`]), in
/// option-table order: what a job file must say for a job that starts from `defaults`
/// (`JobSpec::fio_job_file_default` for a job file) to be `spec` again.
pub fn describe_against(spec: &JobSpec, defaults: &JobSpec) -> Vec<(String, String)> {
    all_options()
        .filter_map(|def| {
            let show = def.show?;
            let value = show(spec)?;
            let always = ALWAYS_DESCRIBED.contains(&def.name);
            // Compare printed forms: equal text means applying it would change nothing.
            (always || show(defaults).as_ref() != Some(&value))
                .then(|| (def.name.to_string(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{apply_option, jobs_from_options, PerDirection, RwMode};

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    #[test]
    fn defaults_show_only_the_always_listed_options() {
        assert_eq!(
            describe(&JobSpec::default()),
            pairs(&[
                ("name", "job"),
                ("rw", "read"),
                ("bs", "4k"),
                ("iodepth", "1"),
                ("ioengine", "io_uring"),
            ])
        );
    }

    #[test]
    fn the_newcomer_default() {
        assert_eq!(
            describe(&JobSpec::newcomer_default()),
            pairs(&[
                ("name", "diskmeter-default"),
                ("size", "1g"),
                ("rw", "randread"),
                ("bs", "4k"),
                ("iodepth", "32"),
                ("runtime", "10s"),
                ("time_based", "1"),
                ("direct", "1"),
                ("ioengine", "io_uring"),
            ])
        );
    }

    #[test]
    fn the_published_mixed_iops_job() {
        // D8ds_v4 max mixed IOPS, writer section: 4k randwrite QD128, 4 jobs, 3200 IOPS each.
        let mut spec = JobSpec::default();
        for (name, value) in [
            ("name", "writers"),
            ("rw", "randwrite"),
            ("bs", "4k"),
            ("iodepth", "128"),
            ("numjobs", "4"),
            ("rate_iops", "3200"),
            ("direct", "1"),
            ("ioengine", "libaio"),
            ("size", "30g"),
            ("group_reporting", "1"),
        ] {
            apply_option(&mut spec, name, Some(value)).unwrap();
        }
        assert_eq!(
            describe(&spec),
            pairs(&[
                ("name", "writers"),
                ("size", "30g"),
                ("rw", "randwrite"),
                ("bs", "4k"),
                ("iodepth", "128"),
                ("numjobs", "4"),
                ("direct", "1"),
                ("ioengine", "libaio"),
                ("rate_iops", "3200"),
                ("group_reporting", "1"),
            ])
        );
    }

    #[test]
    fn pairs_and_caps_print_per_direction() {
        let spec = JobSpec {
            rw: RwMode::RandRw,
            bs_bytes: PerDirection {
                read: 4096,
                write: 65536,
            },
            rate_bytes_per_sec: PerDirection {
                read: None,
                write: Some(20 << 20),
            },
            ..JobSpec::default()
        };
        let described = describe(&spec);
        assert!(described.contains(&("bs".to_string(), "4k,64k".to_string())));
        assert!(described.contains(&("rate".to_string(), "0,20m".to_string())));
    }

    #[test]
    fn kb_base_1000_is_listed_before_sizes_and_reads_back() {
        let jobs = jobs_from_options(&[
            ("kb_base".to_string(), Some("1000".to_string())),
            ("size".to_string(), Some("1g".to_string())),
            ("bs".to_string(), Some("4KiB".to_string())),
        ])
        .unwrap();
        let described = describe(&jobs[0]);
        assert_eq!(described[1], ("kb_base".to_string(), "1000".to_string()));
        assert!(described.contains(&("size".to_string(), "1g".to_string())));
        assert!(described.contains(&("bs".to_string(), "4096".to_string())));
        let again: Vec<(String, Option<String>)> =
            described.into_iter().map(|(n, v)| (n, Some(v))).collect();
        assert_eq!(jobs_from_options(&again).unwrap(), jobs);
    }
}
