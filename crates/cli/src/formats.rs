//! `--output-format` for the commands that print results (`run`, `replay`, `merge`) and
//! `export --format`: diskmeter's own formats and fio's, under fio's names, alone or as a
//! comma-separated list (fio's `--output-format=normal,json`).
//!
//! `json` is diskmeter's schema (it was first); fio's JSON is `fio-json`, fio's json+ is
//! `json+` (fio's name: no diskmeter format has it), fio's terse lines are `terse`.
//!
//! A list prints as fio 3.33 prints one, whatever the order given: terse first, then fio's
//! JSON document, then the human summary; each format once, and `json+` with `fio-json` as
//! one json+ document (fio's formats are a bit set: json+ is JSON with the bins). diskmeter's
//! own `json` comes after fio's JSON and before the summary.

use clap::{Arg, ArgMatches};
use diskmeter_report::{RunResult, TerseVersion};

/// One output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// The human summary.
    Normal,
    /// diskmeter's result schema.
    Json,
    /// fio 3.x's JSON.
    FioJson,
    /// fio's json+ (fio's JSON with the latency bins).
    FioJsonPlus,
    /// fio's terse (semicolon-separated) lines.
    Terse,
    /// `export`'s CSV.
    Csv,
}

/// The names `run`, `replay` and `merge` accept.
pub const RESULT_FORMATS: &[&str] = &["normal", "json", "fio-json", "json+", "terse"];

impl OutputFormat {
    fn from_name(name: &str) -> Option<OutputFormat> {
        Some(match name {
            "normal" => OutputFormat::Normal,
            "json" => OutputFormat::Json,
            "fio-json" => OutputFormat::FioJson,
            "json+" => OutputFormat::FioJsonPlus,
            "terse" => OutputFormat::Terse,
            "csv" => OutputFormat::Csv,
            _ => return None,
        })
    }
}

/// A clap value parser for a comma-separated list of the formats in `allowed`: checks the
/// list and keeps its text (read back with [`formats_of`]); clap lists `allowed` as the
/// possible values in `--help` and when the option comes without a value.
pub fn list_parser(allowed: &'static [&'static str]) -> FormatList {
    FormatList { allowed }
}

/// See [`list_parser`].
#[derive(Clone)]
pub struct FormatList {
    allowed: &'static [&'static str],
}

impl FormatList {
    fn check(&self, text: &str) -> Result<String, String> {
        for name in text.split(',').map(str::trim) {
            if !self.allowed.contains(&name) {
                return Err(format!(
                    "'{name}' is not an output format; one of {} or a comma-separated list of \
                     them (e.g. normal,fio-json)",
                    self.allowed.join(", ")
                ));
            }
        }
        Ok(text.to_string())
    }
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
        self.check(&text).map_err(|reason| {
            let arg = arg.map_or_else(|| "--output-format".to_string(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{arg}': {reason}\n"),
            )
            .with_cmd(command)
        })
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

/// The formats of the checked list in `matches`' argument `id`, in the order they print
/// (see the module docs).
pub fn formats_of(matches: &ArgMatches, id: &str) -> Vec<OutputFormat> {
    let text = matches
        .get_one::<String>(id)
        .map_or("normal", String::as_str);
    print_order(text)
}

/// The formats of a checked list, in the order they print, each once.
fn print_order(text: &str) -> Vec<OutputFormat> {
    let asked: Vec<OutputFormat> = text
        .split(',')
        .filter_map(|name| OutputFormat::from_name(name.trim()))
        .collect();
    let plus = asked.contains(&OutputFormat::FioJsonPlus);
    [
        OutputFormat::Terse,
        OutputFormat::FioJsonPlus,
        OutputFormat::FioJson,
        OutputFormat::Json,
        OutputFormat::Csv,
        OutputFormat::Normal,
    ]
    .into_iter()
    .filter(|f| asked.contains(f) && !(plus && *f == OutputFormat::FioJson))
    .collect()
}

/// The texts of several formats one after the other, each starting on a line of its own
/// (one format alone is written as it is).
pub fn join(parts: Vec<String>) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&part);
    }
    out
}

/// `--terse-version` (fio's: 2 to 5, default 3).
pub fn terse_version_arg() -> Arg {
    Arg::new("terse-version")
        .long("terse-version")
        .value_name("N")
        .value_parser(clap::value_parser!(u32).range(2..=5))
        .default_value("3")
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

/// The text of one of fio's formats for `results` (several steps: fio-json and json+ give an
/// array of documents, terse one line per job of every step). `None` for diskmeter's own
/// formats, which each command renders itself.
pub fn render_fio(
    format: OutputFormat,
    results: &[&RunResult],
    terse: TerseVersion,
) -> anyhow::Result<Option<String>> {
    let document: fn(&RunResult) -> serde_json::Value = match format {
        OutputFormat::FioJson => diskmeter_report::to_fio_json,
        OutputFormat::FioJsonPlus => diskmeter_report::to_fio_json_plus,
        OutputFormat::Terse => {
            let lines = results
                .iter()
                .map(|r| diskmeter_report::to_fio_terse(r, terse))
                .collect();
            return Ok(Some(lines));
        }
        _ => return Ok(None),
    };
    let mut docs: Vec<serde_json::Value> = results.iter().map(|r| document(r)).collect();
    let value = if docs.len() == 1 {
        docs.remove(0)
    } else {
        serde_json::Value::Array(docs)
    };
    Ok(Some(serde_json::to_string_pretty(&value)? + "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_checked_and_kept_in_order() {
        let parse = |text: &str| list_parser(RESULT_FORMATS).check(text);
        assert_eq!(parse("normal,json+").unwrap(), "normal,json+");
        assert!(parse("terse, fio-json").is_ok());
        let error = parse("normal,jsonplus").unwrap_err();
        assert!(
            error.contains("'jsonplus' is not an output format"),
            "{error}"
        );
        assert!(parse("").is_err());
    }

    #[test]
    fn a_list_prints_in_fios_order_each_format_once() {
        // fio 3.33: `--output-format=normal,json` and `json,normal` both print the JSON
        // first; `terse,normal,json` prints terse, JSON, normal; `json+,json` one json+
        // document; `json,json` one document.
        use OutputFormat::*;
        assert_eq!(print_order("normal,fio-json"), [FioJson, Normal]);
        assert_eq!(print_order("normal,json,terse"), [Terse, Json, Normal]);
        assert_eq!(print_order("fio-json,json+"), [FioJsonPlus]);
        assert_eq!(print_order("terse,terse"), [Terse]);
        assert_eq!(print_order("json,fio-json"), [FioJson, Json]);
    }
}
