//! The YAML text of a document, written so every reader takes each value as what it is.
//!
//! Why not the YAML crate's own writer: it follows YAML 1.2 and leaves `yes`, `on`, `y`,
//! `2026-11-27T15:00:00Z` and `12:30` unquoted, which YAML 1.1 readers (kubectl's go-yaml,
//! PyYAML) take as a boolean, a timestamp or a number; a namespace called `on` or the start
//! time would then be refused by the API server. Here a string is written plain only when
//! it cannot be anything else (letters first, then letters, digits and `._/-`, and not one
//! of YAML 1.1's words), as a literal block when it has several lines, else double-quoted
//! (JSON's escapes, which YAML's double quotes share).

use serde_yaml_ng::Value;

/// YAML 1.1's words for booleans and null, which a plain scalar must not be.
const SPECIAL_WORDS: [&str; 11] = [
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "",
];

/// Whether `text` reads back as the same string when written plain.
fn plain_is_safe(text: &str) -> bool {
    let mut chars = text.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    first_ok
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-'))
        && !SPECIAL_WORDS.contains(&text.to_ascii_lowercase().as_str())
}

/// Characters written escaped: control characters, and those YAML 1.1 readers take for
/// line breaks or a byte-order mark.
fn needs_escape(c: char) -> bool {
    (c as u32) < 0x20
        || matches!(
            c,
            '\u{7f}' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
        )
}

/// Double-quoted as JSON quotes (`"`, `\\` and the characters of [`needs_escape`] escaped):
/// a valid YAML double-quoted scalar with the same value.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `text` can be a literal block (`|`): several lines, no character a block cannot
/// hold as is, and no line that only its indentation would tell apart.
fn block_is_safe(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with([' ', '\t', '\n'])
        && !text.chars().any(|c| c != '\n' && needs_escape(c))
        && !text.lines().any(|l| l.ends_with([' ', '\t']))
        && !text.ends_with("\n\n")
}

/// A scalar on one line, or `None` for a mapping or sequence.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some("null".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if plain_is_safe(s) => Some(s.clone()),
        Value::String(s) => Some(quoted(s)),
        Value::Mapping(m) if m.is_empty() => Some("{}".into()),
        Value::Sequence(s) if s.is_empty() => Some("[]".into()),
        Value::Tagged(t) => scalar(&t.value),
        _ => None,
    }
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) if plain_is_safe(s) => s.clone(),
        Value::String(s) => quoted(s),
        other => scalar(other).unwrap_or_else(|| "\"\"".into()),
    }
}

/// Writes `value` after `lead` (`key:` or `-`), its children indented by `indent` spaces.
fn write_value(out: &mut String, lead: &str, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    if let Value::String(s) = value {
        if block_is_safe(s) {
            let chomp = if s.ends_with('\n') { "" } else { "-" };
            out.push_str(&format!("{lead} |{chomp}\n"));
            for line in s.lines() {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("{pad}{line}\n"));
                }
            }
            return;
        }
    }
    if let Some(text) = scalar(value) {
        out.push_str(&format!("{lead} {text}\n"));
        return;
    }
    out.push_str(lead);
    out.push('\n');
    write_children(out, value, indent);
}

/// Writes a mapping's entries or a sequence's items at `indent`.
fn write_children(out: &mut String, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Value::Mapping(map) => {
            for (key, child) in map {
                write_value(out, &format!("{pad}{}:", key_text(key)), child, indent + 2);
            }
        }
        Value::Sequence(items) => {
            for item in items {
                match item {
                    // A mapping in a list starts on the dash's line: `- name: x`.
                    Value::Mapping(map) if !map.is_empty() => {
                        let mut nested = String::new();
                        write_children(&mut nested, item, indent + 2);
                        out.push_str(&format!("{pad}- {}", &nested[indent + 2..]));
                    }
                    _ => write_value(out, &format!("{pad}-"), item, indent + 2),
                }
            }
        }
        _ => {}
    }
}

/// One document's text: a mapping at the top, in block style.
pub fn document(value: &Value) -> String {
    let mut out = String::new();
    write_children(&mut out, value, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(value: &Value) {
        let text = document(value);
        let back: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(&back, value, "{text}");
    }

    #[test]
    fn yaml_1_1_words_and_times_are_quoted() {
        let values = [
            "yes",
            "on",
            "Y",
            "off",
            "No",
            "2026-11-27T15:00:00Z",
            "12:30",
            "1_000",
            "0.1.0",
            "4",
            "-",
            "$(X)",
            "a b",
            "--quiet",
            "~",
            "",
        ];
        for text in values {
            let mut map = serde_yaml_ng::Mapping::new();
            map.insert(Value::String("k".into()), Value::String(text.into()));
            let doc = document(&Value::Mapping(map.clone()));
            assert!(doc.starts_with("k: \""), "{text}: {doc}");
            round_trip(&Value::Mapping(map));
        }
    }

    #[test]
    fn names_stay_plain_and_lines_become_blocks() {
        let doc: Value = serde_yaml_ng::from_str(
            "kind: ConfigMap\nlist:\n- name: a\n  value: b\n- x\ndata:\n  f.fio: \"[a]\\nrw=read\\n\\nbs=4k\\n\"\n  g: \"no newline\\nat end\"\n  e: {}\n",
        )
        .unwrap();
        let text = document(&doc);
        assert!(text.contains("kind: ConfigMap\n"), "{text}");
        assert!(
            text.contains("list:\n  - name: a\n    value: b\n  - x\n"),
            "{text}"
        );
        assert!(
            text.contains("  f.fio: |\n    [a]\n    rw=read\n\n    bs=4k\n"),
            "{text}"
        );
        assert!(text.contains("  g: |-\n"), "{text}");
        round_trip(&doc);
    }
}
