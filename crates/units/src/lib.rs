//! Units for storage benchmarking: fio's size, time, count, percentage, bool and CPU-list
//! syntax, the `kb_base` rules, and the human formatting of bytes, rates, durations and counts.
//!
//! Parsing follows fio's HOWTO exactly where it is defined ("Parameter types" and "Units",
//! <https://fio.readthedocs.io/en/latest/fio_doc.html#parameter-types>). [`parse_size`] and
//! [`parse_time_ns`] refuse, with a message, the inputs fio's code quietly misreads (`1.5m`,
//! `4kfoo`, `30sec`); [`parse_size_as_fio`] and [`parse_time_as_fio`], for the fio front-ends,
//! give fio's value for them with a note that says so. A minus sign is refused by both.
//!
//! Nothing here does IO or panics, whatever the input.
#![forbid(unsafe_code)]

mod constants;
mod cpu;
mod direction;
mod error;
mod fio_reading;
mod format;
mod number;
mod rate;
mod scalar;
mod size;
mod time;

pub use constants::{GIB, GIB_F64, KIB, KIB_F64, MIB, MIB_F64};
pub use cpu::{format_cpu_list, parse_cpu_list, MAX_CPU};
pub use direction::Direction;
pub use error::UnitError;
pub use fio_reading::{parse_int_as_fio, parse_size_as_fio, parse_time_as_fio, FioValue};
pub use format::{
    format_bytes_binary, format_count, format_duration, format_duration_ns, format_iops,
    format_rate_binary, format_rate_decimal, format_scaled, format_thousands, Precision, Scale,
};
pub use rate::parse_rate;
pub use scalar::{parse_bool, parse_decimal_count, parse_float_list, parse_percent};
pub use size::{format_size_suffix, parse_int, parse_size, KbBase};
pub use time::{format_time_suffix, parse_seconds_ns, parse_time_ns, TimeUnit};
