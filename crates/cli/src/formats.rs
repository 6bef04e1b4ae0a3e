//! `--output-format` for the commands that print results (`run`, `replay`, `merge`) and
//! `export --format`: diskmeter's own formats and fio's, under fio's names, alone or as a
//! comma-separated list (fio's `--output-format=normal,json`). Here only the flags and the
//! clap value parser; the formats, checking a list, the order a list prints in and fio's
//! texts are `diskmeter_report::output_format`'s.

use clap::{Arg, ArgMatches};
use diskmeter_report::output_format::check_list;
pub use diskmeter_report::output_format::{join, render_fio, OutputFormat, RESULT_FORMATS};
use diskmeter_report::TerseVersion;

/// A clap value parser for a comma-separated list of the formats in `allowed`: checks the
/// list and keeps its text (read back with `OutputFormat::print_order`); clap lists `allowed` as the
/// possible values in `--help` and when the option comes without a value.
pub fn list_parser(allowed: &'static [&'static str]) -> FormatList {
    FormatList { allowed }
}

/// See [`list_parser`].
#[derive(Clone)]
pub struct FormatList {
    allowed: &'static [&'static str],
}

impl clap::builder::TypedValueParser for FormatList {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value.to_string_lossy();
        check_list(&text, self.allowed).map_err(|reason| {
            let arg = arg.map_or_else(|| "--output-format".to_string(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{arg}': {reason}\n"),
            )
            .with_cmd(command)
        })?;
        Ok(text.into_owned())
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.allowed
                .iter()
                .map(|name| clap::builder::PossibleValue::new(*name)),
        ))
    }
}

/// `--terse-version` (fio's: 2 to 5, default 3).
pub fn terse_version_arg() -> Arg {
    Arg::new("terse-version")
        .long("terse-version")
        .value_name("N")
        .value_parser(clap::value_parser!(u32).range(2..=5))
        .default_value("3")
        .help_heading(diskmeter_views::help::OUTPUT)
        .help("Field list of --output-format=terse, as fio's --terse-version: 3 (default), 2, 4 (adds trims) or 5 (adds IOPS statistics)")
}

/// The `--terse-version` asked (3 where the command has no such flag).
pub fn terse_version(matches: &ArgMatches) -> TerseVersion {
    matches
        .try_get_one::<u32>("terse-version")
        .ok()
        .flatten()
        .and_then(|&n| TerseVersion::from_number(n))
        .unwrap_or(TerseVersion::V3)
}
