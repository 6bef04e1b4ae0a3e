//! Applying one `name=value` option to a job, and the error that names what went wrong.

use crate::options::value::{parse_value, ValueError};
use crate::options::{find_option, suggest_option, InvalidValue, OptionDef, Range};
use crate::JobSpec;
use diskmeter_units::UnitError;
use thiserror::Error;

/// Why an option could not be applied. Every message starts with the option as written.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum OptionError {
    /// No option has this name or alias.
    #[error("unknown option '{name}'{}", suggestion.map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    Unknown {
        /// The name as given.
        name: String,
        /// The nearest known name, when it looks like a typo of one.
        suggestion: Option<&'static str>,
    },

    /// The option needs a value and none was given (`--bs` alone).
    #[error("{option} needs a value (e.g. {option}={example})")]
    MissingValue {
        /// The option as written.
        option: String,
        /// An example value of the right kind.
        example: &'static str,
    },

    /// The value is not of the option's kind (a size, a time, ...).
    #[error("{option}={value}: {source}")]
    BadValue {
        /// The option as written.
        option: String,
        /// The value as written.
        value: String,
        /// What the units parser objected to (boxed to keep `Result`s small).
        #[source]
        source: Box<UnitError>,
    },

    /// The value has the right kind but can't be used for this option (outside its range,
    /// an empty name, ...).
    #[error("{option}={value}: {reason}")]
    Invalid {
        /// The option as written.
        option: String,
        /// The value as written.
        value: String,
        /// Why, and what to write instead (boxed to keep `Result`s small).
        #[source]
        reason: Box<InvalidValue>,
    },
}

/// Applies fio option `name` (or an alias) with `value` to `spec`.
///
/// `value` is `None` for a bare option (`--time_based`), which only flags accept. Sizes and
/// counts are read under the job's current `kb_base`, so `kb_base=1000` affects the options
/// applied after it, as on fio's command line. On error `spec` is unchanged.
pub fn apply_option(
    spec: &mut JobSpec,
    name: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let def = find_option(name).ok_or_else(|| OptionError::Unknown {
        name: name.to_string(),
        suggestion: suggest_option(name),
    })?;
    apply_def(spec, def, name, value)
}

/// [`apply_option`] with the row already found: parses `value` by the row's kind, checks it
/// against the row's limits, and stores it with the row's setter.
pub(crate) fn apply_def(
    spec: &mut JobSpec,
    def: &OptionDef,
    name: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let written = || value.unwrap_or("").to_string();
    let invalid = |reason: InvalidValue| OptionError::Invalid {
        option: name.to_string(),
        value: written(),
        reason: Box::new(reason),
    };
    let parsed = parse_value(def.kind, value, spec.kb_base).map_err(|error| match error {
        ValueError::Missing => OptionError::MissingValue {
            option: name.to_string(),
            example: def.kind.example(),
        },
        ValueError::Unit(source) => OptionError::BadValue {
            option: name.to_string(),
            value: written(),
            source: Box::new(source),
        },
        ValueError::Invalid(reason) => invalid(reason),
    })?;
    if let (Some(text), Some(limits)) = (value, def.limits) {
        if matches!(limits.range, Range::Percent { whole: true, .. }) && text.trim().ends_with('%')
        {
            // These are ints to fio, read by its size parser, where '%' turns the number into
            // its share-of-a-file marker: under fio `rwmixread=50%` does only reads.
            return Err(OptionError::BadValue {
                option: name.to_string(),
                value: written(),
                source: Box::new(UnitError::Malformed {
                    text: text.trim().to_string(),
                    what: "a percentage here",
                    reason: format!(
                        "write {} without '%' (fio reads a '%' here as another number: \
                         rwmixread=50% does only reads under fio)",
                        text.trim().trim_end_matches('%')
                    ),
                }),
            });
        }
    }
    if let Some(limits) = def.limits {
        limits.check(&parsed).map_err(|e| invalid(e.into()))?;
    }
    // Setters check before they store, so a refused value leaves the job as it was.
    (def.set)(spec, parsed).map_err(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_option_and_value() {
        let mut spec = JobSpec::default();
        let error = apply_option(&mut spec, "bs", Some("4q")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "bs=4q: '4q' is not a size: unknown suffix 'q' (use k, m, g, t, p, optionally \
             followed by i and/or b: 4k, 4KiB, 1gb); fio would read it as 4"
        );
        let error = apply_option(&mut spec, "blocksize", None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "blocksize needs a value (e.g. blocksize=4k or 4k,64k)"
        );
        let error = apply_option(&mut spec, "rw", Some("randomread")).unwrap_err();
        assert!(error
            .to_string()
            .starts_with("rw=randomread: use one of read, write"));
        assert!(error.to_string().ends_with("(did you mean 'randread'?)"));
    }

    /// Issue 28: fio parses its whole percentages as ints, where `50%` is another number
    /// (`rwmixread=50%` does only reads under fio 3.33), so the '%' is refused here.
    #[test]
    fn whole_percentages_take_no_percent_sign() {
        let mut spec = JobSpec::default();
        let error = apply_option(&mut spec, "rwmixread", Some("50%")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "rwmixread=50%: '50%' is not a percentage here: write 50 without '%' (fio reads a \
             '%' here as another number: rwmixread=50% does only reads under fio)"
        );
        assert!(apply_option(&mut spec, "percentage_random", Some("30%")).is_err());
        apply_option(&mut spec, "rwmixread", Some("70")).unwrap();
        assert_eq!(spec.rwmixread, 70);
        // A float-list percentile takes it, as fio's sscanf does.
        apply_option(&mut spec, "latency_percentile", Some("99.9%")).unwrap();
    }

    #[test]
    fn unknown_options_suggest_the_nearest_name() {
        let mut spec = JobSpec::default();
        assert_eq!(
            apply_option(&mut spec, "iodpeth", Some("4")).unwrap_err(),
            OptionError::Unknown {
                name: "iodpeth".to_string(),
                suggestion: Some("iodepth")
            }
        );
        assert_eq!(
            apply_option(&mut spec, "blocksiz", Some("4k"))
                .unwrap_err()
                .to_string(),
            "unknown option 'blocksiz' (did you mean 'blocksize'?)"
        );
        assert_eq!(
            apply_option(&mut spec, "xyzzy", Some("crc32c"))
                .unwrap_err()
                .to_string(),
            "unknown option 'xyzzy'"
        );
    }

    #[test]
    fn a_refused_value_leaves_the_job_unchanged() {
        let mut spec = JobSpec::default();
        let before = spec.clone();
        assert!(apply_option(&mut spec, "bs", Some("4k,4q")).is_err());
        assert!(apply_option(&mut spec, "rwmixread", Some("33.3")).is_err());
        assert!(apply_option(&mut spec, "numjobs", Some("5g")).is_err());
        assert_eq!(spec, before);
    }
}
