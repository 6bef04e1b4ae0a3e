//! The binary size constants, defined once for the whole workspace: every crate that
//! divides bytes into KiB, MiB or GiB uses these, so "MiB" means 2^20 bytes everywhere.
//!
//! Integer forms for byte counts; `_F64` forms for rates and sizes held as `f64` (each is
//! exact: a power of two below 2^53).

/// One kibibyte, 2^10 bytes.
pub const KIB: u64 = 1 << 10;
/// One mebibyte, 2^20 bytes.
pub const MIB: u64 = 1 << 20;
/// One gibibyte, 2^30 bytes.
pub const GIB: u64 = 1 << 30;

/// [`KIB`] as a floating-point divisor.
pub const KIB_F64: f64 = KIB as f64;
/// [`MIB`] as a floating-point divisor (bytes/s / `MIB_F64` = MiB/s).
pub const MIB_F64: f64 = MIB as f64;
/// [`GIB`] as a floating-point divisor.
pub const GIB_F64: f64 = GIB as f64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constant_is_the_power_of_two_its_name_says() {
        assert_eq!(KIB, 1024);
        assert_eq!(MIB, 1024 * 1024);
        assert_eq!(GIB, 1024 * 1024 * 1024);
        assert_eq!(MIB_F64, 1024.0 * 1024.0);
        assert_eq!(GIB_F64 / MIB_F64, KIB_F64);
    }
}
