//! Mutations of text inputs: what a seed input becomes after a typo, a bad copy-paste, a
//! truncated download or a hostile edit. Every mutation keeps the text valid UTF-8 (the
//! parsers take `&str`; invalid bytes are the iolog reader's business and tested there).

use crate::gen::Gen;

/// The longest text a mutation leaves: repeated repeats would otherwise grow inputs to
/// megabytes, which cost time without reaching new code.
pub const MAX_TEXT: usize = 64 * 1024;

/// Applies 1 to `max` random mutations to `text`, drawing inserted tokens from `dictionary`
/// and spliced material from `others`; the result is at most [`MAX_TEXT`] bytes (or as long
/// as `text`, if that is longer).
pub fn mutate(
    g: &mut Gen,
    text: &str,
    dictionary: &[&str],
    others: &[String],
    max: usize,
) -> String {
    let limit = MAX_TEXT.max(text.len());
    let mut out = text.to_string();
    for _ in 0..g.range(1, max.max(1) as u64) {
        out = once(g, &out, dictionary, others);
        if out.len() > limit {
            let mut at = limit;
            while !out.is_char_boundary(at) {
                at -= 1;
            }
            out.truncate(at);
        }
    }
    out
}

/// One mutation.
fn once(g: &mut Gen, text: &str, dictionary: &[&str], others: &[String]) -> String {
    match g.below(14) {
        0 => replace_char(g, text),
        1 => {
            let piece = token(g, dictionary);
            insert_at(g, text, &piece)
        }
        2 => delete_range(g, text),
        3 => delete_line(g, text),
        4 => duplicate_line(g, text),
        5 => swap_lines(g, text),
        6 => splice(g, text, others),
        7 => replace_number(g, text),
        8 => {
            let piece = g.odd();
            insert_at(g, text, piece)
        }
        9 => empty_value(g, text),
        10 => truncate(g, text),
        11 => {
            let piece = format!("\n{}\n", token(g, dictionary));
            insert_at(g, text, &piece)
        }
        12 => repeat_range(g, text),
        _ => flip_byte(g, text),
    }
}

/// A token to insert: a dictionary word, a number, a unit or odd text.
fn token(g: &mut Gen, dictionary: &[&str]) -> String {
    match g.below(6) {
        0 | 1 if !dictionary.is_empty() => g.pick(dictionary).to_string(),
        2 => g.number(),
        3 => g.size(),
        4 => g.time(),
        _ => g.odd().to_string(),
    }
}

/// A char boundary of `text`, at random.
fn boundary(g: &mut Gen, text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let mut at = g.below(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn insert_at(g: &mut Gen, text: &str, piece: &str) -> String {
    let at = boundary(g, text);
    format!("{}{piece}{}", &text[..at], &text[at..])
}

fn replace_char(g: &mut Gen, text: &str) -> String {
    let at = boundary(g, text);
    let rest = &text[at..];
    let skip = rest.chars().next().map_or(0, char::len_utf8);
    format!("{}{}{}", &text[..at], g.odd(), &rest[skip..])
}

/// A bit flip that keeps UTF-8: an ASCII byte is flipped within ASCII, others replaced.
fn flip_byte(g: &mut Gen, text: &str) -> String {
    let at = boundary(g, text);
    let rest = &text[at..];
    let Some(c) = rest.chars().next() else {
        return text.to_string();
    };
    let flipped = if c.is_ascii() {
        char::from((c as u8) ^ (1 << g.below(7)))
    } else {
        char::from(g.range(0x20, 0x7e) as u8)
    };
    format!("{}{flipped}{}", &text[..at], &rest[c.len_utf8()..])
}

fn delete_range(g: &mut Gen, text: &str) -> String {
    let a = boundary(g, text);
    let b = boundary(g, text);
    let (a, b) = (a.min(b), a.max(b));
    format!("{}{}", &text[..a], &text[b..])
}

fn truncate(g: &mut Gen, text: &str) -> String {
    let at = boundary(g, text);
    text[..at].to_string()
}

fn repeat_range(g: &mut Gen, text: &str) -> String {
    let a = boundary(g, text);
    let b = boundary(g, text);
    let (a, b) = (a.min(b), a.max(b));
    let piece = &text[a..b];
    let times = g.range(2, 64) as usize;
    format!("{}{}{}", &text[..a], piece.repeat(times), &text[b..])
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn delete_line(g: &mut Gen, text: &str) -> String {
    let mut lines = lines_of(text);
    if !lines.is_empty() {
        lines.remove(g.below(lines.len()));
    }
    lines.concat()
}

fn duplicate_line(g: &mut Gen, text: &str) -> String {
    let mut lines = lines_of(text);
    if !lines.is_empty() {
        let i = g.below(lines.len());
        let line = lines[i];
        for _ in 0..g.count(16) {
            lines.insert(g.below(lines.len() + 1), line);
        }
    }
    lines.concat()
}

fn swap_lines(g: &mut Gen, text: &str) -> String {
    let mut lines = lines_of(text);
    if lines.len() > 1 {
        let (a, b) = (g.below(lines.len()), g.below(lines.len()));
        lines.swap(a, b);
    }
    lines.concat()
}

/// Lines of another input spliced in.
fn splice(g: &mut Gen, text: &str, others: &[String]) -> String {
    if others.is_empty() {
        return text.to_string();
    }
    let other = g.pick(others);
    let theirs = lines_of(other);
    let mut lines = lines_of(text);
    if theirs.is_empty() {
        return text.to_string();
    }
    let from = g.below(theirs.len());
    let to = (from + g.range(1, 8) as usize).min(theirs.len());
    let at = g.below(lines.len() + 1);
    for (k, line) in theirs[from..to].iter().enumerate() {
        lines.insert(at + k, line);
    }
    let mut out = lines.concat();
    if !out.ends_with('\n') && g.one_in(2) {
        out.push('\n');
    }
    out
}

/// A run of digits replaced by an edge number (huge, negative, overflowing, fractional).
fn replace_number(g: &mut Gen, text: &str) -> String {
    let starts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| c.is_ascii_digit() && !text[..i].ends_with(|p: char| p.is_ascii_digit()))
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        let number = g.number();
        return insert_at(g, text, &number);
    }
    let start = *g.pick(&starts);
    let end = text[start..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |n| start + n);
    let number = if g.one_in(3) { g.float() } else { g.number() };
    format!("{}{number}{}", &text[..start], &text[end..])
}

/// `key=value` becomes `key=` (or `key`, or `=value`) on a random line.
fn empty_value(g: &mut Gen, text: &str) -> String {
    let mut lines: Vec<String> = lines_of(text).into_iter().map(str::to_string).collect();
    let with_eq: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains('='))
        .collect();
    if with_eq.is_empty() {
        return text.to_string();
    }
    let i = *g.pick(&with_eq);
    let line = lines[i].clone();
    let newline = if line.ends_with('\n') { "\n" } else { "" };
    let body = line.trim_end_matches('\n');
    let (key, value) = body.split_once('=').unwrap_or((body, ""));
    lines[i] = match g.below(4) {
        0 => format!("{key}{newline}"),
        1 => format!("={value}{newline}"),
        2 => format!("{key}= {newline}"),
        _ => format!("{key}={newline}"),
    };
    lines.concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_keep_text_valid_and_are_deterministic() {
        let seed = "[global]\nbs=4k\n[job]\nrw=randread\nsize=1g # é\n".to_string();
        for i in 0..2000 {
            let a = mutate(
                &mut Gen::from_seed(i),
                &seed,
                &["iodepth", "bs"],
                std::slice::from_ref(&seed),
                6,
            );
            let b = mutate(
                &mut Gen::from_seed(i),
                &seed,
                &["iodepth", "bs"],
                std::slice::from_ref(&seed),
                6,
            );
            assert_eq!(a, b);
        }
    }
}
