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
