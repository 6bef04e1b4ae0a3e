//! Whether the latencies a person reads are readable: every number followed by a time unit
//! (ns, us, µs, usec, ms, msec, s, sec, ...) has at most 4 significant digits and lies from
//! 1 to 999.x of its unit (0 allowed): "4.25 ms", never "4253.56 usec", "91750.4 us",
//! "9374 nsec" or "0.46 us". The same check reads a terminal's output and a page's visible
//! text (`document.body.innerText`, [`assert_page_latencies_readable`]).
//!
//! Only a number and a unit separated by one space count: that is how diskmeter prints a
//! figure, while what a user typed ("--runtime=3600s", a job file's "1000ms") keeps its
//! own spelling.

use std::path::Path;

/// The time units a latency or duration is printed in.
const TIME_UNITS: [&str; 12] = [
    "ns", "nsec", "us", "usec", "µs", "μs", "ms", "msec", "s", "sec", "min", "h",
];

/// Every (number, unit, context) in `text` where a number is followed by one space and a
/// time unit that ends there (not "s" of "samples").
pub fn timed_numbers(text: &str) -> Vec<(String, String, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || matches!(chars[i - 1], '.' | '_')));
        if !starts_number {
            i += 1;
            continue;
        }
        let start = i;
        // Digits, thousands separators (a comma before three digits) and one decimal point.
        while i < chars.len() {
            let c = chars[i];
            let grouped = c == ','
                && chars
                    .get(i + 1..i + 4)
                    .is_some_and(|d| d.iter().all(char::is_ascii_digit))
                && !chars.get(i + 4).is_some_and(char::is_ascii_digit);
            let decimal = c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() || grouped || decimal {
                i += 1;
            } else {
                break;
            }
        }
        let number: String = chars[start..i].iter().collect();
        if !matches!(chars.get(i), Some(' ' | '\u{a0}' | '\u{202f}')) {
            continue;
        }
        let unit_start = i + 1;
        let mut end = unit_start;
        while end < chars.len() && chars[end].is_alphabetic() {
            end += 1;
        }
        let unit: String = chars[unit_start..end].iter().collect();
        if TIME_UNITS.contains(&unit.as_str()) {
            let from = start.saturating_sub(40);
            let to = (end + 20).min(chars.len());
            let context: String = chars[from..to].iter().collect();
            found.push((number, unit, context.replace('\n', " ")));
        }
    }
    found
}

/// Why `number` (as printed, "4,253.56") is not readable, if it is not.
fn unreadable(number: &str) -> Option<String> {
    let plain = number.replace(',', "");
    let value: f64 = plain.parse().ok()?;
    let digits: String = plain.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_start_matches('0').len();
    if significant > 4 {
        return Some(format!("{significant} significant digits"));
    }
    if value != 0.0 && !(1.0..1000.0).contains(&value) {
        return Some("outside 1-999 of its unit".to_string());
    }
    None
}

/// Asserts every latency or duration `text` prints is readable (see the module's rule); the
/// failure quotes each offending figure in its context. `what` names the text ("the run
/// report", "`show`").
pub fn assert_latencies_readable(what: &str, text: &str) {
    let bad: Vec<String> = timed_numbers(text)
        .into_iter()
        .filter_map(|(number, unit, context)| {
            unreadable(&number).map(|why| format!("\"{number} {unit}\" ({why}) in \"…{context}…\""))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{what} prints latencies a reader must convert (at most 4 significant digits, 1 to \
         999 of the unit):\n  {}",
        bad.join("\n  ")
    );
}

/// Saves a screenshot of `page` as `dir/name` (the test's own temporary folder; the docs'
/// images are `DISKMETER_SCREENSHOTS`'s) and asserts its visible text's latencies are
/// readable ([`assert_latencies_readable`]).
pub fn assert_page_latencies_readable(page: &super::browser::Page, dir: &Path, name: &str) {
    page.screenshot(&dir.join(name), 3200);
    let text = page.eval("document.body.innerText");
    assert_latencies_readable(
        &format!("{} ({name})", page.url()),
        text.as_str().unwrap_or_default(),
    );
}

#[test]
fn the_rule_finds_what_a_reader_would_have_to_convert() {
    for bad in [
        "p99 91750.4 us",
        "clat (usec): max=4253.56 usec",
        "min 9374 nsec",
        "mean 0.46 us",
        "took 1,200 ms",
        "12.345 ms",
    ] {
        assert_eq!(timed_numbers(bad).len(), 1, "{bad}");
        assert!(
            std::panic::catch_unwind(|| assert_latencies_readable("t", bad)).is_err(),
            "{bad} passed"
        );
    }
    for good in [
        "p99 91.8 ms, p50 4.25 ms, 950 ns, 0 ns, 999.9 us, 2.00 s, 16.7 min",
        "8 whole 1 s samples over 120 s",
        "--runtime=3600s, a 1000ms think time, p99.99 in us, 2026-11-29 07:44:12 UTC",
        "4,253 IOPS, 1000 samples, 4096 B",
    ] {
        assert_latencies_readable("t", good);
    }
}
