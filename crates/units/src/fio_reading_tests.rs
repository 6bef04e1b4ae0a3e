//! The forms fio 3.33 reads other than written, against fio's `parse.c` (the same values
//! are run through fio itself in `tests/parallel/jobfile/values.rs`).

use super::*;
use KbBase::{Binary, Decimal};
use TimeUnit::{Microseconds, Seconds};

fn size(text: &str, kb_base: KbBase) -> (u64, String) {
    let read = parse_size_as_fio(text, kb_base).unwrap();
    (read.value, read.note.unwrap_or_default())
}

fn time(text: &str, unit: TimeUnit) -> (u64, String) {
    let read = parse_time_as_fio(text, unit).unwrap();
    (read.value, read.note.unwrap_or_default())
}

#[test]
fn plain_values_have_no_note() {
    assert_eq!(parse_size_as_fio("4k", Binary), Ok(FioValue::exact(4096)));
    assert_eq!(parse_int_as_fio("0x10", Binary), Ok(FioValue::exact(16)));
    assert_eq!(
        parse_time_as_fio("500ms", Seconds),
        Ok(FioValue::exact(500_000_000))
    );
    assert_eq!(
        parse_time_as_fio("0x10", Microseconds),
        Ok(FioValue::exact(16_000))
    );
}

/// `get_mult_bytes`: no letter after the digits is no unit; a letter is compared on its
/// start only; an unknown word is 1.
#[test]
fn sizes_fio_reads_other_than_written() {
    for (text, kb_base, fio) in [
        ("1.5m", Binary, 1),
        ("4kfoo", Binary, 4096),
        ("4kfoo", Decimal, 4000),
        ("2MiBs", Binary, 2_000_000),
        ("2mbi", Decimal, 2_000_000),
        ("4 k", Binary, 4),
        ("0x10k", Binary, 16),
        ("4q", Binary, 4),
        ("4e3", Binary, 4),
        ("4bit", Binary, 4),
        ("4kk", Binary, 4096),
        ("10µ", Binary, 10),
        ("12.5%", Binary, 12),
    ] {
        let (value, note) = size(text, kb_base);
        assert_eq!(value, fio, "{text}");
        assert!(
            note.starts_with(&format!("read as fio 3.33 reads it, {fio} (")),
            "{text}: {note}"
        );
    }
    assert_eq!(
        size("1.5m", Binary).1,
        "read as fio 3.33 reads it, 1 (fio stops at the '.'; write 1536k for 1.5m)"
    );
    assert_eq!(
        size("0x10k", Binary).1,
        "read as fio 3.33 reads it, 16 (a hex number takes no unit in fio; write 0x4000 or 16k \
         for 0x10k)"
    );
    assert!(size("4 k", Binary).1.contains("write 4k for 4 k"));
    assert!(size("4kfoo", Binary)
        .1
        .contains("fio reads 'k' and ignores what follows"));
    assert_eq!(parse_int_as_fio("3kx", Binary).unwrap().value, 3072);
}

/// What fio refuses (no number) and what diskmeter keeps refusing (a minus sign, which fio
/// wraps to a huge value; arithmetic; overflow) stay errors; a percentage stays `Percent`.
#[test]
fn what_stays_refused() {
    for text in ["-1", "k4", "(1+2)", "", "99999999999999999999", "16385p"] {
        assert!(parse_size_as_fio(text, Binary).is_err(), "{text}");
    }
    assert!(matches!(
        parse_size_as_fio("50%", Binary),
        Err(UnitError::Percent { .. })
    ));
    for text in ["-1", "ten", "(1+2)s", "1000000000d"] {
        assert!(parse_time_as_fio(text, Seconds).is_err(), "{text}");
    }
}

/// `get_mult_time`: `us`/`ms` on their first two letters, `s m h d` exactly, any other word
/// microseconds, no letter the option's unit, a hex number microseconds.
#[test]
fn times_fio_reads_other_than_written() {
    for (text, unit, fio_us) in [
        ("30sec", Seconds, 30),
        ("10min", Seconds, 10),
        ("10MIN", Microseconds, 10),
        ("0x10", Seconds, 16),
        ("0x10s", Microseconds, 16),
        ("1.5", Seconds, 1_000_000),
        ("2.5ms", Seconds, 2_000_000),
        ("10µs", Seconds, 10_000_000),
        ("10µs", Microseconds, 10),
        ("3msfoo", Seconds, 3_000),
        ("3usx", Seconds, 3),
        ("5 ms", Seconds, 5_000_000),
        ("7ns", Seconds, 7),
        ("7nsec", Microseconds, 7),
        ("2hours", Seconds, 2),
    ] {
        let (value, note) = time(text, unit);
        assert_eq!(value, fio_us * 1_000, "{text}");
        assert!(note.starts_with("read as fio 3.33 reads it, "), "{note}");
    }
    assert_eq!(
        time("30sec", Seconds).1,
        "read as fio 3.33 reads it, 30us (fio's time units are d, h, m, s, ms/msec, us/usec right \
         after a whole number; any other word is microseconds); write 30s for 30 seconds"
    );
    assert!(time("10min", Seconds)
        .1
        .ends_with("write 600s for 10 minutes"));
    assert!(time("1.5", Seconds)
        .1
        .ends_with("write 1500ms for 1.5 seconds"));
    assert!(time("5 ms", Seconds)
        .1
        .ends_with("write 5ms for 5 milliseconds"));
    assert!(time("10µs", Seconds)
        .1
        .ends_with("write 10us for 10 microseconds"));
    assert!(time("7ns", Seconds).1.ends_with("fio has no nanoseconds"));
    // The strict parser keeps nanoseconds for diskmeter's own front-ends (Iometer's times).
    assert_eq!(parse_time_ns("7ns", Seconds), Ok(7));
}
