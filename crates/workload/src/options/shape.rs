//! How a plain option's value moves between its parsed [`Value`] and its [`crate::JobSpec`]
//! field, and the [`plain!`] row that declares such an option in one place.
//!
//! A plain option stores its value in one field as it is and prints the field back as it
//! would be written: a flag in a `bool`, a count in a `u32`, a size in a `u64` of bytes, a
//! time in a `u64` of nanoseconds, free text in an `Option<String>`, a word of a fixed list
//! in the enum it names. Each such pairing is a [`Shape`]: it names the [`OptionKind`] that
//! parses the text, takes the typed value out of the [`Value`], and prints the field. A row
//! written with [`plain!`] gets its kind, setter and shower from its shape, so the option is
//! its name, its field, its default, unit, range and help, and nothing else. Options whose
//! setter does more than store (one value setting two fields, a text parsed by its own
//! grammar) keep a hand-written setter next to their rows.

use super::convert::{
    choice, count, flag, mismatch, nanos, number, pair, set_cap, show_cap, show_flag, text,
    whole_percent,
};
use super::error::InvalidValue;
use super::value::Value;
use super::words::Word;
use super::OptionKind;
use crate::PerDirection;
use diskmeter_units::{format_cpu_list, format_size_suffix, format_time_suffix, KbBase};
use std::marker::PhantomData;
use std::path::PathBuf;

/// One way of storing a parsed option value in a field and printing it back.
pub(crate) trait Shape {
    /// The field's type.
    type Field;
    /// The kind of value the option takes, which picks the parser.
    const KIND: OptionKind;
    /// The typed value out of a parsed value of [`Shape::KIND`]; a count too large for its
    /// field is refused here (ranges are the row's limits, checked before).
    fn take(value: Value) -> Result<Self::Field, InvalidValue>;
    /// Stores a parsed value in the field; on error the field is unchanged. Most shapes
    /// replace the field; a per-direction shape changes only the directions given.
    fn store(field: &mut Self::Field, value: Value) -> Result<(), InvalidValue> {
        *field = Self::take(value)?;
        Ok(())
    }
    /// The field as the option would be written, `None` when it is unset; sizes are printed
    /// under the job's `kb_base`, so the text read back gives the same bytes.
    fn show(field: &Self::Field, kb_base: KbBase) -> Option<String>;
}

/// A `bool` set by a flag (`1`, `0`, or the option alone), printed `1`/`0`.
pub(crate) struct Flag;

impl Shape for Flag {
    type Field = bool;
    const KIND: OptionKind = OptionKind::Flag;
    fn take(value: Value) -> Result<bool, InvalidValue> {
        flag(value)
    }
    fn show(field: &bool, _: KbBase) -> Option<String> {
        Some(show_flag(*field))
    }
}

/// An `Option<bool>` flag whose "unset" means something of its own (`overwrite`).
pub(crate) struct MaybeFlag;

impl Shape for MaybeFlag {
    type Field = Option<bool>;
    const KIND: OptionKind = OptionKind::Flag;
    fn take(value: Value) -> Result<Option<bool>, InvalidValue> {
        flag(value).map(Some)
    }
    fn show(field: &Option<bool>, _: KbBase) -> Option<String> {
        field.map(show_flag)
    }
}

/// A whole number stored in a `u32` (counts, depths, milliseconds), printed plainly.
pub(crate) struct Count;

impl Shape for Count {
    type Field = u32;
    const KIND: OptionKind = OptionKind::Int;
    fn take(value: Value) -> Result<u32, InvalidValue> {
        count(value)
    }
    fn show(field: &u32, _: KbBase) -> Option<String> {
        Some(field.to_string())
    }
}

/// An `Option<u32>` count whose "unset" means "as another option says" (`iodepth_low`).
pub(crate) struct MaybeCount;

impl Shape for MaybeCount {
    type Field = Option<u32>;
    const KIND: OptionKind = OptionKind::Int;
    fn take(value: Value) -> Result<Option<u32>, InvalidValue> {
        count(value).map(Some)
    }
    fn show(field: &Option<u32>, _: KbBase) -> Option<String> {
        field.map(|n| n.to_string())
    }
}

/// A whole number stored in a `u64` (seeds, block counts), printed plainly.
pub(crate) struct Int;

impl Shape for Int {
    type Field = u64;
    const KIND: OptionKind = OptionKind::Int;
    fn take(value: Value) -> Result<u64, InvalidValue> {
        number(value)
    }
    fn show(field: &u64, _: KbBase) -> Option<String> {
        Some(field.to_string())
    }
}

/// A byte size stored in a `u64`, printed with the largest exact suffix (`4k`, `2m`).
pub(crate) struct Bytes;

impl Shape for Bytes {
    type Field = u64;
    const KIND: OptionKind = OptionKind::Size;
    fn take(value: Value) -> Result<u64, InvalidValue> {
        number(value)
    }
    fn show(field: &u64, kb_base: KbBase) -> Option<String> {
        Some(format_size_suffix(*field, kb_base))
    }
}

/// A time stored in a `u64` of nanoseconds; seconds when written without a unit.
pub(crate) struct Time;

impl Shape for Time {
    type Field = u64;
    const KIND: OptionKind = OptionKind::Time;
    fn take(value: Value) -> Result<u64, InvalidValue> {
        nanos(value)
    }
    fn show(field: &u64, _: KbBase) -> Option<String> {
        Some(format_time_suffix(*field))
    }
}

/// A whole percentage, 0 to 100, stored in a `u8` (the row's limits say whole, 0 to 100).
pub(crate) struct Percent;

impl Shape for Percent {
    type Field = u8;
    const KIND: OptionKind = OptionKind::Percent;
    fn take(value: Value) -> Result<u8, InvalidValue> {
        whole_percent(value)
    }
    fn show(field: &u8, _: KbBase) -> Option<String> {
        Some(field.to_string())
    }
}

/// Free text in an `Option<String>`, unset until given (commands, names, prefixes).
pub(crate) struct MaybeText;

impl Shape for MaybeText {
    type Field = Option<String>;
    const KIND: OptionKind = OptionKind::Str;
    fn take(value: Value) -> Result<Option<String>, InvalidValue> {
        text(value).map(Some)
    }
    fn show(field: &Option<String>, _: KbBase) -> Option<String> {
        field.clone()
    }
}

/// Free text that may also be given without a value (fio's `write_bw_log` alone: the job's
/// name is the prefix), read as empty text.
pub(crate) struct MaybeOptionalText;

impl Shape for MaybeOptionalText {
    type Field = Option<String>;
    const KIND: OptionKind = OptionKind::OptionalStr;
    fn take(value: Value) -> Result<Option<String>, InvalidValue> {
        text(value).map(Some)
    }
    fn show(field: &Option<String>, _: KbBase) -> Option<String> {
        field.clone()
    }
}

/// A `u64` of nanoseconds whose option reads microseconds when written without a unit
/// (fio's `thinktime`, `latency_target`).
pub(crate) struct Micros;

impl Shape for Micros {
    type Field = u64;
    const KIND: OptionKind = OptionKind::TimeMicros;
    fn take(value: Value) -> Result<u64, InvalidValue> {
        nanos(value)
    }
    fn show(field: &u64, _: KbBase) -> Option<String> {
        Some(format_time_suffix(*field))
    }
}

/// A time limit in an `Option<u64>` of nanoseconds, where fio reads 0 as "no limit"
/// (`runtime=0`).
pub(crate) struct TimeLimit;

impl Shape for TimeLimit {
    type Field = Option<u64>;
    const KIND: OptionKind = OptionKind::Time;
    fn take(value: Value) -> Result<Option<u64>, InvalidValue> {
        nanos(value).map(|ns| (ns > 0).then_some(ns))
    }
    fn show(field: &Option<u64>, _: KbBase) -> Option<String> {
        field.map(format_time_suffix)
    }
}

/// An `Option<u64>` count where fio reads 0 as "off" (`verify_backlog=0`): unset then.
pub(crate) struct IntOrOff;

impl Shape for IntOrOff {
    type Field = Option<u64>;
    const KIND: OptionKind = OptionKind::Int;
    fn take(value: Value) -> Result<Option<u64>, InvalidValue> {
        number(value).map(|n| (n > 0).then_some(n))
    }
    fn show(field: &Option<u64>, _: KbBase) -> Option<String> {
        field.map(|n| n.to_string())
    }
}

/// A path in an `Option<PathBuf>`, unset until given; an empty path is refused.
pub(crate) struct MaybePath;

impl Shape for MaybePath {
    type Field = Option<PathBuf>;
    const KIND: OptionKind = OptionKind::Str;
    fn take(value: Value) -> Result<Option<PathBuf>, InvalidValue> {
        match text(value)? {
            path if path.is_empty() => Err(InvalidValue::EmptyFileName),
            path => Ok(Some(PathBuf::from(path))),
        }
    }
    fn show(field: &Option<PathBuf>, _: KbBase) -> Option<String> {
        field.as_ref().map(|path| path.display().to_string())
    }
}

/// A word from a fixed list, stored as the enum it names (see `words.rs`).
pub(crate) struct Choice<T>(PhantomData<T>);

impl<T: Word> Shape for Choice<T> {
    type Field = T;
    const KIND: OptionKind = OptionKind::Choice(T::WORDS);
    fn take(value: Value) -> Result<T, InvalidValue> {
        let word = choice(value)?;
        T::from_word(word).ok_or_else(|| mismatch(&Value::Choice(word)))
    }
    fn show(field: &T, _: KbBase) -> Option<String> {
        Some(field.word().to_string())
    }
}

/// A cap per direction in bytes (`rate=100m,20m`); fio reads 0 as "no cap", and a direction
/// left out (`,20m`) keeps its cap.
pub(crate) struct SizeCap;

impl Shape for SizeCap {
    type Field = PerDirection<Option<u64>>;
    const KIND: OptionKind = OptionKind::SizePair;
    fn take(value: Value) -> Result<Self::Field, InvalidValue> {
        let mut field = PerDirection::default();
        Self::store(&mut field, value)?;
        Ok(field)
    }
    fn store(field: &mut Self::Field, value: Value) -> Result<(), InvalidValue> {
        set_cap(field, pair(value)?);
        Ok(())
    }
    fn show(field: &Self::Field, kb_base: KbBase) -> Option<String> {
        show_cap(*field, |bytes| format_size_suffix(bytes, kb_base))
    }
}

/// A count per direction (`rate_iops=5000,3200`), with [`SizeCap`]'s rules.
pub(crate) struct IntCap;

impl Shape for IntCap {
    type Field = PerDirection<Option<u64>>;
    const KIND: OptionKind = OptionKind::IntPair;
    fn take(value: Value) -> Result<Self::Field, InvalidValue> {
        let mut field = PerDirection::default();
        Self::store(&mut field, value)?;
        Ok(field)
    }
    fn store(field: &mut Self::Field, value: Value) -> Result<(), InvalidValue> {
        set_cap(field, pair(value)?);
        Ok(())
    }
    fn show(field: &Self::Field, _: KbBase) -> Option<String> {
        show_cap(*field, |n: u64| n.to_string())
    }
}

/// A CPU list (`0-3,6`) in an `Option<Vec<usize>>`, unset = any CPU.
pub(crate) struct Cpus;

impl Shape for Cpus {
    type Field = Option<Vec<usize>>;
    const KIND: OptionKind = OptionKind::CpuList;
    fn take(value: Value) -> Result<Self::Field, InvalidValue> {
        match value {
            Value::Cpus(cpus) => Ok(Some(cpus)),
            other => Err(mismatch(&other)),
        }
    }
    fn show(field: &Self::Field, _: KbBase) -> Option<String> {
        field.as_deref().map(format_cpu_list)
    }
}

/// Numbers separated by ':' (`50:99:99.9`) in a `Vec<f64>`; how many and their range are
/// the row's limits.
pub(crate) struct Floats;

impl Shape for Floats {
    type Field = Vec<f64>;
    const KIND: OptionKind = OptionKind::FloatList;
    fn take(value: Value) -> Result<Vec<f64>, InvalidValue> {
        match value {
            Value::Floats(list) => Ok(list),
            other => Err(mismatch(&other)),
        }
    }
    fn show(field: &Vec<f64>, _: KbBase) -> Option<String> {
        let items: Vec<String> = field.iter().map(f64::to_string).collect();
        Some(items.join(":"))
    }
}

/// One plain option's row of the table, written once: its fio name and aliases, the field it
/// stores into and the [`Shape`] it stores with (which gives the kind, the setter and the
/// shower), its `--help` heading ([`crate::options::Category`]), its default as written, and optionally its unit and range, then its help.
///
/// ```ignore
/// plain!("end_fsync" => end_fsync: Flag, category Engine, default "0",
///     help "fsync(2) each file when a writing job ends (counted as a sync IO)"),
/// plain!("iodepth_low" => control.iodepth_low: MaybeCount, category Engine, default "",
///     unit "IOs",
///     help "Once the queue is full, let it drain to this depth before filling it again \
///           (unset = keep it full)"),
/// plain!("sync" => sync: Choice<SyncMode>, category Engine, default "none",
///     help "Synchronous writes: 1/sync opens with O_SYNC, dsync with O_DSYNC, 0/none plain"),
/// ```
///
/// The default is the truth for [`crate::JobSpec::default`], which applies every row's
/// default to a blank job.
macro_rules! plain {
    (
        $name:literal $(| $alias:literal)* => $($field:ident).+ : $shape:ident $(<$arg:ty>)?,
        category $category:ident,
        default $default:literal
        $(, unit $unit:literal)?
        $(, limits $limits:expr)?
        , help $help:literal $(,)?
    ) => {
        $crate::options::OptionDef {
            name: $name,
            category: $crate::options::Category::$category,
            aliases: &[$($alias),*],
            kind: <$crate::options::shape::$shape $(<$arg>)? as $crate::options::shape::Shape>::KIND,
            default: $default,
            unit: plain!(@unit $($unit)?),
            help: $help,
            limits: plain!(@limits $($limits)?),
            set: |spec, value| {
                <$crate::options::shape::$shape $(<$arg>)? as $crate::options::shape::Shape>::store(
                    &mut spec.$($field).+,
                    value,
                )
            },
            show: Some(|spec| {
                <$crate::options::shape::$shape $(<$arg>)? as $crate::options::shape::Shape>::show(
                    &spec.$($field).+,
                    spec.kb_base,
                )
            }),
        }
    };
    (@unit) => { "" };
    (@unit $unit:literal) => { $unit };
    (@limits) => { None };
    (@limits $limits:expr) => { Some($limits) };
}
pub(crate) use plain;
