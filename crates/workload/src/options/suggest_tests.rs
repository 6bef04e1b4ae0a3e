//! The shortcuts `nearest` takes to find an unknown name's suggestion (candidates too long
//! or too short to be near are skipped, a comparison stops once past the typo limit), held
//! to the textbook distance and to the inputs that made them needed.

use super::*;

/// The textbook Levenshtein distance, to hold `nearest`'s shortcuts to.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut next = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            next[j + 1] = (row[j] + usize::from(ca != *cb))
                .min(row[j + 1] + 1)
                .min(next[j] + 1);
        }
        row = next;
    }
    row[b.len()]
}

#[test]
fn nearest_picks_what_the_full_distance_picks() {
    let names: Vec<&str> = all_options().map(|d| d.name).collect();
    let words = [
        "iodpeth",
        "bs",
        "b",
        "",
        "rw_mix",
        "filenarand-read",
        "time_baésed",
        "ramp",
        "xyzzy",
        "verify_state__save",
        "ioengin",
        "é",
        "numjob",
        "size_percent",
        "q",
    ];
    for word in words {
        let limit = word.chars().count().div_ceil(2).max(1);
        let expected = names
            .iter()
            .map(|n| (levenshtein(word, n), *n))
            .filter(|(d, _)| *d <= limit)
            .min_by_key(|(d, _)| *d)
            .map(|(_, n)| n);
        assert_eq!(nearest(word, names.iter().copied()), expected, "{word}");
    }
}

/// Names as long as fio's longest.
fn fio_like_names() -> impl Iterator<Item = &'static str> {
    ["verify_state_save", "iodepth_batch_complete_max", "x"].into_iter()
}

#[test]
fn a_name_thousands_of_characters_long_gets_no_suggestion_without_comparing_it() {
    // Compared with every name, a 200,000-character line took seconds in a job file (a
    // hang to the fuzzer); no name is near it, and the length alone says so.
    let garbage = "dita from the 524th zone ".repeat(8_000);
    assert_eq!(suggest_option(&garbage), None);
    assert_eq!(nearest(&garbage, fio_like_names()), None);
    // Within the limit, the length filter keeps what the rule keeps.
    assert_eq!(nearest("ab", ["abcd", "b"]), Some("b"));
    assert_eq!(nearest("abcd", ["abcdef", "xy"]), Some("abcdef"));
}
