//! Property tests: no parser panics on any input, and every formatter that promises a round
//! trip through its parser keeps it.

use diskmeter_units::*;
use proptest::prelude::*;

fn kb_base() -> impl Strategy<Value = KbBase> {
    prop_oneof![Just(KbBase::Binary), Just(KbBase::Decimal)]
}

proptest! {
    #[test]
    fn parsers_never_panic(text in ".*", base in kb_base()) {
        let _ = parse_size(&text, base);
        let _ = parse_int(&text, base);
        let _ = parse_time_ns(&text, TimeUnit::Seconds);
        let _ = parse_time_ns(&text, TimeUnit::Microseconds);
        let _ = parse_percent(&text);
        let _ = parse_bool(&text);
        let _ = parse_float_list(&text);
        let _ = parse_cpu_list(&text);
        let _ = KbBase::parse(&text);
    }

    #[test]
    fn unit_shaped_text_never_panics(
        text in "[-+ 0-9xX.]{0,24}[kKmMgGtTpPiIbBsSuUnNdDhH%. ]{0,4}",
        base in kb_base(),
    ) {
        let _ = parse_size(&text, base);
        let _ = parse_time_ns(&text, TimeUnit::Seconds);
        let _ = parse_percent(&text);
        let _ = parse_cpu_list(&text);
    }

    #[test]
    fn errors_quote_the_input(text in "[a-z]{1,8}") {
        let error = parse_size(&text, KbBase::Binary).unwrap_err();
        let quoted = format!("'{}'", text);
        prop_assert!(error.to_string().contains(&quoted));
    }

    #[test]
    fn size_suffix_round_trip(bytes in any::<u64>(), base in kb_base()) {
        prop_assert_eq!(parse_size(&format_size_suffix(bytes, base), base), Ok(bytes));
    }

    #[test]
    fn aligned_sizes_round_trip(units in 0u64..1_000_000, shift in 0u32..40, base in kb_base()) {
        let bytes = units << shift;
        prop_assert_eq!(parse_size(&format_size_suffix(bytes, base), base), Ok(bytes));
    }

    #[test]
    fn suffixes_multiply(n in 0u64..100_000, prefix in 0usize..5, b in any::<bool>(), upper in any::<bool>()) {
        let letter = ["k", "m", "g", "t", "p"][prefix];
        let letter = if upper { letter.to_uppercase() } else { letter.to_string() };
        let text = format!("{n}{letter}{}", if b { "B" } else { "" });
        let expected = (n as u128) * 1024u128.pow(prefix as u32 + 1);
        match parse_size(&text, KbBase::Binary) {
            Ok(value) => prop_assert_eq!(value as u128, expected),
            Err(UnitError::Overflow { .. }) => prop_assert!(expected > u64::MAX as u128),
            Err(other) => prop_assert!(false, "{}: {}", text, other),
        }
    }

    #[test]
    fn hex_round_trip(value in any::<u64>()) {
        prop_assert_eq!(parse_size(&format!("{value:#x}"), KbBase::Binary), Ok(value));
    }

    #[test]
    fn time_suffix_round_trip(ns in any::<u64>()) {
        prop_assert_eq!(parse_time_ns(&format_time_suffix(ns), TimeUnit::Seconds), Ok(ns));
    }

    #[test]
    fn cpu_list_round_trip(cpus in proptest::collection::vec(0usize..=MAX_CPU, 1..40)) {
        let mut expected = cpus.clone();
        expected.sort_unstable();
        expected.dedup();
        prop_assert_eq!(parse_cpu_list(&format_cpu_list(&cpus)), Ok(expected));
    }

    #[test]
    fn float_list_round_trip(values in proptest::collection::vec(0.0f64..=100.0, 1..20)) {
        let text: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        prop_assert_eq!(parse_float_list(&text.join(":")), Ok(values));
    }

    #[test]
    fn formatters_never_panic(bytes in any::<u64>(), value in any::<f64>()) {
        let _ = format_bytes_binary(bytes);
        let _ = format_duration_ns(bytes);
        let _ = format_rate_binary(value);
        let _ = format_rate_decimal(value);
        let _ = format_count(value);
        for scale in [Scale::BinaryBytes, Scale::DecimalRate, Scale::Duration, Scale::Count] {
            let _ = format_scaled(value, scale, Precision::ThreeFigures);
        }
    }

    /// The digits printed are the value in the named unit, rounded to the last digit shown:
    /// two decimals below 10 and one from there up, so at least three significant digits.
    #[test]
    fn binary_bytes_keep_three_significant_digits(raw in any::<u64>(), bits in 11u32..=64) {
        // Every magnitude alike (a plain u64 is almost always EiB).
        let bytes = (raw >> (64 - bits)).max(1024);
        let text = format_bytes_binary(bytes);
        let (number, unit) = text.split_once(' ').unwrap();
        let power = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
            .iter()
            .position(|u| *u == unit)
            .unwrap_or_else(|| panic!("{text}: unit {unit:?}")) as i32 + 1;
        let shown: f64 = number.parse().unwrap();
        let decimals = number.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        prop_assert!((1.0..1024.0).contains(&shown), "{}", text);
        prop_assert_eq!(decimals, if shown < 10.0 { 2 } else { 1 }, "{}", text);
        let exact = bytes as f64 / 1024f64.powi(power);
        // Half of the last digit shown, with room for f64's own rounding of huge counts.
        let half_digit = 0.5 * 10f64.powi(-decimals);
        prop_assert!(
            (shown - exact).abs() <= half_digit * (1.0 + 1e-9),
            "{} for {} bytes = {} {}", text, bytes, exact, unit
        );
    }

    /// The fio-style rule: three significant digits of the value in the named unit (two
    /// decimals below 10, one below 100, none from there up), rounded to the last digit shown.
    #[test]
    fn three_figures_keep_three_significant_digits(raw in any::<u64>(), bits in 11u32..=60) {
        let bytes = (raw >> (64 - bits)).max(1000);
        let text = format_scaled(bytes as f64, Scale::DecimalBytes, Precision::ThreeFigures);
        let (number, unit) = text.split_once(' ').unwrap();
        let power = ["kB", "MB", "GB", "TB", "PB", "EB"]
            .iter()
            .position(|u| *u == unit)
            .unwrap_or_else(|| panic!("{text}: unit {unit:?}")) as i32 + 1;
        let shown: f64 = number.parse().unwrap();
        let decimals = number.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        prop_assert!((1.0..1000.0).contains(&shown), "{}", text);
        let expected = if shown < 10.0 { 2 } else if shown < 100.0 { 1 } else { 0 };
        prop_assert_eq!(decimals, expected, "{}", text);
        let exact = bytes as f64 / 1000f64.powi(power);
        let half_digit = 0.5 * 10f64.powi(-decimals);
        prop_assert!(
            (shown - exact).abs() <= half_digit * (1.0 + 1e-9),
            "{} for {} bytes = {} {}", text, bytes, exact, unit
        );
    }
}
