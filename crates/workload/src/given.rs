//! The options as the user typed them, kept beside the resolved job for fio's output contract.
//!
//! fio's JSON lists under `"job options"` exactly what was set for a job (option name, value
//! as typed, in order, defaults included when typed) and under `"global options"` what was set
//! globally, and omits the latter when nothing was. Consumers of fio's JSON select result files
//! on those keys (`rw`, `iodepth`, `numjobs`), so diskmeter keeps them as given rather than
//! re-deriving them from the resolved [`crate::JobSpec`].
//!
//! fio's rules (`parse.c` `add_to_dump_list`, `stat.c` `json_add_job_opts`), checked against
//! fio 3.33:
//! * the name is the option's own name (`readwrite=` is listed as `rw`);
//! * a flag given without a value (`--time_based`, `stonewall`) is not listed; with one
//!   (`time_based=1`) it is;
//! * on the command line `--name=x` is listed as the job's first option, and
//!   `--name=global` as a global option; a job file's section names are not listed;
//! * options before the first `--name` and those of `[global]` sections are global.

use serde::{Deserialize, Serialize};

/// Options as typed, in order: (fio's option name, value as written).
pub type TypedOptions = Vec<(String, String)>;

/// What was set for one job and for the run as a whole, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenOptions {
    /// The job's own options in the order given: (fio's option name, value as typed).
    pub job: TypedOptions,
    /// The run's global options in the order given (the same list in every job of a run).
    pub global: TypedOptions,
}

/// fio's own name of `name` (an alias resolves to its option), or `name` for an option
/// diskmeter does not know.
pub fn canonical_name(name: &str) -> String {
    crate::find_option(name)
        .map_or(name, |def| def.name)
        .to_string()
}

/// `(name, value)` as fio lists it, or `None` for a flag given without a value.
pub fn listed(name: &str, value: Option<&str>) -> Option<(String, String)> {
    value.map(|v| (canonical_name(name), v.to_string()))
}

/// The given options of each job an fio-style command line describes, in the order
/// [`crate::jobs_from_options`] returns the jobs (one job with no options of its own when
/// no `--name` is given).
pub fn given_from_options(options: &[(String, Option<String>)]) -> Vec<GivenOptions> {
    let mut global = Vec::new();
    let mut jobs: Vec<TypedOptions> = Vec::new();
    let mut in_job = false;
    for (name, value) in options {
        if name == "name" {
            let is_global = value.as_deref().map(str::trim) == Some("global");
            in_job = !is_global;
            let entry = listed(name, value.as_deref());
            if is_global {
                global.extend(entry);
            } else {
                jobs.push(entry.into_iter().collect());
            }
            continue;
        }
        let Some(entry) = listed(name, value.as_deref()) else {
            continue;
        };
        match jobs.last_mut() {
            Some(job) if in_job => job.push(entry),
            _ => global.push(entry),
        }
    }
    if jobs.is_empty() && !options.is_empty() {
        jobs.push(Vec::new());
    }
    jobs.into_iter()
        .map(|job| GivenOptions {
            job,
            global: global.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(list: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
        list.iter()
            .map(|(name, value)| (name.to_string(), value.map(str::to_string)))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_plain_command_line_lists_every_option_as_typed_under_the_job() {
        // fio 3.33: `fio --name=x --ioengine=null --rw=randread --size=1m --numjobs=1
        // --runtime=1 --time_based` prints no "global options" and these job options.
        let given = given_from_options(&options(&[
            ("name", Some("x")),
            ("ioengine", Some("null")),
            ("readwrite", Some("randread")),
            ("size", Some("1m")),
            ("numjobs", Some("1")),
            ("runtime", Some("1")),
            ("time_based", None),
        ]));
        assert_eq!(given.len(), 1);
        assert_eq!(
            given[0].job,
            pairs(&[
                ("name", "x"),
                ("ioengine", "null"),
                ("rw", "randread"),
                ("size", "1m"),
                ("numjobs", "1"),
                ("runtime", "1"),
            ])
        );
        assert!(given[0].global.is_empty());
    }

    #[test]
    fn options_before_the_first_name_and_under_name_global_are_global() {
        let given = given_from_options(&options(&[
            ("ioengine", Some("null")),
            ("name", Some("global")),
            ("size", Some("1m")),
            ("name", Some("a")),
            ("rw", Some("read")),
            ("name", Some("b")),
            ("time_based", Some("1")),
        ]));
        assert_eq!(given.len(), 2);
        let global = pairs(&[("ioengine", "null"), ("name", "global"), ("size", "1m")]);
        assert_eq!(given[0].global, global);
        assert_eq!(given[1].global, global);
        assert_eq!(given[0].job, pairs(&[("name", "a"), ("rw", "read")]));
        assert_eq!(given[1].job, pairs(&[("name", "b"), ("time_based", "1")]));
    }

    #[test]
    fn no_name_gives_one_job_with_only_global_options() {
        let given = given_from_options(&options(&[("rw", Some("write"))]));
        assert_eq!(given.len(), 1);
        assert!(given[0].job.is_empty());
        assert_eq!(given[0].global, pairs(&[("rw", "write")]));
        assert!(given_from_options(&[]).is_empty());
    }
}
