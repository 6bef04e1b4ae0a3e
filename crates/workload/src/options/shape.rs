//! How a plain option's value moves between its parsed [`Value`] and its [`crate::JobSpec`]
//! field, and the [`plain!`] row that declares such an option in one place.
//!
//! A plain option stores its value in one field as it is and prints the field back as it
//! would be written: a flag in a `bool`, a count in a `u32`, a size in a `u64` of bytes, a
//! time in a `u64` of nanoseconds, free text in a `String`. Each such pairing is a [`Shape`]:
//! it names the [`OptionKind`] that parses the text, takes the typed value out of the
//! [`Value`], and prints the field. A row written with [`plain!`] gets its kind, setter and
//! shower from its shape, so the option is its name, its field, its default, unit, range and
//! help, and nothing else. Options whose setter does more than store (one value setting two
//! fields, a text parsed by its own grammar) keep a hand-written setter next to their rows.

use super::convert::{count, flag, nanos, number, show_flag, text, whole_percent};
use super::error::InvalidValue;
use super::value::Value;
use super::OptionKind;
use diskmeter_units::{format_size_suffix, format_time_suffix, KbBase};

/// One way of storing a parsed option value in a field and printing it back.
pub(crate) trait Shape {
    /// The field's type.
    type Field;
    /// The kind of value the option takes, which picks the parser.
    const KIND: OptionKind;
    /// The typed value out of a parsed value of [`Shape::KIND`]; a count too large for its
    /// field is refused here (ranges are the row's limits, checked before).
    fn take(value: Value) -> Result<Self::Field, InvalidValue>;
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

/// One plain option's row of the table, written once: its fio name and aliases, the field it
/// stores into and the [`Shape`] it stores with (which gives the kind, the setter and the
/// shower), its default as written, and optionally its unit and range, then its help.
///
/// ```ignore
/// plain!("end_fsync" => end_fsync: Flag, default "0",
///     help "fsync(2) every file when a writing job ends"),
/// plain!("iodepth_low" => control.iodepth_low: MaybeCount, default "", unit "IOs",
///     help "Refill the queue only once it has drained to this many IOs; unset = iodepth"),
/// ```
///
/// The default is the truth for [`crate::JobSpec::default`], which applies every row's
/// default to a blank job.
macro_rules! plain {
    (
        $name:literal $(| $alias:literal)* => $($field:ident).+ : $shape:ident,
        default $default:literal
        $(, unit $unit:literal)?
        $(, limits $limits:expr)?
        , help $help:literal $(,)?
    ) => {
        $crate::options::OptionDef {
            name: $name,
            aliases: &[$($alias),*],
            kind: <$crate::options::shape::$shape as $crate::options::shape::Shape>::KIND,
            default: $default,
            unit: plain!(@unit $($unit)?),
            help: $help,
            limits: plain!(@limits $($limits)?),
            set: |spec, value| {
                spec.$($field).+ =
                    <$crate::options::shape::$shape as $crate::options::shape::Shape>::take(value)?;
                Ok(())
            },
            show: Some(|spec| {
                <$crate::options::shape::$shape as $crate::options::shape::Shape>::show(
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
