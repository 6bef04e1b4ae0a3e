//! fio's value syntax on its own: sizes (under both `kb_base`s), whole numbers, times (in
//! each default unit), rates, percentages, booleans, number lists and CPU lists, as every
//! front-end reads them through `diskmeter-units`.
//!
//! An input is one value's text (saved as it is). Promises checked: no message is empty, and
//! what the crate prints it reads back: a size or time it accepts, printed with its suffix,
//! parses to the same number; a CPU list it accepts, printed, parses to the same CPUs.

use crate::gen::Gen;
use crate::{Target, Verdict};
use diskmeter_units::{
    format_cpu_list, format_size_suffix, format_time_suffix, parse_bool, parse_cpu_list,
    parse_float_list, parse_int, parse_int_as_fio, parse_percent, parse_rate, parse_size,
    parse_size_as_fio, parse_time_as_fio, parse_time_ns, KbBase, TimeUnit, UnitError,
};

/// The units target.
pub struct Units;

impl Units {
    /// The target.
    pub fn new() -> Units {
        Units
    }
}

impl Default for Units {
    fn default() -> Self {
        Units::new()
    }
}

/// Pieces values are made of.
const PIECES: &[&str] = &[
    "0x", "0X", "-", "+", ".", ",", ":", "/", " ", "e", "i", "b", "k", "m", "g", "t", "p", "s",
    "ms", "us", "ns", "%", "1", "0", "9",
];

impl Target for Units {
    fn name(&self) -> &'static str {
        "units"
    }

    fn extension(&self) -> &'static str {
        "txt"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        let text = match g.below(10) {
            0 => g.size(),
            1 => g.time(),
            2 => g.percent_text(),
            3 => g.float(),
            4 => format!("0x{:x}{}", g.u64() >> g.below(64), g.size_suffix()),
            5 => {
                let items = g.count(8).max(1);
                (0..items)
                    .map(|_| {
                        // Mostly a machine's CPUs; now and then near the limit, or past it.
                        let top = if g.one_in(20) { 70_000 } else { 256 };
                        format!("{}-{}", g.range(0, top), g.range(0, top))
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            }
            6 => {
                let items = g.count(20).max(1);
                (0..items).map(|_| g.float()).collect::<Vec<_>>().join(":")
            }
            7 => (0..g.range(1, 8)).map(|_| g.word_of(PIECES)).collect(),
            8 => {
                let size = g.size_small();
                crate::mutate::mutate(g, &size, PIECES, &[], 3)
            }
            _ => format!("{}{}", g.number(), g.odd()),
        };
        text.into_bytes()
    }

    fn check(&self, input: &[u8]) -> Verdict {
        check_text(&String::from_utf8_lossy(input))
    }
}

/// Every parser of `diskmeter-units` on `text`, and the round trips of what they accept.
pub fn check_text(text: &str) -> Verdict {
    let mut first_error: Option<UnitError> = None;
    let mut taken = false;
    let mut note = |result: Result<(), UnitError>| match result {
        Ok(()) => taken = true,
        Err(e) => {
            first_error.get_or_insert(e);
        }
    };
    for base in [KbBase::Binary, KbBase::Decimal] {
        match parse_size(text, base) {
            Ok(bytes) => {
                let printed = format_size_suffix(bytes, base);
                if parse_size(&printed, base) != Ok(bytes) {
                    return Verdict::Broken(format!(
                        "{text:?} is {bytes} bytes, printed {printed:?}, which does not read back"
                    ));
                }
                note(Ok(()));
            }
            Err(e) => note(Err(e)),
        }
        note(parse_int(text, base).map(drop));
        // fio's reading agrees with the strict one wherever that one reads the text, and a
        // value read otherwise always says so.
        for (strict, fio) in [
            (parse_size(text, base), parse_size_as_fio(text, base)),
            (parse_int(text, base), parse_int_as_fio(text, base)),
        ] {
            match (&strict, &fio) {
                (Ok(value), Ok(read)) if read.value != *value || read.note.is_some() => {
                    return Verdict::Broken(format!("{text:?}: strict {value}, as fio {read:?}"))
                }
                (Err(_), Ok(read)) if read.note.is_none() => {
                    return Verdict::Broken(format!("{text:?}: read as fio {read:?} with no note"))
                }
                (Ok(value), Err(e)) => {
                    return Verdict::Broken(format!("{text:?}: strict {value}, as fio: {e}"))
                }
                _ => {}
            }
        }
    }
    for unit in [
        TimeUnit::Seconds,
        TimeUnit::Milliseconds,
        TimeUnit::Microseconds,
    ] {
        match (parse_time_ns(text, unit), parse_time_as_fio(text, unit)) {
            (Ok(ns), Ok(read)) if read.note.is_none() && read.value != ns => {
                return Verdict::Broken(format!("{text:?}: strict {ns} ns, as fio {read:?}"))
            }
            (Err(_), Ok(read)) if read.note.is_none() => {
                return Verdict::Broken(format!("{text:?}: read as fio {read:?} with no note"))
            }
            _ => {}
        }
        match parse_time_ns(text, unit) {
            Ok(ns) => {
                let printed = format_time_suffix(ns);
                if parse_time_ns(&printed, unit) != Ok(ns) {
                    return Verdict::Broken(format!(
                        "{text:?} is {ns} ns, printed {printed:?}, which does not read back"
                    ));
                }
                note(Ok(()));
            }
            Err(e) => note(Err(e)),
        }
    }
    match parse_cpu_list(text) {
        Ok(cpus) => {
            let printed = format_cpu_list(&cpus);
            if parse_cpu_list(&printed).as_ref() != Ok(&cpus) {
                return Verdict::Broken(format!(
                    "{text:?} is CPUs {printed:?}, which does not read back"
                ));
            }
            note(Ok(()));
        }
        Err(e) => note(Err(e)),
    }
    note(parse_rate(text).map(drop));
    note(parse_percent(text).map(drop));
    note(parse_bool(text).map(drop));
    note(parse_float_list(text).map(drop));
    // Text one of the parsers takes is accepted (no text suits them all); the others are
    // refused with the first message, and every message must say something.
    match first_error {
        Some(e) if e.to_string().trim().is_empty() => {
            Verdict::Broken(format!("{text:?}: an error with an empty message"))
        }
        _ if taken => Verdict::Accepted,
        Some(e) => crate::refused(e.to_string()),
        None => Verdict::Accepted,
    }
}
