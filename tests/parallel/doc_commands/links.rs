//! The docs hold together: every relative link of README.md and docs/ goes to a file that
//! exists and, with a `#fragment`, to a heading of it; every page of the guide is in the
//! guide's index and starts with a table of contents of its sections; the README's layout
//! section has a line for every crate.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A heading's anchor as GitHub makes it: lower case, letters, digits, `_` and `-` kept,
/// blanks made `-`, everything else (backticks, punctuation) dropped.
pub(crate) fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            _ => None,
        })
        .collect()
}

/// The lines of `text` outside fenced code blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut in_code = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// The headings of a markdown text: (level, text, anchor), anchors made unique as GitHub
/// does (a second `## Memory` is `#memory-1`).
pub(crate) fn headings(text: &str) -> Vec<(usize, String, String)> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (_, line) in prose_lines(text) {
        let level = line.chars().take_while(|&c| c == '#').count();
        let Some(title) = line.get(level..).and_then(|rest| rest.strip_prefix(' ')) else {
            continue;
        };
        if level == 0 || level > 6 {
            continue;
        }
        let base = slug(title);
        let count = seen.entry(base.clone()).or_insert(0);
        let anchor = if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        };
        *count += 1;
        out.push((level, title.to_string(), anchor));
    }
    out
}

/// The link targets of a line of prose: `[text](TARGET)` and `src="TARGET"`, inline code
/// left out.
fn targets(line: &str) -> Vec<String> {
    // Drop inline code spans: a link written as code is an example, not a link.
    let mut prose = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            prose.push_str(part);
        }
    }
    let mut found = Vec::new();
    for (marker, end) in [("](", ')'), ("src=\"", '"')] {
        let mut rest = prose.as_str();
        while let Some(at) = rest.find(marker) {
            let after = &rest[at + marker.len()..];
            let Some(stop) = after.find(end) else { break };
            found.push(after[..stop].trim().to_string());
            rest = &after[stop..];
        }
    }
    found
}

/// README.md and every markdown file under docs/, as paths from the repository's root.
pub(crate) fn markdown_files(repo: &Path) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut folders = vec![PathBuf::from("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(repo.join(&folder)).expect("a docs folder") {
            let entry = entry.expect("an entry");
            let path = folder.join(entry.file_name());
            if entry.file_type().expect("its type").is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every broken relative link of `file` (a path from `repo`), as `FILE:LINE: why`.
pub(crate) fn broken_links(repo: &Path, file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(repo.join(file)).expect("the doc");
    let folder = file.parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (number, line) in prose_lines(&text) {
        for target in targets(line) {
            if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let place = format!("{}:{number}: {target}", file.display());
            let linked = if path.is_empty() {
                file.to_path_buf()
            } else {
                folder.join(path)
            };
            if !repo.join(&linked).exists() {
                broken.push(format!("{place}: {} does not exist", linked.display()));
                continue;
            }
            let Some(fragment) = fragment else { continue };
            let Ok(linked_text) = std::fs::read_to_string(repo.join(&linked)) else {
                broken.push(format!("{place}: a #fragment on a folder"));
                continue;
            };
            if !headings(&linked_text).iter().any(|(_, _, a)| a == fragment) {
                broken.push(format!(
                    "{place}: {} has no heading whose anchor is #{fragment}",
                    linked.display()
                ));
            }
        }
    }
    broken
}

/// What is wrong with the table of contents of the guide's page `text` (named `name`): it must
/// come before the first section, between `<!-- toc -->` and `<!-- /toc -->`, and link every
/// `## ` section in order.
pub(crate) fn contents_problems(name: &str, text: &str) -> Vec<String> {
    let (Some(start), Some(end)) = (text.find("<!-- toc -->"), text.find("<!-- /toc -->")) else {
        return vec![format!(
            "{name}: no table of contents (<!-- toc --> ... <!-- /toc -->)"
        )];
    };
    let first_section = text.find("\n## ").unwrap_or(text.len());
    let mut problems = Vec::new();
    if end > first_section {
        problems.push(format!(
            "{name}: the table of contents comes after a section"
        ));
    }
    let listed: Vec<String> = text[start..end]
        .lines()
        .filter(|l| l.starts_with("- ["))
        .flat_map(targets)
        .collect();
    let sections: Vec<String> = headings(text)
        .into_iter()
        .filter(|(level, _, _)| *level == 2)
        .map(|(_, _, anchor)| format!("#{anchor}"))
        .collect();
    if listed != sections {
        problems.push(format!(
            "{name}: the table of contents lists {listed:?}, the sections are {sections:?}"
        ));
    }
    problems
}

/// The crates of `crates/` whose name has no line `` - `NAME`: `` in the README's layout
/// section.
pub(crate) fn crates_missing_from_layout(repo: &Path, readme: &str) -> Vec<String> {
    let layout = readme
        .split("\n## Layout\n")
        .nth(1)
        .map(|rest| rest.split("\n## ").next().unwrap_or(rest))
        .unwrap_or("");
    let listed: HashSet<&str> = layout
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once("`:").map(|(name, _)| name))
        .collect();
    let mut missing: Vec<String> = std::fs::read_dir(repo.join("crates"))
        .expect("crates/")
        .map(|e| {
            e.expect("a crate")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !listed.contains(name.as_str()))
        .collect();
    missing.sort();
    missing
}
