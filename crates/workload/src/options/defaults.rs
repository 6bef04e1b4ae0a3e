//! diskmeter's default job, made from the option rows: each row's default (the text `--help`
//! prints as `[default: ...]`) applied to [`JobSpec::blank`], so a default is written once,
//! in its row.

use super::all_options;
use crate::apply::apply_def;
use crate::JobSpec;
use std::sync::OnceLock;

/// The job [`JobSpec::default`] clones: built once, on first use.
pub(crate) fn default_job() -> &'static JobSpec {
    static DEFAULT: OnceLock<JobSpec> = OnceLock::new();
    DEFAULT.get_or_init(|| {
        let mut spec = JobSpec::blank();
        for def in all_options().filter(|def| !def.default.is_empty()) {
            // Read strictly, as diskmeter writes values; a row whose default its own parser
            // refuses is a defect of the table, which `every_default_is_the_default_job`
            // keeps out.
            if let Err(error) = apply_def(&mut spec, def, def.name, Some(def.default), false) {
                unreachable!("the option table's default {}: {error}", def.name);
            }
        }
        // fio remembers that `verify` was given, even as its default; a default is not given.
        spec.verify.kind_given = false;
        spec
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::with;
    use super::super::{all_options, find_option, value};
    use crate::JobSpec;

    #[test]
    fn every_default_is_the_default_job() {
        for def in all_options().filter(|def| !def.default.is_empty()) {
            let mut spec = with(&[(def.name, Some(def.default))]);
            // fio remembers that `verify` was given, even as its default (it then keeps a
            // later verify_pattern from implying verify=pattern); nothing else differs.
            spec.verify.kind_given = false;
            assert_eq!(spec, JobSpec::default(), "{}={}", def.name, def.default);
        }
    }

    /// Issue 29: a default is written once, in its row. `JobSpec::default()` is every row's
    /// default applied to a blank job, and each row's shower finds its own default there (compared
    /// as parsed values: the row may write `0` where the shower prints `0s`).
    #[test]
    fn every_rows_default_is_the_default_jobs_field() {
        let defaults = JobSpec::default();
        let mut checked = 0;
        let mut unset = Vec::new();
        for def in all_options().filter(|def| !def.default.is_empty()) {
            let Some(show) = def.show else { continue };
            let Some(shown) = show(&defaults) else {
                unset.push(def.name);
                continue;
            };
            let parse =
                |text: &str| value::parse_value(def.kind, Some(text), defaults.kb_base, None);
            assert_eq!(
                parse(&shown),
                parse(def.default),
                "{}: shown {shown}",
                def.name
            );
            checked += 1;
        }
        assert!(checked > 100, "only {checked} rows have a default");
        // fio options kept for compatibility that record only what was written (`CompatOptions`):
        // unset until given, and their default, applied, changes nothing (the test above).
        assert_eq!(
            unset,
            [
                "random_generator",
                "gtod_reduce",
                "disable_lat",
                "disable_clat",
                "disable_slat",
                "disable_bw_measurement",
                "stats",
                "significant_figures",
                "unified_rw_reporting",
                "bwavgtime",
                "iopsavgtime",
                "disk_util",
                "unique_filename",
                "unit_base",
            ]
        );
        // The groups whose Default is derived (every field zero or unset) agree with the rows.
        assert_eq!(defaults.trim, crate::trim::TrimOptions::default());
        assert_eq!(defaults.compat, crate::compat::CompatOptions::default());
    }

    #[test]
    fn options_without_a_default_are_unset_in_the_default_job() {
        // The first three groups' are listed; every group's are checked below.
        let core: Vec<&str> = [
            super::super::rows_job::ROWS,
            super::super::rows_run::ROWS,
            super::super::rows_log::ROWS,
        ]
        .iter()
        .flat_map(|rows| rows.iter())
        .filter(|def| def.default.is_empty())
        .map(|def| def.name)
        .collect();
        assert_eq!(
            core,
            [
                "filename",
                "directory",
                "size",
                "io_size",
                "bsrange",
                "bssplit",
                "blockalign",
                "runtime",
                "rate",
                "rate_iops",
                "cpus_allowed",
                "rate_min",
                "filesize",
                "buffer_compress_percentage",
                "write_bw_log",
                "write_iops_log",
                "write_lat_log",
                "read_iolog",
                "write_iolog",
                "replay_redirect",
                "replay_skip",
            ]
        );
        let defaults = JobSpec::default();
        let unset = all_options()
            .filter(|def| def.default.is_empty())
            .map(|def| def.name);
        for name in unset {
            let show = find_option(name).and_then(|def| def.show).unwrap();
            assert_eq!(show(&defaults), None, "{name}");
        }
    }
}
