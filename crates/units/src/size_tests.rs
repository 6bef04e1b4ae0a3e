//! `parse_size`'s tests: fio's HOWTO examples, fio 3.33's code's readings, and the
//! generated table against `__get_mult_bytes`.

use super::*;
use KbBase::{Binary, Decimal};

#[test]
fn bare_numbers_are_bytes() {
    assert_eq!(parse_size("4096", Binary), Ok(4096));
    assert_eq!(parse_size("4096b", Binary), Ok(4096));
    assert_eq!(parse_size("4096B", Decimal), Ok(4096));
    assert_eq!(parse_size("0", Binary), Ok(0));
    assert_eq!(parse_size("  512 ", Binary), Ok(512));
}

#[test]
fn every_prefix_with_kb_base_1024() {
    assert_eq!(parse_size("4k", Binary), Ok(4 << 10));
    assert_eq!(parse_size("1m", Binary), Ok(1 << 20));
    assert_eq!(parse_size("1g", Binary), Ok(1 << 30));
    assert_eq!(parse_size("1t", Binary), Ok(1 << 40));
    assert_eq!(parse_size("1p", Binary), Ok(1 << 50));
}

#[test]
fn every_prefix_with_kb_base_1000() {
    assert_eq!(parse_size("4k", Decimal), Ok(4_000));
    assert_eq!(parse_size("1m", Decimal), Ok(1_000_000));
    assert_eq!(parse_size("1g", Decimal), Ok(1_000_000_000));
    assert_eq!(parse_size("1t", Decimal), Ok(1_000_000_000_000));
    assert_eq!(parse_size("1p", Decimal), Ok(1_000_000_000_000_000));
}

/// The HOWTO's examples for kb_base=1024 (the default), as fio 3.33's code reads them:
/// the HOWTO's `1mi`/`1000ki` spellings are the plain prefix there (see `parse_size`).
#[test]
fn howto_examples_kb_base_1024() {
    for text in [
        "4096", "4096b", "4096B", "4k", "4kb", "4kB", "4K", "4KB", "4ki", "4Ki",
    ] {
        assert_eq!(parse_size(text, Binary), Ok(4096), "{text}");
    }
    for text in ["1048576", "1m", "1024k", "1mi", "1Mi", "1024ki"] {
        assert_eq!(parse_size(text, Binary), Ok(1 << 20), "{text}");
    }
    for text in ["1000000", "1mib", "1MiB", "1000kib", "1000KiB"] {
        assert_eq!(parse_size(text, Binary), Ok(1_000_000), "{text}");
    }
    for text in ["1099511627776", "1t", "1024g", "1048576m", "1Ti"] {
        assert_eq!(parse_size(text, Binary), Ok(1 << 40), "{text}");
    }
    for text in ["1000000000000", "1tib", "1000GiB", "1000000MiB"] {
        assert_eq!(parse_size(text, Binary), Ok(1_000_000_000_000), "{text}");
    }
}

/// The HOWTO's examples for kb_base=1000, as fio 3.33's code reads them.
#[test]
fn howto_examples_kb_base_1000() {
    for text in ["4096", "4096b", "4096B", "4kib", "4kiB", "4KiB", "4KIB"] {
        assert_eq!(parse_size(text, Decimal), Ok(4096), "{text}");
    }
    for text in ["1048576", "1mib", "1024kib", "1MiB"] {
        assert_eq!(parse_size(text, Decimal), Ok(1 << 20), "{text}");
    }
    for text in ["1000000", "1m", "1000k", "1mi", "1Mi", "1000ki"] {
        assert_eq!(parse_size(text, Decimal), Ok(1_000_000), "{text}");
    }
    for text in ["1099511627776", "1tib", "1024GiB", "1048576mib"] {
        assert_eq!(parse_size(text, Decimal), Ok(1 << 40), "{text}");
    }
    for text in ["1000000000000", "1t", "1000g", "1000000m", "1ti"] {
        assert_eq!(parse_size(text, Decimal), Ok(1_000_000_000_000), "{text}");
    }
}

/// Issue 28: `bs=1Mi` and `size=4Gi` are binary under the default kb_base, as in fio;
/// `1MiB` is not.
#[test]
fn issue_28_iec_without_b_is_the_plain_prefix() {
    assert_eq!(parse_size("1Mi", Binary), Ok(1_048_576));
    assert_eq!(parse_size("4Gi", Binary), Ok(4 << 30));
    assert_eq!(parse_size("1MiB", Binary), Ok(1_000_000));
    assert_eq!(parse_size("1Mi", Decimal), Ok(1_000_000));
    assert_eq!(parse_size("1MiB", Decimal), Ok(1_048_576));
    assert_eq!(parse_int("2ki", Binary), Ok(2048));
}

/// fio compares only the start of a suffix, so `4kfoo` is 4 KiB there: refused here, with
/// what fio would read.
#[test]
fn trailing_text_is_refused_with_fios_reading() {
    assert_eq!(
        parse_size("4kfoo", Binary).unwrap_err().to_string(),
        "'4kfoo' is not a size: unknown suffix 'kfoo' (use k, m, g, t, p, optionally \
         followed by i and/or b: 4k, 4KiB, 1gb); fio would read it as 4096, ignoring what \
         follows 'k'"
    );
    assert!(parse_size("4KiBx", Binary)
        .unwrap_err()
        .to_string()
        .ends_with("fio would read it as 4000, ignoring what follows 'KiB'"));
    assert!(parse_size("2mbi", Decimal)
        .unwrap_err()
        .to_string()
        .contains("fio would read it as 2000000,"));
    assert!(parse_size("4 k", Binary)
        .unwrap_err()
        .to_string()
        .ends_with("e.g. 4k (fio would read it as 4)"));
}

#[test]
fn a_plus_sign_is_accepted() {
    assert_eq!(parse_size("+4k", Binary), Ok(4096));
    assert_eq!(parse_size(" +0x10 ", Binary), Ok(16));
}

#[test]
fn hex_takes_no_unit() {
    let error = parse_size("0x10k", Binary).unwrap_err().to_string();
    assert_eq!(
        error,
        "'0x10k' is not a size: a hex number takes no unit (fio would read it as 16, \
         dropping 'k'); write 0x4000 or 16k"
    );
    assert!(parse_size("0x1q", Binary)
        .unwrap_err()
        .to_string()
        .contains("dropping 'q')"));
}

#[test]
fn iec_spelling_is_the_opposite_base() {
    assert_eq!(parse_size("1KiB", Binary), Ok(1000));
    assert_eq!(parse_size("1KiB", Decimal), Ok(1024));
    assert_eq!(parse_size("2GiB", Decimal), Ok(2 << 30));
    assert_eq!(parse_size("1PIB", Decimal), Ok(1 << 50));
}

#[test]
fn hex_values() {
    assert_eq!(parse_size("0x1000", Binary), Ok(4096));
    // 'b' is a hex digit, so it is read as one.
    assert_eq!(parse_size("0x1b", Binary), Ok(27));
}

#[test]
fn unknown_suffix_says_which_suffixes_work() {
    let error = parse_size("4q", Binary).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'4q' is not a size: unknown suffix 'q' (use k, m, g, t, p, optionally followed by \
         i and/or b: 4k, 4KiB, 1gb); fio would read it as 4"
    );
    for text in ["4kfoo", "4kk", "4kbi", "4 kb x", "4e3", "4bit"] {
        assert!(parse_size(text, Binary).is_err(), "{text}");
    }
}

#[test]
fn fractions_are_refused_with_the_exact_alternative() {
    let error = parse_size("1.5m", Binary).unwrap_err();
    assert_eq!(
        error.to_string(),
        "'1.5m' is not a size: fractions are not allowed (fio would read it as 1; write 1536k)"
    );
    assert!(parse_size("1.3k", Binary)
        .unwrap_err()
        .to_string()
        .contains("use a smaller unit"));
}

#[test]
fn percent_space_sign_and_overflow() {
    assert!(matches!(
        parse_size("50%", Binary),
        Err(UnitError::Percent { .. })
    ));
    assert!(parse_size("4 k", Binary)
        .unwrap_err()
        .to_string()
        .contains("e.g. 4k"));
    assert!(matches!(
        parse_size("-1", Binary),
        Err(UnitError::Negative { .. })
    ));
    assert!(matches!(
        parse_size("16385p", Binary),
        Err(UnitError::Overflow { .. })
    ));
    assert_eq!(parse_size("16383p", Binary), Ok(16383 << 50));
    assert!(matches!(
        parse_size("", Binary),
        Err(UnitError::Empty { .. })
    ));
}

#[test]
fn ints_use_the_same_suffixes() {
    assert_eq!(parse_int("32", Binary), Ok(32));
    assert_eq!(parse_int("3k", Binary), Ok(3072));
    assert_eq!(parse_int("3k", Decimal), Ok(3000));
    assert!(parse_int("many", Binary)
        .unwrap_err()
        .to_string()
        .starts_with("'many' is not an integer"));
}

#[test]
fn kb_base_spellings() {
    assert_eq!(KbBase::parse("1024"), Some(Binary));
    assert_eq!(KbBase::parse("1000"), Some(Decimal));
    assert_eq!(KbBase::parse("1k"), None);
    assert_eq!(Binary.as_str(), "1024");
    assert_eq!(KbBase::default(), Binary);
}

#[test]
fn compact_formatting() {
    assert_eq!(format_size_suffix(4096, Binary), "4k");
    assert_eq!(format_size_suffix(1 << 30, Binary), "1g");
    assert_eq!(format_size_suffix(1536 << 10, Binary), "1536k");
    assert_eq!(format_size_suffix(1000, Binary), "1000");
    assert_eq!(format_size_suffix(0, Binary), "0");
    assert_eq!(format_size_suffix(4096, Decimal), "4096");
    assert_eq!(format_size_suffix(1 << 20, Decimal), "1mib");
    assert_eq!(parse_size("1mib", Decimal), Ok(1 << 20));
    assert_eq!(format_size_suffix(30_000_000_000, Decimal), "30g");
    assert_eq!(format_size_suffix(u64::MAX, Binary), u64::MAX.to_string());
}

/// Issue 28: a generated table of sizes too large to run under fio's null engine (`t`, `p`),
/// and every other prefix, against fio's own rule: `__get_mult_bytes` in fio's `parse.c` at
/// fio-3.33 (commit 72bcaffd7d56) compares the lower-cased suffix with `pib`, `tib`, `gib`,
/// `mib`, `kib` (3 letters: the base opposite to `kb_base`), then with `p t g m k` (1 letter:
/// `kb_base`); `b` alone and no suffix are 1. Sizes up to `g` are also run through fio in
/// `tests/parallel/jobfile.rs`.
mod fio_table {
    use super::*;

    /// The power of each prefix in `__get_mult_bytes`.
    const POWERS: [(char, u32); 5] = [('k', 1), ('m', 2), ('g', 3), ('t', 4), ('p', 5)];

    #[test]
    fn every_prefix_tail_case_and_kb_base_reads_as_fios_table() {
        let mut checked = 0;
        for (kb_base, plain, opposite) in [
            (KbBase::Binary, 1024u64, 1000u64),
            (KbBase::Decimal, 1000, 1024),
        ] {
            for number in [0u64, 1, 3, 10, 999] {
                for (prefix, power) in POWERS {
                    for (tail, base) in [("", plain), ("b", plain), ("i", plain), ("ib", opposite)]
                    {
                        let lower = format!("{prefix}{tail}");
                        let mut spellings = vec![lower.clone(), lower.to_ascii_uppercase()];
                        let mut capital = prefix.to_ascii_uppercase().to_string();
                        capital.push_str(tail);
                        spellings.push(capital.clone());
                        if let Some(iec) = capital.strip_suffix('b') {
                            spellings.push(format!("{iec}B"));
                        }
                        let expected = number * base.pow(power);
                        for spelling in spellings {
                            let text = format!("{number}{spelling}");
                            assert_eq!(parse_size(&text, kb_base), Ok(expected), "{text}");
                            assert_eq!(parse_int(&text, kb_base), Ok(expected), "{text}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }
}
