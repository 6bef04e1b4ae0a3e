//! The output formats of a result, by their command-line names: diskmeter's own (`normal`,
//! `json`, `csv`) and fio's (`fio-json`, `json+`, `terse`), the order a list of them prints
//! in (fio 3.33's: terse, then fio's JSON, then diskmeter's JSON, then the summary) and the
//! text of fio's formats for one or several steps. The CLI's `--output-format` and
//! `export --format` parse to these.
//!
//! `json` is diskmeter's schema (it was first); fio's JSON is `fio-json`, fio's json+ is
//! `json+` (fio's name: no diskmeter format has it), fio's terse lines are `terse`.
//!
//! A list prints as fio 3.33 prints one, whatever the order given: terse first, then fio's
//! JSON document, then the human summary; each format once, and `json+` with `fio-json` as
//! one json+ document (fio's formats are a bit set: json+ is JSON with the bins). diskmeter's
//! own `json` comes after fio's JSON and before the summary.

use crate::{RunResult, TerseVersion};

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

/// A name in a list of formats that is not one of those the option takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{name}' is not an output format; one of {} or a comma-separated list of them (e.g. normal,fio-json)", allowed.join(", "))]
pub struct NotAFormat {
    /// The name as given.
    pub name: String,
    /// The names the option takes.
    pub allowed: Vec<String>,
}

/// Checks a comma-separated list of formats (blanks around names allowed) against the
/// names in `allowed`.
pub fn check_list(text: &str, allowed: &[&str]) -> Result<(), NotAFormat> {
    match text
        .split(',')
        .map(str::trim)
        .find(|name| !allowed.contains(name))
    {
        Some(name) => Err(NotAFormat {
            name: name.to_string(),
            allowed: allowed.iter().map(ToString::to_string).collect(),
        }),
        None => Ok(()),
    }
}

impl OutputFormat {
    /// The format a name given to `--output-format` or `--format` stands for.
    pub fn from_name(name: &str) -> Option<OutputFormat> {
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

    /// The formats of a checked list, in the order they print, each once.
    pub fn print_order(text: &str) -> Vec<OutputFormat> {
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

/// The text of one of fio's formats for `results` (several steps: fio-json and json+ give an
/// array of documents, terse one line per job of every step). `None` for diskmeter's own
/// formats, which each command renders itself.
pub fn render_fio(
    format: OutputFormat,
    results: &[&RunResult],
    terse: TerseVersion,
) -> Result<Option<String>, serde_json::Error> {
    let document: fn(&RunResult) -> serde_json::Value = match format {
        OutputFormat::FioJson => crate::to_fio_json,
        OutputFormat::FioJsonPlus => crate::to_fio_json_plus,
        OutputFormat::Terse => {
            let lines = results
                .iter()
                .map(|r| crate::to_fio_terse(r, terse))
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

/// Named steps' results in one format, as `merge` prints them: one result alone as `run`
/// prints it; several as `{"steps": [{name, result}]}` in JSON, each under a
/// `=== step: NAME ===` line in the summary, and fio's formats as [`render_fio`] gives them.
pub fn render_steps(
    format: OutputFormat,
    names: &[String],
    merged: &[RunResult],
    terse: TerseVersion,
) -> Result<String, serde_json::Error> {
    let single = merged.len() == 1;
    Ok(match format {
        OutputFormat::Json if single => crate::to_json(&merged[0]),
        OutputFormat::Json => {
            let steps: Vec<serde_json::Value> = names
                .iter()
                .zip(merged)
                .map(|(name, result)| {
                    Ok(serde_json::json!({"name": name, "result": serde_json::to_value(result)?}))
                })
                .collect::<Result<_, serde_json::Error>>()?;
            serde_json::to_string_pretty(&serde_json::json!({ "steps": steps }))? + "\n"
        }
        OutputFormat::Normal | OutputFormat::Csv => {
            let mut out = String::new();
            for (name, result) in names.iter().zip(merged) {
                if !single {
                    out.push_str(&format!("=== step: {name} ===\n"));
                }
                out.push_str(&crate::render_terminal(result));
                if !single {
                    out.push('\n');
                }
            }
            out
        }
        fio => {
            let results: Vec<&RunResult> = merged.iter().collect();
            render_fio(fio, &results, terse)?.unwrap_or_default()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_checked() {
        assert!(check_list("normal,json+", RESULT_FORMATS).is_ok());
        assert!(check_list("terse, fio-json", RESULT_FORMATS).is_ok());
        let error = check_list("normal,jsonplus", RESULT_FORMATS).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("'jsonplus' is not an output format"),
            "{error}"
        );
        assert!(check_list("", RESULT_FORMATS).is_err());
    }

    #[test]
    fn a_list_prints_in_fios_order_each_format_once() {
        // fio 3.33: `--output-format=normal,json` and `json,normal` both print the JSON
        // first; `terse,normal,json` prints terse, JSON, normal; `json+,json` one json+
        // document; `json,json` one document.
        use OutputFormat::*;
        assert_eq!(
            OutputFormat::print_order("normal,fio-json"),
            [FioJson, Normal]
        );
        assert_eq!(
            OutputFormat::print_order("normal,json,terse"),
            [Terse, Json, Normal]
        );
        assert_eq!(OutputFormat::print_order("fio-json,json+"), [FioJsonPlus]);
        assert_eq!(OutputFormat::print_order("terse,terse"), [Terse]);
        assert_eq!(OutputFormat::print_order("json,fio-json"), [FioJson, Json]);
    }
}
