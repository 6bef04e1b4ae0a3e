//! The rows of the option table for trim options (see the module doc of `options`).

use super::OptionDef;

/// The trim rows.
pub(super) static ROWS: &[OptionDef] = &[];
