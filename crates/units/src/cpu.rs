//! CPU lists as fio's `cpus_allowed` writes them: `0-3,6,8-9`.
//!
//! fio's HOWTO (`cpus_allowed`): "a comma-separated list of CPUs. A range can be specified
//! with a '-'". Whether the CPUs exist is checked where the workers start, not here.

use crate::UnitError;

/// The highest CPU number accepted. Linux builds have at most 8192 CPUs; the bound keeps
/// `0-4000000000` from allocating a huge list.
pub const MAX_CPU: usize = 65_535;

/// Parses a CPU list (`"0-3,6"` -> `[0, 1, 2, 3, 6]`), sorted and without duplicates.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, UnitError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(UnitError::Empty { what: "a CPU list" });
    }
    let mut cpus = Vec::new();
    for item in trimmed.split(',') {
        let item = item.trim();
        let malformed = |reason: String| UnitError::Malformed {
            text: trimmed.to_string(),
            what: "a CPU list",
            reason,
        };
        if item.is_empty() {
            return Err(malformed(
                "an item between ',' separators is empty".to_string(),
            ));
        }
        let (first, last) = match item.split_once('-') {
            Some((first, last)) => (cpu_number(first, trimmed)?, cpu_number(last, trimmed)?),
            None => {
                let cpu = cpu_number(item, trimmed)?;
                (cpu, cpu)
            }
        };
        if first > last {
            return Err(malformed(format!(
                "the range {first}-{last} runs backwards; write {last}-{first}"
            )));
        }
        cpus.extend(first..=last);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

fn cpu_number(text: &str, whole: &str) -> Result<usize, UnitError> {
    let text = text.trim();
    let malformed = |reason: String| UnitError::Malformed {
        text: whole.to_string(),
        what: "a CPU list",
        reason,
    };
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit()) {
        return Err(malformed(format!(
            "'{text}' is not a CPU number; use numbers and ranges like 0-3,6"
        )));
    }
    match text.parse::<usize>() {
        Ok(cpu) if cpu <= MAX_CPU => Ok(cpu),
        _ => Err(malformed(format!("CPU {text} is above {MAX_CPU}"))),
    }
}

/// Writes a CPU list compactly, the inverse of [`parse_cpu_list`]: `[0, 1, 2, 3, 6]` -> `"0-3,6"`.
///
/// The input may be unsorted or hold duplicates.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut index = 0;
    while index < sorted.len() {
        let start = sorted[index];
        let mut end = start;
        while index + 1 < sorted.len() && end.checked_add(1) == Some(sorted[index + 1]) {
            index += 1;
            end = sorted[index];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        index += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_ranges() {
        assert_eq!(parse_cpu_list("0-3,6"), Ok(vec![0, 1, 2, 3, 6]));
        assert_eq!(parse_cpu_list("7"), Ok(vec![7]));
        assert_eq!(parse_cpu_list(" 6, 0-1 ,1"), Ok(vec![0, 1, 6]));
        assert_eq!(parse_cpu_list("2-2"), Ok(vec![2]));
    }

    #[test]
    fn malformed_lists_say_why() {
        assert!(parse_cpu_list("3-0")
            .unwrap_err()
            .to_string()
            .contains("write 0-3"));
        assert!(parse_cpu_list("0,,1")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(parse_cpu_list("0-99999999999")
            .unwrap_err()
            .to_string()
            .contains("above"));
        for text in ["", "a", "0-", "-1", "0-1-2", "1;2", "0x1"] {
            assert!(parse_cpu_list(text).is_err(), "{text}");
        }
    }

    #[test]
    fn formatting_compresses_runs() {
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(format_cpu_list(&[6, 0, 1, 1]), "0-1,6");
        assert_eq!(format_cpu_list(&[]), "");
        assert_eq!(format_cpu_list(&[usize::MAX]), usize::MAX.to_string());
    }
}
