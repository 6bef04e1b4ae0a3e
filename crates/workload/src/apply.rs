//! Applying one `name=value` option to a job, and the error that names what went wrong.

use crate::options::value::{parse_value, ValueError};
use crate::options::{find_option, suggest_option, InvalidValue, OptionDef, Range};
use crate::JobSpec;
use diskmeter_units::{parse_int_as_fio, FioValue, UnitError};
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

/// Applies fio option `name` (or an alias) with `value` to `spec`, reading the value as
/// fio 3.33 reads it.
///
/// `value` is `None` for a bare option (`--time_based`), which only flags accept. Sizes and
/// counts are read under the job's current `kb_base`, so `kb_base=1000` affects the options
/// applied after it, as on fio's command line. A value fio reads other than written
/// (`runtime=30sec`: 30 us) is read as fio reads it, and a note saying so is added to
/// `spec.compat.value_readings` (`runtime=30sec: read as fio 3.33 reads it, ...`) for the
/// front-end to warn with. On error `spec` is unchanged.
pub fn apply_option(
    spec: &mut JobSpec,
    name: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let def = find(name)?;
    apply_def(spec, def, name, value, true)
}

/// [`apply_option`] with diskmeter's strict reading, for values a front-end wrote itself
/// (Iometer's `runtime=1500ns`): `ns` is nanoseconds, and the forms fio reads other than
/// written are refused rather than read as fio reads them.
pub fn apply_option_exact(
    spec: &mut JobSpec,
    name: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let def = find(name)?;
    apply_def(spec, def, name, value, false)
}

fn find(name: &str) -> Result<&'static OptionDef, OptionError> {
    find_option(name).ok_or_else(|| OptionError::Unknown {
        name: name.to_string(),
        suggestion: suggest_option(name),
    })
}

/// [`apply_option`] with the row already found: parses `value` by the row's kind (as fio
/// reads it when `as_fio`), checks it against the row's limits, and stores it with the row's
/// setter.
pub(crate) fn apply_def(
    spec: &mut JobSpec,
    def: &OptionDef,
    name: &str,
    value: Option<&str>,
    as_fio: bool,
) -> Result<(), OptionError> {
    let written = || value.unwrap_or("").to_string();
    let invalid = |reason: InvalidValue| OptionError::Invalid {
        option: name.to_string(),
        value: written(),
        reason: Box::new(reason),
    };
    let mut found = Vec::new();
    let notes = as_fio.then_some(&mut found);
    let parsed =
        parse_value(def.kind, value, spec.kb_base, notes).map_err(|error| match error {
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
        if matches!(limits.range, Range::Percent { whole: true, .. }) {
            if text.trim().ends_with('%') {
                return whole_percent_sign(spec, def, name, text.trim(), as_fio);
            }
            // An int to fio: `rwmixread=33.3` is 33 there.
            if let Some(FioValue {
                value: whole,
                note: Some(note),
            }) = parse_int_as_fio(text, spec.kb_base).ok().filter(|_| as_fio)
            {
                apply_def(spec, def, name, Some(&whole.to_string()), false)?;
                spec.compat
                    .value_readings
                    .push(format!("{name}={}: {note}", written()));
                return Ok(());
            }
        }
    }
    if let Some(limits) = def.limits {
        limits.check(&parsed).map_err(|e| invalid(e.into()))?;
    }
    // Setters check before they store, so a refused value leaves the job as it was.
    let readings = spec.compat.value_readings.len();
    let stored = (def.set)(spec, parsed);
    // A setter that reads its own text (`bssplit`, `rw=randread:4k`) adds its notes itself.
    let own: Vec<String> = spec.compat.value_readings.drain(readings..).collect();
    stored.map_err(invalid)?;
    spec.compat.value_readings.extend(
        found
            .into_iter()
            .chain(own)
            .map(|note| format!("{name}={}: {note}", written())),
    );
    Ok(())
}

/// A '%' on one of fio's whole percentages (`rwmixread=50%`). These are ints to fio, read by
/// its size parser, where '%' turns the number into its share-of-a-file marker, a value past
/// 100: under fio 3.33 `rwmixread=50%` and `rwmixwrite=50%` both do only reads, and
/// `percentage_random=30%` only random offsets (measured with fio's iolog), so diskmeter does
/// too, with a note. For `trim_percentage` fio's outcome is not measured, so the '%' is
/// refused there.
fn whole_percent_sign(
    spec: &mut JobSpec,
    def: &OptionDef,
    name: &str,
    text: &str,
    as_fio: bool,
) -> Result<(), OptionError> {
    let number = text.trim_end_matches('%');
    let fios = match def.name {
        "rwmixread" | "rwmixwrite" => Some(("rwmixread", "only reads")),
        "percentage_random" => Some(("percentage_random", "only random offsets")),
        _ => None,
    };
    if let Some((option, outcome)) = fios.filter(|_| as_fio) {
        let before = spec.compat.value_readings.len();
        apply_def(spec, find(option)?, option, Some("100"), false)?;
        spec.compat.value_readings.truncate(before);
        spec.compat.value_readings.push(format!(
            "{name}={text}: read as fio 3.33 reads it, {outcome} (fio's int parser takes \
             '%' as its share-of-a-file marker, a number past 100); write {number} for \
             {number} percent"
        ));
        return Ok(());
    }
    Err(OptionError::BadValue {
        option: name.to_string(),
        value: text.to_string(),
        source: Box::new(UnitError::Malformed {
            text: text.to_string(),
            what: "a percentage here",
            reason: format!(
                "write {number} without '%' (fio reads a '%' here as another number: \
                 rwmixread=50% does only reads under fio)"
            ),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_option_and_value() {
        let mut spec = JobSpec::default();
        let error = apply_option_exact(&mut spec, "bs", Some("4q")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "bs=4q: '4q' is not a size: unknown suffix 'q' (use k, m, g, t, p, optionally \
             followed by i and/or b: 4k, 4KiB, 1gb); fio would read it as 4"
        );
        let error = apply_option(&mut spec, "bs", Some("-4k")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "bs=-4k: '-4k' is not a size: negative values are not allowed"
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

    /// Issue 28: fio parses its whole percentages as ints, where `50%` is another number:
    /// `rwmixread=50%` and `rwmixwrite=50%` do only reads under fio 3.33, and so here, with
    /// a note; `rwmixread=33.3` is 33.
    #[test]
    fn whole_percentages_read_as_fios_ints() {
        let mut spec = JobSpec::default();
        apply_option(&mut spec, "rwmixwrite", Some("50%")).unwrap();
        assert_eq!(spec.rwmixread, 100);
        assert_eq!(
            spec.compat.value_readings,
            ["rwmixwrite=50%: read as fio 3.33 reads it, only reads (fio's int parser takes '%' \
              as its share-of-a-file marker, a number past 100); write 50 for 50 percent"]
        );
        apply_option(&mut spec, "rwmixread", Some("33.3")).unwrap();
        assert_eq!(spec.rwmixread, 33);
        assert!(spec.compat.value_readings[1].starts_with("rwmixread=33.3: read as fio"));
        let error = apply_option_exact(&mut spec, "rwmixread", Some("50%")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "rwmixread=50%: '50%' is not a percentage here: write 50 without '%' (fio reads a \
             '%' here as another number: rwmixread=50% does only reads under fio)"
        );
        apply_option(&mut spec, "percentage_random", Some("30%")).unwrap();
        assert_eq!(spec.percentage_random, 100);
        assert!(apply_option(&mut spec, "trim_percentage", Some("30%")).is_err());
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
        assert!(apply_option(&mut spec, "bs", Some("4k,-4")).is_err());
        assert!(apply_option(&mut spec, "rwmixread", Some("101")).is_err());
        assert!(apply_option(&mut spec, "rw", Some("randread:-4k")).is_err());
        assert!(apply_option(&mut spec, "numjobs", Some("5g")).is_err());
        assert_eq!(spec, before);
    }
}
