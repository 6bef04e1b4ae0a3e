//! The extractor: the commands of a doc's fenced code blocks, read as a shell would
//! (continuations joined, comments dropped, `$ ` lines with their expected message).

use super::rules::PROGRAMS;

/// One command of the docs.
#[derive(Debug)]
pub(crate) struct DocCommand {
    /// `FILE:LINE` of its first line.
    pub(crate) place: String,
    /// The command as written (continuations joined, comment dropped).
    pub(crate) text: String,
    /// For a `$ ` line: the message lines that follow it.
    pub(crate) expected: Option<Vec<String>>,
    /// The code block it is in (counted in its file): the commands of a block run in order,
    /// in a folder and history of their own, beside other blocks'.
    pub(crate) block: usize,
}

/// Drops a comment: a `#` at the start or after a blank, outside quotes.
pub(crate) fn strip_comment(line: &str) -> &str {
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => return &line[..i],
            _ => {}
        }
        previous = c;
    }
    line
}

/// The commands of the fenced blocks of `file` (its text in `text`).
pub(crate) fn extract(file: &str, text: &str) -> Vec<DocCommand> {
    let mut commands = Vec::new();
    let mut lang: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    let mut in_for = false;
    // Whether the last command was a `$ ` example whose message lines follow, and whether the
    // last line ended in `\`.
    let mut example_open = false;
    let mut continued = false;
    let mut block_number = 0;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = raw.trim();
        if let Some(rest) = trimmed.strip_prefix("```") {
            lang = match lang {
                None => {
                    block_number += 1;
                    Some(rest.trim().to_string())
                }
                Some(_) => None,
            };
            pending = None;
            in_for = false;
            example_open = false;
            continue;
        }
        let Some(block) = lang.as_deref() else {
            continue;
        };
        let shell = matches!(block, "sh" | "bash" | "console");
        if !(shell || block.is_empty() || block == "text") {
            continue;
        }
        // A `$ ` line and its message.
        if let Some(command) = trimmed.strip_prefix("$ ") {
            commands.push(DocCommand {
                place: format!("{file}:{number}"),
                text: command.trim().to_string(),
                expected: Some(Vec::new()),
                block: block_number,
            });
            example_open = true;
            continue;
        }
        if example_open && !PROGRAMS.iter().any(|p| trimmed.starts_with(p)) {
            // The message as printed: its indentation and blank lines too.
            if let Some(lines) = commands.last_mut().and_then(|c| c.expected.as_mut()) {
                lines.push(raw.trim_end().to_string());
            }
            continue;
        }
        example_open = false;
        let line = strip_comment(trimmed).trim_end();
        match pending.as_mut() {
            Some((_, so_far)) => {
                so_far.push(if in_for && !continued { '\n' } else { ' ' });
                so_far.push_str(line.trim_end_matches('\\').trim());
            }
            None => {
                if line.is_empty() {
                    continue;
                }
                let command = !line.starts_with("diskmeter:")
                    && (shell || PROGRAMS.iter().any(|p| line.starts_with(p)));
                if !command {
                    continue;
                }
                in_for = line.starts_with("for ");
                pending = Some((number, line.trim_end_matches('\\').trim().to_string()));
            }
        }
        continued = line.ends_with('\\');
        let continues = continued || (in_for && !line.trim_start().starts_with("done"));
        if !continues {
            let (first, text) = pending.take().expect("a command");
            in_for = false;
            let text = if text.contains('\n') {
                text
            } else {
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            };
            commands.push(DocCommand {
                place: format!("{file}:{first}"),
                text,
                expected: None,
                block: block_number,
            });
        }
    }
    commands
}
