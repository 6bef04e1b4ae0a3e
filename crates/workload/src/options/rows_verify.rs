//! The rows of the option table for verify options (see the module doc of `options`).

use super::OptionDef;

/// The verify rows.
pub(super) static ROWS: &[OptionDef] = &[];
