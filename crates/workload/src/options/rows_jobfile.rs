//! The rows of the option table for jobfile options (see the module doc of `options`).

use super::OptionDef;

/// The jobfile rows.
pub(super) static ROWS: &[OptionDef] = &[];
